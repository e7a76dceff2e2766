"""Scat property test: thousands of random complete games, every invariant checked after every event.

Seats pick uniformly among the legal moves of every seat that may act, but
knock with a fixed probability when they may (a player who never knocks would
play void hands for ever). Every event is checked: the 52 cards are all there
once; the stored form folds to the live state; no view or redacted event shows
a hidden card; lives move only at a settlement, exactly as S2, S10 and S11 say
(recounted here with :func:`reference_value`). At every decision a listed move
is played (so accepted) and a move drawn from a small universe that is not
listed is refused. Every game ends with one winner, and its whole log, through
JSON, replays from scratch to the live state.
"""

from __future__ import annotations

import json
import random

import pytest

from domain import table as tables
from domain.cards import DECK, DECK_SET
from domain.errors import DomainError
from domain.events import event_data
from service.chance import draw
from service.local import LOCAL_SECRET
from tests.unit.scat_support import reference_value

CASES = 40  # 2,000 games in all, in tests short enough for parallel workers to share evenly
GAMES_PER_CASE = 50
KNOCK_PROBABILITY = 0.8
UNIVERSE_EXTRA = (
    {"type": "knock"},
    {"type": "declare_31"},
    {"type": "throw_down"},
    {"type": "draw", "source": "stock"},
    {"type": "draw", "source": "discard"},
)


def random_options(rng: random.Random, players: int) -> dict:
    options = {
        "seed": rng.randrange(10**9),
        "lives": rng.choice([1] * 8 + [2, 3]),
        "three_of_a_kind": rng.random() < 0.5,
        "straight_flush": rng.random() < 0.5,
        "throw_down": rng.random() < 0.3,
        "min_knock": rng.choice([0, 0, 0, 10, 16, 22]),
    }
    if rng.random() < 0.7:
        options["first_dealer"] = rng.randrange(players)
    if rng.random() < 0.3:
        options["decks"] = [rng.sample(DECK, 52) for _ in range(rng.randrange(1, 4))]
    return options


