"""What a seat sees of a game of Scat (S13): a pure filter over the state."""

from __future__ import annotations

from typing import Any

from domain.games.scat.rules import OVER
from domain.games.scat.state import ScatState, Settlement, final_result, shown, value_of


def _why(settlement: Settlement, lost: int) -> str | None:
    """Why a seat lost lives at this settlement, in words (S10, S11)."""
    if not lost:
        return None
    if settlement.reason == "thirty_one":
        return f"seat {settlement.declarer} declared 31"
    return "the knocker alone had the lowest hand" if lost == 2 else "the lowest hand"


def _settlement(settlement: Settlement | None) -> dict[str, Any] | None:
    if settlement is None:
        return None
    return {
        "hand_number": settlement.hand_number,
        "reason": settlement.reason,
        "knocker": settlement.knocker,
        "declarer": settlement.declarer,
        "lost": list(settlement.lost),
        "why": [_why(settlement, lost) for lost in settlement.lost],
        "hands": [None if hand is None else list(hand) for hand in settlement.hands],
        "values": list(settlement.values),
        "eliminated": list(settlement.eliminated),
    }


def render(state: ScatState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
    """The view of ``seat`` (``None``: a spectator); ``reveal_all`` once the game is over."""
    rules = state.rules
    visible = [reveal_all or other == seat or shown(state, other) for other in range(rules.players)]
    hands = [list(hand) if see else None for hand, see in zip(state.hands, visible)]
    return {
        "dealer": state.dealer,
        "dealer_draws": [[[drawer, card] for drawer, card in draw] for draw in state.dealer_draws],
        "hand": None if seat is None else list(state.hands[seat]),
        "hand_sizes": [len(hand) for hand in state.hands],
        "top_card": state.discard[-1] if state.discard else None,
        "discard": list(state.discard),
        "hands": hands,
        "hand_number": state.hand_number,
        "stock": len(state.stock),
        "knocker": state.knocker,
        "lives": list(state.lives),
        "out": [other for other, gone in enumerate(state.out) if gone],
        "county": [other for other in range(rules.players) if state.lives[other] == 0 and not state.out[other]],
        "hand_values": [value_of(state, tuple(hand)) if hand else None for hand in hands],
        "last_settlement": _settlement(state.last_settlement),
        "phase": state.phase,
        "turn": state.turn,
        "taken_from_discard": state.taken,
        "dealer_draw": [[{"seat": drawer, "card": card} for drawer, card in draw] for draw in state.dealer_draws],
        "variants": {
            "three_of_a_kind": rules.three_of_a_kind,
            "straight_flush": rules.straight_flush,
            "min_knock": rules.min_knock,
            "throw_down": rules.throw_down,
        },
        "result": final_result(state) if state.phase == OVER else None,
    }
