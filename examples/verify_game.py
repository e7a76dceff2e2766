"""Check that a finished Cardhall game was dealt fairly, from its public record alone.

    python3 examples/verify_game.py http://127.0.0.1:8000 GAME_ID

Standard library only, and none of Cardhall's code: a stranger can run it against
any Cardhall server. It reads the game's events over HTTP and checks

* every shuffle's commitment: the lower-case hex SHA-256 of ``SALT:CARD,CARD,…``
  (the API contract, "Fairness"), recorded before anyone could see the cards,
  must match the salt and order revealed at the end;
* that every deal dealt the committed order as the rules say (Craits C5, Scat
  S4): the hands, the up-card and the pile in the view right after the deal;
* that every dealer draw drew the top cards of its committed order (C4, S3),
  and every reshuffle (C9) was a shuffle of the discard pile but its top card.

It prints one line per finding and exits 0 when everything holds, 1 when
anything does not, 2 when the game cannot be checked (not over, unreachable).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

Get = Callable[[str], Any]
SALT = re.compile(r"[0-9a-f]{32}")
DEAL_TYPES = {"RoundDealt", "DeckShuffled"}


class Unverifiable(Exception):
    """The game cannot be checked: not over yet, or not to be read."""


def http_getter(base_url: str) -> Get:
    """GET ``base_url + path`` as JSON."""

    def get(path: str) -> Any:
        try:
            with urllib.request.urlopen(base_url.rstrip("/") + path, timeout=30) as answer:
                return json.load(answer)
        except (urllib.error.URLError, ValueError) as error:
            raise Unverifiable(f"GET {path}: {error}") from error

    return get


def commitment(salt: str, order: list[str]) -> str:
    """The contract's commitment to ``order`` under ``salt``."""
    return hashlib.sha256(f"{salt}:{','.join(order)}".encode()).hexdigest()


def all_events(get: Get, game_id: str) -> list[dict[str, Any]]:
    """Every event of the game, page by page."""
    events: list[dict[str, Any]] = []
    while True:
        page = get(f"/v1/games/{game_id}/events?after={len(events)}&limit=1000")
        events += page["events"]
        if not page["events"] or len(events) >= page["last_version"]:
            return events


def check_commitment(event: dict[str, Any]) -> list[str]:
    """Problems with a shuffle's commitment."""
    data = event["data"]
    salt, order, committed = data.get("salt"), data.get("order"), data.get("commitment")
    if committed is None:
        return ["committed to nothing"]
    if not isinstance(salt, str) or not SALT.fullmatch(salt) or not isinstance(order, list):
        return ["no 32-hex salt and order revealed"]
    if sorted(order) != sorted(set(order)):
        return ["the order repeats a card"]
    return [] if commitment(salt, order) == committed else ["the salt and order do not give the commitment"]


def craits_deal(order: list[str], state: dict[str, Any]) -> list[str]:
    """C5: one card at a time from the dealer's left, then the up-card; an up-card's draws come off the top."""
    players, size, dealer = len(state["hands"]), state["hand_size"], state["dealer"]
    problems, extras = [], []
    for offset in range(players):
        seat = (dealer + 1 + offset) % players
        hand = state["hands"][seat]
        if hand[:size] != order[offset : size * players : players]:
            problems.append(f"seat {seat} was not dealt {order[offset : size * players : players]}")
        extras += hand[size:]
    up = size * players
    if state["discard"][:1] != [order[up]]:
        problems.append(f"the up-card is not {order[up]}")
    if sorted(extras) != sorted(order[up + 1 : up + 1 + len(extras)]) or state["draw_pile"] != 51 - up - len(extras):
        problems.append("the draw pile is not the rest of the order")
    return problems


def scat_deal(order: list[str], state: dict[str, Any]) -> list[str]:
    """S4: three cards each from the dealer's left to everyone still in, the up-card, the rest the stock."""
    players, out = len(state["hands"]), set(state["out"])
    seats = [(state["dealer"] + step) % players for step in range(1, players + 1)]
    seats = [seat for seat in seats if seat not in out]
    count = len(seats)
    problems = [
        f"seat {seat} was not dealt {order[index : 3 * count : count]}"
        for index, seat in enumerate(seats)
        if state["hands"][seat] != order[index : 3 * count : count]
    ]
    if state["discard"] != [order[3 * count]] or state["stock"] != 51 - 3 * count:
        problems.append("the up-card and the stock are not the rest of the order")
    return problems


def dealer_draw(order: list[str], state: dict[str, Any]) -> list[str]:
    """C4/S3: the drawers took the top cards of the order."""
    rounds = state.get("dealer_draws")
    if rounds is None:  # (Scat's view spells it with objects)
        rounds = [[[pair["seat"], pair["card"]] for pair in draw] for draw in state["dealer_draw"]]
    drawn = [card for _, card in rounds[-1]]
    return [] if drawn == order[: len(drawn)] else [f"the cards drawn {drawn} are not the top of the order"]


def check_shuffle(get: Get, game: dict[str, Any], event: dict[str, Any]) -> list[str]:
    """Problems with one shuffle: its commitment, then what the rules say it did."""
    problems = check_commitment(event)
    if problems:
        return problems
    order, version = event["data"]["order"], event["version"]
    state = get(f"/v1/games/{game['id']}/state?at={version}")["state"]
    if event["type"] in DEAL_TYPES:
        return (craits_deal if game["game"] == "craits" else scat_deal)(order, state)
    if event["type"] == "DealerDrawShuffled":
        return dealer_draw(order, state)
    before = get(f"/v1/games/{game['id']}/state?at={version - 1}")["state"]
    return [] if sorted(order) == sorted(before["discard"][:-1]) else ["not a shuffle of the discard pile"]


def verify(get: Get, game_id: str) -> list[str]:
    """Every problem found with the game's shuffles, one line each, after a line per shuffle checked."""
    game = get(f"/v1/games/{game_id}")
    if game.get("status") != "finished":
        raise Unverifiable(f"game {game_id} is {game.get('status')}: its shuffles are revealed once it is over")
    shuffles = [event for event in all_events(get, game_id) if event["data"] and "commitment" in event["data"]]
    if not shuffles:
        return ["no shuffle is committed"]
    problems = []
    for event in shuffles:
        found = check_shuffle(get, game, event)
        print(f"{event['version']:>6} {event['type']:<20} {'FAILED: ' + '; '.join(found) if found else 'ok'}")
        problems += [f"event {event['version']} ({event['type']}): {problem}" for problem in found]
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        problems = verify(http_getter(argv[0]), argv[1])
    except Unverifiable as error:
        print(f"cannot verify: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem, file=sys.stderr)
    print("NOT VERIFIED" if problems else "verified: every shuffle was committed and dealt as committed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
