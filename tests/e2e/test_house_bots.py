"""House bots over HTTP: they play their turns, and take out-of-turn chances as their strategy says."""

from __future__ import annotations

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
    game_id = http.create("craits", 2, seed=12, short=True)
    token = http.join(game_id, "me")
    http.bot(game_id, "greedy")
    for _ in range(5000):
        view = http.state(game_id, token).json
        if view["status"] == "finished":
            break
        forgetful = [m for m in view["legal_moves"] if m["type"] == "play" and "announce" not in m]
        leaves_one = len(view["state"]["hand"]) == 2 and view["seat"] in view["to_act"]
        move = forgetful[0] if leaves_one and forgetful else view["legal_moves"][0]
        if move["type"] == "announce" and len(view["legal_moves"]) > 1:
            move = view["legal_moves"][1]
        answer = http.move(game_id, token, move).json
        calls = [e for e in answer["events"] if e["type"] == "PlayerCalledOut"]
        if leaves_one and forgetful:
            assert calls and calls[0]["seat"] == 1 and calls[0]["data"]["target"] == 0
            return
    raise AssertionError("the game never left me one unannounced card")
