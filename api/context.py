"""What the views share: the service of the app, the caller's token, ETags and caching."""

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


#: How long a cache may keep what never changes: a year, without asking again (RFC 8246).
FOREVER = "max-age=31536000, immutable"


def final_headers(version: int, token: str | None) -> dict[str, str]:
    """The headers of an answer that never changes (a finished game's log, its views at a version):
    its ETag, and caching for good; private when it answers a bearer, whose view it may be."""
    return {"ETag": etag(version), "Cache-Control": f"{'private' if token else 'public'}, {FOREVER}"}
