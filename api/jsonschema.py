"""Exact JSON Schemas for request bodies whose rules marshmallow cannot say.

A game's player range and options decide what a creation request may hold
(``first_dealer`` must be a seat of *that* game, ``decks`` permutations of the
52 cards), so the document states one branch per game and player count, built
from the games' own descriptions: every body the document allows is one the
server accepts.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from api.schemas import ENTROPY_PATTERN, GAME_ID_PATTERN, MAX_VERSION, NAME_PATTERN
from bots import BOT_KINDS
from domain.cards import DECK
from domain.game import all_games
from domain.moves import kind_of

DECK_SCHEMA = {
    "type": "array",
    "description": "A full 52-card order, index 0 the top card",
    "items": {"enum": list(DECK)},
    "minItems": 52,
    "maxItems": 52,
    "uniqueItems": True,
}


def option_schema(spec: dict[str, Any], players: int) -> dict[str, Any]:
    """The JSON Schema of one option (as ``Game.describe`` lists it) in a game of ``players``."""
    kind = spec["type"]
    out: dict[str, Any] = {"description": spec["description"]}
    if kind == "bool":
        return {**out, "type": "boolean"}
    if kind == "decks":
        return {**out, "type": "array", "items": DECK_SCHEMA, "minItems": 1, "maxItems": spec["maximum"]}
    if kind == "seat":
        return {**out, "type": "integer", "minimum": 0, "maximum": players - 1}
    bounds = {key: spec[key] for key in ("minimum", "maximum") if key in spec}
    return {**out, "type": "integer", **bounds}


def create_game_schema(replay: bool = False) -> dict[str, Any]:
    """One branch per game and player count; ``replay``: with ``replay_of`` (``POST /v1/games`` takes it,
    a challenge does not)."""
    extra = {"replay_of": {"type": "string", "pattern": GAME_ID_PATTERN}} if replay else {}
    branches = []
    for name, game in sorted(all_games().items()):
        described = game.describe()
        for players in range(game.min_players, game.max_players + 1):
            options = {key: option_schema(spec, players) for key, spec in described["options"].items()}
            branches.append({
                "title": f"{name} for {players}",
                "type": "object",
                "additionalProperties": False,
                "required": ["game", "players"],
                "properties": {
                    "game": {"const": name},
                    "players": {"const": players},
                    "options": {"type": "object", "additionalProperties": False, "properties": options},
                    **extra,
                },
            })
    return {"oneOf": branches}


ENTROPY = {"type": "string", "pattern": ENTROPY_PATTERN}
JOIN_SCHEMA = {
    "oneOf": [
        {
            "title": "a person",
            "type": "object",
            "additionalProperties": False,
            "required": ["name"],
            "properties": {"name": {"type": "string", "pattern": NAME_PATTERN}, "entropy": ENTROPY},
        },
        {
            "title": "a house bot",
            "type": "object",
            "additionalProperties": False,
            "required": ["bot"],
            "properties": {"bot": {"enum": list(BOT_KINDS)}, "entropy": ENTROPY},
        },
        {
            "title": "an account (its API key as the bearer token)",
            "type": "object",
            "additionalProperties": False,
            "maxProperties": 0,
        },
    ]
}


def move_schema() -> dict[str, Any]:
    """One branch per game and move type, from the games' own move classes and their fields' kinds: a move
    of another game than the one in the path is refused (422 ``validation_error``), as the branch titles say."""
    branches = []
    for name, game in sorted(all_games().items()):
        for move_type, cls in game.moves.classes.items():
            fields = dataclasses.fields(cls)
            branches.append({
                "title": f"{name}: {move_type}",
                "type": "object",
                "additionalProperties": False,
                "required": ["type", *(field.name for field in fields if field.default is dataclasses.MISSING)],
                "properties": {
                    "type": {"const": move_type},
                    **{field.name: copy.deepcopy(kind_of(field).schema) for field in fields},
                    "expected_version": {"type": "integer", "minimum": 0, "maximum": MAX_VERSION,
                                         "description": "Refuse the move unless the game is at this version"},
                },
            })
    return {"anyOf": branches}
