"""The web pages: the lobby (``/``) and the table (``/games/{id}``).

The pages are shells; their scripts (plain ES modules under ``static/``, no build
step) talk to the public API like any other client. No rule lives here or in the
scripts: a page offers only the moves the server listed in ``legal_moves``.
"""

from __future__ import annotations

from flask import Blueprint, render_template, request

blueprint = Blueprint(
    "web", __name__, template_folder="templates", static_folder="static", static_url_path="/assets"
)


@blueprint.get("/")
def lobby() -> str:
    """Games to watch and join, and a form to start one."""
    return render_template("lobby.html")


@blueprint.get("/games/<string:game_id>")
def table(game_id: str) -> str:
    """One game's table, turn by turn; ``?embed=1`` shows the table alone, for an iframe."""
    return render_template("table.html", game_id=game_id, embed=request.args.get("embed") == "1")
