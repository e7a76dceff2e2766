"""Snapshots: a game's table, pickled now and then beside the log, so a cold load folds only a few events.

A snapshot is a derived cache, never the truth. It bears the fingerprint of the
code that wrote it (a hash of the domain package's source); a snapshot with any
other fingerprint, or one that fails to load for any reason, is ignored and the
log replayed instead. Replay of any stored game at any version gives the same
state forever: a snapshot only ever spares work the current code would do.

The blobs are pickles. Only this service writes them, into the same database as
the log, which is trusted exactly as far as the code itself.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import pickle
from pathlib import Path

import domain
from domain import table as tables
from domain.game import get_game

log = logging.getLogger(__name__)

FORMAT = b"cardhall-snapshot-2"  # bump if what is pickled below changes shape


@functools.cache
def fingerprint() -> str:
    """SHA-256 of the domain package's source files (paths and contents) and the format: once per process."""
    digest = hashlib.sha256(FORMAT)
    root = Path(domain.__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(b"\0" + path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def dump(table: tables.Table) -> bytes:
    """A table as a snapshot blob: its game by name, everything else as it is."""
    fields = (table.game.name, table.players, dict(table.options), table.seats, table.state, table.version,
              table.clock, table.abandoned)
    return pickle.dumps(fields, protocol=pickle.HIGHEST_PROTOCOL)


def load(blob: bytes, version: int) -> tables.Table | None:
    """The table a blob holds, if it loads and is at ``version``; None (logged) if not."""
    try:
        name, players, options, seats, state, at, clock, abandoned = pickle.loads(blob)
        if at != version:
            raise ValueError(f"the blob holds version {at}, the row says {version}")
        return tables.Table(get_game(name), players, options, tuple(seats), state, at, clock, abandoned)
    except Exception as error:
        log.warning("ignoring a snapshot at version %s that does not load: %r", version, error)
        return None
