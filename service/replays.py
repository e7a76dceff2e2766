"""Past tables for replays (``state?at=N``), folded from checkpoints rather than from the log's start.

Replaying a game to version N folds N events, and a page stepping through a long game one
version at a time would fold the whole log again for every step. Every replay here remembers
the tables it passes at multiples of ``every`` versions, so a later replay of the game folds
fewer than ``every`` events from the nearest checkpoint at or below its version. A game's
past never changes and tables are immutable, so a checkpoint never goes stale. At most
``size`` checkpoints are kept, those of the least recently replayed games dropped first.
The log is read ``READ_PAGE`` events at a time, so a replay far into a long game never holds
its whole log in memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from domain import table as tables
from persistence.port import EventStore
from service.tables import fold

READ_PAGE = 1000  # events read at a time on the way to a replayed version


class Checkpoints:
    """Tables of games at multiples of ``every`` versions, for replays."""

    def __init__(self, store: EventStore, every: int = 64, size: int = 4096) -> None:
        self.store = store
        self.every = every
        self.size = size
        self._games: OrderedDict[str, dict[int, tables.Table]] = OrderedDict()
        self._count = 0
        self._lock = threading.Lock()

    def table_at(self, game_id: str, version: int) -> tables.Table:
        """The game's table as it stood after event ``version`` (which must exist)."""
        table = self._nearest(game_id, version)
        if table is not None and table.version == version:
            return table
        passed: dict[int, tables.Table] = {}
        while table is None or table.version < version:
            after = table.version if table is not None else 0
            page = self.store.read(game_id, after=after, limit=min(READ_PAGE, version - after))
            if not page:
                break  # (no such version: the assertion below says so)
            for stored in page:
                table = fold(table, [stored])
                if table.version % self.every == 0:
                    passed[table.version] = table
        assert table is not None and table.version == version, "a version that exists has a table"
        self._remember(game_id, passed)
        return table

    def _nearest(self, game_id: str, version: int) -> tables.Table | None:
        """The checkpoint at or below ``version`` (at most ``every`` - 1 below), if there is one."""
        with self._lock:
            kept = self._games.get(game_id)
            if kept is None:
                return None
            self._games.move_to_end(game_id)
            return kept.get(version - version % self.every)

    def _remember(self, game_id: str, passed: dict[int, tables.Table]) -> None:
        if not passed:
            return
        with self._lock:
            kept = self._games.setdefault(game_id, {})
            self._count += len(passed.keys() - kept.keys())
            kept.update(passed)
            self._games.move_to_end(game_id)
            while self._count > self.size and len(self._games) > 1:
                _, dropped = self._games.popitem(last=False)
                self._count -= len(dropped)
