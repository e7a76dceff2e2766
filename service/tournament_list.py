"""The tournaments listed, newest first, a page at a time: all of them, or an account's, running or finished.

A tournament's status is not stored: it is running while it has rounds to make or a game whose account seats
are not finished (as :meth:`service.tournaments.Tournaments.get` finds it from the games), so a page reads
its tournaments' statuses with one query over their games' seats. Asked for one status, a page reads at most
:data:`SCANNED` times the tournaments it may list: when those hold fewer of that status than the page's
``limit``, the page is short (even empty) and its ``next`` goes on from the last tournament read. Each request
is so bounded by its ``limit``, however many tournaments of the other status lie between; a client reads on
until ``next`` is null.

A cursor is a keyset position (:mod:`persistence.cursor`: the creation time and id of the last tournament
read), so a page never repeats or skips a tournament when new ones are made meanwhile.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from persistence.accounts import key_of
from persistence.cursor import decode_cursor, encode_cursor
from persistence.ladder import Tournament, ladder_of, running
from service.errors import NotFound
from service.games import GameService

RUNNING, FINISHED = "running", "finished"
#: Pages' worth of tournaments a page asked for one status reads at most.
SCANNED = 4


def list_tournaments(games: GameService, limit: int, cursor: str | None = None, status: str | None = None,
                     account: str | None = None) -> dict[str, Any]:
    """A page of tournaments, newest first (``status``: only running or only finished ones; ``account``: only
    those it is in), and the cursor of the next page (None: no more)."""
    if account is not None and games.accounts.store.account(account) is None:
        raise NotFound(f"no account {account!r}")
    ladder, key = ladder_of(games.store), None if account is None else key_of(account)
    position = None if cursor is None else decode_cursor(cursor)
    listed: list[dict[str, Any]] = []
    for _ in range(SCANNED if status is not None else 1):
        read = ladder.tournaments(key, position, limit + 1)
        live = _running(games, read)
        for tournament in read:
            if status in (None, RUNNING if tournament.id in live else FINISHED):
                if len(listed) == limit:  # (one more than the page holds: the next page starts here)
                    return {"tournaments": listed, "next": _cursor(position)}
                listed.append(_entry(tournament, tournament.id in live))
            position = (tournament.created_at, tournament.id)
        if len(read) <= limit:  # (none left to read)
            return {"tournaments": listed, "next": None}
    return {"tournaments": listed, "next": _cursor(position)}


def _cursor(position: tuple[dt.datetime, str] | None) -> str | None:
    return None if position is None else encode_cursor(*position)


def _running(games: GameService, tournaments: list[Tournament]) -> set[str]:
    """The ids of those of ``tournaments`` running: rounds to make, or a game whose seats are not finished."""
    return running(tournaments, games.accounts.store.unfinished([entry["game_id"] for tournament in tournaments
                                                                 for entry in tournament.games]))


def _entry(tournament: Tournament, running: bool) -> dict[str, Any]:
    spec = tournament.spec
    return {"id": tournament.id, "creator": tournament.creator, "game": tournament.game, "format": spec["format"],
            "accounts": spec["accounts"], "round": tournament.current_round, "rounds": spec["rounds"],
            "status": RUNNING if running else FINISHED, "created_at": tournament.created_at}
