"""Challenges: one account offers a game to named accounts, or to anyone; when every seat is
accepted the game is created and started.

Every change of a challenge names the revision it read and is refused if another came
first (then read again and decided again). The acceptance that fills the last seat writes,
in one transaction, the challenge (started, with its game's id), the game with every seat
taken by its account, each seat's binding to its account, every participant's
``gameStart`` and the challenger's ``challengeAccepted`` (which every acceptance gives it):
all of it commits, or none. Of two acceptances racing for the last seat one makes the game;
the other is told 409 ``challenge_closed``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Any

from domain import table as tables
from domain.errors import InvalidOptions
from domain.fairness import seed_hash
from domain.game import all_games
from persistence.accounts import AccountWrites, Challenge, key_of
from persistence.port import NewGame, Transaction
from service.accounts import CREATE, PLAY, Caller
from service.chance import server_seed
from service.errors import ChallengeClosed, Forbidden, NotFound, StaleVersion
from service.games import GameService
from service.timestamps import timestamp
from service.writes import MAX_EVENTS_PER_WRITE, new_event

DEFAULT_EXPIRY = 60
MAX_EXPIRY = 24 * 3600
MAX_ATTEMPTS = 20
#: Open challenges an account may have made at once: each naming nobody is listed to everyone (GET /v1/challenges
#: shows the 50 newest), each naming accounts is told to them, so without a bound one account could hide every
#: other's and flood theirs.
MAX_OPEN = 20
OPEN, STARTED, DECLINED, CANCELED, EXPIRED = "open", "started", "declined", "canceled", "expired"


class _Changed(Exception):
    """The challenge changed since it was read: undo, read it again."""


class Challenges:
    """The challenge use cases, over the game service's stores."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.accounts = games.accounts

    def create(self, caller: Caller, game: str, players: Any, options: Any, to: list[str] | None = None,
               rated: bool = False, expires_in: int = DEFAULT_EXPIRY) -> dict[str, Any]:
        """Offer a game to the accounts named in ``to`` (every other seat), or to anyone (``to`` None). The game's
        server seed is drawn now and its hash shown, before any account that accepts adds its entropy, as a game
        whose seats are taken one by one commits to it when it is made (the challenger adds none: entropy sent
        in the request that draws the seed would be known before the seed is chosen); a seeded game's is drawn
        when it starts, from its seed and its id."""
        caller.require(CREATE)
        created = tables.create(game, players, options)  # (checks the game, players and options)
        if rated and (fixed := sorted(set(created.options) - set(tables.shown_options(all_games()[game], created.options)))):
            raise InvalidOptions(f"a rated game's chance is nobody's to fix: no {', '.join(fixed)} in a rated challenge")
        for check in self.games.seat_checks:
            check(caller.account.name, created.options)
        if not 1 <= expires_in <= MAX_EXPIRY:
            raise InvalidOptions(f"expires_in is 1 to {MAX_EXPIRY} seconds")
        invited = None if to is None else tuple(self._invited(caller, to, created.players))
        now = self.accounts.clock()
        challenge_id = self.games.new_id()
        seed = None if "seed" in created.options else server_seed(created.options, challenge_id, self.games.shuffle_secret)
        challenge = Challenge(challenge_id, caller.account.name, game, created.players, dict(options or {}),
                              bool(rated), invited, (caller.account.name,), OPEN, 1, None, None, now,
                              now + dt.timedelta(seconds=expires_in), seed, (None,))

        def work(_tx: Transaction, writes: AccountWrites) -> None:
            if writes.open_challenges_by(challenge.challenger, now) >= MAX_OPEN:
                raise InvalidOptions(f"an account has at most {MAX_OPEN} open challenges at once: cancel one, or let "
                                     "one be accepted or expire")
            writes.put_challenge(challenge, None)
            for name in sorted(invited or (), key=key_of):  # (in the order every writer locks accounts)
                writes.append(key_of(name), "challenge", rendered(challenge, now), now)

        self.accounts.write(work)
        return rendered(challenge, now)

    def _invited(self, caller: Caller, names: list[str], players: int) -> list[str]:
        """The accounts' names as they were given at sign-up, each once, the challenger not among them."""
        if len(names) != players - 1:
            raise InvalidOptions(f"a challenge to named accounts names one for each other seat: {players - 1}")
        found = []
        for name in names:
            account = self.accounts.store.account(name)
            if account is None:
                raise NotFound(f"no account {name!r}")
            found.append(account.name)
        keys = {key_of(name) for name in found}
        if caller.key in keys or len(keys) != len(found):
            raise InvalidOptions("name each other account once, and not the challenger")
        return found

    def get(self, challenge_id: str) -> dict[str, Any]:
        return rendered(self._challenge(challenge_id), self.accounts.clock())

    def listing(self, caller: Caller | None = None, limit: int = 50) -> dict[str, Any]:
        """Open challenges any account may accept, newest first (expired, declined, canceled and started ones are
        gone); for a ``caller``, those naming its account before them (one naming accounts is theirs alone)."""
        now, store = self.accounts.clock(), self.accounts.store
        named = [] if caller is None else store.challenges_naming(caller.key, now)
        return {"challenges": [rendered(challenge, now) for challenge in (*named, *store.open_challenges(now, limit))]}

    def accept(self, caller: Caller, challenge_id: str, entropy: str | None = None) -> dict[str, Any]:
        """Take a seat of the challenge, adding ``entropy`` to its game's shuffles; the last one creates and starts
        its game."""
        caller.require(PLAY)
        for _ in range(MAX_ATTEMPTS):
            challenge = self._open(challenge_id)
            if caller.key in map(key_of, challenge.accepted):
                raise ChallengeClosed("this account has accepted this challenge already")
            if challenge.invited is not None and caller.key not in map(key_of, challenge.invited):
                raise Forbidden("this challenge is not offered to this account")
            for check in self.games.seat_checks:
                check(caller.account.name, challenge.options)
            accepted = dataclasses.replace(challenge, accepted=(*challenge.accepted, caller.account.name),
                                           entropy=(*challenge.entropy, entropy), revision=challenge.revision + 1)
            try:
                if len(accepted.accepted) < accepted.players:
                    now = self.accounts.clock()

                    def work(_tx: Transaction, writes: AccountWrites, c: Challenge = accepted,
                             r: int = challenge.revision, now: dt.datetime = now) -> None:
                        _put(writes, c, r)
                        writes.append(key_of(c.challenger), "challengeAccepted", rendered(c, now), now)

                    self.accounts.write(work)
                    return rendered(accepted, now)
                return self._start(accepted, challenge.revision)
            except _Changed:
                continue
        raise StaleVersion("the challenge kept changing while accepting it; try again")

    def decline(self, caller: Caller, challenge_id: str, reason: str | None = None) -> dict[str, Any]:
        """Decline a challenge offered to this account by name: it is gone, and its challenger told."""
        caller.require(PLAY)
        return self._close(challenge_id, DECLINED, "challengeDeclined", reason, lambda challenge: (
            challenge.invited is not None and caller.key in map(key_of, challenge.invited)),
            "only an account the challenge names may decline it")

    def cancel(self, caller: Caller, challenge_id: str) -> dict[str, Any]:
        """Withdraw one's own challenge: it is gone, and those it was offered to told."""
        caller.require(CREATE)
        return self._close(challenge_id, CANCELED, "challengeCanceled", None,
                           lambda challenge: key_of(challenge.challenger) == caller.key,
                           "only the challenger may cancel a challenge")

    def _close(self, challenge_id: str, status: str, event: str, reason: str | None,
               allowed: Any, refusal: str) -> dict[str, Any]:
        for _ in range(MAX_ATTEMPTS):
            challenge = self._open(challenge_id)
            if not allowed(challenge):
                raise Forbidden(refusal)
            closed = dataclasses.replace(challenge, status=status, reason=reason, revision=challenge.revision + 1)
            now = self.accounts.clock()
            told = {key_of(name) for name in (challenge.challenger, *(challenge.invited or ()), *challenge.accepted)}

            def work(_tx: Transaction, writes: AccountWrites, closed: Challenge = closed,
                     revision: int = challenge.revision, told: set[str] = told, now: dt.datetime = now) -> None:
                _put(writes, closed, revision)
                for account in sorted(told):
                    writes.append(account, event, rendered(closed, now), now)

            try:
                self.accounts.write(work)
            except _Changed:
                continue
            return rendered(closed, now)
        raise StaleVersion("the challenge kept changing; try again")

    def _start(self, challenge: Challenge, revision: int) -> dict[str, Any]:
        """The game of a challenge whose every seat is accepted, created and started with it."""
        now = self.accounts.clock()
        started = AccountsGame.prepare(self.games, challenge.game, challenge.accepted, challenge.options,
                                       rated=challenge.rated, seed=challenge.server_seed, entropy=challenge.entropy)
        done = dataclasses.replace(challenge, status=STARTED, game_id=started.game_id)

        def work(tx: Transaction, writes: AccountWrites) -> None:
            _put(writes, done, revision)  # (first: of two racing for the last seat, one goes on)
            started.write(tx, writes)
            # (after the seats' gameStart, its accounts locked in their order: the challenger is one of them)
            writes.append(key_of(done.challenger), "challengeAccepted", rendered(done, now), now)

        self.accounts.write(work)
        started.cached()
        return rendered(done, now)

    def _challenge(self, challenge_id: str) -> Challenge:
        challenge = self.accounts.store.challenge(challenge_id)
        if challenge is None:
            raise NotFound(f"no challenge {challenge_id!r}")
        return challenge

    def _open(self, challenge_id: str) -> Challenge:
        """The challenge, if it is still open; ChallengeClosed if not."""
        challenge = self._challenge(challenge_id)
        status = status_of(challenge, self.accounts.clock())
        if status == STARTED:
            raise ChallengeClosed(f"every seat of this challenge was taken: its game {challenge.game_id} started")
        if status != OPEN:
            raise ChallengeClosed(f"this challenge is {status}")
        return challenge


