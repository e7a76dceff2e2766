"""Problem+json answers as exceptions, one class per stable ``code`` of the API."""

from __future__ import annotations

from typing import Any


class CardhallError(Exception):
    """An error answer of the Cardhall API (or a transport failure: ``status`` 0)."""

    code = "error"

    def __init__(self, status: int, code: str | None, detail: str, rule: str | None = None,
                 problem: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code or self.code}: {detail}" + (f" (rule {rule})" if rule else ""))
        self.status = status
        self.code = code or self.code
        self.detail = detail
        self.rule = rule
        self.problem = problem or {}


class ValidationError(CardhallError):
    code = "validation_error"


class Unauthorized(CardhallError):
    code = "unauthorized"


class Forbidden(CardhallError):
    code = "forbidden"


class NotFound(CardhallError):
    code = "not_found"


class SeatUnavailable(CardhallError):
    code = "seat_unavailable"


class GameNotActive(CardhallError):
    code = "game_not_active"


class VersionConflict(CardhallError):
    code = "version_conflict"


class NotYourTurn(CardhallError):
    code = "not_your_turn"


class SeatAbandoned(CardhallError):
    """The seat timed out 3 turns in a row: the house bot ``random`` plays it now, not this token."""

    code = "seat_abandoned"


class PreconditionFailed(CardhallError):
    code = "precondition_failed"


class IllegalMove(CardhallError):
    """A move the rules refuse; ``rule`` names the rule id it breaks (e.g. ``C7``)."""

    code = "illegal_move"


class IdempotencyConflict(CardhallError):
    code = "idempotency_conflict"


class PayloadTooLarge(CardhallError):
    """The body is over the server's limit (64 KiB)."""

    code = "payload_too_large"


class InsufficientScope(CardhallError):
    """The API key lacks the scope (play, create, read) this needs."""

    code = "insufficient_scope"


class NameTaken(CardhallError):
    code = "name_taken"


class UrlRefused(CardhallError):
    """A webhook URL the server will not call (not https, or its host resolves to a non-public address)."""

    code = "url_refused"


class NotABot(CardhallError):
    """A bot's setting (a webhook, who may enter it in tournaments) asked for by an account that is not a bot's."""

    code = "not_a_bot"


class ClockRequired(CardhallError):
    """A webhook bot's seat in a game without a clock (``move_seconds``): nothing would bound its turns."""

    code = "clock_required"


class ChallengeClosed(CardhallError):
    """The challenge started (another account took its last seat first), expired, was declined or canceled."""

    code = "challenge_closed"


class TooManyTournaments(CardhallError):
    """A tournament naming an account already in as many running tournaments made by others as it may be in."""

    code = "too_many_tournaments"


class RateLimited(CardhallError):
    """Too many requests from this client, still so after the client waited out ``Retry-After``."""

    code = "rate_limited"


class ServerError(CardhallError):
    """A 5xx answer, or no answer at all, after every retry."""

    code = "server_error"


ERRORS: dict[str, type[CardhallError]] = {
    cls.code: cls
    for cls in (ValidationError, Unauthorized, Forbidden, NotFound, SeatUnavailable, GameNotActive,
                VersionConflict, NotYourTurn, SeatAbandoned, PreconditionFailed, IllegalMove, IdempotencyConflict,
                PayloadTooLarge, RateLimited, InsufficientScope, NameTaken, ChallengeClosed, UrlRefused, NotABot,
                ClockRequired, TooManyTournaments)
}

BY_STATUS: dict[int, type[CardhallError]] = {
    400: ValidationError, 401: Unauthorized, 403: Forbidden, 404: NotFound,
    412: PreconditionFailed, 413: PayloadTooLarge, 422: ValidationError, 429: RateLimited,
}


def error_from(status: int, body: Any, text: str = "") -> CardhallError:
    """The exception for an error answer: by its ``code``, else by its status."""
    problem = body if isinstance(body, dict) else {}
    code = problem.get("code")
    cls = ERRORS.get(code) or BY_STATUS.get(status) or (ServerError if status >= 500 else CardhallError)
    detail = problem.get("detail") or problem.get("title") or text or f"HTTP {status}"
    return cls(status, code, detail, problem.get("rule"), problem)
