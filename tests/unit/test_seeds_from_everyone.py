"""Seeds from everyone: every shuffle's order is derived from the server seed, every seat's entropy and
the shuffle's index (domain.fairness), so that no single party, the server included, chooses a deal."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from domain import table as tables
from domain.cards import DECK
from domain.fairness import Seeds, derived_order, seed_hash
from service.house import House
from service.local import LOCAL_SECRET

SEED = "ab" * 32
ENTROPY = ["01" * 32, "02" * 32, None]
PINNED = "ASTC9C4C7H4S"  # (docs/api.md, "Fairness", gives the same test vector)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "verify_game.py"


def _verify_game():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("verify_game", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dealt(server_seed: str, entropy: list[str | None]) -> tuple[str, ...]:
    """The first shuffle of a three-player Craits game with ``server_seed``, its seats taken with ``entropy``."""
    table = tables.evolve(None, tables.create("craits", 3, {"short": True}, server_seed))
    for seat_entropy in entropy:
        table = tables.evolve(table, tables.take_seat(table, name="p", entropy=seat_entropy))
    request = tables.chance(table)
    assert request is not None
    return House(LOCAL_SECRET).draw(table, request).order


def test_the_same_server_seed_with_different_entropy_deals_differently():
    assert dealt(SEED, ENTROPY) == dealt(SEED, ENTROPY)
    assert dealt(SEED, ENTROPY) != dealt(SEED, [ENTROPY[0], "03" * 32, None])
    assert dealt(SEED, ENTROPY) != dealt(SEED, [*ENTROPY[:2], "04" * 32])  # (a seat that added none, then some)
    assert dealt(SEED, ENTROPY) != dealt("cd" * 32, ENTROPY)


def test_every_shuffle_index_gives_its_own_permutation_of_the_cards():
    orders = {derived_order(DECK, SEED, ENTROPY, index) for index in range(1, 200)}
    assert len(orders) == 199 and all(sorted(order) == sorted(DECK) for order in orders)
    assert derived_order(reversed(DECK), SEED, ENTROPY, 5) == derived_order(DECK, SEED, ENTROPY, 5)  # (sorted first)


def test_the_example_verifier_derives_exactly_what_the_server_does():
    verify_game = _verify_game()
    for index in range(1, 60):
        cards = DECK[: 52 - index % 40]
        assert verify_game.derived_order(list(cards), SEED, ENTROPY, index) == list(derived_order(cards, SEED, ENTROPY,
                                                                                                   index))


def test_the_construction_is_pinned():
    """The documented construction, pinned to a value: a change to it must be a new label, not a silent one."""
    assert derived_order(["AS", "2S", "3S", "4S", "5S"], "00" * 32, [None], 1) == derived_order(
        ["5S", "4S", "3S", "2S", "AS"], "00" * 32, [None], 1)
    assert "".join(derived_order(DECK, "00" * 32, [], 1))[:12] == PINNED


def test_a_game_shows_the_hash_of_its_server_seed_until_the_end_and_the_seed_after():
    table = tables.evolve(None, tables.create("scat", 2, {}, SEED))
    created = tables.GameCreated(None, "scat", 2, table.options, table.game.rules_version, SEED)
    assert tables.redact(table, created, None)["server_seed"] is None
    assert tables.public_seeds(table)["server_seed_hash"] == seed_hash(SEED)
    assert tables.public_seeds(table)["server_seed"] is None
    assert tables.redact(table, created, None, reveal_all=True)["server_seed"] == SEED
    assert tables.public_seeds(table, reveal_all=True)["server_seed"] == SEED


def test_a_seeded_game_mixes_no_seats_entropy_and_a_replay_its_originals():
    seeded = tables.evolve(None, tables.create("scat", 2, {"seed": 4}, SEED))
    seeded = tables.evolve(seeded, tables.take_seat(seeded, name="a", entropy="0f" * 32))
    assert seeded.seeds == Seeds(SEED, (), fixed=True)
    assert seeded.seats[0].entropy == "0f" * 32  # (shown, though not mixed)
    replay = tables.evolve(None, tables.create("scat", 2, {}, SEED, ("0e" * 32, None), replay_of="g1"))
    replay = tables.evolve(replay, tables.take_seat(replay, name="a", entropy="0f" * 32))
    assert replay.seeds == Seeds(SEED, ("0e" * 32, None), fixed=True, replay_of="g1")
    assert tables.chance_fixed(replay) == {"seeded": True, "stacked": False}
