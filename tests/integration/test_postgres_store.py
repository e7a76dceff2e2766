"""PostgreSQL specifics: rolled-back appends leave gaps in positions that never stall a follower;
connections the server dropped cost a read nothing and a write at most one 503."""

from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as dt
import threading
import time
from collections.abc import Callable, Iterator

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from persistence import open_store
from persistence.port import NewEvent, StoreUnavailable, VersionConflict
from persistence.schema import games
from persistence.sql import _DRIVER_VERSION_OF_GAME, APPEND_LOCK_KEY, DUE_GAMES
from tests.pg import libpq_url

pytestmark = pytest.mark.postgres
NOW = dt.datetime(2025, 1, 2, tzinfo=dt.UTC)


def test_a_rolled_back_append_leaves_a_gap_that_a_follower_steps_over(postgres_url: str) -> None:
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)
        tx.append("g1", 0, [NewEvent("Tick", None, {})], NOW)
    last_seen = store.read_all()[-1].position
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.append("g1", 1, [NewEvent("Tick", None, {})] * 3, NOW)
        raise RuntimeError("rolled back after drawing positions from the sequence")
    with store.transaction() as tx:
        tx.append("g1", 1, [NewEvent("Tock", None, {})], NOW)
    [after_gap] = store.read_all(after_position=last_seen)
    assert (after_gap.type, after_gap.version) == ("Tock", 2)
    assert after_gap.position > last_seen + 1
    store.close()


def drop_connections(url: str) -> int:
    """Cut every connection to ``url``'s database (what a server restart or failover does); how many."""
    with psycopg.connect(libpq_url(url), autocommit=True) as admin:
        return len(admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [sa.make_url(url).database]).fetchall())


def test_reads_after_the_server_dropped_every_pooled_connection_just_work(postgres_url: str) -> None:
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)
        tx.append("g1", 0, [NewEvent("Tick", None, {})], NOW)
    assert store.last_version("g1") == 1
    assert drop_connections(postgres_url) >= 1
    assert store.last_version("g1") == 1  # the dead connection's read is tried again on a fresh one
    assert [event.type for event in store.read("g1")] == ["Tick"]
    store.close()


def test_a_write_after_the_server_dropped_every_pooled_connection_fails_at_most_once_and_loses_nothing(
    postgres_url: str,
) -> None:
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)
    for version in range(3):
        with store.transaction() as tx:
            tx.append("g1", version, [NewEvent("Tick", None, {"n": version})], NOW)
    held = [store.engine.connect() for _ in range(4)]  # four connections in the pool, as busy threads leave it
    for connection in held:
        connection.close()
    assert drop_connections(postgres_url) >= 4
    failures = 0
    for version in range(3, 6):
        try:
            with store.transaction() as tx:
                tx.append("g1", version, [NewEvent("Tick", None, {"n": version})], NOW)
        except StoreUnavailable:
            failures += 1
            with store.transaction() as tx:  # what a client retrying after the 503 does
                tx.append("g1", version, [NewEvent("Tick", None, {"n": version})], NOW)
    assert failures <= 1
    assert [event.data["n"] for event in store.read("g1")] == list(range(6))
    store.close()


def test_a_final_append_alone_in_its_transaction_is_committed_in_its_own_round_trip(postgres_url: str) -> None:
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)
    with store.transaction() as tx:
        tx.append("g1", 0, [NewEvent("Tick", None, {})], NOW, final=True)
        assert store.last_version("g1") == 1  # another connection sees it before the block ends
        with pytest.raises(RuntimeError):  # and the transaction takes no more writes
            tx.set_status("g1", "active")
    with store.transaction() as tx:  # not alone: committed at the end, as usual
        tx.add_token("g1", 0, "a" * 64)
        tx.append("g1", 1, [NewEvent("Tock", None, {})], NOW, final=True)
        assert store.last_version("g1") == 1
    assert store.last_version("g1") == 2 and store.seat_for_token("a" * 64) == ("g1", 0)
    with store.transaction() as tx:  # a status and snapshot before it ride in its statement
        tx.set_status("g1", "active")
        tx.put_snapshot("g1", 3, "f" * 64, b"snap")
        tx.append("g1", 2, [NewEvent("Tick", None, {})], NOW, final=True)
        assert store.last_version("g1") == 3 and store.get_game("g1").status == "active"
        assert store.latest_snapshot("g1").version == 3
    store.close()


@contextlib.contextmanager
def append_lock_held(url: str) -> Iterator[Callable[[], None]]:
    """Hold the lock every append takes; yields its release (also called on the way out)."""
    holder = psycopg.connect(libpq_url(url), autocommit=True)
    holder.execute("SELECT pg_advisory_lock(%s)", [APPEND_LOCK_KEY])
    try:
        yield holder.close
    finally:
        holder.close()


