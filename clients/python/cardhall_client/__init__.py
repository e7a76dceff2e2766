"""The Cardhall client for bot authors: every endpoint, typed answers, errors as exceptions.

    from cardhall_client import CardhallClient
    with CardhallClient("http://localhost:8000") as cardhall:
        game = cardhall.create_game("craits", 2)
        me = cardhall.seated(cardhall.join(game["id"], "me")["token"])
"""

from cardhall_client.errors import (
    CardhallError,
    ChallengeClosed,
    ClockRequired,
    Forbidden,
    GameNotActive,
    IdempotencyConflict,
    IllegalMove,
    InsufficientScope,
    NameTaken,
    NotABot,
    NotFound,
    NotYourTurn,
    PayloadTooLarge,
    PreconditionFailed,
    RateLimited,
    SeatAbandoned,
    SeatUnavailable,
    ServerError,
    TooManyTournaments,
    Unauthorized,
    UrlRefused,
    ValidationError,
    VersionConflict,
)
from cardhall_client.http import CardhallClient
from cardhall_client.types import (
    Audit,
    Event,
    EventPage,
    GamePage,
    GameSummary,
    GameType,
    JoinResult,
    Move,
    MoveResult,
    View,
)

__all__ = [
    "Audit",
    "CardhallClient",
    "CardhallError",
    "ChallengeClosed",
    "ClockRequired",
    "Event",
    "EventPage",
    "Forbidden",
    "GameNotActive",
    "GamePage",
    "GameSummary",
    "GameType",
    "IdempotencyConflict",
    "IllegalMove",
    "InsufficientScope",
    "JoinResult",
    "Move",
    "MoveResult",
    "NameTaken",
    "NotABot",
    "NotFound",
    "NotYourTurn",
    "PayloadTooLarge",
    "PreconditionFailed",
    "RateLimited",
    "SeatAbandoned",
    "SeatUnavailable",
    "ServerError",
    "TooManyTournaments",
    "Unauthorized",
    "UrlRefused",
    "ValidationError",
    "VersionConflict",
    "View",
]
