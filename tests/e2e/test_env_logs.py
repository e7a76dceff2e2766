"""Records in and out: server games stepped through the environment from their logs show every seat the view the
server shows at every version, and a game played in the environment reads back into a server (docs/env.md)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import cardhall_env
import persistence
from api import create_app
from cardhall_env.aec import CardhallEnv
from domain import records
from domain import table as tables
from domain.cards import DECK
from domain.events import Event
from persistence.port import NewEvent
from service.games import GameService, hash_token
from service.records import import_record
from service.sweeper import Sweeper
from tests.e2e.conftest import Http

#: (game, options, seats: None for a person, else the house bot sitting there, whether seat 0 resigns midway)
TABLES = [
    ("craits", {"short": True}, [None, "greedy"], False),
    ("craits", {"short": True}, [None, None, "random", None], True),
    ("craits", {"short": True, "first_dealer": 2}, [None, None, None], False),
    ("scat", {}, [None, "greedy", None], True),
    ("scat", {"lives": 2, "throw_down": True}, [None, None, None, None, "random"], False),
    ("scat", {"lives": 1}, [None, None], False),
]


@pytest.fixture
def service() -> Iterator[GameService]:
    games = GameService(persistence.open_store("memory://"), max_wait=2.0)
    yield games
    games.store.close()


@pytest.fixture
def http(service: GameService) -> Http:
    return Http(create_app(service, CARDHALL_RATE_LIMIT="off").test_client(use_cookies=False))


def seat_everyone(http: Http, game: str, options: dict[str, Any], seats: list[str | None], seed: int) -> tuple[str, dict]:
    """A game with people (tokens by seat) and house bots in their seats, started."""
    game_id = http.create(game, len(seats), seed=seed, **options)
    tokens = {}
    for seat, bot in enumerate(seats):
        if bot is None:
            tokens[seat] = http.join(game_id, f"p{seat}")
        else:
            assert http.bot(game_id, bot).status_code == 201
    return game_id, tokens


def whole_log(http: Http, game_id: str) -> list[dict[str, Any]]:
    """Every event of a finished game, page by page, as the API lists them."""
    events: list[dict[str, Any]] = []
    while True:
        page = http.events(game_id, after=len(events), limit=1000).json
        events += page["events"]
        if len(events) == page["last_version"]:
            return events


def step_through(log: list[dict[str, Any]]) -> CardhallEnv:
    """An environment made from ``log``, stepped through all its moves; it must reproduce every event."""
    env = cardhall_env.from_log(log, history=True)
    env.reset()
    while (action := env.next_logged_action()) is not None:
        env.step(action)
    played: list[Event] = env.match.events
    assert len(played) == len(log) and env.log() == [{key: event[key] for key in ("version", "type", "seat", "data")}
                                                      for event in log]
    assert env.match.over and all(env.terminations.values())
    return env


@pytest.mark.parametrize(("game", "options", "seats", "resigns"), TABLES)
def test_a_server_game_stepped_through_the_environment_shows_each_seat_the_servers_view_at_every_version(
        http: Http, game: str, options: dict[str, Any], seats: list[str | None], resigns: bool) -> None:
    rng = random.Random(f"{game}{len(seats)}")
    game_id, tokens = seat_everyone(http, game, options, seats, seed=rng.randrange(10**6))
    live: dict[tuple[int, int], dict[str, Any]] = {}  # each person's view as the game went, by (version, seat)
    while True:
        views = {seat: http.state(game_id, token).json for seat, token in tokens.items()}
        live.update({(view["version"], seat): view for seat, view in views.items()})
        offered = [(seat, move) for seat, view in views.items() for move in view["legal_moves"]]
        if not offered:
            break
        seat, move = rng.choice(offered)
        assert http.move(game_id, tokens[seat], move).status_code == 201
        if resigns and 0 in tokens and len(live) > 60:  # (its house bot's logged moves: the seat's agent's)
            assert http.client.post(f"/v1/games/{game_id}/resign", headers=http.auth(tokens.pop(0))).status_code < 300
    log = whole_log(http, game_id)
    env = step_through(log)
    for version in range(1, len(log) + 1):
        assert env.view_at(version, "seat_0", reveal_all=True, with_moves=False)["version"] == version
        for seat, token in tokens.items():
            assert env.view_at(version, f"seat_{seat}", reveal_all=True, with_moves=False) == \
                http.state(game_id, token, at=version).json
        assert env.match.view_at(version, None, reveal_all=True, with_moves=False) == \
            http.state(game_id, at=version).json
    for (version, seat), view in live.items():
        assert env.view_at(version, f"seat_{seat}") == view


def test_a_page_of_the_apis_events_is_refused_and_its_pages_together_step_through(http: Http) -> None:
    """The events page of a longer game (100 events unless ``limit`` says more) is not the game: an environment
    made from it would make up the rest; the pages fetched with ``after=`` together are."""
    game_id, tokens = seat_everyone(http, "craits", {"short": True}, [None, "greedy", "random"], seed=12)
    rng = random.Random(12)
    while moves := http.state(game_id, tokens[0]).json["legal_moves"]:
        assert http.move(game_id, tokens[0], rng.choice(moves)).status_code == 201
    page = http.events(game_id).json
    assert len(page["events"]) == 100 < page["last_version"]
    with pytest.raises(ValueError, match=f"the page holds events 1 to 100 of the game's {page['last_version']}: "
                                         "pass the game's whole log: fetch every page"):
        cardhall_env.from_log(page)
    step_through(whole_log(http, game_id))


def play_randomly_in_the_service(service: GameService, game: str, players: int, options: dict[str, Any],
                                 number: int) -> tuple[str, dict[int, str]]:
    """A finished game of people playing random legal moves (and one house bot), through the service."""
    rng = random.Random(number)
    game_id = service.create_game(game, players, {**options, "seed": number})["id"]
    tokens = {}
    bot_seat = number % players
    for seat in range(players):
        joined = service.join(game_id, bot=("greedy", "random")[number % 2] if seat == bot_seat else None,
                              name=None if seat == bot_seat else f"p{seat}")
        if joined["token"]:
            tokens[seat] = joined["token"]
    while offered := [(seat, move) for seat, token in tokens.items()
                      for move in service.view(game_id, token)["legal_moves"]]:
        seat, move = rng.choice(offered)
        service.move(game_id, tokens[seat], move)
    return game_id, tokens


@pytest.mark.slow
def test_many_server_games_of_both_games_step_through_the_environment_to_the_servers_views(
        service: GameService) -> None:
    tables = [("craits", players, {"short": True}) for players in (2, 3, 4, 5)] + \
             [("scat", players, {}) for players in (2, 3, 5, 9)]
    for number in range(GAMES):
        game, players, options = tables[number % len(tables)]
        game_id, tokens = play_randomly_in_the_service(service, game, players, options, number)
        log = []
        while not log or len(log) < service.table(game_id).version:
            log += service.events(game_id, None, after=len(log), limit=1000)["events"]
        env = step_through([{**event, "recorded_at": None} for event in log])
        for version in range(1, len(log) + 1):
            for seat, token in (*tokens.items(), (None, None)):
                assert env.match.view_at(version, seat, reveal_all=True, with_moves=False) == \
                    service.view(game_id, token, at=version)


#: Server games the test above steps through, one of each table: each version's past view is a replay on the
#: server, so a game of 1,000 events costs seconds (a longer run's count is in docs/env.md).
GAMES = 8


def fold_and_compare(service: GameService, number: int) -> int:
    """Server game ``number`` (a person in seat 0 playing random moves, house bots in the others) stepped through
    the environment from its log; every seat's view at every version compared with the server's, folded once
    from the stored log with the domain's own replay; the versions compared."""
    game, players, options = FOLDED_TABLES[number % len(FOLDED_TABLES)]
    rng = random.Random(number)
    game_id = service.create_game(game, players, {**options, "seed": number})["id"]
    token = service.join(game_id, name="p0")["token"]
    for seat in range(1, players):
        service.join(game_id, bot=("greedy", "random")[(seat + number) % 2])
    sweeper = Sweeper(service)  # (a request plays a bounded number of the house's events; the sweeps the rest)
    while True:
        while sweeper.sweep():
            pass
        if not (moves := service.view(game_id, token)["legal_moves"]):
            break
        service.move(game_id, token, rng.choice(moves))
    assert service.summary(game_id)["status"] == "finished"
    log = whole_events(service, game_id)
    env = step_through([{**event, "recorded_at": None} for event in log])
    server = None
    for version, event in enumerate(log, start=1):
        server = tables.replay_records([(event["type"], event["seat"], event["data"])], server)
        for seat in (None, *range(players)):
            assert env.match.view_at(version, seat, reveal_all=True, with_moves=False) == \
                tables.view(server, seat, reveal_all=True, with_moves=False)
    return len(log)


