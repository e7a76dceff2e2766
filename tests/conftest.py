"""Shared pytest configuration: PostgreSQL, migrated stores, and the order tests are handed out in."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["tests.pg", "tests.stores"]

# Tests that mostly wait (on server processes, sockets, sleeps) leave a core idle while they
# do: twice as many workers as cores keeps both busy (see pytest_xdist_auto_num_workers).
WORKERS_PER_CORE = 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` first, so parallel workers share them out instead of one ending on them."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown (and unused) without it
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: WORKERS_PER_CORE workers for each core this process may use."""
    return WORKERS_PER_CORE * len(os.sched_getaffinity(0))
