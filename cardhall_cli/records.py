"""``cardhall record validate|show|import FILE``: game records (cardhall-record/1) on the command line.

A FILE holds one record (a JSON document) or many (JSON Lines, one a line); ``-`` reads standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cardhall_cli import command


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["validate", "show", "import"],
                        help="validate: check the schema, the rules replay and the commitments; show: the game move "
                             "by move; import: store it in a server's database under a new id, marked imported")
    parser.add_argument("file", metavar="FILE", help="a record (JSON) or records (JSON Lines); - for standard input")
    parser.add_argument("--database", help="for import: the database URL (default CARDHALL_DATABASE_URL or "
                                           "sqlite:///cardhall.db)")


def read_records(path: str) -> Iterator[Any]:
    """Every record in the file: one JSON document, or one per line."""
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    try:
        yield json.loads(text)
    except json.JSONDecodeError:
        for line in text.splitlines():
            if line.strip():
                yield json.loads(line)


@command("record", _arguments)
def record(args: argparse.Namespace) -> int:
    """Validate, show or import game records (cardhall-record/1)."""
    from service import records

    try:
        documents = list(read_records(args.file))
    except (OSError, ValueError) as error:
        print(f"cardhall: cannot read {args.file}: {error}", file=sys.stderr)
        return 2
    if args.action == "show":
        for document in documents:
            show(document)
        return 0
    if args.action == "validate":
        failed = 0
        for document in documents:
            found = records.problems(document)
            failed += bool(found)
            name = document.get("id") if isinstance(document, dict) else None
            print(f"{name}: {'INVALID' if found else 'valid'}")
            for problem in found:
                print(f"  {problem}")
        return 1 if failed else 0
    return _import(documents, args.database)


def _import(documents: list[Any], database: str | None) -> int:
    from cardhall_cli.server import database_of
    from domain.errors import InvalidOptions
    from service import records
    from service.bootstrap import open_service

    games = open_service(database_of(database))
    refused = 0
    try:
        for number, document in enumerate(documents, start=1):
            try:
                summary = records.import_record(games, document)
            except InvalidOptions as error:  # (each record said, one problem a line, and the others imported)
                refused += 1
                name = document.get("id") if isinstance(document, dict) else None
                print(f"cardhall: record {number} ({name}) not imported:", file=sys.stderr)
                for problem in getattr(error, "problems", None) or [str(error)]:
                    print(f"  {problem}", file=sys.stderr)
                continue
            print(f"imported {summary['imported_from']} as {summary['id']}")
    finally:
        games.close()
    if refused:
        print(f"cardhall: {len(documents) - refused} of {len(documents)} records imported", file=sys.stderr)
    return 1 if refused else 0


def show(document: dict[str, Any]) -> None:
    """The game in the terminal, event by event, with who did what."""
    seats = document.get("seats") or []
    names = [seat.get("name") or f"{seat.get('bot')} bot" for seat in seats]
    marks = [mark for mark in ("seeded", "stacked") if document.get(mark)]
    print(f"{document.get('game')} ({document.get('rules_version')}), {document.get('players')} players: "
          f"{', '.join(names)}; {document.get('status')} at version {document.get('version')}"
          + (f" [{', '.join(marks)}]" if marks else ""))
    for event in document.get("events") or []:
        who = "" if event.get("seat") is None else f"seat {event['seat']} ({names[event['seat']]}) "
        print(f"{event.get('version'):>6}  {who}{event.get('type')}{_details(event.get('data'))}")
    if document.get("result"):
        print(f"result: {json.dumps(document['result'])}")


def _details(data: Any) -> str:
    if not isinstance(data, dict):
        return ""
    shown = {key: value for key, value in data.items() if value not in (None, [], {}) and key not in ("salt", "options")}
    if "order" in shown:
        shown["order"] = " ".join(shown["order"][:8]) + " …"
    return "  " + ", ".join(f"{key}={value if not isinstance(value, list | dict) else json.dumps(value)}"
                            for key, value in shown.items()) if shown else ""