FOLDED_TABLES = [("craits", players, {"short": True}) for players in (2, 3, 4, 5)] + \
                [("scat", players, {}) for players in (2, 3, 4, 6, 9)]
#: Server games the test below steps through (python3 -m tests.e2e.test_env_logs N runs N of them).
FOLDED_GAMES = 60


@pytest.mark.slow
def test_server_games_with_house_bots_step_through_the_environment_to_the_servers_fold_at_every_version(
        service: GameService) -> None:
    for number in range(FOLDED_GAMES):
        fold_and_compare(service, number)


def import_log(service: GameService, log: list[dict[str, Any]]) -> tuple[str, dict[int, str]]:
    """A log written by the environment, stored as the server stores a game it played: the game, its events as
    the log has them, its finished status, and a token for each seat to read that seat's view with (a record
    imported the users' way, below, has no seat's token)."""
    created = log[0]["data"]
    game_id, tokens = service.new_id(), {seat: service.new_token() for seat in range(created["players"])}
    now = service.clock()
    with service.store.transaction() as tx:
        tx.create_game(game_id, created["game"], created["players"], now)
        tx.append(game_id, 0, [NewEvent(event["type"], event["seat"], event["data"]) for event in log], now)
        tx.set_status(game_id, "finished")
        for seat, token in tokens.items():
            tx.add_token(game_id, seat, hash_token(token))
    return game_id, tokens


