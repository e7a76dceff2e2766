r"""A table: one game's lifecycle around its rules.

The log of a game opens with ``GameCreated`` and one ``SeatTaken`` per seat;
every later event belongs to the game's own rules, to its clock or to leaving it
(:mod:`domain.leaving`). A table is ``waiting`` until every seat is taken,
``active`` while the rules run, ``finished`` once they say the game is over, and
``aborted`` if it ended before it began. This module is what the service calls; it
knows no game.

A move is :func:`play`\ed: decided, then followed by everything the table does
by itself — chance outcomes and house bots' turns — until a person must act or
the game is over (or, given a limit, a bounded part of that: the rest is gone on
with later). A game whose rules cap its events is ended by the table at the cap.
What is not pure in that (shuffles, bots' random choices) comes from outside, as
a :class:`House`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from domain import clocks, codec
from domain.clocks import ABANDON_AFTER, ABANDONED_TO, CLOCK_EVENTS, Clock, SeatAbandoned, TurnTimedOut
from domain.errors import AbandonedSeat, DomainError, GameNotActive, InvalidOptions, NotYourTurn, SeatUnavailable
from domain.events import Event, EventCatalog, event_data
from domain.fairness import Seeds, seed_hash
from domain.game import ChanceRequest, EventCapReached, Game, all_games, get_game
from domain.leaving import ABORTED, EXPIRED, LEAVING_EVENTS, RESIGNED_TO, GameAborted, IdleLimits, SeatResigned
from domain.moves import Move

WAITING, ACTIVE, FINISHED = "waiting", "active", "finished"
OVER = (FINISHED, ABORTED)  # a game in either status never changes again


@dataclasses.dataclass(frozen=True, slots=True)
class GameCreated(Event):
    """A game of ``game`` for ``players`` seats was created with ``options``, under ``rules_version``.

    ``server_seed`` (64 hex, secret until the end: its hash is public) is what its shuffles derive
    from (:mod:`domain.fairness`); ``fixed_entropy`` the entropy mixed in place of the seats' (a
    seeded game's: none; a replay's: its original's); ``replay_of`` the game whose chance it repeats;
    ``rated``: its result counts for the accounts' ratings (a rated challenge's or pool's game).
    """

    game: str
    players: int
    options: Mapping[str, Any]
    rules_version: str
    server_seed: str | None = None
    fixed_entropy: tuple[str | None, ...] | None = None
    replay_of: str | None = None
    imported_from: str | None = None  # the game's id where it was played, for a game imported from a record
    rated: bool = False

    @classmethod
    def upcast(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        """A game created before rules versions were recorded was created under each game's first;
        one created before server seeds has none (its shuffles were drawn as :mod:`service.chance` says);
        one created before ratings was not rated."""
        return {"rules_version": f"{data['game']}/1", "server_seed": None, "fixed_entropy": None,
                "replay_of": None, "imported_from": None, "rated": False, **data}


@dataclasses.dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    """``seat`` was taken by a person called ``name`` or by the house bot ``bot``, adding ``entropy``
    (64 hex) to the game's shuffles, if any; by an account (``account``, its name; ``bot_account``:
    it is a bot's) when taken with an account's key."""

    name: str | None
    bot: str | None
    entropy: str | None = None
    account: str | None = None
    bot_account: bool = False

    @classmethod
    def upcast(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        """A seat taken before seats added entropy added none; one taken before accounts, by no account."""
        return {"entropy": None, "account": None, "bot_account": False, **data}


LIFECYCLE = EventCatalog([GameCreated, SeatTaken])


@dataclasses.dataclass(frozen=True, slots=True)
class Seat:
    """Who sits in a seat, the entropy it added to the game's shuffles, and the account whose key
    moves for it, if any."""

    name: str | None
    bot: str | None
    entropy: str | None = None
    account: str | None = None
    bot_account: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Table:
    """A game's lifecycle state and its rules' state after ``version`` events."""

    game: Game
    players: int
    options: Mapping[str, Any]
    seats: tuple[Seat | None, ...]
    state: Any
    version: int
    clock: Clock | None = None  # None: the game has no move_seconds
    abandoned: frozenset[int] = frozenset()  # seats handed to a house bot (SeatAbandoned, SeatResigned)
    handed_over: tuple[tuple[int, int], ...] = ()  # (seat, the version of the event that handed it over)
    ended: str | None = None  # why a game that never began ended (GameAborted), else None
    seeds: Seeds | None = None  # None: a game created before server seeds
    imported_from: str | None = None  # the id a game imported from a record had where it was played
    rated: bool = False  # its result counts for ratings (GameCreated.rated)
    _status: str | None = dataclasses.field(default=None, init=False, compare=False, repr=False)

    @property
    def status(self) -> str:
        """``waiting``, ``active``, ``finished`` or ``aborted`` (worked out once per table: a move asks it many times)."""
        if self._status is None:
            status = ABORTED if self.ended else WAITING if None in self.seats else \
                FINISHED if self.game.is_over(self.state) else ACTIVE
            object.__setattr__(self, "_status", status)
            return status
        return self._status

    @property
    def free_seat(self) -> int | None:
        """The lowest free seat, if any."""
        for index, seat in enumerate(self.seats):
            if seat is None:
                return index
        return None


def create(game_name: str, players: Any, options: Any, server_seed: str | None = None,
           fixed_entropy: tuple[str | None, ...] | None = None, replay_of: str | None = None,
           rated: bool = False) -> GameCreated:
    """The event creating a game, once the game, player count and options are checked; its chance
    material as :class:`GameCreated` says (the service draws it)."""
    games = all_games()
    if game_name not in games:
        raise InvalidOptions(f"unknown game {game_name!r}; offered: {', '.join(sorted(games))}")
    game = games[game_name]
    if isinstance(players, bool) or not isinstance(players, int) or not (
        game.min_players <= players <= game.max_players
    ):
        raise InvalidOptions(f"{game_name} is for {game.min_players} to {game.max_players} players")
    options = game.validate_options(players, options)
    if fixed_entropy is None and "seed" in options:
        fixed_entropy = ()  # (a seeded game is the same game for the same moves, whoever sits down: no seat's entropy)
    return GameCreated(None, game=game_name, players=players, options=options, rules_version=game.rules_version,
                       server_seed=server_seed, fixed_entropy=None if fixed_entropy is None else tuple(fixed_entropy),
                       replay_of=replay_of, rated=rated)


def take_seat(table: Table, name: str | None = None, bot: str | None = None, entropy: str | None = None,
              account: str | None = None, bot_account: bool = False) -> SeatTaken:
    """The event seating a person, a house bot or an account in the next free seat, with its ``entropy`` if any."""
    seat = table.free_seat
    if seat is None:
        raise SeatUnavailable("every seat is taken and the game has started")
    return SeatTaken(seat, name=name, bot=bot, entropy=entropy, account=account, bot_account=bot_account)


def _seeds(event: GameCreated) -> Seeds | None:
    if event.server_seed is None:
        return None
    fixed = event.fixed_entropy is not None
    return Seeds(event.server_seed, tuple(event.fixed_entropy) if fixed else (None,) * event.players,  # type: ignore[arg-type]
                 fixed, event.replay_of)


def decode(game_name: str, type_name: str, seat: int | None, data: Mapping[str, Any]) -> Event:
    """Rebuild a stored event of a game of ``game_name`` (a name, or a rules version: ``craits/1``)."""
    return _catalog(game_name, type_name).decode(type_name, seat, data)


def event_class(game_name: str, type_name: str) -> type[Event]:
    """The class of a stored event of a game of ``game_name``, without decoding its data."""
    return _catalog(game_name, type_name).event_class(type_name)


def _catalog(game_name: str, type_name: str) -> EventCatalog:
    """The catalog a stored event's type belongs to: the lifecycle's, the clocks' or its game's."""
    if type_name in LIFECYCLE:
        return LIFECYCLE
    if type_name in CLOCK_EVENTS:
        return CLOCK_EVENTS
    if type_name in LEAVING_EVENTS:
        return LEAVING_EVENTS
    return get_game(game_name).events


def evolve(table: Table | None, event: Event) -> Table:
    """The table after one more event."""
    if isinstance(event, GameCreated):
        game = get_game(event.rules_version)
        return Table(game, event.players, event.options, (None,) * event.players,
                     game.start(event.players, event.options), 1, clocks.start(event.players, event.options),
                     seeds=_seeds(event), imported_from=event.imported_from, rated=event.rated)
    assert table is not None, "a log starts with GameCreated"
    if isinstance(event, SeatTaken):
        seeds = table.seeds and table.seeds.with_entropy(event.seat, event.entropy)
        seated = Seat(event.name, event.bot, event.entropy, event.account, event.bot_account)
        after = dataclasses.replace(table, seats=_seated(table.seats, event.seat, seated), version=table.version + 1,
                                    seeds=seeds)
    elif isinstance(event, SeatAbandoned | SeatResigned):
        sitter = table.seats[event.seat]
        assert sitter is not None, "only a taken seat is handed over"
        after = dataclasses.replace(table, seats=_seated(table.seats, event.seat,
                                                         dataclasses.replace(sitter, bot=event.bot)),
                                    abandoned=table.abandoned | {event.seat},
                                    handed_over=(*table.handed_over, (event.seat, table.version + 1)),
                                    version=table.version + 1)
    elif isinstance(event, GameAborted):
        after = dataclasses.replace(table, ended=event.reason, version=table.version + 1)
    elif isinstance(event, TurnTimedOut):
        after = dataclasses.replace(table, version=table.version + 1)
    else:
        after = _with_state(table, table.game.evolve(table.state, event), table.version + 1)
    if after.clock is not None:  # (a game without a clock pays nothing for this)
        after = dataclasses.replace(after, clock=after.clock.after(event, after.version, to_act(after)))
    return after


def _with_state(table: Table, state: Any, version: int) -> Table:
    """``table`` with its game's state after ``version`` events (spelt out: dataclasses.replace costs more than
    the game's own fold)."""
    return Table(table.game, table.players, table.options, table.seats, state, version, table.clock, table.abandoned,
                 table.handed_over, table.ended, table.seeds, table.imported_from, table.rated)