@dataclasses.dataclass(frozen=True, slots=True)
class AccountsGame:
    """A game with every seat taken by an account, prepared outside the transaction that writes it:
    created, seated and started at once, each seat bound to its account, each told ``gameStart``."""

    games: GameService
    game_id: str
    created: tables.GameCreated
    table: tables.Table
    names: tuple[str, ...]
    write_events: Any  # the service's write of the seats and all they set off

    @classmethod
    def prepare(cls, games: GameService, game: str, names: Any, options: Any, rated: bool,
                bots: Sequence[bool] | None = None, seed: str | None = None,
                entropy: Sequence[str | None] = ()) -> AccountsGame:
        """The game of ``game`` with the named accounts in seat order (a bot mark for bot accounts: ``bots``,
        one a seat, where the caller knows them, as a pool's entries do; else each account is read), each seat
        adding its ``entropy`` (one a seat, if any: a challenge's); with the server ``seed`` committed to before (a challenge's),
        else one drawn now."""
        game_id = games.new_id()
        created = games.created(game, len(names), options, game_id, rated=rated)
        if seed is not None:
            created = dataclasses.replace(created, server_seed=seed)
        table = tables.evolve(None, created)
        if bots is None:
            bots = [(account := games.accounts.store.account(name)) is not None and account.kind == "bot"
                    for name in names]
        seats = [tables.SeatTaken(seat, name=name, bot=None, entropy=entropy[seat] if entropy else None, account=name,
                                  bot_account=bot)
                 for seat, (name, bot) in enumerate(zip(names, bots, strict=True))]
        after, decided = tables.settle(table, seats, games.house, MAX_EVENTS_PER_WRITE)
        return cls(games, game_id, created, after, tuple(names), games._write(game_id, table, after, decided))

    def write(self, tx: Transaction, writes: AccountWrites) -> None:
        """The game, its seats' bindings and its events, in the transaction ``tx``."""
        AccountsGame.write_all(tx, writes, [self])

    @staticmethod
    def write_all(tx: Transaction, writes: AccountWrites, started: Sequence[AccountsGame]) -> None:
        """Games started with their accounts (a challenge's, a pairing round's, a tournament round's), in ``tx``:
        in a few statements for them all (every game with its first events, every seat's binding, every
        ``gameStart``, each account locked once), recorded now. A game the house's part ended at once (none
        does) is written alone, through its write's own ``apply``."""
        if not started:
            return
        now = started[0].games.clock()
        together = [game for game in started if game.table.status == tables.ACTIVE]
        for game in started:
            if game.table.status != tables.ACTIVE:
                tx.create_game(game.game_id, game.created.game, game.created.players, now)
                tx.append(game.game_id, 0, [new_event(game.created)], now)
                writes.add_seats([(game.game_id, seat, key_of(name)) for seat, name in enumerate(game.names)])
                game.write_events.apply(tx)
        tx.create_games([game._new_game(now) for game in together])
        for game in together:
            if game.write_events.snapshot is not None:
                tx.put_snapshot(game.game_id, *game.write_events.snapshot)
        writes.add_seats([(game.game_id, seat, key_of(name)) for game in together for seat, name in enumerate(game.names)])
        writes.append_all(sorted(((key_of(name), "gameStart", {"game_id": game.game_id, "game": game.table.game.name,
                                                              "seat": seat}, now)
                                  for game in together for seat, name in enumerate(game.names)), key=lambda event: event[0]))

    def _new_game(self, now: dt.datetime) -> NewGame:
        write = dataclasses.replace(self.write_events, recorded_at=now)  # (its turn's clock runs from now)
        return NewGame(self.game_id, self.created.game, self.created.players, now,
                       [new_event(self.created), *write.events], self.table.status,
                       write.deadline if write.sets_deadline else None)

    def cached(self) -> None:
        """Once committed: the table kept in the process's cache."""
        self.games.cache.put(self.game_id, self.table)


