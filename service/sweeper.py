"""The sweeper: times out the turns whose deadline has passed, and plays on the games that wait
for the house, with no request from anyone.

Every server process runs one (a daemon thread, :meth:`Sweeper.start`). Each
sweep asks the store for the games that are due — an indexed read of those
alone, never a scan of every game — and acts for each through the service
(:meth:`GameService.act_when_due`). A game waits for the house when a request
stopped after its bounded number of events while house bots could go on
(service.writes.MAX_EVENTS_PER_WRITE): it is due at once, and each sweep plays at
most that many more of its events, then makes it due again, behind the games due
before it. So a game of house bots alone plays on at a bounded pace, a step every
sweep, and finishes by itself; a sweep acts only for the games due when it began,
each once, ``batch`` at a time.
Sweepers of many processes and hosts may pick the same game: the append's
version check lets exactly one of them record the timeout, and the others'
appends are refused and dropped. Each sweeper takes its due games in its own
random order, so two that wake together mostly work on different games.

Given idle limits (``cardhall serve --abandon-after``, ``--expire-waiting-after``), it
also ends, every ``idle_interval`` seconds, the games nobody changed for longer: a
waiting game expires (``GameAborted``), an active one is handed to house bots
(``SeatAbandoned``), which play it to the end. Those it finds through the listing of
waiting and active games, which it pages through; the same version check makes each
happen once.
"""

from __future__ import annotations

import logging
import random
import threading
import time

from domain.leaving import IdleLimits
from persistence.interruptions import Interruption
from service.errors import OUTAGES
from service.games import GameService

log = logging.getLogger(__name__)

SWEEP_SECONDS = 0.5
IDLE_SWEEP_SECONDS = 60.0  # how often idle games are looked for: the limits are minutes to days
BATCH = 500  # due games read per query; a sweep reads again while a batch was full


class Sweeper:
    """Times out due turns every ``interval`` seconds, in a thread of its own."""

    def __init__(self, games: GameService, interval: float = SWEEP_SECONDS, batch: int = BATCH,
                 idle: IdleLimits | None = None, idle_interval: float = IDLE_SWEEP_SECONDS) -> None:
        self.games = games
        self.interval = interval
        self.batch = batch
        self.idle = idle
        self.idle_interval = idle_interval
        self._idle_swept = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._order = random.Random()

    def sweep(self) -> int:
        """One sweep: every game due when it began acted for, each once; how many this sweeper acted for."""
        acted, now = 0, self.games.clock()  # (a game it plays on is due again after now: next sweep's)
        while True:
            due = self.games.store.due_games(now, limit=self.batch)
            self._order.shuffle(due)
            done = sum(self._act(game_id, version) for game_id, version in due)
            acted += done
            if len(due) < self.batch or not done:  # (a full batch others acted for: theirs to finish)
                return acted

    def sweep_idle(self) -> int:
        """Every game idle past the limits ended (see the module docstring); how many this sweeper ended."""
        if self.idle is None:
            return 0
        return sum(self._guarded(self.games.end_idle, game_id, self.idle)
                   for game_id in self.games.idle_games(self.idle, self.batch))

    def _act(self, game_id: str, version: int) -> bool:
        return self._guarded(self.games.act_when_due, game_id, version)

    @staticmethod
    def _guarded(action, game_id: str, argument) -> bool:  # type: ignore[no-untyped-def]
        try:
            return action(game_id, argument)
        except OUTAGES:
            raise
        except Exception:  # a bug in one game must not hold up the others
            log.exception("game %s: %s(%r) failed", game_id, action.__name__, argument)
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
        interruption = Interruption(log, "the sweep")
        while not self._stop.wait(self.interval):
            try:
                self.sweep()
                if self.idle is not None and time.monotonic() - self._idle_swept >= self.idle_interval:
                    self._idle_swept = time.monotonic()
                    self.sweep_idle()
                interruption.worked()
            except OUTAGES as error:  # the database is out of reach: the next sweep tries again (said once)
                interruption.failed(error)
