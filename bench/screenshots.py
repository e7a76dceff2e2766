"""The README's pictures of the web pages, made anew: docs/img/lobby.png, docs/img/table.png, docs/img/table-phone.png
and docs/img/table-sideways.png.

Usage: ``python3 bench/screenshots.py [--out DIRECTORY]`` (default: docs/img, overwritten), with the packages of
``pip install -e .[test]`` (Playwright) and Chromium from the system, as the browser tests take it
(``CARDHALL_CHROMIUM``, default Debian's headless shell where installed, else /usr/bin/chromium; never a download).
It takes well under a minute, and prints each picture's size. Look at the pictures before committing them.

It starts a throwaway ``cardhall serve`` on 127.0.0.1 over SQLite in a temporary directory (bench/_common.py's), and
sets the scenes up through the HTTP API, as people and house bots would:

* the lobby (1200 by 600): a few games waiting for players and under way;
* a table (1100 by 900): three-player Craits at Ana's turn, a few turns in. Ana takes her seat in the browser, with
  the table's Join form, as a visitor does (the page keeps the seat's token in its storage, with which her first
  two turns are played through the API); Bo is a person playing through the API, the third seat a greedy house bot;
* the same table on a phone held upright (390 by 844 CSS px, device scale 2), its storage carried over, then held
  sideways (844 by 390).

The deals are shuffled, so each run shows other cards. Nothing leaves the machine: the server and the browser talk
over the loopback only. (Not a test, nor collected as one: pytest looks under tests/ only.)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path

# Run as a script, this file's directory would come first on sys.path, where bench/http.py hides the standard
# library's http package (httpx needs it): the repository root goes there instead (as bench/web.py does).
HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import httpx
from playwright.sync_api import Browser, sync_playwright

from bench._common import Databases, running
from bench.web import settled
from tests.e2e.web.conftest import CHROMIUM, CHROMIUM_ARGS

OUT = HERE.parent / "docs" / "img"


class Scenes:
    """The API, for setting scenes up: games, seats, moves."""

    def __init__(self, base_url: str) -> None:
        self.api = httpx.Client(base_url=f"{base_url}/v1", timeout=30)

    def create(self, game: str, players: int, **options: object) -> str:
        answer = self.api.post("/games", json={"game": game, "players": players, "options": options})
        answer.raise_for_status()
        return answer.json()["id"]

    def join(self, game_id: str, name: str | None = None, bot: str | None = None) -> str | None:
        answer = self.api.post(f"/games/{game_id}/seats", json={"bot": bot} if bot else {"name": name})
        answer.raise_for_status()
        return answer.json()["token"]

    def view(self, game_id: str, token: str | None = None) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = self.api.get(f"/games/{game_id}/state", headers=headers)
        answer.raise_for_status()
        return answer.json()

    def move(self, game_id: str, token: str) -> None:
        """A plain move for the seat of ``token``: a card that is not an eight if one can be played, else an eight
        (naming its first suit), else what else is offered (draw, or pass)."""
        moves = self.view(game_id, token)["legal_moves"]
        plays = [move for move in moves if move["type"] == "play"]
        chosen = next((move for move in plays if move["card"][0] != "8"), plays[0] if plays else moves[0])
        answer = self.api.post(f"/games/{game_id}/moves", json=chosen, headers={"Authorization": f"Bearer {token}"})
        answer.raise_for_status()

    def wait(self, game_id: str, version: int) -> None:
        """Until the game has gone past ``version`` (a house bot's turn: the server plays it), a second at most."""
        self.api.get(f"/games/{game_id}/events", params={"after": version, "limit": 1, "wait": 1})


def lobby_games(scenes: Scenes) -> None:
    """A few games to list: two waiting for players (one with a seat taken), two under way."""
    waiting = scenes.create("scat", 4)
    scenes.join(waiting, "Cleo")
    scenes.create("craits", 2, short=True)
    for game, players, names in (("craits", 4, ("Dana", "Eli")), ("scat", 3, ("Fay",))):
        game_id = scenes.create(game, players)
        for name in names:
            scenes.join(game_id, name)
        for _ in range(players - len(names)):
            scenes.join(game_id, bot="greedy")


def table_at_anas_turn(browser: Browser, scenes: Scenes, base_url: str, out: Path) -> None:
    """Three-player Craits: Ana joins in the browser, Bo through the API, a greedy bot deals; two turns each, and
    Ana's again. Shot on a laptop's screen, then on a phone's held upright and sideways."""
    game_id = scenes.create("craits", 3, first_dealer=2)  # (the bot deals: Ana, on its left, plays first)
    laptop = browser.new_context(base_url=base_url, viewport={"width": 1100, "height": 900}, reduced_motion="reduce")
    page = laptop.new_page()
    page.goto(f"/games/{game_id}")
    settled(page)
    page.fill("#seating input[name=name]", "Ana")
    page.click("#seating button:text('Join')")
    page.wait_for_selector("#seating button:text('Abort the game')")
    ana = json.loads(page.evaluate(f"localStorage.getItem('cardhall.seat.{game_id}')"))["token"]
    bo = scenes.join(game_id, "Bo")
    scenes.join(game_id, bot="greedy")
    tokens, turns = {0: ana, 1: bo}, 0
    deadline = time.monotonic() + 60
    while (view := scenes.view(game_id))["to_act"] != [0] or turns < 2:
        assert time.monotonic() < deadline and view["to_act"], f"the game went astray: {view}"
        seat = view["to_act"][0]
        if seat in tokens:
            turns += seat == 0
            scenes.move(game_id, tokens[seat])
        else:
            scenes.wait(game_id, view["version"])
    settled(page, view["version"])
    page.wait_for_selector("#actions button, #hand button.playable")
    page.mouse.move(0, 0)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.screenshot(path=str(out / "table.png"))
    for name, width, height in (("table-phone.png", 390, 844), ("table-sideways.png", 844, 390)):
        phone = browser.new_context(base_url=base_url, viewport={"width": width, "height": height}, device_scale_factor=2,
                                    is_mobile=True, has_touch=True, reduced_motion="reduce",
                                    storage_state=laptop.storage_state())
        small = phone.new_page()
        small.goto(f"/games/{game_id}")
        settled(small, view["version"])
        small.screenshot(path=str(out / name))
        phone.close()
    laptop.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the pictures go (default {OUT})")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright, contextlib.ExitStack() as stack:
        databases = Databases(stack)
        server = stack.enter_context(running(databases.new("sqlite"), databases.workdir(), threads=8))
        scenes = Scenes(server.base_url)
        stack.callback(scenes.api.close)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        stack.callback(browser.close)
        lobby_games(scenes)
        context = browser.new_context(base_url=server.base_url, viewport={"width": 1200, "height": 600})
        page = context.new_page()
        page.goto("/")
        settled(page)
        page.wait_for_selector("#game-rows tr")
        page.screenshot(path=str(args.out / "lobby.png"))
        context.close()
        table_at_anas_turn(browser, scenes, server.base_url, args.out)
    for name in ("lobby.png", "table.png", "table-phone.png", "table-sideways.png"):
        print(f"{args.out / name}: {(args.out / name).stat().st_size / 1024:.0f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
