"""SQLite group commit: the writes a process's writers queue while one is open share its commit.

What a caller can see of it: a write is neither visible to readers nor acknowledged (its
``transaction()`` has not returned) until the commit of its whole group; a write of the group
that fails is undone alone, and raises only once the others are committed; every
acknowledged write is in the log.
"""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest

from persistence import open_store
from persistence.port import NewEvent, VersionConflict
from persistence.sqlite import SqliteEventStore
from tests.waiting import until

NOW = dt.datetime(2025, 1, 2, tzinfo=dt.UTC)
TICK = [NewEvent("Tick", None, {})]


def store_with_two_games(url: str) -> SqliteEventStore:
    store = open_store(url)
    assert isinstance(store, SqliteEventStore)
    with store.transaction() as tx:
        tx.create_game("g1", "craits", 2, NOW)
        tx.create_game("g2", "craits", 2, NOW)
    return store


def test_writes_queued_while_one_is_open_commit_with_it_and_a_failing_one_is_undone_alone(sqlite_url: str) -> None:
    store = store_with_two_games(sqlite_url)
    a_inside, release_a, c_inside, release_c = (threading.Event() for _ in range(4))
    outcomes: dict[str, object] = {}

    def first() -> None:  # opens the group, and holds its turn until the others queue
        with store.transaction() as tx:
            tx.append("g1", 0, TICK, NOW)
            a_inside.set()
            release_a.wait(10)
        outcomes["a"] = store.last_version("g1")  # (acknowledged: a reader sees it at once)

    def conflicting() -> None:  # the same version as the first write: refused, and only once that is committed
        try:
            with store.transaction() as tx:
                tx.append("g1", 0, TICK, NOW)
        except VersionConflict:
            outcomes["b"] = ("refused", store.last_version("g1"))

    def other_game() -> None:
        with store.transaction() as tx:
            tx.append("g2", 0, TICK, NOW)
            c_inside.set()
            release_c.wait(10)
        outcomes["c"] = store.last_version("g2")

    threads = [threading.Thread(target=first)]
    threads[0].start()
    assert a_inside.wait(10)
    threads += [threading.Thread(target=conflicting), threading.Thread(target=other_game)]
    for thread in threads[1:]:
        thread.start()
    until(lambda: store._queued == 2, "both writers queued behind the open one")
    release_a.set()
    assert c_inside.wait(10)
    # The first write is done but not committed: its group is still open, with the third write in it.
    time.sleep(0.1)
    assert "a" not in outcomes, "a write was acknowledged before its group's commit"
    assert store.last_version("g1") == 0 and store.last_version("g2") == 0, "a reader saw an uncommitted write"
    release_c.set()
    for thread in threads:
        thread.join(10)
    assert outcomes == {"a": 1, "b": ("refused", 1), "c": 1}
    assert [event.version for event in store.read("g1")] == [1]
    assert [event.version for event in store.read("g2")] == [1]
    store.close()


def test_a_failing_first_write_is_rolled_back_alone_and_the_writes_queued_behind_it_commit(sqlite_url: str) -> None:
    store = store_with_two_games(sqlite_url)
    inside, release = threading.Event(), threading.Event()
    outcomes: dict[str, object] = {}

    def failing() -> None:  # opens the transaction, writes, then fails (as a bug in a caller would)
        try:
            with store.transaction() as tx:
                tx.append("g1", 0, TICK, NOW)
                inside.set()
                release.wait(10)
                raise RuntimeError("boom")
        except RuntimeError as error:
            outcomes["first"] = str(error)

    def queued() -> None:
        with store.transaction() as tx:
            tx.append("g2", 0, TICK, NOW)
        outcomes["queued"] = store.last_version("g2")

    first = threading.Thread(target=failing)
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=queued)
    second.start()
    until(lambda: store._queued == 1, "a writer queued behind the open one")
    release.set()
    first.join(10)
    second.join(10)
    assert outcomes == {"first": "boom", "queued": 1}
    assert store.read("g1") == [] and [event.version for event in store.read("g2")] == [1]
    with store.transaction() as tx:  # (the connection is fine for the next write)
        tx.append("g1", 0, TICK, NOW)
    assert store.last_version("g1") == 1
    store.close()


@pytest.mark.slow
def test_many_threads_writing_at_once_lose_nothing_and_each_version_is_given_once(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    games = [f"g{number}" for number in range(4)]
    with store.transaction() as tx:
        for game in games:
            tx.create_game(game, "craits", 2, NOW)
    acknowledged: list[tuple[str, int]] = []

    def writer(game: str) -> None:
        for _ in range(25):
            while True:  # (as the service does: decide again on a conflict)
                version = store.last_version(game) or 0
                try:
                    with store.transaction() as tx:
                        tx.append(game, version, TICK, NOW)
                except VersionConflict:
                    continue
                acknowledged.append((game, version + 1))
                break

    threads = [threading.Thread(target=writer, args=(game,)) for game in games for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(acknowledged) == len(set(acknowledged)) == 16 * 25
    for game in games:
        assert [event.version for event in store.read(game)] == list(range(1, 101))
    store.close()
