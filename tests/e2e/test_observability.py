"""What an operator reads: /metrics (Prometheus text, summed over the workers) and JSON logs with request ids.

A real server with two workers (prometheus-client's multiprocess mode) and ``--log-format json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.server import ServerProcess, start_server
from tests.e2e.test_many_followers import a_move

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    started = start_server(tmp_path_factory.mktemp("observed"), workers=2, options=("--log-format", "json"))
    try:
        yield started
    finally:
        started.stop()


def samples(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics, parsed as Prometheus text: (name, labels) -> value."""
    answer = httpx.get(f"{base}/metrics", timeout=10)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(answer.text) for sample in family.samples}


HEALTHZ = ("cardhall_http_requests_total", (("method", "GET"), ("route", "/healthz"), ("status", "200")))
MOVES = ("cardhall_appends_total", (("kind", "move"),))
MOVE_TIMES = ("cardhall_move_seconds_count", ())


def test_metrics_parse_as_prometheus_text_and_their_counters_move_with_the_traffic(server):
    before = samples(server.base_url)
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        for _ in range(10):
            assert http.get("/healthz").status_code == 200
        a_move(http)
    after = samples(server.base_url)
    assert after[HEALTHZ] - before.get(HEALTHZ, 0) >= 10  # (whichever worker answered each)
    assert after[MOVES] - before.get(MOVES, 0) >= 1
    assert after[MOVE_TIMES] - before.get(MOVE_TIMES, 0) >= 1
    assert ("cardhall_followers_limit", ()) in after and ("cardhall_games_cached", ()) in after


def test_a_metrics_file_a_killed_worker_left_empty_does_not_fail_the_scrape(server):
    # A worker creates its file of figures empty and sizes it a moment later; one killed in between leaves it
    # empty for good (a scrape that read it failed whole: a 500 on every scrape from then on).
    left = Path(server.environment()["PROMETHEUS_MULTIPROC_DIR"]) / "counter_4194301.db"
    assert not left.exists()
    left.touch()
    try:
        after = samples(server.base_url)
    finally:
        left.unlink()
    assert after[HEALTHZ] >= 1 and ("cardhall_followers_limit", ()) in after


def test_each_answer_carries_a_request_id_that_its_json_log_line_carries_too(server):
    made = httpx.get(f"{server.base_url}/v1/games", timeout=10)
    chosen = httpx.get(f"{server.base_url}/v1/game-types", headers={"X-Request-ID": "bot-7.turn-12"}, timeout=10)
    assert len(made.headers["X-Request-ID"]) >= 16 and chosen.headers["X-Request-ID"] == "bot-7.turn-12"
    wanted = {"bot-7.turn-12", made.headers["X-Request-ID"]}
    lines = server.json_log(until=lambda lines: wanted <= {line.get("request_id") for line in lines})
    logged = {line.get("request_id"): line for line in lines if line["logger"] == "cardhall.access"}
    assert logged["bot-7.turn-12"]["path"] == "/v1/game-types" and logged["bot-7.turn-12"]["status"] == 200
    assert logged[made.headers["X-Request-ID"]]["path"] == "/v1/games"


def test_an_api_key_appears_in_no_log_line_metric_or_answer_after_its_creation(server):
    """A key travels in requests that succeed, are refused, ask for a seat, move and stream; it is in
    nothing the server writes or answers afterwards, even a key the server refused."""
    created = httpx.post(f"{server.base_url}/v1/accounts", json={"name": "keeper", "kind": "bot"}, timeout=10)
    key = created.json()["key"]
    forged = key[:16] + "0" * (len(key) - 16)
    seen: list[httpx.Response] = []
    for used in (key, forged, f"{key}x"):
        headers = {"Authorization": f"Bearer {used}", "X-Request-ID": f"key-{len(seen)}"}
        seen.append(httpx.get(f"{server.base_url}/v1/account", headers=headers, timeout=10))
        seen.append(httpx.get(f"{server.base_url}/v1/account/events", params={"after": 0}, headers=headers, timeout=10))
        game = httpx.post(f"{server.base_url}/v1/games", json={"game": "craits", "players": 2}, timeout=10).json()["id"]
        seen.append(httpx.post(f"{server.base_url}/v1/games/{game}/seats", json={}, headers=headers, timeout=10))
        seen.append(httpx.post(f"{server.base_url}/v1/games/{game}/moves", json={"type": "draw"}, headers=headers,
                               timeout=10))
    assert [answer.status_code for answer in seen[:2]] == [200, 200] and seen[4].status_code == 401
    ids = {answer.headers["X-Request-ID"] for answer in seen}
    lines = server.json_log(until=lambda lines: ids <= {line.get("request_id") for line in lines})
    assert ids <= {line.get("request_id") for line in lines}
    written = server.log_path.read_text() + httpx.get(f"{server.base_url}/metrics", timeout=10).text
    for answer in seen:
        written += answer.text + "".join(f"{name}: {value}\n" for name, value in answer.headers.items())
    for secret in (key, forged, key[16:]):
        assert secret not in written


def test_every_line_of_the_json_log_is_a_json_object_the_servers_own_serving_line_too(server):
    lines = server.log_path.read_text().splitlines()
    assert lines and [line for line in lines if not line.startswith("{")] == []
    said = [json.loads(line) for line in lines if '"logger": "cardhall"' in line]
    assert [line["level"] for line in said if line["message"].startswith("serving sqlite:///")] == ["info"]
