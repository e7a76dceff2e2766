"""The table says what happened: seats a house bot took over, the last hand's results until the next move,
what special cards do, Scat's county, the first dealer's draw; and each game's rules are a page."""

from __future__ import annotations

import httpx

from tests.e2e.web.conftest import settled
from tests.unit.scat_support import stacked_deck


def events(api, game_id: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return api.client.get(f"/games/{game_id}/events", params={"limit": 1000}).json()["events"]


def first(found: list[dict], kind: str, after: int = 0) -> int:
    return next(event["version"] for event in found if event["type"] == kind and event["version"] > after)


def is_move(event: dict) -> bool:
    return event["seat"] is not None and event["type"] not in {"SeatTaken", "SeatResigned", "SeatAbandoned",
                                                               "TurnTimedOut"}


def test_a_seat_a_house_bot_took_over_says_so_from_that_version_on_and_in_the_result(page, api):
    game_id = api.create("craits", 2, short=True, seed=4)
    token = api.join(game_id, "Ana")
    api.join(game_id, bot="greedy")
    answer = api.client.post(f"/games/{game_id}/resign", headers={"Authorization": f"Bearer {token}"})
    since = answer.json()["events"][0]["version"]
    page.goto(f"/games/{game_id}")
    settled(page)
    assert page.inner_text("#seats [data-seat='0'] .seat-name") == f"Ana → random bot since #{since}"
    assert f"Ana → random bot since #{since}" in page.inner_text(".result")
    page.goto(f"/games/{game_id}?v={since - 1}")
    settled(page, since - 1)
    assert page.inner_text("#seats [data-seat='0'] .seat-name") == "Ana"
    page.keyboard.press("ArrowRight")
    settled(page, since)
    assert "Ana resigned: the random bot plays the seat from now on" in page.inner_text("#log li.current")


def test_a_craits_rounds_scores_stay_shown_until_the_next_move(page, api):
    game_id = api.finished("craits", 2, short=True, seed=11)
    log = events(api, game_id)
    second_deal = first(log, "RoundDealt", after=first(log, "RoundDealt"))
    page.goto(f"/games/{game_id}?v={second_deal}")
    settled(page, second_deal)
    panel = page.inner_text(".results")
    assert panel.startswith("Round 1 of ") and ": the scores" in panel and "this round" in panel and "in all" in panel
    move = next(event["version"] for event in log if event["version"] > second_deal and is_move(event))
    page.goto(f"/games/{game_id}?v={move}")
    settled(page, move)
    assert page.locator(".results").count() == 0


def test_a_scat_showdown_shows_the_hands_values_and_lives_until_the_next_move(page, api):
    game_id = api.finished("scat", 3, seed=271)
    log = events(api, game_id)
    settled_at = first(log, "HandSettled")
    page.goto(f"/games/{game_id}?v={settled_at + 1}")  # (the next hand is dealt already: still no move)
    settled(page, settled_at + 1)
    panel = page.locator(".results")
    assert panel.locator("h2").inner_text().startswith("Hand 1: ")
    assert panel.locator("li").count() == 3
    assert "lost" in panel.inner_text() and "left" in panel.inner_text()
    move = next(event["version"] for event in log if event["version"] > settled_at and is_move(event))
    page.goto(f"/games/{game_id}?v={move}")
    settled(page, move)
    assert page.locator(".results").count() == 0


def test_a_special_cards_effect_is_said_in_words_in_the_headline_and_the_log(page, api):
    game_id = api.finished("craits", 3, short=True, seed=5)
    played = [event for event in events(api, game_id) if event["type"] == "CardPlayed" and event["data"]["card"][0] in "6T"]
    version = played[0]["version"]
    said = "(6: plays again)" if played[0]["data"]["card"][0] == "6" else "(10: reverses the direction)"
    page.goto(f"/games/{game_id}?v={version}")
    settled(page, version)
    assert said in page.inner_text("#log li.current")


def test_a_scat_player_with_no_lives_left_is_named_on_the_county(page, api):
    # (stacked: Ana is dealt 31 and declares it, so the others go on the county in the first hand; a shuffled
    # game may end without anyone on it, when each player out lost two lives as the lowest knocker)
    deck = stacked_deck({0: ["AS", "KS", "QS"], 1: ["2H", "5D", "8C"], 2: ["4C", "7D", "9H"]}, up="3C", dealer=2)
    game_id = api.finished("scat", 3, lives=1, first_dealer=2, decks=[deck])
    county = first(events(api, game_id), "HandSettled")
    assert api.view(game_id, at=county)["state"]["county"] == [1, 2]
    page.goto(f"/games/{game_id}?v={county}")
    settled(page, county)
    on_county = page.locator("#seats .seat:has(.county)")
    assert on_county.count() >= 1
    assert on_county.first.locator(".lives").inner_text() == "0 lives"
    assert on_county.first.locator(".county").inner_text() == "on the county, still in"
    assert page.locator("#seats .badge.on-the-county").count() >= 1


def test_the_first_dealers_draw_is_shown_card_by_card_until_the_first_move(page, api):
    game_id = api.finished("craits", 3, short=True, seed=2)
    log = events(api, game_id)
    dealt = first(log, "RoundDealt")
    page.goto(f"/games/{game_id}?v={dealt}")
    settled(page, dealt)
    drawn = page.locator(".dealer-draw figure .card").evaluate_all("cards => cards.map(c => c.getAttribute('aria-label'))")
    assert len(drawn) >= 3 and all(" drew " in label for label in drawn)
    assert page.inner_text(".dealer-draw p").endswith("deals.")
    move = next(event["version"] for event in log if is_move(event))
    page.goto(f"/games/{game_id}?v={move}")
    settled(page, move)
    assert page.locator(".dealer-draw").count() == 0


def test_each_games_rules_are_a_page_linked_from_the_lobby_and_the_table(page, api, live_server):
    page.goto("/")
    settled(page)
    page.click("header a:text('Craits')")
    page.wait_for_url("**/rules/craits")
    assert page.inner_text("main h1") == "Craits: the rules Cardhall plays"
    assert page.locator("h3#c8-drawing").count() == 1
    page.goto("/rules/scat")
    assert page.get_attribute("a:text('C4')", "href") == "/rules/craits#c4-the-first-dealer"
    game_id = api.finished("scat", 2)
    page.goto(f"/games/{game_id}")
    settled(page)
    assert page.get_attribute("#rules-link", "href") == "/rules/scat"
    assert httpx.get(f"{live_server}/rules/bridge").status_code == 404
    assert page.watched.errors == []


def test_an_aborted_games_table_says_so_and_stops_following(page, api):
    game_id = api.create("scat", 3)
    token = api.join(game_id, "Ana")
    api.client.post(f"/games/{game_id}/abort", headers={"Authorization": f"Bearer {token}"})
    page.goto(f"/games/{game_id}")
    settled(page)
    assert page.get_attribute("body", "data-status") == "aborted"
    assert "aborted" in page.inner_text("#title")
    assert "Ana called the game off before it began" in page.inner_text("#log")
    assert "live" not in page.inner_text("#position")
