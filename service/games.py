"""The game service: every use case of the HTTP API, independent of HTTP.

The commands are here; the queries (summaries, views, the log, the audit) are
:class:`service.queries.GameQueries`, which :class:`GameService` is composed of, and
what a command writes is prepared by :mod:`service.writes`.

A move is checked in a fixed order — the game exists, the token acts for a
seat of it, the expected version is current (a move decided on a stale view is
a version conflict, whatever it would mean now), the game is active, the seat
may act, the move is legal — then decided, and appended in one transaction
with every chance outcome and house-bot turn it sets off, until a person must
act or the game is over, or MAX_EVENTS_PER_WRITE events were appended: then the
game waits for the house, and the sweeper plays it on in steps of that size.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import bots
from domain import table as tables
from domain.errors import DomainError, InvalidOptions, SeatUnavailable
from domain.events import Event
from persistence.accounts import key_of
from persistence.ladder import ladder_of
from persistence.port import EventStore, IdempotencyRecord, Transaction, VersionConflict, as_utc
from service.accounts import PLAY, AccountService, Caller
from service.chance import server_seed
from service.errors import Forbidden, IdempotencyConflict, StaleVersion, Unauthorized
from service.house import House
from service.queries import GameQueries, hash_token, render, with_deadline
from service.replays import Checkpoints
from service.tables import TableCache
from service.tokens import TokenSeats, new_seat_token
from service.writes import (
    MAX_ATTEMPTS,
    MAX_EVENTS_PER_WRITE,
    Decision,
    MoveOutcome,
    MoveRequest,
    Write,
    confirm_current,
    new_event,
)


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC."""
    return dt.datetime.now(dt.UTC)


