"""A woken long-poll answers exactly what a plain read of the same page answers, for each viewer.

A real server (one worker, its default rate limit): long-polls of a spectator and of
two seats wait for a card drawn from the stock (seen by its taker only), and one waits
on a finished game until its wait runs out; each answer is compared with ``events?after=``
asked afterwards with the same token. Without rate limits a spectator's long-poll answers, logs
and counts as the app's plain read does, and what the app refuses is refused as before.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.e2e.server import start_server
from tests.e2e.test_many_followers import until_followers
from tests.e2e.test_observability import samples

pytestmark = pytest.mark.timeout(120)
#: The headers of a page a client reads: the woken answer must carry them as a plain read does.
COMPARED = ("content-type", "content-length", "etag", "cache-control")
LIMITED = ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("woken"), rate_limit=None)
    yield server.base_url
    server.stop()


def seated_scat(http: httpx.Client) -> tuple[str, dict[str, dict[str, str]]]:
    """A Scat game of two people and a house bot, dealt, one person to act; that person's headers
    first ("drawer"), then the other's, then a spectator's."""
    game_id = http.post("/v1/games", json={"game": "scat", "players": 3, "options": {"seed": 9}}).json()["id"]
    tokens = [http.post(f"/v1/games/{game_id}/seats", json={"name": f"p{i}"}).json()["token"] for i in range(2)]
    assert http.post(f"/v1/games/{game_id}/seats", json={"bot": "random"}).status_code == 201
    heads = [{"Authorization": f"Bearer {token}"} for token in tokens]
    views = [http.get(f"/v1/games/{game_id}/state", headers=h).json() for h in heads]
    if views[1]["seat"] in views[1]["to_act"]:
        heads.reverse()
    return game_id, {"drawer": heads[0], "other seat": heads[1], "spectator": {}}


def long_poll(base: str, game_id: str, after: int, headers: dict[str, str], wait: float, name: str) -> httpx.Response:
    with httpx.Client(base_url=base, timeout=60) as http:
        return http.get(f"/v1/games/{game_id}/events", params={"after": after, "wait": wait},
                        headers={**headers, "X-Request-ID": f"woken-{name.replace(' ', '-')}"})


def assert_same_page(woken: httpx.Response, plain: httpx.Response, name: str) -> None:
    assert woken.status_code == plain.status_code == 200
    assert woken.content == plain.content, name
    assert [woken.headers.get(h) for h in COMPARED] == [plain.headers.get(h) for h in COMPARED], name
    assert all(h in woken.headers for h in LIMITED), name
    assert woken.headers["x-request-id"] == f"woken-{name.replace(' ', '-')}"


def test_long_polls_woken_by_a_draw_answer_each_viewer_its_own_page_as_a_plain_read_does(base):
    with httpx.Client(base_url=base, timeout=30) as http, ThreadPoolExecutor(3) as pool:
        game_id, heads = seated_scat(http)
        view = http.get(f"/v1/games/{game_id}/state", headers=heads["drawer"]).json()
        draw = next(move for move in view["legal_moves"] if "stock" in move.values())
        waiting = {name: pool.submit(long_poll, base, game_id, view["version"], h, 30, name) for name, h in heads.items()}
        until_followers(base, len(heads), 30)
        moved = http.post(f"/v1/games/{game_id}/moves", json=draw, headers=heads["drawer"])
        assert moved.status_code == 201, moved.text
        woken = {name: answer.result() for name, answer in waiting.items()}
        for name, headers in heads.items():
            plain = http.get(f"/v1/games/{game_id}/events", params={"after": view["version"]}, headers=headers)
            assert_same_page(woken[name], plain, name)
    assert woken["drawer"].content != woken["spectator"].content  # (the card drawn is the drawer's to see)


def test_a_long_poll_on_a_finished_game_times_out_with_the_page_cached_for_good(base):
    with httpx.Client(base_url=base, timeout=30) as http:
        game_id = http.post("/v1/games", json={"game": "craits", "players": 2, "options": {"seed": 4}}).json()["id"]
        for _ in range(2):
            http.post(f"/v1/games/{game_id}/seats", json={"bot": "random"})
        # (followed to its end by its summary: pages of its whole log asked for again and again would
        # spend this client's read budget, as the server's default limits count it)
        while (summary := http.get(f"/v1/games/{game_id}").json())["status"] != "finished":
            http.get(f"/v1/games/{game_id}/events", params={"after": summary["version"], "limit": 1, "wait": 5})
        version = summary["version"]
        woken = long_poll(base, game_id, version, {}, 0.5, "finished")
        plain = http.get(f"/v1/games/{game_id}/events", params={"after": version})
        assert_same_page(woken, plain, "finished")
        assert "immutable" in woken.headers["cache-control"]


@pytest.fixture(scope="module")
def unlimited(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("spectated"), options=("--log-format", "json"))
    yield server
    server.stop()


EVENTS_200 = ("cardhall_http_requests_total",
              (("method", "GET"), ("route", "/v1/games/<game_id:game_id>/events"), ("status", "200")))


def test_a_spectators_long_poll_without_limits_answers_logs_and_counts_as_the_apps_read(unlimited):
    base = unlimited.base_url
    with httpx.Client(base_url=base, timeout=30) as http, ThreadPoolExecutor(1) as pool:
        game_id, heads = seated_scat(http)
        view = http.get(f"/v1/games/{game_id}/state", headers=heads["drawer"]).json()
        counted = samples(base).get(EVENTS_200, 0)
        waiting = pool.submit(long_poll, base, game_id, view["version"], {}, 30, "spectator")
        until_followers(base, 1, 30)
        draw = next(move for move in view["legal_moves"] if "stock" in move.values())
        assert http.post(f"/v1/games/{game_id}/moves", json=draw, headers=heads["drawer"]).status_code == 201
        woken = waiting.result()
        plain = http.get(f"/v1/games/{game_id}/events", params={"after": view["version"]})
        assert woken.status_code == plain.status_code == 200
        assert woken.content == plain.content and woken.json()["events"]
        assert [woken.headers.get(h) for h in COMPARED] == [plain.headers.get(h) for h in COMPARED]
        assert woken.headers["x-request-id"] == "woken-spectator"
        assert samples(base).get(EVENTS_200, 0) == counted + 2  # (the long-poll and the plain read)
    lines = unlimited.json_log(until=lambda lines: any(line.get("request_id") == "woken-spectator" for line in lines))
    logged = [line for line in lines if line["logger"] == "cardhall.access" and line.get("request_id") == "woken-spectator"]
    assert len(logged) == 1
    assert logged[0]["path"] == f"/v1/games/{game_id}/events" and logged[0]["status"] == 200
    assert logged[0]["route"] == "/v1/games/<game_id:game_id>/events" and logged[0]["duration_ms"] > 0


def test_seats_long_polls_without_limits_each_answer_their_own_page_and_foreign_tokens_are_refused(unlimited):
    base = unlimited.base_url
    with httpx.Client(base_url=base, timeout=30) as http, ThreadPoolExecutor(3) as pool:
        game_id, heads = seated_scat(http)
        _, other_heads = seated_scat(http)
        view = http.get(f"/v1/games/{game_id}/state", headers=heads["drawer"]).json()
        for headers in heads.values():  # (each token read once: the process knows it when the long-poll comes)
            assert http.get(f"/v1/games/{game_id}/events", params={"after": view["version"]}, headers=headers).is_success
        for foreign, status in ((other_heads["drawer"], 403), ({"Authorization": "Bearer made-up"}, 401)):
            started = time.monotonic()
            refused = http.get(f"/v1/games/{game_id}/events", params={"after": view["version"], "wait": 10}, headers=foreign)
            assert refused.status_code == status and refused.headers["content-type"] == "application/problem+json"
            assert time.monotonic() - started < 5  # (refused at once, not once the wait is over)
        waiting = {name: pool.submit(long_poll, base, game_id, view["version"], h, 30, name) for name, h in heads.items()}
        until_followers(base, len(heads), 30)
        draw = next(move for move in view["legal_moves"] if "stock" in move.values())
        assert http.post(f"/v1/games/{game_id}/moves", json=draw, headers=heads["drawer"]).status_code == 201
        woken = {name: answer.result() for name, answer in waiting.items()}
        for name, headers in heads.items():
            plain = http.get(f"/v1/games/{game_id}/events", params={"after": view["version"]}, headers=headers)
            assert woken[name].status_code == plain.status_code == 200
            assert woken[name].content == plain.content, name
            assert [woken[name].headers.get(h) for h in COMPARED] == [plain.headers.get(h) for h in COMPARED], name
            assert woken[name].headers["x-request-id"] == f"woken-{name.replace(' ', '-')}"
    assert woken["drawer"].content != woken["spectator"].content  # (the card drawn is the drawer's to see)


def test_a_spectators_long_poll_with_nothing_new_waits_out_its_wait_and_answers_the_empty_page(unlimited):
    base = unlimited.base_url
    with httpx.Client(base_url=base, timeout=30) as http:
        game_id, _ = seated_scat(http)
        version = http.get(f"/v1/games/{game_id}").json()["version"]
        started = time.monotonic()
        answer = long_poll(base, game_id, version, {}, 1, "quiet")
        assert time.monotonic() - started >= 0.9
        assert answer.status_code == 200 and answer.json() == {"events": [], "last_version": version}
        assert answer.headers["x-request-id"] == "woken-quiet"


@pytest.mark.parametrize("query", ["wait=31", "wait=1&limit=0", "wait=1&limit=1001", "wait=1&after=-1",
                                   "wait=1&after=x", "wait=1&after=99999999999",
                                   "wait=1&after=+1", "wait=1&wait=5"])
def test_long_polls_the_app_refuses_are_refused_as_before_without_limits(unlimited, query):
    with httpx.Client(base_url=unlimited.base_url, timeout=30) as http:
        game_id, _ = seated_scat(http)
        version = http.get(f"/v1/games/{game_id}").json()["version"]
        full = query if "after" in query else f"after={version}&{query}"  # (else: nothing new after it)
        answer = http.get(f"/v1/games/{game_id}/events?{full}")
        assert answer.status_code == 422, (query, answer.text)
        assert answer.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("query", ["wait=1&sort=asc", "wait=1&limit=%31%30", "wait=1.0"])
def test_long_polls_the_app_takes_though_not_plainly_wait_as_any_other_without_limits(unlimited, query):
    with httpx.Client(base_url=unlimited.base_url, timeout=30) as http:
        game_id, _ = seated_scat(http)
        version = http.get(f"/v1/games/{game_id}").json()["version"]
        started = time.monotonic()
        answer = http.get(f"/v1/games/{game_id}/events?after={version}&{query}", headers={"X-Request-ID": "odd"})
        assert 0.9 <= time.monotonic() - started < 4.5, query
        assert answer.status_code == 200 and answer.json() == {"events": [], "last_version": version}
        assert answer.headers["x-request-id"] == "odd"


def test_a_spectators_long_poll_on_an_unknown_game_is_not_found_without_limits(unlimited):
    answer = httpx.get(f"{unlimited.base_url}/v1/games/no-such-game/events?after=0&wait=1", timeout=30)
    assert answer.status_code == 404 and answer.headers["content-type"] == "application/problem+json"
