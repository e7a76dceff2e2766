"""A tournament's page (its standings, crosstable and games by round, followed while it runs) and the list of
tournaments (running, then finished; an account's alone), from the lobby and an account's page."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.web.conftest import settled
from tests.e2e.web.layout import audit, focus_ring
from tests.e2e.web.test_accessibility import rings_tabbed_through, unnamed


class Made:
    """A Scat tournament among three new bot accounts, made over the live server's API."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=f"{base}/v1", timeout=30)
        self.names = [f"tp{uuid.uuid4().hex[:8]}" for _ in range(3)]
        self.keys = {name: self.client.post("/accounts", json={"name": name, "kind": "bot"}).json()["key"]
                     for name in self.names}
        answer = self.client.post("/tournaments", json={"game": "scat", "accounts": self.names, "duplicate": False},
                                  headers=self.auth(self.names[0]))
        assert answer.status_code == 201, answer.text
        self.id: str = answer.json()["id"]
        self.games: list[dict[str, Any]] = answer.json()["games"]

    def auth(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[name]}"}

    def play_out(self) -> dict[str, Any]:
        """Every game resigned by its accounts, the house bots playing on to the end; the tournament, finished."""
        for game in self.games:
            for name in game["seats"]:
                assert self.client.post(f"/games/{game['game_id']}/resign", headers=self.auth(name)).status_code == 200
        for _ in range(300):
            if (tournament := self.client.get(f"/tournaments/{self.id}").json())["status"] == "finished":
                return tournament
            time.sleep(0.1)
        raise AssertionError(f"tournament {self.id} did not finish: {tournament}")


@pytest.fixture
def made(live_server: str) -> Made:
    return Made(live_server)


def test_a_tournaments_page_follows_it_to_its_standings_and_links_its_accounts_and_games(page: Page, made: Made):
    page.goto(f"/tournaments/{made.id}")
    settled(page)
    assert page.locator("#tournament-status").inner_text() == "running"
    assert page.locator("#tournament-round").inner_text() == "1 of 1"
    assert page.locator("#tournament-clock").inner_text() == "10 s a move"
    assert page.locator("#tournament-game").inner_text() == "scat"
    assert page.locator("#tournament-table").inner_text() == "2 accounts"
    games = page.locator(".round[data-round='1'] tbody tr")
    assert games.count() == 3
    assert sorted(page.locator(".round a").evaluate_all("links => links.map((a) => a.getAttribute('href'))")) == sorted(
        f"/games/{game['game_id']}" for game in made.games)
    done = made.play_out()
    page.wait_for_selector("#tournament[data-status=finished]", state="attached", timeout=20_000)  # (read again)
    assert page.locator("#tournament-status").inner_text() == "finished"
    rows = page.locator("#standing-rows tr")
    assert rows.count() == 3
    assert rows.locator("td:nth-child(2) a").all_inner_texts() == [row["account"] for row in done["standings"]]
    first = done["standings"][0]
    assert rows.first.locator("td").last.inner_text() == \
        f"{first['mean']:.2f} ({first['interval'][0]:.2f}–{first['interval'][1]:.2f})"
    assert page.locator("#crosstable tbody tr").count() == 3
    assert set(page.locator(".round tbody td:nth-child(4)").all_inner_texts()) == {"finished"}
    assert unnamed(page) == [] and rings_tabbed_through(page) == []  # (the crosstable's box among what Tab reaches)
    page.locator("#standing-rows a", has_text=first["account"]).click()
    page.wait_for_url(f"**/accounts/{first['account']}")
    page.go_back()
    settled(page)
    page.locator(".round a").first.click()
    page.wait_for_url("**/games/*")
    assert page.watched.errors == [] and page.watched.outside == []


