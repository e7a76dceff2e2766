"""A bot that lives on the platform: it follows its account's events, accepts the challenges it
likes while it has room, and plays every game it is seated in, several at once.

    from cardhall_client import CardhallClient
    from cardhall_client.lobby import live
    live(CardhallClient("http://localhost:8000", token=KEY), choose, accept={"craits"}, concurrency=2)
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from cardhall_client.errors import CardhallError
from cardhall_client.http import CardhallClient
from cardhall_client.loading import Choose
from cardhall_client.runner import Say, play


class Lobby:
    """One account's life on a server: its games under way, and its answers to challenges."""

    def __init__(self, client: CardhallClient, choose: Choose, accept: Collection[str], concurrency: int = 1,
                 say: Say = print) -> None:
        self.client = client
        self.choose = choose
        self.accept = set(accept)
        self.concurrency = concurrency
        self.say = say
        self.me = client.account()["name"]
        self.playing: dict[str, Future[Any]] = {}
        self._pool = ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="cardhall-game")
        self._lock = threading.Lock()

    def run(self, stop: Callable[[], bool] = lambda: False, after: int | None = None) -> None:
        """Play the games under way, then follow the account's events after id ``after`` (default: from
        now on) until ``stop()``."""
        for game_id in self.client.account(self.me)["games"]["current"]:
            self._play(game_id)
        for event in self.client.follow_account(self._newest() if after is None else after, stop=stop):
            self.handle(event)
        self._pool.shutdown(wait=True)

    def handle(self, event: dict[str, Any]) -> None:
        """Act on one event of the account."""
        data = event["data"]
        if event["type"] == "challenge":
            self._answer(data)
        elif event["type"] == "gameStart":
            self._play(data["game_id"])
        elif event["type"] == "gameFinish":
            self.say(f"game {data['game_id']} over: {data['result']}")

    def _answer(self, challenge: dict[str, Any]) -> None:
        if challenge["challenger"].lower() == self.me.lower():
            return
        if challenge["game"] not in self.accept:
            self._decline(challenge, f"this bot plays {', '.join(sorted(self.accept)) or 'nothing'}")
        elif self.busy():
            self._decline(challenge, "this bot is playing as many games as it may")
        else:
            try:
                self.client.accept(challenge["id"])
                self.say(f"accepted {challenge['challenger']}'s challenge to {challenge['game']}")
            except CardhallError as refused:  # (expired, taken, canceled meanwhile)
                self.say(f"challenge {challenge['id']}: {refused.detail}")

    def _decline(self, challenge: dict[str, Any], reason: str) -> None:
        if challenge["to"] is not None:  # (an open challenge is left to others)
            with contextlib.suppress(CardhallError):  # (closed meanwhile: nothing to decline)
                self.client.decline(challenge["id"], reason)

    def busy(self) -> bool:
        with self._lock:
            return sum(not game.done() for game in self.playing.values()) >= self.concurrency

    def _play(self, game_id: str) -> None:
        with self._lock:
            if game_id in self.playing:
                return
            self.say(f"playing game {game_id}")
            self.playing[game_id] = self._pool.submit(self._play_out, game_id)

    def _play_out(self, game_id: str) -> None:
        try:
            play(self.client, game_id, self.choose, lambda line: self.say(f"[{game_id[:8]}] {line}"))
        except CardhallError as error:
            self.say(f"game {game_id}: {error}")

    def _newest(self) -> int:
        """The id of the account's newest event: what happened before the bot started is not acted on
        again (its games under way are found from the account's page)."""
        after = 0
        while page := self.client.account_events(after, limit=1000)["events"]:
            after = page[-1]["id"]
        return after


def live(client: CardhallClient, choose: Choose, accept: Collection[str], concurrency: int = 1,
         say: Say = print, stop: Callable[[], bool] = lambda: False) -> None:
    """Run ``choose`` as the account of ``client``'s key until ``stop()`` (see :class:`Lobby`)."""
    Lobby(client, choose, accept, concurrency, say).run(stop)
