"""One game in the environment: the server's own table (:mod:`domain.table`) and who decides next.

A :class:`Match` plays the domain exactly as the server does — a move is decided,
then :func:`domain.table.settle` runs everything it sets off: chance outcomes, and
the turns of any house bot at the table — with its chance and its bots' choices
drawn from one seeded ``random.Random``, so a seed replays a game exactly.

Decisions come one at a time. A seat offered moves out of turn (an announce, a
call-out, a declared 31) is asked first, in seat order, and may ``pass``; then
the seat on turn. A seat that passed is not asked again until the next event.

A match can also be started from a finished server game's log (:func:`from_log`): its
chance outcomes are then the log's own, every seat decides (a house bot's too: its logged
moves are not played for it), and :meth:`Match.next_logged_action` gives, one by one, the
action ids that replay the log's moves. A step that is not the logged action leaves the
log: from there the match goes on as any other, its house bots acting by themselves.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import os
import pathlib
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import bots
from cardhall_env.actions import ActionTable, action_table
from domain import records
from domain import table as tables
from domain.errors import InvalidOptions
from domain.events import Event, event_data
from domain.fairness import Shuffled, fixed_order
from domain.game import ChanceRequest, EventCapReached, all_games
from domain.moves import Move

#: Options the environment does not take: it seeds on reset, and keeps no clock.
NOT_OFFLINE = {"seed": "seed the environment instead (reset(seed=...))",
               "move_seconds": "the environment keeps no clock",
               "decks": "stack the deck on a server, then start the environment from its log"}


@functools.cache
def _swaps(size: int) -> tuple[tuple[int, int], ...]:
    """The places Fisher–Yates fills in a list of ``size``, from the end, each with the bits drawn for it."""
    return tuple((i, (i + 1).bit_length()) for i in range(size - 1, 0, -1))


def shuffled(rng: random.Random, cards: Sequence[str]) -> list[str]:
    """``cards`` in the order ``rng.shuffle`` puts them in, drawing the same numbers from ``rng`` (Fisher–Yates
    from the end, each index drawn as ``random.Random._randbelow`` does), in a third of its time: the method
    calls of its inner loop left out."""
    order = list(cards)
    getrandbits = rng.getrandbits
    for i, bits in _swaps(len(order)):
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        order[i], order[j] = order[j], order[i]
    return order


class SeededHouse:
    """Chance and house bots from one random source (:class:`domain.table.House`)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def draw(self, table: tables.Table, request: ChanceRequest) -> Event:
        """A shuffle of the requested cards, committed under a salt from the same source."""
        return request.outcome(shuffled(self.rng, request.cards), f"{self.rng.getrandbits(128):032x}")

    def bot_move(self, table: tables.Table, seat: int) -> Mapping[str, Any]:
        """The house bot's move, from its seat's view, as the server's house plays it."""
        kind = table.seats[seat].bot
        return bots.choose(table.game, kind, _bot_view(table, seat, kind), self.rng)

    def bot_out_of_turn(self, table: tables.Table, seat: int) -> Mapping[str, Any] | None:
        """The house bot's out-of-turn move, or None."""
        moves = tables.legal_moves(table, seat)
        if not moves:
            return None
        kind = table.seats[seat].bot
        return bots.out_of_turn(table.game, kind, _bot_view(table, seat, kind, moves), self.rng)


class ServerChance(SeededHouse):
    """Chance as the server draws it (:func:`service.chance.resolve`) at a table that has its own: a stacked game's
    decks deal in turn (its pile turned over unshuffled), and every other shuffle is the order the game's server
    seed and its seats' entropy derive for the event's number (:mod:`domain.fairness`). The game of a server's log
    goes on with it once the log is left, so that its record holds as a server's does (``cardhall record validate``,
    ``import``). A table without a server seed (a game created before them) shuffles from ``rng``, as ever; the
    salts and the house bots' choices come from ``rng``."""

    def draw(self, table: tables.Table, request: ChanceRequest) -> Event:
        order = fixed_order(request, table.version + 1, table.seeds, table.options.get("decks"))
        if order is None:
            return super().draw(table, request)
        return request.outcome(order, f"{self.rng.getrandbits(128):032x}")


