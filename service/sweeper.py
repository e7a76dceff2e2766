"""The sweeper: times out the turns whose deadline has passed, with no request from anyone.

Every server process runs one (a daemon thread, :meth:`Sweeper.start`). Each
sweep asks the store for the games that are due — an indexed read of those
alone, never a scan of every game — and times each out through the service.
Sweepers of many processes and hosts may pick the same game: the append's
version check lets exactly one of them record the timeout, and the others'
appends are refused and dropped. Each sweeper takes its due games in its own
random order, so two that wake together mostly work on different games.
"""

from __future__ import annotations

import logging
import random
import threading

from service.errors import OUTAGES
from service.games import GameService

log = logging.getLogger(__name__)

SWEEP_SECONDS = 0.5
BATCH = 500  # due games read per query; a sweep reads again while a batch was full


class Sweeper:
    """Times out due turns every ``interval`` seconds, in a thread of its own."""

    def __init__(self, games: GameService, interval: float = SWEEP_SECONDS, batch: int = BATCH) -> None:
        self.games = games
        self.interval = interval
        self.batch = batch
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._order = random.Random()

    def sweep(self) -> int:
        """One sweep: every game due now timed out; how many this sweeper timed out."""
        timed_out = 0
        while True:
            due = self.games.store.due_games(self.games.clock(), limit=self.batch)
            self._order.shuffle(due)
            done = sum(self._time_out(game_id, version) for game_id, version in due)
            timed_out += done
            if len(due) < self.batch or not done:  # (a full batch others timed out: theirs to finish)
                return timed_out

    def _time_out(self, game_id: str, version: int) -> bool:
        try:
            return self.games.time_out(game_id, version)
        except OUTAGES:
            raise
        except Exception:  # a bug in one game must not hold up the clocks of the others
            log.exception("game %s: timing out version %d failed", game_id, version)
            return False

    def start(self) -> Sweeper:
        """Sweep in a daemon thread until :meth:`stop`."""
        self._thread = threading.Thread(target=self._run, name="cardhall-sweeper", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop sweeping; wait for a sweep under way to end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.sweep()
            except OUTAGES as error:  # the database is out of reach: the next sweep tries again
                log.warning("sweep skipped: %s", error)
