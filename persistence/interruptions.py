"""How a loop that goes on through outages (the LISTEN connection, the server's periodic jobs, the calls of
webhook bots) logs one: a routine restart of the database must not flood the log with traces.

The first failure of an outage is logged at WARNING with its reason and no trace; the loop's failures after it
are not logged, and once the loop works again one line says it is back and after how many failures. A failure
that is no outage is a bug, which the loop itself logs with its trace, every time.
"""

from __future__ import annotations

import logging


def reason(error: BaseException) -> str:
    """Why ``error`` happened, in a line: its message's first line, or its type's name."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


class Interruption:
    """The log of the outages of one loop (``what``: what the lines call it), by its own thread."""

    def __init__(self, log: logging.Logger, what: str) -> None:
        self.log = log
        self.what = what
        self.failures = 0

    def failed(self, error: BaseException) -> None:
        """An outage made the loop fail (``error`` says why): said if it is the first of the outage."""
        self.failures += 1
        if self.failures == 1:
            self.log.warning("%s failed: %s (retrying; a line will say when it is back)", self.what, reason(error))

    def worked(self) -> None:
        """The loop worked: if an outage had interrupted it, say it is back."""
        if self.failures:
            self.log.info("%s is back after %d failure%s", self.what, self.failures, "" if self.failures == 1 else "s")
            self.failures = 0
