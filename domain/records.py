"""Game records that travel: the ``cardhall-record/1`` format, built from a log and read back into one.

A record is one JSON object (the JSON Lines form holds one per line) that anyone can replay
through the games' reducers, here or in any other program:

* ``format``: ``"cardhall-record/1"``; ``redaction``: ``"full"`` (nothing hidden: a finished
  game's record), ``"spectator"`` or ``"seat"`` (with ``viewer_seat``): what that viewer could
  see of a running game, and nothing more;
* the game: ``id`` (on the server that played it), ``game``, ``rules_version``, ``players``,
  ``options`` (those fixing chance hidden until the end), ``status``, ``version``,
  ``created_at``, ``result``, ``imported_from`` (the id a game imported from a record had);
* its chance: ``seeded``, ``stacked``, ``server_seed_hash``, ``server_seed`` (after the end),
  ``replay_of`` and ``commitments`` (every shuffle's ``version`` and ``commitment``);
* ``seats``: ``seat``, ``name``, ``bot``, ``account`` (the account whose key took it, if any),
  ``entropy``, ``bot_since`` (the version from which a house bot took the seat over, if one did);
* ``events``: every event, ``version`` (1, 2, …), ``type``, ``seat``, ``data`` (as the viewer
  may see it: after the end, every salt and order) and ``recorded_at`` (RFC 3339).

A record is a projection of the log and the rules, never a second truth: :func:`build` makes
it from a table and its events, :func:`stored_events` gives back the log it holds (the stored
form ``(type, seat, data)``), :func:`replay` folds that log under the record's rules version,
and :func:`problems` says what is wrong with a full record (its log does not fold or holds a move
the rules refuse, its header does not say what the log does, a commitment or a derived shuffle
does not hold). The JSON
Schema of the format is ``cardhall-record-1.json`` beside this module (:func:`schema`), served at
``/schemas/cardhall-record-1.json``. Only the standard library and the domain: a local
environment (cardhall_env) can write and read records with this module alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from domain import fairness
from domain import table as tables
from domain.clocks import SeatAbandoned, TurnTimedOut
from domain.events import Event
from domain.fairness import Shuffled
from domain.game import EventCapReached
from domain.leaving import GameAborted, SeatResigned
from domain.text import NAME, UNSTORABLE

FORMAT = "cardhall-record/1"
SCHEMA_PATH = Path(__file__).with_name("cardhall-record-1.json")
FULL, SPECTATOR, SEAT = "full", "spectator", "seat"


class InvalidRecord(ValueError):
    """A record that is not a ``cardhall-record/1`` document this code can read."""


def schema() -> dict[str, Any]:
    """The format's JSON Schema (draft 2020-12)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def build(game_id: str, table: tables.Table, events: Iterable[tuple[int, Event, str]], created_at: str,
          seat: int | None = None) -> dict[str, Any]:
    """The record of game ``game_id`` (``table`` is the game now; ``events``: its whole log as
    ``(version, event, recorded_at)``) as ``seat`` (None: a spectator) may see it."""
    reveal_all = tables.reveal(table)
    rendered = [{"version": version, "type": event.type_name(), "seat": event.seat,
                 "data": tables.redact(table, event, seat, reveal_all), "recorded_at": recorded_at}
                for version, event, recorded_at in events]
    return with_events(game_id, table, rendered, created_at, seat)


def with_events(game_id: str, table: tables.Table, rendered: list[dict[str, Any]], created_at: str,
                seat: int | None = None) -> dict[str, Any]:
    """The record of game ``game_id`` whose events are already as ``seat`` may see them (``rendered``:
    ``version``, ``type``, ``seat``, ``data``, ``recorded_at`` each): a finished game's are its log as
    stored, which hides nothing."""
    reveal_all = tables.reveal(table)
    since = dict(table.handed_over)
    return {
        "format": FORMAT,
        "redaction": FULL if reveal_all else SPECTATOR if seat is None else SEAT,
        "viewer_seat": None if reveal_all else seat,
        "id": game_id,
        "game": table.game.name,
        "rules_version": table.game.rules_version,
        "players": table.players,
        "options": tables.public_options(table, reveal_all),
        "status": table.status,
        "version": table.version,
        "created_at": created_at,
        "result": table.game.result(table.state) if table.status == tables.FINISHED else None,
        "imported_from": table.imported_from,
        **tables.chance_fixed(table),
        **tables.public_seeds(table, reveal_all),
        "seats": [{"seat": index, "name": sitter and sitter.name, "bot": sitter and sitter.bot,
                   "account": sitter and sitter.account,
                   "entropy": sitter and sitter.entropy, "bot_since": since.get(index)}
                  for index, sitter in enumerate(table.seats)],
        "commitments": [{"version": entry["version"], "commitment": entry["data"]["commitment"]}
                        for entry in rendered if entry["data"] and "commitment" in entry["data"]],
        "events": rendered,
    }


