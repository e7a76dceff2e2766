"""``cardhall ratings rebuild``: every rating recomputed from the games' events, on the database itself."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cardhall_cli import command


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["rebuild"],
                        help="rebuild: forget every rating and apply every rated game again, from its events")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")


@command("ratings", _arguments)
def ratings(args: argparse.Namespace) -> int:
    """Rebuild the ratings from the log (``cardhall ratings rebuild``): the same table the servers keep."""
    from cardhall_cli.server import database_of
    from service.bootstrap import open_service
    from service.ratings import Ratings

    url = database_of(args.database)
    if (missing := _missing_file(url)) is not None:
        print(f"cardhall: there is no database at {missing}: ratings are rebuilt from the database a server keeps "
              "(--database, or CARDHALL_DATABASE_URL)", file=sys.stderr)
        return 1
    games = open_service(url)
    try:
        started = time.perf_counter()
        applied = Ratings(games).rebuild()
    finally:
        games.close()
    print(f"cardhall: ratings rebuilt from {applied} rated games in {time.perf_counter() - started:.2f} s")
    return 0


def _missing_file(url: str) -> str | None:
    """The path of the SQLite file ``url`` names, if there is none there (opening it would make an empty one, and
    a path mistyped would be told 0 rated games were rebuilt); else None."""
    import sqlalchemy as sa

    parsed = sa.make_url(url)
    path = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or path in ("", ":memory:") or path.startswith("file:"):
        return None
    return None if Path(path).exists() else path
