"""``simlab schema GAME``: the columns of a game's games table (name, type, unit, meaning).

:func:`schema` is registered on the app by ``simlab/cli/__init__.py`` (this module does not import it).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from .render import _print_json, out_console


def schema(
    game: Annotated[str, typer.Argument(help="game name (simlab games lists them)")],
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Print the columns of a game's games table: name, Arrow type, unit and meaning.

    `<side>` stands for each of the scenario's sides; columns marked with scenarios or a condition
    are written only there. Then the game's events tables, likewise. A sweep's manifest states the
    same for the columns it wrote (`schema.games`, `schema.events`). Exit status 2 for an unknown game.
    """
    from ..games import get_game
    from ..games.schema import events_rows, schema_rows
    g = get_game(game)
    rows, events = schema_rows(g), events_rows(g)
    if json_:
        _print_json({"game": g.name, "sides": list(g.sides) if g.sides else None, "columns": rows, "events": events})
        return
    sides = ", ".join(g.sides) if g.sides else "the scenario's"
    out_console.print(_table(f"{g.name}: the games table (one row per game; sides: {sides})", rows))
    for t, ev in events.items():
        out_console.print(_table(f"{g.name}: the events table {t} (events/{t}/)", ev))


def _table(title: str, rows: list[dict]) -> Table:
    t = Table(title=title)
    for c in ("column", "type", "unit", "meaning"):
        t.add_column(c, overflow="fold")
    for r in rows:
        extra = "".join(f" ({k}: {', '.join(v)})" for k, v in r.get("values", {}).items())
        if "scenarios" in r:
            extra += f" (scenarios: {', '.join(r['scenarios'])})"
        if "when" in r:
            extra += f" (only when {r['when']})"
        t.add_row(r["column"], r["type"], r["unit"], r["meaning"] + extra)
    return t
