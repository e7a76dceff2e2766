"""Golden replays: stored logs fold to their pinned final views, forever.

Each ``tests/golden/<name>.log.json`` is a game's log as the store keeps it (a
list of ``{type, seat, data}``); ``<name>.final.json`` pins the spectator's view
of the finished game with everything revealed. Regenerate a pinned Craits game
with ``python3 tests/unit/test_golden_replay.py`` only when a rule change is
meant to change it.
"""

from __future__ import annotations

import json
import pathlib
import random
import sys

import pytest

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
LOGS = sorted(GOLDEN.glob("*.log.json"))


def replay_stored(entries: list[dict]):
    """Decode stored entries and fold them into a table."""
    from domain import table as tables

    game = entries[0]["data"]["game"]
    return tables.replay(tables.decode(game, e["type"], e["seat"], e["data"]) for e in entries)


@pytest.mark.parametrize("log_path", LOGS, ids=[path.name for path in LOGS])
def test_a_stored_log_replays_to_its_pinned_final_state(log_path):
    from domain import table as tables

    entries = json.loads(log_path.read_text())
    final = replay_stored(entries)
    pinned = json.loads(log_path.with_name(log_path.name.replace(".log.json", ".final.json")).read_text())
    assert final.status == tables.FINISHED
    assert tables.view(final, None, reveal_all=True) == pinned


def test_there_is_a_golden_craits_game():
    assert any(path.name.startswith("craits_") for path in LOGS)


def _write_craits_golden(name: str, players: int, options: dict, seed: int) -> None:
    from domain import table as tables
    from domain.events import event_data
    from service.local import LocalGame

    rng = random.Random(seed)
    game = LocalGame("craits", players, options)
    while not game.over:
        seat, move = rng.choice([(s, m) for s in range(players) for m in game.legal_moves(s)])
        game.move(seat, move)
    log = [{"type": e.type_name(), "seat": e.seat, "data": event_data(e)} for e in game.events]
    (GOLDEN / f"{name}.log.json").write_text(json.dumps(log) + "\n")
    view = tables.view(game.table, None, reveal_all=True)
    (GOLDEN / f"{name}.final.json").write_text(json.dumps(view, indent=1) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
    _write_craits_golden("craits_3p_short_seed42", 3, {"seed": 42, "short": True}, seed=42)
