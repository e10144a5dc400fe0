"""Optional rule 14.9, speed defined subgroups: the pursuit round after a side disengaged by speed
(numba kernel, suffix ``_nb``), the pursuer's forces sent after the subgroups as its policy's
``pursue`` knob says (14.9 B-C)."""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from .dice import die_nb
from .enums import ESCAPED, FLEE_ALWAYS, IN_LINE, PU_RANDOM, PU_SPLIT, RF_KEEP, SPEED_NEVER
from .kernels import (
    W_DICE,
    W_DMG,
    W_NF,
    BattleChoices,
    BattleSpec,
    Squadrons,
    battle_nb,
    effective_movement_nb,
)


@kernel(nrt=True)   # allocates (14.9 only): reference counting kept under a nrt=False caller
def pursuit_round_nb(winner, n0, n, att, dfn, mov, dmg, status, mode, rng, luck=None):
    """Optional rule 14.9 after a side disengaged by speed (``battle_nb`` in ``SPEED_STOP`` mode):
    its units still in line form subgroups by speed (14.9 A); the pursuer's units go after them as
    its ``pursue`` choice ``mode`` says (14.9 B-C; enums.PU_*), each only after a subgroup no
    faster than itself: PU_SLOWEST every unit that can engages the slowest subgroup; PU_SPLIT each
    goes after the fastest subgroup it can catch; PU_RANDOM each draws one of the subgroups it can
    catch (a die from ``rng``, only where it has a choice). Each subgroup with pursuers fights them
    for one more round without leaders' dice, slowest first; then every surviving unit of the
    disengaging side disengages (14.9 D). Statuses and damage are updated in place; returns the
    rounds fought (0 or 1). ``luck`` (``int64[4]``, optional): the rounds' gunfire dice and the
    damage points they dealt are added to it by side (``G_LUCK``'s layout; ``simlab luck``)."""
    k = 1 - winner
    lo_k = 0 if k == 0 else n0
    hi_k = n0 if k == 0 else n
    lo_w = n0 if k == 0 else 0
    hi_w = n if k == 0 else n0
    # the disengaging side's subgroups: the distinct speeds of its units in line, slowest first
    inline = np.empty(hi_k - lo_k, dtype=np.int64)
    m = 0
    for i in range(lo_k, hi_k):
        if status[i] == IN_LINE:
            inline[m] = effective_movement_nb(mov[i], dmg[i])
            m += 1
    speeds = np.unique(inline[:m])
    ns = speeds.shape[0]
    # each pursuer's target subgroup (its speed; -1: none it can catch)
    tgt = np.full(n, -1, dtype=np.int64)
    for i in range(lo_w, hi_w):
        if status[i] != IN_LINE or ns == 0:
            continue
        v = effective_movement_nb(mov[i], dmg[i])
        can = 0
        while can < ns and speeds[can] <= v:
            can += 1
        if can == 0:
            continue
        if mode == PU_SPLIT:
            tgt[i] = speeds[can - 1]
        elif mode == PU_RANDOM and can > 1:
            tgt[i] = speeds[die_nb(rng, can) - 1]
        else:
            tgt[i] = speeds[0]
    fought = 0
    idx = np.empty(n, dtype=np.int64)
    for q in range(ns):
        m0 = np.int64(0)
        for i in range(lo_w, hi_w):
            if tgt[i] == speeds[q]:
                idx[m0] = i
                m0 += 1
        m1 = np.int64(0)
        for i in range(lo_k, hi_k):
            if status[i] == IN_LINE and effective_movement_nb(mov[i], dmg[i]) == speeds[q]:
                idx[m0 + m1] = i
                m1 += 1
        if m0 == 0 or m1 == 0:
            continue
        m = m0 + m1
        a2 = np.empty(m, dtype=np.int64)
        d2 = np.empty(m, dtype=np.int64)
        v2 = np.empty(m, dtype=np.int64)
        g2 = np.empty(m, dtype=np.int64)
        s2 = np.empty(m, dtype=np.int8)
        for j in range(m):
            a2[j] = att[idx[j]]
            d2[j] = dfn[idx[j]]
            v2[j] = mov[idx[j]]
            g2[j] = dmg[idx[j]]
        w2 = np.zeros((W_NF, m), dtype=np.int64)
        # one round (14.9 D): no disengagement, and no reform that a later round would use
        battle_nb(Squadrons(a2, d2, v2, g2, s2),
                  BattleSpec(m0, m1, np.int64(0), np.int64(0), np.int64(1), np.int64(SPEED_NEVER)),
                  BattleChoices(np.int64(FLEE_ALWAYS), np.int64(FLEE_ALWAYS), np.int64(RF_KEEP), np.int64(RF_KEEP)),
                  rng, w2)
        if luck is not None:
            # the pursuers (the winner's units) were side 0 of this round
            luck[winner] += w2[W_DICE, 0]
            luck[k] += w2[W_DICE, 1]
            luck[2 + winner] += w2[W_DMG, 0]
            luck[2 + k] += w2[W_DMG, 1]
        for j in range(m):
            dmg[idx[j]] = g2[j]
            status[idx[j]] = s2[j]
        fought = 1
    for i in range(lo_k, hi_k):
        if status[i] == IN_LINE:
            status[i] = ESCAPED
    return fought


__all__ = ["pursuit_round_nb"]
