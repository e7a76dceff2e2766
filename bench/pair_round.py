"""One pairing round's cost: the statements and the time of a ``Pools.pair`` that makes N games, in one process.

Usage: ``python3 bench/pair_round.py [--games 50] [--players 2] [--game craits] [--rounds 3] [--database URL]``.

On a fresh database (``--database``: a PostgreSQL server where databases may be created, else
``CARDHALL_TEST_POSTGRES_URL``, else a throwaway cluster; ``sqlite`` for a file) it makes
``games * players`` bot accounts for each round, puts them in ``game``'s pool (``players`` seats,
rated) and times the round that seats them all: the whole ``pair`` call (what it reads and decides
before its transaction, its transaction and the commit), and of it the transaction that holds the pools'
lock (which every process's round waits for). Statements are counted as sent to the
database: SQLAlchemy's (each batch of a multi-row insert once) and the event store's own appends.
Nothing else runs, so it is the round's own cost, not its wait under load (bench/ladder.py).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import pathlib
import statistics
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import sqlalchemy as sa

from bench._common import Databases, load_average
from persistence.ladder import PoolEntry
from service.bootstrap import open_service
from service.pools import Pools


class Counter:
    """Statements sent: SQLAlchemy's cursor executions and the event store's raw appends."""

    def __init__(self, engine: sa.Engine, transaction_class: type) -> None:
        self.count = 0
        sa.event.listen(engine, "before_cursor_execute", self._one)
        insert = transaction_class.insert

        def counted(tx: object, *args: object) -> bool:
            self.count += 1
            return insert(tx, *args)

        transaction_class.insert = counted  # type: ignore[method-assign]

    def _one(self, *_args: object) -> None:
        self.count += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--game", default="craits")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database", default="postgresql", help="postgresql (fresh), sqlite (fresh) or a URL")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        url = args.database if "://" in args.database else Databases(stack).new(args.database)
        games = open_service(url)
        stack.callback(games.store.close)
        store = games.store
        transaction = type(store).__module__
        counter = Counter(store.engine, _transaction_class(transaction))
        pools = Pools(games)
        locked: list[float] = []
        write = pools._write

        def timed(work: object) -> object:
            start = time.perf_counter()
            try:
                return write(work)
            finally:
                locked.append(time.perf_counter() - start)

        times, statements, made = [], [], []
        for round_ in range(args.rounds):
            now = games.clock()
            for index in range(args.games * args.players):
                name = f"r{round_}b{index}"
                games.accounts.create_account(name, "bot")
                entry = PoolEntry(args.game, name.lower(), name, True, (args.players,), True, False, 1,
                                  now - dt.timedelta(seconds=1))
                pools._write(lambda _tx, ladder, _writes, entry=entry: ladder.join_pool(entry))
            before = counter.count
            pools._write = timed  # type: ignore[method-assign]
            start = time.perf_counter()
            made.append(len(pools.pair(args.game)))
            times.append(time.perf_counter() - start)
            statements.append(counter.count - before)
            pools._write = write  # type: ignore[method-assign]
        print(f"{args.game}, {args.players} seats a game, {args.rounds} rounds on {url.split(':')[0]}; {load_average()}")
        rounds = zip(made, times, locked[-args.rounds:], statements, strict=True)
        for number, (count, seconds, held, sent) in enumerate(rounds, start=1):
            print(f"round {number}: {count} games, {sent} statements ({sent / max(count, 1):.1f} a game), "
                  f"{seconds * 1000:.0f} ms ({seconds * 1000 / max(count, 1):.1f} ms a game), "
                  f"the lock held {held * 1000:.0f} ms")
        print(f"median: {statistics.median(times) * 1000:.0f} ms, the lock held {statistics.median(locked) * 1000:.0f} ms, "
              f"{statistics.median(statements)} statements")


def _transaction_class(module: str) -> type:
    if module.endswith("postgres"):
        from persistence.postgres import PostgresTransaction
        return PostgresTransaction
    from persistence.sqlite import SqliteTransaction
    return SqliteTransaction


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        main()
