"""The campaign players' choices (Rules 11.0, 11.4, 11.6, 11.8; extended campaign 12.62-12.64):
fleet builders, the secret allocation to scenarios A-D, the Interception Bonus, the construction
schedule and repairs.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    ALLOC_CONCENTRATE,
    ALLOC_MAIN_BODY,
    ALLOC_RANDOM,
    BUILD_BALANCED,
    BUILD_RANDOM,
    CAPITAL,
    SCEN_C,
)


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)
def _order_by_value_nb(po, npl, desc):
    vals = np.zeros(npl, dtype=np.int64)
    for u in range(npl):
        vals[u] = -po[u, L.PO_VAL] if desc else po[u, L.PO_VAL]
    return np.argsort(vals, kind="mergesort")


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)
def _shuffle_nb(k, rng):
    idx = np.arange(k)
    for a in range(k - 1, 0, -1):
        b = roll_nb(rng, a + 1) - 1
        t = idx[a]
        idx[a] = idx[b]
        idx[b] = t
    return idx


@kernel(error_model="numpy", nrt=True)
def build_fleet_nb(po, npl, ps, limit, code, rng, mark):
    """Choose a fleet from a national listing under a fleet value limit (Rules 11.1, 11.8, 12.61).

    Units not yet owned (``PS_NONE``) are taken into status ``mark`` while their values (9.51:
    attack + defense + movement, VPs) fit under ``limit``:

    * value-greedy: the most valuable units first;
    * balanced: capital ships, most valuable first, up to two thirds of the limit, then screen
      units, most valuable first, then anything that still fits;
    * random: in a random order.

    Args:
        po: ``int64[P, NPO]`` the listing; npl: its units; ps: ``int64[P, NPS]`` (written).

    Returns:
        The value taken (VPs).
    """
    total = 0
    if code == BUILD_RANDOM:
        order = _shuffle_nb(npl, rng)
    else:
        order = _order_by_value_nb(po, npl, True)
    if code == BUILD_BALANCED:
        cap_budget = limit * 2 // 3
        for a in range(npl):
            u = order[a]
            if ps[u, L.PS_STATUS] == L.PS_NONE and po[u, L.PO_KIND] == CAPITAL and total + po[u, L.PO_VAL] <= cap_budget:
                ps[u, L.PS_STATUS] = mark
                total += po[u, L.PO_VAL]
        for a in range(npl):
            u = order[a]
            if ps[u, L.PS_STATUS] == L.PS_NONE and po[u, L.PO_KIND] != CAPITAL and total + po[u, L.PO_VAL] <= limit:
                ps[u, L.PS_STATUS] = mark
                total += po[u, L.PO_VAL]
    for a in range(npl):
        u = order[a]
        if ps[u, L.PS_STATUS] == L.PS_NONE and total + po[u, L.PO_VAL] <= limit:
            ps[u, L.PS_STATUS] = mark
            total += po[u, L.PO_VAL]
    return total


@kernel(error_model="numpy", nrt=True)
def schedule_nb(po, npl, ps, code, rng, budget, per_turn, last_turn):
    """A secret construction schedule (Rule 12.61): units of the balance of the national mix,
    each given an Extended Campaign Game-Turn, at most ``per_turn`` VPs a turn (12.61) and
    ``budget`` in all. Value-greedy and balanced fill the turns in order with the most valuable
    units that fit; random takes units in a random order. Returns the value scheduled."""
    if code == BUILD_RANDOM:
        order = _shuffle_nb(npl, rng)
    else:
        order = _order_by_value_nb(po, npl, True)
    total = 0
    for t in range(1, last_turn + 1):
        spent = 0
        for a in range(npl):
            u = order[a]
            v = po[u, L.PO_VAL]
            if ps[u, L.PS_STATUS] == L.PS_NONE and spent + v <= per_turn and total + v <= budget:
                ps[u, L.PS_STATUS] = L.PS_SCHEDULED
                ps[u, L.PS_BUILD] = t
                spent += v
                total += v
    return total


@kernel(error_model="numpy", nrt=True)
def allocate_nb(po, npl, ps, code, rng, scen):
    """Secret assignment of a fleet to the campaign scenarios A-D (Rules 11.0, 11.6).

    Each unit in the fleet (``PS_FLEET``) gets one scenario (0-3) or none (-1); no unit is in two.

    * spread: most valuable first, each to the scenario with the least value so far;
    * main-body: the more valuable half of the capital ships to C (the convoy), the rest spread
      over A, B and D; screen units spread over all four;
    * concentrate: everything to C (A, B and D are conceded, 11.6);
    * random: each unit to A, B, C, D or none at random.
    """
    for u in range(npl):
        scen[u] = -1
    load = np.zeros(4, dtype=np.int64)
    order = _order_by_value_nb(po, npl, True)
    ncap = 0
    for u in range(npl):
        if ps[u, L.PS_STATUS] == L.PS_FLEET and po[u, L.PO_KIND] == CAPITAL:
            ncap += 1
    seen_cap = 0
    for a in range(npl):
        u = order[a]
        if ps[u, L.PS_STATUS] != L.PS_FLEET:
            continue
        if code == ALLOC_RANDOM:
            scen[u] = roll_nb(rng, 5) - 2
            continue
        if code == ALLOC_CONCENTRATE:
            scen[u] = SCEN_C
            continue
        lo = 0
        skip_c = False
        if code == ALLOC_MAIN_BODY and po[u, L.PO_KIND] == CAPITAL:
            seen_cap += 1
            if seen_cap <= (ncap + 1) // 2:
                scen[u] = SCEN_C
                load[SCEN_C] += po[u, L.PO_VAL]
                continue
            skip_c = True
        best = -1
        for s in range(4):
            if skip_c and s == SCEN_C:
                continue
            if best < 0 or load[s] < load[best]:
                best = s
        lo = best
        scen[u] = lo
        load[lo] += po[u, L.PO_VAL]


@kernel(error_model="numpy", nrt=True)
def interception_bonus_nb(po, npl, ps, scen, code, rng, fixed, lo, hi):
    """The South's secret Interception Bonus for the convoy of scenario C (Rule 11.4): ``fixed``
    if set, else random (``lo..hi``) for the random allocation, else ``lo + (hi - lo) * min(1,
    2 * share)`` where share is the part of its assigned value the South gave to C (a convoy
    guarded by the main fleet is worth more to it, 11.9)."""
    if fixed > 0:
        return lo if fixed < lo else (hi if fixed > hi else fixed)
    if code == ALLOC_RANDOM:
        return lo + roll_nb(rng, hi - lo + 1) - 1
    tot = 0
    inc = 0
    for u in range(npl):
        if ps[u, L.PS_STATUS] == L.PS_FLEET and scen[u] >= 0:
            tot += po[u, L.PO_VAL]
            if scen[u] == SCEN_C:
                inc += po[u, L.PO_VAL]
    if tot == 0:
        return lo
    share = 2.0 * inc / tot
    if share > 1.0:
        share = 1.0
    return lo + int((hi - lo) * share)


@kernel(error_model="numpy", nrt=True)
def repair_nb(po, npl, ps, treasury, code, rng, pct, reserve):
    """The Repair Phase of one player (Rule 12.64): permanently damaged ships repaired at ``pct``%
    of their value per damage state (fractions dropped), most valuable first, while the treasury
    keeps ``reserve`` (random: each affordable one on a coin flip). Returns the points spent."""
    order = _order_by_value_nb(po, npl, True)
    spent = 0
    for a in range(npl):
        u = order[a]
        if ps[u, L.PS_STATUS] != L.PS_DAMAGED:
            continue
        cost = po[u, L.PO_VAL] * pct * (ps[u, L.PS_G] + ps[u, L.PS_S]) // 100
        if code == BUILD_RANDOM:
            if treasury - spent - cost <= 0 or roll_nb(rng, 2) != 1:
                continue
        elif treasury - spent - cost < reserve:
            continue
        spent += cost
        ps[u, L.PS_STATUS] = L.PS_FLEET
        ps[u, L.PS_G] = 0
        ps[u, L.PS_S] = 0
    return spent
