"""The guard in front of the app (api.guard) and the settings it is given (api.settings), without a server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from api.guard import Limits, guarded
from api.settings import VARIABLES, Settings
from tests import aio

ROOT = Path(__file__).resolve().parents[2]


def _served(app: Any, headers: list[tuple[bytes, bytes]], client: str = "127.0.0.1") -> tuple[list[dict], dict]:
    """What ``app`` sends for a GET / with ``headers`` from ``client``, and the scope the inner app saw."""
    seen: dict[str, Any] = {}
    sent: list[dict] = []

    async def inner(scope: dict, receive: Any, send: Any) -> None:
        seen.update(scope)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"date", b"app's own")]})
        await send({"type": "http.response.body", "body": b"ok"})

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/", "raw_path": b"/", "query_string": b"",
             "headers": headers, "client": (client, 5000)}
    aio.run(app(inner)(scope, receive, send))
    return sent, seen


def test_only_a_trusted_proxy_names_the_client() -> None:
    forwarded = [(b"x-forwarded-for", b"198.51.100.7")]
    _, untrusted = _served(lambda inner: guarded(inner, Limits()), forwarded)
    _, trusted = _served(lambda inner: guarded(inner, Limits(forwarded_allow_ips=("127.0.0.1",))), forwarded)
    _, other_peer = _served(lambda inner: guarded(inner, Limits(forwarded_allow_ips=("10.0.0.1",))), forwarded)
    assert (untrusted["client"][0], trusted["client"][0], other_peer["client"][0]) == (
        "127.0.0.1", "198.51.100.7", "127.0.0.1")


def test_the_header_count_is_checked_before_any_header_and_every_answer_has_an_id() -> None:
    sent, seen = _served(lambda inner: guarded(inner, Limits(max_headers=3)), [(b"x-a", b"b")] * 4)
    assert not seen and sent[0]["status"] == 431
    assert dict(sent[0]["headers"])[b"x-request-id"]
    sent, seen = _served(lambda inner: guarded(inner, Limits()), [(b"x-request-id", b"mine-1")])
    headers = sent[0]["headers"]
    assert dict(headers)[b"x-request-id"] == b"mine-1" and dict(seen["headers"])[b"x-request-id"] == b"mine-1"
    assert [name for name, _ in headers].count(b"date") == 0  # (uvicorn adds the one Date)
    sent, seen = _served(lambda inner: guarded(inner, Limits()), [(b"x-request-id", b"bad id\n")])
    assert re.fullmatch(rb"[0-9a-f]{32}", dict(sent[0]["headers"])[b"x-request-id"])


def test_settings_round_trip_through_the_environment_and_an_option_reads_its_variable() -> None:
    settings = Settings(database_url="sqlite:///x.db", threads=4, cors_origins=("https://a.example",),
                        shuffle_secret="s", limits=Limits(head_timeout=2.5, forwarded_allow_ips=("10.0.0.0/8",)))
    assert Settings.from_environment(settings.environment()) == settings
    assert Settings.from_environment({"CARDHALL_FORWARDED_ALLOW_IPS": "10.0.0.1, 10.0.0.2"}).limits.forwarded_allow_ips \
        == ("10.0.0.1", "10.0.0.2")


def test_every_cardhall_variable_the_server_reads_is_a_setting_in_the_deploy_table() -> None:
    code = "\n".join(path.read_text() for package in ("api", "service", "persistence", "cardhall_cli", "domain")
                     for path in (ROOT / package).rglob("*.py"))
    named = set(re.findall(r"CARDHALL_[A-Z_]+[A-Z]", code))
    flask_only = {"CARDHALL_SSE_HEARTBEAT", "CARDHALL_ACCOUNT_HEARTBEAT", "CARDHALL_STREAM_MAX",
                  "CARDHALL_GAME_EXISTS", "CARDHALL_GAME_TYPE_EXISTS", "CARDHALL_ACCOUNT_EXISTS",
                  "CARDHALL_TOURNAMENT_EXISTS",
                  "CARDHALL_WEBHOOK_OPTIONS"}  # (app config keys alone)
    assert named - flask_only <= set(VARIABLES)
    deploy = (ROOT / "docs" / "deploy.md").read_text()
    table = deploy[deploy.index("## Settings"):]
    documented = set(re.findall(r"^\| `(CARDHALL_[A-Z_]+)`", table, re.MULTILINE))
    assert documented == set(VARIABLES)


def test_importing_the_entry_points_opens_no_database_and_starts_no_thread(tmp_path: Path) -> None:
    database = tmp_path / "never.db"
    probe = ("import threading, api.wsgi, api.asgi, cardhall_cli.server; "
             "print(threading.active_count())")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "CARDHALL_DATABASE_URL": f"sqlite:///{database}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1" and not database.exists()
