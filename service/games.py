"""The game service: every use case of the HTTP API, independent of HTTP.

A move is checked in a fixed order — the game exists, the token acts for a
seat of it, the expected version is current (a move decided on a stale view is
a version conflict, whatever it would mean now), the game is active, the seat
may act, the move is legal — then decided, and appended in one transaction
with every chance outcome and house-bot turn it sets off, until a person must
act or the game is over.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import json
import secrets
import uuid
from collections.abc import Callable, Collection, Mapping
from typing import Any

import bots
from domain import fairness
from domain import table as tables
from domain.errors import DomainError, InvalidOptions, SeatUnavailable
from domain.events import Event, event_data
from domain.fairness import Shuffled
from domain.game import all_games
from persistence.accounts import AccountStore, key_of
from persistence.ladder import LadderStore, ladder_of
from persistence.port import (
    EventStore,
    IdempotencyRecord,
    NewEvent,
    StoredEvent,
    Transaction,
    VersionConflict,
    as_utc,
)
from service.accounts import PLAY, READ, AccountService, Caller, is_account_key, record_status
from service.chance import server_seed
from service.errors import (
    BadRequest,
    Forbidden,
    IdempotencyConflict,
    NotFound,
    PreconditionFailed,
    StaleVersion,
    Unauthorized,
    Unavailable,
)
from service.house import House
from service.replays import Checkpoints
from service.tables import TableCache, decode
from service.tokens import TokenSeats

MAX_LIMIT_EVENTS = 1000
MAX_ATTEMPTS = 20  # re-decisions after another process appended first


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC."""
    return dt.datetime.now(dt.UTC)


def hash_token(token: str) -> str:
    """How a token is stored: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def request_fingerprint(body: Mapping[str, Any]) -> str:
    """A stable hash of a request body, for idempotency."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclasses.dataclass
class MoveOutcome:
    """A move's answer: the HTTP status and body, and whether it was a replay."""

    status: int
    body: dict[str, Any]
    replayed: bool = False


