"""Exact values of ``signal-rounds`` by enumeration (the test oracle; no simulation).

Red's information at a round is the score (which fixes the round) and the signal: four scores times
two signals are eight information sets, so red has ``2**8 = 256`` pure strategies. :func:`best_response`
tries every one against a blue ``guard`` policy and returns the best, with its exact payoff; the knob
family ``habit`` is a one-parameter subset of red's mixed strategies, and :func:`family_best` is its
exact best (on a fine grid of ``aim``, the payoff being smooth in it).
"""

from __future__ import annotations

import itertools

import numpy as np

#: red's chance of winning a round, ``[hit, guarded]`` (the game's ``win`` table)
WIN = np.array([[0.3, 0.1], [0.9, 0.6]])
SCORES = ((0, 0), (1, 0), (0, 1), (1, 1))


def _round(a_dist: np.ndarray, s: int, press: float) -> float:
    """Red's chance of winning a round with signal ``s`` when it aims at 1 with probability
    ``a_dist[1]`` (and 0 with ``a_dist[0]``) and blue guards 1 with probability ``press``."""
    pb = (1.0 - press, press)
    return sum(a_dist[a] * pb[b] * WIN[int(a == s), int(b == a)] for a in (0, 1) for b in (0, 1))


def red_value(aim_of, press: float) -> float:
    """Exact payoff (red's win rate minus blue's) of red against ``guard`` with ``press``.

    Args:
        aim_of: ``(red's wins, blue's wins, signal) -> probability red aims at 1``.
        press: blue's knob.

    Returns:
        ``2 P(red wins) - 1``.
    """
    V = {}
    for r, b in ((1, 1), (0, 1), (1, 0), (0, 0)):
        v = 0.0
        for s in (0, 1):
            p1 = float(aim_of(r, b, s))
            q = _round(np.array([1.0 - p1, p1]), s, press)
            win = 1.0 if r + 1 == 2 else V[(r + 1, b)]
            lose = 0.0 if b + 1 == 2 else V[(r, b + 1)]
            v += 0.5 * (q * win + (1.0 - q) * lose)
        V[(r, b)] = v
    return 2.0 * V[(0, 0)] - 1.0


def habit_value(aim: float, press: float) -> float:
    """Exact payoff of red's ``habit`` (knob ``aim``) against blue's ``guard`` (knob ``press``)."""
    return red_value(lambda r, b, s: aim, press)


def best_response(press: float) -> tuple[float, dict]:
    """Red's exact best response to ``guard`` (``press``): ``(payoff, {(r, b, s): aim})`` over all
    256 pure strategies (ties: the first in enumeration order)."""
    keys = [(r, b, s) for r, b in SCORES for s in (0, 1)]
    best, arg = -2.0, None
    for bits in itertools.product((0, 1), repeat=len(keys)):
        plan = dict(zip(keys, bits, strict=True))
        v = red_value(lambda r, b, s, plan=plan: plan[(r, b, s)], press)
        if v > best + 1e-15:
            best, arg = v, plan
    return best, arg


def family_best(press: float, steps: int = 10001) -> tuple[float, float]:
    """The best ``habit`` knob against ``guard`` (``press``): ``(payoff, aim)`` on a grid of ``steps``."""
    aims = np.linspace(0.0, 1.0, steps)
    vals = [habit_value(x, press) for x in aims]
    k = int(np.argmax(vals))
    return float(vals[k]), float(aims[k])
