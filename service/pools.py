"""Pools: accounts wait in a game's pool and the server seats them together (domain.pairing).

An account joins a game's pool with the player counts it accepts, whether its games are
rated, whether it will sit with accounts of the other kind (people with bots) and how many
pool games it plays at once. A pairing round (:meth:`Pools.pair`, run by every server process
every ``POOL_SECONDS``) reads the entries, leaves out accounts already playing as many games as
they asked for, pairs the rest and makes each group's game ready; then it locks the pools' row,
keeps the groups still waiting and free, and creates their games in that transaction, together:
their seats bound to their accounts, every seat told ``gameStart`` on its account's stream. One
locked write at a time, in every process, sees the pool as the last one left it: an account that
left (its ``DELETE`` committed) is never seated after. Every pool game runs a
clock (``move_seconds``: the pool's, default ``MOVE_SECONDS``), so a bot that stops answering
has its turns played and, after its seat's timeouts, is handed to a house bot and leaves every pool.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from domain.errors import InvalidOptions
from domain.game import all_games
from domain.pairing import Waiting, pair
from persistence.accounts import AccountWrites
from persistence.ladder import LadderStore, LadderWrites, PoolEntry, Rating, ladder_of
from persistence.port import Transaction
from service.accounts import PLAY, Caller
from service.challenges import AccountsGame
from service.errors import NotFound
from service.games import GameService
from service.ratings import ordinal

log = logging.getLogger(__name__)

MOVE_SECONDS = 10  # a pool game's clock, unless the operator sets its pool's (pool_clocks)
MAX_CONCURRENCY = 50
POOL_SECONDS = 0.25  # how often a server process pairs


class Pools:
    """The pool use cases over the game service's stores."""

    def __init__(self, games: GameService, clocks: Mapping[str, int] | None = None) -> None:
        """``clocks``: the ``move_seconds`` of each game's pool (``pool_clocks``), ``MOVE_SECONDS`` where none is given."""
        self.games = games
        self.ladder: LadderStore = ladder_of(games.store)
        self.clocks = dict(clocks or {})

    def move_seconds(self, game: str) -> int:
        """The clock of every game ``game``'s pool makes."""
        return self.clocks.get(game, self.clocks.get("", MOVE_SECONDS))

    def join(self, caller: Caller, game: str, players: Any, rated: bool = True, concurrency: int = 1,
             mixed: bool = False) -> dict[str, Any]:
        """Wait in ``game``'s pool (again: the entry is replaced) for games of ``players`` seats."""
        caller.require(PLAY)
        counts = self._counts(game, players)
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise InvalidOptions(f"concurrency is 1 to {MAX_CONCURRENCY} games at once")
        entry = PoolEntry(game, caller.key, caller.account.name, caller.bot, counts, bool(rated), bool(mixed),
                          concurrency, self.games.clock())
        self._write(lambda _tx, ladder, _writes: ladder.join_pool(entry))
        return rendered(entry, self.move_seconds(game))

    def leave(self, caller: Caller, game: str) -> None:
        """Leave ``game``'s pool: no game is made for the account after this returns."""
        _asking(caller, game)
        if not self._write(lambda _tx, ladder, _writes: ladder.leave_pool(game, caller.key)):
            raise _not_waiting(caller, game)

    def entry(self, caller: Caller, game: str) -> dict[str, Any]:
        """The caller's entry in ``game``'s pool."""
        _asking(caller, game)
        found = self.ladder.entry(game, caller.key)
        if found is None:
            raise _not_waiting(caller, game)
        return rendered(found, self.move_seconds(game))

    def pair_all(self) -> list[str]:
        """A pairing round of every pool with someone waiting; the games it made."""
        return [game_id for game in self.ladder.pools() for game_id in self.pair(game)]

    def pair(self, game: str) -> list[str]:
        """A pairing round of ``game``'s pool: the ids of the games it made.

        It decides first, on the pool as last committed and without its lock, as every command decides
        before its transaction: the groups, and each group's game made ready (ids, created event, the
        house's part, the seats marked from the entries). Under the lock it keeps the groups whose every
        entry is still there as it was and still free, and writes their games together; a group that
        changed meanwhile (an account left, or another process seated it) waits for the next round."""
        pool = self.ladder.pool(game)
        playing = self.games.accounts.store.playing([entry.account for entry in pool]) if pool else {}
        entries = {entry.account: entry for entry in pool if playing.get(entry.account, 0) < entry.concurrency}
        rated = self.ladder.ratings(game, list(entries)) if entries else {}
        now = self.games.clock()
        waiting = [Waiting(entry.account, entry.bot, frozenset(entry.players), entry.rated, entry.mixed,
                           _ordinal(rated.get(entry.account)), max(0.0, (now - entry.joined_at).total_seconds()))
                   for entry in entries.values()]
        groups = [[entries[entry.account] for entry in group] for group in pair(waiting)]
        if not groups:
            return []
        options = {"move_seconds": self.move_seconds(game)}
        ready = [AccountsGame.prepare(self.games, game, [entry.name for entry in group], options, rated=group[0].rated,
                                      bots=[entry.bot for entry in group]) for group in groups]
        made: list[AccountsGame] = []

        def work(tx: Transaction, ladder: LadderWrites, writes: AccountWrites) -> None:
            current = {entry.account: entry for entry in ladder.pool(game)}
            busy = writes.playing(list(current))
            for group, started in zip(groups, ready, strict=True):
                if all(current.get(entry.account) == entry and busy.get(entry.account, 0) < entry.concurrency
                       for entry in group):
                    for entry in group:
                        busy[entry.account] = busy.get(entry.account, 0) + 1
                    made.append(started)
            AccountsGame.write_all(tx, writes, made)

        self._write(work)
        for started in made:
            started.cached()
        return [started.game_id for started in made]

    def _write(self, work: Any) -> Any:
        """``work(tx, ladder writes, account writes)`` in one transaction; streams woken after."""
        with self.games.store.transaction() as tx, self.ladder.within(tx) as ladder, \
                self.games.accounts.store.within(tx) as writes:
            result = work(tx, ladder, writes)
        self.games.accounts.hub.poke()
        return result

    @staticmethod
    def _counts(game: str, players: Any) -> tuple[int, ...]:
        games = all_games()
        if game not in games:
            raise NotFound(f"no game {game!r}")
        low, high = games[game].min_players, games[game].max_players
        if not isinstance(players, list | tuple) or not players or not all(
                isinstance(count, int) and not isinstance(count, bool) and low <= count <= high for count in players):
            raise InvalidOptions(f"players lists the player counts accepted, each from {low} to {high}")
        return tuple(sorted(set(players)))


