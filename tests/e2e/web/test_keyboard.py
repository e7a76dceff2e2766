"""Playing with the keyboard alone: each move is reached with Tab and made with Enter, and when the table is drawn
anew (a move made, the game moving on, a version followed from the log) the focus stays where the keyboard was
rather than falling back to the page's start."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.web.conftest import settled
from tests.e2e.web.test_lobby import two_pages_of_waiting_games
from tests.e2e.web.test_play import eight_in_hand, seated_page
from tests.e2e.web.test_viewports import EIGHT, craits_deck, of_people

FOCUSED = """() => { const el = document.activeElement;
  return el === document.body ? "the page" : el.dataset.card || el.id || el.getAttribute("aria-label") || el.textContent; }"""


def focused(page: Page) -> str:
    """The focused element: its card, else its id, name or text; "the page" when nothing has the focus."""
    return page.evaluate(FOCUSED)


def tab_to(page: Page, selector: str, most: int = 40) -> None:
    """Press Tab until the element ``selector`` names has the focus."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("(selector) => document.activeElement.matches(selector)", selector):
            return
    raise AssertionError(f"{selector} was not reached with Tab; the focus is on {focused(page)}")


def test_a_move_is_made_from_the_keyboard_and_the_focus_stays_at_the_hand(page, api):
    game_id, token = eight_in_hand(api)
    seated_page(page, api, game_id, token)
    tab_to(page, "#hand button[data-card='8S']")
    page.keyboard.press("Enter")  # the suit picker opens with the focus on its first suit
    assert focused(page) == "Play 8♠ and name clubs"
    tab_to(page, "#picker button:last-child")
    page.keyboard.press("Enter")  # Cancel: the focus goes back to the eight
    assert page.is_hidden("#picker") and focused(page) == "8S"
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # (the 8 played, clubs named)
    page.wait_for_function("() => document.body.dataset.busy === 'false' && !document.querySelector('#hand [data-card=\"8S\"]')")
    settled(page)
    assert focused(page) == "you"  # (the eight is gone: its part of the table has the focus, not the page)
    page.wait_for_function("() => document.querySelector('#hand button.card, #actions button')")  # the bot has played
    assert focused(page) == "you"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.matches('#hand button.card, #actions button')")


def test_following_a_version_from_the_log_keeps_the_focus_on_its_entry(page, api):
    game_id = api.finished("craits", 2, short=True)
    page.goto(f"/games/{game_id}?v=12")
    settled(page, 12)
    tab_to(page, "#log a[aria-label='version 9']")
    page.keyboard.press("Enter")
    settled(page, 9)
    assert focused(page) == "version 9"
    page.keyboard.press("Tab")
    assert focused(page) == "version 8"


def test_a_name_being_typed_to_join_a_game_stays_typed_as_others_take_their_seats(page, api):
    game_id = api.create("scat", 3)
    page.goto(f"/games/{game_id}")
    settled(page)
    field = page.locator("#seating form.join input[name=name]")
    field.click()
    page.keyboard.type("Ze")
    api.join(game_id, "Amy")  # (the seating is drawn anew with the seat taken)
    page.wait_for_function("() => [...document.querySelectorAll('#seats .seat-name')].some((s) => s.textContent.includes('Amy'))")
    page.keyboard.type("d")
    assert field.input_value() == "Zed" and focused(page) == "Your name, to join this game"


def test_escape_closes_an_eights_suit_choice_and_hands_the_focus_back_to_the_eight(page, api):
    """A keyboard user who opened an eight's suit choice by mistake presses Escape, as any choice is closed: the
    choice stayed open, its first suit focused, and only Tab past every suit to Cancel closed it."""
    game_id, token = eight_in_hand(api)
    seated_page(page, api, game_id, token)
    tab_to(page, "#hand button[data-card='8S']")
    page.keyboard.press("Enter")
    assert page.is_visible("#picker") and focused(page) == "Play 8♠ and name clubs"
    page.keyboard.press("Tab")  # (on another suit: Escape closes from any of them)
    page.keyboard.press("Escape")
    assert page.is_hidden("#picker") and focused(page) == "8S"
    assert api.view(game_id, token)["version"] == int(page.get_attribute("body", "data-version"))  # (nothing played)
    page.keyboard.press("Enter")  # the choice opens again from the eight
    assert page.is_visible("#picker") and focused(page) == "Play 8♠ and name clubs"
    page.keyboard.press("Shift+Tab")  # (back in the hand, the choice still open: Escape closes it from there too)
    assert page.evaluate("document.activeElement.matches('#hand button.card')") and page.is_visible("#picker")
    page.keyboard.press("Escape")
    assert page.is_hidden("#picker") and focused(page) == "8S"


