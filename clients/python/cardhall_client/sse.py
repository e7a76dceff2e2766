"""A small parser of ``text/event-stream`` (the WHATWG Server-Sent Events format)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator


@dataclasses.dataclass(frozen=True, slots=True)
class Message:
    """One dispatched message: ``id`` (the last one seen), ``event`` (its type) and ``data``."""

    id: str | None
    event: str
    data: str


def parse(lines: Iterable[str]) -> Iterator[Message]:
    """The messages in a stream of lines (without their line endings); comments and ``retry`` are skipped."""
    last_id: str | None = None
    event, data = "", []
    for line in lines:
        if not line:
            if data:
                yield Message(last_id, event or "message", "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id" and "\0" not in value:
            last_id = value
