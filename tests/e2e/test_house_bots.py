"""House bots over HTTP: they play their turns, and take out-of-turn chances as their strategy says."""

from __future__ import annotations

from tests.unit.craits_support import stack
from tests.unit.scat_support import stacked_deck


def test_a_greedy_house_bot_declares_a_dealt_31_out_of_turn_as_soon_as_the_game_starts(http):
    deck = stacked_deck({0: ["2C", "5D", "9H"], 1: ["3C", "6D", "TH"], 2: ["AS", "KS", "QS"]}, up="4C", dealer=2)
    game_id = http.create("scat", 3, decks=[deck], first_dealer=2)
    tokens = [http.join(game_id, "a"), http.join(game_id, "b")]
    assert http.bot(game_id, "greedy").status_code == 201
    events = http.events(game_id, tokens[0]).json["events"]
    declared = [e for e in events if e["type"] == "ThirtyOneDeclared"]
    assert [e["seat"] for e in declared] == [2], "seat 0 was to act, yet the bot at seat 2 declared"
    assert http.state(game_id, tokens[0]).json["state"]["lives"] == [2, 2, 3]


def test_a_greedy_house_bot_calls_out_a_player_who_forgot_to_announce(http):
    # (stacked: sixes and fours give seat 0 turn after turn, down to two cards on its own turn, C10 with two
    # players; on a shuffle, about 4 games in 10,000 never left seat 0 one unannounced card)
    run = ["6H", "6D", "6S", "6C", "4C", "4S"]
    deck = stack([[*run, "KS", "QH"], []], up="3H", dealer=1)
    game_id = http.create("craits", 2, short=True, first_dealer=1, decks=[deck])
    token = http.join(game_id, "me")
    assert http.bot(game_id, "greedy").status_code == 201
    for card in run:
        assert http.move(game_id, token, {"type": "play", "card": card}).status_code == 201
    view = http.state(game_id, token).json
    assert sorted(view["state"]["hand"]) == ["KS", "QH"] and view["to_act"] == [0]
    assert {"type": "play", "card": "KS"} in view["legal_moves"]  # (the play leaving one card, not announced)
    answer = http.move(game_id, token, {"type": "play", "card": "KS"}).json
    calls = [e for e in answer["events"] if e["type"] == "PlayerCalledOut"]
    assert [(call["seat"], call["data"]["target"]) for call in calls] == [(1, 0)]
    assert http.state(game_id, token).json["state"]["hand_sizes"][0] == 3  # the one card and two drawn (C12)
