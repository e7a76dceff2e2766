"""The game service's queries: what a game is, who may see what of it, and its log, read without writing.

:class:`GameQueries` is composed into :class:`service.games.GameService`, which adds the
commands; a query never writes, so it needs no retries and no idempotency.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Collection
from typing import Any

from domain import fairness
from domain import table as tables
from domain.events import Event
from domain.fairness import Shuffled
from domain.game import all_games
from persistence.accounts import key_of
from persistence.port import EventStore, StoredEvent
from service.accounts import PLAY, READ, AccountService, Caller, is_account_key
from service.errors import UNKNOWN_TOKEN, BadRequest, Forbidden, InvalidToken, NotFound, Unauthorized, Unavailable
from service.replays import Checkpoints
from service.tables import TableCache, decode
from service.timestamps import timestamp
from service.tokens import TokenSeats

MAX_LIMIT_EVENTS = 1000


def hash_token(token: str) -> str:
    """How a token is stored: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


class GameQueries:
    """The reading half of the game service; what it reads from is set up by :class:`service.games.GameService`."""

    store: EventStore
    cache: TableCache
    token_seats: TokenSeats
    checkpoints: Checkpoints
    accounts: AccountService
    clock: Callable[[], dt.datetime]

    def game_types(self) -> list[dict[str, Any]]:
        """Every game offered, with its player range and options."""
        return [game.describe() for game in all_games().values()]

    def is_game_type(self, game: str) -> bool:
        """Whether ``game`` names a game offered."""
        return game in all_games()

    def table(self, game_id: str) -> tables.Table:
        """The game's table now; NotFound if there is no such game."""
        table = self.cache.get(game_id)
        if table is None:
            raise NotFound(f"no game {game_id!r}")
        return table

    def _table_as_heard(self, game_id: str) -> tables.Table:
        """The table at the newest version this process heard of (or later), without reading the
        version; as :meth:`table` if it heard nothing."""
        heard = self.store.announcements.latest(game_id)
        table = None if heard is None else self.cache.get(game_id, version=heard, trust_cached=True)
        return self.table(game_id) if table is None else table

    def quiet(self, game_id: str, after: int, token: str | None = None) -> bool:
        """Whether, as far as this process has heard, the game is live with nothing after ``after`` for a follower
        with ``token`` (None: a spectator; else a seat token this process knows to act in the game): its table
        is cached at the newest version heard, not past ``after`` (no read of the store: fit for the event loop)."""
        if token is not None:
            seat = None if is_account_key(token) else self.token_seats.known(hash_token(token))
            if seat is None or seat[0] != game_id:
                return False
        table = self.cache.heard_current(game_id)
        return table is not None and table.version <= after and table.status not in tables.OVER

    def exists(self, game_id: str) -> bool:
        """Whether there is a game ``game_id`` (its listing row: no replay)."""
        return self.store.get_game(game_id) is not None

    def is_over(self, game_id: str) -> bool:
        """Whether the game is finished: its log, and every view of it at a version, never change again."""
        return self.table(game_id).status in tables.OVER

    def summary(
        self, game_id: str, table: tables.Table | None = None, created_at: dt.datetime | None = None
    ) -> dict[str, Any]:
        """The game summary of the API (``created_at`` read from the store unless given)."""
        table = table or self.table(game_id)
        if created_at is None:
            record = self.store.get_game(game_id)
            created_at = record.created_at if record else None
        since = dict(table.handed_over)
        return {
            "id": game_id,
            "game": table.game.name,
            "rules_version": table.game.rules_version,
            "players": table.players,
            "options": tables.public_options(table),
            "seats": [
                _seat_summary(index, seat, since.get(index)) for index, seat in enumerate(table.seats)
            ],
            "status": table.status,
            "version": table.version,
            "created_at": created_at,
            "result": table.game.result(table.state) if table.status == tables.FINISHED else None,
            **tables.chance_fixed(table),
            **tables.public_seeds(table),
            "imported_from": table.imported_from,
        }

    def list_games(
        self, *, status: str | Collection[str] | None, game: str | None, limit: int, cursor: str | None
    ) -> dict[str, Any]:
        """A page of game summaries, newest first (``status``: one, or any of several)."""
        try:
            page = self.store.list_games(status=status, game=game, limit=limit, cursor=cursor)
        except ValueError as error:
            raise BadRequest(str(error)) from error
        return {
            "games": [
                self.summary(record.id, self.cache.get(record.id, version=record.version), record.created_at)
                for record in page.games
            ],
            "next_cursor": page.next_cursor,
        }

    def is_token(self, token: str) -> bool:
        """Whether this server gave out ``token``: a seat's token of any game, or an account's key not revoked."""
        if is_account_key(token):
            try:
                return self.accounts.caller(token) is not None
            except Unauthorized:
                return False
        return self.token_seats.get(hash_token(token)) is not None

    def seat_of(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat a bearer token acts for in this game (None for a spectator)."""
        if token is None:
            if required:
                raise Unauthorized("this needs 'Authorization: Bearer TOKEN' from joining a seat")
            return None
        if is_account_key(token):
            return self._account_seat(game_id, self.accounts.caller(token), required=required)
        found = self.token_seats.get(hash_token(token))
        if found is None:
            raise InvalidToken(UNKNOWN_TOKEN)
        token_game, seat = found
        if token_game != game_id:
            raise Forbidden("this token acts for a seat of another game")
        return seat

    def _account_seat(self, game_id: str, caller: Caller | None, *, required: bool) -> int | None:
        """The seat of the game the caller's account holds: to move (``required``, the key's ``play``
        scope), or to see (``play`` or ``read``); a spectator's view for an account without one."""
        assert caller is not None
        if required:
            caller.require(PLAY)
        elif PLAY not in caller.scopes:
            caller.require(READ)
        for index, seat in enumerate(self.table(game_id).seats):
            if seat is not None and seat.account is not None and key_of(seat.account) == caller.key:
                return index
        if required:
            raise Forbidden(f"the account {caller.account.name!r} holds no seat of this game")
        return None

    def view(self, game_id: str, token: str | None, at: int | None = None) -> dict[str, Any]:
        """The caller's (or a spectator's) view, now or as it stood after event ``at``."""
        table = self.table(game_id)
        seat = self.seat_of(game_id, token, required=False)
        if at is None:
            # (an abandoned seat's token is shown no moves: it may make none)
            return with_deadline(tables.view(table, seat, with_moves=seat not in table.abandoned), table,
                                  self._turn_began(game_id, table))
        if not 1 <= at <= table.version:
            raise NotFound(f"version {at} does not exist: the game is at version {table.version}")
        past = self.checkpoints.table_at(game_id, at)
        return with_deadline(tables.view(past, seat, reveal_all=tables.reveal(table), with_moves=False), past,
                              self._turn_began(game_id, past))

    def seat_view(self, game_id: str, seat: int, table: tables.Table) -> dict[str, Any]:
        """``seat``'s view of ``table`` (game ``game_id`` now), as its token is shown it: what a webhook bot is sent."""
        return with_deadline(tables.view(table, seat), table, self._turn_began(game_id, table))

    def _turn_began(self, game_id: str, table: tables.Table) -> dt.datetime | None:
        """When the turn a clocked table waits for began: the time its event was recorded."""
        if table.clock is None or not table.clock.waiting:
            return None
        return self.store.read(game_id, after=table.clock.turn_version - 1, limit=1)[0].recorded_at

    def events(
        self, game_id: str, token: str | None, *, after: int = 0, limit: int = 100, as_heard: bool = False,
    ) -> dict[str, Any]:
        """The log after ``after`` as the caller may see it; ``over`` (not part of the API's page) says
        whether the game was finished when it was read, so its log never changes again. ``as_heard``: up
        to the newest version this process heard of, without reading it (for followers woken by that
        announcement; a later append wakes them again)."""
        table = self._table_as_heard(game_id) if as_heard else self.table(game_id)
        seat = self.seat_of(game_id, token, required=False)
        # (no further than the table: the page's last version is the table's, whatever came since)
        stored = self.store.read(game_id, after=after, limit=min(limit, MAX_LIMIT_EVENTS, table.version - after)) \
            if table.version > after else []
        return {
            "events": [self.render_event(table, event, seat) for event in stored],
            "last_version": table.version,
            "over": table.status in tables.OVER,
        }

    def audit(self, game_id: str) -> dict[str, Any]:
        """Every shuffle's commitment and, once the game is over, its salt, order and checks (API "Fairness"),
        with the game's chance material as everyone sees it."""
        table = self.table(game_id)
        stored = self.store.read(game_id, after=0, limit=table.version)  # (the log as far as ``table`` goes)
        rules = table.game.rules_version  # (only the shuffles are decoded: an audit costs a read, not a replay)
        shuffles = [(event.version, decode(rules, event)) for event in stored
                    if issubclass(tables.event_class(rules, event.type), Shuffled)]
        over = tables.reveal(table)
        checked = fairness.audit(shuffles, over=over, seeds=table.seeds, decks=table.options.get("decks"))
        return {**checked, **tables.chance_fixed(table), **tables.public_seeds(table),
                "entropy": [seat.entropy if seat else None for seat in table.seats]}

    def render_event(self, table: tables.Table, stored: StoredEvent, seat: int | None) -> dict[str, Any]:
        """One stored event as ``seat`` may see it, given the table now."""
        return render(table, decode(table.game.rules_version, stored), stored.version, stored.recorded_at, seat)

    def idle_games(self, limits: tables.IdleLimits, batch: int = 500) -> list[str]:
        """The games waiting or active that nobody changed for longer than ``limits`` allow (by the listing)."""
        now = self.clock()
        found = []
        for status, limit in ((tables.WAITING, limits.waiting), (tables.ACTIVE, limits.active)):
            cursor = None
            while limit is not None:
                page = self.store.list_games(status=status, limit=batch, cursor=cursor)
                found += [game.id for game in page.games if (now - game.updated_at).total_seconds() >= limit]
                if (cursor := page.next_cursor) is None:
                    break
        return found

    def cached_tables(self) -> int:
        """How many games' tables this process holds in memory (a gauge of its metrics)."""
        return len(self.cache)

    def pool_use(self) -> tuple[int, int] | None:
        """The database connections in use and the pool's size, for a store with a pool (a gauge too)."""
        return self.store.pool_use()

    def health(self) -> dict[str, Any]:
        """Liveness, database reachability (StoreUnavailable when it is out of reach) and its schema
        (Unavailable unless it is at the revision this code needs): both answered 503."""
        self.store.ping()
        problem = self.store.schema_problem()
        if problem is not None:
            raise Unavailable(problem)
        return {"status": "ok", "database": "ok"}


