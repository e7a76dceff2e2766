"""Turn clocks with a fake clock: the default move of each game in every phase, abandonment, replay.

Times are seconds; every turn here began at 0 and ``move_seconds`` is 30.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import table as tables
from domain.clocks import SeatAbandoned, TurnTimedOut
from domain.errors import AbandonedSeat, InvalidOptions
from domain.events import Event, event_data
from service.local import LocalGame
from tests.unit.craits_support import play, rig_hands, stack
from tests.unit.scat_support import draw, knock, stacked_deck

SECONDS = 30


def craits(hands: list[list[str]], up: str, pile: tuple[str, ...] = ()) -> LocalGame:
    deck = stack(hands, up, pile)
    return LocalGame("craits", len(hands), {"decks": [deck], "first_dealer": 0, "move_seconds": SECONDS})


def scat(hands: list[list[str]], up: str, stock: tuple[str, ...] = ()) -> LocalGame:
    deck = stacked_deck(dict(enumerate(hands)), up, stock)
    return LocalGame("scat", len(hands), {"decks": [deck], "first_dealer": 0, "move_seconds": SECONDS})


def time_out(game: LocalGame) -> list[Event]:
    """Let the deadline pass: the timeout's events (recorded with all they set off)."""
    events = tables.time_out(game.table, now=SECONDS, turn_began=0)
    game.record(events)
    return events


def moves_of(events: list[Event]) -> list[tuple[str, dict[str, Any]]]:
    """The default move's events after the TurnTimedOut, as (type, data)."""
    return [(event.type_name(), event_data(event)) for event in events[1:]]


def test_no_turn_times_out_before_its_deadline():
    game = craits([["KH"], ["QH"]], "3H")
    assert tables.time_out(game.table, now=SECONDS - 0.001, turn_began=0) == []
    assert tables.deadline(game.table, 100) == 100 + SECONDS


def test_a_game_without_move_seconds_has_no_clock_and_never_times_out():
    game = LocalGame("craits", 2, {"seed": 1})
    assert game.table.clock is None
    assert tables.time_out(game.table, now=10**9, turn_began=0) == []


@pytest.mark.parametrize("seconds", [0, 86_401, "30", 1.5, True])
def test_move_seconds_is_a_whole_number_of_seconds_from_1_to_86400(seconds):
    with pytest.raises(InvalidOptions, match="move_seconds"):
        tables.create("scat", 2, {"move_seconds": seconds})


# -- Craits -------------------------------------------------------------------------------
def test_craits_a_silent_player_who_cannot_play_draws(rule="C8"):
    game = craits([["KH"], ["QC", "JC"]], "3H")  # seat 1 (the dealer's left) holds nothing on 3H
    rig_hands(game, seat1=["QC", "JC"])
    events = time_out(game)
    assert events[0] == TurnTimedOut(1, moves=1)
    assert moves_of(events) == [("CardsDrawn", {"count": 1})]
    assert len(game.state.hands[1]) == 3 and tables.to_act(game.table) == (0,)


def test_craits_a_silent_player_who_can_play_plays_the_first_legal_card(rule="C7"):
    game = craits([["KH"], ["QC", "5H", "3C"]], "3H")
    rig_hands(game, seat1=["QC", "5H", "3C"])
    assert moves_of(time_out(game)) == [("CardPlayed", {"card": "5H", "suit": None, "announced": False})]


def test_craits_a_silent_players_last_but_one_card_is_played_announced(rule="C12"):
    game = craits([["KH"], ["5H", "QC"]], "3H")
    rig_hands(game, seat1=["5H", "QC"])
    assert moves_of(time_out(game)) == [("CardPlayed", {"card": "5H", "suit": None, "announced": True})]
    assert 1 in game.view(None)["state"]["announced"]


def test_craits_a_silent_player_plays_an_8_naming_the_first_suit(rule="C10"):
    game = craits([["KH"], ["8S", "QC"]], "3H")
    rig_hands(game, seat1=["8S", "QC", "JC"])
    assert moves_of(time_out(game)) == [("CardPlayed", {"card": "8S", "suit": "C", "announced": False})]


