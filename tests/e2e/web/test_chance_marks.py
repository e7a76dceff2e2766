"""The pages tell a joiner that the creator fixed a game's chance (issue 37, class 5): a "seeded" or
"stacked" badge in the lobby's row and on the table, before anyone joins; and a seat taken in the
browser adds its own entropy to the shuffles (issue 43)."""

from __future__ import annotations

from domain.cards import DECK
from tests.e2e.web.conftest import settled


def test_a_seeded_and_a_stacked_game_are_marked_in_the_lobby_and_on_the_table_before_anyone_joins(page, api):
    seeded, stacked, plain = api.create("scat", 2, seed=5), api.create("scat", 2, decks=[DECK]), api.create("scat", 2)
    page.goto("/")
    settled(page)
    badges = {game_id: page.locator(f"#game-rows tr[data-game='{game_id}'] .badge").all_inner_texts()
              for game_id in (seeded, stacked, plain)}
    assert badges == {seeded: ["seeded"], stacked: ["stacked"], plain: []}
    # What each mark means is said in words, where a phone and a screen reader read it too (it was a title, shown
    # only to a mouse held over the badge).
    assert sorted(page.locator("#marks-legend span").all_inner_texts()) == [
        "Seeded: its creator fixed the shuffles with a seed (or it replays another game's deal): they may know the "
        "cards.", "Stacked: its creator stacked the decks: they know the cards."]
    assert page.locator(".badge[title]").count() == 0
    page.goto(f"/games/{seeded}")
    page.wait_for_selector("#badges .seeded")
    assert page.locator("#badge-notes").is_visible() and "they may know the cards" in page.inner_text("#badge-notes")
    page.goto(f"/games/{stacked}")
    page.wait_for_selector("#badges .stacked")
    assert page.locator("#badges .seeded").count() == 0
    assert page.inner_text("#badge-notes") == "Stacked: its creator stacked the decks: they know the cards."
    page.goto(f"/games/{plain}")
    settled(page)
    assert page.locator("#badge-notes").is_hidden()


def test_a_seat_taken_in_the_lobby_adds_its_own_entropy(page, api):
    game_id = api.create("scat", 2)
    page.goto("/")
    settled(page)
    row = page.locator(f"#game-rows tr[data-game='{game_id}']")
    row.locator("input[name=name]").fill("Eve")
    row.locator("button", has_text="Join").click()
    page.wait_for_url(f"**/games/{game_id}")
    entropy = api.summary(game_id)["seats"][0]["entropy"]
    assert isinstance(entropy, str) and len(entropy) == 64 and int(entropy, 16) > 0