def _seated(seats: tuple[Seat | None, ...], index: int, seat: Seat) -> tuple[Seat | None, ...]:
    return seats[:index] + (seat,) + seats[index + 1 :]


def to_data(table: Table) -> dict[str, Any]:
    """The table as plain JSON data, its state by its game's own codec (see :func:`from_data`)."""
    return {"game": table.game.rules_version, "players": table.players, "options": codec.encode(table.options),
            "seats": codec.encode(table.seats), "state": table.game.encode_state(table.state),
            "version": table.version, "clock": codec.encode(table.clock), "abandoned": sorted(table.abandoned),
            "handed_over": codec.encode(table.handed_over), "ended": table.ended, "seeds": codec.encode(table.seeds),
            "imported_from": table.imported_from, "rated": table.rated}


def from_data(data: Mapping[str, Any]) -> Table:
    """The table :func:`to_data` gave ``data`` for; ValueError, KeyError or TypeError if it is not such data."""
    game = get_game(data["game"])
    return Table(game, codec.decode(int, data["players"]), dict(data["options"]),
                 codec.decode(tuple[Seat | None, ...], data["seats"]), game.decode_state(data["state"]),
                 codec.decode(int, data["version"]), codec.decode(Clock | None, data["clock"]),
                 frozenset(codec.decode(tuple[int, ...], data["abandoned"])),
                 codec.decode(tuple[tuple[int, int], ...], data["handed_over"]), data["ended"],
                 codec.decode(Seeds | None, data["seeds"]), data["imported_from"],
                 bool(data.get("rated", False)))  # (a snapshot taken before ratings: not rated)


