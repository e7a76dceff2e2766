"""Pytest plugin: ``live_server``, the base URL of a real ``cardhall serve`` process shared by a session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.server import running_server


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server process over a fresh SQLite database, started once per test session."""
    with running_server(tmp_path_factory.mktemp("live_server")) as base_url:
        yield base_url
