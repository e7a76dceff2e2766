"""Alembic owns the schema: migrations go up and down, match the code, and tolerate racing starts."""

from __future__ import annotations

import json
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.dialects import sqlite

from persistence.migrate import alembic_config, current_revision, downgrade, upgrade
from persistence.schema import games, metadata
from persistence.sqlstore import DUE_GAMES
from tests.integration import workers

ACCOUNT_TABLES = {"accounts", "api_keys", "account_seats", "challenges", "account_events"}  # revision 0007
RATING_TABLES = {"rated_finishes", "ladder_counters", "ratings", "rating_history", "pool_entries", "tournaments",
                 "tournament_accounts"}  # revisions 0008, 0009 (0011: its rounds; 0016: its accounts, which took
# in 0015's entries in 0017)
WEBHOOK_TABLES = {"webhooks", "webhook_secrets", "webhook_calls", "subscriptions", "webhook_outbox",
                  "webhook_positions"}  # revision 0010
TABLES = {"events", "games", "seats", "idempotency", "snapshots", "deployment_secrets", *ACCOUNT_TABLES,
          *RATING_TABLES, *WEBHOOK_TABLES}
INITIAL_TABLES = TABLES - {"snapshots", "deployment_secrets"} - ACCOUNT_TABLES - RATING_TABLES \
    - WEBHOOK_TABLES  # revision 0001


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database, never migrated."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.db'}"
    make: Callable[[], str] = request.getfixturevalue("postgres_database")
    return make()


def tables(url: str) -> set[str]:
    engine = sa.create_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def head() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_upgrade_then_downgrade_then_upgrade_again_works(empty_url: str) -> None:
    upgrade(empty_url)
    assert tables(empty_url) == TABLES and current_revision(empty_url) == head()
    downgrade(empty_url, "base")
    assert tables(empty_url) == set() and current_revision(empty_url) is None
    upgrade(empty_url)
    assert tables(empty_url) == TABLES and current_revision(empty_url) == head()


def test_revision_0002_adds_the_snapshots_table_and_takes_it_away_again(empty_url: str) -> None:
    upgrade(empty_url, "0001")
    assert tables(empty_url) == INITIAL_TABLES and current_revision(empty_url) == "0001"
    upgrade(empty_url, "0002")
    assert tables(empty_url) == INITIAL_TABLES | {"snapshots"} and current_revision(empty_url) == "0002"
    downgrade(empty_url, "0001")
    assert tables(empty_url) == INITIAL_TABLES and current_revision(empty_url) == "0001"
    upgrade(empty_url)
    assert tables(empty_url) == TABLES and current_revision(empty_url) == head()


def test_upgrading_an_up_to_date_database_changes_nothing(empty_url: str) -> None:
    upgrade(empty_url)
    upgrade(empty_url)
    assert current_revision(empty_url) == head()


