"""What a Dawn of Empire policy sees and how it groups its units (numba kernels, suffix ``_nb``).

* :func:`observe_nb`: the side's view under the standard rules (13.0 D: enemy counters face down,
  so a policy sees how many enemy units stand at each place, the public control markers and how
  many enemy units of each type are afloat) or under 14.6 Fog of War (face up: each place's
  enemy attack, damage and leader stars). The record ``vis[N, VIS_NF]`` is laid out below.
* :func:`group_units_nb`: the side's units at each place grouped by the orders they may take
  (5.1-5.7 sequences), by speed and by whether they repair where they are (9.0).
* :func:`turn_tables_nb` and :func:`nearest_friendly_memo_nb`: per-plan tables (threat per area,
  areas off own ports) and a per-batch memo (each node's nearest friendly port, 7.2).

Policy code: it imports the rules (:mod:`campaign_orders`, :mod:`campaign_movement`) and is
imported by no rules module.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from . import campaign_layout as lay
from . import policy_layout as pk
from .campaign_movement import sort_line_nb, strength_key_nb
from .campaign_orders import (
    eff_att_nb,
    unit_allowed_nb,
)

# the view record vis[N, :]: enemy units, their attack (tenths), the best enemy leader's stars, their defense
VIS_N, VIS_ATT, VIS_STARS, VIS_DEF, VIS_NF = range(5)


# ============================================================================ observation
@kernel
def observe_nb(side, U, LD, ust, lst, par, UV, LV, vis):
    """What ``side`` may know (module docstring): ``UV``/``LV`` (``int64[U, UF_NF]``,
    ``int64[L, LF_NF]``) are copies of the unit and leader state with the enemy's rows blanked
    (location -9); ``vis[N, VIS_NF]`` per node: enemy units, their attack and defense (face up
    under 14.6, else the count times the mean printed values of the enemy units still afloat),
    the best enemy leader's stars (14.6 only). :func:`blank_view_nb` then
    :func:`observe_own_nb`."""
    blank_view_nb(side, ust, lst, UV, LV)
    observe_own_nb(side, U, LD, ust, lst, par, UV, LV, vis)


@kernel
def blank_view_nb(side, ust, lst, UV, LV):
    """The enemy's rows of ``side``'s view: unit location -9, stack -1, the rest 0; leader unit -1,
    state -9. They never change, so a view kept for one side (``UV[2, U, UF_NF]`` in
    :func:`campaign_loop.play_campaigns_nb`) is blanked once and then refreshed by
    :func:`observe_own_nb`, which writes only the side's own rows."""
    for u in range(ust.shape[0]):
        if ust[u, lay.US_SIDE] != side:
            for f in range(lay.UF_NF):
                UV[u, f] = 0
            UV[u, lay.UF_LOC] = -9
            UV[u, lay.UF_STACK] = -1
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] != side:
            LV[i, lay.LF_UNIT] = -1
            LV[i, lay.LF_STATE] = -9


@kernel
def observe_own_nb(side, U, LD, ust, lst, par, UV, LV, vis):
    """:func:`observe_nb` on a view whose enemy rows :func:`blank_view_nb` already blanked: copies
    the side's own unit and leader rows into ``UV``, ``LV`` and writes ``vis``."""
    nu = ust.shape[0]
    face_up = par[lay.P_FACEUP] != 0
    for u in range(nu):
        if ust[u, lay.US_SIDE] == side:
            for f in range(lay.UF_NF):
                UV[u, f] = U[u, f]
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] == side:
            LV[i, lay.LF_UNIT] = LD[i, lay.LF_UNIT]
            LV[i, lay.LF_STATE] = LD[i, lay.LF_STATE]
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


# ============================================================================ groups
# Groups: at each place a side's units are grouped by the orders they may take (5.x sequences), by
# speed (units of slow_mp MP or less apart, 3 by default, 18.1.4 A) and by whether they are damaged in a
# port that repairs (they stay to repair). Groups are handled strongest first; a policy lists
# candidate (order, destination, target) triples in preference order and the first legal one is
# taken, then safe fallbacks, then any legal option, then HOLD (ruling C12).


@kernel
def group_strength_nb(ust, UV, members, n):
    s = 0
    for i in range(n):
        s += eff_att_nb(ust, UV, members[i])
    return s


