"""PostgreSQL specifics: rolled-back appends leave gaps in positions that never stall a follower;
connections the server dropped cost a read nothing and a write at most one 503."""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest
import sqlalchemy as sa

from persistence import open_store
from persistence.port import NewEvent, StoreUnavailable
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
        tx.set_status("g1", "active")
        tx.append("g1", 1, [NewEvent("Tock", None, {})], NOW, final=True)
        assert store.last_version("g1") == 1
    assert store.last_version("g1") == 2 and store.get_game("g1").status == "active"
    store.close()
