"""A Craits bot that plays any legal move at random.

    cardhall bot run examples/random_craits.py:choose --server http://localhost:8000 --new craits --players 4
"""

import random


def choose(view):
    """Any legal move; they are listed in the view and can be sent back as they are."""
    return random.choice(view["legal_moves"])
