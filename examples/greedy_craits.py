"""A greedy Craits bot: call out whoever forgot to announce, shed the costliest card, keep the suit it holds.

    cardhall bot run examples/greedy_craits.py:choose --server http://localhost:8000 --new craits --players 4
"""

POINTS = {"A": 1, "2": 20, "3": 0, "4": 15, "5": 30, "6": 30, "7": 20, "8": 50,
          "9": 30, "T": 25, "J": 10, "Q": 10, "K": 10}


def choose(view):
    """The legal move with the best score: calls first, then the play that sheds the most points."""
    hand = view["state"]["hand"]

    def held(suit):
        return sum(card[1] == suit for card in hand)

    def worth(move):
        kind = move["type"]
        if kind in ("call", "announce"):
            return 1000
        if kind == "play":
            return POINTS[move["card"][0]] + 100 * move.get("announce", False) + held(move.get("suit", ""))
        if kind == "choose_suit":
            return held(move["suit"])
        return -1  # draw: only when nothing else is legal

    return max(view["legal_moves"], key=worth)
