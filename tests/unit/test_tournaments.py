"""Tournament schedules, duplicate rotations, points, standings with intervals, and the crosstable."""

from __future__ import annotations

from domain.tournaments import crosstable, points, rotation, round_robin, standings


def test_a_round_robin_seats_every_group_once():
    assert round_robin(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(round_robin(list("abcde"), 3)) == 10


def test_duplicate_rotations_put_every_account_in_every_seat_once():
    games = [rotation(("a", "b", "c"), turn) for turn in range(3)]
    assert games == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    for seat in range(3):
        assert sorted(game[seat] for game in games) == ["a", "b", "c"]


def test_winners_share_a_point_and_a_seat_left_scores_none():
    assert points([1, 2, 2]) == [1.0, 0.0, 0.0]
    assert points([1, 1, 2]) == [0.5, 0.5, 0.0]
    assert points([3, 1]) == [0.0, 1.0]


def test_standings_rank_by_points_with_an_interval_that_narrows_with_games():
    results = [(("a", "b"), (1, 2)), (("b", "a"), (2, 1)), (("a", "b"), (2, 1)), (("b", "a"), (2, 1))]
    rows = standings(["a", "b"], results)
    assert [(row.account, row.points, row.games) for row in rows] == [("a", 3.0, 4), ("b", 1.0, 4)]
    assert rows[0].low < rows[0].mean == 0.75 < rows[0].high
    assert standings(["a", "b"], results * 4)[0].high - standings(["a", "b"], results * 4)[0].low < \
        rows[0].high - rows[0].low


def test_the_crosstable_counts_points_scored_against_each_other():
    table = crosstable([(("a", "b"), (1, 2)), (("b", "a"), (1, 2)), (("a", "c"), (1, 2))])
    assert table == {"a": {"b": 1.0, "c": 1.0}, "b": {"a": 1.0}, "c": {"a": 0.0}}
