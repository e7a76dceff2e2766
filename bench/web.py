"""Web pages benchmark: page weight, and in headless Chromium the first render of a long finished game
and stepping through its versions, at each of four viewports (a 360 px and a 390 px phone, a tablet,
a laptop: those tests/e2e/web/test_viewports.py checks the layout at).

Usage: ``python3 bench/web.py [--events 1500] [--steps 100] [--runs 5] [--tries 40] [--viewport phone-360 ...]``.

It starts ``cardhall serve`` on 127.0.0.1 over a fresh SQLite database, has house bots play Craits
(four random bots) until a finished game has about ``--events`` events, then, in Chromium from the
system (``CARDHALL_CHROMIUM``, default the headless shell where installed, else /usr/bin/chromium), measures:

1. page weight — the bytes the lobby and the table load: the page itself (HTML, CSS, scripts) and
   the API data it reads (the table's: that game's summary, log and view), the API docs excluded;
2. first render — from navigation to the table fully drawn (the log and the view of the last
   version), in a fresh browser context each run (cold browser cache), the median of ``--runs``;
3. steps — ``--steps`` presses of ← from the last version, each until that version is drawn (every
   view is fetched from the server), then as many presses of → back (the views of a finished game
   are cached for good: how many of those steps still reached the server is printed too). Timed
   in the page, so the figure is the page's and the server's, not the browser driver's.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

# Run as a script, this file's directory would come first on sys.path, where bench/http.py hides
# the standard library's http package (httpx needs it): the repository root goes there instead.
HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import httpx
from playwright.sync_api import BrowserContext, Page, sync_playwright

from bench._common import Databases, load_average, median, print_table, running
from tests.e2e.web.conftest import CHROMIUM, CHROMIUM_ARGS

#: The viewports measured, by name: (width, height) in CSS pixels.
VIEWPORTS = {"phone-360": (360, 740), "phone-390": (390, 844), "tablet-768": (768, 1024), "laptop-1440": (1440, 900)}


def finished_version(api: httpx.Client, game_id: str, patience: float = 120.0) -> int:
    """The last version of a game of house bots once it is over: a request plays a bounded number of
    events, and the server's sweeper plays the rest in the background."""
    deadline = time.monotonic() + patience
    while (summary := api.get(f"/games/{game_id}").json())["status"] != "finished":
        assert time.monotonic() < deadline, f"game {game_id} did not finish in {patience:g} s"
        time.sleep(0.2)
    return int(summary["version"])


def long_game(base_url: str, events: int, tries: int = 40) -> tuple[str, int]:
    """A finished Craits game of four random house bots with about ``events`` events: the first of
    at least that many (and at most 15 % more), else the closest of ``tries`` games."""
    best: tuple[str, int] | None = None
    with httpx.Client(base_url=f"{base_url}/v1", timeout=120) as api:
        for _ in range(tries):
            game_id = api.post("/games", json={"game": "craits", "players": 4, "options": {}}).json()["id"]
            for _ in range(4):
                api.post(f"/games/{game_id}/seats", json={"bot": "random"})
            version = finished_version(api, game_id)
            if events <= version <= events * 1.15:
                return game_id, version
            if best is None or abs(version - events) < abs(best[1] - events):
                best = (game_id, version)
    assert best is not None
    return best


#: The bytes of what the page loaded, from the browser's own resource timing: (page itself, API data).
LOADED_BYTES = """() => {
    const entries = [performance.getEntriesByType("navigation")[0], ...performance.getEntriesByType("resource")];
    const sizes = [0, 0];
    for (const entry of entries) {
        if (entry.name.includes("/docs")) continue;
        sizes[new URL(entry.name).pathname.startsWith("/v1/") ? 1 : 0] += entry.decodedBodySize;
    }
    return sizes;
}"""


def weight(context: BrowserContext, url: str) -> tuple[int, int]:
    """The bytes a page loads: (the page itself, API data), the API docs excluded."""
    page = context.new_page()
    page.goto(url)
    settled(page)
    page.wait_for_load_state("networkidle")
    sizes = page.evaluate(LOADED_BYTES)
    page.close()
    return sizes[0], sizes[1]


def settled(page: Page, version: int | None = None) -> None:
    selector = "body[data-busy=false]" if version is None else f"body[data-busy=false][data-version='{version}']"
    page.wait_for_selector(selector, state="attached", timeout=60_000)


