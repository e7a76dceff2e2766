"""Store benchmark: our SQLite event store against the eventsourcing library's SQLite recorder, in one run.

Usage: ``python3 bench/store.py [--appends 3000] [--rounds 3] [--synchronous NORMAL|FULL] [--seed S]``.

Both write the same payloads — the events of one seeded random Craits game (5
players, about 2,000 events), cycled — to a fresh SQLite file in WAL mode with
the same ``synchronous`` setting (NORMAL, our production setting, by default):

- appends/s, one event per transaction, one game (aggregate), one thread. Ours:
  ``SqlEventStore.transaction()`` + ``append`` — BEGIN IMMEDIATE, the game row's
  version check-and-bump (``UPDATE games``), the ``INSERT ... RETURNING position``,
  JSON encoding, COMMIT. Theirs: ``JSONTranscoder.encode`` of the same payload +
  ``SQLiteAggregateRecorder.insert_events`` — BEGIN, INSERT, COMMIT (the primary
  key on (originator_id, version) is their version check);
- replay events/s of the whole game: ours "read" is ``store.read`` (rows to
  StoredEvent, JSON decoded), ours "read + fold" adds decoding each into a domain
  event and folding it through ``domain.table`` — a cold load of the table; theirs
  is ``select_events`` + ``JSONTranscoder.decode`` (read + decode: the library
  folds in its own aggregates, which our domain does not use).

Each figure is the best of ``--rounds`` (the machine may be shared).
"""

from __future__ import annotations

import argparse
import datetime as dt
import pathlib
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import sqlalchemy as sa
from eventsourcing.persistence import JSONTranscoder, StoredEvent
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore

import persistence
from bench import _common
from bench.engine import play_random, stored_log
from domain import table as tables
from persistence.port import NewEvent
from persistence.sql import SqlEventStore

Log = list[tuple[str, int | None, dict[str, Any]]]


def best_rate(count: int, rounds: int, run: Callable[[int], None]) -> float:
    """The best of ``rounds`` runs of ``run(round)``, as ``count`` per second."""
    best = float("inf")
    for index in range(rounds):
        started = time.perf_counter()
        run(index)
        best = min(best, time.perf_counter() - started)
    return count / best


def ours(path: pathlib.Path, synchronous: str) -> SqlEventStore:
    """Our store on a fresh migrated file, its connections set to ``synchronous``."""
    url = f"sqlite:///{path}"
    persistence.upgrade(url)
    store = SqlEventStore(url)

    @sa.event.listens_for(store.engine, "connect")
    def set_synchronous(dbapi_connection: Any, _record: Any) -> None:  # after the engine's own PRAGMAs
        dbapi_connection.execute(f"PRAGMA synchronous = {synchronous}")

    store.engine.dispose()
    return store


def theirs(path: pathlib.Path, synchronous: str) -> SQLiteAggregateRecorder:
    """The library's recorder on a fresh file (it switches to WAL itself), set to ``synchronous``."""
    datastore = SQLiteDatastore(str(path), originator_id_type="text")
    pool = datastore.pool
    create = pool._create_connection

    def connect() -> Any:
        connection = create()
        connection._sqlite_conn.execute(f"PRAGMA synchronous = {synchronous}")
        return connection

    pool._create_connection = connect  # type: ignore[method-assign]
    recorder = SQLiteAggregateRecorder(datastore)
    recorder.create_table()
    return recorder


def append_ours(store: SqlEventStore, log: Log, count: int, rounds: int) -> float:
    """Appends/s, one event per transaction."""
    now = dt.datetime.now(dt.UTC)

    def run(index: int) -> None:
        game_id = f"appends{index}"
        with store.transaction() as tx:
            tx.create_game(game_id, "craits", 5, now)
        for version in range(count):
            type_name, seat, data = log[version % len(log)]
            with store.transaction() as tx:
                tx.append(game_id, version, [NewEvent(type_name, seat, data)], now)

    return best_rate(count, rounds, run)


def append_theirs(recorder: SQLiteAggregateRecorder, log: Log, count: int, rounds: int) -> float:
    """Appends/s, one event per transaction, the payload encoded by the library's transcoder."""
    transcoder = JSONTranscoder()

    def run(index: int) -> None:
        originator = f"appends{index}-{uuid.uuid4().hex}"
        for version in range(count):
            type_name, _seat, data = log[version % len(log)]
            recorder.insert_events([StoredEvent(originator, version + 1, type_name, transcoder.encode(data))])

    return best_rate(count, rounds, run)


def replay_rates(store: SqlEventStore, recorder: SQLiteAggregateRecorder, log: Log, rounds: int) -> list[float]:
    """Events/s: ours read, ours read + decode + fold, theirs read + decode (the same game in each)."""
    now = dt.datetime.now(dt.UTC)
    with store.transaction() as tx:
        tx.create_game("replay", "craits", 5, now)
        tx.append("replay", 0, [NewEvent(*event) for event in log], now)
    transcoder = JSONTranscoder()
    recorder.insert_events([StoredEvent("replay", version, type_name, transcoder.encode(data))
                            for version, (type_name, _seat, data) in enumerate(log, start=1)])

    def read_ours(_: int) -> None:
        assert len(store.read("replay")) == len(log)

    def fold_ours(_: int) -> None:
        table = tables.replay(tables.decode("craits", e.type, e.seat, e.data) for e in store.read("replay"))
        assert table.version == len(log)

    def read_theirs(_: int) -> None:
        decoded = [transcoder.decode(event.state) for event in recorder.select_events("replay")]
        assert len(decoded) == len(log)

    return [best_rate(len(log), rounds, run) for run in (read_ours, fold_ours, read_theirs)]


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=3000, help="transactions per append run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per figure; the best counts")
    parser.add_argument("--synchronous", default="NORMAL", choices=["NORMAL", "FULL"])
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    log = stored_log(play_random("craits", 5, args.seed))
    with tempfile.TemporaryDirectory(prefix="cardhall-store-") as directory:
        store = ours(pathlib.Path(directory) / "ours.db", args.synchronous)
        recorder = theirs(pathlib.Path(directory) / "theirs.db", args.synchronous)
        appended = [append_ours(store, log, args.appends, args.rounds),
                    append_theirs(recorder, log, args.appends, args.rounds)]
        read, fold, their_read = replay_rates(store, recorder, log, args.rounds)
        store.close()
        recorder.datastore.close()
    rows = [
        ["appends/s (1 event per transaction)", f"{appended[0]:,.0f}", f"{appended[1]:,.0f}",
         f"{appended[0] / appended[1]:.2f}x"],
        ["replay events/s: read + JSON decode", f"{read:,.0f}", f"{their_read:,.0f}", f"{read / their_read:.2f}x"],
        ["replay events/s: read + decode + fold (ours)", f"{fold:,.0f}", "-", f"{fold / their_read:.2f}x"],
    ]
    _common.print_table(
        f"Store: SQLite, WAL, synchronous={args.synchronous}; a Craits game of {len(log):,} events; "
        f"best of {args.rounds}",
        ["", "ours (SqlEventStore)", "eventsourcing (SQLiteAggregateRecorder)", "ours / theirs"],
        rows, note=_common.load_average())


if __name__ == "__main__":
    main()
