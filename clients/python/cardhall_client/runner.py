"""The bot runner: joins (or creates) a game, waits for its seat's turn, asks the bot, moves; to the end."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from cardhall_client.errors import IllegalMove, NotYourTurn, ValidationError, VersionConflict
from cardhall_client.http import OVER, CardhallClient
from cardhall_client.loading import Choose, NoMove, ask
from cardhall_client.types import View
from cardhall_client.witness import Witness

Say = Callable[[str], None]
log = logging.getLogger("cardhall.bot")


@dataclasses.dataclass(frozen=True)
class NewGame:
    """A game for the runner to create: it takes seat 0; ``fill`` (a house bot kind) takes the others."""

    game: str
    players: int
    fill: str | None = "random"
    options: dict[str, Any] = dataclasses.field(default_factory=dict)


def start(client: CardhallClient, name: str, *, game_id: str | None = None, new: NewGame | None = None,
          seat_token: str | None = None) -> tuple[str, CardhallClient]:
    """Join ``game_id`` (or, given ``seat_token``, go back to the seat it acts for there) or create ``new``:
    the game's id and a client acting for the seat."""
    if new is not None:
        game_id = client.create_game(new.game, new.players, new.options)["id"]
    assert game_id is not None, "give a game id or a new game"
    me = client.seated(seat_token or client.join(game_id, name)["token"])
    if new is not None and new.fill:
        for _ in range(new.players - 1):
            client.seat_bot(game_id, new.fill)
    return game_id, me


def play(me: CardhallClient, game_id: str, choose: Choose, say: Say = print, *, sse: bool = False,
         witness: Witness | None = None) -> View:
    """Play the seat ``me`` acts for until the game ends; report each round or hand; the final view.
    A ``witness`` saves every commitment the game shows as play goes on."""
    reporter = Reporter(say, me, game_id)
    view: View | None = None
    while True:
        view = me.wait_for_turn(game_id, sse=sse, view=view)
        reporter.update(view)
        if witness is not None:
            witness.update()
        if view["status"] in OVER:
            return view
        view = _move(me, game_id, view, choose, say)


def _move(me: CardhallClient, game_id: str, view: View, choose: Choose, say: Say) -> View | None:
    """Ask the bot and move; an answer that is no move (the bot raised, or returned no move object) or a move
    the rules refuse is reported and replaced by the first legal move, so that a game never stalls on a bug.
    The seat's view after the move, as its answer holds it (None: someone moved first; look again)."""
    try:
        move = _timed(choose, view)
        return me.move(game_id, move, expected_version=view["version"])
    except NoMove as failed:
        log.warning("%s at version %s", failed, view["version"], exc_info=failed.__cause__)
        why = str(failed)
    except (IllegalMove, ValidationError) as refused:
        why = f"the bot's move {move!r} was refused ({refused.code} {refused.rule or ''}: {refused.detail})"
    except (VersionConflict, NotYourTurn):
        return None  # someone moved first (an out-of-turn call or 31): look again
    say(f"  {why}; playing {view['legal_moves'][0]!r} instead")
    try:
        return me.move(game_id, view["legal_moves"][0], expected_version=view["version"])
    except (VersionConflict, NotYourTurn):
        return None


def _timed(choose: Choose, view: View) -> Mapping[str, Any]:
    """The bot's move (:func:`~cardhall_client.loading.ask`); a warning when it took more than half the time its
    clock had left, or when the turn's deadline had passed before it was asked (the runner, not the bot, was late)."""
    left = None
    if view.get("deadline"):
        left = (dt.datetime.fromisoformat(view["deadline"]) - dt.datetime.now(dt.UTC)).total_seconds()
    if left is not None and left <= 0:
        log.warning("the turn at version %s was %.2f s past its deadline before the bot was asked: the runner was "
                    "kept waiting (by the server's rate limit, when a warning above says so), and the server plays "
                    "the turn for it", view["version"], -left)
        left = None
    began = time.monotonic()
    try:
        return ask(choose, view)
    finally:
        took = time.monotonic() - began
        if left is not None and took > left / 2:
            log.warning("the bot took %.2f s of the %.2f s its clock had left at version %s: past the deadline "
                        "the server plays the turn for it", took, max(left, 0.0), view["version"])


class Reporter:
    """One line per finished Craits round or settled Scat hand, and one for the result.

    Between two of this seat's turns any number of rounds or hands may end (house bots play
    on in the same request, and a seat that is out of a Scat game never has a turn again):
    the report catches up on all of them from the log, whoever's turn it is.
    """

    SCAT_HAND_ENDS = frozenset({"HandSettled", "HandVoided"})

    def __init__(self, say: Say, me: CardhallClient, game_id: str) -> None:
        self.say = say
        self.me = me
        self.game_id = game_id
        self.rounds_seen = 0
        self.version_seen = 0

    def update(self, view: View) -> None:
        state = view["state"] or {}
        if "round_scores" in state:
            self._craits(state)
        if "last_settlement" in state:
            self._scat(view["version"])
        if view["status"] == "finished" and view["result"]:
            self._result(view)

    def _craits(self, state: dict[str, Any]) -> None:
        # round_scores lists every finished round, so the rounds not yet reported are all there.
        totals = [0] * len(state["scores"])
        for number, scores in enumerate(state["round_scores"], start=1):
            totals = [total + score for total, score in zip(totals, scores, strict=True)]
            if number > self.rounds_seen:
                self.say(f"round {number}/{state['rounds']}: scores {scores}, totals {totals}")
        self.rounds_seen = len(state["round_scores"])

    def _scat(self, version: int) -> None:
        # last_settlement holds only the latest hand: each hand that ended since the last report
        # is read from the view as it stood right after its settlement.
        for settled_at in self._hand_ends(version):
            self._hand(self.me.state(self.game_id, at=settled_at)["state"])

    def _hand_ends(self, version: int) -> list[int]:
        """The versions of the hand endings after the last report, up to ``version``."""
        ends = []
        while self.version_seen < version:
            page = self.me.events(self.game_id, after=self.version_seen, limit=1000)["events"]
            if not page:
                break
            ends += [event["version"] for event in page
                     if event["type"] in self.SCAT_HAND_ENDS and event["version"] <= version]
            self.version_seen = min(page[-1]["version"], version)
        return ends

    def _hand(self, state: dict[str, Any]) -> None:
        settled = state["last_settlement"]
        losers = ", ".join(f"seat {seat} -{lost}" for seat, lost in enumerate(settled.get("lost") or []) if lost)
        self.say(f"hand {settled.get('hand_number')} ({settled.get('reason')}): "
                 f"{losers or 'nobody lost a life'}; lives {state['lives']}")

    def _result(self, view: View) -> None:
        result = view["result"] or {}
        final = {key: value for key, value in result.items() if key != "winners"}
        outcome = "won" if view["seat"] in result.get("winners", []) else "lost"
        self.say(f"game over: winners {result.get('winners')}, {final}; seat {view['seat']} (this bot) {outcome}")
