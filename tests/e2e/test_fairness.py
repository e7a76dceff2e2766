"""Provably fair: every shuffle of a finished game verifies against the commitment shown before play,
through ``GET /v1/games/{id}/audit`` and through ``examples/verify_game.py``, and a tampered record
does not (API "Fairness")."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import persistence
from api import create_app
from domain.cards import DECK
from service.games import GameService
from tests.e2e.conftest import Http
from tests.e2e.server import start_server

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "verify_game.py"
SHUFFLES = {"DealerDrawShuffled", "RoundDealt", "PileReshuffled", "DeckShuffled"}
KINDS = [
    pytest.param("craits", 3, {"short": True, "seed": 5}, id="craits-seeded"),
    pytest.param("craits", 2, {"short": True}, id="craits-unseeded"),
    pytest.param("craits", 2, {"short": True, "decks": [DECK[::-1], DECK]}, id="craits-stacked"),
    pytest.param("scat", 4, {"seed": 5}, id="scat-seeded"),
    pytest.param("scat", 3, {}, id="scat-unseeded"),
    pytest.param("scat", 3, {"decks": [DECK, DECK[::-1]]}, id="scat-stacked"),
]


def _load_example() -> Any:
    spec = importlib.util.spec_from_file_location("verify_game", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


verify_game = _load_example()


@pytest.fixture
def database(tmp_path: Path) -> Iterator[tuple[str, Http]]:
    """An SQLite file (to tamper with) and the API over it."""
    path = tmp_path / "cardhall.db"
    persistence.upgrade(f"sqlite:///{path}")
    service = GameService(persistence.open_store(f"sqlite:///{path}"))
    yield str(path), Http(create_app(service).test_client())
    service.store.close()


def finished(http: Http, game: str, players: int, options: dict[str, Any]) -> str:
    """A game of house bots, played to the end once the last one sits down."""
    game_id = http.create(game, players, **options)
    for _ in range(players):
        assert http.bot(game_id).status_code == 201
    assert http.played_out(game_id)["status"] == "finished"
    return game_id


def getter(http: Http) -> Callable[[str], Any]:
    def get(path: str) -> Any:
        answer = http.client.get(path)
        assert answer.status_code == 200, answer.json
        return answer.json

    return get


def tamper(path: str, game_id: str, version: int, field: str, value: Any) -> None:
    """Change one field of a stored event, as someone with the database in hand could."""
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE events SET data = json_set(data, ?, json(?)) WHERE game_id = ? AND version = ?",
                           (f"$.{field}", json.dumps(value), game_id, version))


def first_shuffle(http: Http, game_id: str) -> dict[str, Any]:
    return next(e for e in http.events(game_id, limit=1000).json["events"] if e["type"] in SHUFFLES)


def all_events(http: Any, game_id: str) -> list[dict[str, Any]]:
    """The whole log, page by page (a long game has more events than one page holds)."""
    events: list[dict[str, Any]] = []
    while page := http.events(game_id, after=len(events), limit=1000).json["events"]:
        events += page
    return events


@pytest.mark.parametrize("game,players,options", KINDS)
def test_every_shuffle_of_a_finished_game_verifies_by_the_audit_and_by_the_example_script(
    http, game, players, options
):
    game_id = finished(http, game, players, options)
    audit = http.client.get(f"/v1/games/{game_id}/audit").json
    shuffles = [e for e in all_events(http, game_id) if e["type"] in SHUFFLES]
    assert audit["verified"] is True
    assert [(s["version"], s["commitment"], s["salt"], s["order"]) for s in audit["shuffles"]] == [
        (e["version"], e["data"]["commitment"], e["data"]["salt"], e["data"]["order"]) for e in shuffles]
    assert all(s["ok"] for s in audit["shuffles"]) and len({s["salt"] for s in audit["shuffles"]}) == len(shuffles)
    if "decks" in options:
        dealt = [s["order"] for s in audit["shuffles"] if s["type"] in ("RoundDealt", "DeckShuffled")]
        assert dealt[: len(options["decks"])] == [list(deck) for deck in options["decks"]]
    assert verify_game.verify(getter(http), game_id) == []


def test_the_summary_and_game_created_record_the_rules_version(http):
    game_id = http.create("scat", 2)
    assert http.client.get(f"/v1/games/{game_id}").json["rules_version"] == "scat/2"
    created = http.events(game_id).json["events"][0]
    assert created["type"] == "GameCreated" and created["data"]["rules_version"] == "scat/2"


@pytest.mark.parametrize("played", ["offline", "on a server"])
def test_the_example_script_says_an_imported_games_commitments_were_not_shown_by_this_server(
        http, games, played, capsys):
    """A game played in cardhall_env and imported (cardhall record import) is NOT VERIFIED because it was played
    offline, with no server to commit to its shuffles; it used to be put down to a game created before seeds from
    everyone. One imported from a server's record verifies against its own seed, with a note that its commitments
    were shown elsewhere."""
    import random

    import cardhall_env
    from service.records import import_record

    if played == "offline":
        env = cardhall_env.make("scat", 3)
        env.reset(seed=4)
        rng = random.Random(4)
        while not env.match.over:
            env.step(rng.choice(env.match.legal_actions()))
        record = env.record("practice-1")
    else:
        record = http.client.get(f"/v1/games/{finished(http, 'scat', 3, {})}/record").json
    game_id = import_record(games, record)["id"]
    problems = verify_game.verify(getter(http), game_id)
    printed = capsys.readouterr().out
    assert f"note: imported from the record of game {record['id']}, played elsewhere: its commitments were shown " \
           "there, not by this server" in printed
    if played == "offline":
        assert problems == [f"game {record['id']}, imported from its record, has no server seed (played offline, as "
                            "cardhall_env plays, or created before seeds from everyone): no server committed to its "
                            "shuffles before they were dealt, so they cannot be verified as fair; what is checked is only "
                            "that the record holds together (each commitment matches its salt and order, each deal "
                            "dealt its order)"]
        assert "committed to no server seed" not in printed and "no server seed to derive" not in printed
    else:
        assert problems == []
    assert printed.count(" ok\n") == sum(1 for event in record["events"] if event["type"] in SHUFFLES)


def salt_changed(data: dict[str, Any]) -> str:
    return "0" * 32 if data["salt"] != "0" * 32 else "1" * 32


def order_changed(data: dict[str, Any]) -> list[str]:
    """The bottom two cards of the dealer draw's deck swapped: nobody drew them, so play went as it went."""
    order = data["order"]
    return [*order[:-2], order[-1], order[-2]]


