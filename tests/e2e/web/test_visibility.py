"""Pages show only what the viewer may see: a spectator never sees a hidden card."""

from __future__ import annotations

from typing import Any

from tests.e2e.web.conftest import settled
from tests.e2e.web.test_live import to_act
from tests.e2e.web.test_play import seated_page


def face_up(page, where: str = "") -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator(f"{where} [data-card]").evaluate_all("cards => cards.map(card => card.dataset.card)")


#: Where a hand could show: everywhere but the draw for the first dealer, whose cards (public, and shuffled
#: back into the deck before the deal) may be in anyone's hand now.
HANDS = ":is(#seats, #hand, .pile)"


def visible(view: dict[str, Any]) -> set[str]:
    """The cards a view shows face up: hands it reveals, the discard pile, the draw for the first dealer."""
    state = view["state"]
    shown = {card for hand in state["hands"] if hand for card in hand}
    drawn = {card for draw in state.get("dealer_draws", []) for _, card in draw}
    return shown | set(state["discard"]) | {state["top_card"]} | drawn


def test_a_spectator_sees_no_hand_but_only_backs_as_many_as_each_holds(page, api):
    for game, players in (("craits", 3), ("scat", 3)):
        game_id = api.create(game, players)
        tokens = [api.join(game_id, f"p{seat}") for seat in range(players)]
        for _ in range(4):  # a few moves in, with cards drawn and discarded
            token, view = to_act(api, game_id, tokens)
            api.move(game_id, token, view["legal_moves"][0])
        view = api.view(game_id)
        page.goto(f"/games/{game_id}")
        settled(page, view["version"])
        assert set(face_up(page)) <= visible(view)
        assert not {card for hand_of in (api.view(game_id, t)["state"]["hand"] for t in tokens) for card in hand_of} \
            & set(face_up(page, HANDS))
        backs = page.locator("#seats .seat").evaluate_all(
            "seats => seats.map(seat => seat.querySelectorAll('.card.back').length)")
        assert backs == [min(size, 10) for size in view["state"]["hand_sizes"]]


def test_a_players_page_shows_their_own_hand_and_no_other(page, api):
    game_id = api.create("scat", 3)
    tokens = [api.join(game_id, f"p{seat}") for seat in range(3)]
    seated_page(page, api, game_id, tokens[1], seat=1)
    mine = api.view(game_id, tokens[1])
    assert set(face_up(page)) <= visible(mine)
    assert set(mine["state"]["hand"]) <= set(face_up(page))
    others = {card for token in (tokens[0], tokens[2]) for card in api.view(game_id, token)["state"]["hand"]}
    assert not others & set(face_up(page, HANDS))


def test_replaying_a_running_game_shows_no_card_hidden_at_that_version(page, api):
    game_id = api.create("craits", 2)
    tokens = [api.join(game_id, "Ana"), api.join(game_id, "Bo")]
    for _ in range(6):
        token, view = to_act(api, game_id, tokens)
        api.move(game_id, token, view["legal_moves"][0])
    for version in (5, 7, 9):
        page.goto(f"/games/{game_id}?v={version}")
        settled(page, version)
        assert set(face_up(page)) <= visible(api.view(game_id, at=version))