def _bot_view(table: tables.Table, seat: int, kind: str, moves: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    if bots.needs_view(kind):
        return tables.view(table, seat)
    return {"legal_moves": tables.legal_moves(table, seat) if moves is None else moves}


#: The openings made so far: a game's creation and its seats taken, and the table they fold to (immutable, shared
#: by every match of the same table: an environment's reset makes the same one each time).
_OPENINGS: dict[Any, tuple[tuple[Event, ...], tables.Table]] = {}


def _opening(game: str, players: int, options: dict[str, Any], bots_at: dict[int, str],
             names: Sequence[str] | None) -> tuple[tuple[Event, ...], tables.Table]:
    """The events opening a match (the game created, every seat taken) and the table they fold to."""
    try:
        key: Any = (game, players, tuple(sorted(options.items())), tuple(sorted(bots_at.items())),
                    None if names is None else tuple(names))
        found = _OPENINGS.get(key)
    except TypeError:  # (an option's value that cannot be a key: made each time)
        key = found = None
    if found is None:
        created = tables.create(game, players, options)
        seats = [tables.SeatTaken(seat, name=None if seat in bots_at else (names[seat] if names else f"seat {seat}"),
                                  bot=bots_at.get(seat)) for seat in range(players)]
        found = (created, *seats), tables.replay([created, *seats])
        if key is not None and len(_OPENINGS) < 256:
            _OPENINGS[key] = found
    return found


def _refuse_server_options(options: Mapping[str, Any]) -> None:
    """ValueError for an option of :data:`NOT_OFFLINE`, with why."""
    for name, why in NOT_OFFLINE.items():
        if name in options:
            raise ValueError(f"the option {name!r} is not offered offline: {why}")


def check_table(game: str, players: int, options: Mapping[str, Any]) -> None:
    """ValueError for a table the environment does not offer: a player count outside the game's, an option it
    does not take (:data:`NOT_OFFLINE`, or one the game has not), a bad option's value; said as the game says it."""
    if game not in all_games():
        raise ValueError(f"unknown game {game!r}; registered: {', '.join(sorted(all_games()))}")
    _refuse_server_options(options)
    known = all_games()[game].options
    if unknown := sorted(map(str, set(options) - set(known))):
        taken = sorted(set(known) - set(NOT_OFFLINE))  # (the game's own message would offer the server's too)
        raise ValueError(f"unknown option(s): {', '.join(unknown)}; the environment takes: {', '.join(taken)}")
    try:
        _opening(game, players, dict(options), {}, None)
    except InvalidOptions as error:
        raise ValueError(str(error)) from None


class Match:
    """A game and the decision it waits for: ``seat`` chooses among ``moves`` (and may pass if ``may_pass``)."""

    def __init__(self, game: str, players: int, options: Mapping[str, Any] | None = None, *,
                 rng: random.Random | None = None, bots_at: Mapping[int, str] | None = None,
                 names: Sequence[str] | None = None, house: SeededHouse | None = None, history: bool = False) -> None:
        options = dict(options or {})
        _refuse_server_options(options)
        bots_at = dict(bots_at or {})
        self.house = house or SeededHouse(rng or random.Random())
        try:
            opening = _opening(game, players, options, bots_at, names)
        except InvalidOptions:
            check_table(game, players, options)  # (says why, as a ValueError)
            raise
        self._start(*opening, history)

    @classmethod
    def _bare(cls) -> Match:
        return cls.__new__(cls)

    def _start(self, opening: Sequence[Event], seated: tables.Table, history: bool, logged: Sequence[Event] = ()
               ) -> None:
        """Begin with the ``opening`` events (the game created, every seat taken), which fold to ``seated``."""
        self.logged = logged
        self._next_logged: tuple[tuple[int, int], int | None] = ((-1, -1), None)  # (the decision, its logged action)
        self.declined: set[int] = set()
        self.history: list[tables.Table] | None = [] if history else None
        self.actions: ActionTable = action_table(opening[0].game)
        # A table with no house bot, no clock, no log to follow and no history asked for is stepped by its game's
        # own fold (_fold): what settle does at such a table, the table's work left out.
        self._direct = (not history and not logged and seated.clock is None and type(self.house) is SeededHouse
                        and seated.status == tables.ACTIVE and all(seat.bot is None for seat in seated.seats))
        if self._direct:
            self.events: list[Event] = list(opening)
            self._table, self.game, self.state, self.status = seated, seated.game, seated.state, tables.ACTIVE
            self._bots = (False,) * seated.players
            self._record([])
        else:
            self.events = []
            self._table: tables.Table = None  # type: ignore[assignment]
            self._record(list(opening))

    @property
    def table(self) -> tables.Table:
        """The table as the server's fold would have it now (:func:`domain.table.replay` of :attr:`events`)."""
        table = self._table
        if table.version != len(self.events):  # (stepped by the game's own fold since it was last asked for)
            table = self._table = tables.Table(
                table.game, table.players, table.options, table.seats, self.state, len(self.events), table.clock,
                table.abandoned, table.handed_over, table.ended, table.seeds, table.imported_from, table.rated)
        return table

    # -- the decision ---------------------------------------------------------------
    def _record(self, events: list[Event]) -> None:
        """Fold ``events`` and all they set off, then find the next decision."""
        if self._direct:
            self._fold(events)
        else:
            if self.logged:
                self._follow(events)
            else:
                before = self._table
                self._table, played = tables.settle(self._table, events, self.house)
                self.events += played
                if self.history is not None:
                    for event in played:
                        before = tables.evolve(before, event)
                        self.history.append(before)
            table = self._table
            self.game, self.state, self.status = table.game, table.state, table.status
            # (while a log is followed, every seat decides, a house bot's too: its logged move is the next action)
            self._bots = () if self.status != tables.ACTIVE else (False,) * table.players if self.logged else \
                tuple(seat.bot is not None for seat in table.seats)
        #: Whether the game has ended (an attribute, not a property: asked after every decision).
        self.over = self.status == tables.FINISHED
        if self.declined:  # (a new event: every seat is asked again)
            self.declined = set()
        self._decide_next()

    def _fold(self, events: list[Event]) -> None:
        """What :func:`domain.table.settle` does at a table of people alone, without a clock: ``events`` folded,
        then the end at the rules' event cap or the chance outcome the game waits for, until a person must act
        or the game is over; by the game's own ``evolve``, no table made for each event."""
        game, state, played = self.game, self.state, self.events
        cap = game.max_events
        while True:
            for event in events:
                state = game.evolve(state, event)
            played += events
            if game.is_over(state):
                self.status = tables.FINISHED
                break
            if cap is not None and len(played) >= cap:
                events = [EventCapReached(None)]
            elif (request := game.chance(state)) is not None:
                events = [self.house.draw(None, request)]  # type: ignore[arg-type]
            else:
                break
        self.state = state

    def _follow(self, events: list[Event]) -> None:
        """Fold ``events`` and what the logged game did next by itself — its chance outcomes, its end at the event
        cap, what the server decided (a resignation, a timeout, a seat abandoned) — until a seat, a person's or a
        house bot's, decides the next logged event."""
        table, log, history = self._table, self.logged, self.history
        while events:
            for event in events:
                table = tables.evolve(table, event)
                if history is not None:
                    history.append(table)
            self.events += events
            events = self._logged_by_itself(table, log)
        self._table = table

    @staticmethod
    def _logged_by_itself(table: tables.Table, log: Sequence[Event]) -> list[Event]:
        """The log's next event if no seat decided it: a chance outcome the game waits for, the end at the cap, or
        an event the server decided (not one of the game's own)."""
        at = table.version
        if at >= len(log) or table.status != tables.ACTIVE:
            return []
        event, game = log[at], table.game
        if game.max_events is not None and at >= game.max_events:
            return [event]  # (the end at the cap, which the server writes before any chance outcome: by_itself)
        request = game.chance(table.state)
        if request is not None and not isinstance(event, request.event):
            raise ValueError(f"event {at + 1} is {event.type_name()} where the game waits for {request.event.__name__}")
        if request is None and event.type_name() in game.events:
            return []
        return [event]

    def _decide_next(self) -> None:
        self.seat: int | None = None
        self.moves: list[Move] = []
        self.may_pass = False
        self._legal: tuple[int, ...] | None = None
        if self.status != tables.ACTIVE:
            return
        game, state, bots = self.game, self.state, self._bots
        for seat in game.out_of_turn(state, len(bots)):  # (almost always none: the game answers from its state)
            if not bots[seat] and seat not in self.declined:
                self.seat, self.moves, self.may_pass = seat, game.legal_moves(state, seat), True
                return
        for seat in game.to_act(state):
            if not bots[seat]:
                self.seat, self.moves = seat, game.legal_moves(state, seat)
                return

    def legal_actions(self) -> tuple[int, ...]:
        """The ids of the moves the deciding seat may make now (``pass`` last when it may pass); worked out
        once a decision (the mask and the check of the action taken both ask)."""
        if self._legal is None:
            ids = self.actions.ids_of(self.moves)
            if self.may_pass:
                ids.append(self.actions.pass_id)
            self._legal = tuple(ids)
        return self._legal

    def step(self, action: int) -> None:
        """The deciding seat takes ``action`` (an id of :attr:`actions`); ValueError if it is not legal now."""
        seat = self.seat
        if seat is None:
            raise ValueError("no seat decides now: the game is over")
        if action not in (self._legal or self.legal_actions()):
            named = self.actions.name(action) if 0 <= action < self.actions.size else "no such id"
            raise ValueError(f"action {action} ({named}) is not legal for seat {seat} now; "
                             f"legal: {list(self.legal_actions())}")
        leaves = bool(self.logged) and action != self.next_logged_action()
        if leaves:
            self._leave_the_log()
        if action == self.actions.pass_id:
            self.declined.add(seat)
            # (off the log, a house bot whose decision its agent was asked for may now act by itself)
            events = tables.by_itself(self.table, self.house) if leaves else []
            if events:
                self._record(events)
            else:
                self._decide_next()
            return
        self._record(self.game.decide(self.state, seat, self.actions.moves[action]))

    def _leave_the_log(self) -> None:
        """A step off the logged game: the log no longer applies, and the game goes on as any match's, the house
        bots acting by themselves and chance drawn from the match's random source."""
        self.logged = ()
        self._bots = tuple(seat.bot is not None for seat in self.table.seats)
        if type(self.house) is SeededHouse:  # (the server's chance from here on: the record holds, see ServerChance)
            self.house = ServerChance(self.house.rng)

    def play(self, move: Mapping[str, Any]) -> None:
        """The deciding seat makes ``move``, an API move object."""
        self.step(self.actions.action_of(move))

    def time_out(self, seconds: int) -> None:
        """The seat on turn let its clock of ``seconds`` run out (``cardhall simulate`` keeps one): what a server
        does then (:func:`domain.table.time_out`), ``TurnTimedOut`` and the game's default move for the seat, and
        at its third timeout in a row ``SeatAbandoned``, a house bot playing the seat from then on. From its first
        timeout the match goes on as a game created with ``move_seconds``, its creation saying so: the table's own
        clock counts the timeouts in a row (a match that keeps none is stepped faster, its fold alone)."""
        if self.seat is None or self.may_pass:
            raise ValueError("only the seat on turn has a clock to run out")
        if self.logged:
            self._leave_the_log()
        table = self.table
        if table.clock is None:
            created = self.events[0]
            assert isinstance(created, tables.GameCreated)
            self.events[0] = dataclasses.replace(created, options={**created.options, "move_seconds": seconds})
            table = tables.replay(self.events)
        self._direct, self._table = False, table
        self._record(tables.time_out(table, now=seconds, turn_began=0))  # (the turn began at 0: its deadline is now)

    # -- what a seat sees -----------------------------------------------------------
    def view(self, seat: int | None, **how: Any) -> dict[str, Any]:
        """The API's view of ``seat`` (``GET /v1/games/{id}/state``): :func:`domain.table.view` itself."""
        return tables.view(self.table, seat, **how)

    def view_at(self, version: int, seat: int | None, **how: Any) -> dict[str, Any]:
        """The view of ``seat`` as it stood after event ``version`` (a match made with ``history``)."""
        if self.history is None:
            raise ValueError("this environment keeps no history: make it with history=True "
                             "(cardhall_env.make(..., history=True), or from_log(..., history=True))")
        return tables.view(self.history[version - 1], seat, **how)

    def result(self) -> dict[str, Any] | None:
        """Once the game is over, its result as the view's (``winners``, and the final ``scores`` or ``lives``);
        None before."""
        return self.game.result(self.state) if self.over else None

    def rewards(self) -> list[float]:
        """Once the game is over: +1 to each winner, -1 to every other seat; else zeros."""
        result = self.result()
        if result is None:
            return [0.0] * self._table.players
        return [1.0 if seat in result["winners"] else -1.0 for seat in range(self._table.players)]

    # -- records ----------------------------------------------------------------------
    def record(self, game_id: str = "local", at: str | None = None) -> dict[str, Any]:
        """The game as a ``cardhall-record/1`` document (:mod:`domain.records`), every event recorded ``at``
        (RFC 3339; now if not given): what ``cardhall record import`` stores on a server. ValueError before the
        game is over: a record of a game still running shows a viewer's part of it alone, its shuffles hidden, which
        nothing reads back (no server imports it, no environment starts from it)."""
        if not self.over:
            raise ValueError(f"the game is not over (version {len(self.events)}, {self.status}): a record is a "
                             "finished game's, every shuffle shown, as cardhall record import and from_log take it; "
                             "play the game to its end first, or take log() for its events so far")
        at = at or dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")  # (the server's form)
        return records.build(game_id, self.table, [(version, event, at) for version, event in
                                                   enumerate(self.events, start=1)], at)

    def log(self) -> list[dict[str, Any]]:
        """The game's log as the API's events list shows a finished game: version, type, seat, data."""
        return [{"version": version, "type": event.type_name(), "seat": event.seat, "data": event_data(event)}
                for version, event in enumerate(self.events, start=1)]

    def next_logged_action(self) -> int | None:
        """For a match made from a log: the action that carries the logged game on from where the match stands,
        the logged move of the deciding seat, or ``pass`` for a seat asked out of turn that did not act
        there; None once the log is played out, or left by a step that was not this action."""
        if not self.logged:
            return None
        decision = (len(self.events), len(self.declined))  # (the same until an event or a pass)
        if self._next_logged[0] != decision:
            self._next_logged = (decision, self._logged_action())
        return self._next_logged[1]

    def _logged_action(self) -> int | None:
        log, at = self.logged, len(self.events)
        if at >= len(log) or self.seat is None:
            return None
        event = log[at]
        if self.seat != event.seat:
            if not self.may_pass:
                raise ValueError(f"event {at + 1}: seat {event.seat} moved where seat {self.seat} was on turn")
            return self.actions.pass_id
        found = tables.logged_move(self.table, self.seat, log)
        if found is None:
            raise ValueError(f"event {at + 1} ({event.type_name()}) is no move seat {self.seat} could make")
        return self.actions.id_of(found[0])


def in_a_line(view: Mapping[str, Any]) -> str:
    """A view of the API (``GET /v1/games/{id}/state``) in a line: what an environment's ``ansi`` render gives."""
    return f"version {view['version']} {view['status']}, to act {view['to_act']}: {view['state']}"


def decode_log(log: Iterable[Mapping[str, Any]] | Mapping[str, Any] | os.PathLike | str) -> list[Event]:
    """A finished game's whole log as the API's events list holds it (``version``, ``type``, ``seat``, ``data``;
    a finished game's, so that every shuffle shows its order) as events; or the ``events`` of a whole events page
    or of a full ``cardhall-record/1``; or any of them as a JSON file's path. ValueError for a log cut short (a
    page of a longer list, versions missing, a game not over), which would leave the environment to make up the
    rest of the game."""
    if isinstance(log, str | os.PathLike):
        log = json.loads(pathlib.Path(log).read_text(encoding="utf-8"))
    last = None
    if isinstance(log, Mapping):
        last = log.get("last_version")
        log = log["events"]
    events: list[Event] = []
    rules = None
    for record in log:
        if record.get("version", len(events) + 1) != len(events) + 1:
            raise ValueError(f"event {len(events) + 1} of the log has version {record['version']}: a log's versions "
                             f"run 1, 2, 3… without a gap; {WHOLE_LOG}")
        if not events and record["type"] != tables.GameCreated.type_name():
            raise ValueError(f"the log does not begin with the game's creation: {WHOLE_LOG}")
        data = record["data"]
        if rules is None:
            rules = data.get("rules_version") or data["game"]
        event = tables.decode(rules, record["type"], record["seat"], data)
        if isinstance(event, Shuffled) and not event.order:
            raise ValueError(f"event {len(events) + 1} is a shuffle without its order: only a finished game's "
                             "log shows every shuffle")
        events.append(event)
    if last is not None and last != len(events):
        raise ValueError(f"the page holds events 1 to {len(events)} of the game's {last}: {WHOLE_LOG}")
    _check_finished(events)
    return events


#: What to do about a log cut short.
WHOLE_LOG = ("pass the game's whole log: fetch every page of GET /v1/games/{id}/events, each with after= the last "
             "version you have (and limit=1000), until you have its last_version, and pass their events together")


def _check_finished(events: list[Event]) -> None:
    """ValueError unless ``events`` are a game from its creation to its end."""
    if not events:
        raise ValueError(f"the log is empty: {WHOLE_LOG}")
    status = tables.replay(events).status
    if status != tables.FINISHED:
        raise ValueError(f"the log ends at version {len(events)} with the game {status}, not finished: an environment "
                         f"starts from a finished game's log; {WHOLE_LOG}")


def from_log(log: Sequence[Event], *, rng: random.Random | None = None, history: bool = False) -> Match:
    """A match at the start of a logged game (:func:`decode_log`'s events), its chance the log's own shuffles."""
    opening = [event for event in log if isinstance(event, tables.GameCreated | tables.SeatTaken)]
    match = Match._bare()
    match.house = SeededHouse(rng or random.Random())
    match._start(opening, tables.replay(opening), history, log)
    return match
