"""``cardhall serve`` and ``cardhall db upgrade``."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from cardhall_cli import command


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")
    parser.add_argument("--workers", type=int, default=1, help="gunicorn worker processes (default 1)")
    parser.add_argument("--threads", type=int, default=32,
                        help="threads per worker: long-polls and streams each hold one (default 32)")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="let scripts of this site (e.g. https://example.org) call the API and its "
                             "streams; repeatable (default: none)")
    parser.add_argument("--shuffle-secret",
                        help="key of seeded shuffles (default CARDHALL_SHUFFLE_SECRET, else one kept in the database)")
    parser.add_argument("--rate-limit", default=None, metavar="SPEC|off", type=_rate_limit,
                        help="each client's request limit, e.g. '50/second;1500/minute' (the default), or "
                             "'off' (benchmarks); counted across workers when there are several")
    parser.add_argument("--sqlite-synchronous", choices=["full", "normal"], default=None,
                        help="SQLite durability: full (the default) never loses an acknowledged move; normal "
                             "commits faster but a power loss or OS crash may drop the last moves acknowledged")
    parser.add_argument("--max-followers", type=int, default=None,
                        help="long-polls and streams a worker serves at once; past it they get 503 "
                             "(default half the threads, so the other half always serve everything else)")


def _rate_limit(spec: str) -> str:
    """A flask-limiter limit string such as '50/second;1500/minute', or 'off'."""
    from limits import parse_many

    if spec.strip().lower() != "off":
        try:
            parse_many(spec)
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"not a rate limit (e.g. '50/second;1500/minute' or 'off'): {error}") \
                from error
    return spec


@command("serve", _serve_arguments)
def serve(args: argparse.Namespace) -> int:
    """Start the HTTP server (gunicorn), migrating the database first."""
    from service.bootstrap import database_url, open_service

    followers = args.max_followers or max(1, args.threads // 2)
    if not 1 <= followers < args.threads:
        print(f"cardhall: --max-followers must be at least 1 and below --threads ({args.threads}), so that "
              "some threads always serve everything else", file=sys.stderr)
        return 2
    if args.sqlite_synchronous is not None:  # (the migrations' connections too)
        os.environ["CARDHALL_SQLITE_SYNCHRONOUS"] = args.sqlite_synchronous
    url = database_url(args.database)
    open_service(url, migrate=True).store.close()
    os.environ["CARDHALL_DATABASE_URL"] = url
    os.environ["CARDHALL_SKIP_MIGRATIONS"] = "1"
    os.environ["CARDHALL_MAX_FOLLOWERS"] = str(followers)
    if args.rate_limit is not None:
        os.environ["CARDHALL_RATE_LIMIT"] = args.rate_limit
    if args.workers > 1 and "CARDHALL_RATE_LIMIT_STORAGE" not in os.environ:  # (one worker: its memory)
        counters = Path(tempfile.gettempdir()) / f"cardhall-ratelimits-{args.port}.db"
        os.environ["CARDHALL_RATE_LIMIT_STORAGE"] = f"cardhall+sqlite://{counters}"
    # glibc gives each thread that allocates its own malloc arena (up to 8 per core), and arenas
    # seldom give memory back, so a worker's RSS creeps up as more of its threads serve; two
    # arenas bound that (docs/performance.md, "Soak"), and under the GIL their lock is no contention.
    os.environ.setdefault("MALLOC_ARENA_MAX", "2")
    if args.shuffle_secret:  # (handed to the workers as gunicorn starts them; never printed)
        os.environ["CARDHALL_SHUFFLE_SECRET"] = args.shuffle_secret
    os.environ["CARDHALL_CORS_ORIGINS"] = " ".join(args.cors_origin)
    argv = [
        "gunicorn",
        "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.workers),
        "--worker-class", "gthread",
        "--threads", str(args.threads),
        "--timeout", "120",
        "--graceful-timeout", "10",
        "--keep-alive", "5",
        "--access-logfile", "-",
        "api.wsgi:app",
    ]
    print(f"cardhall: serving {_redacted(url)} on http://{args.host}:{args.port}", file=sys.stderr, flush=True)
    os.execvp(sys.executable, [sys.executable, "-m", *argv])
    return 0  # not reached


def _redacted(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


def _db_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["upgrade"], help="upgrade: apply every migration")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")


@command("db", _db_arguments)
def db(args: argparse.Namespace) -> int:
    """Manage the database schema (``cardhall db upgrade``)."""
    import persistence
    from service.bootstrap import database_url

    url = database_url(args.database)
    persistence.upgrade(url)
    print(f"cardhall: {_redacted(url)} is at the latest schema", file=sys.stderr)
    return 0
