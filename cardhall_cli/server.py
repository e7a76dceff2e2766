"""``cardhall serve`` and ``cardhall db upgrade``."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from api.guard import Limits
from api.requestlog import say
from api.settings import (
    DEFAULT_DATABASE_URL,
    DEFAULT_MAX_FOLLOWERS,
    DEFAULT_MAX_FOLLOWERS_PER_CLIENT,
    DEFAULT_THREADS,
    SECRET_PARAMETERS,
    VARIABLES,
    Settings,
    duration,
    read_setting,
    redacted,
    shown,
)
from cardhall_cli import command


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes, at least 1 (default 1)")
    parser.add_argument("--threads", default=None,
                        help=f"threads per worker serving requests; followers waiting hold none (default {DEFAULT_THREADS})")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="let scripts of this site (e.g. https://example.org) call the API and its "
                             "streams; repeatable (default: none)")
    parser.add_argument("--shuffle-secret",
                        help="key of seeded shuffles (default CARDHALL_SHUFFLE_SECRET, else one kept in the database)")
    parser.add_argument("--rate-limit", default=None, metavar="SPEC|off",
                        help="each client's request limit, e.g. '50/second;1500/minute' (the default), or "
                             "'off' (benchmarks); counted across workers when there are several")
    parser.add_argument("--sqlite-synchronous", default=None, metavar="full|normal",
                        help="SQLite durability: full (the default) never loses an acknowledged move; normal "
                             "commits faster but a power loss or OS crash may drop the last moves acknowledged")
    parser.add_argument("--max-followers", default=None, metavar="N",
                        help="long-polls and streams a worker follows at once; past it they get 503 "
                             f"(default {DEFAULT_MAX_FOLLOWERS:,}; each holds a socket, no thread)")
    parser.add_argument("--max-followers-per-client", default=None, metavar="N",
                        help="long-polls and streams a worker follows at once for one client address; past it "
                             f"they get 503 (default {DEFAULT_MAX_FOLLOWERS_PER_CLIENT:,})")
    parser.add_argument("--accounts", default=None, metavar="open|closed",
                        help="open (the default): anyone may create an account (rate-limited per address); "
                             "closed: only an admin key may ('cardhall accounts create NAME --admin' makes one)")
    parser.add_argument("--log-format", default=None, metavar="text|json",
                        help="log lines as text (the default) or as one JSON object each, with the request id")
    limits = Limits()
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="ADDRESSES",
                        help="comma-separated addresses or networks of the reverse proxies whose X-Forwarded-For "
                             "names the client (default: none; every client is its TCP peer)")
    parser.add_argument("--max-headers", default=None, metavar="N",
                        help=f"headers a request may have; more is 431 (default {limits.max_headers})")
    parser.add_argument("--max-head-bytes", default=None, metavar="BYTES",
                        help=f"bytes of a request's line and headers; more is 431 (default {limits.max_head_bytes})")
    parser.add_argument("--head-timeout", default=None, metavar="SECONDS",
                        help=f"a request's head must arrive within this, from its first byte (default {limits.head_timeout:g})")
    parser.add_argument("--body-timeout", default=None, metavar="SECONDS",
                        help=f"a request's body must arrive within this, from its head (default {limits.body_timeout:g})")
    parser.add_argument("--idle-timeout", default=None, metavar="SECONDS",
                        help=f"a connection without a request is closed after this (default {limits.idle_timeout:g})")
    parser.add_argument("--max-connections-per-address", default=None, metavar="N",
                        help="connections one address may hold open to a worker; more are refused 429 "
                             f"(default {limits.max_connections_per_address}; trusted proxies are not counted)")
    parser.add_argument("--abandon-after", default=None, metavar="DURATION|off",
                        help="hand a game under way nobody moved in for this long (e.g. 1h, 30m, 2d) to house "
                             "bots, which play it to the end (default CARDHALL_ABANDON_AFTER, else 1d)")
    parser.add_argument("--webhooks-allow-private", action="store_true", default=None,
                        help="let webhook bots be called at loopback and private addresses, and over plain http "
                             "(for development; never a cloud metadata address)")
    parser.add_argument("--webhook-failures-to-open", default=None, metavar="N",
                        help="failed calls in a row that mark a webhook bot offline (default 5)")
    parser.add_argument("--webhook-retry-seconds", default=None, metavar="SECONDS",
                        help="how long an offline webhook bot waits before it is tried again, doubling with each "
                             "failed try (default 30)")
    parser.add_argument("--webhook-rotation-seconds", default=None, metavar="SECONDS",
                        help="how long a rotated webhook secret still signs (default 86400)")
    parser.add_argument("--webhook-scan-seconds", default=None, metavar="SECONDS",
                        help="how often a worker looks for turns webhook bots owe (default 1; 0: it calls none)")
    parser.add_argument("--subscription-retry-seconds", default=None, metavar="SECONDS",
                        help="the first back-off of a subscription's failed delivery, doubled each try (default 5)")
    parser.add_argument("--expire-waiting-after", default=None, metavar="DURATION|off",
                        help="end a game still waiting for players after this long with no one joining "
                             "(default CARDHALL_EXPIRE_WAITING_AFTER, else 1d)")


#: ``cardhall serve``'s idle limits: option -> (the setting, its variable). Given neither, a game idle a day ends.
IDLE_OPTIONS = {"abandon_after": ("abandon_after", "CARDHALL_ABANDON_AFTER"),
                "expire_waiting_after": ("expire_waiting_after", "CARDHALL_EXPIRE_WAITING_AFTER")}
SERVE_IDLE_DEFAULT = duration("1d")


@command("serve", _serve_arguments)
def serve(args: argparse.Namespace) -> int:
    """Start the HTTP server (gunicorn's workers running uvicorn, the app in a thread pool), migrating
    the database first."""
    try:
        settings = settings_for(args)
        if args.workers < 1:
            raise ValueError(f"--workers {args.workers}: must be at least 1")
    except ValueError as error:  # (a setting refused: said in one line, before anything starts)
        print(f"cardhall: {error}", file=sys.stderr)
        return 2
    # (from here on, what serve says is in the log's format: the settings are read)
    if (busy := port_in_use(args.host, args.port)) is not None:
        say(f"cannot listen on {args.host}:{args.port}: {busy} (another server there? choose another with --port)",
            settings.log_format, logging.ERROR)
        return 1
    # gunicorn's master migrates the database, then says what it serves, before it starts a worker
    # (gunicorn_conf.on_starting); the workers skip it. Made here, the run's directory is removed by
    # the master when it ends, however it ends (gunicorn_conf: a start that fails too), and only
    # because it bears the mark of one made here: CARDHALL_RUN_DIRECTORY is not the operator's to set.
    if os.environ.get("CARDHALL_RUN_DIRECTORY"):
        say("warning: CARDHALL_RUN_DIRECTORY is not used: cardhall serve makes a directory of its own for each run "
            "(in TMPDIR)", settings.log_format, logging.WARNING)
    # A stop asked for from here until the server can clean up after itself (gunicorn_conf, as it is loaded) waits,
    # blocked: the mask outlives the exec, so the directory made now is removed however early the stop comes.
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    run = Path(tempfile.mkdtemp(prefix=f"cardhall-{args.port}-"))
    (run / RUN_MARK).touch()
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
        say(f"warning: this process may open {sockets} files; --max-followers {settings.max_followers} × "
            f"{args.workers} workers needs more", settings.log_format, logging.WARNING)
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


#: The signals that stop a server: blocked from when ``cardhall serve`` makes the run's directory until gunicorn_conf,
#: loaded in the server's process, can remove it (a stop during gunicorn's start left it behind).
STOPS = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP})


#: The file that marks a run's directory as one ``cardhall serve`` made, which its server removes when it ends.
RUN_MARK = ".made-by-cardhall-serve"


#: ``cardhall serve``'s options that set a setting: option (its argparse name) -> the setting's variable, whose
#: reader reads the option's text too (api.settings.VARIABLES).
OPTIONS = {
    "database": "CARDHALL_DATABASE_URL", "threads": "CARDHALL_THREADS", "max_followers": "CARDHALL_MAX_FOLLOWERS",
    "max_followers_per_client": "CARDHALL_MAX_FOLLOWERS_PER_CLIENT", "rate_limit": "CARDHALL_RATE_LIMIT",
    "shuffle_secret": "CARDHALL_SHUFFLE_SECRET", "sqlite_synchronous": "CARDHALL_SQLITE_SYNCHRONOUS",
    "log_format": "CARDHALL_LOG_FORMAT", "max_headers": "CARDHALL_MAX_HEADERS", "max_head_bytes": "CARDHALL_MAX_HEAD_BYTES",
    "head_timeout": "CARDHALL_HEAD_TIMEOUT", "body_timeout": "CARDHALL_BODY_TIMEOUT", "idle_timeout": "CARDHALL_IDLE_TIMEOUT",
    "max_connections_per_address": "CARDHALL_MAX_CONNECTIONS_PER_ADDRESS", "accounts": "CARDHALL_ACCOUNTS",
    "webhooks_allow_private": "CARDHALL_WEBHOOKS_ALLOW_PRIVATE",
    "webhook_failures_to_open": "CARDHALL_WEBHOOK_FAILURES_TO_OPEN", "webhook_retry_seconds": "CARDHALL_WEBHOOK_RETRY_SECONDS",
    "webhook_rotation_seconds": "CARDHALL_WEBHOOK_ROTATION_SECONDS", "webhook_scan_seconds": "CARDHALL_WEBHOOK_SCAN_SECONDS",
    "subscription_retry_seconds": "CARDHALL_SUBSCRIPTION_RETRY_SECONDS", "forwarded_allow_ips": "CARDHALL_FORWARDED_ALLOW_IPS",
}


def settings_for(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Settings:
    """The settings ``cardhall serve`` runs with: ``environ``'s variables (by default the process's), less those
    its options replace, which are neither read nor refused, with the options over them; ValueError, naming the
    option or variable, for one refused."""
    environ = os.environ if environ is None else environ
    return _settings(Settings.from_environment(_without_overridden(environ, args)), args, environ)


def _settings(settings: Settings, args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Settings:
    """``settings`` (``environ``'s, by default the process's) with what the command line gives: an option wins
    over its variable, which wins over the default."""
    environ = os.environ if environ is None else environ
    changes: dict[str, Any] = {}
    for option, variable in OPTIONS.items():
        if (given := getattr(args, option)) is not None:
            changes[VARIABLES[variable][0].removeprefix("limits.")] = given if isinstance(given, bool) \
                else _option(option, given)
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
    return settings.replace(**changes)


def _without_overridden(environ: Mapping[str, str], args: argparse.Namespace) -> dict[str, str]:
    """``environ`` without the variables the command line's options replace: a variable an option overrides is
    neither read nor refused."""
    given = {variable for option, variable in OPTIONS.items() if getattr(args, option) is not None}
    given |= {variable for option, (_, variable) in IDLE_OPTIONS.items() if getattr(args, option) is not None}
    if args.cors_origin:
        given.add("CARDHALL_CORS_ORIGINS")
    return {name: value for name, value in environ.items() if name not in given}


def _option(option: str, text: str) -> Any:
    """The value ``text`` gives the setting of ``option`` (its argparse name), read as its variable is;
    ValueError, naming the option, if it is refused."""
    variable = OPTIONS[option]
    return read_setting(variable, text, f"--{option.replace('_', '-')} {shown(variable, text)!r}")


def database_of(given: str | None) -> str:
    """The database a command of the operator's works on: ``--database`` if ``given``, else the variable
    ``CARDHALL_DATABASE_URL``, else the default (as ``cardhall serve`` and ``cardhall db upgrade`` pick it).
    One that is no URL ends the command, status 2, once it has said so in one line."""
    try:
        if given is not None:
            return _option("database", given)
        text = os.environ.get("CARDHALL_DATABASE_URL")
        return read_setting("CARDHALL_DATABASE_URL", text, f"CARDHALL_DATABASE_URL={shown('CARDHALL_DATABASE_URL', text)!r}") \
            if text else DEFAULT_DATABASE_URL
    except ValueError as error:
        print(f"cardhall: {error}", file=sys.stderr)
        raise SystemExit(2) from None


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


def _db_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["upgrade"], help="upgrade: apply every migration")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")


@command("db", _db_arguments)
def db(args: argparse.Namespace) -> int:
    """Manage the database schema (``cardhall db upgrade``)."""
    try:
        settings = Settings.from_environment()
        if args.database is not None:
            settings = settings.replace(database_url=_option("database", args.database))
    except ValueError as error:  # (as cardhall serve says it)
        print(f"cardhall: {error}", file=sys.stderr)
        return 2
    try:
        url = migrate(settings)
    except CannotMigrate as error:  # (as cardhall serve says it, and with its status)
        print(f"cardhall: {error}", file=sys.stderr)
        return 1
    print(f"cardhall: {redacted(url)} is at the latest schema", file=sys.stderr)
    return 0


class CannotMigrate(Exception):
    """The database could not be migrated; the message says which (without its password) and why, in a line."""


def migrate(settings: Settings) -> str:
    """Apply every migration to the database of ``settings`` (made with their pool and durability); its URL.
    ``cardhall db upgrade`` and ``cardhall serve`` (gunicorn_conf) both migrate here: a database out of reach,
    a wrong password, an unknown scheme or a file that cannot be made is :class:`CannotMigrate`, not a trace."""
    import persistence
    from persistence.interruptions import reason

    url = persistence.normalise_url(settings.database_url)
    persistence.configure(persistence.DatabaseOptions(**settings.database_options()))
    try:
        persistence.upgrade(url)
    except Exception as error:
        raise CannotMigrate(f"cannot migrate {redacted(url)}: {_without_secrets(reason(error), url)}") from error
    return url


def _without_secrets(text: str, url: str) -> str:
    """``text`` with the passwords of ``url`` (before its ``@``, in its query) as ``***``, should a driver quote them."""
    from urllib.parse import parse_qsl

    import sqlalchemy as sa

    try:
        password = sa.make_url(url).password or ""  # (read as the driver is given it: a ? or / in it too)
    except (sa.exc.ArgumentError, ValueError):
        password = ""
    query = url.partition("?")[2] if not password else url.partition(password)[2].partition("?")[2]
    secrets = [str(password), *(value for name, value in parse_qsl(query) if name.lower() in SECRET_PARAMETERS)]
    for secret in filter(None, secrets):
        text = text.replace(secret, "***")
    return text
