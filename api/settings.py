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
import os
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

#: Every variable, the :class:`Settings` field it sets (``limits.x``: a field of :class:`api.guard.Limits`),
#: and how its text is read. The table "Settings" of docs/deploy.md lists exactly these.
VARIABLES: dict[str, tuple[str, Any]] = {
    "CARDHALL_DATABASE_URL": ("database_url", str),
    "CARDHALL_SKIP_MIGRATIONS": ("skip_migrations", lambda text: text == "1"),
    "CARDHALL_THREADS": ("threads", int),
    "CARDHALL_MAX_FOLLOWERS": ("max_followers", int),
    "CARDHALL_MAX_FOLLOWERS_PER_CLIENT": ("max_followers_per_client", int),
    "CARDHALL_RATE_LIMIT": ("rate_limit", str),
    "CARDHALL_CREATE_RATE_LIMIT": ("create_rate_limit", str),
    "CARDHALL_READ_RATE_LIMIT": ("read_rate_limit", str),
    "CARDHALL_RATE_LIMIT_STORAGE": ("rate_limit_storage", str),
    "CARDHALL_ACCOUNTS": ("accounts", str),
    "CARDHALL_ACCOUNT_RATE_LIMIT": ("account_rate_limit", str),
    "CARDHALL_ACCOUNT_STREAMS": ("account_streams", int),
    "CARDHALL_CORS_ORIGINS": ("cors_origins", lambda text: tuple(text.split())),
    "CARDHALL_SHUFFLE_SECRET": ("shuffle_secret", str),
    "CARDHALL_SWEEP_SECONDS": ("sweep_seconds", float),
    "CARDHALL_EXPIRE_WAITING_AFTER": ("expire_waiting_after", lambda text: duration(text)),
    "CARDHALL_ABANDON_AFTER": ("abandon_after", lambda text: duration(text)),
    "CARDHALL_IDLE_SWEEP_SECONDS": ("idle_sweep_seconds", float),
    "CARDHALL_RATINGS_SECONDS": ("ratings_seconds", float),
    "CARDHALL_LEADERBOARD_MIN_GAMES": ("leaderboard_min_games", int),
    "CARDHALL_POOL_MOVE_SECONDS": ("pool_move_seconds", lambda text: _read_pool_clocks(text)),
    "CARDHALL_LOG_FORMAT": ("log_format", str),
    "CARDHALL_SQLITE_SYNCHRONOUS": ("sqlite_synchronous", str),
    "CARDHALL_DB_POOL_SIZE": ("db_pool_size", int),
    "CARDHALL_DB_MAX_OVERFLOW": ("db_max_overflow", int),
    "CARDHALL_RUN_DIRECTORY": ("run_directory", str),
    "CARDHALL_WEBHOOKS_ALLOW_PRIVATE": ("webhooks_allow_private", lambda text: text == "1"),
    "CARDHALL_WEBHOOK_FAILURES_TO_OPEN": ("webhook_failures_to_open", int),
    "CARDHALL_WEBHOOK_RETRY_SECONDS": ("webhook_retry_seconds", float),
    "CARDHALL_WEBHOOK_ROTATION_SECONDS": ("webhook_rotation_seconds", float),
    "CARDHALL_WEBHOOK_SCAN_SECONDS": ("webhook_scan_seconds", float),
    "CARDHALL_SUBSCRIPTION_RETRY_SECONDS": ("subscription_retry_seconds", float),
    "CARDHALL_FORWARDED_ALLOW_IPS": ("limits.forwarded_allow_ips", lambda text: tuple(text.replace(",", " ").split())),
    "CARDHALL_MAX_HEADERS": ("limits.max_headers", int),
    "CARDHALL_MAX_HEAD_BYTES": ("limits.max_head_bytes", int),
    "CARDHALL_HEAD_TIMEOUT": ("limits.head_timeout", float),
    "CARDHALL_BODY_TIMEOUT": ("limits.body_timeout", float),
    "CARDHALL_IDLE_TIMEOUT": ("limits.idle_timeout", float),
    "CARDHALL_MAX_CONNECTIONS_PER_ADDRESS": ("limits.max_connections_per_address", int),
}


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
        for variable, (field, read) in VARIABLES.items():
            text = environ.get(variable)
            if text is None or (text == "" and field != "cors_origins"):
                continue
            try:
                value = read(text)
            except ValueError as error:
                raise ValueError(f"{variable}={text!r}: {error}") from error
            if field.startswith("limits."):
                limits[field.removeprefix("limits.")] = value
            else:
                given[field] = value
        return cls(**given, limits=Limits(**limits))

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
