"""What a page looks like to someone on a small screen, measured in the browser from the styles it applies.

``audit(page)`` lists what is wrong, in words: the page scrolling sideways, a control outside the
viewport's width or covered by something else when scrolled to, on a touch screen a control under 44 by
44 px (links in running text aside, as WCAG 2.5.8 has them), text under 14 px as shown, and text whose
contrast with what is painted behind it (every background colour and opacity down to the canvas, composited
as the browser does) is under WCAG AA (4.5:1; 3:1 for large text). Disabled controls are exempt from the
contrast, as WCAG exempts inactive components; text over a background image (a card's back) is not measured.

``focus_ring(page)`` says what is wrong with the focused element's ring: none drawn, or under 3:1 against what
is painted around it (WCAG 1.4.11).
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

AUDIT = (Path(__file__).parent / "layout.js").read_text()


def audit(page: Page) -> list[str]:
    """What is wrong with the page's layout, text sizes and contrast at its viewport, in words (empty: nothing)."""
    return page.evaluate(AUDIT)


def focus_ring(page: Page) -> list[str]:
    """What is wrong with the focused element's focus ring, in words (empty: nothing)."""
    return page.evaluate(AUDIT, "focus")
