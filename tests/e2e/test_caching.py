"""A finished game's views at a version and its log never change: ETags and caching for good."""

from __future__ import annotations


def finished_game(http) -> str:  # type: ignore[no-untyped-def]
    """A short Craits game two house bots have played to the end."""
    game_id = http.create("craits", 2, short=True)
    for _ in range(2):
        assert http.bot(game_id, "greedy").status_code == 201
    # (a request plays a bounded number of the house's events: the sweeps a server's sweeper makes play on)
    assert http.played_out(game_id)["status"] == "finished"
    return game_id


def test_a_finished_games_view_at_a_version_is_cached_for_good_and_revalidates_to_304(http):
    game_id = finished_game(http)
    first = http.state(game_id, at=7)
    assert first.status_code == 200
    assert first.headers["ETag"] == '"7"'
    assert first.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    again = http.client.get(f"/v1/games/{game_id}/state?at=7", headers={"If-None-Match": '"7"'})
    assert again.status_code == 304
    assert again.data == b""
    assert http.client.get(f"/v1/games/{game_id}/state?at=8", headers={"If-None-Match": '"7"'}).status_code == 200


def test_a_players_view_of_a_finished_game_is_cached_only_privately(http):
    game_id = http.create("craits", 2, short=True)
    token = http.join(game_id, "ana")
    http.bot(game_id, "greedy")
    http.play_out(game_id, [token, token])
    answer = http.state(game_id, token, at=5)
    assert answer.json["seat"] == 0
    assert answer.headers["Cache-Control"] == "private, max-age=31536000, immutable"


def test_views_of_a_game_still_running_are_not_cached(http):
    game_id, _ = http.started("craits", 2, short=True)
    for query in ({"at": 3}, {}):
        answer = http.state(game_id, **query)
        assert "Cache-Control" not in answer.headers
        assert http.client.get(f"/v1/games/{game_id}/state", query_string=query,
                               headers={"If-None-Match": answer.headers["ETag"]}).status_code == 200
    assert "Cache-Control" not in http.events(game_id).headers


def test_a_finished_games_events_are_cached_for_good(http):
    game_id = finished_game(http)
    version = http.version(game_id)
    page = http.events(game_id, after=10, limit=5)
    assert [event["version"] for event in page.json["events"]] == [11, 12, 13, 14, 15]
    assert page.headers["ETag"] == f'"{version}"'
    assert page.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    again = http.client.get(f"/v1/games/{game_id}/events?after=10&limit=5", headers={"If-None-Match": f'"{version}"'})
    assert again.status_code == 304


def test_a_version_a_finished_game_never_had_is_still_a_404_problem(http):
    game_id = finished_game(http)
    version = http.version(game_id)
    answer = http.client.get(f"/v1/games/{game_id}/state?at={version + 1}", headers={"If-None-Match": "*"})
    assert answer.status_code == 404
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert "Cache-Control" not in answer.headers
