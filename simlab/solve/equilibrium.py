"""``simlab tune --equilibrium``: the fair value of an option under solved play, not under the scripts.

``simlab tune`` finds where the win rates of two fixed policies are equal; a designer balancing for
strong players wants where the game's *value* (the first side's win rate minus the second's, draws
0) is zero when both sides play well. Here each value of the parameter is solved on its own with
``simlab solve``'s machinery (:func:`simlab.solve.grid.solve_grid`: a PSRO population per value,
the same seed, so the values are compared on common random numbers, and the same budget per value).
Each solve gives the value at its final mix with a bootstrap interval; the fair value is where the
piecewise-linear curve through the values crosses 0, and its interval is the set of parameter values
whose (interpolated) interval contains 0: the pointwise confidence band inverted.

Two caveats travel with every answer (``caveats`` in the summary): each value is that of the
population the solve found (its exploitability, a lower bound, is reported per point), and the
interval is the band of the per-point intervals, so it is as honest as they are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..analysis.common import write_json
from ..analysis.tune import parse_range, tuned_param
from ..errors import SpecError
from ..games import get_game

__all__ = ["EQUILIBRIUM_SUMMARY", "fair_value_at_equilibrium", "tune_equilibrium"]

EQUILIBRIUM_SUMMARY = "equilibrium.json"


def fair_value_at_equilibrium(x: Sequence[float], value: Sequence[float], lo: Sequence[float],
                              hi: Sequence[float], steps: int = 4001) -> dict:
    """Where a curve of game values crosses 0, with the inverted band of its intervals.

    Args:
        x: the parameter's values, increasing; ``float64[n]``, n >= 2.
        value: the game value at each (payoff units: first side's win rate minus the second's).
        lo, hi: each value's interval ends.
        steps: points of the fine grid on which the band is inverted.

    Returns:
        ``{"fair_value", "ci": [low, high], "bracket": [below, above], "note"}``: ``fair_value`` the
        first crossing of 0 by linear interpolation (None with ``note`` when the curve does not
        cross 0 in the range), ``ci`` the run of parameter values around it whose interpolated
        interval contains 0 (an end that reaches the range's edge is None: past the range),
        ``bracket`` the played values either side of the crossing.

    Raises:
        ValueError: fewer than two points, or ``x`` not increasing.
    """
    x, v = np.asarray(x, float), np.asarray(value, float)
    lo_, hi_ = np.asarray(lo, float), np.asarray(hi, float)
    if x.size < 2 or np.any(np.diff(x) <= 0):
        raise ValueError("need at least two increasing parameter values")
    root = None
    bracket = None
    for i in range(x.size - 1):
        if v[i] == 0:
            root, bracket = float(x[i]), [float(x[i]), float(x[i])]
            break
        if v[i] * v[i + 1] < 0:
            root = float(x[i] + (x[i + 1] - x[i]) * v[i] / (v[i] - v[i + 1]))
            bracket = [float(x[i]), float(x[i + 1])]
            break
    if root is None and v[-1] == 0:
        root, bracket = float(x[-1]), [float(x[-1]), float(x[-1])]
    if root is None:
        side = "above" if np.all(v > 0) else "below"
        return {"fair_value": None, "ci": [None, None], "bracket": None,
                "note": f"the value is {side} 0 at every played value: widen --range"}
    grid = np.linspace(x[0], x[-1], steps)
    inside = (np.interp(grid, x, lo_) <= 0) & (np.interp(grid, x, hi_) >= 0)
    j = int(np.argmin(np.abs(grid - root)))
    inside[j] = True  # the crossing itself is in the band
    a = j
    while a > 0 and inside[a - 1]:
        a -= 1
    b = j
    while b < steps - 1 and inside[b + 1]:
        b += 1
    low = None if a == 0 and inside[0] else float(grid[a])
    high = None if b == steps - 1 and inside[-1] else float(grid[b])
    return {"fair_value": root, "ci": [low, high], "bracket": bracket, "note": ""}


def tune_equilibrium(game: str, *, param: str, range_: str, scenario: str | None = None,
                     set_: Sequence[str] = (), data: str | Path | None = None, budget: int = 100_000,
                     seed: int = 0, out: str | Path | None = None, overwrite: bool = False,
                     workers: int | None = None, progress: bool = True, **solve_kw) -> dict:
    """The value of ``param`` at which the game's value under solved play is 0.

    Args:
        game: a two-sided registered game.
        param: a numeric (int or float) option or a data-pack value
            ``data.<table>.<key>.<field>``; ``range_``: its ``LOW:HIGH[:STEP]`` values
            (:func:`simlab.analysis.tune.parse_range`).
        scenario, set_, data: as for ``simlab solve`` (``set_`` must not set ``param``).
        budget: games of each value's solve (:func:`simlab.solve.loop.solve`'s budget).
        seed: the seed of every solve (common random numbers across values).
        out: the directory (default ``results/solve-<game>-<time>``): one solve folder per value,
            ``solve-grid.json`` and ``equilibrium.json``; overwrite: replace a previous one.
        workers, progress: as for ``simlab solve``.
        solve_kw: any other argument of :func:`simlab.solve.loop.solve` (meta_games, search_games,
            confirm_games, generations, popsize, iterations, epsilon, replicates).

    Returns:
        The summary written to ``DIR/equilibrium.json``: ``{game, scenario, sides, param,
        fair_value, ci: [low, high], bracket, note, points: [{value, game_value, value_ci,
        exploitability, stop, games_played}], budget_per_value, seed, games_played, method,
        caveats}``, plus ``path``.

    Raises:
        SpecError: ``param`` is not a numeric option of the game, or is also in ``set_``; a bad
            range; a game that is not two-sided; any error of the solves' input (nothing written).
        SweepStateError: ``out`` is not usable.
    """
    from .grid import solve_grid
    g = get_game(game)
    opt = tuned_param(g, param, data)
    values = parse_range(range_, opt.kind)
    for v in values:
        opt.parse(v)
    if len(values) < 2:
        raise SpecError(f"--range {range_!r}: --equilibrium needs at least two values")
    res = solve_grid(game, grid=[f"{param}={','.join(repr(v) if isinstance(v, float) else str(v) for v in values)}"],
                     set_=list(set_), scenario=scenario, data=data, budget=budget, seed=seed, out=out,
                     overwrite=overwrite, workers=workers, progress=progress, **solve_kw)
    points = []
    for v, c in zip(values, res["cells"], strict=True):
        ci = c.get("value_ci") or [None, None]
        points.append({"value": v, "game_value": c.get("value"), "value_ci": list(ci),
                       "exploitability": c.get("exploitability"), "stop": (c.get("stop") or {}).get("reason"),
                       "games_played": c.get("games_played")})
    usable = [p for p in points if p["game_value"] is not None and None not in p["value_ci"]]
    if len(usable) < 2:
        found = {"fair_value": None, "ci": [None, None], "bracket": None,
                 "note": "fewer than two values were solved within the budget: raise --budget"}
    else:
        found = fair_value_at_equilibrium([p["value"] for p in usable], [p["game_value"] for p in usable],
                                          [p["value_ci"][0] for p in usable], [p["value_ci"][1] for p in usable])
    if found["fair_value"] is not None and opt.kind is int:
        found["fair_value"] = round(found["fair_value"], 3)
    sides = res["sides"]
    summary = {"game": game, "scenario": res["scenario"], "sides": sides, "param": param, **found,
               "points": points, "budget_per_value": budget, "seed": seed, "games_played": res["games_played"],
               "method": "equilibrium",
               "value_meaning": f"{sides[0]} win rate minus {sides[1]}'s under each value's solved population (draws 0)",
               "caveats": ["each value is its solve's population's, exploitability (a lower bound) per point",
                           "the interval inverts the band of the per-value bootstrap intervals (95%)"]}
    if any(p["exploitability"] is not None and not math.isnan(p["exploitability"]) and p["exploitability"] > 0.05
           for p in points):
        summary["warnings"] = ["a value's population is exploitable by more than 0.05: raise --budget before "
                               "trusting the fair value"]
    write_json(Path(res["path"]) / EQUILIBRIUM_SUMMARY, summary)
    return {**summary, "path": res["path"]}