def test_the_migrated_schema_is_the_one_the_store_expects(empty_url: str) -> None:
    upgrade(empty_url)
    engine = sa.create_engine(empty_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            assert compare_metadata(context, metadata) == []
    finally:
        engine.dispose()


@pytest.mark.slow
def test_processes_upgrading_at_the_same_moment_all_succeed(empty_url: str) -> None:
    start_at = time.time() + 2
    with ProcessPoolExecutor(3, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(workers.upgrade, empty_url, start_at) for _ in range(3)]
        assert [future.result(timeout=120) for future in futures] == [head()] * 3
    assert tables(empty_url) == TABLES


def test_revision_0003_takes_a_games_version_from_its_events_and_gives_it_back_going_down(empty_url: str) -> None:
    import datetime as dt

    from persistence import open_store

    created, moved = dt.datetime(2026, 1, 2, 3, 4, 5), dt.datetime(2026, 1, 2, 3, 9, 0)
    upgrade(empty_url, "0002")
    engine = sa.create_engine(empty_url)
    try:
        with engine.begin() as connection:  # a game as revision 0002 stored it: version and updated_at on its row
            connection.execute(sa.text(
                "INSERT INTO games (id, game, players, status, version, created_at, updated_at) "
                "VALUES ('g1', 'craits', 2, 'active', 2, :created, :moved), "
                "('g2', 'scat', 3, 'waiting', 0, :created, :created)"), {"created": created, "moved": moved})
            for version, at in ((1, created), (2, moved)):
                connection.execute(sa.text(
                    "INSERT INTO events (game_id, version, type, seat, data, recorded_at) "
                    "VALUES ('g1', :version, 'CardPlayed', 0, '{}', :at)"), {"version": version, "at": at})
        upgrade(empty_url)
        store = open_store(empty_url)
        try:
            one, two = store.get_game("g1"), store.get_game("g2")
            assert (one.version, one.updated_at.replace(tzinfo=None)) == (2, moved)
            assert (two.version, two.updated_at.replace(tzinfo=None)) == (0, created)
            assert store.last_version("g1") == 2 and store.last_version("g2") == 0
        finally:
            store.close()
        downgrade(empty_url, "0002")
        with engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT id, version, updated_at FROM games ORDER BY id")).all()
        assert [(row.id, row.version) for row in rows] == [("g1", 2), ("g2", 0)]
        assert [str(row.updated_at)[:19] for row in rows] == [str(moved), str(created)]
    finally:
        engine.dispose()


def test_revision_0005_makes_one_shuffle_secret_per_database_and_takes_it_away_again(empty_url: str) -> None:
    upgrade(empty_url, "0004")
    assert "deployment_secrets" not in tables(empty_url)
    upgrade(empty_url, "0005")
    engine = sa.create_engine(empty_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT name, value FROM deployment_secrets")).all()
    finally:
        engine.dispose()
    assert [row.name for row in rows] == ["shuffle"] and len(rows[0].value) == 64 and int(rows[0].value, 16)
    downgrade(empty_url, "0004")
    assert "deployment_secrets" not in tables(empty_url)


def test_a_sweep_reads_the_due_games_through_the_deadline_index_on_sqlite(sqlite_url):
    engine = sa.create_engine(sqlite_url)
    query = DUE_GAMES.where(games.c.deadline <= sa.bindparam("now")).limit(100)
    compiled = query.compile(dialect=sqlite.dialect(paramstyle="named"))
    with engine.connect() as connection:
        rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", {**compiled.params, "now": "2026"})
        plan = " ".join(row[-1] for row in rows)
    engine.dispose()
    assert "USING INDEX ix_games_deadline" in plan and "SCAN games" not in plan, plan


def test_revision_0013_keeps_a_moves_first_answer_for_its_replays_and_its_status_comes_back_going_down(
        empty_url: str) -> None:
    import datetime as dt

    from persistence import open_store

    upgrade(empty_url, "0012")
    engine = sa.create_engine(empty_url)
    try:
        with engine.begin() as connection:  # a move's answer as revision 0012 kept it, with its 201
            connection.execute(sa.text(
                "INSERT INTO games (id, game, players, status, created_at) "
                "VALUES ('g1', 'craits', 2, 'active', :at)"), {"at": dt.datetime(2026, 1, 2)})
            connection.execute(sa.text(
                "INSERT INTO idempotency (game_id, seat, key, request_hash, status, body, created_at) "
                "VALUES ('g1', 0, 'k', 'h', 201, '{\"version\": 3}', :at)"), {"at": dt.datetime(2026, 1, 2)})
        upgrade(empty_url)
        store = open_store(empty_url)
        try:
            with store.transaction() as tx:
                kept = tx.get_idempotency("g1", 0, "k")
            assert kept is not None and (kept.request_hash, kept.body) == ("h", {"version": 3})
        finally:
            store.close()
        downgrade(empty_url, "0012")
        with engine.connect() as connection:
            assert connection.execute(sa.text("SELECT status, body FROM idempotency")).one().status == 201
    finally:
        engine.dispose()


def test_revision_0014_reads_a_challenge_made_before_it_as_committed_to_no_seed_and_given_no_entropy(
        empty_url: str) -> None:
    import datetime as dt

    from persistence import open_store
    from persistence.accounts import accounts_of

    upgrade(empty_url, "0013")
    engine = sa.create_engine(empty_url)
    try:
        with engine.begin() as connection:  # an open challenge, accepted by two of three, as revision 0013 kept it
            connection.execute(sa.text(
                "INSERT INTO challenges (id, challenger, game, players, options, rated, invited, accepted, status, "
                "revision, game_id, reason, created_at, expires_at) VALUES ('c1', 'ana', 'scat', 3, '{}', false, "
                "NULL, '[\"ana\", \"bo\"]', 'open', 2, NULL, NULL, :at, :at)"), {"at": dt.datetime(2026, 1, 2)})
        upgrade(empty_url)
        store = open_store(empty_url)
        try:
            found = accounts_of(store).challenge("c1")
            assert found is not None and (found.server_seed, found.entropy) == (None, (None, None))
            with engine.begin() as connection:  # cy accepted by a server older than 0014: its entropy not written
                connection.execute(sa.text("UPDATE challenges SET accepted = '[\"ana\", \"bo\", \"cy\"]', "
                                           "entropy = :given"), {"given": '[null, "' + "ab" * 32 + '"]'})
            assert accounts_of(store).challenge("c1").entropy == (None, "ab" * 32, None)  # type: ignore[union-attr]
        finally:
            store.close()
        downgrade(empty_url, "0013")
        with engine.connect() as connection:
            assert connection.execute(sa.text("SELECT accepted FROM challenges")).one().accepted is not None
    finally:
        engine.dispose()


def test_revision_0015_enters_the_tournaments_made_before_it_marked_as_they_stand_and_reads_old_accounts_as_anyone(
        empty_url: str) -> None:
    import datetime as dt

    from persistence import open_store
    from persistence.accounts import ANYONE, accounts_of
    from persistence.ladder import ladder_of

    at = dt.datetime(2026, 1, 2)
    upgrade(empty_url, "0014")
    engine = sa.create_engine(empty_url)
    try:
        with engine.begin() as connection:  # ana made two tournaments of Ana, Bo and Cy: g1's is over, g2's is not
            add_bots(connection, ("Ana", "Bo", "Cy"), at)
            for game_id, finished in (("g1", True), ("g2", False)):
                connection.execute(sa.text("INSERT INTO games (id, game, players, status, created_at) "
                                           "VALUES (:id, 'craits', 2, 'active', :at)"), {"id": game_id, "at": at})
                connection.execute(sa.text("INSERT INTO account_seats (game_id, seat, account, finished) "
                                           "VALUES (:id, 0, 'bo', :finished)"), {"id": game_id, "finished": finished})
            for tournament_id, game_id in (("t1", "g1"), ("t2", "g2")):
                connection.execute(sa.text(
                    "INSERT INTO tournaments (id, creator, game, spec, games, created_at) VALUES (:id, 'ana', 'craits', "
                    "'{\"accounts\": [\"Ana\", \"Bo\", \"Cy\"]}', :games, :at)"),
                    {"id": tournament_id, "games": f'[{{"game_id": "{game_id}"}}]', "at": at})
        upgrade(empty_url, "0015")
        with engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT tournament_id, account, running FROM tournament_entries "
                                              "ORDER BY tournament_id, account")).all()
        assert [(row[0], row[1], bool(row[2])) for row in rows] == [
            ("t1", "bo", False), ("t1", "cy", False), ("t2", "bo", True), ("t2", "cy", True)]
        upgrade(empty_url)
        store = open_store(empty_url)
        try:
            assert accounts_of(store).account("bo").entered_by == ANYONE  # type: ignore[union-attr]
            with store.transaction() as tx, ladder_of(store).within(tx) as ladder:
                assert [tournament.id for tournament in ladder.entered(["cy"])] == ["t2"]
        finally:
            store.close()
        downgrade(empty_url, "0014")
        assert "tournament_entries" not in tables(empty_url)
    finally:
        engine.dispose()