def _put(writes: AccountWrites, challenge: Challenge, revision: int) -> None:
    if not writes.put_challenge(challenge, revision):
        raise _Changed


def status_of(challenge: Challenge, now: dt.datetime) -> str:
    """The challenge's status now: an open one past its expiry is ``expired``."""
    return EXPIRED if challenge.status == OPEN and challenge.expires_at <= now else challenge.status


def rendered(challenge: Challenge, now: dt.datetime) -> dict[str, Any]:
    """A challenge as the API shows it: its options without those that fix chance (``seed``, ``decks``), which
    its game hides until it is over, and whether it has them, as the game's summary says (``seeded``,
    ``stacked``)."""
    return {"id": challenge.id, "status": status_of(challenge, now), "challenger": challenge.challenger,
            "game": challenge.game, "players": challenge.players,
            "options": tables.shown_options(all_games()[challenge.game], challenge.options),
            **tables.options_fixing_chance(challenge.options), "rated": challenge.rated,
            "to": None if challenge.invited is None else list(challenge.invited),
            "accepted": list(challenge.accepted), "entropy": list(challenge.entropy),
            "server_seed_hash": None if challenge.server_seed is None else seed_hash(challenge.server_seed),
            "game_id": challenge.game_id, "reason": challenge.reason,
            "created_at": timestamp(challenge.created_at), "expires_at": timestamp(challenge.expires_at)}

