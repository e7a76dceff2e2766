"""The service decides a move or a seat outside its write transaction: a race must never turn into a wrong
refusal or a seat given twice."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable

import pytest

import persistence
from domain import table as tables
from domain.errors import InvalidOptions, SeatUnavailable
from persistence.accounts import key_of
from persistence.ladder import ladder_of
from persistence.memory import MemoryEventStore
from persistence.port import EventStore
from service.accounts import MAX_KEYS
from service.challenges import MAX_OPEN, Challenges
from service.games import GameService
from service.pools import Pools
from service.webhooks import BOT, SUBSCRIPTIONS, Webhooks
from tests.waiting import until


def test_a_move_refused_on_a_table_another_writer_has_moved_on_is_decided_again_and_accepted():
    games = GameService(MemoryEventStore())
    game_id = games.create_game("craits", 2, {"seed": 3})["id"]
    tokens = [games.join(game_id, name=f"p{seat}")["token"] for seat in range(2)]
    stale = games.table(game_id)
    first = tables.to_act(stale)[0]
    games.move(game_id, tokens[first], tables.legal_moves(stale, first)[0])
    fresh = games.table(game_id)
    second = tables.to_act(fresh)[0]
    assert tables.legal_moves(stale, second) != tables.legal_moves(fresh, second)
    loads = iter([stale])
    real_table = games.table
    games.table = lambda gid: next(loads, None) or real_table(gid)  # the race: a load just before a commit
    outcome = games.move(game_id, tokens[second], tables.legal_moves(fresh, second)[0])
    assert outcome.body["version"] > fresh.version


def test_people_joining_one_game_at_once_each_get_their_own_seat_until_it_is_full(store: EventStore):
    games = GameService(store)
    game_id = games.create_game("scat", 6, {})["id"]
    start = threading.Barrier(10)

    def join(number: int) -> dict | str:
        start.wait()
        try:
            return games.join(game_id, name=f"p{number}")
        except SeatUnavailable:
            return "full"

    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        outcomes = list(pool.map(join, range(10)))
    seated = [outcome for outcome in outcomes if outcome != "full"]
    assert sorted(outcome["seat"] for outcome in seated) == list(range(6))
    assert outcomes.count("full") == 4
    for outcome in seated:  # every token acts for the seat it was given
        assert games.seat_of(game_id, outcome["token"], required=True) == outcome["seat"]
    names = {outcome["seat"]: f"p{number}" for number, outcome in enumerate(outcomes) if outcome != "full"}
    table = games.table(game_id)
    assert table.status == tables.ACTIVE
    assert [seat.name for seat in table.seats] == [names[seat] for seat in range(6)]


def test_a_process_that_has_not_heard_another_processes_move_still_accepts_the_version_that_move_made(
    sqlite_url: str,
):
    """Two services over one SQLite file, as two server processes: each trusts what it heard of a game
    to decide a move without a read, but a move expecting a version it has not heard of yet is
    checked again on a read, and one decided on an unheard-of stale table is decided again."""
    here, there = (GameService(persistence.open_store(sqlite_url)) for _ in range(2))
    try:
        game_id = here.create_game("craits", 2, {"seed": 3})["id"]
        tokens = [here.join(game_id, name=f"p{seat}")["token"] for seat in range(2)]
        table = here.table(game_id)
        # (once its poller runs: it idles, nobody follows)
        until(lambda: here.store.announcements.latest(game_id) is not None, "the store hears its own appends")
        assert here.store.announcements.latest(game_id) == table.version  # (its own appends: heard at commit)
        seat = tables.to_act(table)[0]
        moved = there.move(game_id, tokens[seat], tables.legal_moves(table, seat)[0])
        assert not moved.replayed and here.store.announcements.latest(game_id) == table.version  # (not heard here)
        fresh = there.table(game_id)
        seat = tables.to_act(fresh)[0]
        outcome = here.move(game_id, tokens[seat], tables.legal_moves(fresh, seat)[0], expected_version=fresh.version)
        assert outcome.body["version"] > fresh.version
        again = there.table(game_id)  # (``there`` has not heard of that one: it decides on a stale table)
        seat = tables.to_act(again)[0]
        here.move(game_id, tokens[seat], tables.legal_moves(again, seat)[0])
        final = here.table(game_id)
        seat = tables.to_act(final)[0]
        outcome = there.move(game_id, tokens[seat], tables.legal_moves(final, seat)[0])
        assert outcome.body["version"] > final.version
        assert [e.version for e in here.store.read(game_id)] == list(range(1, outcome.body["version"] + 1))
    finally:
        here.store.close()
        there.store.close()


def at_once(count: int, act: Callable[[], object]) -> list[str]:
    """``act()`` in ``count`` threads let go together: what each gave, or "refused" (InvalidOptions: a bound)."""
    start = threading.Barrier(count)

    def one(_number: int) -> str:
        start.wait()
        try:
            return str(act())
        except InvalidOptions:
            return "refused"

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


def test_keys_added_at_once_never_give_an_account_more_than_its_most(store: EventStore):
    """The bound on an account's live keys was counted before the write: 30 keys asked for at once made 31."""
    games = GameService(store)
    caller = games.accounts.caller(games.accounts.create_account("ana", "bot", operator=True)["key"])
    outcomes = at_once(30, lambda: games.accounts.add_key(caller, ["read"])["prefix"])
    live = [key for key in games.accounts.keys(caller)["keys"] if key["revoked_at"] is None]
    assert len(live) == MAX_KEYS
    assert outcomes.count("refused") == 30 - (MAX_KEYS - 1)


