"""The store contract: every backend (memory, SQLite, PostgreSQL) must pass every test here."""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest

from persistence.port import (
    EventStore,
    GameExists,
    IdempotencyRecord,
    NewEvent,
    Snapshot,
    UnknownGame,
    VersionConflict,
)
from tests.waiting import until

T0 = dt.datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def new_game(store: EventStore, game_id: str = "g1", game: str = "craits", created_at: dt.datetime = T0) -> None:
    with store.transaction() as tx:
        tx.create_game(game_id, game, 2, created_at)


def append(store: EventStore, game_id: str, expected: int, count: int = 1, when: dt.datetime = T0) -> list:
    events = [NewEvent("CardPlayed", (expected + i) % 2, {"n": expected + i}) for i in range(count)]
    with store.transaction() as tx:
        return tx.append(game_id, expected, events, when)


def test_a_new_game_is_listed_as_waiting_at_version_zero(store: EventStore) -> None:
    new_game(store)
    record = store.get_game("g1")
    assert (record.id, record.game, record.players, record.status, record.version) == ("g1", "craits", 2, "waiting", 0)
    assert record.created_at == T0 and record.updated_at == T0
    assert store.last_version("g1") == 0
    assert store.read("g1") == []


def test_the_versions_of_many_games_are_read_at_once_and_unknown_games_left_out(store: EventStore) -> None:
    names = [f"g{number}" for number in range(1, 1202)]  # (more than one statement's worth on SQL)
    with store.transaction() as tx:
        for name in names:
            tx.create_game(name, "craits", 2, T0)
    append(store, "g2", 0, count=3)
    append(store, "g1201", 0, count=1)
    versions = store.last_versions([*names, "nope"])
    assert versions == {name: 3 if name == "g2" else 1 if name == "g1201" else 0 for name in names}
    assert store.last_versions([]) == {}


def test_an_unknown_game_has_no_record_no_version_and_no_events(store: EventStore) -> None:
    assert store.get_game("nope") is None
    assert store.last_version("nope") is None
    assert store.read("nope") == []


def test_creating_a_game_twice_raises_game_exists(store: EventStore) -> None:
    new_game(store)
    with pytest.raises(GameExists):
        new_game(store, created_at=at(1))
    assert store.get_game("g1").created_at == T0


def test_appended_events_read_back_whole_with_versions_from_one(store: EventStore) -> None:
    new_game(store)
    data = {"cards": ["AS", "10H"], "nested": {"ok": True, "none": None}, "ratio": 0.5, "text": "ünïcødé"}
    events = [NewEvent("GameCreated", None, data), NewEvent("CardPlayed", 1, {"card": "QS"})]
    with store.transaction() as tx:
        appended = tx.append("g1", 0, events, at(2))
    read = store.read("g1")
    assert read == appended
    assert [e.version for e in read] == [1, 2]
    assert [(e.type, e.seat, e.data) for e in read] == [("GameCreated", None, data), ("CardPlayed", 1, {"card": "QS"})]
    assert all(e.recorded_at == at(2) and e.game_id == "g1" for e in read)
    record = store.get_game("g1")
    assert (record.version, record.updated_at, record.created_at) == (2, at(2), T0)


def test_times_read_back_in_utc_to_the_microsecond_however_they_were_given(store: EventStore) -> None:
    new_game(store)
    given = [dt.datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=dt.UTC),
             dt.datetime(2026, 3, 4, 7, 6, 7, tzinfo=dt.timezone(dt.timedelta(hours=2))),
             dt.datetime(2026, 3, 4, 5, 6, 8)]  # naive: taken as UTC
    for version, when in enumerate(given):
        append(store, "g1", version, when=when)
    expected = [when.astimezone(dt.UTC) if when.tzinfo else when.replace(tzinfo=dt.UTC) for when in given]
    assert [e.recorded_at for e in store.read("g1")] == expected
    assert all(e.recorded_at.utcoffset() == dt.timedelta(0) for e in store.read("g1"))


