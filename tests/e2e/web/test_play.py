"""Playing from the browser: a game started in the lobby, played to the end by clicking what the page offers."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.web.conftest import settled

#: What the page offers to click: a variant in the open picker (not its Cancel), else a card or an action.
PICKED = "#picker:not([hidden]) button:not(:last-child)"
CHOICES = "#hand button.card, #actions button"


def start_from_the_lobby(page: Page, game: str, players: int, **options: bool) -> str:
    """Start a game in the lobby with the viewer in seat 0 and greedy bots in the others; its id."""
    page.goto("/")
    settled(page)
    page.select_option("#new-game-type", game)
    page.fill("#new-players", str(players))
    page.dispatch_event("#new-players", "input")
    page.click("#new-more > summary")
    for name, value in options.items():
        page.set_checked(f"input[name='option.{name}']", value)
    for seat in range(1, players):
        page.select_option(f"select[name='seat.{seat}']", "greedy")
    page.fill("#new-name", "Ana")
    page.click("text=Start the game")
    page.wait_for_url("**/games/*")
    settled(page)
    return page.url.rsplit("/", 1)[1]


#: Once the page has settled: "finished", or the selector of what to click next (empty: nothing offered).
NEXT = f"""() => document.body.dataset.busy === "false" && (document.body.dataset.status === "finished" ? "finished"
    : document.querySelector("{PICKED}") ? "{PICKED}" : document.querySelector("{CHOICES}") ? "{CHOICES}" : "")"""


def play_by_clicking(page: Page, limit: int = 3000) -> int:
    """Click the first thing the page offers until the game is over; the clicks made."""
    for clicks in range(limit):
        offered = page.wait_for_function(NEXT).json_value()
        if offered == "finished":
            return clicks
        assert offered, "the page settled offering nothing to click"  # against house bots it is always the viewer's turn
        page.locator(offered).first.click()
    raise AssertionError("the game did not end")


def shown_totals(page: Page) -> list[str]:
    return page.locator("#seats .seat .score, #seats .seat .lives").all_inner_texts()


def test_a_short_craits_game_against_a_greedy_bot_is_played_to_the_end_by_clicking(page, api):
    game_id = start_from_the_lobby(page, "craits", 2, short=True)
    summary = api.summary(game_id)
    assert [seat["bot"] for seat in summary["seats"]] == [None, "greedy"]
    assert summary["seats"][0]["name"] == "Ana"
    assert play_by_clicking(page) > 10
    final = api.summary(game_id)
    assert final["status"] == "finished"
    assert page.get_attribute("body", "data-version") == str(final["version"])
    assert shown_totals(page) == [f"score {score}" for score in final["result"]["scores"]]
    assert "Game over" in page.inner_text("#middle")
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('cardhall.seat.{game_id}'))")
    assert kept["seat"] == 0
    assert kept["token"] not in page.url


def test_a_three_player_scat_game_against_greedy_bots_is_played_to_the_end_by_clicking(page, api):
    game_id = start_from_the_lobby(page, "scat", 3)
    assert [seat["bot"] for seat in api.summary(game_id)["seats"]] == [None, "greedy", "greedy"]
    assert play_by_clicking(page) > 3
    final = api.summary(game_id)
    assert final["status"] == "finished"
    lives = final["result"]["lives"]
    assert shown_totals(page) == [f"{count} {'life' if count == 1 else 'lives'}" for count in lives]
    assert "Game over" in page.inner_text("#middle")
    winners = page.locator("#seats .seat:has(.badge.winner)").evaluate_all("seats => seats.map(s => Number(s.dataset.seat))")
    assert winners == final["result"]["winners"]


def test_the_page_offers_exactly_the_moves_the_server_lists(page, api):
    game_id = start_from_the_lobby(page, "craits", 2, short=True)
    token = page.evaluate(f"JSON.parse(localStorage.getItem('cardhall.seat.{game_id}')).token")
    assert token not in page.url
    view = api.view(game_id, token)
    offered_cards = page.locator("#hand button.card").evaluate_all("cards => cards.map(card => card.dataset.card)")
    listed_cards = {move["card"] for move in view["legal_moves"] if "card" in move}
    assert sorted(offered_cards) == sorted(listed_cards)
    assert page.locator("#actions button").count() == sum("card" not in move for move in view["legal_moves"])
    assert page.locator("#hand [data-card]").evaluate_all("cards => cards.map(card => card.dataset.card)") \
        == view["state"]["hand"]


def seated_page(page: Page, api, game_id: str, token: str, seat: int = 0) -> None:  # type: ignore[no-untyped-def]
    """Open the table with ``token`` kept in this browser, as if the seat had been taken here."""
    page.goto("/")
    page.evaluate("([key, kept]) => localStorage.setItem(key, JSON.stringify(kept))",
                  [f"cardhall.seat.{game_id}", {"seat": seat, "token": token, "name": "Ana"}])
    page.goto(f"/games/{game_id}")
    settled(page)


def eight_in_hand(api) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A game where seat 0 (a person, to act) holds the eight of spades and the up-card is the three of hearts."""
    game_id = api.create("craits", 2, short=True, first_dealer=1, decks=[stacked_deck(first=["8S", "KD"], up="3H")])
    token = api.join(game_id, "Ana")
    api.join(game_id, bot="greedy")
    return game_id, token


