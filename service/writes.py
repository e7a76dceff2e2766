"""What a command writes: the write prepared outside the transaction, and a move's request and answer."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from domain import table as tables
from domain.clocks import SeatAbandoned
from domain.events import Event, event_data
from domain.leaving import SeatResigned
from persistence.accounts import AccountStore, key_of
from persistence.ladder import LadderStore
from persistence.port import NewEvent, Transaction, VersionConflict
from service.accounts import record_status
from service.errors import PreconditionFailed, StaleVersion
from service.queries import deadline

ABANDONED = SeatAbandoned.type_name()
HANDED_OVER = (ABANDONED, SeatResigned.type_name())  # a seat's account plays the game no more

MAX_ATTEMPTS = 20  # re-decisions after another process appended first
#: The most events one request (or one round of the sweeper, per game) appends of what the table does by
#: itself: the house bots' turns and chance outcomes a decision sets off. A game the house would play on
#: past it (a game of house bots) is left waiting for the house, due at once, and the sweeper plays it on
#: in steps of this size (service.sweeper), so no request and no round does unbounded work.
MAX_EVENTS_PER_WRITE = 500


def request_fingerprint(body: Mapping[str, Any]) -> str:
    """A stable hash of a request body, for idempotency."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclasses.dataclass
class MoveOutcome:
    """A move's answer (the view after it, and the events it set off), and whether it was a replay."""

    body: dict[str, Any]
    replayed: bool = False


def confirm_current(tx: Transaction, game_id: str, table: tables.Table) -> None:
    """VersionConflict unless ``table`` is the game's stored version."""
    if tx.last_version(game_id) != table.version:
        raise VersionConflict(game_id, table.version, None)


@dataclasses.dataclass(frozen=True, slots=True)
class Write:
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
        since ``before``, undoing the rest). A game left waiting for the house is due at once (the
        sweeper plays it on); one that waited for it is due again when its new turn times out, if ever."""
        if self.before.status != self.after.status:
            tx.set_status(self.game_id, self.after.status)
        if self.sets_deadline:
            tx.set_deadline(self.game_id, self.deadline)
        if self.snapshot is not None:
            tx.put_snapshot(self.game_id, *self.snapshot)
        tx.append(self.game_id, self.before.version, self.events, self.recorded_at)
        # An account whose seat was handed over (resigned, abandoned) plays the game no more: it counts no longer
        # among the games it plays (a pool's concurrency, its page's current games), though the game goes on.
        handed_over = list(self._account_seats_left(HANDED_OVER))
        if self.accounts is not None and (handed_over or self.starts_or_ends_accounts_game):
            with self.accounts.within(tx) as writes:
                if handed_over:
                    writes.hand_over_seats(self.game_id, handed_over)
                record_status(writes, self.game_id, self.before, self.after, self.recorded_at)
        # A rated game's finish is recorded for the ratings; an account whose seat was handed to a house bot
        # (it stopped answering) leaves every pool: it is paired again once it joins again, not while away.
        rated_finish = self.after.rated and self.after.status == tables.FINISHED and self.before.status != tables.FINISHED
        gone = sorted({key_of(account) for account in self._account_seats_left((ABANDONED,)).values()})
        if self.ladder is not None and (rated_finish or gone):
            with self.ladder.within(tx) as ladder:  # (last: the lock it takes is held only to the commit)
                for account in gone:
                    ladder.leave_pools(account)
                if rated_finish:
                    ladder.finish(self.game_id, self.after.game.name, self.recorded_at)


    @property
    def sets_deadline(self) -> bool:
        """Whether these events set the game's deadline: it waits for the house now, or did, or a turn began."""
        return tables.waits_for_house(self.after) or self.turn_began or tables.waits_for_house(self.before)

    @property
    def deadline(self) -> dt.datetime | None:
        """The deadline these events set, if they set one: now if the game waits for the house, else its turn's."""
        return self.recorded_at if tables.waits_for_house(self.after) else deadline(self.after, self.recorded_at)

    @property
    def starts_or_ends_accounts_game(self) -> bool:
        """Whether this write starts or ends a game with accounts seated (they are told; its end runs the jobs of api.wsgi)."""
        return self.before.status != self.after.status and any(seat and seat.account for seat in self.after.seats)

    def _account_seats_left(self, types: tuple[str, ...]) -> dict[int, str]:
        """The seats held by accounts that these events of ``types`` hand to house bots, and their accounts."""
        return {event.seat: sitter.account for event in self.events if event.type in types and event.seat is not None
                and (sitter := self.before.seats[event.seat]) is not None and sitter.account}


@dataclasses.dataclass(frozen=True, slots=True)
class Decision:
    """What a command decided on a table, ready to append: its write, what else its transaction writes
    after the append (a seat's token, an account's seat, a webhook call's record), and its answer to the seat that acted."""

    write: Write
    also: Callable[[Transaction], None] | None = None
    answer: dict[str, Any] | None = None


def new_event(event: Event) -> NewEvent:
    """A domain event as the store appends it."""
    return NewEvent(event.type_name(), event.seat, event_data(event))


@dataclasses.dataclass(frozen=True, slots=True)
class MoveRequest:
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
            if not self.if_match:
                raise PreconditionFailed(f'If-Match names no version: an entity tag is quoted, as the ETag header '
                                         f'gives it ("{version}" or W/"{version}"); the game is at version {version}')
            raise PreconditionFailed(f"If-Match names versions {list(self.if_match)}; the game is at version {version}")
        if self.expected_version is not None and self.expected_version != version:
            raise StaleVersion(f"expected version {self.expected_version}; the game is at {version}")

    def fingerprint(self) -> str:
        """What the idempotency key is recorded with: a hash of the request."""
        return request_fingerprint({"move": dict(self.move), "expected_version": self.expected_version,
                                    "if_match": self.if_match})
