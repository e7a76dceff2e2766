"""SQLite commits with synchronous=FULL unless the operator chooses NORMAL, knowing what it risks."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from persistence import open_store

FULL, NORMAL = 2, 1  # (PRAGMA synchronous's answers)


def synchronous(url: str) -> int:
    store = open_store(url)
    try:
        with store.engine.connect() as connection:
            return connection.execute(sa.text("PRAGMA synchronous")).scalar()
    finally:
        store.close()


def test_an_acknowledged_commit_is_on_the_disk_by_default(sqlite_url, monkeypatch):
    monkeypatch.delenv("CARDHALL_SQLITE_SYNCHRONOUS", raising=False)
    assert synchronous(sqlite_url) == FULL


def test_the_operator_may_choose_normal(sqlite_url, monkeypatch):
    monkeypatch.setenv("CARDHALL_SQLITE_SYNCHRONOUS", "normal")
    assert synchronous(sqlite_url) == NORMAL


def test_another_setting_is_refused(sqlite_url, monkeypatch):
    monkeypatch.setenv("CARDHALL_SQLITE_SYNCHRONOUS", "off")
    with pytest.raises(ValueError, match="full or normal"):
        synchronous(sqlite_url)
