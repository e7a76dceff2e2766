"""Every game ends within a bounded number of events (Scat S14, Craits C18), and a table goes on by
itself in bounded steps when asked to (``settle``'s limit), the rest left to :func:`domain.table.by_itself`."""

from __future__ import annotations

import dataclasses

import pytest

from domain import table as tables
from domain.errors import InvalidOptions
from domain.game import EventCapReached, get_game
from domain.games.craits import CappedCraits
from domain.games.scat import CappedScat
from service.house import House

HOUSE = House(b"bounded-games")
SEED = "5e" * 32


def bots_only(game: str, players: int, options: dict | None = None, rules_version: str | None = None,
              limit: int | None = None) -> tables.Table:
    """A game of random house bots, every seat taken (played on with ``limit`` as ``settle`` is given it)."""
    created = tables.create(game, players, options or {}, SEED)
    if rules_version is not None:
        created = dataclasses.replace(created, rules_version=rules_version)
    table = tables.evolve(None, created)
    for _ in range(players):
        table, _ = tables.settle(table, [tables.take_seat(table, bot="random")], HOUSE, limit)
    return table


def test_a_scat_game_at_its_event_cap_ends_and_the_players_with_the_most_lives_win(monkeypatch):
    monkeypatch.setattr(CappedScat, "max_events", 60)
    table = bots_only("scat", 3, {"lives": 5})
    assert table.status == tables.FINISHED and 60 <= table.version < 60 + 10
    lives, result = table.state.lives, table.game.result(table.state)
    assert result["winners"] == [seat for seat, left in enumerate(lives) if left == max(lives)]


def test_a_craits_game_at_its_event_cap_ends_with_the_totals_as_they_stand(monkeypatch):
    monkeypatch.setattr(CappedCraits, "max_events", 80)
    table = bots_only("craits", 2)
    assert table.status == tables.FINISHED and 80 <= table.version < 80 + 10
    scores = table.state.scores
    assert table.game.result(table.state) == {
        "winners": [seat for seat, total in enumerate(scores) if total == min(scores)], "scores": list(scores)}


def test_the_cap_is_the_last_event_of_a_capped_game_and_never_put_off_by_a_limited_settle(monkeypatch):
    monkeypatch.setattr(CappedScat, "max_events", 60)
    table, events = bots_only("scat", 3, {"lives": 5}, limit=1), []
    while tables.waits_for_house(table):
        table, events = tables.settle(table, tables.by_itself(table, HOUSE), HOUSE, limit=1)
    assert table.status == tables.FINISHED and events[-1] == EventCapReached(None) and table.version >= 60


def test_a_game_created_under_the_rules_before_the_cap_plays_on_past_it(monkeypatch):
    monkeypatch.setattr(CappedScat, "max_events", 60)
    table = bots_only("scat", 3, {"lives": 5}, rules_version="scat/1")
    assert table.game is get_game("scat/1") and table.version > 60 + 10
    assert table.status == tables.FINISHED and len(table.game.result(table.state)["winners"]) == 1


@pytest.mark.parametrize(("players", "lives", "min_knock"), [(9, 10, 31), (2, 10, 27), (9, 10, 21)])
def test_scat_options_that_would_end_only_at_the_cap_are_refused(players, lives, min_knock):
    with pytest.raises(InvalidOptions, match="S14"):
        tables.create("scat", players, {"lives": lives, "min_knock": min_knock})


def test_scat_options_a_little_slower_than_the_default_are_allowed():
    assert tables.create("scat", 9, {"lives": 10, "min_knock": 20}).options["min_knock"] == 20
    assert tables.create("scat", 9, {"lives": 5, "min_knock": 24}).options["lives"] == 5
    assert tables.create("scat", 2, {"lives": 2, "min_knock": 31}).options["lives"] == 2


def test_a_limited_settle_stops_with_the_house_to_act_and_by_itself_goes_on_to_the_same_end():
    whole = bots_only("scat", 3, {"lives": 5})
    table = bots_only("scat", 3, {"lives": 5}, limit=50)
    steps = 0
    while tables.waits_for_house(table):
        assert table.status == tables.ACTIVE
        table, events = tables.settle(table, tables.by_itself(table, HOUSE), HOUSE, limit=50)
        assert 0 < len(events) < 50 + 10
        steps += 1
    assert steps >= 1 and table.version == whole.version and table.state == whole.state
