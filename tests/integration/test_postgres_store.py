"""PostgreSQL specifics: appends to different games never wait for each other, two after one version
let exactly one through; connections the server dropped cost a read nothing and a write at most one 503."""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import threading
import time

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from persistence import open_store
from persistence.port import NewEvent, StoreUnavailable, VersionConflict
from persistence.schema import games
from persistence.sqlstore import DUE_GAMES, VERSION_OF_GAME
from tests.pg import libpq_url

pytestmark = pytest.mark.postgres
NOW = dt.datetime(2025, 1, 2, tzinfo=dt.UTC)


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


def test_an_append_to_another_game_does_not_wait_for_an_open_transaction_appending(postgres_url: str) -> None:
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)
        tx.create_game("g2", "craits", 2, NOW)

    def append_to_g2() -> int:
        with store.transaction() as tx:
            return tx.append("g2", 0, [NewEvent("Tick", None, {})], NOW)[-1].version

    with concurrent.futures.ThreadPoolExecutor(1) as pool, store.transaction() as tx:
        tx.append("g1", 0, [NewEvent("Tick", None, {})], NOW)
        # Were appends serialised across games, this would wait for the open transaction: forever.
        assert pool.submit(append_to_g2).result(timeout=30) == 1
        assert store.last_version("g2") == 1 and store.last_version("g1") == 0
    assert store.last_version("g1") == 1
    store.close()


def test_two_appends_after_one_version_in_open_transactions_let_exactly_one_through(postgres_url: str) -> None:
    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)

    def append(label: str) -> str:
        try:
            with store.transaction() as tx:
                tx.append("g1", 0, [NewEvent("Tick", None, {"by": label})], NOW)
        except VersionConflict:
            return "refused"
        return "appended"

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        with store.transaction() as tx:
            tx.append("g1", 0, [NewEvent("Tick", None, {"by": "first"})], NOW)
            late = pool.submit(append, "second")  # its check sees version 0: the unique index stops it
            time.sleep(0.5)  # (so that it runs while this transaction is open)
        assert late.result(timeout=30) == "refused"
    assert [(event.version, event.data["by"]) for event in store.read("g1")] == [(1, "first")]
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
    compiled = VERSION_OF_GAME.compile(dialect=postgresql.dialect(paramstyle="numeric_dollar"))
    values = ", ".join(repr("long" if name == "game_id" else compiled.params[name]) for name in compiled.positiontup)
    with psycopg.connect(libpq_url(postgres_url), autocommit=True) as connection:
        connection.execute("SET plan_cache_mode = force_generic_plan")
        connection.execute(f"PREPARE version_of AS {compiled}")
        [[[plan]]] = connection.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE version_of({values})").fetchall()
        assert connection.execute(f"EXECUTE version_of({values})").fetchone() == (600,)
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


def test_an_append_whose_notify_fails_after_its_commit_is_kept_and_acknowledged(postgres_url, monkeypatch, caplog):
    """A NOTIFY refused after the COMMIT (here: a payload past PostgreSQL's 8,000 bytes) leaves the
    committed append kept and the write acknowledged, logged."""
    import persistence.postgres

    store = open_store(postgres_url)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)
    monkeypatch.setattr(persistence.postgres, "notify_sql", lambda _driver, _appended: b"NOTIFY cardhall_events, '%s'"
                        % (b"x" * 9000))
    with store.transaction() as tx:
        tx.append("g1", 0, [NewEvent("Tick", None, {})], NOW)
    assert store.last_version("g1") == 1
    assert [event.version for event in store.read("g1")] == [1]
    assert "NOTIFY after an append failed" in caplog.text
    with pytest.raises(VersionConflict), store.transaction() as tx:  # (the connection is fine for the next write)
        tx.append("g1", 0, [NewEvent("Tick", None, {})], NOW)
    store.close()


def test_a_statement_sent_by_pqexec_that_fails_raises_psycopgs_own_error_and_a_dropped_one_an_outage(
    postgres_url: str,
) -> None:
    """``BEGIN``, ``COMMIT`` and the NOTIFY bypass psycopg's ``execute``: their errors must still be psycopg's
    classes with their SQLSTATE (so a bug is a 500 and an outage a 503), and a connection gone an OperationalError."""
    from persistence.postgres import run

    store = open_store(postgres_url)
    with store.engine.connect() as connection:
        driver = connection.connection.driver_connection
        with pytest.raises(psycopg.errors.SyntaxError) as refused:
            run(driver, b"BEGN")
        assert refused.value.sqlstate == "42601" and not store.is_outage(refused.value)
        run(driver, b"BEGIN")
        assert driver.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        run(driver, b"COMMIT")
        assert drop_connections(postgres_url) >= 1
        with pytest.raises(psycopg.OperationalError) as dropped:
            run(driver, b"BEGIN")
        assert store.is_outage(dropped.value)
        connection.invalidate()
    store.close()
