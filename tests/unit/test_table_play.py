"""``domain.table.play``: a move and everything the table does by itself, with the house passed in."""

from __future__ import annotations

from typing import Any

from domain import table as tables
from domain.events import Event
from domain.fairness import Shuffled
from domain.game import ChanceRequest


class FirstMoveHouse:
    """A house with no chance in it: decks stay in order, every bot plays its first legal move."""

    def __init__(self) -> None:
        self.drawn: list[Event] = []

    def draw(self, table: tables.Table, request: ChanceRequest) -> Event:
        self.drawn.append(request.outcome(request.cards, "0" * 32))
        return self.drawn[-1]

    def bot_move(self, table: tables.Table, seat: int) -> dict[str, Any]:
        return tables.legal_moves(table, seat)[0]

    def bot_out_of_turn(self, table: tables.Table, seat: int) -> dict[str, Any] | None:
        return None


def scat_against_two_bots(house: FirstMoveHouse) -> tables.Table:
    """Scat for three: a person in seat 0, house bots in seats 1 and 2, settled until the person must act."""
    table, _ = tables.settle(None, [tables.create("scat", 3, {"first_dealer": 0})], house)
    for name, bot in (("me", None), (None, "random"), (None, "random")):
        table, _ = tables.settle(table, [tables.take_seat(table, name=name, bot=bot)], house)
    return table


def test_the_house_deals_and_its_bots_play_until_the_person_must_act():
    house = FirstMoveHouse()
    table = scat_against_two_bots(house)  # (seat 1 starts: the bots have played a round already)
    assert tables.to_act(table) == (0,) and table.version > 4 + len(house.drawn)
    assert house.drawn and all(isinstance(event, Shuffled) for event in house.drawn)


def test_a_move_is_followed_by_every_house_bots_turn_it_sets_off():
    house = FirstMoveHouse()
    table = scat_against_two_bots(house)
    drawn, drawing = tables.play(table, 0, {"type": "draw", "source": "stock"}, house)
    assert [event.seat for event in drawing] == [0] and tables.to_act(drawn) == (0,)  # (a person's turn goes on)
    after, events = tables.play(drawn, 0, tables.legal_moves(drawn, 0)[0], house)
    assert after.version == drawn.version + len(events)
    assert events[0].seat == 0 and {1, 2} <= {event.seat for event in events}
    assert tables.to_act(after) == (0,) or after.status == tables.FINISHED


def test_the_same_move_with_the_same_house_plays_out_the_same():
    table = scat_against_two_bots(FirstMoveHouse())
    move = tables.legal_moves(table, 0)[0]
    assert tables.play(table, 0, move, FirstMoveHouse()) == tables.play(table, 0, move, FirstMoveHouse())
