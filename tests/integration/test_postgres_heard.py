"""PostgreSQL: a process hears every process's appends (LISTEN), so a move on a table it has heard of
nothing newer than skips the version read; a table that is stale all the same is caught by the append."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from domain import table as tables
from persistence import open_store
from service.games import GameService
from tests.waiting import until

pytestmark = pytest.mark.postgres


@pytest.fixture
def two_processes(postgres_url: str) -> Iterator[tuple[GameService, GameService]]:
    """Two services over one database, each with its own store (what two server processes are),
    both listening already."""
    services = (GameService(open_store(postgres_url)), GameService(open_store(postgres_url)))
    for service in services:
        service.store.announcements.latest("")  # starts the LISTEN connection
        assert service.store.announcements.listener.ready.wait(10), "no LISTEN connection"
    yield services
    for service in services:
        service.store.close()


def counting_reads(service: GameService) -> list[str]:
    """The games whose version ``service`` reads from the database from now on."""
    reads: list[str] = []
    read = service.store.last_version

    def counted(game_id: str) -> int | None:
        reads.append(game_id)
        return read(game_id)

    service.store.last_version = counted  # type: ignore[method-assign]
    return reads


def heard(service: GameService, game_id: str, version: int) -> None:
    until(lambda: service.store.announcements.latest(game_id) == version, "the LISTEN connection hears of the append")


def next_move(service: GameService, game_id: str, tokens: list[str]) -> tuple[str, dict]:
    table = service.table(game_id)
    seat = tables.to_act(table)[0]
    return tokens[seat], tables.legal_moves(table, seat)[0]


def test_a_move_on_a_table_nothing_newer_was_heard_of_reads_no_version(two_processes) -> None:
    games, _ = two_processes
    game_id = games.create_game("craits", 2, {"seed": 3})["id"]
    tokens = [games.join(game_id, name=f"p{seat}")["token"] for seat in range(2)]
    version = games.table(game_id).version
    heard(games, game_id, version)
    token, move = next_move(games, game_id, tokens)
    reads = counting_reads(games)
    outcome = games.move(game_id, token, move)
    assert outcome.body["version"] > version
    assert reads == []
    assert games.store.announcements.latest(game_id) == outcome.body["version"]


def test_another_process_append_once_heard_makes_the_next_move_read_the_new_version(two_processes) -> None:
    first, second = two_processes
    game_id = first.create_game("craits", 2, {"seed": 3})["id"]
    tokens = [first.join(game_id, name=f"p{seat}")["token"] for seat in range(2)]
    first.move(game_id, *next_move(first, game_id, tokens))
    second.table(game_id)  # the second process has the game cached, at this version
    moved = first.move(game_id, *next_move(first, game_id, tokens)).body["version"]
    heard(second, game_id, moved)
    reads = counting_reads(second)
    outcome = second.move(game_id, *next_move(first, game_id, tokens))
    assert outcome.body["version"] > moved
    assert reads and set(reads) == {game_id}


def test_a_stale_table_whose_news_is_still_on_its_way_is_caught_by_the_append_and_decided_again(
    two_processes,
) -> None:
    first, second = two_processes
    game_id = first.create_game("craits", 2, {"seed": 3})["id"]
    tokens = [first.join(game_id, name=f"p{seat}")["token"] for seat in range(2)]
    stale = second.table(game_id)
    moved = first.move(game_id, *next_move(first, game_id, tokens)).body["version"]
    # The notification of that append has not reached the second process yet: it still
    # believes its cached table is the newest.
    second.store.announcements.latest = lambda gid: stale.version  # type: ignore[method-assign]
    token, move = next_move(first, game_id, tokens)
    outcome = second.move(game_id, token, move)
    assert outcome.body["version"] > moved
    replayed = GameService(open_store(first.store.engine.url.render_as_string(hide_password=False)))
    try:
        assert replayed.table(game_id) == second.table(game_id) == first.table(game_id)
    finally:
        replayed.store.close()
