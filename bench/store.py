"""Store benchmark: our SQLite event store against the eventsourcing library's SQLite recorders, in one
run; or PostgreSQL appends from several writers at once against one.

Usage: ``python3 bench/store.py [--appends 3000] [--rounds 5] [--synchronous NORMAL|FULL] [--seed S]``
(needs the ``bench`` extra, for eventsourcing: ``pip install -e '.[bench]'``);
``python3 bench/store.py --postgresql --writers 8 [--seconds 5] [--rounds 5] [--database URL]``.

All write the same payloads — the events of one seeded random Craits game (5
players, about 2,000 events), cycled — to a fresh SQLite file in WAL mode with
the same ``synchronous`` setting (NORMAL, our production setting, by default).
Two of the library's recorders, because they keep different things:

- ``SQLiteAggregateRecorder``: events per aggregate only, in one ``WITHOUT ROWID``
  table keyed on (id, version) — one b-tree written per event, and no global order;
- ``SQLiteApplicationRecorder``: the same plus a global order (the rowid, its
  notification id) — what our events table keeps too (its ``position``, which the
  SQLite poller reads): the like-for-like comparison.

Figures:

- appends/s, one event per transaction, one game (aggregate), one thread. Ours:
  ``SqliteEventStore.transaction()`` + ``append`` — BEGIN IMMEDIATE, the ``INSERT``
  carrying the version check (the newest version of the game must be the expected
  one), JSON encoding, COMMIT, announcing to waiters. Theirs: ``JSONTranscoder.encode``
  of the same payload + ``insert_events`` — BEGIN, INSERT, COMMIT (the primary key
  on (originator_id, version) is their version check);
- replay events/s of the whole game: ours "read" is ``store.read`` (rows to
  StoredEvent, JSON decoded), ours "read + fold" adds decoding each into a domain
  event and folding it through ``domain.table`` — a cold load of the table; theirs
  is ``select_events`` + ``JSONTranscoder.decode`` (read + decode: the library
  folds in its own aggregates, which our domain does not use).

The rounds interleave ours and theirs (the machine may be shared, and its speed
drifts); each figure is the best of ``--rounds``.

``--postgresql``: appends/s, one event per transaction, to ``--writers`` different
games at once, each from its own process and connection, against one writer alone;
the rounds interleave the two. On ``--database`` (a server where databases may be
created), else ``CARDHALL_TEST_POSTGRES_URL``, else a throwaway cluster of this
machine's PostgreSQL binaries (``fsync=off``: a commit does not wait for the disk).
Writers and server share the machine's cores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
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
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteApplicationRecorder, SQLiteDatastore

import persistence
from bench import _common
from bench.engine import play_random, stored_log
from domain import table as tables
from persistence.port import EventStore, NewEvent

Log = list[tuple[str, int | None, dict[str, Any]]]


def timed(run: Callable[[], None]) -> float:
    """Seconds ``run()`` took."""
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def ours(path: pathlib.Path, synchronous: str) -> Any:
    """Our store on a fresh migrated file, its connections set to ``synchronous``."""
    url = f"sqlite:///{path}"
    persistence.upgrade(url)
    store: Any = persistence.open_store(url)

    @sa.event.listens_for(store.engine, "connect")
    def set_synchronous(dbapi_connection: Any, _record: Any) -> None:  # after the engine's own PRAGMAs
        dbapi_connection.execute(f"PRAGMA synchronous = {synchronous}")

    store.engine.dispose()
    return store


def theirs(path: pathlib.Path, synchronous: str, recorder: type[SQLiteAggregateRecorder]) -> SQLiteAggregateRecorder:
    """One of the library's recorders on a fresh file (it switches to WAL itself), set to ``synchronous``."""
    datastore = SQLiteDatastore(str(path), originator_id_type="text")
    pool = datastore.pool
    create = pool._create_connection

    def connect() -> Any:
        connection = create()
        connection._sqlite_conn.execute(f"PRAGMA synchronous = {synchronous}")
        return connection

    pool._create_connection = connect  # type: ignore[method-assign]
    made = recorder(datastore)
    made.create_table()
    return made


