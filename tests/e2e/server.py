"""A real ``cardhall serve`` process on a free port over a temporary SQLite database."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running_server(directory: Path, *, startup: float = 30.0) -> Iterator[str]:
    """Start ``cardhall serve`` with its database and log in ``directory``; its base URL until the block ends."""
    port = free_port()
    log_path = directory / "server.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "cardhall_cli", "serve", "--port", str(port),
               "--database", f"sqlite:///{directory / 'cardhall.db'}", "--threads", "16"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(base_url, process, log_path, startup)
        yield base_url
    finally:
        _stop(process)


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
