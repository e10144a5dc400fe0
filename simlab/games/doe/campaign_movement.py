"""Set-up, plans and movement of the Dawn of Empire campaign (numba kernels, suffix ``_nb``).

* set-up (Rule 13.0, 7.7, 14.10, 14.12) and the New Forces Phase (4.1.1, 8.4 M);
* stacks: line order (18.1.1 C), leaders (6.2), and installing a side's plan after checking it
  (4.1.2, 5.0-5.7, 6.1, 7.3 B, 7.4, 7.5; the order checks are in :mod:`campaign_orders`);
* the Movement Phase (7.0-7.6: routes, halting, combining stacks), neutral ports and internment
  (7.2.3), and free deployment (14.11).

State layout in :mod:`campaign_layout` (imported as ``lay``); the plan format in
:mod:`campaign_orders`. Rulings are in docs/rulings.md (C1...).
"""

from __future__ import annotations

from simlab.jit import kernel

from . import campaign_layout as lay
from .campaign_orders import (
    B_SEA,
    MAXSS,
    PS_DEST,
    PS_DROP_I,
    PS_DROP_N,
    PS_JOIN,
    PS_ORDER,
    PS_R0,
    PS_RN,
    PS_TARGET,
    OrderTables,
    StackFacts,
    any_legal_nb,
    budget_commit_nb,
    eff_att_nb,
    eff_mov_nb,
    minmov_nb,
    order_ok_nb,
    port_borders_nb,
    port_neutral_nb,
    route_ok_nb,
    stack_facts_nb,
)
from .dice import die_nb
from .enums import MK_FIRST, MK_LAST


# ============================================================================ set-up
@kernel
def init_game_nb(ust, lst, nodes, par, U, S, SM, LD, ND, G):
    """Fill a game's state from the set-up (Rule 13.0): units at their start, reinforcements off
    the map (7.7), optional units per 14.10/14.12, leaders aboard the first unit where they start,
    no control markers (13.0 H), the VP track at the handicap (14.4-14.5), prior orders (13.0 G)."""
    nu = ust.shape[0]
    for u in range(nu):
        for f in range(lay.UF_NF):
            U[u, f] = 0
        U[u, lay.UF_STACK] = -1
        U[u, lay.UF_ORDER] = lay.NO_ORDER
        U[u, lay.UF_PREV] = ust[u, lay.US_PRIOR]
        absent = False
        if ust[u, lay.US_GERMAN] & 1 and par[lay.P_GERMANS] == 0:
            absent = True
        if ust[u, lay.US_GERMAN] & 2 and par[lay.P_EXTRA] == 0:
            absent = True
        if absent:
            U[u, lay.UF_LOC] = lay.LOC_ABSENT
        elif ust[u, lay.US_ENTRY] > 1:
            U[u, lay.UF_LOC] = lay.LOC_NOT_ENTERED
        else:
            U[u, lay.UF_LOC] = ust[u, lay.US_START]
    for s in range(S.shape[0]):
        for f in range(lay.SF_NF):
            S[s, f] = 0
        S[s, lay.SF_SIDE] = -1
        S[s, lay.SF_N] = 0
    for i in range(lst.shape[0]):
        LD[i, lay.LF_UNIT] = -1
        LD[i, lay.LF_STATE] = lay.LEADER_ABSENT
        if lst[i, lay.LS_GERMAN] and par[lay.P_GERMANS] == 0:
            continue
        for u in range(nu):
            if (U[u, lay.UF_LOC] == lst[i, lay.LS_START] and ust[u, lay.US_SIDE] == lst[i, lay.LS_SIDE]
                    and (ust[u, lay.US_GERMAN] & 1) == lst[i, lay.LS_GERMAN]):
                LD[i, lay.LF_UNIT] = u
                LD[i, lay.LF_STATE] = lay.LEADER_IN_PLAY
                break
    for n in range(ND.shape[0]):
        for f in range(lay.ND_NF):
            ND[n, f] = 0
        ND[n, lay.ND_CONTROL] = -1
    for f in range(lay.G_NF):
        G[f] = 0
    G[lay.G_VP_NET] = par[lay.P_HANDICAP]


@kernel
def new_forces_nb(turn, ust, par, U, ND):
    """New Forces Phase (Rules 4.1.1, 7.7, 8.4 M): reinforcements enter at their port; port
    markers are restored (unless 14.2 delays it)."""
    for u in range(ust.shape[0]):
        if U[u, lay.UF_LOC] == lay.LOC_NOT_ENTERED and ust[u, lay.US_ENTRY] == turn:
            U[u, lay.UF_LOC] = ust[u, lay.US_START]
            U[u, lay.UF_PREV] = lay.ANCHOR
            U[u, lay.UF_STREAK] = 0
    for n in range(ND.shape[0]):
        if par[lay.P_DELAYED] == 0:
            ND[n, lay.ND_PDMG] = 0
        ND[n, lay.ND_PHIT] = 0
        ND[n, lay.ND_PDESTROYED] = 0
        ND[n, lay.ND_NOCTRL0] = 0
        ND[n, lay.ND_NOCTRL1] = 0
        ND[n, lay.ND_BLKVP] = 0
        ND[n, lay.ND_INIT] = -1


