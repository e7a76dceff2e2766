"""docs/deploy.md, "Backups", run as written: on PostgreSQL the dump and its restore give every table back; on
SQLite the backup and its restore bring back the moment of the backup, even over the ``-wal`` file a stopped server
leaves beside the database (copying the backup over the file does not: SQLite reads that log's later pages back in)."""

from __future__ import annotations

import contextlib
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import persistence
from service.games import GameService
from service.sweeper import Sweeper

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
SQLITE = DEPLOY[DEPLOY.index("**SQLite.**", DEPLOY.index("## Backups")):DEPLOY.index("\n## ", DEPLOY.index("## Backups") + 1)]


def shell_commands(word: str) -> list[str]:
    """The lines of the section's shell blocks that use ``sqlite3`` with ``word`` (.backup, .restore)."""
    blocks = re.findall(r"```sh\n(.*?)```", SQLITE, re.S)
    return [line for block in blocks for line in block.splitlines() if line.startswith("sqlite3 ") and word in line]


def python_forms(source: str) -> list[str]:
    """The section's Python one-liners that copy from the database ``source``."""
    return [code for code in re.findall(r"`(sqlite3\.connect\([^`]*\))`", SQLITE)
            if code.startswith(f'sqlite3.connect("{source}").backup(')]


def play(games: GameService, count: int) -> list[str]:
    made = []
    for _ in range(count):
        game_id = games.create_game("scat", 2, {})["id"]
        for _ in range(2):
            games.join(game_id, bot="greedy")
        while Sweeper(games).sweep():
            pass
        made.append(game_id)
    return made


def contents(database: Path) -> dict[str, list[tuple]]:
    """Every row of every table (the database opened as SQLite opens it: its -wal file read too)."""
    with sqlite3.connect(database) as connection:
        tables = [name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: sorted(connection.execute(f'SELECT * FROM "{table}"'), key=repr) for table in tables}


def run(command: str, directory: Path) -> None:
    if command.startswith("sqlite3 "):
        subprocess.run(command, shell=True, cwd=directory, check=True, timeout=60)
    else:
        subprocess.run(["python3", "-c", f"import sqlite3; {command}"], cwd=directory, check=True, timeout=60)


def forms(word: str, source: str) -> list[str]:
    found = shell_commands(word) + python_forms(source)
    assert len(found) == 2, found  # (the section gives each as a sqlite3 command and as a line of Python)
    return [form for form in found if not form.startswith("sqlite3 ") or shutil.which("sqlite3")]


def test_the_section_says_how_to_back_up_and_how_to_restore() -> None:
    assert forms(".backup", "cardhall.db") and forms(".restore", "backup.db")
    assert "Never `cp backup.db cardhall.db`" in SQLITE


@pytest.mark.parametrize("restore", range(2))
def test_a_restore_as_written_brings_back_the_backups_moment_over_a_stale_wal(tmp_path: Path, restore: int) -> None:
    live, stopped = tmp_path / "live", tmp_path / "stopped"
    live.mkdir(), stopped.mkdir()
    url = f"sqlite:///{live / 'cardhall.db'}"
    persistence.upgrade(url)
    store = persistence.open_store(url)
    try:
        games = GameService(store)
        play(games, 2)
        backup = forms(".backup", "cardhall.db")[0]
        run(backup, live)  # (while the store is open, as a server's is)
        before = contents(live / "backup.db")
        later = play(games, 2)
        # A server stopped: its database and the -wal file it leaves beside it (nothing checkpointed them)
        for name in ("cardhall.db", "cardhall.db-wal"):
            shutil.copy(live / name, stopped / name)
    finally:
        store.close()
    shutil.copy(live / "backup.db", stopped / "backup.db")
    assert (stopped / "cardhall.db-wal").stat().st_size > 0
    copied = tmp_path / "copied"  # (what `cp backup.db cardhall.db` gives: not the backup)
    shutil.copytree(stopped, copied)
    shutil.copy(copied / "backup.db", copied / "cardhall.db")
    with contextlib.suppress(sqlite3.DatabaseError):  # (or a torn database)
        assert contents(copied / "cardhall.db") != before
    forms_of_restore = forms(".restore", "backup.db")
    if restore >= len(forms_of_restore):
        pytest.skip("no sqlite3 command on this machine")
    run(forms_of_restore[restore], stopped)
    restored = contents(stopped / "cardhall.db")
    assert restored == before
    assert not any(game_id in repr(restored["games"]) for game_id in later)


POSTGRES = DEPLOY[DEPLOY.index("**PostgreSQL with `pg_dump`.**"):DEPLOY.index("**The truth**")]


def rows(url: str) -> dict[str, list[tuple]]:
    """Every row of every table of the database at ``url`` (SQLAlchemy's)."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return {table: sorted(connection.execute(sa.text(f'SELECT * FROM "{table}"')), key=repr)
                    for table in sa.inspect(connection).get_table_names()}
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_the_postgresql_dump_and_restore_as_written_give_every_table_back(postgres_database, tmp_path) -> None:
    from tests.pg import libpq_url, server_binaries

    binaries = server_binaries()  # (the server's own pg_dump: one older than the server refuses it)
    if binaries is None or not (binaries / "pg_dump").exists():
        pytest.skip("no pg_dump beside PostgreSQL's server binaries on this machine")
    source, target = postgres_database(), postgres_database()
    persistence.upgrade(source)
    store = persistence.open_store(source)
    try:
        play(GameService(store), 2)
    finally:
        store.close()
    lines = re.search(r"```sh\n(.*?)```", POSTGRES, re.S).group(1).splitlines()
    documented = "postgresql://cardhall:SECRET@db.internal/cardhall"
    assert [line.split()[0] for line in lines] == ["pg_dump", "createdb", "pg_restore", "cardhall"]
    # (the restored database is made by the fixture, as createdb makes it: empty, owned by the tests' role)
    for line in (lines[0], lines[2], lines[3]):
        command = line.split("  #")[0].replace(f"'{documented}_restored'", f"'{libpq_url(target)}'")
        command = command.replace(f"'{documented}'", f"'{libpq_url(source)}'")
        command = command.replace(f"'{documented.replace('postgresql:', 'postgresql+psycopg:')}_restored'", f"'{target}'")
        command = re.sub(r"^(pg_dump|pg_restore) ", lambda program: f"{binaries / program.group(1)} ", command)
        command = command.replace("cardhall db upgrade", f"{sys.executable} -m cardhall_cli db upgrade")
        assert "db.internal" not in command, command
        subprocess.run(command, shell=True, cwd=tmp_path, check=True, timeout=120, capture_output=True)
    assert rows(target) == rows(source)