def test_a_stale_expected_version_raises_version_conflict_and_appends_nothing(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0, count=3)
    with pytest.raises(VersionConflict) as conflict:
        append(store, "g1", 1, count=2)
    assert (conflict.value.expected, conflict.value.actual) == (1, 3)
    assert [e.version for e in store.read("g1")] == [1, 2, 3]
    assert store.last_version("g1") == 3


def test_an_expected_version_ahead_of_the_game_is_a_conflict_too(store: EventStore) -> None:
    new_game(store)
    with pytest.raises(VersionConflict):
        append(store, "g1", 5)
    assert store.read("g1") == []


def test_appending_to_an_unknown_game_raises_unknown_game(store: EventStore) -> None:
    with pytest.raises(UnknownGame):
        append(store, "nope", 0)
    with pytest.raises(UnknownGame):
        append(store, "nope", 3, count=2)
    with pytest.raises(UnknownGame), store.transaction() as tx:
        tx.append("nope", 0, [], T0)
    assert store.read("nope") == [] and store.get_game("nope") is None


def test_an_append_of_no_events_checks_the_version_and_changes_nothing(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0, count=2)
    with store.transaction() as tx:
        assert tx.append("g1", 2, [], at(5)) == []
    with pytest.raises(VersionConflict), store.transaction() as tx:
        tx.append("g1", 1, [], at(5))
    record = store.get_game("g1")
    assert (record.version, record.updated_at) == (2, T0)


def test_read_after_a_version_returns_only_the_later_events(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0, count=5)
    assert [e.version for e in store.read("g1", after=3)] == [4, 5]
    assert store.read("g1", after=5) == []


def test_read_with_a_limit_pages_through_the_log(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0, count=7)
    pages, after = [], 0
    while page := store.read("g1", after=after, limit=3):
        pages.append([e.version for e in page])
        after = page[-1].version
    assert pages == [[1, 2, 3], [4, 5, 6], [7]]


def test_events_of_several_transactions_and_games_stay_apart(store: EventStore) -> None:
    new_game(store, "a")
    new_game(store, "b")
    for expected in range(3):
        append(store, "a", expected)
        append(store, "b", expected)
    assert [(e.game_id, e.version) for e in store.read("a")] == [("a", 1), ("a", 2), ("a", 3)]
    assert store.last_version("b") == 3


