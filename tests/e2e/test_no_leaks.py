"""Hidden information: before a game ends nobody sees a card they could not know (C17, S13), nor any
shuffle's order or salt (API "Fairness") — spectator and every seat, every endpoint, every ``at=N``.

Whole games of both kinds, seeded, unseeded and stacked, are played through the HTTP API; at every
step each viewer's answers are held against the truth the test reads from the service directly.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

import persistence
from domain import table as tables
from domain.cards import DECK
from service.games import GameService
from service.tables import fold

CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")
#: Public knowledge that may name cards now hidden: the dealer-draw cards went back into the deck, shown
#: hands were settled and re-dealt, and everyone saw which card was taken from the discard pile (S5).
HISTORY_KEYS = {"dealer_draws", "dealer_draw", "last_settlement", "taken_from_discard"}
SHUFFLES = {"DealerDrawShuffled", "RoundDealt", "PileReshuffled", "DeckShuffled"}
#: Options that fix chance: hidden until the game is over.
CHANCE_OPTIONS = {"seed", "decks"}

GAMES = [
    pytest.param("craits", 2, {"short": True, "seed": 31}, id="craits-seeded"),
    pytest.param("craits", 2, {"short": True}, id="craits-unseeded"),
    pytest.param("craits", 2, {"short": True, "decks": [DECK, DECK[::-1]]}, id="craits-stacked"),
    pytest.param("scat", 4, {"lives": 1, "seed": 31}, id="scat-seeded"),
    pytest.param("scat", 3, {"lives": 1}, id="scat-unseeded"),
    pytest.param("scat", 3, {"lives": 1, "decks": [DECK[::-1]]}, id="scat-stacked"),
]


@pytest.fixture
def games() -> Iterator[GameService]:
    """One backend is enough here: what a viewer sees is decided above the store."""
    service = GameService(persistence.open_store("memory://"))
    yield service
    service.store.close()


def cards_in(value: Any, skip: set[str] = HISTORY_KEYS) -> set[str]:
    """Every card code in a JSON value, but under the history keys."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for k, v in value.items() if k not in skip)) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set(CARD.findall(value)) if isinstance(value, str) else set()


def hidden_from(table: tables.Table, seat: int | None) -> set[str]:
    """The cards ``seat`` (None: a spectator) may not see at ``table``: the pile and the hands, but
    their own and those shown at a Scat settlement until the next deal (S13)."""
    truth = tables.view(table, None, reveal_all=True, with_moves=False)["state"]
    if truth is None:
        return set(DECK)
    known = set(truth["discard"]) | set(truth["hands"][seat] if seat is not None else ())
    settled = truth.get("last_settlement")
    if truth["phase"] == "deal" and settled:
        known |= {card for hand in settled["hands"] if hand for card in hand}
    return set(DECK) - known


def check_event(event: dict[str, Any], seat: int | None) -> None:
    """A shuffle shows its commitment alone; a card drawn from the stock only its taker."""
    data = event["data"]
    if event["type"] in SHUFFLES:
        assert data["order"] is None and data["salt"] is None, event
        assert re.fullmatch(r"[0-9a-f]{64}", data["commitment"]), event
    if event["type"] == "CardDrawn" and data["source"] == "stock" and event["seat"] != seat:
        assert data["card"] is None, event
    assert not _has_secret_keys(data), event


def _has_secret_keys(value: Any) -> bool:
    if isinstance(value, dict):
        return any(v is not None and k in ("salt", "order") for k, v in value.items()) or any(
            _has_secret_keys(v) for v in value.values())
    return isinstance(value, list) and any(_has_secret_keys(v) for v in value)


def check_view(view: dict[str, Any], table: tables.Table, seat: int | None) -> None:
    leaked = cards_in(view) & hidden_from(table, seat)
    assert not leaked, f"seat {seat} sees {leaked} at version {view['version']}"


def streamed(http: Any, game_id: str, token: str | None, after: int) -> list[dict[str, Any]]:
    """The events the SSE stream sends after ``after``, the stream closing as soon as it has sent them."""
    response = http.client.get(f"/v1/games/{game_id}/events/stream", query_string={"after": after, "timeout": 0},
                               headers=http.auth(token))
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


def check_public_records(http: Any, game_id: str) -> None:
    """The summary, the listing and the audit: no chance option, no salt, no order, no card."""
    summary = http.client.get(f"/v1/games/{game_id}").json
    listed = next(game for game in http.client.get("/v1/games").json["games"] if game["id"] == game_id)
    for record in (summary, listed):
        assert not CHANCE_OPTIONS & set(record["options"]) and not cards_in(record), record
    audit = http.client.get(f"/v1/games/{game_id}/audit").json
    assert audit["verified"] is None and audit["shuffles"]
    assert all(s["salt"] is None and s["order"] is None and s["ok"] is None for s in audit["shuffles"])


@pytest.mark.parametrize("game,players,options", GAMES)
def test_before_the_end_no_viewer_sees_a_hidden_card_or_any_shuffle_on_any_endpoint(
    games, http, asgi_http, game, players, options
):
    game_id, tokens = http.started(game, players, **options)
    viewers: list[tuple[int | None, str | None]] = [(None, None), *enumerate(tokens)]
    rng = random.Random(f"{game}{options}")
    checked = 0  # every version up to this one has been checked at=N by every viewer
    past: tables.Table | None = None  # the table at version ``checked``
    while True:
        table = games.table(game_id)
        check_public_records(http, game_id)
        for seat, token in viewers:
            check_view(http.state(game_id, token).json, table, seat)
            for event in http.events(game_id, token, after=checked).json["events"]:
                check_event(event, seat)
            for event in streamed(asgi_http, game_id, token, checked):
                check_event(event, seat)
        for stored in games.store.read(game_id, after=checked):
            past = fold(past, [stored])
            for seat, token in viewers:
                check_view(http.state(game_id, token, at=stored.version).json, past, seat)
        checked = table.version
        seat, token, view = http.actor(game_id, tokens)
        answer = http.move(game_id, token, rng.choice(view["legal_moves"])).json
        if answer["status"] == "finished":
            break
        check_view({**answer, "events": None}, games.table(game_id), seat)  # (the events: public history)
        for event in answer["events"]:
            check_event(event, seat)
    audit = http.client.get(f"/v1/games/{game_id}/audit").json
    assert audit["verified"] is True and all(s["order"] for s in audit["shuffles"])
    assert all(hand is not None for hand in http.state(game_id, tokens[0]).json["state"]["hands"])