@kernel
def start_turn_nb(G, U):
    for i in range(2 * lay.N_MARK_SLOTS):
        G[lay.G_MARK + i] = 0
    G[lay.G_COALSEA0] = 0
    G[lay.G_COALSEA1] = 0
    for u in range(U.shape[0]):
        U[u, lay.UF_MOVED] = 0
        U[u, lay.UF_OUT] = 0
        U[u, lay.UF_STARTLOC] = U[u, lay.UF_LOC]


@kernel
def enemy_counts_nb(side, U, ust, out):
    """Number of opposing units in play at each node (what a side sees of the face-down stacks)."""
    for i in range(out.shape[0]):
        out[i] = 0
    for u in range(ust.shape[0]):
        if ust[u, lay.US_SIDE] != side and U[u, lay.UF_LOC] >= 0:
            out[U[u, lay.UF_LOC]] += 1


# ============================================================================ stacks
@kernel(inline="always")
def sort_line_nb(members, n, key):
    """Stable insertion sort of ``members[:n]`` by ``key[member]`` ascending."""
    for i in range(1, n):
        u = members[i]
        k = key[u]
        j = i - 1
        while j >= 0 and key[members[j]] > k:
            members[j + 1] = members[j]
            j -= 1
        members[j + 1] = u


@kernel
def strength_key_nb(ust, U, u):
    """Line-order key (lower first): most powerful at the top (18.1.1 C): attack, then defense."""
    return -(eff_att_nb(ust, U, u) * 64 + (ust[u, lay.US_DEF] - U[u, lay.UF_DMG]))


@kernel
def sort_line_strength_nb(members, n, ust, U):
    """:func:`sort_line_nb` by :func:`strength_key_nb` (most powerful first, 18.1.1 C), the keys
    worked out as it compares."""
    for i in range(1, n):
        u = members[i]
        k = strength_key_nb(ust, U, u)
        j = i - 1
        while j >= 0 and strength_key_nb(ust, U, members[j]) > k:
            members[j + 1] = members[j]
            j -= 1
        members[j + 1] = u


@kernel
def clear_side_stacks_nb(side, S, U, ust):
    base = side * MAXSS
    for s in range(base, base + MAXSS):
        S[s, lay.SF_SIDE] = -1
        S[s, lay.SF_N] = 0
    for u in range(ust.shape[0]):
        if ust[u, lay.US_SIDE] == side:
            U[u, lay.UF_STACK] = -1


@kernel(inline="always")
def stack_leader_stars_nb(s, S, SM, LD, lst):
    """Stars of the active leader of stack ``s`` (6.2 B-C: most stars, aboard the first unit)."""
    if S[s, lay.SF_N] < 1:
        return 0, -1
    first = SM[s, 0]
    best = 0
    who = -1
    for i in range(lst.shape[0]):
        if LD[i, lay.LF_STATE] == lay.LEADER_IN_PLAY and LD[i, lay.LF_UNIT] == first:
            if lst[i, lay.LS_STARS] > best:
                best = lst[i, lay.LS_STARS]
                who = i
    return best, who


@kernel(inline="always")
def move_leaders_nb(src, dst, LD, lst):
    """Leaders aboard unit ``src`` move aboard ``dst``."""
    for i in range(lst.shape[0]):
        if LD[i, lay.LF_STATE] == lay.LEADER_IN_PLAY and LD[i, lay.LF_UNIT] == src:
            LD[i, lay.LF_UNIT] = dst


@kernel(inline="always")
def idle_leaders_to_nb(carrier, first, n, mem, active, LD, lst):
    """Rules 6.2 D, 6.3 A (ruling C42): the leaders aboard ``mem[first:first + n]`` (one side's
    units of a battle) other than the ``active`` one have no effect and are not in the combat, so
    they do not share a ship's fate: they go aboard ``carrier`` (a unit of their squadron that
    stays in the area, or else one that leaves it afloat). ``carrier < 0``: left where they are
    (every ship of the squadron sunk: a leader is never without a ship, 6.1 D)."""
    if carrier < 0:
        return
    for i in range(lst.shape[0]):
        if i == active or LD[i, lay.LF_STATE] != lay.LEADER_IN_PLAY:
            continue
        v = LD[i, lay.LF_UNIT]
        for j in range(first, first + n):
            if mem[j] == v:
                LD[i, lay.LF_UNIT] = carrier
                break


