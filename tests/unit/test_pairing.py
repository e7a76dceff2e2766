"""Pairing a pool: overlapping player counts meet, closest ratings first, windows widen with the
wait, people and bots only together where both opted in, nobody twice at a table."""

from __future__ import annotations

from domain.pairing import Waiting, pair


def waiting(account: str, players=(2,), ordinal=0.0, waited=0.0, bot=True, rated=True, mixed=False) -> Waiting:
    return Waiting(account, bot, frozenset(players), rated, mixed, ordinal, waited)


def names(groups) -> list[list[str]]:
    return [[entry.account for entry in group] for group in groups]


def test_accounts_with_overlapping_player_counts_are_paired_at_the_largest_table_they_fill():
    groups = pair([waiting("ana", (2, 3), waited=3), waiting("bo", (3, 4), waited=2), waiting("cy", (3,), waited=1)])
    assert names(groups) == [["ana", "bo", "cy"]]


def test_no_common_player_count_no_game():
    assert pair([waiting("ana", (2,)), waiting("bo", (3,)), waiting("cy", (4,))]) == []


def test_the_closest_ratings_are_paired_first():
    groups = pair([waiting("ana", ordinal=10, waited=1), waiting("bo", ordinal=0.5),
                   waiting("cy", ordinal=9), waiting("di", ordinal=0)])
    assert names(groups) == [["ana", "cy"], ["bo", "di"]]


def test_a_lone_account_far_from_the_others_is_paired_once_it_has_waited():
    far = [waiting("ana", ordinal=30), waiting("bo", ordinal=0)]
    assert pair(far) == []
    assert names(pair([waiting("ana", ordinal=30, waited=6), waiting("bo", ordinal=0)])) == [["ana", "bo"]]


def test_people_and_bots_meet_only_where_both_opted_in():
    assert pair([waiting("ana", bot=False, mixed=True), waiting("bot1", bot=True)]) == []
    assert names(pair([waiting("ana", bot=False, mixed=True), waiting("bot1", mixed=True)])) == [["ana", "bot1"]]


def test_rated_and_unrated_entries_never_meet():
    assert pair([waiting("ana", rated=True), waiting("bo", rated=False)]) == []


def test_no_account_sits_twice_in_one_game_or_in_two_games_of_a_round():
    entries = [waiting(name, (2, 3, 4), ordinal=index, waited=10) for index, name in enumerate("abcdefg")]
    entries += [waiting("a", (2, 3, 4), waited=11)]  # (the same account again)
    groups = pair(entries)
    seated = [entry.account for group in groups for entry in group]
    assert len(seated) == len(set(seated)) and all(len({e.account for e in g}) == len(g) for g in groups)