def stored_events(record: Mapping[str, Any]) -> list[tuple[str, int | None, Mapping[str, Any]]]:
    """The log a record holds, in the stored form ``(type, seat, data)``; InvalidRecord if it holds none."""
    if not isinstance(record, Mapping) or record.get("format") != FORMAT:
        raise InvalidRecord(f"not a {FORMAT} record")
    events = record.get("events")
    if not isinstance(events, list) or not events:
        raise InvalidRecord("a record holds its events, the first of them GameCreated")
    for number, event in enumerate(events, start=1):
        if not isinstance(event, Mapping) or event.get("version") != number:
            raise InvalidRecord(f"event {number} is missing or out of order")
        if not isinstance(event.get("data"), Mapping):
            raise InvalidRecord(f"event {number} hides its data: only a full record holds the whole log")
    return [(event["type"], event["seat"], event["data"]) for event in events]


def replay(record: Mapping[str, Any]) -> tables.Table:
    """The table a full record's log folds to, under its own rules version; InvalidRecord if it does not fold."""
    log = stored_events(record)
    try:
        return tables.replay_records(log)
    except (KeyError, TypeError, ValueError, AttributeError, AssertionError, IndexError) as error:
        raise InvalidRecord(f"the log does not replay under its rules: {type(error).__name__}: {error}") from error


def events_of(table_rules: str, record: Mapping[str, Any]) -> list[Event]:
    """The record's events as domain events, decoded under ``table_rules`` (a rules version)."""
    return [tables.decode(table_rules, type_name, seat, data) for type_name, seat, data in stored_events(record)]


def _plain(value: Any) -> Any:
    """``value`` as JSON reads it back (tuples as lists), to compare what a record says with what a log gives."""
    return json.loads(json.dumps(value))


def problems(record: Mapping[str, Any]) -> list[str]:
    """What is wrong with a full record of a finished game, one line each (none: it is sound).

    Its log must fold under its rules version to a finished game, each move in it one the rules allowed there
    (:func:`_move_problems`), its seats named as Cardhall names seats; its header must say what the
    log does (game, players, rules version, version, result, seats, chance marks, server seed);
    every commitment must hold and every shuffle be the one the game's server seed and entropy
    derive (where the log can tell, :func:`domain.fairness.audit`)."""
    if record.get("redaction") != FULL:
        return [f"a {record.get('redaction')} record hides part of the game: only a full record can be checked"]
    if _unstorable(record):
        return ["a text in the record holds a NUL character or a lone surrogate, which no database stores"]
    try:
        events = _decoded(record)
        table, moved = _checked_fold(events)
    except InvalidRecord as error:
        return [str(error)]
    except (KeyError, TypeError, ValueError, AttributeError, AssertionError, IndexError) as error:
        return [f"the log does not replay under its rules: {type(error).__name__}: {error}"]
    try:
        return _seat_problems(table) + moved + _header_problems(record, table) + _chance_problems(record, table, events)
    except (KeyError, TypeError, ValueError, AttributeError, AssertionError, IndexError) as error:
        return [f"the record does not hold together: {type(error).__name__}: {error}"]


def _decoded(record: Mapping[str, Any]) -> list[Event]:
    """The record's log as events, decoded under the rules version its creation names (as :func:`replay` folds it)."""
    log = stored_events(record)
    type_name, seat, data = log[0]
    created = tables.decode(data["game"], type_name, seat, data)
    rules = tables.evolve(None, created).game.rules_version
    return [created, *(tables.decode(rules, type_name, seat, data) for type_name, seat, data in log[1:])]