@kernel(inline="always")
def idle_leaders_off_nb(u, s, active, U, S, SM, LD, lst):
    """Before unit ``u`` of stack ``s`` sinks or leaves disabled in a port attack: the leaders
    aboard it other than the ``active`` one go aboard the last other unit of ``s`` (6.2 D, 6.3 A,
    ruling C42); with none left they stay aboard ``u``."""
    n = S[s, lay.SF_N]
    if U[u, lay.UF_STACK] != s or n < 2:
        return
    dst = SM[s, n - 1] if SM[s, n - 1] != u else SM[s, n - 2]
    for i in range(lst.shape[0]):
        if i != active and LD[i, lay.LF_STATE] == lay.LEADER_IN_PLAY and LD[i, lay.LF_UNIT] == u:
            LD[i, lay.LF_UNIT] = dst


@kernel(inline="always")
def seat_leaders_nb(s, U, S, SM, LD, lst):
    """Leaders of stack ``s`` (those aboard any of its units): the active one, most stars (ties:
    pack order, 4.1.2 C, 6.2 B-C), aboard the first unit (6.2 A); every other leader aboard the
    last unit of the line, where he has no effect (6.2 D) and does not share the flagship's fate
    (6.3 C; ruling C32)."""
    n = S[s, lay.SF_N]
    if n < 1:
        return
    best = -1
    for i in range(lst.shape[0]):
        if LD[i, lay.LF_STATE] != lay.LEADER_IN_PLAY or LD[i, lay.LF_UNIT] < 0:
            continue
        if U[LD[i, lay.LF_UNIT], lay.UF_STACK] != s:
            continue
        if best < 0 or lst[i, lay.LS_STARS] > lst[best, lay.LS_STARS]:
            best = i
    if best < 0:
        return   # no leader aboard
    for i in range(lst.shape[0]):
        if LD[i, lay.LF_STATE] != lay.LEADER_IN_PLAY or LD[i, lay.LF_UNIT] < 0:
            continue
        if U[LD[i, lay.LF_UNIT], lay.UF_STACK] != s:
            continue
        LD[i, lay.LF_UNIT] = SM[s, 0] if i == best else SM[s, n - 1]


