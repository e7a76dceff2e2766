"""Snapshots: a game's table as plain JSON data now and then beside the log, so a cold load folds only a few events.

A snapshot is a derived cache, never the truth. It is the table as its game's own
codec writes it (:func:`domain.table.to_data`: lists, objects, strings, numbers), so
reading one back constructs only the types the code declares: write access to the
database is never code execution on a server, as it was while snapshots were
pickles. It bears the fingerprint of the code that wrote it (a hash of the domain
package's source, taken when this module is imported, so a worker still running
old code after an in-place deploy keeps stamping the old code's fingerprint); a
snapshot with any other fingerprint, or one that fails to load for any reason, is
ignored and the log replayed instead. Replay of any stored game at any version
gives the same state forever: a snapshot only ever spares work the current code would do.

Without snapshots a cold move late in a long game replays its whole log; docs/performance.md
("Snapshots as JSON") has the measurements that keep them.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import domain
from domain import table as tables

log = logging.getLogger(__name__)

FORMAT = b"cardhall-snapshot-json-3"  # bump if what to_data writes changes shape


def _fingerprint() -> str:
    digest = hashlib.sha256(FORMAT)
    root = Path(domain.__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(b"\0" + path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


#: SHA-256 of the domain package's source files (paths and contents) and the format, as imported.
FINGERPRINT = _fingerprint()


def fingerprint() -> str:
    """The fingerprint of the code this process runs (taken at import)."""
    return FINGERPRINT


def dump(table: tables.Table) -> bytes:
    """A table as a snapshot blob: compact UTF-8 JSON."""
    return json.dumps(tables.to_data(table), separators=(",", ":"), ensure_ascii=False).encode()


def load(blob: bytes, version: int) -> tables.Table | None:
    """The table a blob holds, if it loads and is at ``version``; None (logged) if not."""
    try:
        table = tables.from_data(json.loads(blob))
        if table.version != version:
            raise ValueError(f"the blob holds version {table.version}, the row says {version}")
        return table
    except Exception as error:
        log.warning("ignoring a snapshot at version %s that does not load: %r", version, error)
        return None
