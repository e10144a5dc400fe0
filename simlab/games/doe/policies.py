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
    order_ok_nb,
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
def _choose_random_order_nb(side, slot, members, n, ust, nodes, adj, cost, markers, par, UV, enemy_c, B, pst, rng,
                            od, ot, cnt):
    mask, mp, at, iu_after, prev_raid, locked, german, ok = stack_facts_nb(side, members, n, ust, UV, par)
    tot = 0
    for o in range(7):
        cnt[o] = legal_options_nb(side, o, mask, mp, at, n, iu_after, prev_raid, locked, german, B,
                                  enemy_c, ust, nodes, adj, cost, markers, par, od, ot)
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
                         enemy_c, ust, nodes, adj, cost, markers, par, od, ot)
    j = die_nb(rng, k) - 1
    pst[slot, PS_ORDER] = o
    pst[slot, PS_DEST] = od[j]
    pst[slot, PS_TARGET] = ot[j]
    budget_commit_nb(o, n, at, german, B, nodes, par)


@njit(cache=True)
def _reset_plan_nb(B, pu, pp):
    """An empty plan: budgets at zero, no unit in a stack yet."""
    for i in range(B.shape[0]):
        B[i] = 0
    for u in range(pu.shape[0]):
        pu[u] = -1
        pp[u] = 0


