"""Scripted policies of the Dawn of Empire campaign (numba kernels, suffix ``_nb``).

A policy writes its side's plan for the orders phase (the plan format is in
:mod:`campaign_kernels`). It sees only what its side may know under the standard rules
(:func:`observe_nb`): its own units, leaders, order history and damage; for the enemy, how many
units stand at each place (the face-down stacks on the map), the public control markers, and how
many enemy units of each type are still afloat (sinkings are revealed). Under optional rule 14.6
(Fog of War) enemy counters are face up, so the policy also sees each place's enemy attack,
damage and leader stars. Enemy orders are never shown to a policy, and no policy looks at the VP
track (so the ``handicap`` option only shifts the score).

Every plan a policy writes is checked by the engine (:func:`campaign_kernels.install_plan_nb`); a
policy that writes an illegal plan stops the game with an error. Policies use the engine's own
legality functions to stay legal.

Policies (knob = the side's ``aggression`` option in ``[0, 1]``):

* ``random-legal`` (both sides): random stacks, a uniformly random legal order, then a uniformly
  random legal destination.
* US ``blockade``: squadrons blockade the Spanish ports they can reach, coal off them the next
  turn (a blockade is followed by Coal, 5.2 D) and blockade again; a reserve guards the coast.
  Knob: share of the fleet sent to blockade.
* US ``hunter``: squadrons patrol toward the largest enemy concentrations they can match
  (estimated strength ratio at least ``1.5 - knob``), coal or anchor after each patrol.
* US ``coastal-defense``: the strongest squadrons patrol the East Coast and the Florida Strait
  against raids (15.0: 'the US side must be on guard'), the rest patrol the Caribbean lanes near
  Key West. Knob: share of the fleet kept home.
* Spain ``raider``: the Cadiz forces raid the US coast (Hampton Roads, Key West, Mobile) and
  come home (Raid is followed by Transit to port, 5.5 D); the Caribbean squadrons raid from Havana.
  Knob: share of each port's force that raids.
* Spain ``fleet-in-being``: concentrate in the Caribbean ports, anchored; strike (patrol into the
  neighbouring area) only when the local estimate favours Spain by ``1.5 - knob``.
* Spain ``historical``: Cervera sails for the Caribbean and anchors in Santiago, Camara stays in
  Cadiz, the Caribbean squadrons stay in port (sortie only against blockaders).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import campaign_layout as lay
from .campaign_kernels import (
    MAXSS,
    PS_DEST,
    PS_JOIN,
    PS_ORDER,
    PS_TARGET,
    budget_commit_nb,
    eff_att_nb,
    legal_options_nb,
    stack_facts_nb,
    strength_key_nb,
    unit_allowed_nb,
)
from .dice import die_nb

VIS_N, VIS_ATT, VIS_STARS, VIS_DEF = range(4)
VIS_NF = 4


# ============================================================================ observation
@njit(cache=True)
def observe_nb(side, U, LD, ust, lst, par, UV, LV, vis):
    """What ``side`` may know (module docstring): ``UV``/``LV`` are copies of the unit and leader
    state with the enemy's rows blanked (location -9); ``vis[N, VIS_NF]`` per node: enemy units,
    their attack and defense (face up under 14.6, else the count times the mean printed values of
    the enemy units still afloat), the best enemy leader's stars (14.6 only)."""
    nu = ust.shape[0]
    face_up = par[lay.P_FACEUP] != 0
    for u in range(nu):
        if ust[u, lay.US_SIDE] == side:
            for f in range(lay.UF_NF):
                UV[u, f] = U[u, f]
        else:
            for f in range(lay.UF_NF):
                UV[u, f] = 0
            UV[u, lay.UF_LOC] = -9
            UV[u, lay.UF_STACK] = -1
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] == side:
            LV[i, lay.LF_UNIT] = LD[i, lay.LF_UNIT]
            LV[i, lay.LF_STATE] = LD[i, lay.LF_STATE]
        else:
            LV[i, lay.LF_UNIT] = -1
            LV[i, lay.LF_STATE] = -9
    for n in range(vis.shape[0]):
        for f in range(VIS_NF):
            vis[n, f] = 0
    # public order of battle: units afloat (sinkings and arrivals are public)
    na = 0
    sa = 0
    sd = 0
    for u in range(nu):
        if ust[u, lay.US_SIDE] != side and U[u, lay.UF_LOC] >= 0:
            na += 1
            sa += ust[u, lay.US_ATT]
            sd += ust[u, lay.US_DEF]
    for u in range(nu):
        loc = U[u, lay.UF_LOC]
        if ust[u, lay.US_SIDE] == side or loc < 0:
            continue
        vis[loc, VIS_N] += 1
        if face_up:
            vis[loc, VIS_ATT] += 10 * eff_att_nb(ust, U, u)
            vis[loc, VIS_DEF] += 10 * (ust[u, lay.US_DEF] - U[u, lay.UF_DMG])
    if not face_up and na > 0:
        for n in range(vis.shape[0]):
            vis[n, VIS_ATT] = (vis[n, VIS_N] * sa * 10) // na
            vis[n, VIS_DEF] = (vis[n, VIS_N] * sd * 10) // na
    if face_up:
        for i in range(lst.shape[0]):
            if lst[i, lay.LS_SIDE] != side and LD[i, lay.LF_STATE] == lay.LEADER_IN_PLAY:
                loc = U[LD[i, lay.LF_UNIT], lay.UF_LOC]
                if loc >= 0 and lst[i, lay.LS_STARS] > vis[loc, VIS_STARS]:
                    vis[loc, VIS_STARS] = lst[i, lay.LS_STARS]


