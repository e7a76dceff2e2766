"""Chance a creator fixed is shown to everyone before anyone joins, and a seed repeats a deal only in the open.

Issue 37, class 5: ``seed`` and ``decks`` stay hidden until the end, but *that* the creator fixed
them (``seeded``, ``stacked``) is in the summary, the listing, every view and the audit from the
moment the game exists; a deal comes again only in a game created as ``replay_of`` a finished one.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.cards import DECK

CHANCE_OPTIONS = [
    pytest.param({}, False, False, id="unseeded"),
    pytest.param({"seed": 7}, True, False, id="seeded"),
    pytest.param({"decks": [DECK]}, False, True, id="stacked"),
    pytest.param({"seed": 7, "decks": [DECK]}, True, True, id="seeded-and-stacked"),
]


def marks(body: dict[str, Any]) -> tuple[bool, bool]:
    return body["seeded"], body["stacked"]


@pytest.mark.parametrize("options,seeded,stacked", CHANCE_OPTIONS)
def test_a_joiner_sees_whether_the_creator_fixed_the_chance_before_taking_a_seat(http, options, seeded, stacked):
    game_id = http.create("scat", 2, **options)
    summary = http.client.get(f"/v1/games/{game_id}").json
    assert summary["status"] == "waiting" and marks(summary) == (seeded, stacked)
    assert "seed" not in summary["options"] and "decks" not in summary["options"]  # (what they are stays hidden)
    listed = next(game for game in http.client.get("/v1/games").json["games"] if game["id"] == game_id)
    assert marks(listed) == (seeded, stacked)
    assert marks(http.state(game_id).json) == (seeded, stacked)
    assert marks(http.client.get(f"/v1/games/{game_id}/audit").json) == (seeded, stacked)
    token = http.join(game_id, "joiner")
    assert marks(http.state(game_id, token).json) == (seeded, stacked)


def test_a_move_answer_carries_the_marks_too(http):
    game_id, tokens = http.started("craits", 2, seed=3, short=True)
    _seat, token, view = http.actor(game_id, tokens)
    answer = http.move(game_id, token, view["legal_moves"][0])
    assert answer.status_code == 201 and marks(answer.json) == (True, False)


def finished(http: Any, game: str = "craits", players: int = 2, **body: Any) -> dict[str, Any]:
    """A game of house bots played to the end; its summary."""
    created = http.client.post("/v1/games", json={"game": game, "players": players, **body})
    assert created.status_code == 201, created.json
    for _ in range(players):
        assert http.bot(created.json["id"]).status_code == 201
    return http.played_out(created.json["id"])


def dealt(http: Any, game_id: str) -> list[list[str]]:
    return [event["data"]["order"] for event in http.events(game_id, limit=1000).json["events"]
            if event["data"] and event["data"].get("order")]


@pytest.mark.parametrize("options", [{"short": True, "seed": 11}, {"short": True}], ids=["seeded", "unseeded"])
def test_a_replay_of_a_finished_game_deals_its_cards_again_in_the_open(http, options):
    original = finished(http, options=options)
    replay = finished(http, options={}, replay_of=original["id"])
    assert replay["replay_of"] == original["id"] and replay["seeded"] is True
    assert replay["options"] == original["options"]
    assert replay["server_seed"] == original["server_seed"]
    assert dealt(http, replay["id"]) == dealt(http, original["id"])  # (the same bots' moves: the same game)
    assert http.client.get(f"/v1/games/{replay['id']}/audit").json["verified"] is True


def test_a_replay_is_marked_to_a_joiner_before_the_game_starts(http):
    original = finished(http, options={"short": True})
    created = http.client.post("/v1/games", json={"game": "craits", "players": 2, "replay_of": original["id"]})
    summary = http.client.get(f"/v1/games/{created.json['id']}").json
    assert summary["status"] == "waiting" and summary["seeded"] is True and summary["replay_of"] == original["id"]
    assert http.state(created.json["id"]).json["seeded"] is True


def test_a_seed_used_again_without_replay_of_deals_other_cards(http):
    first, second = (finished(http, options={"short": True, "seed": 99}) for _ in range(2))
    assert dealt(http, first["id"])[0] != dealt(http, second["id"])[0]


@pytest.mark.parametrize("body,detail", [
    ({"game": "craits", "players": 2, "replay_of": "nosuchgame"}, "there is no game"),
    ({"game": "craits", "players": 3, "replay_of": "ORIGINAL"}, "for as many"),
    ({"game": "scat", "players": 2, "replay_of": "ORIGINAL"}, "for as many"),
    ({"game": "craits", "players": 2, "options": {"short": False}, "replay_of": "ORIGINAL"}, "leave 'options' out"),
    ({"game": "craits", "players": 2, "replay_of": "RUNNING"}, "only a finished game"),
    ({"game": "craits", "players": 2, "replay_of": "no spaces"}, "replay_of"),
])
def test_a_replay_of_anything_but_a_finished_game_of_the_same_kind_is_refused(http, body, detail):
    original = finished(http, options={"short": True})
    running = http.started("craits", 2, short=True)[0]
    ids = {"ORIGINAL": original["id"], "RUNNING": running}
    answer = http.client.post("/v1/games", json={**body, "replay_of": ids.get(body["replay_of"], body["replay_of"])})
    assert answer.status_code == 422 and answer.json["code"] == "validation_error"
    assert detail in str(answer.json)