def test_joining_a_waiting_table_from_the_keyboard_keeps_the_focus_in_the_seating_without_reloading_the_page(page, api):
    """A visitor who types a name and presses Enter to join takes the seat and stays where the keyboard was, in the
    seating, its Abort button next to Tab: the page reloaded, sending the focus (and a screen reader) back to the page's
    start, above the whole table."""
    game_id = api.create("scat", 3)
    page.goto(f"/games/{game_id}")
    settled(page)
    page.evaluate("window.notReloaded = true")
    field = page.locator("#seating form.join input[name=name]")
    field.fill("Zed")
    field.press("Enter")
    page.wait_for_selector("#seats .seat.mine")
    settled(page)
    assert page.evaluate("window.notReloaded") is True
    assert "Zed (you)" in page.inner_text("#seats .seat.mine")
    assert focused(page) == "seating"
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # (past the invite link's field and its Copy button)
    page.keyboard.press("Tab")
    assert focused(page) == "Abort the game"


def test_paging_the_lobby_to_its_last_page_and_back_keeps_the_focus_on_the_pager(page, api):
    """Next page pressed onto the last page (or First page onto the first) is disabled: the focus fell back to the
    page's start, and a keyboard user had to Tab through the header, the filters and every row to page back. It goes
    to the pager's other button (as on the leaderboard's and the tournaments' pagers, made alike)."""
    two_pages_of_waiting_games(page, api)
    tab_to(page, "#next-page", most=200)
    for _ in range(20):
        page.keyboard.press("Enter")
        settled(page)
        if page.is_disabled("#next-page"):
            break
        assert focused(page) == "next-page"
    assert page.is_disabled("#next-page") and focused(page) == "first-page"
    page.keyboard.press("Enter")
    settled(page)
    assert page.is_disabled("#first-page") and focused(page) == "next-page"


def test_on_a_phone_tab_goes_from_the_header_through_the_start_form_to_start_the_game_without_scrolling(upright_phone):
    """The lobby's start form comes first, in the order it is shown: from the header's links, Tab goes to the game,
    the players, your name, the seats and options (Enter opens them) and Start the game, all on the first screen
    (it went through the filters and every listed game's row first, to a form below them)."""
    page = upright_phone
    page.goto("/")
    settled(page)
    reached = []
    while focused(page) != "Start the game" and len(reached) < 12:
        page.keyboard.press("Tab")
        reached.append(focused(page).split(" Unless")[0])  # (the seats and options' summary, its first words)
    assert reached == ["Cardhall", "Tournaments", "Craits", "Scat", "API docs", "new-game-type", "new-players",
                       "new-name", "Seats and options", "Start the game"]
    assert page.evaluate("scrollY") == 0
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "seat.0"


def test_resigning_or_aborting_from_the_keyboard_keeps_the_focus_on_the_table(page, api):
    """Resign (or Abort the game) pressed and confirmed, the seating that held it is hidden, having nothing left to
    offer: the focus fell back to the page's start. It goes to the first part of the table still shown, the
    player's own."""
    page.on("dialog", lambda dialog: dialog.accept())
    running = api.create("craits", 2, short=True, first_dealer=1)
    ana = api.join(running, "Ana")
    api.join(running, "Bo")
    waiting = api.create("scat", 3)
    for game_id, token, button in ((running, ana, "Resign"), (waiting, api.join(waiting, "Ana"), "Abort the game")):
        seated_page(page, api, game_id, token)
        tab_to(page, "#seating .leave button")
        assert focused(page) == button
        page.keyboard.press("Enter")
        page.wait_for_selector("#seating", state="hidden")
        settled(page)
        assert focused(page) == "you", button
    assert api.summary(running)["seats"][0]["bot_since"] and api.summary(waiting)["status"] == "aborted"


def test_arrow_keys_in_the_players_hand_go_from_card_to_move_and_leave_the_table_at_the_latest_version(page, api):
    """← and → (and Home, End) step the timeline where the focus is anywhere else; in the player's hand they stepped
    it too, from under the hand: ← on a card showed the version before, its cards no longer to play and the focus off
    them. There they go from one card or move to the next, the table staying live."""
    game_id, tokens = of_people(api, "craits", 2, first_dealer=1, decks=[craits_deck(2, EIGHT, "7S")])
    seated_page(page, api, game_id, tokens[0])
    latest = page.get_attribute("body", "data-version")
    playable = page.locator("#you button").evaluate_all("all => all.map(b => b.dataset.card || b.textContent)")
    assert playable == ["8S", "7C"]  # (the eight, and the seven of clubs on the seven of spades)
    tab_to(page, f"#hand button[data-card='{playable[0]}']")
    page.keyboard.press("ArrowRight")
    assert focused(page) == playable[1]
    page.keyboard.press("End")
    assert focused(page) == playable[-1]
    page.keyboard.press("ArrowLeft")
    assert focused(page) == playable[-2]
    page.keyboard.press("Home")
    assert focused(page) == playable[0]
    page.keyboard.press("ArrowLeft")
    assert focused(page) == playable[0]
    settled(page)
    assert page.get_attribute("body", "data-version") == latest and "live" in page.inner_text("#position")
    page.keyboard.press("Tab")  # (out of the hand, the keys step the timeline as before)
    while page.evaluate("document.getElementById('you').contains(document.activeElement)"):
        page.keyboard.press("Tab")
    page.keyboard.press("ArrowLeft")
    settled(page, int(latest) - 1)
