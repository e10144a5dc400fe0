"""Dice luck of Dawn of Empire gunfire, for ``simlab luck`` (Rule 8.3.2).

Every gunfire die of a battle (both ``doe-battle`` and the campaign's battles) is one draw of the
same distribution: a 6 hits and rolls a damage die, so the damage points one die deals are 0 with
probability 30/36 and ``k`` with probability 1/36 for ``k = 1..6`` (a 5 disables but deals no
damage; leader-casualty and disengagement dice are not gunfire). The kernels count each side's
dice and the damage points they dealt (:func:`simlab.games.doe.kernels.battle_nb`, ``work[W_DICE]``
and ``work[W_DMG]``); :func:`luck_columns` turns the counts into the games-table columns every luck
recording game writes, and ``DIE_DAMAGE_PMF`` lets :mod:`simlab.analysis.luck` give the exact
percentile (the ``n``-fold convolution of one die) instead of a normal approximation.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["DIE_DAMAGE_PMF", "DIE_MEAN", "DIE_VAR", "luck_columns"]

#: P(damage points = k) of one gunfire die, k = 0..6 (Rule 8.3.2: a 6, then a damage die)
DIE_DAMAGE_PMF = tuple(float(Fraction(30, 36)) if k == 0 else float(Fraction(1, 36)) for k in range(7))
#: mean damage points of one die: 21/36 = 7/12
DIE_MEAN = float(Fraction(21, 36))
#: variance of one die: 91/36 - (7/12)**2 = 315/144
DIE_VAR = float(Fraction(91, 36) - Fraction(7, 12) ** 2)


def luck_columns(sides, dice: np.ndarray, dealt: np.ndarray) -> dict[str, np.ndarray]:
    """The luck columns of a batch: per side ``luck_dice_<side>`` (``int32``, gunfire dice rolled),
    ``luck_dealt_<side>`` (damage points those dice dealt), ``luck_mean_<side>`` and
    ``luck_var_<side>`` (their expected value and variance over the same dice; ``float64``).

    Args:
        sides: the two side names; dice, dealt: ``int[g, 2]`` per game and side (index = side).
    """
    cols: dict[str, np.ndarray] = {}
    for k, side in enumerate(sides):
        n = np.asarray(dice[:, k], dtype=np.int64)
        cols[f"luck_dice_{side}"] = n.astype(np.int32)
        cols[f"luck_dealt_{side}"] = np.asarray(dealt[:, k], dtype=np.float64)
        cols[f"luck_mean_{side}"] = n * DIE_MEAN
        cols[f"luck_var_{side}"] = n * DIE_VAR
    return cols
