"""Every setting of a server, in one object read once, at the entry point.

``cardhall serve`` makes a :class:`Settings` from its options (each falls back to its
``CARDHALL_*`` variable, then to its default) and hands it to the workers it starts as
those variables (:meth:`Settings.environment`); a worker reads them back, once, where its
app is made (:meth:`Settings.from_environment`, in ``api.wsgi.create`` / ``api.asgi``).
Nothing else in the server reads a ``CARDHALL_*`` variable: the database layer is given its
pool and durability (:meth:`Settings.database_options`). :data:`VARIABLES` is the one
list of them, which docs/deploy.md's table ("Settings") must match (a test holds it).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

from api.guard import Limits
from service.pools import pool_clocks
from service.ratings import RATINGS_SECONDS
from service.sweeper import IDLE_SWEEP_SECONDS, SWEEP_SECONDS

DEFAULT_DATABASE_URL = "sqlite:///cardhall.db"
DEFAULT_RATE_LIMIT = "50/second;1500/minute"
DEFAULT_CREATE_RATE_LIMIT = "120/minute"
DEFAULT_READ_RATE_LIMIT = "10000/second;100000/minute"
DEFAULT_ACCOUNT_RATE_LIMIT = "5/minute;20/day"
DEFAULT_MAX_FOLLOWERS = 10_000
#: One address may hold a tenth of a worker's followers: it cannot take them all (a proxy's clients share its address).
DEFAULT_MAX_FOLLOWERS_PER_CLIENT = 1_000
DEFAULT_THREADS = 32
DEFAULT_LEADERBOARD_MIN_GAMES = 10
DEFAULT_ACCOUNT_STREAMS = 4  # streams an account holds open in a worker; a new one past it closes the oldest

#: The settings whose text may hold a password: shown redacted (:func:`redacted`) when refused.
SECRET_URLS = ("CARDHALL_DATABASE_URL", "CARDHALL_RATE_LIMIT_STORAGE")

def read_setting(variable: str, text: str, given_as: str) -> Any:
    """The value ``text`` gives the setting of ``variable`` (given as ``given_as``: the variable, or the option
    that stands for it); ValueError, naming ``given_as``, if it is refused."""
    try:
        return VARIABLES[variable][1](text)
    except ValueError as error:
        raise ValueError(f"{given_as}: {error}") from error


def shown(variable: str, text: str) -> str:
    """``text`` as the setting of ``variable`` may be shown: without a password."""
    return redacted(text) if variable in SECRET_URLS else text


#: The fewest headers, and bytes of a head, a server may be limited to: an ordinary browser's request behind a
#: proxy or two has some 20 headers and a few KiB of head (cookies included); below these every request may be refused.
MIN_HEADERS, MIN_HEAD_BYTES = 32, 8192


def _number(text: str, kind: type[int] | type[float], *, least: float | None = None, above: float | None = None) -> Any:
    """``text`` as a whole number (``kind`` int) or a number, no less than ``least`` / more than ``above``."""
    try:
        value = kind(text)
    except ValueError:
        raise ValueError("not a whole number" if kind is int else "not a number") from None
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    if least is not None and value < least:
        raise ValueError(f"must be at least {least:g}")
    if above is not None and value <= above:
        raise ValueError(f"must be more than {above:g}")
    return value


def _choice(text: str, *choices: str) -> str:
    """``text`` as one of ``choices`` (in any case)."""
    spoken = text.strip().lower()
    if spoken not in choices:
        raise ValueError(f"must be {' or '.join(choices)}")
    return spoken


TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def boolean(text: str) -> bool:
    """``text`` as a yes or a no: 1, true, yes, on or 0, false, no, off (in any case)."""
    spoken = text.strip().lower()
    if spoken not in TRUE + FALSE:
        raise ValueError(f"must be one of {', '.join(TRUE)} (yes) or {', '.join(FALSE)} (no)")
    return spoken in TRUE


def database_url(text: str) -> str:
    """``text`` if it is a URL (a scheme, then ``://``): a mangled one is not taken for the name of an SQLite file."""
    if not re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text.strip()):
        raise ValueError("not a database URL (e.g. sqlite:///cardhall.db or postgresql://cardhall@db.internal/cardhall)")
    return text.strip()