def test_a_refused_move_shows_the_problems_detail_and_rule_and_changes_nothing(page, api):
    game_id, token = eight_in_hand(api)
    seated_page(page, api, game_id, token)
    version = api.summary(game_id)["version"]
    # The page sends only listed moves: here the request is changed on its way, as a stale or tampered
    # page might send it, into a draw while a card can be played, which the server refuses (C8).
    page.route("**/moves", lambda route: route.continue_(post_data='{"type": "draw"}'))
    page.click("#hand button[data-card='8S']")
    page.locator("#picker button").first.click()
    problem = page.locator("#problem")
    problem.wait_for()
    assert "(rule C8)" in problem.inner_text()
    assert api.summary(game_id)["version"] == version


def test_an_eight_offers_a_suit_picker_with_the_suits_the_server_lists(page, api):
    game_id, token = eight_in_hand(api)
    seated_page(page, api, game_id, token)
    page.click("#hand button[data-card='8S']")
    picker = page.locator("#picker button:not(:last-child)")
    listed = [move for move in api.view(game_id, token)["legal_moves"] if move.get("card") == "8S"]
    assert picker.count() == len(listed) == 4
    assert sorted(picker.all_inner_texts()) == sorted(
        f"Play 8♠ and name {suit}" for suit in ("spades", "hearts", "diamonds", "clubs"))
    page.click("text=Play 8♠ and name hearts")
    settled(page)
    assert api.view(game_id)["state"]["hand_sizes"][0] == 7


def test_a_move_costs_the_page_one_catch_up_though_the_stream_also_brings_it(page, api):
    game_id, token = eight_in_hand(api)
    seated_page(page, api, game_id, token)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(f"{request.method} {request.url.split('?')[0].rsplit('/', 1)[1]}"))
    page.click("#hand button[data-card='8S']")
    page.click("text=Play 8♠ and name hearts")
    settled(page)
    page.wait_for_timeout(500)  # (time for the stream's frame of the same events to arrive, and be read)
    assert sorted(asked) == sorted(["POST moves", f"GET {game_id}", "GET events", "GET state"])
    assert page.get_attribute("body", "data-version") == str(api.summary(game_id)["version"])


def stacked_deck(first: list[str], up: str) -> list[str]:
    """A 52-card order dealing ``first`` to seat 0 (two players, eight cards each: even indexes) and
    turning up ``up``; the rest in a fixed order."""
    ranks, suits = "A23456789TJQK", "CDHS"
    rest = [rank + suit for suit in suits for rank in ranks if rank + suit not in (*first, up)]
    deck: list[str] = []
    for index in range(16):
        deck.append(first[index // 2] if index % 2 == 0 and index // 2 < len(first) else rest.pop(0))
    return deck + [up] + rest


def test_a_scat_players_draw_choices_name_the_stock_the_discard_top_and_the_knock(page, api):
    game_id = api.create("scat", 2, first_dealer=1)
    token = api.join(game_id, "Ana")
    api.join(game_id, bot="greedy")
    seated_page(page, api, game_id, token)
    view = api.view(game_id, token)
    assert 0 in view["to_act"] and view["state"]["phase"] == "draw"
    top = view["state"]["top_card"]
    expected = {"draw": "Draw from the stock", "knock": "Knock", "declare_31": "Declare 31"}
    named = [f"Take {top[0].replace('T', '10')}{'♠♥♦♣'['SHDC'.index(top[1])]} from the discard pile"
             if move.get("source") == "discard" else expected[move["type"]] for move in view["legal_moves"]]
    assert page.locator("#actions button").all_inner_texts() == named
    page.click("text=Draw from the stock")
    settled(page)
    assert len(page.locator("#hand button.card").all()) == 4  # four cards, each one a discard


def one_card_not_announced(api) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """A game where Ana (seat 0) has played down to one card, the queen of hearts, without announcing it,
    and Bo (seat 1) is to act: the game and both tokens."""
    # Ana's sixes and fours give her turn after turn (C10, two players), down to one card not announced.
    run = ["6H", "6D", "6S", "6C", "4C", "4S", "KS"]
    game_id = api.create("craits", 2, short=True, first_dealer=1, decks=[stacked_deck(first=[*run, "QH"], up="3H")])
    ana, bo = api.join(game_id, "Ana"), api.join(game_id, "Bo")
    for card in run:
        api.move(game_id, ana, {"type": "play", "card": card})
    return game_id, ana, bo


def test_a_player_who_forgot_to_announce_can_be_called_out_from_the_button_beside_their_seat(page, api):
    game_id, _, bo = one_card_not_announced(api)
    seated_page(page, api, game_id, bo, seat=1)
    call = page.locator("#seats .seat[data-seat='0'] .seat-moves button")
    assert call.all_inner_texts() == ["Call out"] and call.get_attribute("aria-label") == "Call out Ana"
    call.click()
    settled(page)
    assert api.view(game_id)["state"]["hand_sizes"][0] == 3  # the one card and two drawn (C12)
    assert "Bo called out Ana" in page.inner_text("#headline")


def test_two_players_under_one_name_are_told_apart_by_their_seats(page, api):
    game_id = api.create("craits", 2, short=True)
    token = api.join(game_id, "bea")
    api.join(game_id, "bea")
    seated_page(page, api, game_id, token)
    names = page.locator(".seat-name").all_inner_texts()
    assert names == ["bea (seat 0) (you)", "bea (seat 1)"]
    assert "bea (seat" in page.locator(".table-facts").inner_text()
