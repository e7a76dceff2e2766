"""The service decides a move outside its write transaction: a race must never turn into a wrong refusal."""

from __future__ import annotations

from domain import table as tables
from persistence.memory import MemoryEventStore
from service.games import GameService


def test_a_move_refused_on_a_table_another_writer_has_moved_on_is_decided_again_and_accepted():
    games = GameService(MemoryEventStore())
    game_id = games.create_game("craits", 2, {"seed": 3})["id"]
    tokens = [games.join(game_id, name=f"p{seat}")["token"] for seat in range(2)]
    stale = games.table(game_id)
    first = tables.to_act(stale)[0]
    games.move(game_id, tokens[first], tables.legal_moves(stale, first)[0])
    fresh = games.table(game_id)
    second = tables.to_act(fresh)[0]
    assert tables.legal_moves(stale, second) != tables.legal_moves(fresh, second)
    loads = iter([stale])
    real_table = games.table
    games.table = lambda gid: next(loads, None) or real_table(gid)  # the race: a load just before a commit
    outcome = games.move(game_id, tokens[second], tables.legal_moves(fresh, second)[0])
    assert outcome.status == 201 and outcome.body["version"] > fresh.version