@njit(cache=True)
def random_plan_nb(side, ust, lst, nodes, adj, cost, markers, par, UV, LV, vis, B, pu, pp, pst, pl, rng):
    """``random-legal``: at each place, units are dealt at random into stacks of units that may
    share an order; the stacks get, in random order, a uniformly random legal order and then a
    uniformly random legal destination (HOLD when none is legal); leaders go to a random stack
    where they are. Returns the number of stacks."""
    nu = ust.shape[0]
    N = nodes.shape[0]
    _reset_plan_nb(B, pu, pp)
    slot_loc = np.full(MAXSS, -1, dtype=np.int64)
    slot_mask = np.zeros(MAXSS, dtype=np.int64)
    nstk = np.int64(0)
    units = np.empty(nu, dtype=np.int64)
    cand = np.empty(MAXSS, dtype=np.int64)
    transit_max = par[lay.P_TRANSIT_MAX]
    for node in range(N):
        k = np.int64(0)
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
    enemy_c = np.ascontiguousarray(vis[:, VIS_N])
    od = np.empty(4 * N, dtype=np.int64)
    ot = np.empty(4 * N, dtype=np.int64)
    cnt = np.zeros(7, dtype=np.int64)
    for s in range(nstk):
        n = np.int64(0)
        for u in range(nu):
            if pu[u] == s:
                members[n] = u
                n += 1
        _choose_random_order_nb(side, s, members, n, ust, nodes, adj, cost, markers, par, UV, enemy_c, B, pst, rng,
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


# ============================================================================ scripted policies
# Groups: at each place a side's units are grouped by the orders they may take (5.x sequences), by
# speed (units of 3 MP or less apart, 18.1.4 A) and by whether they are damaged in a
# port that repairs (they stay to repair). Groups are handled strongest first; a policy lists
# candidate (order, destination, target) triples in preference order and the first legal one is
# taken, then safe fallbacks, then any legal option, then HOLD (ruling C12).
MAXC = 24          # candidates per group


@njit(cache=True)
def _strength_nb(ust, UV, members, n):
    s = 0
    for i in range(n):
        s += eff_att_nb(ust, UV, members[i])
    return s


@njit(cache=True)
def _group_units_nb(side, ust, UV, nodes, par, gmem, gn, gat, gstr, gdmg):
    """Groups as described above; returns how many (members in ``gmem[g, :gn[g]]``)."""
    nu = ust.shape[0]
    N = nodes.shape[0]
    A = par[lay.P_NAREAS]
    transit_max = par[lay.P_TRANSIT_MAX]
    minmov = par[lay.P_MINMOV_R] if par[lay.P_RESTRICT] else par[lay.P_MINMOV]
    ng = 0
    gkey = np.empty(gmem.shape[0], dtype=np.int64)
    key = np.empty(nu, dtype=np.int64)
    for u in range(nu):
        key[u] = strength_key_nb(ust, UV, u)
    order = np.argsort(key, kind="mergesort")
    # the side's units by place, strongest first
    cnt = np.zeros(N, dtype=np.int64)
    byn = np.empty((N, nu), dtype=np.int64)
    for ii in range(nu):
        u = order[ii]
        loc = UV[u, lay.UF_LOC]
        if ust[u, lay.US_SIDE] == side and loc >= 0:
            byn[loc, cnt[loc]] = u
            cnt[loc] += 1
    for node in range(N):
        if cnt[node] == 0:
            continue
        first = ng
        for ii in range(cnt[node]):
            u = byn[node, ii]
            m = unit_allowed_nb(UV[u, lay.UF_PREV], UV[u, lay.UF_STREAK], UV[u, lay.UF_NEUTRAL], transit_max)
            mv = ust[u, lay.US_MOV] - UV[u, lay.UF_DMG]
            if mv < minmov and ust[u, lay.US_MOV] >= minmov:
                mv = minmov
            tier = 0 if mv <= 3 else 1
            rep = 0
            if node >= A and UV[u, lay.UF_DMG] > 0 and nodes[node, lay.NS_PSIDE] == side and nodes[node, lay.NS_REPAIR] > 0:
                rep = 1
            k = m * 8 + tier * 2 + rep
            g = -1
            for h in range(first, ng):
                if gkey[h] == k and gn[h] < lay.MAXPER:
                    g = h
                    break
            if g < 0:
                if ng >= gmem.shape[0]:
                    g = ng - 1
                else:
                    g = ng
                    ng += 1
                    gkey[g] = k
                    gn[g] = 0
                    gat[g] = node
                    gstr[g] = 0
                    gdmg[g] = 0
            gmem[g, gn[g]] = u
            gn[g] += 1
            gstr[g] += eff_att_nb(ust, UV, u)
            gdmg[g] += UV[u, lay.UF_DMG]
        # a lone unit joins the largest group here whose orders it does not restrict
        for h in range(first, ng):
            if gn[h] != 1:
                continue
            mh = gkey[h] // 8
            best = -1
            for j in range(first, ng):
                if j != h and gn[j] >= 1 and (gkey[j] // 8) & mh == gkey[j] // 8 and gn[j] < lay.MAXPER:
                    if best < 0 or gn[j] > gn[best]:
                        best = j
            if best >= 0:
                u = gmem[h, 0]
                gmem[best, gn[best]] = u
                gn[best] += 1
                gstr[best] += eff_att_nb(ust, UV, u)
                gdmg[best] += UV[u, lay.UF_DMG]
                gn[h] = 0
        # a group of more than 7 splits in two of even strength (squadrons that can coal at sea)
        for h in range(first, ng):
            if gn[h] > 7 and ng < gmem.shape[0]:
                k = gn[h]
                j = ng
                ng += 1
                gkey[j] = gkey[h]
                gat[j] = gat[h]
                gn[j] = 0
                gstr[j] = 0
                gdmg[j] = 0
                keep = 0
                gstr[h] = 0
                gdmg[h] = 0
                for i in range(k):
                    u = gmem[h, i]
                    if i % 2 == 0:
                        gmem[h, keep] = u
                        keep += 1
                        gstr[h] += eff_att_nb(ust, UV, u)
                        gdmg[h] += UV[u, lay.UF_DMG]
                    else:
                        gmem[j, gn[j]] = u
                        gn[j] += 1
                        gstr[j] += eff_att_nb(ust, UV, u)
                        gdmg[j] += UV[u, lay.UF_DMG]
                gn[h] = keep
    # drop emptied groups
    k = 0
    for h in range(ng):
        if gn[h] > 0:
            if k != h:
                for i in range(gn[h]):
                    gmem[k, i] = gmem[h, i]
                gn[k] = gn[h]
                gat[k] = gat[h]
                gstr[k] = gstr[h]
                gdmg[k] = gdmg[h]
            k += 1
    return k


@njit(cache=True)
def _nearest_friendly_nb(at, side, german, need_repair, nodes, cost, par):
    A = par[lay.P_NAREAS]
    best = -1
    bc = lay.BIG
    for p in range(A, nodes.shape[0]):
        if nodes[p, lay.NS_PSIDE] != side:
            if not (german and par[lay.P_GERMANS] != 0 and nodes[p, lay.NS_REPAIR_GER] > 0):
                continue
        if need_repair and nodes[p, lay.NS_REPAIR] <= 0:
            continue
        c = 0 if p == at else cost[lay.KMAX, at, p]
        if c < bc:
            bc = c
            best = p
    return best


@njit(cache=True)
def _nf_nb(at, side, german, need_repair, nf_rep, nf_any, nodes, cost, par):
    """Nearest friendly port from ``at``: the turn's table, or worked out for German-only groups."""
    if german and par[lay.P_GERMANS] != 0:
        return _nearest_friendly_nb(at, side, german, need_repair, nodes, cost, par)
    tab = nf_rep if need_repair else nf_any
    if tab[at] == -2:   # not worked out yet this plan
        tab[at] = _nearest_friendly_nb(at, side, np.bool_(False), need_repair, nodes, cost, par)
    return tab[at]


@njit(cache=True)
def _turn_tables_nb(side, vis, nodes, cost, par, threat, home, nf_rep, nf_any):
    """Per plan: enemy attack each area faces (units there and in bordering enemy ports, tenths),
    areas bordering an own port, and empty memos of each node's nearest friendly port (with and
    without repair, filled by :func:`_nf_nb`)."""
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    for a in range(A):
        threat[a] = vis[a, VIS_ATT]
        home[a] = 0
    for p in range(A, N):
        for j in range(2):
            a = nodes[p, lay.NS_PAREA1 + j]
            if a < 0:
                continue
            if nodes[p, lay.NS_PSIDE] == 1 - side:
                threat[a] += vis[p, VIS_ATT]
            elif nodes[p, lay.NS_PSIDE] == side:
                home[a] = 1
    for n in range(N):
        nf_rep[n] = -2   # filled on demand by _nf_nb
        nf_any[n] = -2


@njit(cache=True)
def _add_nb(co, cd, ct, nc, o, d, t):
    if nc < co.shape[0]:
        co[nc] = o
        cd[nc] = d
        ct[nc] = t
        nc += 1
    return nc


@njit(cache=True)
def _add_home_nb(side, at, mp, german, nodes, cost, adj, par, nf_rep, nf_any, co, cd, ct, nc):
    """Candidates that take a group home: stay anchored in a friendly port, anchor into a bordering
    friendly port, transit to the nearest port that repairs."""
    A = par[lay.P_NAREAS]
    NONE = np.int64(-1)
    if at >= A:
        nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, at, NONE)
    else:
        for p in range(A, nodes.shape[0]):
            if adj[at, p] != 0 and nodes[p, lay.NS_PSIDE] == side:
                nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, p, NONE)
    p = _nf_nb(at, side, german, np.bool_(True), nf_rep, nf_any, nodes, cost, par)
    if p >= 0 and p != at:
        nc = _add_nb(co, cd, ct, nc, lay.TRANSIT, p, NONE)
    p = _nf_nb(at, side, german, np.bool_(False), nf_rep, nf_any, nodes, cost, par)
    if p >= 0 and p != at:
        nc = _add_nb(co, cd, ct, nc, lay.TRANSIT, p, NONE)
    return nc


