"""``cardhall simulate``: bot files against house bots over processes, no server; win rates with 95 % intervals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardhall_cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("game", "options"), [("craits", ["--option", "short=true"]), ("scat", [])])
def test_a_greedy_bot_file_beats_random_house_bots_above_chance(game: str, options: list[str], tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "standings.json"
    assert main(["simulate", "--game", game, "--players", "3", "--bot", str(ROOT / "examples" / f"greedy_{game}.py"),
                 "--bot", "random", "--bot", "random", "--games", "90", "--processes", "2", "--seed", "44",
                 "--json", str(out), *options]) == 0
    printed = capsys.readouterr().out
    assert "games/s over 2 processes" in printed and "95 % interval" in printed
    standings = {row["name"]: row for row in json.loads(out.read_text())["standings"]}
    greedy = standings[f"greedy_{game}"]
    assert greedy["seats"] == 90 and greedy["illegal_moves"] == 0
    assert greedy["ci95"][0] > greedy["chance"] == 1 / 3  # above chance, with 95 % confidence
    assert sum(row["wins"] for row in standings.values()) == pytest.approx(90)


def test_a_simulation_of_options_the_game_has_not_is_refused_before_it_starts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "scat", "--bot", "random", "--games", "5", "--option", "short=true"]) == 2
    assert "unknown option(s): short" in capsys.readouterr().err


def test_an_unknown_option_is_answered_with_the_options_a_simulation_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """Not the server's, whose seed, decks and move_seconds a simulation refuses."""
    assert main(["simulate", "--game", "scat", "--bot", "random", "--games", "5", "--option", "bogus=1"]) == 2
    assert capsys.readouterr().err == "cardhall: unknown option(s): bogus; the environment takes: first_dealer, lives, " \
                                      "min_knock, straight_flush, three_of_a_kind, throw_down\n"


@pytest.mark.parametrize(("argument", "value", "said"), [
    ("--processes", "0", "at least 1, not 0"), ("--processes", "-1", "at least 1, not -1"),
    ("--games", "0", "at least 1, not 0"), ("--games", "-3", "at least 1, not -3"),
    ("--games", "many", "a whole number of at least 1, not 'many'")])
def test_a_count_of_games_or_processes_below_one_is_refused_as_a_bad_argument(
        argument: str, value: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    """It is answered as argparse answers any bad argument, exit status 2 and the reason in a line (it used to end
    in a ZeroDivisionError or ValueError traceback, or print nan and a negative rate of games)."""
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--game", "scat", "--bot", "random", "--games", "5", argument, value])
    assert exit_.value.code == 2
    printed = capsys.readouterr()
    assert f"argument {argument}: {said}" in printed.err.splitlines()[-1] and printed.out == ""