def pool_clocks(text: str) -> dict[str, int]:
    """The pools' clocks as an operator writes them: ``SECONDS`` for every pool, ``GAME=SECONDS`` for one,
    comma-separated (``15,scat=8``); the default's key is ``""``. ValueError for anything else."""
    clocks: dict[str, int] = {}
    for part in filter(None, (part.strip() for part in text.split(","))):
        game, _, seconds = (side.strip() for side in part.rpartition("="))
        if not seconds.isdigit() or not 1 <= int(seconds) <= 86_400 or (game and game not in all_games()):
            raise ValueError(f"a pool's clock is SECONDS or GAME=SECONDS (1 to 86400, a game of {', '.join(all_games())}),"
                             f" not {part!r}")
        clocks[game] = int(seconds)
    return clocks


def rendered(entry: PoolEntry, move_seconds: int) -> dict[str, Any]:
    """A pool entry as the API shows it."""
    return {"game": entry.game, "account": entry.name, "players": list(entry.players), "rated": entry.rated,
            "mixed": entry.mixed, "concurrency": entry.concurrency, "move_seconds": move_seconds,
            "joined_at": entry.joined_at}



def _ordinal(rating: Rating | None) -> float:
    """What pairing compares: the rating's ordinal; a newcomer's, 0 (openskill's default μ − 3σ)."""
    return 0.0 if rating is None else ordinal(rating.mu, rating.sigma)


def _asking(caller: Caller, game: str) -> None:
    """That ``caller`` may ask of its entry in ``game``'s pool (the ``play`` scope), a game Cardhall offers."""
    caller.require(PLAY)
    if game not in all_games():
        raise NotFound(f"no game {game!r}")


def _not_waiting(caller: Caller, game: str) -> NotFound:
    """The answer to an account that asks of an entry it does not have in ``game``'s pool."""
    return NotFound(f"the account {caller.account.name!r} is not in the {game} pool")
