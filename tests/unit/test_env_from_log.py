"""An environment started from a game's log (cardhall_env.from_log, docs/env.md "Records in"): it takes a finished
game's whole log and nothing less, and steps through every logged decision."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import cardhall_env
from cardhall_env.match import Match


def logged_game(game: str = "scat", players: int = 3, bots_at: dict[int, str] | None = None, seed: int = 3,
                **options: Any) -> list[dict[str, Any]]:
    """A finished game of people playing random legal moves beside house bots, as the API's events list shows it."""
    match = Match(game, players, options, rng=random.Random(seed),
                  bots_at={1: "greedy", 2: "random"} if bots_at is None else bots_at)
    rng = random.Random(seed)
    while not match.over:
        match.step(rng.choice(match.legal_actions()))
    return match.log()


def test_a_page_of_a_longer_events_list_is_refused_with_how_to_fetch_the_rest(tmp_path: Path) -> None:
    log = logged_game()
    assert len(log) > 100
    page = {"events": log[:100], "last_version": len(log)}  # (what GET /v1/games/{id}/events answers by default)
    with pytest.raises(ValueError, match=rf"events 1 to 100 of the game's {len(log)}: .*fetch every page.*after="):
        cardhall_env.from_log(page)
    path = tmp_path / "page1.json"
    path.write_text(json.dumps(page), encoding="utf-8")
    with pytest.raises(ValueError, match="fetch every page"):
        cardhall_env.from_log(path)


def test_a_log_cut_short_is_refused_as_a_game_not_finished() -> None:
    log = logged_game()
    with pytest.raises(ValueError, match=r"ends at version 100 with the game active, not finished: .*fetch every page"):
        cardhall_env.from_log(log[:100])


def test_a_log_with_a_version_missing_or_not_from_the_games_creation_is_refused() -> None:
    log = logged_game()
    with pytest.raises(ValueError, match="event 51 of the log has version 52: a log's versions run 1, 2, 3"):
        cardhall_env.from_log(log[:50] + log[51:])
    with pytest.raises(ValueError, match="event 1 of the log has version 11"):
        cardhall_env.from_log(log[10:])
    unnumbered = [{key: value for key, value in event.items() if key != "version"} for event in log]
    with pytest.raises(ValueError, match="does not begin with the game's creation"):
        cardhall_env.from_log(unnumbered[10:])
    with pytest.raises(ValueError, match="the log is empty"):
        cardhall_env.from_log([])


def test_a_whole_log_in_any_of_its_forms_steps_through_to_the_logged_game(tmp_path: Path) -> None:
    log = logged_game()
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"events": log, "last_version": len(log)}), encoding="utf-8")
    for source in (log, {"events": log, "last_version": len(log)}, path):
        env = cardhall_env.from_log(source)
        env.reset()
        while (action := env.next_logged_action()) is not None:
            env.step(action)
        assert env.log() == log and env.match.over


@pytest.mark.parametrize(("game", "options"), [("scat", {}), ("craits", {"short": True})])
def test_every_seat_a_house_bots_too_is_asked_for_its_logged_decisions(game: str, options: dict[str, Any]) -> None:
    """A person against two house bots: the bots' seats are agents too, selected at each of their logged decisions
    with their own observation and mask, so that every seat's (observation, action) pairs can be collected."""
    log = logged_game(game, **options)
    env = cardhall_env.from_log(log)
    env.reset()
    stepped_by: dict[int, int] = {}  # version: the seat whose step played it
    while (action := env.next_logged_action()) is not None:
        agent, before = env.agent_selection, len(env.match.events)
        observation, _, _, _, info = env.last()
        assert observation["action_mask"][action] == 1 and action in info["legal_actions"]
        assert not any(env.observe(other)["action_mask"].any() for other in env.agents if other != agent)
        env.step(action)
        stepped_by.update(dict.fromkeys(range(before + 1, len(env.match.events) + 1), int(agent.removeprefix("seat_"))))
    assert env.log() == log and all(env.terminations.values())
    moves = [event for event in log if event["seat"] is not None and event["type"] != "SeatTaken"]
    assert {event["seat"] for event in moves} == {0, 1, 2}
    assert all(stepped_by[event["version"]] == event["seat"] for event in moves)  # each seat made its own moves


