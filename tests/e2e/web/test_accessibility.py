"""Every interactive element and every card has an accessible name (as Chromium's accessibility tree computes it), and
every control the keyboard reaches shows where the focus is."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.web.conftest import settled
from tests.e2e.web.layout import focus_ring
from tests.e2e.web.test_play import eight_in_hand, seated_page

INTERACTIVE = {"button", "link", "textbox", "spinbutton", "combobox", "checkbox", "slider", "radio", "listbox",
               "option", "menuitem", "tab", "switch", "searchbox"}


def unnamed(page: Page) -> list[str]:
    """The interactive elements and images (cards are images or buttons) without a name."""
    session = page.context.new_cdp_session(page)
    nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    session.detach()
    missing = []
    for node in nodes:
        role = node.get("role", {}).get("value")
        if node.get("ignored") or role not in INTERACTIVE | {"img", "image"}:
            continue
        if not str(node.get("name", {}).get("value", "")).strip():
            missing.append(f"{role} (backend node {node.get('backendDOMNodeId')})")
    return missing


def card_labels(page: Page) -> list[str | None]:
    return page.locator("[data-card], .card").evaluate_all("cards => cards.map(card => card.getAttribute('aria-label'))")


def test_the_lobby_names_every_control(page, api):
    api.create("scat", 4)  # a waiting game: its row has a join form
    page.goto("/")
    settled(page)
    assert page.locator(".join input").count() >= 1
    assert unnamed(page) == []


def test_a_players_table_names_every_card_move_and_control(page, api):
    game_id, token = eight_in_hand(api)
    seated_page(page, api, game_id, token)
    page.click("#hand button[data-card='8S']")  # the suit picker open too
    assert page.locator("#picker button").count() == 5
    assert unnamed(page) == []
    labels = card_labels(page)
    assert len(labels) > 10
    assert all(labels)
    assert page.get_attribute("#hand button[data-card='8S']", "aria-label") == "8 of spades: choose how to play it"


def test_a_finished_games_table_names_every_card_and_control(page, api):
    game_id = api.finished("scat", 3)
    page.goto(f"/games/{game_id}?v=12")
    settled(page, 12)
    assert unnamed(page) == []
    assert all(card_labels(page))
    page.keyboard.press("End")
    settled(page)
    assert unnamed(page) == []


def test_an_empty_piles_slot_is_named_as_empty(page, api):
    game_id = api.finished("scat", 3)
    page.goto(f"/games/{game_id}?v=4")  # (created, three seats taken: nothing dealt yet, every pile empty)
    settled(page, 4)
    empty = page.locator(".pile .card.empty")
    assert empty.count() >= 1
    assert all(label.endswith(": empty") for label in empty.evaluate_all("slots => slots.map(s => s.getAttribute('aria-label'))"))
    assert unnamed(page) == []


REACHABLE = """() => [...document.querySelectorAll("a[href], button, input, select, textarea, summary")]
  .filter((el) => !el.disabled && el.checkVisibility({ visibilityProperty: true })).length"""


def rings_tabbed_through(page: Page) -> list[str]:
    """Tab once round the page, each control the keyboard reaches checked for its focus ring: what is wrong, in words."""
    problems = []
    for _ in range(page.evaluate(REACHABLE) + 1):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement !== document.body"):
            problems += focus_ring(page)
    return problems


def test_every_control_the_keyboard_reaches_shows_a_focus_ring_that_stands_out(page, api):
    api.create("scat", 4)  # a waiting game: its row has a join form
    page.goto("/")
    settled(page)
    page.wait_for_selector("#game-rows .join")
    assert rings_tabbed_through(page) == []
    game_id, token = eight_in_hand(api)
    seated_page(page, api, game_id, token)
    page.click("#hand button[data-card='8S']")  # the suit picker open too
    assert rings_tabbed_through(page) == []
    page.goto("/rules/scat")
    assert rings_tabbed_through(page) == []
