"""No seat's view or event feed ever shows another seat's hidden cards before the game ends (C17, S13)."""

from __future__ import annotations

import random
import re

import pytest

from domain import table as tables
from domain.cards import DECK

CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")
#: Public knowledge that may name cards now hidden: the dealer-draw cards went back into the deck, shown
#: hands were settled and re-dealt, and everyone saw which card was taken from the discard pile (S5).
HISTORY_KEYS = {"dealer_draws", "dealer_draw", "last_settlement", "taken_from_discard"}
#: The shuffles that deal or refill a pile (the dealer-draw deck goes back and is shuffled again).
SECRET_EVENTS = {"RoundDealt", "PileReshuffled", "DeckShuffled"}


def cards_in(value, skip=HISTORY_KEYS) -> set[str]:  # type: ignore[no-untyped-def]
    """Every card code in a JSON value, but under the history keys."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for k, v in value.items() if k not in skip)) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set(CARD.findall(value)) if isinstance(value, str) else set()


def hidden_from(table: tables.Table, seat: int) -> set[str]:
    """The cards ``seat`` may not see now: other hands and the undealt pile."""
    truth = tables.view(table, None, reveal_all=True, with_moves=False)["state"]
    own = set(truth["hands"][seat] or ())
    return set(DECK) - own - set(truth["discard"])


def check_feed(events: list[dict], seat: int) -> None:
    for event in events:
        if event["type"] in SECRET_EVENTS:
            assert event["data"] is None, event
        if event["type"] == "CardDrawn" and event["data"]["source"] == "stock" and event["seat"] != seat:
            assert event["data"]["card"] is None, event


@pytest.mark.parametrize("game,players,options", [("craits", 3, {"short": True}), ("scat", 4, {"lives": 1})])
def test_no_view_or_feed_shows_another_seats_hidden_cards_at_any_version(games, http, game, players, options):
    game_id, tokens = http.started(game, players, seed=31, **options)
    rng = random.Random(31)
    seen = [0] * players
    while http.client.get(f"/v1/games/{game_id}").json["status"] != "finished":
        table = games.table(game_id)
        for seat, token in enumerate(tokens):
            view = http.state(game_id, token).json
            leaked = cards_in(view) & hidden_from(table, seat)
            assert not leaked, f"seat {seat} sees {leaked} at version {view['version']}"
            assert cards_in(http.state(game_id).json) & (set(DECK) - set(view["state"]["discard"])) == set()
            feed = http.events(game_id, token, after=seen[seat]).json["events"]
            check_feed(feed, seat)
            seen[seat] = view["version"]
        seat, token, view = http.actor(game_id, tokens)
        assert http.move(game_id, token, rng.choice(view["legal_moves"])).status_code == 201
    final = http.state(game_id, tokens[0]).json["state"]
    assert all(hand is not None for hand in final["hands"])