@kernel
def install_plan_nb(side, nstk, tb, st, sc):
    """Check a side's plan (module docstring) and make it the side's stacks and orders.

    Rules 4.1.2 (stacks and line order), 5.0-5.7 (orders, markers, sequences), 6.1 (leaders
    stack with units), 7.1 (the plan's route, :func:`campaign_orders.route_ok_nb`, ruling C49),
    7.3 B (squadrons), 7.3 D (a drop-off: Patrol or Transit squadrons only, in an area the route
    traverses, leaving at least two units, a marker of its order for a dropped squadron of two or
    more; ruling C51), 7.4 (independent units), 7.5 (coaling), 7.2.3 D.

    Args:
        side: 0 US, 1 Spain.
        nstk: slots used.
        tb: :class:`campaign_bundles.Tables` (``ust``, ``lst``, ``nodes``, ``adj``, ``cost``,
            ``markers``, ``par`` are read).
        st: :class:`campaign_bundles.GameState` (``U``, ``S``, ``SM``, ``LD``, ``G`` are written).
        sc: :class:`campaign_bundles.Scratch`: the plan ``pu``, ``pp`` (``int64[U]``), ``pst``
            (``int64[MAXSS, PS_NF]``), ``pl`` (``int64[L]``); ``enemy_n`` (``int64[N]``, opposing
            units the side sees per node, :func:`enemy_counts_nb`); ``B`` (``int64[B_NODE + N]``,
            scratch budget, reset here); ``od``, ``ot`` (``int64[>= 4N]``, scratch for the HOLD
            check, :func:`campaign_orders.any_legal_nb`).

    Returns:
        ``(err, slot)``: ``ERR_NONE`` and -1, or the first error (``lay.ERR_*``) and the slot it
        concerns (-1 for errors about a unit or leader).
    """
    ust, lst, nodes, adj, cost, markers, par = tb.ust, tb.lst, tb.nodes, tb.adj, tb.cost, tb.markers, tb.par
    U, S, SM, LD, G = st.U, st.S, st.SM, st.LD, st.G
    pu, pp, pst, pl, enemy_n, B, od, ot = sc.pu, sc.pp, sc.pst, sc.pl, sc.enemy_n, sc.B, sc.od, sc.ot
    nu = ust.shape[0]
    if nstk < 0 or nstk > MAXSS:
        return lay.ERR_NO_PLAN, -1
    tbl = OrderTables(nodes, adj, cost, markers, par)
    clear_side_stacks_nb(side, S, U, ust)
    for i in range(B.shape[0]):
        B[i] = 0
    base = side * MAXSS
    for s in range(nstk):
        S[base + s, lay.SF_N] = 0
    for u in range(nu):
        if ust[u, lay.US_SIDE] != side or U[u, lay.UF_LOC] < 0:
            continue
        k = pu[u]
        if k < 0 or k >= nstk:
            return lay.ERR_UNIT, -1
        n = S[base + k, lay.SF_N]
        if n >= lay.MAXPER:
            return lay.ERR_NO_PLAN, k
        SM[base + k, n] = u
        S[base + k, lay.SF_N] = n + 1
    for k in range(nstk):
        s = base + k
        n = S[s, lay.SF_N]
        if n == 0:
            return lay.ERR_NO_PLAN, k
        sort_line_nb(SM[s], n, pp)   # line order: the plan's sort key
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] != side or LD[i, lay.LF_STATE] != lay.LEADER_IN_PLAY:
            continue
        k = pl[i]
        if k < 0 or k >= nstk:
            return lay.ERR_LEADER, -1
        if U[SM[base + k, 0], lay.UF_LOC] != U[LD[i, lay.LF_UNIT], lay.UF_LOC]:
            return lay.ERR_LEADER, k
    for k in range(nstk):
        s = base + k
        n = S[s, lay.SF_N]
        mask, mp, at, iu_after, prev_raid, locked, german, ok = stack_facts_nb(side, SM[s], n, ust, U, par)
        f = StackFacts(mask, mp, at, n, iu_after, prev_raid, locked, german)
        if not ok:
            return lay.ERR_STACK_LOC, k
        order = pst[k, PS_ORDER]
        dest = pst[k, PS_DEST]
        target = pst[k, PS_TARGET]
        if order == lay.HOLD:
            if any_legal_nb(side, f, B, enemy_n, tbl, od, ot):
                return lay.ERR_HOLD, k
            dest = at
            target = -1
        else:
            if n == 1 and order != lay.ANCHOR and order != lay.COAL and order != lay.TRANSIT:
                return lay.ERR_IU_ORDER, k
            e = order_ok_nb(side, order, dest, target, f, B, enemy_n, tbl)
            if e != lay.ERR_NONE:
                return e, k
            if order != lay.RAID and order != lay.BLOCKADE:
                target = -1
        rn = 0
        dn = 0
        if order != lay.HOLD:
            if not route_ok_nb(order, at, dest, mp, pst[k], nodes, adj, par):
                return lay.ERR_ROUTE, k
            rn = pst[k, PS_RN]
            dn = pst[k, PS_DROP_N]
            if dn != 0:
                di = pst[k, PS_DROP_I]
                if (dn < 0 or dn > n - 2 or rn < 2 or di < 0 or di > rn - 2
                        or (order != lay.PATROL and order != lay.TRANSIT)):
                    return lay.ERR_DROP, k
        budget_commit_nb(order, n, at, german, B, nodes, par)
        if dn >= 2:   # 7.3 D: the dropped squadron keeps the order, on a marker of its own (5.0 B)
            if B[order] + 1 > markers[side, order]:
                return lay.ERR_MARKERS, k
            B[order] += 1
        S[s, lay.SF_RN] = rn
        for i in range(rn):
            S[s, lay.SF_R0 + i] = pst[k, PS_R0 + i]
        S[s, lay.SF_DROP_N] = dn
        S[s, lay.SF_DROP_I] = pst[k, PS_DROP_I] if dn != 0 else 0
        S[s, lay.SF_SIDE] = side
        S[s, lay.SF_LOC] = at
        S[s, lay.SF_ORDER] = order
        S[s, lay.SF_DEST] = dest
        S[s, lay.SF_TARGET] = target
        S[s, lay.SF_JOIN] = 1 if pst[k, PS_JOIN] != 0 else 0
        S[s, lay.SF_START] = at
        S[s, lay.SF_HALTED] = 0
        S[s, lay.SF_MARKER] = 1 if (n >= 2 and order < lay.HOLD) else 0
        for i in range(n):
            u = SM[s, i]
            U[u, lay.UF_STACK] = s
            U[u, lay.UF_ORDER] = order
    led = 0   # bit k: slot k has a leader (the side's leaders in play are all in pl)
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] != side or LD[i, lay.LF_STATE] != lay.LEADER_IN_PLAY:
            continue
        LD[i, lay.LF_UNIT] = SM[base + pl[i], 0]
        led |= 1 << pl[i]
    for k in range(nstk):
        if (led >> k) & 1:   # seat_leaders_nb does nothing to a stack with no leader aboard
            seat_leaders_nb(base + k, U, S, SM, LD, lst)
    for o in range(lay.N_MARK_SLOTS):
        G[lay.G_MARK + side * lay.N_MARK_SLOTS + o] = B[o]
    G[lay.G_COALSEA0 + side] = B[B_SEA]
    return lay.ERR_NONE, -1


