"""Two server processes follow their PostgreSQL database: 503 while it refuses connections, 200 after."""

from __future__ import annotations

import httpx
import psycopg
import pytest
import sqlalchemy as sa

from tests.integration.multiprocess_http import servers_over
from tests.pg import libpq_url
from tests.waiting import until

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(120)]


def refuse_connections(server_url: str, database: str, refuse: bool) -> None:
    """Stop (and cut) or allow again every connection to ``database``."""
    with psycopg.connect(libpq_url(server_url), autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {"false" if refuse else "true"}')
        if refuse:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [database])


def health(base: str) -> httpx.Response:
    return httpx.get(f"{base}/healthz", timeout=30)


def test_requests_are_503_while_the_database_refuses_connections_and_200_once_it_is_back(
    postgres_server_url, postgres_database, tmp_path
):
    url = postgres_database()
    name = sa.make_url(url).database
    with servers_over(url, tmp_path, workers=1) as servers:
        bases = [server.base_url for server in servers]
        assert [health(base).status_code for base in bases] == [200, 200]
        refuse_connections(postgres_server_url, name, refuse=True)
        try:
            down = [health(base) for base in bases]
            assert [answer.status_code for answer in down] == [503, 503]
            assert {answer.json()["code"] for answer in down} == {"unavailable"}
            assert {answer.headers["Content-Type"] for answer in down} == {"application/problem+json"}
            listing = [httpx.get(f"{base}/v1/games", timeout=30) for base in bases]
            assert [(answer.status_code, answer.json()["code"]) for answer in listing] == [(503, "unavailable")] * 2
        finally:
            refuse_connections(postgres_server_url, name, refuse=False)
        until(lambda: [health(base).status_code for base in bases] == [200, 200], "the servers recover", every=0.2)
