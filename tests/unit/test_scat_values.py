"""Scat hand values (S8, S9): the rules' examples and a property against an independent count."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.cards import DECK
from domain.games.scat import hand_value
from tests.unit.scat_support import reference_value


@pytest.mark.parametrize(
    ("cards", "value"),
    [
        (("KS", "TS", "4H"), 20),
        (("KH", "8H", "5H"), 23),
        (("QS", "9D", "8D"), 17),
        (("AC", "6S", "4S"), 11),
        (("JC", "7H", "4S"), 10),
    ],
)
def test_the_rules_examples_are_worth_what_the_rules_say(cards, value):
    assert hand_value(cards) == value


def test_an_ace_and_two_tens_of_one_suit_are_worth_31():
    assert hand_value(("AD", "KD", "TD")) == 31


def test_three_of_a_kind_is_worth_30_only_with_the_option():
    assert hand_value(("7C", "7D", "7H")) == 7
    assert hand_value(("7C", "7D", "7H"), three_of_a_kind=True) == 30
    assert hand_value(("AC", "AD", "AH"), three_of_a_kind=True) == 30


def test_a_straight_flush_is_worth_30_and_ace_king_queen_31_only_with_the_option():
    assert hand_value(("2H", "3H", "4H")) == 9
    assert hand_value(("2H", "3H", "4H"), straight_flush=True) == 30
    assert hand_value(("QC", "KC", "AC"), straight_flush=True) == 31


def test_the_ace_is_high_only_in_a_straight_flush():
    assert hand_value(("AH", "2H", "3H"), straight_flush=True) == 16
    assert hand_value(("KH", "AH", "2H"), straight_flush=True) == 23


def test_four_cards_are_worth_their_best_three():
    assert hand_value(("AS", "KS", "QS", "JS")) == 31
    assert hand_value(("2C", "3D", "4H", "5S")) == 5


@given(st.lists(st.sampled_from(DECK), min_size=3, max_size=3, unique=True), st.booleans(), st.booleans())
def test_any_three_cards_are_worth_their_best_suit_total_or_the_options_score(cards, three, straight):
    assert hand_value(cards, three, straight) == reference_value(cards, three, straight)