#: The events the table folds itself; every other event is its game's.
TABLE_EVENTS = (GameCreated, SeatTaken, SeatAbandoned, SeatResigned, GameAborted, TurnTimedOut)


def replay(events: Iterable[Event], table: Table | None = None) -> Table:
    """Fold events into a table (from scratch, or onward from ``table``): :func:`evolve` each one, except that a
    run of the game's own events at a table without a clock is folded into the game's state alone and the table
    made once, at the run's end (the same table: evolve's only work for such an event is the game's fold)."""
    state, version = None, 0
    for event in events:
        if table is not None and table.clock is None and not isinstance(event, TABLE_EVENTS):
            if state is None:
                state, version = table.state, table.version
            state = table.game.evolve(state, event)
            version += 1
            continue
        if state is not None:
            table, state = _with_state(table, state, version), None
        table = evolve(table, event)
    if state is not None:
        table = _with_state(table, state, version)  # type: ignore[arg-type]
    assert table is not None, "an empty log is no game"
    return table


def replay_records(records: Iterable[tuple[str, int | None, Mapping[str, Any]]], table: Table | None = None) -> Table:
    """Fold stored ``(type, seat, data)`` records into a table (from scratch, or onward from ``table``),
    each decoded under the rules version of its game (the log opens with ``GameCreated``)."""
    records = iter(records)
    if table is None:
        first = next(records, None)
        assert first is not None, "an empty log is no game"
        type_name, seat, data = first
        table = evolve(None, decode(data["game"], type_name, seat, data))
    rules = table.game.rules_version
    return replay((decode(rules, type_name, seat, data) for type_name, seat, data in records), table)


