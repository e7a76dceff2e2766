"""A bot that lives on the platform: it follows its account's events, accepts the challenges it
likes while it has room (those sent before it started too), waits in the pools it names, and plays
every game it is seated in, several at once; given a number of games, it leaves the pools once that
many have started and stops once they are over.

    from cardhall_client import CardhallClient
    from cardhall_client.lobby import live
    live(CardhallClient("http://localhost:8000", token=KEY), choose, accept={"craits"}, concurrency=2)
    live(CardhallClient("http://localhost:8000", token=KEY), choose, pools={"scat": [2, 3, 4]}, games=100)
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from cardhall_client.errors import CardhallError
from cardhall_client.http import CardhallClient
from cardhall_client.loading import Choose
from cardhall_client.runner import Say, play

log = logging.getLogger("cardhall.bot")


class Lobby:
    """One account's life on a server: its games under way, and its answers to challenges."""

    def __init__(self, client: CardhallClient, choose: Choose, accept: Collection[str] = (), concurrency: int = 1,
                 say: Say = print, *, pools: Mapping[str, Sequence[int]] | None = None, rated: bool = True,
                 games: int | None = None) -> None:
        """``pools``: the player counts it accepts in each game's pool (rated unless ``rated`` is False);
        ``games``: how many games to start before it leaves the pools and stops (None: no end)."""
        self.client = client
        self.choose = choose
        self.accept = set(accept)
        self.concurrency = concurrency
        self.say = say
        self.pools = dict(pools or {})
        self.rated = rated
        self.games = games
        self.me = client.account()["name"]
        self.playing: dict[str, Future[Any]] = {}
        self._pool = ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="cardhall-game")
        self._lock = threading.Lock()

    def run(self, stop: Callable[[], bool] = lambda: False, after: int | None = None) -> None:
        """Play the games under way, answer the challenges offered to it that are still open (given no ``after``),
        join the pools, then follow the account's events after id ``after`` (default: from now on) until ``stop()``
        or, given a number of games, until they are played; the pools are left at the end."""
        offered: list[dict[str, Any]] = []
        after = self._newest(offered) if after is None else after
        for game_id in self.client.account(self.me)["games"]["current"]:
            self._play(game_id)
        for challenge in self._still_open(offered):
            self._answer(challenge)
        try:
            for game, players in self.pools.items():
                self.client.join_pool(game, list(players), rated=self.rated, concurrency=self.concurrency)
                self.say(f"waiting in the {game} pool for games of {', '.join(map(str, players))} players")
            for event in self.client.follow_account(after, stop=lambda: stop() or self.done()):
                self.handle(event)
        finally:
            self._leave_pools()
            self._pool.shutdown(wait=True)

    def done(self) -> bool:
        """Whether the games asked for have all started and ended."""
        with self._lock:
            return self.games is not None and len(self.playing) >= self.games and all(
                game.done() for game in self.playing.values())

    def _leave_pools(self) -> None:
        for game in list(self.pools):
            with contextlib.suppress(CardhallError):  # (not in it: the server had dropped it, or never took it)
                self.client.leave_pool(game)
            self.pools.pop(game)

    def handle(self, event: dict[str, Any]) -> None:
        """Act on one event of the account."""
        data = event["data"]
        if event["type"] == "challenge":
            self._answer(data)
        elif event["type"] == "gameStart":
            self._play(data["game_id"])
        elif event["type"] == "gameFinish":
            playing = self.playing.get(data["game_id"])
            if playing is None:  # (a game played here: its player says the result, once, after its last round or hand)
                self.say(f"game {data['game_id']} over: {data['result']}")
            elif self.games is not None:
                futures.wait([playing], timeout=60)  # (its player sees the end too: then done() may say so)

    def _answer(self, challenge: dict[str, Any]) -> None:
        if challenge["challenger"].lower() == self.me.lower():
            return
        if challenge["game"] not in self.accept:
            self._decline(challenge, f"this bot plays {', '.join(sorted(self.accept)) or 'nothing'}")
        elif self.busy():
            self._decline(challenge, "this bot is playing as many games as it may")
        else:
            try:
                accepted = self.client.accept(challenge["id"])
                self.say(f"accepted {challenge['challenger']}'s challenge to {challenge['game']}")
            except CardhallError as refused:  # (expired, taken, canceled meanwhile)
                self.say(f"challenge {challenge['id']}: {refused.detail}")
                return
            if accepted.get("game_id"):  # (its last seat: played now, so that busy() counts it before its gameStart)
                self._play(accepted["game_id"])

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
            enough = self.games is not None and len(self.playing) >= self.games
        if enough and self.pools:  # (a game the pool made before it was left is played too)
            self._leave_pools()

    def _play_out(self, game_id: str) -> None:
        try:
            play(self.client, game_id, self.choose, lambda line: self.say(f"[{game_id[:8]}] {line}"))
        except CardhallError as error:
            self.say(f"game {game_id}: {error}")
        except Exception as error:  # (said, not left unread in the game's future: the game would stall unexplained)
            log.exception("game %s: its player stopped", game_id)
            self.say(f"game {game_id}: its player stopped on {type(error).__name__}: {error}")

    def _newest(self, offered: list[dict[str, Any]]) -> int:
        """The id of the account's newest event: what happened before the bot started is not acted on
        again (its games under way are found from the account's page). The challenges offered to it that
        have not expired are added to ``offered``: one sent before the bot started is answered too."""
        after, now = 0, dt.datetime.now(dt.UTC)
        while page := self.client.account_events(after, limit=1000)["events"]:
            after = page[-1]["id"]
            offered += [event["data"] for event in page if event["type"] == "challenge"
                        and dt.datetime.fromisoformat(event["data"]["expires_at"]) > now]
        return after

    def _still_open(self, offered: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Those of ``offered`` still open and not yet accepted by this account, as they stand now."""
        found = []
        for challenge in offered:
            with contextlib.suppress(CardhallError):  # (gone meanwhile: nothing to answer)
                challenge = self.client.challenge_info(challenge["id"])
                if challenge["status"] == "open" and self.me.lower() not in map(str.lower, challenge["accepted"]):
                    found.append(challenge)
        return found


def live(client: CardhallClient, choose: Choose, accept: Collection[str] = (), concurrency: int = 1,
         say: Say = print, stop: Callable[[], bool] = lambda: False, *, pools: Mapping[str, Sequence[int]] | None = None,
         rated: bool = True, games: int | None = None) -> int:
    """Run ``choose`` as the account of ``client``'s key until ``stop()`` or its ``games`` are played (see
    :class:`Lobby`); how many games it played."""
    lobby = Lobby(client, choose, accept, concurrency, say, pools=pools, rated=rated, games=games)
    lobby.run(stop)
    return len(lobby.playing)
