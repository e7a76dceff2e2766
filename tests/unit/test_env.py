"""The local environments (cardhall_env, docs/env.md): PettingZoo's and Gymnasium's own checks, fixed action
ids, masks, seeding, rewards, and vectors that show a seat only what it may see."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import cardhall_env
from cardhall_env.actions import action_table
from cardhall_env.observations import VECTORS
from cardhall_env.observations import markdown as vector_markdown
from domain.cards import DECK
from domain.game import all_games

ROOT = Path(__file__).resolve().parents[2]
EVERY_TABLE = [(name, players) for name, game in sorted(all_games().items()) if name in VECTORS
               for players in range(game.min_players, game.max_players + 1)]


def play_randomly(env, rng: random.Random) -> int:  # type: ignore[no-untyped-def]
    """Play the selected agent's random legal action until the game ends; the decisions taken."""
    decisions = 0
    while not env.match.over:
        env.step(rng.choice(env.match.legal_actions()))
        decisions += 1
    return decisions


@pytest.mark.parametrize(("game", "players"), EVERY_TABLE)
def test_every_game_and_player_count_passes_pettingzoos_api_test(game: str, players: int) -> None:
    api_test(cardhall_env.make(game, players), num_cycles=300)


@pytest.mark.parametrize(("game", "players"), EVERY_TABLE)
def test_every_game_and_player_count_passes_pettingzoos_seed_test(game: str, players: int) -> None:
    seed_test(lambda: cardhall_env.make(game, players), num_cycles=300)


@pytest.mark.parametrize("game", sorted(VECTORS))
def test_the_single_seat_environment_passes_gymnasiums_checker(game: str) -> None:
    check_env(cardhall_env.single(game, 3, opponents="greedy"), skip_render_check=True)


@pytest.mark.parametrize(("game", "players", "options"), [("craits", 3, {"short": True}), ("scat", 4, {})])
def test_a_seed_replays_a_game_exactly_and_another_seed_deals_another(game: str, players: int, options: dict) -> None:
    logs = []
    for seed in (11, 11, 12):
        env = cardhall_env.make(game, players, **options)
        env.reset(seed=seed)
        play_randomly(env, random.Random(0))
        logs.append(env.log())
    assert logs[0] == logs[1]
    assert logs[0][players + 1:players + 3] != logs[2][players + 1:players + 3]  # the first shuffles differ


@pytest.mark.parametrize(("game", "players", "options"), [("craits", 2, {"short": True}), ("scat", 3, {})])
def test_a_run_seeded_at_its_first_reset_plays_the_same_games_again_and_each_reset_after_deals_anew(
    game: str, players: int, options: dict
) -> None:
    """As Gymnasium's and PettingZoo's environments: a reset without a seed draws on from the source the last
    seeded one made (it used to take fresh entropy, so a training run seeded once was not repeatable)."""
    runs = []
    for _ in range(2):
        env = cardhall_env.make(game, players, **options)
        logs = []
        for episode in range(3):
            env.reset(seed=21 if episode == 0 else None)
            play_randomly(env, random.Random(episode))
            logs.append(env.log())
        runs.append(logs)
    assert runs[0] == runs[1]
    deals = [log[players + 1]["data"]["order"] for log in runs[0]]
    assert len({tuple(order) for order in deals}) == 3  # (each reset after the first deals another game)


@pytest.mark.parametrize(("game", "players"), [("craits", 2), ("scat", 5)])
def test_the_rewards_are_the_games_result_plus_one_to_each_winner_minus_one_to_the_rest(game: str, players: int) -> None:
    env = cardhall_env.make(game, players)
    env.reset(seed=3)
    rng = random.Random(3)
    while not env.match.over:
        env.step(rng.choice(env.match.legal_actions()))
    winners = env.view("seat_0")["result"]["winners"]
    assert env.rewards == {f"seat_{seat}": 1.0 if seat in winners else -1.0 for seat in range(players)}
    assert all(env.terminations.values())


def test_the_aec_environment_has_pettingzoos_dicts_of_spaces_beside_its_methods() -> None:
    """``observation_spaces`` and ``action_spaces``, PettingZoo's attributes that some wrappers and trainers read,
    were missing (an AttributeError)."""
    env = cardhall_env.make("scat", 4)
    assert env.observation_spaces["seat_1"] is env.observation_space("seat_1")
    assert env.action_spaces["seat_0"] is env.action_space("seat_0") and set(env.action_spaces) == set(env.possible_agents)