@njit(cache=True)
def _add_after_patrol_nb(side, at, n, german, nodes, adj, par, B, co, cd, ct, nc):
    """After a Patrol (5.4 D): coal where it is at sea (it keeps the area, 11 F bars only Transit),
    else anchor in a bordering friendly or neutral port, else anchor in place."""
    A = par[lay.P_NAREAS]
    NONE = np.int64(-1)
    if at < A:
        if B[8] + n <= par[lay.P_COALSEA0 + side]:
            nc = _add_nb(co, cd, ct, nc, lay.COAL, at, NONE)
        for p in range(A, nodes.shape[0]):
            if adj[at, p] != 0 and nodes[p, lay.NS_PSIDE] == side:
                nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, p, NONE)
        for p in range(A, nodes.shape[0]):
            if adj[at, p] != 0 and nodes[p, lay.NS_PSIDE] == lay.PSIDE_NEUTRAL:
                nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, p, NONE)
        nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, at, NONE)
        nc = _add_nb(co, cd, ct, nc, lay.COAL, at, NONE)
    else:
        nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, at, NONE)
        nc = _add_nb(co, cd, ct, nc, lay.COAL, at, NONE)
    return nc


@njit(cache=True)
def _pick_area_nb(score, n):
    best = -1
    bs = -(1 << 40)
    for a in range(n):
        if score[a] > bs:
            bs = score[a]
            best = a
    return best, bs


@njit(cache=True)
def _caribbean_base_nb(pol, at, nodes, cost, par):
    """The Spanish port a group heads for: fleet-in-being the Caribbean port (one bordering area,
    not an Atlantic one) with the most repair, nearest first on ties; historical the most heavily
    mined one nearest the group (Santiago from the Canary Islands in the standard pack)."""
    A = par[lay.P_NAREAS]
    base = -1
    bs = -(1 << 40)
    for p in range(A, nodes.shape[0]):
        if nodes[p, lay.NS_PSIDE] != lay.SPAIN or nodes[p, lay.NS_PAREA2] >= 0:
            continue
        if nodes[nodes[p, lay.NS_PAREA1], lay.NS_MP] >= 3:
            continue
        c = cost[lay.KMAX, at, p] if p != at else 0
        if pol == lay.POL_FLEET:
            v = 100 * nodes[p, lay.NS_REPAIR] - c
        else:
            v = 10 * nodes[p, lay.NS_MINE] - c
        if v > bs:
            bs = v
            base = p
    return base


