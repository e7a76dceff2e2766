"""Loading tables from the store, with a cache of the latest state per game.

A cached table is checked against the stored version on every use; only the
events after it are read and folded, so loading costs the same however long the
game has run (and stays right when other processes append).

A table not cached (after a restart, in another worker, dropped by the LRU) or
far behind starts from the game's snapshot (:mod:`service.snapshots`), if one
written by this very code loads, and folds only the events after it. A write
crossing a multiple of ``snapshot_every`` versions stores a new snapshot in its
own transaction, so a game's snapshot is never more than that many events old.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from domain import table as tables
from domain.events import Event
from persistence.port import EventStore, StoredEvent
from service import snapshots

SNAPSHOT_EVERY = 50  # versions; a cold load folds fewer than this many events
# A table in memory is many small tuples, so this cache is what a worker's memory
# grows by as games come and go (docs/performance.md, "Soak"): enough tables for the games in
# play on a busy worker; one dropped is rebuilt from its snapshot and the few events after it.
CACHED_TABLES = 512


def decode(game: str, stored: StoredEvent) -> Event:
    """The domain event a stored event holds."""
    return tables.decode(game, stored.type, stored.seat, stored.data)


def fold(table: tables.Table | None, stored_events: list[StoredEvent]) -> tables.Table | None:
    """Fold stored events (in version order) onto ``table``."""
    if not stored_events:
        return table
    return tables.replay_records(((stored.type, stored.seat, stored.data) for stored in stored_events), table)


class TableCache:
    """The latest table of recently used games, least recently used dropped first."""

    def __init__(self, store: EventStore, size: int = CACHED_TABLES, snapshot_every: int = SNAPSHOT_EVERY) -> None:
        self.store = store
        self.size = size
        self.snapshot_every = snapshot_every
        self._tables: OrderedDict[str, tables.Table] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many games' tables are cached."""
        return len(self._tables)

    def get(self, game_id: str, version: int | None = None, *, trust_cached: bool = False) -> tables.Table | None:
        """The game's table at the stored version (or at least at ``version`` if given); None if no game.
        ``trust_cached``: a cached table past ``version`` is taken as it is (``version`` is a hint)."""
        with self._lock:
            cached = self._tables.get(game_id)
        stored_version = self.store.last_version(game_id) if version is None else version
        if stored_version is None:
            return None
        base_version = cached.version if cached is not None else 0
        if cached is not None and (base_version == stored_version or (trust_cached and base_version > stored_version)):
            self._remember(game_id, cached)
            return cached
        if cached is not None and base_version > stored_version:
            cached, base_version = None, 0  # never trust a table ahead of the log
        if stored_version - base_version >= self.snapshot_every:  # else no snapshot can spare much
            cached = self._from_snapshot(game_id, base_version) or cached
            base_version = cached.version if cached is not None else 0
        table = fold(cached, self.store.read(game_id, after=base_version))
        if table is not None:
            self._remember(game_id, table)
        return table

    def folded(self, game_id: str, stored: list[StoredEvent]) -> tables.Table:
        """The table a game's log read from its start (``stored``) folds to: from the game's snapshot and the
        events after it where one spares work. Nothing is cached: for reading many games once (a bulk export)
        without pushing the games in play out of the cache."""
        table = self._from_snapshot(game_id, 0) if len(stored) >= self.snapshot_every else None
        if table is None or table.version > len(stored):
            table = None
        folded = fold(table, stored[table.version if table is not None else 0:])
        assert folded is not None
        return folded

    def _from_snapshot(self, game_id: str, base_version: int) -> tables.Table | None:
        """The game's snapshot as a table, if it is this code's, loads, and is later than ``base_version``."""
        snapshot = self.store.latest_snapshot(game_id)
        if snapshot is None or snapshot.version <= base_version or snapshot.fingerprint != snapshots.fingerprint():
            return None
        return snapshots.load(snapshot.blob, snapshot.version)

    def snapshot_due(self, before_version: int, after: tables.Table) -> tuple[int, str, bytes] | None:
        """The snapshot (version, fingerprint, blob) a write taking the game from ``before_version`` to
        ``after`` must store: one of ``after`` if it crosses a multiple of ``snapshot_every``, else None."""
        if after.version // self.snapshot_every > before_version // self.snapshot_every:
            return after.version, snapshots.fingerprint(), snapshots.dump(after)
        return None

    def heard_current(self, game_id: str) -> tables.Table | None:
        """The cached table, if the store has heard of no later version of the game (no read);
        else None. For a write, whose append checks the version anyway, and for a follower's wait, which a
        later announcement wakes."""
        with self._lock:
            cached = self._tables.get(game_id)
        if cached is None or self.store.announcements.latest(game_id) != cached.version:
            return None
        return cached

    def put(self, game_id: str, table: tables.Table) -> None:
        """Remember a table just written."""
        self._remember(game_id, table)

    def forget(self, game_id: str) -> None:
        """Drop a game's table (after a failed write)."""
        with self._lock:
            self._tables.pop(game_id, None)

    def _remember(self, game_id: str, table: tables.Table) -> None:
        with self._lock:
            current = self._tables.get(game_id)
            if current is None or current.version <= table.version:
                self._tables[game_id] = table
            self._tables.move_to_end(game_id)
            while len(self._tables) > self.size:
                self._tables.popitem(last=False)
