"""Bots that live on the platform (cardhall_client.lobby, ``cardhall bot run --key``, ``cardhall bot challenge``),
against a real server: a challenge is accepted and both bots play its game to the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from concurrent import futures
from pathlib import Path
from typing import Any

import pytest

from cardhall_cli import main
from cardhall_client import CardhallClient
from cardhall_client.errors import NotFound
from cardhall_client.lobby import Lobby
from tests.waiting import until

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def first_move(view: dict[str, Any]) -> dict[str, Any]:
    return view["legal_moves"][0]


def sign_up(base: str, name: str) -> CardhallClient:
    with CardhallClient(base) as anonymous:
        key = anonymous.create_account(name)["key"]
    return CardhallClient(base, token=key, timeout=30.0)


def test_a_living_bot_accepts_a_challenge_it_likes_declines_one_it_does_not_and_plays_to_the_end(
        live_server: str, capsys: Any) -> None:
    suffix = uuid.uuid4().hex[:8]
    host, guest = sign_up(live_server, f"host{suffix}"), sign_up(live_server, f"guest{suffix}")
    said: list[str] = []
    finished = threading.Event()
    lobby = Lobby(guest, first_move, accept={"craits"}, concurrency=1, say=said.append)
    original = lobby.handle

    def handle(event: dict[str, Any]) -> None:
        original(event)
        if event["type"] == "gameFinish":
            finished.set()

    lobby.handle = handle  # type: ignore[method-assign]
    living = threading.Thread(target=lobby.run, args=(finished.is_set, 0))
    living.start()
    try:
        declined = host.challenge("scat", 2, [guest.account()["name"]])
        offered = host.challenge("craits", 2, [guest.account()["name"]], options={"short": True})
        hosting = Lobby(host, first_move, accept=(), say=said.append)
        hosting.handle({"type": "gameStart", "data": {"game_id": _started(host, offered["id"])}})
        assert finished.wait(120), said
    finally:
        finished.set()
        living.join(60)
    assert host.challenges() == [] and _status(host, declined["id"]) == "declined"
    game = host.game(_started(host, offered["id"]))
    assert game["status"] == "finished" and [seat["account"] for seat in game["seats"]] == [
        f"host{suffix}", f"guest{suffix}"]
    assert host.account()["games"] == {"played": 1, "current": []}
    host.close()
    guest.close()


def _status(client: CardhallClient, challenge_id: str) -> str:
    return client._call("GET", f"/v1/challenges/{challenge_id}")["status"]


def _started(client: CardhallClient, challenge_id: str) -> str:
    """The game of a challenge, once it has one (the living bot accepts it in its own time)."""
    for event in client.follow_account():
        if event["type"] == "gameStart":
            return event["data"]["game_id"]
    raise AssertionError("unreachable")


def test_bot_challenge_says_what_it_offered_and_the_next_step_which_starts_the_game(live_server: str, capsys: Any) -> None:
    """The summary names the challenge, its game and players, whether rated, its expiry, and how the other
    account accepts it: that command, run after the challenge was sent, accepts it and plays its game."""
    suffix = uuid.uuid4().hex[:8]
    host, guest = sign_up(live_server, f"ch{suffix}"), sign_up(live_server, f"cg{suffix}")
    assert main(["bot", "challenge", f"cg{suffix}", "--server", live_server, "--key", str(host.token),
                 "--new", "scat", "--expires-in", "600"]) == 0
    offered, accept, post = capsys.readouterr().out.splitlines()
    challenge = host.challenge_info(offered.split()[1].rstrip(":"))
    assert offered == (f"challenge {challenge['id']}: scat for 2 players, ch{suffix} (you) and cg{suffix}; unrated; "
                       f"expires {challenge['expires_at']} (in 600 s)")
    assert accept == (f"next: cg{suffix} accepts it, with cg{suffix}'s key as KEY: "
                      f"cardhall bot run --server {live_server} --key KEY --accept scat")
    assert post.strip() == f"(or POST {live_server}/v1/challenges/{challenge['id']}/accept with 'Authorization: Bearer KEY')"
    codes: list[int] = []
    runs = [accept.split(": ", 2)[2].replace("KEY", str(guest.token)).split()[1:] + ["--games", "1"],
            ["bot", "run", "--server", live_server, "--key", str(host.token), "--games", "1"]]  # (the host's own seat)
    threads = [threading.Thread(target=lambda argv: codes.append(main(argv)), args=(argv,)) for argv in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert codes == [0, 0], capsys.readouterr().out
    game_id = host.challenge_info(challenge["id"])["game_id"]
    assert host.game(game_id)["status"] == "finished"
    host.close()
    guest.close()


def test_bot_challenge_says_an_open_challenge_is_open_to_any_account_which_accepts_it_over_http(
        live_server: str, capsys: Any) -> None:
    """No account is told of an open challenge (a living bot answers those offered to it by name): the step
    printed is the request that accepts it."""
    with sign_up(live_server, f"oc{uuid.uuid4().hex[:8]}") as host:
        assert main(["bot", "challenge", "--server", live_server, "--key", str(host.token), "--new", "craits",
                     "--players", "3", "--rated"]) == 0
    offered, accept = capsys.readouterr().out.splitlines()
    assert offered.split("; ")[0].endswith("(you) and 2 open seats, open to any account") and "; rated;" in offered
    challenge_id = offered.split()[1].rstrip(":")
    assert accept == (f"next: 2 other accounts accept it over HTTP, each with its own key as KEY: "
                      f"POST {live_server}/v1/challenges/{challenge_id}/accept with 'Authorization: Bearer KEY'")


def test_bot_challenge_prints_the_challenge_as_json_for_scripts(live_server: str, capsys: Any) -> None:
    suffix = uuid.uuid4().hex[:8]
    host, guest = sign_up(live_server, f"h{suffix}"), sign_up(live_server, f"g{suffix}")
    code = main(["bot", "challenge", f"g{suffix}", "--server", live_server, "--key", str(host.token),
                 "--new", "scat", "--players", "2", "--expires-in", "600", "--json"])
    assert code == 0
    offered = json.loads(capsys.readouterr().out)
    assert offered["to"] == [f"g{suffix}"] and offered["game"] == "scat" and offered["status"] == "open"
    assert [event["type"] for event in guest.account_events()["events"]] == ["challenge"]
    host.close()
    guest.close()


def test_bot_challenge_takes_the_names_before_or_after_the_options(live_server: str, capsys: Any) -> None:
    suffix = uuid.uuid4().hex[:8]
    host, *guests = (sign_up(live_server, f"{name}{suffix}") for name in ("oh", "og", "oa"))
    options = ["--server", live_server, "--key", str(host.token), "--new", "craits", "--players", "3", "--json"]
    for command in (["bot", "challenge", *options, f"og{suffix}", f"oa{suffix}"],
                    ["bot", "challenge", f"og{suffix}", *options, f"oa{suffix}"]):
        assert main(command) == 0
        assert json.loads(capsys.readouterr().out)["to"] == [f"og{suffix}", f"oa{suffix}"]
    for client in (host, *guests):
        client.close()


def test_bot_challenge_takes_the_key_from_cardhall_key_when_no_key_option_is_given(
        live_server: str, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An account's key in the environment stays out of the process list and the shell's history; ``--key`` wins."""
    suffix = uuid.uuid4().hex[:8]
    host, guest = sign_up(live_server, f"eh{suffix}"), sign_up(live_server, f"eg{suffix}")
    monkeypatch.setenv("CARDHALL_KEY", str(host.token))
    assert main(["bot", "challenge", f"eg{suffix}", "--server", live_server, "--new", "craits", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["challenger"] == f"eh{suffix}"
    monkeypatch.setenv("CARDHALL_KEY", "chk_000000000000_not-a-key")
    assert main(["bot", "challenge", f"eh{suffix}", "--server", live_server, "--key", str(guest.token),
                 "--new", "scat", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["challenger"] == f"eg{suffix}"
    host.close()
    guest.close()


def test_the_living_bot_of_the_docs_is_the_example_and_under_30_lines() -> None:
    example = (EXAMPLES / "live_bot.py").read_text()
    assert example in (EXAMPLES.parent / "docs" / "bots.md").read_text()
    assert len(example.splitlines()) < 30
    compile(example, "live_bot.py", "exec")


def test_the_living_bot_example_takes_its_key_from_cardhall_key_and_says_so_when_it_is_missing() -> None:
    environment = {name: value for name, value in os.environ.items() if name != "CARDHALL_KEY"}
    ran = subprocess.run([sys.executable, str(EXAMPLES / "live_bot.py"), "http://127.0.0.1:9"], env=environment,
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 1 and "set CARDHALL_KEY" in ran.stderr


def test_the_client_streams_an_accounts_events_and_resumes_after_the_last_it_saw(live_server: str) -> None:
    suffix = uuid.uuid4().hex[:8]
    host, guest = sign_up(live_server, f"sh{suffix}"), sign_up(live_server, f"sg{suffix}")
    for _ in range(3):
        host.challenge("craits", 2, [f"sg{suffix}"])
    stream = guest.stream_account()
    assert [next(stream)["id"] for _ in range(2)] == [1, 2]
    stream.close()
    host.challenge("scat", 2, [f"sg{suffix}"])
    resumed = guest.stream_account(after=2)
    assert [(event["id"], event["data"]["game"]) for event in (next(resumed), next(resumed))] == [
        (3, "craits"), (4, "scat")]
    resumed.close()
    host.close()
    guest.close()


def test_bot_run_with_a_pool_plays_its_games_from_the_pool_then_leaves_it(live_server: str, capsys: Any) -> None:
    """``cardhall bot run --key KEY --pool scat:2 --games 1``, two bots at once: the server pairs them, both
    play the game to its end with random moves (no bot file given), leave the pool and stop."""
    suffix = uuid.uuid4().hex[:8]
    bots = [sign_up(live_server, f"{name}{suffix}") for name in ("pa", "pb")]
    codes: list[int] = []

    def run(bot: CardhallClient) -> None:
        codes.append(main(["bot", "run", "--server", live_server, "--key", str(bot.token), "--pool", "scat:2",
                           "--games", "1"]))

    threads = [threading.Thread(target=run, args=(bot,)) for bot in bots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    out = capsys.readouterr().out
    assert codes == [0, 0], out
    assert out.count(" over: ") == 2 and out.count("game over: winners") == 2, out  # (each bot says its result once)
    assert out.count("played 1 game(s)") == 2 and out.count("waiting in the scat pool for games of 2 players") == 2
    [game_id] = [event["data"]["game_id"] for event in bots[0].account_events()["events"]
                 if event["type"] == "gameStart"]
    game = bots[0].game(game_id)
    assert game["status"] == "finished" and game["options"]["move_seconds"] == 10  # (a pool's game: on a clock)
    # (rated: it is in its players' rating history once the projection applied it)
    rated = until(lambda: bots[0]._call("GET", f"/v1/accounts/pa{suffix}/ratings")["ratings"], "the game is rated",
                  every=0.05)
    assert [change["game_id"] for rating in rated for change in rating["history"]] == [game_id]
    assert sorted(seat["account"] for seat in game["seats"]) == [f"pa{suffix}", f"pb{suffix}"]
    for bot in bots:
        assert bot.account()["games"] == {"played": 1, "current": []}
        with pytest.raises(NotFound):  # (it left the pool)
            bot.leave_pool("scat")
        bot.close()


def test_a_living_bot_says_the_end_of_a_game_it_does_not_play_once_and_leaves_its_own_to_their_players(
        live_server: str) -> None:
    said: list[str] = []
    lobby = Lobby(sign_up(live_server, f"end{uuid.uuid4().hex[:8]}"), first_move, say=said.append)
    lobby.playing["g" * 32] = futures.Future()  # (a game its player plays: the player says the result)
    for game_id in ("g" * 32, "h" * 32):
        lobby.handle({"type": "gameFinish", "data": {"game_id": game_id, "result": {"winners": [0]}}})
    assert said == [f"game {'h' * 32} over: {{'winners': [0]}}"]
    lobby.client.close()


def test_a_living_bot_says_why_its_player_stopped_on_an_error_that_is_no_problem_of_the_server(
        live_server: str, monkeypatch: Any) -> None:
    said: list[str] = []
    lobby = Lobby(sign_up(live_server, f"crash{uuid.uuid4().hex[:8]}"), first_move, say=said.append)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("the network went away")

    monkeypatch.setattr("cardhall_client.lobby.play", broken)
    lobby._play("g" * 32)
    lobby._pool.shutdown(wait=True)
    assert said == ["playing game " + "g" * 32, f"game {'g' * 32}: its player stopped on OSError: the network went away"]
    lobby.client.close()
