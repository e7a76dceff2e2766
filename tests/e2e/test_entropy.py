"""Seeds from everyone over HTTP: a game commits to its server seed at creation, every seat may add entropy,
every shuffle is derived from both, the seed is revealed at the end, and the audit and the example verifier
check the whole chain, against what a player saved during play too (API "Fairness", issue 43)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

import bots
from cardhall_cli import main
from domain.fairness import Seeds, commitment, derived_order
from tests.e2e.test_fairness import getter, verify_game

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ENTROPY = ["a1" * 32, "b2" * 32]


def played(http: Any, game: str = "craits", players: int = 2, **options: Any) -> str:
    """A game whose seats house bots took with ``ENTROPY``, played to the end once the last sits down; its id."""
    game_id = http.create(game, players, **options)
    for seat in range(players):
        answer = http.client.post(f"/v1/games/{game_id}/seats", json={"bot": "greedy", "entropy": ENTROPY[seat]})
        assert answer.status_code == 201, answer.json
    assert http.played_out(game_id)["status"] == "finished"
    return game_id


def test_a_game_commits_to_its_server_seed_at_creation_and_reveals_it_at_the_end(http):
    game_id = http.create("craits", 2, short=True)
    created = http.client.get(f"/v1/games/{game_id}").json
    assert len(created["server_seed_hash"]) == 64 and created["server_seed"] is None
    assert http.events(game_id).json["events"][0]["data"]["server_seed"] is None
    for _ in range(2):
        http.bot(game_id)
    over = http.played_out(game_id)
    assert over["status"] == "finished" and over["server_seed_hash"] == created["server_seed_hash"]
    assert hashlib.sha256(bytes.fromhex(over["server_seed"])).hexdigest() == created["server_seed_hash"]


def test_a_seats_entropy_is_shown_to_everyone_once_the_seat_is_taken(http):
    game_id = http.create("scat", 3)
    answer = http.client.post(f"/v1/games/{game_id}/seats", json={"name": "ann", "entropy": ENTROPY[0].upper()})
    assert answer.status_code == 201
    http.client.post(f"/v1/games/{game_id}/seats", json={"bot": "greedy", "entropy": ENTROPY[1]})
    seats = http.client.get(f"/v1/games/{game_id}").json["seats"]
    assert [seat["entropy"] for seat in seats] == [ENTROPY[0], ENTROPY[1], None]
    taken = [event for event in http.events(game_id).json["events"] if event["type"] == "SeatTaken"]
    assert [event["data"]["entropy"] for event in taken] == ENTROPY


@pytest.mark.parametrize("entropy", ["a1" * 31, "g" * 64, "a1" * 33, 12, None, "a1" * 32 + "\n"])
def test_entropy_that_is_not_64_hex_characters_is_refused(http, entropy):
    game_id = http.create("scat", 2)
    answer = http.client.post(f"/v1/games/{game_id}/seats", json={"name": "ann", "entropy": entropy})
    assert answer.status_code == 422 and answer.json["code"] == "validation_error"
    assert http.client.get(f"/v1/games/{game_id}").json["version"] == 1


def test_every_shuffle_is_derived_from_the_server_seed_and_every_seats_entropy(http):
    game_id = played(http, "craits", 2, short=True)
    audit = http.client.get(f"/v1/games/{game_id}/audit").json
    seed = audit["server_seed"]
    assert audit["verified"] is True and audit["entropy"] == ENTROPY
    for shuffle in audit["shuffles"]:
        assert shuffle["derived"] is True
        assert shuffle["order"] == list(derived_order(shuffle["order"], seed, ENTROPY, shuffle["version"]))
    assert verify_game.verify(getter(http), game_id) == []


def test_the_audit_and_the_verifier_fail_a_game_whose_shuffles_ignored_one_seats_entropy(http, monkeypatch):
    honest = Seeds.order

    def ignoring_seat_1(seeds: Seeds, cards: Any, index: int) -> tuple[str, ...]:
        return derived_order(cards, seeds.server_seed, (seeds.entropy[0], None), index)

    monkeypatch.setattr(Seeds, "order", ignoring_seat_1)  # a dishonest server
    game_id = played(http, "scat", 2)
    monkeypatch.setattr(Seeds, "order", honest)
    audit = http.client.get(f"/v1/games/{game_id}/audit").json
    assert audit["verified"] is False
    assert all(shuffle["derived"] is False and shuffle["ok"] is False for shuffle in audit["shuffles"])
    problems = verify_game.verify(getter(http), game_id)
    assert problems and all("the order is not the one the server seed, the entropy and the version derive" in problem
                            for problem in problems)


def saved_during_play(http: Any, game_id: str) -> dict[str, Any]:
    """What a player saves while the game runs: the seed's hash, the entropy and the commitments shown."""
    summary = http.client.get(f"/v1/games/{game_id}").json
    events = http.events(game_id, limit=1000).json["events"]
    return {"format": "cardhall-commitments/1", "game_id": game_id, "server_seed_hash": summary["server_seed_hash"],
            "entropy": [seat["entropy"] for seat in summary["seats"]],
            "commitments": [{"version": e["version"], "commitment": e["data"]["commitment"]}
                            for e in events if e["data"] and e["data"].get("commitment")]}


