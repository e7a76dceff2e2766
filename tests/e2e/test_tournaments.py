"""Tournaments over HTTP: a duplicate round robin, every deal dealt the same cards in each rotation of
its seats (checked from the games' logs), standings and a crosstable read from the finished games; a
Swiss tournament made round by round from the standings, each round exactly once; a replay of a
finished tournament (``replay_of``) dealing its deals again."""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

import bots
from domain import table as tables
from domain.cards import DECK
from domain.ladder import places
from domain.tournaments import Pairing, swiss
from service.games import GameService
from service.tournaments import DECKS, Tournaments
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


def test_accounts_of_equal_points_share_their_rank_in_a_tournaments_standings(http: Http) -> None:
    """Every account of this tournament left every game it played, so all scored nothing; the standings ranked
    them 1, 2 and 3 all the same, in the order of their names, telling ana she had beaten cy."""
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy")}
    tournament = create(http, keys["ana"], game="scat", duplicate=False).json
    for entry in tournament["games"]:
        for name in entry["seats"]:
            resigned = http.client.post(f"/v1/games/{entry['game_id']}/resign", headers=bearer(keys[name]))
            assert resigned.status_code == 200, resigned.json
        assert http.played_out(entry["game_id"])["status"] == "finished"
    done = http.client.get(f"/v1/tournaments/{tournament['id']}").json
    assert done["status"] == "finished"
    assert [(row["rank"], row["account"], row["points"], row["games"]) for row in done["standings"]] == [
        (1, "ana", 0.0, 2), (1, "bo", 0.0, 2), (1, "cy", 0.0, 2)]


def test_bad_tournaments_are_told_why(http: Http) -> None:
    key = sign_up(http, "ana")
    for name in ("bo", "cy"):
        sign_up(http, name)
    assert create(http, key, format="knockout").status_code == 422
    assert create(http, key, players_per_table=4).status_code == 422
    assert create(http, key, accounts=["ana", "nobody"]).status_code == 404
    assert create(http, key, accounts=["ana", "ANA"]).status_code == 422
    assert create(http, key, game="poker").status_code == 422  # (as POST /v1/games and /v1/challenges answer it)
    for clock in (0, 86_401, "10", 2.5):
        assert create(http, key, move_seconds=clock).status_code == 422, clock
    for duplicate in (1, 0, "true"):  # (Python's 1 == True took 1 and 0)
        assert create(http, key, duplicate=duplicate).status_code == 422, duplicate
    sign_up(http, "dee", kind="person")  # (a person is entered by nobody but itself)
    refused = create(http, key, accounts=["ana", "dee"])
    assert refused.status_code == 403 and "dee is a person's account" in refused.json["detail"]
    eve = sign_up(http, "eve", kind="person")  # (a person enters its own tournament among bots)
    assert create(http, eve, accounts=["eve", "bo"]).status_code == 201
    assert http.client.post("/v1/tournaments", json={"game": "craits", "accounts": ["ana", "bo"]}).status_code == 401
    assert http.client.get("/v1/tournaments/nope").status_code == 404


def test_a_tournament_of_an_unknown_game_is_refused_as_a_game_or_a_challenge_of_one_is(http: Http) -> None:
    """A tournament naming a game Cardhall does not offer was 404 not_found, where a game or a challenge naming
    it in the same body field is 422 validation_error: a client told its request was wrong in two ways."""
    key = sign_up(http, "ana")
    sign_up(http, "bo")
    answers = [http.client.post("/v1/games", json={"game": "poker", "players": 2}),
               http.client.post("/v1/challenges", json={"game": "poker", "players": 2}, headers=bearer(key)),
               create(http, key, game="poker", accounts=["ana", "bo"])]
    assert [(answer.status_code, answer.json["code"]) for answer in answers] == [(422, "validation_error")] * 3
    assert "offered: craits" in answers[2].json["detail"]
    assert http.client.get("/v1/tournaments").json["tournaments"] == []


def test_a_tournament_runs_the_clock_its_maker_chose(http: Http) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy")}
    made = create(http, keys["ana"], move_seconds=90)
    assert made.status_code == 201 and made.json["move_seconds"] == 90
    assert http.client.get(f"/v1/tournaments/{made.json['id']}").json["move_seconds"] == 90
    for entry in made.json["games"]:
        assert http.client.get(f"/v1/games/{entry['game_id']}").json["options"]["move_seconds"] == 90
    assert create(http, keys["bo"]).json["move_seconds"] == 10  # (the default)


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

        def _prepare(self, game: str, seed: str, schedule: list[dict[str, Any]]) -> Any:
            prepared = super()._prepare(game, seed, schedule)
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


def play_greedily(games: GameService, game_id: str, keys: dict[str, str], seats: list[str]) -> None:
    """The game played to its end by the house's greedy strategy at every seat, deciding from the seat's view alone."""
    while (table := games.table(game_id)).status != tables.FINISHED:
        seat = tables.to_act(table)[0]
        games.move(game_id, keys[seats[seat]], bots.choose(table.game, "greedy", tables.view(table, seat), Random(0)))


def decks_by_deal(games: GameService, tournament: Any) -> dict[tuple[int, int], list[Any]]:
    """The stacked decks of each deal (round, table) of the tournament, from its games' options."""
    found: dict[tuple[int, int], list[Any]] = {}
    for entry in tournament["games"]:
        decks = [list(deck) for deck in games.table(entry["game_id"]).options["decks"]]
        assert found.setdefault((entry["round"], entry["table"]), decks) == decks  # (a deal's games share them)
    return found


