"""``simlab solve --grid``: one solve per option setting, and the table a designer compares them by.

Which side does an option favour under strong play, not only under the scripts? Each cell of the
grid (the product of the ``--grid OPTION=V1,V2`` axes, on top of the ``--set`` values) is solved on
its own with :func:`simlab.solve.loop.solve`'s algorithm, with the same seed (so the cells are
compared on common random numbers) and the same budget (per cell), into ``DIR/<option=value,...>/``.
``DIR/solve-grid.json`` lists each cell's value at its final mix with the interval, its
exploitability estimate (a lower bound) and why it stopped.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from pathlib import Path

from ..analysis.common import clear_out, prepare_out, write_json
from ..errors import SpecError
from ..sweeps.spec import split_kv
from .loop import _Solver, parse_exploit
from .loop import solve as solve_one

GRID_SUMMARY = "solve-grid.json"


def grid_cells(grid: Sequence[str]) -> list[dict[str, str]]:
    """The cells of ``--grid`` items: their product, first axis slowest.

    Args:
        grid: ``OPTION=V1,V2,...`` strings.

    Returns:
        ``[{option: value_text}]`` in order; values are the command line's text (the game parses them).

    Raises:
        SpecError: an item without ``=``, an empty value, a value given twice, or an option twice.
    """
    axes: dict[str, list[str]] = {}
    for k, v in split_kv(grid, "--grid"):
        if k in axes:
            raise SpecError(f"--grid {k}: given twice (list its values once: {k}=A,B)")
        vals = [x.strip() for x in v.split(",")]
        if any(not x for x in vals):
            raise SpecError(f"--grid {k}={v}: empty value")
        if len(set(vals)) != len(vals):
            raise SpecError(f"--grid {k}={v}: a value given twice")
        axes[k] = vals
    return [dict(zip(axes, combo, strict=True)) for combo in itertools.product(*axes.values())]


def cell_folder(cell: dict[str, str]) -> str:
    """The folder name of a grid cell: ``option=value`` joined by commas, unsafe characters as ``_``."""
    return ",".join(re.sub(r"[^A-Za-z0-9._=+-]", "_", f"{k}={v}") for k, v in cell.items())


def solve(game: str, *, grid: Sequence[str] = (), **kw) -> dict:
    """``simlab.solve``: :func:`simlab.solve.loop.solve` for one option setting, :func:`solve_grid`
    when ``grid`` (``OPTION=V1,V2`` items) is given. Arguments, return value and errors: theirs."""
    if grid:
        return solve_grid(game, grid=grid, **kw)
    return solve_one(game, **kw)


def solve_grid(game: str, *, grid: Sequence[str], set_: Sequence[str] = (), out: str | Path | None = None,
               overwrite: bool = False, **kw) -> dict:
    """Solve every cell of an option grid (see the module docstring).

    Args:
        game: a two-sided registered game; grid: ``OPTION=V1,V2`` items (their product is the grid);
            set_: fixed ``OPTION=VALUE`` / ``SIDE.KNOB=VALUE`` items, common to every cell.
        out: the parent directory (default ``results/solve-<game>-<time>``); overwrite: replace a
            previous grid solve there.
        kw: every other argument of :func:`simlab.solve.solve` (budget is per cell).

    Returns:
        The summary written to ``DIR/solve-grid.json``: ``game``, ``scenario``, ``grid``
        (``{option: [values]}``), ``cells`` (per cell ``options``, ``folder``, ``value``,
        ``value_ci``, ``exploitability`` (a lower bound, or None), ``stop``, ``games_played``,
        ``mixes``), ``games_played`` (all cells), plus ``path``.

    Raises:
        SpecError, ScenarioError, DataPackError: bad input in any cell, before anything is written.
        SweepStateError: ``out`` is not usable.
    """
    from ..sweeps.backends import kept_backend, sweep_backend
    cells = grid_cells(grid)
    for c in cells:
        for k in c:
            if any(s.split("=", 1)[0].strip() == k for s in set_):
                raise SpecError(f"--grid {k}: also given with --set")
    parent = prepare_out(out, "solve", game, GRID_SUMMARY, overwrite)
    args = dict(scenario=kw.pop("scenario", None), data=kw.pop("data", None), budget=kw.pop("budget", 200_000),
                epsilon=kw.pop("epsilon", 0.01), seed=kw.pop("seed", 0), workers=kw.pop("workers", None),
                progress=kw.pop("progress", True))
    tuning = dict(meta_games=2000, search_games=400, confirm_games=4000, generations=6, popsize=None,
                  iterations=10, replicates=200)
    tuning.update({k: kw.pop(k) for k in list(kw) if k in tuning})
    exploit, backend, scheduler = kw.pop("exploit", None), kw.pop("backend", None), kw.pop("scheduler", None)
    caveats = bool(kw.pop("include_caveats", False))
    if kw.pop("method", "auto") not in ("auto", "knobs"):  # auto: each setting's solve is a knob solve
        raise SpecError("--method rollout|both solves one option setting: leave out --grid")
    kw.pop("rollouts", None)
    kw.pop("rollout_games", None)
    if kw:
        raise TypeError(f"solve_grid: unexpected arguments {sorted(kw)}")
    fixed = parse_exploit(exploit)
    with sweep_backend(backend, scheduler, args["workers"]), kept_backend(args["workers"]):
        # every cell is checked (options, knobs, scenario) before anything is written
        solvers = [_Solver(game, args["scenario"], [*set_, *(f"{k}={v}" for k, v in c.items())], args["data"],
                           args["budget"], args["epsilon"], args["seed"], parent / cell_folder(c), True,
                           args["workers"], args["progress"], tuning["meta_games"], tuning["search_games"],
                           tuning["confirm_games"], tuning["generations"], tuning["popsize"], tuning["iterations"],
                           tuning["replicates"], fixed, caveats=caveats) for c in cells]
        if overwrite and parent.exists():
            clear_out(parent, GRID_SUMMARY)
        parent.mkdir(parents=True, exist_ok=True)
        write_json(parent / GRID_SUMMARY, {"game": game, "status": "running"})
        rows = []
        for c, sv in zip(cells, solvers, strict=True):
            if args["progress"]:
                import sys
                print(f"solve --grid: cell {', '.join(f'{k}={v}' for k, v in c.items())}", file=sys.stderr)
            res = sv.run()
            f = res.get("final") or {}
            ex = (f.get("exploitability") or {}).get("estimate")
            rows.append({"options": {k: sv.options[k] for k in c}, "folder": cell_folder(c),
                         "value": f.get("value"), "value_ci": f.get("value_ci"), "exploitability": ex,
                         "stop": res["stop"], "games_played": res["games_played"], "mixes": f.get("mixes")})
    summary = {"game": game, "scenario": solvers[0].scenario_name, "sides": solvers[0].sides,
               "grid": {k: list(dict.fromkeys(c[k] for c in cells)) for k in cells[0]},
               "budget_per_cell": args["budget"], "seed": args["seed"], "cells": rows,
               "games_played": sum(r["games_played"] for r in rows),
               "payoff_meaning": f"{solvers[0].sides[0]} win rate minus {solvers[0].sides[1]}'s (draws 0)",
               "exploitability_meaning": "a lower bound: the largest gain a searched response found"}
    write_json(parent / GRID_SUMMARY, summary)
    return {**summary, "path": str(parent)}
