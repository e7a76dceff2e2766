"""Pytest plugin: PostgreSQL for the tests marked ``postgres``.

Where the server comes from, in order:

1. ``CARDHALL_TEST_POSTGRES_URL`` (any database on a server where the user may
   create databases) — each session creates its own databases there and drops them;
2. PostgreSQL server binaries on this machine (``pg_ctl``/``initdb`` on PATH or
   in ``/usr/lib/postgresql/*/bin``) — one throwaway cluster for the whole run, on a
   unix socket only, run as the ``postgres`` user when we are root. Under pytest-xdist
   the first worker that needs it starts it and the others find it (a file lock in a
   folder the run's processes share); the process that started the run stops it;
3. neither — the ``postgres`` tests are deselected, and the run says so and
   how many (``CARDHALL_REQUIRE_POSTGRES=1`` turns that into an error, as in CI).

Fixtures: ``postgres_server_url`` (session), ``postgres_database`` (a factory
of fresh empty databases: each worker makes its own, so workers never share one).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ENV_URL = "CARDHALL_TEST_POSTGRES_URL"
ENV_REQUIRE = "CARDHALL_REQUIRE_POSTGRES"
ENV_RUN_FOLDER = "CARDHALL_TEST_RUN_FOLDER"  # shared by a run's processes: the xdist controller and its workers
_RUN_FOLDER = pytest.StashKey[str]()
_deselected: dict[str, object] = {}


def server_binaries() -> Path | None:
    """The directory holding initdb and pg_ctl, if this machine has them."""
    on_path = shutil.which("pg_ctl")
    candidates = ([Path(on_path).resolve().parent] if on_path else []) + [
        Path(found) for found in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    ]
    return next((d for d in candidates if (d / "initdb").exists() and (d / "pg_ctl").exists()), None)


def unavailable_reason() -> str | None:
    """Why no PostgreSQL can be had for the tests, or None if one can."""
    if os.environ.get(ENV_URL):
        return None
    if server_binaries() is None:
        return f"{ENV_URL} is not set and no PostgreSQL server binaries (initdb, pg_ctl) were found"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run a throwaway cluster"
    return None


def sqlalchemy_url(url: str) -> str:
    """``url`` with the psycopg 3 driver spelled out for SQLAlchemy."""
    scheme, rest = url.split("://", 1)
    return f"postgresql+psycopg://{rest}" if scheme in ("postgres", "postgresql") else url


def libpq_url(url: str) -> str:
    """``url`` as libpq (psycopg.connect) wants it."""
    return "postgresql://" + url.split("://", 1)[1]


class Cluster:
    """A throwaway PostgreSQL cluster in a temporary directory, reachable on a unix socket."""

    def __init__(self, binaries: Path, root: Path | None = None) -> None:
        self.binaries = binaries
        self.root = root or Path(tempfile.mkdtemp(prefix="cardhall-pg-"))
        self.data = self.root / "data"
        self.as_postgres = os.geteuid() == 0

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the cluster's ``postgres`` database."""
        return f"postgresql+psycopg://postgres@/postgres?host={self.root}"

    def start(self) -> None:
        """initdb and start the server; raise with its log if it does not come up."""
        if self.as_postgres:
            entry = pwd.getpwnam("postgres")
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        options = f"-k {self.root} -c listen_addresses='' -c fsync=off -c max_connections=200"
        try:
            self._run("pg_ctl", "-D", self.data, "-l", self.root / "server.log", "-w", "-t", "60",
                      "-o", options, "start")
        except subprocess.CalledProcessError as error:
            log = (self.root / "server.log").read_text(errors="replace")
            raise RuntimeError(f"PostgreSQL did not start:\n{log}") from error

    def stop(self) -> None:
        """Stop the server and delete the cluster."""
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, program: str, *args: object) -> None:
        command = [str(self.binaries / program), *map(str, args)]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.root)


def create_database(server_url: str) -> str:
    """Create a fresh empty database on the server; its SQLAlchemy URL."""
    import psycopg
    import sqlalchemy as sa

    name = f"cardhall_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(libpq_url(server_url), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return sa.make_url(sqlalchemy_url(server_url)).set(database=name).render_as_string(hide_password=False)


def drop_database(server_url: str, database_url: str) -> None:
    """Drop a database made by :func:`create_database`, whoever is still connected."""
    import psycopg
    import sqlalchemy as sa

    name = sa.make_url(database_url).database
    with psycopg.connect(libpq_url(server_url), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_cluster_url(folder: Path, binaries: Path) -> str:
    """The run's throwaway cluster: the first process to ask starts it, the others wait for it and share it."""
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        url = folder / "url"
        if not url.exists():
            cluster = Cluster(binaries)
            (folder / "cluster").write_text(str(cluster.root))
            cluster.start()
            url.write_text(cluster.url)
        return url.read_text()


def pytest_configure(config: pytest.Config) -> None:
    """The process that starts the run (not an xdist worker) makes the folder its processes share."""
    if not hasattr(config, "workerinput"):
        config.stash[_RUN_FOLDER] = os.environ[ENV_RUN_FOLDER] = tempfile.mkdtemp(prefix="cardhall-test-run-")


def pytest_unconfigure(config: pytest.Config) -> None:
    """At the very end of the run, stop the run's cluster if a worker started one."""
    folder = config.stash.get(_RUN_FOLDER, None)
    if folder is None:
        return
    os.environ.pop(ENV_RUN_FOLDER, None)
    started = Path(folder) / "cluster"
    binaries = server_binaries()
    try:
        if started.exists() and binaries is not None:
            with contextlib.suppress(subprocess.CalledProcessError):  # it never came up: nothing to stop
                Cluster(binaries, Path(started.read_text())).stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """A PostgreSQL server for the run: the configured one, or the run's throwaway cluster."""
    if os.environ.get(ENV_URL):
        return sqlalchemy_url(os.environ[ENV_URL])
    reason = unavailable_reason()
    binaries = server_binaries()
    if reason or binaries is None:
        pytest.fail(f"no PostgreSQL for a test marked postgres: {reason}")
    return run_cluster_url(Path(os.environ[ENV_RUN_FOLDER]), binaries)


@pytest.fixture(scope="session")
def postgres_database(postgres_server_url: str) -> Iterator[Callable[[], str]]:
    """A factory of fresh empty databases (SQLAlchemy URLs).

    On a configured server they are dropped when the session ends; the run's throwaway
    cluster is deleted whole instead (dropping each database first only costs time).
    """
    made: list[str] = []

    def make() -> str:
        made.append(create_database(postgres_server_url))
        return made[-1]

    yield make
    if os.environ.get(ENV_URL):
        for url in made:
            drop_database(postgres_server_url, url)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without PostgreSQL, deselect the ``postgres`` tests loudly (or fail, if it is required)."""
    reason = unavailable_reason()
    if reason is None:
        return
    wanted = [item for item in items if item.get_closest_marker("postgres")]
    if not wanted:
        return
    if os.environ.get(ENV_REQUIRE):
        raise pytest.UsageError(f"{ENV_REQUIRE} is set but {reason}")
    items[:] = [item for item in items if not item.get_closest_marker("postgres")]
    config.hook.pytest_deselected(items=wanted)
    _deselected.update(count=len(wanted), reason=reason)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"cardhall: deselected {len(wanted)} PostgreSQL tests: {reason}", yellow=True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Repeat the deselection at the end, where it cannot be missed."""
    if _deselected:
        terminalreporter.write_line(
            f"cardhall: {_deselected['count']} PostgreSQL tests were NOT run: {_deselected['reason']}",
            yellow=True,
        )
