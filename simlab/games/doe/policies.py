"""Scripted policies of the Dawn of Empire campaign (numba kernels, suffix ``_nb``).

A policy writes its side's plan for the orders phase (the plan format is in
:mod:`campaign_orders`). It sees only what its side may know under the standard rules
(:func:`policy_view.observe_nb`): its own units, leaders, order history and damage; for the enemy, how many
units stand at each place (the face-down stacks on the map), the public control markers, and how
many enemy units of each type are still afloat (sinkings are revealed). Under optional rule 14.6
(Fog of War) enemy counters are face up, so the policy also sees each place's enemy attack,
damage and leader stars. Enemy orders are never shown to a policy, and no policy looks at the VP
track (so the ``handicap`` option only shifts the score).

Every plan a policy writes is checked by the engine (:func:`campaign_movement.install_plan_nb`); a
policy that writes an illegal plan stops the game with an error. Policies use the engine's own
legality functions to stay legal.

Policies as data. The policies are *presets* of three *families* declared in ``policies.toml``
(every knob there with its default, bounds and unit; the kernels read them by slot,
:mod:`policy_layout`):

* ``random-legal`` (both sides, no knobs): random stacks, a uniformly random legal order, then a
  uniformly random legal destination (:func:`random_plan_nb`).
* ``us-fleet`` and ``spain-fleet`` (:func:`scripted_plan_nb`): units grouped by place, strongest
  group first; each group takes the first legal candidate of :func:`policy_missions.missions_nb`.

Why two scripted families with flag knobs rather than one family per preset: the six named
policies were one kernel whose branches on the policy's name (``pol == POL_BLOCKADE``...) each
switched one behaviour on. Each such branch is now an integer knob of the side's family (0/1
flags, or a small plan number such as ``deploy``), and each number the policies used (the odds
wanted, the mission scores, the candidate counts) is a knob holding its old value, so a search
can mix behaviours (a blockading hunter, a raider that concentrates) without new code, and the
presets reproduce the old rows exactly. The family (random or scripted) is the only thing a
kernel still dispatches on; the side picks the US or Spanish missions.

* US ``hunter`` (``attack_value = 600``): squadrons patrol toward the largest enemy
  concentrations they can match (estimated strength ratio at least ``odds - aggression``
  permille, 1.5 - 0.5 by default), coal or anchor after each patrol.
* US ``blockade`` (``blockade = 1``, ``blockade_rotate = 1``): squadrons blockade the Spanish
  ports they can reach, coal off them the next turn (a blockade is followed by Coal, 5.2 D) and
  blockade again; the rest patrol. ``aggression``: share of the fleet sent to blockade. Rotated
  within the coaling limit (7.5 C: the US coals 11 units at sea a turn): no more units blockade
  in a turn than may coal the next, the blockaders that must coal are planned first, those over
  the limit sail to coal in port (7.5 D) and a fresh squadron relieves their port
  (``blockade_relief``); no squadron is sent to a port its own squadron coals off (7.3 C would
  merge the two and drop the Coal order).
* US ``coastal-defense`` (``guard_coast = 1``, ``deploy = 1``, ``guard_sized = 1500``): the
  strongest squadrons patrol the areas off US ports against raids (15.0: 'the US side must be on
  guard') until their attack is 1.5 times the Spanish attack seen within ``guard_reach`` MP of
  them (face-down stacks: the count times the mean of the Spanish units afloat), the rest patrol
  the lanes that pay the US. With ``guard_sized = 0`` the guard is the ``aggression`` share.
* Spain ``raider`` (``raids = 1``, ``hold_lanes = 1``, ``deploy = 2``): the Cadiz forces raid
  the US coast (Hampton Roads, Key West, Mobile) and come home (Raid is followed by Transit to
  port, 5.5 D); the Caribbean squadrons raid from Havana and hold the lanes that pay Spain.
  ``aggression``: share of each port's force that raids.
* Spain ``fleet-in-being`` (``concentrate = 1``, ``cross_in_stages = 1``, ``patrol_home = 1``,
  ``deploy = 1``): concentrate in the Caribbean port with most repair, anchored; strike (sortie,
  patrol into the neighbouring area) only where the local estimate favours Spain by
  ``odds - aggression``.
* Spain ``historical`` (``concentrate = 1``, ``base_repair = 0``, ``base_mines = 10``): Cervera
  sails for the most heavily mined Caribbean port (Santiago) and anchors, Camara stays in Cadiz,
  the Caribbean squadrons stay in port (sortie only against blockaders).

The player choices of issue 28 (``decisions.toml``), in both scripted families: a port's garrison
(``garrison``, ``garrison_mp``, ``garrison_send``; :func:`mark_garrisons_nb`, 5.1 A), Blockade
orders for either side (``blockade`` and its scores; Spain had none) and Raid orders for either
side (``raids`` and its scores; the US had none), both by the same planning code
(:func:`policy_missions.missions_nb`), and Coal or Anchor after a Patrol (``after_patrol``, 5.4 D,
7.5 C). The gaps closed next (both families): the line order of each stack (``line_order``,
4.1.2 B, D: strongest or weakest on top), the stack each leader goes with (``leader_group``,
4.1.2 C), whether an independent unit joins the friends it meets (``iu_join``, 7.4 E: the plan's
join flag), the port a raider goes home to (``raid_home``, 5.5 D,
:func:`policy_missions.missions_nb`), and two choices the engine applies for the side from ``par``
(set by :func:`runtime.build_par`): which units its ports repair first (``repair_order``, 9.0 B-C,
:func:`policy_combat.repair_key_nb`) and whose order two equal combining squadrons keep
(``merge_keep``, 7.3 C, :func:`campaign_movement.combine_side_nb`). Their defaults keep the plans
of before. The orders and movement choices (:mod:`policy_routes`, :func:`_scripted_route_nb`): the
route of every move (``route``, 7.1 F: the least MP, or around the areas that may halt the
squadron), where a Patrol stops (``patrol_stop``, 5.4 B) and drop-offs on the way (``drop_off``,
7.3 D); their defaults name no route (the least-MP route, ruling C8) and no drop-off.

Every knob value in ``[lo, hi]`` gives legal plans: a candidate is taken only if the rules allow
it (:func:`campaign_orders.order_ok_nb`), and the engine checks the whole plan again.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.jit import kernel

from . import campaign_layout as lay
from . import policy_layout as pk
from .campaign_movement import sort_line_nb
from .campaign_orders import (
    MAXSS,
    PS_DEST,
    PS_JOIN,
    PS_ORDER,
    PS_TARGET,
    OrderTables,
    budget_commit_nb,
    eff_att_nb,
    eff_mov_nb,
    facts_nb,
    legal_options_nb,
    minmov_nb,
    order_ok_nb,
    unit_allowed_nb,
)
from .dice import die_nb
from .policy_missions import MAXC, missions_nb, missions_tail_nb
from .policy_routes import ROUTE_AVOID, ROUTE_LEAST, ROUTE_RANDOM, avoid_row_nb, put_route_nb, route_pick_nb
from .policy_view import VIS_ATT, VIS_N, group_units_nb, turn_tables_nb


# ============================================================================ bundles (issue 27)
class PolicyTables(NamedTuple):
    """The scenario's tables a policy reads (all ``int64``, :mod:`campaign_layout`): ``ust[U, US_NF]``,
    ``lst[L, LS_NF]``, ``nodes[N, NS_NF]``, ``adj[N, N]``, ``cost[K + 1, N, N]``,
    ``markers[2, N_ORDERS]`` (public, 5.0 B) and ``par[P_NF]`` (no knobs: a policy has its own
    side's, ``kn``)."""

    ust: np.ndarray
    lst: np.ndarray
    nodes: np.ndarray
    adj: np.ndarray
    cost: np.ndarray
    markers: np.ndarray
    par: np.ndarray


class PolicyView(NamedTuple):
    """What a side may see at the orders (:func:`policy_view.observe_nb`): ``UV[U, UF_NF]``,
    ``LV[L, LF_NF]`` (its own units and leaders; enemy rows blanked), ``vis[N, VIS_NF]`` (the enemy
    seen per place) and ``ND[N, ND_NF]``, read only for its public control markers."""

    UV: np.ndarray
    LV: np.ndarray
    vis: np.ndarray
    ND: np.ndarray


class PlanBuffers(NamedTuple):
    """Where a policy writes its plan (:mod:`campaign_orders`: ``pu[U]``, ``pp[U]``,
    ``pst[MAXSS, PS_NF]``, ``pl[L]``), the budget ``B[B_NODE + N]`` it keeps as it plans, and its
    scratch ``pw``, ``gmem`` (:func:`policy_scratch_nb`)."""

    B: np.ndarray
    pu: np.ndarray
    pp: np.ndarray
    pst: np.ndarray
    pl: np.ndarray
    pw: np.ndarray
    gmem: np.ndarray


# ============================================================================ plan helpers
@kernel(nrt=True)
def policy_scratch_nb(nu, n_nodes):
    """The policy scratch of a batch (:mod:`policy_layout`, ``PW_*``): ``(pw, gmem)``, ``pw``
    ``int64[PW_NF, W]`` and ``gmem`` ``int64[MAXSS, MAXPER]`` (each group's members), for a
    scenario of ``nu`` units and ``n_nodes`` nodes. The entry kernel allocates them once; each
    plan overwrites what it reads, except the nearest-port memo (rows ``PW_NFREP``,
    ``PW_NFANY``, :func:`policy_view.nearest_friendly_memo_nb`), started empty (-2) here and kept
    for the batch (it depends only on the map)."""
    w = max(4 * n_nodes, nu + 1, n_nodes + 1, MAXSS, MAXC, lay.MAXPER)
    pw = np.zeros((pk.PW_NF, w), dtype=np.int64)
    for k in range(w):
        pw[pk.PW_NFREP, k] = -2
        pw[pk.PW_NFANY, k] = -2
    return pw, np.zeros((MAXSS, lay.MAXPER), dtype=np.int64)


@kernel
def _shuffle_nb(a, n, rng):
    for i in range(n - 1, 0, -1):
        j = die_nb(rng, i + 1) - 1
        t = a[i]
        a[i] = a[j]
        a[j] = t


@kernel
def _choose_random_order_nb(side, slot, f, tbl, enemy_c, B, pst, rng, od, ot, cnt):
    """random-legal's order for plan slot ``slot``, a stack of facts ``f``
    (:class:`campaign_orders.StackFacts`): a uniformly random legal order, then a uniformly random
    legal destination (and target) of it (HOLD when none is legal), committed to the budget ``B``.
    ``tbl``: :class:`campaign_orders.OrderTables`; ``enemy_c[N]`` the enemy units seen; ``od``,
    ``ot``, ``cnt``: scratch rows."""
    tot = 0
    for o in range(lay.N_ORDERS):
        cnt[o] = legal_options_nb(side, o, f, B, enemy_c, tbl, od, ot)
        if cnt[o] > 0:
            tot += 1
    if tot == 0:
        pst[slot, PS_ORDER] = lay.HOLD
        pst[slot, PS_DEST] = f.at
        pst[slot, PS_TARGET] = -1
        return
    pick = die_nb(rng, tot)
    o = 0
    for oo in range(lay.N_ORDERS):
        if cnt[oo] > 0:
            pick -= 1
            if pick == 0:
                o = oo
                break
    k = legal_options_nb(side, o, f, B, enemy_c, tbl, od, ot)
    j = die_nb(rng, k) - 1
    pst[slot, PS_ORDER] = o
    pst[slot, PS_DEST] = od[j]
    pst[slot, PS_TARGET] = ot[j]
    budget_commit_nb(o, f.n, f.at, f.german, B, tbl.nodes, tbl.par)


@kernel
def _random_route_nb(o, at, d, n, mp, nodes, adj, cost, par, rng, pw):
    """random-legal's route for a stack of ``n`` units at ``at`` with ``mp`` MP, its order ``o`` and
    destination ``d`` drawn: a uniformly random simple legal route (7.1 F,
    :func:`policy_routes.route_pick_nb`, written to ``pw[PW_RBEST]``); a Patrol then draws among
    going on, stopping in the first area entered and, at sea, remaining in its starting area (5.4 B,
    one third each where legal); a Patrol or Transit squadron of three or more whose route
    traverses an area drops off, on a coin, a random number of units (leaving two) after a random
    traversed area (7.3 D).

    Returns:
        ``(m, dest, drop_i, drop_n)``: the route's nodes (0: none), the destination, the drop-off
        (the caller keeps a dropped squadron within the order markers).
    """
    m = 0
    di = 0
    dn = 0
    if (o == lay.PATROL or o == lay.TRANSIT or o == lay.RAID or o == lay.BLOCKADE) and d != at:
        m = route_pick_nb(ROUTE_RANDOM, o, at, d, mp, nodes, adj, cost, par, rng, pw)
        if o == lay.PATROL and m >= 1:   # 5.4 B
            r = die_nb(rng, 3)
            if r == 1 and at < par[lay.P_NAREAS]:
                m = 0
                d = at
            elif r == 2 and m >= 2:
                m = 1
                d = pw[pk.PW_RBEST, 0]
        if (o == lay.PATROL or o == lay.TRANSIT) and m >= 2 and n >= 3 and die_nb(rng, 2) == 2:   # 7.3 D
            di = die_nb(rng, m - 1) - 1
            dn = die_nb(rng, n - 2)
    return m, d, di, dn


@kernel(inline="always")
def reset_plan_nb(B, pu, pp):
    """An empty plan: budgets at zero, no unit in a stack yet."""
    for i in range(B.shape[0]):
        B[i] = 0
    for u in range(pu.shape[0]):
        pu[u] = -1
        pp[u] = 0


@kernel
def random_plan_nb(side, pt, view, plan, rng):
    """``random-legal``: at each place, units are dealt at random into stacks of units that may
    share an order; the stacks get, in random order, a uniformly random legal order and then a
    uniformly random legal destination (HOLD when none is legal), a random route, Patrol stop and
    drop-off (:func:`_random_route_nb`); leaders go to a random stack where they are. ``pt``:
    :class:`PolicyTables`; ``view``: :class:`PolicyView`; ``plan``: :class:`PlanBuffers`. Returns
    the number of stacks."""
    ust, lst, nodes, adj, cost, markers, par = pt.ust, pt.lst, pt.nodes, pt.adj, pt.cost, pt.markers, pt.par
    UV, LV, vis = view.UV, view.LV, view.vis
    B, pu, pp, pst, pl, pw = plan.B, plan.pu, plan.pp, plan.pst, plan.pl, plan.pw
    nu = ust.shape[0]
    N = nodes.shape[0]
    reset_plan_nb(B, pu, pp)
    slot_loc, slot_mask = pw[pk.PW_SLOT_LOC], pw[pk.PW_SLOT_MASK]
    for s in range(MAXSS):
        slot_loc[s] = -1
        slot_mask[s] = 0
    nstk = np.int64(0)
    units, cand = pw[pk.PW_UNITS], pw[pk.PW_CAND]
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
    perm, inv, new_loc = pw[pk.PW_PERM], pw[pk.PW_INV], pw[pk.PW_NEW_LOC]
    for i in range(nstk):
        perm[i] = i
    _shuffle_nb(perm, nstk, rng)
    for i in range(nstk):
        inv[perm[i]] = i
    for s in range(nstk):
        new_loc[inv[s]] = slot_loc[s]
    for u in range(nu):
        if pu[u] >= 0:
            pu[u] = inv[pu[u]]
    members, enemy_c, od, ot, cnt = pw[pk.PW_MEMBERS], pw[pk.PW_ENEMY], pw[pk.PW_OD], pw[pk.PW_OT], pw[pk.PW_CNT]
    tbl = OrderTables(nodes, adj, cost, markers, par)
    for q in range(N):
        enemy_c[q] = vis[q, VIS_N]
    for s in range(nstk):
        n = np.int64(0)
        for u in range(nu):
            if pu[u] == s:
                members[n] = u
                n += 1
        f, _ = facts_nb(side, members, n, ust, UV, par)
        _choose_random_order_nb(side, s, f, tbl, enemy_c, B, pst, rng, od, ot, cnt)
        pst[s, PS_JOIN] = die_nb(rng, 2) - 1
        o = pst[s, PS_ORDER]
        m, d, di, dn = _random_route_nb(o, f.at, pst[s, PS_DEST], n, f.mp, nodes, adj, cost, par, rng, pw)
        if dn >= 2 and B[o] + 1 > markers[side, o]:
            dn = 1   # no marker left for a dropped squadron (5.0 B): one unit, an IU
        if dn >= 2:
            B[o] += 1
        pst[s, PS_DEST] = d
        put_route_nb(pst, s, m, d, di, dn, pw)
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
@kernel
def mark_garrisons_nb(side, kn, ng, gmem, ust, UV, nodes, cost, par, vis, pw):
    """The garrisons of ``side``'s ports (knobs ``garrison``, units, ``garrison_mp``, MP, and
    ``garrison_send``, a flag). A port is threatened when enemy units are seen (``vis[:, VIS_N]``)
    in or within ``garrison_mp`` MP of an area bordering it. In each threatened own port the weakest
    groups there (least attack dice first) are marked as its garrison, ``pw[PW_GGAR, g] = 1``,
    until they hold at least ``garrison`` units; a group larger than the need by two or more gives
    its last (weakest) members, at least two, to a new group (a lone unit is an IU and may not
    fight, 7.4 C). With ``garrison_send``, the threatened ports still short, most VP first (a
    destroyed port pays 3 + its defense, 8.4 L), are filled by the weakest other groups of two or
    more that may Transit and reach them within two turns (5.7 B; the first move ends in the sea
    area within reach nearest the port): ``pw[PW_GGAR, g] = 2``, ``pw[PW_GDEST, g]`` the port. A marked group is offered Anchor in its port (or Transit to it) first (5.1 A: a
    squadron staying in port is anchored; anchored units "defend normally", 5.1 C, so a blockader
    or raider must win the search, 8.2, before it may attack the port, 8.4).

    Args: ``ng`` groups (``pw`` rows ``PW_GN``, ``PW_GAT``, ``PW_GSTR``, ``PW_GDMG``, ``PW_GKIND``,
    members ``gmem[MAXSS, MAXPER]``), the map ``nodes``, ``cost``, ``par`` and the side's view
    ``vis[N, VIS_NF]``; the row ``PW_SENT`` is used as scratch (units still wanted per port; the
    plan clears it afterwards). Returns the new number of groups (at most ``MAXSS``)."""
    gar, gdest, need = pw[pk.PW_GGAR], pw[pk.PW_GDEST], pw[pk.PW_SENT]
    for j in range(MAXSS):
        gar[j] = 0
        gdest[j] = -1
    want = kn[pk.K_GARRISON]
    if want <= 0:
        return ng
    gn, gat, gstr, gdmg, gkind = pw[pk.PW_GN], pw[pk.PW_GAT], pw[pk.PW_GSTR], pw[pk.PW_GDMG], pw[pk.PW_GKIND]
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    reach = kn[pk.K_GARRISON_MP]
    for p in range(N):
        need[p] = 0
    for p in range(A, N):
        if nodes[p, lay.NS_PSIDE] != side:
            continue
        threatened = False
        for q in range(N):
            if vis[q, VIS_N] == 0 or q == p:
                continue
            for jj in range(2):
                a = nodes[p, lay.NS_PAREA1 + jj]
                if a >= 0 and (q == a or cost[lay.KMAX, q, a] <= reach):
                    threatened = True
        if not threatened:
            continue
        kept = 0
        while kept < want:
            best = -1
            for h in range(ng):
                if gat[h] == p and gar[h] == 0 and gn[h] > 0 and (best < 0 or gstr[h] <= gstr[best]):
                    best = h
            if best < 0:
                break
            take = max(want - kept, 2)
            if gn[best] - take >= 2 and ng < gmem.shape[0]:
                h = ng
                ng += 1
                gn[h] = 0
                gat[h] = p
                gstr[h] = 0
                gdmg[h] = 0
                gkind[h] = gkind[best]
                for i in range(gn[best] - take, gn[best]):
                    u = gmem[best, i]
                    gmem[h, gn[h]] = u
                    gn[h] += 1
                    e = eff_att_nb(ust, UV, u)
                    gstr[h] += e
                    gstr[best] -= e
                    gdmg[h] += UV[u, lay.UF_DMG]
                    gdmg[best] -= UV[u, lay.UF_DMG]
                gn[best] -= take
                best = h
            gar[best] = 1
            kept += gn[best]
        need[p] = max(want - kept, 0)
    if kn[pk.K_GARRISON_SEND] == 0:
        return ng
    minmov = minmov_nb(par)
    while True:
        p = -1
        for q in range(A, N):
            if need[q] > 0 and (p < 0 or nodes[q, lay.NS_DEF] > nodes[p, lay.NS_DEF]):
                p = q
        if p < 0:
            break
        best = -1
        for h in range(ng):
            if gar[h] != 0 or gn[h] < 2 or gat[h] == p or ((gkind[h] // 8) >> lay.TRANSIT) & 1 == 0:
                continue
            mp = 1 << 20
            for i in range(gn[h]):
                m = eff_mov_nb(ust, UV, gmem[h, i], minmov)
                if m < mp:
                    mp = m
            if cost[lay.KMAX, gat[h], p] > 2 * mp:   # 5.7 B: a Transit may last two turns
                continue
            if best < 0 or gstr[h] < gstr[best]:
                best = h
        if best < 0:
            need[p] = 0
            continue
        gar[best] = 2
        gdest[best] = p
        need[p] = max(need[p] - gn[best], 0)
    return ng


@kernel(inline="always")
def coast_threat_nb(side, reach, vis, home, cost, par):
    """The raid threat a side sees on its coast: the enemy attack (tenths, ``vis``) at every
    place within ``reach`` MP of an area bordering an own port (``home``), each place once."""
    A = par[lay.P_NAREAS]
    t = 0
    for q in range(vis.shape[0]):
        if vis[q, VIS_N] == 0:
            continue
        for a in range(A):
            if home[a] != 0 and (q == a or cost[lay.KMAX, q, a] <= reach):
                t += vis[q, VIS_ATT]
                break
    return t


@kernel(inline="always")
def sortie_area_nb(port, dest, nodes, cost):
    """The area bordering ``port`` from which ``dest`` is nearest (Cadiz and the Canary Islands
    border two, 7.2.2 B)."""
    best = nodes[port, lay.NS_PAREA1]
    a2 = nodes[port, lay.NS_PAREA2]
    if a2 >= 0:
        c1 = 0 if best == dest else cost[lay.KMAX, best, dest]
        c2 = 0 if a2 == dest else cost[lay.KMAX, a2, dest]
        if c2 < c1:
            best = a2
    return best


@kernel
def _scripted_route_nb(kn, o, at, d, n, mp, nodes, adj, cost, par, rng, pw):
    """The scripted families' route for a stack of ``n`` units at ``at`` with ``mp`` MP given order
    ``o`` to ``d`` (``pw[PW_AVOID]`` filled by :func:`policy_routes.avoid_row_nb`, ``pw[PW_ENEMY]``
    the enemy units seen per node). Knobs: ``route`` (7.1 F: 0 the least-MP route, 1 or 2 the
    fewest traversed areas to avoid, then the least MP), ``patrol_stop`` (5.4 B: 1 a Patrol stops
    in the first area entered where enemy units are seen; 2 it stops in the first area entered, or
    at sea remains in its starting area) and ``drop_off`` (7.3 D, units: a Patrol or Transit
    squadron of at least ``drop_off + 2`` units whose route traverses an area leaves its last
    ``drop_off`` units in the first).

    Returns:
        ``(m, dest, drop_n)``: the route's nodes in ``pw[PW_RBEST, :m]`` (0: none), the
        destination, the units dropped after its first node (the caller keeps a dropped squadron
        within the order markers).
    """
    if not (o == lay.PATROL or o == lay.TRANSIT or o == lay.RAID or o == lay.BLOCKADE) or d == at:
        return 0, d, 0
    mode = ROUTE_AVOID if kn[pk.K_ROUTE] != 0 else ROUTE_LEAST
    m = route_pick_nb(mode, o, at, d, mp, nodes, adj, cost, par, rng, pw)
    if m == 0:
        return 0, d, 0
    first = pw[pk.PW_RBEST, 0]
    ps = kn[pk.K_PATROL_STOP]
    if o == lay.PATROL and ps == 2 and at < par[lay.P_NAREAS]:
        m = 0   # 5.4 B: remain in the starting area
        d = at
    elif o == lay.PATROL and m >= 2 and (ps == 2 or (ps == 1 and pw[pk.PW_ENEMY, first] > 0)):
        m = 1   # 5.4 B: stop in the first area entered
        d = first
    dn = 0
    dk = kn[pk.K_DROP_OFF]
    if dk > 0 and (o == lay.PATROL or o == lay.TRANSIT) and m >= 2 and n >= dk + 2:
        dn = dk
    return m, d, dn


@kernel
def scripted_plan_nb(side, turn, kn, pt, view, plan, rng):
    """The scripted families ``us-fleet`` and ``spain-fleet`` (module docstring) with knobs ``kn``
    (``int64[KN_NF]``, :mod:`policy_layout`). ``pt``: :class:`PolicyTables`; ``view``:
    :class:`PolicyView`; ``plan``: :class:`PlanBuffers`. Returns the number of stacks."""
    ust, lst, nodes, adj, cost, markers, par = pt.ust, pt.lst, pt.nodes, pt.adj, pt.cost, pt.markers, pt.par
    UV, LV, vis, ND = view.UV, view.LV, view.vis, view.ND
    B, pu, pp, pst, pl, pw, gmem = plan.B, plan.pu, plan.pp, plan.pst, plan.pl, plan.pw, plan.gmem
    N = nodes.shape[0]
    reset_plan_nb(B, pu, pp)
    ng = group_units_nb(side, kn, ust, UV, nodes, par, gmem, pw)
    ng = mark_garrisons_nb(side, kn, ng, gmem, ust, UV, nodes, cost, par, vis, pw)
    gn, gat, gstr = pw[pk.PW_GN], pw[pk.PW_GAT], pw[pk.PW_GSTR]
    # leaders: the best leader at a place goes to its strongest group (6.2 B), or with the knob
    # leader_group = 1 to its weakest (4.1.2 C: the owner places each leader with a stack)
    gld = pw[pk.PW_GLD]
    for j in range(MAXSS):
        gld[j] = -1
    # strongest groups first (they get the markers and the best missions); with blockade_rotate
    # the US blockaders that must coal (5.2 D) come first, so they get the coaling limit (7.5 C)
    # before patrols, which may anchor instead
    gkey, gorder = pw[pk.PW_GKEY], pw[pk.PW_GORDER]
    for j in range(ng):
        gkey[j] = -gstr[j] * 64 - gn[j]
        gorder[j] = j
    if kn[pk.K_BLOCKADE_ROTATE] != 0:
        for j in range(ng):
            u = gmem[j, 0]
            if gat[j] < par[lay.P_NAREAS] and UV[u, lay.UF_PREV] == lay.BLOCKADE:
                gkey[j] -= 1 << 40
    sort_line_nb(gorder, ng, gkey)   # stable: ties keep the groups' order
    for i in range(lst.shape[0]):
        pl[i] = -1
    weakest_led = kn[pk.K_LEADER_GROUP] != 0   # 4.1.2 C: leaders go with the weakest groups first
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] != side or LV[i, lay.LF_STATE] != lay.LEADER_IN_PLAY:
            continue
        loc = UV[LV[i, lay.LF_UNIT], lay.UF_LOC]
        best = -1
        for jj in range(ng):
            j = gorder[ng - 1 - jj] if weakest_led else gorder[jj]
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
    threat, home = pw[pk.PW_THREAT], pw[pk.PW_HOME]
    turn_tables_nb(side, vis, nodes, par, threat, home)
    sent, coaling, acc, enemy_n = pw[pk.PW_SENT], pw[pk.PW_COAL], pw[pk.PW_ACC], pw[pk.PW_ENEMY]
    for q in range(N):
        sent[q] = 0
        coaling[q] = 0
        enemy_n[q] = vis[q, VIS_N]
    for i in range(4):
        acc[i] = 0
    acc[4] = kn[pk.K_AFTER_PATROL]   # read by policy_missions.add_after_patrol_nb (5.4 D)
    for j in range(ng):
        acc[0] += 10 * gstr[j]
    if side == lay.US and kn[pk.K_GUARD_SIZED] > 0:
        acc[3] = coast_threat_nb(side, kn[pk.K_GUARD_REACH], vis, home, cost, par)
    co, cd, ct = pw[pk.PW_CO, :MAXC], pw[pk.PW_CD, :MAXC], pw[pk.PW_CT, :MAXC]   # MAXC candidates at most
    od, ot = pw[pk.PW_OD], pw[pk.PW_OT]
    slot = pw[pk.PW_SLOT]
    for j in range(MAXSS):
        slot[j] = -1
    # 7.1 F, 5.4 B, 7.3 D (policy_routes): the route each stack takes, where a Patrol stops, drop-offs
    tbl = OrderTables(nodes, adj, cost, markers, par)
    route_knobs = kn[pk.K_ROUTE] != 0 or kn[pk.K_PATROL_STOP] != 0 or kn[pk.K_DROP_OFF] != 0
    if route_knobs:
        avoid_row_nb(kn[pk.K_ROUTE], side, vis, ND, par, pw[pk.PW_AVOID])
    for jj in range(ng):
        g = gorder[jj]
        slot[g] = jj
        n = gn[g]
        f, _ = facts_nb(side, gmem[g], n, ust, UV, par)
        mp, at, german = f.mp, f.at, f.german
        nc, tail = missions_nb(kn, side, g, gmem, pw, ust, UV, tbl, vis, B, f)
        chosen = False
        c = 0
        while c < nc or tail:
            if c == nc:   # every candidate so far illegal: list the safe fallbacks
                nc = missions_tail_nb(side, gat[g], n, mp, german, nodes, adj, cost, par, B, pw, nc)
                tail = False
                continue
            o, d, t = co[c], cd[c], ct[c]
            c += 1
            e = order_ok_nb(side, o, d, t, f, B, enemy_n, tbl)
            if e == lay.ERR_DEST and at >= A and n >= 2 and d >= 0 and d < A and o != lay.SORTIE:
                # 5.6 B: out of a port next to the enemy only by a Sortie, into the bordering area
                # nearest the mission's area, if the enemy seen there is one the group can match
                d = sortie_area_nb(at, d, nodes, cost)
                if 10 * gstr[g] * 1000 >= (kn[pk.K_ODDS] - kn[pk.K_AGGRESSION]) * vis[d, VIS_ATT]:
                    o = lay.SORTIE
                    t = -1
                    e = order_ok_nb(side, o, d, t, f, B, enemy_n, tbl)
            if e == lay.ERR_NONE:
                pst[jj, PS_ORDER] = o
                pst[jj, PS_DEST] = d
                pst[jj, PS_TARGET] = t
                chosen = True
                break
        if not chosen:
            for o in (lay.ANCHOR, lay.COAL, lay.TRANSIT, lay.PATROL, lay.SORTIE, lay.RAID, lay.BLOCKADE):
                k = legal_options_nb(side, o, f, B, enemy_n, tbl, od, ot, True)   # the first is taken
                if k > 0:
                    pst[jj, PS_ORDER] = o
                    pst[jj, PS_DEST] = od[0]
                    pst[jj, PS_TARGET] = ot[0]
                    chosen = True
                    break
        put_route_nb(pst, jj, 0, at, 0, 0, pw)   # the least-MP route (ruling C8), no drop-off
        if chosen and route_knobs:
            o = pst[jj, PS_ORDER]
            m, d, dn = _scripted_route_nb(kn, o, at, pst[jj, PS_DEST], n, mp, nodes, adj, cost, par, rng, pw)
            if dn >= 2 and B[o] + 2 > markers[side, o]:
                dn = 0   # no marker left for the dropped squadron besides the stack's own (5.0 B)
            if dn >= 2:
                B[o] += 1
            pst[jj, PS_DEST] = d
            put_route_nb(pst, jj, m, d, 0, dn, pw)
        if chosen:
            budget_commit_nb(pst[jj, PS_ORDER], n, at, german, B, nodes, par)
            o = pst[jj, PS_ORDER]
            if o == lay.PATROL or o == lay.RAID or o == lay.BLOCKADE or o == lay.SORTIE:
                sent[pst[jj, PS_DEST]] += 10 * gstr[g]
            elif o == lay.COAL:
                coaling[at] += n
        else:
            pst[jj, PS_ORDER] = lay.HOLD
            pst[jj, PS_DEST] = at
            pst[jj, PS_TARGET] = -1
        pst[jj, PS_JOIN] = 1 if kn[pk.K_IU_JOIN] != 0 else 0   # 7.4 E: an IU stacks with friends it meets
        weakest_top = kn[pk.K_LINE_ORDER] != 0   # 4.1.2 B, D: the line order (members are strongest first)
        for i in range(n):
            u = gmem[g, i]
            pu[u] = jj
            pp[u] = n - 1 - i if weakest_top else i
    for i in range(lst.shape[0]):
        if pl[i] >= 0:
            pl[i] = slot[pl[i]]
    return ng


# ============================================================================ dispatch
@kernel
def policy_plan_nb(fam, side, turn, kn, pt, view, plan, rng):
    """Write ``side``'s plan with policy family ``fam`` (``policy_layout.FAM_*``) and its knobs
    ``kn`` (``int64[KN_NF]``) into ``plan`` (:class:`PlanBuffers`); returns the number of stacks.
    ``pt``: :class:`PolicyTables` (the order markers in it are public, 5.0 B); ``view``:
    :class:`PolicyView`, what the side may see (its ``ND`` is read only for the public control
    markers); ``rng``: the game's stream."""
    if fam == pk.FAM_RANDOM:
        return random_plan_nb(side, pt, view, plan, rng)
    return scripted_plan_nb(side, turn, kn, pt, view, plan, rng)


__all__ = ["PlanBuffers", "PolicyTables", "PolicyView", "mark_garrisons_nb", "policy_plan_nb", "policy_scratch_nb",
           "random_plan_nb", "scripted_plan_nb"]