def test_revision_0017_merges_the_entries_into_the_tournaments_accounts_and_gives_them_back_going_down(
        empty_url: str) -> None:
    import datetime as dt

    from persistence import open_store
    from persistence.ladder import Tournament, ladder_of

    at = dt.datetime(2026, 1, 2)
    upgrade(empty_url, "0016")
    engine = sa.create_engine(empty_url)
    # ana made t1 of Ana, Bo and Cy (over) and t2 of Ana and Bo (running); bo made t3 of Bo and Cy (running)
    made = {"t1": ("ana", ["Ana", "Bo", "Cy"]), "t2": ("ana", ["Ana", "Bo"]), "t3": ("bo", ["Bo", "Cy"])}
    entries = [("t1", "bo", False), ("t1", "cy", False), ("t2", "bo", True), ("t3", "cy", True)]
    try:
        with engine.begin() as connection:  # as revision 0016 kept them: entries and accounts in two tables
            add_bots(connection, ("Ana", "Bo", "Cy"), at)
            for tournament_id, (creator, names) in made.items():
                connection.execute(sa.text(
                    "INSERT INTO tournaments (id, creator, game, spec, games, created_at) VALUES (:id, :creator, "
                    "'craits', :spec, '[]', :at)"),
                    {"id": tournament_id, "creator": creator, "spec": json.dumps({"accounts": names}), "at": at})
                connection.execute(sa.text("INSERT INTO tournament_accounts (tournament_id, account, created_at) "
                                           "VALUES (:id, :account, :at)"),
                                   [{"id": tournament_id, "account": name.lower(), "at": at} for name in names])
            connection.execute(sa.text("INSERT INTO tournament_entries (tournament_id, account, running) "
                                       "VALUES (:id, :account, :running)"),
                               [{"id": id_, "account": account, "running": running} for id_, account, running in entries])
        upgrade(empty_url, "0017")
        assert "tournament_entries" not in tables(empty_url)
        with engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT tournament_id, account, entered, running FROM tournament_accounts "
                                              "ORDER BY tournament_id, account")).all()
        assert [(row[0], row[1], bool(row[2]), bool(row[3])) for row in rows] == [
            ("t1", "ana", False, False), ("t1", "bo", True, False), ("t1", "cy", True, False),
            ("t2", "ana", False, False), ("t2", "bo", True, True),
            ("t3", "bo", False, False), ("t3", "cy", True, True)]
        store = open_store(empty_url)
        try:  # the makers' rows never count: ana and bo are each in one running tournament another made
            with store.transaction() as tx, ladder_of(store).within(tx) as ladder:
                assert [tournament.id for tournament in ladder.entered(["ana"])] == []
                assert [tournament.id for tournament in ladder.entered(["bo"])] == ["t2"]
                assert [tournament.id for tournament in ladder.entered(["bo", "cy"])] == ["t2", "t3"]
                ladder.add_tournament(Tournament("t4", "Cy", "craits", {"accounts": ["Cy", "Ana"]}, [],
                                                 at + dt.timedelta(days=1)))  # (written as the migration wrote t3)
                assert [tournament.id for tournament in ladder.entered(["cy"])] == ["t3"]
                assert [tournament.id for tournament in ladder.entered(["ana"])] == ["t4"]
            assert [tournament.id for tournament in ladder_of(store).tournaments("bo", None, 10)] == ["t3", "t2", "t1"]
            assert [tournament.id for tournament in ladder_of(store).tournaments("cy", None, 10)] == ["t4", "t3", "t1"]
        finally:
            store.close()
        downgrade(empty_url, "0016")
        with engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT tournament_id, account, running FROM tournament_entries "
                                              "ORDER BY tournament_id, account")).all()
            kept = connection.execute(sa.text("SELECT * FROM tournament_accounts ORDER BY tournament_id, account")).all()
        assert [(row[0], row[1], bool(row[2])) for row in rows] == [*entries, ("t4", "ana", True)]
        assert [tuple(row._mapping) for row in kept] == [("tournament_id", "account", "created_at")] * 9
        assert [(row.tournament_id, row.account) for row in kept] == [
            (id_, name.lower()) for id_, (_, names) in sorted(made.items()) for name in sorted(names)] + [
            ("t4", "ana"), ("t4", "cy")]
        upgrade(empty_url)
        assert current_revision(empty_url) == head()
    finally:
        engine.dispose()