def places_by_game(games: GameService, tournament: Any) -> dict[tuple[int, int, int], tuple[int, ...]]:
    """Each game's places by seat, by its round, table and turn."""
    return {(entry["round"], entry["table"], entry["turn"]): tuple(places(games.table(entry["game_id"])))
            for entry in tournament["games"]}


def test_a_replay_of_a_finished_tournament_deals_its_deals_again_in_the_open(http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy", "dee")}
    original = create(http, keys["ana"], game="scat").json
    assert original["replay_of"] is None and "seed" not in original
    refused = create(http, keys["ana"], game="scat", replay_of=original["id"])
    assert refused.status_code == 422 and "is running" in refused.json["detail"]
    for entry in original["games"]:
        play_greedily(games, entry["game_id"], keys, entry["seats"])
    again = create(http, keys["bo"], game="scat", replay_of=original["id"])
    assert again.status_code == 201, again.json
    replay = again.json
    assert replay["replay_of"] == original["id"] and "seed" not in replay and replay["id"] != original["id"]
    assert tournament_of(http, replay["id"])["replay_of"] == original["id"]
    assert decks_by_deal(games, replay) == decks_by_deal(games, original)
    for entry in replay["games"]:  # (the same moves from the same views: the same games)
        play_greedily(games, entry["game_id"], keys, entry["seats"])
    assert places_by_game(games, replay) == places_by_game(games, original)
    assert tournament_of(http, replay["id"])["standings"] == tournament_of(http, original["id"])["standings"]
    others = create(http, keys["cy"], game="scat", accounts=["dee", "bo", "cy"], replay_of=original["id"]).json
    assert decks_by_deal(games, others) == decks_by_deal(games, original)  # (other accounts, the same deals)
    fresh = create(http, keys["cy"], game="scat").json
    assert set(map(str, decks_by_deal(games, fresh).values())).isdisjoint(map(str, decks_by_deal(games, original).values()))


def play_swiss(http: Http, games: GameService, keys: dict[str, str], tournament_id: str) -> Any:
    """The Swiss tournament played greedily to its end, each next round made as a server process makes it."""
    worker = Tournaments(games)
    while (tournament := tournament_of(http, tournament_id))["status"] == "running":
        for entry in tournament["games"]:
            play_greedily(games, entry["game_id"], keys, entry["seats"])
        worker.advance_all()
    return tournament


def test_a_replay_of_a_swiss_tournament_pairs_and_deals_as_its_original(http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in SWISS_NAMES}
    shape = {"game": "scat", "format": "swiss", "accounts": list(SWISS_NAMES), "rounds": 3, "duplicate": False}
    original = play_swiss(http, games, keys, create(http, keys["ana"], **shape).json["id"])
    replay = create(http, keys["ana"], **shape, replay_of=original["id"]).json
    assert pairing_of(replay, 1) == pairing_of(original, 1)  # (the seed's lot)
    replay = play_swiss(http, games, keys, replay["id"])
    assert [pairing_of(replay, number) for number in (1, 2, 3)] == [pairing_of(original, number) for number in (1, 2, 3)]
    assert places_by_game(games, replay) == places_by_game(games, original)
    assert replay["standings"] == original["standings"] and replay["crosstable"] == original["crosstable"]
    assert decks_by_deal(games, replay) == decks_by_deal(games, original)


def test_bad_replays_are_told_why(http: Http, games: GameService, monkeypatch: Any) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy", "dee")}
    original = create(http, keys["ana"], game="scat").json
    for entry in original["games"]:
        play_greedily(games, entry["game_id"], keys, entry["seats"])
    unknown = create(http, keys["ana"], game="scat", replay_of="nosuchtournament")
    assert unknown.status_code == 404 and unknown.json["code"] == "not_found"
    for differing, told in [({"rounds": 2}, "rounds 1, not 2"),
                            ({"format": "swiss"}, "format 'round_robin', not 'swiss'"),
                            ({"duplicate": False}, "duplicate True, not False"),
                            ({"game": "craits"}, "game 'scat', not 'craits'"),
                            ({"accounts": ["ana", "bo"]}, "accounts 3, not 2"),
                            ({"accounts": ["ana", "bo", "cy", "dee"], "players_per_table": 3}, "players_per_table 2")]:
        refused = create(http, keys["ana"], **{"game": "scat", "replay_of": original["id"], **differing})
        assert refused.status_code == 422 and refused.json["code"] == "validation_error", differing
        assert told in refused.json["detail"], refused.json["detail"]
    assert create(http, keys["ana"], game="scat", replay_of="../x").status_code == 422
    monkeypatch.setattr("service.tournaments.tournament_decks",  # (a tournament dealt as before seeds did)
                        lambda seed, *deal_and_more: [list(reversed(DECK))] * DECKS)
    before = create(http, keys["ana"], game="scat").json
    monkeypatch.undo()
    for entry in before["games"]:
        play_greedily(games, entry["game_id"], keys, entry["seats"])
    refused = create(http, keys["ana"], game="scat", replay_of=before["id"])
    assert refused.status_code == 422 and "cannot be replayed" in refused.json["detail"]
