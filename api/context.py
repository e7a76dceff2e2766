"""What the views share: the service of the app, the caller's token, ETags."""

from __future__ import annotations

from flask import current_app, request

from service.errors import PreconditionFailed, Unauthorized
from service.games import GameService


def service() -> GameService:
    """The app's game service."""
    return current_app.extensions["cardhall"]


def bearer_token() -> str | None:
    """The bearer token of the request, if any; a malformed Authorization header is refused."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("the Authorization header must be 'Bearer TOKEN'")
    return token.strip()


def etag(version: int) -> str:
    """The ETag of a view at ``version``."""
    return f'"{version}"'


def parse_if_match(value: str | None) -> int | None:
    """The version an If-Match header names; anything but one version fails the precondition."""
    if value is None:
        return None
    tag = value.strip()
    if tag.startswith("W/"):
        tag = tag[2:]
    tag = tag.strip('"')
    if not tag.isdigit():
        raise PreconditionFailed(f"If-Match must name one version, like '\"12\"', not {value!r}")
    return int(tag)
