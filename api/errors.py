"""The one place where errors become HTTP: problem+json (RFC 9457).

Every error the domain or the service raises carries a stable ``code``; this
module maps each code to a status. Framework errors (a malformed body or query,
an unknown path or method) become problem+json with the contract's codes too.
No view has a try/except.
"""

from __future__ import annotations

import http
import logging
from typing import Any

from flask import Flask, Response, json
from werkzeug.exceptions import HTTPException

from domain.errors import DomainError
from service.errors import OUTAGES, InvalidToken

log = logging.getLogger(__name__)

PROBLEM = "application/problem+json"
#: What a 503 asks a client to wait before trying again.
RETRY_AFTER_SECONDS = 1

STATUS_OF_CODE = {
    "validation_error": 422,
    "unauthorized": 401,
    "forbidden": 403,
    "insufficient_scope": 403,
    "name_taken": 409,
    "challenge_closed": 409,
    "too_many_tournaments": 409,
    "url_refused": 422,
    "not_a_bot": 403,
    "clock_required": 422,
    "not_found": 404,
    "seat_unavailable": 409,
    "game_not_active": 409,
    "version_conflict": 409,
    "not_your_turn": 409,
    "seat_abandoned": 409,
    "precondition_failed": 412,
    "illegal_move": 422,
    "idempotency_conflict": 422,
    "payload_too_large": 413,
    "rate_limited": 429,
    "unavailable": 503,
}

CODE_OF_STATUS = {
    400: "validation_error",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    408: "request_timeout",
    414: "uri_too_long",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    431: "headers_too_large",
    503: "unavailable",
}


def problem_document(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    """A problem+json document."""
    return {
        "type": f"https://cardhall.dev/problems/{code.replace('_', '-')}",
        "title": http.HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        **{key: value for key, value in extra.items() if value is not None},
    }


def problem(status: int, code: str, detail: str, **extra: Any) -> Response:
    """A problem+json response."""
    body = problem_document(status, code, detail, **extra)
    headers = {"WWW-Authenticate": 'Bearer realm="cardhall"'} if status == 401 else {}
    return Response(json.dumps(body), status=status, mimetype=PROBLEM, headers=headers)


def domain_problem(error: DomainError) -> Response:
    """The problem for an error the domain or service raised."""
    status = STATUS_OF_CODE.get(error.code, 422)
    response = problem(status, error.code, error.message, rule=error.rule)
    if isinstance(error, InvalidToken):  # (a token was given, and is none this server knows: RFC 6750, 3.1)
        response.headers["WWW-Authenticate"] = 'Bearer realm="cardhall", error="invalid_token"'
    if status == 503:
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def http_problem(error: HTTPException) -> Response:
    """The problem for a framework error (bad body, unknown route, wrong method...)."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    errors = data.get("messages") or data.get("errors")
    detail = data.get("message") or error.description or http.HTTPStatus(status).phrase
    if errors:
        detail = "the request does not match the schema: " + _flatten(errors)
    response = problem(status, CODE_OF_STATUS.get(status, "error"), detail, errors=errors)
    if status == 405 and hasattr(error, "valid_methods") and error.valid_methods:
        response.headers["Allow"] = ", ".join(error.valid_methods)
    return response


def outage_problem(error: Exception) -> Response:
    """The database is out of reach: 503, worth retrying, logged."""
    log.warning("database unavailable: %s", error)
    response = problem(503, "unavailable", "the database cannot be reached now; retry shortly")
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def unexpected_problem(error: Exception) -> Response:
    """Last resort: a bug. Logged with its trace; the client gets a 500 problem."""
    log.exception("unexpected error", exc_info=error)
    return problem(500, "internal_error", "an unexpected error occurred; it has been logged")


def problem_for(error: Exception) -> Response:
    """The problem for an error raised outside a Flask request (a follower's read once woken), as the
    handlers :func:`register` installs answer it inside one."""
    if isinstance(error, DomainError):
        return domain_problem(error)
    if isinstance(error, OUTAGES):
        return outage_problem(error)
    if isinstance(error, HTTPException):
        return http_problem(error)
    return unexpected_problem(error)


def _flatten(errors: Any, prefix: str = "") -> str:
    if isinstance(errors, dict):
        parts = [_flatten(value, f"{prefix}{key}." if key not in ("json", "query", "headers") else prefix)
                 for key, value in errors.items()]
        return "; ".join(part for part in parts if part)
    if isinstance(errors, list):
        return f"{prefix.rstrip('.')}: " + " ".join(str(item) for item in errors) if prefix else " ".join(map(str, errors))
    return f"{prefix.rstrip('.')}: {errors}"


def register(app: Flask) -> None:
    """Install the handlers on the app."""
    app.register_error_handler(DomainError, domain_problem)
    for outage in OUTAGES:
        app.register_error_handler(outage, outage_problem)
    app.register_error_handler(HTTPException, http_problem)
    app.register_error_handler(Exception, unexpected_problem)
