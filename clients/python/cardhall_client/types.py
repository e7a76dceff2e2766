"""The shapes of the API's answers, as TypedDicts: they stay plain dicts, so a bot reads them as JSON."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class Move(TypedDict, total=False):
    """A move object, as listed in ``legal_moves`` and POSTed to ``/moves``."""

    type: str
    card: str
    suit: str
    announce: bool
    target: int
    source: str


class Result(TypedDict, total=False):
    """How a finished game ended: ``winners`` and the final ``scores`` (Craits) or ``lives`` (Scat)."""

    winners: list[int]
    scores: list[int]
    lives: list[int]


class View(TypedDict):
    """What one seat (or a spectator, ``seat`` None) sees of a game."""

    version: int
    status: str
    seat: int | None
    to_act: list[int]
    legal_moves: list[Move]
    state: dict[str, Any] | None
    result: Result | None
    deadline: NotRequired[str | None]  # with the option move_seconds: when the turn times out (RFC 3339)


class Event(TypedDict):
    """One entry of the log; ``data`` is None where hidden from the viewer."""

    version: int
    type: str
    seat: int | None
    data: dict[str, Any] | None
    recorded_at: str


class MoveResult(View):
    """A move's answer: the caller's view after the move, and the events it set off."""

    events: list[Event]


class EventPage(TypedDict):
    events: list[Event]
    last_version: int


class SeatInfo(TypedDict):
    seat: int
    name: str | None
    bot: str | None
    taken: bool


class GameSummary(TypedDict):
    id: str
    game: str
    rules_version: str
    players: int
    options: dict[str, Any]
    seats: list[SeatInfo]
    status: str
    version: int
    created_at: str
    result: Result | None


class GamePage(TypedDict):
    games: list[GameSummary]
    next_cursor: str | None


class GameType(TypedDict):
    game: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, dict[str, Any]]
    moves: list[str]


class JoinResult(TypedDict):
    """A seat taken: ``token`` is the bearer token (shown once; None for a house bot)."""

    seat: int
    token: str | None
    version: int


class AuditedShuffle(TypedDict):
    """One shuffle: its commitment always; its salt, order and check once the game is over."""

    version: int
    type: str
    commitment: str | None
    salt: str | None
    order: list[str] | None
    ok: bool | None


class Audit(TypedDict):
    verified: bool | None
    shuffles: list[AuditedShuffle]


class Health(TypedDict):
    status: str
    database: str
