"""Tournaments over HTTP: a duplicate round robin, every deal dealt the same cards in each rotation of
its seats (checked from the games' logs), standings and a crosstable read from the finished games."""

from __future__ import annotations

from typing import Any

from domain import table as tables
from service.games import GameService
from tests.e2e.conftest import Http
from tests.e2e.test_accounts import account_events, bearer, sign_up

DEALS = {"RoundDealt", "DeckShuffled"}


def create(http: Http, key: str, **body: Any) -> Any:
    return http.client.post("/v1/tournaments", json={"game": "craits", "accounts": ["ana", "bo", "cy"], **body},
                            headers=bearer(key))


def dealt(games: GameService, game_id: str) -> list[list[str]]:
    """The card order of every deal in the game's log."""
    return [list(event.data["order"]) for event in games.store.read(game_id) if event.type in DEALS]


def play_out(games: GameService, game_id: str, keys: dict[str, str], seats: list[str]) -> None:
    while (table := games.table(game_id)).status != tables.FINISHED:
        seat = tables.to_act(table)[0]
        games.move(game_id, keys[seats[seat]], tables.legal_moves(table, seat)[0])


def test_a_duplicate_round_robin_deals_each_deal_alike_in_every_rotation_and_stands_by_points(
        http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy")}
    made = create(http, keys["ana"])
    assert made.status_code == 201, made.json
    tournament = made.json
    assert tournament["status"] == "running" and len(tournament["games"]) == 6  # 3 tables x 2 rotations
    by_table: dict[int, list[dict[str, Any]]] = {}
    for entry in tournament["games"]:
        by_table.setdefault(entry["table"], []).append(entry)
    for entries in by_table.values():
        first, second = sorted(entries, key=lambda entry: entry["turn"])
        assert second["seats"] == first["seats"][::-1]  # (seat s holds the table's account (s + turn) % 2)
        for entry in entries:
            summary = http.client.get(f"/v1/games/{entry['game_id']}").json
            assert [seat["account"] for seat in summary["seats"]] == entry["seats"]
            assert summary["options"]["move_seconds"] == 10
    for key in keys.values():
        heard = account_events(http, key)
        assert heard[0]["type"] == "tournamentStart" and heard[0]["data"]["tournament_id"] == tournament["id"]
        assert len(heard[0]["data"]["games"]) == 4 and [event["type"] for event in heard[1:]] == ["gameStart"] * 4
    for entry in tournament["games"]:
        play_out(games, entry["game_id"], keys, entry["seats"])
    for entries in by_table.values():
        first, second = (dealt(games, entry["game_id"]) for entry in entries)
        assert first[0] == second[0] and len(first) >= 1  # (the first deal at least: the same cards seat for seat)
        shared = min(len(first), len(second))
        assert first[:shared] == second[:shared]
    firsts = [dealt(games, entries[0]["game_id"])[0] for entries in by_table.values()]
    assert len({tuple(order) for order in firsts}) == 3  # (each table its own deal)
    done = http.client.get(f"/v1/tournaments/{tournament['id']}").json
    assert done["status"] == "finished"
    assert [row["games"] for row in done["standings"]] == [4, 4, 4]
    assert round(sum(row["points"] for row in done["standings"]), 9) == 6
    assert [row["points"] for row in done["standings"]] == sorted((row["points"] for row in done["standings"]),
                                                                 reverse=True)
    for row in done["standings"]:
        assert row["interval"][0] <= row["mean"] <= row["interval"][1]
    assert set(done["crosstable"]) == {"ana", "bo", "cy"}
    assert round(sum(done["crosstable"]["ana"].values()), 9) == next(
        row["points"] for row in done["standings"] if row["account"] == "ana")


def test_bad_tournaments_are_told_why(http: Http) -> None:
    key = sign_up(http, "ana")
    for name in ("bo", "cy"):
        sign_up(http, name)
    assert create(http, key, format="swiss").status_code == 422
    assert create(http, key, players_per_table=4).status_code == 422
    assert create(http, key, accounts=["ana", "nobody"]).status_code == 404
    assert create(http, key, accounts=["ana", "ANA"]).status_code == 422
    assert create(http, key, game="poker").status_code == 404
    assert http.client.post("/v1/tournaments", json={"game": "craits", "accounts": ["ana", "bo"]}).status_code == 401
    assert http.client.get("/v1/tournaments/nope").status_code == 404
