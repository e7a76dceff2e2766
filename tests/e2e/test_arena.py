"""``cardhall arena``: seeded games in-process or through a server, standings that add up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardhall_cli import main
from cardhall_cli.arena import play_local
from cardhall_client import arena
from cardhall_client.standings import Standings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _standings(game: str, players: int, specs: list[str], games: int, seed: int = 7, **options) -> Standings:
    entrants = arena.unique([arena.entrant(spec) for spec in specs])
    standings = Standings(game, entrants)
    for played in arena.run(game, players, entrants, games, seed, play=play_local, options=options):
        standings.add(played)
    return standings


def test_seats_rotate_so_every_entrant_sits_in_every_seat_equally():
    entrants = [arena.entrant(name) for name in ("random", "greedy", "random")]
    sittings = [arena.seating(arena.unique(entrants), 3, number) for number in range(3)]
    assert [sorted(seat_column) for seat_column in zip(*sittings, strict=True)] == [[0, 1, 2]] * 3


def test_the_totals_of_a_seeded_run_equal_the_games_played():
    standings = _standings("craits", 3, ["random", "greedy", f"mine={EXAMPLES / 'greedy_craits.py'}:choose"], 6,
                           short=True)
    rows = standings.table()
    assert sum(row.games for row in rows) == 6 * 3
    assert sum(row.wins for row in rows) == pytest.approx(6)
    assert all(len(row.values) == row.games and row.ci95[0] <= row.mean <= row.ci95[1] for row in rows)


def test_a_seeded_run_is_the_same_run_every_time():
    first, second = (_standings("scat", 3, ["random", "greedy", str(EXAMPLES / "random_scat.py")], 10)
                     for _ in range(2))
    assert [row.as_dict() for row in first.table()] == [row.as_dict() for row in second.table()]


@pytest.mark.parametrize("game, greedy, random, options", [
    ("scat", "greedy", "random", {}),
    ("scat", f"{EXAMPLES / 'greedy_scat.py'}:choose", f"{EXAMPLES / 'random_scat.py'}:choose", {}),
    ("craits", "greedy", "random", {"short": True}),
    ("craits", f"{EXAMPLES / 'greedy_craits.py'}:choose", f"{EXAMPLES / 'random_craits.py'}:choose", {"short": True}),
])
def test_greedy_beats_random_by_a_wide_margin(game, greedy, random, options):
    standings = _standings(game, 2, [f"greedy={greedy}", f"random={random}"], 30, **options)
    by_name = {row.name: row for row in standings.table()}
    assert by_name["greedy"].wins >= 2 * by_name["random"].wins
    assert by_name["greedy"].ordinal > by_name["random"].ordinal


def test_the_command_prints_the_table_and_writes_the_same_as_json(tmp_path, capsys):
    out = tmp_path / "standings.json"
    code = main(["arena", "--game", "scat", "--players", "3", "--bot", "greedy", "--bot", "random",
                 "--bot", f"mine={EXAMPLES / 'greedy_scat.py'}:choose", "--games", "9", "--seed", "3",
                 "--json", str(out)])
    printed = capsys.readouterr().out
    written = json.loads(out.read_text())
    assert code == 0 and "scat, 3 players, 9 games, seed 3" in printed
    assert {row["name"] for row in written["standings"]} == {"greedy", "random", "mine"}
    assert all(row["name"] in printed for row in written["standings"])
    assert sum(row["wins"] for row in written["standings"]) == pytest.approx(9) and written["games"] == 9


def test_an_arena_through_a_server_plays_house_bots_there_and_file_bots_with_the_client(live_server, tmp_path):
    out = tmp_path / "standings.json"
    code = main(["arena", "--game", "craits", "--players", "3", "--bot", "greedy", "--bot", "random",
                 "--bot", f"mine={EXAMPLES / 'greedy_craits.py'}:choose", "--games", "3", "--seed", "4",
                 "--option", "short=true", "--server", live_server, "--json", str(out)])
    written = json.loads(out.read_text())
    assert code == 0 and written["server"] == live_server
    assert sum(row["games"] for row in written["standings"]) == 9
    assert sum(row["wins"] for row in written["standings"]) == pytest.approx(3)


def test_an_unnamed_bot_is_named_after_its_file_and_a_function_other_than_choose(tmp_path: Path):
    (tmp_path / "cautious.py").write_text("def choose(view):\n    return view['legal_moves'][0]\n"
                                          "def last(view):\n    return view['legal_moves'][-1]\n")
    specs = [f"{tmp_path / 'cautious.py'}:choose", f"{tmp_path / 'cautious.py'}", f"{tmp_path / 'cautious.py'}:last",
             f"{EXAMPLES / 'greedy_scat.py'}:choose", "mine=random"]
    assert [one.name for one in arena.unique([arena.entrant(spec) for spec in specs])] == [
        "cautious", "cautious#2", "cautious:last", "greedy_scat", "mine"]


def test_the_standings_printed_to_a_file_or_a_pipe_keep_every_name_and_header_whole(capsys):
    """Off a terminal the table was cut to 80 columns: "cras…", "wi…", "scor…" in a log or a file."""
    code = main(["arena", "--game", "craits", "--players", "2", "--bot", "a_rather_long_bot_name=random",
                 "--bot", "another_long_bot_name=greedy", "--games", "2", "--seed", "1", "--option", "short=true"])
    printed = capsys.readouterr().out
    assert code == 0 and "…" not in printed.replace("shared wins split", "")
    header = next(line for line in printed.splitlines() if "bot" in line and "games" in line)
    assert all(word in header for word in ("wins", "win%", "score↓", "95% CI", "rating", "μ ± σ"))
    assert "a_rather_long_bot_name" in printed and "another_long_bot_name" in printed
