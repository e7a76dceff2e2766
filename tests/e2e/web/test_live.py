"""At the latest version a page follows the game live: another client's move shows within 2 seconds,
and the table says in words what it did."""

from __future__ import annotations

from tests.e2e.web.conftest import settled
from tests.e2e.web.test_play import stacked_deck


def to_act(api, game_id: str, tokens: list[str]):  # type: ignore[no-untyped-def]
    """The token whose seat must act now, and its view."""
    for token in tokens:
        view = api.view(game_id, token)
        if view["seat"] in view["to_act"]:
            return token, view
    raise AssertionError("nobody is to act")


def test_a_move_made_by_another_client_appears_on_an_open_page_within_2_seconds(page, api):
    game_id = api.create("craits", 2, short=True)
    tokens = [api.join(game_id, "Ana"), api.join(game_id, "Bo")]
    page.goto(f"/games/{game_id}")
    version = api.summary(game_id)["version"]
    settled(page, version)
    for _ in range(3):
        token, view = to_act(api, game_id, tokens)
        answer = api.move(game_id, token, view["legal_moves"][0])
        page.wait_for_selector(f"body[data-version='{answer['version']}']", state="attached", timeout=2_000)
        assert "live" in page.inner_text("#position")
    assert page.watched.errors == []
    assert page.watched.outside == []


def test_a_seat_taken_by_someone_else_appears_in_the_waiting_games_page(page, api):
    game_id = api.create("scat", 3)
    page.goto(f"/games/{game_id}")
    settled(page, 1)
    assert "Waiting for players" in page.inner_text("#middle")
    api.join(game_id, "Cy")
    page.wait_for_selector("body[data-version='2']", state="attached", timeout=2_000)
    assert page.inner_text("#seats .seat[data-seat='0'] .seat-name") == "Cy"


def test_the_table_says_in_words_what_the_last_move_did_and_lists_it_in_the_log(page, api):
    # Ana, first to act, holds the king of hearts on the three of hearts: a play with no ability (C10).
    game_id = api.create("craits", 2, short=True, first_dealer=1, decks=[stacked_deck(first=["KH"], up="3H")])
    ana = api.join(game_id, "Ana")
    api.join(game_id, "Bo")
    answer = api.move(game_id, ana, {"type": "play", "card": "KH"})
    page.goto(f"/games/{game_id}")
    settled(page, answer["version"])
    assert "Ana played K♥" in page.inner_text("#headline")
    assert "Ana played K♥" in page.inner_text(f"#log li[data-version='{answer['version']}']")
