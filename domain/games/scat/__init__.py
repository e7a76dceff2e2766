"""Scat (31, Blitz), rules S1–S13 of ``docs/rules/scat.md``.

Two to nine players (S1) start with three lives each (S2, option ``lives``); a
player who has lost them all is *on the county*, still playing, and the next
life lost puts them out. The first dealer is drawn for, lowest card deals
(S3, as Craits' C4), and the deal passes left after every hand, skipping
players who are out. Each hand the dealer deals three cards to everyone still
in, turns one card up to start the discard pile, and the rest is the stock
(S4). From the dealer's left, a turn is a knock, or a draw (stock or discard
pile) and a discard — never of the card just taken from the discard pile (S5).
After a knock everyone else has one more turn, then all hands are shown (S6).
If the stock runs out with nobody knocked the hand is void (S7). A hand is
worth its best single-suit total, ace 11, court cards 10 (S8); options score
three of a kind and straight flushes, set a minimum knock, or allow a
throw-down (S9). At a showdown the lowest hand loses a life, the knocker is
saved on a tie and loses two alone lowest (S10). Three cards worth 31 may be
declared at any moment, out of turn too: everyone else loses a life (S11). The
last player left wins (S12). Hands are secret until shown (S13).

The package: ``hands`` (values and lives arithmetic), ``records`` (moves and
events), ``state`` (the fold), ``view`` (what a seat sees), ``game`` (the
rules behind :class:`domain.game.Game`). Decisions where the source is silent
stand beside their rules in ``docs/rules/scat.md``.
"""

from domain.games.scat.game import Scat
from domain.games.scat.hands import hand_value

GAME = Scat()

__all__ = ["GAME", "Scat", "hand_value"]