def test_challenges_made_at_once_never_leave_an_account_more_open_than_its_most(store: EventStore):
    """The bound on an account's open challenges is counted in the write that makes one."""
    games = GameService(store)
    caller = games.accounts.caller(games.accounts.create_account("ana", "bot", operator=True)["key"])
    outcomes = at_once(30, lambda: Challenges(games).create(caller, "craits", 2, {})["id"])
    assert outcomes.count("refused") == 30 - MAX_OPEN
    assert len(Challenges(games).listing()["challenges"]) == MAX_OPEN


def test_an_account_joining_a_pool_twenty_times_at_once_waits_in_it_once(store: EventStore):
    """A join replaces the account's entry: on PostgreSQL, joins at once each found none to replace, and all but the
    first to insert were a UniqueViolation (a 500)."""
    games = GameService(store)
    caller = games.accounts.caller(games.accounts.create_account("ana", "bot", operator=True)["key"])
    outcomes = at_once(20, lambda: Pools(games).join(caller, "craits", [2, 3])["game"])
    assert outcomes == ["craits"] * 20
    assert [entry.account for entry in ladder_of(store).pool("craits")] == ["ana"]


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.parametrize("purpose", [BOT, SUBSCRIPTIONS])
def test_a_secret_rotated_twenty_times_at_once_leaves_two_signing(request: pytest.FixtureRequest, backend: str,
                                                                  purpose: str):
    """Rotations at once on PostgreSQL each retired the live secret its own snapshot saw, and left as many live as
    there were: every call signed with each. (Webhooks need a SQL database.)"""
    games = GameService(persistence.open_store(request.getfixturevalue(f"{backend}_url")))
    webhooks = Webhooks(games, resolver=lambda host, port: _public())
    caller = games.accounts.caller(games.accounts.create_account("ana", "bot", operator=True)["key"])
    if purpose == BOT:
        webhooks.register(caller, "https://bot.example/hook", 1000, 8)
    else:
        webhooks.subscribe(caller, "https://bot.example/hook", ["game.started"])
    secrets = at_once(20, lambda: webhooks.rotate(caller, purpose)["secret"])
    live = webhooks.store.live_secrets(key_of("ana"), purpose, games.clock())
    games.store.close()
    assert len(live) == 2 and live[0] in secrets


async def _public() -> list[str]:
    return ["8.8.8.8"]
