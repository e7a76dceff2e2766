"""Rules versions: a change of rules adds a version; every game replays under the one it was created under.

A test-only next version of Craits plays short games of four rounds instead of eight (C3). Registered
beside the others, it is what new games get, while games created under version 1 replay under it.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any

import pytest

from domain import game as registry
from domain import table as tables
from domain.events import event_data
from domain.games.craits import GAME, CappedCraits, CraitsState
from service import snapshots
from service.local import LocalGame

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"


class FourRoundCraits(CappedCraits):
    """Craits whose short game is four rounds long (test only)."""

    version = GAME.version + 1

    def start(self, players: int, options: Any) -> CraitsState:
        state = super().start(players, options)
        return dataclasses.replace(state, rounds=4) if options.get("short") else state


@pytest.fixture
def next_version(monkeypatch: pytest.MonkeyPatch) -> FourRoundCraits:
    """Craits version 2 registered for one test (the registry as it was after it)."""
    registry.all_games()
    monkeypatch.setattr(registry, "GAMES", dict(registry.GAMES))
    monkeypatch.setattr(registry, "RULES", dict(registry.RULES))
    return registry.register(FourRoundCraits())


def stored(game: LocalGame) -> list[tuple[str, int | None, dict[str, Any]]]:
    return [(event.type_name(), event.seat, event_data(event)) for event in game.events]


def test_new_games_get_the_newest_rules_version(next_version):
    game = LocalGame("craits", 2, {"short": True})
    assert game.table.game is next_version and game.events[0].rules_version == f"craits/{GAME.version + 1}"
    assert game.state.rounds == 4


def test_a_game_created_under_the_current_version_replays_under_it_after_the_next_version_arrives(request):
    old = LocalGame("craits", 2, {"short": True})
    log, table = stored(old), old.table
    request.getfixturevalue("next_version")
    replayed = tables.replay_records(log)
    assert replayed.game is GAME and replayed.state.rounds == 8
    assert replayed.state == table.state


def test_a_game_created_under_the_next_version_replays_under_the_next_version_from_its_log_and_its_snapshot(next_version):
    game = LocalGame("craits", 2, {"short": True})
    replayed = tables.replay_records(stored(game))
    assert replayed.game is next_version and replayed.state == game.state
    assert snapshots.load(snapshots.dump(replayed), replayed.version).game is next_version


def test_the_golden_logs_replay_to_their_pinned_views_under_the_next_version_too(next_version):
    for name in ("craits_3p_short_seed42", "craits_2p_short_committed"):
        entries = json.loads((GOLDEN / f"{name}.log.json").read_text())
        final = tables.replay_records((e["type"], e["seat"], e["data"]) for e in entries)
        assert final.game.rules_version == "craits/1"
        assert tables.view(final, None, reveal_all=True) == json.loads((GOLDEN / f"{name}.final.json").read_text())