def rate_limit(text: str, *, off: bool = False) -> str:
    """``text`` if the limits library reads it as rate limits (e.g. '50/second;1500/minute'), each of at least one
    request; or 'off', where ``off`` allows it."""
    from limits import parse_many

    spec = text.strip()
    if off and spec.lower() == "off":
        return "off"
    example = "e.g. '50/second;1500/minute'" + (" or 'off'" if off else "")
    try:
        items = parse_many(spec)
    except ValueError:
        raise ValueError(f"not a rate limit ({example})") from None
    if any(item.amount < 1 for item in items):
        raise ValueError(f"not a rate limit ({example}): a limit of 0 refuses every request")
    return spec


#: The Python package each of the limits library's storages needs, and the extra of that library that brings it.
_STORAGE_PACKAGES = {"redis": "redis", "valkey": "valkey", "pymemcache": "memcached", "pymongo": "mongodb"}


def rate_limit_storage(text: str) -> str:
    """``text`` if it names a storage of the rate limits' counters that the limits library knows and this Python can
    use: its scheme registered (``cardhall+sqlite`` by :mod:`api.ratelimits`), not an asynchronous one (the limiter
    counts in the request's thread), and the package it needs installed."""
    import importlib.util

    from limits.storage import SCHEMES

    from api import ratelimits  # noqa: F401  (registers cardhall+sqlite://)

    uri = text.strip()
    scheme = uri.partition("://")[0] if "://" in uri else ""
    known = sorted(name for name in SCHEMES if not name.startswith("async+"))
    if scheme not in SCHEMES or scheme.startswith("async+"):
        raise ValueError(f"not a storage the limits library knows (schemes: {', '.join(f'{name}://' for name in known)})")
    needed = [name.split(".")[0] for name in (getattr(SCHEMES[scheme], "DEPENDENCIES", None) or [])]
    needed = [name for name in needed if name.startswith("valkey") == scheme.startswith("valkey")]
    for package in dict.fromkeys(needed):
        if importlib.util.find_spec(package) is None:
            extra = _STORAGE_PACKAGES.get(package, package)
            raise ValueError(f"{scheme}:// needs the Python package {package}, which is not installed: "
                             f"pip install {package} (or 'limits[{extra}]')")
    return uri


def proxy_addresses(text: str) -> tuple[str, ...]:
    """The addresses and networks (comma- or space-separated) of trusted proxies, or ``*`` alone (every peer):
    a name or a mistyped address would be trusted for nothing, silently."""
    given = tuple(text.replace(",", " ").split())
    if given == ("*",):
        return given
    for entry in given:
        try:
            ipaddress.ip_network(entry) if "/" in entry else ipaddress.ip_address(entry)
        except ValueError as error:
            why = "'*' trusts every peer and stands alone" if entry == "*" else \
                str(error) if "/" in entry else f"{entry!r} is not an IP address"
            raise ValueError(f"{why} (only addresses and networks are taken, e.g. 10.0.0.2 or 10.0.0.0/8)") from None
    return given


#: The libpq parameters of a URL's query that hold a secret (libpq takes every parameter there, docs/deploy.md).
SECRET_PARAMETERS = ("password", "sslpassword")
_SECRET_PARAMETER = re.compile(rf"(?i)((?:^|&)(?:{'|'.join(SECRET_PARAMETERS)})=)[^&#]*")


#: A URL's user and password part as SQLAlchemy reads it: a password runs to the first ``@`` (``?`` and ``/`` in it too).
_USER_PART = re.compile(r"[^:/]*(?::[^@]*)?@")


