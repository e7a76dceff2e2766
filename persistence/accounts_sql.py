"""The account store (:mod:`persistence.accounts`) on the event store's SQL database (SQLite or PostgreSQL)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa

from persistence.accounts import (
    ANYONE,
    Account,
    AccountEvent,
    AccountStore,
    AccountWrites,
    ApiKey,
    Challenge,
    NameTaken,
    key_of,
)
from persistence.port import Transaction
from persistence.schema import account_events, account_seats, accounts, api_keys, challenges


def _challenge_row(challenge: Challenge) -> dict[str, Any]:
    row = dataclasses.asdict(challenge)
    row["invited"] = None if challenge.invited is None else list(challenge.invited)
    row["accepted"] = list(challenge.accepted)
    row["entropy"] = list(challenge.entropy) if any(challenge.entropy) else None
    return row


def _challenge(row: Any) -> Challenge:
    values = dict(row._mapping)
    values["invited"] = None if values["invited"] is None else tuple(values["invited"])
    values["accepted"] = tuple(values["accepted"])
    given = tuple(values["entropy"] or ())  # (a seat accepted by a server older than the column added none)
    values["entropy"] = given + (None,) * (len(values["accepted"]) - len(given))
    return Challenge(**values)


def _account(name: str, kind: str, description: str, created_at: dt.datetime, entered_by: Any) -> Account:
    """An account from its columns (``entered_by`` null: set before the column was, so anyone)."""
    return Account(name, kind, description, created_at,
                   ANYONE if entered_by is None else entered_by if isinstance(entered_by, str) else tuple(entered_by))


def _key(row: Any) -> ApiKey:
    return ApiKey(row.prefix, row.account, row.key_hash, frozenset(row.scopes.split()), row.created_at, row.revoked_at)


_CHALLENGE_COLUMNS = [getattr(challenges.c, field.name) for field in dataclasses.fields(Challenge)]
#: A seat whose account plays it now: its game not over, the seat not handed to a house bot.
_PLAYING = sa.and_(sa.not_(account_seats.c.finished), sa.not_(account_seats.c.handed_over))
_UNFINISHED_CHUNK = 500  # game ids a query names at most (SQLite takes a bounded number of parameters)


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

    def set_entered_by(self, account: str, entered_by: str | tuple[str, ...]) -> None:
        value = entered_by if isinstance(entered_by, str) else list(entered_by)
        self.connection.execute(accounts.update().where(accounts.c.name_key == account).values(entered_by=value))

    def add_key(self, key: ApiKey) -> None:
        row = dataclasses.asdict(key)
        row["scopes"] = " ".join(sorted(key.scopes))
        self.connection.execute(api_keys.insert(), row)

    def live_keys(self, account: str) -> int:
        self._lock(account)
        return self.connection.execute(sa.select(sa.func.count()).select_from(api_keys).where(
            api_keys.c.account == account, api_keys.c.revoked_at.is_(None))).scalar_one()

    def open_challenges_by(self, challenger: str, now: dt.datetime) -> int:
        self._lock(key_of(challenger))
        return self.connection.execute(sa.select(sa.func.count()).select_from(challenges).where(
            challenges.c.status == "open", challenges.c.expires_at > now, challenges.c.challenger == challenger)).scalar_one()

    def _lock(self, account: str) -> None:
        """The account's row locked until the transaction ends (on SQLite, BEGIN IMMEDIATE holds the database)."""
        if self.connection.dialect.name == "postgresql":
            self.connection.execute(sa.select(accounts.c.name_key).where(accounts.c.name_key == account)
                                    .with_for_update(key_share=True))

    def revoke_key(self, account: str, prefix: str, at: dt.datetime) -> bool:
        statement = api_keys.update().where(api_keys.c.prefix == prefix, api_keys.c.account == account,
                                            api_keys.c.revoked_at.is_(None)).values(revoked_at=at)
        return self.connection.execute(statement).rowcount == 1

    def forget_revoked(self, account: str, keep: int) -> None:
        revoked = sa.and_(api_keys.c.account == account, api_keys.c.revoked_at.is_not(None))
        kept = (sa.select(api_keys.c.prefix).where(revoked)
                .order_by(api_keys.c.revoked_at.desc(), api_keys.c.prefix.desc()).limit(keep))
        self.connection.execute(api_keys.delete().where(revoked, api_keys.c.prefix.not_in(kept.scalar_subquery())))

    def add_seat(self, game_id: str, seat: int, account: str) -> None:
        self.connection.execute(account_seats.insert(),
                                {"game_id": game_id, "seat": seat, "account": account, "finished": False})

    def add_seats(self, seats: Sequence[tuple[str, int, str]]) -> None:
        if seats:
            self.connection.execute(account_seats.insert(), [{"game_id": game_id, "seat": seat, "account": account,
                                                              "finished": False} for game_id, seat, account in seats])

    def playing(self, accounts: Sequence[str]) -> dict[str, int]:
        rows = self.connection.execute(sa.select(account_seats.c.account, sa.func.count())
                                       .where(account_seats.c.account.in_(accounts), _PLAYING)
                                       .group_by(account_seats.c.account)).all()
        return {row[0]: row[1] for row in rows}

    def hand_over_seats(self, game_id: str, seats: Sequence[int]) -> None:
        self.connection.execute(account_seats.update().where(account_seats.c.game_id == game_id,
                                                             account_seats.c.seat.in_(seats)).values(handed_over=True))

    def finish_seats(self, game_id: str) -> dict[int, str]:
        rows = self.connection.execute(sa.select(account_seats.c.seat, account_seats.c.account)
                                       .where(account_seats.c.game_id == game_id)).all()
        if rows:
            self.connection.execute(account_seats.update().where(account_seats.c.game_id == game_id)
                                    .values(finished=True))
        return {row.seat: row.account for row in rows}

    def forget_seats(self, game_id: str) -> None:
        self.connection.execute(account_seats.delete().where(account_seats.c.game_id == game_id))

    def unfinished(self, game_ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(game_ids), _UNFINISHED_CHUNK):
            chunk = list(game_ids[start:start + _UNFINISHED_CHUNK])
            found |= set(self.connection.execute(sa.select(account_seats.c.game_id).distinct().where(
                account_seats.c.game_id.in_(chunk), sa.not_(account_seats.c.finished))).scalars())
        return found

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
            # FOR NO KEY UPDATE, not FOR UPDATE: a row inserted in the same transaction that refers to the
            # account (a seat of a new game) holds FOR KEY SHARE on it, which FOR UPDATE would wait for; two
            # games of one account started at once would each hold that share and wait for the other's.
            self.connection.execute(sa.select(accounts.c.name_key).where(accounts.c.name_key == account)
                                    .with_for_update(key_share=True))
        seq = self.connection.execute(sa.select(sa.func.coalesce(sa.func.max(account_events.c.seq), 0))
                                      .where(account_events.c.account == account)).scalar() + 1
        self.connection.execute(account_events.insert(), {"account": account, "seq": seq, "type": type_name,
                                                          "data": data, "recorded_at": at})
        return seq


    def append_all(self, events: Sequence[tuple[str, str, dict[str, Any], dt.datetime]]) -> None:
        """Each account locked once (in key order, as :meth:`append` locks one), its newest seq read once
        with the others', and every event in one multi-row insert."""
        touched = sorted({account for account, *_ in events})
        if not touched:
            return
        if self.connection.dialect.name == "postgresql":
            self.connection.execute(sa.select(accounts.c.name_key).where(accounts.c.name_key.in_(touched))
                                    .order_by(accounts.c.name_key).with_for_update(key_share=True))
        newest = dict(self.connection.execute(sa.select(account_events.c.account, sa.func.max(account_events.c.seq))
                                              .where(account_events.c.account.in_(touched))
                                              .group_by(account_events.c.account)).all())
        rows = []
        for account, type_name, data, at in events:
            newest[account] = seq = (newest.get(account) or 0) + 1
            rows.append({"account": account, "seq": seq, "type": type_name, "data": data, "recorded_at": at})
        self.connection.execute(account_events.insert(), rows)


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
        rows = self._rows(sa.select(accounts.c.name, accounts.c.kind, accounts.c.description, accounts.c.created_at,
                                    accounts.c.entered_by).where(accounts.c.name_key == key_of(name)))
        return _account(*rows[0]) if rows else None

    def key(self, prefix: str) -> ApiKey | None:
        rows = self._rows(sa.select(api_keys).where(api_keys.c.prefix == prefix))
        return _key(rows[0]) if rows else None

    def key_and_account(self, prefix: str) -> tuple[ApiKey, Account] | None:
        rows = self._rows(sa.select(api_keys, accounts.c.name, accounts.c.kind, accounts.c.description,
                                    accounts.c.created_at.label("account_created_at"), accounts.c.entered_by)
                          .join(accounts, accounts.c.name_key == api_keys.c.account).where(api_keys.c.prefix == prefix))
        if not rows:
            return None
        row = rows[0]
        return _key(row), _account(row.name, row.kind, row.description, row.account_created_at, row.entered_by)

    def keys(self, account: str) -> list[ApiKey]:
        return [_key(row) for row in self._rows(sa.select(api_keys).where(api_keys.c.account == account)
                                                .order_by(api_keys.c.created_at, api_keys.c.prefix))]

    def playing(self, accounts: Sequence[str]) -> dict[str, int]:
        return self.store._read(lambda connection: SqlAccountWrites(connection).playing(accounts))

    def unfinished(self, game_ids: Sequence[str]) -> set[str]:
        return self.store._read(lambda connection: SqlAccountWrites(connection).unfinished(game_ids))

    def games_of(self, account: str) -> tuple[int, list[str]]:
        rows = self._rows(sa.select(account_seats.c.game_id, account_seats.c.finished, account_seats.c.handed_over)
                          .where(account_seats.c.account == account))
        return (sum(1 for row in rows if row.finished or row.handed_over),
                sorted({row.game_id for row in rows if not (row.finished or row.handed_over)}))

    def challenge(self, challenge_id: str) -> Challenge | None:
        rows = self._rows(sa.select(*_CHALLENGE_COLUMNS).where(challenges.c.id == challenge_id))
        return _challenge(rows[0]) if rows else None

    def open_challenges(self, now: dt.datetime, limit: int) -> list[Challenge]:
        anyones = sa.or_(challenges.c.invited.is_(None), sa.cast(challenges.c.invited, sa.Text) == "null")  # (JSON null)
        rows = self._rows(sa.select(*_CHALLENGE_COLUMNS)
                          .where(challenges.c.status == "open", challenges.c.expires_at > now, anyones)
                          .order_by(challenges.c.created_at.desc()).limit(limit))
        return [_challenge(row) for row in rows]

    def challenges_naming(self, account: str, now: dt.datetime) -> list[Challenge]:
        named = sa.and_(challenges.c.invited.is_not(None), sa.cast(challenges.c.invited, sa.Text) != "null")
        rows = self._rows(sa.select(*_CHALLENGE_COLUMNS)
                          .where(challenges.c.status == "open", challenges.c.expires_at > now, named)
                          .order_by(challenges.c.created_at.desc()))
        return [found for found in map(_challenge, rows) if account in map(key_of, found.invited or ())]

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
