"""What a player saw of a game's fairness while it ran, saved so a verifier can hold the server to it.

A seat that plays a game sees, before any card is dealt, the game's ``server_seed_hash`` and every
seat's ``entropy`` (the summary), then each shuffle's ``commitment`` as it happens (the log). The
:class:`Witness` writes them to a JSON file as they arrive (format ``cardhall-commitments/1``)::

    {"format": "cardhall-commitments/1", "game_id": "…", "seat": 0,
     "server_seed_hash": "…", "entropy": ["…", null],
     "commitments": [{"version": 5, "commitment": "…"}, …]}

``examples/verify_game.py BASE_URL GAME_ID --saved FILE`` then checks that the finished game
shows the same ones: a server that showed this player other commitments than the ones it
reveals at the end (or another server seed, or other entropy) is caught.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from cardhall_client.http import CardhallClient

FORMAT = "cardhall-commitments/1"


class Witness:
    """Saves to ``path`` what ``client`` (acting for ``seat``) is shown of game ``game_id``'s fairness."""

    def __init__(self, client: CardhallClient, game_id: str, path: str | os.PathLike[str], seat: int | None) -> None:
        self.client = client
        self.path = Path(path)
        summary = client.game(game_id)
        self.saved: dict[str, Any] = {
            "format": FORMAT, "game_id": game_id, "seat": seat,
            "server_seed_hash": summary.get("server_seed_hash"),
            "entropy": [sitter.get("entropy") for sitter in summary["seats"]], "commitments": [],
        }
        self.seen = 0
        self._write()

    def update(self) -> None:
        """Read the log since the last update; save every new commitment (and the entropy of seats taken since)."""
        game_id = self.saved["game_id"]
        fresh = False
        while True:
            page = self.client.events(game_id, after=self.seen, limit=1000)
            for event in page["events"]:
                data = event.get("data") or {}
                if event["type"] == "SeatTaken":
                    self.saved["entropy"][event["seat"]] = data.get("entropy")
                    fresh = True
                elif data.get("commitment"):
                    self.saved["commitments"].append({"version": event["version"], "commitment": data["commitment"]})
                    fresh = True
            if not page["events"]:
                break
            self.seen = page["events"][-1]["version"]
        if fresh:
            self._write()

    def _write(self) -> None:
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps(self.saved, indent=1) + "\n")
        temporary.replace(self.path)
