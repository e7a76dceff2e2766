"""``cardhall serve`` at its edges: a port in use is said in one line, and a stop logs no error."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

from tests.e2e.server import ROOT, free_port, start_server


def test_serve_on_a_port_in_use_says_so_in_one_line_and_exits_non_zero(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        ran = subprocess.run([sys.executable, "-m", "cardhall_cli", "serve", "--port", str(port), "--database",
                              f"sqlite:///{tmp_path / 'cardhall.db'}"], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=60)
    assert ran.returncode == 1
    assert ran.stderr.splitlines() == [f"cardhall: cannot listen on 127.0.0.1:{port}: Address already in use "
                                       f"(another server there? choose another with --port)"]
    assert not (tmp_path / "cardhall.db").exists()  # (nothing started: not even the migrations)


def test_a_server_stopped_with_sigterm_logs_no_bad_file_descriptor(tmp_path):
    server = start_server(tmp_path)
    server.stop()
    log = server.log_path.read_text()
    assert "Shutting down: Master" in log
    assert "Bad file descriptor" not in log and "Error while closing socket" not in log


def test_a_run_directory_someone_named_is_never_removed_and_serve_makes_and_removes_its_own(tmp_path):
    named = tmp_path / "operator's"
    named.mkdir()
    (named / "keep.txt").write_text("mine")
    nowhere = f"sqlite:///{tmp_path / 'missing' / 'cardhall.db'}"  # (the start fails when it migrates)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path), "CARDHALL_RUN_DIRECTORY": str(named),
           "CARDHALL_DATABASE_URL": nowhere}
    port = str(free_port())
    gunicorn = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "python:cardhall_cli.gunicorn_conf", "--bind",
                               f"127.0.0.1:{port}", "api.asgi:app"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
    serve = subprocess.run([sys.executable, "-m", "cardhall_cli", "serve", "--port", port], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=120)
    assert gunicorn.returncode == serve.returncode == 1
    assert (named / "keep.txt").read_text() == "mine"
    assert list(tmp_path.glob("cardhall-*")) == []
    assert "cardhall: cannot migrate" in gunicorn.stderr
    assert serve.stderr.splitlines()[0] == ("cardhall: warning: CARDHALL_RUN_DIRECTORY is not used: cardhall serve makes "
                                            "a directory of its own for each run (in TMPDIR)")


def test_a_server_stopped_while_it_migrates_ends_and_leaves_no_temporary_directory(tmp_path):
    with socket.socket() as silent:  # (a database that takes the connection and never answers: the migration waits)
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        silent.settimeout(60)
        database = f"postgresql://cardhall@127.0.0.1:{silent.getsockname()[1]}/cardhall"
        with serving(tmp_path, database) as process:
            connection, _ = silent.accept()  # (the migration is under way)
            with connection:
                process.terminate()
                assert process.wait(timeout=60) == 128 + signal.SIGTERM
    assert list(tmp_path.glob("cardhall-*")) == []


def test_a_server_stopped_as_gunicorn_starts_ends_and_leaves_no_temporary_directory(tmp_path):
    # (cardhall serve makes the run's directory, then gunicorn takes a second or more to load: a stop then, before
    # the server could clean up, left the directory behind, and gunicorn died of the signal)
    with serving(tmp_path, f"sqlite:///{tmp_path / 'cardhall.db'}") as process:
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob("cardhall-*")) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert list(tmp_path.glob("cardhall-*")), "cardhall serve made no run directory"
        process.terminate()
        assert process.wait(timeout=60) == 128 + signal.SIGTERM
    assert list(tmp_path.glob("cardhall-*")) == []


@contextlib.contextmanager
def serving(tmp_path, database: str) -> Iterator[subprocess.Popen]:
    """``cardhall serve`` on ``database``, started in ``tmp_path`` (its TMPDIR too, where it makes its run's
    directory), killed with all it started if the test leaves it running."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    process = subprocess.Popen([sys.executable, "-m", "cardhall_cli", "serve", "--port", str(free_port()),
                                "--database", database], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
