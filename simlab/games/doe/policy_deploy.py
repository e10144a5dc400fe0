"""Free deployment (optional rule 14.11) by the Dawn of Empire policies (numba kernels).

:func:`deploy_plan_nb` writes a side's set-up: a node per unit and a unit per leader; the engine
checks it against 14.11 A-C (:func:`campaign_movement.apply_deployment_nb`).
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from . import campaign_layout as lay
from . import policy_layout as pk
from .campaign_movement import strength_key_nb
from .campaign_orders import (
    eff_att_nb,
)
from .dice import die_nb
from .policy_missions import caribbean_base_nb


# ============================================================================ free deployment (14.11)
@kernel(nrt=True)
def place_leaders_nb(side, nnodes, ust, lst, UV, LV, dep, dlead, sea):
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


@kernel(nrt=True)   # allocates: reference counting kept under a nrt=False caller
def deploy_plan_nb(fam, side, kn, pt, UV, LV, dep, dlead, rng):
    """A policy's set-up under 14.11 (Free Deployment): ``dep[u]`` node per unit, ``dlead[i]``
    unit per leader, for family ``fam`` (``FAM_*``) with knobs ``kn`` (``int64[KN_NF]``).

    The knob ``deploy`` picks the plan. US: 0 (``blockade``, ``hunter``) gathers at the Caribbean
    base nearest Spain's islands (Key West in the standard pack) with the slow ships (``slow_mp``)
    home, 1 (``coastal-defense``) splits the fleet between its two ports with most repair; each
    puts its ``sea_squadron`` fastest ships at sea (14.11 B) off the port it guards (the forward
    base, or with 1 the home port). Spain: 0 (``historical``) keeps the printed start, 1
    (``fleet-in-being``) gathers in the Caribbean base (:func:`caribbean_base_nb`), 2 (``raider``)
    splits the fast ships between its home base and that base. ``random-legal`` places at random.
    ``pt``: :class:`policies.PolicyTables` (``ust``, ``lst``, ``nodes``, ``cost``, ``par`` are
    read); ``UV``, ``LV``: the side's view (:func:`policy_view.observe_own_nb`)."""
    ust, lst, nodes, cost, par = pt.ust, pt.lst, pt.nodes, pt.cost, pt.par
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
    plan = kn[pk.K_DEPLOY]
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
        slow = ust[u, lay.US_MOV] <= kn[pk.K_SLOW_MP]
        if fam == pk.FAM_RANDOM:
            dep[u] = ports[die_nb(rng, np_) - 1]
        elif side != lay.US and plan == 0:
            dep[u] = ust[u, lay.US_START] if ust[u, lay.US_START] >= A else fwd
        elif side != lay.US and plan == 1:
            dep[u] = caribbean_base_nb(kn, ust[u, lay.US_START], nodes, cost, par)
            if dep[u] < 0:
                dep[u] = fwd
        elif side != lay.US:
            home = ports[0]
            dep[u] = home if (slow or rank % 2 == 0) else caribbean_base_nb(kn, home, nodes, cost, par)
            if dep[u] < 0:
                dep[u] = home
        elif plan == 1:
            dep[u] = ports[rank % 2] if np_ > 1 else ports[0]
        else:
            dep[u] = ports[0] if slow and np_ > 0 and ports[0] != fwd else fwd
        rank += 1
    if side == lay.US:
        # the squadron at sea (14.11 B): the sea_squadron fastest ships, off the port the policy guards
        guard = ports[0] if (fam != pk.FAM_RANDOM and plan == 1) else fwd
        if fam == pk.FAM_RANDOM and die_nb(rng, 2) == 1:
            guard = -1
        if guard >= 0:
            sea = nodes[guard, lay.NS_PAREA1]
            if fam == pk.FAM_RANDOM:
                k = die_nb(rng, 6)
            else:
                k = kn[pk.K_SEA_SQUADRON]
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
    place_leaders_nb(side, N, ust, lst, UV, LV, dep, dlead, sea)
