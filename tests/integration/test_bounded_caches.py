"""Every cache a server process keeps is bounded: however many games, tokens or batch sizes pass through it."""

from __future__ import annotations

import datetime as dt
import gc
import weakref

import pytest

from persistence import open_store
from persistence.accounts import accounts_of
from persistence.announcements import Board
from persistence.ladder import ladder_of
from persistence.memory import MemoryEventStore
from persistence.port import NewEvent
from service.games import GameService
from service.tables import TableCache
from service.tokens import TokenSeats


@pytest.mark.postgres
def test_appends_of_a_hundred_sizes_keep_a_bounded_set_of_prepared_statements(postgres_url):
    store = open_store(postgres_url)
    now = dt.datetime.now(dt.UTC)
    try:
        with store.transaction() as tx:
            tx.create_game("g", "craits", 2, now)
        version = 0
        for size in range(1, 101):
            with store.transaction() as tx:
                tx.append("g", version, [NewEvent("Noted", None, {"n": n}) for n in range(size)], now)
            version += size
        with store.engine.connect() as connection:  # (the one connection those appends took turns on)
            prepared = connection.exec_driver_sql("SELECT count(*) FROM pg_prepared_statements").scalar()
        assert prepared <= 16
        assert store.last_version("g") == sum(range(1, 101))
        assert [event.data["n"] for event in store.read("g", after=version - 100)] == list(range(100))
    finally:
        store.close()


def test_the_table_cache_keeps_at_most_its_size_of_games():
    service = GameService(MemoryEventStore())
    service.cache = TableCache(service.store, size=5)
    for _ in range(20):
        service.create_game("scat", 2, {})
    assert len(service.cache._tables) == 5


def test_the_token_cache_keeps_at_most_its_size_of_tokens():
    service = GameService(MemoryEventStore())
    service.token_seats = TokenSeats(service.store, size=3)
    game_ids = [service.create_game("scat", 9, {})["id"] for _ in range(2)]
    tokens = [service.join(game_id, name="p")["token"] for game_id in game_ids for _ in range(4)]
    for index, token in enumerate(tokens):
        assert service.seat_of(game_ids[index // 4], token, required=True) == index % 4
    assert len(service.token_seats._seats) == 3


def test_what_a_process_has_heard_is_forgotten_past_its_limit(monkeypatch):
    monkeypatch.setattr(Board, "HEARD_LIMIT", 10)
    board = Board()
    for number in range(35):
        board.announce(f"game{number}", 1)
    assert len(board._heard) <= 10


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_store_with_its_accounts_and_ladder_is_freed_once_nobody_holds_it(kind, tmp_path):
    # (a process that opens stores one after another, as the tests and `cardhall` commands do, must not keep them all)
    store = MemoryEventStore() if kind == "memory" else open_store(f"sqlite:///{tmp_path / 'freed.db'}")
    accounts, ladder = accounts_of(store), ladder_of(store)
    assert accounts_of(store) is accounts and ladder_of(store) is ladder  # (one of each per store)
    freed = weakref.ref(store)
    store.close()
    del store, accounts, ladder
    gc.collect()
    assert freed() is None
