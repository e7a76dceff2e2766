"""Pytest plugin: migrated, empty databases of each SQL backend, made cheaply for every test.

Migrating with Alembic costs far more than a test that uses the database, so each
worker migrates once: SQLite a template file copied for each test, PostgreSQL one
database of the worker's own, emptied before each test (the worker runs one test at
a time, so nothing else uses it meanwhile).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa

from persistence import upgrade

KEPT_TABLES = ("alembic_version", "deployment_secrets")  # what the migrations wrote, not what a test did


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file migrated to head once, copied for each test."""
    path = tmp_path_factory.mktemp("template") / "cardhall.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A migrated SQLite database of this test's own."""
    path = tmp_path / "cardhall.db"
    shutil.copy(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture(scope="session")
def postgres_migrated(postgres_database: Callable[[], str]) -> str:
    """A PostgreSQL database migrated to head, this worker's own (emptied for each test)."""
    url = postgres_database()
    upgrade(url)
    return url


@pytest.fixture
def postgres_url(postgres_migrated: str) -> str:
    """The worker's migrated PostgreSQL database, every table emptied (whichever migrations added them)."""
    engine = sa.create_engine(postgres_migrated)
    with engine.begin() as connection:
        tables = [name for name in sa.inspect(connection).get_table_names() if name not in KEPT_TABLES]
        connection.exec_driver_sql(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
    engine.dispose()
    return postgres_migrated
