"""Fixed action ids: every move a game can ever offer, numbered once, plus ``pass``.

A game's table is built from its move classes alone (``Game.move_classes``), so a
game added through the ``cardhall.games`` entry point gets one too: each move
class in turn, and within it every combination of its fields' values, the first
field varying slowest. A field's values are those its kind allows: a card's the
52 cards (``AC 2C … KS``, suits in ``CDHS`` order), a suit's the four suits, a
seat's ``0 … max_players - 1``, a choice's its choices, a boolean's ``false, true``;
an optional field's default comes first (``null``: the field left out). Most ids
are never legal (an 8 played without naming a suit); the action mask says which
are now. The last id, ``pass``, lets a moment pass: it is legal only when a seat
is offered moves out of turn (an announce, a call-out, a declared 31).

``python3 -m cardhall_env.actions`` prints the tables that ``docs/env.md`` shows.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

from domain.errors import InvalidMove
from domain.game import Game, all_games
from domain.moves import SEAT, Move, kind_of

PASS = "pass"


def _field_values(spec: dataclasses.Field, game: Game) -> tuple[Any, ...]:
    """Every value the move field ``spec`` may hold in ``game``, its default first."""
    kind = kind_of(spec)
    if kind is SEAT:
        values: tuple[Any, ...] = tuple(range(game.max_players))
    elif "enum" in kind.schema:
        values = tuple(kind.schema["enum"])
    elif kind.schema.get("type") == "boolean":
        values = (False, True)
    else:
        raise ValueError(f"{game.name}: the move field {spec.name!r} takes values that cannot be listed")
    if spec.default is dataclasses.MISSING:
        return values
    return (spec.default, *(value for value in values if value != spec.default))


@dataclasses.dataclass(frozen=True)
class MoveBlock:
    """The ids of one move class: ``first`` to ``first + size - 1``, its fields' values in order."""

    type: str
    first: int
    fields: tuple[tuple[str, tuple[Any, ...]], ...]

    @property
    def size(self) -> int:
        size = 1
        for _, values in self.fields:
            size *= len(values)
        return size


class ActionTable:
    """The fixed action ids of one game: ``moves[id]`` is the move an id stands for; ``pass_id`` is last."""

    def __init__(self, game: Game) -> None:
        self.game = game.name
        self._parse = game.parse_move
        moves: list[Move] = []
        blocks: list[MoveBlock] = []
        for cls in game.move_classes:
            specs = dataclasses.fields(cls)
            fields = tuple((spec.name, _field_values(spec, game)) for spec in specs)
            blocks.append(MoveBlock(cls.type, len(moves), fields))
            names = [name for name, _ in fields]
            moves.extend(cls(**dict(zip(names, combination)))
                         for combination in itertools.product(*(values for _, values in fields)))
        self.moves: tuple[Move, ...] = tuple(moves)
        self.blocks = tuple(blocks)
        self.ids: dict[Move, int] = {move: index for index, move in enumerate(moves)}
        self.pass_id = len(moves)
        self.size = len(moves) + 1
        #: The action ids of the move objects met, by their id(); ``_kept`` holds those objects, so that no other
        #: object can take the id() of one while it is here.
        self._met: dict[int, int] = {}
        self._kept: list[Move] = []

    def id_of(self, move: Move) -> int:
        """The id of ``move`` (a move object of this game)."""
        return self.ids[move]

    def ids_of(self, moves: Sequence[Move]) -> list[int]:
        """The ids of ``moves``, in order. The games list moves they built once and share, so each move object
        met is remembered by its identity: hashing a move (a dataclass) is a Python call, id() is not."""
        met = self._met
        try:
            return [met[id(move)] for move in moves]
        except KeyError:  # (a move not met yet)
            pass
        if len(met) >= 65_536:  # (a game making new move objects each time: forget them now and then)
            met.clear()
            self._kept.clear()
        for move in moves:
            if id(move) not in met:
                met[id(move)] = self.ids[move]
                self._kept.append(move)
        return [met[id(move)] for move in moves]

    def id_from(self, action: Any) -> int:
        """``action``, handed to an environment's step, as one of this table's ids: a Python or NumPy integer (or a
        NumPy array holding one) from 0 to ``size - 1``. TypeError for anything else (a float, a string, a bool),
        ValueError for an integer outside the table: neither is an action, not even an illegal one."""
        given = action
        if type(action) is not int:
            if getattr(action, "shape", None) == () and hasattr(action, "item"):  # (a NumPy integer, or a 0-d array)
                action = action.item()
            if isinstance(action, bool) or not isinstance(action, numbers.Integral):
                raise TypeError(f"an action is an id, an integer from 0 to {self.size - 1} (a Python or NumPy "
                                f"integer), not {given!r} ({type(given).__name__})")
            action = int(action)
        if not 0 <= action < self.size:
            raise ValueError(f"{action} is no action id: {self.game}'s ids run from 0 to {self.size - 1}")
        return action

    def action_of(self, move: Mapping[str, Any]) -> int:
        """The id of ``move``, an API move object (one of a view's ``legal_moves``, or what a bot written for the
        API returns): the inverse of :meth:`move_of`. ValueError for an object that is no move of this game."""
        try:
            return self.ids[self._parse(move)]
        except (InvalidMove, KeyError) as error:
            raise ValueError(f"{move!r} is no {self.game} move: {error}") from None

    def move_of(self, action: int) -> dict[str, Any] | None:
        """The API move object ``action`` stands for; None for ``pass``."""
        return None if action == self.pass_id else self.moves[action].as_dict()

    def name(self, action: int) -> str:
        """``action`` in words: its move object as JSON, or ``pass``."""
        return PASS if action == self.pass_id else json.dumps(self.moves[action].as_dict())

    def markdown(self) -> str:
        """The table as ``docs/env.md`` shows it."""
        lines = ["| ids | move | fields, first varying slowest |", "|---|---|---|"]
        for block in self.blocks:
            fields = " × ".join(f"`{name}` ({_values_text(values)})" for name, values in block.fields) or "—"
            lines.append(f"| {_range(block.first, block.size)} | `{block.type}` | {fields} |")
        lines.append(f"| {self.pass_id} | `pass` | — (only out of turn) |")
        return "\n".join(lines)


def _range(first: int, size: int) -> str:
    return str(first) if size == 1 else f"{first}–{first + size - 1}"


def _values_text(values: Sequence[Any]) -> str:
    shown = [json.dumps(value) for value in values]
    if len(shown) > 6:
        shown = [*shown[:3], "…", shown[-1]]
    return ", ".join(shown) + f"; {len(values)}"


_TABLES: dict[str, ActionTable] = {}


def action_table(game: str) -> ActionTable:
    """The action table of the registered game ``game`` (built once)."""
    found = _TABLES.get(game)
    if found is None:
        found = _TABLES[game] = ActionTable(all_games()[game])
    return found


def main() -> None:
    """Print every registered game's table."""
    for name in sorted(all_games()):
        table = action_table(name)
        print(f"### {name}: {table.size} actions\n\n{table.markdown()}\n")


if __name__ == "__main__":
    main()
