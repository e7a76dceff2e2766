"""A request id on every answer (``X-Request-ID``) and in every log line; one access line per request.

A client may send its own ``X-Request-ID`` (letters, digits, ``.``, ``_``, ``-``; at most
64) to find its request in the logs; otherwise the server makes one. ``cardhall serve
--log-format json`` writes each line as one JSON object (:class:`JsonFormatter`).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, g, has_request_context, request

from api.followers import REQUEST_ID, answered_later, on_answered, scope

HEADER = "X-Request-ID"
WELL_FORMED = re.compile(r"[A-Za-z0-9._-]{1,64}")
access = logging.getLogger("cardhall.access")


def install(app: Flask) -> None:
    """Give each request its id; log each answer."""
    app.before_request(_identify)
    app.after_request(_logged)
    on_answered(app, _logged_later)


def request_id() -> str | None:
    """The id of the request being served, if any."""
    return g.get("request_id") if has_request_context() else None


def _identify() -> None:
    g.request_started = time.perf_counter()
    asked = request.headers.get(HEADER, "")
    known = scope().get(REQUEST_ID)  # (a long-poll's second run keeps the id of its first)
    g.request_id = known or (asked if WELL_FORMED.fullmatch(asked) else uuid.uuid4().hex)
    scope()[REQUEST_ID] = g.request_id


def _logged(response: Response) -> Response:
    response.headers[HEADER] = request_id() or ""
    if not answered_later():
        _access_line()(response.status_code)
    return response


def _logged_later() -> Callable[[int], None]:
    """The access line of a long-poll answered on the event loop, once it is: its wait counts in its duration."""
    return _access_line()


def _access_line() -> Callable[[int], None]:
    """This request's access line, written when called with its status (now, or once answered later)."""
    route = request.url_rule.rule if request.url_rule is not None else None
    return access_line(request.method, request.path, route, request.remote_addr, request_id(),
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


#: The attributes every LogRecord has: anything else on a record was given as ``extra``.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


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


def logging_config(log_format: str) -> dict[str, Any]:
    """The logging set-up of a server (``logging.config.dictConfig``; gunicorn's ``logconfig_dict``)."""
    formatter = ({"()": "api.requestlog.JsonFormatter"} if log_format == "json"
                 else {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"})
    handler = {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": "default",
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
