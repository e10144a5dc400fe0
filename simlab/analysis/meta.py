"""``simlab meta``: the policy meta-game — every pairing of scripted policies, and its equilibrium.

One sweep plays every pair (the first side's policies × the second side's) with common random
numbers. The payoff of a pairing is the first side's win rate minus the second side's (draws
count 0); the zero-sum game over the policies is solved by linear programming
(:func:`simlab.stats.metagame.solve_zero_sum`). Its value is the balance of the game when both
sides play their best mix of the scripted policies — 0 is balanced, positive favours the first
side — rather than the balance of one arbitrary pairing. The value's interval is a percentile
bootstrap over game indices (each index keeps its results in every pairing).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import SpecError
from ..games import get_game
from ..stats.metagame import solve_zero_sum
from ..stats.tuning import pattern_counts
from ..sweeps.runner import run_sweep
from ..sweeps.spec import expand, spec_from_args
from .common import clear_out, outcome_matrix, preflight, prepare_out, rate, read_outcomes, write_json

__all__ = ["meta", "payoff_matrix"]

SUMMARY = "meta.json"


def payoff_matrix(patterns: np.ndarray, weights: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """First side's win rate minus the second side's for every pairing.

    Args:
        patterns: ``int8[cells, p]`` winner codes per pattern (cells in row-major pairing order).
        weights: ``int64[p]`` games per pattern, or ``int64[r, p]`` for ``r`` replicates.
        shape: ``(first side's policies, second side's policies)``.

    Returns:
        ``float64[m, n]`` (or ``[r, m, n]``).
    """
    w = np.asarray(weights, dtype=np.float64)
    played = (patterns != -2).astype(np.float64)
    diff = (patterns == 0).astype(np.float64) - (patterns == 1).astype(np.float64)
    num = w @ diff.T
    den = w @ played.T
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)
    return m.reshape(m.shape[:-1] + shape)


def meta(game: str, *, policies: Sequence[str] = (), scenario: str | None = None, set_: Sequence[str] = (),
         data: str | Path | None = None, games: int = 2000, seed: int = 0, out: str | Path | None = None,
         overwrite: bool = False, workers: int | None = None, confidence: float = 0.95, replicates: int = 500,
         progress: bool = True) -> dict:
    """Play every policy pairing of a two-sided game and solve the zero-sum game over them.

    Args:
        game: registered game name (two sides).
        policies: ``SIDE=A,B,...`` items; a side not named plays all of its policies.
        scenario, set_, data: as for ``simlab sweep`` (one scenario).
        games: games per pairing; seed: master seed (every pairing uses the same streams).
        out: output directory (default ``results/meta-<game>-<time>``); overwrite: replace a
            previous meta-game there.
        workers: worker processes; confidence: interval level; replicates: bootstrap replicates.
        progress: progress bar on stderr.

    Returns:
        The summary written to ``<out>/meta.json``::

            {game, scenario, sides, policies: {side: [...]}, games, payoff: [[...]],
             cells: [[{policies, games, sides: {side: {count, rate, ci}}, draws: {...},
                       payoff}]], value, value_ci, mixes: {side: {policy: weight}},
             equilibrium_rates: {side: rate, draw: rate}, confidence, replicates, sweep,
             caveats: {side: {policy: text}} (families with a caveat, e.g. a solo AI),
             solved: None, or the game's shipped solved population for this scenario and options
             {path, value, value_ci, exploitability, stop, presets: {side: {policy: {gain, ci, source}}},
             unmeasured: {side: {policy: reason}}} with presets narrowed to the policies played whose
             figure applies (the solve's knob vectors, data pack and game version; simlab.measured)}

    Raises:
        SpecError, ScenarioError, DataPackError: bad input (nothing written).
        SweepStateError: ``out`` is not usable.
    """
    g = get_game(game)
    if scenario is not None and "," in scenario:
        raise SpecError("meta plays one scenario; give a single --scenario")
    if not 0.5 <= confidence < 1:
        raise SpecError(f"--confidence must be in [0.5, 1) (got {confidence})")
    if replicates < 100:
        raise SpecError(f"--replicates must be at least 100 (got {replicates})")
    spec = spec_from_args(game, scenario=scenario, policy=policies, set_=set_, games=games, seed=seed, crn=True,
                          data=str(data) if data else None, name="meta")
    sc = g.load_scenario(scenario, g.load_data(spec.data))
    sides = list(sc.sides)
    if len(sides) != 2:
        raise SpecError(f"{game} has {len(sides)} sides; the meta-game needs two")
    for s in spec.policies:
        if s not in sides:
            raise SpecError(f"unknown side '{s}' in --policies (sides: {', '.join(sides)})")
    pols = {s: list(spec.policies.get(s) or g.scenario_policies(sc, s)) for s in sides}
    spec.policies = pols
    _, cells, info = expand(spec)
    m, n = len(pols[sides[0]]), len(pols[sides[1]])
    if m * n < 2:
        raise SpecError("the meta-game needs at least two policy pairings (give a side more than one policy)")
    outdir = prepare_out(out, "meta", game, SUMMARY, overwrite)
    preflight(spec)
    if overwrite and outdir.exists():
        clear_out(outdir, SUMMARY)
    outdir.mkdir(parents=True, exist_ok=True)
    res = run_sweep(spec, outdir / "sweep", workers=workers, progress=progress)
    cell_idx, index, codes = read_outcomes(res.path, sides)
    # map each cell to its (i, j) pairing, row-major
    order = {}
    for c in res.manifest["cells"]:
        i = pols[sides[0]].index(c["policies"][sides[0]])
        j = pols[sides[1]].index(c["policies"][sides[1]])
        order[c["cell"]] = i * n + j
    remap = np.array([order[c] for c in range(len(order))], dtype=np.int64)
    y = outcome_matrix(remap[cell_idx], index, codes, m * n)
    pats, counts = pattern_counts(y)
    payoff = payoff_matrix(pats, counts, (m, n))
    eq = solve_zero_sum(payoff)
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(seed) >> 32, 0x6D657461])
    total = int(counts.sum())
    w = rng.multinomial(total, counts / total, size=replicates)
    boot = payoff_matrix(pats, w, (m, n))
    vals = np.array([solve_zero_sum(boot[r]).value for r in range(replicates)])
    alpha = 1 - confidence
    lo, hi = np.quantile(vals, [alpha / 2, 1 - alpha / 2])
    table = []
    eq_rates = {s: 0.0 for s in sides} | {"draw": 0.0}
    for i in range(m):
        row = []
        for j in range(n):
            yy = y[i * n + j]
            k = int((yy != -2).sum())
            cell = {"policies": {sides[0]: pols[sides[0]][i], sides[1]: pols[sides[1]][j]}, "games": k,
                    "sides": {s: rate(int((yy == si).sum()), k, confidence) for si, s in enumerate(sides)},
                    "draws": rate(int((yy == -1).sum()), k, confidence), "payoff": float(payoff[i, j])}
            wgt = eq.row_mix[i] * eq.col_mix[j]
            for s in sides:
                eq_rates[s] += wgt * (cell["sides"][s]["rate"] or 0.0)
            eq_rates["draw"] += wgt * (cell["draws"]["rate"] or 0.0)
            row.append(cell)
        table.append(row)
    summary = {
        "game": game, "scenario": sc.name, "sides": sides, "policies": pols, "games": games,
        "payoff": payoff.tolist(), "cells": table, "value": float(eq.value) + 0.0,
        "value_ci": [float(lo), float(hi)],
        "mixes": {sides[0]: dict(zip(pols[sides[0]], map(float, eq.row_mix), strict=True)),
                  sides[1]: dict(zip(pols[sides[1]], map(float, eq.col_mix), strict=True))},
        "equilibrium_rates": eq_rates, "confidence": confidence, "replicates": replicates, "seed": seed,
        "options": cells[0].options, "data": info["data"], "sweep": "sweep",
        "payoff_meaning": f"{sides[0]} win rate minus {sides[1]} win rate (draws count 0)",
        "caveats": {s: {p: c for p in pols[s] if (c := g.policy_book().caveat(p))} for s in sides},
        # how strong the play behind these figures is: the game's shipped solved population
        # for this scenario and these options, where there is one (simlab.results.shipped_solution)
        "solved": _solved(g, sc.name, cells[0].options, pols, res.manifest) if not spec.policies_files else None,
    }
    write_json(outdir / SUMMARY, summary)
    summary["path"] = str(outdir)
    return summary


def _solved(g, scenario: str, options: dict, pols: dict, manifest: dict) -> dict | None:
    """The shipped solution for the scenario and options, its presets narrowed to those played
    whose figure applies to the meta-game's sweep (:func:`simlab.results.policy_exploitability`:
    the same knob vectors, data pack and game version as the solve's); ``unmeasured`` gives
    ``{side: {policy: reason}}`` for the others."""
    from ..results import policy_exploitability, shipped_solution
    sol = shipped_solution(g, scenario, options)
    if sol is None:
        return None
    applies: dict[str, set] = {s: set() for s in pols}
    why: dict[str, dict[str, str]] = {}
    for per in policy_exploitability(manifest).values():
        for s, e in per.items():
            if e.get("gain") is not None:
                applies.setdefault(s, set()).add(e["policy"])
            elif e.get("reason"):
                why.setdefault(s, {})[e["policy"]] = e["reason"]
    sol["presets"] = {s: {p: r for p, r in sol["presets"].get(s, {}).items() if p in pols[s] and p in applies[s]}
                      for s in pols}
    sol["unmeasured"] = why
    return sol
