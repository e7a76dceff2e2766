"""The ladder's store (:mod:`persistence.ladder`) on the event store's SQL database (SQLite or PostgreSQL)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa

from persistence.accounts import key_of
from persistence.ladder import (
    Finish,
    LadderStore,
    LadderWrites,
    PoolEntry,
    Rating,
    RatingChange,
    Tournament,
    entered_by_another,
)
from persistence.port import Transaction
from persistence.schema import (
    ladder_counters,
    pool_entries,
    rated_finishes,
    rating_history,
    ratings,
    tournament_accounts,
    tournaments,
)

FINISHES, APPLIED = "finishes", "ratings"  # the counters: the last finish recorded, the last one applied
POOLS = "pools"  # the row a pairing round locks: one round at a time, in every process


_RATING_COLUMNS = [getattr(ratings.c, field.name) for field in dataclasses.fields(Rating)]
rated_ordinal = ratings.c.mu - 3 * ratings.c.sigma  # (as service.ratings.ordinal computes it: the same doubles)
_CHANGE_COLUMNS = [getattr(rating_history.c, field.name) for field in dataclasses.fields(RatingChange)]
_ENTRY_COLUMNS = [getattr(pool_entries.c, field.name) for field in dataclasses.fields(PoolEntry)]


def _entry(row: Any) -> PoolEntry:
    values = dict(row._mapping)
    values["players"] = tuple(values["players"])
    return PoolEntry(**values)


class SqlLadderWrites(LadderWrites):
    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection

    def _counter(self, name: str, lock: bool) -> int:
        """The counter's value; ``lock``: its row locked until the transaction ends (made if missing)."""
        module = sa.dialects.postgresql if self.connection.dialect.name == "postgresql" else sa.dialects.sqlite
        self.connection.execute(module.insert(ladder_counters).on_conflict_do_nothing(), {"name": name, "value": 0})
        query = sa.select(ladder_counters.c.value).where(ladder_counters.c.name == name)
        return self.connection.execute(query.with_for_update() if lock else query).scalar_one()

    def _set(self, name: str, value: int) -> None:
        self.connection.execute(ladder_counters.update().where(ladder_counters.c.name == name).values(value=value))

    def finish(self, game_id: str, game: str, at: dt.datetime) -> int:
        seq = self._counter(FINISHES, lock=True) + 1  # (the lock: finishes commit in seq order)
        self._set(FINISHES, seq)
        self.connection.execute(rated_finishes.insert(),
                                {"seq": seq, "game_id": game_id, "game": game, "finished_at": at})
        return seq

    def applied(self) -> int:
        return self._counter(APPLIED, lock=True)

    def ratings(self, game: str, accounts: Sequence[str]) -> dict[str, Rating]:
        rows = self.connection.execute(sa.select(*_RATING_COLUMNS)
                                       .where(ratings.c.game == game, ratings.c.account.in_(list(accounts)))).all()
        return {row.account: Rating(*row) for row in rows}

    def apply(self, seq: int, changed: Sequence[Rating], history: Sequence[RatingChange]) -> None:
        for rating in changed:
            self.connection.execute(ratings.delete().where(ratings.c.game == rating.game,
                                                           ratings.c.account == rating.account))
        if changed:
            self.connection.execute(ratings.insert(), [dataclasses.asdict(rating) for rating in changed])
        if history:
            self.connection.execute(rating_history.insert(), [dataclasses.asdict(change) for change in history])
        self._set(APPLIED, seq)

    def pool(self, game: str) -> list[PoolEntry]:
        self._counter(POOLS, lock=True)
        rows = self.connection.execute(sa.select(*_ENTRY_COLUMNS).where(pool_entries.c.game == game)
                                       .order_by(pool_entries.c.account)).all()
        return [_entry(row) for row in rows]

    def join_pool(self, entry: PoolEntry) -> None:
        self._counter(POOLS, lock=True)  # (as the matcher's read: else two joins of one account at once each found
        # no entry to replace on PostgreSQL, and the second to insert was a UniqueViolation, a 500)
        self.leave_pool(entry.game, entry.account)
        row = dataclasses.asdict(entry)
        row["players"] = list(entry.players)
        self.connection.execute(pool_entries.insert(), row)

    def leave_pool(self, game: str, account: str) -> bool:
        statement = pool_entries.delete().where(pool_entries.c.game == game, pool_entries.c.account == account)
        return self.connection.execute(statement).rowcount == 1

    def leave_pools(self, account: str) -> None:
        self.connection.execute(pool_entries.delete().where(pool_entries.c.account == account))

    def add_tournament(self, tournament: Tournament) -> None:
        self.connection.execute(tournaments.insert(), dataclasses.asdict(tournament))
        entered = set(entered_by_another(tournament))
        self.connection.execute(tournament_accounts.insert(), [
            {"tournament_id": tournament.id, "account": account, "created_at": tournament.created_at,
             "entered": account in entered, "running": account in entered}
            for account in sorted({key_of(name) for name in tournament.spec["accounts"]})])

    def entered(self, accounts: Sequence[str]) -> list[Tournament]:
        running = sa.select(tournament_accounts.c.tournament_id).where(
            tournament_accounts.c.account.in_(list(accounts)), tournament_accounts.c.running)
        rows = self.connection.execute(sa.select(tournaments).where(tournaments.c.id.in_(running))
                                       .order_by(tournaments.c.created_at, tournaments.c.id)).all()
        return [Tournament(**row._mapping) for row in rows]

    def mark_finished(self, tournament_ids: Sequence[str]) -> None:
        if tournament_ids:
            self.connection.execute(tournament_accounts.update().where(
                tournament_accounts.c.tournament_id.in_(list(tournament_ids)), tournament_accounts.c.running)
                .values(running=False))

    def next_round(self, tournament: Tournament, games: Sequence[dict[str, Any]], byes: Sequence[dict[str, Any]],
                   more: bool) -> bool:
        made = tournament.current_round  # (the row's lock, PostgreSQL's or SQLite's, holds the check)
        statement = tournaments.update().where(tournaments.c.id == tournament.id,
                                               tournaments.c.current_round == made)
        return self.connection.execute(statement.values(
            current_round=made + 1, open=more, games=[*tournament.games, *games],
            byes=[*tournament.byes, *byes])).rowcount == 1

    def reset(self) -> None:
        self._counter(APPLIED, lock=True)
        self.connection.execute(rating_history.delete())
        self.connection.execute(ratings.delete())
        self._set(APPLIED, 0)


