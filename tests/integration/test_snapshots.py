"""Snapshots: a cold table starts from the game's snapshot and folds only the events after it,
and comes out exactly as a full replay of the log would; a snapshot of other code, or one
that does not load, is ignored. Every backend (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import itertools
import json
import pickle
import random
from typing import Any

import pytest

from domain import table as tables
from persistence.port import EventStore
from service import snapshots
from service.games import GameService
from service.tables import TableCache, fold

EVERY = 10  # small, so a short game crosses many multiples


class Counting:
    """A store that notes the ``after`` of every read of a game's events."""

    def __init__(self, inner: EventStore) -> None:
        self.inner = inner
        self.reads_after: list[int] = []

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> Any:
        self.reads_after.append(after)
        return self.inner.read(game_id, after=after, limit=limit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def play(
    store: EventStore, game: str, players: int, until: int, seed: int = 7
) -> tuple[GameService, str, str, list[int]]:
    """A game with one person (random legal moves) and house bots, played to ``until`` or its end;
    the service, the game's id, the person's token and the version after each write."""
    service = GameService(store)
    service.cache.snapshot_every = EVERY
    game_id = service.create_game(game, players, {"seed": seed} if game == "scat" else {})["id"]
    token = service.join(game_id, name="person")["token"]
    for _ in range(players - 1):
        service.join(game_id, bot="random")
    return service, game_id, token, play_on(service, game_id, token, until, random.Random(seed))


def play_on(service: GameService, game_id: str, token: str, until: int, rng: random.Random) -> list[int]:
    """Random legal moves of seat 0 until version ``until`` or the end; the version after each write."""
    versions = [service.table(game_id).version]
    while versions[-1] < until and service.table(game_id).status == tables.ACTIVE:
        service.move(game_id, token, rng.choice(tables.legal_moves(service.table(game_id), 0)))
        versions.append(service.table(game_id).version)
    return versions


def replayed(store: EventStore, game_id: str) -> tables.Table:
    """The table a full replay of the log gives."""
    table = fold(None, store.read(game_id))
    assert table is not None
    return table


def cold(store: EventStore, game_id: str) -> tuple[tables.Table, list[int]]:
    """The table as a fresh process loads it, and the ``after`` of each read of the log it made."""
    counting = Counting(store)
    table = TableCache(counting, snapshot_every=EVERY).get(game_id)  # type: ignore[arg-type]
    assert table is not None
    return table, counting.reads_after


def test_a_cold_table_folds_only_the_events_after_the_snapshot(store: EventStore) -> None:
    _, game_id, _, versions = play(store, "craits", 5, until=4 * EVERY)
    snapshot = store.latest_snapshot(game_id)
    assert snapshot is not None and snapshot.fingerprint == snapshots.fingerprint()
    # written by the write that crossed the last multiple of EVERY, at the version it ended on
    crossing = [v for before, v in itertools.pairwise(versions) if v // EVERY > before // EVERY]
    assert snapshot.version == crossing[-1]
    assert versions[-1] - snapshot.version < versions[-1] - versions[-2] + EVERY
    table, reads_after = cold(store, game_id)
    assert reads_after == [snapshot.version]
    assert table == replayed(store, game_id) and table.version == versions[-1]


@pytest.mark.parametrize(("game", "players"), [("craits", 5), ("scat", 3)])
def test_a_table_loaded_through_a_snapshot_equals_a_full_replay_at_every_version(
    store: EventStore, game: str, players: int
) -> None:
    service = GameService(store)
    service.cache.snapshot_every = EVERY
    game_id = service.create_game(game, players, {"seed": 5} if game == "scat" else {})["id"]
    token = service.join(game_id, name="person")["token"]
    for _ in range(players - 1):
        service.join(game_id, bot="random")
    rng, used = random.Random(3), 0
    while service.table(game_id).status == tables.ACTIVE and service.table(game_id).version < 6 * EVERY:
        service.move(game_id, token, rng.choice(tables.legal_moves(service.table(game_id), 0)))
        table, reads_after = cold(store, game_id)
        assert table == replayed(store, game_id) == service.table(game_id)
        snapshot = store.latest_snapshot(game_id)
        if snapshot is not None and table.version >= EVERY:
            assert reads_after == [snapshot.version]
            used += 1
    assert used >= 3


def test_a_finished_game_played_out_by_bots_in_one_write_has_a_snapshot_of_its_end(store: EventStore) -> None:
    service = GameService(store)
    service.cache.snapshot_every = EVERY  # a seeded game's length depends on the deployment's secret
    game_id = service.create_game("scat", 3, {"seed": 9})["id"]
    for _ in range(3):
        service.join(game_id, bot="random")
    end = service.table(game_id)
    assert end.status == tables.FINISHED and end.version > EVERY
    assert store.latest_snapshot(game_id).version == end.version
    assert cold(store, game_id) == (replayed(store, game_id), [end.version])


def test_a_snapshot_written_by_other_code_is_ignored(store: EventStore) -> None:
    _, game_id, _, _ = play(store, "craits", 5, until=3 * EVERY)
    snapshot = store.latest_snapshot(game_id)
    with store.transaction() as tx:  # a blob that loads, but not this code's
        tx.put_snapshot(game_id, snapshot.version, "0" * 64, snapshot.blob)
    table, reads_after = cold(store, game_id)
    assert reads_after == [0]
    assert table == replayed(store, game_id)


def _edited(blob: bytes, **changes: Any) -> bytes:
    return json.dumps({**json.loads(blob), **changes}).encode()


CORRUPT = {
    "empty": lambda blob, version: b"",
    "not JSON": lambda blob, version: b"not JSON",
    "truncated": lambda blob, version: blob[: len(blob) // 2],
    "another shape": lambda blob, version: json.dumps(["craits", 5]).encode(),
    "an unknown game": lambda blob, version: _edited(blob, game="nope"),
    "another version inside": lambda blob, version: _edited(blob, version=version - 1),
    "a state of another shape": lambda blob, version: _edited(blob, state={"hands": "none"}),
    "a pickle, as snapshots once were": lambda blob, version: pickle.dumps(("craits", 5, {}, (), None, version)),
}


@pytest.mark.parametrize("corrupt", CORRUPT.values(), ids=CORRUPT.keys())
def test_a_snapshot_that_does_not_load_is_ignored(store: EventStore, corrupt: Any) -> None:
    _, game_id, _, _ = play(store, "craits", 5, until=3 * EVERY)
    snapshot = store.latest_snapshot(game_id)
    blob = corrupt(snapshot.blob, snapshot.version)
    assert blob != snapshot.blob
    with store.transaction() as tx:
        tx.put_snapshot(game_id, snapshot.version, snapshots.fingerprint(), blob)
    table, reads_after = cold(store, game_id)
    assert reads_after == [0]
    assert table == replayed(store, game_id)


def test_a_cached_table_far_behind_catches_up_from_the_snapshot(store: EventStore) -> None:
    service, game_id, token, versions = play(store, "craits", 5, until=EVERY)
    counting = Counting(store)
    behind = TableCache(counting, snapshot_every=EVERY)  # type: ignore[arg-type]
    assert behind.get(game_id).version == versions[-1]
    later = play_on(service, game_id, token, versions[-1] + 3 * EVERY, random.Random(1))
    counting.reads_after.clear()
    table = behind.get(game_id)
    assert counting.reads_after == [store.latest_snapshot(game_id).version]
    assert table == replayed(store, game_id) and table.version == later[-1]


def test_the_fingerprint_is_a_sha256_of_the_domain_source_taken_at_import(tmp_path, monkeypatch) -> None:
    assert len(snapshots.fingerprint()) == 64 and int(snapshots.fingerprint(), 16) >= 0
    taken = snapshots.fingerprint()
    changed = tmp_path / "domain"  # the source changes on disk after import (an in-place deploy)
    changed.mkdir()
    (changed / "__init__.py").write_text("# new code\n")
    monkeypatch.setattr(snapshots.domain, "__file__", str(changed / "__init__.py"))
    assert snapshots._fingerprint() != taken  # (what a process importing the new code would take)
    assert snapshots.fingerprint() == taken  # this process keeps its own code's


UNPICKLED: list[str] = []


class _Payload:
    """A pickle that, if ever loaded, runs code of the database writer's choosing."""

    def __reduce__(self) -> tuple[Any, ...]:
        return exec, ("import tests.integration.test_snapshots as t; t.UNPICKLED.append('ran')",)


def test_a_pickle_in_the_snapshots_table_is_never_loaded(store: EventStore) -> None:
    _, game_id, _, _ = play(store, "craits", 5, until=3 * EVERY)
    snapshot = store.latest_snapshot(game_id)
    with store.transaction() as tx:
        tx.put_snapshot(game_id, snapshot.version, snapshots.fingerprint(), pickle.dumps(_Payload()))
    table, reads_after = cold(store, game_id)
    assert UNPICKLED == [] and reads_after == [0]
    assert table == replayed(store, game_id)


def test_a_snapshot_is_plain_json_data_that_names_no_class(store: EventStore) -> None:
    _, game_id, _, _ = play(store, "scat", 3, until=3 * EVERY)
    data = json.loads(store.latest_snapshot(game_id).blob)
    assert set(data) == {"game", "players", "options", "seats", "state", "version", "clock", "abandoned",
                         "handed_over", "ended", "seeds", "imported_from", "rated"}
    assert "ScatState" not in json.dumps(data) and isinstance(data["state"]["hands"], list)
