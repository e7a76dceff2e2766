"""Accounts and API keys: who a bearer key speaks for, and with which scopes.

A key reads ``chk_`` + a 12-hex-digit prefix (public: how a key is listed and revoked) + ``_``
+ 256 random bits. Only its SHA-256 is stored; a presented key is found by its prefix and
its hash compared in constant time. Nothing about keys is cached: a key revoked in any
process is refused by every process at the next request.

Scopes: ``play`` (take seats, move), ``create`` (create games and challenges), ``read``
(the account's stream and keys); ``admin`` (create accounts when sign-up is closed) is only
given by ``cardhall accounts create --admin``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from domain import table as tables
from domain.errors import InvalidOptions
from domain.text import LINE, UNSTORABLE
from persistence.accounts import (
    ANYONE,
    NOBODY,
    Account,
    AccountEvent,
    AccountStore,
    AccountWrites,
    ApiKey,
    accounts_of,
    key_of,
)
from persistence.accounts import NameTaken as NameInUse
from persistence.ladder import ladder_of
from persistence.port import EventStore, Transaction
from service.errors import UNKNOWN_KEY, Forbidden, InsufficientScope, InvalidToken, NameTaken, NotABot, NotFound, Unauthorized
from service.hub import AccountHub
from service.ratings import figures

PLAY, CREATE, READ, ADMIN = "play", "create", "read", "admin"
SCOPES = (PLAY, CREATE, READ)
KINDS = ("bot", "person")
NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
KEY_START = "chk_"
_PREFIX_END = len(KEY_START) + 12
MAX_KEYS = 20  # live keys an account may hold, and revoked ones it keeps listed
MAX_ENTERED_BY = 16  # accounts a bot may name as those that may enter it in tournaments
MAX_DESCRIPTION = 500  # characters of an account's description (one line: domain.text.LINE)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def new_key() -> tuple[str, str]:
    """A new key and its public prefix."""
    prefix = secrets.token_hex(6)
    return f"{KEY_START}{prefix}_{secrets.token_urlsafe(32)}", prefix


def is_account_key(token: str) -> bool:
    """Whether a bearer token has the shape of an account key (else it is a seat token)."""
    return token.startswith(KEY_START) and len(token) > _PREFIX_END and token[_PREFIX_END] == "_"


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclasses.dataclass(frozen=True, slots=True)
class Caller:
    """The account a request's key speaks for, and what the key may do."""

    account: Account
    key: str  # the account's name key
    prefix: str
    scopes: frozenset[str]

    @property
    def bot(self) -> bool:
        return self.account.kind == "bot"

    def require(self, scope: str) -> None:
        """InsufficientScope unless the key has ``scope``."""
        if scope not in self.scopes:
            raise InsufficientScope(f"this API key lacks the '{scope}' scope (it has: {', '.join(sorted(self.scopes))})")


