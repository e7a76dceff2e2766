"""Replaying a finished game in the browser: keys, deep links, and what each version shows."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tests.e2e.web.conftest import settled


def shown(page: Page) -> dict[str, Any]:
    """What the table shows: hand sizes and totals by seat, and the top card of the discard pile."""
    return page.evaluate("""() => ({
        hand_sizes: [...document.querySelectorAll('#seats .seat .hand-size')].map(e => Number(e.dataset.count)),
        totals: [...document.querySelectorAll('#seats .seat .score, #seats .seat .lives')].map(e => e.textContent),
        top_card: document.querySelector('#middle .pile [data-card]')?.dataset.card ?? null,
    })""")


def expected(view: dict[str, Any]) -> dict[str, Any]:
    state = view["state"]
    totals = [f"score {score}" for score in state["scores"]] if "scores" in state else \
        [f"{count} {'life' if count == 1 else 'lives'}" for count in state["lives"]]
    return {"hand_sizes": state["hand_sizes"], "totals": totals, "top_card": state["top_card"]}


@pytest.fixture(scope="module")
def finished_craits(api) -> str:  # type: ignore[no-untyped-def]
    return api.finished("craits", 3, short=True)


def test_the_keys_step_a_finished_game_back_to_version_1_and_forward(page, finished_craits, api):
    last = api.summary(finished_craits)["version"]
    page.goto(f"/games/{finished_craits}")
    settled(page, last)
    page.keyboard.press("Home")
    settled(page, 1)
    assert "version 1 of" in page.inner_text("#position")
    for version in (2, 3, 4):
        page.keyboard.press("ArrowRight")
        settled(page, version)
    page.keyboard.press("ArrowLeft")
    settled(page, 3)
    page.wait_for_url("**?v=3")  # (the address follows within a quarter of a second)
    assert page.locator("#log li").all_inner_texts()[0].startswith("#3 ")
    assert page.locator("#log li").count() == 3
    page.keyboard.press("End")
    settled(page, last)
    page.wait_for_function("() => !window.location.search.includes('v=')")


@pytest.mark.parametrize("fraction", [0.1, 0.35, 0.6, 0.85])
def test_a_deep_link_shows_the_hand_sizes_top_card_and_scores_of_the_apis_view_at_that_version(
        page, finished_craits, api, fraction):
    version = max(6, int(api.summary(finished_craits)["version"] * fraction))
    page.goto(f"/games/{finished_craits}?v={version}")
    settled(page, version)
    assert shown(page) == expected(api.view(finished_craits, at=version))
    assert page.locator("#log li.current").get_attribute("data-version") == str(version)


def test_a_scat_game_replays_with_lives_at_every_version_stepped_to(page, api):
    game_id = api.finished("scat", 3)
    page.goto(f"/games/{game_id}?v=20")
    settled(page, 20)
    for version in range(20, 30):
        assert shown(page) == expected(api.view(game_id, at=version))
        page.click("#forward")
        settled(page, version + 1)


def test_play_steps_forward_by_itself_and_pause_stops_it(page, finished_craits):
    page.goto(f"/games/{finished_craits}?v=10")
    settled(page, 10)
    page.click("#play")
    page.wait_for_function("() => Number(document.body.dataset.version) >= 12")
    page.click("#play")
    stopped = int(page.get_attribute("body", "data-version"))
    page.wait_for_timeout(1000)
    assert int(page.get_attribute("body", "data-version")) == stopped


def test_an_embedded_table_shows_the_table_alone(page, finished_craits):
    page.goto(f"/games/{finished_craits}?embed=1&v=8")
    settled(page, 8)
    assert page.locator("header").count() == 0
    assert not page.locator("#log-box").is_visible()
    assert page.locator("#seats .seat").count() == 3
    page.keyboard.press("ArrowRight")
    settled(page, 9)
    page.wait_for_url("**?embed=1&v=9")