def test_set_status_shows_in_the_listing(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.set_status("g1", "active")
    assert store.get_game("g1").status == "active"


def test_list_games_filters_by_status_and_by_game(store: EventStore) -> None:
    for number in range(6):
        new_game(store, f"g{number}", "craits" if number % 2 else "scat", at(number))
    with store.transaction() as tx:
        tx.set_status("g1", "active")
        tx.set_status("g2", "active")
    assert [g.id for g in store.list_games(status="active").games] == ["g2", "g1"]
    assert [g.id for g in store.list_games(game="craits").games] == ["g5", "g3", "g1"]
    assert [g.id for g in store.list_games(game="scat", status="active").games] == ["g2"]
    assert store.list_games(game="nothing").games == []


def test_list_games_pages_newest_first_with_an_opaque_cursor(store: EventStore) -> None:
    # Games created in the same instant are ordered by id, so no page repeats or skips one.
    ids = [f"g{number:02}" for number in range(23)]
    for number, game_id in enumerate(ids):
        new_game(store, game_id, created_at=at(number // 3))
    seen, cursor, pages = [], None, 0
    while True:
        page = store.list_games(limit=5, cursor=cursor)
        seen += [g.id for g in page.games]
        pages += 1
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    expected = sorted(ids, key=lambda game_id: (int(game_id[1:]) // 3, game_id), reverse=True)
    assert seen == expected
    assert pages == 5


def test_the_last_full_page_has_no_next_cursor(store: EventStore) -> None:
    for number in range(4):
        new_game(store, f"g{number}", created_at=at(number))
    assert store.list_games(limit=4).next_cursor is None
    assert store.list_games(limit=3).next_cursor is not None


@pytest.mark.parametrize("cursor", ["garbage!", "Zm9v", ""])
def test_a_malformed_cursor_raises_value_error(store: EventStore, cursor: str) -> None:
    with pytest.raises(ValueError):
        store.list_games(cursor=cursor)


def test_a_token_hash_finds_its_game_and_seat(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.add_token("g1", 0, "a" * 64)
        tx.add_token("g1", 1, "b" * 64)
    assert store.seat_for_token("b" * 64) == ("g1", 1)
    assert store.seat_for_token("c" * 64) is None


def test_an_idempotency_record_is_kept_per_game_seat_and_key(store: EventStore) -> None:
    new_game(store)
    record = IdempotencyRecord("f" * 64, {"version": 3, "events": [{"type": "CardPlayed"}]})
    with store.transaction() as tx:
        assert tx.get_idempotency("g1", 0, "key-1") is None
        tx.put_idempotency("g1", 0, "key-1", record)
    with store.transaction() as tx:
        assert tx.get_idempotency("g1", 0, "key-1") == record
        assert tx.get_idempotency("g1", 1, "key-1") is None
        assert tx.get_idempotency("g1", 0, "key-2") is None


def test_an_error_inside_a_transaction_leaves_nothing_behind(store: EventStore) -> None:
    new_game(store)
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.create_game("g2", "scat", 3, at(1))
        tx.append("g1", 0, [NewEvent("CardPlayed", 0, {})], at(1))
        tx.set_status("g1", "active")
        tx.add_token("g1", 0, "a" * 64)
        tx.put_idempotency("g1", 0, "k", IdempotencyRecord("h", {}))
        tx.put_snapshot("g1", 1, "f" * 64, b"state")
        raise RuntimeError("the service failed half-way")
    assert store.get_game("g2") is None
    assert store.read("g1") == [] and store.read("g2") == []
    assert store.get_game("g1").status == "waiting" and store.last_version("g1") == 0
    assert store.seat_for_token("a" * 64) is None
    with store.transaction() as tx:
        assert tx.get_idempotency("g1", 0, "k") is None
    assert store.latest_snapshot("g1") is None


def test_a_conflict_inside_a_transaction_rolls_back_its_earlier_writes(store: EventStore) -> None:
    new_game(store)
    with pytest.raises(VersionConflict), store.transaction() as tx:
        tx.append("g1", 0, [NewEvent("CardPlayed", 0, {})], at(1))
        tx.append("g1", 0, [NewEvent("CardPlayed", 0, {})], at(1))
    assert store.read("g1") == [] and store.last_version("g1") == 0


def test_a_status_and_snapshot_written_before_a_refused_append_are_rolled_back_with_it(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0, count=2)
    with pytest.raises(VersionConflict), store.transaction() as tx:
        tx.set_status("g1", "finished")
        tx.put_snapshot("g1", 3, "d" * 64, b"three")
        tx.append("g1", 1, [NewEvent("CardPlayed", 0, {})], at(1))
    assert store.get_game("g1").status == "waiting" and store.latest_snapshot("g1") is None
    assert store.last_version("g1") == 2


def test_a_status_and_snapshot_written_before_an_append_are_stored_with_its_events(store: EventStore) -> None:
    new_game(store)
    new_game(store, "g2")
    for status in ("finished", "active"):
        version = store.last_version("g1")
        with store.transaction() as tx:
            tx.set_status("g2", "active")  # another game's write first: in order, not lost
            tx.set_status("g1", status)
            tx.put_snapshot("g1", version + 1, "e" * 64, b"snap")
            tx.append("g1", version, [NewEvent("CardPlayed", 0, {})], at(1))
        assert store.get_game("g1").status == status
        assert store.get_game("g2").status == "active"
        assert store.latest_snapshot("g1") == Snapshot(version + 1, "e" * 64, b"snap")
        assert store.last_version("g1") == version + 1


def test_a_status_or_snapshot_written_without_an_append_is_stored_at_commit(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.set_status("g1", "active")
        tx.put_snapshot("g1", 0, "f" * 64, b"empty")
    assert store.get_game("g1").status == "active"
    assert store.latest_snapshot("g1") == Snapshot(0, "f" * 64, b"empty")
    with store.transaction() as tx:
        tx.set_status("g1", "finished")
        tx.add_token("g1", 0, "b" * 64)  # (another statement after it)
    assert store.get_game("g1").status == "finished" and store.seat_for_token("b" * 64) == ("g1", 0)
    with pytest.raises(UnknownGame), store.transaction() as tx:
        tx.set_status("nope", "active")


def listening(store: EventStore) -> None:
    """Start the store's listener and wait until it hears other processes: when it starts it forgets what it
    heard before (appends of other processes may have gone unheard), and asks every subscriber to read again."""
    store.announcements.latest("g1")
    listener = getattr(store.announcements, "listener", None)
    if listener is not None:
        assert listener.ready.wait(10)


def heard_past(store: EventStore, game_id: str, after: int, timeout: float) -> bool:
    """Whether the store announces the game past ``after`` within ``timeout``, to a subscriber as a follower is."""
    heard = threading.Event()
    unsubscribe = store.announcements.subscribe(
        game_id, lambda version: heard.set() if version is not None and version > after else None)
    try:
        return heard.wait(timeout)
    finally:
        unsubscribe()


def test_a_subscriber_hears_an_append_from_another_thread(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0)
    timer = threading.Timer(0.2, append, args=(store, "g1", 1))
    timer.start()
    try:
        assert heard_past(store, "g1", after=1, timeout=10) is True
    finally:
        timer.join()
    assert store.last_version("g1") == 2


def test_a_subscriber_hears_at_once_an_append_heard_before_it_subscribed(store: EventStore) -> None:
    new_game(store)
    listening(store)
    append(store, "g1", 0, count=2)
    assert heard_past(store, "g1", after=1, timeout=0) is True


def test_a_subscriber_hears_nothing_of_another_games_appends(store: EventStore) -> None:
    new_game(store)
    new_game(store, "other")
    threading.Timer(0.1, append, args=(store, "other", 0)).start()
    assert heard_past(store, "g1", after=0, timeout=0.4) is False


def test_a_second_store_on_the_same_database_hears_the_first_ones_appends(
        two_stores: tuple[EventStore, EventStore]) -> None:
    """What another process appends is announced to this one (SQLite: its poll; PostgreSQL: LISTEN/NOTIFY)."""
    first, second = two_stores
    new_game(first)
    timer = threading.Timer(0.3, append, args=(first, "g1", 0))
    timer.start()
    try:
        assert heard_past(second, "g1", after=0, timeout=10) is True
    finally:
        timer.join()
    until(lambda: second.announcements.latest("g1") == 1, "the second store tells the version it heard")


def test_two_appends_racing_on_one_version_give_exactly_one_conflict(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0)
    both_inside = threading.Barrier(2, timeout=10)
    outcomes: list[str] = []

    def racer(seat: int) -> None:
        both_inside.wait()
        try:
            with store.transaction() as tx:
                tx.append("g1", 1, [NewEvent("CardPlayed", seat, {"seat": seat})], at(seat))
            outcomes.append("appended")
        except VersionConflict:
            outcomes.append("conflict")

    racers = [threading.Thread(target=racer, args=(seat,)) for seat in (0, 1)]
    for thread in racers:
        thread.start()
    for thread in racers:
        thread.join(30)
    assert sorted(outcomes) == ["appended", "conflict"]
    assert store.last_version("g1") == 2 and len(store.read("g1")) == 2


def test_two_stores_on_one_database_racing_on_one_version_give_exactly_one_conflict(
        two_stores: tuple[EventStore, EventStore]) -> None:
    first, second = two_stores
    new_game(first)
    append(first, "g1", 0)
    outcomes: list[str] = []
    both_inside = threading.Barrier(2, timeout=10)

    def racer(store: EventStore, seat: int) -> None:
        both_inside.wait()
        try:
            append(store, "g1", 1)
            outcomes.append("appended")
        except VersionConflict:
            outcomes.append("conflict")

    racers = [threading.Thread(target=racer, args=(store, seat)) for seat, store in enumerate(two_stores)]
    for thread in racers:
        thread.start()
    for thread in racers:
        thread.join(60)
    assert sorted(outcomes) == ["appended", "conflict"]
    assert [e.version for e in second.read("g1")] == [1, 2]


def test_reads_during_an_open_writing_transaction_see_the_last_commit_without_waiting(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0)
    with store.transaction() as tx:
        tx.append("g1", 1, [NewEvent("CardPlayed", 0, {})], at(1))
        started = time.monotonic()
        assert [e.version for e in store.read("g1")] == [1]
        assert store.last_version("g1") == 1
        assert time.monotonic() - started < 1
    assert store.last_version("g1") == 2


def test_a_transaction_reads_the_version_with_its_own_appends(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0)
    with store.transaction() as tx:
        assert tx.last_version("g1") == 1
        assert tx.last_version("nope") is None
        tx.append("g1", 1, [NewEvent("CardPlayed", 0, {"n": 2})], at(1))
        assert tx.last_version("g1") == 2


# Snapshots: at most one per game, the latest written replacing the one before, bytes kept exactly.
ANY_BYTES = bytes(range(256)) * 4


def test_a_game_without_a_snapshot_has_none(store: EventStore) -> None:
    new_game(store)
    assert store.latest_snapshot("g1") is None
    assert store.latest_snapshot("nope") is None


def test_a_snapshot_reads_back_byte_for_byte_and_a_later_one_replaces_it(store: EventStore) -> None:
    new_game(store)
    new_game(store, "g2")
    append(store, "g1", 0, count=3)
    with store.transaction() as tx:
        tx.put_snapshot("g1", 2, "a" * 64, ANY_BYTES)
    assert store.latest_snapshot("g1") == Snapshot(2, "a" * 64, ANY_BYTES)
    assert isinstance(store.latest_snapshot("g1").blob, bytes)
    with store.transaction() as tx:
        tx.put_snapshot("g1", 3, "b" * 64, b"\x00later")
    assert store.latest_snapshot("g1") == Snapshot(3, "b" * 64, b"\x00later")
    assert store.latest_snapshot("g2") is None
    assert [e.version for e in store.read("g1")] == [1, 2, 3]  # the log is untouched


def test_a_snapshot_written_in_a_transaction_is_seen_at_its_commit(store: EventStore) -> None:
    new_game(store)
    append(store, "g1", 0, count=2)
    with store.transaction() as tx:
        tx.append("g1", 2, [NewEvent("CardPlayed", 0, {})], at(1))
        tx.put_snapshot("g1", 3, "c" * 64, b"three")
        assert store.latest_snapshot("g1") is None
    assert store.latest_snapshot("g1") == Snapshot(3, "c" * 64, b"three")


def test_the_shuffle_secret_is_64_hex_characters_and_the_same_at_every_ask(store: EventStore) -> None:
    secret = store.shuffle_secret()
    assert len(secret) == 64 and int(secret, 16) and store.shuffle_secret() == secret


def test_due_games_are_those_whose_deadline_has_passed_earliest_first_with_their_version(store: EventStore) -> None:
    for game_id, deadline in (("late", at(20)), ("early", at(10)), ("ahead", at(60)), ("none", None)):
        new_game(store, game_id)
        append(store, game_id, 0, count=2)
        with store.transaction() as tx:
            tx.set_deadline(game_id, deadline)
    assert store.due_games(at(30)) == [("early", 2), ("late", 2)]
    assert store.due_games(at(20), limit=1) == [("early", 2)]
    assert store.due_games(at(9)) == []


def test_a_deadline_is_replaced_or_cleared_with_its_append_and_rolled_back_with_a_refused_one(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.set_deadline("g1", at(5))
        tx.append("g1", 0, [NewEvent("CardPlayed", 0, {})], T0)
    with pytest.raises(VersionConflict), store.transaction() as tx:
        tx.set_deadline("g1", None)
        tx.append("g1", 0, [NewEvent("CardPlayed", 0, {})], T0)
    assert store.due_games(at(5)) == [("g1", 1)]
    with store.transaction() as tx:
        tx.set_deadline("g1", None)
        tx.append("g1", 1, [NewEvent("CardPlayed", 1, {})], T0)
    assert store.due_games(at(10**6)) == []
    with pytest.raises(UnknownGame), store.transaction() as tx:
        tx.set_deadline("nope", at(1))
