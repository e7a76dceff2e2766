"""docs/bots.md's table of errors names every code a bot may be answered, with its status and the client's exception."""

from __future__ import annotations

import re
from pathlib import Path

import cardhall_client
from api.errors import STATUS_OF_CODE

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(?P<code>[a-z_]+)` \| (?P<status>[\d/]+) \| `(?P<exception>\w+)` \|", re.MULTILINE)


def test_every_error_code_below_500_is_in_the_table_with_its_status_and_the_clients_exception():
    rows = {row["code"]: row for row in ROW.finditer((ROOT / "docs" / "bots.md").read_text())}
    expected = {code for code, status in STATUS_OF_CODE.items() if status < 500}
    assert expected - set(rows) == set()
    for code in expected:
        assert str(STATUS_OF_CODE[code]) in rows[code]["status"].split("/"), code
        assert getattr(cardhall_client, rows[code]["exception"]).code == code