@pytest.mark.parametrize(("game", "players"), [("craits", 3), ("scat", 4)])
def test_the_games_result_is_in_every_agents_info_once_it_ends_scores_or_lives_beside_the_winners(
        game: str, players: int) -> None:
    """A trainer logging scores or lives had only the +1/-1 reward: the result was in no info."""
    env = cardhall_env.make(game, players)
    env.reset(seed=5)
    rng, results = random.Random(5), {}
    for agent in env.agent_iter():
        _, _, termination, truncation, info = env.last()
        if termination or truncation:
            results[agent] = info["result"]
            env.step(None)
        else:
            assert "result" not in info
            env.step(rng.choice(info["legal_actions"]))
    result = env.view("seat_0")["result"]
    assert results == dict.fromkeys(env.possible_agents, result) and set(result) == {"winners", "scores" if game ==
                                                                                     "craits" else "lives"}
    solo = cardhall_env.single(game, players, short=True) if game == "craits" else cardhall_env.single(game, players)
    _, info = solo.reset(seed=5)
    over = False
    while not over:
        assert "result" not in info
        _, _, over, _, info = solo.step(rng.choice(info["legal_actions"]))
    assert info["result"] == solo.view()["result"] and info["legal_actions"] == ()


@pytest.mark.parametrize(("game", "players"), [("craits", 4), ("scat", 3)])
def test_only_the_selected_agent_has_legal_actions_and_it_may_pass_only_out_of_turn(game: str, players: int) -> None:
    env = cardhall_env.make(game, players)
    env.reset(seed=5)
    rng = random.Random(5)
    out_of_turn = 0
    for _ in range(400):
        selected = env.agent_selection
        view = env.view(selected)
        legal = np.flatnonzero(env.observe(selected)["action_mask"]).tolist()
        assert legal == sorted(env.match.legal_actions()) == sorted(env.last()[4]["legal_actions"])
        seat = int(selected.removeprefix("seat_"))
        offered = sorted(env.actions.id_of(env.match.table.game.parse_move(move)) for move in view["legal_moves"])
        passing = [env.actions.pass_id] if seat not in view["to_act"] else []
        out_of_turn += bool(passing)
        assert legal == offered + passing  # the mask is the API's legal moves, and pass out of turn alone
        for other in env.agents:
            if other != selected:
                assert not env.observe(other)["action_mask"].any()
                assert env.infos[other]["legal_actions"] == ()
        env.step(rng.choice(legal))
        if env.match.over:
            env.reset(seed=rng.randrange(100))
    assert out_of_turn  # (call-outs and announces, declared 31s were offered)


def test_an_action_that_is_not_legal_now_is_refused_with_the_legal_ones_named() -> None:
    env = cardhall_env.make("craits", 2)
    env.reset(seed=1)
    illegal = next(action for action in range(env.actions.size) if action not in env.match.legal_actions())
    with pytest.raises(ValueError, match="is not legal for seat"):
        env.step(illegal)


def test_an_aec_step_takes_python_and_numpy_integers_and_refuses_anything_else_by_name() -> None:
    """Nothing is converted to an id: a float, a string or a bool used to be (0.9 played id 0, True id 1), and
    step(None) of an agent still to act ended in an unexplained TypeError."""
    env = cardhall_env.make("craits", 2)
    env.reset(seed=1)
    legal = env.match.legal_actions()
    for wrong in (0.9, float(legal[0]), str(legal[0]), True, False, np.float32(legal[0]), np.bool_(True),
                  np.array([legal[0]]), [legal[0]]):
        with pytest.raises(TypeError, match=r"an action is an id, an integer from 0 to 531 \(a Python or NumPy integer"):
            env.step(wrong)
    with pytest.raises(ValueError, match=r"seat_\d is to act: step\(None\) is only for an agent terminated or truncated"):
        env.step(None)
    with pytest.raises(ValueError, match="9999 is no action id: craits's ids run from 0 to 531"):
        env.step(np.int64(9999))
    before = len(env.match.events)
    env.step(np.int64(legal[0]))
    env.step(np.array(env.match.legal_actions()[0], dtype=np.int16))  # (a 0-d array, as a policy's predict gives)
    assert len(env.match.events) > before


