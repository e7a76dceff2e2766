"""A request id on every answer (``X-Request-ID``) and in every log line; one access line per request.

A client may send its own ``X-Request-ID`` (letters, digits, ``.``, ``_``, ``-``; at most
64) to find its request in the logs; otherwise the server makes one. ``cardhall serve
--log-format json`` writes each line as one JSON object (:class:`JsonFormatter`).

Neither makes a request or the event loop wait: the id is drawn without a system call,
and a line is formatted where it is logged but written by a thread of its own
(:class:`LineWriter`). The loop writes the access line of every long-poll it answers, so
a log pipe that stalled would otherwise stall every follower; and each system call gives
up the GIL, which among a worker's busy threads can take a switch interval to get back.
The throughput benchmarks moved within their noise (docs/performance.md, "Decisions").
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import queue
import random
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from flask import Flask, Response, g, has_request_context, request

HEADER = "X-Request-ID"
WELL_FORMED = re.compile(r"[A-Za-z0-9._-]{1,64}")
access = logging.getLogger("cardhall.access")


def install(app: Flask) -> None:
    """Give each request its id; log each answer."""
    app.before_request(_identify)
    app.after_request(_logged)


def request_id() -> str | None:
    """The id of the request being served, if any."""
    return g.get("request_id") if has_request_context() else None


def _identify() -> None:
    g.request_started = time.perf_counter()
    g.request_id = request_id_for(request.environ.get("HTTP_X_REQUEST_ID", ""))


def request_id_for(asked: str) -> str:
    """The id of a request whose client asked for ``asked`` (its ``X-Request-ID``, or ""): that if it is
    well formed, else a new one, 32 hexadecimal digits from the process's pseudo-random generator
    (reseeded in each forked worker): unique enough to find a request in the logs, and no secret, so
    no system call."""
    return asked if WELL_FORMED.fullmatch(asked) else f"{random.getrandbits(128):032x}"


def _logged(response: Response) -> Response:
    response.headers[HEADER] = request_id() or ""
    if not g.get("answered_later") and access.isEnabledFor(logging.INFO):
        _access_line()(response.status_code)
    return response


def answered_later() -> Callable[[int], None]:
    """The access line of this request, answered once its Flask request is over (a long-poll, after its
    wait, which counts in its duration): written when what this returns is called with the status."""
    g.answered_later = True
    return _access_line()


def _access_line() -> Callable[[int], None]:
    """This request's access line, written when called with its status (now, or once answered later)."""
    served = request._get_current_object()  # (one look-up through the proxy, not one per attribute)
    route = served.url_rule.rule if served.url_rule is not None else None
    return access_line(served.method, served.path, route, served.remote_addr, request_id(),
                       g.get("request_started", time.perf_counter()))


def access_line(method: str, path: str, route: str | None, client: str | None, identity: str | None,
                started: float) -> Callable[[int], None]:
    """The access line of a request, written when called with its status."""

    def write(status: int) -> None:
        elapsed = time.perf_counter() - started
        access.info("%s %s %s", method, path, status,
                    extra={"method": method, "path": path, "status": status, "route": route,
                           "duration_ms": round(elapsed * 1000, 3), "client": client, "request_id": identity})

    return write


