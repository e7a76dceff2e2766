"""The account store: accounts, their API keys, the seats they hold, challenges and each account's stream.

A port of its own beside the event store, on the same database: its writes are made
inside an event store transaction (:meth:`AccountStore.within`), so a challenge that
starts a game commits the game, its seats and everyone's ``gameStart`` together or not
at all. Names are compared in lower case (``key_of``); records carry the name as given.
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import datetime as dt
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import sqlalchemy as sa

from persistence.port import EventStore, StoreError, Transaction, as_utc
from persistence.schema import account_events, account_seats, accounts, api_keys, challenges


def key_of(name: str) -> str:
    """How a name is compared and stored as a key: in lower case."""
    return name.lower()


class NameTaken(StoreError):
    """An account with this name (without regard to case) exists already."""


@dataclasses.dataclass(frozen=True, slots=True)
class Account:
    name: str
    kind: str  # "bot" or "person"
    description: str
    created_at: dt.datetime


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
    def add_key(self, key: ApiKey) -> None:
        """Add an API key."""

    @abc.abstractmethod
    def revoke_key(self, account: str, prefix: str, at: dt.datetime) -> bool:
        """Revoke the account's key with this prefix; whether there was such a key, not yet revoked."""

    @abc.abstractmethod
    def add_seat(self, game_id: str, seat: int, account: str) -> None:
        """Bind a seat of a game to an account."""

    @abc.abstractmethod
    def finish_seats(self, game_id: str) -> dict[int, str]:
        """Mark the game's account seats finished; the accounts by seat."""

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
    def keys(self, account: str) -> list[ApiKey]: ...

    @abc.abstractmethod
    def seats_of_game(self, game_id: str) -> dict[int, str]:
        """The game's account seats: the account's name key by seat."""

    @abc.abstractmethod
    def games_of(self, account: str) -> tuple[int, list[str]]:
        """How many games the account finished, and the ids of those it sits in now."""

    @abc.abstractmethod
    def challenge(self, challenge_id: str) -> Challenge | None: ...

    @abc.abstractmethod
    def open_challenges(self, now: dt.datetime, limit: int) -> list[Challenge]:
        """Open challenges not yet expired, newest first."""

    @abc.abstractmethod
    def events(self, account: str, after: int, limit: int) -> list[AccountEvent]:
        """The account's events with seq > ``after``, in order."""

    @abc.abstractmethod
    def newest_position(self) -> int:
        """The position of the newest event of any account (0: none)."""

    @abc.abstractmethod
    def accounts_after(self, position: int) -> tuple[int, set[str]]:
        """The newest position, and the accounts with events after ``position``."""


_ACCOUNTS: weakref.WeakKeyDictionary[EventStore, AccountStore] = weakref.WeakKeyDictionary()
_MADE = threading.Lock()


def accounts_of(store: EventStore) -> AccountStore:
    """The account store on the same database as ``store`` (one per event store)."""
    with _MADE:
        found = _ACCOUNTS.get(store)
        if found is None:
            from persistence.sqlstore import SqlEventStore

            found = SqlAccounts(store) if isinstance(store, SqlEventStore) else MemoryAccounts()
            _ACCOUNTS[store] = found
        return found


# -- SQL ---------------------------------------------------------------------------------------
def _challenge_row(challenge: Challenge) -> dict[str, Any]:
    row = dataclasses.asdict(challenge)
    row["invited"] = None if challenge.invited is None else list(challenge.invited)
    row["accepted"] = list(challenge.accepted)
    return row


def _challenge(row: Any) -> Challenge:
    values = dict(row._mapping)
    values["invited"] = None if values["invited"] is None else tuple(values["invited"])
    values["accepted"] = tuple(values["accepted"])
    return Challenge(**values)


def _key(row: Any) -> ApiKey:
    return ApiKey(row.prefix, row.account, row.key_hash, frozenset(row.scopes.split()), row.created_at, row.revoked_at)


_CHALLENGE_COLUMNS = [getattr(challenges.c, field.name) for field in dataclasses.fields(Challenge)]