def test_the_action_tables_and_the_vectors_are_those_docs_env_md_shows() -> None:
    docs = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")
    for game in VECTORS:
        assert action_table(game).markdown() in docs, game
        assert vector_markdown(game) in docs, game


def test_the_fixed_ids_name_each_card_draw_announce_and_suit_and_stand_for_the_same_move_every_time() -> None:
    craits, scat = action_table("craits"), action_table("scat")
    assert craits.move_of(0) == {"type": "play", "card": "AC"}
    assert craits.move_of(craits.size - 2) == {"type": "call", "target": 4}
    assert craits.move_of(craits.pass_id) is None
    assert scat.move_of(2) == {"type": "discard", "card": "AC"}
    assert [scat.move_of(action)["type"] for action in (54, 55, 56)] == ["knock", "declare_31", "throw_down"]
    every = {craits.name(action) for action in range(craits.size)}
    assert len(every) == craits.size  # no two ids for one move


@pytest.mark.parametrize(("game", "players"), [("craits", 4), ("scat", 4)])
def test_a_seats_vector_shows_nothing_of_the_other_hands_but_their_sizes(game: str, players: int) -> None:
    env = cardhall_env.make(game, players)
    env.reset(seed=9)
    rng = random.Random(9)
    for _ in range(30):
        env.step(rng.choice(env.match.legal_actions()))
    state = env.match.table.state
    others = [hand for seat, hand in enumerate(state.hands) if seat != 0]
    unseen = sorted(set(DECK) - set(state.hands[0]) - set(state.discard))  # others' hands, the pile, the stock
    random.Random(1).shuffle(unseen)
    swapped = [tuple(unseen.pop() for _ in hand) for hand in others]
    changed = dataclasses.replace(state, hands=(state.hands[0], *swapped))
    assert changed.hands != state.hands
    vector = VECTORS[game][0]
    assert np.array_equal(vector(changed, 0), vector(state, 0))
    assert not np.array_equal(vector(changed, 1), vector(state, 1))


def test_scat_vectors_show_the_views_seats_and_hand_value_whatever_was_observed_before() -> None:
    """Each slot of a Scat vector's per-seat blocks (lives, out, turn, knocker, dealer; relative to the observer)
    and its hand value is what the seat's JSON view shows, for every seat at every decision of tables of 2, 3 and 5
    seats and 1, 3 and 4 lives, the vectors made in a shuffled order."""
    from cardhall_env.observations import SCAT_LAYOUT

    at, slots = 0, {}
    for name, size, _ in SCAT_LAYOUT:
        slots[name] = slice(at, at + size)
        at += size
    envs = [cardhall_env.make("scat", 2, lives=1), cardhall_env.make("scat", 3, lives=1),
            cardhall_env.make("scat", 5, lives=4), cardhall_env.make("scat", 2, three_of_a_kind=True, straight_flush=True)]
    rng = random.Random(6)
    seen = []
    for env in envs:
        for seed in range(4):
            env.reset(seed=seed)
            while not env.match.over:
                seen += [(env.match.state, seat, env.players, env.view(agent)["state"])
                         for seat, agent in enumerate(env.agents)]
                env.step(rng.choice(env.match.legal_actions()))
    rng.shuffle(seen)
    for state, seat, players, view in seen:
        vector = VECTORS["scat"][0](state, seat)
        order = [(seat + slot) % players for slot in range(players)]  # slot 0 the observer, then the seats to its left
        shown = {name: vector[slots[name]][:players].tolist() for name in ("lives", "out", "turn", "knocker", "dealer")}
        assert shown["lives"] == [view["lives"][other] for other in order]
        assert shown["out"] == [float(other in view["out"]) for other in order]
        for name in ("turn", "knocker", "dealer"):
            assert shown[name] == [float(other == view[name]) for other in order], name
        assert vector[slots["hand_value"]][0] == (view["hand_values"][seat] or 0)
    assert len(seen) > 2_000


