"""Running the Alembic migrations programmatically, safely from several processes at once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

import migrations
from persistence.engine import WRITE, create_engine, normalise_url

# Any constant the application uses for no other advisory lock ("cardhall" in ASCII).
UPGRADE_LOCK_KEY = 0x63617264_68616C6C


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config pointing at the installed ``migrations`` package, not the working directory."""
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    config.set_main_option("sqlalchemy.url", normalise_url(url).replace("%", "%%"))
    return config


class NewerSchema(Exception):
    """The database is at a revision these migrations do not have: a newer release migrated it."""


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Migrate the database at ``url`` to ``revision``; a no-op for the in-memory store. :class:`NewerSchema` if a
    newer release migrated it (alembic alone says only that it "can't locate revision")."""

    def migrate(config: Config) -> None:
        connection = config.attributes["connection"]  # (read plainly: alembic's context would log its lines twice)
        current = connection.scalar(sa.text("SELECT version_num FROM alembic_version")) \
            if sa.inspect(connection).has_table("alembic_version") else None
        script = ScriptDirectory.from_config(config)
        if current is not None and current not in {known.revision for known in script.walk_revisions()}:
            raise NewerSchema(f"the database is at schema revision {current}, which this release does not know: a newer "
                              "release migrated it (there is no downgrade: serve it with that release or a later one, "
                              "or restore a backup taken before that upgrade; this release's newest revision is "
                              f"{script.get_current_head()})")
        command.upgrade(config, revision)

    _run(url, migrate)


def downgrade(url: str | None, revision: str) -> None:
    """Migrate the database at ``url`` down to ``revision`` (``base`` empties it)."""
    _run(url, lambda config: command.downgrade(config, revision))


def current_revision(url: str | None = None) -> str | None:
    """The revision the database is at, None if it was never migrated."""
    with _locked_connection(normalise_url(url)) as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str:
    """The revision the code's migrations end at."""
    return ScriptDirectory.from_config(alembic_config("memory://")).get_current_head()


def _run(url: str | None, migrate: Callable[[Config], None]) -> None:
    url = normalise_url(url)
    if url.startswith("memory:"):
        return
    with _locked_connection(url) as connection:
        config = alembic_config(url)
        config.attributes["connection"] = connection
        migrate(config)


@contextmanager
def _locked_connection(url: str) -> Iterator[sa.Connection]:
    """One transaction holding the database's migration lock, so concurrent upgrades queue.

    SQLite: ``BEGIN IMMEDIATE`` (its DDL is transactional). PostgreSQL: a
    transaction-level advisory lock (its DDL is transactional too).
    """
    engine = create_engine(url, foreign_keys=False)
    try:
        with engine.connect() as connection:
            connection.execution_options(**{WRITE: True})
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    connection.execute(sa.select(sa.func.pg_advisory_xact_lock(UPGRADE_LOCK_KEY)))
                yield connection
    finally:
        engine.dispose()