@pytest.mark.parametrize(("game", "players", "options"), [("craits", 3, {"short": True}), ("scat", 4, {"lives": 2})])
def test_a_game_played_in_the_environment_replays_on_the_server_to_the_same_views(
        service: GameService, game: str, players: int, options: dict[str, Any]) -> None:
    env = CardhallEnv(game, players, options, history=True)
    env.reset(seed=21)
    rng = random.Random(21)
    while not env.match.over:
        env.step(rng.choice(env.match.legal_actions()))
    log = env.log()
    game_id, tokens = import_log(service, log)
    assert service.table(game_id).version == len(log) and service.is_over(game_id)
    assert [{key: event[key] for key in ("version", "type", "seat", "data")}
            for event in whole_events(service, game_id)] == log
    for version in range(1, len(log) + 1):
        for seat in (None, *tokens):
            assert service.view(game_id, tokens.get(seat), at=version) == \
                env.match.view_at(version, seat, reveal_all=True, with_moves=False)
    assert service.view(game_id, tokens[0]) == env.view("seat_0") and env.view("seat_0")["result"]


@pytest.mark.parametrize(("game", "players", "options"), [("craits", 4, {"short": True}), ("scat", 3, {})])
def test_a_game_played_in_the_environment_is_imported_as_a_record_and_replays_on_the_server(
        service: GameService, http: Http, game: str, players: int, options: dict[str, Any], tmp_path: Path) -> None:
    env = CardhallEnv(game, players, options, history=True)
    env.reset(seed=8)
    rng = random.Random(8)
    while not env.match.over:
        env.step(rng.choice(env.match.legal_actions()))
    record = env.record("practice-1")
    assert records.problems(record) == [] and record["result"] == env.view("seat_0")["result"]
    game_id = import_record(service, record)["id"]
    log = whole_events(service, game_id)
    assert len(log) == len(env.log()) and service.is_over(game_id)
    for version in range(1, len(log) + 1):
        assert service.view(game_id, None, at=version) == env.match.view_at(version, None, reveal_all=True,
                                                                            with_moves=False)
    replayed = http.client.post("/v1/records/replay", json=record).json  # (the check docs/env.md shows)
    assert replayed["valid"] and [view["version"] for view in replayed["views"]] == list(range(1, len(log) + 1))
    assert all(view == env.view_at(view["version"], None, reveal_all=True, with_moves=False)
               for view in replayed["views"])
    path = tmp_path / "record.json"  # read back into an environment, from the file
    path.write_text(json.dumps(record), encoding="utf-8")
    again = cardhall_env.from_log(path)
    again.reset()
    while (action := again.next_logged_action()) is not None:
        again.step(action)
    assert again.log() == env.log()