@kernel
def group_units_nb(side, kn, ust, UV, nodes, par, gmem, pw):
    """Groups as described above; returns how many (members in ``gmem[g, :gn[g]]``, with ``gn``,
    ``gat``, ``gstr``, ``gdmg`` the rows ``PW_GN``... of the policy scratch ``pw``,
    :mod:`policy_layout`). Knobs ``kn[K_SLOW_MP]`` (MP: slow units are grouped apart) and
    ``kn[K_SPLIT_ABOVE]`` (units: a larger group is split in two of even strength); with
    ``kn[K_IU_JOIN]`` = 0 a unit alone in its group is not added to a larger one (it stays an IU,
    7.4 A, E)."""
    nu = ust.shape[0]
    N = nodes.shape[0]
    A = par[lay.P_NAREAS]
    transit_max = par[lay.P_TRANSIT_MAX]
    minmov = par[lay.P_MINMOV_R] if par[lay.P_RESTRICT] else par[lay.P_MINMOV]
    slow_mp = kn[pk.K_SLOW_MP]
    split_above = kn[pk.K_SPLIT_ABOVE]
    ng = 0
    gn, gat, gstr, gdmg, gkey = pw[pk.PW_GN], pw[pk.PW_GAT], pw[pk.PW_GSTR], pw[pk.PW_GDMG], pw[pk.PW_GKIND]
    # the side's units in play by place, strongest first at each place (ties in unit order):
    # place n's units are byn[start[n]:start[n + 1]]. A counting sort by place in unit order,
    # then a stable sort of each place's units by strength: the same order as sorting all the
    # units by strength and then (stably) by place, on shorter lines.
    key = pw[pk.PW_UKEY]
    start, fill, byn = pw[pk.PW_START], pw[pk.PW_FILL], pw[pk.PW_BYN]
    for n in range(N + 1):
        start[n] = 0
    for u in range(nu):
        if ust[u, lay.US_SIDE] == side and UV[u, lay.UF_LOC] >= 0:
            key[u] = strength_key_nb(ust, UV, u)
            start[UV[u, lay.UF_LOC] + 1] += 1
    for n in range(N):
        start[n + 1] += start[n]
        fill[n] = start[n]
    for u in range(nu):
        if ust[u, lay.US_SIDE] == side and UV[u, lay.UF_LOC] >= 0:
            loc = UV[u, lay.UF_LOC]
            byn[fill[loc]] = u
            fill[loc] += 1
    for n in range(N):
        if start[n + 1] - start[n] > 1:
            sort_line_nb(byn[start[n]:start[n + 1]], start[n + 1] - start[n], key)
    for node in range(N):
        if start[node + 1] == start[node]:
            continue
        first = ng
        for ii in range(start[node], start[node + 1]):
            u = byn[ii]
            m = unit_allowed_nb(UV[u, lay.UF_PREV], UV[u, lay.UF_STREAK], UV[u, lay.UF_NEUTRAL], transit_max)
            mv = ust[u, lay.US_MOV] - UV[u, lay.UF_DMG]
            if mv < minmov and ust[u, lay.US_MOV] >= minmov:
                mv = minmov
            tier = 0 if mv <= slow_mp else 1
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
        # a lone unit joins the largest group here whose orders it does not restrict; with the knob
        # iu_join = 0 it stays an independent unit (7.4 E: "remain separate to continue with
        # Transit orders in a following turn")
        for h in range(first, ng):
            if gn[h] != 1 or kn[pk.K_IU_JOIN] == 0:
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
        # a group of more than split_above splits in two of even strength (squadrons that can coal at sea)
        for h in range(first, ng):
            if gn[h] > split_above and ng < gmem.shape[0]:
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


@kernel
def nearest_friendly_nb(at, side, german, need_repair, nodes, cost, par):
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


@kernel(inline="always")
def nearest_friendly_memo_nb(at, side, german, need_repair, pw, nodes, cost, par):
    """Nearest friendly port from ``at``: a memo of :func:`nearest_friendly_nb` in rows
    ``PW_NFREP``, ``PW_NFANY`` of the policy scratch ``pw`` (slot ``side * N + at``; -2: not
    worked out yet), or worked out for German-only groups. It depends only on the map (ports,
    their side and repair, the MP table), so the memo lasts the whole batch
    (:func:`policies.policy_scratch_nb` starts it empty)."""
    if german and par[lay.P_GERMANS] != 0:
        return nearest_friendly_nb(at, side, german, need_repair, nodes, cost, par)
    r = pk.PW_NFREP if need_repair else pk.PW_NFANY
    k = side * nodes.shape[0] + at
    if pw[r, k] == -2:
        pw[r, k] = nearest_friendly_nb(at, side, np.bool_(False), need_repair, nodes, cost, par)
    return pw[r, k]


@kernel(inline="always")
def turn_tables_nb(side, vis, nodes, par, threat, home):
    """Per plan: enemy attack each area faces (units there and in bordering enemy ports, tenths)
    and areas bordering an own port."""
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