class GameService:
    """The use cases; one instance per process, safe to share between threads."""

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], dt.datetime] = utcnow,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        new_token: Callable[[], str] = lambda: secrets.token_urlsafe(32),
        max_wait: float = 30.0,
        shuffle_secret: str | None = None,
    ) -> None:
        self.store = store
        #: The key of seeded shuffles (service.chance): the operator's, else the database's, read once.
        self._shuffle_secret = None if shuffle_secret is None else shuffle_secret.encode()
        self.clock = clock
        self.new_id = new_id
        self.new_token = new_token
        self.max_wait = max_wait
        self.cache = TableCache(store)
        self.token_seats = TokenSeats(store)
        self.checkpoints = Checkpoints(store)
        self.accounts = AccountService(store, clock=clock)
        self.ladder = ladder_of(store)
        #: ``check(account, options)`` for each account about to sit in a game of ``options``: may refuse it
        #: (a webhook bot sits only in clocked games, service.webhooks).
        self.seat_checks: list[Callable[[str, Mapping[str, Any]], None]] = []

    @property
    def shuffle_secret(self) -> bytes:
        """The deployment's key for seeded shuffles and seeded house bots; never shown to anyone."""
        if self._shuffle_secret is None:
            self._shuffle_secret = self.store.shuffle_secret().encode()
        return self._shuffle_secret

    @functools.cached_property
    def house(self) -> House:
        """The deployment's house (:mod:`service.house`): its shuffles and house bots keyed with its secret."""
        return House(self.shuffle_secret)

    # -- reading ------------------------------------------------------------
    def game_types(self) -> list[dict[str, Any]]:
        """Every game offered, with its player range and options."""
        return [game.describe() for game in all_games().values()]

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
        """Whether this server gave out ``token`` (for any seat of any game)."""
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
            raise Unauthorized("the bearer token is not one this server gave out")
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
            return _with_deadline(tables.view(table, seat, with_moves=seat not in table.abandoned), table,
                                  self._turn_began(game_id, table))
        if not 1 <= at <= table.version:
            raise NotFound(f"version {at} does not exist: the game is at version {table.version}")
        past = self.checkpoints.table_at(game_id, at)
        return _with_deadline(tables.view(past, seat, reveal_all=tables.reveal(table), with_moves=False), past,
                              self._turn_began(game_id, past))

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

    def heard_nothing_after(self, game_id: str, token: str | None, after: int) -> bool:
        """Whether, as far as this process has heard (no read), the game has no event after ``after``;
        the token is checked as :meth:`events` checks it. For a long-poll about to wait: False
        means read the log (:meth:`events`), which tells for sure."""
        if self.cache.heard_quiet(game_id, after) is None:
            return False
        self.seat_of(game_id, token, required=False)
        return True

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
        return _render(table, decode(table.game.rules_version, stored), stored.version, stored.recorded_at, seat)

    # -- writing --------------------------------------------------------------
    def create_game(self, game: str, players: Any, options: Any, replay_of: str | None = None) -> dict[str, Any]:
        """Create a game (``replay_of``: a replay, in the open, of that finished game's deal); returns its summary."""
        game_id = self.new_id()
        if replay_of is None:
            created = self.created(game, players, options, game_id)
        else:
            created = self._replay(game, players, options, replay_of)
        now = self.clock()
        table = tables.evolve(None, created)
        with self.store.transaction() as tx:
            tx.create_game(game_id, game, players, now)
            tx.append(game_id, 0, [_new(created)], now)
        self.cache.put(game_id, table)
        return self.summary(game_id, table, as_utc(now))  # (as the store gives it back)

    def created(self, game: str, players: Any, options: Any, game_id: str, rated: bool = False) -> tables.GameCreated:
        """The event creating game ``game_id``, its server seed drawn (``rated``: a rated challenge's or pool's)."""
        created = tables.create(game, players, options, rated=rated)
        return dataclasses.replace(created, server_seed=server_seed(created.options, game_id, self.shuffle_secret))

    def _replay(self, game: str, players: Any, options: Any, replay_of: str) -> tables.GameCreated:
        """The event creating a replay of game ``replay_of``'s deal: its options, server seed and entropy."""
        original = self.cache.get(replay_of)
        if original is None:
            raise InvalidOptions(f"replay_of: there is no game {replay_of!r}")
        if original.status != tables.FINISHED:
            raise InvalidOptions(f"replay_of: game {replay_of} is {original.status}; only a finished game's deal "
                                 "may be replayed, once everyone can see its cards")
        if original.seeds is None:
            raise InvalidOptions(f"replay_of: game {replay_of} was created before server seeds; its deal cannot "
                                 "be replayed")
        if (game, players) != (original.game.name, original.players):
            raise InvalidOptions(f"replay_of: game {replay_of} is {original.game.name} for {original.players} "
                                 "players; a replay is of the same game for as many")
        if options and tables.create(game, players, options).options != original.options:
            raise InvalidOptions("replay_of: a replay takes its original's options; leave 'options' out")
        return tables.create(game, players, original.options, original.seeds.server_seed,
                             original.seeds.entropy, replay_of)

    def join(self, game_id: str, name: str | None = None, bot: str | None = None,
             entropy: str | None = None, caller: Caller | None = None) -> dict[str, Any]:
        """Take the next free seat for a person (a token, once), for the caller's account (whose key
        then moves for it; a seat token all the same) or seat a house bot, adding ``entropy`` (64 hex)
        to the game's shuffles if given."""
        if bot is not None and bot not in bots.BOT_KINDS:
            raise InvalidOptions(f"unknown bot {bot!r}; house bots: {', '.join(bots.BOT_KINDS)}")
        if caller is not None:
            caller.require(PLAY)
            name = caller.account.name
        elif name is None and bot is None:
            raise InvalidOptions("give either 'name' (a person) or 'bot' (a house bot), or an account's key")
        token = None if bot is not None else self.new_token()
        for _ in range(MAX_ATTEMPTS):
            # Decided, like a move, outside the write transaction, on the table as last
            # committed: the append refuses it if anyone wrote since. A game never goes back
            # to waiting, so a table that is not waiting refuses the seat even if stale.
            table = self.cache.heard_current(game_id) or self.table(game_id)
            if table.status != tables.WAITING:
                raise SeatUnavailable(f"the game is {table.status}: no seat is free")
            if caller is not None and any(seat and seat.account and key_of(seat.account) == caller.key
                                          for seat in table.seats):
                raise SeatUnavailable(f"the account {caller.account.name!r} already sits in this game")
            for check in self.seat_checks if caller is not None else ():
                check(caller.account.name, table.options)
            seated = tables.take_seat(table, name=name, bot=bot, entropy=entropy,
                                      account=caller and caller.account.name, bot_account=caller is not None and caller.bot)
            after, decided = tables.settle(table, [seated], self.house)
            write = self._write(game_id, table, after, decided)
            try:
                with self.store.transaction() as tx:
                    write.apply(tx)
                    if token is not None:  # (after the append, which refuses a seat taken since)
                        tx.add_token(game_id, seated.seat, hash_token(token))
                    if caller is not None:
                        with self.accounts.store.within(tx) as writes:
                            writes.add_seat(game_id, seated.seat, caller.key)
            except VersionConflict:
                self.cache.forget(game_id)
                continue
            self.cache.put(game_id, after)
            if after.status != table.status:
                self.accounts.hub.poke()
            return {"seat": seated.seat, "token": token, "version": after.version}
        raise StaleVersion("the game kept changing while taking a seat; try again")

    def move(
        self,
        game_id: str,
        token: str | None,
        move: Mapping[str, Any],
        *,
        expected_version: int | None = None,
        if_match: str | tuple[int, ...] | None = None,
        idempotency_key: str | None = None,
    ) -> MoveOutcome:
        """Make a move for the token's seat; see the module docstring for the order of checks.

        ``if_match``: ``"*"`` (any version) or the versions an ``If-Match`` header names (none: never matches).
        """
        seat = self._acting_seat(game_id, token)
        return self._move(_MoveRequest(game_id, seat, move, expected_version, if_match, idempotency_key))

    def move_for(self, game_id: str, seat: int, move: Mapping[str, Any], *, expected_version: int) -> MoveOutcome:
        """``seat``'s move made for it by the server (a webhook bot's answer), checked and played as
        :meth:`move` plays one once the token is known."""
        return self._move(_MoveRequest(game_id, seat, move, expected_version, None, None))

    def seat_view(self, game_id: str, seat: int, table: tables.Table) -> dict[str, Any]:
        """``seat``'s view of ``table`` (game ``game_id`` now), as its token is shown it."""
        return _with_deadline(tables.view(table, seat), table, self._turn_began(game_id, table))

    def _move(self, request: _MoveRequest) -> MoveOutcome:
        """``request``'s move, decided again while other processes append first."""
        game_id = request.game_id
        for _ in range(MAX_ATTEMPTS):
            # Decided (house bots included) on the table as last committed, outside the
            # write transaction: the append refuses it if anyone wrote since, and then it
            # is decided again. The table first, the key second: the first answer commits
            # with its events, so a table read before that commit ends in a VersionConflict
            # (and a retry that finds the key) and one read after it finds the key.
            # A cached table the process has heard of nothing newer than is used as it is,
            # sparing a read: the append checks the version, and a refusal (a precondition
            # included) is confirmed on the current table first.
            table = self.cache.heard_current(game_id) or self.table(game_id)
            try:
                return self._attempt(table, request)
            except VersionConflict:
                self.cache.forget(game_id)  # another process appended first: decide again on the new state
        raise StaleVersion("the game kept changing while deciding this move; try again")

    def _attempt(self, table: tables.Table, request: _MoveRequest) -> MoveOutcome:
        """``request``'s move made on ``table``, or refused; VersionConflict if ``table`` is no longer the game's."""
        try:
            request.check_version(table.version)
            after, events = tables.play(table, request.seat, request.move, self.house)
        except DomainError:
            # A refusal is given only on the game's current table (on one someone has since
            # moved on, it is decided again), and never to a request already answered.
            with self.store.transaction() as tx:
                if (earlier := self._earlier(tx, request)) is not None:
                    return earlier
                _confirm_current(tx, request.game_id, table)
            raise
        # Everything but the writing is done before the write transaction opens: it holds
        # the write lock (every appender queues on it), so it does no more than write.
        write = self._write(request.game_id, table, after, events)
        answer = self._answer(write, request.seat, events)
        with self.store.transaction() as tx:
            if (earlier := self._earlier(tx, request)) is not None:
                return earlier
            write.apply(tx)
            if request.idempotency_key is not None:  # (after the append, which serialises writers)
                tx.put_idempotency(request.game_id, request.seat, request.idempotency_key,
                                   IdempotencyRecord(request.fingerprint(), 201, answer))
        self.cache.put(request.game_id, after)
        return MoveOutcome(201, answer)

    def _acting_seat(self, game_id: str, token: str | None) -> int:
        """The seat the token acts for; a missing game is reported before a bad token."""
        try:
            seat = self.seat_of(game_id, token, required=True)
        except (Unauthorized, Forbidden):
            self.table(game_id)
            raise
        assert seat is not None
        return seat

    @staticmethod
    def _earlier(tx: Transaction, request: _MoveRequest) -> MoveOutcome | None:
        """The answer given before to a request with ``request``'s idempotency key, if there was one."""
        if request.idempotency_key is None:
            return None
        earlier = tx.get_idempotency(request.game_id, request.seat, request.idempotency_key)
        if earlier is None:
            return None
        if earlier.request_hash != request.fingerprint():
            raise IdempotencyConflict("this Idempotency-Key was used with another request body")
        return MoveOutcome(earlier.status, earlier.body, replayed=True)

    def _answer(self, write: _Write, seat: int, events: list[Event]) -> dict[str, Any]:
        """A move's answer: the caller's view after ``write``, and its ``events`` as the caller may see them."""
        after = write.after
        answer = _with_deadline(tables.view(after, seat), after,
                                write.recorded_at if write.turn_began else self._turn_began(write.game_id, after))
        answer["events"] = [_render(after, event, version, write.recorded_at, seat)
                            for version, event in enumerate(events, start=write.before.version + 1)]
        return answer

    def _write(self, game_id: str, before: tables.Table, after: tables.Table, decided: list[Event]) -> _Write:
        """The write taking the game from ``before`` to ``after`` by ``decided``, snapshot included if due."""
        # A clocked game's turn that began with these events times out from when they are recorded.
        turn_began = after.clock is not None and after.clock.turn_version > before.version
        return _Write(game_id, before, after, [_new(event) for event in decided], self.clock(),
                      self.cache.snapshot_due(before.version, after), turn_began, self.accounts.store, self.ladder)

    def time_out(self, game_id: str, version: int) -> bool:
        """Time out the turn game ``game_id`` waits for at ``version`` if its deadline has passed: the
        timeouts, default moves and all they set off in one append (True); False if the game has
        moved on or its deadline is still ahead. The append's version check makes a turn time out
        once however many sweepers try, and a move that came first wins."""
        table = self.table(game_id)
        if table.version != version:
            return False
        began = self._turn_began(game_id, table)
        events = tables.time_out(table, self.clock().timestamp(), began and began.timestamp())
        if not events:
            return False
        after, decided = tables.settle(table, events, self.house)
        try:
            with self.store.transaction() as tx:
                self._write(game_id, table, after, decided).apply(tx)
        except VersionConflict:
            self.cache.forget(game_id)
            return False
        self.cache.put(game_id, after)
        return True

    def resign(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The token's seat leaves a game under way; a house bot plays it on (each game's rule L1)."""
        return self._leave(game_id, token, tables.resign)

    def abort(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The token's seat ends a game still waiting for players: it is ``aborted``."""
        return self._leave(game_id, token, tables.abort)

    def _leave(self, game_id: str, token: str | None, how: Callable[[tables.Table, int], list[Event]]) -> dict[str, Any]:
        """The token's seat leaves the game as ``how`` decides, with everything that sets off (the house bot
        now in the seat plays its turn): the seat's view after, and the events."""
        seat = self._acting_seat(game_id, token)
        for _ in range(MAX_ATTEMPTS):
            table = self.table(game_id)
            after, events = tables.settle(table, how(table, seat), self.house)
            write = self._write(game_id, table, after, events)
            try:
                with self.store.transaction() as tx:
                    write.apply(tx)
            except VersionConflict:
                self.cache.forget(game_id)
                continue
            self.cache.put(game_id, after)
            return self._answer(write, seat, events)
        raise StaleVersion("the game kept changing while leaving it; try again")

    def end_idle(self, game_id: str, limits: tables.IdleLimits) -> bool:
        """End game ``game_id`` if nobody changed it for longer than ``limits`` allow (a waiting game expires;
        an active one is handed to house bots, which play it to the end): True if this call ended it. The
        append's version check makes it happen once, and a move that came first wins."""
        table = self.table(game_id)
        last = self.store.read(game_id, after=table.version - 1, limit=1)[0].recorded_at
        events = tables.idle(table, (self.clock() - last).total_seconds(), limits)
        if not events:
            return False
        after, decided = tables.settle(table, events, self.house)
        try:
            with self.store.transaction() as tx:
                self._write(game_id, table, after, decided).apply(tx)
        except VersionConflict:
            self.cache.forget(game_id)
            return False
        self.cache.put(game_id, after)
        return True

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

    def health(self) -> dict[str, Any]:
        """Liveness, database reachability (StoreUnavailable when it is out of reach) and its schema
        (Unavailable unless it is at the revision this code needs): both answered 503."""
        self.store.ping()
        problem = self.store.schema_problem()
        if problem is not None:
            raise Unavailable(problem)
        return {"status": "ok", "database": "ok"}


