"""Replays fold from checkpoints: every past version reads as a full replay would, at a bounded cost."""

from __future__ import annotations

import random

import persistence
from domain import table as tables
from service import replays
from service.games import GameService
from service.replays import Checkpoints
from service.sweeper import Sweeper
from service.tables import decode


class CountingStore:
    """A store that counts the events replays read from it."""

    def __init__(self, store) -> None:  # type: ignore[no-untyped-def]
        self.store = store
        self.events_read = 0
        self.largest_read = 0

    def read(self, game_id: str, after: int = 0, limit: int | None = None):  # type: ignore[no-untyped-def]
        events = self.store.read(game_id, after=after, limit=limit)
        self.events_read += len(events)
        self.largest_read = max(self.largest_read, len(events))
        return events


def finished_game() -> tuple[GameService, str]:
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("craits", 3, {"short": True})["id"]
    for _ in range(3):
        games.join(game_id, bot="greedy")
    while Sweeper(games).sweep():  # (the house bots' game goes on in steps, as a server's sweeper takes it)
        pass
    assert games.table(game_id).status == tables.FINISHED
    return games, game_id


def full_replay(games: GameService, game_id: str, version: int) -> tables.Table:
    stored = games.store.read(game_id, after=0, limit=version)
    return tables.replay(decode("craits", event) for event in stored)


def test_every_version_in_any_order_is_the_table_a_full_replay_gives():
    games, game_id = finished_game()
    last = games.table(game_id).version
    checkpoints = Checkpoints(games.store, every=16)
    versions = list(range(1, last + 1))
    random.Random(7).shuffle(versions)
    for version in versions:
        assert checkpoints.table_at(game_id, version) == full_replay(games, game_id, version)


def test_a_replay_after_the_first_reads_fewer_events_than_the_checkpoint_spacing():
    games, game_id = finished_game()
    last = games.table(game_id).version
    store = CountingStore(games.store)
    checkpoints = Checkpoints(store, every=16)  # type: ignore[arg-type]
    checkpoints.table_at(game_id, last)
    assert store.events_read == last
    for version in range(last - 1, last - 40, -1):
        store.events_read = 0
        checkpoints.table_at(game_id, version)
        assert store.events_read < 16


def test_checkpoints_are_bounded_dropping_the_least_recently_replayed_game():
    games, first = finished_game()
    second = games.create_game("craits", 2, {"short": True})["id"]
    for _ in range(2):
        games.join(second, bot="greedy")
    store = CountingStore(games.store)
    # Room for the second game's checkpoints and two more (the games' lengths are chance's):
    # the first game, with more than two, does not fit beside it.
    assert games.table(first).version >= 3 * 16
    room = games.table(second).version // 16 + 2
    checkpoints = Checkpoints(store, every=16, size=room)  # type: ignore[arg-type]
    checkpoints.table_at(first, games.table(first).version)
    checkpoints.table_at(second, games.table(second).version)  # more checkpoints in all than room: the first goes
    store.events_read = 0
    checkpoints.table_at(first, 40)
    assert store.events_read == 40
    store.events_read = 0
    checkpoints.table_at(second, 40)
    assert store.events_read < 16


def test_a_replay_far_into_a_game_reads_its_log_a_page_at_a_time(monkeypatch):
    monkeypatch.setattr(replays, "READ_PAGE", 50)
    games, game_id = finished_game()
    version = games.table(game_id).version
    store = CountingStore(games.store)
    assert Checkpoints(store).table_at(game_id, version).state == full_replay(games, game_id, version).state
    assert store.events_read == version and store.largest_read == 50
