"""Text a person reads on a page: a seat's name, an account's description, a reason. One line of visible text: no
control character, and none of the marks that turn text right to left or isolate it, which would show the text
around it in another order. The patterns are written as JSON Schema reads them too (the OpenAPI document says them)."""

from __future__ import annotations

import re

#: The characters such text may not hold: C0 and C1 controls, the bidirectional embeddings and overrides
#: (U+202A-U+202E) and isolates (U+2066-U+2069).
_HIDDEN = r"\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069"
#: A name: 1-64 characters of one line.
NAME_PATTERN = rf"^[^{_HIDDEN}]{{1,64}}$"
#: A line of free text, of any length up to its field's.
LINE_PATTERN = rf"^[^{_HIDDEN}]*$"
NAME, LINE = re.compile(NAME_PATTERN), re.compile(LINE_PATTERN)
#: What no database stores (PostgreSQL's text refuses NUL; no UTF-8 encoder takes a lone surrogate).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
