"""The repository stands alone: every relative link of every Markdown file resolves inside it.

A link to a file must name a file of the repository (its ``#anchor`` a heading there);
nothing may point above the repository's root, where a fresh clone has nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_DIRS = {".git", "node_modules", "build", "dist", ".venv", "venv"}
FENCED = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HTML_LINK = re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']""")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto: ... : not a file of the repository


def markdown_files() -> list[Path]:
    return sorted(path for path in ROOT.rglob("*.md")
                  if not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts[:-1])
                  and not any(part.endswith(".egg-info") for part in path.parts))


def links(text: str) -> list[str]:
    """The link targets of a Markdown text, code blocks and code spans left out."""
    prose = CODE_SPAN.sub("", FENCED.sub("", text))
    return [target for pattern in (INLINE_LINK, REFERENCE, HTML_LINK) for target in pattern.findall(prose)]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(heading) for heading in HEADING.findall(FENCED.sub("", path.read_text(encoding="utf-8")))}


def broken(source: Path, target: str) -> str | None:
    """Why ``target`` (a link in ``source``) does not resolve inside the repository, or None."""
    if EXTERNAL.match(target):
        return None
    path_part, _, fragment = target.partition("#")
    resolved = (source.parent / path_part).resolve() if path_part else source
    if not resolved.is_relative_to(ROOT):
        return "points outside the repository"
    if not resolved.exists():
        return "names no file"
    if fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
        return f"names no heading #{fragment}"
    return None


def test_the_repository_has_markdown_files_with_relative_links():
    assert any(not EXTERNAL.match(target) for path in markdown_files() for target in links(path.read_text()))


@pytest.mark.parametrize("source", markdown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(source):
    problems = {target: why for target in links(source.read_text(encoding="utf-8"))
                if (why := broken(source, target))}
    assert problems == {}


@pytest.mark.parametrize("source", markdown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_markdown_file_sends_the_reader_above_the_repository(source):
    # Not even in a code span: `../shared/...` is a folder a clone does not have.
    assert not re.search(r"\.\./shared\b", source.read_text(encoding="utf-8"))


def test_the_checker_catches_a_link_outside_a_missing_file_and_a_missing_heading(tmp_path):
    readme = ROOT / "README.md"
    assert broken(readme, "../shared/API.md") == "points outside the repository"
    assert broken(readme, "docs/nothing-here.md") == "names no file"
    assert broken(readme, "docs/rules/craits.md#c99-no-such-rule") == "names no heading #c99-no-such-rule"
    assert broken(readme, "docs/rules/craits.md#c8-drawing") is None
    assert links("see [a](x.md), `[b](y.md)` and\n```\n[c](z.md)\n```\n[d]: w.md") == ["x.md", "w.md"]
