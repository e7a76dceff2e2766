"""The moves a seat is offered only now and then: Craits' separate announcement, Scat's throw-down and
declared 31. Each is brought about on a stacked deck, clicked by its accessible name, and the table it
leaves is checked against the API's view."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.web.conftest import settled
from tests.e2e.web.test_play import one_card_not_announced, seated_page
from tests.e2e.web.test_replay import expected, shown
from tests.unit.scat_support import stacked_deck


def click(page: Page, name: str) -> None:
    """Click the button named ``name`` (as assistive technology reads it) and wait for the page to settle."""
    page.get_by_role("button", name=name, exact=True).click()
    settled(page)


def offered(page: Page) -> list[str]:
    return page.locator("#actions button").all_inner_texts()


def test_a_player_left_with_one_card_announces_it_with_the_announce_button_and_can_no_longer_be_called_out(page, api):
    game_id, ana, bo = one_card_not_announced(api)
    seated_page(page, api, game_id, ana)
    assert offered(page) == ["Announce one card"]  # out of turn: Bo is to act (C12)
    click(page, "Announce one card")
    view = api.view(game_id, ana)
    assert view["state"]["announced"] == [0]
    assert page.locator("#seats .seat[data-seat='0'] .badge").all_inner_texts() == ["announced one card"]
    assert "Ana announced one card" in page.inner_text("#headline")
    assert offered(page) == []
    assert shown(page) == expected(view)
    assert not [move for move in api.view(game_id, bo)["legal_moves"] if move["type"] == "call"]


def scat_table(api, hands: list[list[str]], dealer: int, **options: object) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A Scat game dealt ``hands`` (by seat; the three of clubs turned up) to Ana, Bo and Cy, every seat a
    person's so nothing moves by itself: the game and Ana's token (seat 0)."""
    deck = stacked_deck(dict(enumerate(hands)), up="3C", dealer=dealer)
    game_id = api.create("scat", len(hands), first_dealer=dealer, decks=[deck], **options)
    ana = api.join(game_id, "Ana")
    for name in ("Bo", "Cy"):
        api.join(game_id, name)
    return game_id, ana


def test_a_scat_player_who_throws_down_settles_the_hand_at_once_and_the_lowest_hand_loses_a_life(page, api):
    # Ana (30 in hearts) acts first; Bo's best suit is worth 8, Cy's 10 (S8): Bo alone is lowest (S9, S10).
    game_id, ana = scat_table(api, [["AH", "KH", "9H"], ["2C", "5D", "8S"], ["4C", "6D", "TS"]], dealer=2,
                              throw_down=True)
    seated_page(page, api, game_id, ana)
    assert "Throw down" in offered(page)
    click(page, "Throw down")
    view = api.view(game_id, ana)
    assert view["state"]["lives"] == [3, 2, 3]
    assert view["state"]["hand_number"] == 2
    assert "Ana threw down" in page.inner_text("#headline")
    assert "The hand was settled (throw down): Bo lost a life" in page.inner_text("#log")
    assert "hand 2" in page.inner_text("#middle")
    assert "Throw down" not in offered(page)  # the next hand is dealt, and Bo is to act in it
    assert shown(page) == expected(view)


def test_a_scat_player_holding_31_declares_it_out_of_turn_and_every_other_player_loses_a_life(page, api):
    # Ana deals herself the ace, king and queen of spades; Bo, on her left, is to act (S4, S5, S11).
    game_id, ana = scat_table(api, [["AS", "KS", "QS"], ["2C", "5D", "8H"], ["4C", "6D", "TH"]], dealer=0)
    seated_page(page, api, game_id, ana)
    assert offered(page) == ["Declare 31"]
    click(page, "Declare 31")
    view = api.view(game_id, ana)
    assert view["state"]["lives"] == [3, 2, 2]
    assert view["state"]["hand_number"] == 2
    assert "Ana declared 31 with A♠ K♠ Q♠" in page.inner_text("#headline")
    assert "The hand was settled (thirty one): Bo lost a life, Cy lost a life" in page.inner_text("#log")
    assert shown(page) == expected(view)
