"""Functions run in other processes by the multi-process store tests (importable by spawn)."""

from __future__ import annotations

import datetime as dt
import random
import time

from persistence import open_store
from persistence.port import NewEvent, VersionConflict


def append_until_done(url: str, game_ids: list[str], count: int, start_at: float, batch: int = 1) -> int:
    """Append ``count`` batches to random games of ``game_ids``, retrying on conflicts; the conflicts met."""
    store = open_store(url)
    chooser = random.Random()
    conflicts = 0
    time.sleep(max(0.0, start_at - time.time()))
    try:
        for number in range(count):
            game_id = chooser.choice(game_ids)
            while True:
                version = store.last_version(game_id)
                events = [NewEvent("Tick", None, {"writer": url[-4:], "number": number, "part": part})
                          for part in range(batch)]
                try:
                    with store.transaction() as tx:
                        tx.append(game_id, version, events, dt.datetime.now(dt.UTC))
                    break
                except VersionConflict:
                    conflicts += 1
    finally:
        store.close()
    return conflicts


def append_one_at(url: str, game_id: str, at: float) -> float:
    """At time ``at`` (``time.time()``) or once started if later, append one event to the game; when it committed."""
    store = open_store(url)
    try:
        time.sleep(max(0.0, at - time.time()))
        with store.transaction() as tx:
            tx.append(game_id, store.last_version(game_id), [NewEvent("Tick", None, {})], dt.datetime.now(dt.UTC))
        return time.time()
    finally:
        store.close()


def upgrade(url: str, start_at: float) -> str:
    """Run the migrations at ``start_at``; the revision reached."""
    from persistence import upgrade as run_upgrade
    from persistence.migrate import current_revision

    time.sleep(max(0.0, start_at - time.time()))
    run_upgrade(url)
    return current_revision(url)


def apply_ratings_until(url: str, total: int, stop_after: float) -> int:
    """Apply rated finishes over and over until ``total`` are applied (or ``stop_after`` seconds);
    how many this process applied."""
    from service.games import GameService
    from service.ratings import Ratings

    games = GameService(open_store(url))
    ratings, applied, until = Ratings(games), 0, time.time() + stop_after
    try:
        while ratings.ladder.applied() < total and time.time() < until:
            applied += ratings.catch_up(batch=random.choice((1, 3, 10)))
            time.sleep(0.005)
    finally:
        games.store.close()
    return applied


def advance_tournament_until(url: str, tournament_id: str, stop_after: float) -> int:
    """Make open Swiss tournaments' next rounds over and over until ``tournament_id`` has none left to
    make (or ``stop_after`` seconds); how many games this process made."""
    from service.games import GameService
    from service.tournaments import Tournaments

    games = GameService(open_store(url))
    tournaments, made, until = Tournaments(games), 0, time.time() + stop_after
    try:
        while time.time() < until:
            found = tournaments.ladder.tournament(tournament_id)
            if found is not None and not found.open:
                break
            made += len(tournaments.advance_all())
            time.sleep(0.005)
    finally:
        games.store.close()
    return made