class GameService(GameQueries):
    """The use cases; one instance per process, safe to share between threads."""

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], dt.datetime] = utcnow,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        new_token: Callable[[], str] = new_seat_token,
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
        #: Called once a game with accounts seated has ended (the ratings projection and the pools' pairing
        #: are run at once, api.wsgi).
        self.on_accounts_game_over: list[Callable[[], None]] = []

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

    def close(self) -> None:
        """Release the store's connections (a command-line run's end)."""
        self.store.close()

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
            tx.append(game_id, 0, [new_event(created)], now)
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

        def decide(table: tables.Table) -> Decision:
            # A game never goes back to waiting, so a table that is not waiting refuses the seat even if stale.
            if table.status != tables.WAITING:
                raise SeatUnavailable(f"the game is {table.status}: no seat is free")
            if caller is not None and any(seat and seat.account and key_of(seat.account) == caller.key
                                          for seat in table.seats):
                raise SeatUnavailable(f"the account {caller.account.name!r} already sits in this game")
            for check in self.seat_checks if caller is not None else ():
                check(caller.account.name, table.options)
            seated = tables.take_seat(table, name=name, bot=bot, entropy=entropy,
                                      account=caller and caller.account.name, bot_account=caller is not None and caller.bot)

            def bind_seat(tx: Transaction) -> None:
                if token is not None:  # (after the append, which refuses a seat taken since)
                    tx.add_token(game_id, seated.seat, hash_token(token))
                if caller is not None:
                    with self.accounts.store.within(tx) as writes:
                        writes.add_seat(game_id, seated.seat, caller.key)

            after, decided = tables.settle(table, [seated], self.house, MAX_EVENTS_PER_WRITE)
            return Decision(self._write(game_id, table, after, decided), bind_seat,
                            {"seat": seated.seat, "token": token, "version": after.version})

        done = self._decide_and_append(game_id, decide, doing="taking a seat")
        assert isinstance(done, Decision)
        if done.write.after.status != done.write.before.status:
            self.accounts.hub.poke()
        return done.answer

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
        return self._move(MoveRequest(game_id, seat, move, expected_version, if_match, idempotency_key))

    def move_for(self, game_id: str, seat: int, move: Mapping[str, Any], *, expected_version: int,
                 also: Callable[[Write], Callable[[Transaction], None]] | None = None) -> MoveOutcome:
        """``seat``'s move made for it by the server (a webhook bot's answer), checked and played as
        :meth:`move` plays one once the token is known; ``also(write)``, given what the move writes (before
        its transaction opens), gives what else the transaction writes (the call's record, the next call's claim)."""
        return self._move(MoveRequest(game_id, seat, move, expected_version, None, None), also)

    def _move(self, request: MoveRequest,
              also: Callable[[Write], Callable[[Transaction], None]] | None = None) -> MoveOutcome:
        def decide(table: tables.Table) -> Decision:
            request.check_version(table.version)
            after, events = tables.play(table, request.seat, request.move, self.house, MAX_EVENTS_PER_WRITE)
            write = self._write(request.game_id, table, after, events)
            return Decision(write, also and also(write), self._answer(write, request.seat, events))

        done = self._decide_and_append(request.game_id, decide, doing="deciding this move", request=request)
        assert done is not None
        return done if isinstance(done, MoveOutcome) else MoveOutcome(done.answer)

    def _decide_and_append(self, game_id: str, decide: Callable[[tables.Table], Decision | None], *,
                           doing: str | None, fresh: bool = False,
                           request: MoveRequest | None = None) -> Decision | MoveOutcome | None:
        """How every command changes a game: ``decide`` on its table as last committed, outside the write
        transaction; the decision appended with the version check; the table after it cached. The decision
        appended, or None if ``decide`` made none.

        The table is the cached one while this process heard of nothing newer (a read spared: the append
        checks the version anyway), else (and if ``fresh``) the one read now. Another process that appended
        first makes the append refuse (VersionConflict), and it is decided again on the new table, at most
        MAX_ATTEMPTS times (then StaleVersion), or, ``doing`` None, not at all (None).

        ``request``: a move's. Its idempotency key is looked up in the append's transaction, before the
        append, and the answer given before returned (a MoveOutcome); else its answer is recorded with the
        events. The table first, the key second: the first answer commits with its events, so a table
        read before that commit ends in a VersionConflict (and a retry that finds the key) and one read
        after it finds the key. Its refusal is given only on the game's current table.
        """
        for _ in range(1 if doing is None else MAX_ATTEMPTS):
            table = self.table(game_id) if fresh else self.cache.heard_current(game_id) or self.table(game_id)
            try:
                return self._append_decided(table, decide, request)
            except VersionConflict:
                self.cache.forget(game_id)  # another process appended first: decide again on the new state
        if doing is None:
            return None
        raise StaleVersion(f"the game kept changing while {doing}; try again")

    def _append_decided(self, table: tables.Table, decide: Callable[[tables.Table], Decision | None],
                        request: MoveRequest | None) -> Decision | MoveOutcome | None:
        """One attempt of :meth:`_decide_and_append`; VersionConflict if ``table`` is no longer the game's."""
        try:
            decision = decide(table)
        except DomainError:
            if request is None:
                raise
            # A refusal is given only on the game's current table (on one someone has since
            # moved on, it is decided again), and never to a request already answered.
            with self.store.transaction() as tx:
                if (earlier := self._earlier(tx, request)) is not None:
                    return earlier
                confirm_current(tx, request.game_id, table)
            raise
        if decision is None:
            return None
        # Everything but the writing is done before the write transaction opens: it holds
        # the write lock (every appender queues on it), so it does no more than write.
        write = decision.write
        with self.store.transaction() as tx:
            if request is not None and (earlier := self._earlier(tx, request)) is not None:
                return earlier
            write.apply(tx)
            if decision.also is not None:
                decision.also(tx)
            if request is not None and request.idempotency_key is not None:  # (after the append, which serialises writers)
                tx.put_idempotency(request.game_id, request.seat, request.idempotency_key,
                                   IdempotencyRecord(request.fingerprint(), decision.answer))
        self.cache.put(write.game_id, write.after)
        if write.starts_or_ends_accounts_game and write.after.status in tables.OVER:
            for hook in self.on_accounts_game_over:
                hook()
        return decision

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
    def _earlier(tx: Transaction, request: MoveRequest) -> MoveOutcome | None:
        """The answer given before to a request with ``request``'s idempotency key, if there was one."""
        if request.idempotency_key is None:
            return None
        earlier = tx.get_idempotency(request.game_id, request.seat, request.idempotency_key)
        if earlier is None:
            return None
        if earlier.request_hash != request.fingerprint():
            raise IdempotencyConflict("this Idempotency-Key was used with another request body")
        return MoveOutcome(earlier.body, replayed=True)

    def _answer(self, write: Write, seat: int, events: list[Event]) -> dict[str, Any]:
        """A move's answer: the caller's view after ``write``, and its ``events`` as the caller may see them."""
        after = write.after
        answer = with_deadline(tables.view(after, seat), after,
                                write.recorded_at if write.turn_began else self._turn_began(write.game_id, after))
        answer["events"] = [render(after, event, version, write.recorded_at, seat)
                            for version, event in enumerate(events, start=write.before.version + 1)]
        return answer

    def _write(self, game_id: str, before: tables.Table, after: tables.Table, decided: list[Event]) -> Write:
        """The write taking the game from ``before`` to ``after`` by ``decided``, snapshot included if due."""
        # A clocked game's turn that began with these events times out from when they are recorded.
        turn_began = after.clock is not None and after.clock.turn_version > before.version
        return Write(game_id, before, after, [new_event(event) for event in decided], self.clock(),
                      self.cache.snapshot_due(before.version, after), turn_began, self.accounts.store, self.ladder)

    def _settled(self, game_id: str, table: tables.Table, events: list[Event], seat: int | None = None) -> Decision:
        """The decision to append ``events`` on ``table`` with everything they set off (the house bots' turns),
        answered to ``seat`` if one acted."""
        after, decided = tables.settle(table, events, self.house, MAX_EVENTS_PER_WRITE)
        write = self._write(game_id, table, after, decided)
        return Decision(write, answer=None if seat is None else self._answer(write, seat, decided))

    def act_when_due(self, game_id: str, version: int) -> bool:
        """The server's part in game ``game_id``, due at ``version`` (the sweeper's): if the table waits for
        the house (a game played on in steps), the next MAX_EVENTS_PER_WRITE events or so of what it does
        by itself; else, if its deadline has passed, the timeouts of the turn it waits for, their default
        moves and all they set off. In one append (True); False if the game has moved on or its deadline
        is still ahead. The append's version check makes each happen once however many sweepers try,
        and a move that came first wins."""
        def decide(table: tables.Table) -> Decision | None:
            if table.version != version:
                return None
            if tables.waits_for_house(table):
                return self._settled(game_id, table, tables.by_itself(table, self.house))
            began = self._turn_began(game_id, table)
            events = tables.time_out(table, self.clock().timestamp(), began and began.timestamp())
            return self._settled(game_id, table, events) if events else None

        return self._decide_and_append(game_id, decide, doing=None, fresh=True) is not None

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
        done = self._decide_and_append(game_id, lambda table: self._settled(game_id, table, how(table, seat), seat),
                                       doing="leaving it", fresh=True)
        assert isinstance(done, Decision) and done.answer is not None
        return done.answer

    def end_idle(self, game_id: str, limits: tables.IdleLimits) -> bool:
        """End game ``game_id`` if nobody changed it for longer than ``limits`` allow (a waiting game expires;
        an active one is handed to house bots, which play it to the end): True if this call ended it. The
        append's version check makes it happen once, and a move that came first wins."""
        def decide(table: tables.Table) -> Decision | None:
            last = self.store.read(game_id, after=table.version - 1, limit=1)[0].recorded_at
            events = tables.idle(table, (self.clock() - last).total_seconds(), limits)
            return self._settled(game_id, table, events) if events else None

        return self._decide_and_append(game_id, decide, doing=None, fresh=True) is not None


__all__ = ["DomainError", "GameService", "MoveOutcome", "hash_token"]