def off_the_log(env: Any, rng: random.Random, wanted: Any) -> int:
    """Step ``env`` along its log to the first decision ``wanted(env, logged action)`` accepts and take another legal
    action there (the step that leaves the log); the events played before it."""
    while (action := env.next_logged_action()) is not None:
        if wanted(env, action):
            played = len(env.match.events)
            env.step(rng.choice([legal for legal in env.infos[env.agent_selection]["legal_actions"] if legal != action]))
            return played
        env.step(action)
    raise AssertionError("no such decision in the log")


@pytest.mark.parametrize(("agent", "game", "options"), [("seat_0", "scat", {}), ("seat_1", "scat", {}),
                                                        ("seat_0", "craits", {"short": True}),
                                                        ("seat_2", "craits", {"short": True})])
def test_a_step_off_the_log_goes_on_as_an_ordinary_game_that_its_seed_replays(agent: str, game: str,
                                                                              options: dict[str, Any]) -> None:
    """After a legal step that is not the logged one (a person's or a house bot's seat: "what if"), the log no longer
    applies: next_logged_action() is None, the house bots play by themselves again, their choices and the salts
    come from the environment's seeded source, and the game is played to its end without an error about the log."""
    log = logged_game(game, **options)
    played = []
    for _ in range(2):
        env = cardhall_env.from_log(log)
        env.reset(seed=8)
        rng = random.Random(8)
        followed = off_the_log(env, rng, lambda env, action: env.agent_selection == agent and len(env.match.events) > 40
                               and len(env.infos[agent]["legal_actions"]) > 1)
        assert env.next_logged_action() is None
        selected = set()
        while not env.match.over:
            assert env.next_logged_action() is None
            selected.add(env.agent_selection)
            env.step(rng.choice(env.infos[env.agent_selection]["legal_actions"]))
        assert all(env.terminations.values()) and env.log()[:followed] == log[:followed]
        assert selected == {"seat_0"}  # (the house bots' seats act by themselves off the log)
        played.append(env.log())
    assert played[0] == played[1] != log


def test_a_house_bot_that_passes_where_its_logged_call_out_was_leaves_the_log_and_the_bots_play_on() -> None:
    """Passing where the log has a seat's out-of-turn move leaves the log; a house bot that the log had waiting on
    turn for its agent then plays by itself."""
    log = logged_game("craits", short=True)
    env = cardhall_env.from_log(log)
    env.reset(seed=1)
    pass_id = env.actions.pass_id
    while (action := env.next_logged_action()) is not None:
        if env.match.may_pass and action != pass_id and env.agent_selection != "seat_0":
            break
        env.step(action)
    assert action is not None
    env.step(pass_id)
    assert env.next_logged_action() is None
    rng = random.Random(1)
    while not env.match.over:
        assert env.agent_selection == "seat_0"
        env.step(rng.choice(env.infos["seat_0"]["legal_actions"]))
    assert all(env.terminations.values())


def test_a_game_that_ended_at_its_event_cap_while_a_deal_was_due_steps_through_to_its_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The server ends a game at its rules' event cap before it draws the chance outcome the game waits for
    (domain.table.by_itself): a log that ends so is followed to that end, as any other."""
    from domain import table as tables
    from domain.game import all_games

    monkeypatch.setattr(all_games()["scat"], "max_events", 20)
    capped = []
    for seed in range(40):
        log = logged_game("scat", 2, bots_at={1: "random"}, seed=seed, lives=10)
        replayed = tables.replay(tables.decode("scat", e["type"], e["seat"], e["data"]) for e in log[:-1])
        if replayed.game.chance(replayed.state) is not None:
            capped.append(log)
    assert capped, "no game of these seeds met the cap with a deal due"
    for log in capped:
        env = cardhall_env.from_log(log)
        env.reset()
        while (action := env.next_logged_action()) is not None:
            env.step(action)
        assert env.match.over and len(env.match.events) == len(log)
