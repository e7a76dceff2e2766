"""The ``cardhall`` command: ``db upgrade`` and the database it picks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa

from tests.e2e.server import free_port

ROOT = Path(__file__).resolve().parents[2]


def cardhall(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    inherited = {key: value for key, value in os.environ.items() if key != "CARDHALL_DATABASE_URL"}
    environment = {**inherited, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "cardhall_cli", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=120, check=False)


def tables_of(path: Path) -> set[str]:
    return set(sa.inspect(sa.create_engine(f"sqlite:///{path}")).get_table_names())


def test_db_upgrade_creates_cardhall_db_in_the_working_directory_by_default(tmp_path):
    result = cardhall("db", "upgrade", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert {"events", "games", "seats", "idempotency", "alembic_version"} <= tables_of(tmp_path / "cardhall.db")


def test_db_upgrade_follows_the_database_option_and_the_environment(tmp_path):
    assert cardhall("db", "upgrade", "--database", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path).returncode == 0
    env = {"CARDHALL_DATABASE_URL": f"sqlite:///{tmp_path / 'b.db'}"}
    assert cardhall("db", "upgrade", cwd=tmp_path, env=env).returncode == 0
    assert "events" in tables_of(tmp_path / "a.db") and "events" in tables_of(tmp_path / "b.db")
    assert not (tmp_path / "cardhall.db").exists()


def test_the_command_explains_itself(tmp_path):
    result = cardhall("--help", cwd=tmp_path)
    assert result.returncode == 0
    assert all(name in result.stdout for name in ("serve", "db", "bot", "arena"))


def test_serve_refuses_a_rate_limit_it_cannot_read_and_a_follower_cap_below_one(tmp_path):
    bad_limit = cardhall("serve", "--rate-limit", "lots", cwd=tmp_path)
    assert bad_limit.returncode == 2 and "not a rate limit" in bad_limit.stderr
    no_followers = cardhall("serve", "--max-followers", "0", cwd=tmp_path)
    assert no_followers.returncode == 2 and "must be at least 1" in no_followers.stderr
    no_workers = cardhall("serve", "--workers", "0", cwd=tmp_path)  # (gunicorn would listen, and no worker answer)
    assert (no_workers.returncode, no_workers.stderr) == (2, "cardhall: --workers 0: must be at least 1\n")
    assert not (tmp_path / "cardhall.db").exists()  # refused before anything was started or migrated


def test_serve_says_in_one_line_which_database_it_cannot_migrate_and_never_prints_its_password(tmp_path):
    unreachable = "postgresql://cardhall:hunter2@127.0.0.1:1/cardhall"  # (nothing listens on port 1)
    result = cardhall("serve", "--port", "1", "--database", unreachable, cwd=tmp_path)
    assert result.returncode == 1
    assert "cardhall: cannot migrate postgresql+psycopg://***@127.0.0.1:1/cardhall: " in result.stderr
    assert "Traceback" not in result.stderr and "hunter2" not in result.stderr
    in_query = "postgresql://127.0.0.1:1/cardhall?user=cardhall&password=hunter2&sslmode=disable"
    result = cardhall("serve", "--port", "1", "--database", in_query, cwd=tmp_path)
    assert result.returncode == 1
    assert ("cardhall: cannot migrate postgresql+psycopg://127.0.0.1:1/cardhall?user=cardhall&password=***&sslmode=disable: "
            in result.stderr)
    assert "Traceback" not in result.stderr and "hunter2" not in result.stderr


def test_db_upgrade_says_in_one_line_which_database_it_cannot_migrate_as_serve_does(tmp_path):
    for url, said in [
        ("postgresql://cardhall:hunter2@127.0.0.1:1/cardhall",
         "cardhall: cannot migrate postgresql+psycopg://***@127.0.0.1:1/cardhall: (psycopg.OperationalError) connection "
         "failed: "),
        (f"sqlite:///{tmp_path / 'nowhere' / 'x.db'}",
         f"cardhall: cannot migrate sqlite:///{tmp_path / 'nowhere' / 'x.db'}: [Errno 2] No such file or directory"),
        ("mysql://cardhall:hunter2@127.0.0.1/cardhall", "cardhall: cannot migrate mysql://***@127.0.0.1/cardhall: "),
    ]:
        result = cardhall("db", "upgrade", "--database", url, cwd=tmp_path)
        assert result.returncode == 1
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(said), result.stderr
        assert "hunter2" not in result.stderr


def test_accounts_create_prints_a_key_once_and_refuses_a_name_taken(tmp_path):
    database = ["--database", f"sqlite:///{tmp_path / 'a.db'}"]
    made = cardhall("accounts", "create", "Root", "--kind", "person", "--admin", *database, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("chk_") and "admin" in made.stderr and key not in made.stderr
    again = cardhall("accounts", "create", "root", *database, cwd=tmp_path)
    assert again.returncode == 1 and "taken" in again.stderr


def test_ratings_rebuild_remakes_the_table_the_server_applied(tmp_path):
    from service.bootstrap import open_service
    from service.challenges import Challenges
    from service.ratings import Ratings
    from service.sweeper import Sweeper

    url = f"sqlite:///{tmp_path / 'r.db'}"
    games = open_service(url)
    try:
        keys = [games.accounts.create_account(name, "bot")["key"] for name in ("ana", "bo")]
        offered = Challenges(games).create(games.accounts.caller(keys[0]), "craits", 2, {"short": True}, rated=True)
        game_id = Challenges(games).accept(games.accounts.caller(keys[1]), offered["id"])["game_id"]
        for key in keys:  # (the house bots play it out, in steps the sweeper plays)
            games.resign(game_id, key)
        while Sweeper(games).sweep():
            pass
        ratings = Ratings(games)
        assert ratings.catch_up() == 1
        live = ratings.ladder.table()
        rebuilt = cardhall("ratings", "rebuild", "--database", url, cwd=tmp_path)
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert "from 1 rated games" in rebuilt.stdout and ratings.ladder.table() == live and len(live[1]) == 2
    finally:
        games.store.close()


def test_ratings_rebuild_of_a_database_that_is_not_there_says_so_and_makes_none(tmp_path):
    """A path mistyped made an empty database there, migrated, and said its ratings were rebuilt from 0 games."""
    rebuilt = cardhall("ratings", "rebuild", "--database", f"sqlite:///{tmp_path / 'typo.db'}", cwd=tmp_path)
    assert rebuilt.returncode == 1 and "no database at" in rebuilt.stderr and "typo.db" in rebuilt.stderr
    assert list(tmp_path.iterdir()) == []


def test_output_cut_short_by_its_reader_ends_the_command_quietly(tmp_path):
    import fcntl
    import json
    import random

    import cardhall_env

    env = cardhall_env.make("craits", 2)
    env.reset(seed=1)
    choices = random.Random(1)
    while not env.match.over:
        env.step(choices.choice(env.last()[4]["legal_actions"]))
    (tmp_path / "game.json").write_text(json.dumps(env.record()))
    read, write = os.pipe()
    fcntl.fcntl(write, 1031, 4096)  # (F_SETPIPE_SZ: the command fills the pipe long before it has said all)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "cardhall_cli", "record", "show", "game.json"], cwd=tmp_path,
                               env=environment, stdout=write, stderr=subprocess.PIPE)
    os.close(write)
    with os.fdopen(read, "rb") as out:  # (read a line, then stop reading, as `| head -1` does)
        first = out.readline()
    _, err = process.communicate(timeout=120)
    assert first.startswith(b"craits (craits/2), 2 players")
    assert process.returncode == 1 and b"Traceback" not in err, err.decode()


def test_a_refused_setting_stops_each_way_of_starting_in_one_line_before_anything_is_migrated(tmp_path):
    env = {"CARDHALL_DATABASE_URL": f"sqlite:///{tmp_path / 'c.db'}", "CARDHALL_SQLITE_SYNCHRONOUS": "bogus"}
    said = ["cardhall: CARDHALL_SQLITE_SYNCHRONOUS='bogus': must be full or normal"]
    port = str(free_port())
    serve = cardhall("serve", "--port", port, cwd=tmp_path, env=env)
    upgrade = cardhall("db", "upgrade", cwd=tmp_path, env=env)
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    gunicorn = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "python:cardhall_cli.gunicorn_conf", "--bind",
                               f"127.0.0.1:{port}", "api.asgi:app"], cwd=tmp_path, env=environment, capture_output=True,
                              text=True, timeout=120, check=False)
    uvicorn = subprocess.run([sys.executable, "-m", "uvicorn", "--port", port, "api.asgi:app"], cwd=tmp_path,
                             env=environment, capture_output=True, text=True, timeout=120, check=False)
    assert [(ran.returncode, ran.stderr.splitlines()) for ran in (serve, upgrade, gunicorn)] == [(2, said)] * 3
    assert (uvicorn.returncode, uvicorn.stderr.splitlines()[-1:]) == (3, said)  # (a worker that cannot boot: 3)
    assert not (tmp_path / "c.db").exists()


def test_with_a_json_log_serve_says_it_cannot_migrate_in_a_json_line(tmp_path):
    unreachable = "postgresql://cardhall:hunter2@127.0.0.1:1/cardhall"
    result = cardhall("serve", "--port", str(free_port()), "--log-format", "json", "--database", unreachable, cwd=tmp_path)
    assert result.returncode == 1 and "hunter2" not in result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines()]  # (every line is one JSON object)
    failed = [line for line in lines if line["level"] == "error"]
    assert len(failed) == 1 and failed[0]["logger"] == "cardhall"
    assert failed[0]["message"].startswith("cannot migrate postgresql+psycopg://***@127.0.0.1:1/cardhall: ")


def test_the_operators_commands_work_on_the_database_the_environment_names_as_serve_does(tmp_path):
    env = {"CARDHALL_DATABASE_URL": f"sqlite:///{tmp_path / 'named.db'}"}
    made = cardhall("accounts", "create", "Root", "--admin", cwd=tmp_path, env=env)
    rebuilt = cardhall("ratings", "rebuild", cwd=tmp_path, env=env)
    assert made.returncode == rebuilt.returncode == 0, made.stderr + rebuilt.stderr
    assert "accounts" in tables_of(tmp_path / "named.db") and not (tmp_path / "cardhall.db").exists()
    mangled = cardhall("accounts", "create", "Other", cwd=tmp_path, env={"CARDHALL_DATABASE_URL": "cardhall:hunter2@db/x"})
    assert (mangled.returncode, mangled.stderr) == (
        2, "cardhall: CARDHALL_DATABASE_URL='***@db/x': not a database URL (e.g. sqlite:///cardhall.db or "
           "postgresql://cardhall@db.internal/cardhall)\n")


def test_accounts_create_holds_a_description_to_the_apis_one_line_rule_and_makes_no_account_for_one_refused(tmp_path):
    """The API refuses a description with a control character or a bidirectional mark (it reorders the account page
    around it); ``cardhall accounts create --description`` stored any."""
    database = ["--database", f"sqlite:///{tmp_path / 'a.db'}"]
    for description in ("two\nlines", "bell\x07", "\u202eevil", "a\u2066b", "x" * 501, os.fsdecode(b"\xff")):
        refused = cardhall("accounts", "create", "Ana", "--description", description, *database, cwd=tmp_path)
        assert refused.returncode == 1 and refused.stdout == "", (description, refused.stdout)
        assert "a description is one line of at most 500 characters" in refused.stderr, refused.stderr
    made = cardhall("accounts", "create", "Ana", "--description", "é" * 500, *database, cwd=tmp_path)
    assert made.returncode == 0 and made.stdout.startswith("chk_"), made.stderr
