"""Stores for the contract suite: every backend, each migrated with Alembic (never create_all, see tests/stores.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from persistence import open_store
from persistence.memory import MemoryEventStore
from persistence.port import EventStore
from persistence.sqlstore import SqlEventStore

BACKENDS = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two_stores(request: pytest.FixtureRequest) -> Iterator[tuple[EventStore, EventStore]]:
    """Two stores over one empty database, as two server processes have (a memory store is its own database)."""
    url = request.getfixturevalue(f"{request.param}_url")
    first, second = open_store(url), open_store(url)
    yield first, second
    first.close()
    second.close()