def first_render(context: BrowserContext, url: str) -> float:
    """Seconds from navigation to the table fully drawn."""
    page = context.new_page()
    started = time.perf_counter()
    page.goto(url)
    settled(page)
    elapsed = time.perf_counter() - started
    page.close()
    return elapsed


#: Press a key ``count`` times in the page, each time waiting until the next version is drawn; the
#: milliseconds it took, measured in the page (no driver round trips in between).
STEP_IN_PAGE = """async ([key, count]) => {
    const drawn = (version) => new Promise((resolve) => {
        const done = () => document.body.dataset.version === String(version) && document.body.dataset.busy === "false";
        if (done()) { resolve(); return; }
        const watcher = new MutationObserver(() => { if (done()) { watcher.disconnect(); resolve(); } });
        watcher.observe(document.body, { attributes: true });
    });
    const started = performance.now();
    for (let i = 0; i < count; i += 1) {
        const next = Number(document.body.dataset.version) + (key === "ArrowLeft" ? -1 : 1);
        document.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
        await drawn(next);
    }
    return performance.now() - started;
}"""


def stepping(context: BrowserContext, url: str, last: int, steps: int) -> tuple[float, float, int]:
    """Seconds for ``steps`` presses of ← from the last version, then of → back; and how many of the
    steps forward reached the server (the rest came from the browser's cache)."""
    page = context.new_page()
    page.goto(url)
    settled(page, last)
    page.evaluate("performance.setResourceTimingBufferSize(100000)")
    back = page.evaluate(STEP_IN_PAGE, ["ArrowLeft", steps]) / 1000
    page.wait_for_timeout(1000)  # (the view fetched ahead of the last step back lands first)
    page.evaluate("performance.clearResourceTimings()")
    forth = page.evaluate(STEP_IN_PAGE, ["ArrowRight", steps]) / 1000
    reached = page.evaluate("""performance.getEntriesByType('resource')
        .filter(entry => entry.name.includes('/state') && entry.transferSize > 0).length""")
    page.close()
    return back, forth, reached


def measure(browser, base_url: str, game_id: str, version: int, steps: int, runs: int,  # type: ignore[no-untyped-def]
            viewport: tuple[int, int]) -> list[str]:
    """One viewport's row: page weights, API data, first renders, steps back and forth."""
    fresh = lambda: browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})  # noqa: E731
    table_url = f"{base_url}/games/{game_id}"
    lobby_page, _ = weight(fresh(), f"{base_url}/")
    table_page, table_data = weight(fresh(), table_url)
    renders = [first_render(fresh(), table_url) for _ in range(runs)]
    back, forth, reached = stepping(fresh(), table_url, version, steps)
    kb = lambda size: f"{size / 1024:.1f} KB"  # noqa: E731
    return [f"{viewport[0]}×{viewport[1]}", kb(lobby_page), kb(table_page), kb(table_data),
            f"{median(renders) * 1000:.0f} ms", f"{max(renders) * 1000:.0f} ms", f"{back * 1000:.0f} ms",
            f"{forth * 1000:.0f} ms", f"{reached} of {steps}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1500, help="about how many events the finished game has")
    parser.add_argument("--steps", type=int, default=100, help="versions to step through")
    parser.add_argument("--runs", type=int, default=5, help="first renders to take the median of")
    parser.add_argument("--tries", type=int, default=40, help="games played at most to find one of about --events "
                                                             "events (then the closest is taken)")
    parser.add_argument("--viewport", action="append", choices=list(VIEWPORTS), metavar="NAME",
                        help=f"measure at this viewport only (repeatable; default all: {', '.join(VIEWPORTS)})")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack, sync_playwright() as playwright:
        databases = Databases(stack)
        server = stack.enter_context(running(databases.new("sqlite"), databases.workdir(), threads=8))
        game_id, version = long_game(server.base_url, args.events, args.tries)
        steps = min(args.steps, version - 1)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        rows = [measure(browser, server.base_url, game_id, version, steps, args.runs, VIEWPORTS[name])
                for name in args.viewport or VIEWPORTS]
        browser.close()
    print_table(
        f"Web pages: a finished Craits game of {version} events, headless Chromium, SQLite ({load_average()}); "
        f"targets: each page < 200 KB, first render (median of {args.runs}) < 1 s, {steps} steps < 2 s each way",
        ["viewport", "lobby page", "table page", "table API data", "first render", "slowest", f"{steps} back",
         f"{steps} forward (cached)", "forward from server"],
        rows,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
