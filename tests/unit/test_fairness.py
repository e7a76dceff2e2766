"""Shuffle commitments in the domain: the contract's exact form, what each viewer sees, the audit, and
how shuffles stored before commitments are read (upcasters)."""

from __future__ import annotations

import json
import pathlib
import re

from domain import fairness
from domain import table as tables
from domain.fairness import Shuffled
from domain.games.craits import RoundDealt
from service.local import LocalGame

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"


def shuffles_of(table_events: list) -> list[tuple[int, Shuffled]]:
    return [(version, e) for version, e in enumerate(table_events, start=1) if isinstance(e, Shuffled)]


def test_a_commitment_is_the_sha256_hex_of_salt_colon_the_cards_joined_by_commas():
    # sha256(b"00112233445566778899aabbccddeeff:AS,KD,7H"), worked out once by hand with sha256sum
    assert fairness.commitment("00112233445566778899aabbccddeeff", ["AS", "KD", "7H"]) == (
        "4c10c2b3377d1888daf79ede27893fd70c09fb4f6e6cbc87ac4a6809d69b8792")


def test_a_shuffle_shows_its_commitment_alone_until_the_game_is_over_then_its_salt_and_order():
    game = LocalGame("scat", 2, {"lives": 1})
    shuffle = next(e for e in game.events if isinstance(e, Shuffled))
    assert re.fullmatch(r"[0-9a-f]{32}", shuffle.salt)
    for seat in (None, 0, 1):
        assert tables.redact(game.table, shuffle, seat) == {"order": None, "salt": None,
                                                            "commitment": shuffle.commitment}
    assert tables.redact(game.table, shuffle, None, reveal_all=True) == {
        "order": list(shuffle.order), "salt": shuffle.salt, "commitment": shuffle.commitment}


def test_the_audit_hides_salts_and_orders_until_the_end_then_checks_each_shuffle():
    game = LocalGame("craits", 2, {"short": True})
    running = fairness.audit(shuffles_of(game.events), over=False)
    assert running["verified"] is None
    assert all(s["salt"] is None and s["order"] is None and s["ok"] is None for s in running["shuffles"])
    over = fairness.audit(shuffles_of(game.events), over=True)
    assert over["verified"] is True and [s["ok"] for s in over["shuffles"]] == [True] * len(over["shuffles"])
    version, dealt = next((v, e) for v, e in shuffles_of(game.events) if isinstance(e, RoundDealt))
    stacked = RoundDealt(None, order=dealt.order[::-1], salt=dealt.salt, commitment=dealt.commitment)
    tampered = fairness.audit([*shuffles_of(game.events), (version, stacked)], over=True)
    assert tampered["verified"] is False and tampered["shuffles"][-1]["ok"] is False


def test_a_log_stored_before_commitments_replays_and_its_shuffles_never_verify():
    entries = json.loads((GOLDEN / "craits_3p_short_seed42.log.json").read_text())
    assert "commitment" not in next(e for e in entries if e["type"] == "RoundDealt")["data"]
    assert "rules_version" not in entries[0]["data"]
    events = [tables.decode("craits", e["type"], e["seat"], e["data"]) for e in entries]
    assert tables.replay(events).game.rules_version == "craits/1"
    audit = fairness.audit(shuffles_of(events), over=True)
    assert audit["shuffles"] and audit["verified"] is False
    assert all(s["commitment"] is None and s["salt"] is None and s["order"] for s in audit["shuffles"])
