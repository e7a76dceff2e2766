"""Marshmallow schemas: the shapes of every request and response, and their examples."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

STATUSES = ("waiting", "active", "finished")
#: The form of a listing cursor (a keyset position, see persistence.cursor); any such string is valid.
CURSOR_PATTERN = r"^[0-9]{1,17}~[A-Za-z0-9_-]{1,64}$"


class JsonInteger(fields.Integer):
    """A JSON integer: ``2`` or ``2.0`` (JSON does not tell them apart), never ``"2"`` or ``true``."""

    def _validated(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float) or (
            isinstance(value, float) and not value.is_integer()
        ):
            raise self.make_error("invalid", input=value)
        return int(value)


class Strict(ma.Schema):
    """Unknown fields are refused, so typos are reported rather than ignored."""

    class Meta:
        unknown = ma.RAISE
        ordered = True


class Lenient(ma.Schema):
    """For headers: only the fields declared are read."""

    class Meta:
        unknown = ma.EXCLUDE


class ProblemSchema(ma.Schema):
    """An error (RFC 9457 problem details) with a stable machine-readable ``code``."""

    type = fields.String(metadata={"example": "https://cardhall.dev/problems/illegal-move"})
    title = fields.String(metadata={"example": "Unprocessable Content"})
    status = fields.Integer(metadata={"example": 422})
    detail = fields.String(metadata={"example": "8S is not in your hand"})
    code = fields.String(metadata={"description": "Stable error code", "example": "illegal_move"})
    rule = fields.String(metadata={"description": "The rule id an illegal move breaks", "example": "C7"})
    errors = fields.Raw(metadata={"description": "Field-by-field validation messages"})


class OptionSchema(ma.Schema):
    type = fields.String(metadata={"description": "int, bool, seat or decks"})
    description = fields.String()
    default = fields.Raw(allow_none=True)
    minimum = fields.Integer()
    maximum = fields.Integer()


class GameTypeSchema(ma.Schema):
    game = fields.String(metadata={"example": "craits"})
    title = fields.String()
    min_players = fields.Integer(metadata={"example": 2})
    max_players = fields.Integer(metadata={"example": 5})
    options = fields.Dict(keys=fields.String(), values=fields.Nested(OptionSchema))
    moves = fields.List(fields.String(), metadata={"description": "The move types of this game"})


class GameTypesSchema(ma.Schema):
    game_types = fields.List(fields.Nested(GameTypeSchema))


class CreateGameSchema(Strict):
    game = fields.String(required=True, metadata={"description": "craits or scat", "example": "craits"})
    players = JsonInteger(required=True, metadata={"example": 4})
    options = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={
            "description": "Both games: seed, first_dealer, decks. Craits: short. "
            "Scat: lives, three_of_a_kind, straight_flush, min_knock, throw_down.",
            "example": {"short": True, "seed": 42},
        },
    )


class SeatSchema(ma.Schema):
    seat = fields.Integer()
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True, metadata={"description": "random or greedy for a house bot"})
    taken = fields.Boolean()


class GameSummarySchema(ma.Schema):
    id = fields.String(metadata={"example": "8f0c2a5d7e2b4d0c9c1e5b7a3f6d2e10"})
    game = fields.String(metadata={"example": "craits"})
    players = fields.Integer(metadata={"example": 4})
    options = fields.Dict(metadata={"description": "seed and decks are hidden until the game is over"})
    seats = fields.List(fields.Nested(SeatSchema))
    status = fields.String(validate=validate.OneOf(STATUSES))
    version = fields.Integer(metadata={"description": "Number of events in the log"})
    created_at = fields.DateTime()
    result = fields.Dict(allow_none=True, metadata={"description": "winners and final scores or lives"})


class GameListQuerySchema(Strict):
    status = fields.String(validate=validate.OneOf(STATUSES))
    game = fields.String(validate=validate.Length(min=1, max=64))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=100))
    cursor = fields.String(
        validate=validate.Regexp(CURSOR_PATTERN),
        metadata={"description": "next_cursor of the previous page", "pattern": CURSOR_PATTERN},
    )


class GameListSchema(ma.Schema):
    games = fields.List(fields.Nested(GameSummarySchema))
    next_cursor = fields.String(allow_none=True, metadata={"description": "Pass as cursor for the next page"})


class JoinSchema(Strict):
    name = fields.String(validate=validate.Length(min=1, max=64), metadata={"example": "alice"})
    bot = fields.String(validate=validate.OneOf(("random", "greedy")), metadata={"example": "greedy"})

    @ma.validates_schema
    def one_of_name_or_bot(self, data: dict, **kwargs: object) -> None:
        if ("name" in data) == ("bot" in data):
            raise ma.ValidationError("give either 'name' (a person) or 'bot' (a house bot)")


class JoinResultSchema(ma.Schema):
    seat = fields.Integer(metadata={"example": 1})
    token = fields.String(allow_none=True, metadata={"description": "Bearer token for this seat; shown once"})
    version = fields.Integer()


class StateQuerySchema(Strict):
    at = fields.Integer(
        validate=validate.Range(min=1), metadata={"description": "The view as it stood after event N"}
    )


class ViewSchema(ma.Schema):
    version = fields.Integer()
    status = fields.String(validate=validate.OneOf(STATUSES))
    seat = fields.Integer(allow_none=True, metadata={"description": "The caller's seat; null for a spectator"})
    to_act = fields.List(fields.Integer(), metadata={"description": "Seats whose turn the game waits for"})
    deadline = fields.String(allow_none=True, metadata={
        "format": "date-time",
        "description": "With the option move_seconds only: when the turn the game waits for times out "
        "(RFC 3339, UTC); null while it waits for no seat"})
    legal_moves = fields.List(fields.Dict(), metadata={"description": "Each can be POSTed to /moves as it is"})
    state = fields.Dict(allow_none=True, metadata={"description": "The game's own fields (null while waiting)"})
    result = fields.Dict(allow_none=True)


class MoveSchema(Strict):
    type = fields.String(
        required=True,
        metadata={"description": "Craits: play, draw, choose_suit, announce, call. "
                  "Scat: draw, discard, knock, declare_31, throw_down."},
    )
    card = fields.String(metadata={"description": "A card code, e.g. 8S"})
    suit = fields.String(metadata={"description": "C, D, H or S (Craits: with an 8, a 9, or choose_suit)"})
    announce = fields.Boolean(metadata={"description": "Craits: announce one card left with this play (C12)"})
    target = JsonInteger(metadata={"description": "Craits: the seat called out (C12)"})
    source = fields.String(metadata={"description": "Scat draw: stock or discard"})
    expected_version = JsonInteger(
        validate=validate.Range(min=0), metadata={"description": "Refuse the move unless the game is at this version"}
    )


class MoveHeadersSchema(Lenient):
    if_match = fields.String(data_key="If-Match", metadata={"description": 'A version as an ETag, e.g. "12"'})
    idempotency_key = fields.String(
        data_key="Idempotency-Key",
        validate=validate.Length(min=1, max=255),
        metadata={"description": "Retries with the same key and body return the first answer"},
    )


class EventSchema(ma.Schema):
    version = fields.Integer()
    type = fields.String(metadata={"example": "CardPlayed"})
    seat = fields.Integer(allow_none=True)
    data = fields.Dict(allow_none=True, metadata={"description": "null where hidden from this viewer"})
    recorded_at = fields.String(metadata={"format": "date-time", "example": "2026-11-29T14:05:12.123456+00:00"})


class MoveResultSchema(ViewSchema):
    events = fields.List(fields.Nested(EventSchema), metadata={"description": "What the move set off"})


class EventsQuerySchema(Strict):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = fields.Float(load_default=0, validate=validate.Range(min=0, max=30),
                        metadata={"description": "Seconds to wait for an event after 'after'"})


class EventsSchema(ma.Schema):
    events = fields.List(fields.Nested(EventSchema))
    last_version = fields.Integer()


class StreamQuerySchema(Strict):
    after = fields.Integer(validate=validate.Range(min=0), metadata={"description": "Start after this version"})
    timeout = fields.Float(load_default=300, validate=validate.Range(min=0, max=3600),
                           metadata={"description": "Close the stream after this many seconds"})


class HealthSchema(ma.Schema):
    status = fields.String(metadata={"example": "ok"})
    database = fields.String(metadata={"example": "ok"})
