"""Marshmallow schemas: the shapes of every request and response, and their examples."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import fields, validate

from bots import BOT_KINDS
from domain.text import NAME_PATTERN
from service.timestamps import timestamp

STATUSES = ("waiting", "active", "finished", "aborted")
#: The form of a listing cursor (a keyset position, see persistence.cursor); any such string is valid.
CURSOR_PATTERN = r"^[0-9]{1,17}~[A-Za-z0-9_-]{1,64}$"
#: The largest version a query, header or body may name: versions are stored as 32-bit integers.
MAX_VERSION = 2**31 - 1
#: Free text (a description, a reason, a URL): anything but NUL, which no string of a body may hold (a 400,
#: api.parsing); said in the document so that what it calls valid is what the server takes.
TEXT_PATTERN = r"^[^\u0000]*$"
#: An Idempotency-Key: 1-255 visible ASCII characters or spaces.
IDEMPOTENCY_KEY_PATTERN = r"^[\x20-\x7e]{1,255}$"
#: A game type's name, as a listing filter.
GAME_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
#: A game's id, as a body names one (``replay_of``).
GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
#: A seat's entropy: 32 bytes as 64 hex characters (read in either case, kept in lower case).
ENTROPY_PATTERN = r"^[0-9a-fA-F]{64}$"
_ASCII_INTEGER = re.compile(r"[0-9]{1,10}")
_ASCII_NUMBER = re.compile(r"[0-9]{1,10}(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?")
_ENTITY_TAG = re.compile(r'(W/)?"([0-9]{1,10})"')


class Pattern(validate.Regexp):
    """marshmallow's Regexp, matched against the whole string: its ``re.match`` lets ``$`` match before a
    trailing newline, so ``^[0-9a-fA-F]{64}$`` took 64 hex digits and a newline (kept in a game's log as a
    seat's entropy), and a cursor or an account's name with one was looked up."""

    def __call__(self, value: str) -> str:
        if self.regex.fullmatch(value) is None:
            raise ma.ValidationError(self._format_error(value))
        return value


class QueryInteger(fields.Integer):
    """An integer in a query or header: ASCII digits only (``int()`` also takes ``١٢``, ``1_0`` and `` 7 ``)."""

    default_error_messages: ClassVar[dict[str, str]] = {
        "invalid": "Not a whole number written in the digits 0-9 alone (no sign, no spaces, at most 10 digits)."}

    def _deserialize(self, value: object, attr: str | None, data: object, **kwargs: object) -> int:
        if not isinstance(value, str) or not _ASCII_INTEGER.fullmatch(value):
            raise self.make_error("invalid", input=value)
        return super()._deserialize(value, attr, data, **kwargs)


class QueryNumber(fields.Float):
    """A number of seconds in a query: ASCII digits, optionally a decimal point and more."""

    def _deserialize(self, value: object, attr: str | None, data: object, **kwargs: object) -> float:
        if not isinstance(value, str) or not _ASCII_NUMBER.fullmatch(value):
            raise self.make_error("invalid", input=value)
        return super()._deserialize(value, attr, data, **kwargs)


class EntityTags(fields.String):
    """``If-Match``: ``*`` (any version), else the versions its entity tags name (``"12"``, ``W/"12"``,
    a comma-separated list). A tag of any other form names no version, so it never matches."""

    def _deserialize(self, value: object, attr: str | None, data: object, **kwargs: object) -> str | tuple[int, ...]:
        text = super()._deserialize(value, attr, data, **kwargs).strip()
        if text == "*":
            return "*"
        tags = (_ENTITY_TAG.fullmatch(tag.strip()) for tag in text.split(","))
        return tuple(int(tag.group(2)) for tag in tags if tag is not None)


class JsonInteger(fields.Integer):
    """A JSON integer: ``2`` or ``2.0`` (JSON does not tell them apart), never ``"2"`` or ``true``.

    Unless a field says its own range, it is documented as a 64-bit integer: the body's parser refuses a
    number of more than 20 digits (400) before any schema is looked at, so the document must not offer one.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        if kwargs.get("validate") is None:
            kwargs["validate"] = validate.Range(min=-(2**63), max=2**63 - 1)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def _validated(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float) or (
            isinstance(value, float) and not value.is_integer()
        ):
            raise self.make_error("invalid", input=value)
        return int(value)


class JsonBoolean(fields.Boolean):
    """A JSON boolean: ``true`` or ``false``, never ``1``, ``0``, ``"yes"`` or ``"off"``. marshmallow's Boolean takes
    all of those, and even one whose truthy set is ``{True}`` takes ``1`` (in Python ``1 in {True}``)."""

    def _deserialize(self, value: object, attr: str | None, data: object, **kwargs: object) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class Timestamp(fields.DateTime):
    """A moment, written as every one Cardhall writes (service.timestamps): RFC 3339, UTC, milliseconds, ``Z``."""

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"example": "2026-12-01T09:00:30.000Z", **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _serialize(self, value: dt.datetime | None, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        return None if value is None else timestamp(value)


class Entropy(fields.String):
    """Entropy an account or seat adds to a game's shuffles: 32 bytes as 64 hex characters, read in either case,
    kept in lower case."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(validate=Pattern(ENTROPY_PATTERN), metadata={
            "pattern": ENTROPY_PATTERN,
            "description": "32 random bytes as 64 hex characters, mixed into every shuffle of the game (see Fairness); "
                           "shown to everyone once the seat is taken"}, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return super()._deserialize(value, attr, data, **kwargs).lower()


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
            "description": "Every game: seed, move_seconds, decks. Craits: first_dealer, short. "
            "Scat: first_dealer, lives, three_of_a_kind, straight_flush, min_knock, throw_down.",
            "example": {"short": True, "seed": 42},
        },
    )
    replay_of = fields.String(
        validate=Pattern(GAME_ID_PATTERN),
        metadata={"pattern": GAME_ID_PATTERN,
                  "description": "A finished game's id: the new game replays its deal in the open (its options, "
                  "server seed and entropy; the same moves give the same cards) and is marked seeded"},
    )


class SeatSchema(ma.Schema):
    seat = fields.Integer()
    name = fields.String(allow_none=True)
    bot = fields.Raw(allow_none=True, metadata={
        "description": f"{' or '.join(BOT_KINDS)} for a house bot; for an account's seat, whether it is a bot's",
        "type": ["string", "boolean", "null"]})
    taken = fields.Boolean()
    bot_since = fields.Integer(allow_none=True, metadata={
        "description": "The version from which a house bot plays the seat in its player's place (resigned, "
                       "timed out or idle); null if its player still plays it"})
    entropy = fields.String(allow_none=True, metadata={"description": "The 64 hex characters of entropy the seat "
                                                       "added to the shuffles when it was taken, if any"})
    account = fields.String(allow_none=True, metadata={"description": "The account whose seat it is, if any"})


class ChanceFixedSchema(ma.Schema):
    """Whether a game's creator fixed its chance, shown to everyone from its creation on (summary, views, audit)."""

    seeded = fields.Boolean(metadata={"description": "The creator fixed the chance with a seed, or the game "
                                      "replays another's deal (replay_of)"})
    stacked = fields.Boolean(metadata={"description": "The creator stacked the decks (option decks)"})


class SeedsSchema(ChanceFixedSchema):
    """A game's server seed as everyone sees it (summary, audit)."""

    server_seed_hash = fields.String(allow_none=True, metadata={
        "description": "Lower-case hex SHA-256 of the server seed's 32 bytes, committed at creation (null: a game "
        "created before server seeds)"})
    server_seed = fields.String(allow_none=True, metadata={"description": "The server seed, 64 hex; null until "
                                                           "the game is over"})
    replay_of = fields.String(allow_none=True, metadata={"description": "The game whose deal this one replays"})
    imported_from = fields.String(allow_none=True, metadata={
        "description": "For a game imported from a record (cardhall record import): its id where it was played"})


class GameSummarySchema(SeedsSchema):
    id = fields.String(metadata={"example": "8f0c2a5d7e2b4d0c9c1e5b7a3f6d2e10"})
    game = fields.String(metadata={"example": "craits"})
    rules_version = fields.String(metadata={"description": "The rules the game was created under and replays "
                                            "under forever", "example": "craits/1"})
    players = fields.Integer(metadata={"example": 4})
    options = fields.Dict(metadata={"description": "seed and decks are hidden until the game is over"})
    seats = fields.List(fields.Nested(SeatSchema))
    status = fields.String(validate=validate.OneOf(STATUSES))
    version = fields.Integer(metadata={"description": "Number of events in the log"})
    created_at = Timestamp()
    result = fields.Dict(allow_none=True, metadata={"description": "winners and final scores or lives"})


class GameListQuerySchema(Strict):
    status = fields.List(fields.String(validate=validate.OneOf(STATUSES)), metadata={
        "description": "Games of this status; repeat it for any of several (`status=waiting&status=active`: "
                       "the games not over)"})
    game = fields.String(validate=Pattern(GAME_NAME_PATTERN), metadata={"pattern": GAME_NAME_PATTERN})
    limit = QueryInteger(load_default=50, validate=validate.Range(min=1, max=100))
    cursor = fields.String(
        validate=Pattern(CURSOR_PATTERN),
        metadata={"description": "next_cursor of the previous page", "pattern": CURSOR_PATTERN},
    )


class GameListSchema(ma.Schema):
    games = fields.List(fields.Nested(GameSummarySchema))
    next_cursor = fields.String(allow_none=True, metadata={"description": "Pass as cursor for the next page"})


def person_name(name: str) -> None:
    """A person's name must be seen and cannot be taken for someone else: something visible (a letter,
    digit, mark or sign), no invisible or format characters, no line or paragraph separator, no space
    at either end, and not a house bot's name as the pages show it ("greedy bot 1")."""
    if name != name.strip() or not any(unicodedata.category(char)[0] in "LNPS" for char in name):
        raise ma.ValidationError("a name must have something visible, and no space at either end")
    if any(unicodedata.category(char) in _INVISIBLE or (char.isspace() and char != " ") for char in name):
        raise ma.ValidationError("a name may not hold invisible, format or line-separating characters")
    if _BOT_NAME.search(unicodedata.normalize("NFKC", name).casefold()):
        raise ma.ValidationError("a person's name may not read as a house bot's")


#: Categories of characters that show nothing (format, control, private use, unassigned, separators
#: other than the space).
_INVISIBLE = {"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"}
#: What the pages call a house bot ("greedy bot 2"), in any case or spacing.
_BOT_NAME = re.compile(rf"\b(?:{'|'.join(BOT_KINDS)}|house)\W*bot\b")


class JoinSchema(Strict):
    name = fields.String(validate=[Pattern(NAME_PATTERN), person_name],
                         metadata={"example": "alice", "pattern": NAME_PATTERN,
                                   "description": "A person's name: something visible, no invisible or line-separating "
                                                  "characters, no space at either end, not a house bot's name "
                                                  "('greedy bot 1')"})
    bot = fields.String(validate=validate.OneOf(BOT_KINDS), metadata={"example": "greedy"})
    entropy = Entropy()

    @ma.validates_schema
    def one_of_name_or_bot(self, data: dict, **kwargs: object) -> None:
        if "name" in data and "bot" in data:
            raise ma.ValidationError("give either 'name' (a person) or 'bot' (a house bot)")


class JoinResultSchema(ma.Schema):
    seat = fields.Integer(metadata={"example": 1})
    token = fields.String(allow_none=True, metadata={"description": "Bearer token for this seat; shown once"})
    version = fields.Integer()


class StateQuerySchema(Strict):
    at = QueryInteger(
        validate=validate.Range(min=1, max=MAX_VERSION), metadata={"description": "The view as it stood after event N"}
    )


class ViewSchema(ChanceFixedSchema):
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


class MoveSchema(ma.Schema):
    """A move's envelope, what every game's moves share; the game the move is for reads its other fields."""

    class Meta:
        unknown = ma.INCLUDE
        ordered = True

    type = fields.String(required=True, metadata={"description": "The move's type: each game's are listed by "
                                                                 "GET /v1/game-types"})
    expected_version = JsonInteger(
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata={"description": "Refuse the move unless the game is at this version"},
    )


class MoveHeadersSchema(Lenient):
    if_match = EntityTags(data_key="If-Match",
                          metadata={"description": 'The version the move expects as an ETag, e.g. "12"; * matches any'})
    idempotency_key = fields.String(
        data_key="Idempotency-Key",
        validate=Pattern(IDEMPOTENCY_KEY_PATTERN),
        metadata={"description": "Retries with the same key and body return the first answer",
                  "pattern": IDEMPOTENCY_KEY_PATTERN},
    )


class EventSchema(ma.Schema):
    version = fields.Integer()
    type = fields.String(metadata={"example": "CardPlayed"})
    seat = fields.Integer(allow_none=True)
    data = fields.Dict(allow_none=True, metadata={"description": "null where hidden from this viewer"})
    recorded_at = fields.String(metadata={"format": "date-time", "example": "2026-12-01T09:00:30.000Z"})


class MoveResultSchema(ViewSchema):
    events = fields.List(fields.Nested(EventSchema), metadata={"description": "What the move set off"})


class EventsQuerySchema(Strict):
    after = QueryInteger(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION))
    limit = QueryInteger(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = QueryNumber(load_default=0, validate=validate.Range(min=0, max=30),
                        metadata={"description": "Seconds to wait for an event after 'after'"})


class EventsSchema(ma.Schema):
    events = fields.List(fields.Nested(EventSchema))
    last_version = fields.Integer()


class StreamQuerySchema(Strict):
    after = QueryInteger(validate=validate.Range(min=0, max=MAX_VERSION),
                         metadata={"description": "Start after this version"})
    timeout = QueryNumber(load_default=300, validate=validate.Range(min=0, max=3600),
                           metadata={"description": "Close the stream after this many seconds"})


class StreamHeadersSchema(Lenient):
    last_event_id = QueryInteger(data_key="Last-Event-ID", validate=validate.Range(min=0, max=MAX_VERSION),
                                 metadata={"description": "Resume after this version (when the query has no after)"})


class AuditedShuffleSchema(ma.Schema):
    version = fields.Integer(metadata={"description": "The version of the event recording the shuffle"})
    type = fields.String(metadata={"example": "RoundDealt"})
    commitment = fields.String(
        allow_none=True,
        metadata={"description": "Lower-case hex SHA-256 of the UTF-8 text SALT:CARD,CARD,... (null: a shuffle "
                  "recorded before commitments)", "example": "9f2c...e01"})
    salt = fields.String(allow_none=True, metadata={"description": "32 hex characters; null until the game is over"})
    order = fields.List(fields.String(), allow_none=True,
                        metadata={"description": "The cards, index 0 the top; null until the game is over"})
    derived = fields.Boolean(allow_none=True, metadata={
        "description": "Whether the order is the one the server seed, the entropy and the version derive (a stacked "
        "deal: its deck); null until the game is over, and where the log alone cannot tell (a game created before "
        "server seeds, a stacked game's pile turned over)"})
    ok = fields.Boolean(allow_none=True, metadata={"description": "Whether salt and order give the commitment and "
                                                   "the order is not other than derived; null until the game is over"})


class AuditSchema(SeedsSchema):
    verified = fields.Boolean(allow_none=True, metadata={"description": "Every shuffle's ok; null until the game "
                                                         "is over"})
    shuffles = fields.List(fields.Nested(AuditedShuffleSchema))
    entropy = fields.List(fields.String(allow_none=True), metadata={"description": "Each seat's entropy, by seat"})


class HealthSchema(ma.Schema):
    status = fields.String(metadata={"example": "ok"})
    database = fields.String(metadata={"example": "ok"})