@pytest.mark.parametrize("game", sorted(VECTORS))
def test_the_single_seat_plays_against_house_bots_until_a_result(game: str) -> None:
    env = cardhall_env.single(game, 3, opponents=["greedy", "random"], short=True) if game == "craits" \
        else cardhall_env.single(game, 3, opponents=["greedy", "random"])
    observation, _ = env.reset(seed=4)
    rng = random.Random(4)
    over, reward = False, 0.0
    while not over:
        assert np.array_equal(observation["action_mask"], env.action_masks())
        observation, reward, over, _, info = env.step(rng.choice(np.flatnonzero(env.action_masks()).tolist()))
    assert "illegal_action" not in info
    assert reward == (1.0 if 0 in env.view()["result"]["winners"] else -1.0)


@pytest.mark.parametrize("game", sorted(VECTORS))
def test_a_bot_written_for_the_api_plays_in_the_environment_its_moves_turned_into_action_ids(game: str) -> None:
    env = cardhall_env.single(game, 2, opponents="greedy")
    _, info = env.reset(seed=5)
    rng, over = random.Random(5), False
    while not over:
        view = env.view()
        assert sorted(env.actions.action_of(move) for move in view["legal_moves"]) == sorted(info["legal_actions"])
        _, _, over, _, info = env.step(env.actions.action_of(rng.choice(view["legal_moves"])))
    assert "illegal_action" not in info and env.view()["result"] is not None


@pytest.mark.parametrize("game", sorted(VECTORS))
def test_the_single_seat_plays_against_functions_written_for_the_api_beside_house_bots(game: str) -> None:
    """Self-play, or a bot file of ``cardhall simulate`` as the opponent: ``opponents`` took house bots' names alone
    ("opponents: one of random, greedy")."""
    asked: list[int] = []

    def first_legal(view: dict) -> dict:
        asked.append(view["seat"])
        assert view["status"] == "active" and view["seat"] in view["to_act"]
        return view["legal_moves"][0]

    played = []
    for _ in range(2):  # (the same seed and the same choices: the same game)
        asked.clear()
        solo = cardhall_env.single(game, 3, seat=1, opponents=[first_legal, "greedy"], render_mode=None)
        assert solo.bots_at == {2: "greedy"} and solo.policies == {0: first_legal}
        _, info = solo.reset(seed=11)
        rng, over = random.Random(11), False
        while not over:
            assert solo.match.seat == 1
            _, _, over, _, info = solo.step(rng.choice(info["legal_actions"]))
        assert asked and set(asked) == {0} and info["result"] == solo.view()["result"]
        played.append(solo.match.log())
    assert played[0] == played[1]
    everyone = cardhall_env.single(game, 2, opponents=first_legal)  # (one function for every other seat)
    everyone.reset(seed=1)
    assert everyone.policies == {1: first_legal} and everyone.bots_at == {}


def test_a_functions_move_that_is_not_legal_is_refused_naming_its_seat() -> None:
    solo = cardhall_env.single("scat", 2, seat=1, opponents=lambda view: {"type": "knock", "now": True})
    with pytest.raises(ValueError, match=r"^the opponent in seat 0 made \{'type': 'knock', 'now': True\}, which is "
                                         r"not one of its legal moves now: "):
        solo.reset(seed=1)
    with pytest.raises(ValueError, match=r"^opponents: one of random, greedy or a function choose\(view\) -> move, or "
                                         r"one such for each of the 2 other seats$"):
        cardhall_env.single("scat", 3, opponents=["greedy", "smart"])


def test_an_object_that_is_no_move_of_the_game_has_no_action_id() -> None:
    for move in ({"type": "fly"}, {"type": "play", "card": "ZZ"}, {"type": "call", "target": 9}, "draw"):
        with pytest.raises(ValueError, match="is no craits move"):
            action_table("craits").action_of(move)


@pytest.mark.parametrize(("game", "players"), [("craits", 2), ("scat", 3)])
def test_the_single_seats_info_hands_over_the_ids_its_mask_allows_and_none_once_over(game: str, players: int) -> None:
    env = cardhall_env.single(game, players, opponents="greedy")
    observation, info = env.reset(seed=6)
    rng, over = random.Random(6), False
    while not over:
        assert sorted(info["legal_actions"]) == np.flatnonzero(observation["action_mask"]).tolist() != []
        observation, _, over, _, info = env.step(rng.choice(info["legal_actions"]))
    assert info["legal_actions"] == () and not observation["action_mask"].any()


