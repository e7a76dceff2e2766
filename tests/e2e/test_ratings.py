"""Ratings as a projection of the log: rated results only, each game once, leaving is a loss, and a
rebuild from the games' events gives the same table to the last bit."""

from __future__ import annotations

from typing import Any

from api import metrics
from domain import table as tables
from persistence.ladder import Finish
from service.games import GameService
from service.periodic import Periodic
from service.ratings import MODEL, Ratings
from tests.e2e.conftest import Http
from tests.e2e.test_accounts import bearer, sign_up
from tests.waiting import until


def rated_game(http: Http, keys: list[str], rated: bool = True, **options: Any) -> str:
    """A game between the keys' accounts, made by a challenge, started."""
    offered = http.client.post("/v1/challenges", json={"game": "craits", "players": len(keys), "rated": rated,
                                                       "options": {"short": True, **options}},
                               headers=bearer(keys[0])).json
    for key in keys[1:]:
        accepted = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(key))
        assert accepted.status_code == 200, accepted.json
    return accepted.json["game_id"]


def play_out(games: GameService, game_id: str, keys: list[str]) -> None:
    """The first legal move of whoever must act, sent with the seat's account key, until the game is over."""
    while (table := games.table(game_id)).status != tables.FINISHED:
        seat = tables.to_act(table)[0]
        games.move(game_id, keys[seat], tables.legal_moves(table, seat)[0])


def winners(http: Http, game_id: str) -> list[int]:
    return http.client.get(f"/v1/games/{game_id}").json["result"]["winners"]


def test_a_rated_game_moves_its_accounts_ratings_once_and_an_unrated_one_not_at_all(
        http: Http, games: GameService) -> None:
    keys = [sign_up(http, name) for name in ("Ana", "bo")]
    ratings = Ratings(games)
    game_id = rated_game(http, keys)
    play_out(games, game_id, keys)
    unrated = rated_game(http, keys, rated=False)
    play_out(games, unrated, keys)
    assert ratings.catch_up() == 1 and ratings.catch_up() == 0
    won = winners(http, game_id)
    rows, changes = ratings.ladder.table()
    by_account = {row[1]: row for row in rows}
    assert set(by_account) == {"ana", "bo"} and [change[3] for change in changes] == [game_id, game_id]
    expected = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1 if 0 in won else 2, 1 if 1 in won else 2])
    for seat, name in enumerate(("ana", "bo")):
        assert by_account[name][3:7] == (expected[seat][0].mu, expected[seat][0].sigma, 1, int(seat in won))


def test_a_resigned_seat_counts_as_a_loss_whatever_the_house_bot_made_of_it(http: Http, games: GameService) -> None:
    keys = [sign_up(http, name) for name in ("ana", "bo", "cy")]
    game_id = rated_game(http, keys)
    assert http.client.post(f"/v1/games/{game_id}/resign", headers=bearer(keys[2])).status_code == 200
    play_out(games, game_id, keys)  # (the resigned seat is the house bot's: it never waits for it)
    ratings = Ratings(games)
    ratings.catch_up()
    changes = {change[1]: change for change in ratings.ladder.table()[1]}
    assert changes["cy"][4] == 3 and min(change[6] for change in changes.values()) <= changes["cy"][6]
    assert changes["cy"][5] == min(change[5] for change in changes.values())  # (cy's μ fell the most)


def test_a_rebuild_from_the_events_gives_the_live_table_bit_for_bit(http: Http, games: GameService) -> None:
    keys = [sign_up(http, name) for name in ("ana", "bo", "cy", "di")]
    ratings = Ratings(games)
    for round_, players in enumerate([(0, 1), (1, 2, 3), (0, 2), (3, 0, 1, 2), (2, 1)]):
        game_id = rated_game(http, [keys[seat] for seat in players])
        play_out(games, game_id, [keys[seat] for seat in players])
        if round_ % 2:
            ratings.catch_up(batch=1)  # (live: applied as they come, some alone, some together)
    ratings.catch_up(batch=2)
    live = ratings.ladder.table()
    assert len(live[0]) == 4 and len(live[1]) == 2 + 3 + 2 + 4 + 2
    assert Ratings(games).rebuild() == 5
    assert ratings.ladder.table() == live
    assert repr(ratings.ladder.table()) == repr(live)  # (every float's every digit)
    rebuilding = Ratings(games)  # (beside a running server, whose own catch-up applies them first)
    own_catch_up = rebuilding.catch_up
    rebuilding.catch_up = lambda *how, **more: (ratings.catch_up(), own_catch_up(*how, **more))[1]  # type: ignore[method-assign]
    assert rebuilding.rebuild() == 5 and repr(ratings.ladder.table()) == repr(live)  # (it said 0)