def test_craits_a_silent_dealer_names_the_first_suit_after_an_8_up_card(rule="C6"):
    game = craits([["KH"], ["QC"]], "8H")
    assert tables.to_act(game.table) == (0,) and game.state.choosing
    events = time_out(game)
    assert events[0] == TurnTimedOut(0, moves=1)
    assert moves_of(events) == [("SuitChosen", {"suit": "C"})]


def test_craits_a_silent_player_answers_a_crank_with_an_ace_or_a_2(rule="C11"):
    game = craits([["KH"], ["QC", "AS", "2D"]], "2H")
    rig_hands(game, seat1=["QC", "AS", "2D"])
    assert moves_of(time_out(game)) == [("CardPlayed", {"card": "AS", "suit": None, "announced": False})]
    assert game.state.crank == 3


def test_craits_a_silent_player_who_cannot_answer_a_crank_draws_its_count(rule="C11"):
    game = craits([["KH"], ["QC", "JC"]], "2H")
    rig_hands(game, seat1=["QC", "JC"])
    assert moves_of(time_out(game)) == [("CardsDrawn", {"count": 2})]
    assert len(game.state.hands[1]) == 4 and game.state.crank == 0


def test_craits_a_called_players_turn_times_out_into_its_first_legal_play(rule="C12"):
    game = craits([["KH", "QD"], ["6H", "QC"]], "3H", pile=("JH", "KD"))
    rig_hands(game, seat0=["KH", "QD"], seat1=["6H", "QC"])
    play(game, 1, "6H")  # one card left, unannounced, and a 6: seat 1 plays again
    game.move(0, {"type": "call", "target": 1})  # caught on its own turn: draws two, loses the next
    assert game.state.hands[1] == ("QC", "JH", "KD") and tables.to_act(game.table) == (1,)
    assert moves_of(time_out(game)) == [("CardPlayed", {"card": "JH", "suit": None, "announced": False})]
    assert 1 in game.state.skip_next and tables.to_act(game.table) == (0,)


# -- Scat -----------------------------------------------------------------------------------
def test_scat_a_silent_player_draws_from_the_stock_and_discards_the_card_drawn(rule="S5"):
    game = scat([["2C", "3D", "4H"], ["KS", "QS", "9H"]], "5C", stock=("JD",))
    events = time_out(game)
    assert events[0] == TurnTimedOut(1, moves=2)
    assert moves_of(events) == [("CardDrawn", {"source": "stock", "card": "JD"}), ("CardDiscarded", {"card": "JD"})]
    assert game.state.hands[1] == ("KS", "QS", "9H") and tables.to_act(game.table) == (0,)


def test_scat_a_silent_player_holding_a_card_from_the_stock_discards_it(rule="S5"):
    game = scat([["2C", "3D", "4H"], ["KS", "QS", "9H"]], "5C", stock=("JD",))
    draw(game, 1, "stock")
    assert moves_of(time_out(game)) == [("CardDiscarded", {"card": "JD"})]


def test_scat_a_silent_player_holding_a_card_from_the_discard_pile_discards_another(rule="S5"):
    game = scat([["2C", "3D", "4H"], ["KS", "QS", "9H"]], "5C")
    draw(game, 1, "discard")
    assert moves_of(time_out(game)) == [("CardDiscarded", {"card": "KS"})]
    assert "5C" in game.state.hands[1]


def test_scat_after_a_knock_the_last_turn_draws_from_the_stock_and_discards_the_card_drawn(rule="S6"):
    game = scat([["2C", "3D", "4H"], ["KS", "QS", "JS"]], "5C", stock=("7D",))
    knock(game, 1)
    events = time_out(game)
    assert moves_of(events)[:2] == [("CardDrawn", {"source": "stock", "card": "7D"}),
                                    ("CardDiscarded", {"card": "7D"})]
    assert [type(event).__name__ for event in events][-1] == "HandSettled"  # the knock round is over