def test_a_single_seat_action_the_mask_forbids_ends_the_game_for_it_with_minus_one() -> None:
    env = cardhall_env.single("scat", 2)
    env.reset(seed=2)
    forbidden = int(np.flatnonzero(env.action_masks() == 0)[0])
    _, reward, over, _, info = env.step(forbidden)
    assert (reward, over) == (-1.0, True) and info["illegal_action"] and info["legal_actions"] == ()


@pytest.mark.parametrize("ending", ["illegal", "played out"])
def test_a_single_seat_episode_once_ended_takes_no_step_until_reset(ending: str) -> None:
    """Whether an illegal action or the game's end ended it, the episode is over: a step after it is refused with
    Gymnasium's ResetNeeded (it used to play on after an illegal action, and to answer -1 again after the end)."""
    from gymnasium.error import ResetNeeded

    env = cardhall_env.single("craits", 3, seat=1, opponents="greedy", short=True)
    _, info = env.reset(seed=11)
    rng = random.Random(11)
    if ending == "illegal":
        forbidden = next(action for action in range(env.actions.size) if action not in info["legal_actions"])
        assert env.step(forbidden)[1:3] == (-1.0, True)
    else:
        over = False
        while not over:
            _, _, over, _, info = env.step(rng.choice(info["legal_actions"]))
    for action in (0, *env.match.legal_actions()):
        with pytest.raises(ResetNeeded, match=r"the episode has ended: call reset\(\) to begin another"):
            env.step(action)
    _, info = env.reset(seed=12)
    env.step(info["legal_actions"][0])  # (a new episode takes steps again)


def test_a_single_seat_step_outside_the_action_space_is_no_action_and_the_episode_goes_on() -> None:
    """An id outside 0..n-1 or a value that is no integer is not a move the mask forbids but no action at all: it is
    refused (it used to be a bare IndexError, or -1 read as the last id, pass) and the episode is not ended."""
    env = cardhall_env.single("craits", 3, seat=1, opponents="greedy")
    _, info = env.reset(seed=11)
    for outside in (9999, env.actions.size, -1, -532, np.int64(-1)):
        with pytest.raises(ValueError, match=rf"{int(outside)} is no action id: craits's ids run from 0 to 531"):
            env.step(outside)
    for wrong in (0.0, "0", True, None):
        with pytest.raises(TypeError, match="an action is an id, an integer from 0 to 531"):
            env.step(wrong)
    _, reward, over, _, info = env.step(info["legal_actions"][0])
    assert (reward, over, "illegal_action" in info) == (0.0, False, False)


def test_an_environment_used_before_reset_says_to_call_reset_first() -> None:
    """Gymnasium's ResetNeeded, where each use ended in an AttributeError about NoneType or a missing
    agent_selection."""
    from gymnasium.error import ResetNeeded

    env = cardhall_env.make("craits", 2, render_mode="ansi")
    solo = cardhall_env.single("scat", 3)
    for use in (env.render, env.last, lambda: env.step(0), lambda: env.view("seat_0"), lambda: env.observe("seat_0"),
                lambda: next(iter(env.agent_iter())), env.log, lambda: solo.step(0), solo.view, solo.action_masks):
        with pytest.raises(ResetNeeded, match=r"^call reset\(\) first: the environment has no game before it$"):
            use()
    env.reset(seed=1)
    solo.reset(seed=1)
    assert env.render().startswith("version 5 active") and solo.view()["status"] == "active"


def test_make_refuses_a_render_mode_it_has_not_and_a_player_count_outside_the_games() -> None:
    """At once, in the game's own words (the player count used to fail only at the first reset, and render_mode
    "human" was taken and rendered nothing)."""
    with pytest.raises(ValueError, match="render_mode 'human' is not offered: ansi, or None"):
        cardhall_env.make("craits", 2, render_mode="human")
    for players in (0, 1, 6, 10):
        with pytest.raises(ValueError, match="craits is for 2 to 5 players"):
            cardhall_env.make("craits", players)
    for players in (0, 1, 10):
        with pytest.raises(ValueError, match="scat is for 2 to 9 players"):
            cardhall_env.single("scat", players)
    with pytest.raises(ValueError, match="option 'lives' must be at least 1"):
        cardhall_env.make("scat", 3, lives=0)


