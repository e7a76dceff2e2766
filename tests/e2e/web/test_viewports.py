"""Every page works from a 360 px phone, held upright or sideways, to a wide screen: no sideways scrolling, every
control inside the viewport and not covered (and on the touch screens, the phones and the tablet, tall enough to tap),
text contrast at least WCAG AA (see layout.py). Each page at each size is screenshotted into the artifacts
directory (CARDHALL_ARTIFACTS, else the session's temporary directory; the test prints where), failing or
not, for people to look at."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.web.conftest import Watched, settled, touch_page
from tests.e2e.web.layout import audit
from tests.e2e.web.test_play import eight_in_hand, seated_page, stacked_deck
from tests.e2e.web.test_tournaments_web import Made

VIEWPORTS = {"phone-360": (360, 740), "phone-390": (390, 844), "phone-844-sideways": (844, 390), "tablet-768": (768, 1024),
             "laptop-1440": (1440, 900)}
TOUCH = {"phone-360", "phone-390", "phone-844-sideways", "tablet-768"}  # (tapped: the audit wants their controls 44 by 44 px)


@pytest.fixture(params=list(VIEWPORTS))
def sized(request: pytest.FixtureRequest, browser: Browser, live_server: str, artifacts: Path):  # type: ignore[no-untyped-def]
    """A page at one of the four viewports, and a function that audits it and keeps its screenshot."""
    width, height = VIEWPORTS[request.param]
    context = browser.new_context(base_url=live_server, viewport={"width": width, "height": height},
                                  has_touch=request.param in TOUCH)
    context.set_default_timeout(10_000)
    opened = context.new_page()
    opened.watched = Watched(opened, live_server)  # type: ignore[attr-defined]

    def checked(what: str) -> list[str]:
        shot = artifacts / f"{what}-{request.param}.png"
        opened.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
        return audit(opened)

    yield opened, checked
    context.close()


def test_the_lobby_fits_every_screen(sized, api):
    page, checked = sized
    api.create("scat", 4)  # a waiting game: its row offers Join
    api.finished("craits", 2, short=True)
    page.goto("/")
    settled(page)
    page.wait_for_selector("#game-rows tr")
    assert (problems := checked("lobby")) == [], "\n".join(problems)
    assert page.watched.errors == []


#: Where the lobby's header lays out the words "Rules:" and the links after them, Craits and Scat: the [top, bottom] of
#: each, in CSS px.
RULES_LINKS = """() => {
  const nav = document.querySelector("header nav");
  const words = document.createTreeWalker(nav, NodeFilter.SHOW_TEXT);
  while (words.nextNode() && !words.currentNode.textContent.includes("Rules:"));
  const range = document.createRange();
  const at = words.currentNode.textContent.indexOf("Rules:");
  range.setStart(words.currentNode, at);
  range.setEnd(words.currentNode, at + "Rules:".length);
  const links = [...nav.querySelectorAll("a")].filter((link) => ["Craits", "Scat"].includes(link.textContent));
  return [range, ...links].map((part) => [part.getBoundingClientRect().top, part.getBoundingClientRect().bottom]);
}"""


def test_on_a_phone_the_lobbys_links_wrap_between_whole_items(upright_phone):
    """On a phone held upright the header's links broke between "Craits ·" and "Scat": they wrap between whole
    items (Tournaments, Rules: Craits · Scat, API docs), never within one."""
    upright_phone.goto("/")
    settled(upright_phone)
    rules, craits, scat = upright_phone.evaluate(RULES_LINKS)
    assert all(one[0] < other[1] and other[0] < one[1] for one, other in ((rules, craits), (craits, scat))), (rules, craits, scat)
    assert audit(upright_phone) == []


def test_on_a_phone_the_lobby_shows_start_the_game_on_the_first_screen(upright_phone, api):
    """Start the game lay below the list of games and the form's every option and seat, a screen or more down: the
    start form comes first, its seats and options folded away under their name and what they are unless changed
    (you in seat 0, greedy bots in the others), so that the game, the players, your name, the seats and options and
    the button to start all lie on the first screen."""
    page = upright_phone
    api.create("scat", 4)  # (a waiting game listed)
    page.goto("/")
    settled(page)
    page.wait_for_selector("#game-rows tr")
    shown = on_screen_to_tap(page, "#new-game > label > :is(select, input), #new-more > summary, #new-game > button")
    assert len(shown) == 5 and shown[-1] == "Start the game"
    page.click("#new-more > summary")  # (opened, the seats and options are there)
    assert page.is_visible("select[name='seat.1']") and page.is_visible("#new-options input")
    assert audit(page) == []
    assert page.watched.errors == []


def seated(page: Page, game_id: str, token: str) -> None:
    page.goto("/")
    page.evaluate("([key, kept]) => localStorage.setItem(key, JSON.stringify(kept))",
                  [f"cardhall.seat.{game_id}", {"seat": 0, "token": token, "name": "Ana"}])
    page.goto(f"/games/{game_id}")
    settled(page)


def test_a_players_table_with_its_moves_and_picker_fits_every_screen(sized, api):
    page, checked = sized
    game_id, token = eight_in_hand(api)
    seated(page, game_id, token)
    page.click("#hand button[data-card='8S']")  # the suit picker open too
    assert page.locator("#picker button").count() == 5
    assert (problems := checked("table-seated")) == [], "\n".join(problems)
    assert page.watched.errors == []


def test_a_finished_four_player_scat_table_fits_every_screen(sized, api):
    page, checked = sized
    game_id = api.finished("scat", 4)
    page.goto(f"/games/{game_id}")
    settled(page)
    assert page.locator(".result").count() == 1
    assert (problems := checked("table-finished")) == [], "\n".join(problems)
    page.keyboard.press("Home")
    settled(page, 1)
    assert audit(page) == []


def test_an_embedded_table_fits_every_screen(sized, api):
    page, checked = sized
    game_id = api.finished("craits", 3, short=True)
    page.goto(f"/games/{game_id}?embed=1&v=20")
    settled(page, 20)
    assert (problems := checked("table-embedded")) == [], "\n".join(problems)


def test_the_rules_pages_fit_every_screen(sized):
    page, checked = sized
    for game in ("craits", "scat"):
        page.goto(f"/rules/{game}")
        assert (problems := checked(f"rules-{game}")) == [], "\n".join(problems)


def test_a_table_between_two_hands_with_its_results_fits_every_screen(sized, api):
    page, checked = sized
    game_id = api.finished("scat", 4, seed=271)
    found = api.client.get(f"/games/{game_id}/events", params={"limit": 1000}).json()["events"]
    settled_at = next(event["version"] for event in found if event["type"] == "HandSettled")
    page.goto(f"/games/{game_id}?v={settled_at}")
    settled(page, settled_at)
    assert page.locator(".results li").count() == 4
    assert (problems := checked("table-results")) == [], "\n".join(problems)
    for line in page.locator(".results li").all():  # each player's words first, then their cards, on their line
        if line.locator(".cards").count():  # (a player out of the game shows none)
            words, cards = line.locator(":scope > span").bounding_box(), line.locator(".cards").bounding_box()
            assert words["y"] + words["height"] <= cards["y"] + 1 or words["x"] + words["width"] <= cards["x"] + 1


def test_a_waiting_table_with_its_join_and_invite_link_fits_every_screen(sized, api):
    page, checked = sized
    game_id = api.create("scat", 5)
    page.goto(f"/games/{game_id}")
    settled(page)
    assert page.locator("#seating .invite-link").count() == 1
    assert (problems := checked("table-waiting")) == [], "\n".join(problems)


def test_the_record_viewer_with_a_record_open_fits_every_screen(sized, api):
    page, checked = sized
    game_id = api.finished("craits", 2, short=True)
    page.goto("/replay")
    settled(page)
    page.fill("#record-text", json.dumps(api.client.get(f"/games/{game_id}/record").json()))
    page.click("#open")
    settled(page, 1)
    assert (problems := checked("replay")) == [], "\n".join(problems)


def test_the_tournaments_pages_and_an_accounts_page_fit_every_screen(sized, live_server):
    page, checked = sized
    made = Made(live_server)
    made.play_out()
    for what, path in (("tournaments", "/tournaments"), ("tournament", f"/tournaments/{made.id}"),
                       ("account", f"/accounts/{made.names[0]}")):
        page.goto(path)
        settled(page)
        assert (problems := checked(what)) == [], "\n".join(problems)
    assert page.watched.errors == []


LONG_NAMES = ("x" * 64, "y" * 64)  # (a name may be 64 characters, none of them a space)


def test_long_names_wrap_in_the_lobby_and_at_a_table_on_every_screen(sized, api):
    page, checked = sized
    game_id = api.create("scat", 2)
    for name in LONG_NAMES:
        api.join(game_id, name)
    page.goto("/")
    settled(page)
    page.wait_for_selector(f"#game-rows tr[data-game='{game_id}']")
    assert (problems := checked("lobby-long-names")) == [], "\n".join(problems)
    row = page.locator(f"#game-rows tr[data-game='{game_id}']")
    panel = page.locator(".panel:has(#game-rows)").bounding_box()
    watch = row.get_by_role("link").bounding_box()
    assert watch["x"] + watch["width"] <= panel["x"] + panel["width"]
    page.goto(f"/games/{game_id}")
    settled(page)
    assert page.locator(".dealer-draw").count() == 1 and "to act: " in page.inner_text(".table-facts")
    assert (problems := checked("table-long-names")) == [], "\n".join(problems)


def test_a_phones_browser_shows_every_page_at_the_phones_width(browser, live_server, api):
    """A mobile browser lays a page out as wide as its <meta name=viewport> says, and zooms out a page wider than
    that: each page keeps the phone's width (innerWidth is the layout's width, in CSS px)."""
    game_id = api.finished("craits", 2, short=True)
    account = f"mobile{uuid.uuid4().hex[:8]}"
    assert api.client.post("/accounts", json={"name": account, "kind": "person"}).status_code == 201
    context = browser.new_context(base_url=live_server, viewport={"width": 360, "height": 740}, device_scale_factor=3,
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    for path in ("/", f"/games/{game_id}", f"/games/{game_id}?embed=1", "/replay", "/rules/craits", "/rules/scat",
                 "/leaderboards/scat", f"/accounts/{account}", "/games/nothing-here", "/tournaments",
                 f"/tournaments?account={account}", "/tournaments/nothing-here"):
        page.goto(path)
        page.wait_for_load_state()
        assert page.locator("meta[name=viewport]").get_attribute("content") == "width=device-width, initial-scale=1"
        assert page.evaluate("[innerWidth, document.documentElement.scrollWidth]") == [360, 360], path
    context.close()


ON_SCREEN = """() => Object.fromEntries(Object.entries({ hand: "#hand .cards", piles: "#middle .middle-inner",
  move: "#actions button", seat0: ".seat[data-seat='0']", seat1: ".seat[data-seat='1']", seat2: ".seat[data-seat='2']" })
  .map(([what, selector]) => [what, document.querySelector(selector).getBoundingClientRect().toJSON()]))"""


def test_on_a_phone_a_seated_player_sees_the_piles_their_hand_and_a_move_without_scrolling(phone, api):
    """The other players' seats sit two to a row on a phone, below the player's own on a line of its own, so that
    three of them leave the first screen to the piles, the player's hand and the moves (one to a row, they pushed the
    hand a screen further down)."""
    game_id, token = ana_against_bots(api, "scat", 4)
    seated_page(phone, api, game_id, token)
    boxes, height = phone.evaluate(ON_SCREEN), phone.viewport_size["height"]
    assert boxes["seat1"]["top"] == boxes["seat2"]["top"] and boxes["seat0"]["bottom"] <= boxes["seat1"]["top"]
    assert boxes["piles"]["bottom"] <= height and boxes["hand"]["bottom"] <= height, (boxes, height)
    assert boxes["move"]["top"] + 44 <= height, (boxes, height)
    assert audit(phone) == []


@pytest.fixture
def sideways_phone(browser: Browser, live_server: str):  # type: ignore[no-untyped-def]
    """A fresh page on a phone held sideways: 844 by 390, touch."""
    yield from touch_page(browser, live_server, *VIEWPORTS["phone-844-sideways"])


def test_on_a_phone_held_sideways_a_seated_player_sees_the_piles_and_beside_them_their_hand_and_moves(sideways_phone, api):
    """A phone held sideways is too short for the seats, the piles, the hand and the moves one above the other (the
    hand lay under the seats and piles, 450 px down a screen 390 px high): the player's hand and moves lie beside
    the seats and piles, all of them on the first screen with five players."""
    game_id, token = ana_against_bots(api, "scat", 5)
    seated_page(sideways_phone, api, game_id, token)
    boxes, height = sideways_phone.evaluate(ON_SCREEN), sideways_phone.viewport_size["height"]
    beside = ("seat0", "seat1", "seat2", "piles")
    assert all(boxes[part]["right"] <= boxes["hand"]["left"] for part in beside), boxes
    assert all(boxes[part]["bottom"] <= height for part in ("piles", "hand", "move")), (boxes, height)
    on_the_first_screen(sideways_phone)


#: The first row of the seated player's hand and every other control to make a move (Scat's draws and knock, a
#: Craits player's draw), each as the page lays it out: [top, bottom] in CSS px from the top of the first screen; and
#: the cards of that row that a button to move covers (they keep to the foot of the screen, over the cards below).
CONTROLS = """() => {
  const cards = [...document.querySelectorAll("#hand .cards > .card")].map((card) => [card, card.getBoundingClientRect()]);
  const firstRow = cards.filter(([, box]) => box.top < cards[0][1].bottom);
  const buttons = [...document.querySelectorAll("#actions button")].map((button) => button.getBoundingClientRect());
  const over = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return { cards: firstRow.map(([, box]) => [box.top, box.bottom]),
           moves: buttons.map((box) => [box.top, box.bottom]),
           covered: firstRow.filter(([, box]) => buttons.some((button) => over(box, button)))
             .map(([card]) => card.dataset.card || card.getAttribute("aria-label")) };
}"""


@pytest.fixture(params=["phone-360", "phone-390", "phone-844-sideways"])
def held_phone(request: pytest.FixtureRequest, browser: Browser, live_server: str):  # type: ignore[no-untyped-def]
    """A fresh page on a phone held upright, the 360 by 740 one, then the 390 by 844 one; then on the latter held
    sideways (844 by 390)."""
    yield from touch_page(browser, live_server, *VIEWPORTS[request.param])


def craits_deck(players: int, held: list[str], up: str) -> list[str]:
    """A Craits deck dealing the eight cards ``held`` to the first dealer's left and turning up ``up``; the rest in a
    fixed order."""
    rest = [rank + suit for suit in "DHSC" for rank in "A23456789TJQK" if rank + suit not in (*held, up)]
    deal = [held[index // players] if index % players == 0 else rest.pop(0) for index in range(8 * players)]
    return [*deal, up, *rest]


def must_draw(players: int) -> list[str]:
    """A Craits deck dealing seat 0 (the first dealer's left) eight clubs and turning up the three of hearts: no card
    to play, so the player's one move is Draw, below two rows of cards on a phone."""
    return craits_deck(players, ["AC", "2C", "4C", "5C", "6C", "7C", "9C", "TC"], "3H")


@pytest.mark.parametrize(("game", "players", "stacked"), [
    ("craits", 2, False), ("craits", 3, False), ("craits", 4, False), ("craits", 4, True),
    ("scat", 2, False), ("scat", 3, False), ("scat", 4, False), ("scat", 5, False)])
def test_on_a_phone_the_player_to_act_sees_their_hand_and_moves_on_the_first_screen(held_phone, api, game, players, stacked):
    """Opened on their turn, a player's first row of cards and the buttons to move lie within the first screen: no
    scrolling to play (three players' Craits put the hand 7 px below a 360 by 740 phone's first screen; held sideways,
    any game put it under the seats and piles, 450 px down a screen 390 px high)."""
    options = {"decks": [must_draw(players)]} if stacked else {}
    game_id, token = ana_against_bots(api, game, players, **options)
    for _ in range(60):  # (an up-card may give the bots the first turns: the server plays them)
        if (view := api.view(game_id, token))["to_act"] == [0]:
            break
        api.client.get(f"/games/{game_id}/events", params={"after": view["version"], "limit": 1, "wait": 1})
    assert view["to_act"] == [0] and (not stacked or [move["type"] for move in view["legal_moves"]] == ["draw"])
    seated_page(held_phone, api, game_id, token)
    on_the_first_screen(held_phone, moves=game == "scat" or stacked)  # (Scat's draws, or Draw)


def ana_against_bots(api, game: str, players: int, **options: Any) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A game of ``players`` where seat 0 is Ana, who plays first (the last seat deals), and every other seat a greedy
    house bot: its id and Ana's token."""
    game_id = api.create(game, players, first_dealer=players - 1, **options)
    token = api.join(game_id, "Ana")
    for _ in range(players - 1):
        api.join(game_id, bot="greedy")
    return game_id, token


def on_the_first_screen(page: Page, moves: bool = True) -> None:
    """The seated player's first row of cards and (if ``moves``: there are some) their buttons to move lie within the
    first screen, none of those cards under a button, and the page passes the audit."""
    shown, height = page.evaluate(CONTROLS), page.viewport_size["height"]
    assert shown["cards"] and (shown["moves"] or not moves), shown
    assert all(top >= 0 and bottom <= height for top, bottom in shown["cards"] + shown["moves"]), (shown, height)
    assert shown["covered"] == [], (shown, height)
    assert audit(page) == []
    assert page.watched.errors == []


NAMES = ("Ana", "Bo", "Cy", "Di", "Ed")


def of_people(api, game: str, players: int, **options) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    """A game whose every seat a person took (no bot plays, nothing moves but what the test sends): its id, and the
    seats' tokens by seat."""
    game_id = api.create(game, players, **options)
    return game_id, [api.join(game_id, name) for name in NAMES[:players]]


def ten_up(players: int) -> list[str]:
    """A Scat deck turning up the ten of diamonds (the card after three to each of ``players``) for the first hand."""
    rest = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK" if rank + suit != "TD"]
    return [*rest[: 3 * players], "TD", *rest[3 * players :]]


@pytest.mark.parametrize(("players", "tie"), [(3, False), (5, True)])
def test_on_a_phone_the_first_dealers_draw_leaves_the_player_to_act_their_hand_and_moves_on_the_first_screen(
        held_phone, api, players, tie):
    """A fresh Scat game whose first dealer was drawn by cards shows the draw until the first move (for five, a
    tie drawn again: two rows of cards); the player to act still sees their cards and moves without scrolling.
    A ten turned up made the widest of the moves ("Take 10♦ from the discard pile"): on a 360 px phone the three
    moves ran to three rows, kept at the foot of the screen over the hand."""
    for _ in range(60):  # (five cards tie for the lowest about one time in seven)
        game_id, tokens = of_people(api, "scat", players, decks=[ten_up(players)])
        view = api.view(game_id)
        if len(view["state"]["dealer_draws"]) > 1 or not tie:
            break
    assert len(view["state"]["dealer_draws"]) > (1 if tie else 0), view["state"]
    seat = view["to_act"][0]
    seated_page(held_phone, api, game_id, tokens[seat], seat)
    assert held_phone.locator(".dealer-draw .draw-row").count() == len(view["state"]["dealer_draws"])
    on_the_first_screen(held_phone)


def scat_move(moves: list[dict]) -> dict:
    """A quick Scat hand: knock when allowed, else draw from the stock and discard the first card offered."""
    return next((move for move in moves if move["type"] == "knock"), next(
        (move for move in moves if move.get("source") == "stock"), moves[0]))


def craits_move(moves: list[dict]) -> dict:
    """A Craits round played out: a card if one can be played, else what else is offered (draw, or pass)."""
    return next((move for move in moves if move["type"] == "play"), moves[0])


def just_ended(api, game: str, players: int) -> tuple[str, list[str], int]:  # type: ignore[no-untyped-def]
    """A game of people played through its first hand (Scat) or round (Craits) to the next one's first turn: its
    id, the seats' tokens and the seat to act."""
    game_id, tokens = of_people(api, game, players, **({"short": True} if game == "craits" else {}))
    policy, ended = (scat_move, "hand_number") if game == "scat" else (craits_move, "round")
    for _ in range(400):
        seat = (view := api.view(game_id))["to_act"][0]
        if view["state"][ended] > 1:
            return game_id, tokens, seat
        api.move(game_id, tokens[seat], policy(api.view(game_id, tokens[seat])["legal_moves"]))
    raise AssertionError(f"the first hand of {game_id} did not end: {view}")


@pytest.mark.parametrize(("game", "players"), [("scat", 3), ("scat", 5), ("craits", 3), ("craits", 4)])
def test_on_a_phone_the_last_hands_results_leave_the_player_to_act_their_hand_and_moves_on_the_first_screen(
        held_phone, api, game, players):
    """Between two hands (Scat: each player's cards, worth and lives) or two rounds (Craits: the scores) the results
    stay shown until the next move; the player to act still sees their cards and moves without scrolling."""
    game_id, tokens, seat = just_ended(api, game, players)
    seated_page(held_phone, api, game_id, tokens[seat], seat)
    assert held_phone.locator(".results li").count() == players
    on_the_first_screen(held_phone, moves=game == "scat")


def test_a_plain_badge_on_the_players_own_seat_is_readable(small_phone, api):
    """The player's own seat is lighter than the others': its plain badges (here "dealer") are darker there, so that
    their white words keep WCAG AA's contrast (4.26 to 1 where the player dealt)."""
    game_id = api.create("craits", 2, short=True, first_dealer=0)  # (seat 0, Ana, deals)
    token = api.join(game_id, "Ana")
    api.join(game_id, bot="greedy")
    seated_page(small_phone, api, game_id, token)
    assert small_phone.locator(".seat.mine .badge.dealer").count() == 1
    assert audit(small_phone) == []


#: Each element ``selector`` names, as the page lays it out: what it says (its name), its box in CSS px from the top
#: left of the first screen, and whether a tap at its centre reaches it (nothing lies over it).
TAPPABLE = """(selector) => [...document.querySelectorAll(selector)].map((el) => {
  const box = el.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return { said: el.getAttribute("aria-label") || el.textContent, top: box.top, bottom: box.bottom, left: box.left,
           right: box.right, reached: el.contains(hit) };
})"""


def on_screen_to_tap(page: Page, selector: str) -> list[str]:
    """What the elements ``selector`` names say, once checked to lie within the first screen, none under anything."""
    shown, width, height = page.evaluate(TAPPABLE, selector), page.viewport_size["width"], page.viewport_size["height"]
    assert shown and all(choice["top"] >= 0 and choice["bottom"] <= height and choice["left"] >= 0
                         and choice["right"] <= width and choice["reached"] for choice in shown), (shown, width, height)
    assert page.evaluate("scrollY") == 0
    return [choice["said"] for choice in shown]


#: The focused element's name.
FOCUSED = "() => document.activeElement.getAttribute('aria-label') || document.activeElement.textContent"
SUITS = ("clubs", "diamonds", "hearts", "spades")
EIGHT = ["8S", "KD", "QC", "JC", "TC", "7C", "6C", "5C"]  # (the eight of spades to play, among two rows of cards)


@pytest.mark.parametrize("players", [2, 4])
def test_on_a_phone_an_eights_every_suit_and_cancel_lie_on_the_first_screen(held_phone, api, players):
    """A player who taps an eight sees every suit it may name and Cancel without scrolling, keeping to the foot of the
    screen over the cards below the first row (one to a line, they ran 150 px below a 360 by 740 phone's first screen
    and 120 px below a sideways one's); the keyboard's focus is on the first suit, and Cancel hands it back to the
    eight."""
    game_id, tokens = of_people(api, "craits", players, first_dealer=players - 1,
                                decks=[craits_deck(players, EIGHT, "3H")])  # (seat 0, Ana, plays first)
    seated_page(held_phone, api, game_id, tokens[0])
    held_phone.click("#hand button[data-card='8S']")
    assert on_screen_to_tap(held_phone, "#picker button") == [f"Play 8♠ and name {suit}" for suit in SUITS] + ["Cancel"]
    assert held_phone.evaluate(FOCUSED) == "Play 8♠ and name clubs"
    assert audit(held_phone) == []
    held_phone.get_by_role("button", name="Cancel").click()
    assert held_phone.is_hidden("#picker") and held_phone.evaluate("document.activeElement.dataset.card") == "8S"
    assert held_phone.watched.errors == []


NINE = ["9S", *EIGHT[1:]]  # (the nine of spades to play on the three of spades, among two rows of cards)


@pytest.mark.parametrize("players", [2, 4])
def test_on_a_phone_a_nines_choice_says_keep_its_suit_or_switch_to_the_other_of_its_colour_on_the_first_screen(
        held_phone, api, players):
    """A player who taps a nine chooses to keep its suit or switch to the other of its colour (C10), read as an
    eight's suits are: "Play 9♠ and" said once, then "keep spades", "switch to clubs" and Cancel, each a button 44 px
    tall on the first screen (a phone showed "Play" and then "9♠" beside "9♠ and name clubs": the nine's own suit
    went unsaid and the play's words were cut in two). Escape closes it, the focus back on the nine."""
    game_id, tokens = of_people(api, "craits", players, first_dealer=players - 1,
                                decks=[craits_deck(players, NINE, "3S")])  # (seat 0, Ana, plays first)
    seated_page(held_phone, api, game_id, tokens[0])
    held_phone.click("#hand button[data-card='9S']")
    names = ["Play 9♠ and keep spades", "Play 9♠ and switch to clubs", "Cancel"]
    assert on_screen_to_tap(held_phone, "#picker button") == names
    said = held_phone.evaluate("getComputedStyle(document.querySelector('#picker'), '::before').content")
    assert said == '"Play 9♠ and "'
    assert held_phone.locator("#picker button").all_inner_texts() == ["keep spades", "switch to clubs", "Cancel"]
    assert all(box["height"] >= 44 for box in (button.bounding_box() for button in held_phone.locator("#picker button").all()))
    assert held_phone.evaluate(FOCUSED) == "Play 9♠ and keep spades"
    assert audit(held_phone) == []
    held_phone.keyboard.press("Escape")
    assert held_phone.is_hidden("#picker") and held_phone.evaluate("document.activeElement.dataset.card") == "9S"
    held_phone.click("#hand button[data-card='9S']")
    held_phone.get_by_role("button", name="Play 9♠ and switch to clubs").click()
    settled(held_phone)
    assert api.view(game_id)["state"]["active_suit"] == "C"
    assert held_phone.watched.errors == []


def test_on_a_phone_an_eight_played_as_the_last_card_but_one_offers_its_suits_once_and_a_box_to_announce(held_phone, api):
    """An eight that leaves its player one card may be played announcing it or not (C12): the suits are offered once,
    with a box to tick, "Also announce one card", all on the first screen (each suit was offered twice, one button to
    a line: eight buttons and Cancel ran 4 px below a 390 by 844 phone's first screen and 130 px below a sideways
    one's). Ticked, each suit's name says it announces too, and the play it makes does."""
    run = ["6H", "6D", "6S", "6C", "4C", "4S"]  # (Ana's sixes and fours give her turn after turn: C10, two players)
    game_id = api.create("craits", 2, short=True, first_dealer=1, decks=[stacked_deck(first=[*run, "8S", "QH"], up="3H")])
    ana, _ = api.join(game_id, "Ana"), api.join(game_id, "Bo")
    for card in run:
        api.move(game_id, ana, {"type": "play", "card": card})
    seated_page(held_phone, api, game_id, ana)
    held_phone.click("#hand button[data-card='8S']")
    assert on_screen_to_tap(held_phone, "#picker button") == [f"Play 8♠ and name {suit}" for suit in SUITS] + ["Cancel"]
    assert on_screen_to_tap(held_phone, "#picker label") == ["Also announce one card"]
    assert audit(held_phone) == []
    held_phone.get_by_label("Also announce one card").check()
    assert held_phone.is_visible("#picker") and held_phone.evaluate("document.activeElement.name") == "announce"
    named = held_phone.locator("#picker button").first.get_attribute("aria-label")
    assert named == "Play 8♠ and name clubs and announce one card"
    held_phone.get_by_role("button", name="Play 8♠ and name hearts and announce one card").click()
    settled(held_phone)
    state = api.view(game_id)["state"]
    assert state["active_suit"] == "H" and state["announced"] == [0]
    assert held_phone.watched.errors == []


@pytest.mark.parametrize("players", [2, 5])
def test_on_a_phone_the_dealer_naming_the_up_cards_suit_sees_every_suit_on_the_first_screen(held_phone, api, players):
    """The dealer who turned up an eight names its suit (C6) from the buttons to move, all four on the first screen
    (as they were before the eight's own choice was: the buttons to move keep to the foot of the screen)."""
    game_id, tokens = of_people(api, "craits", players, first_dealer=0, decks=[craits_deck(players, EIGHT, "8H")])
    seated_page(held_phone, api, game_id, tokens[0])
    assert on_screen_to_tap(held_phone, "#actions button") == [f"Choose {suit}" for suit in SUITS]
    assert audit(held_phone) == []
    assert held_phone.watched.errors == []


@pytest.mark.parametrize("players", [2, 5])
def test_on_a_phone_the_dealer_who_turned_up_a_nine_keeps_its_suit_or_switches_on_the_first_screen(held_phone, api, players):
    """The dealer who turned up a nine keeps its suit or switches to the other of its colour (C6, C10), said so, as a
    nine played is: "Keep spades", "Switch to clubs" (it was "Choose spades" and "Choose clubs", as if any suit could
    be named, the nine's own not told apart), both on the first screen."""
    game_id, tokens = of_people(api, "craits", players, first_dealer=0, decks=[craits_deck(players, EIGHT, "9S")])
    seated_page(held_phone, api, game_id, tokens[0])
    assert on_screen_to_tap(held_phone, "#actions button") == ["Keep spades", "Switch to clubs"]
    assert audit(held_phone) == []
    held_phone.get_by_role("button", name="Switch to clubs").click()
    settled(held_phone)
    assert api.view(game_id)["state"]["active_suit"] == "C"
    assert held_phone.watched.errors == []


@pytest.mark.parametrize(("game", "verb"), [("scat", "discard"), ("craits", "play")])
def test_on_a_phone_the_player_to_act_is_told_in_words_what_to_do_with_the_cards_raised(held_phone, api, game, verb):
    """A Scat player who drew saw four cards raised, and nothing said what to do with them (nor did a Craits player's
    raised cards say they are to play): the hand's title says so on one line, "Your hand: choose a card to discard",
    and only while cards are to be chosen."""
    # (Craits: Ana holds the eight of spades over the three of hearts, a card to play whatever the deal)
    game_id, token = ana_against_bots(api, game, 4, **({"decks": [craits_deck(4, EIGHT, "3H")]} if game == "craits" else {}))
    for _ in range(60):  # (an up-card may give the bots the first turns: the server plays them)
        if (view := api.view(game_id, token))["to_act"] == [0]:
            break
        api.client.get(f"/games/{game_id}/events", params={"after": view["version"], "limit": 1, "wait": 1})
    if game == "scat":
        api.move(game_id, token, {"type": "draw", "source": "stock"})
    seated_page(held_phone, api, game_id, token)
    title = held_phone.locator("#hand .hand-title")
    assert title.inner_text() == f"Your hand: choose a card to {verb}"
    assert title.evaluate("(el) => el.getClientRects().length === 1 && el.getBoundingClientRect().height < 30")
    on_the_first_screen(held_phone, moves=False)
    held_phone.locator("#hand button.card").first.click()
    if game == "craits" and held_phone.is_visible("#picker"):
        held_phone.locator("#picker button").first.click()
    for _ in range(50):  # (after the move the bots' turns, as the server plays them: until the page shows the last)
        held_phone.wait_for_timeout(200)
        if held_phone.get_attribute("body", "data-version") == str(api.view(game_id)["version"]):
            break
    settled(held_phone)
    raised, said = held_phone.evaluate("""() => [document.querySelectorAll("#hand button.card").length,
      document.querySelector("#hand .hand-title").textContent]""")  # (at one moment: a redraw may come between two)
    assert said == (f"Your hand: choose a card to {verb}" if raised else "Your hand"), (said, raised)


def scat_deck(players: int, held: list[str]) -> list[str]:
    """A Scat deck dealing the three cards ``held`` to the first dealer's left; the rest in a fixed order."""
    rest = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK" if rank + suit not in held]
    return [held[index // players] if index % players == 0 else rest.pop(0) for index in range(3 * players)] + rest


@pytest.mark.parametrize(("game", "players"), [("craits", 4), ("craits", 5), ("scat", 4), ("scat", 5)])
def test_on_a_phone_held_sideways_a_long_headline_leaves_the_piles_on_the_first_screen(sideways_phone, api, game, players):
    """Held sideways, with four or five players (two rows of seats), a headline longer than a line keeps to one line,
    cut short (the log says it all), and the table's facts beside the piles are a line each: the piles, the hand and
    the moves all lie on the first screen (the headline's two or three lines put the piles 30 to 50 px below it;
    Craits' facts, five lines, 12 px with a headline of one)."""
    if game == "craits":  # Ana's two starts a crank: the headline says what a two does
        game_id, tokens = of_people(api, "craits", players, first_dealer=players - 1,
                                    decks=[craits_deck(players, ["2S", *EIGHT[1:]], "3S")])
        api.move(game_id, tokens[0], {"type": "play", "card": "2S"})
    else:  # Ana is dealt 31 and declares it: the hand is settled, everyone else losing a life, and the next dealt
        game_id, tokens = of_people(api, "scat", players, first_dealer=players - 1,
                                    decks=[scat_deck(players, ["AS", "KS", "QS"]), scat_deck(players, ["2C", "3D", "4H"])])
        api.move(game_id, tokens[0], {"type": "declare_31"})
    seat = api.view(game_id)["to_act"][0]
    seated_page(sideways_phone, api, game_id, tokens[seat], seat)
    assert len(sideways_phone.inner_text("#headline")) > 80  # (wider than the left column, 490 px)
    piles, height = sideways_phone.locator("#middle .middle-inner").bounding_box(), sideways_phone.viewport_size["height"]
    assert piles["y"] + piles["height"] <= height, (piles, height)
    on_the_first_screen(sideways_phone, moves=game == "scat")  # (Scat's draws; Craits' answers to the crank are cards)
