"""Scores and winners of Mar Rojo, compiled (Rules 7, 8.1-8.3).

* 8.1 (``cabo-de-palos``): the Republican wins by sinking a capital ship, or a merchant and an
  escort (ruling M51; option ``cabo_victory = either-and-escort``: a capital ship or a merchant,
  and an escort); any other result is a Nationalist victory. The score columns then hold the Rule 7
  points, for information.
* 8.2 and 8.3 (``capital-merchant``): one point per enemy capital or merchant ship sunk, plus one
  per own merchant in the short row at the end for each side the scenario names (8.2: the
  Nationalist only; 8.3: both).
* 7 (``points``): one point per enemy capital or merchant ship sunk, plus one per four other
  enemy fleet cards destroyed (fractions dropped).

A points tie goes to the player that sank the most ships (non-aircraft cards, Rule 7); a tie on
that too is a draw (-1). Ships removed by 8.2's Transfer are not sunk.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from .enums import (
    AIRCRAFT,
    AUXILIARY,
    CAPITAL,
    DESTROYER,
    MERCHANT,
    SHORT,
    ST_IN_PLAY,
    ST_SUNK,
    V_CABO_DE_PALOS,
    V_CAPITAL_MERCHANT,
)
from .layout import C_TYPE, G_MPTS0, G_RULES, G_VICTORY, MAXC, RU_CABO_EITHER, S_ROW, S_STATUS

__all__ = ["merchants_short_nb", "score_nb", "ships_sunk_nb", "winner_nb"]


@kernel
def merchants_short_nb(cs, st, side):
    """Merchant ships of ``side`` afloat in its short row."""
    n = np.int64(0)
    base = side * MAXC
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_ROW] == SHORT and cs[s, C_TYPE] == MERCHANT:
            n += 1
    return n


@kernel
def ships_sunk_nb(cs, st, side):
    """Ships (non-aircraft cards) of the enemy of ``side`` sunk: the Rule 7 tie-break."""
    n = np.int64(0)
    base = (1 - side) * MAXC
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_SUNK and cs[s, C_TYPE] != AIRCRAFT:
            n += 1
    return n


@kernel
def score_nb(cs, st, g, side):
    """Victory points of ``side`` now (see the module docstring)."""
    cm = np.int64(0)
    other = np.int64(0)
    base = (1 - side) * MAXC
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_SUNK:
            t = cs[s, C_TYPE]
            if t == CAPITAL or t == MERCHANT:
                cm += 1
            else:
                other += 1
    if g[G_VICTORY] == V_CAPITAL_MERCHANT:
        pts = cm
        if g[G_MPTS0 + side] == 1:
            pts += merchants_short_nb(cs, st, side)
        return pts
    return cm + other // 4


@kernel
def winner_nb(cs, st, g):
    """The winner now: 0 Nationalist, 1 Republican, -1 draw (see the module docstring)."""
    if g[G_VICTORY] == V_CABO_DE_PALOS:
        cap = np.int64(0)
        mer = np.int64(0)
        esc = np.int64(0)
        for s in range(MAXC):
            if st[s, S_STATUS] == ST_SUNK:
                t = cs[s, C_TYPE]
                if t == CAPITAL:
                    cap += 1
                elif t == MERCHANT:
                    mer += 1
                elif t == DESTROYER or t == AUXILIARY:
                    esc += 1
        if g[G_RULES] & RU_CABO_EITHER:
            if (cap > 0 or mer > 0) and esc > 0:
                return 1
        elif cap > 0 or (mer > 0 and esc > 0):
            return 1
        return 0
    a = score_nb(cs, st, g, np.int64(0))
    b = score_nb(cs, st, g, np.int64(1))
    if a != b:
        return 0 if a > b else 1
    a = ships_sunk_nb(cs, st, np.int64(0))
    b = ships_sunk_nb(cs, st, np.int64(1))
    if a != b:
        return 0 if a > b else 1
    return -1