def test_the_aec_environment_renders_the_whole_table_every_hand_shown() -> None:
    """A spectator's view hid every hand, so the render of a game being debugged showed none of the cards held."""
    env = cardhall_env.make("scat", 3, render_mode="ansi")
    env.reset(seed=2)
    hands = env.view(None, reveal_all=True)["state"]["hands"]
    assert all(hands) and f"'hands': {hands!r}" in env.render() and env.render().startswith("version ")


def test_the_single_seat_environment_renders_its_seats_table_in_ansi_as_gymnasium_makes_it() -> None:
    """Gymnasium's ``render_mode`` at construction: ``single`` took it for a game option ("unknown option(s):
    render_mode"), and ``render()`` raised NotImplementedError."""
    solo = cardhall_env.single("scat", 3, seat=1, render_mode="ansi")
    assert solo.metadata["render_modes"] == ["ansi"] and solo.render_mode == "ansi"
    solo.reset(seed=3)
    hand = solo.view()["state"]["hand"]
    assert solo.render().startswith(f"version {solo.view()['version']} active") and str(hand) in solo.render()
    check_env(cardhall_env.single("scat", 3, render_mode="ansi"))  # (its render checked too)
    quiet = cardhall_env.single("craits", 2)
    quiet.reset(seed=1)
    assert quiet.render_mode is None and quiet.render() is None
    with pytest.raises(ValueError, match="render_mode 'human' is not offered: ansi, or None"):
        cardhall_env.single("craits", 2, render_mode="human")


