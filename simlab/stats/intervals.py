"""Confidence intervals for win rates.

The Wilson score interval is computed by SciPy (``scipy.stats.binomtest(...).proportion_ci``);
:func:`wilson_interval` is a vectorised closed form of the same interval for many cells at once,
checked against SciPy in the tests.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mean_se", "wilson_half_width", "wilson_interval", "wilson_scipy"]


def wilson_scipy(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of ``wins`` successes in ``games`` trials, from SciPy.

    Raises:
        ValueError: if ``games < 1`` or ``wins`` is outside ``0..games``.
    """
    from scipy import stats
    ci = stats.binomtest(int(wins), int(games)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def wilson_interval(wins, games, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised Wilson score interval.

    Args:
        wins: ``array_like(int)`` successes.
        games: ``array_like(int)`` trials, ``>= 1``, broadcastable with ``wins``.
        confidence: two-sided level in ``(0, 1)``.

    Returns:
        ``(low, high)`` as ``ndarray(float64)`` in ``[0, 1]``.

    Raises:
        ValueError: if any ``games < 1`` or ``wins`` is outside ``0..games``.
    """
    k = np.asarray(wins, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    if np.any(n < 1) or np.any(k < 0) or np.any(k > n):
        raise ValueError("need 0 <= wins <= games and games >= 1")
    z = _z(confidence)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # at k = 0 (k = n) the bound is exactly 0 (1); the formula leaves float noise of about 1e-17
    low = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(k == n, 1.0, np.clip(centre + half, 0.0, 1.0))
    return low, high


#: ``scipy.stats.norm.ppf(0.5 + c / 2)`` of the usual levels, as SciPy computes them: a sweep's
#: report needs only these, and importing scipy.stats costs about a second of start-up
_Z = {0.8: 1.2815515655446004, 0.9: 1.6448536269514722, 0.95: 1.959963984540054, 0.99: 2.5758293035489004,
      0.999: 3.2905267314919255}


def _z(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (SciPy's value; from :data:`_Z` when listed)."""
    if confidence in _Z:
        return _Z[confidence]
    from scipy import stats
    return float(stats.norm.ppf(0.5 + confidence / 2))


def wilson_half_width(wins, games, confidence: float = 0.95) -> np.ndarray:
    """Half the width of the Wilson interval (the precision a sweep can target)."""
    lo, hi = wilson_interval(wins, games, confidence)
    return (hi - lo) / 2


def mean_se(values) -> tuple[float, float]:
    """Mean and standard error of the mean (``ddof=1``; SE is 0 for fewer than two values)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return float("nan"), float("nan")
    se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0
    return float(v.mean()), se
