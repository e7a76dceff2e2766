"""Tournaments among named accounts, their deals played duplicate, standings read from the games.

A round robin makes every game at once, in one transaction (domain.tournaments says who sits
where). A Swiss tournament makes its first round at once and each later one when every game of the
round before is over: :meth:`Tournaments.advance_all`, run by every server process every few
tenths of a second, finds the open Swiss tournaments whose round is over, pairs the next round from
the standings (:func:`domain.tournaments.swiss`, with the tournament's seed) and writes its games
with one update of the tournament conditional on the rounds it has made (``next_round``): of
several processes (or one restarted half-way) that made the same round, one commits it and the
others write nothing, so each round is made exactly once.

Each table of a round is one deal, played ``players_per_table`` times with the seats rotated when
``duplicate``; the games of a deal share their stacked decks (``decks``: 64 card orders, one for each
deal of the game in turn) and their first dealer (seat 0), so every rotation is dealt the same cards
seat for seat (a reshuffle of the discards depends on the play, as at any table).

Every tournament draws one seed at its creation, kept in its spec and never shown: each deal's decks
derive from it (:func:`service.chance.tournament_decks`, keyed with the deployment's secret) and so
do the Swiss pairings' lots, so the seed alone fixes every deal. A replay (``replay_of``) takes a
finished tournament's seed, in the open: with the same accounts and deterministic bots it plays the
same games, and with other accounts the same deals (bots compared duplicate across tournaments).
Every game runs a clock (``move_seconds``: the tournament's, 10 unless its maker chose) and every
participant hears ``tournamentStart`` on its stream (``tournamentRound`` for each later Swiss round),
then ``gameStart`` for each of its games.
Standings, the crosstable and the games are read from the games themselves whenever asked for.

Who may enter whom: a person only itself, in a tournament it makes; a bot, the accounts its
``entered_by`` lets (anyone until it says otherwise, nobody, or those it names; itself always). Whatever a bot lets, it is in at
most :data:`MAX_RUNNING` running tournaments that other accounts made, counted in the write that would
make one more, once that write has locked the accounts (:func:`_within_bound`).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from domain import table as tables
from domain.errors import InvalidOptions
from domain.game import all_games
from domain.ladder import places
from domain.tournaments import (
    Pairing,
    bye_points,
    crosstable,
    max_swiss_rounds,
    ranks,
    rotation,
    round_robin,
    standings,
    swiss,
)
from persistence.accounts import ANYONE, NOBODY, Account, AccountWrites, key_of
from persistence.ladder import LadderStore, LadderWrites, Tournament, entered_by_another, ladder_of, running
from persistence.port import Transaction
from service.accounts import CREATE, Caller
from service.challenges import AccountsGame
from service.chance import tournament_decks
from service.errors import Forbidden, NotFound, TooManyTournaments
from service.games import GameService

ROUND_ROBIN, SWISS = "round_robin", "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
MAX_GAMES = 120
DECKS = 64  # stacked decks a duplicate deal brings: the most the option takes
MOVE_SECONDS = 10
#: Running tournaments made by other accounts that an account may be in at once, whoever it lets enter it.
MAX_RUNNING = 4
#: What a replay (``replay_of``) shares with its original, beside the game and the number of accounts.
SHAPE = ("format", "players_per_table", "rounds", "duplicate")

Results = list[tuple[list[str], list[int]]]


class Tournaments:
    """The tournament use cases over the game service's stores."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.ladder: LadderStore = ladder_of(games.store)
        self._chance = random.SystemRandom()

    def create(self, caller: Caller, game: str, accounts: list[str], players_per_table: int,
               format: str = ROUND_ROBIN, rounds: int = 1, duplicate: bool = True,
               replay_of: str | None = None, move_seconds: int = MOVE_SECONDS) -> dict[str, Any]:
        """A round robin (every game made now) or a Swiss tournament (its first round made now) among
        ``accounts`` at tables of ``players_per_table`` (``replay_of``: a finished tournament of the same
        shape whose seed, and so whose deals, it takes), every game on a clock of ``move_seconds``."""
        caller.require(CREATE)
        if format not in FORMATS:
            raise InvalidOptions(f"format is one of {', '.join(FORMATS)}")
        names = self._accounts(caller, accounts)
        kind = all_games().get(game)
        if kind is None:  # (a body's game, as POST /v1/games and /v1/challenges refuse one: 422)
            raise InvalidOptions(f"unknown game {game!r}; offered: {', '.join(sorted(all_games()))}")
        if not kind.min_players <= players_per_table <= min(kind.max_players, len(names)):
            raise InvalidOptions(f"players_per_table is {kind.min_players} to {min(kind.max_players, len(names))} "
                                 f"for {game} among {len(names)} accounts")
        spec = {"format": format, "accounts": names, "players_per_table": players_per_table, "rounds": rounds,
                "duplicate": duplicate, "replay_of": replay_of, "move_seconds": move_seconds}
        spec["seed"] = self._new_seed() if replay_of is None else self._seed_of(replay_of, game, spec)
        schedule, byes = self._swiss(spec) if format == SWISS else _round_robin(spec)
        made = self._prepare(game, spec, schedule)
        tournament = Tournament(self.games.new_id(), caller.account.name, game, spec,
                                [entry for entry, _ in made], self.games.clock(),
                                current_round=1 if format == SWISS else rounds,
                                open=format == SWISS and rounds > 1, byes=byes)

        def work(tx: Transaction, writes: AccountWrites) -> None:
            with self.ladder.within(tx) as ladder:
                ladder.add_tournament(tournament)
                self._announce(tx, writes, tournament, "tournamentStart", made, byes)
                _within_bound(ladder, writes, tournament)  # (last: _announce has locked the accounts)

        self.games.accounts.write(work)
        for _, started in made:
            started.cached()
        return self.get(tournament.id)

    def _swiss(self, spec: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """A Swiss tournament's first round and its byes, drawn from its seed."""
        names, rounds, per_table = spec["accounts"], spec["rounds"], _games_a_table(spec)
        if not 1 <= rounds <= max_swiss_rounds(len(names)):
            raise InvalidOptions(f"rounds is 1 to {max_swiss_rounds(len(names))} for a Swiss tournament of "
                                 f"{len(names)} accounts (fewer rounds than accounts, at most 10)")
        first = swiss(dict.fromkeys(names, 0.0), [], spec["players_per_table"], spec["seed"])
        _at_most_max_games(rounds * len(first.tables) * per_table)
        return _schedule(1, first, per_table), _byes(1, first)

    def _new_seed(self) -> str:
        """A new tournament's seed: 64 bits from the system's cryptographic source, as hex."""
        return f"{self._chance.getrandbits(64):016x}"

    def _seed_of(self, replay_of: str, game: str, spec: dict[str, Any]) -> str:
        """The seed of tournament ``replay_of`` for a replay of it shaped by ``game`` and ``spec``: only a
        finished tournament's (its deals are then in the open), of the same shape, whose deals its seed made."""
        original = self.ladder.tournament(replay_of)
        if original is None:
            raise NotFound(f"replay_of: no tournament {replay_of!r}")
        if original.open or not all(table.status in tables.OVER for table in self._tables(original)):
            raise InvalidOptions(f"replay_of: tournament {replay_of} is running; only a finished tournament "
                                 "may be replayed, once every card of its deals has been seen")
        shape = {"game": original.game, "accounts": len(original.spec["accounts"]),
                 **{key: original.spec[key] for key in SHAPE}}
        asked = {"game": game, "accounts": len(spec["accounts"]), **{key: spec[key] for key in SHAPE}}
        differ = [f"{key} {shape[key]!r}, not {asked[key]!r}" for key in shape if shape[key] != asked[key]]
        if differ:
            raise InvalidOptions(f"replay_of: a replay has its original's game, format, players_per_table, rounds, "
                                 f"duplicate and number of accounts; tournament {replay_of} has {'; '.join(differ)}")
        if not self._dealt_from_seed(original):
            raise InvalidOptions(f"replay_of: tournament {replay_of} was dealt before tournaments' deals came from "
                                 "their seed; it cannot be replayed")
        return str(original.spec["seed"])

    def _dealt_from_seed(self, tournament: Tournament) -> bool:
        """Whether the tournament's seed made its deals (not so for one made before seeds did)."""
        seed, first = tournament.spec.get("seed"), tournament.games[0]
        if seed is None:
            return False
        decks = self.games.table(first["game_id"]).options.get("decks") or [[]]
        return [list(decks[0])] == tournament_decks(seed, first["round"], first["table"], self.games.shuffle_secret, 1)

    def advance_all(self) -> list[str]:
        """The next round of every open Swiss tournament whose round is over; the games made."""
        return [game_id for tournament_id in self.ladder.open_tournaments() for game_id in self.advance(tournament_id)]

    def advance(self, tournament_id: str) -> list[str]:
        """The tournament's next round if its round is over (and no process made it meanwhile); its games."""
        tournament = self.ladder.tournament(tournament_id)
        if tournament is None or not tournament.open:
            return []
        now = self._tables(tournament)
        if not all(table.status in tables.OVER for table in now):
            return []
        results = _results(tournament, now)
        spec, number = tournament.spec, tournament.current_round + 1
        standing = standings(spec["accounts"], results, _bye_points(tournament))
        pairing = swiss({row.account: row.points for row in standing}, _pairings(tournament),
                        spec["players_per_table"], spec["seed"])
        made = self._prepare(tournament.game, spec, _schedule(number, pairing, _games_a_table(spec)))
        byes = _byes(number, pairing)

        def work(tx: Transaction, writes: AccountWrites) -> bool:
            with self.ladder.within(tx) as ladder:
                if not ladder.next_round(tournament, [entry for entry, _ in made], byes, number < spec["rounds"]):
                    return False  # (another process made this round first)
                self._announce(tx, writes, tournament, "tournamentRound", made, byes, number)
                return True

        if not self.games.accounts.write(work):
            return []
        for _, started in made:
            started.cached()
        return [entry["game_id"] for entry, _ in made]

    def exists(self, tournament_id: str) -> bool:
        """Whether there is a tournament ``tournament_id``."""
        return self.ladder.tournament(tournament_id) is not None

    def get(self, tournament_id: str) -> dict[str, Any]:
        """The tournament: what was asked for, its round, standings and crosstable so far, every game."""
        tournament = self.ladder.tournament(tournament_id)
        if tournament is None:
            raise NotFound(f"no tournament {tournament_id!r}")
        now = self._tables(tournament)  # (each game read once: the standings are of the games listed, as listed)
        results = _results(tournament, now)
        listed = [{**entry, "status": table.status} for entry, table in zip(tournament.games, now, strict=True)]
        finished = all(entry["status"] in tables.OVER for entry in listed) and not tournament.open
        spec = {"replay_of": None, "move_seconds": MOVE_SECONDS,  # (older tournaments' specs lack the clock)
                **{key: value for key, value in tournament.spec.items() if key != "seed"}}
        points = bye_points(spec["players_per_table"], spec["duplicate"])
        standing = standings(spec["accounts"], results, _bye_points(tournament))
        return {"id": tournament.id, "creator": tournament.creator, "game": tournament.game, **spec,
                "round": tournament.current_round, "status": "finished" if finished else "running",
                "created_at": tournament.created_at,
                "standings": [{"rank": rank, "account": row.account, "points": row.points, "games": row.games,
                               "byes": row.byes, "mean": row.mean, "interval": [row.low, row.high]}
                              for rank, row in zip(ranks(standing), standing, strict=True)],
                "crosstable": crosstable(results), "games": listed,
                "byes": [{**bye, "points": points} for bye in tournament.byes]}

    def _tables(self, tournament: Tournament) -> list[tables.Table]:
        """The tournament's games as they stand, in its order."""
        return [self.games.table(entry["game_id"]) for entry in tournament.games]

    def _prepare(self, game: str, spec: dict[str, Any],
                 schedule: list[dict[str, Any]]) -> list[tuple[dict[str, Any], AccountsGame]]:
        """Each scheduled game prepared, on the tournament's clock; the games of a deal (a round's table)
        share their decks, drawn from the tournament's seed."""
        decks: dict[tuple[int, int], list[list[str]]] = {}
        made = []
        for entry in schedule:
            deal = (entry["round"], entry["table"])
            if deal not in decks:
                decks[deal] = tournament_decks(spec["seed"], *deal, self.games.shuffle_secret, DECKS)
            options: dict[str, Any] = {"decks": decks[deal], "move_seconds": spec.get("move_seconds", MOVE_SECONDS)}
            if "first_dealer" in all_games()[game].options:
                options["first_dealer"] = 0
            started = AccountsGame.prepare(self.games, game, entry["seats"], options, rated=False)
            made.append(({"game_id": started.game_id, **entry}, started))
        return made

    def _announce(self, tx: Transaction, writes: AccountWrites, tournament: Tournament, kind: str,
                  made: list[tuple[dict[str, Any], AccountsGame]], byes: list[dict[str, Any]],
                  number: int = 1) -> None:
        """Each participant told ``kind`` (its games, whether it has a bye), then the games written; the
        participants in the order of their keys, as every writer locks accounts (service.accounts.record_status)."""
        sitting_out, now = {bye["account"] for bye in byes}, self.games.clock()
        for name in sorted(tournament.spec["accounts"], key=key_of):
            mine = [entry["game_id"] for entry, _ in made if name in entry["seats"]]
            writes.append(key_of(name), kind, {"tournament_id": tournament.id, "game": tournament.game,
                                               "round": number, "games": mine, "bye": name in sitting_out}, now)
        AccountsGame.write_all(tx, writes, [started for _, started in made])

    def _accounts(self, caller: Caller, accounts: Any) -> list[str]:
        """The named accounts' names as given at sign-up, each once: the caller itself, and bots that let the
        caller enter them (:func:`_require_consent`)."""
        if not isinstance(accounts, list) or not 2 <= len(accounts) <= 16:
            raise InvalidOptions("accounts names 2 to 16 accounts")
        found = []
        for name in accounts:
            account = self.games.accounts.store.account(name)
            if account is None:
                raise NotFound(f"no account {name!r}")
            if key_of(account.name) != caller.key:
                _require_consent(account, caller)
            found.append(account.name)
        if len({key_of(name) for name in found}) != len(found):
            raise InvalidOptions("name each account once")
        return found


def _require_consent(account: Account, caller: Caller) -> None:
    """Forbidden unless ``account``, another than the caller's, lets the caller enter it in a tournament: a bot
    whose ``entered_by`` is anyone or names the caller. Never a person: its games would wait on it, and a seat
    it left takes it out of every pool."""
    if account.kind != "bot":
        raise Forbidden(f"{account.name} is a person's account: a person enters a tournament only by making "
                        "it (name bot accounts, or your own)")
    if account.entered_by == NOBODY:
        raise Forbidden(f"{account.name} lets no other account enter it in a tournament (its entered_by is "
                        "\"nobody\")")
    if account.entered_by != ANYONE and caller.key not in {key_of(name) for name in account.entered_by}:
        raise Forbidden(f"{account.name} lets only the accounts it names enter it in a tournament, and "
                        f"{caller.account.name} is not one of them (GET /v1/accounts/{account.name} shows them)")


def _within_bound(ladder: LadderWrites, writes: AccountWrites, tournament: Tournament) -> None:
    """TooManyTournaments if an account another made ``tournament`` for is already in :data:`MAX_RUNNING` other
    running tournaments made by other accounts. Read in the tournament's own write once its accounts are locked,
    so that of tournaments made at the same moment each counts the others; running as :meth:`Tournaments.get`
    finds it (rounds to make, or a game not over: a game's seats, every one an account's, are marked finished
    in the write that ends it). Those found finished are marked so, and not read again."""
    entered = entered_by_another(tournament)
    if not entered:
        return
    others = [other for other in ladder.entered(entered) if other.id != tournament.id]
    unfinished = writes.unfinished([entry["game_id"] for other in others for entry in other.games])
    still = running(others, unfinished)
    ladder.mark_finished([other.id for other in others if other.id not in still])
    counts = Counter(account for other in others if other.id in still for account in entered_by_another(other))
    names = {key_of(name): name for name in tournament.spec["accounts"]}
    for account in entered:
        if counts[account] >= MAX_RUNNING:
            raise TooManyTournaments(f"{names[account]} is in {counts[account]} running tournaments other accounts "
                                     f"made, the most one may be in at once ({MAX_RUNNING}): enter it once one of "
                                     "them is finished")


def _round_robin(spec: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every game of a round robin (no byes)."""
    if not 1 <= spec["rounds"] <= 10:
        raise InvalidOptions("rounds is 1 to 10: how many times the round robin is played")
    everyone = Pairing(tuple(round_robin(spec["accounts"], spec["players_per_table"])))
    schedule = [entry for number in range(1, spec["rounds"] + 1)
                for entry in _schedule(number, everyone, _games_a_table(spec))]
    _at_most_max_games(len(schedule))
    return schedule, []


def _results(tournament: Tournament, now: list[tables.Table]) -> Results:
    """The finished games' accounts by seat and places (``now``: the tournament's games, in its order)."""
    return [(entry["seats"], places(table)) for entry, table in zip(tournament.games, now, strict=True)
            if table.status == tables.FINISHED]


def _games_a_table(spec: dict[str, Any]) -> int:
    """The games of each table's deal: one per rotation of its seats when duplicate."""
    return spec["players_per_table"] if spec["duplicate"] else 1


def _at_most_max_games(count: int) -> None:
    if count > MAX_GAMES:
        raise InvalidOptions(f"that is {count} games; a tournament has at most {MAX_GAMES}")


def _schedule(number: int, pairing: Pairing, per_table: int) -> list[dict[str, Any]]:
    """Round ``number``'s games: each table's deal ``per_table`` times, its seats rotated."""
    return [{"round": number, "table": index, "turn": turn, "seats": list(rotation(table, turn))}
            for index, table in enumerate(pairing.tables) for turn in range(per_table)]


def _byes(number: int, pairing: Pairing) -> list[dict[str, Any]]:
    return [{"round": number, "account": account} for account in pairing.byes]


def _bye_points(tournament: Tournament) -> list[tuple[str, float]]:
    points = bye_points(tournament.spec["players_per_table"], tournament.spec["duplicate"])
    return [(bye["account"], points) for bye in tournament.byes]


def _pairings(tournament: Tournament) -> list[Pairing]:
    """The rounds made so far, each its tables (the accounts by seat in the deal's first game) and byes."""
    return [Pairing(tuple(tuple(entry["seats"]) for entry in tournament.games
                          if entry["round"] == number and entry["turn"] == 0),
                    tuple(bye["account"] for bye in tournament.byes if bye["round"] == number))
            for number in range(1, tournament.current_round + 1)]
