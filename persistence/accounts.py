"""The account store: accounts, their API keys, the seats they hold, challenges and each account's stream.

A port of its own beside the event store, on the same database: its writes are made
inside an event store transaction (:meth:`AccountStore.within`), so a challenge that
starts a game commits the game, its seats and everyone's ``gameStart`` together or not
at all. Names are compared in lower case (``key_of``); records carry the name as given.

The port is here; its backends are :mod:`persistence.accounts_sql` and
:mod:`persistence.accounts_memory`, chosen by :func:`accounts_of`.
"""

from __future__ import annotations

import abc
import dataclasses
import datetime as dt
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from persistence.port import EventStore, StoreError, Transaction, companion


def key_of(name: str) -> str:
    """How a name is compared and stored as a key: in lower case."""
    return name.lower()


class NameTaken(StoreError):
    """An account with this name (without regard to case) exists already."""


#: Who may enter a bot account in a tournament made by another account (``Account.entered_by``), beside
#: a tuple of the names (as given at sign-up) of the accounts that may.
ANYONE, NOBODY = "anyone", "nobody"


@dataclasses.dataclass(frozen=True, slots=True)
class Account:
    name: str
    kind: str  # "bot" or "person"
    description: str
    created_at: dt.datetime
    entered_by: str | tuple[str, ...] = ANYONE  # who may enter it in a tournament another account makes


@dataclasses.dataclass(frozen=True, slots=True)
class ApiKey:
    """A key as stored: its public prefix and the SHA-256 of the whole key, never the key."""

    prefix: str
    account: str  # the account's name key
    key_hash: str
    scopes: frozenset[str]
    created_at: dt.datetime
    revoked_at: dt.datetime | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Challenge:
    """An offer of a game; ``revision`` grows with every change (a write names the one it read)."""

    id: str
    challenger: str  # account names as given, here and in invited and accepted
    game: str
    players: int
    options: dict[str, Any]
    rated: bool
    invited: tuple[str, ...] | None  # None: open to anyone
    accepted: tuple[str, ...]
    status: str  # open, started, declined, canceled
    revision: int
    game_id: str | None
    reason: str | None
    created_at: dt.datetime
    expires_at: dt.datetime
    server_seed: str | None = None  # its game's, drawn when it is made (None: when its game starts, as a seeded game's)
    entropy: tuple[str | None, ...] = ()  # what each account in accepted added to its game's shuffles, by seat


@dataclasses.dataclass(frozen=True, slots=True)
class AccountEvent:
    """One event of an account's stream; ``seq`` counts the account's events from 1."""

    seq: int
    type: str
    data: dict[str, Any]
    recorded_at: dt.datetime


class AccountWrites(abc.ABC):
    """The account writes of one event store transaction."""

    @abc.abstractmethod
    def add_account(self, account: Account) -> None:
        """Add an account; NameTaken if its name is taken."""

    @abc.abstractmethod
    def set_entered_by(self, account: str, entered_by: str | tuple[str, ...]) -> None:
        """Set who may enter the account (its name key) in a tournament another account makes."""

    @abc.abstractmethod
    def add_key(self, key: ApiKey) -> None:
        """Add an API key."""

    @abc.abstractmethod
    def live_keys(self, account: str) -> int:
        """How many of the account's keys are not revoked, the account locked until the transaction ends, so
        that keys added at once, on any worker, count each other."""

    @abc.abstractmethod
    def open_challenges_by(self, challenger: str, now: dt.datetime) -> int:
        """How many challenges the account (its name as given at sign-up) made that are open and not expired at
        ``now``, the account locked until the transaction ends, so that challenges made at once count each other."""

    @abc.abstractmethod
    def revoke_key(self, account: str, prefix: str, at: dt.datetime) -> bool:
        """Revoke the account's key with this prefix; whether there was such a key, not yet revoked."""

    @abc.abstractmethod
    def forget_revoked(self, account: str, keep: int) -> None:
        """Delete the account's revoked keys but the ``keep`` revoked last: a revoked key and an unknown one are
        refused alike, and an account that adds and revokes keys in a loop must not grow without bound."""

    @abc.abstractmethod
    def add_seat(self, game_id: str, seat: int, account: str) -> None:
        """Bind a seat of a game to an account."""

    @abc.abstractmethod
    def hand_over_seats(self, game_id: str, seats: Sequence[int]) -> None:
        """Mark those of the game's account seats handed to a house bot (resigned, abandoned): their accounts
        play the game no more, while it goes on to its end."""

    @abc.abstractmethod
    def finish_seats(self, game_id: str) -> dict[int, str]:
        """Mark the game's account seats finished; the accounts by seat."""

    @abc.abstractmethod
    def forget_seats(self, game_id: str) -> None:
        """Forget the game's account seats: it was aborted before it began, and nobody played it."""

    @abc.abstractmethod
    def unfinished(self, game_ids: Sequence[str]) -> set[str]:
        """Those of ``game_ids`` whose account seats are not finished: games of accounts not yet over."""

    @abc.abstractmethod
    def playing(self, accounts: Sequence[str]) -> dict[str, int]:
        """How many games not finished each of ``accounts`` (name keys) plays in, its seat not handed over (none:
        left out)."""

    @abc.abstractmethod
    def challenge(self, challenge_id: str) -> Challenge | None:
        """A challenge as this transaction sees it."""

    @abc.abstractmethod
    def put_challenge(self, challenge: Challenge, expected_revision: int | None) -> bool:
        """Add a challenge (``expected_revision`` None) or replace the one at ``expected_revision``;
        whether it was (False: someone changed it first)."""

    @abc.abstractmethod
    def append(self, account: str, type_name: str, data: dict[str, Any], at: dt.datetime) -> int:
        """Add an event to the account's stream; its ``seq``."""

    def add_seats(self, seats: Sequence[tuple[str, int, str]]) -> None:
        """:meth:`add_seat` of each ``(game id, seat, account)``; a backend may write them in one statement."""
        for game_id, seat, account in seats:
            self.add_seat(game_id, seat, account)

    def append_all(self, events: Sequence[tuple[str, str, dict[str, Any], dt.datetime]]) -> None:
        """:meth:`append` of each ``(account, type, data, at)`` in turn (an account's in its stream's order),
        given in the order of the accounts' keys, as every writer locks accounts; a backend may lock each
        account once and write them all in one statement."""
        for account, type_name, data, at in events:
            self.append(account, type_name, data, at)


