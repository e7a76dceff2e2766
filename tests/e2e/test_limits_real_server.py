"""The contract's limits through a real server (uvicorn): chunked bodies too, request heads, and the server's own refusals."""

from __future__ import annotations

import json
import socket

import pytest

pytestmark = pytest.mark.timeout(180)


def exchange(base_url: str, head: bytes, chunks: list[bytes] = ()) -> tuple[int, dict[str, str], bytes]:  # type: ignore[assignment]
    """Send a raw request (then ``chunks``, as chunked encoding, as long as the server reads) and parse the answer."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(head)
        try:
            for chunk in chunks:
                connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            if chunks:
                connection.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered and closed before taking it all
            pass
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < _length(answer):
            data = connection.recv(65536)
            if not data:
                break
            answer += data
    head_text, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head_text.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, body


def _length(answer: bytes) -> int:
    for line in answer.partition(b"\r\n\r\n")[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":")[1])
    return 0


def post_chunked(base_url: str, chunks: list[bytes], path: bytes = b"/v1/games") -> tuple[int, dict[str, str], bytes]:
    head = (b"POST %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" % path)
    return exchange(base_url, head, chunks)


def test_a_10_mb_chunked_body_is_413_payload_too_large(live_server):
    status, headers, body = post_chunked(live_server, [b" " * 65536] * 160)
    assert status == 413 and headers["content-type"] == "application/problem+json"
    assert json.loads(body)["code"] == "payload_too_large"


def test_a_chunked_body_under_the_limit_is_read_whole(live_server):
    body = json.dumps({"game": "craits", "players": 2}).encode() + b" " * 60_000
    status, _, answer = post_chunked(live_server, [body[:30_000], body[30_000:]])
    assert status == 201, answer


def test_a_chunked_record_past_64_kib_is_read_whole_by_the_replay(live_server):
    record = b'{"format": ' + b" " * (200 << 10) + b'"cardhall-record/1"}'
    status, _, answer = post_chunked(live_server, [record[:100_000], record[100_000:]], b"/v1/records/replay")
    assert status == 200, answer
    assert json.loads(answer)["valid"] is False and json.loads(answer)["problems"]


def test_a_chunked_record_past_8_mib_is_413_payload_too_large(live_server):
    status, headers, body = post_chunked(live_server, [b" " * 65536] * 130, b"/v1/records/replay")
    assert status == 413 and headers["content-type"] == "application/problem+json"
    assert json.loads(body)["code"] == "payload_too_large"


@pytest.mark.parametrize(("request_head", "expected", "code"), [
    (b"GET /v1/games?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: test\r\n\r\n", 414, "uri_too_long"),
    (b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n", 431, "headers_too_large"),
    (b"GET /healthz HTTP/1.1\r\nHost: test\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(101)) + b"\r\n",
     431, "headers_too_large"),
], ids=["long request line", "long header", "too many headers"])
def test_a_request_head_past_its_limits_is_refused_as_a_problem(live_server, request_head, expected, code):
    status, headers, body = exchange(live_server, request_head)
    assert (status, headers["content-type"]) == (expected, "application/problem+json")  # (docs/api.md, "Limits")
    assert json.loads(body)["code"] == code


def test_the_server_refuses_a_malformed_request_line_itself(live_server):
    status, headers, _ = exchange(live_server, b"NOT HTTP AT ALL\r\n\r\n")
    assert status == 400 and headers["content-type"].startswith("text/plain")  # (docs/api.md, "Limits")
