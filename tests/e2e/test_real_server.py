"""A real ``cardhall serve`` process, played through over real HTTP, then stopped."""

from __future__ import annotations

import random

import httpx
import pytest

from tests.e2e.server import running_server


def play_through(base: str, game: str, players: int) -> dict:
    """Two people and house bots play a whole game over HTTP; returns the final summary."""
    with httpx.Client(base_url=base, timeout=30) as http:
        game_id = http.post("/v1/games", json={"game": game, "players": players, "options": {"seed": 5}}).json()["id"]
        tokens = [http.post(f"/v1/games/{game_id}/seats", json={"name": f"p{i}"}).json()["token"] for i in range(2)]
        for _ in range(players - 2):
            assert http.post(f"/v1/games/{game_id}/seats", json={"bot": "greedy"}).status_code == 201
        rng = random.Random(5)
        version = 0
        while True:
            page = http.get(f"/v1/games/{game_id}/events", params={"after": version, "wait": 5}).json()
            version = page["last_version"]
            views = [http.get(f"/v1/games/{game_id}/state", headers={"Authorization": f"Bearer {t}"}).json()
                     for t in tokens]
            if views[0]["status"] == "finished":
                return http.get(f"/v1/games/{game_id}").json()
            for token, view in zip(tokens, views, strict=True):
                if view["seat"] in view["to_act"]:
                    move = {**rng.choice(view["legal_moves"]), "expected_version": view["version"]}
                    answer = http.post(f"/v1/games/{game_id}/moves", json=move,
                                       headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"{version}"})
                    assert answer.status_code == 201, answer.text
                    break


@pytest.mark.parametrize("game,players", [("craits", 3), ("scat", 3)])
def test_a_server_process_serves_a_whole_game_and_stops(tmp_path, game, players):
    with running_server(tmp_path) as base:
        summary = play_through(base, game, players)
        assert summary["status"] == "finished" and summary["result"]["winners"]
        assert "seed" in summary["options"]  # public once the game is over
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{base}/healthz", timeout=2)