def _unstorable(value: Any) -> bool:
    """Whether a text in ``value`` (a key too) holds what no database stores."""
    if isinstance(value, str):
        return UNSTORABLE.search(value) is not None
    if isinstance(value, Mapping):
        return any(_unstorable(key) or _unstorable(item) for key, item in value.items())
    return isinstance(value, list) and any(_unstorable(item) for item in value)


def _seat_problems(table: tables.Table) -> list[str]:
    """Seats whose name or account is not one Cardhall gives a seat (a page shows them): a log folds whatever
    names its events hold, and a record's log may be written by anyone."""
    return [f"seat {index}'s {what} {text[:40]!r} is not a name: 1-64 characters, no control character or "
            "bidirectional mark" for index, seat in enumerate(table.seats) if seat is not None
            for what, text in (("name", seat.name), ("account", seat.account))
            if text is not None and not NAME.fullmatch(text)]


#: What the table records of itself (seats, leaving, the clock, the event cap), which no seat's move makes.
_TABLE_EVENTS = (tables.GameCreated, tables.SeatTaken, SeatAbandoned, SeatResigned, GameAborted, TurnTimedOut,
                 EventCapReached)


def _checked_fold(events: list[Event]) -> tuple[tables.Table, list[str]]:
    """The table ``events`` fold to, and the first of them in a running game that neither a chance outcome (while the
    game waits for one), nor the table, nor a move the rules allow at that point makes (none: every one is): a log
    that folds may still hold a move the rules refuse (a card never dealt, a turn out of turn), or a card that is
    none; and a header that says what such a log does holds. Past such an event the log is folded as it is."""
    table, at, found = tables.evolve(None, events[0]), 1, []
    while at < len(events):
        event, made = events[at], 1
        if not found and table.status == tables.ACTIVE and not isinstance(event, _TABLE_EVENTS):
            if (request := tables.chance(table)) is None:
                seats = range(table.players) if event.seat is None else (event.seat,)
                made = next((logged[1] for seat in seats if (logged := tables.logged_move(table, seat, events))), None)
            elif not isinstance(event, request.event):  # (the outcome it waits for: its shuffle)
                made = None
            if made is None:
                found, made = [f"event {at + 1} ({type(event).__name__}) is made by no move the rules allow there"], 1
        table = tables.replay(events[at : at + made], table)
        at += made
    return table, found


def _header_problems(record: Mapping[str, Any], table: tables.Table) -> list[str]:
    """Where the record's header says other than its log."""
    found = []
    if table.status != tables.FINISHED:
        found.append(f"the log ends with the game {table.status}, not finished")
    rebuilt = build(str(record.get("id")), table, [], str(record.get("created_at")))
    for key in ("game", "rules_version", "players", "options", "status", "version", "result", "seeded", "stacked",
                "server_seed_hash", "server_seed", "replay_of", "imported_from", "seats"):
        if _plain(record.get(key)) != _plain(rebuilt[key]):
            found.append(f"'{key}' says {record.get(key)!r}; the log says {rebuilt[key]!r}")
    return found


def _chance_problems(record: Mapping[str, Any], table: tables.Table, events: list[Event]) -> list[str]:
    """Commitments listed other than the log's (``events``), and shuffles whose commitment or derivation fails."""
    shuffles = [(version, event) for version, event in enumerate(events, start=1) if isinstance(event, Shuffled)]
    found = []
    listed = [(entry.get("version"), entry.get("commitment")) for entry in record.get("commitments") or []]
    if listed != [(version, event.commitment) for version, event in shuffles]:
        found.append("'commitments' are not the commitments of the log's shuffles")
    audit = fairness.audit(shuffles, over=True, seeds=table.seeds, decks=table.options.get("decks"))
    return found + [f"event {entry['version']} ({entry['type']}): "
                    + ("the order is not the one its server seed and entropy derive" if entry["derived"] is False
                       else "the salt and order do not give the commitment")
                    for entry in audit["shuffles"] if not entry["ok"]]
