"""What the benchmark scripts share: a real server, a throwaway PostgreSQL, percentiles, tables.

Every server started here listens on 127.0.0.1 only; every database lives in a
temporary directory (SQLite) or a throwaway cluster (PostgreSQL, see
:mod:`tests.pg`, which this module reuses) and is deleted at the end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]

HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


class Server:
    """A ``cardhall serve`` process (gunicorn, uvicorn workers) on 127.0.0.1; ``restart`` keeps its database."""

    def __init__(self, database: str, directory: Path, *, workers: int = 1, threads: int = 32,
                 rate_limit: str = "off", options: tuple[str, ...] = ()) -> None:
        self.database, self.directory = database, directory
        self.workers, self.threads, self.rate_limit, self.options = workers, threads, rate_limit, options
        self.port = free_port()
        self.base_url = f"http://{HOST}:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, startup: float = 60.0) -> None:
        """Start and wait until ``/healthz`` answers 200."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "cardhall_cli", "serve", "--host", HOST, "--port", str(self.port),
                   "--database", self.database, "--workers", str(self.workers), "--threads", str(self.threads),
                   "--rate-limit", self.rate_limit,  # (off by default: a benchmark is one client at full speed)
                   # Every client of a benchmark is this one address: none is turned away for its connections
                   # (given again in ``options``, the later value wins).
                   "--max-connections-per-address", "100000",
                   *self.options]
        log = open(self.directory / "server.log", "ab")  # noqa: SIM115  (the child keeps it)
        with log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
                                            start_new_session=True)
        deadline = time.monotonic() + startup
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"cardhall serve exited:\n{self.log_tail()}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{self.base_url}/healthz", timeout=2).status_code == 200:
                    return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"cardhall serve did not answer in {startup} s:\n{self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM (gunicorn stops its workers); SIGKILL the process group if it lingers."""
        if self.process is None:
            return
        if os.environ.get("CARDHALL_BENCH_SHOW_ERRORS"):
            log = (self.directory / "server.log").read_text(errors="replace")
            print("\n".join(line for line in log.splitlines() if "Error" in line or "error" in line)[-4000:],
                  file=sys.stderr)
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)
        self.process = None

    def restart(self) -> None:
        """Stop and start again on the same database and port: every cache is cold."""
        self.stop()
        self.start()

    def log_tail(self) -> str:
        """The end of the server's log."""
        return (self.directory / "server.log").read_text(errors="replace")[-3000:]


@contextlib.contextmanager
def running(database: str, directory: Path, *, workers: int = 1, threads: int = 32,
            rate_limit: str = "off", options: tuple[str, ...] = ()) -> Iterator[Server]:
    """A started :class:`Server` (``options``: more of ``cardhall serve``'s), stopped at the end."""
    server = Server(database, directory, workers=workers, threads=threads, rate_limit=rate_limit, options=options)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def postgres_server(url: str | None = None) -> Iterator[str]:
    """A PostgreSQL server URL: ``url``, else ``CARDHALL_TEST_POSTGRES_URL``, else a throwaway cluster (tests.pg)."""
    from tests import pg

    url = url or os.environ.get(pg.ENV_URL)
    if url:
        yield pg.sqlalchemy_url(url)
        return
    reason = pg.unavailable_reason()
    binaries = pg.server_binaries()
    if reason or binaries is None:
        raise SystemExit(f"no PostgreSQL: {reason} (or pass --databases sqlite)")
    cluster = pg.Cluster(binaries)
    cluster.start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


class Databases:
    """Fresh databases by backend name, each dropped or deleted at the end; PostgreSQL started on first use."""

    def __init__(self, stack: contextlib.ExitStack) -> None:
        self.stack = stack
        self.directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cardhall-bench-")))
        self._postgres: str | None = None
        self._count = 0

    def new(self, backend: str) -> str:
        """A URL of a fresh empty database of ``backend`` (sqlite or postgresql)."""
        self._count += 1
        if backend == "sqlite":
            return f"sqlite:///{self.directory / f'bench{self._count}.db'}"
        if backend != "postgresql":
            raise ValueError(f"unknown backend {backend!r}")
        from tests import pg

        if self._postgres is None:
            self._postgres = self.stack.enter_context(postgres_server())
        url = pg.create_database(self._postgres)
        self.stack.callback(pg.drop_database, self._postgres, url)
        return url

    def workdir(self) -> Path:
        """A fresh directory for a server's log."""
        self._count += 1
        path = self.directory / f"server{self._count}"
        path.mkdir()
        return path


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``samples`` (nearest rank); NaN if there are none."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def median(samples: Sequence[float]) -> float:
    """The median, NaN if there are no samples."""
    return statistics.median(samples) if samples else float("nan")


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]], note: str = "") -> None:
    """Print a table (rich, right-aligned numbers) and an optional note under it."""
    table = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == 0 else "right")
    for row in rows:
        table.add_row(*(str(cell) for cell in row))
    console = Console(width=max(250, Console().width))
    console.print(table)
    if note:
        console.print(note)


def machine_cpu_seconds() -> float | None:
    """CPU seconds the whole machine has spent busy (every process, the kernel included) since
    boot, from ``/proc/stat``; None where there is no such file."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # (guest time is counted in user already)


def load_average() -> str:
    """The 1-minute load average and core count, to print beside every figure."""
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
