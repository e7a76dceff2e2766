"""Request examples shown in the OpenAPI document."""

from __future__ import annotations

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

MOVES = {
    "craits_play": {"summary": "Craits: play a card", "value": {"type": "play", "card": "TH"}},
    "craits_play_eight": {"summary": "Craits: an 8 names the suit", "value": {"type": "play", "card": "8S",
                                                                              "suit": "H"}},
    "craits_play_announce": {"summary": "Craits: play to one card and announce it (C12)",
                             "value": {"type": "play", "card": "3C", "announce": True}},
    "craits_draw": {"summary": "Craits: draw (only with no card to play, C8)", "value": {"type": "draw"}},
    "craits_choose_suit": {"summary": "Craits: the dealer names the suit for an 8 or 9 up-card (C6)",
                           "value": {"type": "choose_suit", "suit": "D"}},
    "craits_announce": {"summary": "Craits: announce one card left (C12)", "value": {"type": "announce"}},
    "craits_call": {"summary": "Craits: call out seat 2 (C12)", "value": {"type": "call", "target": 2}},
    "scat_draw_stock": {"summary": "Scat: draw from the stock (S5)", "value": {"type": "draw", "source": "stock"}},
    "scat_draw_discard": {"summary": "Scat: take the top discard (S5)",
                          "value": {"type": "draw", "source": "discard"}},
    "scat_discard": {"summary": "Scat: discard a card (S5)", "value": {"type": "discard", "card": "KH"}},
    "scat_knock": {"summary": "Scat: knock (S6)", "value": {"type": "knock"}},
    "scat_declare_31": {"summary": "Scat: declare 31 (S11), out of turn too", "value": {"type": "declare_31"}},
    "scat_throw_down": {"summary": "Scat: throw down (S9 option)", "value": {"type": "throw_down"}},
    "with_version": {"summary": "Any move, refused unless the game is at version 12",
                     "value": {"type": "draw", "expected_version": 12}},
}

PROBLEM_TEXT = {
    400: "validation_error: the body is not JSON, or JSON past the limits (depth, duplicate keys, numbers)",
    401: "unauthorized: no bearer token, or an unknown one",
    403: "forbidden: the token acts for another game",
    404: "not_found: no such game",
    409: "seat_unavailable, game_not_active, not_your_turn, seat_abandoned or version_conflict",
    412: "precondition_failed: If-Match names another version",
    413: "payload_too_large: the body is over 64 KiB",
    415: "unsupported_media_type: the body is not sent as application/json",
    422: "validation_error, illegal_move (with the rule id) or idempotency_conflict",
    429: "rate_limited: too many requests from this client; see Retry-After",
    503: "unavailable: the database cannot be reached, or (a long-poll or stream) the server follows as many "
         "games as it can; see Retry-After",
}