def test_revision_0018_marks_the_account_seats_the_log_shows_handed_over_and_drops_the_mark_going_down(
        empty_url: str) -> None:
    import datetime as dt

    from persistence import open_store
    from persistence.accounts import accounts_of

    at = dt.datetime(2026, 1, 2)
    upgrade(empty_url, "0017")
    engine = sa.create_engine(empty_url)
    try:
        with engine.begin() as connection:  # ana resigned g1, where bo plays on; cy was handed over in g2 (timeouts)
            add_bots(connection, ("ana", "bo", "cy"), at)
            for game_id, seated, left in (("g1", ("ana", "bo"), ("SeatResigned", 0)),
                                          ("g2", ("bo", "cy"), ("SeatAbandoned", 1))):
                connection.execute(sa.text("INSERT INTO games (id, game, players, status, created_at) "
                                           "VALUES (:id, 'craits', 2, 'active', :at)"), {"id": game_id, "at": at})
                events = [("GameCreated", None), ("SeatTaken", 0), ("SeatTaken", 1), ("TurnTimedOut", 1 - left[1]),
                          left]
                connection.execute(sa.text("INSERT INTO events (game_id, version, type, seat, data, recorded_at) "
                                           "VALUES (:id, :version, :type, :seat, '{}', :at)"),
                                   [{"id": game_id, "version": version, "type": type_, "seat": seat, "at": at}
                                    for version, (type_, seat) in enumerate(events, start=1)])
                connection.execute(sa.text("INSERT INTO account_seats (game_id, seat, account, finished) "
                                           "VALUES (:id, :seat, :account, false)"),
                                   [{"id": game_id, "seat": seat, "account": name} for seat, name in enumerate(seated)])
        upgrade(empty_url, "0018")
        store = open_store(empty_url)
        try:
            accounts = accounts_of(store)
            assert accounts.playing(["ana", "bo", "cy"]) == {"bo": 2}
            assert [accounts.games_of(name)[1] for name in ("ana", "bo", "cy")] == [[], ["g1", "g2"], []]
        finally:
            store.close()
        downgrade(empty_url, "0017")
        with engine.connect() as connection:
            assert [tuple(row._mapping) for row in connection.execute(sa.text("SELECT * FROM account_seats"))] == [
                ("game_id", "seat", "account", "finished")] * 4
        upgrade(empty_url)
        assert current_revision(empty_url) == head()
    finally:
        engine.dispose()


