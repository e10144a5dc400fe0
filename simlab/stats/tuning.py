"""Fitting win rate against a numeric option and inverting it: the fair value of a handicap or bid.

Two questions are answered:

* **equal win rates** (two sides): the option value where both sides win equally often. Draws do
  not matter for it: ``P(A wins) = P(B wins)`` exactly when ``P(A wins | the game is decided) =
  1/2``, so the curve is fitted to the decided games only;
* **a target**: the value where one side's win rate equals ``target`` (draws count as not won).

Fits (``fit``):

* ``isotonic``: a monotone fit (``scipy.optimize.isotonic_regression``, weighted by games),
  inverted by linear interpolation between the option values — no shape assumed;
* ``logistic``: the isotonic fit first brackets the root; then a binomial logistic regression
  ``logit p = a + b x`` (maximum likelihood, ``scipy.optimize.minimize``) over the
  :data:`WINDOW` values on each side of it is inverted in closed form ``x = (logit(t) - a) / b``.
  Fitting only near the root keeps a curve that is not logistic over the whole range (a win
  rate that saturates, a round limit that bites only at small values) from biasing the root.

Intervals come from a bootstrap over games: with common random numbers, game ``i`` of every
option value shares its dice, so the outcomes of one game index across all values form one
resampling unit (a cluster). :func:`pattern_counts` compresses the outcome matrix into its
distinct columns, so a replicate is one multinomial draw over those patterns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import isotonic_regression, minimize
from scipy.special import expit, logit

__all__ = ["FITS", "WINDOW", "Curve", "bootstrap_roots", "estimate_root", "fit_curve", "pattern_counts",
           "rates_from_patterns"]

FITS = ("logistic", "isotonic")
#: option values on each side of the bracketed root that the local logistic fit uses
WINDOW = 2
MISSING = -2


@dataclass(frozen=True)
class Curve:
    """A fitted win-probability curve.

    Attributes:
        fit: ``"logistic"`` or ``"isotonic"``.
        x: option values the fit used, ``float64[v]`` ascending.
        fitted: fitted probabilities at ``x``.
        params: ``(a, b)`` for the logistic fit, ``None`` for the isotonic one.
    """

    fit: str
    x: np.ndarray
    fitted: np.ndarray
    params: tuple[float, float] | None

    def __call__(self, x) -> np.ndarray:
        """The fitted probability at ``x`` (isotonic: linear interpolation, flat outside)."""
        xx = np.asarray(x, dtype=np.float64)
        if self.params is not None:
            a, b = self.params
            return expit(a + b * xx)
        return np.interp(xx, self.x, self.fitted)

    def root(self, target: float, lo: float | None = None, hi: float | None = None,
             bounded: bool = True) -> float | None:
        """The option value where the curve equals ``target``.

        Args:
            target: probability in ``(0, 1)``.
            lo, hi: the range the root must lie in (default: the fitted values' range).
            bounded: with True, None when the curve does not reach ``target`` in ``[lo, hi]``;
                with False, the logistic root wherever it lies, and ``-inf``/``+inf`` when the
                isotonic curve stays on one side of ``target`` (the side the root lies beyond).
        """
        lo = float(self.x[0]) if lo is None else lo
        hi = float(self.x[-1]) if hi is None else hi
        if self.params is not None:
            a, b = self.params
            if not np.isfinite(b) or abs(b) < 1e-12:
                return None
            r = (float(logit(target)) - a) / b
            return r if (not bounded or lo <= r <= hi) else None
        f = self.fitted - target
        if np.all(f > 0) or np.all(f < 0):
            if bounded:
                return None
            rising = self.fitted[-1] >= self.fitted[0]
            above = bool(np.all(f > 0))
            return -np.inf if above == rising else np.inf
        zero = np.flatnonzero(f == 0)
        if zero.size:
            return float(self.x[zero].mean())
        k = int(np.flatnonzero(np.sign(f[:-1]) != np.sign(f[1:]))[0])
        x0, x1, f0, f1 = self.x[k], self.x[k + 1], f[k], f[k + 1]
        return float(x0 - f0 * (x1 - x0) / (f1 - f0))


def _logistic_mle(x, k, n, start=None) -> tuple[float, float]:
    # mean binomial log-likelihood per game, with a very weak ridge (1e-9) so that perfectly
    # separated data (every game won on one side of some value) keep finite estimates
    keep = n > 0
    x, k, n = x[keep], k[keep], n[keep]
    scale = max(float(np.ptp(x)), 1e-12)
    centre = float(x.mean())
    z = (x - centre) / scale
    total = float(n.sum())

    def nll(t):
        eta = t[0] + t[1] * z
        ll = k * eta - n * np.logaddexp(0.0, eta)
        return -ll.sum() / total + 1e-9 * (t[0] ** 2 + t[1] ** 2)

    def grad(t):
        eta = t[0] + t[1] * z
        r = k - n * expit(eta)
        return np.array([-r.sum(), -(r * z).sum()]) / total + 2e-9 * t

    t0 = np.zeros(2) if start is None else np.array([start[0] + start[1] * centre, start[1] * scale])
    res = minimize(nll, t0, jac=grad, method="BFGS", options={"gtol": 1e-9})
    a, b = res.x
    return float(a - b * centre / scale), float(b / scale)


def fit_curve(x, successes, trials, fit: str = "logistic", start=None) -> Curve:
    """Fit a win-probability curve to counts at several option values.

    Args:
        x: ``array_like(float, shape=(v,))`` option values (any order, distinct).
        successes: ``array_like(int, shape=(v,))`` wins (or decided games won) at each value.
        trials: ``array_like(int, shape=(v,))`` games (or decided games) at each value.
        fit: one of :data:`FITS`.
        start: ``(a, b)`` to start the logistic fit from.

    Returns:
        A :class:`Curve` (values sorted ascending).

    Raises:
        ValueError: on an unknown fit, fewer than two values with games, or mismatched shapes.
    """
    if fit not in FITS:
        raise ValueError(f"unknown fit {fit!r} (fits: {', '.join(FITS)})")
    xv = np.asarray(x, dtype=np.float64)
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    if not (xv.shape == k.shape == n.shape) or xv.ndim != 1:
        raise ValueError("x, successes and trials must be 1-D arrays of one length")
    if int((n > 0).sum()) < 2:
        raise ValueError("a curve needs games at two option values at least")
    order = np.argsort(xv)
    xv, k, n = xv[order], k[order], n[order]
    if fit == "logistic":
        a, b = _logistic_mle(xv, k, n, start)
        return Curve(fit, xv, expit(a + b * xv), (a, b))
    keep = n > 0
    xv, k, n = xv[keep], k[keep], n[keep]
    p = k / n
    # direction from the weighted correlation of rate and value
    inc = float(np.sum(n * (xv - np.average(xv, weights=n)) * (p - np.average(p, weights=n)))) >= 0
    res = isotonic_regression(p, weights=n, increasing=inc)
    return Curve(fit, xv, np.asarray(res.x, dtype=np.float64), None)


def pattern_counts(outcomes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Compress an outcome matrix into its distinct per-game patterns.

    Args:
        outcomes: ``ndarray(int8, shape=(v, g))``: the winner of game index ``j`` at option value
            ``i`` (side index, ``-1`` draw, ``-2`` not played).

    Returns:
        ``(patterns, counts)``: ``int8[v, p]`` distinct columns and ``int64[p]`` how many game
        indices show each.
    """
    y = np.asarray(outcomes, dtype=np.int8)
    pats, counts = np.unique(y, axis=1, return_counts=True)
    return pats, counts.astype(np.int64)


def rates_from_patterns(patterns: np.ndarray, weights: np.ndarray, side: int | None,
                        decided_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """Successes and trials per option value for pattern weights (one row per replicate).

    Args:
        patterns: ``int8[v, p]`` from :func:`pattern_counts`.
        weights: ``int64[p]`` or ``int64[r, p]`` game counts per pattern.
        side: the side whose wins count; with ``decided_only`` it is the side whose share of the
            decided games is counted.
        decided_only: count only decided games as trials.

    Returns:
        ``(successes, trials)``, each ``float64[v]`` or ``float64[r, v]``.
    """
    w = np.asarray(weights, dtype=np.float64)
    played = (patterns != MISSING).astype(np.float64)
    won = (patterns == side).astype(np.float64)
    trial = ((patterns >= 0).astype(np.float64) if decided_only else played)
    return w @ won.T, w @ trial.T


def estimate_root(x, successes, trials, target: float, fit: str = "logistic", window: int = WINDOW,
                  bounded: bool = True) -> tuple[float | None, Curve | None]:
    """The option value where the win probability equals ``target``.

    The isotonic fit brackets the root; with ``fit="logistic"`` a logistic curve fitted to the
    ``window`` values on each side of the bracket gives the root (the isotonic root is kept when
    the local fit is flat or puts its root outside the values played).

    Args:
        x, successes, trials: as for :func:`fit_curve`.
        target: probability in ``(0, 1)``.
        fit: one of :data:`FITS`.
        window: values on each side of the bracket for the logistic fit (``>= 1``).
        bounded: with True, None when the curve does not reach ``target`` between the smallest
            and largest value; with False, ``-inf``/``+inf`` for the side the root lies beyond.

    Returns:
        ``(root, curve)``: the root (None or ±inf as above) and the curve it came from (the local
        logistic one, or the isotonic one), or ``(None, None)`` when no curve can be fitted.
    """
    xv = np.asarray(x, dtype=np.float64)
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    try:
        iso = fit_curve(xv, k, n, "isotonic")
    except ValueError:
        return None, None
    r_iso = iso.root(target, bounded=False)
    if r_iso is None or not np.isfinite(r_iso) or fit == "isotonic":
        if bounded and r_iso is not None and not np.isfinite(r_iso):
            return None, iso
        return r_iso, iso
    xs = iso.x
    sel_x = np.concatenate([xs[xs <= r_iso][-window:], xs[xs > r_iso][:window]])
    keep = np.isin(xv, sel_x) & (n > 0)
    if keep.sum() < 2:
        return r_iso, iso
    try:
        c = fit_curve(xv[keep], k[keep], n[keep], "logistic")
    except ValueError:
        return r_iso, iso
    r = c.root(target, bounded=False)
    if r is None or not xs[0] <= r <= xs[-1]:
        return r_iso, iso
    return r, c


def bootstrap_roots(patterns: np.ndarray, counts: np.ndarray, x: np.ndarray, side: int, target: float,
                    decided_only: bool, fit: str, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """Roots of bootstrap replicates (game indices resampled with their whole pattern).

    Args:
        patterns, counts: from :func:`pattern_counts` (rows follow ``x``).
        x: ``float64[v]`` option values.
        side, target, decided_only: what is fitted (see :func:`rates_from_patterns`).
        fit: one of :data:`FITS` (as :func:`estimate_root` uses it).
        replicates: number of bootstrap replicates.
        rng: a ``numpy.random.Generator`` (the caller seeds it).

    Returns:
        ``float64[replicates]``: each replicate's root, ``-inf``/``+inf`` when its curve stays on
        one side of ``target`` (the root lies below / above the values played), NaN where no
        curve could be fitted.
    """
    total = int(counts.sum())
    w = rng.multinomial(total, counts / total, size=replicates)
    k, n = rates_from_patterns(patterns, w, side, decided_only)
    out = np.full(replicates, np.nan)
    for r in range(replicates):
        root, _ = estimate_root(x, k[r], n[r], target, fit, bounded=False)
        if root is not None:
            out[r] = root
    return out