class Referee:
    """Plays one game event by event and checks every invariant as it goes."""

    def __init__(self, rng: random.Random, players: int, options: dict) -> None:
        self.rng, self.players = rng, players
        self.log = [tables.create("scat", players, options)]
        self.table = tables.evolve(None, self.log[0])
        for seat in range(players):
            self.append(tables.take_seat(self.table, name=f"p{seat}"))
        self.copy = tables.replay(self.decoded(event) for event in self.log)
        self.rules = options
        self.lives = [options["lives"]] * players
        self.out = [False] * players
        self.shown: tuple = (None,) * players

    @staticmethod
    def decoded(event):
        return tables.decode("scat", event.type_name(), event.seat, event_data(event))

    def append(self, event) -> None:
        before = self.table.state
        self.log.append(event)
        self.table = tables.evolve(self.table, event)
        if len(self.log) > self.players + 1:
            self.copy = tables.evolve(self.copy, self.decoded(event))
            assert self.copy.state == self.table.state
            self.check_event(before, event)

    def settle_chance(self) -> None:
        while (request := tables.chance(self.table)) is not None:
            self.append(draw(request, self.table.options, self.table.version + 1, LOCAL_SECRET))

    # -- per-event checks -------------------------------------------------------------
    def check_event(self, before, event) -> None:
        state = self.table.state
        if state.hand_number:
            cards = [card for hand in state.hands for card in hand] + list(state.stock) + list(state.discard)
            assert len(cards) == 52 and set(cards) == DECK_SET
        name = event.type_name()
        if name == "HandSettled":
            self.check_settlement(before, event)
        elif name == "DeckShuffled":
            self.shown = (None,) * self.players
        assert list(state.lives) == self.lives and list(state.out) == self.out
        self.check_views(event)

    def check_settlement(self, before, event) -> None:
        def value(cards):
            return reference_value(cards, self.rules["three_of_a_kind"], self.rules["straight_flush"])
        in_play = [seat for seat in range(self.players) if not self.out[seat]]
        lost = [0] * self.players
        if event.reason == "thirty_one":
            assert value(before.hands[event.declarer]) == 31 and len(before.hands[event.declarer]) == 3
            for seat in in_play:
                lost[seat] = int(seat != event.declarer)
        else:
            knocker = before.knocker
            values = {seat: value(before.hands[seat]) for seat in in_play}
            lowest = min(values.values())
            losers = [seat for seat in in_play if values[seat] == lowest]
            for seat in losers:
                lost[seat] = 2 if losers == [knocker] else int(seat != knocker)
            assert list(event.hands) == [before.hands[s] if s in values else None for s in range(self.players)]
        assert list(event.lost) == lost
        for seat, count in enumerate(lost):
            for _ in range(count):
                if self.lives[seat] == 0:
                    self.out[seat] = True
                    break
                self.lives[seat] -= 1
        self.shown = event.hands

    def check_views(self, event) -> None:
        state = self.table.state
        for seat in (self.rng.choice([*range(self.players), None]),):
            seen = self.table.game.view(state, seat, False)
            public = set(state.discard) | set(seen["hand"] or ()) | {state.taken}  # the taken card was face up
            for other in range(self.players):
                if other != seat and not (state.phase == "deal" and self.shown[other] is not None):
                    assert seen["hands"][other] is None and seen["hand_values"][other] is None
                else:
                    public |= set(state.hands[other])
            shown_cards = [card for hand in seen["hands"] if hand for card in hand]
            assert {*shown_cards, *(seen["hand"] or ()), *seen["discard"], seen["taken_from_discard"]} <= public
            data = self.table.game.redact(event, seat, False)
            if event.type_name() in ("DeckShuffled", "DealerDrawShuffled"):
                assert data == {"order": None, "salt": None, "commitment": event.commitment}
            if event.type_name() == "CardDrawn" and event.source == "stock" and seat != event.seat:
                assert data["card"] is None

    # -- per-decision checks ------------------------------------------------------------
    def legal_choices(self) -> list[tuple[int, dict]]:
        """Every seat's listed moves; the one played next is the sample of listed moves shown accepted."""
        game, state = self.table.game, self.table.state
        choices = [(seat, move.as_dict()) for seat in range(self.players) for move in game.legal_moves(state, seat)]
        assert set(tables.to_act(self.table)) <= {seat for seat, _ in choices}
        return choices

    def check_unlisted_refused(self) -> None:
        seat = self.rng.randrange(self.players)
        listed = tables.legal_moves(self.table, seat)
        universe = [*UNIVERSE_EXTRA, *({"type": "discard", "card": c} for c in (*self.table.state.hands[seat], "2C"))]
        for move in self.rng.sample(universe, 1):
            if move not in listed:
                try:
                    tables.decide(self.table, seat, move)
                except DomainError:
                    continue
                raise AssertionError(f"{move} is accepted from seat {seat} but not listed")

    def choose(self, choices):
        knocks = [choice for choice in choices if choice[1]["type"] == "knock"]
        if knocks and self.rng.random() < KNOCK_PROBABILITY:
            return knocks[0]
        return self.rng.choice(choices)

    def play(self) -> None:
        self.settle_chance()
        while self.table.status == tables.ACTIVE:
            seat, move = self.choose(self.legal_choices())
            self.check_unlisted_refused()
            for event in tables.decide(self.table, seat, move):
                self.append(event)
            self.settle_chance()
        result = self.table.game.result(self.table.state)
        standing = [seat for seat in range(self.players) if not self.out[seat]]
        assert result == {"winners": standing, "lives": self.lives} and len(standing) == 1
        stored = json.loads(json.dumps([(e.type_name(), e.seat, event_data(e)) for e in self.log]))
        assert tables.replay(tables.decode("scat", *entry) for entry in stored).state == self.table.state


@pytest.mark.slow
@pytest.mark.parametrize("case", range(CASES))
def test_random_games_keep_every_invariant_to_the_end(case):
    rng = random.Random(f"scat:{case}")
    for _ in range(GAMES_PER_CASE):
        players = rng.randint(2, 9)
        Referee(rng, players, random_options(rng, players)).play()
