"""The table shows a clocked turn's countdown, and a finished game's verified shuffles."""

from __future__ import annotations

import re

from tests.e2e.web.conftest import settled


def two_seated(api, **options) -> str:  # type: ignore[no-untyped-def]
    """A two-seat Craits game, both seats taken, so it is under way."""
    game_id = api.create("craits", 2, **options)
    api.join(game_id, "Ana")
    api.join(game_id, "Bo")
    return game_id


def test_a_clocked_turn_shows_a_countdown_for_the_seat_to_act(page, api):
    game_id = two_seated(api, move_seconds=600)
    view = api.view(game_id)
    assert view["deadline"] is not None
    page.goto(f"/games/{game_id}")
    settled(page, view["version"])
    clock = page.locator("#clock")
    assert clock.is_visible()
    seconds = int(re.search(r"(\d+) s left", clock.inner_text()).group(1))
    assert 590 <= seconds <= 600


def test_a_game_without_a_clock_shows_no_countdown(page, api):
    game_id = two_seated(api)
    page.goto(f"/games/{game_id}")
    settled(page, api.view(game_id)["version"])
    assert not page.locator("#clock").is_visible()


def test_a_finished_game_whose_shuffles_verify_shows_the_verified_badge(page, api):
    game_id = api.finished("craits", 2, short=True)
    assert api.client.get(f"/games/{game_id}/audit").json()["verified"] is True
    page.goto(f"/games/{game_id}")
    settled(page)
    page.wait_for_selector(".badge.verified", timeout=5000)


def test_a_running_game_shows_no_verified_badge(page, api):
    game_id = two_seated(api)
    page.goto(f"/games/{game_id}")
    settled(page, api.view(game_id)["version"])
    page.wait_for_timeout(500)
    assert page.locator(".badge.verified").count() == 0