class SqlAccountWrites(AccountWrites):
    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection

    def _insert(self, table: sa.Table) -> Any:
        module = sa.dialects.postgresql if self.connection.dialect.name == "postgresql" else sa.dialects.sqlite
        return module.insert(table)

    def add_account(self, account: Account) -> None:
        insert = self._insert(accounts).on_conflict_do_nothing().returning(accounts.c.name_key)
        row = {"name_key": key_of(account.name), **dataclasses.asdict(account)}
        if self.connection.execute(insert, row).first() is None:
            raise NameTaken(account.name)

    def add_key(self, key: ApiKey) -> None:
        row = dataclasses.asdict(key)
        row["scopes"] = " ".join(sorted(key.scopes))
        self.connection.execute(api_keys.insert(), row)

    def revoke_key(self, account: str, prefix: str, at: dt.datetime) -> bool:
        statement = api_keys.update().where(api_keys.c.prefix == prefix, api_keys.c.account == account,
                                            api_keys.c.revoked_at.is_(None)).values(revoked_at=at)
        return self.connection.execute(statement).rowcount == 1

    def add_seat(self, game_id: str, seat: int, account: str) -> None:
        self.connection.execute(account_seats.insert(),
                                {"game_id": game_id, "seat": seat, "account": account, "finished": False})

    def finish_seats(self, game_id: str) -> dict[int, str]:
        rows = self.connection.execute(sa.select(account_seats.c.seat, account_seats.c.account)
                                       .where(account_seats.c.game_id == game_id)).all()
        if rows:
            self.connection.execute(account_seats.update().where(account_seats.c.game_id == game_id)
                                    .values(finished=True))
        return {row.seat: row.account for row in rows}

    def challenge(self, challenge_id: str) -> Challenge | None:
        row = self.connection.execute(sa.select(*_CHALLENGE_COLUMNS).where(challenges.c.id == challenge_id)).first()
        return None if row is None else _challenge(row)

    def put_challenge(self, challenge: Challenge, expected_revision: int | None) -> bool:
        row = _challenge_row(challenge)
        if expected_revision is None:
            self.connection.execute(challenges.insert(), row)
            return True
        statement = challenges.update().where(challenges.c.id == challenge.id,
                                              challenges.c.revision == expected_revision).values(row)
        return self.connection.execute(statement).rowcount == 1

    def append(self, account: str, type_name: str, data: dict[str, Any], at: dt.datetime) -> int:
        if self.connection.dialect.name == "postgresql":  # (one writer an account at a time: its seqs commit in order)
            self.connection.execute(sa.select(accounts.c.name_key).where(accounts.c.name_key == account)
                                    .with_for_update())
        seq = self.connection.execute(sa.select(sa.func.coalesce(sa.func.max(account_events.c.seq), 0))
                                      .where(account_events.c.account == account)).scalar() + 1
        self.connection.execute(account_events.insert(), {"account": account, "seq": seq, "type": type_name,
                                                          "data": data, "recorded_at": at})
        return seq


class SqlAccounts(AccountStore):
    """Accounts on the event store's own database and connections."""

    def __init__(self, store: Any) -> None:
        self.store = store

    @contextmanager
    def within(self, tx: Transaction) -> Iterator[AccountWrites]:
        yield SqlAccountWrites(tx.connection)  # type: ignore[attr-defined]

    def _rows(self, query: sa.Executable) -> Sequence[Any]:
        return self.store._read(lambda connection: connection.execute(query).all())

    def account(self, name: str) -> Account | None:
        rows = self._rows(sa.select(accounts.c.name, accounts.c.kind, accounts.c.description, accounts.c.created_at)
                          .where(accounts.c.name_key == key_of(name)))
        return Account(*rows[0]) if rows else None

    def key(self, prefix: str) -> ApiKey | None:
        rows = self._rows(sa.select(api_keys).where(api_keys.c.prefix == prefix))
        return _key(rows[0]) if rows else None

    def keys(self, account: str) -> list[ApiKey]:
        return [_key(row) for row in self._rows(sa.select(api_keys).where(api_keys.c.account == account)
                                                .order_by(api_keys.c.created_at, api_keys.c.prefix))]

    def seats_of_game(self, game_id: str) -> dict[int, str]:
        rows = self._rows(sa.select(account_seats.c.seat, account_seats.c.account)
                          .where(account_seats.c.game_id == game_id))
        return {row.seat: row.account for row in rows}

    def games_of(self, account: str) -> tuple[int, list[str]]:
        rows = self._rows(sa.select(account_seats.c.game_id, account_seats.c.finished)
                          .where(account_seats.c.account == account))
        return sum(1 for row in rows if row.finished), sorted({row.game_id for row in rows if not row.finished})

    def challenge(self, challenge_id: str) -> Challenge | None:
        rows = self._rows(sa.select(*_CHALLENGE_COLUMNS).where(challenges.c.id == challenge_id))
        return _challenge(rows[0]) if rows else None

    def open_challenges(self, now: dt.datetime, limit: int) -> list[Challenge]:
        rows = self._rows(sa.select(*_CHALLENGE_COLUMNS)
                          .where(challenges.c.status == "open", challenges.c.expires_at > now)
                          .order_by(challenges.c.created_at.desc()).limit(limit))
        return [_challenge(row) for row in rows]

    def events(self, account: str, after: int, limit: int) -> list[AccountEvent]:
        rows = self._rows(sa.select(account_events.c.seq, account_events.c.type, account_events.c.data,
                                    account_events.c.recorded_at)
                          .where(account_events.c.account == account, account_events.c.seq > after)
                          .order_by(account_events.c.seq).limit(limit))
        return [AccountEvent(*row) for row in rows]

    def newest_position(self) -> int:
        return self._rows(sa.select(sa.func.coalesce(sa.func.max(account_events.c.position), 0)))[0][0]

    def accounts_after(self, position: int) -> tuple[int, set[str]]:
        rows = self._rows(sa.select(account_events.c.position, account_events.c.account)
                          .where(account_events.c.position > position))
        return max((row.position for row in rows), default=position), {row.account for row in rows}