def test_the_leaderboard_lists_accounts_with_enough_rated_games_by_ordinal_in_pages(
        app, http: Http, games: GameService) -> None:  # type: ignore[no-untyped-def]
    app.config["CARDHALL_LEADERBOARD_MIN_GAMES"] = 2
    keys = [sign_up(http, name) for name in ("ana", "Bo", "cy")]
    for players in [(0, 1), (1, 0), (0, 1, 2)]:
        game_id = rated_game(http, [keys[seat] for seat in players])
        play_out(games, game_id, [keys[seat] for seat in players])
    Ratings(games).catch_up()
    board = http.client.get("/v1/leaderboards/craits").json
    assert [entry["account"] for entry in board["entries"]] == sorted(
        ["ana", "Bo"], key=lambda name: -next(entry["ordinal"] for entry in board["entries"] if entry["account"] == name))
    assert board["min_games"] == 2 and board["next"] is None and [entry["rank"] for entry in board["entries"]] == [1, 2]
    first = board["entries"][0]
    assert first["ordinal"] == first["mu"] - 3 * first["sigma"] and first["games"] == 3
    page = http.client.get("/v1/leaderboards/craits", query_string={"limit": 1}).json
    assert page["entries"] == board["entries"][:1] and page["next"] is not None
    rest = http.client.get("/v1/leaderboards/craits", query_string={"limit": 1, "cursor": page["next"]}).json
    assert rest["entries"] == board["entries"][1:] and rest["next"] is None
    assert http.client.get("/v1/leaderboards/scat").json["entries"] == []
    assert http.client.get("/v1/leaderboards/poker").status_code == 404
    assert http.client.get("/v1/leaderboards/craits", query_string={"cursor": "x"}).status_code == 422
    mine = http.client.get("/v1/accounts/cy/ratings").json["ratings"]
    assert [(rating["game"], rating["games"], len(rating["history"])) for rating in mine] == [("craits", 1, 1)]
    assert mine[0]["history"][0]["game_id"] == mine[0]["last_game_id"]
    assert http.client.get("/v1/accounts/nobody/ratings").status_code == 404


def left_game(http: Http, games: GameService, keys: dict[str, str], names: tuple[str, ...],
              leaving: tuple[str, ...]) -> None:
    """A rated game of the named accounts that those ``leaving`` resign at once, played to its end."""
    game_id = rated_game(http, [keys[name] for name in names])
    for name in leaving:
        assert http.client.post(f"/v1/games/{game_id}/resign", headers=bearer(keys[name])).status_code == 200
    if len(leaving) == len(names):
        assert http.played_out(game_id)["status"] == "finished"
    else:
        play_out(games, game_id, [keys[name] for name in names])


def test_accounts_of_equal_ratings_share_their_rank_on_the_leaderboard_on_every_page(
        app, http: Http, games: GameService) -> None:  # type: ignore[no-untyped-def]
    """Ranks were positions in the list: of four accounts whose ratings were the same to the last bit, ana was
    told she ranked 2nd and dee 5th, by their names alone, and a page's first rank was its offset, tie or not."""
    app.config["CARDHALL_LEADERBOARD_MIN_GAMES"] = 1
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy", "dee", "eve", "fay")}
    for pair in (("ana", "bo"), ("cy", "dee")):  # (both leave: both place last, and the two games rate alike)
        left_game(http, games, keys, pair, pair)
    left_game(http, games, keys, ("eve", "fay"), ("fay",))  # (fay leaves, eve plays on: eve above, fay below)
    Ratings(games).catch_up()
    board = http.client.get("/v1/leaderboards/craits").json["entries"]
    assert [(entry["rank"], entry["account"]) for entry in board] == [
        (1, "eve"), (2, "ana"), (2, "bo"), (2, "cy"), (2, "dee"), (6, "fay")]
    assert len({(entry["mu"], entry["sigma"]) for entry in board[1:5]}) == 1
    paged, query = [], {"limit": 2}
    while True:
        page = http.client.get("/v1/leaderboards/craits", query_string=query).json
        paged += page["entries"]
        if page["next"] is None:
            break
        query = {"limit": 2, "cursor": page["next"]}
    assert paged == board


