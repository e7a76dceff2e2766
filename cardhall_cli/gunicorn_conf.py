"""gunicorn's settings for ``cardhall serve`` (``-c python:cardhall_cli.gunicorn_conf``).

gunicorn manages the processes (one worker or many alike, restarting one that dies);
each worker runs uvicorn (uvicorn-worker's class) serving :mod:`api.asgi`, one Starlette app. The hooks
migrate the database before the first worker starts, keep /metrics true and leave
nothing behind: a dead worker's metric files are marked dead (prometheus-client's
multiprocess pattern), and the run's directory of temporary files is removed when
the server stops.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import signal
import sys
from typing import Any, ClassVar

from prometheus_client import multiprocess
from uvicorn_worker import UvicornWorker

from api import connections
from api.requestlog import logging_config, say
from api.settings import Settings
from cardhall_cli.server import RUN_MARK, STOPS, CannotMigrate, migrate, redacted

_settings = Settings.of_process(2)  # (a refused setting: one line, and gunicorn does not start)


class Worker(UvicornWorker):
    """uvicorn in a gunicorn worker, with lifespan events (the app's calls of webhook bots), without
    uvicorn's access log (``api.requestlog`` logs each request, with its id); its connections
    served within the operator's limits (:mod:`api.connections`). uvicorn's own proxy-headers
    middleware is off: it would believe ``X-Forwarded-For`` from ``FORWARDED_ALLOW_IPS`` (127.0.0.1
    unless set); the app's guard has it with the operator's list alone (:mod:`api.guard`)."""

    CONFIG_KWARGS: ClassVar[dict[str, Any]] = {
        **UvicornWorker.CONFIG_KWARGS,
        "http": connections.protocol(_settings.limits),
        "proxy_headers": False,
        "lifespan": "on",
        "access_log": False,
        "timeout_graceful_shutdown": 10,
    }

    def init_process(self) -> None:
        # uvloop closes the descriptor of a listener that is no socket.socket (gunicorn's wrapper) when it
        # stops serving, and the wrapper closed it again: "Bad file descriptor" in the log at every
        # shutdown. The worker serves the sockets themselves; the master keeps its wrappers.
        self.sockets = [getattr(listener, "sock", listener) for listener in self.sockets]
        super().init_process()


worker_class = f"{__name__}.Worker"
#: Newer gunicorns open a control socket at one path per user: servers on other ports would contend for it.
control_socket_disable = True
logconfig_dict = logging_config(_settings.log_format)
# The server's log records skip what none of its lines shows (the logging HOWTO's "Optimization"): the
# caller's file and line (a walk up the stack for every access line), thread and process names. Set here,
# in the server's own process (its workers are forked from it), never where the app is imported.
logging._srcfile = None
logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False


def on_starting(server: Any) -> None:
    """Before any worker starts: migrate the database (``CARDHALL_DATABASE_URL``, else the default) and
    say what is served. The workers are forked from this process: what the migration imported, they have."""
    try:
        url = migrate(_settings)
    except CannotMigrate as error:  # (one line in the log's format, and the server ends: status 1)
        say(str(error), _settings.log_format, logging.ERROR)
        sys.exit(1)
    bound = ", ".join(f"http://{address}" for address in server.cfg.bind)
    say(f"serving {redacted(url)} on {bound}", _settings.log_format)


def _stopped_while_starting(number: int, _frame: Any) -> None:
    raise SystemExit(128 + number)


def child_exit(server: Any, worker: Any) -> None:
    """A worker ended: its live gauges leave /metrics (its counters stay summed)."""
    multiprocess.mark_process_dead(worker.pid)


def _remove_run_directory(master: int) -> None:
    """The server ends (stopped, or failed to start: a port in use, a database out of reach): remove the
    temporary files ``cardhall serve`` made for this run. Only the master's exit does (a worker forked
    from it inherits this hook), and only a directory that bears ``cardhall serve``'s mark: never one
    someone else named (``CARDHALL_RUN_DIRECTORY`` given to gunicorn run with this file)."""
    run = _settings.run_directory
    if os.getpid() == master and run and os.path.isfile(os.path.join(run, RUN_MARK)):
        shutil.rmtree(run, ignore_errors=True)


atexit.register(_remove_run_directory, os.getpid())
# A stop asked for while the server starts (gunicorn loading, the migration, which may wait long: for another host's
# migration, under its lock, or for a database that does not answer) ends it as any stop does, its run's directory
# removed; gunicorn puts its own handlers in place after on_starting. cardhall serve blocked the stops until here
# (one asked for meanwhile is delivered now).
for _stop in STOPS:
    signal.signal(_stop, _stopped_while_starting)
signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)


def on_exit(server: Any) -> None:
    """The server stops: remove the temporary files ``cardhall serve`` made for this run."""
    _remove_run_directory(os.getpid())
