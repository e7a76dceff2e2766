"""The server's log lines are written by a thread of their own: logging never waits on the stream."""

from __future__ import annotations

import io
import json
import logging
import os
import threading

from api.requestlog import JsonFormatter, LineWriter


class StuckStream(io.StringIO):
    """A stream whose writes wait until it is released (a log collector that stopped reading)."""

    def __init__(self) -> None:
        super().__init__()
        self.released = threading.Event()

    def write(self, text: str) -> int:
        self.released.wait()
        return super().write(text)


def logger_to(handler: logging.Handler) -> logging.Logger:
    logger = logging.getLogger(f"test-line-writer-{id(handler)}")
    logger.propagate = False
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return logger


def test_every_line_of_every_thread_is_written_whole_and_in_each_threads_order():
    stream = io.StringIO()
    writer = LineWriter(stream)
    writer.setFormatter(logging.Formatter("%(threadName)s %(message)s"))
    logger = logger_to(writer)

    def log(name: str) -> None:
        for number in range(500):
            logger.info("line %d", number)

    threads = [threading.Thread(target=log, args=(f"t{n}",), name=f"t{n}") for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.flush()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2000
    for n in range(4):
        assert [line for line in lines if line.startswith(f"t{n} ")] == [f"t{n} line {k}" for k in range(500)]


def test_logging_returns_while_the_stream_is_stuck_and_the_lines_follow_once_it_moves():
    stream = StuckStream()
    writer = LineWriter(stream)
    logger = logger_to(writer)
    for number in range(50):  # (were a line written where it is logged, this would never return)
        logger.info("waiting %d", number)
    assert stream.getvalue() == ""
    stream.released.set()
    writer.flush()
    assert stream.getvalue().splitlines() == [f"waiting {number}" for number in range(50)]


def test_past_its_limit_a_stuck_stream_loses_new_lines_and_says_how_many():
    stream = StuckStream()
    writer = LineWriter(stream, limit=10)
    logger = logger_to(writer)
    logger.info("first")
    while writer._lines.qsize():  # (the writer has taken the first line and is stuck writing it)
        threading.Event().wait(0.01)
    for number in range(30):
        logger.info("then %d", number)
    stream.released.set()
    writer.flush()
    lines = stream.getvalue().splitlines()
    assert lines[:11] == ["first", *(f"then {number}" for number in range(10))]
    assert lines[11:] == ["cardhall: 20 log lines dropped: the log stream did not keep up"]


def test_a_forked_process_writes_its_own_lines(tmp_path):
    path = tmp_path / "log"
    with open(path, "w") as stream:
        writer = LineWriter(stream)
        logger = logger_to(writer)
        logger.info("parent")
        writer.flush()
        child = os.fork()
        if child == 0:  # (the parent's writer thread did not survive the fork)
            logger.info("child")
            writer.flush()
            os._exit(0)
        _, status = os.waitpid(child, 0)
        logger.info("parent again")
        writer.flush()
    assert status == 0
    assert path.read_text().splitlines() == ["parent", "child", "parent again"]


def test_in_a_json_log_the_line_that_counts_dropped_lines_is_json_too():
    stream = StuckStream()
    writer = LineWriter(stream, limit=1)
    writer.setFormatter(JsonFormatter())
    logger = logger_to(writer)
    logger.info("first")
    while writer._lines.qsize():
        threading.Event().wait(0.01)
    for number in range(3):
        logger.info("then %d", number)
    stream.released.set()
    writer.flush()
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(line["level"], line["message"]) for line in lines] == [
        ("info", "first"), ("info", "then 0"), ("warning", "2 log lines dropped: the log stream did not keep up")]


def test_a_json_line_of_uvicorns_has_its_message_and_not_its_terminal_colours():
    # (uvicorn gives its records a `color_message` extra, for its own coloured console: the template with ANSI
    # escapes, unformatted; a JSON log carried it beside the message, "Started server process [\x1b[36m%d\x1b[0m]")
    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, "Started server process [%d]", (42,), None)
    record.color_message = "Started server process [\x1b[36m%d\x1b[0m]"
    record.request_id = None
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "Started server process [42]"
    assert set(line) == {"time", "level", "logger", "message", "request_id"}
