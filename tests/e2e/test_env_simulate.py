"""``cardhall simulate``: bot files against house bots over processes, no server; win rates with 95 % intervals."""

from __future__ import annotations

import json
import sys
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


def test_a_bots_refused_moves_are_said_with_the_first_ones_place_and_reason(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A count of illegal moves alone left the author to guess what went wrong: the first refusal of each entrant
    is printed (and in the JSON), where it happened and why, a raised exception or a move not among the legal ones."""
    (tmp_path / "wrong.py").write_text('def choose(view):\n    return {"type": "discard", "card": "ZZ"}\n')
    (tmp_path / "crash.py").write_text('def choose(view):\n    return 1 / 0\n')
    out = tmp_path / "standings.json"
    assert main(["simulate", "--game", "scat", "--bot", str(tmp_path / "wrong.py"), "--bot", str(tmp_path / "crash.py"),
                 "--games", "4", "--processes", "1", "--seed", "3", "--json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    standings = {row["name"]: row for row in json.loads(out.read_text())["standings"]}
    wrong, crash = standings["wrong"], standings["crash"]
    assert wrong["illegal_moves"] > 0 and wrong["first_illegal"]["game"] in range(4)
    assert wrong["first_illegal"]["why"].startswith('it returned {"type": "discard", "card": "ZZ"}, which is not '
                                                   'among its legal moves [{"type": ')
    assert crash["first_illegal"]["why"] == "the bot raised ZeroDivisionError: division by zero"
    said = next(line for line in printed if line.startswith("crash: "))
    assert said == (f"crash: {crash['illegal_moves']:,} moves refused, each replaced by the first legal move; the first "
                    f"in game {crash['first_illegal']['game']}, at version {crash['first_illegal']['version']}: "
                    "the bot raised ZeroDivisionError: division by zero")
    assert any(line.startswith("wrong: ") for line in printed)


def test_a_long_simulation_shows_its_progress_on_a_terminal_and_nothing_more_elsewhere(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Minutes of games printed nothing until the end; on a terminal, standard error counts the games done (a line
    written over, rubbed out at the end), and off one it stays empty."""
    assert main(["simulate", "--game", "scat", "--bot", "random", "--games", "6", "--processes", "1"]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["simulate", "--game", "scat", "--bot", "random", "--games", "6", "--processes", "1"]) == 0
    err = capsys.readouterr().err
    assert "6/6 games, " in err and " games/s, about 0 s left" in err and err.endswith("\r")
    assert err.split("\r")[-2].strip() == ""  # (the last line written is blank: nothing left on the terminal)


#: A bot file whose first move never comes (each later one is its first legal move).
FIRST_MOVE_NEVER_COMES = """import time

asked = []


def choose(view):
    asked.append(view["version"])
    while len(asked) == 1:
        time.sleep(60)
    return view["legal_moves"][0]
"""

#: A bot file none of whose moves ever comes.
NO_MOVE_EVER_COMES = """import threading


def choose(view):
    threading.Event().wait()
"""


def test_a_bot_whose_first_move_never_comes_loses_that_turn_as_on_a_server_and_the_games_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bot file whose move never returned stalled the whole simulation, for ever. Its move has --move-seconds:
    past them its turn is played for it as a server plays a seat whose clock ran out (the game's default move), the
    games go on to their end, and the timeouts are counted and said."""
    (tmp_path / "sleepy.py").write_text(FIRST_MOVE_NEVER_COMES)
    out = tmp_path / "standings.json"
    assert main(["simulate", "--game", "scat", "--bot", str(tmp_path / "sleepy.py"), "--bot", "random", "--games", "4",
                 "--processes", "1", "--seed", "9", "--move-seconds", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    standings = {row["name"]: row for row in json.loads(out.read_text())["standings"]}
    sleepy = standings["sleepy"]
    assert (sleepy["seats"], sleepy["timed_out_moves"], sleepy["abandoned_seats"], sleepy["illegal_moves"]) == (4, 1, 0, 0)
    assert standings["random"]["timed_out_moves"] == 0
    assert sum(row["wins"] for row in standings.values()) == pytest.approx(4)  # (every game ended with its winners)
    assert printed[1].split()[-2:] == ["timed", "out"] and printed[2].split()[-1] == "1"  # (sleepy's row: 1 timed out)
    assert "sleepy: 1 move timed out (past 1 s), each turn played for it as a server plays a timed-out seat's, by the " \
           "game's default move" in printed


def test_a_bot_whose_moves_never_come_loses_its_seat_to_a_house_bot_at_its_third_timeout_in_a_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As on a server, a seat that times out three turns in a row is handed to the house bot random, which plays it
    to the end of the game: a bot that never answers costs three clocks a game, not one a turn."""
    (tmp_path / "asleep.py").write_text(NO_MOVE_EVER_COMES)
    out = tmp_path / "standings.json"
    assert main(["simulate", "--game", "craits", "--option", "short=true", "--bot", str(tmp_path / "asleep.py"),
                 "--bot", "greedy", "--games", "2", "--processes", "2", "--seed", "4", "--move-seconds", "1",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    asleep = {row["name"]: row for row in json.loads(out.read_text())["standings"]}["asleep"]
    assert (asleep["seats"], asleep["timed_out_moves"], asleep["abandoned_seats"]) == (2, 6, 2)
    assert "asleep: 6 moves timed out (past 1 s), each turn played for it as a server plays a timed-out seat's, by " \
           "the game's default move; 2 seats then handed to a house bot for the rest of the game, after 3 timeouts " \
           "in a row" in printed
