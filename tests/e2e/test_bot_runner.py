"""``cardhall bot run`` plays whole games against a real server process."""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path

import httpx

from cardhall_cli import main
from cardhall_client import CardhallClient
from cardhall_client.cli import main as runner
from cardhall_client.runner import play

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_runner_creates_a_craits_game_fills_it_with_house_bots_and_plays_it_to_the_end(live_server, capsys):
    code = main(["bot", "run", f"{EXAMPLES / 'greedy_craits.py'}:choose", "--server", live_server,
                 "--new", "craits", "--players", "3", "--fill", "random", "--option", "short=true",
                 "--option", "seed=5", "--name", "greedy"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [line.split(":")[0] for line in lines if line.startswith("round")] == [
        f"round {number}/8" for number in range(1, 9)
    ]
    assert lines[-1].startswith("game over: winners")


def test_the_runner_joins_a_scat_game_and_reports_every_settled_hand(live_server, capsys):
    with CardhallClient(live_server) as cardhall:
        game_id = cardhall.create_game("scat", 2, {"seed": 8})["id"]
        cardhall.seat_bot(game_id, "greedy")
        code = main(["bot", "run", str(EXAMPLES / "random_scat.py"), "--server", live_server, "--game", game_id,
                     "--sse"])
        final = cardhall.state(game_id)["state"]
    lines = capsys.readouterr().out.splitlines()
    assert code == 0 and final["result"] is not None
    assert _hands_reported(lines) == list(range(1, final["hand_number"] + 1))
    assert lines[-1].startswith("game over: winners") and "seat 1 (this bot)" in lines[-1]


def _stacked_deck(*holdings: tuple[int, list[str]], players: int = 3) -> list[str]:
    """A full deck whose deal gives each (position in the deal order, cards) those three cards."""
    deck: list[str | None] = [None] * 52
    for position, cards in holdings:
        for round_, card in enumerate(cards):
            deck[round_ * players + position] = card
    rest = iter(card for card in (rank + suit for suit in "CDHS" for rank in "A23456789TJQK") if card not in deck)
    return [card if card is not None else next(rest) for card in deck]


def test_the_runner_reports_the_hands_settled_after_its_seat_is_out(live_server, capsys):
    # Seats 0 and 1 are greedy house bots, each dealt a 31 in turn, which they declare at once (S11):
    # the runner (seat 2, one life) is out after hand 2 and never has a turn; the bots play on alone.
    first = _stacked_deck((0, ["AH", "KH", "QH"]), (2, ["2C", "3D", "5S"]))  # dealer 2: seat 0 is dealt first
    second = _stacked_deck((0, ["AS", "KS", "QS"]), (1, ["2D", "3C", "5H"]))  # dealer 0: seat 1 is dealt first
    with CardhallClient(live_server) as cardhall:
        game_id = cardhall.create_game("scat", 3, {"lives": 1, "first_dealer": 2, "decks": [first, second]})["id"]
        cardhall.seat_bot(game_id, "greedy")
        cardhall.seat_bot(game_id, "greedy")
        code = main(["bot", "run", str(EXAMPLES / "random_scat.py"), "--server", live_server, "--game", game_id])
        final = cardhall.state(game_id)["state"]
    lines = capsys.readouterr().out.splitlines()
    assert code == 0 and 2 in final["out"] and final["hand_number"] >= 3
    assert _hands_reported(lines) == list(range(1, final["hand_number"] + 1))
    assert lines[-1].startswith("game over:") and "seat 2 (this bot) lost" in lines[-1]


def _hands_reported(lines: list[str]) -> list[int]:
    return [int(line.split()[1]) for line in lines if line.startswith("hand ")]


def test_a_move_the_rules_refuse_is_reported_and_replaced_by_a_legal_one(live_server, capsys, tmp_path):
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text("def choose(view):\n"
                        "    if view['state']['phase'] == 'draw':\n"
                        "        return {'type': 'discard', 'card': view['state']['hand'][0]}\n"
                        "    return view['legal_moves'][0]\n")
    code = main(["bot", "run", f"{stubborn}:choose", "--server", live_server, "--new", "scat", "--players", "2",
                 "--option", "seed=2"])
    assert code == 0
    assert "was refused" in capsys.readouterr().out


def test_a_bot_that_raises_or_answers_no_move_is_reported_and_replaced_by_a_legal_one(live_server, capsys, tmp_path):
    buggy = tmp_path / "buggy.py"
    # (its discards alternate by count, not by the version's parity: the random bot's moves left every discard of
    # the runner's at one parity in 2 games of 100,000 simulated; it has two discards and more in every game)
    buggy.write_text("ASKED = []\n"
                     "def choose(view):\n"
                     "    if view['state']['phase'] == 'draw':\n"
                     "        raise RuntimeError('boom')\n"
                     "    ASKED.append(view['version'])\n"
                     "    if len(ASKED) % 2:\n"
                     "        return 'discard'\n")  # (then None)
    code = main(["bot", "run", f"{buggy}:choose", "--server", live_server, "--new", "scat", "--players", "2",
                 "--option", "seed=4"])
    out = capsys.readouterr().out
    assert code == 0 and "game over:" in out
    assert "the bot raised RuntimeError: boom; playing {'type': 'draw'" in out
    assert "the bot returned 'discard', which is no move object" in out
    assert "the bot returned None, which is no move object" in out


def test_a_mistyped_bot_file_or_function_is_said_in_one_line(live_server, capsys):
    for spec, said in ((f"{EXAMPLES / 'nope.py'}:choose", "no bot file"), (f"{EXAMPLES / 'greedy_craits.py'}:chose",
                                                                            "has no function 'chose'"),
                       ("no_such_package.bot:choose", "no bot file or module no_such_package.bot")):
        assert main(["bot", "run", spec, "--server", live_server, "--new", "craits"]) == 2
        assert runner(["run", spec, "--server", live_server, "--new", "craits"]) == 2
        assert main(["simulate", "--game", "craits", "--bot", spec, "--games", "2"]) == 2
        err = capsys.readouterr().err
        assert err.count(said) == 3 and "Traceback" not in err and len(err.splitlines()) == 3


def test_a_bot_file_that_does_not_load_is_said_with_its_own_lines_and_no_traceback_of_the_loader(
        live_server, capsys, tmp_path):
    """A syntax error or a missing import in the bot's file ended in a traceback of cardhall's loading machinery,
    its own lines at the bottom: it is said as every other mistake is (exit 2), with the bot's lines alone."""
    (tmp_path / "typo.py").write_text("def choose(view)\n    return view['legal_moves'][0]\n")
    (tmp_path / "needs.py").write_text("import no_such_module_here\n\ndef choose(view):\n    pass\n")
    for name, said in (("typo", [f'  File "{tmp_path / "typo.py"}", line 1', "    def choose(view)",
                                 "SyntaxError: expected ':'"]),
                       ("needs", [f'  File "{tmp_path / "needs.py"}", line 1, in <module>', "    import no_such_module_here",
                                  "ModuleNotFoundError: No module named 'no_such_module_here'"])):
        spec = str(tmp_path / f"{name}.py")
        assert main(["simulate", "--game", "craits", "--bot", spec, "--games", "2"]) == 2
        assert main(["bot", "run", spec, "--server", live_server, "--new", "craits"]) == 2
        for command, err in zip(("simulate", "bot"), capsys.readouterr().err.split("cardhall ")[1:], strict=True):
            lines = err.splitlines()
            assert lines[0] == f"{command}: the bot file {spec} does not load:" and "Traceback" not in err
            assert [line for line in lines if not line.strip().startswith("^")][1:] == said


def test_with_no_fill_the_runner_waits_for_the_other_seats_to_be_taken(live_server, capsys):
    with CardhallClient(live_server) as cardhall:
        game_id = cardhall.create_game("scat", 2, {"seed": 6})["id"]
        runner = threading.Thread(target=main, args=(["bot", "run", str(EXAMPLES / "greedy_scat.py"),
                                                      "--server", live_server, "--game", game_id],))
        runner.start()
        while cardhall.game(game_id)["seats"][0]["name"] is None:
            time.sleep(0.05)
        time.sleep(0.3)
        cardhall.seat_bot(game_id, "random")
        runner.join(timeout=60)
        assert cardhall.game(game_id)["status"] == "finished"
    assert "game over" in capsys.readouterr().out


def test_the_runner_warns_when_its_bot_takes_more_than_half_its_clock(live_server, caplog, tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n"
                    "SLEPT = []\n"
                    "def choose(view):\n"
                    "    if not SLEPT:\n"
                    "        SLEPT.append(time.sleep(2.3))\n"
                    "    return view['legal_moves'][0]\n")
    code = main(["bot", "run", f"{slow}:choose", "--server", live_server, "--new", "scat", "--players", "2",
                 "--option", "seed=3", "--option", "move_seconds=4", "--name", "slow"])
    warnings = [record for record in caplog.records if record.name == "cardhall.bot"]
    assert code == 0 and len(warnings) == 1
    assert "of the" in warnings[0].getMessage() and "clock had left" in warnings[0].getMessage()


def test_the_runner_says_its_seat_and_token_and_resumes_a_seat_from_its_token(live_server, capsys):
    with CardhallClient(live_server) as cardhall:
        game_id = cardhall.create_game("craits", 2, {"short": True, "seed": 3})["id"]
        token = cardhall.join(game_id, "ana")["token"]
        assert token.startswith("chs_")  # (one token in 64 began with "-", and the runner took it for an option)
        cardhall.seat_bot(game_id, "greedy")
        code = main(["bot", "run", str(EXAMPLES / "random_craits.py"), "--server", live_server, "--game", game_id,
                     "--seat-token", token])
        summary = cardhall.game(game_id)
    lines = capsys.readouterr().out.splitlines()
    assert code == 0 and summary["status"] == "finished"
    assert lines[0].startswith(f"game {game_id}: seat 0, token {token} (to resume: --game {game_id} --seat-token {token})")
    assert summary["seats"][0]["name"] == "ana" and summary["seats"][0]["bot"] is None


def test_a_seat_token_without_a_game_is_refused_at_once(live_server, capsys):
    code = main(["bot", "run", str(EXAMPLES / "random_craits.py"), "--server", live_server, "--new", "craits",
                 "--seat-token", "whatever"])
    assert code == 2
    assert "--seat-token resumes a seat of the game given with --game" in capsys.readouterr().err


def test_the_clients_own_command_cardhall_bot_plays_a_game_as_the_servers_cardhall_bot_run_does(live_server, capsys):
    code = runner(["run", f"{EXAMPLES / 'random_scat.py'}:choose", "--server", live_server, "--new", "scat",
                   "--players", "2", "--option", "seed=3"])
    assert code == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("game over: winners")


def test_the_bot_may_come_before_or_after_the_options_on_both_commands(live_server, capsys):
    """The usage line shows the options first: ``cardhall bot run --server … --new scat FILE`` plays as
    ``cardhall bot run FILE --server … --new scat`` does, and so does the client's ``cardhall-bot``."""
    bot = str(EXAMPLES / "greedy_scat.py")
    options = ["--server", live_server, "--new", "scat", "--players", "2", "--fill", "greedy"]
    for command in (["bot", "run", *options, bot], ["bot", "run", bot, *options]):
        assert main(command) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].endswith(f"bot plays {bot}") and lines[-1].startswith("game over: winners")
    assert runner(["run", *options, bot]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("game over: winners")


def test_the_runner_reads_its_view_again_only_once_others_have_moved(live_server):
    """A move's answer holds the seat's view: the runner moves on from it (the house bot has played in the same
    request), and a wait reads the view once it hears of a move, so a bot spends few requests."""
    import httpx

    from cardhall_client.runner import play

    sent: list[str] = []
    counting = httpx.Client(base_url=live_server, event_hooks={"request": [lambda request: sent.append(
        f"{request.method} {request.url.path.rsplit('/', 1)[-1]}{' wait' if 'wait' in request.url.params else ''}")]})
    with CardhallClient(live_server, http=counting) as cardhall:
        game_id = cardhall.create_game("craits", 2, {"short": True})["id"]
        me = cardhall.seated(cardhall.join(game_id, "counted")["token"])
        cardhall.seat_bot(game_id, "random")
        final = play(me, game_id, lambda view: view["legal_moves"][0], say=lambda line: None)
    moves, waits = sent.count("POST moves"), sent.count("GET events wait")
    assert final["status"] == "finished" and moves > waits + 1  # (a short game: tens of moves)
    assert sent.count("GET state") <= 1 + waits  # (before: one more for every move)


def test_the_runner_says_a_turn_it_reached_after_its_deadline_was_late_before_its_bot_was_asked(caplog):
    past = (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=3)).isoformat()
    view = {"status": "active", "seat": 0, "to_act": [0], "version": 5, "deadline": past, "state": {},
            "result": None, "legal_moves": [{"type": "knock"}]}

    def server(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(201, json={**view, "status": "finished", "to_act": [], "version": 6, "events": []})
        return httpx.Response(200, json=view)

    http = httpx.Client(base_url="http://cardhall.test", transport=httpx.MockTransport(server))
    with CardhallClient("http://cardhall.test", token="t", http=http) as me:
        play(me, "g", lambda seen: seen["legal_moves"][0], say=lambda line: None)
    warnings = [record.getMessage() for record in caplog.records if record.name == "cardhall.bot"]
    assert len(warnings) == 1 and "past its deadline before the bot was asked" in warnings[0]
