"""Shared pytest configuration: PostgreSQL, migrated stores, and the order tests are handed out in."""

from __future__ import annotations

import os
import ssl
from typing import Any

import httpx
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


def pytest_configure(config: pytest.Config) -> None:
    """One TLS context for every httpx client of the run: httpx loads every trusted certificate into a
    new one for each ``Client`` and each ``httpx.get`` (tens of milliseconds of CPU, for http:// URLs
    too), and the tests make thousands of them against their local servers."""
    shared = httpx.create_ssl_context()
    made = httpx._transports.default.create_ssl_context

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
        return shared if verify is True and cert is None else made(verify=verify, cert=cert, trust_env=trust_env)

    httpx._transports.default.create_ssl_context = create_ssl_context