def append_ours(store: EventStore, log: Log, count: int, name: str) -> None:
    """``count`` appends to a new game ``name``, one event per transaction."""
    now = dt.datetime.now(dt.UTC)
    with store.transaction() as tx:
        tx.create_game(name, "craits", 5, now)
    for version in range(count):
        append_one(store, log, name, version, now)


def append_one(store: EventStore, log: Log, name: str, version: int, now: dt.datetime) -> None:
    """The ``version + 1``-th event of ``log`` (cycled) appended to game ``name`` in its own transaction."""
    type_name, seat, data = log[version % len(log)]
    with store.transaction() as tx:
        tx.append(name, version, [NewEvent(type_name, seat, data)], now)


def append_theirs(recorder: SQLiteAggregateRecorder, log: Log, count: int, name: str) -> None:
    """``count`` appends to a new aggregate ``name``, the payload encoded by the library's transcoder."""
    transcoder = JSONTranscoder()
    for version in range(count):
        type_name, _seat, data = log[version % len(log)]
        recorder.insert_events([StoredEvent(name, version + 1, type_name, transcoder.encode(data))])


def load_replay(store: EventStore, recorders: list[SQLiteAggregateRecorder], log: Log) -> None:
    """The same game, whole, in our store and in each recorder."""
    now = dt.datetime.now(dt.UTC)
    with store.transaction() as tx:
        tx.create_game("replay", "craits", 5, now)
        tx.append("replay", 0, [NewEvent(*event) for event in log], now)
    transcoder = JSONTranscoder()
    for recorder in recorders:
        recorder.insert_events([StoredEvent("replay", version, type_name, transcoder.encode(data))
                                for version, (type_name, _seat, data) in enumerate(log, start=1)])


def read_ours(store: EventStore, log: Log) -> None:
    assert len(store.read("replay")) == len(log)


def fold_ours(store: EventStore, log: Log) -> None:
    table = tables.replay(tables.decode("craits", e.type, e.seat, e.data) for e in store.read("replay"))
    assert table.version == len(log)


def read_theirs(recorder: SQLiteAggregateRecorder, log: Log) -> None:
    transcoder = JSONTranscoder()
    decoded = [transcoder.decode(event.state) for event in recorder.select_events("replay")]
    assert len(decoded) == len(log)


def measure(args: argparse.Namespace, log: Log, directory: pathlib.Path) -> dict[str, dict[str, float]]:
    """Per figure and contender: the best rate over the interleaved rounds."""
    store = ours(directory / "ours.db", args.synchronous)
    recorders = {"aggregate": theirs(directory / "aggregate.db", args.synchronous, SQLiteAggregateRecorder),
                 "application": theirs(directory / "application.db", args.synchronous, SQLiteApplicationRecorder)}
    appends: dict[str, Callable[[str], None]] = {
        "ours": lambda name: append_ours(store, log, args.appends, name),
        **{key: (lambda name, r=recorder: append_theirs(r, log, args.appends, name))
           for key, recorder in recorders.items()},
    }
    load_replay(store, list(recorders.values()), log)
    replays: dict[str, Callable[[], None]] = {
        "ours": lambda: read_ours(store, log), "ours_fold": lambda: fold_ours(store, log),
        **{key: (lambda r=recorder: read_theirs(r, log)) for key, recorder in recorders.items()},
    }
    best: dict[str, dict[str, float]] = {"appends": {}, "replay": {}}
    for index in range(args.rounds):
        order = list(appends)
        order = order[index % len(order):] + order[:index % len(order)]  # nobody always runs first
        for key in order:
            name = f"appends{index}-{uuid.uuid4().hex}"
            seconds = timed(lambda key=key, name=name: appends[key](name))
            best["appends"][key] = max(best["appends"].get(key, 0.0), args.appends / seconds)
        for key, replay in replays.items():
            best["replay"][key] = max(best["replay"].get(key, 0.0), len(log) / timed(replay))
    store.close()
    for recorder in recorders.values():
        recorder.datastore.close()
    return best