@njit(cache=True)
def _missions_nb(pol, side, knob, turn, g, gmem, gn, gat, gstr, gdmg, ust, UV, nodes, adj, cost, par, vis, ND, B,
                 sent, acc, mask, mp, german, co, cd, ct, threat, home, nf_rep, nf_any, score):
    """Candidate (order, dest, target) triples for group ``g`` under policy ``pol``; returns how
    many. ``sent[N]`` is the attack (tenths) the side already sent to each node this turn;
    ``acc[0]`` the side's whole attack (tenths), ``acc[1]`` the part given the policy's main
    mission so far (blockade, raid, home defence)."""
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    at = gat[g]
    n = gn[g]
    st10 = 10 * gstr[g]
    nc = np.int64(0)
    NONE = np.int64(-1)
    only = mask & ALL_SEVEN
    # ---- forced follow-ups (5.2 D, 5.4 D, 5.5 D)
    if only == (1 << lay.COAL):
        return _add_nb(co, cd, ct, nc, lay.COAL, at, NONE)
    if only == ((1 << lay.COAL) | (1 << lay.ANCHOR)) or only == (1 << lay.ANCHOR):
        return _add_after_patrol_nb(side, at, n, german, nodes, adj, par, B, co, cd, ct, nc)
    if only == (1 << lay.TRANSIT) and UV[gmem[g, 0], lay.UF_PREV] == lay.RAID:
        p = _nf_nb(at, side, german, np.bool_(True), nf_rep, nf_any, nodes, cost, par)
        if p >= 0:
            nc = _add_nb(co, cd, ct, nc, lay.TRANSIT, p, NONE)
        p = _nf_nb(at, side, german, np.bool_(False), nf_rep, nf_any, nodes, cost, par)
        if p >= 0:
            nc = _add_nb(co, cd, ct, nc, lay.TRANSIT, p, NONE)
        for q in range(A, N):
            if nodes[q, lay.NS_PSIDE] == lay.PSIDE_NEUTRAL:
                nc = _add_nb(co, cd, ct, nc, lay.TRANSIT, q, NONE)
        return nc
    # ---- damaged groups go home to repair; a repairing group stays
    if at >= A and gdmg[g] > 0 and nodes[at, lay.NS_PSIDE] == side and nodes[at, lay.NS_REPAIR] > 0:
        nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, at, NONE)
    elif gdmg[g] > 0 and gdmg[g] * 3 >= gstr[g] + n:
        nc = _add_home_nb(side, at, mp, german, nodes, cost, adj, par, nf_rep, nf_any, co, cd, ct, nc)
    for a in range(A):
        score[a] = -(1 << 40)
    ratio = 1500 - knob   # permille: how much stronger a policy wants to be before it seeks battle
    share_ok = (acc[1] + st10) * 1000 <= knob * acc[0] + 500 * st10
    if side == lay.US:
        if pol == lay.POL_BLOCKADE and n >= 2 and share_ok:
            # blockade the Spanish port whose destruction pays best, one squadron per port
            best_p = -1
            best_a = -1
            bs = -(1 << 40)
            for p in range(A, N):
                if nodes[p, lay.NS_PSIDE] != lay.SPAIN or sent[p] > 0:
                    continue
                for j in range(2):
                    a = nodes[p, lay.NS_PAREA1 + j]
                    if a < 0:
                        continue
                    c = 0 if a == at else cost[lay.KMAX, at, a]
                    if c > mp:
                        continue
                    thr = threat[a] + 10 * nodes[p, lay.NS_ATT]
                    if st10 * 1000 < ratio * thr:
                        continue
                    v = 100 * (3 + nodes[p, lay.NS_DEF]) + 20 * vis[p, VIS_N] - 10 * c - thr // 10
                    if v > bs:
                        bs = v
                        best_p = p
                        best_a = a
            if best_p >= 0:
                sent[best_p] += st10
                acc[1] += st10
                nc = _add_nb(co, cd, ct, nc, lay.BLOCKADE, best_a, best_p)
        home_first = pol == lay.POL_COASTAL and share_ok
        for a in range(A):
            enemy = vis[a, VIS_ATT]
            v = -(1 << 40)
            if pol == lay.POL_COASTAL:
                # guard the areas off US ports, most where the enemy could strike from nearby
                if home[a] != 0 and home_first:
                    v = 400 + 10 * nodes[a, lay.NS_VP_SPAIN] + threat[a] // 2 - sent[a]
                else:
                    v = 100 * nodes[a, lay.NS_VP_US] - sent[a]
            else:
                v = 100 * nodes[a, lay.NS_VP_US] + (50 if sent[a] == 0 else -200)
            if enemy > 0:
                if st10 * 1000 >= ratio * enemy:
                    v2 = 200 + enemy - sent[a] // 2
                    if pol == lay.POL_HUNTER:
                        v2 += 400
                    if v2 > v:
                        v = v2
                else:
                    v = -(1 << 30)
            score[a] = v
        for _ in range(4):
            a, v = _pick_area_nb(score, A)
            if a < 0 or v < -(1 << 29):
                break
            nc = _add_nb(co, cd, ct, nc, lay.PATROL, a, NONE)
            score[a] = -(1 << 40)
        if home_first:
            acc[1] += st10
    else:
        # ---------------- Spain
        if pol == lay.POL_RAIDER and n >= 2 and share_ok:
            best_a = -1
            best_p = -1
            bs = -(1 << 40)
            for p in range(A, N):
                if nodes[p, lay.NS_PSIDE] != lay.US:
                    continue
                for j in range(2):
                    a = nodes[p, lay.NS_PAREA1 + j]
                    if a < 0 or sent[a] > 0:
                        continue
                    c = 0 if a == at else cost[lay.KMAX, at, a]
                    if c > mp:
                        continue
                    # a raider must get home next turn (5.5 D)
                    h = _nf_nb(a, side, german, np.bool_(False), nf_rep, nf_any, nodes, cost, par)
                    if h < 0 or cost[lay.KMAX, a, h] > mp:
                        continue
                    thr = threat[a]
                    if st10 * 1000 < ratio * thr:
                        continue
                    v = 100 * (nodes[a, lay.NS_VP_SPAIN] + 3 + nodes[p, lay.NS_DEF]) - thr - 5 * c
                    if v > bs:
                        bs = v
                        best_a = a
                        best_p = p
            if best_a >= 0:
                acc[1] += st10
                nc = _add_nb(co, cd, ct, nc, lay.RAID, best_a, best_p)
        if pol == lay.POL_FLEET or pol == lay.POL_HISTORICAL:
            base = _caribbean_base_nb(pol, at, nodes, cost, par)
            if at >= A and nodes[at, lay.NS_PAREA2] >= 0:
                # Cadiz or the Canary Islands: fleet-in-being crosses (in stages), historical only
                # sends what reaches the base in one move (Cervera; Camara stays in Cadiz)
                if base >= 0 and cost[lay.KMAX, at, base] <= mp:
                    nc = _add_nb(co, cd, ct, nc, lay.TRANSIT, base, NONE)
                elif base >= 0 and pol == lay.POL_FLEET:
                    bst = -1
                    bc = lay.BIG
                    for a in range(A):
                        if cost[lay.KMAX, at, a] <= mp and cost[lay.KMAX, a, base] < bc:
                            bc = cost[lay.KMAX, a, base]
                            bst = a
                    if bst >= 0:
                        nc = _add_nb(co, cd, ct, nc, lay.TRANSIT, bst, NONE)
                nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, at, NONE)
            elif at < A:
                if base >= 0:
                    nc = _add_nb(co, cd, ct, nc, lay.TRANSIT, base, NONE)
            else:
                # in a Caribbean port: strike (sortie or patrol) where the odds are good
                for a in range(A):
                    if adj[at, a] == 0:
                        continue
                    enemy = vis[a, VIS_ATT]
                    if enemy > 0 and st10 * 1000 >= ratio * enemy and n >= 2:
                        nc = _add_nb(co, cd, ct, nc, lay.SORTIE, a, NONE)
                        nc = _add_nb(co, cd, ct, nc, lay.PATROL, a, NONE)
                if pol == lay.POL_FLEET and n >= 2:
                    for a in range(A):
                        if (adj[at, a] != 0 and vis[a, VIS_N] == 0 and nodes[a, lay.NS_VP_SPAIN] > 0
                                and threat[a] == 0):
                            nc = _add_nb(co, cd, ct, nc, lay.PATROL, a, NONE)
                nc = _add_nb(co, cd, ct, nc, lay.ANCHOR, at, NONE)
        if pol == lay.POL_RAIDER:
            # between raids: hold the sea lanes that pay Spain, where the odds allow
            for a in range(A):
                enemy = threat[a]
                if nodes[a, lay.NS_VP_SPAIN] == 0 or sent[a] > 0:
                    continue
                if enemy == 0 or st10 * 1000 >= ratio * enemy:
                    score[a] = 100 * nodes[a, lay.NS_VP_SPAIN] - enemy - 10 * cost[lay.KMAX, at, a]
            for _ in range(3):
                a, v = _pick_area_nb(score, A)
                if a < 0 or v < -(1 << 29):
                    break
                nc = _add_nb(co, cd, ct, nc, lay.PATROL, a, NONE)
                score[a] = -(1 << 40)
    # ---- safe fallbacks
    nc = _add_home_nb(side, at, mp, german, nodes, cost, adj, par, nf_rep, nf_any, co, cd, ct, nc)
    nc = _add_after_patrol_nb(side, at, n, german, nodes, adj, par, B, co, cd, ct, nc)
    return nc


