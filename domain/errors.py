"""The closed set of errors the domain raises, each with a stable code.

The HTTP layer maps each code to a status in exactly one place; the domain never
knows about HTTP. ``rule`` names the rule id an illegal move breaks (``C7``).
"""

from __future__ import annotations


class DomainError(Exception):
    """Base of every error the domain raises on purpose."""

    code = "domain_error"

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


class InvalidOptions(DomainError):
    """The options (or player count) given to create a game are not acceptable."""

    code = "validation_error"


class InvalidMove(DomainError):
    """A move object that is malformed: unknown type, bad card code, bad field."""

    code = "validation_error"


class IllegalMove(DomainError):
    """A well-formed move that the rules forbid now; ``rule`` says which rule."""

    code = "illegal_move"


class NotYourTurn(DomainError):
    """The seat may not act now at all."""

    code = "not_your_turn"


class GameNotActive(DomainError):
    """The game is waiting for players or is over."""

    code = "game_not_active"


class SeatUnavailable(DomainError):
    """No free seat is left, or the game has started."""

    code = "seat_unavailable"


class AbandonedSeat(DomainError):
    """The seat timed out too many turns in a row; a house bot plays it now, not its token."""

    code = "seat_abandoned"
