"""Several processes sharing one store: writers queue, followers and waiters miss nothing."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import threading
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest

from persistence import open_store
from persistence.port import EventStore
from persistence.webhooks import WebhookStore
from tests.integration import workers
from tests.integration.test_store_contract import heard_past

SPAWN = multiprocessing.get_context("spawn")


def create_games(store: EventStore, game_ids: list[str]) -> None:
    with store.transaction() as tx:
        for game_id in game_ids:
            tx.create_game(game_id, "craits", 2, dt.datetime.now(dt.UTC))


def assert_logs_whole(store: EventStore, game_ids: list[str], total: int) -> None:
    """Every game's versions run 1..n without gap or duplicate; nothing is lost."""
    logs = {game_id: [e.version for e in store.read(game_id)] for game_id in game_ids}
    assert all(versions == list(range(1, len(versions) + 1)) for versions in logs.values())
    assert sum(map(len, logs.values())) == total


def run_appenders(url: str, game_ids: list[str], processes: int, count: int, batch: int = 1) -> list[int]:
    start_at = time.time() + 1.5  # let every process import and connect, then start together
    with ProcessPoolExecutor(processes, mp_context=SPAWN) as pool:
        futures = [pool.submit(workers.append_until_done, url, game_ids, count, start_at, batch)
                   for _ in range(processes)]
        return [future.result(timeout=120) for future in futures]


def latency_of_a_wake_up(store: EventStore, url: str) -> float:
    """Seconds from another process's commit (3 s from now, or once it has started) to the waiter waking
    (measured from the commit, not the time planned: a spawned process may start late on a busy machine)."""
    with ProcessPoolExecutor(1, mp_context=SPAWN) as pool:
        done = pool.submit(workers.append_one_at, url, "g1", time.time() + 3)
        assert heard_past(store, "g1", after=0, timeout=60) is True
        woke_at = time.time()
        committed_at = done.result(timeout=60)
    return woke_at - committed_at


@pytest.mark.slow
def test_sqlite_writers_in_several_processes_queue_and_all_succeed(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    games = ["shared", "other"]
    create_games(store, games)
    run_appenders(sqlite_url, games, processes=4, count=40)
    assert_logs_whole(store, games, total=4 * 40)
    store.close()


@pytest.mark.slow
def test_sqlite_subscribers_hear_an_append_from_another_process(sqlite_url: str) -> None:
    # (a store re-reads nothing for its subscribers: only its 50 ms poller hears the other process's commit)
    store = open_store(sqlite_url)
    create_games(store, ["g1"])
    latency = latency_of_a_wake_up(store, sqlite_url)
    assert latency < 10
    store.close()


@pytest.mark.postgres
@pytest.mark.slow
def test_postgres_followers_see_every_event_of_concurrent_appenders_once_in_order(postgres_url: str) -> None:
    store = open_store(postgres_url)
    games = [f"g{number}" for number in range(20)]
    create_games(store, games)
    processes, count, batch = 4, 60, 2
    total = processes * count * batch
    seen: dict[str, list] = {game_id: [] for game_id in games}
    stop = threading.Event()

    def follow(game_id: str) -> None:
        """What a follower does: wait to hear of an event after the last seen (or a second), read what came."""
        after = 0
        while not stop.is_set():
            heard_past(store, game_id, after, timeout=1.0)
            if page := store.read(game_id, after=after):
                seen[game_id].extend(page)
                after = page[-1].version

    followers = [threading.Thread(target=follow, args=(game_id,)) for game_id in games]
    for follower in followers:
        follower.start()
    try:
        run_appenders(postgres_url, games, processes, count, batch)
        deadline = time.monotonic() + 30
        while sum(map(len, seen.values())) < total and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        for follower in followers:
            follower.join()
    assert_logs_whole(store, games, total)
    for game_id in games:
        assert [(e.version, e.data) for e in seen[game_id]] == [(e.version, e.data) for e in store.read(game_id)]
    assert not [key for key, times in Counter((e.game_id, e.version) for g in seen.values() for e in g).items()
                if times > 1]
    store.close()


@pytest.mark.postgres
@pytest.mark.slow
def test_postgres_notify_from_another_process_is_heard_by_a_subscriber(postgres_url: str) -> None:
    # (a store re-reads nothing for its subscribers: only the NOTIFY can wake it)
    store = open_store(postgres_url)
    create_games(store, ["g1"])
    latency = latency_of_a_wake_up(store, postgres_url)
    assert latency < 2.5
    store.close()


def test_a_forked_child_writes_on_its_own_connection_and_both_keep_appending(tmp_path):
    """gunicorn --preload forks a store that has written already: parent and child must not share a connection."""
    import datetime as dt
    import os

    import persistence
    from persistence.port import NewEvent

    url = f"sqlite:///{tmp_path / 'fork.db'}"
    persistence.upgrade(url)
    store = persistence.open_store(url)
    now = dt.datetime.now(dt.UTC)
    with store.transaction() as tx:
        tx.create_game("parent", "craits", 2, now)
        tx.create_game("child", "craits", 2, now)
        tx.append("parent", 0, [NewEvent("E", None, {"n": 0})], now)
    pid = os.fork()
    if pid == 0:  # the child: append ten events on its own connection, then leave without cleanup
        code = 0
        try:
            for version in range(10):
                with store.transaction() as tx:
                    tx.append("child", version, [NewEvent("E", None, {"n": version})], now)
        except BaseException:
            code = 1
        os._exit(code)
    for version in range(1, 11):
        with store.transaction() as tx:
            tx.append("parent", version, [NewEvent("E", None, {"n": version})], now)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert store.last_version("parent") == 11 and store.last_version("child") == 10
    store.close()


def test_two_processes_starting_the_webhook_outbox_at_once_both_go_on_from_one_position(two_stores) -> None:
    first, second = (WebhookStore(store) for store in two_stores)
    started = threading.Event()
    outcome: list[object] = []

    def start_second() -> None:
        started.set()
        try:
            with second.store.transaction() as tx:
                outcome.append(second.writes(tx).project(10, lambda row: None))
        except Exception as error:  # (the failure this test is about: it must not happen)
            outcome.append(error)

    with first.store.transaction() as tx:
        assert first.writes(tx).project(10, lambda row: None) == 0  # the first one's position, not yet committed
        thread = threading.Thread(target=start_second)
        thread.start()
        started.wait()
        time.sleep(0.3)  # the second process asks while the first one's transaction is open
    thread.join(10)
    assert outcome == [0]
    with second.store.transaction() as tx:  # and the outbox goes on from there, in either process
        assert second.writes(tx).project(10, lambda row: None) == 0
