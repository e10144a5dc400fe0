"""Zero-sum games over scripted policies, solved by linear programming (``scipy.optimize.linprog``).

The row player (the first side) picks a mix ``x`` of its policies to maximise its guaranteed
payoff ``v``; the column player (the second side) picks ``y`` to minimise what it concedes:

    max v  s.t.  A^T x >= v,  sum(x) = 1,  x >= 0        (and symmetrically for y)

By the minimax theorem both programs give the same value. ``simlab meta`` uses as payoff the
first side's win rate minus the second side's (draws count 0), so a value of 0 means the game is
balanced when both sides play their best mixes of the scripted policies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

__all__ = ["Equilibrium", "game_value", "solve_zero_sum"]


@dataclass(frozen=True)
class Equilibrium:
    """The solution of a two-player zero-sum matrix game.

    Attributes:
        value: the row player's payoff at equilibrium.
        row_mix: ``ndarray(float64, shape=(m,))``, the row player's optimal mix (sums to 1).
        col_mix: ``ndarray(float64, shape=(n,))``, the column player's optimal mix.
    """

    value: float
    row_mix: np.ndarray
    col_mix: np.ndarray


def _maximin(a: np.ndarray) -> tuple[float, np.ndarray]:
    m, n = a.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-a.T, np.ones((n, 1))])
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    bounds = [(0, None)] * m + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if res.status != 0:  # pragma: no cover - a finite matrix game always has a solution
        raise RuntimeError(f"linprog failed: {res.message}")
    x = np.clip(res.x[:m], 0.0, None)
    return float(res.x[-1]), x / x.sum()


def solve_zero_sum(payoff) -> Equilibrium:
    """Equilibrium mixes and value of a zero-sum game.

    Args:
        payoff: ``array_like(float, shape=(m, n))``, the row player's payoff when it plays ``i``
            and the column player ``j`` (the column player receives its negative).

    Returns:
        An :class:`Equilibrium`.

    Raises:
        ValueError: if the matrix is empty, not 2-D or not finite.
    """
    a = np.asarray(payoff, dtype=np.float64)
    if a.ndim != 2 or a.size == 0:
        raise ValueError(f"the payoff must be a non-empty 2-D matrix (got shape {a.shape})")
    if not np.isfinite(a).all():
        raise ValueError("the payoff matrix has non-finite entries")
    v, x = _maximin(a)
    w, y = _maximin(-a.T)
    # the two programs agree up to the solver's tolerance; report the row player's value
    del w
    return Equilibrium(v, x, y)


def game_value(payoff) -> float:
    """The value of a zero-sum game alone (one linear program instead of two: for bootstraps).

    Args:
        payoff: as :func:`solve_zero_sum`.

    Raises:
        ValueError: as :func:`solve_zero_sum`.
    """
    a = np.asarray(payoff, dtype=np.float64)
    if a.ndim != 2 or a.size == 0:
        raise ValueError(f"the payoff must be a non-empty 2-D matrix (got shape {a.shape})")
    if not np.isfinite(a).all():
        raise ValueError("the payoff matrix has non-finite entries")
    return _maximin(a)[0]