# ============================================================================ movement
@kernel
def live_slots_nb(side, S):
    """One past the last of ``side``'s stack slots in use, 0 if none: only
    :func:`install_plan_nb` fills slots (from the side's first) and a 7.3 D drop-off in the side's
    own movement (:func:`drop_units_nb`, a slot past them); later phases only empty them, so the
    slots past it stay empty for the rest of the turn (the other side's movement, combat)."""
    base = side * MAXSS
    hi = 0
    for k in range(MAXSS):
        if S[base + k, lay.SF_SIDE] == side:
            hi = k + 1
    return hi


@kernel(inline="always")
def halts_here_nb(side, area, S, ND, par, nopp):
    """Rule 7.1 F / 4.2 E / 7.6 A: a moving squadron must stop on entering an area holding an
    opposing squadron at sea with Patrol or Blockade orders, or an opposing control marker.
    ``nopp``: the opposing side's stack slots in use (:func:`live_slots_nb`)."""
    if ND[area, lay.ND_CONTROL] == 1 - side:
        return True
    base = (1 - side) * MAXSS
    for s in range(base, base + nopp):
        if S[s, lay.SF_SIDE] != 1 - side or S[s, lay.SF_N] < 2:
            continue
        if S[s, lay.SF_LOC] == area and (S[s, lay.SF_ORDER] == lay.PATROL or S[s, lay.SF_ORDER] == lay.BLOCKADE):
            return True
    return False


@kernel(inline="always")
def set_stack_loc_nb(s, node, S, SM, U):
    S[s, lay.SF_LOC] = node
    for i in range(S[s, lay.SF_N]):
        u = SM[s, i]
        U[u, lay.UF_LOC] = node
        if node != U[u, lay.UF_STARTLOC]:
            U[u, lay.UF_MOVED] = 1


@kernel(inline="always")
def move_stack_nb(s, ust, nodes, adj, cost, nh, par, U, S, SM, ND, nopp):
    """Move one stack to its destination along the route of its plan (7.1 F, ruling C49; with
    none, the least-MP route, ruling C8), stopping where a squadron must halt (7.1 F, 7.6). Patrol
    and Sortie may always enter the first area (5.4 B, 5.6 B). ``nopp``: the opposing side's stack
    slots in use (:func:`live_slots_nb`).

    Returns:
        The node of the plan's 7.3 D drop-off if the stack traversed it (entered it and went on
        without halting there), else -1 (:func:`drop_units_nb`).
    """
    side = S[s, lay.SF_SIDE]
    order = S[s, lay.SF_ORDER]
    at = S[s, lay.SF_LOC]
    dest = S[s, lay.SF_DEST]
    if order == lay.COAL or order == lay.HOLD or dest == at:
        return -1
    A = par[lay.P_NAREAS]
    n = S[s, lay.SF_N]
    m = S[s, lay.SF_RN]
    if m > 0:   # the plan's route, checked at the orders (campaign_orders.route_ok_nb)
        di = S[s, lay.SF_DROP_I] if S[s, lay.SF_DROP_N] > 0 else -1
        drop = -1
        for i in range(m):
            cur = S[s, lay.SF_R0 + i]
            set_stack_loc_nb(s, cur, S, SM, U)
            if cur < A and n >= 2 and cur != dest and halts_here_nb(side, cur, S, ND, par, nopp):
                S[s, lay.SF_HALTED] = 1
                break
            if i == di:
                drop = cur
        return drop
    k = lay.KMAX
    if order == lay.PATROL:
        k = par[lay.P_PATROL_SEA] if at < A else par[lay.P_PATROL_PORT]
    cur = at
    # a Patrol or Sortie beyond its MP may still enter the first area
    minmov = minmov_nb(par)
    mp = 1 << 20
    for i in range(n):
        mv = eff_mov_nb(ust, U, SM[s, i], minmov)
        if mv < mp:
            mp = mv
    if cost[k, cur, dest] > mp:
        if adj[cur, dest] != 0:
            nxt = dest
            set_stack_loc_nb(s, nxt, S, SM, U)
        return -1
    steps = 0
    while cur != dest and steps < 64:
        nxt = nh[k, cur, dest]
        if nxt < 0:
            break
        if nxt < A:
            k -= 1
        cur = nxt
        set_stack_loc_nb(s, cur, S, SM, U)
        steps += 1
        if cur < A and n >= 2 and cur != dest and halts_here_nb(side, cur, S, ND, par, nopp):
            S[s, lay.SF_HALTED] = 1
            break
    return -1