ALL_SEVEN = (1 << 7) - 1


@njit(cache=True)
def scripted_plan_nb(pol, side, turn, knob, ust, lst, nodes, adj, cost, par, UV, LV, vis, ND, B, pu, pp, pst, pl, rng):
    """The scripted policies (module docstring). Returns the number of stacks."""
    N = nodes.shape[0]
    _reset_plan_nb(B, pu, pp)
    gmem = np.empty((MAXSS, lay.MAXPER), dtype=np.int64)
    gn = np.zeros(MAXSS, dtype=np.int64)
    gat = np.zeros(MAXSS, dtype=np.int64)
    gstr = np.zeros(MAXSS, dtype=np.int64)
    gdmg = np.zeros(MAXSS, dtype=np.int64)
    ng = _group_units_nb(side, ust, UV, nodes, par, gmem, gn, gat, gstr, gdmg)
    # leaders: the best leader at a place goes to its strongest group (6.2 B)
    gld = np.full(MAXSS, -1, dtype=np.int64)
    # strongest groups first (they get the markers and the best missions)
    gorder = np.argsort(-gstr[:ng] * 64 - gn[:ng], kind="mergesort")
    for i in range(lst.shape[0]):
        pl[i] = -1
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] != side or LV[i, lay.LF_STATE] != lay.LEADER_IN_PLAY:
            continue
        loc = UV[LV[i, lay.LF_UNIT], lay.UF_LOC]
        best = -1
        for jj in range(ng):
            j = gorder[jj]
            if gat[j] != loc:
                continue
            if best < 0:
                best = j
            if gld[j] < 0 or lst[gld[j], lay.LS_STARS] < lst[i, lay.LS_STARS]:
                best = j
                break
        if best >= 0:
            if gld[best] < 0 or lst[gld[best], lay.LS_STARS] < lst[i, lay.LS_STARS]:
                gld[best] = i
            pl[i] = best
    A = par[lay.P_NAREAS]
    threat = np.empty(A, dtype=np.int64)
    home = np.empty(A, dtype=np.int64)
    nf_rep = np.empty(N, dtype=np.int64)
    nf_any = np.empty(N, dtype=np.int64)
    score = np.empty(A, dtype=np.int64)
    _turn_tables_nb(side, vis, nodes, cost, par, threat, home, nf_rep, nf_any)
    sent = np.zeros(N, dtype=np.int64)
    acc = np.zeros(2, dtype=np.int64)
    for j in range(ng):
        acc[0] += 10 * gstr[j]
    co = np.empty(MAXC, dtype=np.int64)
    cd = np.empty(MAXC, dtype=np.int64)
    ct = np.empty(MAXC, dtype=np.int64)
    od = np.empty(4 * N, dtype=np.int64)
    ot = np.empty(4 * N, dtype=np.int64)
    enemy_n = np.ascontiguousarray(vis[:, VIS_N])
    markers = np.empty((2, 7), dtype=np.int64)
    for s in range(2):
        for o in range(7):
            markers[s, o] = par[lay.P_MARKERS + s * 7 + o]
    slot = np.full(MAXSS, -1, dtype=np.int64)
    for jj in range(ng):
        g = gorder[jj]
        slot[g] = jj
        n = gn[g]
        mask, mp, at, iu_after, prev_raid, locked, german, ok = stack_facts_nb(side, gmem[g], n, ust, UV, par)
        nc = _missions_nb(pol, side, knob, turn, g, gmem, gn, gat, gstr, gdmg, ust, UV, nodes, adj, cost, par, vis,
                          ND, B, sent, acc, mask, mp, german, co, cd, ct, threat, home, nf_rep, nf_any, score)
        chosen = False
        for c in range(nc):
            if order_ok_nb(side, co[c], cd[c], ct[c], mask, mp, at, n, iu_after, prev_raid, locked, german, B,
                           enemy_n, ust, nodes, adj, cost, markers, par) == lay.ERR_NONE:
                pst[jj, PS_ORDER] = co[c]
                pst[jj, PS_DEST] = cd[c]
                pst[jj, PS_TARGET] = ct[c]
                chosen = True
                break
        if not chosen:
            for o in (lay.ANCHOR, lay.COAL, lay.TRANSIT, lay.PATROL, lay.SORTIE, lay.RAID, lay.BLOCKADE):
                k = legal_options_nb(side, o, mask, mp, at, n, iu_after, prev_raid, locked, german, B, enemy_n,
                                     ust, nodes, adj, cost, markers, par, od, ot)
                if k > 0:
                    pst[jj, PS_ORDER] = o
                    pst[jj, PS_DEST] = od[0]
                    pst[jj, PS_TARGET] = ot[0]
                    chosen = True
                    break
        if chosen:
            budget_commit_nb(pst[jj, PS_ORDER], n, at, german, B, nodes, par)
            o = pst[jj, PS_ORDER]
            if o == lay.PATROL or o == lay.RAID or o == lay.BLOCKADE or o == lay.SORTIE:
                sent[pst[jj, PS_DEST]] += 10 * gstr[g]
        else:
            pst[jj, PS_ORDER] = lay.HOLD
            pst[jj, PS_DEST] = at
            pst[jj, PS_TARGET] = -1
        pst[jj, PS_JOIN] = 1
        for i in range(n):
            u = gmem[g, i]
            pu[u] = jj
            pp[u] = i
    for i in range(lst.shape[0]):
        if pl[i] >= 0:
            pl[i] = slot[pl[i]]
    return ng