def write_for(url: str, name: str, seed: int, seconds: float, start: Any, counts: Any) -> None:
    """In a writer process: appends to game ``name`` for ``seconds`` once every writer is ready
    (``start``, a barrier); how many, put on ``counts``."""
    log = stored_log(play_random("craits", 5, seed))
    store = persistence.open_store(url)
    now = dt.datetime.now(dt.UTC)
    store.last_version(name)  # (connected before the start)
    start.wait()
    version, until = 0, time.monotonic() + seconds
    while time.monotonic() < until:
        append_one(store, log, name, version, now)
        version += 1
    store.close()
    counts.put(version)


def postgres_rate(url: str, args: argparse.Namespace, writers: int) -> float:
    """Appends/s of ``writers`` processes at once, each to a game of its own."""
    names = [f"w{writers}-{uuid.uuid4().hex}" for _ in range(writers)]
    store = persistence.open_store(url)
    with store.transaction() as tx:
        for name in names:
            tx.create_game(name, "craits", 5, dt.datetime.now(dt.UTC))
    store.close()
    spawn = multiprocessing.get_context("spawn")
    start, counts = spawn.Barrier(writers), spawn.Queue()
    processes = [spawn.Process(target=write_for, args=(url, name, args.seed, args.seconds, start, counts))
                 for name in names]
    for process in processes:
        process.start()
    total = sum(counts.get(timeout=300) for _ in processes)
    for process in processes:
        process.join()
    return total / args.seconds


def postgresql(args: argparse.Namespace) -> None:
    """Print the table of PostgreSQL appends, one writer against ``--writers``."""
    from tests import pg

    best: dict[int, float] = {}
    with _common.postgres_server(args.database) as server:
        url = pg.create_database(server)
        try:
            persistence.upgrade(url)
            for _ in range(args.rounds):
                for writers in (1, args.writers):
                    best[writers] = max(best.get(writers, 0.0), postgres_rate(url, args, writers))
        finally:
            pg.drop_database(server, url)
    _common.print_table(
        f"Store: PostgreSQL appends, one event per transaction, each writer a process with its own connection "
        f"and game; {args.seconds:g} s runs, best of {args.rounds} interleaved rounds",
        ["writers", "appends/s", "against 1 writer"],
        [[str(writers), f"{rate:,.0f}", f"{rate / best[1]:.2f}x"] for writers, rate in sorted(best.items())],
        note=_common.load_average())


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=3000, help="transactions per append run")
    parser.add_argument("--rounds", type=int, default=5, help="runs per figure; the best counts")
    parser.add_argument("--synchronous", default="NORMAL", choices=["NORMAL", "FULL"])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--postgresql", action="store_true", help="PostgreSQL appends from --writers at once")
    parser.add_argument("--writers", type=int, default=8, help="with --postgresql: writers at once")
    parser.add_argument("--seconds", type=float, default=5.0, help="with --postgresql: seconds per run")
    parser.add_argument("--database", help="with --postgresql: a server URL (else a throwaway cluster)")
    args = parser.parse_args(argv)
    if args.postgresql:
        postgresql(args)
        return
    log = stored_log(play_random("craits", 5, args.seed))
    with tempfile.TemporaryDirectory(prefix="cardhall-store-") as directory:
        best = measure(args, log, pathlib.Path(directory))
    appends, replay = best["appends"], best["replay"]

    def row(label: str, figures: dict[str, float], key: str) -> list[str]:
        return [label, f"{figures[key]:,.0f}", f"{figures['aggregate']:,.0f}", f"{figures['application']:,.0f}",
                f"{figures[key] / figures['aggregate']:.2f}x", f"{figures[key] / figures['application']:.2f}x"]

    rows = [row("appends/s (1 event per transaction)", appends, "ours"),
            row("replay events/s: read + JSON decode", replay, "ours"),
            row("replay events/s: read + decode + fold (ours)", replay, "ours_fold")]
    _common.print_table(
        f"Store: SQLite, WAL, synchronous={args.synchronous}; a Craits game of {len(log):,} events; "
        f"best of {args.rounds} interleaved rounds",
        ["", "ours (SqliteEventStore)", "eventsourcing Aggregate", "eventsourcing Application",
         "ours / Aggregate", "ours / Application"],
        rows, note=_common.load_average())


if __name__ == "__main__":
    main()
