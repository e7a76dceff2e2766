"""The contract, field by field and code by code, for both games.

The HTTP contract names fields that are always there (so a bot can be written against
them) and the error codes of every refusal; each gets its own test here, for Craits and
for Scat, in a game under way and in a finished one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from api import create_app
from service.bootstrap import open_service
from tests.e2e.conftest import Http

GAMES = {"craits": {"short": True}, "scat": {"lives": 1}}
STATE_FIELDS = {
    "both": ["dealer", "dealer_draws", "hand", "hand_sizes", "top_card", "discard", "hands", "result"],
    "craits": ["round", "rounds", "hand_size", "direction", "active_suit", "crank", "draw_pile", "announced",
               "skip_next", "scores", "round_scores"],
    "scat": ["hand_number", "stock", "knocker", "lives", "out", "hand_values", "last_settlement"],
}
PER_SEAT = {"hand_sizes", "hands", "scores", "lives", "hand_values"}
VIEW_FIELDS = ["version", "status", "seat", "to_act", "legal_moves", "state"]
SUMMARY_FIELDS = ["id", "game", "players", "options", "seats", "status", "version", "created_at", "result"]
EVENT_FIELDS = ["version", "type", "seat", "data", "recorded_at"]


def state_fields():  # type: ignore[no-untyped-def]
    for game in GAMES:
        for field in STATE_FIELDS["both"] + STATE_FIELDS[game]:
            yield pytest.param(game, field, id=f"{game}-{field}")


@pytest.fixture(scope="module")
def tables() -> dict[str, Any]:
    """For each game: a two-seat game under way and a finished one, each with seat 0's token."""
    http = Http(create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="off").test_client())
    made: dict[str, Any] = {"http": http}
    for game, options in GAMES.items():
        for stage in ("active", "finished"):
            game_id = http.create(game, 2, **options)
            token = http.join(game_id, "alice")
            assert http.bot(game_id, "greedy").status_code == 201
            if stage == "finished":
                http.play_out(game_id, [token])
            made[game, stage] = game_id, token
    return made


def view(tables: dict[str, Any], game: str, stage: str, *, spectator: bool = False) -> dict[str, Any]:
    game_id, token = tables[game, stage]
    response = tables["http"].state(game_id, None if spectator else token)
    assert response.status_code == 200
    return response.json


@pytest.mark.parametrize(("game", "field"), state_fields())
def test_the_state_object_always_has_the_contracts_field(tables, game, field):
    for stage in ("active", "finished"):
        state = view(tables, game, stage)["state"]
        assert field in state, f"{game} state ({stage}) has no {field}"
        if field in PER_SEAT:
            assert len(state[field]) == 2


@pytest.mark.parametrize("game", GAMES)
def test_result_is_null_in_the_state_until_the_game_is_over_then_winners_and_the_final_tally(tables, game):
    assert view(tables, game, "active")["state"]["result"] is None
    finished = view(tables, game, "finished")
    result = finished["state"]["result"]
    tally = "scores" if game == "craits" else "lives"
    assert result == finished["result"] and result["winners"] and len(result[tally]) == 2


@pytest.mark.parametrize("game", GAMES)
def test_dealer_draws_are_rounds_of_seat_and_card_pairs(tables, game):
    draws = view(tables, game, "active")["state"]["dealer_draws"]
    assert draws and all(len(pair) == 2 and pair[0] in (0, 1) and len(pair[1]) == 2 for one in draws for pair in one)


@pytest.mark.parametrize("game", GAMES)
def test_a_spectator_has_no_hand_and_sees_no_hidden_cards(tables, game):
    state = view(tables, game, "active", spectator=True)["state"]
    assert state["hand"] is None and state["hands"] == [None, None]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("field", VIEW_FIELDS)
def test_a_view_has_the_contracts_field(tables, game, field):
    assert field in view(tables, game, "active")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("field", SUMMARY_FIELDS)
def test_a_game_summary_has_the_contracts_field(tables, game, field):
    game_id, _ = tables[game, "finished"]
    summary = tables["http"].client.get(f"/v1/games/{game_id}").json
    assert field in summary
    assert all(set(seat) >= {"seat", "name", "bot"} for seat in summary["seats"])


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("field", EVENT_FIELDS)
def test_every_event_of_the_log_has_the_contracts_field(tables, game, field):
    game_id, token = tables[game, "active"]
    page = tables["http"].events(game_id, token, after=0, limit=1000).json
    assert page["events"] and page["last_version"] == page["events"][-1]["version"]
    assert all(field in event for event in page["events"])


