"""``cardhall ratings rebuild``: every rating recomputed from the games' events, on the database itself."""

from __future__ import annotations

import argparse
import time

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

    games = open_service(database_of(args.database))
    try:
        started = time.perf_counter()
        applied = Ratings(games).rebuild()
    finally:
        games.close()
    print(f"cardhall: ratings rebuilt from {applied} rated games in {time.perf_counter() - started:.2f} s")
    return 0
