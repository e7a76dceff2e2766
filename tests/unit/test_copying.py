"""domain.copying.maker: a frozen dataclass made from its fields is the value its class makes, as frozen."""

from __future__ import annotations

import dataclasses

import pytest

from domain.copying import maker
from domain.events import EventCatalog, event_data
from domain.games.scat.events import EVENTS, DeckShuffled, HandSettled
from domain.games.scat.state import Settlement


@pytest.mark.parametrize(("cls", "values"), [
    (Settlement, (3, "showdown", 1, None, (("AS", "KS", "QS"), ("2C", "3D", "4H")), (31, 4), (0, 2), (1,))),
    (HandSettled, (None, "throw_down", 0, None, (("AS", "KS", "QS"), None), (31, None), (0, 1))),
    (DeckShuffled, (None, ("2C", "AS"), "00" * 16, "ab" * 32)),
])
def test_a_made_value_is_the_one_its_class_makes_and_stays_frozen(cls: type, values: tuple) -> None:
    made, built = maker(cls)(*values), cls(*values)
    assert type(made) is cls
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert dataclasses.astuple(made) == values
    field = dataclasses.fields(cls)[-1].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, field, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(made, field)
    assert getattr(made, field) == values[-1]


def test_a_made_event_is_stored_and_read_back_as_the_classs_own() -> None:
    made = maker(HandSettled)(None, "showdown", 1, None, (("AS", "KS", "QS"), ("2C", "3D", "4H")), (31, 4), (0, 1))
    assert EventCatalog(EVENTS).decode("HandSettled", None, event_data(made)) == made