@kernel
def drop_units_nb(s, node, lst, U, S, SM, LD, G):
    """Rule 7.3 D (ruling C51): stack ``s`` drops the last ``S[s, SF_DROP_N]`` units of its line in
    area ``node`` (-1: it did not traverse the plan's drop-off area, having halted first). One
    unit dropped is an independent unit with Transit orders; more form a squadron with the same
    orders (on the marker the plan reserved; released when no drop happens). The dropped units end
    their move there (their own movement is not planned); leaders aboard them stay with the
    squadron that goes on (aboard its last unit, 6.2 D). The new stack takes the side's first
    empty slot (past its live slots, :func:`live_slots_nb`), so it does not move again this phase.
    """
    dn = S[s, lay.SF_DROP_N]
    if dn <= 0:
        return
    side = S[s, lay.SF_SIDE]
    order = S[s, lay.SF_ORDER]
    mark = lay.G_MARK + side * lay.N_MARK_SLOTS + order
    base = side * MAXSS
    t = -1
    if node >= 0:
        for q in range(base, base + MAXSS):
            if S[q, lay.SF_SIDE] < 0 and S[q, lay.SF_N] == 0:
                t = q
                break
    n = S[s, lay.SF_N]
    if t < 0 or n - dn < 2:
        if dn >= 2:
            G[mark] -= 1   # the marker the plan reserved is not used
        S[s, lay.SF_DROP_N] = 0
        return
    o2 = order if dn >= 2 else lay.TRANSIT
    keep = SM[s, n - dn - 1]
    for i in range(dn):
        u = SM[s, n - dn + i]
        SM[t, i] = u
        U[u, lay.UF_STACK] = t
        U[u, lay.UF_ORDER] = o2
        U[u, lay.UF_LOC] = node
        if node != U[u, lay.UF_STARTLOC]:
            U[u, lay.UF_MOVED] = 1
        move_leaders_nb(u, keep, LD, lst)
    S[s, lay.SF_N] = n - dn
    S[s, lay.SF_DROP_N] = 0
    for f in range(lay.SF_NF):
        S[t, f] = 0
    S[t, lay.SF_SIDE] = side
    S[t, lay.SF_LOC] = node
    S[t, lay.SF_ORDER] = o2
    S[t, lay.SF_DEST] = node
    S[t, lay.SF_TARGET] = -1
    S[t, lay.SF_N] = dn
    S[t, lay.SF_START] = S[s, lay.SF_START]
    S[t, lay.SF_MARKER] = 1 if dn >= 2 else 0


@kernel
def merge_into_nb(keep, other, ust, lst, S, SM, U, LD, G):
    """Combine stack ``other`` into ``keep`` (7.3 C): ``keep``'s order stays, the line is reordered
    most powerful first, the active leader goes aboard the new first unit (6.2 A), the others
    aboard the last (:func:`seat_leaders_nb`)."""
    nk = S[keep, lay.SF_N]
    no = S[other, lay.SF_N]
    first_old_k = SM[keep, 0]
    first_old_o = SM[other, 0]
    for i in range(no):
        u = SM[other, i]
        SM[keep, nk + i] = u
        U[u, lay.UF_STACK] = keep
        U[u, lay.UF_ORDER] = S[keep, lay.SF_ORDER]
    n = nk + no
    S[keep, lay.SF_N] = n
    side = S[keep, lay.SF_SIDE]
    if S[other, lay.SF_MARKER] != 0:
        G[lay.G_MARK + side * lay.N_MARK_SLOTS + S[other, lay.SF_ORDER]] -= 1
    S[other, lay.SF_N] = 0
    S[other, lay.SF_SIDE] = -1
    if n >= 2 and S[keep, lay.SF_MARKER] == 0 and S[keep, lay.SF_ORDER] < lay.HOLD:
        S[keep, lay.SF_MARKER] = 1
        G[lay.G_MARK + side * lay.N_MARK_SLOTS + S[keep, lay.SF_ORDER]] += 1
    sort_line_strength_nb(SM[keep], n, ust, U)
    move_leaders_nb(first_old_k, SM[keep, 0], LD, lst)
    move_leaders_nb(first_old_o, SM[keep, 0], LD, lst)
    seat_leaders_nb(keep, U, S, SM, LD, lst)


