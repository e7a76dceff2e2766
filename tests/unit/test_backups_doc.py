"""docs/deploy.md, "Backups", names every table of the schema: what an operator must keep, and what can be rebuilt."""

from __future__ import annotations

import re
from pathlib import Path

from persistence.schema import metadata

ROOT = Path(__file__).resolve().parents[2]


def test_the_backups_section_names_every_table_of_the_schema() -> None:
    deploy = (ROOT / "docs" / "deploy.md").read_text()
    section = deploy[deploy.index("## Backups"):deploy.index("\n## ", deploy.index("## Backups") + 1)]
    named = set(re.findall(r"`([a-z_]+)`", section))
    assert set(metadata.tables) | {"alembic_version"} <= named
