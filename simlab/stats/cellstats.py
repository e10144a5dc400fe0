"""Per-cell statistics of a sweep that add up chunk by chunk, exactly.

A sweep's report (win rates, scores, game lengths, end reasons per cell) needs only a few counts
and sums of each cell's games. :func:`part_stats` computes them for one chunk's games (in the
worker that played them, or from a Parquet part read back), :func:`merge` adds two of them, and
:func:`cell_record` turns a cell's total into the report's row. Memory holds one chunk at a time,
however many games a cell has.

Every figure is exact and does not depend on how the games were chunked or in which order the
chunks finished: counts are integers; sums of scores and of their squares are exact rationals
(each float64 value is an integer over a power of two, kept as integers over ``2**k``); game lengths
are kept as a value → count table, from which the quantiles are NumPy's ``linear`` quantiles of
the sorted sample (:func:`quantiles_from_counts`, equal to ``np.quantile`` bit for bit). Means are
the exact sum divided by ``n``, correctly rounded; standard deviations use the exact sum of squared
deviations (they may differ from NumPy's two-pass ``std`` in the last bit).

A stats object is a plain dict (picklable, a few hundred bytes), so worker processes and Dask
workers send it back with a chunk's summary::

    {"games": n, "wins": {label: count}, "turns": {value: count},
     "scores": {side: [s1, s2, k]}, "reasons": {label: count} | None}

``wins`` counts the winner labels (the side names and ``draw``); ``scores[side]`` holds the exact
sum ``s1 / 2**k`` and sum of squares ``s2 / 2**(2k)`` (``None`` once a non-finite score is seen);
``reasons`` counts the ``end_reason`` labels (None when the game writes none).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .intervals import wilson_interval
from .paired import PairedTable, paired_difference

__all__ = ["cell_record", "counts_of", "exact_sums", "length_from_counts", "merge", "part_stats", "quantiles_from_counts",
           "side_advantage_of_counts"]

#: the game-length quantiles a report gives
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def exact_sums(x) -> list[int] | None:
    """``[s1, s2, k]``: the exact sum ``s1 / 2**k`` and sum of squares ``s2 / 2**(2k)`` of ``x``.

    Args:
        x: ``array_like(float or int)``, shape ``(n,)``.

    Returns:
        Integers ``[s1, s2, k]`` (``[0, 0, 0]`` for an empty array), or None when ``x`` holds a NaN
        or an infinity (a mean of those is not a number).
    """
    a = np.asarray(x)
    if a.size == 0:
        return [0, 0, 0]
    if a.dtype.kind in "iub" and a.size < 2**31:
        i = a.astype(np.int64)
        m = int(np.abs(i).max())
        if m < 2**16:  # squares below 2**32, their sum below 2**63
            return [int(i.sum()), int((i * i).sum()), 0]
    f = a.astype(np.float64)
    if not np.isfinite(f).all():
        return None
    if a.size < 2**31 and np.abs(f).max() < 2**16 and np.array_equal(f, np.rint(f)):
        i = f.astype(np.int64)
        return [int(i.sum()), int((i * i).sum()), 0]
    v, c = np.unique(f, return_counts=True)
    return _sums_of_counts(v, c)


def _sums_of_counts(values, counts) -> list[int]:
    """``[s1, s2, k]`` of a sample given as distinct finite values and their counts."""
    ratios = [float(v).as_integer_ratio() for v in values]
    k = max(d.bit_length() - 1 for _, d in ratios)  # every denominator is a power of two
    s1 = s2 = 0
    for (num, den), c in zip(ratios, counts, strict=True):
        sh = k - (den.bit_length() - 1)
        s1 += int(c) * (num << sh)
        s2 += int(c) * ((num * num) << (2 * sh))
    return [s1, s2, k]


def _add_sums(a: list[int] | None, b: list[int] | None) -> list[int] | None:
    if a is None or b is None:
        return None
    k = max(a[2], b[2])
    return [(a[0] << (k - a[2])) + (b[0] << (k - b[2])), (a[1] << 2 * (k - a[2])) + (b[1] << 2 * (k - b[2])), k]


def _mean_sd(sums: list[int] | None, n: int) -> tuple[float, float]:
    """Mean and sample standard deviation (``ddof=1``; 0 for one value) from exact sums."""
    if sums is None:
        return math.nan, math.nan
    s1, s2, k = sums
    mean = float(Fraction(s1, n << k))
    if n < 2:
        return mean, 0.0
    var = Fraction(n * s2 - s1 * s1, (n * (n - 1)) << (2 * k))
    return mean, math.sqrt(float(var))


def part_stats(wins: dict, turns, scores: dict, reasons: dict | None = None) -> dict:
    """The stats of one chunk's games of one cell (see the module docstring).

    Args:
        wins: ``{label: count}`` of the winner labels (side names, ``draw``), counts summing to ``n``.
        turns: ``array_like(int or float)`` game lengths, shape ``(n,)``.
        scores: ``{side: array_like(float)}`` each shape ``(n,)``, as written (float32 stays float32:
            its values are exact in float64).
        reasons: ``{label: count}`` of the ``end_reason`` labels, or None when the game writes none.

    Raises:
        ValueError: if the lengths disagree.
    """
    n = int(sum(wins.values()))
    if len(turns) != n or any(len(v) != n for v in scores.values()) or (
            reasons is not None and sum(reasons.values()) != n):
        raise ValueError("part_stats: winner counts, turns, scores and reasons need the same number of games")
    return {"games": n, "wins": {str(k): int(v) for k, v in wins.items() if v},
            "turns": counts_of(turns), "scores": {s: exact_sums(v) for s, v in scores.items()},
            "reasons": None if reasons is None else {str(k): int(v) for k, v in reasons.items() if v}}


def counts_of(values) -> dict:
    """``{value: count}`` of an array (numbers as float keys, strings as they are)."""
    v, c = np.unique(np.asarray(values), return_counts=True)
    return {_key(x): int(k) for x, k in zip(v.tolist(), c.tolist(), strict=True)}


def _key(x):
    return x if isinstance(x, str) else float(x)


def merge(a: dict | None, b: dict) -> dict:
    """The stats of two disjoint sets of one cell's games (``a`` may be None: nothing yet). ``b``
    may have crossed JSON (a retried chunk's summary): its game lengths keyed by strings."""
    turns = {float(k): int(v) for k, v in b["turns"].items()}
    if a is None:
        return {"games": b["games"], "wins": dict(b["wins"]), "turns": turns,
                "scores": dict(b["scores"]), "reasons": None if b["reasons"] is None else dict(b["reasons"])}
    out = {"games": a["games"] + b["games"], "wins": _add_counts(a["wins"], b["wins"]),
           "turns": _add_counts(a["turns"], turns),
           "scores": {s: _add_sums(a["scores"].get(s, [0, 0, 0]), v) for s, v in b["scores"].items()}}
    for s, v in a["scores"].items():
        out["scores"].setdefault(s, v)
    ra, rb = a["reasons"], b["reasons"]
    out["reasons"] = None if ra is None and rb is None else _add_counts(ra or {}, rb or {})
    return out


def _add_counts(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def quantiles_from_counts(values, counts, qs=QUANTILES) -> list[float]:
    """NumPy's default (``linear``) quantiles of the sample holding ``counts[i]`` copies of
    ``values[i]``, without building it: equal to ``np.quantile(sample.astype(float64), qs)``.

    Args:
        values: ``array_like`` of distinct values, ascending; counts: ``array_like(int)`` > 0, same shape.
        qs: quantile levels in [0, 1].
    """
    v = np.asarray(values, dtype=np.float64)
    cum = np.cumsum(np.asarray(counts, dtype=np.int64))
    n = int(cum[-1])
    out = []
    for q in qs:
        virtual = np.float64(n - 1) * np.float64(q)  # numpy: (n - 1) * quantiles, then floor
        prev = np.floor(virtual)
        if virtual >= n - 1:
            a = b = v[-1]
            gamma = np.float64(0.0)
        else:
            i = int(prev)
            a = v[np.searchsorted(cum, i, side="right")]
            b = v[np.searchsorted(cum, i + 1, side="right")]
            gamma = virtual - prev
        diff = b - a  # numpy's _lerp: a + diff * t, or b - diff * (1 - t) where t >= 0.5
        out.append(float(b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma))
    return out


def length_from_counts(counts: dict) -> dict:
    """:func:`simlab.results.length_distribution` of a sample given as ``{value: count}``."""
    vals = np.array(sorted(counts), dtype=np.float64)
    cnt = np.array([counts[v] for v in sorted(counts)], dtype=np.int64)
    n = int(cnt.sum())
    mean, sd = _mean_sd(_sums_of_counts(vals, cnt), n)
    q = quantiles_from_counts(vals, cnt)
    lo, hi = int(vals[0]), int(vals[-1])
    edges = np.arange(lo, hi + 2) if hi - lo + 1 <= 40 else np.linspace(lo, hi + 1, 21)
    hist, _ = np.histogram(vals, bins=edges, weights=cnt)
    return {"mean": mean, "sd": sd, "min": lo,
            "p10": q[0], "p25": q[1], "median": q[2], "p75": q[3], "p90": q[4],
            "max": hi, "edges": [float(e) for e in edges], "counts": [int(c) for c in hist]}


def reason_rates(counts: dict, confidence: float = 0.95) -> dict:
    """``{label: {count, rate, ci}}`` of ``{label: count}``, most frequent first (ties by label)."""
    labels = sorted(counts)
    n = sum(counts.values())
    out = {}
    for lab in sorted(labels, key=lambda x: -counts[x]):  # stable: ties keep label order
        k = int(counts[lab])
        lo, hi = wilson_interval(k, n, confidence)
        out[str(lab)] = {"count": k, "rate": k / n, "ci": [float(lo), float(hi)]}
    return out


def side_advantage_of_counts(wins: dict, n: int, sides, confidence: float = 0.95) -> dict | None:
    """First side's win rate minus the second's with Newcombe's paired interval (two sides only).

    Args:
        wins: ``{label: count}`` of one cell's winner labels (side names, ``draw``).
        n: the cell's games (``n >= 1``).
        sides: the side names.
        confidence: interval level.

    Returns:
        ``{sides: [a, b], favoured, difference, ci: [low, high]}`` or None for other than two
        sides; ``favoured`` is the side ahead when the interval excludes 0, else None. A game has
        one winner, so the paired table is (0, wins of a, wins of b, the rest).
    """
    if len(sides) != 2:
        return None
    a, b = int(wins.get(sides[0], 0)), int(wins.get(sides[1], 0))
    d, lo, hi = paired_difference(PairedTable(0, a, b, n - a - b), confidence)
    fav = sides[0] if lo > 0 else (sides[1] if hi < 0 else None)
    return {"sides": list(sides), "favoured": fav, "difference": d, "ci": [lo, hi]}


def cell_record(cell: int, params: dict, status: str, stats: dict, sides, confidence: float = 0.95,
                exploitability: dict | None = None) -> dict:
    """One cell's row of :func:`simlab.results.report` from its stats (a cell with games)."""
    n = stats["games"]
    wins = stats["wins"]
    draws = int(wins.get("draw", 0))
    dlo, dhi = wilson_interval(draws, n, confidence)
    turns = length_from_counts(stats["turns"])
    rec = {"cell": int(cell), "params": params, "status": status, "games": n, "draws": draws,
           "draw_rate": draws / n, "draw_ci": [float(dlo), float(dhi)], "mean_turns": turns["mean"], "sides": {}}
    for s in sides:
        k = int(wins.get(s, 0))
        lo, hi = wilson_interval(k, n, confidence)
        mean, sd = _mean_sd(stats["scores"].get(s), n)
        rec["sides"][s] = {"wins": k, "win_rate": k / n, "ci": [float(lo), float(hi)],
                           "mean_score": mean, "score_se": float(sd / np.sqrt(n)) if n > 1 else 0.0}
    rec["side_advantage"] = side_advantage_of_counts(wins, n, sides, confidence)
    rec["turns"] = turns
    rec["end_reasons"] = {} if stats["reasons"] is None else reason_rates(stats["reasons"], confidence)
    rec["exploitability"] = (exploitability or {}).get(int(cell), {})
    return rec
