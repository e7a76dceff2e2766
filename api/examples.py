"""Request examples shown in the OpenAPI document."""

from __future__ import annotations

from typing import Any

from api.errors import PROBLEM, problem_document
from domain.game import all_games
from service.errors import UNKNOWN_KEY, UNKNOWN_TOKEN

CREATE = {
    "craits": {"summary": "A short Craits game for four", "value": {"game": "craits", "players": 4,
                                                                      "options": {"short": True}}},
    "scat": {"summary": "Scat for five with two lives", "value": {"game": "scat", "players": 5,
                                                                   "options": {"lives": 2}}},
    "stacked": {"summary": "A seeded game with a fixed first dealer", "value": {
        "game": "craits", "players": 2, "options": {"seed": 7, "first_dealer": 0}}},
}

JOIN = {
    "person": {"summary": "A person takes a seat (a token comes back once)", "value": {"name": "alice"}},
    "bot": {"summary": "Seat a house bot", "value": {"bot": "greedy"}},
}

#: The example of what every move may carry beside its game's own fields.
WITH_VERSION = {"summary": "Any move, refused unless the game is at version 12",
                "value": {"type": "draw", "expected_version": 12}}


def moves() -> dict[str, Any]:
    """Every game's examples of its moves (``Move.examples``, named ``game_example``), then WITH_VERSION."""
    examples = {
        f"{name}_{example}": {"summary": f"{game.title}: {summary}", "value": {"type": cls.type, **fields}}
        for name, game in sorted(all_games().items())
        for cls in game.move_classes
        for example, summary, fields in cls.examples
    }
    return {**examples, "with_version": WITH_VERSION}


PROBLEM_TEXT = {
    400: "validation_error: the body is not JSON, or JSON past the limits (depth, duplicate keys, numbers)",
    401: "unauthorized: no bearer token, or one this server does not know (WWW-Authenticate tells which)",
    403: "forbidden: the token acts for another game",
    404: "not_found: no such game",
    409: "seat_unavailable, game_not_active, not_your_turn, seat_abandoned or version_conflict",
    412: "precondition_failed: If-Match names another version",
    413: "payload_too_large: the body is over 64 KiB",
    414: "uri_too_long: the request line is over 4,094 bytes",
    415: "unsupported_media_type: the body is not sent as application/json",
    422: "validation_error, illegal_move (with the rule id) or idempotency_conflict",
    429: "rate_limited: too many requests from this client; see Retry-After",
    431: "headers_too_large: more than 100 headers, a header line over 8,190 bytes, or a head over 32 KiB",
    503: "unavailable: the database cannot be reached, or (a long-poll or stream) the server follows as many "
         "games as it can; see Retry-After",
}


#: The headers a problem of a status always carries.
HEADERS = {
    401: {"WWW-Authenticate": {"schema": {"type": "string"}, "description": (
        'Bearer realm="cardhall"; with error="invalid_token" when the bearer token given is not one this server '
        "knows (another shape, never issued, or revoked: which, it does not say)")}},
}


#: One example answer of each error code, by status: (code, detail, rule), as the server words them.
PROBLEMS = {
    400: [("validation_error", "the body is not valid JSON: Expecting value: line 1 column 1 (char 0)", None)],
    401: [("unauthorized", UNKNOWN_TOKEN, None)],
    403: [("forbidden", "this token acts for a seat of another game", None)],
    404: [("not_found", "no game '8f0c2a5d7e2b4d0c9c1e5b7a3f6d2e10'", None)],
    409: [("seat_unavailable", "the game is active: no seat is free", None),
          ("game_not_active", "the game is waiting", None),
          ("not_your_turn", "seat 1 may not act now; the game waits for [0]", None),
          ("seat_abandoned", "seat 0 is played by the house bot 'random' for the rest of the game (it timed out 3 "
                             "turns in a row, resigned, or the game sat idle); its token can no longer move", None),
          ("version_conflict", "expected version 12; the game is at 14", None)],
    412: [("precondition_failed", "If-Match names versions [12]; the game is at version 14", None)],
    413: [("payload_too_large", "the body is over 65536 bytes", None)],
    414: [("uri_too_long", "the request line is over 4,094 bytes", None)],
    415: [("unsupported_media_type", "send the body as JSON, with the header Content-Type: application/json", None)],
    422: [("validation_error", "unknown option 'colour'", None),
          ("illegal_move", "8S is not in your hand", "C7"),
          ("idempotency_conflict", "this Idempotency-Key was used with another request body", None)],
    429: [("rate_limited", "50 per 1 second", None)],
    431: [("headers_too_large", "more than 100 headers", None)],
    503: [("unavailable", "the database cannot be reached now", None)],
}


#: Answers only the account and ladder routes give, beside those of :data:`PROBLEMS`.
ACCOUNT_PROBLEMS = {
    401: [("unauthorized", UNKNOWN_KEY, None)],
    403: [("insufficient_scope", "this API key lacks the 'create' scope", None)],
    404: [("not_found", "no account 'alice'", None)],
    409: [("name_taken", "the name 'Alice' is taken (names are unique without regard to case)", None),
          ("challenge_closed", "the challenge expired", None),
          ("too_many_tournaments", "bo is in 4 running tournaments other accounts made, the most one may be in at "
                                   "once (4): enter it once one of them is finished", None)],
}


def problem_examples(status: int, more: dict[int, list[tuple[str, str, str | None]]] | None = None) -> dict[str, Any]:
    """The OpenAPI examples of a status's problem answers: one per error code, named by it (``more``'s
    example of a code in place of the general one)."""
    chosen = {code: (detail, rule) for code, detail, rule in PROBLEMS[status]}
    chosen.update({code: (detail, rule) for code, detail, rule in (more or {}).get(status, [])})
    return {code: {"summary": code, "value": problem_document(status, code, detail, rule=rule)}
            for code, (detail, rule) in chosen.items()}


def problems_documenter(blp: Any, texts: dict[int, str] | None = None,
                        more: dict[int, list[tuple[str, str, str | None]]] | None = None):  # type: ignore[no-untyped-def]
    """The decorator a blueprint's views use to document their problem+json answers: ``@problems(404, 409)``
    documents those statuses and the ones every operation may give, 414 and 431 (a request head past the
    limits) and 429 (rate limited), each with its text and one example per error code."""
    from api.schemas import ProblemSchema

    texts = {**PROBLEM_TEXT, **(texts or {})}

    def problems(*statuses: int):  # type: ignore[no-untyped-def]
        def decorate(view):  # type: ignore[no-untyped-def]
            for status in (*statuses, 414, 429, 431):
                view = blp.alt_response(status, schema=ProblemSchema, content_type=PROBLEM, description=texts[status],
                                        examples=problem_examples(status, more), headers=HEADERS.get(status))(view)
            return view

        return decorate

    return problems
