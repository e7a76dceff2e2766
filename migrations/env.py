"""Alembic environment for Cardhall: SQLite (batch mode) and PostgreSQL.

``persistence.migrate`` passes an open connection in ``config.attributes``; the
``sqlalchemy.url`` option is used only when Alembic is run some other way.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from persistence.engine import create_engine, normalise_url
from persistence.schema import metadata

config = context.config


def run_on(connection: sa.Connection) -> None:
    """Run the migrations on an open connection."""
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Migrate through the given connection, or a new engine for the configured URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        run_on(connection)
        return
    engine = create_engine(normalise_url(config.get_main_option("sqlalchemy.url")), foreign_keys=False)
    try:
        with engine.connect() as connection:
            run_on(connection)
    finally:
        engine.dispose()


def run_offline() -> None:
    """Emit the SQL instead of running it (``alembic upgrade --sql``)."""
    context.configure(
        url=normalise_url(config.get_main_option("sqlalchemy.url")),
        target_metadata=metadata,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