class AccountService:
    """Accounts, keys and streams; one per process, safe to share between threads."""

    def __init__(self, store: EventStore, *, open_signup: bool = True,
                 clock: Callable[[], dt.datetime] = utcnow) -> None:
        self.events_store = store
        self.store: AccountStore = accounts_of(store)
        self.open_signup = open_signup
        self.clock = clock
        self.hub = AccountHub(self.store)

    # -- writing ------------------------------------------------------------------------------
    def write(self, work: Callable[[Transaction, AccountWrites], Any]) -> Any:
        """``work`` in one transaction of the event store, account writes included; then the
        accounts it gave events to are woken."""
        with self.events_store.transaction() as tx, self.store.within(tx) as writes:
            result = work(tx, writes)
        self.hub.poke()
        return result

    def create_account(self, name: str, kind: str, description: str = "", caller: Caller | None = None,
                       scopes: Iterable[str] = SCOPES, *, operator: bool = False) -> dict[str, Any]:
        """A new account and its first key (shown once); when sign-up is closed, only an admin key
        may, or the operator (``cardhall accounts create``)."""
        if not self.open_signup and not operator:
            if caller is None:
                raise Unauthorized("sign-up is closed here: creating an account needs an admin key")
            caller.require(ADMIN)
        if not NAME.fullmatch(name or ""):
            raise InvalidOptions("a name is 1 to 32 letters, digits, '-' or '_'")
        if kind not in KINDS:
            raise InvalidOptions(f"kind is one of {', '.join(KINDS)}")
        description = description or ""
        if len(description) > MAX_DESCRIPTION or not LINE.fullmatch(description) or UNSTORABLE.search(description):
            raise InvalidOptions(f"a description is one line of at most {MAX_DESCRIPTION} characters, with no control "
                                 "character or bidirectional mark")
        account = Account(name, kind, description, self.clock())
        key, prefix = new_key()
        record = ApiKey(prefix, key_of(name), key_hash(key), frozenset(scopes), account.created_at)

        def work(_tx: Transaction, writes: AccountWrites) -> None:
            writes.add_account(account)
            writes.add_key(record)

        try:
            self.write(work)
        except NameInUse as error:
            raise NameTaken(f"the name {name!r} is taken (names are compared without regard to case)") from error
        return {"name": name, "kind": kind, "key": key, "scopes": sorted(record.scopes)}

    def add_key(self, caller: Caller, scopes: Iterable[str]) -> dict[str, Any]:
        """A new key for the caller's account with ``scopes``, none beyond the caller's own."""
        scopes = frozenset(scopes)
        if missing := scopes - caller.scopes:
            raise InsufficientScope(f"a key cannot give scopes it lacks: {', '.join(sorted(missing))}")
        key, prefix = new_key()
        record = ApiKey(prefix, caller.key, key_hash(key), scopes, self.clock())

        def work(_tx: Transaction, writes: AccountWrites) -> None:
            if writes.live_keys(caller.key) >= MAX_KEYS:  # (counted in the write: keys added at once count each other)
                raise InvalidOptions(f"an account holds at most {MAX_KEYS} keys: revoke one first")
            writes.add_key(record)

        self.write(work)
        return {**_key_listed(record), "key": key}

    def revoke_key(self, caller: Caller, prefix: str) -> None:
        """Revoke one of the caller's account's keys: itself, or one whose scopes it holds all of."""
        found = self.store.key(prefix)
        if found is None or found.account != caller.key or found.revoked_at is not None:
            raise NotFound(f"this account has no live key {prefix!r}")
        if prefix != caller.prefix and not found.scopes <= caller.scopes:
            raise InsufficientScope("a key may revoke itself, or a key whose scopes it holds all of")

        def work(_tx: Transaction, writes: AccountWrites) -> None:
            writes.revoke_key(caller.key, prefix, self.clock())
            writes.forget_revoked(caller.key, MAX_KEYS)

        self.write(work)

    def set_entered_by(self, caller: Caller, entered_by: str | list[str]) -> dict[str, Any]:
        """Set who may enter the caller's bot account in a tournament another account makes (scope ``play``):
        anyone, nobody, or the named accounts (each an account, named once); the setting as it now stands."""
        caller.require(PLAY)
        if not caller.bot:
            raise NotABot("only a bot account is entered in tournaments by others: a person enters one only by "
                          "making it")
        if isinstance(entered_by, str) and entered_by not in (ANYONE, NOBODY):
            raise InvalidOptions(f"entered_by is {ANYONE!r}, {NOBODY!r} or a list of account names")
        chosen = entered_by if isinstance(entered_by, str) else self._named(entered_by)
        self.write(lambda _tx, writes: writes.set_entered_by(caller.key, chosen))
        return {"entered_by": shown(chosen)}

    def _named(self, names: list[str]) -> tuple[str, ...]:
        """The accounts' names as given at sign-up, each account once."""
        if not 1 <= len(names) <= MAX_ENTERED_BY:
            raise InvalidOptions(f"entered_by names 1 to {MAX_ENTERED_BY} accounts")
        found = []
        for name in names:
            account = self.store.account(name)
            if account is None:
                raise NotFound(f"entered_by: no account {name!r}")
            found.append(account.name)
        if len({key_of(name) for name in found}) != len(found):
            raise InvalidOptions("entered_by: name each account once")
        return tuple(found)

    # -- reading ------------------------------------------------------------------------------
    def caller(self, token: str | None) -> Caller | None:
        """The account an account key speaks for; None for no token or a token of another shape (a seat's);
        InvalidToken for a key never given out or revoked."""
        if token is None or not is_account_key(token):
            return None
        found = self.store.key_and_account(token[len(KEY_START):_PREFIX_END])
        if found is None or not hmac.compare_digest(found[0].key_hash, key_hash(token)) or found[0].revoked_at is not None:
            raise InvalidToken(UNKNOWN_KEY)
        key, account = found
        return Caller(account, key.account, key.prefix, key.scopes)

    def required_caller(self, token: str | None, scope: str) -> Caller:
        """The account the key speaks for, which must hold ``scope``. A token of another shape (a seat's, or
        none Cardhall gives out) is refused as an unknown key is: it was given, and is no key."""
        caller = self.caller(token)
        if caller is None and token is None:
            raise Unauthorized("this needs 'Authorization: Bearer KEY' with an account's API key")
        if caller is None:
            raise InvalidToken(UNKNOWN_KEY)
        caller.require(scope)
        return caller

    def exists(self, name: str) -> bool:
        """Whether there is an account ``name``."""
        return self.store.account(name) is not None

    def account(self, name: str) -> dict[str, Any]:
        """An account's public page data."""
        account = self.store.account(name)
        if account is None:
            raise NotFound(f"no account {name!r}")
        played, current = self.store.games_of(key_of(name))
        ratings = {rating.game: figures(rating) for rating in ladder_of(self.events_store).ratings_of(key_of(name))}
        return {"name": account.name, "kind": account.kind, "description": account.description,
                "created_at": account.created_at, "games": {"played": played, "current": current}, "ratings": ratings,
                "tournaments": {"entered_by": shown(account.entered_by if account.kind == "bot" else NOBODY)}}

    def events(self, account: str, after: int, limit: int) -> list[AccountEvent]:
        """The account's (its key's) events after ``after``, at most ``limit``, oldest first."""
        return self.store.events(account, after, limit)

    def keys(self, caller: Caller) -> dict[str, Any]:
        """The caller's account's keys, by prefix (a key is never shown again)."""
        return {"keys": [_key_listed(key) for key in self.store.keys(caller.key)]}