def test_the_list_shows_running_then_finished_tournaments_each_linked_to_its_page(page: Page, made: Made):
    page.goto("/")
    page.locator(".bar a", has_text="Tournaments").click()
    page.wait_for_url("**/tournaments")
    settled(page)
    running = page.locator(f"section[data-status=running] tr[data-tournament='{made.id}']")
    assert running.count() == 1
    assert running.locator("td").nth(1).inner_text() == ", ".join(made.names)
    made.play_out()
    page.goto(f"/accounts/{made.names[1]}")
    settled(page)
    page.locator("#account-tournaments").click()
    page.wait_for_url(f"**/tournaments?account={made.names[1]}")
    settled(page)
    assert page.locator("section[data-status=running] tbody tr").count() == 0
    assert page.locator("section[data-status=running] .none").is_visible()
    finished = page.locator("section[data-status=finished] tbody tr")
    assert finished.count() == 1 and finished.get_attribute("data-tournament") == made.id
    finished.locator("a").first.click()
    page.wait_for_url(f"**/tournaments/{made.id}")
    settled(page)
    assert page.locator("#tournament-status").inner_text() == "finished"
    assert page.watched.errors == [] and page.watched.outside == []


def test_an_unknown_tournament_is_a_404_page(page: Page):
    answer = page.goto("/tournaments/nosuchtournament")
    assert answer is not None and answer.status == 404
    assert page.locator("h2").inner_text() == "No such tournament"


def test_on_a_small_phone_the_tournament_pages_fit_and_the_crosstable_scrolls_in_its_box(small_phone: Page,
                                                                                          made: Made):
    made.play_out()
    small_phone.goto(f"/tournaments/{made.id}")
    settled(small_phone)
    assert (problems := audit(small_phone)) == [], "\n".join(problems)
    box = small_phone.locator(".scroll-box")
    assert box.evaluate("(box) => box.getBoundingClientRect().right") <= 360
    box.focus()  # (the keyboard scrolls a box that is wider than the screen)
    assert focus_ring(small_phone) == []
    small_phone.goto(f"/tournaments?account={made.names[0]}")
    settled(small_phone)
    assert small_phone.locator("section[data-status=finished] tbody tr").count() == 1
    assert (problems := audit(small_phone)) == [], "\n".join(problems)
    assert small_phone.watched.errors == []


#: Each shown fact of a page's facts (dl.facts): its name, and how far its value's first words lie below and right of
#: where they should (the name's baseline; the left edge where the first fact's value starts), in CSS px.
FACTS = """() => {
  const words = (el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT, { acceptNode: (n) => n.textContent.trim() ? 1 : 3 });
    const range = document.createRange();
    range.selectNodeContents(walker.nextNode());
    return range.getClientRects()[0];
  };
  const facts = [...document.querySelectorAll("dl.facts dt")].filter((dt) => dt.checkVisibility()
    && dt.nextElementSibling.textContent.trim());
  const left = words(facts[0].nextElementSibling).left;
  return facts.map((dt) => [dt.textContent, Math.round(words(dt.nextElementSibling).bottom - words(dt).bottom),
    Math.round(words(dt.nextElementSibling).left - left)]);
}"""


#: Each shown fact whose value's words stand apart on a line by more than their spaces: its name, and how far apart
#: (in CSS px) the words of one of its value's text nodes end and the next one's start.
GAPS = """() => [...document.querySelectorAll("dl.facts dd")].filter((dd) => dd.checkVisibility()).flatMap((dd) => {
  const walker = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT, { acceptNode: (n) => n.textContent.trim() ? 1 : 3 });
  const boxes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = range.getClientRects();
    boxes.push([rects[0], rects[rects.length - 1]]);
  }
  return boxes.slice(1).map(([first], index) => [boxes[index][1], first])
    .filter(([end, start]) => Math.abs(end.top - start.top) < 2 && Math.round(start.left - end.right) > 1)
    .map(([end, start]) => [dd.previousElementSibling.textContent, Math.round(start.left - end.right)]);
})"""


def test_on_a_phone_a_tournaments_facts_each_read_on_one_line_beside_its_name(phone, made: Made):
    """A fact whose value is a link (the game's rules, the account that made it), 44 px tall to tap, lay 14 px below
    its name's line and 7 px right of the other values, the rules' link apart from its ", 2 to a table": each value
    now starts on its name's line, where the others start. The rules' link, a finger wide, left a blank before the
    words after it ("scat   , 2 to a table"): it stands alone in its fact now, the table's size in its own."""
    phone.goto(f"/tournaments/{made.id}")
    settled(phone)
    facts = phone.evaluate(FACTS)
    assert {name for name, _, _ in facts} >= {"Game", "At a table", "Made by", "Format"}
    assert all(abs(below) <= 1 and abs(right) <= 1 for _, below, right in facts), facts
    assert phone.evaluate(GAPS) == []
    assert audit(phone) == []