def deadline(table: tables.Table, turn_began: dt.datetime | None) -> dt.datetime | None:
    """When the turn a clocked table waits for times out, given when it began (the domain counts seconds)."""
    due = tables.deadline(table, None if turn_began is None else turn_began.timestamp())
    return None if due is None else dt.datetime.fromtimestamp(due, dt.UTC)


def with_deadline(view: dict[str, Any], table: tables.Table, turn_began: dt.datetime | None) -> dict[str, Any]:
    """A clocked table's view with its ``deadline`` (RFC 3339 UTC, or null while it waits for no seat)."""
    if table.clock is not None:
        due = deadline(table, turn_began)
        view["deadline"] = None if due is None else timestamp(due)
    return view


def _seat_summary(index: int, seat: tables.Seat | None, bot_since: int | None) -> dict[str, Any]:
    """A seat as a game's summary shows it: an account's with its name and whether it is a bot's."""
    if seat is None:
        return {"seat": index, "name": None, "bot": None, "taken": False, "bot_since": None, "entropy": None,
                "account": None}
    bot = seat.bot_account if seat.account is not None and bot_since is None else seat.bot
    return {"seat": index, "name": seat.name, "bot": bot, "taken": True, "bot_since": bot_since,
            "entropy": seat.entropy, "account": seat.account}


def render(table: tables.Table, event: Event, version: int, recorded_at: dt.datetime,
            seat: int | None) -> dict[str, Any]:
    """The event at ``version`` as ``seat`` may see it, given the table now."""
    return {
        "version": version,
        "type": event.type_name(),
        "seat": event.seat,
        "data": tables.redact(table, event, seat),
        "recorded_at": timestamp(recorded_at),
    }