def redacted(url: str) -> str:
    """``url`` without its secrets: its user and password part, and a password given in its query."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        scheme, rest = "", url
    if (user := _USER_PART.match(rest)) is not None:
        rest = rest[user.end():]
        host_ends = min((at for at in (rest.find("/"), rest.find("?")) if at >= 0), default=len(rest))
        rest = "***@" + rest[rest.rfind("@", 0, host_ends) + 1:]  # (a raw @ in the password: cut at the host's last)
    place, mark, query = rest.partition("?")
    query = _SECRET_PARAMETER.sub(r"\1***", query)
    return f"{scheme}{separator}{place}{mark}{query}"


DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(text: str) -> float | None:
    """Seconds in a duration such as '90s', '30m', '1h', '2d' (a bare number: seconds); None for 'off'."""
    spoken = text.strip().lower()
    if spoken == "off":
        return None
    number, unit = (spoken[:-1], DURATION_UNITS[spoken[-1]]) if spoken[-1:] in DURATION_UNITS else (spoken, 1)
    try:
        seconds = float(number) * unit
    except ValueError:
        seconds = -1
    if not 0 < seconds < float("inf"):
        raise ValueError("not a duration (e.g. 90s, 30m, 1h, 2d, or off)")
    return seconds


def _read_pool_clocks(text: str) -> str:
    """``CARDHALL_POOL_MOVE_SECONDS`` as given, once :func:`service.pools.pool_clocks` has read it (ValueError else)."""
    pool_clocks(text)
    return text


#: Every variable, the :class:`Settings` field it sets (``limits.x``: a field of :class:`api.guard.Limits`),
#: and how its text is read: each reader refuses (ValueError, saying why) what the server could not run with, so
#: that a mistyped setting stops the start in one line, whichever command starts the server (``cardhall serve``'s
#: options are read by their variables' readers). The table "Settings" of docs/deploy.md lists exactly these.
VARIABLES: dict[str, tuple[str, Any]] = {
    "CARDHALL_DATABASE_URL": ("database_url", database_url),
    "CARDHALL_SKIP_MIGRATIONS": ("skip_migrations", boolean),
    "CARDHALL_THREADS": ("threads", lambda text: _number(text, int, least=1)),
    "CARDHALL_MAX_FOLLOWERS": ("max_followers", lambda text: _number(text, int, least=1)),
    "CARDHALL_MAX_FOLLOWERS_PER_CLIENT": ("max_followers_per_client", lambda text: _number(text, int, least=1)),
    "CARDHALL_RATE_LIMIT": ("rate_limit", lambda text: rate_limit(text, off=True)),
    "CARDHALL_CREATE_RATE_LIMIT": ("create_rate_limit", rate_limit),
    "CARDHALL_READ_RATE_LIMIT": ("read_rate_limit", rate_limit),
    "CARDHALL_RATE_LIMIT_STORAGE": ("rate_limit_storage", rate_limit_storage),
    "CARDHALL_ACCOUNTS": ("accounts", lambda text: _choice(text, "open", "closed")),
    "CARDHALL_ACCOUNT_RATE_LIMIT": ("account_rate_limit", rate_limit),
    "CARDHALL_ACCOUNT_STREAMS": ("account_streams", lambda text: _number(text, int, least=1)),
    "CARDHALL_CORS_ORIGINS": ("cors_origins", lambda text: tuple(text.split())),
    "CARDHALL_SHUFFLE_SECRET": ("shuffle_secret", str),
    "CARDHALL_SWEEP_SECONDS": ("sweep_seconds", lambda text: _number(text, float, least=0)),
    "CARDHALL_EXPIRE_WAITING_AFTER": ("expire_waiting_after", duration),
    "CARDHALL_ABANDON_AFTER": ("abandon_after", duration),
    "CARDHALL_IDLE_SWEEP_SECONDS": ("idle_sweep_seconds", lambda text: _number(text, float, above=0)),
    "CARDHALL_RATINGS_SECONDS": ("ratings_seconds", lambda text: _number(text, float, least=0)),
    "CARDHALL_LEADERBOARD_MIN_GAMES": ("leaderboard_min_games", lambda text: _number(text, int, least=0)),
    "CARDHALL_POOL_MOVE_SECONDS": ("pool_move_seconds", _read_pool_clocks),
    "CARDHALL_LOG_FORMAT": ("log_format", lambda text: _choice(text, "text", "json")),
    "CARDHALL_SQLITE_SYNCHRONOUS": ("sqlite_synchronous", lambda text: _choice(text, "full", "normal")),
    "CARDHALL_DB_POOL_SIZE": ("db_pool_size", lambda text: _number(text, int, least=1)),
    "CARDHALL_DB_MAX_OVERFLOW": ("db_max_overflow", lambda text: _number(text, int, least=0)),
    "CARDHALL_RUN_DIRECTORY": ("run_directory", str),
    "CARDHALL_WEBHOOKS_ALLOW_PRIVATE": ("webhooks_allow_private", boolean),
    "CARDHALL_WEBHOOK_FAILURES_TO_OPEN": ("webhook_failures_to_open", lambda text: _number(text, int, least=1)),
    "CARDHALL_WEBHOOK_RETRY_SECONDS": ("webhook_retry_seconds", lambda text: _number(text, float, above=0)),
    "CARDHALL_WEBHOOK_ROTATION_SECONDS": ("webhook_rotation_seconds", lambda text: _number(text, float, least=0)),
    "CARDHALL_WEBHOOK_SCAN_SECONDS": ("webhook_scan_seconds", lambda text: _number(text, float, least=0)),
    "CARDHALL_SUBSCRIPTION_RETRY_SECONDS": ("subscription_retry_seconds", lambda text: _number(text, float, above=0)),
    "CARDHALL_FORWARDED_ALLOW_IPS": ("limits.forwarded_allow_ips", proxy_addresses),
    "CARDHALL_MAX_HEADERS": ("limits.max_headers", lambda text: _number(text, int, least=MIN_HEADERS)),
    "CARDHALL_MAX_HEAD_BYTES": ("limits.max_head_bytes", lambda text: _number(text, int, least=MIN_HEAD_BYTES)),
    "CARDHALL_HEAD_TIMEOUT": ("limits.head_timeout", lambda text: _number(text, float, above=0)),
    "CARDHALL_BODY_TIMEOUT": ("limits.body_timeout", lambda text: _number(text, float, above=0)),
    "CARDHALL_IDLE_TIMEOUT": ("limits.idle_timeout", lambda text: _number(text, float, above=0)),
    "CARDHALL_MAX_CONNECTIONS_PER_ADDRESS": ("limits.max_connections_per_address", lambda text: _number(text, int, least=1)),
}

@dataclasses.dataclass(frozen=True)
class Settings:
    """A server's settings (docs/deploy.md, "Settings", says what each does)."""

    database_url: str = DEFAULT_DATABASE_URL
    skip_migrations: bool = False
    threads: int = DEFAULT_THREADS
    max_followers: int = DEFAULT_MAX_FOLLOWERS
    max_followers_per_client: int = DEFAULT_MAX_FOLLOWERS_PER_CLIENT
    rate_limit: str = DEFAULT_RATE_LIMIT
    create_rate_limit: str = DEFAULT_CREATE_RATE_LIMIT
    read_rate_limit: str = DEFAULT_READ_RATE_LIMIT
    rate_limit_storage: str = "memory://"
    accounts: str = "open"
    account_rate_limit: str = DEFAULT_ACCOUNT_RATE_LIMIT
    account_streams: int = DEFAULT_ACCOUNT_STREAMS
    cors_origins: tuple[str, ...] = ()
    shuffle_secret: str | None = None
    sweep_seconds: float = SWEEP_SECONDS
    expire_waiting_after: float | None = None
    abandon_after: float | None = None
    idle_sweep_seconds: float = IDLE_SWEEP_SECONDS
    ratings_seconds: float = RATINGS_SECONDS
    leaderboard_min_games: int = DEFAULT_LEADERBOARD_MIN_GAMES
    pool_move_seconds: str = ""  # the pools' clocks: SECONDS, GAME=SECONDS, comma-separated (service.pools.pool_clocks)
    log_format: str = "text"
    sqlite_synchronous: str = "full"
    db_pool_size: int | None = None
    db_max_overflow: int = 0
    run_directory: str | None = None
    webhooks_allow_private: bool = False
    webhook_failures_to_open: int = 5
    webhook_retry_seconds: float = 30.0
    webhook_rotation_seconds: float = 86_400.0
    webhook_scan_seconds: float = 1.0
    subscription_retry_seconds: float = 5.0
    limits: Limits = dataclasses.field(default_factory=Limits)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the ``CARDHALL_*`` variables of ``environ`` (default: the process's) give; defaults elsewhere."""
        environ = os.environ if environ is None else environ
        given: dict[str, Any] = {}
        limits: dict[str, Any] = {}
        for variable, (field, _) in VARIABLES.items():
            text = environ.get(variable)
            if text is None or (text == "" and field != "cors_origins"):
                continue
            value = read_setting(variable, text, f"{variable}={shown(variable, text)!r}")
            if field.startswith("limits."):
                limits[field.removeprefix("limits.")] = value
            else:
                given[field] = value
        return cls(**given, limits=Limits(**limits))

    @classmethod
    def of_process(cls, status: int) -> Settings:
        """The process's settings (:meth:`from_environment`); if one is refused, the process ends with ``status``
        once it has said in one line which and why (in a worker, gunicorn's 3: its master stops rather than
        start worker after worker that cannot boot)."""
        try:
            return cls.from_environment()
        except ValueError as error:
            print(f"cardhall: {error}", file=sys.stderr, flush=True)
            raise SystemExit(status) from None

    def replace(self, **changes: Any) -> Settings:
        """These settings with ``changes`` (``limits`` fields by their own names)."""
        limit_fields = {field.name for field in dataclasses.fields(Limits)}
        limits = {name: changes.pop(name) for name in list(changes) if name in limit_fields}
        return dataclasses.replace(self, **changes, limits=dataclasses.replace(self.limits, **limits))

    def environment(self) -> dict[str, str]:
        """The variables that give these settings (to hand them to the workers a server starts)."""
        variables: dict[str, str] = {}
        for variable, (field, _) in VARIABLES.items():
            value: Any = getattr(self.limits, field.removeprefix("limits.")) if field.startswith("limits.") \
                else getattr(self, field)
            if value is None:  # (unset: the default; "" clears a variable the server was started with)
                value = ""
            elif isinstance(value, bool):
                value = "1" if value else "0"
            elif isinstance(value, tuple):
                value = " ".join(value)
            variables[variable] = str(value)
        return variables

    def database_options(self) -> dict[str, Any]:
        """How the worker's database engines are made (``service.bootstrap.open_service``'s options)."""
        return {"pool_size": self.db_pool_size, "max_overflow": self.db_max_overflow,
                "sqlite_synchronous": self.sqlite_synchronous}

    def app_config(self) -> dict[str, Any]:
        """The Flask app's settings (``api.create_app``'s config)."""
        return {
            "CARDHALL_MAX_FOLLOWERS": self.max_followers,
            "CARDHALL_MAX_FOLLOWERS_PER_CLIENT": self.max_followers_per_client,
            "CARDHALL_RATE_LIMIT": self.rate_limit,
            "CARDHALL_CREATE_RATE_LIMIT": self.create_rate_limit,
            "CARDHALL_READ_RATE_LIMIT": self.read_rate_limit,
            "CARDHALL_RATE_LIMIT_STORAGE": self.rate_limit_storage,
            "CARDHALL_ACCOUNTS": self.accounts,
            "CARDHALL_ACCOUNT_RATE_LIMIT": self.account_rate_limit,
            "CARDHALL_ACCOUNT_STREAMS": self.account_streams,
            "CARDHALL_CORS_ORIGINS": list(self.cors_origins),
            "CARDHALL_LEADERBOARD_MIN_GAMES": self.leaderboard_min_games,
            "CARDHALL_POOL_MOVE_SECONDS": pool_clocks(self.pool_move_seconds),
            "CARDHALL_WEBHOOK_OPTIONS": {
                "allow_private": self.webhooks_allow_private, "failures_to_open": self.webhook_failures_to_open,
                "retry_seconds": self.webhook_retry_seconds, "rotation_seconds": self.webhook_rotation_seconds,
                "scan_seconds": self.webhook_scan_seconds, "subscription_retry_seconds": self.subscription_retry_seconds},
        }