class AccountStore(abc.ABC):
    """Reads of accounts, keys, seats, challenges and streams; writes go through :meth:`within`."""

    @abc.abstractmethod
    def within(self, tx: Transaction) -> AbstractContextManager[AccountWrites]:
        """The account writes that commit with the event store transaction ``tx``."""

    @abc.abstractmethod
    def account(self, name: str) -> Account | None: ...

    @abc.abstractmethod
    def key(self, prefix: str) -> ApiKey | None: ...

    @abc.abstractmethod
    def key_and_account(self, prefix: str) -> tuple[ApiKey, Account] | None:
        """The key with this prefix and the account it belongs to, in one read (every request with a key)."""

    @abc.abstractmethod
    def keys(self, account: str) -> list[ApiKey]: ...

    @abc.abstractmethod
    def playing(self, accounts: Sequence[str]) -> dict[str, int]:
        """How many unfinished games each of ``accounts`` (keys) plays in, its seat not handed over, as last
        committed (none: left out)."""

    @abc.abstractmethod
    def unfinished(self, game_ids: Sequence[str]) -> set[str]:
        """Those of ``game_ids`` whose account seats are not finished, as last committed."""

    @abc.abstractmethod
    def games_of(self, account: str) -> tuple[int, list[str]]:
        """How many games the account played (finished, or left: its seat handed over, from then on; an aborted
        game was never played), and the ids of those it plays now."""

    @abc.abstractmethod
    def challenge(self, challenge_id: str) -> Challenge | None: ...

    @abc.abstractmethod
    def open_challenges(self, now: dt.datetime, limit: int) -> list[Challenge]:
        """Open challenges not yet expired that name nobody (any account may accept them), newest first."""

    @abc.abstractmethod
    def challenges_naming(self, account: str, now: dt.datetime) -> list[Challenge]:
        """Open challenges not yet expired that name ``account`` (its key: the name folded), newest first (an
        account has at most a few dozen: each challenger at most ``MAX_OPEN`` open, for at most a day)."""

    @abc.abstractmethod
    def events(self, account: str, after: int, limit: int) -> list[AccountEvent]:
        """The account's events with seq > ``after``, in order."""

    @abc.abstractmethod
    def newest_position(self) -> int:
        """The position of the newest event of any account (0: none)."""

    @abc.abstractmethod
    def accounts_after(self, position: int) -> tuple[int, set[str]]:
        """The newest position, and the accounts with events after ``position``."""


def accounts_of(store: EventStore) -> AccountStore:
    """The account store on the same database as ``store`` (one per event store)."""
    def make() -> AccountStore:
        from persistence.accounts_memory import MemoryAccounts
        from persistence.accounts_sql import SqlAccounts
        from persistence.sqlstore import SqlEventStore

        return SqlAccounts(store) if isinstance(store, SqlEventStore) else MemoryAccounts()

    return companion(store, "accounts", make)
