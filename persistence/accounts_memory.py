"""The account store (:mod:`persistence.accounts`) in memory, beside the in-memory event store."""

from __future__ import annotations

import collections
import copy
import dataclasses
import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from persistence.accounts import Account, AccountEvent, AccountStore, AccountWrites, ApiKey, Challenge, NameTaken, key_of
from persistence.port import Transaction, as_utc


@dataclasses.dataclass(frozen=True, slots=True)
class _Seat:
    """An account's seat in a game: whether the game is over, whether the seat was handed to a house bot."""

    account: str
    finished: bool = False
    handed_over: bool = False

    @property
    def playing(self) -> bool:
        """Whether its account plays it now."""
        return not (self.finished or self.handed_over)


@dataclasses.dataclass
class _MemoryAccounts:
    accounts: dict[str, Account] = dataclasses.field(default_factory=dict)
    keys: dict[str, ApiKey] = dataclasses.field(default_factory=dict)
    seats: dict[tuple[str, int], _Seat] = dataclasses.field(default_factory=dict)
    challenges: dict[str, Challenge] = dataclasses.field(default_factory=dict)
    events: dict[str, list[AccountEvent]] = dataclasses.field(default_factory=dict)
    positions: list[str] = dataclasses.field(default_factory=list)  # the account of each position


class MemoryAccountWrites(AccountWrites):
    def __init__(self, state: _MemoryAccounts) -> None:
        self.state = state

    def add_account(self, account: Account) -> None:
        if key_of(account.name) in self.state.accounts:
            raise NameTaken(account.name)
        self.state.accounts[key_of(account.name)] = account

    def set_entered_by(self, account: str, entered_by: str | tuple[str, ...]) -> None:
        self.state.accounts[account] = dataclasses.replace(self.state.accounts[account], entered_by=entered_by)

    def add_key(self, key: ApiKey) -> None:
        self.state.keys[key.prefix] = key

    def live_keys(self, account: str) -> int:
        return sum(1 for key in self.state.keys.values() if key.account == account and key.revoked_at is None)

    def forget_revoked(self, account: str, keep: int) -> None:
        revoked = sorted((key for key in self.state.keys.values() if key.account == account and key.revoked_at),
                         key=lambda key: (key.revoked_at, key.prefix), reverse=True)
        for key in revoked[keep:]:
            del self.state.keys[key.prefix]

    def open_challenges_by(self, challenger: str, now: dt.datetime) -> int:
        return sum(1 for found in self.state.challenges.values()
                   if found.challenger == challenger and found.status == "open" and found.expires_at > now)

    def revoke_key(self, account: str, prefix: str, at: dt.datetime) -> bool:
        key = self.state.keys.get(prefix)
        if key is None or key.account != account or key.revoked_at is not None:
            return False
        self.state.keys[prefix] = dataclasses.replace(key, revoked_at=as_utc(at))
        return True

    def add_seat(self, game_id: str, seat: int, account: str) -> None:
        self.state.seats[game_id, seat] = _Seat(account)

    def playing(self, accounts: Sequence[str]) -> dict[str, int]:
        wanted = set(accounts)
        return dict(collections.Counter(seat.account for seat in self.state.seats.values()
                                        if seat.account in wanted and seat.playing))

    def hand_over_seats(self, game_id: str, seats: Sequence[int]) -> None:
        for seat in seats:
            if (game_id, seat) in self.state.seats:
                self.state.seats[game_id, seat] = dataclasses.replace(self.state.seats[game_id, seat], handed_over=True)

    def finish_seats(self, game_id: str) -> dict[int, str]:
        found = {seat: held for (game, seat), held in self.state.seats.items() if game == game_id}
        for seat, held in found.items():
            self.state.seats[game_id, seat] = dataclasses.replace(held, finished=True)
        return {seat: held.account for seat, held in found.items()}

    def forget_seats(self, game_id: str) -> None:
        self.state.seats = {key: seat for key, seat in self.state.seats.items() if key[0] != game_id}

    def unfinished(self, game_ids: Sequence[str]) -> set[str]:
        wanted = set(game_ids)
        return {game for (game, _), seat in self.state.seats.items() if game in wanted and not seat.finished}

    def challenge(self, challenge_id: str) -> Challenge | None:
        return self.state.challenges.get(challenge_id)

    def put_challenge(self, challenge: Challenge, expected_revision: int | None) -> bool:
        current = self.state.challenges.get(challenge.id)
        if (current is None) != (expected_revision is None) or (current and current.revision != expected_revision):
            return False
        self.state.challenges[challenge.id] = challenge
        return True

    def append(self, account: str, type_name: str, data: dict[str, Any], at: dt.datetime) -> int:
        stream = self.state.events.setdefault(account, [])
        stream.append(AccountEvent(len(stream) + 1, type_name, copy.deepcopy(data), as_utc(at)))
        self.state.positions.append(account)
        return len(stream)


