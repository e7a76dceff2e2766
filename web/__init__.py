"""The web pages: the lobby (``/``), the table (``/games/{id}``), the record viewer (``/replay``),
a game's leaderboard (``/leaderboards/{game}``), an account's page (``/accounts/{name}``), the tournaments
(``/tournaments``, an account's with ``?account=``) and a tournament's page (``/tournaments/{id}``). A page
of a game, game type, account or tournament the server does not have is a 404 page, the app saying which
exist (its settings ``CARDHALL_GAME_EXISTS``, ``CARDHALL_GAME_TYPE_EXISTS``, ``CARDHALL_ACCOUNT_EXISTS`` and
``CARDHALL_TOURNAMENT_EXISTS``: each a function of a name).

The pages are shells; their scripts (plain ES modules under ``static/``, no build
step) talk to the public API like any other client. No rule lives here or in the
scripts: a page offers only the moves the server listed in ``legal_moves``.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template, request

from web import rules

blueprint = Blueprint(
    "web", __name__, template_folder="templates", static_folder="static", static_url_path="/assets"
)

#: What a page may load and run: its own scripts, styles and API, nothing inline, nothing from elsewhere.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'")


@blueprint.after_request
def _page_headers(response: Response) -> Response:
    """Every page and asset: the policy above. Only a table shown ``?embed=1`` may be framed, by any
    site; the lobby and a table with its seat's move buttons by none (clickjacking)."""
    embedded = request.endpoint == "web.table" and request.args.get("embed") == "1"
    ancestors = "*" if embedded else "'none'"
    response.headers["Content-Security-Policy"] = f"{CONTENT_SECURITY_POLICY}; frame-ancestors {ancestors}"
    if not embedded:
        response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _unknown(setting: str, name: str) -> bool:
    """Whether the app says it has no ``name`` (``setting``: which of its functions saying so to ask)."""
    exists = current_app.config.get(setting)
    return exists is not None and not exists(name)


def _missing(what: str, name: str) -> tuple[str, int]:
    """The 404 page of a ``what`` (game, game type, account) named ``name`` that the server does not have."""
    return render_template("missing.html", what=what, name=name), 404


@blueprint.get("/")
def lobby() -> str:
    """Games to watch and join, and a form to start one."""
    return render_template("lobby.html", rule_games=rules.games())


@blueprint.get("/games/<game_id:game_id>")
def table(game_id: str) -> str | tuple[str, int]:
    """One game's table, turn by turn; ``?embed=1`` shows the table alone, for an iframe."""
    if _unknown("CARDHALL_GAME_EXISTS", game_id):
        return _missing("game", game_id)
    return render_template("table.html", game_id=game_id, embed=request.args.get("embed") == "1",
                           rule_games=rules.games())


@blueprint.get("/replay")
def replay() -> str:
    """A game record (cardhall-record/1) opened from a file or pasted text, stepped through as a stored game."""
    return render_template("replay.html")


@blueprint.get("/rules/<string:game>")
def rules_page(game: str) -> str | tuple[str, int]:
    """A game's rules, rendered from its rules document in the repository."""
    found = rules.page(game)
    if found is None:
        return _missing("game type", game)
    title, body = found
    return render_template("rules.html", title=title, body=body, games=rules.games())


@blueprint.get("/leaderboards/<string:game>")
def leaderboard(game: str) -> str | tuple[str, int]:
    """A game's leaderboard: rated accounts by ordinal, paged."""
    if _unknown("CARDHALL_GAME_TYPE_EXISTS", game):
        return _missing("game type", game)
    return render_template("leaderboard.html", game=game)


@blueprint.get("/accounts/<account_name:name>")
def account(name: str) -> str | tuple[str, int]:
    """An account's page: its kind, since when, the games it played and plays, and its ratings, each
    with its history drawn and its recent rated games."""
    if _unknown("CARDHALL_ACCOUNT_EXISTS", name):
        return _missing("account", name)
    return render_template("account.html", name=name)


@blueprint.get("/tournaments")
def tournaments() -> str:
    """The tournaments, running then finished, newest first and paged; ``?account=`` those an account is in."""
    return render_template("tournaments.html", account=request.args.get("account", ""))


@blueprint.get("/tournaments/<id:tournament_id>")
def tournament(tournament_id: str) -> str | tuple[str, int]:
    """A tournament's page: its standings, crosstable and games by round, refreshed while it runs."""
    if _unknown("CARDHALL_TOURNAMENT_EXISTS", tournament_id):
        return _missing("tournament", tournament_id)
    return render_template("tournament.html", tournament_id=tournament_id)