def test_the_verifier_fails_a_game_whose_commitment_differs_from_what_a_player_saved(http):
    game_id = http.create("scat", 2)
    token = http.client.post(f"/v1/games/{game_id}/seats", json={"name": "ann", "entropy": ENTROPY[0]}).json["token"]
    http.client.post(f"/v1/games/{game_id}/seats", json={"bot": "greedy", "entropy": ENTROPY[1]})
    saved = saved_during_play(http, game_id)  # (the first deal's commitments, seen before ann's first move)
    while (view := http.state(game_id, token).json)["status"] != "finished":
        if view["legal_moves"]:
            http.move(game_id, token, bots.choose("scat", "greedy", view, random.Random(view["version"])))
    assert verify_game.verify(getter(http), game_id, saved) == []
    honest = getter(http)
    first = saved["commitments"][0]["version"]

    def resalted(path: str) -> Any:
        """A server that committed to another salt at the start than the one it shows at the end: its log
        verifies on its own, but not against what the player saved."""
        answer = honest(path)
        for event in answer.get("events", []) if isinstance(answer, dict) else []:
            if event["version"] == first:
                event["data"]["salt"] = "0" * 32
                event["data"]["commitment"] = commitment("0" * 32, event["data"]["order"])
        return answer

    assert verify_game.verify(resalted, game_id) == []
    assert verify_game.verify(resalted, game_id, saved) == [
        f"event {first}: the commitment differs from the one saved during play"]
    other_entropy = {**saved, "entropy": ["c3" * 32, saved["entropy"][1]]}
    assert verify_game.verify(honest, game_id, other_entropy) == ["seat 0's entropy differs from the one saved during play"]


def test_the_runner_sends_entropy_and_saves_the_commitments_it_was_shown(live_server, tmp_path, capsys):
    saved_path = tmp_path / "commitments.json"
    code = main(["bot", "run", f"{EXAMPLES / 'greedy_scat.py'}:choose", "--server", live_server, "--new", "scat",
                 "--players", "2", "--fill", "random", "--commitments", str(saved_path)])
    game_id = capsys.readouterr().out.split()[1].rstrip(":")
    saved = json.loads(saved_path.read_text())
    assert code == 0 and saved["game_id"] == game_id and saved["seat"] == 0
    assert len(saved["entropy"][0]) == 64 and saved["commitments"]
    assert verify_game.verify(verify_game.http_getter(live_server), game_id, saved) == []
    saved["commitments"][-1]["commitment"] = "0" * 64
    assert verify_game.verify(verify_game.http_getter(live_server), game_id, saved)
