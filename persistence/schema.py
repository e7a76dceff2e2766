"""The tables the SQL backend reads and writes, as SQLAlchemy Core metadata.

Alembic owns the schema (``migrations/versions``); this module describes what
the code expects, and a test checks that the migrated database matches it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from persistence.port import as_utc

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(sa.TypeDecorator[dt.datetime]):
    """A timezone-aware UTC timestamp on every backend (SQLite stores it naive, in UTC)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: sa.Dialect) -> dt.datetime | None:
        if value is None:
            return None
        value = as_utc(value)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: dt.datetime | None, dialect: sa.Dialect) -> dt.datetime | None:
        return None if value is None else as_utc(value)

    def result_processor(self, dialect: sa.Dialect, coltype: object) -> Callable[[Any], dt.datetime | None] | None:
        """SQLite: the stored ISO text parsed by ``fromisoformat``, more quickly than by
        SQLAlchemy's own parser (a regular expression): a long read of events parses one a row."""
        if dialect.name != "sqlite":
            return super().result_processor(dialect, coltype)
        parse, utc = dt.datetime.fromisoformat, dt.UTC
        return lambda value: None if value is None else parse(value).replace(tzinfo=utc)


Json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
# SQLite only auto-assigns INTEGER PRIMARY KEY columns (the rowid), never BIGINT.
Position = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

metadata = sa.MetaData(naming_convention=NAMING)

# A game's version and last change are its newest event's (persistence.sqlstore.GAME_ROWS): an
# append writes its events and nothing else.
games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    # When the turn a clocked game waits for times out (null: no clock, or no turn): set with the
    # append that begins the turn, and read, through its index, only by the sweeper.
    sa.Column("deadline", UtcDateTime, nullable=True),
    sa.Index(None, "created_at", "id"),
    sa.Index(None, "deadline", sqlite_where=sa.text("deadline IS NOT NULL"),
             postgresql_where=sa.text("deadline IS NOT NULL")),  # only the clocked games that wait
    sa.Index(None, "status", "created_at", "id"),
    sa.Index(None, "game", "created_at", "id"),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("position", Position, primary_key=True, autoincrement=True),
    sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("type", sa.String(64), nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("data", Json, nullable=False),
    sa.Column("recorded_at", UtcDateTime, nullable=False),
    sa.UniqueConstraint("game_id", "version"),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), nullable=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.UniqueConstraint("game_id", "seat"),
)

idempotency = sa.Table(
    "idempotency",
    metadata,
    sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("key", sa.String(255), primary_key=True),
    sa.Column("request_hash", sa.String(64), nullable=False),
    sa.Column("body", Json, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)

# A derived cache of each game's state (the log stays the only truth): at most one
# row per game, replaced as the game goes on; see service.snapshots.
snapshots = sa.Table(
    "snapshots",
    metadata,
    sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("blob", sa.LargeBinary, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)

# Secrets of this deployment, made by the migration that adds the table (the shuffle key
# of seeded games, see service.chance); read by the server, never shown to anyone.
deployment_secrets = sa.Table(
    "deployment_secrets",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.String(128), nullable=False),
)

# Accounts (migration 0007): see persistence.accounts.
accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("name_key", sa.String(32), primary_key=True),  # the name in lower case: unique without regard to case
    sa.Column("name", sa.String(32), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("description", sa.String(500), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    # (migration 0015) who may enter it in a tournament another account makes: "anyone", "nobody" or a
    # list of names (null: set before the column was, so anyone)
    sa.Column("entered_by", Json, nullable=True),
)

api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("prefix", sa.String(16), primary_key=True),
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), nullable=False, index=True),
    sa.Column("key_hash", sa.String(64), nullable=False),  # SHA-256 of the whole key: the key itself is never kept
    sa.Column("scopes", sa.String(64), nullable=False),  # space-separated
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("revoked_at", UtcDateTime, nullable=True),
)

account_seats = sa.Table(
    "account_seats",
    metadata,
    sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), nullable=False),
    sa.Column("finished", sa.Boolean, nullable=False),
    # (migration 0018) the seat handed to a house bot (resigned, abandoned): its account plays the game no more
    sa.Column("handed_over", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Index(None, "account", "game_id"),
)