def test_registered_with_gymnasium_single_seat_games_are_made_and_vectorised_by_id() -> None:
    """``gymnasium.make`` and ``make_vec``, which trainers and their wrappers build environments with, knew no id of
    ours (NamespaceNotFound): ``cardhall_env.register()`` names one a game, its arguments ``single``'s."""
    import warnings

    import gymnasium

    assert cardhall_env.register() == ["cardhall/craits-v0", "cardhall/scat-v0"] == cardhall_env.register()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (Gymnasium's passive checker warns of nothing: render_fps declared)
        env = gymnasium.make("cardhall/scat-v0", players=3, opponents="greedy", render_mode="ansi")
        observation, info = env.reset(seed=1)
        assert env.render().startswith("version ") and env.spec.id == "cardhall/scat-v0"
        assert np.array_equal(env.get_wrapper_attr("action_masks")(), observation["action_mask"])
        env.step(info["legal_actions"][0])
    vector = gymnasium.make_vec("cardhall/craits-v0", num_envs=2, players=3, short=True)
    observations, _ = vector.reset(seed=2)
    assert observations["observation"].shape == (2, 201) and observations["action_mask"].shape == (2, 532)
    rng, ended = np.random.default_rng(2), 0
    while not ended:  # (an ended game's mask is all zeros: the vector resets it at its next step, whatever its action)
        actions = [rng.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in observations["action_mask"]]
        observations, _, terminations, _, _ = vector.step(np.array(actions))
        ended = terminations.sum()
    vector.close()


def test_a_record_is_a_finished_games_and_one_asked_for_sooner_is_refused_with_what_to_do() -> None:
    """A record of a game not yet over came out as a spectator's, its shuffles hidden, which neither a server's
    import nor from_log reads: it is refused, saying so (log() has the events so far)."""
    env = cardhall_env.make("scat", 3)
    env.reset(seed=1)
    for _ in range(10):
        env.step(env.infos[env.agent_selection]["legal_actions"][0])
    with pytest.raises(ValueError, match=r"^the game is not over \(version 16, active\): a record is a finished "
                                         r"game's, every shuffle shown, .* or take log\(\) for its events so far$"):
        env.record("half")
    assert len(env.log()) == 16 and env.log()[4]["data"]["order"]
    play_randomly(env, random.Random(1))
    assert env.record("whole")["redaction"] == "full"


def test_a_single_seat_outside_the_table_or_not_a_whole_number_is_refused_as_such() -> None:
    """A seat past the table with a list of opponents was answered about the opponents ("one such name for each of
    the 3 other seats", when two were given for the two others there are), and a seat of 1.0 was taken."""
    with pytest.raises(ValueError, match=r"^seat must be from 0 to 2$"):
        cardhall_env.single("scat", 3, seat=5, opponents=["random", "greedy"])
    for seat in (1.0, "1", True):
        with pytest.raises(TypeError, match=r"^seat is a whole number from 0 to 2, not "):
            cardhall_env.single("scat", 3, seat=seat)
    solo = cardhall_env.single("scat", 3, seat=np.int64(2), opponents=["greedy", "random"])
    assert solo.seat == 2 and type(solo.seat) is int and solo.bots_at == {0: "greedy", 1: "random"}


def test_a_spectators_view_is_asked_for_with_none_and_an_unknown_agent_is_named_with_the_agents() -> None:
    """GET /state without a token (and a record's replay) shows a spectator's view, which the environment had no
    way to give but through its match (view(None) was a KeyError, as a mistyped agent was)."""
    env = cardhall_env.from_log(_finished_log(), history=True)
    env.reset()
    while (action := env.next_logged_action()) is not None:
        env.step(action)
    assert env.view(None) == env.match.view(None) and env.view(None)["seat"] is None
    assert env.view_at(7, None, reveal_all=True) == env.match.view_at(7, None, reveal_all=True)
    for agent in ("seat_2", 1):
        with pytest.raises(ValueError, match=r"^no agent .*: the agents are seat_0, seat_1, or None for a spectator$"):
            env.view(agent)


def _finished_log() -> list[dict]:
    env = cardhall_env.make("scat", 2)
    env.reset(seed=9)
    play_randomly(env, random.Random(9))
    return env.log()


def test_an_environment_made_with_history_shows_every_version_and_one_without_says_how_to_keep_it() -> None:
    """view_at said "make it with history=True", which make() refused ("unknown option(s): history"): only an
    environment made from a log could keep its versions."""
    env = cardhall_env.make("scat", 3, history=True)
    env.reset(seed=1)
    play_randomly(env, random.Random(1))
    assert [env.view_at(version, "seat_0")["version"] for version in (1, 5, len(env.log()))] == [1, 5, len(env.log())]
    bare = cardhall_env.make("scat", 3)
    bare.reset(seed=1)
    with pytest.raises(ValueError, match=r"^this environment keeps no history: make it with history=True "
                                         r"\(cardhall_env.make\(..., history=True\), or from_log\(..., history=True\)\)$"):
        bare.view_at(3, "seat_0")


def test_an_unknown_option_is_answered_with_the_options_the_environment_takes() -> None:
    """Not the server's list, whose seed, decks and move_seconds the environment refuses."""
    expected = "unknown option(s): bogus; the environment takes: first_dealer, lives, min_knock, straight_flush, " \
               "three_of_a_kind, throw_down"
    for make in (lambda: cardhall_env.make("scat", players=2, bogus=1), lambda: cardhall_env.single("scat", 2, bogus=1)):
        with pytest.raises(ValueError) as refused:
            make()
        assert str(refused.value) == expected
    with pytest.raises(ValueError, match=r"unknown option\(s\): lives; the environment takes: first_dealer, short$"):
        cardhall_env.make("craits", 2, lives=3)


def test_both_environments_take_python_and_numpy_seeds_and_refuse_others_alike() -> None:
    """A NumPy integer seeds as the same Python integer would (the AEC environment used to end in random's bare
    TypeError, single() in Gymnasium's refusal); a string, a float, a bool or a negative seed is refused by both
    (the AEC one took them)."""
    aec, solo = cardhall_env.make("scat", 3), cardhall_env.single("scat", 3)
    aec.reset(seed=np.int64(3))
    solo.reset(seed=np.uint32(3))
    numpy_seeded = aec.log(), solo.view()
    aec.reset(seed=3)
    solo.reset(seed=3)
    assert (aec.log(), solo.view()) == numpy_seeded
    for reset in (aec.reset, solo.reset):
        for wrong in ("abc", 3.0, np.float64(3), True):
            with pytest.raises(TypeError, match=r"a seed is a whole number from 0 up \(a Python or NumPy integer\) or None, "):
                reset(seed=wrong)
        with pytest.raises(ValueError, match="a seed is a whole number from 0 up, not -3"):
            reset(seed=-3)


def test_options_the_environment_cannot_honour_offline_are_refused_with_why() -> None:
    with pytest.raises(ValueError, match="reset\\(seed"):
        cardhall_env.make("craits", 2, seed=4).reset()
    with pytest.raises(ValueError, match="unknown game"):
        cardhall_env.make("poker", 2)
    from cardhall_env.match import check_table

    with pytest.raises(ValueError, match="unknown game 'poker'; registered: craits, "):  # (not its options first)
        check_table("poker", 2, {"ante": 5})  # (cardhall simulate's check)


@pytest.mark.parametrize(("game", "players", "options", "cap"), [
    ("craits", 2, {"short": True}, None), ("craits", 4, {"short": True}, None), ("scat", 2, {}, None),
    ("scat", 5, {"throw_down": True}, None), ("craits", 3, {}, 150), ("scat", 4, {}, 90)])
def test_a_table_of_people_stepped_by_its_games_own_fold_is_the_servers_fold_of_its_events(
        game: str, players: int, options: dict, cap: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment steps a table of people alone by the game's decide and evolve (Match._fold), not through
    domain.table: at every decision its table, and so its views and legal moves, are the server's replay of its
    events, and a game ends at its rules' event cap as the server's does."""
    from domain import table as tables

    if cap is not None:
        monkeypatch.setattr(all_games()[game], "max_events", cap)
    env = cardhall_env.make(game, players, **options)
    rng = random.Random(7)
    for seed in range(3):
        env.reset(seed=seed)
        while True:
            match = env.match
            replayed = tables.replay(match.events)
            assert match.table == replayed and match.over == (replayed.status == tables.FINISHED)
            for seat in range(players):
                assert match.view(seat) == tables.view(replayed, seat)
            if match.over:
                break
            env.step(rng.choice(match.legal_actions()))
        if cap is not None:
            assert len(match.events) > cap and isinstance(match.events[-1], tables.EventCapReached)


def test_the_environments_shuffle_is_random_shuffles_order_from_the_same_draws() -> None:
    """cardhall_env.match.shuffled gives the order random.shuffle gives and leaves the source where it would:
    the environment's seeded games are those it dealt with random.shuffle."""
    from cardhall_env.match import shuffled

    for seed in range(300):
        ours, theirs = random.Random(seed), random.Random(seed)
        order = list(DECK[: 1 + seed % 52])
        theirs.shuffle(order)
        assert shuffled(ours, DECK[: 1 + seed % 52]) == order
        assert ours.getrandbits(64) == theirs.getrandbits(64)


@pytest.mark.parametrize("bots_at", [{}, {1: "random"}], ids=["people", "a house bot"])
def test_a_seat_whose_clock_runs_out_in_a_match_loses_its_turn_as_on_a_server_and_its_seat_at_the_third(
        bots_at: dict) -> None:
    """cardhall simulate times a bot file's move out past --move-seconds: the match records what a server's clock
    does (TurnTimedOut, then the game's default move: in Scat a draw from the stock and the discard of the card
    drawn), the game created with move_seconds from then on, the log holding together as a server's; at the seat's
    third timeout in a row SeatAbandoned, and the house bot random plays it to the end."""
    from cardhall_env.match import Match
    from domain import table as tables

    match = Match("scat", 2, rng=random.Random(5), bots_at=bots_at)
    seat = match.seat
    for timeout in range(1, 4):
        while match.seat != seat:  # (the other seat's moves, a person's: its first legal action)
            match.step(match.legal_actions()[0])
        top, before = match.state.stock[0], len(match.events)
        match.time_out(7)
        made = match.log()[before:]
        assert [(event["type"], event["seat"]) for event in made[:3]] == [
            ("TurnTimedOut", seat), ("CardDrawn", seat), ("CardDiscarded", seat)]
        assert made[1]["data"]["card"] == made[2]["data"]["card"] == top
        assert (made[3:4] != [] and made[3]["type"] == "SeatAbandoned") == (timeout == 3)  # (else what it set off)
        assert match.log()[0]["data"]["options"]["move_seconds"] == 7
        assert tables.replay(match.events) == match.table
    assert match.table.seats[seat].bot == "random"
    while not match.over:
        assert match.seat != seat  # (the house bot plays the seat)
        match.step(match.legal_actions()[0])
    assert match.result()["winners"]
