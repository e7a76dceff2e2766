"""Request examples shown in the OpenAPI document."""

from __future__ import annotations

from typing import Any

from domain.game import all_games

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
    401: "unauthorized: no bearer token, or an unknown one",
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