def test_revision_0019_forgets_the_account_seats_of_the_games_aborted_before_it(empty_url: str) -> None:
    import datetime as dt

    from persistence import open_store
    from persistence.accounts import accounts_of

    at = dt.datetime(2026, 1, 2)
    upgrade(empty_url, "0018")
    engine = sa.create_engine(empty_url)
    try:
        with engine.begin() as connection:  # ana finished g1 and aborted g2 while it waited for players
            add_bots(connection, ("ana",), at)
            for game_id, status in (("g1", "finished"), ("g2", "aborted")):
                connection.execute(sa.text("INSERT INTO games (id, game, players, status, created_at) "
                                           "VALUES (:id, 'craits', 2, :status, :at)"),
                                   {"id": game_id, "status": status, "at": at})
                connection.execute(sa.text("INSERT INTO account_seats (game_id, seat, account, finished) "
                                           "VALUES (:id, 0, 'ana', true)"), {"id": game_id})
        upgrade(empty_url, "0019")
        store = open_store(empty_url)
        try:
            assert accounts_of(store).games_of("ana") == (1, [])
        finally:
            store.close()
        downgrade(empty_url, "0018")
        with engine.connect() as connection:
            assert connection.execute(sa.text("SELECT game_id FROM account_seats")).scalars().all() == ["g1"]
        upgrade(empty_url)
        assert current_revision(empty_url) == head()
    finally:
        engine.dispose()


def test_a_database_a_newer_release_migrated_is_refused_in_a_line_that_says_so(empty_url: str, capsys) -> None:
    # (an older release restarted during a rolling upgrade, or a backup of the newer release restored under the old
    # one: alembic said only "Can't locate revision identified by '9999'")
    from cardhall_cli import main

    upgrade(empty_url)
    engine = sa.create_engine(empty_url)
    try:
        with engine.begin() as connection:
            connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    finally:
        engine.dispose()
    assert main(["db", "upgrade", "--database", empty_url]) == 1
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and said[0].startswith("cardhall: cannot migrate ")
    assert ("the database is at schema revision 9999, which this release does not know: a newer release migrated it "
            "(there is no downgrade: serve it with that release or a later one, or restore a backup taken before "
            f"that upgrade; this release's newest revision is {head()})") in said[0]
    assert current_revision(empty_url) == "9999"  # (nothing changed)


def add_bots(connection: sa.Connection, names: tuple[str, ...], at: object) -> None:
    """Bot accounts of ``names`` made at ``at``, written as the tables of any revision since accounts hold them."""
    connection.execute(sa.text("INSERT INTO accounts (name_key, name, kind, description, created_at) "
                               "VALUES (:key, :name, 'bot', '', :at)"),
                       [{"key": name.lower(), "name": name, "at": at} for name in names])
