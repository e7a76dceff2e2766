"""``cardhall serve`` and ``cardhall db upgrade``."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from api.guard import Limits
from api.settings import DEFAULT_MAX_FOLLOWERS, DEFAULT_MAX_FOLLOWERS_PER_CLIENT, DEFAULT_THREADS, Settings, duration
from cardhall_cli import command


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--threads", type=int, default=None,
                        help=f"threads per worker serving requests; followers waiting hold none (default {DEFAULT_THREADS})")
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
                        help="long-polls and streams a worker follows at once; past it they get 503 "
                             f"(default {DEFAULT_MAX_FOLLOWERS:,}; each holds a socket, no thread)")
    parser.add_argument("--max-followers-per-client", type=int, default=None,
                        help="long-polls and streams a worker follows at once for one client address; past it "
                             f"they get 503 (default {DEFAULT_MAX_FOLLOWERS_PER_CLIENT:,})")
    parser.add_argument("--accounts", choices=["open", "closed"], default=None,
                        help="open (the default): anyone may create an account (rate-limited per address); "
                             "closed: only an admin key may ('cardhall accounts create NAME --admin' makes one)")
    parser.add_argument("--log-format", choices=["text", "json"], default=None,
                        help="log lines as text (the default) or as one JSON object each, with the request id")
    limits = Limits()
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="ADDRESSES",
                        help="comma-separated addresses or networks of the reverse proxies whose X-Forwarded-For "
                             "names the client (default: none; every client is its TCP peer)")
    parser.add_argument("--max-headers", type=int, default=None, metavar="N",
                        help=f"headers a request may have; more is 431 (default {limits.max_headers})")
    parser.add_argument("--max-head-bytes", type=int, default=None, metavar="BYTES",
                        help=f"bytes of a request's line and headers; more is 431 (default {limits.max_head_bytes})")
    parser.add_argument("--head-timeout", type=float, default=None, metavar="SECONDS",
                        help=f"a request's head must arrive within this, from its first byte (default {limits.head_timeout:g})")
    parser.add_argument("--body-timeout", type=float, default=None, metavar="SECONDS",
                        help=f"a request's body must arrive within this, from its head (default {limits.body_timeout:g})")
    parser.add_argument("--idle-timeout", type=float, default=None, metavar="SECONDS",
                        help=f"a connection without a request is closed after this (default {limits.idle_timeout:g})")
    parser.add_argument("--max-connections-per-address", type=int, default=None, metavar="N",
                        help="connections one address may hold open to a worker; more are refused 429 "
                             f"(default {limits.max_connections_per_address}; trusted proxies are not counted)")
    parser.add_argument("--abandon-after", default=None, metavar="DURATION|off",
                        help="hand a game under way nobody moved in for this long (e.g. 1h, 30m, 2d) to house "
                             "bots, which play it to the end (default CARDHALL_ABANDON_AFTER, else 1d)")
    parser.add_argument("--webhooks-allow-private", action="store_true", default=None,
                        help="let webhook bots be called at loopback and private addresses, and over plain http "
                             "(for development; never a cloud metadata address)")
    parser.add_argument("--webhook-failures-to-open", type=int, default=None, metavar="N",
                        help="failed calls in a row that mark a webhook bot offline (default 5)")
    parser.add_argument("--webhook-retry-seconds", type=float, default=None, metavar="SECONDS",
                        help="how long an offline webhook bot waits before it is tried again, doubling with each "
                             "failed try (default 30)")
    parser.add_argument("--webhook-rotation-seconds", type=float, default=None, metavar="SECONDS",
                        help="how long a rotated webhook secret still signs (default 86400)")
    parser.add_argument("--webhook-scan-seconds", type=float, default=None, metavar="SECONDS",
                        help="how often a worker looks for turns webhook bots owe (default 1; 0: it calls none)")
    parser.add_argument("--subscription-retry-seconds", type=float, default=None, metavar="SECONDS",
                        help="the first back-off of a subscription's failed delivery, doubled each try (default 5)")
    parser.add_argument("--expire-waiting-after", default=None, metavar="DURATION|off",
                        help="end a game still waiting for players after this long with no one joining "
                             "(default CARDHALL_EXPIRE_WAITING_AFTER, else 1d)")


#: ``cardhall serve``'s idle limits: option -> (the setting, its variable). Given neither, a game idle a day ends.
IDLE_OPTIONS = {"abandon_after": ("abandon_after", "CARDHALL_ABANDON_AFTER"),
                "expire_waiting_after": ("expire_waiting_after", "CARDHALL_EXPIRE_WAITING_AFTER")}
SERVE_IDLE_DEFAULT = duration("1d")


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
    try:
        settings = _settings(Settings.from_environment(), args)
    except ValueError as error:
        print(f"cardhall: {error}", file=sys.stderr)
        return 2
    if min(settings.max_followers, settings.max_followers_per_client, settings.threads) < 1:
        print("cardhall: --max-followers, --max-followers-per-client and --threads must be at least 1", file=sys.stderr)
        return 2
    if (busy := port_in_use(args.host, args.port)) is not None:
        print(f"cardhall: cannot listen on {args.host}:{args.port}: {busy} (another server there? choose "
              f"another with --port)", file=sys.stderr)
        return 1
    # gunicorn's master migrates the database, then says what it serves, before it starts a worker
    # (gunicorn_conf.on_starting); the workers skip it. Made here, the run's directory is removed by
    # the master when it ends, however it ends (gunicorn_conf: a start that fails too).
    run = Path(tempfile.mkdtemp(prefix=f"cardhall-{args.port}-"))
    settings = settings.replace(skip_migrations=True, run_directory=str(run))
    if args.workers > 1 and "CARDHALL_RATE_LIMIT_STORAGE" not in os.environ:  # (one worker: its memory)
        settings = settings.replace(rate_limit_storage=f"cardhall+sqlite://{run / 'ratelimits.db'}")
    os.environ.update(settings.environment())  # (the workers read their settings back: api.settings)
    # glibc gives each thread that allocates its own malloc arena (up to 8 per core), and arenas
    # seldom give memory back, so a worker's RSS creeps up as more of its threads serve; two
    # arenas bound that (docs/performance.md, "Soak"), and under the GIL their lock is no contention.
    os.environ.setdefault("MALLOC_ARENA_MAX", "2")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_directory(run)
    sockets = raise_open_files_limit()
    if sockets < settings.max_followers * args.workers:
        print(f"cardhall: warning: this process may open {sockets} files; --max-followers "
              f"{settings.max_followers} × {args.workers} workers needs more", file=sys.stderr)
    argv = [
        "gunicorn", "api.asgi:app",
        "--config", "python:cardhall_cli.gunicorn_conf",  # (uvicorn's worker class, the hooks, the logging)
        "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.workers),
        "--backlog", "4096",
        "--timeout", "120",
        "--graceful-timeout", "10",
        "--keep-alive", f"{max(1, round(settings.limits.idle_timeout))}",
    ]
    os.execvp(sys.executable, [sys.executable, "-m", *argv])
    return 0  # not reached


#: ``cardhall serve``'s options that set a setting: option (its argparse name) -> the setting.
OPTIONS = {
    "database": "database_url", "threads": "threads", "max_followers": "max_followers",
    "max_followers_per_client": "max_followers_per_client", "rate_limit": "rate_limit",
    "shuffle_secret": "shuffle_secret", "sqlite_synchronous": "sqlite_synchronous", "log_format": "log_format",
    "max_headers": "max_headers", "max_head_bytes": "max_head_bytes", "head_timeout": "head_timeout",
    "body_timeout": "body_timeout", "idle_timeout": "idle_timeout",
    "max_connections_per_address": "max_connections_per_address", "accounts": "accounts",
    "webhooks_allow_private": "webhooks_allow_private", "webhook_failures_to_open": "webhook_failures_to_open",
    "webhook_retry_seconds": "webhook_retry_seconds", "webhook_rotation_seconds": "webhook_rotation_seconds",
    "webhook_scan_seconds": "webhook_scan_seconds", "subscription_retry_seconds": "subscription_retry_seconds",
}


def _settings(settings: Settings, args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Settings:
    """``settings`` (``environ``'s, by default the process's) with what the command line gives: an option wins
    over its variable, which wins over the default."""
    environ = os.environ if environ is None else environ
    changes = {setting: getattr(args, option) for option, setting in OPTIONS.items()
               if getattr(args, option) is not None}
    if args.cors_origin:
        changes["cors_origins"] = tuple(args.cors_origin)
    for option, (setting, variable) in IDLE_OPTIONS.items():
        if (given := getattr(args, option)) is not None:
            try:
                changes[setting] = duration(given)
            except ValueError as error:
                raise ValueError(f"--{option.replace('_', '-')} {given!r}: {error}") from error
        elif not environ.get(variable):  # (neither option nor variable: cardhall serve's own default)
            changes[setting] = SERVE_IDLE_DEFAULT
    if args.forwarded_allow_ips is not None:
        changes["forwarded_allow_ips"] = tuple(args.forwarded_allow_ips.replace(",", " ").split())
    return settings.replace(**changes)


def port_in_use(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on now (bound as gunicorn binds it, with SO_REUSEADDR), or None
    if it can: said at once, rather than after gunicorn's five attempts a second apart."""
    import socket

    try:
        family, kind, protocol, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except OSError as error:
        return str(error)
    with socket.socket(family, kind, protocol) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            return error.strerror or str(error)
    return None


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

    settings = Settings.from_environment()
    persistence.configure(persistence.DatabaseOptions(**settings.database_options()))
    url = persistence.normalise_url(args.database or settings.database_url)
    persistence.upgrade(url)
    print(f"cardhall: {redacted(url)} is at the latest schema", file=sys.stderr)
    return 0
