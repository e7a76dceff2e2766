"""Only a database out of reach is answered 503 ``unavailable``: a broken schema is a bug, and /healthz says so."""

from __future__ import annotations

import os

import pytest
import sqlalchemy as sa

import persistence
from api import create_app
from persistence.migrate import downgrade, head_revision
from service.games import GameService

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest) -> str:
    """A migrated database of each SQL backend, emptied."""
    return request.getfixturevalue(f"{request.param}_url")


@pytest.fixture
def client():  # type: ignore[no-untyped-def]
    """A test client of an app over the store at a URL; the stores are closed at the end."""
    services: list[GameService] = []

    def make(url: str):  # type: ignore[no-untyped-def]
        services.append(GameService(persistence.open_store(url)))
        return create_app(services[-1], CARDHALL_RATE_LIMIT="off").test_client()

    yield make
    for service in services:
        service.store.close()


def test_a_missing_table_is_answered_as_a_bug_not_as_the_database_being_unavailable(url, client):
    http = client(url)
    game_id = http.post("/v1/games", json={"game": "craits", "players": 2}).json["id"]
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("ALTER TABLE seats RENAME TO seats_gone")
    try:
        answer = http.post(f"/v1/games/{game_id}/seats", json={"name": "alice"})
        assert (answer.status_code, answer.json["code"]) == (500, "internal_error")
        assert "Retry-After" not in answer.headers
    finally:
        with engine.begin() as connection:
            connection.exec_driver_sql("ALTER TABLE seats_gone RENAME TO seats")
        engine.dispose()


def test_healthz_is_503_while_the_schema_is_not_at_the_head_revision(url, client):
    http = client(url)
    assert http.get("/healthz").status_code == 200
    downgrade(url, "0002")
    try:
        answer = http.get("/healthz")
        assert (answer.status_code, answer.json["code"]) == (503, "unavailable")
        assert head_revision() in answer.json["detail"] and answer.headers["Retry-After"]
    finally:
        persistence.upgrade(url)
    assert http.get("/healthz").status_code == 200


def test_an_unreachable_postgresql_is_503_unavailable_with_retry_after(client):
    http = client("postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=2")
    for path in ("/healthz", "/v1/games/abc/state"):
        answer = http.get(path)
        assert (answer.status_code, answer.json["code"]) == (503, "unavailable"), path
        assert answer.headers["Retry-After"]


def test_an_sqlite_file_that_cannot_be_opened_is_503_unavailable(tmp_path, client):
    (tmp_path / "cardhall.db").mkdir()  # a directory where the file should be
    http = client(f"sqlite:///{tmp_path / 'cardhall.db'}")
    answer = http.get("/healthz")
    assert (answer.status_code, answer.json["code"]) == (503, "unavailable")


def test_an_sqlite_database_locked_by_another_writer_past_the_busy_timeout_is_503(tmp_path, monkeypatch, client):
    import sqlite3

    import persistence.sqlite

    path = tmp_path / "cardhall.db"
    persistence.upgrade(f"sqlite:///{path}")
    monkeypatch.setattr(persistence.sqlite, "BUSY_TIMEOUT_SECONDS", 0.2)
    http = client(f"sqlite:///{path}")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process's writer, holding the lock
    try:
        answer = http.post("/v1/games", json={"game": "craits", "players": 2})
        assert (answer.status_code, answer.json["code"]) == (503, "unavailable")
        assert answer.headers["Retry-After"]
    finally:
        other.execute("ROLLBACK")
    assert http.get("/v1/games").json["games"] == []  # the refused create wrote nothing


@pytest.mark.postgres
def test_a_postgresql_that_refuses_more_connections_is_503_unavailable(postgres_url, client):
    role = f"cardhall_full_{os.getpid()}"
    admin = sa.create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 0"))
    try:
        http = client(sa.make_url(postgres_url).set(username=role).render_as_string(hide_password=False))
        for path in ("/healthz", "/v1/games"):
            answer = http.get(path)  # (SQLSTATE 53300: too many connections for the role)
            assert (answer.status_code, answer.json["code"]) == (503, "unavailable"), path
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f"DROP ROLE {role}"))
        admin.dispose()
