"""Accounts in the pages: sign in by pasting a key (kept in the browser, never in a URL), the lobby's
open challenges with Accept, and an account's page."""

from __future__ import annotations

import uuid

from tests.e2e.web.conftest import settled


def test_signing_in_with_a_key_accepts_an_open_challenge_and_opens_its_game(page, api):
    suffix = uuid.uuid4().hex[:8]
    host = api.client.post("/accounts", json={"name": f"host{suffix}", "kind": "bot"}).json()["key"]
    guest = api.client.post("/accounts", json={"name": f"guest{suffix}", "kind": "person"}).json()["key"]
    offered = api.client.post("/challenges", json={"game": "scat", "players": 2, "expires_in": 600},
                              headers={"Authorization": f"Bearer {host}"}).json()
    page.goto("/")
    settled(page)
    row = page.locator(f"#challenge-rows li[data-challenge='{offered['id']}']")
    assert row.locator("button", has_text="Accept").is_disabled()
    page.fill("#account-key", guest)
    page.click("#sign-in button")
    page.wait_for_selector("#signed-in:not([hidden])")
    assert page.inner_text("#account-link") == f"guest{suffix}"
    assert page.is_hidden("#sign-in")  # (signed in, the form to sign in is gone)
    row.locator("button", has_text="Accept").click()
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[-1]
    settled(page)
    seats = api.summary(game_id)["seats"]
    assert [seat["account"] for seat in seats] == [f"host{suffix}", f"guest{suffix}"]
    assert len(seats[1]["entropy"]) == 64  # (the browser added its own to the game's shuffles)
    assert guest not in page.url
    assert page.evaluate("localStorage.getItem('cardhall.account')").count(guest) == 1
    page.goto(f"/accounts/guest{suffix}")
    settled(page)
    assert page.inner_text("#account-kind") == "a person"
    assert page.locator("#current-games a").get_attribute("href") == f"/games/{game_id}"
    assert page.watched.errors == [] and page.watched.outside == []


def test_a_challenge_naming_a_person_is_listed_in_the_lobby_to_them_alone_once_they_sign_in(page, api):
    """A challenge naming an account is listed to that account only: the lobby, which follows no stream, asked the
    listing without the signed-in key, and a person challenged by name never saw the challenge there."""
    suffix = uuid.uuid4().hex[:8]
    host = api.client.post("/accounts", json={"name": f"host{suffix}", "kind": "bot"}).json()["key"]
    guest = api.client.post("/accounts", json={"name": f"guest{suffix}", "kind": "person"}).json()["key"]
    offered = api.client.post("/challenges", json={"game": "scat", "players": 2, "to": [f"guest{suffix}"]},
                              headers={"Authorization": f"Bearer {host}"}).json()
    row = f"#challenge-rows li[data-challenge='{offered['id']}']"
    page.goto("/")
    settled(page)
    assert page.locator(row).count() == 0
    page.fill("#account-key", guest)
    page.click("#sign-in button")
    page.wait_for_selector(row)
    page.locator(row).locator("button", has_text="Accept").click()
    page.wait_for_url("**/games/*")
    assert api.client.get(f"/challenges/{offered['id']}").json()["status"] == "started"
    assert page.watched.errors == [] and page.watched.outside == []


def test_a_key_the_server_refuses_is_said_so(page):
    page.goto("/")
    settled(page)
    page.fill("#account-key", "chk_000000000000_nothing")
    page.click("#sign-in button")
    page.wait_for_selector("#account-problem:not([hidden])")
    assert "not valid" in page.inner_text("#account-problem")
    assert page.is_hidden("#signed-in")
    page.fill("#account-key", "my password")  # (no key at all: said in the same words, not the API's)
    page.click("#sign-in button")
    page.wait_for_function("() => !document.querySelector('#account-problem').textContent.includes('Authorization')")
    assert page.inner_text("#account-problem").startswith("That key is not valid: it was revoked, or never given out.")


def test_a_table_whose_kept_account_key_was_revoked_shows_the_game_as_a_spectator_and_says_why(page, api):
    """A seat taken with an account's key keeps that key in the browser as the seat's token. Once the key is revoked
    (or replaced), the table showed nothing but the server's refusal, no seats, cards or log, however often it was
    opened again: now it forgets the seat and shows the game as anyone watching sees it, saying why, with nothing to
    do as the seat (no hand, no Resign)."""
    name = f"revoked{uuid.uuid4().hex[:8]}"
    key = api.client.post("/accounts", json={"name": name, "kind": "person"}).json()["key"]
    auth = {"Authorization": f"Bearer {key}"}
    game_id = api.create("craits", 2, short=True)
    seat = api.client.post(f"/games/{game_id}/seats", json={}, headers=auth).json()["seat"]
    api.join(game_id, bot="greedy")
    page.goto("/")
    page.evaluate("([where, kept]) => localStorage.setItem(where, JSON.stringify(kept))",
                  [f"cardhall.seat.{game_id}", {"seat": seat, "token": key, "name": name}])
    prefix = api.client.get("/account/keys", headers=auth).json()["keys"][0]["prefix"]
    assert api.client.delete(f"/account/keys/{prefix}", headers=auth).status_code in (200, 204)
    page.goto(f"/games/{game_id}")
    settled(page)
    assert "no longer accepts the seat this browser kept" in page.inner_text("#problem")
    assert page.locator("#seats .seat").count() == 2 and page.locator("#log li").count() >= 3
    assert page.locator("#hand .card").count() == 0 and page.get_by_role("button", name="Resign").count() == 0
    assert page.evaluate(f"localStorage.getItem('cardhall.seat.{game_id}')") is None
    page.reload()  # (opened again: the game as anyone sees it, nothing to say)
    settled(page)
    assert page.is_hidden("#problem") and page.locator("#seats .seat").count() == 2
