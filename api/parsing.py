"""Reading request bodies as JSON within the contract's limits, before any schema sees them.

``json.loads`` alone lets through what later breaks: nesting deep enough to exhaust
the recursion limit, integers past Python's digit limit (a ValueError, not a
decoding error), ``NaN`` and ``Infinity``, duplicate keys (the last silently wins),
and strings no database can store (NUL, which PostgreSQL's ``text`` and ``jsonb``
refuse; lone surrogates, which no UTF-8 encoder takes). Each is refused here as a
400 ``validation_error`` naming the reason.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, AnyStr, TypeVar

import flask_smorest
from flask import Request, request
from marshmallow import fields as ma_fields
from webargs import core
from webargs.flaskparser import FlaskParser, abort, is_json_request
from werkzeug.exceptions import (
    BadRequest,
    RequestEntityTooLarge,
    RequestHeaderFieldsTooLarge,
    RequestURITooLarge,
    UnsupportedMediaType,
)
from werkzeug.routing import BaseConverter

from domain.text import UNSTORABLE

MAX_DEPTH = 32
#: Digits of the longest integer a body may hold (a signed 64-bit seed has 19).
MAX_INTEGER_DIGITS = 20
#: Escapes that decode to characters no database stores; when the text has none, no string can hold one.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|d[89a-f])", re.IGNORECASE)


class BodyRefused(ValueError):
    """A body that is JSON but not within the limits."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        duplicated = sorted(key for key, count in Counter(key for key, _ in pairs).items() if count > 1)
        raise BodyRefused(f"duplicate keys: {', '.join(map(repr, duplicated))}")
    return result


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise BodyRefused(f"an integer of more than {MAX_INTEGER_DIGITS} digits")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BodyRefused(f"the number {text[:40]} is out of range")
    return value


def _constant(name: str) -> float:
    raise BodyRefused(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_int=_integer, parse_float=_float,
                            parse_constant=_constant)