@pytest.mark.parametrize("field,changed", [("salt", salt_changed), ("order", order_changed)])
def test_a_tampered_salt_or_order_fails_the_audit_and_the_example_script(database, field, changed):
    path, http = database
    game_id = finished(http, "craits", 2, {"short": True})
    shuffle = first_shuffle(http, game_id)
    tamper(path, game_id, shuffle["version"], field, changed(shuffle["data"]))
    audit = http.client.get(f"/v1/games/{game_id}/audit").json
    assert audit["verified"] is False
    assert [s["version"] for s in audit["shuffles"] if not s["ok"]] == [shuffle["version"]]
    assert verify_game.verify(getter(http), game_id) == [
        f"event {shuffle['version']} ({shuffle['type']}): the salt and order do not give the commitment"]


@pytest.mark.parametrize("game,players", [("craits", 2), ("scat", 3)])
def test_the_example_script_finds_a_deal_that_did_not_deal_the_committed_order(http, game, players):
    game_id = finished(http, game, players, {"short": True} if game == "craits" else {})
    deal = next(e for e in http.events(game_id, limit=1000).json["events"] if e["type"] in ("RoundDealt", "DeckShuffled"))
    honest = getter(http)

    def lying(path: str) -> Any:  # a server whose table after the deal is not what the order deals
        answer = honest(path)
        if path.endswith(f"/state?at={deal['version']}"):
            hands = answer["state"]["hands"]
            hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
        return answer

    problems = verify_game.verify(lying, game_id)
    assert problems and all(f"event {deal['version']} ({deal['type']}): seat" in p for p in problems)
    assert verify_game.verify(honest, game_id) == []


def example(base_url: str, game_id: str) -> subprocess.CompletedProcess[str]:
    """``examples/verify_game.py BASE_URL GAME_ID``, run as a stranger would run it: a bare Python, no
    site-packages (``-S``), so the script can only have the standard library."""
    return subprocess.run([sys.executable, "-I", "-S", str(EXAMPLE), base_url, game_id], capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin"})


def test_the_example_script_exits_non_zero_on_a_tampered_game_and_zero_on_an_honest_one(tmp_path):
    server = start_server(tmp_path)
    try:
        remote = httpx.Client(base_url=server.base_url, timeout=30)
        games = [remote.post("/v1/games", json={"game": "scat", "players": 2}).json()["id"] for _ in range(3)]
        for game_id in games[:2]:
            for _ in range(2):
                remote.post(f"/v1/games/{game_id}/seats", json={"bot": "random"})
        assert [example(server.base_url, game_id).returncode for game_id in games] == [0, 0, 2]
        shuffle = next(e for e in remote.get(f"/v1/games/{games[1]}/events").json()["events"] if e["type"] in SHUFFLES)
        tamper(str(tmp_path / "cardhall.db"), games[1], shuffle["version"], "salt", salt_changed(shuffle["data"]))
        honest, tampered = (example(server.base_url, game_id) for game_id in games[:2])
        assert honest.returncode == 0 and "verified" in honest.stdout
        assert tampered.returncode == 1 and "NOT VERIFIED" in tampered.stdout
        assert "do not give the commitment" in tampered.stderr
    finally:
        server.stop()


def test_the_audit_of_an_unknown_game_is_a_404_problem(http):
    answer = http.client.get("/v1/games/nosuchgame/audit")
    assert answer.status_code == 404 and answer.json["code"] == "not_found"
    assert answer.mimetype == "application/problem+json"


def test_the_example_script_waits_out_a_rate_limit_and_asks_again():
    import http.server
    import threading

    answers = [(429, "1"), (503, "0"), (200, None)]
    asked: list[str] = []

    class Limited(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, wait = answers.pop(0)
            asked.append(self.path)
            self.send_response(status)
            if wait is not None:
                self.send_header("Retry-After", wait)
            self.end_headers()
            self.wfile.write(b'{"answered": true}')

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Limited)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        get = verify_game.http_getter(f"http://127.0.0.1:{server.server_address[1]}")
        assert get("/v1/games/g/audit") == {"answered": True}
        assert asked == ["/v1/games/g/audit"] * 3 and answers == []
    finally:
        server.shutdown()
