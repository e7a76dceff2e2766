"""Errors the service raises beyond the domain's; same shape: a stable ``code``.

The HTTP layer maps every code to a status in one place (``api.errors``).
"""

from __future__ import annotations

from domain.errors import DomainError
from persistence.port import StoreUnavailable

#: Infrastructure failures the HTTP layer answers with 503 ``unavailable``, not 500.
OUTAGES: tuple[type[Exception], ...] = (StoreUnavailable,)


class NotFound(DomainError):
    """No such game (or no such thing in it)."""

    code = "not_found"


class Unauthorized(DomainError):
    """No credentials where they are needed: no bearer token (or an Authorization header of another scheme)."""

    code = "unauthorized"


class InvalidToken(Unauthorized):
    """A bearer token given that this server does not know: of no shape it gives out, never given out, or
    revoked. Which of these is never said, so that an answer tells nothing of which keys or tokens exist;
    that a token was given at all is (RFC 6750's ``invalid_token``), so that its owner looks at the token
    rather than at how it is sent. The same code as :class:`Unauthorized`: the status is the contract's 401."""


#: What a key given that this server does not know is told, whatever the reason.
UNKNOWN_KEY = "the API key given is not one this server knows (keys look like chk_…; a revoked key stops working)"
#: What a bearer token given on a game's route that this server does not know is told, whatever the reason.
UNKNOWN_TOKEN = ("the bearer token given is not one this server knows (a seat's token looks like chs_…, an account's "
                 "API key like chk_…; a revoked key stops working)")


class Forbidden(DomainError):
    """A token used for a game or seat it does not act for."""

    code = "forbidden"


class StaleVersion(DomainError):
    """``expected_version`` is not the game's version: someone moved first."""

    code = "version_conflict"


class PreconditionFailed(DomainError):
    """``If-Match`` names a version that is not the game's version."""

    code = "precondition_failed"


class IdempotencyConflict(DomainError):
    """An ``Idempotency-Key`` reused with another request body."""

    code = "idempotency_conflict"


class BadRequest(DomainError):
    """A query or body value the service cannot use (e.g. a bad cursor)."""

    code = "validation_error"


class Unavailable(DomainError):
    """The server cannot serve this now (its schema is not current, it is full of followers): retry later."""

    code = "unavailable"


class InsufficientScope(DomainError):
    """An API key without the scope an operation needs."""

    code = "insufficient_scope"


class NameTaken(DomainError):
    """An account name in use (names are compared without regard to case)."""

    code = "name_taken"


class ChallengeClosed(DomainError):
    """A challenge that can no longer be accepted, declined or canceled (started, declined, canceled,
    expired, or its last seat taken by someone else first)."""

    code = "challenge_closed"


class UrlRefused(DomainError):
    """A webhook URL Cardhall will not call (not https, or its host resolves to a non-public address)."""

    code = "url_refused"


class NotABot(DomainError):
    """A bot's setting (a webhook, who may enter it in tournaments) asked for by an account that is not a bot's."""

    code = "not_a_bot"


class ClockRequired(DomainError):
    """A webhook bot's seat in a game without a clock (``move_seconds``): nothing would bound its turns."""

    code = "clock_required"


class TooManyTournaments(DomainError):
    """A tournament that would put an account in more running tournaments made by other accounts than one may
    be in at once (service.tournaments.MAX_RUNNING)."""

    code = "too_many_tournaments"