class RequestIdFilter(logging.Filter):
    """Puts the request id (or None) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context() or not hasattr(record, "request_id"):  # (a line written later names its own)
            record.request_id = request_id()
        return True


#: The attributes every LogRecord has: anything else on a record was given as ``extra``. (uvicorn's
#: ``color_message`` is its message again, for a terminal: ANSI escapes around an unformatted template.)
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName",
                                                                          "color_message"}


#: What could end or forge a line of the text log: control characters and Unicode's line separators.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class TextFormatter(logging.Formatter):
    """The text log: one line a record, whatever its message holds (a path with an encoded newline,
    a client's text): control characters and line separators are written escaped (``\\n``, ``\\x1b``);
    a trace, which follows, keeps its lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        return _UNPRINTABLE.sub(_escaped, line) if _UNPRINTABLE.search(line) else line


def _escaped(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request id, the record's extras, any trace."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update({key: value for key, value in vars(record).items() if key not in _STANDARD})
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class LineWriter(logging.Handler):
    """Formats each record where it is logged (its request id, its extras) and leaves the writing to a
    thread of its own, which writes the lines waiting in one go: neither a request's thread nor the
    event loop (the access lines of followers it answers) ever waits on the stream. A process forked
    from this one (a gunicorn worker) starts its own writer on its first line. :meth:`flush`
    (``logging.shutdown``, at exit) returns once every line logged before it is written. Past
    ``limit`` lines waiting (a stream that does not keep up) new lines are dropped and counted, and
    the count is written once the stream takes lines again."""

    def __init__(self, stream: TextIO | None = None, limit: int = 100_000) -> None:
        super().__init__()
        self.stream = stream or sys.stderr
        self.limit = limit
        self.dropped = 0
        self._lines: queue.SimpleQueue[str | threading.Event] = queue.SimpleQueue()
        self._writer: int | None = None  # the process whose writer thread runs
        self._starting = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:
            self.handleError(record)
            return
        if self._lines.qsize() >= self.limit:
            self.dropped += 1
            return
        self._put(line)

    def flush(self) -> None:
        if self._writer == os.getpid():
            written = threading.Event()
            self._lines.put(written)
            written.wait(5)

    def _put(self, item: str | threading.Event) -> None:
        if self._writer != os.getpid():
            with self._starting:
                if self._writer != os.getpid():
                    self._lines = queue.SimpleQueue()  # (a forked child's copy: the parent writes its own lines)
                    threading.Thread(target=self._write, args=(self._lines,), name="cardhall-log", daemon=True).start()
                    self._writer = os.getpid()
        self._lines.put(item)

    def _dropped_line(self, dropped: int) -> str:
        """The line that says ``dropped`` lines were lost: a JSON object in a JSON log, as every other line."""
        message = f"{dropped} log lines dropped: the log stream did not keep up"
        if not isinstance(self.formatter, JsonFormatter):
            return f"cardhall: {message}\n"
        record = logging.LogRecord("cardhall", logging.WARNING, __file__, 0, message, None, None)
        record.request_id = None
        return f"{self.formatter.format(record)}\n"

    def _write(self, lines: queue.SimpleQueue[str | threading.Event]) -> None:
        while True:
            waiting = [lines.get()]
            while not lines.empty():
                waiting.append(lines.get())
            text = "".join(f"{item}\n" for item in waiting if isinstance(item, str))
            if self.dropped:
                dropped, self.dropped = self.dropped, 0
                text += self._dropped_line(dropped)
            try:
                if text:
                    self.stream.write(text)
                self.stream.flush()
            except Exception:  # (a closed or broken stream: as logging does, never fail the process for a line)
                pass
            for item in waiting:
                if isinstance(item, threading.Event):
                    item.set()


def say(message: str, log_format: str, level: int = logging.INFO) -> None:
    """Write a line of the server's own to standard error at once, in the log's format: ``cardhall: message``
    as text, or one JSON object as a record of the logger ``cardhall`` is (what a server says as it starts or
    fails to, before its workers and its log's writer thread)."""
    if log_format == "json":
        record = logging.LogRecord("cardhall", level, __file__, 0, message, None, None)
        record.request_id = None
        line = JsonFormatter().format(record)
    else:
        line = f"cardhall: {message}"
    print(line, file=sys.stderr, flush=True)


def logging_config(log_format: str) -> dict[str, Any]:
    """The logging set-up of a server (``logging.config.dictConfig``; gunicorn's ``logconfig_dict``)."""
    formatter = ({"()": "api.requestlog.JsonFormatter"} if log_format == "json"
                 else {"()": "api.requestlog.TextFormatter",
                       "format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"})
    handler = {"class": "api.requestlog.LineWriter", "stream": "ext://sys.stderr", "formatter": "default",
               "filters": ["request_id"]}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "api.requestlog.RequestIdFilter"}},
        "formatters": {"default": formatter},
        "handlers": {"default": handler},
        "root": {"handlers": ["default"], "level": "INFO"},
        # gunicorn's own log, which uvicorn's server log in a worker writes through, in the same format.
        "loggers": {"gunicorn.error": {"handlers": ["default"], "level": "INFO", "propagate": False}},
    }