def test_a_leaderboard_read_page_by_page_while_an_account_enters_it_neither_repeats_nor_hides_one(
        app, http: Http, games: GameService) -> None:  # type: ignore[no-untyped-def]
    """The cursor was an offset: an account that entered the board above the page read (its games rated
    meanwhile, as they are every quarter of a second) pushed the next page down one place, and the account
    last read was read again at its top. The cursor is now the last account read, as the tournaments' is."""
    app.config["CARDHALL_LEADERBOARD_MIN_GAMES"] = 1
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy", "dee", "eve", "fay", "gil", "hal")}
    left_game(http, games, keys, ("ana", "bo"), ("ana", "bo"))
    left_game(http, games, keys, ("cy", "dee"), ("cy", "dee"))
    left_game(http, games, keys, ("eve", "fay"), ("fay",))
    Ratings(games).catch_up()
    first = http.client.get("/v1/leaderboards/craits", query_string={"limit": 2}).json
    assert [entry["account"] for entry in first["entries"]] == ["eve", "ana"]
    left_game(http, games, keys, ("gil", "hal"), ("hal",))  # (gil enters above ana, hal below her)
    Ratings(games).catch_up()
    second = http.client.get("/v1/leaderboards/craits", query_string={"limit": 2, "cursor": first["next"]}).json
    assert [(entry["rank"], entry["account"]) for entry in second["entries"]] == [(3, "bo"), (3, "cy")]
    third = http.client.get("/v1/leaderboards/craits", query_string={"limit": 2, "cursor": second["next"]}).json
    assert (third["entries"][0]["rank"], third["entries"][0]["account"]) == (3, "dee")
    for bad in ("2", "1.5", "nan~ana", "inf~ana", "1.5~ANA", "1.5~", "1.5 ~ana"):
        refused = http.client.get("/v1/leaderboards/craits", query_string={"cursor": bad})
        assert refused.status_code == 422 and refused.json["code"] == "validation_error", bad


def test_a_rated_game_that_ends_is_rated_at_once_not_at_the_next_round(http: Http, games: GameService) -> None:
    """A server process runs the ratings every few seconds, and at once when a game of accounts ends: a
    bot reads its new rating right after its game, whatever the interval (here a minute)."""
    seen: list[Finish] = []

    def applied(finish: Finish) -> None:
        seen.append(finish)
        metrics.rated(finish)

    lagged = metrics.RATING_LAG_SECONDS.collect()[0].samples
    before = next(sample.value for sample in lagged if sample.name.endswith("_count"))
    ratings = Periodic("ratings", Ratings(games, applied).catch_up, interval=60).start()
    games.on_accounts_game_over.append(ratings.poke)
    try:
        keys = [sign_up(http, name) for name in ("ana", "bo")]
        game_id = rated_game(http, keys)
        play_out(games, game_id, keys)
        mine = until(lambda: http.client.get("/v1/accounts/ana/ratings").json["ratings"], "ana's ratings change",
                     every=0.02)
        assert [change["game_id"] for rating in mine for change in rating["history"]] == [game_id]
    finally:
        ratings.stop()
    # (the operator's metric: how long after its end a game's ratings changed, docs/deploy.md)
    assert [finish.game_id for finish in seen] == [game_id]
    lagged = metrics.RATING_LAG_SECONDS.collect()[0].samples
    assert next(sample.value for sample in lagged if sample.name.endswith("_count")) == before + 1


def test_an_account_shows_its_current_rating_in_each_game_it_played_rated(http: Http, games: GameService) -> None:
    keys = [sign_up(http, name) for name in ("Ana", "bo")]
    assert http.client.get("/v1/accounts/ana").json["ratings"] == {}
    game_id = rated_game(http, keys)
    play_out(games, game_id, keys)
    Ratings(games).catch_up()
    shown = http.client.get("/v1/accounts/ana").json["ratings"]
    [rating] = http.client.get("/v1/accounts/ana/ratings").json["ratings"]
    assert shown == {"craits": {key: value for key, value in rating.items() if key not in ("game", "history")}}
    assert shown["craits"]["games"] == 1 and shown["craits"]["last_game_id"] == game_id
    assert http.client.get("/v1/account", headers=bearer(keys[0])).json["ratings"] == shown
