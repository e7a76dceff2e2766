"""Tournaments: a round robin among named accounts, its deals played duplicate, standings read from the games.

Creating one makes every game at once, in one transaction (domain.tournaments says who sits where):
each table of the round robin is one deal, played ``players_per_table`` times with the seats rotated
when ``duplicate``; the games of a deal share their stacked decks (``decks``: 64 card orders drawn
here, one for each deal of the game in turn) and their first dealer (seat 0), so every rotation is
dealt the same cards seat for seat (a reshuffle of the discards depends on the play, as at any
table). Every game runs a clock (``move_seconds`` 10) and every participant hears
``tournamentStart`` on its stream, then ``gameStart`` for each of its games. Standings, the
crosstable and the games are read from the games themselves whenever they are asked for.
"""

from __future__ import annotations

import random
from typing import Any

from domain import table as tables
from domain.cards import DECK
from domain.errors import InvalidOptions
from domain.game import all_games
from domain.ladder import places
from domain.tournaments import crosstable, rotation, round_robin, standings
from persistence.accounts import AccountWrites, key_of
from persistence.ladder import LadderStore, Tournament, ladder_of
from persistence.port import Transaction
from service.accounts import CREATE, Caller
from service.challenges import AccountsGame
from service.errors import NotFound
from service.games import GameService

FORMATS = ("round_robin",)
MAX_GAMES = 120
DECKS = 64  # stacked decks a duplicate deal brings: the most the option takes
MOVE_SECONDS = 10


class Tournaments:
    """The tournament use cases over the game service's stores."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.ladder: LadderStore = ladder_of(games.store)
        self._chance = random.SystemRandom()

    def create(self, caller: Caller, game: str, accounts: list[str], players_per_table: int,
               format: str = "round_robin", rounds: int = 1, duplicate: bool = True) -> dict[str, Any]:
        """A round robin among ``accounts`` at tables of ``players_per_table``, every game made now."""
        caller.require(CREATE)
        if format not in FORMATS:
            raise InvalidOptions(f"format is one of {', '.join(FORMATS)} (Swiss is not offered yet)")
        names = self._accounts(accounts)
        kind = all_games().get(game)
        if kind is None:
            raise NotFound(f"no game {game!r}")
        if not kind.min_players <= players_per_table <= min(kind.max_players, len(names)):
            raise InvalidOptions(f"players_per_table is {kind.min_players} to {min(kind.max_players, len(names))} "
                                 f"for {game} among {len(names)} accounts")
        if not 1 <= rounds <= 10:
            raise InvalidOptions("rounds is 1 to 10: how many times the round robin is played")
        schedule = [(index, turn, rotation(table, turn))
                    for _ in range(rounds) for index, table in enumerate(round_robin(names, players_per_table))
                    for turn in range(players_per_table if duplicate else 1)]
        if len(schedule) > MAX_GAMES:
            raise InvalidOptions(f"that is {len(schedule)} games; a tournament has at most {MAX_GAMES}")
        return self._start(caller, game, names, players_per_table, rounds, duplicate, schedule)

    def _start(self, caller: Caller, game: str, names: list[str], players_per_table: int, rounds: int,
               duplicate: bool, schedule: list[tuple[int, int, tuple[str, ...]]]) -> dict[str, Any]:
        decks: dict[tuple[int, int], list[list[str]]] = {}
        made = []
        for number, (index, turn, seated) in enumerate(schedule):
            deal = (number // (players_per_table if duplicate else 1), index)
            if deal not in decks:
                decks[deal] = [self._chance.sample(DECK, len(DECK)) for _ in range(DECKS)]
            options = {"decks": decks[deal], "move_seconds": MOVE_SECONDS}
            if "first_dealer" in all_games()[game].options:
                options["first_dealer"] = 0
            made.append((index, turn, AccountsGame.prepare(self.games, game, seated, options, rated=False)))
        tournament = Tournament(self.games.new_id(), caller.account.name, game,
                                {"format": "round_robin", "accounts": names, "players_per_table": players_per_table,
                                 "rounds": rounds, "duplicate": duplicate},
                                [{"game_id": started.game_id, "table": index, "turn": turn,
                                  "seats": list(started.names)} for index, turn, started in made],
                                self.games.clock())

        def work(tx: Transaction, writes: AccountWrites) -> None:
            for name in names:
                mine = [entry["game_id"] for entry in tournament.games if name in entry["seats"]]
                writes.append(key_of(name), "tournamentStart", {"tournament_id": tournament.id, "game": game,
                                                                "games": mine}, tournament.created_at)
            for _, _, started in made:
                started.write(tx, writes)
            with self.ladder.within(tx) as ladder:
                ladder.add_tournament(tournament)

        self.games.accounts.write(work)
        for _, _, started in made:
            started.cached()
        return self.get(tournament.id)

    def get(self, tournament_id: str) -> dict[str, Any]:
        """The tournament: what was asked for, its standings and crosstable so far, and every game."""
        tournament = self.ladder.tournament(tournament_id)
        if tournament is None:
            raise NotFound(f"no tournament {tournament_id!r}")
        results, listed = [], []
        for entry in tournament.games:
            table = self.games.table(entry["game_id"])
            if table.status == tables.FINISHED:
                results.append((entry["seats"], places(table)))
            listed.append({**entry, "status": table.status})
        finished = len(results) == len(listed)
        return {"id": tournament.id, "creator": tournament.creator, "game": tournament.game, **tournament.spec,
                "status": "finished" if finished else "running", "created_at": tournament.created_at,
                "standings": [{"rank": rank, "account": row.account, "points": row.points, "games": row.games,
                               "mean": row.mean, "interval": [row.low, row.high]}
                              for rank, row in enumerate(standings(tournament.spec["accounts"], results), 1)],
                "crosstable": crosstable(results), "games": listed}

    def _accounts(self, accounts: Any) -> list[str]:
        """The named accounts' names as given at sign-up, each once."""
        if not isinstance(accounts, list) or not 2 <= len(accounts) <= 16:
            raise InvalidOptions("accounts names 2 to 16 accounts")
        found = []
        for name in accounts:
            account = self.games.accounts.store.account(name)
            if account is None:
                raise NotFound(f"no account {name!r}")
            found.append(account.name)
        if len({key_of(name) for name in found}) != len(found):
            raise InvalidOptions("name each account once")
        return found