class SqlLadder(LadderStore):
    """The ladder on the event store's own database and connections."""

    def __init__(self, store: Any) -> None:
        self.store = store

    @contextmanager
    def within(self, tx: Transaction) -> Iterator[LadderWrites]:
        yield SqlLadderWrites(tx.connection)  # type: ignore[attr-defined]

    def _rows(self, query: sa.Executable) -> Sequence[Any]:
        return self.store._read(lambda connection: connection.execute(query).all())

    def applied(self) -> int:
        rows = self._rows(sa.select(ladder_counters.c.value).where(ladder_counters.c.name == APPLIED))
        return rows[0][0] if rows else 0

    def finishes_after(self, seq: int, limit: int) -> list[Finish]:
        rows = self._rows(sa.select(rated_finishes.c.seq, rated_finishes.c.game_id, rated_finishes.c.game,
                                    rated_finishes.c.finished_at)
                          .where(rated_finishes.c.seq > seq).order_by(rated_finishes.c.seq).limit(limit))
        return [Finish(*row) for row in rows]

    def leaderboard(self, game: str, min_games: int, after: tuple[float, str] | None, limit: int) -> list[Rating]:
        query = sa.select(*_RATING_COLUMNS).where(ratings.c.game == game, ratings.c.games >= min_games)
        if after is not None:
            value, account = after
            query = query.where(sa.or_(rated_ordinal < value, sa.and_(rated_ordinal == value, ratings.c.account > account)))
        rows = self._rows(query.order_by(rated_ordinal.desc(), ratings.c.account).limit(limit))
        return [Rating(*row) for row in rows]

    def ahead(self, game: str, min_games: int, ordinal: float, account: str) -> int:
        rows = self._rows(sa.select(sa.func.count()).select_from(ratings).where(
            ratings.c.game == game, ratings.c.games >= min_games,
            sa.or_(rated_ordinal > ordinal, sa.and_(rated_ordinal == ordinal, ratings.c.account < account))))
        return int(rows[0][0])

    def ratings_of(self, account: str) -> list[Rating]:
        rows = self._rows(sa.select(*_RATING_COLUMNS).where(ratings.c.account == account).order_by(ratings.c.game))
        return [Rating(*row) for row in rows]

    def history(self, account: str, game: str, limit: int) -> list[RatingChange]:
        rows = self._rows(sa.select(*_CHANGE_COLUMNS)
                          .where(rating_history.c.account == account, rating_history.c.game == game)
                          .order_by(rating_history.c.seq.desc()).limit(limit))
        return [RatingChange(*row) for row in reversed(rows)]

    def table(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        found = self._rows(sa.select(*_RATING_COLUMNS).order_by(ratings.c.game, ratings.c.account))
        changes = self._rows(sa.select(*_CHANGE_COLUMNS).order_by(rating_history.c.seq, rating_history.c.account))
        return [tuple(row) for row in found], [tuple(row) for row in changes]

    def pools(self) -> list[str]:
        return [row[0] for row in self._rows(sa.select(pool_entries.c.game).distinct().order_by(pool_entries.c.game))]

    def pool(self, game: str) -> list[PoolEntry]:
        rows = self._rows(sa.select(*_ENTRY_COLUMNS).where(pool_entries.c.game == game).order_by(pool_entries.c.account))
        return [_entry(row) for row in rows]

    def ratings(self, game: str, accounts: Sequence[str]) -> dict[str, Rating]:
        return self.store._read(lambda connection: SqlLadderWrites(connection).ratings(game, accounts))

    def entry(self, game: str, account: str) -> PoolEntry | None:
        rows = self._rows(sa.select(*_ENTRY_COLUMNS).where(pool_entries.c.game == game,
                                                           pool_entries.c.account == account))
        return _entry(rows[0]) if rows else None

    def tournament(self, tournament_id: str) -> Tournament | None:
        rows = self._rows(sa.select(tournaments).where(tournaments.c.id == tournament_id))
        return Tournament(**rows[0]._mapping) if rows else None

    def open_tournaments(self) -> list[str]:
        rows = self._rows(sa.select(tournaments.c.id).where(tournaments.c.open)
                          .order_by(tournaments.c.created_at, tournaments.c.id))
        return [row[0] for row in rows]

    def tournaments(self, account: str | None, before: tuple[dt.datetime, str] | None, limit: int) -> list[Tournament]:
        query = sa.select(tournaments)
        created_at, tournament_id = tournaments.c.created_at, tournaments.c.id
        if account is not None:  # (the account's rows, in the listing's order on their own index)
            created_at, tournament_id = tournament_accounts.c.created_at, tournament_accounts.c.tournament_id
            query = query.join(tournament_accounts, tournament_accounts.c.tournament_id == tournaments.c.id).where(
                tournament_accounts.c.account == account)
        if before is not None:
            query = query.where(sa.or_(created_at < before[0],
                                       sa.and_(created_at == before[0], tournament_id < before[1])))
        rows = self._rows(query.order_by(created_at.desc(), tournament_id.desc()).limit(limit))
        return [Tournament(**row._mapping) for row in rows]
