"""A job every server process runs every few seconds in a daemon thread of its own (the ratings
projection, pool pairing): an outage of the database skips a round, a bug is logged and retried.
:meth:`Periodic.poke` runs it at once (a game of accounts finished: its rating and its players'
next pairing need not wait for the next round)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from persistence.interruptions import Interruption
from service.errors import OUTAGES

log = logging.getLogger(__name__)


class Periodic:
    """Runs ``job()`` every ``interval`` seconds until :meth:`stop`."""

    def __init__(self, name: str, job: Callable[[], Any], interval: float) -> None:
        self.name = name
        self.job = job
        self.interval = interval
        self._stop = threading.Event()
        self._poked = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Periodic:
        self._thread = threading.Thread(target=self._run, name=f"cardhall-{self.name}", daemon=True)
        self._thread.start()
        return self

    def poke(self) -> None:
        """Run the job now (once, however many pokes come while it runs), not at the end of the interval."""
        self._poked.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._poked.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        interruption = Interruption(log, self.name)
        while True:
            self._poked.wait(self.interval)
            self._poked.clear()
            if self._stop.is_set():
                return
            try:
                self.job()
                interruption.worked()
            except OUTAGES as error:  # the database is out of reach: the next round tries again (said once)
                interruption.failed(error)
            except Exception:  # a bug must not stop the job for good: the next round tries again
                log.exception("%s failed", self.name)