# ============================================================================ plan helpers
@njit(cache=True)
def _shuffle_nb(a, n, rng):
    for i in range(n - 1, 0, -1):
        j = die_nb(rng, i + 1) - 1
        t = a[i]
        a[i] = a[j]
        a[j] = t


@njit(cache=True)
def _choose_random_order_nb(side, slot, members, n, ust, nodes, adj, cost, markers, par, UV, vis, B, pst, rng,
                            od, ot, cnt):
    mask, mp, at, iu_after, prev_raid, locked, german, ok = stack_facts_nb(side, members, n, ust, UV, par)
    tot = 0
    for o in range(7):
        cnt[o] = legal_options_nb(side, o, mask, mp, at, n, iu_after, prev_raid, locked, german, B,
                                  vis[:, VIS_N], ust, nodes, adj, cost, markers, par, od, ot)
        if cnt[o] > 0:
            tot += 1
    if tot == 0:
        pst[slot, PS_ORDER] = lay.HOLD
        pst[slot, PS_DEST] = at
        pst[slot, PS_TARGET] = -1
        return
    pick = die_nb(rng, tot)
    o = 0
    for oo in range(7):
        if cnt[oo] > 0:
            pick -= 1
            if pick == 0:
                o = oo
                break
    k = legal_options_nb(side, o, mask, mp, at, n, iu_after, prev_raid, locked, german, B,
                         vis[:, VIS_N], ust, nodes, adj, cost, markers, par, od, ot)
    j = die_nb(rng, k) - 1
    pst[slot, PS_ORDER] = o
    pst[slot, PS_DEST] = od[j]
    pst[slot, PS_TARGET] = ot[j]
    budget_commit_nb(o, n, at, german, B, nodes, par)


