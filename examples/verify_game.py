"""Check that a finished Cardhall game was dealt fairly, from its public record alone.

    python3 examples/verify_game.py http://127.0.0.1:8000 GAME_ID [--saved FILE]

Standard library only, and none of Cardhall's code: a stranger can run it against
any Cardhall server. It reads the game's events over HTTP and checks

* every shuffle's commitment: the lower-case hex SHA-256 of ``SALT:CARD,CARD,…``
  (the API contract, "Fairness"), recorded before anyone could see the cards,
  must match the salt and order revealed at the end;
* that every deal dealt the committed order as the rules say (Craits C5, Scat
  S4): the hands, the up-card and the pile in the view right after the deal;
* that every dealer draw drew the top cards of its committed order (C4, S3),
  and every reshuffle (C9) was a shuffle of the discard pile but its top card;
* the server seed revealed at the end against the ``server_seed_hash`` the game
  committed to at creation, and that every shuffle's order is the one the server
  seed, the entropy mixed in (every seat's, as each seat was taken; none for a
  seeded game; a replay's original's) and the shuffle's version derive by the
  construction of the API's "Fairness" (written out again below, in
  :func:`derived_order`); a stacked game's first deals must be its decks and its
  reshuffles the pile turned over;
* with ``--saved FILE`` (what a player saved while playing: ``cardhall bot run
  --commitments FILE`` writes it), that the server seed hash, every seat's entropy and
  every commitment the player was shown are the ones the finished game shows.

A game imported from a record (``imported_from`` in its summary) had its
commitments shown where it was played, not by this server, and the script says
so; one played offline (no server seed, as ``cardhall_env`` plays) cannot be
verified as fair at all, only checked for holding together, and is NOT VERIFIED.

It prints one line per finding and exits 0 when everything holds, 1 when
anything does not, 2 when the game cannot be checked (not over, unreachable).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

Get = Callable[[str], Any]
SALT = re.compile(r"[0-9a-f]{32}")
HEX64 = re.compile(r"[0-9a-f]{64}")
DEAL_TYPES = {"RoundDealt", "DeckShuffled"}
DEALER_DRAW_TYPES = {"DealerDrawShuffled"}


class Unverifiable(Exception):
    """The game cannot be checked: not over yet, or not to be read."""


#: The longest a refusal's ``Retry-After`` is waited out (a rate limit's or a busy server's), and how often.
MAX_RETRY_AFTER, RETRIES = 60.0, 5


def http_getter(base_url: str) -> Get:
    """GET ``base_url + path`` as JSON; a 429 or 503 is asked again after its ``Retry-After``."""

    def get(path: str) -> Any:
        for attempt in itertools.count():
            try:
                with urllib.request.urlopen(base_url.rstrip("/") + path, timeout=30) as answer:
                    return json.load(answer)
            except urllib.error.HTTPError as error:
                wait = error.headers.get("Retry-After", "")
                if error.code not in (429, 503) or not wait.isdigit() or int(wait) > MAX_RETRY_AFTER or attempt == RETRIES:
                    raise Unverifiable(f"GET {path}: {error}") from error
                time.sleep(int(wait))
            except (urllib.error.URLError, ValueError) as error:
                raise Unverifiable(f"GET {path}: {error}") from error

    return get


def commitment(salt: str, order: list[str]) -> str:
    """The contract's commitment to ``order`` under ``salt``."""
    return hashlib.sha256(f"{salt}:{','.join(order)}".encode()).hexdigest()


def shuffle_key(server_seed: str, entropy: list[str | None], version: int) -> bytes:
    """Step 1: HMAC-SHA256 under the server seed's bytes of ``cardhall-shuffle/1:E:VERSION``."""
    message = f"cardhall-shuffle/1:{','.join(item or '' for item in entropy)}:{version}"
    return hmac.new(bytes.fromhex(server_seed), message.encode(), hashlib.sha256).digest()


def derived_order(cards: list[str], server_seed: str, entropy: list[str | None], version: int) -> list[str]:
    """Steps 2-4: the cards sorted, then Fisher-Yates from the end with ``below(i + 1)`` drawn from the
    stream of HMAC-SHA256(key, block number as 8 bytes big-endian), 4 bytes at a time, by rejection."""
    key = shuffle_key(server_seed, entropy, version)
    stream: list[int] = []
    block = 0

    def word() -> int:
        nonlocal block
        if not stream:
            chunk = hmac.new(key, block.to_bytes(8, "big"), hashlib.sha256).digest()
            stream.extend(int.from_bytes(chunk[i : i + 4], "big") for i in range(28, -1, -4))
            block += 1
        return stream.pop()

    order = sorted(cards)
    for i in range(len(order) - 1, 0, -1):
        limit = 2**32 - 2**32 % (i + 1)
        value = word()
        while value >= limit:
            value = word()
        j = value % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def mixed_entropy(get: Get, game: dict[str, Any]) -> list[str | None]:
    """The entropy a game's shuffles mix in: a replay's original's, none for a seeded game, else every seat's."""
    if game.get("replay_of"):
        return mixed_entropy(get, get(f"/v1/games/{game['replay_of']}"))
    if "seed" in game["options"]:
        return []
    return [seat.get("entropy") for seat in game["seats"]]