@kernel
def combine_side_nb(side, ust, lst, markers, par, U, S, SM, LD, G, rng, nslots):
    """End of a side's movement: squadrons in one place combine (7.3 C; of two of the same size, the
    one whose order is kept is the side's choice, ``par[P_MERGE0 + side]``), independent units join a
    squadron where they end their move if their plan says so (7.4 E), independent units ending at
    sea in one area combine into a Transit squadron while a Transit marker is left (7.4 H).
    ``nslots``: the side's stack slots in use (:func:`live_slots_nb`; combining only empties
    slots)."""
    base = side * MAXSS
    top = base + nslots
    for s in range(base, top):
        if S[s, lay.SF_SIDE] != side or S[s, lay.SF_N] < 2:
            continue
        for t in range(s + 1, top):
            if S[t, lay.SF_SIDE] != side or S[t, lay.SF_N] < 2 or S[t, lay.SF_LOC] != S[s, lay.SF_LOC]:
                continue
            ns = S[s, lay.SF_N]
            nt = S[t, lay.SF_N]
            keep_s = True
            if nt > ns:
                keep_s = False
            elif nt == ns:
                # 7.3 C: "the owning side decides" (par[P_MERGE0 + side], enums.MK_*); the rule's
                # default: the squadron with a leader, then the most stars, then a coin
                mk = par[lay.P_MERGE0 + side]
                if mk == MK_FIRST:
                    keep_s = True
                elif mk == MK_LAST:
                    keep_s = False
                else:
                    st_s, _ = stack_leader_stars_nb(s, S, SM, LD, lst)
                    st_t, _ = stack_leader_stars_nb(t, S, SM, LD, lst)
                    if st_t > st_s:
                        keep_s = False
                    elif st_t == st_s:
                        keep_s = die_nb(rng, 2) == 1
            if keep_s:
                merge_into_nb(s, t, ust, lst, S, SM, U, LD, G)
            else:
                # keep t's order but stay in slot s
                o_s = S[s, lay.SF_ORDER]
                S[s, lay.SF_ORDER] = S[t, lay.SF_ORDER]
                S[t, lay.SF_ORDER] = o_s
                for f in (lay.SF_DEST, lay.SF_TARGET, lay.SF_HALTED, lay.SF_MARKER):
                    x = S[s, f]
                    S[s, f] = S[t, f]
                    S[t, f] = x
                for i in range(S[s, lay.SF_N]):
                    U[SM[s, i], lay.UF_ORDER] = S[s, lay.SF_ORDER]
                merge_into_nb(s, t, ust, lst, S, SM, U, LD, G)
    # independent units
    A = par[lay.P_NAREAS]
    for s in range(base, top):
        if S[s, lay.SF_SIDE] != side or S[s, lay.SF_N] != 1:
            continue
        u = SM[s, 0]
        if U[u, lay.UF_MOVED] == 0 or S[s, lay.SF_JOIN] == 0:
            continue
        for t in range(base, top):
            if t != s and S[t, lay.SF_SIDE] == side and S[t, lay.SF_N] >= 2 and S[t, lay.SF_LOC] == S[s, lay.SF_LOC]:
                merge_into_nb(t, s, ust, lst, S, SM, U, LD, G)
                break
    for s in range(base, top):
        if S[s, lay.SF_SIDE] != side or S[s, lay.SF_N] != 1 or S[s, lay.SF_LOC] >= A:
            continue
        if S[s, lay.SF_ORDER] != lay.TRANSIT or U[SM[s, 0], lay.UF_MOVED] == 0:
            continue
        for t in range(s + 1, top):
            if (S[t, lay.SF_SIDE] != side or S[t, lay.SF_N] != 1 or S[t, lay.SF_LOC] != S[s, lay.SF_LOC]
                    or S[t, lay.SF_ORDER] != lay.TRANSIT or U[SM[t, 0], lay.UF_MOVED] == 0):
                continue
            if S[s, lay.SF_N] == 1 and G[lay.G_MARK + side * lay.N_MARK_SLOTS + lay.TRANSIT] >= markers[side, lay.TRANSIT]:
                break
            merge_into_nb(s, t, ust, lst, S, SM, U, LD, G)


@kernel
def movement_side_nb(side, tb, st):
    """One side's Movement Phase segment (Rules 4.2, 7.0): every stack in slot order along its
    plan's route (7.1 F), dropping off units where its plan says (7.3 D), then combining (7.3 C,
    7.4 E/H). ``tb``: :class:`campaign_bundles.Tables`; ``st``: :class:`campaign_bundles.GameState`
    (its units, stacks, leaders, nodes, game scalars and random stream)."""
    ust, lst, nodes, adj, cost, nh, markers, par = tb.ust, tb.lst, tb.nodes, tb.adj, tb.cost, tb.nh, tb.markers, tb.par
    U, S, SM, LD, ND, G, rng = st.U, st.S, st.SM, st.LD, st.ND, st.G, st.rng
    base = side * MAXSS
    nslots = live_slots_nb(side, S)
    nopp = live_slots_nb(1 - side, S)
    for s in range(base, base + nslots):
        if S[s, lay.SF_SIDE] == side and S[s, lay.SF_N] > 0:
            drop = move_stack_nb(s, ust, nodes, adj, cost, nh, par, U, S, SM, ND, nopp)
            if S[s, lay.SF_DROP_N] > 0:
                drop_units_nb(s, drop, lst, U, S, SM, LD, G)   # 7.3 D
    nslots = live_slots_nb(side, S)   # with the squadrons dropped off (7.3 D)
    combine_side_nb(side, ust, lst, markers, par, U, S, SM, LD, G, rng, nslots)


