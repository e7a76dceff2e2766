"""Pools, tournaments, leaderboards and each account's ratings (a projection of the rated games' results: service.ratings)."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import current_app
from flask.views import MethodView
from marshmallow import fields, validate

from api import examples
from api.accounts import ACCOUNT_NAME, BEARER, FiguresSchema, _bodies_are_json, caller
from api.context import service
from api.parsing import Blueprint
from api.schemas import (
    CURSOR_PATTERN,
    GAME_ID_PATTERN,
    GAME_NAME_PATTERN,
    JsonBoolean,
    JsonInteger,
    Pattern,
    QueryInteger,
    Strict,
    Timestamp,
)
from service.accounts import CREATE, PLAY
from service.pools import Pools
from service.ratings import Ratings
from service.tournament_list import FINISHED, RUNNING, list_tournaments
from service.tournaments import MOVE_SECONDS, Tournaments

blp = Blueprint("ladder", __name__, url_prefix="/v1", description="Pools, leaderboards and ratings.")
blp.before_request(_bodies_are_json)

#: A leaderboard's cursor: the ordinal (as Python writes a float, to the last bit) and name key of a page's last account.
CURSOR = r"^-?[0-9]{1,20}(\.[0-9]{1,20})?(e[-+][0-9]{1,3})?~[a-z0-9_-]{1,32}$"
PROBLEMS = {**examples.PROBLEM_TEXT,
            403: "insufficient_scope: the API key lacks the scope this needs; or forbidden: a tournament names a "
                 "person's account or a bot that does not let its maker enter it",
            404: "not_found: no such game type, account or tournament, or the account is not in the pool",
            409: "too_many_tournaments: an account named is in as many running tournaments other accounts made as "
                 "it may be"}


def ratings() -> Ratings:
    return Ratings(service())


def pools() -> Pools:
    return Pools(service(), current_app.config["CARDHALL_POOL_MOVE_SECONDS"])


problems = examples.problems_documenter(blp, PROBLEMS, examples.ACCOUNT_PROBLEMS)


class LeaderboardQuerySchema(Strict):
    limit = QueryInteger(load_default=50, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=Pattern(CURSOR),
                           metadata={"description": "next of the previous page: the position after its last account",
                                     "pattern": CURSOR})


class EntrySchema(FiguresSchema):
    rank = fields.Integer(metadata={"description": "one more than the accounts of a higher ordinal: equal ordinals "
                                                   "share a rank (1, 1, 3)"})
    account = fields.String()


class LeaderboardSchema(ma.Schema):
    entries = fields.List(fields.Nested(EntrySchema))
    next = fields.String(allow_none=True, metadata={"description": "the cursor of the next page, or null"})
    min_games = fields.Integer(metadata={"description": "rated games an account needs to be listed"})


class ChangeSchema(ma.Schema):
    game_id = fields.String()
    place = fields.Integer(metadata={"description": "1: won, 2: lost, 3: left the game (a loss)"})
    mu = fields.Float()
    sigma = fields.Float()
    ordinal = fields.Float()
    at = Timestamp()


class GameRatingSchema(FiguresSchema):
    game = fields.String()
    history = fields.List(fields.Nested(ChangeSchema), metadata={"description": "the last 100 changes, oldest first"})


class AccountRatingsSchema(ma.Schema):
    ratings = fields.List(fields.Nested(GameRatingSchema))


@blp.route("/leaderboards/<game_name:game>")
class Leaderboard(MethodView):
    @blp.doc(operationId="getLeaderboard")
    @blp.arguments(LeaderboardQuerySchema(), location="query")
    @blp.response(200, LeaderboardSchema)
    @problems(404, 422)
    def get(self, query: dict[str, Any], game: str) -> dict[str, Any]:
        """The game's rated accounts by ordinal (μ − 3σ), best first, those with fewer rated games than
        the server's minimum left out; paged by ``cursor``."""
        return ratings().leaderboard(game, int(current_app.config["CARDHALL_LEADERBOARD_MIN_GAMES"]),
                                     query["limit"], query.get("cursor"))


@blp.route("/accounts/<account_name:name>/ratings")
class AccountRatings(MethodView):
    @blp.doc(operationId="getAccountRatings")
    @blp.response(200, AccountRatingsSchema)
    @problems(404)
    def get(self, name: str) -> dict[str, Any]:
        """The account's rating in every game it played rated, with its history."""
        service().accounts.account(name)  # (404 for no such account)
        return ratings().of_account(name)


