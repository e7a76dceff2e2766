"""PostgreSQL specifics: rolled-back appends leave gaps in positions that never stall a follower."""

from __future__ import annotations

import datetime as dt

import pytest

from persistence import open_store
from persistence.port import NewEvent

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
