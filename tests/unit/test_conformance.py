"""The conformance kit (``cardhall_testing.check_game``) over every registered game, and what it catches.

Every game an entry point registers is checked, Higher-Lower (``tests/plugins``, the test-only
third game) included: the games are found from the entry points, Cardhall's own and those of the
distributions under ``tests/plugins``, so a game registered later is checked without a change
here (their house bots with them). Then broken copies of Craits show that each check fails
when its rule is broken.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from cardhall_testing import ConformanceError, check_game
from domain import game as registry
from domain.events import Event
from domain.games.craits import Craits, CraitsState, Draw
from domain.games.craits.events import CardsDrawn
from domain.moves import Move

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"


def registered_games() -> list[str]:
    """The name of every game an entry point registers: Cardhall's own, and the test-only plug-ins'."""
    points = [*metadata.entry_points(group=registry.ENTRY_POINT_GROUP),
              *(point for dist in metadata.distributions(path=[str(PLUGINS)])
                for point in dist.entry_points.select(group=registry.ENTRY_POINT_GROUP))]
    return sorted({point.name for point in points})


#: Options that keep a random game short (a long one checks no more rules), by game; others play their defaults.
SHORT = {
    "craits": [{"short": True}, {"short": True, "first_dealer": 0}],
    "scat": [{"lives": 1}, {"lives": 2, "three_of_a_kind": True, "straight_flush": True, "throw_down": True},
             {"lives": 1, "min_knock": 20, "first_dealer": 1}],
}


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The test-only games' distributions on the path and registered, for one test (the registry put back after)."""
    registry.all_games()
    monkeypatch.setattr(registry, "GAMES", dict(registry.GAMES))
    monkeypatch.setattr(registry, "RULES", dict(registry.RULES))
    monkeypatch.syspath_prepend(str(PLUGINS))
    registry.load_entry_points()
    yield


def test_the_games_checked_are_the_built_in_ones_and_the_test_only_third():
    assert {"craits", "scat", "higher_lower"} <= set(registered_games())


@pytest.mark.parametrize("name", registered_games())
def test_every_registered_game_conforms(name, plugins):
    game = registry.get_game(name)
    report = check_game(game, games=6, options=SHORT.get(name, [{}]))
    assert report.games == 6 and report.moves >= 6 * game.min_players
    assert report.unseen_swaps > 0  # (the leak check compared worlds, not only skipped them)


# -- each check fails when its rule is broken --------------------------------------------------


def craits_but(**rules: Any) -> Craits:
    """Craits with some of its rules replaced."""
    return type("Broken", (Craits,), {"name": "broken", **rules})()


def refusal(game: Craits, **settings: Any) -> str:
    with pytest.raises(ConformanceError) as refused:
        check_game(game, games=2, options=[{"short": True}], **settings)
    return str(refused.value)


def test_a_view_showing_an_opponents_hand_is_a_leak():
    def view(self, state: CraitsState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        return Craits.view(self, state, seat, seat is not None)  # a seat sees every hand

    assert re.search(r"seat \d sees \[.*\] of seat \d's own cards", refusal(craits_but(view=view)))


def test_a_spectator_shown_what_a_seat_is_not_is_a_leak():
    def view(self, state: CraitsState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        return {**Craits.view(self, state, seat), "next_card": state.pile[0] if seat is None and state.pile else None}

    assert "a spectator sees" in refusal(craits_but(view=view))


def test_a_view_telling_something_of_unseen_cards_without_naming_them_is_a_leak():
    def view(self, state: CraitsState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        return {**Craits.view(self, state, seat), "red_cards_in_the_pile": sum(card[1] in "HD" for card in state.pile)}

    message = refusal(craits_but(view=view))
    assert "differ only in where" in message and "view.red_cards_in_the_pile" in message


def test_an_event_showing_a_card_its_viewer_cannot_see_is_a_leak():
    def redact(self, event: Event, seat: int | None, reveal_all: bool = False) -> dict[str, Any] | None:
        data = Craits.redact(self, event, seat, reveal_all)
        return {**data, "first": event.order[0]} if data and "commitment" in data else data

    assert "which its view shows neither before, while nor after" in refusal(craits_but(redact=redact))


def test_a_default_move_the_rules_do_not_list_is_refused():
    def default_moves(self, state: CraitsState, seat: int) -> list[Move]:
        return [Draw()]  # (C8: only with no card to play)

    assert "default move {'type': 'draw'} is not among its legal moves" in refusal(craits_but(default_moves=default_moves))


def test_a_listed_move_the_rules_refuse_is_found():
    def legal_moves(self, state: CraitsState, seat: int) -> list[Move]:
        listed = Craits.legal_moves(self, state, seat)
        return [*listed, Draw()] if listed and Draw() not in listed else listed

    assert "listed move {'type': 'draw'} is refused" in refusal(craits_but(legal_moves=legal_moves))


def test_an_out_of_turn_answer_missing_a_seat_legal_moves_offers_is_found():
    def out_of_turn(self, state: CraitsState, players: int) -> tuple[int, ...]:
        return ()  # (a seat may call out one who did not announce a last card, C12)

    message = refusal(craits_but(out_of_turn=out_of_turn))
    assert re.search(r"out_of_turn names seats \[\], but legal_moves offers seats \[\d", message)


def test_a_state_that_does_not_survive_a_snapshot_is_found():
    def decode_state(self, data: Any) -> CraitsState:
        return dataclasses.replace(Craits.decode_state(self, data), crank=0)

    assert "decode_state(encode_state(state)) differs" in refusal(craits_but(decode_state=decode_state))


def test_a_fold_that_depends_on_more_than_the_log_is_found():
    """An evolve that counts the draws it has ever folded (outside the state) gives another state on replay
    (worlds compared for leaks replay too, and would find it first: none are compared here)."""
    folded = []

    def evolve(self, state: CraitsState, event: Event) -> CraitsState:
        after = Craits.evolve(self, state, event)
        if not isinstance(event, CardsDrawn):
            return after
        folded.append(event)
        return dataclasses.replace(after, scores=(after.scores[0] + len(folded), *after.scores[1:]))

    assert "the stored log folds to another state than the one played step by step" in refusal(
        craits_but(evolve=evolve), every=10**12)


def test_a_house_bot_choosing_a_move_not_listed_is_found():
    def house_bot(self, kind: str) -> Any:
        return (lambda view, rng: {"type": "draw"}) if kind == "greedy" else None

    assert "the greedy house bot of seat" in refusal(craits_but(house_bot=house_bot))


def test_a_result_without_winners_is_found():
    def result(self, state: CraitsState) -> dict[str, Any] | None:
        found = Craits.result(self, state)
        return found and {"scores": found["scores"]}

    assert "names no winners" in refusal(craits_but(result=result))