#: Server games whose logs an environment leaves midway: (game, options, players, the game's chance as created)
LEFT_LOGS = [("craits", {"short": True}, 3, "unseeded"), ("scat", {}, 3, "seeded"), ("craits", {"short": True}, 2, "stacked")]


@pytest.mark.parametrize(("game", "options", "players", "chance"), LEFT_LOGS)
def test_a_server_game_left_midway_in_the_environment_is_a_record_that_holds_and_imports(
        service: GameService, game: str, options: dict[str, Any], players: int, chance: str) -> None:
    """"What if" from a server game's log (docs/env.md, "Records in, records out"): the game the environment goes
    on with is exported as a record that validates (every shuffle the one the game's server seed, entropy or
    stacked decks give, as the server would have drawn it), imports, and replays on the server to its views."""
    rng = random.Random(f"{game}{chance}")
    if chance == "seeded":
        options = {**options, "seed": 5}
    elif chance == "stacked":
        options = {**options, "decks": [rng.sample(DECK, len(DECK)) for _ in range(8)]}
    game_id = service.create_game(game, players, options)["id"]
    token = service.join(game_id, name="p0", entropy="ab" * 32)["token"]
    for _ in range(1, players):
        service.join(game_id, bot="random")
    while moves := service.view(game_id, token)["legal_moves"]:
        service.move(game_id, token, rng.choice(moves))
    log = whole_events(service, game_id)
    env = cardhall_env.from_log(log, history=True)
    env.reset(seed=4)
    while len(env.match.events) < len(log) // 3 or len(env.infos[env.agent_selection]["legal_actions"]) < 2:
        env.step(env.next_logged_action())
    env.step(next(action for action in env.infos[env.agent_selection]["legal_actions"]
                  if action != env.next_logged_action()))
    while not env.match.over:
        env.step(rng.choice(env.infos[env.agent_selection]["legal_actions"]))
    assert env.log() != [{key: event[key] for key in ("version", "type", "seat", "data")} for event in log]
    record = env.record("what-if")
    assert records.problems(record) == []
    imported = import_record(service, record)["id"]
    assert service.summary(imported)["imported_from"] == "what-if"
    for version in range(1, len(env.log()) + 1, 7):
        assert service.view(imported, None, at=version) == env.match.view_at(version, None, reveal_all=True,
                                                                             with_moves=False)


def whole_events(service: GameService, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while not events or len(events) < service.table(game_id).version:
        events += service.events(game_id, None, after=len(events), limit=1000)["events"]
    return events


if __name__ == "__main__":  # a longer run than the suite's: python3 -m tests.e2e.test_env_logs 1000
    import sys
    import time

    started, store = time.perf_counter(), GameService(persistence.open_store("memory://"))
    versions = sum(fold_and_compare(store, number) for number in range(int(sys.argv[1])))
    print(f"{sys.argv[1]} server games, {versions} versions: every seat's view equal, "
          f"{time.perf_counter() - started:.0f} s")