class MemoryAccounts(AccountStore):
    """Accounts in this process's memory, written under the memory event store's transaction lock."""

    def __init__(self) -> None:
        self.state = _MemoryAccounts()
        self._open: tuple[Transaction, MemoryAccountWrites] | None = None  # (transactions never overlap)

    @contextmanager
    def within(self, tx: Transaction) -> Iterator[AccountWrites]:
        if self._open is not None and self._open[0] is tx:  # (a second use in the same transaction)
            yield self._open[1]
            return
        writes = MemoryAccountWrites(copy.deepcopy(self.state))
        self._open = (tx, writes)
        try:
            yield writes
            self.state = writes.state
        finally:
            self._open = None

    def account(self, name: str) -> Account | None:
        return self.state.accounts.get(key_of(name))

    def playing(self, accounts: Sequence[str]) -> dict[str, int]:
        return MemoryAccountWrites(self.state).playing(accounts)

    def key(self, prefix: str) -> ApiKey | None:
        return self.state.keys.get(prefix)

    def key_and_account(self, prefix: str) -> tuple[ApiKey, Account] | None:
        key = self.state.keys.get(prefix)
        return None if key is None else (key, self.state.accounts[key.account])

    def keys(self, account: str) -> list[ApiKey]:
        return sorted((key for key in self.state.keys.values() if key.account == account),
                      key=lambda key: (key.created_at, key.prefix))

    def unfinished(self, game_ids: Sequence[str]) -> set[str]:
        return MemoryAccountWrites(self.state).unfinished(game_ids)

    def games_of(self, account: str) -> tuple[int, list[str]]:
        mine = [(game, seat) for (game, _), seat in self.state.seats.items() if seat.account == account]
        return sum(1 for _, seat in mine if not seat.playing), sorted({game for game, seat in mine if seat.playing})

    def challenge(self, challenge_id: str) -> Challenge | None:
        return self.state.challenges.get(challenge_id)

    def open_challenges(self, now: dt.datetime, limit: int) -> list[Challenge]:
        found = [found for found in self.state.challenges.values()
                 if found.status == "open" and found.expires_at > now and found.invited is None]
        return sorted(found, key=lambda challenge: challenge.created_at, reverse=True)[:limit]

    def challenges_naming(self, account: str, now: dt.datetime) -> list[Challenge]:
        found = [found for found in self.state.challenges.values() if found.status == "open" and found.expires_at > now
                 and account in map(key_of, found.invited or ())]
        return sorted(found, key=lambda challenge: challenge.created_at, reverse=True)

    def events(self, account: str, after: int, limit: int) -> list[AccountEvent]:
        return self.state.events.get(account, [])[after:after + limit]

    def newest_position(self) -> int:
        return len(self.state.positions)

    def accounts_after(self, position: int) -> tuple[int, set[str]]:
        positions = self.state.positions
        return len(positions), set(positions[position:])
