"""Leaving a game, decided by the domain alone (domain.table.resign, abort, idle; rules L1 and L2)."""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.clocks import SeatAbandoned
from domain.errors import AbandonedSeat, GameNotActive
from domain.leaving import GameAborted, IdleLimits, SeatResigned
from tests.unit.test_table_play import FirstMoveHouse


def seated(game: str, sitters: list[tuple[str | None, str | None]], players: int | None = None) -> tables.Table:
    """A game of ``players`` (default: one per sitter) with these (name, bot) sitters in order."""
    house = FirstMoveHouse()
    table, _ = tables.settle(None, [tables.create(game, players or len(sitters), {"first_dealer": 0})], house)
    for name, bot in sitters:
        table, _ = tables.settle(table, [tables.take_seat(table, name=name, bot=bot)], house)
    return table


def test_a_resigned_seat_keeps_its_name_is_played_by_the_random_bot_and_can_no_longer_move():
    table = seated("scat", [("ana", None), ("bo", None)])
    events = tables.resign(table, 1)
    assert events == [SeatResigned(1, bot="random")]
    after, _ = tables.settle(table, events, FirstMoveHouse())
    assert after.seats[1] == tables.Seat("bo", "random")
    assert (1, table.version + 1) in after.handed_over
    with pytest.raises(AbandonedSeat):
        tables.resign(after, 1)
    assert after.status == tables.ACTIVE  # (seat 0 still plays: the game goes on)


def test_when_every_person_resigned_the_house_bots_play_the_game_to_its_end():
    table = seated("craits", [("ana", None), (None, "random")])
    after, _ = tables.settle(table, tables.resign(table, 0), FirstMoveHouse())
    assert after.status == tables.FINISHED


def test_only_a_waiting_game_is_aborted_and_only_a_running_one_resigned_from():
    waiting = seated("craits", [("ana", None)], players=3)
    with pytest.raises(GameNotActive, match="aborted instead"):
        tables.resign(waiting, 0)
    aborted = tables.replay(tables.abort(waiting, 0), waiting)
    assert aborted.status == "aborted" and aborted.ended == "aborted"
    assert tables.view(aborted, 0)["state"] is None and tables.reveal(aborted)
    with pytest.raises(GameNotActive):
        tables.abort(seated("scat", [("ana", None), ("bo", None)]), 0)


def test_idle_games_end_only_past_their_limit():
    limits = IdleLimits(waiting=600, active=3600)
    waiting = seated("scat", [("ana", None)], players=2)
    assert tables.idle(waiting, 599, limits) == []
    assert tables.idle(waiting, 600, limits) == [GameAborted(None, reason="expired")]
    running = seated("craits", [("ana", None), (None, "greedy"), ("cy", None)])
    assert tables.idle(running, 3599, limits) == []
    assert tables.idle(running, 3600, limits) == [SeatAbandoned(0, bot="random"), SeatAbandoned(2, bot="random")]
    assert tables.idle(running, 10**9, IdleLimits()) == []


def test_a_table_with_a_resignation_and_an_abort_survives_its_snapshot_data():
    table = seated("scat", [("ana", None), ("bo", None)])
    after, _ = tables.settle(table, tables.resign(table, 0), FirstMoveHouse())
    assert tables.from_data(tables.to_data(after)) == after
    waiting = seated("craits", [("ana", None)], players=2)
    aborted = tables.replay(tables.abort(waiting, 0), waiting)
    assert tables.from_data(tables.to_data(aborted)).status == "aborted"