class JoinPoolSchema(Strict):
    players = fields.List(JsonInteger(validate=validate.Range(min=1, max=16)), required=True,
                          validate=validate.Length(min=1, max=16),
                          metadata={"description": "the player counts accepted", "example": [2, 3]})
    rated = JsonBoolean(load_default=True)
    concurrency = JsonInteger(load_default=1, validate=validate.Range(min=1, max=50),
                              metadata={"description": "games played at once (1 to 50): it is paired while it sits in fewer "
                                                         "games not over, whoever made them"})
    mixed = JsonBoolean(load_default=False, metadata={
        "description": "also sit with accounts of the other kind (a bot with people); only where both opted in"})


class PoolEntrySchema(ma.Schema):
    game = fields.String()
    account = fields.String()
    players = fields.List(fields.Integer())
    rated = fields.Boolean()
    mixed = fields.Boolean()
    concurrency = fields.Integer()
    move_seconds = fields.Integer(metadata={"description": "the clock every game of the pool runs"})
    joined_at = Timestamp()


@blp.route("/pools/<game_name:game>/join")
class PoolJoin(MethodView):
    @blp.doc(operationId="joinPool", security=BEARER)
    @blp.arguments(JoinPoolSchema())
    @blp.response(200, PoolEntrySchema)
    @problems(400, 401, 403, 404, 415, 422)
    def post(self, body: dict[str, Any], game: str) -> dict[str, Any]:
        """Wait in the game's pool (the ``play`` scope): the server seats the account with others
        waiting (closest ratings first, widening with the wait) and announces each game as
        ``gameStart`` on the account's stream. Joining again replaces the entry."""
        return pools().join(caller(PLAY), game, body["players"], body["rated"], body["concurrency"],
                                     body["mixed"])

    @blp.doc(operationId="getPoolEntry", security=BEARER)
    @blp.response(200, PoolEntrySchema)
    @problems(401, 403, 404)
    def get(self, game: str) -> dict[str, Any]:
        """The account's entry in the game's pool, as its join answered it (the ``play`` scope); 404 when it is not
        waiting there: a bot started again asks whether it still waits, and for what."""
        return pools().entry(caller(PLAY), game)

    @blp.doc(operationId="leavePool", security=BEARER)
    @blp.response(204)
    @problems(401, 403, 404)
    def delete(self, game: str) -> None:
        """Leave the game's pool: no game is made for the account once this has answered."""
        pools().leave(caller(PLAY), game)


class CreateTournamentSchema(Strict):
    game = fields.String(required=True, validate=Pattern(GAME_NAME_PATTERN),
                         metadata={"example": "craits", "pattern": GAME_NAME_PATTERN})
    format = fields.String(load_default="round_robin", validate=validate.OneOf(["round_robin", "swiss"]),
                           metadata={"description": "round_robin (every game made at once) or swiss (a round "
                                                    "at a time, accounts of nearest standing meeting)"})
    accounts = fields.List(fields.String(validate=Pattern(ACCOUNT_NAME), metadata={"pattern": ACCOUNT_NAME}),
                           required=True,
                           validate=validate.Length(min=2, max=16))
    players_per_table = JsonInteger(load_default=2, validate=validate.Range(min=1, max=16))
    rounds = JsonInteger(load_default=1, validate=validate.Range(min=1, max=10),
                         metadata={"description": "round_robin: times it is played (1 to 10); swiss: its rounds "
                                                "(1 to one fewer than the accounts, at most 10)"})
    duplicate = JsonBoolean(load_default=True, metadata={
        "description": "each deal played once per seat, the seats rotated, with the same cards"})
    move_seconds = JsonInteger(load_default=MOVE_SECONDS, validate=validate.Range(min=1, max=86_400), metadata={
        "description": "the clock every game of the tournament runs: seconds a turn may take (default 10)"})
    replay_of = fields.String(validate=Pattern(GAME_ID_PATTERN), metadata={
        "pattern": GAME_ID_PATTERN,
        "description": "A finished tournament's id: the new one, of the same game, format, players_per_table, "
                       "rounds, duplicate and number of accounts, takes its hidden seed, so the same deals (and "
                       "the same pairings' lots) in the open"})


class StandingSchema(ma.Schema):
    rank = fields.Integer(metadata={"description": "one more than the accounts with more points: equal points share "
                                                   "a rank (1, 1, 3)"})
    account = fields.String()
    points = fields.Float(metadata={"description": "a game's winners share one point; a seat left scores none"})
    games = fields.Integer(metadata={"description": "games finished"})
    byes = fields.Integer(metadata={"description": "Swiss rounds sat out, each worth the byes' points"})
    mean = fields.Float(metadata={"description": "points a game, byes aside"})
    interval = fields.List(fields.Float(), metadata={"description": "95 % confidence interval of the mean"})