def chance(table: Table) -> ChanceRequest | None:
    """The chance outcome the game waits for, if it is running and waits for one."""
    if table.status != ACTIVE:
        return None
    return table.game.chance(table.state)


def to_act(table: Table) -> tuple[int, ...]:
    """The seats whose turn the game waits for."""
    if table.status != ACTIVE or chance(table) is not None:
        return ()
    return table.game.to_act(table.state)


def legal_moves(table: Table, seat: int | None) -> list[dict[str, Any]]:
    """Every move ``seat`` may make now, as API objects."""
    if seat is None or table.status != ACTIVE or table.game.chance(table.state) is not None:
        return []
    return [move.as_dict() for move in table.game.legal_moves(table.state, seat)]


def decide(table: Table, seat: int, move: Mapping[str, Any]) -> list[Event]:
    """The events ``seat``'s move sets off, or the typed error that refuses it."""
    if table.status != ACTIVE:
        raise GameNotActive(f"the game is {table.status}")
    game = table.game
    if game.chance(table.state) is not None or not game.legal_moves(table.state, seat):
        raise NotYourTurn(f"seat {seat} may not act now; the game waits for {list(to_act(table))}")
    return game.decide(table.state, seat, game.parse_move(move))


def logged_move(table: Table, seat: int, log: Sequence[Event]) -> tuple[Move, int] | None:
    """The legal move of ``seat`` that makes the log's next events (those after ``table.version``), and how many
    it makes; None if no move of the seat's makes them (the game waits for chance, or for no move of the seat)."""
    at = table.version
    if at >= len(log) or table.status != ACTIVE:
        return None
    game, state = table.game, table.state
    if game.chance(state) is not None:
        return None
    for move in game.legal_moves(state, seat):
        try:
            made = game.decide(state, seat, move)
        except DomainError:
            continue
        if made and list(log[at : at + len(made)]) == made:
            return move, len(made)
    return None


def resign(table: Table, seat: int) -> list[Event]:
    """The events of ``seat`` leaving a game under way: the house bot RESIGNED_TO plays it on."""
    if table.status != ACTIVE:
        hint = "; a waiting game is aborted instead" if table.status == WAITING else ""
        raise GameNotActive(f"the game is {table.status}: only a game under way can be resigned from{hint}")
    _in_person(table, seat)
    return [SeatResigned(seat, bot=RESIGNED_TO)]


def abort(table: Table, seat: int) -> list[Event]:
    """The event of a seated player ending a game that waits for players."""
    if table.status != WAITING:
        raise GameNotActive(f"the game is {table.status}: only a game waiting for players can be aborted")
    return [GameAborted(seat, reason=ABORTED)]


def idle(table: Table, idle_for: float, limits: IdleLimits) -> list[Event]:
    """The events ending a game nobody changed for ``idle_for`` seconds, once past ``limits``: a waiting
    game expires; an active one has every seat still played in person handed to the house bot
    ABANDONED_TO, which plays it to the end. Nothing within the limits."""
    if table.status == WAITING and limits.waiting is not None and idle_for >= limits.waiting:
        return [GameAborted(None, reason=EXPIRED)]
    if table.status == ACTIVE and limits.active is not None and idle_for >= limits.active:
        return [SeatAbandoned(seat, bot=ABANDONED_TO) for seat in range(table.players)
                if seat not in table.abandoned and table.seats[seat].bot is None]  # type: ignore[union-attr]
    return []


def _in_person(table: Table, seat: int) -> None:
    """AbandonedSeat if a house bot plays ``seat`` now, in place of its token."""
    if seat in table.abandoned:
        sitter = table.seats[seat]
        raise AbandonedSeat(f"seat {seat} is played by the house bot {sitter and sitter.bot!r} for the rest of the "
                            f"game (it timed out {ABANDON_AFTER} turns in a row, resigned, or the game sat idle); "
                            f"its token can no longer move")


