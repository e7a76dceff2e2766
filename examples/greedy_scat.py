"""A greedy Scat (31) bot: take the discard when it helps, knock on a strong hand, drop the least useful card.

    cardhall bot run examples/greedy_scat.py:choose --server http://localhost:8000 --new scat --players 3
"""


def value(cards):
    """The best suit total of these cards (aces 11, faces 10)."""
    points = [(card[1], 11 if card[0] == "A" else 10 if card[0] in "TJQK" else int(card[0])) for card in cards]
    return max(sum(p for suit, p in points if suit == s) for s in "CDHS")


def choose(view):
    """Declare 31 or knock when strong; otherwise pick the draw or the discard that leaves the best hand."""
    moves, hand, top = view["legal_moves"], view["state"]["hand"], view["state"]["top_card"]
    kinds = {move["type"]: move for move in moves}
    if "declare_31" in kinds:
        return kinds["declare_31"]
    if "knock" in kinds and value(hand) >= 27:
        return kinds["knock"]
    discards = [move for move in moves if move["type"] == "discard"]
    if discards:
        return max(discards, key=lambda move: value([card for card in hand if card != move["card"]]))
    best_with_top = max(value([card for card in hand if card != gone] + [top]) for gone in hand) if top else 0
    wanted = "discard" if best_with_top > value(hand) else "stock"
    return next((m for m in moves if m.get("source") == wanted), moves[0])
