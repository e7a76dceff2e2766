"""The game interface is an abstract base: a game that leaves out a rule fails where it is registered.

Before, ``Game``'s rules raised NotImplementedError when first called: a game without
``default_moves`` was offered, created and played until a turn clock first ran out.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from domain import game as registry
from domain.games.craits import Craits

RULES = ("start", "chance", "to_act", "legal_moves", "decide", "evolve", "view", "is_over", "default_moves", "result")


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as loaded, put back as it was after the test."""
    registry.all_games()
    monkeypatch.setattr(registry, "GAMES", dict(registry.GAMES))
    monkeypatch.setattr(registry, "RULES", dict(registry.RULES))


def without(rule: str) -> type[registry.Game]:
    """A copy of Craits that does not implement ``rule`` (every other rule Craits')."""
    body = {name: getattr(Craits, name) for name in RULES if name != rule}
    return type("Incomplete", (registry.Game,), {"name": "incomplete", **body})


@pytest.mark.parametrize("rule", RULES)
def test_a_game_leaving_out_any_rule_cannot_be_made(rule):
    with pytest.raises(TypeError, match=rf"abstract method.*\b{rule}\b"):
        without(rule)()


def test_a_game_implementing_every_rule_is_made_and_registered(fresh_registry):
    complete = type("Complete", (registry.Game,), {"name": "complete", **{name: getattr(Craits, name) for name in RULES}})
    registry.register(complete())
    assert registry.get_game("complete").rules_version == "complete/1" and "craits" in registry.all_games()


def test_an_entry_point_naming_a_game_without_default_moves_fails_when_the_games_are_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry
):
    """The game a clock would have found out first (a timed-out turn plays ``default_moves``) is refused at once."""
    (tmp_path / "forgetful.py").write_text(textwrap.dedent("""
        from domain.game import Game
        from domain.games.craits import Craits

        class Forgetful(Game):
            name = "forgetful"
            start, chance, to_act, legal_moves = Craits.start, Craits.chance, Craits.to_act, Craits.legal_moves
            decide, evolve, view, is_over, result = Craits.decide, Craits.evolve, Craits.view, Craits.is_over, Craits.result

        GAME = Forgetful()
    """))
    info = tmp_path / "forgetful-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: forgetful\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[cardhall.games]\nforgetful = forgetful:GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TypeError) as refused:
        registry.load_entry_points()
    assert "entry point forgetful = 'forgetful:GAME'" in str(refused.value)
    assert "default_moves" in str(refused.value)
    assert "forgetful" not in registry.GAMES


def unannotated_start(self, players, options):  # (the return annotation left out on purpose)
    return Craits.start(self, players, options)


@pytest.mark.parametrize(("thing", "complaint"), [
    (Craits, "not <class"),  # the class, not a game object
    (type("Named", (Craits,), {"name": ""})(), "lower-case identifier"),
    (type("Named", (Craits,), {"name": "two/words"})(), "lower-case identifier"),
    (type("Versioned", (Craits,), {"name": "versioned", "version": 0})(), "whole number from 1"),
    (type("Crowded", (Craits,), {"name": "crowded", "min_players": 5, "max_players": 2})(), "5 to 2 players"),
    (type("Vague", (Craits,), {"name": "vague", "start": unannotated_start})(), "must annotate the state's type"),
])
def test_registering_what_is_no_proper_game_is_refused_saying_why(thing, complaint, fresh_registry):
    registered = dict(registry.RULES)
    with pytest.raises(TypeError, match=complaint):
        registry.register(thing)
    assert registered == registry.RULES