def decide_in_person(table: Table, seat: int, move: Mapping[str, Any]) -> list[Event]:
    """As :func:`decide`, for a move sent with the seat's token: refused once a house bot plays the seat."""
    _in_person(table, seat)
    return decide(table, seat, move)


class House(Protocol):
    """What a table gets from outside the domain to run by itself: chance outcomes and house bots' moves."""

    def draw(self, table: Table, request: ChanceRequest) -> Event:
        """The outcome of ``request``, which ``table`` waits for, as its next event."""
        ...

    def bot_move(self, table: Table, seat: int) -> Mapping[str, Any]:
        """The move of the house bot in ``seat``, whose turn it is."""
        ...

    def bot_out_of_turn(self, table: Table, seat: int) -> Mapping[str, Any] | None:
        """A move the house bot in ``seat`` takes though it is not its turn, or None to let the moment pass."""
        ...


def play(table: Table, seat: int, move: Mapping[str, Any], house: House,
         limit: int | None = None) -> tuple[Table, list[Event]]:
    """``seat``'s move in person and everything it sets off (bounded by ``limit`` as :func:`settle` is):
    the table after them, and the events."""
    return settle(table, decide_in_person(table, seat, move), house, limit)


def settle(table: Table | None, events: list[Event], house: House,
           limit: int | None = None) -> tuple[Table, list[Event]]:
    """``events`` and everything they set off, until a person must act or the game is over: the
    table after them, and the events (``events`` first).

    With a ``limit``, it stops sooner: at the first moment after ``limit`` events where the table
    would go on by itself (:func:`waits_for_house`), to be gone on with by :func:`by_itself`
    later. (The game's own end at its event cap is never put off.)
    """
    played: list[Event] = []
    while events:
        for event in events:
            table = evolve(table, event)
        played += events
        if limit is not None and len(played) >= limit and waits_for_house(table) and not _at_cap(table):
            break
        events = by_itself(table, house)
    assert table is not None, "a log starts with GameCreated"
    return table, played


def waits_for_house(table: Table) -> bool:
    """Whether the table would go on by itself now: a chance outcome, a house bot's turn, or its event cap."""
    if table.status != ACTIVE:
        return False
    if _at_cap(table) or table.game.chance(table.state) is not None:
        return True
    return any(table.seats[seat].bot is not None for seat in table.game.to_act(table.state))  # type: ignore[union-attr]


def _at_cap(table: Table) -> bool:
    """Whether an active table's log holds as many events as its rules allow (Game.max_events)."""
    cap = table.game.max_events
    return cap is not None and table.version >= cap


def by_itself(table: Table, house: House) -> list[Event]:
    """What the table does next without a person: the end at its event cap, a chance outcome, or a
    house bot's move.

    House bots may act out of turn first (a call-out, a declared 31: whatever their
    strategy takes when it is offered), then the bot whose turn it is plays.
    """
    if table.status != ACTIVE:
        return []
    if _at_cap(table):
        return [EventCapReached(None)]
    request = table.game.chance(table.state)
    if request is not None:
        return [house.draw(table, request)]
    for sitter in table.seats:  # (every seat is taken: the game is active)
        if sitter.bot is not None:
            break
    else:
        return []  # no house bot at the table
    to_act = table.game.to_act(table.state)
    for seat, sitter in enumerate(table.seats):
        if sitter.bot is not None and seat not in to_act and (move := house.bot_out_of_turn(table, seat)) is not None:
            return decide(table, seat, move)
    for seat in to_act:
        if table.seats[seat].bot is not None:
            return decide(table, seat, house.bot_move(table, seat))
    return []


def deadline(table: Table, turn_began: float | None) -> float | None:
    """When the turn the game waits for times out, given when it began (seconds since the epoch, as
    every time here); None without a clock or a turn."""
    if table.clock is None or turn_began is None or not to_act(table):
        return None
    return table.clock.deadline(turn_began)


def time_out(table: Table, now: float, turn_began: float | None) -> list[Event]:
    """The events timing out every seat the game waits for, once its deadline is past at ``now``.

    For each seat: ``TurnTimedOut``, the game's default move for it (Game.default_moves), and
    ``SeatAbandoned`` when that was its ABANDON_AFTER-th timeout in a row. Nothing before the deadline.
    """
    due = deadline(table, turn_began)
    if due is None or now < due:
        return []
    events: list[Event] = []
    for seat in to_act(table):
        if seat not in to_act(table):  # (an earlier seat's default move settled it)
            continue
        played = _default_events(table, seat)
        timed_out = [TurnTimedOut(seat, moves=sum(event.seat == seat for event in played)), *played]
        table = replay(timed_out, table)
        assert table.clock is not None
        if table.clock.in_a_row[seat] >= ABANDON_AFTER:
            timed_out.append(SeatAbandoned(seat, bot=ABANDONED_TO))
            table = evolve(table, timed_out[-1])
        events += timed_out
    return events


