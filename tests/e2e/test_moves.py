"""Moves over HTTP: authentication, the order of checks, versions and idempotency."""

from __future__ import annotations

import pytest

from tests.e2e.test_accounts import NO_TOKEN, UNKNOWN_TOKEN
from tests.e2e.test_games_resource import assert_problem


def test_a_legal_move_answers_201_with_the_new_version_the_events_and_the_callers_view(http):
    game_id, tokens = http.started("craits", 2, seed=3, short=True)
    seat, token, view = http.actor(game_id, tokens)
    response = http.move(game_id, token, view["legal_moves"][0])
    assert response.status_code == 201
    body = response.json
    assert body["version"] > view["version"] and body["seat"] == seat
    assert [e["version"] for e in body["events"]] == list(range(view["version"] + 1, body["version"] + 1))
    assert response.headers["ETag"] == f'"{body["version"]}"'
    assert http.state(game_id, token).json == {k: v for k, v in body.items() if k != "events"}


def test_a_move_without_a_token_is_401_and_with_an_unknown_token_too(http):
    """Told apart as RFC 6750 does: no bearer token (or another scheme) is a bare challenge; a token the server
    does not know, a seat's or a key's shape or none, is ``invalid_token`` with one detail."""
    game_id, _ = http.started("craits", 2)
    missing = http.move(game_id, None, {"type": "draw"})
    assert_problem(missing, 401, "unauthorized")
    response = http.client.post(f"/v1/games/{game_id}/moves", json={"type": "draw"},
                                headers={"Authorization": "Basic YTpi"})
    assert_problem(response, 401, "unauthorized")
    assert missing.headers["WWW-Authenticate"] == response.headers["WWW-Authenticate"] == NO_TOKEN
    unknown = [http.move(game_id, token, {"type": "draw"}) for token in ("not-a-token", "chs_" + "A" * 43)]
    unknown.append(http.state(game_id, "chk_000000000000_" + "A" * 43))
    for answer in unknown:
        assert_problem(answer, 401, "unauthorized")
        assert answer.headers["WWW-Authenticate"] == UNKNOWN_TOKEN
    assert len({answer.json["detail"] for answer in unknown[:2]}) == 1
    assert http.version(game_id) == http.state(game_id).json["version"]


def test_a_token_cannot_act_for_another_game(http):
    game_a, tokens_a = http.started("craits", 2, seed=1)
    game_b, _ = http.started("craits", 2, seed=1)
    before = http.version(game_b)
    assert_problem(http.move(game_b, tokens_a[0], {"type": "draw"}), 403, "forbidden")
    assert_problem(http.state(game_b, tokens_a[0]), 403, "forbidden")
    assert http.version(game_b) == before and http.version(game_a) == http.state(game_a).json["version"]


def test_a_token_acts_only_for_its_own_seat(http):
    game_id, tokens = http.started("craits", 3, seed=11)
    seat, _, view = http.actor(game_id, tokens)
    other = tokens[(seat + 1) % 3]
    before = http.version(game_id)
    body = assert_problem(http.move(game_id, other, view["legal_moves"][0]), 409, "not_your_turn")
    assert "may not act" in body["detail"]
    assert http.version(game_id) == before


def test_a_move_in_a_waiting_game_is_refused_as_not_active(http):
    game_id = http.create("craits", 2)
    token = http.join(game_id, "a")
    assert_problem(http.move(game_id, token, {"type": "draw"}), 409, "game_not_active")


def test_an_illegal_move_is_a_422_naming_the_rule_and_changes_nothing(http):
    game_id, tokens = http.started("craits", 2, seed=2, short=True)
    _, token, view = http.actor(game_id, tokens)
    hand = view["state"]["hand"]
    not_in_hand = next(card for card in ("AS", "KH", "2C", "TD", "7S", "QC") if card not in hand)
    before = http.version(game_id)
    body = assert_problem(http.move(game_id, token, {"type": "play", "card": not_in_hand}), 422, "illegal_move")
    assert body["rule"].startswith("C")
    assert http.version(game_id) == before


@pytest.mark.parametrize("move", [{"type": "fly"}, {"type": "play", "card": "ZZ"}, {"type": "play"},
                                  {"card": "AS"}, {"type": "play", "card": "AS", "suit": "X"},
                                  {"type": "call", "target": -1}, {"type": "play", "card": 7}])
def test_a_malformed_move_is_a_422_validation_error_and_changes_nothing(http, move):
    game_id, tokens = http.started("craits", 2, seed=4)
    _, token, _ = http.actor(game_id, tokens)
    before = http.version(game_id)
    assert_problem(http.move(game_id, token, move), 422, "validation_error")
    assert http.version(game_id) == before


def test_a_stale_expected_version_is_a_409_and_appends_nothing(http):
    game_id, tokens = http.started("craits", 2, seed=5)
    _, token, view = http.actor(game_id, tokens)
    stale = {**view["legal_moves"][0], "expected_version": view["version"] - 1}
    assert_problem(http.move(game_id, token, stale), 409, "version_conflict")
    assert http.version(game_id) == view["version"]
    current = {**view["legal_moves"][0], "expected_version": view["version"]}
    assert http.move(game_id, token, current).status_code == 201


def test_if_match_names_the_version_a_move_expects(http):
    game_id, tokens = http.started("craits", 2, seed=6)
    _, token, view = http.actor(game_id, tokens)
    move = view["legal_moves"][0]
    assert_problem(http.move(game_id, token, move, **{"If-Match": f'"{view["version"] + 7}"'}),
                   412, "precondition_failed")
    assert_problem(http.move(game_id, token, move, **{"If-Match": "*x"}), 412, "precondition_failed")
    unquoted = assert_problem(http.move(game_id, token, move, **{"If-Match": str(view["version"])}), 412,
                              "precondition_failed")
    assert f'an entity tag is quoted, as the ETag header gives it ("{view["version"]}"' in unquoted["detail"]
    assert http.version(game_id) == view["version"]
    etag = http.state(game_id, token).headers["ETag"]
    assert http.move(game_id, token, move, **{"If-Match": etag}).status_code == 201


def test_the_same_idempotency_key_returns_the_first_answer_and_appends_nothing(http):
    game_id, tokens = http.started("craits", 2, seed=7)
    _, token, view = http.actor(game_id, tokens)
    move = view["legal_moves"][0]
    first = http.move(game_id, token, move, **{"Idempotency-Key": "k-1"})
    after_first = http.version(game_id)
    again = http.move(game_id, token, move, **{"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 201
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"
    assert http.version(game_id) == after_first


def test_the_same_idempotency_key_with_another_body_is_refused(http):
    game_id, tokens = http.started("craits", 2, seed=8)
    _, token, view = http.actor(game_id, tokens)
    assert http.move(game_id, token, view["legal_moves"][0], **{"Idempotency-Key": "k-2"}).status_code == 201
    after = http.version(game_id)
    other = {"type": "announce"}
    assert_problem(http.move(game_id, token, other, **{"Idempotency-Key": "k-2"}), 422, "idempotency_conflict")
    assert http.version(game_id) == after


def test_a_finished_game_refuses_moves_as_not_active(http):
    game_id = http.create("craits", 2, short=True, seed=9)
    token = http.join(game_id, "a")
    http.bot(game_id, "greedy")
    http.play_out(game_id, [token, None])
    assert_problem(http.move(game_id, token, {"type": "draw"}), 409, "game_not_active")
