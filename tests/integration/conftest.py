"""Stores for the contract suite: every backend, each migrated with Alembic (never create_all)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from persistence import open_store, upgrade
from persistence.memory import MemoryEventStore
from persistence.port import EventStore
from persistence.sql import SqlEventStore

BACKENDS = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


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
    """A PostgreSQL database migrated to head, shared by the session (emptied for each test)."""
    url = postgres_database()
    upgrade(url)
    return url


@pytest.fixture
def postgres_url(postgres_migrated: str) -> str:
    """The session's migrated PostgreSQL database, emptied."""
    engine = sa.create_engine(postgres_migrated)
    with engine.begin() as connection:
        connection.exec_driver_sql("TRUNCATE snapshots, events, seats, idempotency, games RESTART IDENTITY")
    engine.dispose()
    return postgres_migrated


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest) -> Iterator[EventStore]:
    """An empty store of each backend."""
    if request.param == "memory":
        backend: EventStore = MemoryEventStore()
    else:
        url = request.getfixturevalue(f"{request.param}_url")
        backend = open_store(url)
        assert isinstance(backend, SqlEventStore)
    yield backend
    backend.close()