challenges = sa.Table(
    "challenges",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("challenger", sa.String(32), nullable=False),  # names as given, here and in invited and accepted
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("options", Json, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("invited", Json, nullable=True),  # or null: open to anyone
    sa.Column("accepted", Json, nullable=False),  # the challenger's first
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("revision", sa.Integer, nullable=False),  # bumped by every change: a write names the one it read
    sa.Column("game_id", sa.String(64), nullable=True),
    sa.Column("reason", sa.String(200), nullable=True),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("expires_at", UtcDateTime, nullable=False),
    sa.Column("server_seed", sa.String(64), nullable=True),  # its game's, committed to when it is made (null: drawn then)
    sa.Column("entropy", Json, nullable=True),  # what each account in accepted added (null: none)
    sa.Index(None, "status", "expires_at"),
)

account_events = sa.Table(
    "account_events",
    metadata,
    sa.Column("position", Position, primary_key=True, autoincrement=True),
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),  # the account's events counted from 1: the stream's event ids
    sa.Column("type", sa.String(32), nullable=False),
    sa.Column("data", Json, nullable=False),
    sa.Column("recorded_at", UtcDateTime, nullable=False),
    sa.UniqueConstraint("account", "seq"),
)

# Ratings (migration 0008): see persistence.ladder.
# Rated games in the order they finished: a row is written with a rated game's last events (its
# seq taken from ladder_counters' "finishes" row, whose lock makes the seqs commit in order, gap-free).
rated_finishes = sa.Table(
    "rated_finishes",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), nullable=False, unique=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("finished_at", UtcDateTime, nullable=False),
)

# Named counters: "finishes" (the last rated_finishes seq given) and "ratings" (the last one the
# ratings projection applied: written in the transaction of the ratings it changed).
ladder_counters = sa.Table(
    "ladder_counters",
    metadata,
    sa.Column("name", sa.String(16), primary_key=True),
    sa.Column("value", sa.Integer, nullable=False),
)

# The ratings projection: each account's rating in each game, and every change of it.
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("game", sa.String(32), primary_key=True),
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), primary_key=True),
    sa.Column("name", sa.String(32), nullable=False),  # the account's name as given
    sa.Column("mu", sa.Float(53), nullable=False),
    sa.Column("sigma", sa.Float(53), nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("last_played", UtcDateTime, nullable=False),
    sa.Column("last_game_id", sa.String(64), nullable=False),
)

rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),  # the rated finish applied
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("game_id", sa.String(64), nullable=False),
    sa.Column("place", sa.Integer, nullable=False),  # 1: a winner
    sa.Column("mu", sa.Float(53), nullable=False),
    sa.Column("sigma", sa.Float(53), nullable=False),
    sa.Column("at", UtcDateTime, nullable=False),
    sa.Index(None, "account", "game", "seq"),
)

# The accounts waiting in each game's pool (migration 0008): see service.pools.
pool_entries = sa.Table(
    "pool_entries",
    metadata,
    sa.Column("game", sa.String(32), primary_key=True),
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), primary_key=True),
    sa.Column("name", sa.String(32), nullable=False),  # as given
    sa.Column("bot", sa.Boolean, nullable=False),
    sa.Column("players", Json, nullable=False),  # the player counts it accepts
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("mixed", sa.Boolean, nullable=False),
    sa.Column("concurrency", sa.Integer, nullable=False),
    sa.Column("joined_at", UtcDateTime, nullable=False),
)

# Tournaments (migration 0009): what was asked for and the games made for it (service.tournaments).
tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("creator", sa.String(32), nullable=False),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("spec", Json, nullable=False),  # format, accounts, players_per_table, rounds, duplicate
    sa.Column("games", Json, nullable=False),  # [{"game_id", "round", "table", "turn", "seats"}], in the order made
    sa.Column("created_at", UtcDateTime, nullable=False),
    # (migration 0011) rounds made so far; whether more are to be made (an open Swiss); [{"round", "account"}]
    sa.Column("current_round", sa.Integer, nullable=False, server_default="1"),
    sa.Column("open", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("byes", Json, nullable=False, server_default=sa.text("'[]'")),
    sa.Index(None, "created_at", "id"),  # (migration 0016) the listing's order, newest first
)

