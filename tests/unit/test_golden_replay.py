"""Golden replays: stored logs fold to their pinned final views, forever.

Each ``tests/golden/<name>.log.json`` is a game's log as the store keeps it (a
list of ``{type, seat, data}``); ``<name>.final.json`` pins the spectator's view
of the finished game with everything revealed. Logs of an older shape (before
shuffles were committed, before rules versions were recorded) stay as they were
stored and replay through upcasters. A rule change adds a rules version, so no
log here ever needs writing again; ``python3 tests/unit/test_golden_replay.py``
wrote the logs of today's shape.
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

    return tables.replay_records((e["type"], e["seat"], e["data"]) for e in entries)


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


def _write_golden(name: str, game_name: str, players: int, options: dict, seed: int) -> None:
    from domain import table as tables
    from domain.events import event_data
    from service.local import LocalGame

    rng = random.Random(seed)
    game = LocalGame(game_name, players, options)
    while not game.over:
        seat, move = rng.choice([(s, m) for s in range(players) for m in game.legal_moves(s)])
        game.move(seat, move)
    log = [{"type": e.type_name(), "seat": e.seat, "data": event_data(e)} for e in game.events]
    (GOLDEN / f"{name}.log.json").write_text(json.dumps(log) + "\n")
    view = tables.view(game.table, None, reveal_all=True)
    (GOLDEN / f"{name}.final.json").write_text(json.dumps(view, indent=1) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
    # craits_3p_short_seed42 and scat_3p_seed271 are logs as stored before shuffles were committed
    # (read through upcasters): they are never written again. These are today's shape.
    _write_golden("craits_2p_short_committed", "craits", 2, {"seed": 7, "short": True}, seed=7)
    _write_golden("scat_3p_committed", "scat", 3, {"seed": 7, "lives": 2}, seed=7)
