"""The lobby: games to watch and join, paged; everything it needs comes from the server itself."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.web.conftest import settled
from tests.e2e.web.layout import audit


def test_the_lobby_loads_with_no_console_errors_and_no_request_leaving_the_server(page, api):
    api.create("scat", 2)
    page.goto("/")
    settled(page)
    page.wait_for_load_state("networkidle")
    assert page.locator("#game-rows tr").count() >= 1
    assert page.locator("#new-game-type option").all_inner_texts() == ["Craits", "Scat (31)"]
    assert page.watched.errors == []
    assert page.watched.outside == []


def test_the_start_form_offers_each_games_options_and_player_range(page):
    page.goto("/")
    settled(page)
    page.select_option("#new-game-type", "scat")
    assert page.get_attribute("#new-players", "max") == "9"
    offered = page.locator("#new-options input").evaluate_all("inputs => inputs.map(input => input.name)")
    assert {"option.lives", "option.three_of_a_kind", "option.straight_flush", "option.min_knock",
            "option.throw_down"} <= set(offered)
    page.fill("#new-players", "4")
    page.dispatch_event("#new-players", "input")
    assert page.locator("#new-seats select[name^=seat]").count() == 4


def test_joining_a_waiting_game_by_name_keeps_the_token_in_this_browser_never_in_a_url(page, api):
    game_id = api.create("scat", 2)
    page.goto("/")
    settled(page)
    row = page.locator(f"#game-rows tr[data-game='{game_id}']")
    row.locator("input[name=name]").fill("Dee")
    row.locator("button", has_text="Join").click()
    page.wait_for_url(f"**/games/{game_id}")
    settled(page)
    assert page.inner_text("#seats .seat.mine .seat-name") == "Dee (you)"
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('cardhall.seat.{game_id}'))")
    assert kept["seat"] == 0
    assert kept["token"] not in page.url
    summary = api.summary(game_id)
    assert summary["seats"][0]["name"] == "Dee"


def test_open_seats_before_a_bot_are_refused_by_the_form_and_nothing_is_created(page, api):
    before = api.client.get("/games", params={"limit": 100}).json()["games"]
    page.goto("/")
    settled(page)
    page.fill("#new-name", "Eve")
    page.click("#new-more > summary")  # (the seats and options, shown)
    page.select_option("select[name='seat.0']", "open")
    page.select_option("select[name='seat.1']", "greedy")
    page.click("text=Start the game")
    assert "open seats must come last" in page.inner_text("#problem")
    assert api.client.get("/games", params={"limit": 100}).json()["games"][:1] == before[:1]
    page.select_option("select[name='seat.0']", "me")  # (mended: what was said of the form no longer stands)
    assert page.locator("#problem").is_hidden()


def two_pages_of_waiting_games(page, api) -> None:  # type: ignore[no-untyped-def]
    """21 waiting games made, the lobby opened and filtered to the waiting ones: a page of 20 and a page of one."""
    for _ in range(21):
        api.create("craits", 5)
    page.goto("/")
    settled(page)
    page.select_option("#filters select[name=status]", "waiting")
    settled(page)


def test_the_games_are_paged_and_filtered(page, api):
    two_pages_of_waiting_games(page, api)
    first = page.locator("#game-rows tr").evaluate_all("rows => rows.map(row => row.dataset.game)")
    assert len(first) == 20
    page.click("#next-page")
    settled(page)
    second = page.locator("#game-rows tr").evaluate_all("rows => rows.map(row => row.dataset.game)")
    assert second and not set(second) & set(first)
    assert all(status == "waiting" for status in page.locator("#game-rows tr td:nth-child(3)").all_inner_texts())
    page.click("#first-page")
    settled(page)
    assert page.locator("#game-rows tr").evaluate_all("rows => rows.map(row => row.dataset.game)") == first


def test_finished_games_are_listed_only_when_asked_for(page, api):
    finished = api.finished("craits", 2, short=True)
    waiting = api.create("craits", 3)
    page.goto("/")
    settled(page)
    listed = lambda: page.locator("#game-rows tr").evaluate_all("rows => rows.map(row => row.dataset.game)")  # noqa: E731
    assert waiting in listed() and finished not in listed()
    assert set(page.locator("#game-rows td[data-label=Status]").all_inner_texts()) <= {"waiting", "active"}
    for asked in ("finished", "any"):
        page.select_option("#filters select[name=status]", asked)
        settled(page)
        assert finished in listed()


def test_copying_a_games_invite_link_in_the_lobby_is_said_as_a_status(page, api):
    """Copy invite link, pressed, changed its own words to "Invite link copied", which a screen reader never said: the
    button's name is its label, which did not change. What became of it is now a status beside it, said as it
    changes, and the link is on the clipboard."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game_id = api.create("scat", 4)
    page.goto("/")
    settled(page)
    row = page.locator(f"#game-rows tr[data-game='{game_id}']")
    copy = row.get_by_role("button", name=f"Copy the invite link of game {game_id[:8]}")
    status = row.get_by_role("status")
    assert status.inner_text() == ""
    copy.focus()
    page.keyboard.press("Enter")
    expect(status).to_have_text("Invite link copied")
    assert page.evaluate("navigator.clipboard.readText()").endswith(f"/games/{game_id}")


#: Each field of the start form's options and seats that has a description: its name, the text its aria-describedby
#: names, and whether that text lies on the screen (scrolled to) under its field.
DESCRIBED = """() => [...document.querySelectorAll("#new-options :is(input, select), #new-seats select[name^=option]")]
  .map((field) => {
    const hint = document.getElementById(field.getAttribute("aria-describedby"));
    hint?.scrollIntoView({ block: "center" });
    const [at, said] = [field.getBoundingClientRect(), hint?.getBoundingClientRect()];
    return [field.name, hint?.textContent ?? null, Boolean(said && said.height > 0 && said.top >= at.top
      && said.bottom <= innerHeight && hint.checkVisibility())];
  })"""


def test_on_a_phone_the_start_forms_options_each_say_what_they_do_under_their_field(phone, api):
    """What an option does ("short": the first 8 rounds only; "min knock": what a knock needs) was the title of its
    label, shown only to a mouse held over it: a phone, a keyboard and a screen reader got the name alone. Each says
    it in words under its field, and it is the field's description."""
    phone.goto("/")
    settled(phone)
    phone.click("#new-more > summary")
    types = {kind["game"]: kind["options"] for kind in api.client.get("/game-types").json()["game_types"]}
    for game in ("craits", "scat"):
        phone.select_option("#new-game-type", game)
        shown = phone.evaluate(DESCRIBED)
        offered = {f"option.{name}": option["description"] for name, option in types[game].items() if option["type"] != "decks"}
        assert {name: said for name, said, _ in shown} == offered
        assert all(seen for _, _, seen in shown), shown
    assert audit(phone) == []
