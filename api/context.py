"""What the views share: the service of the app, the caller's token, ETags."""

from __future__ import annotations

from flask import current_app, request

from service.errors import Unauthorized
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
