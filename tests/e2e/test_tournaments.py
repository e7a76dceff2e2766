"""Tournaments over HTTP: a duplicate round robin, every deal dealt the same cards in each rotation of
its seats (checked from the games' logs), standings and a crosstable read from the finished games; a
Swiss tournament made round by round from the standings, each round exactly once."""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain import table as tables
from domain.tournaments import Pairing, swiss
from service.games import GameService
from service.tournaments import Tournaments
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
    assert create(http, key, format="knockout").status_code == 422
    assert create(http, key, players_per_table=4).status_code == 422
    assert create(http, key, accounts=["ana", "nobody"]).status_code == 404
    assert create(http, key, accounts=["ana", "ANA"]).status_code == 422
    assert create(http, key, game="poker").status_code == 404
    assert http.client.post("/v1/tournaments", json={"game": "craits", "accounts": ["ana", "bo"]}).status_code == 401
    assert http.client.get("/v1/tournaments/nope").status_code == 404


SWISS_NAMES = ("ana", "bo", "cy", "dee", "eve")


def tournament_of(http: Http, tournament_id: str) -> Any:
    return http.client.get(f"/v1/tournaments/{tournament_id}").json


def pairing_of(tournament: Any, number: int) -> Pairing:
    """Round ``number`` as it was made: each table's accounts by seat in its deal's first game, and its byes."""
    return Pairing(tuple(tuple(entry["seats"]) for entry in tournament["games"]
                         if entry["round"] == number and entry["turn"] == 0),
                   tuple(bye["account"] for bye in tournament["byes"] if bye["round"] == number))


def test_a_swiss_tournament_pairs_each_round_by_standing_spreads_the_byes_and_finishes(
        http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in SWISS_NAMES}
    made = create(http, keys["ana"], format="swiss", accounts=list(SWISS_NAMES), rounds=3)
    assert made.status_code == 201, made.json
    tournament = made.json
    assert (tournament["format"], tournament["round"], tournament["status"]) == ("swiss", 1, "running")
    assert len(tournament["games"]) == 4 and len(tournament["byes"]) == 1  # (2 tables x 2 rotations; one sits out)
    worker = Tournaments(games)  # (what every server process runs every few tenths of a second)
    assert worker.advance_all() == []  # (round 1 is not over)
    seed = worker.ladder.tournament(tournament["id"]).spec["seed"]
    for number in (1, 2, 3):
        current = tournament_of(http, tournament["id"])
        for entry in current["games"]:
            if entry["round"] == number:
                play_out(games, entry["game_id"], keys, entry["seats"])
        over = tournament_of(http, tournament["id"])
        assert over["status"] == ("finished" if number == 3 else "running")
        made_now = worker.advance_all()
        assert worker.advance_all() == []  # (once made, a round is not made again)
        if number == 3:
            assert made_now == []
            continue
        after = tournament_of(http, tournament["id"])
        assert after["round"] == number + 1 and len(made_now) == 4
        assert [entry["game_id"] for entry in after["games"] if entry["round"] == number + 1] == made_now
        past = [pairing_of(after, earlier) for earlier in range(1, number + 1)]
        expected = swiss({row["account"]: row["points"] for row in over["standings"]}, past, 2, seed)
        assert pairing_of(after, number + 1) == expected  # (paired from the standings the games left)
    done = tournament_of(http, tournament["id"])
    rounds = [pairing_of(done, number) for number in (1, 2, 3)]
    assert sorted(bye for pairing in rounds for bye in pairing.byes) == sorted({bye for p in rounds for bye in p.byes})
    met = Counter(frozenset(table) for pairing in rounds for table in pairing.tables)
    assert set(met.values()) == {1}  # (no rematch: with five accounts over three rounds none is needed)
    assert {row["account"]: row["byes"] for row in done["standings"] if row["byes"]} == {
        bye["account"]: 1 for bye in done["byes"]}
    assert [bye["points"] for bye in done["byes"]] == [1.0, 1.0, 1.0]
    assert round(sum(row["points"] for row in done["standings"]), 9) == 12 + 3  # (12 games, 3 byes)
    assert sorted(row["games"] for row in done["standings"]) == [4, 4, 4, 6, 6]
    heard = [event["type"] for event in account_events(http, keys["bo"])]
    assert heard.count("tournamentStart") == 1 and heard.count("tournamentRound") == 2
    assert heard.count("gameStart") == sum("bo" in entry["seats"] for entry in done["games"])


def test_a_swiss_round_two_workers_both_make_is_made_once(http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in SWISS_NAMES[:4]}
    tournament = create(http, keys["ana"], format="swiss", accounts=list(SWISS_NAMES[:4]), rounds=2,
                        duplicate=False).json
    for entry in tournament["games"]:
        play_out(games, entry["game_id"], keys, entry["seats"])
    other = Tournaments(games)

    class Racing(Tournaments):
        """A worker that another overtakes while it prepares the round's games."""

        def _prepare(self, game: str, schedule: list[dict[str, Any]]) -> Any:
            prepared = super()._prepare(game, schedule)
            assert len(other.advance_all()) == 2
            return prepared

    assert Racing(games).advance_all() == []  # (it found the round made when it came to write it)
    after = tournament_of(http, tournament["id"])
    assert after["round"] == 2 and len(after["games"]) == 4 and after["status"] == "running"
    heard = [event["type"] for event in account_events(http, keys["cy"])]
    assert heard.count("tournamentRound") == 1 and heard.count("gameStart") == 2


def test_bad_swiss_tournaments_are_told_why(http: Http) -> None:
    key = sign_up(http, "ana")
    for name in ("bo", "cy"):
        sign_up(http, name)
    too_many = create(http, key, format="swiss", rounds=3)
    assert too_many.status_code == 422 and "rounds is 1 to 2 for a Swiss tournament of 3 accounts" in str(too_many.json)
    assert create(http, key, format="swiss", rounds=0).status_code == 422
    assert create(http, key, format="swiss", players_per_table=4).status_code == 422