# -- memory ------------------------------------------------------------------------------------
@dataclasses.dataclass
class _MemoryAccounts:
    accounts: dict[str, Account] = dataclasses.field(default_factory=dict)
    keys: dict[str, ApiKey] = dataclasses.field(default_factory=dict)
    seats: dict[tuple[str, int], tuple[str, bool]] = dataclasses.field(default_factory=dict)
    challenges: dict[str, Challenge] = dataclasses.field(default_factory=dict)
    events: dict[str, list[AccountEvent]] = dataclasses.field(default_factory=dict)
    positions: list[str] = dataclasses.field(default_factory=list)  # the account of each position


class MemoryAccountWrites(AccountWrites):
    def __init__(self, state: _MemoryAccounts) -> None:
        self.state = state

    def add_account(self, account: Account) -> None:
        if key_of(account.name) in self.state.accounts:
            raise NameTaken(account.name)
        self.state.accounts[key_of(account.name)] = account

    def add_key(self, key: ApiKey) -> None:
        self.state.keys[key.prefix] = key

    def revoke_key(self, account: str, prefix: str, at: dt.datetime) -> bool:
        key = self.state.keys.get(prefix)
        if key is None or key.account != account or key.revoked_at is not None:
            return False
        self.state.keys[prefix] = dataclasses.replace(key, revoked_at=as_utc(at))
        return True

    def add_seat(self, game_id: str, seat: int, account: str) -> None:
        self.state.seats[game_id, seat] = (account, False)

    def finish_seats(self, game_id: str) -> dict[int, str]:
        found = {seat: account for (game, seat), (account, _) in self.state.seats.items() if game == game_id}
        for seat, account in found.items():
            self.state.seats[game_id, seat] = (account, True)
        return found

    def challenge(self, challenge_id: str) -> Challenge | None:
        return self.state.challenges.get(challenge_id)

    def put_challenge(self, challenge: Challenge, expected_revision: int | None) -> bool:
        current = self.state.challenges.get(challenge.id)
        if (current is None) != (expected_revision is None) or (current and current.revision != expected_revision):
            return False
        self.state.challenges[challenge.id] = challenge
        return True

    def append(self, account: str, type_name: str, data: dict[str, Any], at: dt.datetime) -> int:
        stream = self.state.events.setdefault(account, [])
        stream.append(AccountEvent(len(stream) + 1, type_name, copy.deepcopy(data), as_utc(at)))
        self.state.positions.append(account)
        return len(stream)


class MemoryAccounts(AccountStore):
    """Accounts in this process's memory, written under the memory event store's transaction lock."""

    def __init__(self) -> None:
        self.state = _MemoryAccounts()
        self._open: tuple[Transaction, MemoryAccountWrites] | None = None  # (transactions never overlap)

    @contextmanager
    def within(self, tx: Transaction) -> Iterator[AccountWrites]:
        if self._open is not None and self._open[0] is tx:  # (a second use in the same transaction)
            yield self._open[1]
            return
        writes = MemoryAccountWrites(copy.deepcopy(self.state))
        self._open = (tx, writes)
        try:
            yield writes
            self.state = writes.state
        finally:
            self._open = None

    def account(self, name: str) -> Account | None:
        return self.state.accounts.get(key_of(name))

    def key(self, prefix: str) -> ApiKey | None:
        return self.state.keys.get(prefix)

    def keys(self, account: str) -> list[ApiKey]:
        return sorted((key for key in self.state.keys.values() if key.account == account),
                      key=lambda key: (key.created_at, key.prefix))

    def seats_of_game(self, game_id: str) -> dict[int, str]:
        return {seat: account for (game, seat), (account, _) in self.state.seats.items() if game == game_id}

    def games_of(self, account: str) -> tuple[int, list[str]]:
        mine = [(game, finished) for (game, _), (owner, finished) in self.state.seats.items() if owner == account]
        return sum(1 for _, finished in mine if finished), sorted({game for game, finished in mine if not finished})

    def challenge(self, challenge_id: str) -> Challenge | None:
        return self.state.challenges.get(challenge_id)

    def open_challenges(self, now: dt.datetime, limit: int) -> list[Challenge]:
        found = [found for found in self.state.challenges.values() if found.status == "open" and found.expires_at > now]
        return sorted(found, key=lambda challenge: challenge.created_at, reverse=True)[:limit]

    def events(self, account: str, after: int, limit: int) -> list[AccountEvent]:
        return self.state.events.get(account, [])[after:after + limit]

    def newest_position(self) -> int:
        return len(self.state.positions)

    def accounts_after(self, position: int) -> tuple[int, set[str]]:
        positions = self.state.positions
        return len(positions), set(positions[position:])
