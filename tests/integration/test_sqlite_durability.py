"""SQLite commits with synchronous=FULL unless the operator chooses NORMAL, knowing what it risks."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from persistence import DatabaseOptions, configure, open_store

FULL, NORMAL = 2, 1  # (PRAGMA synchronous's answers)


def synchronous(url: str, setting: str | None = None) -> int:
    if setting is not None:
        configure(DatabaseOptions(sqlite_synchronous=setting))
    store = open_store(url)
    try:
        with store.engine.connect() as connection:
            return connection.execute(sa.text("PRAGMA synchronous")).scalar()
    finally:
        store.close()
        configure(DatabaseOptions())


def test_an_acknowledged_commit_is_on_the_disk_by_default(sqlite_url):
    assert synchronous(sqlite_url) == FULL


def test_the_operator_may_choose_normal(sqlite_url):
    assert synchronous(sqlite_url, "normal") == NORMAL


def test_another_setting_is_refused(sqlite_url):
    with pytest.raises(ValueError, match="full or normal"):
        synchronous(sqlite_url, "off")
