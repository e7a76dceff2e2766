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


def check_the_hand_ended(page: Page, api, game_id: str, token: str, lives: list[int], said: str,  # type: ignore[no-untyped-def]
                         settlement: str) -> None:
    """The table once a hand ended at a stroke: ``lives`` left and the next hand dealt, ``said`` in the
    headline and ``settlement`` in the log, and everything shown as the API's view of ``token``'s seat has it."""
    view = api.view(game_id, token)
    assert view["state"]["lives"] == lives
    assert view["state"]["hand_number"] == 2
    assert "hand 2" in page.inner_text("#middle")
    assert said in page.inner_text("#headline")
    assert settlement in page.inner_text("#log")
    assert shown(page) == expected(view)


def test_a_scat_player_who_throws_down_settles_the_hand_at_once_and_the_lowest_hand_loses_a_life(page, api):
    # Ana (30 in hearts) acts first; Bo's best suit is worth 8, Cy's 10 (S8): Bo alone is lowest (S9, S10).
    game_id, ana = scat_table(api, [["AH", "KH", "9H"], ["2C", "5D", "8S"], ["4C", "6D", "TS"]], dealer=2,
                              throw_down=True)
    seated_page(page, api, game_id, ana)
    assert "Throw down" in offered(page)
    click(page, "Throw down")
    check_the_hand_ended(page, api, game_id, ana, [3, 2, 3], "Ana threw down",
                         "The hand was settled (throw down): Bo lost a life")
    assert "Throw down" not in offered(page)  # in the next hand Bo is to act


def test_a_scat_player_holding_31_declares_it_out_of_turn_and_every_other_player_loses_a_life(page, api):
    # Ana deals herself the ace, king and queen of spades; Bo, on her left, is to act (S4, S5, S11).
    game_id, ana = scat_table(api, [["AS", "KS", "QS"], ["2C", "5D", "8H"], ["4C", "6D", "TH"]], dealer=0)
    seated_page(page, api, game_id, ana)
    assert offered(page) == ["Declare 31"]
    click(page, "Declare 31")
    check_the_hand_ended(page, api, game_id, ana, [3, 2, 2], "Ana declared 31 with A♠ K♠ Q♠",
                         "The hand was settled (thirty one): Bo lost a life, Cy lost a life")
