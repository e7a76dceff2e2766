"""The waiting routes' reading of a query on the event loop agrees with the Flask app's reading of it."""

from __future__ import annotations

import io
from urllib.parse import parse_qsl

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.asgi import _names
from api.waiting import _joined, _plain_query

QUERY_TEXT = st.text(alphabet="afitw=&%+;2 10x", max_size=30)


@given(QUERY_TEXT)
def test_the_names_of_a_query_are_those_the_app_reads(text: str) -> None:
    """Which route answers a GET (the waiting handler for ``wait``, else the Flask app) is decided by the names
    the query holds, read without ``parse_qsl`` when nothing in it is encoded: the same names either way."""
    assert _names(text.encode()) == {name for name, _ in parse_qsl(text, keep_blank_values=True)}


def test_a_plain_query_is_read_once_and_can_not_be_changed_by_its_reader() -> None:
    """A long-poll's plain query is read once for every follower asking it: what one reader is given is the
    same for the next, and it can not be changed in between."""
    first, again = _plain_query("after=7&wait=30"), _plain_query("after=7&wait=30")
    assert first is again and dict(first) == {"after": 7, "wait": 30.0, "limit": 100}
    with pytest.raises(TypeError):
        first["after"] = 8  # type: ignore[index]
    assert _plain_query("after=7&wait=30")["after"] == 7
    assert _plain_query("after=7&wait=31") is None and _plain_query("after=7&after=8") is None


def test_a_header_sent_twice_is_read_on_the_loop_as_the_apps_environ_joins_it() -> None:
    """The quiet long-poll reads its ``X-Request-ID`` and ``If-None-Match`` from the request's raw headers, as the
    app reads them from its WSGI environ (a2wsgi's: repeated headers joined by commas)."""
    from a2wsgi.wsgi import build_environ

    heads = [(b"host", b"x"), (b"if-none-match", b'"a"'), (b"x-request-id", b"r1"), (b"if-none-match", b'W/"b"')]
    environ = build_environ({"type": "http", "method": "GET", "path": "/", "query_string": b"", "root_path": "",
                             "headers": heads, "server": ("x", 80), "client": ("127.0.0.1", 1), "scheme": "http",
                             "http_version": "1.1"}, io.BytesIO())
    assert _joined(heads, b"if-none-match") == environ["HTTP_IF_NONE_MATCH"]
    assert _joined(heads, b"x-request-id") == environ["HTTP_X_REQUEST_ID"] == "r1"
    assert _joined(heads, b"authorization") == ""
