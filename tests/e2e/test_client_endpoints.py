"""The Python client against a real server process: every endpoint, typed answers."""

from __future__ import annotations

import uuid

import pytest

from cardhall_client import CardhallClient, Forbidden
from tests.waiting import until


@pytest.fixture
def cardhall(live_server: str):
    with CardhallClient(live_server) as client:
        yield client


def _started(cardhall: CardhallClient, game: str = "scat", players: int = 2, **options):
    """A game with every seat taken by a person: its id and a client per seat."""
    game_id = cardhall.create_game(game, players, {"seed": 11, **options})["id"]
    return game_id, [cardhall.seated(cardhall.join(game_id, f"p{seat}")["token"]) for seat in range(players)]


def _play_first_legal_moves(game_id: str, seats: list[CardhallClient], moves: int) -> None:
    for _ in range(moves):
        for me in seats:
            view = me.state(game_id)
            if view["seat"] in view["to_act"]:
                me.move(game_id, view["legal_moves"][0], expected_version=view["version"])
                break


def test_healthz_says_the_server_and_its_database_are_up(cardhall):
    assert cardhall.healthz() == {"status": "ok", "database": "ok"}


def test_game_types_lists_both_games_with_their_player_ranges(cardhall):
    types = {entry["game"]: entry for entry in cardhall.game_types()}
    assert set(types) >= {"craits", "scat"}
    assert types["craits"]["min_players"] <= 4 <= types["craits"]["max_players"]


def test_create_game_returns_the_summary_and_game_reads_it_back(cardhall):
    created = cardhall.create_game("craits", 3, {"short": True, "seed": 5})
    assert created["status"] == "waiting" and created["players"] == 3 and "seed" not in created["options"]
    assert cardhall.game(created["id"])["id"] == created["id"]


def test_join_gives_a_token_and_seat_bot_seats_a_house_bot_and_starts_the_game(cardhall):
    game_id = cardhall.create_game("scat", 2)["id"]
    joined = cardhall.join(game_id, "alice")
    bot = cardhall.seat_bot(game_id, "random")
    assert (joined["seat"], bot["seat"], bot["token"]) == (0, 1, None) and joined["token"]
    summary = cardhall.game(game_id)
    assert summary["status"] == "active"
    assert [seat["name"] for seat in summary["seats"]] == ["alice", None]


def test_list_games_filters_and_iter_games_follows_every_page(cardhall):
    made = {cardhall.create_game("scat", 4)["id"] for _ in range(3)}
    page = cardhall.list_games(status="waiting", game="scat", limit=2)
    assert len(page["games"]) == 2 and page["next_cursor"]
    every = {summary["id"] for summary in cardhall.iter_games(status="waiting", game="scat", page_size=2)}
    assert made <= every


def test_state_gives_the_seat_its_view_and_a_spectator_no_hand(cardhall):
    game_id, seats = _started(cardhall)
    mine, spectator = seats[0].state(game_id), cardhall.state(game_id)
    assert mine["seat"] == 0 and len(mine["state"]["hand"]) == 3
    assert spectator["seat"] is None and spectator["state"]["hand"] is None and spectator["legal_moves"] == []


def test_move_answers_with_the_new_version_and_the_events_it_set_off(cardhall):
    game_id, seats = _started(cardhall)
    actor = next(me for me in seats if me.state(game_id)["seat"] in me.state(game_id)["to_act"])
    before = actor.state(game_id)
    answer = actor.move(game_id, before["legal_moves"][0], expected_version=before["version"])
    assert answer["version"] == before["version"] + len(answer["events"]) and answer["events"]


def test_state_at_replays_an_earlier_version(cardhall):
    game_id, seats = _started(cardhall)
    _play_first_legal_moves(game_id, seats, 3)
    past = cardhall.state(game_id, at=2)
    assert past["version"] == 2 and past["status"] == "waiting" and past["legal_moves"] == []


def test_events_pages_the_log_and_long_polls_return_once_something_happens(cardhall):
    game_id = cardhall.create_game("scat", 2)["id"]
    assert [event["type"] for event in cardhall.events(game_id)["events"]] == ["GameCreated"]
    cardhall.join(game_id, "alice")
    waited = cardhall.events(game_id, after=1, wait=5)
    assert waited["events"][0]["type"] == "SeatTaken" and waited["last_version"] == 2
    assert cardhall.events(game_id, after=0, limit=1)["events"][0]["version"] == 1


def test_stream_events_yields_the_log_as_server_sent_events_to_the_end(cardhall):
    game_id = cardhall.create_game("scat", 2, {"seed": 3})["id"]
    me = cardhall.seated(cardhall.join(game_id, "alice")["token"])
    cardhall.seat_bot(game_id, "random")
    while (view := me.wait_for_turn(game_id, sse=True))["status"] == "active":
        me.move(game_id, view["legal_moves"][0])
    streamed = list(cardhall.stream_events(game_id, after=2))
    assert [event["version"] for event in streamed] == list(range(3, cardhall.game(game_id)["version"] + 1))


