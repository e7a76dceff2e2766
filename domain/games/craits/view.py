"""What a seat may see of a Craits game (C17)."""

from __future__ import annotations

from typing import Any

from domain.games.craits.rules import HAND_SIZES, OVER
from domain.games.craits.state import CraitsState, final_result


def render(state: CraitsState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
    """The API's state object for ``seat`` (``None``: a spectator); all hands once ``reveal_all``."""
    hands = [list(hand) if reveal_all or s == seat else None for s, hand in enumerate(state.hands)]
    over = state.phase == OVER
    return {
        "players": state.players,
        "phase": state.phase,
        "dealer": state.dealer,
        "dealer_draws": [[[s, card] for s, card in draw] for draw in state.dealer_draws],
        "hand": list(state.hands[seat]) if seat is not None and 0 <= seat < state.players else None,
        "hand_sizes": [len(hand) for hand in state.hands],
        "hands": hands,
        "top_card": state.discard[-1] if state.discard else None,
        "discard": list(state.discard),
        "draw_pile": len(state.pile),
        "round": state.round,
        "rounds": state.rounds,
        "hand_size": HAND_SIZES[state.round - 1] if state.round else None,
        "turn": state.turn,
        "choosing_suit": state.choosing,
        "direction": state.direction,
        "active_suit": state.active_suit,
        "crank": state.crank,
        "announced": list(state.announced),
        "unannounced": list(state.unannounced),
        "skip_next": list(state.skip_next),
        "scores": list(state.scores),
        "round_scores": [list(points) for points in state.round_scores],
        "blocked_rounds": [index + 1 for index, blocked in enumerate(state.blocked) if blocked],
        "result": final_result(state) if over else None,
    }
