"""A policy's choices outside the sub-turns, compiled (Rules 4, 8.2, 8.3).

The deployment of a squadron face down in three rows (Rule 4: legal splits, merchants long,
escorts and aircraft short first), the optional initial reveal (4), the row the Navarra enters
(8.3) and the Republican ships the Nationalist removes in the Transfer to the Cantabrian Sea
(8.2). The solo AI deploys by Rule 12.2 (``build.solo_deploy_nb``).

Knobs (``pp[side, PP_*]``, ``policies.toml`` family ``greedy``): the deployment order and rows,
the own card and the enemy row revealed, the Navarra's row and the ships the Transfer removes.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import roll_nb
from .build import row_sizes_nb
from .enums import (
    AIRCRAFT,
    CAPITAL,
    FAM_GREEDY,
    FAM_RANDOM,
    FAM_SOLO,
    LONG,
    MEDIUM,
    MERCHANT,
    SHORT,
    ST_IN_PLAY,
    SUBMARINE,
    W_TORPEDO,
)
from .fleet import (
    is_escort_nb,
    printed_value_nb,
    row_counts3_nb,
    spread_nb,
)
from .layout import (
    C_COST,
    C_TYPE,
    G_POL0,
    MAXC,
    PP_DEPLOY_AIR_SHORT,
    PP_DEPLOY_BACK,
    PP_DEPLOY_CAPITAL_BACK,
    PP_DEPLOY_CHEAP_FIRST,
    PP_DEPLOY_ESCORTS_BACK,
    PP_DEPLOY_SUBS_SHORT,
    PP_DEPLOY_TORPEDO_FRONT,
    PP_REINFORCE_BACK,
    PP_REVEAL_BEST,
    PP_REVEAL_ROW,
    PP_TRANSFER_COVERED,
    S_ROW,
    S_STATUS,
    S_UP,
)
from .policy_combat import random_covered_nb

__all__ = ["deploy_nb", "choose_transfer_victim_nb", "choose_reveal_nb", "choose_reinforcement_row_nb"]


@kernel
def choose_transfer_victim_nb(cs, st, g, pp, rng):
    """8.2 Transfer to the Cantabrian Sea: the next Republican ship the Nationalist removes (-1:
    none; aircraft are not ships). Random-legal any ship; otherwise the most valuable uncovered
    ship, else any covered ship; greedy with ``transfer_covered`` = 1 a covered ship first (which
    one is unknown to him, so at random), then the most valuable uncovered one."""
    pol = g[G_POL0]
    cov = pol == FAM_GREEDY and pp[0, PP_TRANSFER_COVERED] > 0
    base = MAXC
    best = np.int64(-1)
    bv = np.int64(-1)
    n = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY or cs[s, C_TYPE] == AIRCRAFT:
            continue
        n += 1
        if pol == FAM_RANDOM:
            if roll_nb(rng, n) == 1:
                best = s
            continue
        if cov:
            v = (100 + roll_nb(rng, np.int64(5))) if st[s, S_UP] == 0 else (cs[s, C_COST] + 10)
        else:
            v = (cs[s, C_COST] + 10) if st[s, S_UP] == 1 else roll_nb(rng, np.int64(5))
        if v > bv:
            bv = v
            best = s
    return best


@kernel
def choose_reveal_nb(cs, st, g, pp, side, rng):
    """The optional initial reveal (Rule 4): ``(own, enemy)``: one own card of the short row and
    one enemy card "from any row" to turn face up (-1: none). The enemy card is unknown, so it is
    drawn at random in the chosen row: random-legal any covered card; the solo AI the short row;
    greedy the row ``reveal_row`` (0 short, 1 medium, 2 long); any row when that one has none."""
    pol = g[G_POL0 + side]
    own = np.int64(-1)
    base = side * MAXC
    if pol == FAM_RANDOM or pol == FAM_SOLO:
        own = random_covered_nb(st, side, np.int64(SHORT), rng)
    else:
        bv = np.int64(-1)
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0 and st[s, S_ROW] == SHORT:
                v = cs[s, C_COST] if pp[side, PP_REVEAL_BEST] > 0 else 10 - cs[s, C_COST]
                if v > bv:
                    bv = v
                    own = s
    if pol == FAM_RANDOM:
        enemy = random_covered_nb(st, 1 - side, np.int64(-1), rng)
    elif pol == FAM_GREEDY:
        enemy = random_covered_nb(st, 1 - side, np.int64(pp[side, PP_REVEAL_ROW]), rng)
    else:
        enemy = random_covered_nb(st, 1 - side, np.int64(SHORT), rng)
    if enemy < 0:
        enemy = random_covered_nb(st, 1 - side, np.int64(-1), rng)
    return own, enemy


@kernel
def choose_reinforcement_row_nb(cs, st, g, pp, side, slot, rng):
    """8.3 The Navarra: the row it is deployed in "at any legal position": the row that keeps the
    layout's spread smallest, preferring medium (aggressive) or long (cautious); the short row
    only when Rule 4 allows a capital ship there."""
    pol = g[G_POL0 + side]
    c0, c1, c2 = row_counts3_nb(st, side)
    base = side * MAXC
    esc_air = np.int64(0)
    for s in range(base, base + MAXC):
        t = cs[s, C_TYPE]
        if st[s, S_STATUS] == ST_IN_PLAY and (is_escort_nb(t) or t == AIRCRAFT) and st[s, S_ROW] != SHORT:
            esc_air += 1
    best = np.int64(-1)
    bv = 1 << 30
    for r in range(3):
        if r == SHORT and esc_air > 0 and cs[slot, C_TYPE] != AIRCRAFT and not is_escort_nb(cs[slot, C_TYPE]):
            continue
        v = spread_nb(c0 + (r == 0), c1 + (r == 1), c2 + (r == 2)) * 10
        if pol == FAM_RANDOM:
            v += roll_nb(rng, np.int64(5))
        elif pol == FAM_GREEDY and pp[side, PP_REINFORCE_BACK] > 0:
            v += 2 - r
        else:
            v += 0 if r == MEDIUM else 1
        if v < bv:
            bv = v
            best = r
    return best


@kernel
def _deploy_key_nb(cs, s, pol, pp, side, rng):
    """Order in which a policy hands out positions (larger first): random-legal at random; greedy
    by cost (dearest first, or cheapest with ``deploy_cheap_first``), torpedo carriers first with
    ``deploy_torpedo_front``, ties at random."""
    if pol == FAM_RANDOM:
        return roll_nb(rng, np.int64(1000))
    if pp[side, PP_DEPLOY_CHEAP_FIRST] > 0:
        k = 100 - cs[s, C_COST] * 10
    else:
        k = cs[s, C_COST] * 10
    if pp[side, PP_DEPLOY_TORPEDO_FRONT] > 0 and printed_value_nb(cs, s, np.int64(W_TORPEDO)) > 0:
        k += 100
    return k + roll_nb(rng, np.int64(5))


@kernel
def deploy_nb(cs, st, side, pol, pp, rng, key):
    """Deploy a squadron face down in three rows (Rule 4): a legal split; merchants in the long
    row; only escorts and aircraft in the short row unless none is left. ``pol`` is the side's
    family (enums.FAM_*): random-legal chooses at random; greedy puts the extra cards short then
    medium (long then medium with ``deploy_back``), hands out the short row by ``_deploy_key_nb``
    with submarines first among the non-escorts (``deploy_subs_short``), and sends capital ships
    to the long row first with ``deploy_capital_back`` (the cautious preset sets all of these).
    ``key`` is ``int64[MAXC + 3]`` scratch."""
    base = side * MAXC
    n = np.int64(0)
    nm = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY:
            n += 1
            if cs[s, C_TYPE] == MERCHANT:
                nm += 1
            key[s - base] = _deploy_key_nb(cs, s, pol, pp, side, rng)
            st[s, S_ROW] = -1
            st[s, S_UP] = 0
    if pol == FAM_GREEDY and pp[side, PP_DEPLOY_BACK] > 0:
        f1, f2 = LONG, MEDIUM
    elif pol == FAM_RANDOM:
        f1 = roll_nb(rng, np.int64(3)) - 1
        f2 = (f1 + roll_nb(rng, np.int64(2))) % 3
    else:
        f1, f2 = SHORT, MEDIUM
    s0, s1, s2 = row_sizes_nb(n, f1, f2)
    if nm > s2:
        s0, s1, s2 = row_sizes_nb(n, np.int64(LONG), f1 if f1 != LONG else f2)
    left = key[MAXC:MAXC + 3]
    left[0] = s0
    left[1] = s1
    left[2] = s2
    # merchants to the long row
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY and cs[s, C_TYPE] == MERCHANT:
            r = LONG if left[2] > 0 else (MEDIUM if left[1] > 0 else SHORT)
            st[s, S_ROW] = r
            left[r] -= 1
    # the short row: escorts and aircraft first, by the policy's order (aircraft only after every
    # escort with deploy_air_short = 0)
    air_first = pol != FAM_GREEDY or pp[side, PP_DEPLOY_AIR_SHORT] > 0
    for phase in range(2):
        while left[0] > 0:
            bs = np.int64(-1)
            bk = -(1 << 40)
            for s in range(base, base + MAXC):
                if st[s, S_STATUS] != ST_IN_PLAY or st[s, S_ROW] >= 0:
                    continue
                t = cs[s, C_TYPE]
                if phase == 0 and not (is_escort_nb(t) or (t == AIRCRAFT and air_first)):
                    continue
                k = key[s - base]
                if phase == 1 and t == AIRCRAFT and not air_first:
                    k += 20000
                if phase == 1 and t == SUBMARINE and (pol != FAM_GREEDY or pp[side, PP_DEPLOY_SUBS_SHORT] > 0):
                    k += 10000
                if k > bk:
                    bk = k
                    bs = s
            if bs < 0:
                break
            st[bs, S_ROW] = SHORT
            left[0] -= 1
    # the rest: capital ships and submarines to medium (aggressive) or long (cautious)
    back_first = pol == FAM_GREEDY and pp[side, PP_DEPLOY_CAPITAL_BACK] > 0
    escorts_back = pol == FAM_GREEDY and pp[side, PP_DEPLOY_ESCORTS_BACK] > 0
    while True:
        bs = np.int64(-1)
        bk = -(1 << 40)
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] != ST_IN_PLAY or st[s, S_ROW] >= 0:
                continue
            k = key[s - base]
            if bk < k:
                bk = k
                bs = s
        if bs < 0:
            break
        t = cs[bs, C_TYPE]
        if pol == FAM_RANDOM:
            r = roll_nb(rng, np.int64(2))
            r = MEDIUM if (r == 1 and left[1] > 0) or left[2] == 0 else LONG
        elif t == SUBMARINE or t == AIRCRAFT:
            r = MEDIUM if left[1] > 0 else LONG
        elif back_first and t == CAPITAL:
            r = LONG if left[2] > 0 else MEDIUM
        elif escorts_back and is_escort_nb(t):
            r = LONG if left[2] > 0 else MEDIUM
        else:
            r = MEDIUM if left[1] > 0 else LONG
        if left[r] <= 0:
            r = SHORT if left[0] > 0 else (MEDIUM if left[1] > 0 else LONG)
        st[bs, S_ROW] = r
        left[r] -= 1