def _deadline(table: tables.Table, turn_began: dt.datetime | None) -> dt.datetime | None:
    """When the turn a clocked table waits for times out, given when it began (the domain counts seconds)."""
    due = tables.deadline(table, None if turn_began is None else turn_began.timestamp())
    return None if due is None else dt.datetime.fromtimestamp(due, dt.UTC)


def _with_deadline(view: dict[str, Any], table: tables.Table, turn_began: dt.datetime | None) -> dict[str, Any]:
    """A clocked table's view with its ``deadline`` (RFC 3339 UTC, or null while it waits for no seat)."""
    if table.clock is not None:
        due = _deadline(table, turn_began)
        view["deadline"] = None if due is None else due.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return view


def _seat_summary(index: int, seat: tables.Seat | None, bot_since: int | None) -> dict[str, Any]:
    """A seat as a game's summary shows it: an account's with its name and whether it is a bot's."""
    if seat is None:
        return {"seat": index, "name": None, "bot": None, "taken": False, "bot_since": None, "entropy": None,
                "account": None}
    bot = seat.bot_account if seat.account is not None and bot_since is None else seat.bot
    return {"seat": index, "name": seat.name, "bot": bot, "taken": True, "bot_since": bot_since,
            "entropy": seat.entropy, "account": seat.account}


