"""A routine restart of the database in the log: the first failure of each loop that goes on through it, in a line
without a trace, and a line when it is back; a failure that is no outage keeps its trace (persistence.interruptions)."""

from __future__ import annotations

import logging
import threading

import psycopg
import pytest

from persistence.announcements import Board
from persistence.port import StoreUnavailable
from persistence.postgres import PostgresListener
from service.periodic import Periodic


class FakeListenConnection:
    """A LISTEN connection that hears nothing until ``stop`` is set."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def __enter__(self) -> FakeListenConnection:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def execute(self, _sql: str) -> None:
        return None

    def notifies(self, timeout: float) -> list[object]:
        self.stop.wait(timeout)
        return []


def lines(caplog: pytest.LogCaptureFixture, logger: str) -> list[tuple[str, str, bool]]:
    """(level, message, with a trace) of each record of ``logger``."""
    return [(record.levelname, record.getMessage(), record.exc_info is not None)
            for record in caplog.records if record.name == logger]


def listen_through(monkeypatch, failures: list[Exception]) -> None:  # type: ignore[no-untyped-def]
    """A listener whose connections fail with ``failures`` in turn, then one that holds, run until it is ready."""
    monkeypatch.setattr(PostgresListener, "RETRY_SECONDS", 0.01)
    stop = threading.Event()

    def connect() -> FakeListenConnection:
        if failures:
            raise failures.pop()
        return FakeListenConnection(stop)

    listener = PostgresListener(Board(), connect)
    listener.start()
    try:
        assert listener.ready.wait(10)
    finally:
        stop.set()
        listener.close()


def test_a_restart_of_the_database_is_one_warning_without_a_trace_and_one_line_when_the_listener_is_back(
        caplog, monkeypatch) -> None:
    caplog.set_level(logging.INFO, logger="persistence.postgres")
    listen_through(monkeypatch, [psycopg.OperationalError("connection failed: Connection refused")] * 5)
    assert lines(caplog, "persistence.postgres") == [
        ("WARNING", "the LISTEN connection failed: connection failed: Connection refused (retrying; a line will say "
                    "when it is back)", False),
        ("INFO", "the LISTEN connection is back after 5 failures", False)]


def test_a_failure_that_is_no_outage_keeps_its_trace_every_time(caplog, monkeypatch) -> None:
    listen_through(monkeypatch, [ValueError("a bug")] * 2)
    assert lines(caplog, "persistence.postgres") == [("ERROR", "the LISTEN connection failed; reconnecting", True)] * 2


def test_a_periodic_job_says_its_outage_once_and_when_it_is_back(caplog) -> None:
    outcomes: list[Exception | None] = [StoreUnavailable("the database is restarting")] * 4 + [None]
    done = threading.Event()

    def job() -> None:
        if not outcomes:
            done.set()
            return
        if (outcome := outcomes.pop(0)) is not None:
            raise outcome

    caplog.set_level(logging.INFO, logger="service.periodic")
    periodic = Periodic("ratings", job, 0.01).start()
    try:
        assert done.wait(10)
    finally:
        periodic.stop()
    assert lines(caplog, "service.periodic") == [
        ("WARNING", "ratings failed: the database is restarting (retrying; a line will say when it is back)", False),
        ("INFO", "ratings is back after 4 failures", False)]