def test_wait_for_turn_by_long_poll_returns_when_the_seat_must_act_or_the_game_ends(cardhall):
    game_id = cardhall.create_game("craits", 2, {"seed": 9, "short": True})["id"]
    me = cardhall.seated(cardhall.join(game_id, "alice")["token"])
    cardhall.seat_bot(game_id, "greedy")
    view = me.wait_for_turn(game_id)
    while view["status"] == "active":
        assert view["seat"] in view["to_act"]
        me.move(game_id, view["legal_moves"][0])
        view = me.wait_for_turn(game_id)
    assert view["status"] == "finished" and set(view["result"]) >= {"winners", "scores"}


def test_audit_shows_commitments_while_a_game_runs_and_verifies_it_once_it_is_over(cardhall):
    game_id = cardhall.create_game("scat", 2, {"lives": 1})["id"]
    me = cardhall.seated(cardhall.join(game_id, "alice")["token"])
    cardhall.seat_bot(game_id, "random")
    running = cardhall.audit(game_id)
    assert running["verified"] is None and running["shuffles"][0]["salt"] is None
    while (view := me.wait_for_turn(game_id))["status"] == "active":
        me.move(game_id, view["legal_moves"][0])
    over = cardhall.audit(game_id)
    assert over["verified"] is True and cardhall.game(game_id)["rules_version"] == "scat/2"
    assert [s["commitment"] for s in over["shuffles"][: len(running["shuffles"])]] == [
        s["commitment"] for s in running["shuffles"]]


def _account(cardhall: CardhallClient, prefix: str) -> tuple[str, CardhallClient]:
    """A new bot account: its name and a client sending its key."""
    name = f"{prefix}{uuid.uuid4().hex[:8]}"
    return name, cardhall.seated(cardhall.create_account(name)["key"])


def test_a_rated_challenge_played_out_shows_in_the_challenge_the_ratings_and_the_leaderboards_terms(cardhall):
    (host_name, host), (guest_name, guest) = _account(cardhall, "host"), _account(cardhall, "guest")
    assert cardhall.ratings(host_name) == []
    offered = host.challenge("scat", 2, [guest_name], options={"lives": 1}, rated=True)
    assert cardhall.challenge_info(offered["id"])["status"] == "open"
    game_id = guest.accept(offered["id"])["game_id"]
    assert cardhall.challenge_info(offered["id"])["game_id"] == game_id
    while cardhall.game(game_id)["status"] == "active":
        for me in (host, guest):
            view = me.state(game_id)
            if view["seat"] in view["to_act"]:
                knock = [move for move in view["legal_moves"] if move["type"] == "knock"]
                me.move(game_id, (knock or view["legal_moves"])[0], expected_version=view["version"])
    until(lambda: cardhall.ratings(host_name), "the rated game rated", every=0.05)
    assert [(rating["game"], rating["games"]) for rating in cardhall.ratings(host_name)] == [("scat", 1)]
    board = cardhall.leaderboard("scat", limit=5)
    assert board["min_games"] >= 1 and "next" in board
    assert all(entry["games"] >= board["min_games"] for entry in board["entries"])


def test_a_tournament_made_with_the_client_reads_back_with_its_games(cardhall):
    (maker_name, maker), (rival_name, _) = _account(cardhall, "maker"), _account(cardhall, "rival")
    made = maker.create_tournament("scat", [maker_name, rival_name], duplicate=False, move_seconds=60)
    shown = cardhall.tournament(made["id"])
    assert shown["status"] == "running" and len(shown["games"]) == 1
    assert {row["account"] for row in shown["standings"]} == {maker_name, rival_name}
    listed = cardhall.tournaments(account=rival_name, status="running", limit=5)
    assert [entry["id"] for entry in listed["tournaments"]] == [made["id"]] and listed["next"] is None
    assert cardhall.tournaments(account=rival_name, status="finished") == {"tournaments": [], "next": None}


def test_a_bot_says_with_the_client_who_may_enter_it_in_tournaments(cardhall):
    (maker_name, maker), (bot_name, bot) = _account(cardhall, "maker"), _account(cardhall, "bot")
    assert bot.tournament_entry() == {"entered_by": "anyone"}
    assert bot.set_tournament_entry("nobody") == {"entered_by": "nobody"} == bot.tournament_entry()
    with pytest.raises(Forbidden, match="lets no other account enter it"):
        maker.create_tournament("scat", [maker_name, bot_name], duplicate=False, move_seconds=60)
    assert bot.set_tournament_entry([maker_name]) == {"entered_by": [maker_name]}
    assert maker.create_tournament("scat", [maker_name, bot_name], duplicate=False, move_seconds=60)["status"] == "running"


def test_a_finished_games_record_is_read_alone_and_in_bulk_and_replays(cardhall):
    game_id = cardhall.create_game("scat", 2, {"lives": 1})["id"]
    me = cardhall.seated(cardhall.join(game_id, "alice")["token"])
    cardhall.seat_bot(game_id, "random")
    while (view := me.wait_for_turn(game_id))["status"] == "active":
        me.move(game_id, view["legal_moves"][0])
    record = cardhall.record(game_id)
    assert (record["format"], record["redaction"], record["id"]) == ("cardhall-record/1", "full", game_id)
    bulk = cardhall.iter_records(game="scat", since=record["created_at"], page_size=1)
    assert record in list(bulk)
    replayed = cardhall.replay_record(record)
    assert replayed["valid"] is True and len(replayed["views"]) == record["version"]
