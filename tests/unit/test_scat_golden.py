"""Scat golden replay: a stored log folds to its pinned final view, forever.

``tests/golden/scat_3p_seed271.log.json`` is a whole game as the store keeps it
(a list of ``{type, seat, data}``: a tied dealer draw, showdowns, a
throw-down, declared 31s and a void hand); ``scat_3p_seed271.final.json`` pins the
spectator's view of the finished game. Regenerate with ``python3
tests/unit/test_scat_golden.py`` only when a rule change is meant to change it.
"""

from __future__ import annotations

import json
import pathlib
import random
import sys

from domain import table as tables

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
NAME = "scat_3p_seed271"
OPTIONS = {"seed": 271, "lives": 2, "three_of_a_kind": True, "throw_down": True}


def replay_stored(entries: list[dict]) -> tables.Table:
    """Decode stored entries and fold them into a table."""
    return tables.replay_records((e["type"], e["seat"], e["data"]) for e in entries)


def test_the_stored_scat_game_replays_to_its_pinned_final_view():
    entries = json.loads((GOLDEN / f"{NAME}.log.json").read_text())
    final = replay_stored(entries)
    pinned = json.loads((GOLDEN / f"{NAME}.final.json").read_text())
    assert final.status == tables.FINISHED
    assert tables.view(final, None) == pinned


def test_the_stored_scat_game_shows_every_way_a_hand_ends():
    entries = json.loads((GOLDEN / f"{NAME}.log.json").read_text())
    reasons = {e["data"]["reason"] for e in entries if e["type"] == "HandSettled"}
    kinds = {e["type"] for e in entries}
    assert reasons == {"showdown", "throw_down", "thirty_one"}
    assert {"DealerDrawShuffled", "HandVoided"} <= kinds


def write_golden(seed: int = 271) -> None:
    """Play the pinned game again and store it: random moves, but 31 declared at once and knocks rare."""
    from domain.events import event_data
    from service.local import LocalGame

    rng = random.Random(seed)
    game = LocalGame("scat", 3, OPTIONS)
    while not game.over:
        choices = [(s, m) for s in range(3) for m in game.legal_moves(s)]
        declares = [c for c in choices if c[1]["type"] == "declare_31"]
        ends = [c for c in choices if c[1]["type"] in ("knock", "throw_down")]
        others = [c for c in choices if c not in ends and c not in declares] or choices
        game.move(*(declares[0] if declares else rng.choice(ends) if ends and rng.random() < 0.05 else rng.choice(others)))
    log = [{"type": e.type_name(), "seat": e.seat, "data": event_data(e)} for e in game.events]
    (GOLDEN / f"{NAME}.log.json").write_text(json.dumps(log) + "\n")
    (GOLDEN / f"{NAME}.final.json").write_text(json.dumps(tables.view(game.table, None), indent=1) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(GOLDEN.parents[1]))
    write_golden()
