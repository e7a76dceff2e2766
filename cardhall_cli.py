"""The ``cardhall`` command."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cardhall`` command."""
    print("cardhall: nothing here yet", file=sys.stderr)
    return 2
