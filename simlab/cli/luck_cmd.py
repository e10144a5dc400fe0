"""``simlab luck``: the command and what it prints (the library functions are in
:mod:`simlab.analysis.luck`).

:func:`luck` is registered on the app by ``simlab/cli/__init__.py`` (this module does not import it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..errors import InputError
from .render import _print_json, _print_table, out_console


def _rate(q: dict) -> str:
    if not q["games"]:
        return "-"
    lo, hi = q["ci"]
    return f"{100 * q['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] n={q['games']:,}"  # the estimate's digits


def _r2(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def render_luck(res: dict) -> list:
    """The tables and lines of a luck summary (:func:`simlab.analysis.luck.luck_summary`), in order."""
    out: list = []
    how = ("exact (the convolution of its dice)" if res["method"] == "exact"
           else "normal approximation with continuity correction")
    out.append(f"{res['game']}: dice luck = percentile of the damage a side's dice dealt among what they could "
               f"have dealt in the same shots; {how}")
    for c in res["cells"]:
        sides = list(c["sides"])
        t = Table(title=f"cell {c['cell']} ({c['scenario']}, {c['games']:,} games): win rate by luck quintile")
        t.add_column("luck percentile")
        for s in sides:
            t.add_column(f"{s} wins (95% CI)", justify="right")
        for q in range(5):
            first = c["sides"][sides[0]]["quintiles"][q] if sides else None
            label = f"{100 * first['luck_from']:.0f}-{100 * first['luck_to']:.0f}" if first else str(q + 1)
            t.add_row(label, *[_rate(c["sides"][s]["quintiles"][q]) for s in sides])
        t.add_row("all", *[f"{100 * c['sides'][s]['win_rate']:.1f}% (mean luck {c['sides'][s]['mean_luck']:.3f})"
                           if c["sides"][s]["win_rate"] is not None else "-" for s in sides])
        out.append(t)
        parts = [f"R² of score_{s} on the luck: {_r2(c['sides'][s]['r2_score'])}" for s in sides]
        if "r2_margin" in c:
            parts.insert(0, f"luck explains {_r2(c['r2_margin'])} of the variance of the score margin "
                            f"({sides[0]} - {sides[1]}; R² on both sides' luck)")
        out.append("; ".join(parts))
    return out


def luck(
    directory: Annotated[Path, typer.Argument(help="a sweep's output directory")],
    cell: Annotated[int | None, typer.Option(help="only this cell")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    plot: Annotated[Path | None, typer.Option(help="also draw win rate by luck quintile to this .png or .svg "
                                                   "(of --cell, else the first cell)")] = None,
    games_out: Annotated[Path | None, typer.Option("--games-out", help="write each game's luck per side to "
                                                                       "this .csv or .parquet")] = None,
) -> None:
    """Dice luck: each side's luck per game (the percentile of the damage its dice dealt), its win
    rate by luck quintile and how much of the score's variance luck explains (R²).

    Luck is recorded by each game that writes ``luck_*`` columns (per shot, per battle or per
    attack: ``simlab schema GAME`` says which); a sweep whose game records none exits 2.
    """
    from ..analysis.luck import luck_figure, luck_games, luck_summary
    for p, suffixes in ((plot, (".png", ".svg")), (games_out, (".csv", ".parquet"))):
        if p is not None and p.suffix.lower() not in suffixes:
            raise InputError(f"{p}: the file must end in {' or '.join(suffixes)}")
    res = luck_summary(directory, cell)
    if games_out is not None:
        df = luck_games(directory, cell)
        if games_out.suffix.lower() == ".csv":
            df.to_csv(games_out, index=False)
        else:
            df.to_parquet(games_out, index=False)
    if plot is not None:
        luck_figure(res, cell).savefig(plot)
    if json_:
        _print_json(res)
    else:
        for item in render_luck(res):
            if isinstance(item, Table):
                _print_table(item)
            else:
                out_console.print(item)
    for p in (plot, games_out):
        if p is not None and not json_:
            out_console.print(f"wrote {p}")
