"""Records on the server: export a stored game as ``cardhall-record/1``, list finished ones in bulk,
check one (schema, rules replay, commitments) and import one under a new id.

The format and its pure parts (build, read back, replay, check) are :mod:`domain.records`;
this module reads the store for them. A record is built from the log at request time: it is a
projection of the log and the rules, never stored beside them.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
import jsonschema_rs

from domain import records
from domain import table as tables
from domain.errors import InvalidOptions
from persistence.port import NewEvent
from service.errors import BadRequest
from service.games import GameService
from service.tables import decode
from service.timestamps import timestamp

#: The largest page of the bulk export, in games.
MAX_RECORDS_PAGE = 100
_VALIDATOR = jsonschema.Draft202012Validator(records.schema())
#: The most problems of its shape a record is told (the first found).
MAX_SHAPE_PROBLEMS = 20
#: The same schema compiled by jsonschema-rs: it says whether a record holds many times faster; the
#: Python validator above words what is wrong with one that does not.
_FAST_VALIDATOR = jsonschema_rs.Draft202012Validator(records.schema())




def record(games: GameService, game_id: str, token: str | None = None) -> dict[str, Any]:
    """Game ``game_id``'s record as the caller (the token's seat, else a spectator) may see it."""
    table = games.table(game_id)
    seat = games.seat_of(game_id, token, required=False)
    return _record(games, game_id, table, seat)


def _record(games: GameService, game_id: str, table: tables.Table, seat: int | None) -> dict[str, Any]:
    """The record of ``game_id`` as ``seat`` sees it (``table``: the game now)."""
    stored = games.store.read(game_id, after=0, limit=table.version)
    listed = games.store.get_game(game_id)
    created_at = listed.created_at if listed else stored[0].recorded_at
    events = [(event.version, decode(table.game.rules_version, event), timestamp(event.recorded_at)) for event in stored]
    return records.build(game_id, table, events, timestamp(created_at), seat)


def _finished_record(games: GameService, game_id: str, created_at: dt.datetime, version: int) -> dict[str, Any]:
    """A finished game's full record, from one read of its log: the table from its snapshot and the events
    after it, and the events as stored (a finished game's full record hides nothing, so its events'
    data is the log's own)."""
    stored = games.store.read(game_id, after=0, limit=version)
    table = games.cache.folded(game_id, stored)
    if not tables.reveal(table):  # (listed as finished, so never; but a record never shows what it must not)
        return _record(games, game_id, table, None)
    rendered = [{"version": event.version, "type": event.type, "seat": event.seat,
                 "data": tables.redact(table, decode(table.game.rules_version, event), None, True)
                 if event.version == 1 else event.data, "recorded_at": timestamp(event.recorded_at)} for event in stored]
    return records.with_events(game_id, table, rendered, timestamp(created_at))


def finished_records(games: GameService, *, game: str | None = None, since: dt.datetime | None = None,
                     account: str | None = None, limit: int = MAX_RECORDS_PAGE, cursor: str | None = None
                     ) -> tuple[Iterator[dict[str, Any]], str | None, int]:
    """A page of finished games' full records, newest first (``since``: created at or after it;
    ``account``: with a seat of that account, its name in any case), the cursor of the next page
    (None: the last), and how many events the page reads (what a client's read budget is charged). A page
    reads ``limit`` finished games: with ``account`` it may hold fewer records."""
    try:
        page = games.store.list_games(status=tables.FINISHED, game=game, limit=limit, cursor=cursor)
    except ValueError as error:
        raise BadRequest(str(error)) from error
    listed = [row for row in page.games if since is None or row.created_at >= since]
    more = page.next_cursor if len(listed) == len(page.games) else None  # (newest first: older ones are older still)

    def lines() -> Iterator[dict[str, Any]]:
        for row in listed:
            document = _finished_record(games, row.id, row.created_at, row.version)
            if account is None or any((seat["account"] or "").casefold() == account.casefold()
                                      for seat in document["seats"]):
                yield document

    return lines(), more, sum(row.version for row in listed)


def problems(document: Any) -> list[str]:
    """What is wrong with a record, one line each: its shape against the JSON Schema, then (a full
    record) its rules replay, header and commitments (:func:`domain.records.problems`)."""
    # (the first few found: a record of 8 MiB holds millions of wrong items, each an error, and all of them were made
    # and sorted, for minutes and gigabytes, to name 20)
    first = [] if _FAST_VALIDATOR.is_valid(document) else itertools.islice(_VALIDATOR.iter_errors(document),
                                                                            MAX_SHAPE_PROBLEMS)
    shape = sorted(first, key=lambda error: list(error.absolute_path))
    if shape:
        return [f"{'/'.join(map(str, error.absolute_path)) or '(the record)'}: {error.message}" for error in shape]
    return records.problems(document)


def replay_views(document: Any) -> dict[str, Any]:
    """A record checked, and when sound the spectator's view after every event (what a stored game's
    table shows at each version), for a viewer that replays a record it was given."""
    found = problems(document)
    if found:
        return {"valid": False, "problems": found, "views": []}
    table, views = None, []
    for event in records.events_of(document["rules_version"], document):
        table = tables.evolve(table, event)
        views.append(tables.view(table, None, reveal_all=True, with_moves=False))
    return {"valid": True, "problems": [], "views": views}


class RecordRefused(InvalidOptions):
    """A record that cannot be imported (422 ``invalid_options``, as ever); ``problems``: each, one line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the record cannot be imported: " + "; ".join(problems[:5]))
        self.problems = problems


def import_record(games: GameService, document: Any) -> dict[str, Any]:
    """Store a sound full record as a new game (a new id, ``imported_from`` its id where it was
    played); its summary. InvalidOptions (422) naming the problems if it is not sound."""
    found = problems(document)
    if found:
        raise RecordRefused(found)
    game_id = games.new_id()
    log = records.stored_events(document)
    first = dict(log[0][2], imported_from=document["id"])
    log = [(log[0][0], log[0][1], first), *log[1:]]
    table = tables.replay_records(log)
    times = [dt.datetime.fromisoformat(event["recorded_at"]) for event in document["events"]]
    with games.store.transaction() as tx:
        tx.create_game(game_id, table.game.name, table.players, dt.datetime.fromisoformat(document["created_at"]))
        version = 0
        for moment, batch in itertools.groupby(zip(log, times, strict=True), key=lambda pair: pair[1]):
            # (one append for the events recorded together: a move and all it set off)
            stored = tx.append(game_id, version, [NewEvent(name, seat, dict(data)) for (name, seat, data), _ in batch],
                               moment)
            version += len(stored)
        tx.set_status(game_id, table.status)
    games.cache.put(game_id, table)
    return games.summary(game_id, table)


def json_lines(documents: Iterator[Mapping[str, Any]]) -> Iterator[bytes]:
    """Records as JSON Lines: one compact JSON object a line."""
    for document in documents:
        yield json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


__all__ = ["MAX_RECORDS_PAGE", "finished_records", "import_record", "json_lines", "problems", "record",
           "replay_views"]
