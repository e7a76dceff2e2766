"""A lobby that lives and a table that seats people: the list refreshes itself, errors show beside the control
that caused them, a waiting table offers Join and an invite link, a seated player aborts or resigns from the
table, the first dealer is picked from the seats; replay speed, a bad ?v= and an unknown game say so."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.web.conftest import settled
from tests.e2e.web.test_play import seated_page


def test_the_lobby_lists_a_game_created_elsewhere_without_a_reload(page, api):
    page.goto("/")
    settled(page)
    game_id = api.create("scat", 3)
    page.wait_for_selector(f"#game-rows tr[data-game='{game_id}']")
    assert page.watched.errors == []


def test_a_refused_join_is_shown_beside_that_join_and_nowhere_else(page, api):
    game_id = api.create("scat", 2)
    page.goto("/")
    settled(page)
    row = page.locator(f"#game-rows tr[data-game='{game_id}']")
    row.locator("input[name=name]").fill("Dee")
    api.join(game_id, bot="greedy")
    api.join(game_id, bot="greedy")  # (full now: the row still offers Join until the list is read again)
    row.locator("button", has_text="Join").click()
    beside = row.locator(".join .problem")
    beside.wait_for()
    assert "no seat is free" in beside.inner_text()
    assert page.locator("#problem").is_hidden() and page.locator("#list-problem").is_hidden()


def test_a_waiting_table_offers_join_and_its_invite_link(page, api):
    game_id = api.create("craits", 3)
    page.goto(f"/games/{game_id}")
    settled(page)
    assert page.input_value(".invite-link") == page.url
    page.fill("#seating input[name=name]", "Bo")
    page.click("#seating button:text('Join')")
    page.wait_for_selector("#seats .seat.mine")
    settled(page)
    assert page.inner_text("#seats .seat.mine .seat-name") == "Bo (you)"
    assert api.summary(game_id)["seats"][0]["name"] == "Bo"


def test_a_seated_player_aborts_a_waiting_game_from_the_table(page, api):
    game_id = api.create("scat", 3)
    token = api.join(game_id, "Ana")
    seated_page(page, api, game_id, token)
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#seating button:text('Abort the game')")
    page.wait_for_selector("body[data-status=aborted]")
    assert api.summary(game_id)["status"] == "aborted"


def test_a_seated_player_resigns_from_the_table_and_a_house_bot_plays_on(page, api):
    game_id = api.create("craits", 2, short=True, first_dealer=1)
    token = api.join(game_id, "Ana")
    api.join(game_id, bot="greedy")
    seated_page(page, api, game_id, token)
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#seating button:text('Resign')")
    page.wait_for_selector("body[data-status=finished]")
    assert "Ana → random bot since #" in page.inner_text("#seats [data-seat='0'] .seat-name")
    assert page.locator("#seating").is_hidden()


def test_the_first_dealer_is_picked_from_the_seats_when_starting_a_game(page, api):
    page.goto("/")
    settled(page)
    page.select_option("#new-game-type", "craits")
    page.click("#new-more > summary")
    picker = "select[name='option.first_dealer']"
    assert page.locator(f"{picker} option").all_inner_texts() == ["drawn by cards", "seat 0", "seat 1"]
    page.select_option(picker, "1")
    page.fill("#new-name", "Ana")
    page.click("text=Start the game")
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1]
    assert api.summary(game_id)["options"]["first_dealer"] == 1


#: Records the delay of every interval the page sets, for the replay speed's test.
RECORD_INTERVALS = """
window.intervals = [];
const setIntervalAsUsual = window.setInterval;
window.setInterval = (callback, delay, ...rest) => {
  window.intervals.push(delay);
  return setIntervalAsUsual(callback, delay, ...rest);
};
"""


def test_replay_plays_at_the_speed_chosen_from_a_quarter_to_eight_times(page, api):
    game_id = api.finished("craits", 2, short=True)
    page.add_init_script(RECORD_INTERVALS)
    page.goto(f"/games/{game_id}?v=1")
    settled(page, 1)
    assert page.locator("#speed option").all_inner_texts() == ["0.25×", "0.5×", "1×", "2×", "4×", "8×"]
    page.select_option("#speed", "8")
    page.click("#play")
    page.select_option("#speed", "0.25")
    delays = page.evaluate("window.intervals.filter((delay) => delay !== 250)")  # (250: the clock's tick)
    assert delays[-2:] == [50, 1600]
    page.click("#play")


def test_a_bad_version_in_the_address_says_so_and_shows_the_latest(page, api):
    game_id = api.finished("scat", 2)
    last = api.summary(game_id)["version"]
    for asked in ("abc", str(last + 5), "0"):
        page.goto(f"/games/{game_id}?v={asked}")
        settled(page, last)
        assert page.inner_text("#problem") == (f"?v={asked} is no version of this game: it has versions 1 to {last}. "
                                               "Showing the latest.")


def test_an_unknown_game_is_a_404_page(live_server):
    answer = httpx.get(f"{live_server}/games/{'0' * 32}")
    assert answer.status_code == 404
    assert "No such game" in answer.text and "/assets/cardhall.css" in answer.text


@pytest.mark.parametrize(("path", "api_path", "heading"), [
    ("/rules/nope", "/v1/leaderboards/nope", "No such game type"),
    ("/leaderboards/nogame", "/v1/leaderboards/nogame", "No such game type"),
    ("/accounts/nobody", "/v1/accounts/nobody", "No such account"),
])
def test_an_unknown_game_type_or_account_is_a_404_page_as_an_unknown_game_is(page, live_server, path, api_path, heading):
    answer = httpx.get(f"{live_server}{path}", headers={"Accept": "text/html"})
    assert (answer.status_code, answer.headers["content-type"].split(";")[0]) == (404, "text/html")
    page.goto(path)
    assert page.locator("h2").all_inner_texts() == [heading]
    assert page.locator(".problem").count() == 0  # (an account's page said "no account 'nobody'" twice)
    api_answer = httpx.get(f"{live_server}{api_path}")  # (the API answers as it always has)
    assert (api_answer.status_code, api_answer.json()["code"]) == (404, "not_found")