class TournamentGameSchema(ma.Schema):
    game_id = fields.String()
    round = fields.Integer(metadata={"description": "the round (round robin: the time it is played), from 1"})
    table = fields.Integer(metadata={"description": "the round's table: one deal"})
    turn = fields.Integer(metadata={"description": "the rotation: seat s holds the table's account (s + turn) % k"})
    seats = fields.List(fields.String())
    status = fields.String()


class ByeSchema(ma.Schema):
    round = fields.Integer()
    account = fields.String()
    points = fields.Float(metadata={"description": "an account's mean points in a round: 1 with duplicate deals, "
                                                   "else 1 / players_per_table"})


class TournamentSummarySchema(ma.Schema):
    """A tournament as the list shows it; the one tournament's GET shows more (:class:`TournamentSchema`)."""

    id = fields.String()
    creator = fields.String()
    game = fields.String()
    format = fields.String()
    accounts = fields.List(fields.String())
    round = fields.Integer(metadata={"description": "the rounds made so far (swiss: the current round)"})
    rounds = fields.Integer()
    status = fields.String(metadata={"description": "running, or finished once every round is made and every "
                                                    "game is over"})
    created_at = Timestamp()


class TournamentSchema(TournamentSummarySchema):
    players_per_table = fields.Integer()
    duplicate = fields.Boolean()
    move_seconds = fields.Integer(metadata={"description": "the clock every game of the tournament runs"})
    replay_of = fields.String(allow_none=True, metadata={"description": "The tournament whose deals this one "
                                                         "replays, or null"})
    standings = fields.List(fields.Nested(StandingSchema))
    crosstable = fields.Dict(keys=fields.String(), values=fields.Dict(keys=fields.String(), values=fields.Float()),
                             metadata={"description": "points each account scored in the games it shared with each other"})
    games = fields.List(fields.Nested(TournamentGameSchema))
    byes = fields.List(fields.Nested(ByeSchema), metadata={"description": "swiss: who sat out which round"})


class TournamentListQuerySchema(Strict):
    status = fields.String(validate=validate.OneOf([RUNNING, FINISHED]),
                           metadata={"description": "only running, or only finished, tournaments"})
    account = fields.String(validate=Pattern(ACCOUNT_NAME), metadata={
        "pattern": ACCOUNT_NAME, "description": "only the tournaments this account is in"})
    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=Pattern(CURSOR_PATTERN),
                           metadata={"description": "next of the previous page", "pattern": CURSOR_PATTERN})


class TournamentListSchema(ma.Schema):
    tournaments = fields.List(fields.Nested(TournamentSummarySchema))
    next = fields.String(allow_none=True, metadata={"description": "the cursor of the next page, or null"})


@blp.route("/tournaments")
class TournamentsRoute(MethodView):
    @blp.doc(operationId="listTournaments")
    @blp.arguments(TournamentListQuerySchema(), location="query")
    @blp.response(200, TournamentListSchema)
    @problems(404, 422)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Tournaments, newest first: only running or finished ones (``status``), only those an ``account`` is
        in; paged by ``cursor``. Asked for a status, a page reads at most four times ``limit`` tournaments:
        it may hold fewer than ``limit`` (even none) and still have a ``next``; read on until ``next`` is null.
        The standings are the one tournament's (``GET /v1/tournaments/{tournament_id}``)."""
        return list_tournaments(service(), query["limit"], query.get("cursor"), query.get("status"),
                                query.get("account"))

    @blp.doc(operationId="createTournament", security=BEARER)
    @blp.arguments(CreateTournamentSchema())
    @blp.response(201, TournamentSchema)
    @problems(400, 401, 403, 404, 409, 415, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """A round robin (every game made at once) or a Swiss tournament (its first round now, each
        next one once the round before is over) among the named accounts (the ``create`` scope), each
        deal played duplicate; each participant hears ``tournamentStart`` (``tournamentRound`` for a
        later Swiss round) and its ``gameStart``s. With ``replay_of``, the deals of that finished
        tournament again. It names the maker's own account and bots that let the maker enter them (their
        ``tournaments.entered_by``: else 403 ``forbidden``), each in fewer than 4 running tournaments other
        accounts made (else 409 ``too_many_tournaments``)."""
        return Tournaments(service()).create(caller(CREATE), body["game"], body["accounts"],
                                             body["players_per_table"], body["format"], body["rounds"],
                                             body["duplicate"], body.get("replay_of"), body["move_seconds"])


@blp.route("/tournaments/<id:tournament_id>")
class TournamentRoute(MethodView):
    @blp.doc(operationId="getTournament")
    @blp.response(200, TournamentSchema)
    @problems(404)
    def get(self, tournament_id: str) -> dict[str, Any]:
        """The tournament: standings (points, mean, 95 % interval), crosstable and every game."""
        return Tournaments(service()).get(tournament_id)