def _confirm_current(tx: Transaction, game_id: str, table: tables.Table) -> None:
    """VersionConflict unless ``table`` is the game's stored version."""
    if tx.last_version(game_id) != table.version:
        raise VersionConflict(game_id, table.version, None)


def _render(table: tables.Table, event: Event, version: int, recorded_at: dt.datetime,
            seat: int | None) -> dict[str, Any]:
    """The event at ``version`` as ``seat`` may see it, given the table now."""
    return {
        "version": version,
        "type": event.type_name(),
        "seat": event.seat,
        "data": tables.redact(table, event, seat),
        "recorded_at": recorded_at.astimezone(dt.UTC).isoformat(),
    }


@dataclasses.dataclass(frozen=True, slots=True)
class _Write:
    """What a decision writes (a move's, a seat's), prepared outside the write transaction."""

    game_id: str
    before: tables.Table
    after: tables.Table
    events: list[NewEvent]
    recorded_at: dt.datetime
    snapshot: tuple[int, str, bytes] | None
    turn_began: bool = False  # a clocked game's new turn began with these events: its deadline is new
    accounts: AccountStore | None = None  # where seated accounts hear that the game started or finished
    ladder: LadderStore | None = None  # where a rated game's finish is recorded, for the ratings

    def apply(self, tx: Transaction) -> None:
        """The status, deadline and snapshot, then the events (VersionConflict if the game moved on
        since ``before``, undoing the rest)."""
        if self.before.status != self.after.status:
            tx.set_status(self.game_id, self.after.status)
        if self.turn_began:
            tx.set_deadline(self.game_id, _deadline(self.after, self.recorded_at))
        if self.snapshot is not None:
            tx.put_snapshot(self.game_id, *self.snapshot)
        tx.append(self.game_id, self.before.version, self.events, self.recorded_at)
        if self.accounts is not None and self.before.status != self.after.status \
                and any(seat and seat.account for seat in self.after.seats):
            with self.accounts.within(tx) as writes:
                record_status(writes, self.game_id, self.before, self.after, self.recorded_at)
        if self.ladder is not None and self.after.rated and self.after.status == tables.FINISHED \
                and self.before.status != tables.FINISHED:
            with self.ladder.within(tx) as ladder:  # (last: the lock it takes is held only to the commit)
                ladder.finish(self.game_id, self.after.game.name, self.recorded_at)


def _new(event: Event) -> NewEvent:
    return NewEvent(event.type_name(), event.seat, event_data(event))


@dataclasses.dataclass(frozen=True, slots=True)
class _MoveRequest:
    """A move as sent for ``seat`` of ``game_id``, with its preconditions and idempotency key."""

    game_id: str
    seat: int
    move: Mapping[str, Any]
    expected_version: int | None
    if_match: str | tuple[int, ...] | None
    idempotency_key: str | None

    def check_version(self, version: int) -> None:
        """PreconditionFailed or StaleVersion unless the preconditions hold of the game at ``version``."""
        if self.if_match is not None and self.if_match != "*" and version not in self.if_match:
            raise PreconditionFailed(f"If-Match names versions {list(self.if_match)}; the game is at version {version}")
        if self.expected_version is not None and self.expected_version != version:
            raise StaleVersion(f"expected version {self.expected_version}; the game is at {version}")

    def fingerprint(self) -> str:
        """What the idempotency key is recorded with: a hash of the request."""
        return request_fingerprint({"move": dict(self.move), "expected_version": self.expected_version,
                                    "if_match": self.if_match})


__all__ = ["DomainError", "GameService", "MoveOutcome", "hash_token"]