def test_scat_after_a_knock_with_the_stock_empty_the_last_turn_draws_from_the_discard_pile(rule="S7"):
    game = scat([["2C", "3D", "4H"], ["KS", "QS", "JS"]], "5C")
    knock(game, 1)
    game.table = dataclasses.replace(game.table, state=dataclasses.replace(game.state, stock=()))
    assert moves_of(time_out(game))[:2] == [("CardDrawn", {"source": "discard", "card": "5C"}),
                                            ("CardDiscarded", {"card": "2C"})]


# -- abandonment ------------------------------------------------------------------------------
def silent_seat_0_game() -> LocalGame:
    """Craits for two, seat 0 silent, seat 1 playing its first legal move whenever it is to act."""
    return LocalGame("craits", 2, {"seed": 11, "first_dealer": 1, "move_seconds": SECONDS})


def first_legal(game: LocalGame, seat: int) -> list[Event]:
    return game.move(seat, next(m for m in game.legal_moves(seat) if m["type"] not in ("announce", "call")))


def run_until_seat_0_acts(game: LocalGame) -> None:
    while tables.to_act(game.table) != (0,):
        first_legal(game, 1)


def seat_0_times_out(game: LocalGame, turns: int) -> list[list[Event]]:
    """Seat 0's next ``turns`` turns time out (seat 1 plays in between): each timeout's events."""
    timeouts = []
    for _ in range(turns):
        run_until_seat_0_acts(game)
        timeouts.append(time_out(game))
    return timeouts


def test_three_timeouts_in_a_row_hand_the_seat_to_the_random_house_bot():
    game = silent_seat_0_game()
    timeouts = seat_0_times_out(game, 3)
    assert [events[0] for events in timeouts] == [TurnTimedOut(0, moves=1)] * 3
    assert [SeatAbandoned(0, bot="random") in events for events in timeouts] == [False, False, True]
    assert game.table.seats[0] == tables.Seat("p0", "random") and game.table.abandoned == {0}


def test_the_house_bot_plays_an_abandoned_seat_whose_token_can_no_longer_move():
    game = silent_seat_0_game()
    seat_0_times_out(game, 3)
    played = [event for _ in range(3) for event in first_legal(game, 1)]
    assert 0 in {event.seat for event in played} and tables.to_act(game.table) == (1,)
    with pytest.raises(AbandonedSeat) as refused:
        game.move(0, {"type": "draw"})  # (refused before it is read)
    assert refused.value.code == "seat_abandoned"


def test_a_move_of_its_own_ends_a_seats_run_of_timeouts():
    game = silent_seat_0_game()
    seat_0_times_out(game, 2)
    run_until_seat_0_acts(game)
    first_legal(game, 0)
    assert all(SeatAbandoned(0, bot="random") not in events for events in seat_0_times_out(game, 2))
    assert game.table.clock.in_a_row[0] == 2 and not game.table.abandoned


# -- replay ---------------------------------------------------------------------------------------
@settings(max_examples=12, deadline=None)
@given(name=st.sampled_from(["craits", "scat"]), players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_random_games_with_timeouts_end_and_replay_from_their_log_to_the_live_table(name, players, seed):
    rng = random.Random(seed)
    game = LocalGame(name, players, {"seed": seed, "move_seconds": SECONDS, **({"short": True} if name == "craits" else {})})
    live = {game.table.version: game.table}
    while not game.over:
        (seat,) = tables.to_act(game.table)  # (never an abandoned seat: its house bot plays at once)
        if rng.random() < 0.3:
            time_out(game)
        else:  # a random move (a Scat table of default moves alone never knocks, and a game never ends without knocks)
            game.move(seat, rng.choice([m for m in game.legal_moves(seat) if m["type"] != "call"]))
        live[game.table.version] = game.table
    replayed = None
    for version, event in enumerate(game.events, start=1):  # each event as the log stores it, decoded
        replayed = tables.evolve(replayed, tables.decode(name, event.type_name(), event.seat, event_data(event)))
        assert version not in live or replayed == live[version]
    for index, event in enumerate(game.events):  # a timeout is followed by its seat's default move, whole
        if isinstance(event, TurnTimedOut):
            following = [later.seat for later in game.events[index + 1 :] if later.seat is not None]
            assert following[: event.moves] == [event.seat] * event.moves