@kernel
def neutral_ports_nb(ust, lst, nodes, par, U, S, SM, LD, G):
    """End of the Movement Phase: units in a neutral port count their turns there; those that had
    to leave this turn and did not are interned and removed (Rule 7.2.3 D)."""
    for u in range(ust.shape[0]):
        loc = U[u, lay.UF_LOC]
        if loc < 0:
            continue
        german = ust[u, lay.US_GERMAN] & 1 != 0
        if port_neutral_nb(nodes, loc, german, par):
            if U[u, lay.UF_NEUTRAL] >= 2 and U[u, lay.UF_MOVED] == 0:
                intern_unit_nb(u, ust, lst, U, S, SM, LD, G)
            else:
                U[u, lay.UF_NEUTRAL] = U[u, lay.UF_NEUTRAL] + 1 if U[u, lay.UF_MOVED] == 0 else 1
        else:
            U[u, lay.UF_NEUTRAL] = 0


@kernel
def remove_from_stack_nb(u, U, S, SM, LD, lst):
    """Take unit ``u`` out of its stack (leaders aboard stay with ``u``)."""
    s = U[u, lay.UF_STACK]
    if s < 0:
        return
    n = S[s, lay.SF_N]
    k = 0
    for i in range(n):
        v = SM[s, i]
        if v != u:
            SM[s, k] = v
            k += 1
    S[s, lay.SF_N] = k
    U[u, lay.UF_STACK] = -1
    if k == 0:
        S[s, lay.SF_SIDE] = -1


@kernel
def intern_unit_nb(u, ust, lst, U, S, SM, LD, G):
    remove_from_stack_nb(u, U, S, SM, LD, lst)
    U[u, lay.UF_LOC] = lay.LOC_INTERNED
    G[lay.G_INTERNED0 + ust[u, lay.US_SIDE]] += 1
    for i in range(lst.shape[0]):
        if LD[i, lay.LF_STATE] == lay.LEADER_IN_PLAY and LD[i, lay.LF_UNIT] == u:
            LD[i, lay.LF_STATE] = lay.LEADER_ABSENT
            LD[i, lay.LF_UNIT] = -1


# ============================================================================ free deployment
@kernel
def apply_deployment_nb(side, dep, dlead, ust, lst, nodes, par, U, LD):
    """Optional rule 14.11 (Free Deployment): check and apply a side's set-up.

    ``dep[u]`` is the node of each of the side's units in play at the start (German units stay in
    Caracas, 14.12 B, ruling C28); ``dlead[i]`` the unit each of its leaders starts aboard. The US
    places its units in US ports, and at most one squadron of up to six units with at most one
    leader in one sea area bordering a US port (14.11 B, ruling C28), which counts as having had
    Patrol orders; Spain places everything in Spanish ports (14.11 C).

    Returns:
        ``ERR_NONE`` or ``ERR_DEPLOY``.
    """
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    sea = -1
    nsea = 0
    for u in range(ust.shape[0]):
        if ust[u, lay.US_SIDE] != side or U[u, lay.UF_LOC] < 0 or ust[u, lay.US_GERMAN] & 1:
            continue
        n = dep[u]
        if n < 0 or n >= N:
            return lay.ERR_DEPLOY
        if n >= A:
            if nodes[n, lay.NS_PSIDE] != side:
                return lay.ERR_DEPLOY
        else:
            if side != lay.US:
                return lay.ERR_DEPLOY
            ok = False
            for p in range(A, N):
                if nodes[p, lay.NS_PSIDE] == lay.US and port_borders_nb(nodes, p, n):
                    ok = True
            if not ok or (sea >= 0 and sea != n):
                return lay.ERR_DEPLOY
            sea = n
            nsea += 1
    if nsea > 6:
        return lay.ERR_DEPLOY
    lsea = 0
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] != side or LD[i, lay.LF_STATE] != lay.LEADER_IN_PLAY or lst[i, lay.LS_GERMAN]:
            continue
        u = dlead[i]
        if u < 0 or u >= ust.shape[0] or ust[u, lay.US_SIDE] != side or U[u, lay.UF_LOC] < 0 \
                or ust[u, lay.US_GERMAN] & 1:
            return lay.ERR_DEPLOY
        if dep[u] == sea:
            lsea += 1
    if lsea > 1:
        return lay.ERR_DEPLOY
    for u in range(ust.shape[0]):
        if ust[u, lay.US_SIDE] != side or U[u, lay.UF_LOC] < 0 or ust[u, lay.US_GERMAN] & 1:
            continue
        U[u, lay.UF_LOC] = dep[u]
        U[u, lay.UF_PREV] = lay.PATROL if dep[u] < A else lay.ANCHOR
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] == side and LD[i, lay.LF_STATE] == lay.LEADER_IN_PLAY and lst[i, lay.LS_GERMAN] == 0:
            LD[i, lay.LF_UNIT] = dlead[i]
    return lay.ERR_NONE
