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
