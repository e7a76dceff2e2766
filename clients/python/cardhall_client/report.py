"""The arena on a terminal: a rich progress bar while games run, then the standings as a table."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from cardhall_client import arena
from cardhall_client.standings import Standings


def run_with_progress(game: str, players: int, entrants: list[arena.Entrant], games: int, seed: int,
                      play: arena.PlayOne, options: dict[str, Any], console: Console | None = None) -> Standings:
    """Play the games with ``play`` and a progress bar; the standings."""
    standings = Standings(game, entrants)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(f"{game} arena", total=games)
        for played in arena.run(game, players, entrants, games, seed, play=play, options=options):
            standings.add(played)
            progress.advance(task)
    return standings


def show(standings: Standings, title: str, console: Console | None = None) -> None:
    """Print the standings as a table."""
    metric = "score↓" if standings.metric == "scores" else "lives"
    caption = ("score: mean final score, lower is better" if standings.metric == "scores"
               else "lives: mean lives left") + "; rating: openskill PlackettLuce ordinal μ − 3σ; shared wins split"
    table = Table(title=title, caption=caption)
    rows = standings.table()
    headers = ["bot", "games", "wins", "win%", metric, "95% CI", "rating", "μ ± σ"]
    if any(one.illegal for one in rows):
        headers.append("illegal")
    for header in headers:
        table.add_column(header, justify="left" if header == "bot" else "right", no_wrap=True)
    for one in rows:
        low, high = one.ci95
        cells = [one.name, str(one.games), _wins(one.wins), f"{100 * one.wins / max(one.games, 1):.1f}",
                 _number(one.mean), f"{_number(low)}–{_number(high)}", f"{one.ordinal:.2f}",
                 f"{one.mu:.1f}±{one.sigma:.1f}", str(one.illegal)]
        table.add_row(*cells[: len(headers)])
    console = console or Console()
    if not console.is_terminal:  # (a file or a pipe: as wide as the table, not cut to 80 columns with ellipses)
        console.width = max(console.width, console.measure(table, options=console.options.update_width(1000)).maximum)
    console.print(table)


def _number(value: float) -> str:
    if math.isnan(value):
        return "–"
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.2f}"


def _wins(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:.2f}"