def depth(text: str) -> int:
    """How deeply ``text``'s arrays and objects nest, brackets inside strings not counted."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # (nearly every body: no need to scan)
        return text.count("[") + text.count("{")
    deepest = level = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def _check_strings(value: Any) -> None:
    if isinstance(value, str):
        if UNSTORABLE.search(value):
            raise BodyRefused("a string holds a NUL character or a lone surrogate")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key)
            _check_strings(item)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item)


def loads(data: bytes) -> Any:
    """The JSON value of a body; json.JSONDecodeError if it is not JSON, BodyRefused if past the limits."""
    text = _text(data)
    if depth(text) > MAX_DEPTH:
        raise BodyRefused(f"JSON nested deeper than {MAX_DEPTH} levels")
    value = _DECODER.decode(text)
    if _UNSTORABLE_ESCAPE.search(text):
        _check_strings(value)
    return value


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise json.JSONDecodeError(f"Bytes decoding error : {error.reason}", doc=str(error.object), pos=error.start) \
            from error


class Parser(FlaskParser):
    """webargs' Flask parser, reading JSON bodies through :func:`loads`, and refusing a query parameter of one
    value given more than once (webargs takes the first: ``?status=running&status=finished`` listed the
    running tournaments alone, as if the second had been read)."""

    def load_querystring(self, req: Request, schema: Any) -> Any:
        repeated = sorted(name for name, field in schema.fields.items()
                          if not isinstance(field, ma_fields.List) and len(req.args.getlist(field.data_key or name)) > 1)
        if repeated:
            abort(422, messages={"query": {name: ["Given more than once; it takes one value."] for name in repeated}})
        return super().load_querystring(req, schema)

    def _raw_load_json(self, req: Request) -> Any:
        if not is_json_request(req):
            return core.missing
        data = whole_body(req)
        try:
            return loads(data)
        except BodyRefused as error:
            abort(400, exc=error, messages={"json": [str(error)]})


def json_body(req: Request) -> Any:
    """The body of a route that takes a document no schema describes (a record), read within the same limits as
    :class:`Parser` reads one for a schema: 415 if it is not sent as JSON, 400 naming what is wrong if it is not
    JSON or past the limits. ``request.get_json`` knows no limits: a record nested a thousand deep was a
    RecursionError, a 500."""
    if not is_json_request(req):
        raise UnsupportedMediaType("send the body as JSON, with the header Content-Type: application/json")
    try:
        return loads(whole_body(req))
    except BodyRefused as error:
        raise BadRequest(f"the body is past the limits on JSON: {error}") from None
    except json.JSONDecodeError as error:
        raise BadRequest(f"the body is not JSON: {error}") from None


def whole_body(req: Request) -> bytes:
    """The request's body; 413 for one sent without a length (chunked) that went on past ``max_content_length``.

    Werkzeug stops reading such a body at the limit and hands over what it read, cut
    short (it raises 413 up front only for a ``Content-Length`` over the limit): then one
    more byte of the server's input tells a body of exactly the limit from a longer one.
    """
    data = req.get_data(cache=True)
    limit = req.max_content_length
    if (limit is not None and req.content_length is None and len(data) >= limit
            and req.environ["wsgi.input"].read(1)):
        raise RequestEntityTooLarge()
    return data


F = TypeVar("F", bound=Callable[..., Any])


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, parsing bodies with :class:`Parser`, whose ``doc`` and ``alt_response``
    document a view without wrapping it.

    flask-smorest's own wrap the view in a function that only calls it, through
    ``current_app.ensure_sync``: a view here carries a dozen of them (its problems, its
    security, its request body), each a call on every request (what that cost: docs/performance.md).
    The document they make is the same.
    """

    ARGUMENTS_PARSER = Parser()

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        return _documenting(flask_smorest.Blueprint.doc(**kwargs))

    def alt_response(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        return _documenting(super().alt_response(*args, **kwargs))


def _documenting(decorator: Callable[[F], Any]) -> Callable[[F], F]:
    """A flask-smorest decorator that only documents, putting its document on the view itself."""

    def document(view: F) -> F:
        view._apidoc = decorator(view)._apidoc  # type: ignore[attr-defined]
        return view

    return document


#: A game id: what the server issues (uuid4 hex) and any id a test chooses; anything else is no game.
GAME_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"


class GameIdConverter(BaseConverter):
    """``<game_id:...>``: a path segment that can be a game id, so no other text reaches the store."""

    regex = GAME_ID_PATTERN


def game_id_schema(_converter: BaseConverter) -> dict[str, str]:
    """How the OpenAPI document describes a game id in a path."""
    return {"type": "string", "pattern": f"^{GAME_ID_PATTERN}$"}


class IdConverter(BaseConverter):
    """``<id:...>``: a tournament's or challenge's id, or a key's prefix, of the form of every id the server
    issues, so no other text reaches the store (a NUL, which PostgreSQL refuses with an error, or a megabyte
    echoed back in the 404)."""

    regex = GAME_ID_PATTERN


#: An account's name, as sign-up takes one (service.accounts.NAME).
ACCOUNT_NAME_PATTERN = r"[A-Za-z0-9_-]{1,32}"


class AccountNameConverter(BaseConverter):
    """``<account_name:...>``: a path segment that can be an account's name, so no other text reaches the store."""

    regex = ACCOUNT_NAME_PATTERN


def account_name_schema(_converter: BaseConverter) -> dict[str, str]:
    """How the OpenAPI document describes an account's name in a path."""
    return {"type": "string", "pattern": f"^{ACCOUNT_NAME_PATTERN}$"}


#: A game type's name, as the games register theirs.
GAME_NAME_PATTERN = r"[A-Za-z0-9_-]{1,64}"


class GameNameConverter(BaseConverter):
    """``<game_name:...>``: a path segment that can be a game type's name (a pool's, a leaderboard's), so that no
    other text is looked up or echoed back in full in the 404."""

    regex = GAME_NAME_PATTERN


def game_name_schema(_converter: BaseConverter) -> dict[str, str]:
    """How the OpenAPI document describes a game type's name in a path."""
    return {"type": "string", "pattern": f"^{GAME_NAME_PATTERN}$"}


#: The converters of the path segments that name something stored, by the name a route writes them with.
CONVERTERS: dict[str, tuple[type[BaseConverter], Callable[[BaseConverter], dict[str, str]]]] = {
    "game_id": (GameIdConverter, game_id_schema),
    "id": (IdConverter, game_id_schema),
    "account_name": (AccountNameConverter, account_name_schema),
    "game_name": (GameNameConverter, game_name_schema),
}


#: The most a request's head may hold: the limits gunicorn enforced before the server was uvicorn,
#: which has none of its own (docs/api.md, "Limits"); no valid request comes near them.
MAX_REQUEST_LINE, MAX_HEADER_LINE, MAX_HEADERS = 4094, 8190, 100


def refuse_oversized_head() -> None:
    """414 for a request line past MAX_REQUEST_LINE; 431 for a header line past MAX_HEADER_LINE or
    more than MAX_HEADERS headers (before anything else reads the request)."""
    if not line_fits(request.method, request.full_path):
        raise RequestURITooLarge(f"the request line is longer than {MAX_REQUEST_LINE} bytes")
    if not headers_fit(list(request.headers.items())):  # (once: EnvironHeaders walks the whole environ for its len too)
        raise RequestHeaderFieldsTooLarge(f"at most {MAX_HEADERS} headers of at most {MAX_HEADER_LINE} bytes each")


def line_fits(method: str, target: str) -> bool:
    """Whether the request line of ``method`` and ``target`` (path, ``?`` and query) is within MAX_REQUEST_LINE."""
    return len(method) + len(target) + len(" HTTP/1.1 ") <= MAX_REQUEST_LINE


def headers_fit(headers: Sequence[tuple[AnyStr, AnyStr]]) -> bool:
    """Whether there are at most MAX_HEADERS ``headers`` (names and values), each line within MAX_HEADER_LINE."""
    return len(headers) <= MAX_HEADERS and all(len(name) + len(value) + 2 <= MAX_HEADER_LINE for name, value in headers)