# ============================================================================ free deployment (14.11)
@njit(cache=True)
def _place_leaders_nb(side, nnodes, ust, lst, UV, LV, dep, dlead, sea):
    """Leaders, most stars first, aboard the strongest unit of each place in turn (richest places
    first); at most one leader goes to sea (14.11 B)."""
    nu = ust.shape[0]
    tot = np.zeros(nnodes, dtype=np.int64)
    for u in range(nu):
        if ust[u, lay.US_SIDE] == side and UV[u, lay.UF_LOC] >= 0 and ust[u, lay.US_GERMAN] & 1 == 0:
            tot[dep[u]] += eff_att_nb(ust, UV, u) + 1
    used = np.zeros(nnodes, dtype=np.int64)
    order = np.argsort(-lst[:, lay.LS_STARS], kind="mergesort")
    sea_taken = False
    for ii in range(lst.shape[0]):
        i = order[ii]
        if lst[i, lay.LS_SIDE] != side or LV[i, lay.LF_STATE] != lay.LEADER_IN_PLAY or lst[i, lay.LS_GERMAN]:
            continue
        best = -1
        bk = -(1 << 40)
        for n in range(nnodes):
            if tot[n] <= 0 or (n == sea and sea_taken):
                continue
            k = tot[n] - 1000 * used[n]
            if k > bk:
                bk = k
                best = n
        u_best = -1
        ks = -(1 << 40)
        for u in range(nu):
            if ust[u, lay.US_SIDE] == side and UV[u, lay.UF_LOC] >= 0 and ust[u, lay.US_GERMAN] & 1 == 0 \
                    and dep[u] == best:
                k = -strength_key_nb(ust, UV, u)
                if k > ks:
                    ks = k
                    u_best = u
        dlead[i] = u_best
        used[best] += 1
        if best == sea:
            sea_taken = True


