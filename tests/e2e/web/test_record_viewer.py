"""The record viewer (/replay): a pasted or chosen cardhall-record/1 is stepped through to its end, each
version showing what the stored game's table shows (issue 43)."""

from __future__ import annotations

import json

from tests.e2e.web.conftest import settled
from tests.e2e.web.test_replay import expected, shown


def test_a_pasted_record_replays_to_the_end_as_the_stored_game_shows_it(page, api):
    game_id = api.finished("scat", 3, seed=12)
    record = api.client.get(f"/games/{game_id}/record").json()
    last = record["version"]
    page.goto("/replay")
    settled(page)
    page.fill("#record-text", json.dumps(record))
    page.click("#open")
    settled(page, 1)
    assert "version 1 of" in page.inner_text("#position")
    assert page.locator("#badges .seeded").count() == 1
    for version in (2, 3, 4, 5):
        page.keyboard.press("ArrowRight")
        settled(page, version)
    assert shown(page) == expected(api.view(game_id, at=5))
    page.keyboard.press("End")
    settled(page, last)
    assert shown(page) == expected(api.view(game_id, at=last))
    assert f"version {last} of {last}" in page.inner_text("#position")


def record_file(api, tmp_path) -> tuple[dict, str]:  # type: ignore[no-untyped-def]
    """A finished game's record, and the file holding it."""
    game_id = api.finished("craits", 2, short=True)
    record = api.client.get(f"/games/{game_id}/record").json()
    file = tmp_path / "game.json"
    file.write_text(json.dumps(record))
    return record, str(file)


def test_a_record_file_opens_and_a_tampered_one_is_refused_with_what_is_wrong(page, api, tmp_path):
    record, file = record_file(api, tmp_path)
    page.goto("/replay")
    settled(page)
    page.set_input_files("#record-file", file)
    settled(page, 1)
    page.keyboard.press("End")
    settled(page, record["version"])
    record["result"] = {"winners": [1 - record["result"]["winners"][0]], "scores": record["result"]["scores"]}
    page.fill("#record-text", json.dumps(record))
    page.click("#open")
    page.wait_for_selector("#problem:not([hidden])")
    assert "does not hold" in page.inner_text("#problem") and "'result'" in page.inner_text("#problem")


def test_open_opens_the_chosen_file_and_with_nothing_chosen_says_what_to_do(page, api, tmp_path):
    record, file = record_file(api, tmp_path)
    page.goto("/replay")
    settled(page)
    page.click("#open")
    page.wait_for_selector("#problem:not([hidden])")
    assert page.inner_text("#problem") == "choose a record file or paste a record"
    page.set_input_files("#record-file", file)
    settled(page, 1)
    page.keyboard.press("End")
    settled(page, record["version"])
    page.click("#open")  # (as the form invites, after choosing the file)
    settled(page, 1)
    assert page.is_hidden("#problem")
    assert f"version 1 of {record['version']}" in page.inner_text("#position")