def shown(entered_by: str | tuple[str, ...]) -> str | list[str]:
    """Who may enter an account in tournaments others make, as the API shows it: a word, or a list of names."""
    return entered_by if isinstance(entered_by, str) else list(entered_by)


def rendered(event: Any) -> dict[str, Any]:
    """An account event as the API shows it."""
    return {"id": event.seq, "type": event.type, "data": event.data, "recorded_at": event.recorded_at}


def _key_listed(key: ApiKey) -> dict[str, Any]:
    return {"prefix": key.prefix, "scopes": sorted(key.scopes), "created_at": key.created_at,
            "revoked_at": key.revoked_at}


def record_status(writes: AccountWrites, game_id: str, before: tables.Table, after: tables.Table,
                  at: dt.datetime) -> None:
    """Tell the accounts seated in a game that it started (``gameStart``) or ended (``gameFinish``), in
    the order of their keys: each append locks its account until the transaction ends (PostgreSQL), so
    two games of the same accounts seated the other way round, finishing together (a duplicate deal's
    rotations), would each hold one and wait for the other's."""
    seated = dict(sorted(((index, key_of(seat.account)) for index, seat in enumerate(after.seats)
                          if seat and seat.account), key=lambda item: (item[1], item[0])))
    if not seated or before.status == after.status:
        return
    if after.status == tables.ACTIVE:
        for seat, account in seated.items():
            writes.append(account, "gameStart", {"game_id": game_id, "game": after.game.name, "seat": seat}, at)
    elif after.status in tables.OVER:  # (finished, or aborted: no result, and never played)
        if after.status == tables.FINISHED:
            writes.finish_seats(game_id)
        else:
            writes.forget_seats(game_id)
        result = after.game.result(after.state) if after.status == tables.FINISHED else None
        for seat, account in seated.items():
            writes.append(account, "gameFinish", {"game_id": game_id, "seat": seat, "result": result}, at)


__all__ = ["ADMIN", "ANYONE", "CREATE", "NOBODY", "PLAY", "READ", "SCOPES", "AccountService", "Caller", "Forbidden",
           "record_status"]