def check_seed(game: dict[str, Any]) -> list[str]:
    """Problems with the server seed: revealed, and the one committed to at creation."""
    seed, committed = game.get("server_seed"), game.get("server_seed_hash")
    if committed is None and game.get("imported_from") is not None:
        return [f"game {game['imported_from']}, imported from its record, has no server seed (played offline, as "
                "cardhall_env plays, or created before seeds from everyone): no server committed to its shuffles "
                "before they were dealt, so they cannot be verified as fair; what is checked is only that the record "
                "holds together (each commitment matches its salt and order, each deal dealt its order)"]
    if committed is None:
        return ["the game committed to no server seed (created before seeds from everyone)"]
    if not isinstance(seed, str) or not HEX64.fullmatch(seed):
        return ["no 64-hex server seed revealed"]
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != committed:
        return ["the server seed revealed is not the one committed to at creation"]
    return []


def check_saved(game: dict[str, Any], shuffles: list[dict[str, Any]], saved: dict[str, Any]) -> list[str]:
    """Problems found comparing what a player saved during play with what the finished game shows."""
    problems = []
    if saved.get("game_id") not in (None, game["id"]):
        problems.append(f"the saved file is of game {saved.get('game_id')}")
    if saved.get("server_seed_hash") != game.get("server_seed_hash"):
        problems.append("the server seed hash differs from the one saved during play")
    for seat, entropy in enumerate(saved.get("entropy") or []):
        if entropy is not None and (seat >= len(game["seats"]) or game["seats"][seat].get("entropy") != entropy):
            problems.append(f"seat {seat}'s entropy differs from the one saved during play")
    shown = {event["version"]: event["data"]["commitment"] for event in shuffles}
    for entry in saved.get("commitments") or []:
        if shown.get(entry["version"]) != entry["commitment"]:
            problems.append(f"event {entry['version']}: the commitment differs from the one saved during play")
    return problems


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


class Chance:
    """What a game's shuffles had to be: its server seed, the entropy mixed in, its decks, the deals so far."""

    def __init__(self, get: Get, game: dict[str, Any]) -> None:
        self.seed = game.get("server_seed")
        self.entropy = mixed_entropy(get, game)
        self.decks = game["options"].get("decks") or []
        self.deals = 0
        self.offline = game.get("imported_from") is not None and self.seed is None  # (check_seed says why)

    def problems(self, event: dict[str, Any], before: dict[str, Any] | None) -> list[str]:
        """Problems with the shuffle's order against what it had to be (``before``: the state before a reshuffle)."""
        order, deal = event["data"]["order"], event["type"] in DEAL_TYPES
        self.deals += deal
        if self.decks and deal and self.deals <= len(self.decks):
            return [] if order == self.decks[self.deals - 1] else [f"deal {self.deals - 1} is not decks[{self.deals - 1}]"]
        if self.decks and before is not None:
            return [] if order == before["discard"][:-1] else ["a stacked game's reshuffle is not the pile turned over"]
        if self.seed is None:
            return [] if self.offline else ["no server seed to derive the order from"]
        if order != derived_order(order, self.seed, self.entropy, event["version"]):
            return ["the order is not the one the server seed, the entropy and the version derive"]
        return []


def check_shuffle(get: Get, game: dict[str, Any], event: dict[str, Any], chance: Chance) -> list[str]:
    """Problems with one shuffle: its commitment, then what the rules say it did, then its derivation."""
    problems = check_commitment(event)
    if problems:
        return problems
    order, version = event["data"]["order"], event["version"]
    state = get(f"/v1/games/{game['id']}/state?at={version}")["state"]
    before = None
    if event["type"] in DEAL_TYPES:
        problems = (craits_deal if game["game"] == "craits" else scat_deal)(order, state)
    elif event["type"] in DEALER_DRAW_TYPES:
        problems = dealer_draw(order, state)
    else:
        before = get(f"/v1/games/{game['id']}/state?at={version - 1}")["state"]
        problems = [] if sorted(order) == sorted(before["discard"][:-1]) else ["not a shuffle of the discard pile"]
    return problems + chance.problems(event, before)


def verify(get: Get, game_id: str, saved: dict[str, Any] | None = None) -> list[str]:
    """Every problem found with the game's shuffles, one line each, after a line per shuffle checked;
    ``saved``: what a player saved during play (see the module docstring), checked against the game."""
    game = get(f"/v1/games/{game_id}")
    if game.get("status") != "finished":
        raise Unverifiable(f"game {game_id} is {game.get('status')}: its shuffles are revealed once it is over")
    shuffles = [event for event in all_events(get, game_id) if event["data"] and "commitment" in event["data"]]
    if not shuffles:
        return ["no shuffle is committed"]
    if game.get("imported_from") is not None:
        print(f"{'game':>6} {'':<20} note: imported from the record of game {game['imported_from']}, played "
              "elsewhere: its commitments were shown there, not by this server")
    problems = check_seed(game) + (check_saved(game, shuffles, saved) if saved is not None else [])
    for problem in problems:
        print(f"{'game':>6} {'':<20} FAILED: {problem}")
    chance = Chance(get, game)
    for event in shuffles:
        found = check_shuffle(get, game, event, chance)
        print(f"{event['version']:>6} {event['type']:<20} {'FAILED: ' + '; '.join(found) if found else 'ok'}")
        problems += [f"event {event['version']} ({event['type']}): {problem}" for problem in found]
    return problems


def main(argv: list[str]) -> int:
    saved = None
    if len(argv) == 4 and argv[2] == "--saved":
        try:
            with open(argv[3], encoding="utf-8") as file:
                saved = json.load(file)
        except (OSError, ValueError) as error:
            print(f"cannot read {argv[3]}: {error}", file=sys.stderr)
            return 2
        argv = argv[:2]
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        problems = verify(http_getter(argv[0]), argv[1], saved)
    except Unverifiable as error:
        print(f"cannot verify: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem, file=sys.stderr)
    print("NOT VERIFIED" if problems else "verified: every shuffle was committed, derived and dealt as committed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
