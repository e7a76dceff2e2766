"""The rules pages: each game's rules document (``docs/rules/{game}.md`` in the repository) as HTML.

Rendered on the server with markdown-it (CommonMark and tables; raw HTML in the document is
escaped, not passed through), once per process. Headings get the ids GitHub gives them, so a
rule is linked as ``/rules/craits#c8-drawing``; links between the rules documents lead to
their pages.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup

RULES = Path(__file__).resolve().parents[1] / "docs" / "rules"


def games() -> list[str]:
    """The games with a rules document, by name."""
    return sorted(path.stem for path in RULES.glob("*.md"))


def slug(text: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@functools.cache
def page(game: str) -> tuple[str, Markup] | None:
    """The rules of ``game``: the document's title and its body as HTML; None if it has no document."""
    if game not in games():
        return None
    text = (RULES / f"{game}.md").read_text(encoding="utf-8")
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = markdown.parse(text)
    title = game.title()
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            words = tokens[index + 1].content
            token.attrSet("id", slug(words))
            if token.tag == "h1":
                title = words
        _relink(token.children or [])
    return title, Markup(markdown.renderer.render(tokens, markdown.options, {}))


def _relink(children: list) -> None:  # type: ignore[type-arg]
    """Links as they work on the rules pages: another game's rules lead to its page; one to any other file
    of the repository, which the server does not serve, becomes plain text."""
    opened = []
    for child in children:
        if child.type == "link_open":
            href = str(child.attrGet("href") or "")
            target, _, anchor = href.partition("#")
            if target.endswith(".md") and "/" not in target and target[:-3] in games():
                child.attrSet("href", f"/rules/{target[:-3]}" + (f"#{anchor}" if anchor else ""))
            elif target and "://" not in target:
                child.tag, child.attrs = "span", {}
            opened.append(child)
        elif child.type == "link_close":
            child.tag = opened.pop().tag