# (migration 0016) Every account of each tournament (its name key), beside the tournament's creation time: an
# account's tournaments listed newest first without reading the others (service.tournament_list). (0017, which
# took in 0015's tournament_entries) ``entered``: another account entered it, it is not the maker; ``running``: so
# entered, and the tournament still running when last looked at. An account's running tournaments made by others
# are found among its rows still marked running (service.tournaments.MAX_RUNNING), each found finished marked so
# once; the maker's row is never marked running, so never counted.
tournament_accounts = sa.Table(
    "tournament_accounts",
    metadata,
    sa.Column("tournament_id", sa.String(64), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), primary_key=True),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("entered", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("running", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Index(None, "account", "created_at", "tournament_id"),
    sa.Index(None, "account", "running"),
)

# Webhooks (migration 0010): see persistence.webhooks and service.webhooks.
# A bot account's webhook: where its seats are called, and its circuit (consecutive failures; offline
# since when, and when it is tried again).
webhooks = sa.Table(
    "webhooks",
    metadata,
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), primary_key=True),
    sa.Column("url", sa.String(2000), nullable=False),
    sa.Column("timeout_ms", sa.Integer, nullable=False),
    sa.Column("concurrency", sa.Integer, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("offline_since", UtcDateTime, nullable=True),
    sa.Column("retry_at", UtcDateTime, nullable=True),
    sa.Column("last_latency_ms", sa.Integer, nullable=True),
    sa.Column("last_late", sa.Boolean, nullable=False),
)

# An account's signing secrets, by what they sign ("bot": its webhook's calls; "subscriptions"): the
# newest, and the ones a rotation replaced until they expire.
webhook_secrets = sa.Table(
    "webhook_secrets",
    metadata,
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), primary_key=True),
    sa.Column("purpose", sa.String(16), primary_key=True),
    sa.Column("secret", sa.String(80), primary_key=True),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("expires_at", UtcDateTime, nullable=True),  # null: the live one
)

# Each call of a webhook bot (kind "start", "move", "end"; a move's version is the turn's): its claim by
# one process (until lease_until), and how it went (the bot's latency; outcome once answered).
webhook_calls = sa.Table(
    "webhook_calls",
    metadata,
    sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("account", sa.String(32), nullable=False, index=True),
    sa.Column("claimed_by", sa.String(64), nullable=False),
    sa.Column("lease_until", UtcDateTime, nullable=False),
    sa.Column("calls", sa.Integer, nullable=False),
    sa.Column("outcome", sa.String(16), nullable=True),  # null while under way: played, illegal, invalid, late, failed
    sa.Column("latency_ms", sa.Integer, nullable=True),
    sa.Column("answered_at", UtcDateTime, nullable=True),
    # The calls under way of an account (each claim counts them against its concurrency): without it the
    # count read every call the account was ever made, a claim slower with every turn a bot had played.
    sa.Index(None, "account", "lease_until", sqlite_where=sa.text("outcome IS NULL"),
             postgresql_where=sa.text("outcome IS NULL")),
)

# An account's subscription for integrators: which of its events are sent where.
subscriptions = sa.Table(
    "subscriptions",
    metadata,
    sa.Column("account", sa.String(32), sa.ForeignKey("accounts.name_key"), primary_key=True),
    sa.Column("url", sa.String(2000), nullable=False),
    sa.Column("events", Json, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)

# The subscriptions' outbox: one row per account event a subscription wants (its id the webhook-id,
# from the account event's position: the projection writes each once), until delivered or given up.
webhook_outbox = sa.Table(
    "webhook_outbox",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("account", sa.String(32), nullable=False),
    sa.Column("payload", Json, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("next_attempt_at", UtcDateTime, nullable=True, index=True),  # null: delivered or given up
    sa.Column("delivered_at", UtcDateTime, nullable=True),
    sa.Column("last_error", sa.String(200), nullable=True),
)

# How far the outbox projection has read the account events (name "outbox").
webhook_positions = sa.Table(
    "webhook_positions",
    metadata,
    sa.Column("name", sa.String(16), primary_key=True),
    sa.Column("position", sa.BigInteger, nullable=False),
)
