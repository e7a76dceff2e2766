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


def test_replay_folds_a_run_of_game_events_to_the_table_evolving_each_event_gives() -> None:
    """replay folds the game's own events at a table without a clock into the game's state alone, making the
    table once: at every length of log, with a clock and with a seat handed over midway, it is evolve's table."""
    import random

    from cardhall_env.match import Match
    from domain.events import event_data
    from domain.leaving import RESIGNED_TO, SeatResigned

    for game, players, options in (("craits", 3, {"short": True}), ("scat", 4, {"lives": 1})):
        played = Match(game, players, options, rng=random.Random(3))
        rng = random.Random(3)
        while not played.over:
            played.step(rng.choice(played.legal_actions()))
        events = list(played.events)
        resigned = [*events[: players + 20], SeatResigned(1, bot=RESIGNED_TO), *events[players + 20 :]]
        clocked = [tables.create(game, players, {**options, "move_seconds": 60}), *events[1:]]
        for log in (events, resigned, clocked):
            evolved = None
            for length, event in enumerate(log, start=1):
                evolved = tables.evolve(evolved, event)
                if length % 37 == 0 or length == len(log):
                    assert tables.replay(log[:length]) == evolved
                    assert tables.replay(log[length // 2 : length], tables.replay(log[: length // 2])) == evolved
            records = [(event.type_name(), event.seat, event_data(event)) for event in log]
            assert tables.replay_records(records) == evolved
