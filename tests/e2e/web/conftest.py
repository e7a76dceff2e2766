"""Browser tests: Chromium from the system's packages, driven by Playwright, one browser per test process.

Playwright never downloads a browser here: it launches the executable given by CARDHALL_CHROMIUM,
by default Debian's Chromium headless shell (package chromium-headless-shell, which ``.ci/run``
installs with apt-get: the same Chromium without its windowed shell, started in a tenth of the
time), else Debian's chromium. A failing test leaves a screenshot of its page in
CARDHALL_ARTIFACTS (default: the session's temporary directory).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("CARDHALL_CHROMIUM") or (HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium, started once per test process (each xdist worker has its own)."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots of failed tests go."""
    configured = os.environ.get("CARDHALL_ARTIFACTS")
    if configured:
        Path(configured).mkdir(parents=True, exist_ok=True)
        return Path(configured)
    return tmp_path_factory.mktemp("screenshots")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]):  # type: ignore[no-untyped-def]
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


class Watched:
    """What a page did: console errors, uncaught exceptions, and requests that left the server."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.errors: list[str] = []
        self.outside: list[str] = []
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("request", lambda request: self._request(request.url, base_url))

    def _request(self, url: str, base_url: str) -> None:
        if not (url.startswith(base_url) or url.startswith("data:")):
            self.outside.append(url)


@pytest.fixture
def page(browser: Browser, live_server: str, artifacts: Path, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh page (its own storage) on the live server; screenshotted if the test fails."""
    context = browser.new_context(base_url=live_server, viewport={"width": 1200, "height": 900})
    context.set_default_timeout(10_000)
    opened = context.new_page()
    opened.watched = Watched(opened, live_server)  # type: ignore[attr-defined]
    yield opened
    failed = getattr(request.node, "report_call", None)
    if failed is not None and failed.failed:
        name = re.sub(r"[^\w.-]+", "_", request.node.nodeid)
        shot = artifacts / f"{name}.png"
        opened.screenshot(path=str(shot), full_page=True)
        print(f"screenshot of the failed page: {shot}")
    context.close()


def touch_page(browser: Browser, live_server: str, width: int, height: int) -> Iterator[Page]:
    """A fresh page on a touch screen of ``width`` by ``height`` CSS pixels, closed once the test is done."""
    context = browser.new_context(base_url=live_server, viewport={"width": width, "height": height}, has_touch=True)
    context.set_default_timeout(10_000)
    opened = context.new_page()
    opened.watched = Watched(opened, live_server)  # type: ignore[attr-defined]
    yield opened
    context.close()


@pytest.fixture
def phone(browser: Browser, live_server: str) -> Iterator[Page]:
    """A fresh page as an iPhone 13 shows it: 390 by 844, touch."""
    yield from touch_page(browser, live_server, 390, 844)


@pytest.fixture
def small_phone(browser: Browser, live_server: str) -> Iterator[Page]:
    """A fresh page on a 360 px wide touch screen, the narrowest the pages are made for."""
    yield from touch_page(browser, live_server, 360, 740)


@pytest.fixture(params=[(360, 640), (390, 844)], ids=["phone-360x640", "phone-390x844"])
def upright_phone(request: pytest.FixtureRequest, browser: Browser, live_server: str) -> Iterator[Page]:
    """A fresh page on a phone held upright: a small one, 360 by 640 (what its browser leaves of its screen), then
    the 390 by 844 one."""
    yield from touch_page(browser, live_server, *request.param)


class Api:
    """The live server's API, for setting games up and checking what pages show."""

    def __init__(self, base_url: str) -> None:
        self.client = httpx.Client(base_url=f"{base_url}/v1", timeout=30)

    def create(self, game: str, players: int, **options: Any) -> str:
        answer = self.client.post("/games", json={"game": game, "players": players, "options": options})
        assert answer.status_code == 201, answer.text
        return answer.json()["id"]

    def join(self, game_id: str, name: str | None = None, bot: str | None = None) -> str | None:
        body = {"bot": bot} if bot else {"name": name}
        answer = self.client.post(f"/games/{game_id}/seats", json=body)
        assert answer.status_code == 201, answer.text
        return answer.json()["token"]

    def finished(self, game: str = "craits", players: int = 2, **options: Any) -> str:
        """A game house bots have played to the end (the server's sweeper plays on what the last seat's
        request left, a bounded step at a time: waited for on the events long-poll)."""
        game_id = self.create(game, players, **options)
        for _ in range(players):
            self.join(game_id, bot="greedy")
        for _ in range(60):
            if (summary := self.summary(game_id))["status"] == "finished":
                return game_id
            self.client.get(f"/games/{game_id}/events", params={"after": summary["version"], "limit": 1, "wait": 1})
        raise AssertionError(f"game {game_id} did not finish: {summary}")

    def summary(self, game_id: str) -> dict[str, Any]:
        return self.client.get(f"/games/{game_id}").json()

    def view(self, game_id: str, token: str | None = None, **query: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = self.client.get(f"/games/{game_id}/state", params=query, headers=headers)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def move(self, game_id: str, token: str, move: dict[str, Any]) -> dict[str, Any]:
        answer = self.client.post(f"/games/{game_id}/moves", json=move, headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 201, answer.text
        return answer.json()


@pytest.fixture(scope="session")
def api(live_server: str) -> Iterator[Api]:
    """The live server's API."""
    calls = Api(live_server)
    yield calls
    calls.client.close()


def settled(page: Page, version: int | None = None) -> None:
    """Wait until the page is done loading (and shows ``version``, if given)."""
    selector = "body[data-busy=false]" if version is None else f"body[data-busy=false][data-version='{version}']"
    page.wait_for_selector(selector, state="attached")
