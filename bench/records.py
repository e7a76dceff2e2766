"""Records benchmark: the bulk export's games/s and MB/s (plain and gzip), then validation and import games/s.

    python3 bench/records.py [--games 300] [--databases sqlite postgresql]

For each database a real server is started (SQLite with one worker, PostgreSQL with two), ``--games``
games of house bots are played to the end on it (Craits short and Scat, seeded and not), and one
client reads every finished game's record through ``GET /v1/records`` page by page (100 a page),
plainly and gzipped. The records read are then validated (``service.records.problems``: the JSON
Schema, the rules replay, every commitment and derivation) and imported into a fresh SQLite store
(``service.records.import_record``), in this process. The issue's target: a bulk export of at least
200 games/s to one client on SQLite x1.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import sys
import time
from pathlib import Path

# Run as a script, this file's directory would come first on sys.path, where bench/http.py hides
# the standard library's http package (which httpx imports).
HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import httpx

from bench._common import Databases, print_table, running

KINDS = [("craits", {"short": True}), ("scat", {}), ("craits", {"short": True, "seed": 1}), ("scat", {"seed": 2})]


def play_games(client: httpx.Client, count: int) -> None:
    """``count`` games of two house bots, each played to the end as its last seat is taken."""
    for number in range(count):
        game, options = KINDS[number % len(KINDS)]
        if "seed" in options:
            options = {**options, "seed": number}
        game_id = client.post("/v1/games", json={"game": game, "players": 2, "options": options}).json()["id"]
        for _ in range(2):
            client.post(f"/v1/games/{game_id}/seats", json={"bot": "greedy", "entropy": f"{number:064x}"})


def export(client: httpx.Client, gzipped: bool) -> tuple[list[str], int, float]:
    """Every finished game's record through the bulk export: the lines, the bytes sent, the seconds taken."""
    lines: list[str] = []
    sent, cursor = 0, None
    began = time.perf_counter()
    while True:
        params = {"limit": 100, **({"cursor": cursor} if cursor else {})}
        headers = {"Accept-Encoding": "gzip" if gzipped else "identity"}
        with client.stream("GET", "/v1/records", params=params, headers=headers) as answer:
            raw = b"".join(answer.iter_raw())
            cursor = answer.headers.get("Next-Cursor")
        sent += len(raw)
        lines += (gzip.decompress(raw) if gzipped else raw).decode().splitlines()
        if cursor is None:
            return lines, sent, time.perf_counter() - began


def in_process(lines: list[str], directory: Path) -> tuple[float, float]:
    """Seconds to validate every record, and to import every one into a fresh SQLite store."""
    import persistence
    from service import records
    from service.games import GameService

    documents = [json.loads(line) for line in lines]
    began = time.perf_counter()
    assert all(records.problems(document) == [] for document in documents)
    validated = time.perf_counter() - began
    url = f"sqlite:///{directory / 'imported.db'}"
    persistence.upgrade(url)
    games = GameService(persistence.open_store(url))
    try:
        began = time.perf_counter()
        for document in documents:
            records.import_record(games, document)
        return validated, time.perf_counter() - began
    finally:
        games.store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="finished games to export (default 300)")
    parser.add_argument("--databases", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite"])
    args = parser.parse_args(argv)
    rows = []
    with contextlib.ExitStack() as stack:
        databases = Databases(stack)
        for backend in args.databases:
            workers = 1 if backend == "sqlite" else 2
            with running(databases.new(backend), databases.workdir(), workers=workers) as server, \
                    httpx.Client(base_url=server.base_url, timeout=120) as client:
                play_games(client, args.games)
                for gzipped in (False, True):
                    lines, sent, seconds = export(client, gzipped)
                    plain_mb = sum(len(line) + 1 for line in lines) / 1e6
                    rows.append([f"{backend} x{workers}", "export gzip" if gzipped else "export", len(lines),
                                 f"{len(lines) / seconds:,.0f}", f"{plain_mb / seconds:.1f}", f"{sent / 1e6 / seconds:.1f}"])
            validated, imported = in_process(lines, databases.workdir())
            rows.append([f"{backend} x{workers}", "validate", len(lines), f"{len(lines) / validated:,.0f}", "", ""])
            rows.append([f"{backend} x{workers}", "import (into SQLite)", len(lines), f"{len(lines) / imported:,.0f}",
                         "", ""])
    print_table("Records: bulk export to one client, then validation and import in one process",
                ["database", "what", "games", "games/s", "records MB/s", "sent MB/s"], rows,
                "records MB/s: the JSON Lines' own size; sent MB/s: the bytes on the wire (gzip's smaller).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