# -- codes -------------------------------------------------------------------------------


@pytest.fixture
def http() -> Http:
    return Http(create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="off").test_client())


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert (response.status_code, response.mimetype) == (status, "application/problem+json"), response.data
    body = response.json
    assert body["code"] == code and body["status"] == status
    assert {"type", "title", "detail"} <= body.keys()
    return body


def test_validation_error_400_for_a_body_that_is_not_json(http):
    refused(http.client.post("/v1/games", data="{", content_type="application/json"), 400, "validation_error")


def test_validation_error_422_for_a_body_the_schema_refuses(http):
    refused(http.client.post("/v1/games", json={"game": "craits", "players": 9}), 422, "validation_error")


def test_unauthorized_401_for_a_move_without_a_token(http):
    game_id, _ = http.started()
    refused(http.move(game_id, None, {"type": "draw"}), 401, "unauthorized")


def test_forbidden_403_for_a_token_of_another_game(http):
    game_id, _ = http.started()
    _, others = http.started()
    refused(http.move(game_id, others[0], {"type": "draw"}), 403, "forbidden")


def test_not_found_404_for_an_unknown_game(http):
    refused(http.client.get("/v1/games/nosuchgame"), 404, "not_found")


def test_seat_unavailable_409_for_a_full_game(http):
    game_id, _ = http.started()
    refused(http.client.post(f"/v1/games/{game_id}/seats", json={"name": "late"}), 409, "seat_unavailable")


def test_game_not_active_409_for_a_move_before_the_game_starts(http):
    game_id = http.create("scat", 2)
    token = http.join(game_id)
    refused(http.move(game_id, token, {"type": "knock"}), 409, "game_not_active")


def test_version_conflict_409_for_a_stale_expected_version(http):
    game_id, tokens = http.started("scat", 2)
    _, token, _ = http.actor(game_id, tokens)
    refused(http.move(game_id, token, {"type": "knock", "expected_version": 1}), 409, "version_conflict")


def test_not_your_turn_409_for_a_seat_that_may_not_move(http):
    game_id, tokens = http.started("scat", 2)
    seat, _, _ = http.actor(game_id, tokens)
    refused(http.move(game_id, tokens[1 - seat], {"type": "knock"}), 409, "not_your_turn")


def test_precondition_failed_412_for_a_stale_if_match(http):
    game_id, tokens = http.started("scat", 2)
    _, token, _ = http.actor(game_id, tokens)
    refused(http.move(game_id, token, {"type": "knock"}, **{"If-Match": '"1"'}), 412, "precondition_failed")


def test_illegal_move_422_names_the_rule(http):
    game_id, tokens = http.started("scat", 2)
    _, token, _ = http.actor(game_id, tokens)
    drawn = http.move(game_id, token, {"type": "draw", "source": "stock"}).json
    held = set(drawn["state"]["hand"])  # (after the draw: the card drawn is one not held before)
    missing = next(card for card in (r + s for r in "A23456789TJQK" for s in "CDHS") if card not in held)
    assert refused(http.move(game_id, token, {"type": "discard", "card": missing}), 422, "illegal_move")["rule"]


def test_idempotency_conflict_422_for_a_key_reused_with_another_body(http):
    game_id, tokens = http.started("scat", 2)
    _, token, _ = http.actor(game_id, tokens)
    assert http.move(game_id, token, {"type": "knock"}, **{"Idempotency-Key": "k"}).status_code == 201
    other = http.move(game_id, token, {"type": "draw", "source": "stock"}, **{"Idempotency-Key": "k"})
    refused(other, 422, "idempotency_conflict")


def test_unsupported_media_type_415_for_a_body_not_sent_as_json(http):
    refused(http.client.post("/v1/games", data=json.dumps({"game": "scat", "players": 2}),
                             content_type="text/plain"), 415, "unsupported_media_type")


def test_payload_too_large_413_for_a_huge_body(http):
    huge = json.dumps({"game": "scat", "players": 2, "options": {"pad": "x" * (2 << 20)}})
    refused(http.client.post("/v1/games", data=huge, content_type="application/json"), 413, "payload_too_large")
