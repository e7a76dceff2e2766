"""A real ``cardhall serve`` process on a free port, over a temporary SQLite database or a database URL."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclasses.dataclass
class ServerProcess:
    """A started ``cardhall serve``: its base URL, port, server process and log."""

    process: subprocess.Popen
    base_url: str
    port: int
    log_path: Path

    def kill(self) -> None:
        """SIGKILL the master and its workers at once, as a crashed host would stop."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop gracefully (SIGTERM), forcefully if it lingers."""
        _stop(self.process)

    def environment(self) -> dict[str, str]:
        """The environment its master runs with, the settings it handed its workers included (its own run directory,
        ``CARDHALL_RUN_DIRECTORY``: a server killed earlier on the same port may have left another)."""
        given = Path(f"/proc/{self.process.pid}/environ").read_bytes().split(b"\0")
        return dict(item.decode().split("=", 1) for item in given if b"=" in item)

    def json_log(self, until: Callable[[list[dict[str, Any]]], bool], patience: float = 10.0) -> list[dict[str, Any]]:
        """The JSON lines of the log once ``until(lines)`` holds (a worker's lines are written by a
        thread of their own, a moment after they are logged); as they are after ``patience`` seconds."""
        deadline = time.monotonic() + patience
        while True:
            lines = [json.loads(line) for line in self.log_path.read_text().splitlines() if line.startswith("{")]
            if until(lines) or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)


def start_server(
    directory: Path,
    *,
    database: str | None = None,
    workers: int = 1,
    port: int | None = None,
    startup: float = 90.0,
    log_name: str = "server.log",
    threads: int = 16,
    rate_limit: str | None = "off",
    options: tuple[str, ...] = (),
) -> ServerProcess:
    """Start ``cardhall serve`` and wait until ``/healthz`` answers 200.

    Tests are not throttled unless they ask (``rate_limit``: off by default; None: the server's default).
    ``database`` defaults to ``cardhall.db`` in ``directory``; the log goes to
    ``directory / log_name`` (appended to, so a restart keeps the earlier log);
    ``options`` are more command-line options of ``cardhall serve``.
    """
    port = port or free_port()
    log_path = directory / log_name
    database = database or f"sqlite:///{directory / 'cardhall.db'}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "cardhall_cli", "serve", "--port", str(port),
               "--database", database, "--threads", str(threads), "--workers", str(workers),
               *(["--rate-limit", rate_limit] if rate_limit is not None else []), *options]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    server = ServerProcess(process, f"http://127.0.0.1:{port}", port, log_path)
    try:
        _wait_until_healthy(server.base_url, process, log_path, startup)
    except BaseException:
        _stop(process)
        raise
    return server


@contextlib.contextmanager
def running_server(
    directory: Path, *, startup: float = 90.0, database: str | None = None, workers: int = 1,
    rate_limit: str | None = "off",
) -> Iterator[str]:
    """Start ``cardhall serve`` with its log (and by default its SQLite database) in ``directory``; its base URL."""
    server = start_server(directory, database=database, workers=workers, startup=startup, rate_limit=rate_limit)
    try:
        yield server.base_url
    finally:
        server.stop()


def _wait_until_healthy(base_url: str, process: subprocess.Popen, log_path: Path, startup: float) -> None:
    deadline = time.monotonic() + startup
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"cardhall serve exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"cardhall serve did not answer in {startup} s:\n{log_path.read_text()[-3000:]}")


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM the server (gunicorn stops its workers), then its own process group if it lingers."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)
