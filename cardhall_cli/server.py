"""``cardhall serve`` and ``cardhall db upgrade``."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from cardhall_cli import command

#: Followers are cheap now (a socket and a coroutine each): thousands per process.
DEFAULT_MAX_FOLLOWERS = 10_000
#: The environment variable naming the directory of a run's temporary files (removed on exit).
RUN_DIRECTORY = "CARDHALL_RUN_DIRECTORY"


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--threads", type=int, default=32,
                        help="threads per worker serving requests; followers waiting hold none (default 32)")
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
    parser.add_argument("--max-followers", type=int, default=DEFAULT_MAX_FOLLOWERS,
                        help="long-polls and streams a worker follows at once; past it they get 503 "
                             f"(default {DEFAULT_MAX_FOLLOWERS:,}; each holds a socket, no thread)")
    parser.add_argument("--log-format", choices=["text", "json"], default="text",
                        help="log lines as text (the default) or as one JSON object each, with the request id")
    parser.add_argument("--abandon-after", type=duration, default=duration("1d"), metavar="DURATION|off",
                        help="hand a game under way nobody moved in for this long (e.g. 1h, 30m, 2d) to house "
                             "bots, which play it to the end (default 1d)")
    parser.add_argument("--expire-waiting-after", type=duration, default=duration("1d"), metavar="DURATION|off",
                        help="end a game still waiting for players after this long with no one joining (default 1d)")


UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(text: str) -> float | None:
    """Seconds in a duration such as '90s', '30m', '1h', '2d' (a bare number: seconds); None for 'off'."""
    spoken = text.strip().lower()
    if spoken == "off":
        return None
    number, unit = (spoken[:-1], UNITS[spoken[-1]]) if spoken[-1:] in UNITS else (spoken, 1)
    try:
        seconds = float(number) * unit
    except ValueError:
        seconds = -1
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"not a duration (e.g. 90s, 30m, 1h, 2d, or off): {text!r}")
    return seconds

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
    """Start the HTTP server (gunicorn's workers running uvicorn, the app in a thread pool), migrating
    the database first."""
    if args.max_followers < 1 or args.threads < 1:
        print("cardhall: --max-followers and --threads must be at least 1", file=sys.stderr)
        return 2
    if args.sqlite_synchronous is not None:  # (the migrations' connections too)
        os.environ["CARDHALL_SQLITE_SYNCHRONOUS"] = args.sqlite_synchronous
    # gunicorn's master migrates the database, then says what it serves, before it starts a worker
    # (gunicorn_conf.on_starting): this process imports none of the service, which the exec would throw away.
    if args.database:
        os.environ["CARDHALL_DATABASE_URL"] = args.database
    os.environ["CARDHALL_SKIP_MIGRATIONS"] = "1"
    os.environ["CARDHALL_MAX_FOLLOWERS"] = str(args.max_followers)
    os.environ["CARDHALL_THREADS"] = str(args.threads)
    if args.rate_limit is not None:
        os.environ["CARDHALL_RATE_LIMIT"] = args.rate_limit
    run = Path(tempfile.mkdtemp(prefix=f"cardhall-{args.port}-"))  # (gunicorn_conf removes it on exit)
    os.environ[RUN_DIRECTORY] = str(run)
    if args.workers > 1 and "CARDHALL_RATE_LIMIT_STORAGE" not in os.environ:  # (one worker: its memory)
        os.environ["CARDHALL_RATE_LIMIT_STORAGE"] = f"cardhall+sqlite://{run / 'ratelimits.db'}"
    # glibc gives each thread that allocates its own malloc arena (up to 8 per core), and arenas
    # seldom give memory back, so a worker's RSS creeps up as more of its threads serve; two
    # arenas bound that (docs/performance.md, "Soak"), and under the GIL their lock is no contention.
    os.environ.setdefault("MALLOC_ARENA_MAX", "2")
    if args.shuffle_secret:  # (handed to the workers as they start; never printed)
        os.environ["CARDHALL_SHUFFLE_SECRET"] = args.shuffle_secret
    os.environ["CARDHALL_CORS_ORIGINS"] = " ".join(args.cors_origin)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_directory(run)
    os.environ["CARDHALL_LOG_FORMAT"] = args.log_format
    for name, seconds in (("CARDHALL_ABANDON_AFTER", args.abandon_after),
                          ("CARDHALL_EXPIRE_WAITING_AFTER", args.expire_waiting_after)):
        os.environ[name] = "" if seconds is None else str(seconds)
    sockets = raise_open_files_limit()
    if sockets < args.max_followers * args.workers:
        print(f"cardhall: warning: this process may open {sockets} files; --max-followers "
              f"{args.max_followers} × {args.workers} workers needs more", file=sys.stderr)
    argv = [
        "gunicorn", "api.asgi:app",
        "--config", "python:cardhall_cli.gunicorn_conf",  # (uvicorn's worker class, the hooks, the logging)
        "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.workers),
        "--backlog", "4096",
        "--timeout", "120",
        "--graceful-timeout", "10",
        "--keep-alive", "5",
    ]
    os.execvp(sys.executable, [sys.executable, "-m", *argv])
    return 0  # not reached


def raise_open_files_limit() -> int:
    """Let this process (and what it starts) open as many files as the system allows it: each
    follower holds a socket. The limit now in force."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def _metrics_directory(run: Path) -> str:
    """An empty directory for the workers' metrics (prometheus-client's multiprocess mode): the
    operator's PROMETHEUS_MULTIPROC_DIR emptied, else one in the run's directory."""
    if given := os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        for stale in Path(given).glob("*.db"):
            stale.unlink()
        return given
    (metrics := run / "metrics").mkdir()
    return str(metrics)


def redacted(url: str) -> str:
    """``url`` without its password (and user) part."""
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
    print(f"cardhall: {redacted(url)} is at the latest schema", file=sys.stderr)
    return 0
