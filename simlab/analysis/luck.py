"""Dice luck of a sweep (``simlab luck``): how lucky each side's dice were in each game, and how
much of the result that luck explains.

What the kernels record (columns ``luck_*`` of the games table, per side):

* ``luck_dealt_<side>``: the damage the side's dice dealt: Dawn of Empire damage points of its
  gunfire dice (per shot, Rule 8.3.2; the campaign sums every battle), Dreadnought damage steps
  of its attacks (per shot: G + S steps, a sinking counted as a wreck's 2G + 2S; Rules 5.41-5.42,
  8.41, 8.0; the campaigns sum every scenario's shots by player), Mar Rojo damage markers of its
  attacks (per attack: the hits its dice scored less the hits saving rolls cancelled, and what
  the torpedo effect table made of torpedo hits, a Sunk counting as the target's remaining hull;
  Rule 5.3.1 steps 7-10);
* ``luck_mean_<side>`` and ``luck_var_<side>``: the expected value and variance of that number
  over every result its dice could have given in those same shots (the sum of each shot's mean
  and variance, computed from the odds, never by drawing);
* ``luck_dice_<side>`` (Dawn of Empire only): the number of gunfire dice. Every one of those dice
  has the same distribution (the game's ``luck_die_pmf``), so the distribution of the total is
  the exact ``n``-fold convolution of one die.

A side's **luck** in one game is the mid-percentile of what its dice dealt within that
distribution: ``P(X < x) + P(X = x) / 2``, which is uniform on average under fair dice and 0.5
for a side whose result was certain (or that never fired). It is **exact** for Dawn of Empire
(:func:`iid_mid_percentiles`). For Dreadnought and Mar Rojo, whose shots differ, it is the
**normal approximation with continuity correction** (:func:`normal_mid_percentile`):
``(Phi((x - 1/2 - mean) / sd) + Phi((x + 1/2 - mean) / sd)) / 2``, the results lying on the
integers. Its error is that of a central limit approximation: ``tests/test_luck.py`` enumerates a
Dreadnought-like side of 12 shots exactly (:func:`exact_mid_percentile`) and bounds the error
by 0.02 at every result; with few shots it is larger (one Bernoulli shot: up to 0.1). A
Dreadnought campaign side fires hundreds of shots (300 mixed shots: 0.003). Mar Rojo's torpedo
effect rolls make the total lumpier, a Sunk counting the target's remaining hull
(``tests/test_luck_campaigns_torpedoes.py``: 30 hit dice, 8 saves and 3 torpedo hits on a capital
ship: 0.016; 12 hit dice and 2 such torpedo hits: up to 0.07).

How much of the result luck explains (:func:`luck_summary`, per cell): each side's win rate in
each luck quintile (percentile 0-0.2, ..., 0.8-1; quintiles of the luck's own distribution under
fair dice) with Wilson intervals, and the share of the variance of the final score that luck
explains: the R^2 of an ordinary least squares fit of the score margin (first side's score less
the second's) on both sides' luck percentiles, and of each side's score alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..stats.intervals import wilson_interval

__all__ = ["LUCK_PREFIX", "QUINTILES", "exact_mid_percentile", "iid_mid_percentiles", "luck_figure",
           "luck_games", "luck_summary", "normal_mid_percentile"]

#: prefix of the games-table columns the kernels write for this analysis
LUCK_PREFIX = "luck_"
#: upper bounds of the five luck bins (percentiles of the luck's own distribution)
QUINTILES = (0.2, 0.4, 0.6, 0.8, 1.0)


# --------------------------------------------------------------------------- percentiles
def exact_mid_percentile(pmfs, x: float) -> float:
    """Exact mid-percentile ``P(X < x) + P(X = x) / 2`` of a sum of independent shots, by
    convolving their distributions (a brute-force reference for small cases and tests).

    Args:
        pmfs: per shot, ``P(result = k)`` for ``k = 0, 1, ...`` (sequences of floats summing to 1).
        x: the observed total (an integer).

    Returns:
        A float in ``[0, 1]``.
    """
    dist = np.ones(1)
    for p in pmfs:
        dist = np.convolve(dist, np.asarray(p, dtype=np.float64))
    k = int(round(x))
    below = float(dist[:max(0, min(k, dist.size))].sum())
    at = float(dist[k]) if 0 <= k < dist.size else 0.0
    return below + at / 2


def iid_mid_percentiles(pmf, n, x) -> np.ndarray:
    """Exact mid-percentiles of totals of ``n`` independent dice of one distribution.

    Args:
        pmf: ``P(one die deals k)`` for ``k = 0..m``.
        n: ``int[k]`` dice per row (``>= 0``); x: ``int[k]`` the totals they dealt.

    Returns:
        ``float64[k]``: ``P(S_n < x) + P(S_n = x) / 2`` per row, ``S_n`` the sum of ``n`` dice
        (the ``n``-fold convolution, built once up to the largest ``n``).

    Raises:
        InputError: on a negative count or a total the dice cannot reach.
    """
    pmf = np.asarray(pmf, dtype=np.float64)
    n = np.asarray(n, dtype=np.int64)
    x = np.asarray(x, dtype=np.int64)
    out = np.empty(n.shape, dtype=np.float64)
    if n.size == 0:
        return out
    if n.min() < 0:
        raise InputError("luck: a negative number of dice")
    if (x < 0).any() or (x > n * (pmf.size - 1)).any():
        raise InputError("luck: a recorded total that its dice cannot give (corrupt luck columns?)")
    dist = np.ones(1)
    have = 0
    for m in np.unique(n):
        while have < m:
            dist = np.convolve(dist, pmf)
            have += 1
        rows = n == m
        below = np.concatenate([[0.0], np.cumsum(dist)])  # below[k] = P(S < k)
        k = x[rows]
        out[rows] = below[k] + dist[k] / 2
    return np.clip(out, 0.0, 1.0)


def _phi(z: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr
    return ndtr(z)


def normal_mid_percentile(x, mean, var) -> np.ndarray:
    """Mid-percentile of an integer total by the normal approximation with continuity correction:
    ``(Phi((x - 1/2 - mean) / sd) + Phi((x + 1/2 - mean) / sd)) / 2`` (see the module docstring
    for its error). A total with no variance is 0, 1/2 or 1 as it lies below, at or above the mean.

    Args:
        x, mean, var: arrays of one shape (``var >= 0``).

    Returns:
        ``float64`` array in ``[0, 1]``.
    """
    x = np.asarray(x, dtype=np.float64)
    mean = np.asarray(mean, dtype=np.float64)
    var = np.asarray(var, dtype=np.float64)
    sd = np.sqrt(np.maximum(var, 0.0))
    certain = sd < 1e-12
    s = np.where(certain, 1.0, sd)
    p = (_phi((x - 0.5 - mean) / s) + _phi((x + 0.5 - mean) / s)) / 2
    flat = np.where(np.abs(x - mean) < 1e-9, 0.5, np.where(x > mean, 1.0, 0.0))
    return np.clip(np.where(certain, flat, p), 0.0, 1.0)


# --------------------------------------------------------------------------- the games table
def _luck_sides(names, sides) -> list[str]:
    return [s for s in sides if f"luck_dealt_{s}" in names and f"luck_mean_{s}" in names
            and f"luck_var_{s}" in names]


def luck_games(path: str | Path, cell: int | None = None):
    """Each game's luck per side: a pandas DataFrame with ``cell``, ``game_index``, ``winner``,
    ``score_<side>``, ``luck_<side>`` (the mid-percentile), ``luck_method`` (``exact`` or
    ``normal``) and the recorded ``luck_dealt/mean/var_<side>``, one row per game.

    Args:
        path: a sweep directory; cell: only this cell.

    Raises:
        InputError: the sweep's game records no luck (one line naming it), or no such cell;
            SweepStateError: not a readable sweep.
    """
    from ..games import get_game
    from ..results import load_table
    from ..sweeps.manifest import load_manifest

    man = load_manifest(path)
    game_name = man.get("game", "?")
    t = load_table(path)
    names = t.column_names
    cells = sorted({int(c) for c in t.column("cell").to_pylist()}) if "cell" in names else [0]
    if cell is not None and cell not in cells:
        raise InputError(f"--cell {cell}: no such cell in {path} (cells: {', '.join(map(str, cells))})")
    order = list(man.get("sides") or []) + [c[len("luck_dealt_"):] for c in names if c.startswith("luck_dealt_")]
    sides = _luck_sides(names, list(dict.fromkeys(order)))
    if not sides:
        raise InputError(f"{path}: the {game_name} games of this sweep record no dice luck (no luck_* columns: "
                         "a sweep written before luck recording, or a game without it); "
                         "simlab luck reads sweeps of the games whose columns include luck_dealt_<side>")
    df = t.to_pandas()
    if cell is not None:
        df = df[df["cell"] == cell]
    try:
        pmf = get_game(game_name).luck_die_pmf
    except InputError:
        pmf = None
    out = df[[c for c in ("cell", "game_index", "scenario", "winner") if c in df.columns]].copy()
    method = []
    for s in sides:
        ok = df[f"luck_mean_{s}"].notna().to_numpy()
        x = df[f"luck_dealt_{s}"].to_numpy(dtype=np.float64, na_value=np.nan)
        m = df[f"luck_mean_{s}"].to_numpy(dtype=np.float64, na_value=np.nan)
        v = df[f"luck_var_{s}"].to_numpy(dtype=np.float64, na_value=np.nan)
        pct = np.full(len(df), np.nan)
        if pmf is not None and f"luck_dice_{s}" in df.columns:
            n = df[f"luck_dice_{s}"].to_numpy(dtype=np.float64, na_value=np.nan)
            ok = ok & ~np.isnan(n)
            pct[ok] = iid_mid_percentiles(pmf, n[ok].astype(np.int64), x[ok].astype(np.int64))
            method.append("exact")
        else:
            pct[ok] = normal_mid_percentile(x[ok], m[ok], v[ok])
            method.append("normal")
        out[f"score_{s}"] = df[f"score_{s}"].to_numpy(dtype=np.float64, na_value=np.nan)
        out[f"luck_{s}"] = pct
        out[f"luck_dealt_{s}"] = x
        out[f"luck_mean_{s}"] = m
        out[f"luck_var_{s}"] = v
    out["luck_method"] = "exact" if set(method) == {"exact"} else "normal"
    out.attrs.update({"game": game_name, "sides": sides})
    return out.reset_index(drop=True)


# --------------------------------------------------------------------------- the summary
def _r2(y: np.ndarray, X: np.ndarray) -> float | None:
    """R^2 of the least-squares fit of ``y`` on ``X`` plus an intercept (None when ``y`` is constant)."""
    ok = np.isfinite(y) & np.isfinite(X).all(axis=1)
    y, X = y[ok], X[ok]
    if y.size < X.shape[1] + 2:
        return None
    tss = float(((y - y.mean()) ** 2).sum())
    if tss <= 0:
        return None
    A = np.column_stack([np.ones(y.size), X])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    rss = float(((y - A @ coef) ** 2).sum())
    return max(0.0, 1.0 - rss / tss)


def _quintile_rows(luck: np.ndarray, won: np.ndarray, confidence: float) -> list[dict]:
    rows = []
    lo = 0.0
    for q, hi in enumerate(QUINTILES):
        sel = (luck >= lo) & ((luck < hi) if hi < 1.0 else (luck <= hi))
        n = int(sel.sum())
        w = int(won[sel].sum())
        a, b = wilson_interval(np.array([w]), np.array([max(n, 1)]), confidence)
        rows.append({"quintile": q + 1, "luck_from": lo, "luck_to": hi, "games": n, "wins": w,
                     "win_rate": (w / n) if n else None, "ci": [float(a[0]), float(b[0])] if n else None})
        lo = hi
    return rows


def luck_summary(path: str | Path, cell: int | None = None, confidence: float = 0.95) -> dict[str, Any]:
    """How lucky each side was and how much of the result luck explains, per cell.

    Returns:
        ``{"game", "sides", "method", "cells": [{"cell", "games", "scenario", "sides": {side:
        {"mean_luck", "win_rate", "quintiles": [{"quintile", "luck_from", "luck_to", "games",
        "wins", "win_rate", "ci"}], "r2_score"}}, "r2_margin", "corr_luck_margin"}]}``, where
        ``r2_margin`` is the R^2 of the first side's score less the second's on both sides' luck
        percentiles and ``r2_score`` that of the side's own score (None where undefined).

    Raises:
        InputError, SweepStateError: as :func:`luck_games`.
    """
    df = luck_games(path, cell)
    sides = df.attrs["sides"]
    res: dict[str, Any] = {"game": df.attrs["game"], "sides": sides,
                           "method": str(df["luck_method"].iloc[0]) if len(df) else "normal", "cells": []}
    for c, d in df.groupby("cell", sort=True):
        # the sides of this cell (a sweep over several battle files may have other sides per cell)
        cs = [s for s in sides if d[f"luck_{s}"].notna().any()]
        L = np.column_stack([d[f"luck_{s}"].to_numpy(dtype=np.float64) for s in cs]) if cs else np.empty((len(d), 0))
        entry: dict[str, Any] = {"cell": int(c), "games": int(len(d)),
                                 "scenario": str(d["scenario"].iloc[0]) if "scenario" in d else "", "sides": {}}
        for k, s in enumerate(cs):
            luck = L[:, k]
            won = (d["winner"].astype(str).to_numpy() == s) if "winner" in d else np.zeros(len(d), bool)
            ok = np.isfinite(luck)
            entry["sides"][s] = {
                "mean_luck": float(luck[ok].mean()) if ok.any() else None,
                "win_rate": float(won[ok].mean()) if ok.any() else None,
                "quintiles": _quintile_rows(luck[ok], won[ok], confidence),
                "r2_score": _r2(d[f"score_{s}"].to_numpy(dtype=np.float64), L),
            }
        if len(cs) >= 2:
            margin = (d[f"score_{cs[0]}"] - d[f"score_{cs[1]}"]).to_numpy(dtype=np.float64)
            entry["r2_margin"] = _r2(margin, L)
            diff = L[:, 0] - L[:, 1]
            ok = np.isfinite(diff) & np.isfinite(margin)
            sd = float(np.std(diff[ok])) * float(np.std(margin[ok])) if ok.sum() > 2 else 0.0
            entry["corr_luck_margin"] = (float(np.corrcoef(diff[ok], margin[ok])[0, 1]) if sd > 0 else None)
        res["cells"].append(entry)
    return res


# --------------------------------------------------------------------------- the plot
def luck_figure(summary: dict, cell: int | None = None):
    """Win rate by luck quintile (each side, with its Wilson interval) for one cell of
    :func:`luck_summary` (the first when ``cell`` is None); the title gives the R^2 of the margin.

    Returns:
        A :class:`matplotlib.figure.Figure`.

    Raises:
        InputError: no such cell in the summary.
    """
    from matplotlib.figure import Figure

    cells = {c["cell"]: c for c in summary["cells"]}
    if not cells:
        raise InputError("luck: nothing to plot (no games)")
    c = cells[min(cells)] if cell is None else cells.get(cell)
    if c is None:
        raise InputError(f"--cell {cell}: no such cell (cells: {', '.join(map(str, sorted(cells)))})")
    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(1, len(QUINTILES) + 1)
    sides = list(c["sides"])
    width = 0.8 / max(1, len(sides))
    for k, s in enumerate(sides):
        qs = c["sides"][s]["quintiles"]
        rate = np.array([q["win_rate"] if q["win_rate"] is not None else np.nan for q in qs])
        lo = np.array([q["ci"][0] if q["ci"] else np.nan for q in qs])
        hi = np.array([q["ci"][1] if q["ci"] else np.nan for q in qs])
        xs = x + (k - (len(sides) - 1) / 2) * width
        ax.bar(xs, rate, width=width * 0.9, label=f"{s} (its own luck)")
        ax.errorbar(xs, rate, yerr=[np.clip(rate - lo, 0, None), np.clip(hi - rate, 0, None)], fmt="none",
                    ecolor="black", capsize=3, lw=1)
    ax.set_xticks(x, [f"{int(100 * a)}-{int(100 * b)}" for a, b in zip((0.0,) + QUINTILES[:-1], QUINTILES, strict=True)])
    ax.set_xlabel("the side's dice luck (percentile of the damage its dice dealt)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    r2 = c.get("r2_margin")
    tail = f"\nluck explains R² = {r2:.2f} of the variance of the score margin" if r2 is not None else ""
    ax.set_title(f"{summary['game']} / {c['scenario']} (cell {c['cell']}, {c['games']:,} games){tail}", fontsize=9)
    ax.legend(fontsize=8)
    return fig
