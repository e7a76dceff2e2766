"""Scat constants and pure helpers: phases, piles, hand values (S8, S9) and who loses lives (S2, S10, S11, S12).

Pure functions on card codes and per-seat tuples; ``decide``, the state, the
view and the house bot call them alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from domain.cards import DECK, SUITS

#: What the game waits for (see ``state``): chance, the player on turn, nothing inside a settlement, or nothing ever.
DEALER_DRAW, DEAL, DRAW, DISCARD, SHOWDOWN, VOID, OVER = (
    "dealer_draw", "deal", "draw", "discard", "showdown", "void", "over"
)
PLAYING = (DRAW, DISCARD)
#: S1: two to nine players.
MIN_PLAYERS, MAX_PLAYERS = 2, 9
#: Where a draw takes a card from (S5).
STOCK, DISCARD_PILE = "stock", "discard"

#: S8: the ace 11, the court cards and the ten 10, number cards their pips.
CARD_POINTS = {"A": 11, "K": 10, "Q": 10, "J": 10, "T": 10, **{str(pips): pips for pips in range(2, 10)}}
#: S9: straights run 2 … K, A with the ace high only.
STRAIGHT_RANK = {rank: index for index, rank in enumerate("23456789TJQKA", start=2)}
BEST_VALUE = 31

#: S14 (rules version 2): the most events a game's log holds; the game ends when it holds this many.
MAX_EVENTS = 10_000
#: S14: a high minimum knock voids ever more hands (S7), so it bounds players x lives: up to each
#: minimum knock here, the most players x lives allowed (none above 20 is needed for 9 players of 10 lives).
SLOW_KNOCKS = ((20, 90), (24, 45), (31, 4))



def _is_straight_flush(cards: Sequence[str]) -> bool:
    if len({card[1] for card in cards}) != 1:
        return False
    low, middle, high = sorted(STRAIGHT_RANK[card[0]] for card in cards)
    return middle == low + 1 and high == low + 2


#: Each card's points (S8) in its suit's six bits of a 24-bit number, suits in ``CDHS`` order: the numbers of a
#: few cards add up to their four suit totals side by side (41 at most a suit in four cards: no field overflows).
SUIT_POINTS = {card: CARD_POINTS[card[0]] << 6 * SUITS.index(card[1]) for card in DECK}
#: The larger of the two six-bit totals in every 12-bit number: the best suit of such a sum is the larger of the
#: best of its upper half (spades, hearts) and of its lower half (diamonds, clubs).
BEST_OF_TWO = tuple(max(bits >> 6, bits & 63) for bits in range(4096))


def suit_total(cards: Sequence[str]) -> int:
    """The best total of one suit in ``cards``, three cards of it at most (S8), suit by suit: any cards
    (:func:`hand_value` adds up a hand in play at once)."""
    totals: dict[str, int] = {}
    for card in cards:
        totals[card[1]] = totals.get(card[1], 0) + CARD_POINTS[card[0]]
    if len(totals) <= len(cards) - 3:  # a suit may hold more than three of the cards: its best three count
        return max(sum(sorted((CARD_POINTS[card[0]] for card in cards if card[1] == suit), reverse=True)[:3])
                   for suit in totals)
    return max(totals.values(), default=0)


def hand_value(cards: Sequence[str], three_of_a_kind: bool = False, straight_flush: bool = False) -> int:
    """A hand's value (S8, with the S9 options); with four cards, that of its best three."""
    if len(cards) < 4 or (len(cards) == 4 and not cards[0][1] == cards[1][1] == cards[2][1] == cards[3][1]):
        # (a hand in play, no suit in it more than three times: its suit totals added up at once, the largest read
        # from a table, where max() costs ~1.5k instructions parsing its arguments; three times as fast as
        # suit_total's suit by suit, and a hand is valued at every observation of it)
        packed = 0
        for card in cards:
            packed += SUIT_POINTS[card]
        high, low = BEST_OF_TWO[packed >> 12], BEST_OF_TWO[packed & 4095]
        best = high if high > low else low
    else:
        best = suit_total(cards)
    if three_of_a_kind or straight_flush:  # (the best three of a hand of four: its suit total first, then its trios)
        for trio in combinations(cards, 3):
            if three_of_a_kind and trio[0][0] == trio[1][0] == trio[2][0]:
                best = max(best, 30)
            if straight_flush and _is_straight_flush(trio):
                best = max(best, 31 if {card[0] for card in trio} == {"Q", "K", "A"} else 30)
    return best


def showdown_losses(values: Sequence[int | None], knocker: int) -> tuple[int, ...]:
    """Lives each seat loses at a showdown (S10); ``None`` values are seats out of the game."""
    lowest = min([value for value in values if value is not None])
    lost = [int(value == lowest) for value in values]
    if lost[knocker]:  # the knocker loses two alone lowest, none tied
        lost[knocker] = 2 if lost.count(1) == 1 else 0
    return tuple(lost)


def thirty_one_losses(in_play: Sequence[bool], declarer: int) -> tuple[int, ...]:
    """Lives each seat loses when ``declarer`` declares 31 (S11): one for every other seat still in."""
    return tuple(int(playing and seat != declarer) for seat, playing in enumerate(in_play))


def lose_lives(lives: int, lost: int) -> tuple[int, bool]:
    """A player's lives after losing ``lost`` of them one by one, and whether they are out (S2, S12).

    At zero lives a player is on the county, still playing; a life lost on the
    county puts them out.
    """
    if lost > lives:
        return 0, True
    return lives - lost, False


def endless_options(players: int, lives: int, min_knock: int) -> str | None:
    """Why options would make a game that ends only at the event cap (S14), or None if they do not."""
    most = next(most for knock, most in SLOW_KNOCKS if min_knock <= knock)
    if players * lives > most:
        return (f"with a min_knock of {min_knock} many hands go void (S7), so players x lives may be at most "
                f"{most}, and is {players * lives} here (rule S14)")
    return None
