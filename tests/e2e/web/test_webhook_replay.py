"""A game played by webhook bots, stepped through on its table page: each move a bot's call made shows how
the call went (its outcome and the bot's latency) beside the move in the log."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.e2e.server import ServerProcess, start_server
from tests.e2e.test_webhooks import OPTIONS, Api, until
from tests.e2e.web.conftest import settled
from tests.webhook_bots import Bots


@pytest.fixture(scope="module")
def webhook_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = start_server(tmp_path_factory.mktemp("webhook-replay"), options=OPTIONS)
    yield running
    running.stop()


def test_the_log_shows_each_webhook_move_with_the_bots_latency(browser: Browser, webhook_server: ServerProcess,
                                                               tmp_path: Path) -> None:
    api, bots = Api(webhook_server.base_url), Bots()
    try:
        game_id = api.unhurried_game(bots, "quick1", "quick2")  # (Scat: tens of calls where Craits makes hundreds)
        until(lambda: api.finished(game_id))
    finally:
        bots.close()
    calls = [call for call in api.call("GET", f"/v1/games/{game_id}/webhook-calls").json()["calls"]
             if call["kind"] == "move" and call["outcome"] == "played"]
    played = calls[-1]
    page = browser.new_page()
    try:
        page.goto(f"{webhook_server.base_url}/games/{game_id}?v={played['version'] + 1}")
        settled(page, played["version"] + 1)
        line = page.locator(f"#log li[data-version='{played['version'] + 1}']").inner_text()
        assert re.search(rf"bot answered in {played['latency_ms']} ms", line), line
        page.goto(f"{webhook_server.base_url}/games/{game_id}?v=1")
        settled(page, 1)
        assert "bot" not in page.locator("#log li[data-version='1']").inner_text()  # (the game's creation: no call)
    finally:
        page.close()