def _default_events(table: Table, seat: int) -> list[Event]:
    """The events of the move the server plays for a silent ``seat`` (no chance comes between its parts)."""
    game, state, events = table.game, table.state, []
    for move in game.default_moves(state, seat):
        for event in game.decide(state, seat, move):
            state = game.evolve(state, event)
            events.append(event)
    return events


def reveal(table: Table) -> bool:
    """Whether everything in the record is public: once the game is over."""
    return table.status in OVER


def view(table: Table, seat: int | None, *, reveal_all: bool | None = None, with_moves: bool = True) -> dict[str, Any]:
    """What ``seat`` (or a spectator) sees of the table."""
    # As to_act, legal_moves and reveal would make it, the status and the chance looked up once.
    game, state, status = table.game, table.state, table.status
    if reveal_all is None:
        reveal_all = status == FINISHED
    waits = status == ACTIVE and game.chance(state) is None  # for a seat, not for chance
    return {
        "version": table.version,
        "status": status,
        "seat": seat,
        "to_act": list(game.to_act(state)) if waits else [],
        "legal_moves": [move.as_dict() for move in game.legal_moves(state, seat)]
        if with_moves and waits and seat is not None else [],
        "state": game.view(state, seat, reveal_all) if status not in (WAITING, ABORTED) else None,
        "result": game.result(state) if status == FINISHED else None,
        **chance_fixed(table),
    }


def chance_fixed(table: Table) -> dict[str, bool]:
    """Whether the game's creator fixed its chance, as everyone is shown from its creation on:
    ``seeded`` (a ``seed``, or a replay of another game's deal) and ``stacked`` (``decks``)."""
    fixed = options_fixing_chance(table.options)
    fixed["seeded"] = fixed["seeded"] or (table.seeds is not None and table.seeds.replay_of is not None)
    return fixed


def options_fixing_chance(options: Mapping[str, Any]) -> dict[str, bool]:
    """Whether ``options`` fix chance, as everyone is told: ``seeded`` (a ``seed``) and ``stacked`` (``decks``)."""
    return {"seeded": "seed" in options, "stacked": "decks" in options}


def shown_options(game: Game, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` of ``game`` without those that fix chance (``seed``, ``decks``): what anyone is shown of them
    before the game is over."""
    return {name: value for name, value in options.items() if not game.options[name].hidden}


def public_seeds(table: Table, reveal_all: bool | None = None) -> dict[str, Any]:
    """The game's chance material as everyone sees it: the server seed's hash (the seed itself once
    the game is over), every seat's entropy, and the game a replay repeats."""
    seeds = table.seeds
    if seeds is None:
        return {"server_seed_hash": None, "server_seed": None, "replay_of": None}
    if reveal_all is None:
        reveal_all = reveal(table)
    return {"server_seed_hash": seed_hash(seeds.server_seed), "server_seed": seeds.server_seed if reveal_all else None,
            "replay_of": seeds.replay_of}


def public_options(table: Table, reveal_all: bool | None = None) -> dict[str, Any]:
    """The options, with those that fix chance hidden until the game is over."""
    if reveal_all is None:
        reveal_all = reveal(table)
    return dict(table.options) if reveal_all else shown_options(table.game, table.options)


def redact(table: Table, event: Event, seat: int | None, reveal_all: bool | None = None) -> dict[str, Any] | None:
    """The event's data as ``seat`` may see it (``table`` is the table now)."""
    if reveal_all is None:
        reveal_all = reveal(table)
    if isinstance(event, GameCreated):
        data = event_data(event)
        data["options"] = public_options(table, reveal_all)
        if not reveal_all:
            data["server_seed"] = None  # (its hash is in the summary from the start)
        return data
    if isinstance(event, SeatTaken | TurnTimedOut | SeatAbandoned | SeatResigned | GameAborted):
        return event_data(event)
    return table.game.redact(event, seat, reveal_all)