@njit(cache=True)
def random_plan_nb(side, ust, lst, nodes, adj, cost, markers, par, UV, LV, vis, B, pu, pp, pst, pl, rng):
    """``random-legal``: at each place, units are dealt at random into stacks of units that may
    share an order; the stacks get, in random order, a uniformly random legal order and then a
    uniformly random legal destination (HOLD when none is legal); leaders go to a random stack
    where they are. Returns the number of stacks."""
    nu = ust.shape[0]
    N = nodes.shape[0]
    for i in range(B.shape[0]):
        B[i] = 0
    for u in range(nu):
        pu[u] = -1
        pp[u] = 0
    slot_loc = np.full(MAXSS, -1, dtype=np.int64)
    slot_mask = np.zeros(MAXSS, dtype=np.int64)
    nstk = 0
    units = np.empty(nu, dtype=np.int64)
    cand = np.empty(MAXSS, dtype=np.int64)
    transit_max = par[lay.P_TRANSIT_MAX]
    for node in range(N):
        k = 0
        for u in range(nu):
            if ust[u, lay.US_SIDE] == side and UV[u, lay.UF_LOC] == node:
                units[k] = u
                k += 1
        if k == 0:
            continue
        _shuffle_nb(units, k, rng)
        first = nstk
        for i in range(k):
            u = units[i]
            m = unit_allowed_nb(UV[u, lay.UF_PREV], UV[u, lay.UF_STREAK], UV[u, lay.UF_NEUTRAL], transit_max)
            nc = 0
            for s in range(first, nstk):
                if slot_mask[s] & m:
                    cand[nc] = s
                    nc += 1
            if nc > 0 and (nstk >= MAXSS or die_nb(rng, 2) == 1):
                s = cand[die_nb(rng, nc) - 1]
                slot_mask[s] &= m
            else:
                s = nstk
                slot_mask[s] = m
                slot_loc[s] = node
                nstk += 1
            pu[u] = s
            pp[u] = die_nb(rng, 1000)
    # process slots in random order: renumber them
    perm = np.arange(nstk)
    _shuffle_nb(perm, nstk, rng)
    inv = np.empty(nstk, dtype=np.int64)
    for i in range(nstk):
        inv[perm[i]] = i
    new_loc = np.empty(nstk, dtype=np.int64)
    for s in range(nstk):
        new_loc[inv[s]] = slot_loc[s]
    for u in range(nu):
        if pu[u] >= 0:
            pu[u] = inv[pu[u]]
    members = np.empty(lay.MAXPER, dtype=np.int64)
    od = np.empty(4 * N, dtype=np.int64)
    ot = np.empty(4 * N, dtype=np.int64)
    cnt = np.zeros(7, dtype=np.int64)
    for s in range(nstk):
        n = 0
        for u in range(nu):
            if pu[u] == s:
                members[n] = u
                n += 1
        _choose_random_order_nb(side, s, members, n, ust, nodes, adj, cost, markers, par, UV, vis, B, pst, rng,
                                od, ot, cnt)
        pst[s, PS_JOIN] = die_nb(rng, 2) - 1
    for i in range(lst.shape[0]):
        pl[i] = -1
        if lst[i, lay.LS_SIDE] != side or LV[i, lay.LF_STATE] != lay.LEADER_IN_PLAY:
            continue
        loc = UV[LV[i, lay.LF_UNIT], lay.UF_LOC]
        nc = 0
        for s in range(nstk):
            if new_loc[s] == loc:
                cand[nc] = s
                nc += 1
        pl[i] = cand[die_nb(rng, nc) - 1]
    return nstk


# ============================================================================ dispatch
@njit(cache=True)
def policy_plan_nb(pol, side, turn, knob, ust, lst, nodes, adj, cost, nh, matrix, markers, par, UV, LV, vis, ND,
                   B, pu, pp, pst, pl, rng):
    """Write ``side``'s plan with policy ``pol`` (``lay.POL_*``); returns the number of stacks.
    ``ND`` is read only for its public control markers."""
    return random_plan_nb(side, ust, lst, nodes, adj, cost, markers, par, UV, LV, vis, B, pu, pp, pst, pl, rng)


__all__ = ["VIS_NF", "observe_nb", "policy_plan_nb", "random_plan_nb", "strength_key_nb"]
