"""The leaderboard page and an account's page, its rating history drawn as an SVG chart of our own."""

from __future__ import annotations

import time
import uuid

import httpx

from tests.e2e.web.conftest import settled
from tests.e2e.web.layout import audit

GAMES = 10  # (the server's default minimum of rated games to be listed)


def rated_games(base: str, count: int) -> list[str]:
    """Two new bot accounts; ``count`` rated games between them, each ended by both resigning."""
    client = httpx.Client(base_url=base, timeout=30)
    names = [f"lad{uuid.uuid4().hex[:8]}" for _ in range(2)]
    keys = [client.post("/v1/accounts", json={"name": name, "kind": "bot"}).json()["key"] for name in names]
    auth = [{"Authorization": f"Bearer {key}"} for key in keys]
    for _ in range(count):
        offered = client.post("/v1/challenges", json={"game": "scat", "players": 2, "rated": True, "to": [names[1]]},
                              headers=auth[0]).json()
        game_id = client.post(f"/v1/challenges/{offered['id']}/accept", headers=auth[1]).json()["game_id"]
        for headers in auth:  # (the house bots play it out)
            assert client.post(f"/v1/games/{game_id}/resign", headers=headers).status_code == 200
    while len(client.get(f"/v1/accounts/{names[0]}/ratings").json()["ratings"]) == 0 or \
            client.get(f"/v1/accounts/{names[0]}/ratings").json()["ratings"][0]["games"] < count:
        time.sleep(0.1)  # (the server's projector applies them within a moment)
    client.close()
    return names


def test_the_leaderboard_links_accounts_whose_page_draws_their_rating_history(page, live_server):
    names = rated_games(live_server, GAMES)
    page.goto("/leaderboards/scat")
    settled(page)
    listed = page.locator("#board-rows tr td:nth-child(2) a").all_inner_texts()
    assert set(names) <= set(listed)
    page.locator("#board-rows a", has_text=names[0]).click()
    page.wait_for_url(f"**/accounts/{names[0]}")
    settled(page)
    page.wait_for_selector("#account-ratings[data-loaded=true]", state="attached")
    chart = page.locator("svg.rating-chart")
    assert chart.count() == 1 and chart.locator("circle").count() == GAMES
    assert page.locator(".recent li a").count() == GAMES  # (the last ten, each linked to its table)
    page.locator(".recent li a").first.click()
    page.wait_for_url("**/games/*")
    assert page.watched.errors == [] and page.watched.outside == []


LABELS = """[...document.querySelectorAll("#board-rows td")].map((td) => [td.dataset.label,
  getComputedStyle(td, "::before").content, td.closest("table").tHead.rows[0].cells[td.cellIndex].textContent])"""


def test_on_a_phone_each_value_of_the_leaderboard_says_what_it_is(phone, live_server):
    rated_games(live_server, GAMES)
    phone.goto("/leaderboards/scat")
    settled(phone)
    labels = phone.evaluate(LABELS)  # (the table's head is hidden on a narrow screen)
    assert labels and all(label == head and shown != "none" for label, shown, head in labels), labels
    assert audit(phone) == []
    assert phone.watched.errors == []


AXIS_TEXT = """[...document.querySelectorAll(".rating-chart .axis")].map((text) => {
  const chart = text.ownerSVGElement;
  return parseFloat(getComputedStyle(text).fontSize) * chart.getBoundingClientRect().width / chart.viewBox.baseVal.width;
})"""


def test_on_a_phone_the_rating_charts_text_is_shown_at_its_size(phone, live_server):
    names = rated_games(live_server, GAMES)
    phone.goto(f"/accounts/{names[0]}")
    settled(phone)
    phone.wait_for_selector("#account-ratings[data-loaded=true]", state="attached")
    assert phone.locator("svg.rating-chart circle").count() == GAMES
    sizes = phone.evaluate(AXIS_TEXT)  # (CSS px as shown: 14 px text, not a 640 px wide chart's scaled to 8 px)
    assert sizes and min(sizes) >= 13.95, sizes
    assert audit(phone) == []
    assert phone.watched.errors == []