def test_a_final_append_waits_for_the_append_lock_before_it_writes(postgres_url: str) -> None:
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)

    def append() -> list[int]:
        with store.transaction() as tx:
            return [event.position for event in tx.append("g1", 0, [NewEvent("Tick", None, {})], NOW, final=True)]

    with concurrent.futures.ThreadPoolExecutor(1) as pool, append_lock_held(postgres_url) as release:
        pending = pool.submit(append)
        time.sleep(0.5)
        waiting, version = pending.done(), store.last_version("g1")
        release()
        [position] = pending.result(timeout=10)
    assert (waiting, version) == (False, 0)  # it queued on the lock, having written nothing
    assert store.last_version("g1") == 1
    assert [event.position for event in store.read_all()] == [position]
    store.close()


def test_appends_queued_on_the_lock_at_the_same_version_let_exactly_one_through(postgres_url: str) -> None:
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)

    def append(label: str) -> str:
        try:
            with store.transaction() as tx:
                tx.append("g1", 0, [NewEvent("Tick", None, {"by": label})], NOW, final=True)
        except VersionConflict:
            return "refused"
        return "appended"

    with concurrent.futures.ThreadPoolExecutor(2) as pool, append_lock_held(postgres_url) as release:
        # Both statements start (and read the game at version 0) before either holds the lock.
        outcomes = [pool.submit(append, label) for label in ("a", "b")]
        time.sleep(0.5)
        release()
        results = sorted(outcome.result(timeout=10) for outcome in outcomes)
    assert results == ["appended", "refused"]
    assert [event.version for event in store.read("g1")] == [1]
    store.close()


def test_a_burst_of_concurrent_requests_reuses_the_connections_it_opened(postgres_url: str) -> None:
    """No overflow: a connection handed back is kept, not closed and opened anew by the next request."""
    store = open_store(postgres_url)
    together = threading.Barrier(12)

    def backends() -> set[int]:
        seen = set()
        for _ in range(5):  # five bursts: twelve requests at once, then none
            together.wait()
            with store.engine.connect() as connection:
                seen.add(connection.exec_driver_sql("SELECT pg_backend_pid() FROM pg_sleep(0.01)").scalar())
        return seen

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        seen = set().union(*pool.map(lambda _: backends(), range(12)))
    assert len(seen) <= 12  # one session per concurrent request at most, however many requests
    store.close()


def _index_rows(plan: dict) -> list[int]:
    """Rows each scan of the events table's (game_id, version) index gave, in a JSON plan."""
    rows = [plan["Actual Rows"]] if plan.get("Index Name") == "uq_events_game_id_version" else []
    for child in plan.get("Plans", []):
        rows += _index_rows(child)
    return rows


def test_a_games_version_reads_one_index_entry_however_long_the_game_even_on_a_generic_plan(
    postgres_url: str,
) -> None:
    """PostgreSQL keeps a prepared statement's generic plan; the one it made for max(version)
    while the table was empty aggregated every event of the game (2.7 ms a read at 20,000)."""
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("long", "craits", 2, NOW)
    for version in range(0, 600, 100):
        with store.transaction() as tx:
            tx.append("long", version, [NewEvent("Tick", None, {})] * 100, NOW)
    version_sql = _DRIVER_VERSION_OF_GAME["postgresql"].replace("%s", "$1", 1).replace("%s", "$2", 1)
    with psycopg.connect(libpq_url(postgres_url), autocommit=True) as connection:
        connection.execute("SET plan_cache_mode = force_generic_plan")
        connection.execute(f"PREPARE version_of(text, text) AS {version_sql}")
        [[[plan]]] = connection.execute("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE version_of('long', 'long')").fetchall()
        assert connection.execute("EXECUTE version_of('long', 'long')").fetchone() == (600,)
    assert _index_rows(plan["Plan"]) == [1]
    store.close()


def test_a_sweep_reads_the_due_games_through_the_deadline_index_even_on_a_generic_plan(postgres_url: str) -> None:
    """The partial index holds only games with a deadline; a generic plan (``$1``, not a value) must
    still prove ``deadline <= $1`` implies it, or every sweep would read every game."""
    query = DUE_GAMES.where(games.c.deadline <= sa.bindparam("now")).limit(100)
    compiled = query.compile(dialect=postgresql.dialect(paramstyle="numeric_dollar"))
    values = ", ".join("now()" if name == "now" else repr(compiled.params[name]) for name in compiled.positiontup)
    with psycopg.connect(libpq_url(postgres_url), autocommit=True) as connection:
        connection.execute("SET plan_cache_mode = force_generic_plan")
        connection.execute("SET enable_seqscan = off")  # (an empty table: only whether the index can serve)
        connection.execute(f"PREPARE due AS {compiled}")
        plan = " ".join(row[0] for row in connection.execute(f"EXPLAIN EXECUTE due({values})").fetchall())
    assert "ix_games_deadline" in plan, plan