@njit(cache=True)
def deploy_plan_nb(pol, side, ust, lst, nodes, cost, par, UV, LV, dep, dlead, rng):
    """A policy's set-up under 14.11 (Free Deployment): ``dep[u]`` node per unit, ``dlead[i]``
    unit per leader. US: ``blockade`` and ``hunter`` gather at the Caribbean base nearest Spain's
    islands (Key West in the standard pack) with the monitors home, ``coastal-defense`` splits the
    fleet between its two largest ports; each puts its six fastest ships at sea (14.11 B) off the
    port it guards. Spain: ``raider`` splits fast ships between its home base and its best
    Caribbean base, ``fleet-in-being`` gathers in the Caribbean base, ``historical`` keeps the
    printed start; ``random-legal`` places at random."""
    nu = ust.shape[0]
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    ports = np.empty(N, dtype=np.int64)
    np_ = 0
    for p in range(A, N):
        if nodes[p, lay.NS_PSIDE] == side:
            ports[np_] = p
            np_ += 1
    # ranked own ports: most repair first
    for i in range(1, np_):
        p = ports[i]
        j = i - 1
        while j >= 0 and nodes[ports[j], lay.NS_REPAIR] < nodes[p, lay.NS_REPAIR]:
            ports[j + 1] = ports[j]
            j -= 1
        ports[j + 1] = p
    key = np.empty(nu, dtype=np.int64)
    for u in range(nu):
        key[u] = strength_key_nb(ust, UV, u)
    order = np.argsort(key, kind="mergesort")
    sea = -1
    rank = 0
    # the Caribbean port nearest the enemy's islands / the US fleet's forward base
    fwd = ports[0]
    bc = lay.BIG
    for i in range(np_):
        p = ports[i]
        c = 0
        for q in range(A, N):
            if nodes[q, lay.NS_PSIDE] == 1 - side:
                c += cost[lay.KMAX, p, q] if cost[lay.KMAX, p, q] < lay.BIG else 0
        if c < bc:
            bc = c
            fwd = p
    for ii in range(nu):
        u = order[ii]
        if ust[u, lay.US_SIDE] != side or UV[u, lay.UF_LOC] < 0:
            continue
        if ust[u, lay.US_GERMAN] & 1:
            dep[u] = UV[u, lay.UF_LOC]
            continue
        slow = ust[u, lay.US_MOV] <= 3
        if pol == lay.POL_RANDOM:
            dep[u] = ports[die_nb(rng, np_) - 1]
        elif pol == lay.POL_HISTORICAL:
            dep[u] = ust[u, lay.US_START] if ust[u, lay.US_START] >= A else fwd
        elif pol == lay.POL_FLEET:
            dep[u] = _caribbean_base_nb(pol, ust[u, lay.US_START], nodes, cost, par)
            if dep[u] < 0:
                dep[u] = fwd
        elif pol == lay.POL_RAIDER:
            home = ports[0]
            dep[u] = home if (slow or rank % 2 == 0) else _caribbean_base_nb(lay.POL_FLEET, home, nodes, cost, par)
            if dep[u] < 0:
                dep[u] = home
        elif pol == lay.POL_COASTAL:
            dep[u] = ports[rank % 2] if np_ > 1 else ports[0]
        else:
            dep[u] = ports[0] if slow and np_ > 0 and ports[0] != fwd else fwd
        rank += 1
    if side == lay.US:
        # the squadron at sea (14.11 B): the six fastest ships, off the port the policy guards
        guard = ports[0] if pol == lay.POL_COASTAL else fwd
        if pol == lay.POL_RANDOM and die_nb(rng, 2) == 1:
            guard = -1
        if guard >= 0:
            sea = nodes[guard, lay.NS_PAREA1]
            if pol == lay.POL_RANDOM:
                k = die_nb(rng, 6)
            else:
                k = 6
            movs = np.empty(nu, dtype=np.int64)
            for u in range(nu):
                movs[u] = -(ust[u, lay.US_MOV] * 100 + ust[u, lay.US_ATT])
            fast = np.argsort(movs, kind="mergesort")
            placed = 0
            for ii in range(nu):
                u = fast[ii]
                if placed >= k:
                    break
                if ust[u, lay.US_SIDE] != side or UV[u, lay.UF_LOC] < 0 or ust[u, lay.US_GERMAN] & 1:
                    continue
                dep[u] = sea
                placed += 1
    for i in range(lst.shape[0]):
        dlead[i] = -1
    _place_leaders_nb(side, N, ust, lst, UV, LV, dep, dlead, sea)


# ============================================================================ dispatch
@njit(cache=True)
def policy_plan_nb(pol, side, turn, knob, ust, lst, nodes, adj, cost, nh, matrix, markers, par, UV, LV, vis, ND,
                   B, pu, pp, pst, pl, rng):
    """Write ``side``'s plan with policy ``pol`` (``lay.POL_*``); returns the number of stacks.
    ``ND`` is read only for its public control markers."""
    if pol == lay.POL_RANDOM:
        return random_plan_nb(side, ust, lst, nodes, adj, cost, markers, par, UV, LV, vis, B, pu, pp, pst, pl, rng)
    return scripted_plan_nb(pol, side, turn, knob, ust, lst, nodes, adj, cost, par, UV, LV, vis, ND, B, pu, pp, pst,
                            pl, rng)


__all__ = ["VIS_NF", "deploy_plan_nb", "observe_nb", "policy_plan_nb", "random_plan_nb", "scripted_plan_nb"]
