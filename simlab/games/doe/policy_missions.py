"""Missions of the Dawn of Empire scripted policies: candidate orders per group (numba kernels).

For each group (:func:`policy_view.group_units_nb`) :func:`missions_nb` lists candidate
(order, destination, target) triples in preference order; :func:`policies.scripted_plan_nb` takes
the first the rules allow (:func:`campaign_orders.order_ok_nb`). Rule sections: the forced
follow-ups of 5.2 D (Blockade then Coal), 5.4 D (Patrol then Coal or Anchor) and 5.5 D (Raid then
Transit to port), Blockade and Raid targets (5.1, 5.5, 12.1.3), Patrol (5.4), Sortie (5.6 A),
Transit (5.7) and repair in port (9.0).
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from . import campaign_layout as lay
from . import policy_layout as pk
from .campaign_orders import ALL_ORDERS, B_SEA
from .policy_view import VIS_ATT, VIS_N, nearest_friendly_memo_nb

MAXC = 24          # candidates per group


@kernel
def add_candidate_nb(pw, nc, o, d, t):
    """Append the candidate (order ``o``, destination ``d``, target ``t``) to the policy
    scratch's rows ``PW_CO``, ``PW_CD``, ``PW_CT`` if there is room (``MAXC``); returns the new
    count."""
    if nc < MAXC:
        pw[pk.PW_CO, nc] = o
        pw[pk.PW_CD, nc] = d
        pw[pk.PW_CT, nc] = t
        nc += 1
    return nc


@kernel(inline="always")
def add_home_nb(side, at, mp, german, nodes, cost, adj, par, pw, nc):
    """Candidates that take a group home: stay anchored in a friendly port, anchor into a bordering
    friendly port, transit to the nearest port that repairs. ``pw``: the policy scratch
    (candidates and the nearest-port memo)."""
    A = par[lay.P_NAREAS]
    NONE = np.int64(-1)
    if at >= A:
        nc = add_candidate_nb(pw, nc, lay.ANCHOR, at, NONE)
    else:
        for p in range(A, nodes.shape[0]):
            if adj[at, p] != 0 and nodes[p, lay.NS_PSIDE] == side:
                nc = add_candidate_nb(pw, nc, lay.ANCHOR, p, NONE)
    return add_port_transits_nb(at, side, german, pw, nodes, cost, par, np.bool_(True), nc)


@kernel(inline="always")
def add_port_transits_nb(at, side, german, pw, nodes, cost, par, not_here, nc):
    """Transit candidates to the nearest friendly port that repairs, then to the nearest friendly
    port of any kind (:func:`policy_view.nearest_friendly_memo_nb`); with ``not_here``, a port the
    group is already in is not offered. Returns the new candidate count."""
    NONE = np.int64(-1)
    for k in range(2):
        p = nearest_friendly_memo_nb(at, side, german, np.bool_(k == 0), pw, nodes, cost, par)
        if p >= 0 and not (not_here and p == at):
            nc = add_candidate_nb(pw, nc, lay.TRANSIT, p, NONE)
    return nc


@kernel(inline="always")
def add_after_patrol_nb(side, at, n, german, nodes, adj, par, B, pw, nc):
    """After a Patrol (5.4 D: "must be given Coal or Anchor orders", the owner's choice): coal where
    it is at sea (it keeps the area, 11 F bars only Transit), else anchor in a bordering friendly or
    neutral port, else anchor in place. With the knob ``after_patrol`` = 1 (kept by the plan in
    ``pw[PW_ACC, 4]``) a bordering friendly port is tried before Coal at sea, which leaves the sea
    coaling limit (7.5 C) to other squadrons."""
    A = par[lay.P_NAREAS]
    NONE = np.int64(-1)
    if at < A:
        anchor_first = pw[pk.PW_ACC, 4] != 0
        if anchor_first:
            for p in range(A, nodes.shape[0]):
                if adj[at, p] != 0 and nodes[p, lay.NS_PSIDE] == side:
                    nc = add_candidate_nb(pw, nc, lay.ANCHOR, p, NONE)
        if B[B_SEA] + n <= par[lay.P_COALSEA0 + side]:
            nc = add_candidate_nb(pw, nc, lay.COAL, at, NONE)
        if not anchor_first:
            for p in range(A, nodes.shape[0]):
                if adj[at, p] != 0 and nodes[p, lay.NS_PSIDE] == side:
                    nc = add_candidate_nb(pw, nc, lay.ANCHOR, p, NONE)
        for p in range(A, nodes.shape[0]):
            if adj[at, p] != 0 and nodes[p, lay.NS_PSIDE] == lay.PSIDE_NEUTRAL:
                nc = add_candidate_nb(pw, nc, lay.ANCHOR, p, NONE)
        nc = add_candidate_nb(pw, nc, lay.ANCHOR, at, NONE)
        nc = add_candidate_nb(pw, nc, lay.COAL, at, NONE)
    else:
        nc = add_candidate_nb(pw, nc, lay.ANCHOR, at, NONE)
        nc = add_candidate_nb(pw, nc, lay.COAL, at, NONE)
    return nc


@kernel
def pick_area_nb(score, n):
    best = -1
    bs = -(1 << 40)
    for a in range(n):
        if score[a] > bs:
            bs = score[a]
            best = a
    return best, bs


@kernel
def caribbean_base_nb(kn, at, nodes, cost, par):
    """The Spanish port a group heads for: the Caribbean port (one bordering area, not an Atlantic
    one) of best score ``base_repair * repair + base_mines * mines - MP away`` (knobs ``kn``): the
    most repair, nearest first on ties, for fleet-in-being; the most heavily mined one nearest the
    group for historical (Santiago from the Canary Islands in the standard pack)."""
    A = par[lay.P_NAREAS]
    base = -1
    bs = -(1 << 40)
    for p in range(A, nodes.shape[0]):
        if nodes[p, lay.NS_PSIDE] != lay.SPAIN or nodes[p, lay.NS_PAREA2] >= 0:
            continue
        if nodes[nodes[p, lay.NS_PAREA1], lay.NS_MP] >= 3:
            continue
        c = cost[lay.KMAX, at, p] if p != at else 0
        v = kn[pk.K_BASE_REPAIR] * nodes[p, lay.NS_REPAIR] + kn[pk.K_BASE_MINES] * nodes[p, lay.NS_MINE] - c
        if v > bs:
            bs = v
            base = p
    return base


@kernel
def stage_area_nb(at, base, mp, cost, par):
    """A crossing in stages (5.7: Transit may last two turns): the sea area within ``mp`` of
    ``at`` nearest the ``base`` port, or -1."""
    A = par[lay.P_NAREAS]
    bst = -1
    bc = lay.BIG
    for a in range(A):
        c = 0 if a == at else cost[lay.KMAX, at, a]
        if c <= mp and cost[lay.KMAX, a, base] < bc:
            bc = cost[lay.KMAX, a, base]
            bst = a
    return bst


@kernel
def home_port_nb(nodes, par):
    """Spain's home port: of its ports bordering two areas (Cadiz, the Canary Islands, 7.2.2 B),
    the one with most repair."""
    best = -1
    br = -1
    for p in range(par[lay.P_NAREAS], nodes.shape[0]):
        if nodes[p, lay.NS_PSIDE] == lay.SPAIN and nodes[p, lay.NS_PAREA2] >= 0 and nodes[p, lay.NS_REPAIR] > br:
            br = nodes[p, lay.NS_REPAIR]
            best = p
    return best


@kernel
def relieved_nb(side, a, ust, UV, coaling):
    """True if own units that blockaded from area ``a`` last turn must coal now (5.2 D) and are
    not coaling there (7.5 D: over the coaling limit they sail for a port), so the blockade lapses
    unless a fresh squadron relieves it."""
    if coaling[a] > 0:
        return False
    for u in range(ust.shape[0]):
        if ust[u, lay.US_SIDE] == side and UV[u, lay.UF_LOC] == a and UV[u, lay.UF_PREV] == lay.BLOCKADE:
            return True
    return False


@kernel(inline="always")
def missions_nb(kn, side, g, gmem, pw, ust, UV, tbl, vis, B, f):
    """Candidate (order, dest, target) triples for group ``g`` of a scripted policy with knobs
    ``kn`` (``int64[KN_NF]``, :mod:`policy_layout`), written to the policy scratch ``pw``'s rows
    ``PW_CO``, ``PW_CD``, ``PW_CT``; returns ``(how many, tail)``: with ``tail`` the safe
    fallbacks of :func:`missions_tail_nb` come after them. It reads the groups (``PW_GN``...), the
    turn tables (``PW_THREAT``, ``PW_HOME``, the nearest-port memo) and keeps, in ``PW_SENT``,
    the attack (tenths) the side already sent to each node this turn, in ``PW_COAL`` the units
    given Coal there so far; ``PW_ACC``: ``acc[0]`` the side's whole attack (tenths), ``acc[1]``
    the part given the policy's main mission so far (blockade, raid, home defence), ``acc[2]``
    the units given Blockade so far, ``acc[3]`` the raid threat the US sees on its coast (tenths,
    guard_sized). The rows are passed as one array (a call passes each array argument as several
    machine words). ``tbl``: :class:`campaign_orders.OrderTables` (the map and ``par``); ``f``:
    the group's :class:`campaign_orders.StackFacts` (its orders allowed, MP, German-only)."""
    nodes, adj, cost, par = tbl.nodes, tbl.adj, tbl.cost, tbl.par
    mask, mp, german = f.mask, f.mp, f.german
    gn, gat, gstr, gdmg = pw[pk.PW_GN], pw[pk.PW_GAT], pw[pk.PW_GSTR], pw[pk.PW_GDMG]
    sent, acc, coaling, score = pw[pk.PW_SENT], pw[pk.PW_ACC], pw[pk.PW_COAL], pw[pk.PW_SCORE]
    threat, home = pw[pk.PW_THREAT], pw[pk.PW_HOME]
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    at = gat[g]
    n = gn[g]
    st10 = 10 * gstr[g]
    nc = np.int64(0)
    NONE = np.int64(-1)
    only = mask & ALL_ORDERS
    # ---- forced follow-ups (5.2 D, 5.4 D, 5.5 D)
    if only == (1 << lay.COAL):
        nc = add_candidate_nb(pw, nc, lay.COAL, at, NONE)
        if kn[pk.K_BLOCKADE_ROTATE] != 0 and at < A:
            # 7.5 D: over the coaling limit the blockaders are relieved: they sail to coal in port
            nc = add_port_transits_nb(at, side, german, pw, nodes, cost, par, np.bool_(False), nc)
            for q in range(A, N):
                if adj[at, q] != 0 and nodes[q, lay.NS_PSIDE] != 1 - side:
                    nc = add_candidate_nb(pw, nc, lay.ANCHOR, q, NONE)
        return nc, False
    if only == ((1 << lay.COAL) | (1 << lay.ANCHOR)) or only == (1 << lay.ANCHOR):
        return add_after_patrol_nb(side, at, n, german, nodes, adj, par, B, pw, nc), False
    if only == (1 << lay.TRANSIT) and UV[gmem[g, 0], lay.UF_PREV] == lay.RAID:
        # 5.5 D: home to a friendly or neutral port, the owner's choice (knob raid_home): first the
        # friendly port within the group's move of most repair (1) or most defense + mines (2), ties
        # the nearest, then in map order; then (0: only) the nearest that repairs, the nearest, neutrals
        home = kn[pk.K_RAID_HOME]
        if home != 0:
            bp = -1
            bv = -1
            for q in range(A, N):
                if nodes[q, lay.NS_PSIDE] != side or cost[lay.KMAX, at, q] > mp:
                    continue
                v = nodes[q, lay.NS_REPAIR] if home == 1 else nodes[q, lay.NS_DEF] + nodes[q, lay.NS_MINE]
                if v > bv or (v == bv and cost[lay.KMAX, at, q] < cost[lay.KMAX, at, bp]):
                    bp = q
                    bv = v
            if bp >= 0:
                nc = add_candidate_nb(pw, nc, lay.TRANSIT, bp, NONE)
        nc = add_port_transits_nb(at, side, german, pw, nodes, cost, par, np.bool_(False), nc)
        for q in range(A, N):
            if nodes[q, lay.NS_PSIDE] == lay.PSIDE_NEUTRAL:
                nc = add_candidate_nb(pw, nc, lay.TRANSIT, q, NONE)
        return nc, False
    # ---- a port's garrison (knob garrison, policies.mark_garrisons_nb) stays anchored in it (5.1 A),
    # or sails to the threatened port it is sent to (garrison_send, 5.7)
    if pw[pk.PW_GGAR, g] == 1 and at >= A:
        nc = add_candidate_nb(pw, nc, lay.ANCHOR, at, NONE)
    elif pw[pk.PW_GGAR, g] == 2:
        dst = pw[pk.PW_GDEST, g]
        if cost[lay.KMAX, at, dst] <= mp:
            nc = add_candidate_nb(pw, nc, lay.TRANSIT, dst, NONE)
            if at < A:
                nc = add_candidate_nb(pw, nc, lay.ANCHOR, dst, NONE)
        else:   # in two moves (5.7 B): first to the sea area within reach nearest the port
            bst = stage_area_nb(at, dst, mp, cost, par)
            if bst >= 0 and bst != at:
                nc = add_candidate_nb(pw, nc, lay.TRANSIT, bst, NONE)
    # ---- damaged groups go home to repair; a repairing group stays
    if at >= A and gdmg[g] > 0 and nodes[at, lay.NS_PSIDE] == side and nodes[at, lay.NS_REPAIR] > 0:
        nc = add_candidate_nb(pw, nc, lay.ANCHOR, at, NONE)
    elif gdmg[g] > 0 and gdmg[g] * kn[pk.K_REPAIR_AT] >= gstr[g] + n:
        nc = add_home_nb(side, at, mp, german, nodes, cost, adj, par, pw, nc)
    for a in range(A):
        score[a] = -(1 << 40)
    aggression = kn[pk.K_AGGRESSION]
    ratio = kn[pk.K_ODDS] - aggression   # permille: how much stronger the group wants to be before it seeks battle
    share_ok = (acc[1] + st10) * 1000 <= aggression * acc[0] + kn[pk.K_SHARE_SLACK] * st10
    # rotate (7.5 C-D): this turn's blockaders must all coal at sea next turn, so no more
    # units blockade than the side may coal there; a port whose blockaders left it to coal in
    # port is relieved first; no squadron joins one coaling off a port (7.3 C would merge them)
    rot = kn[pk.K_BLOCKADE_ROTATE] != 0
    room = (not rot) or acc[2] + n <= par[lay.P_COALSEA0 + side]
    if kn[pk.K_BLOCKADE] != 0 and n >= 2 and share_ok and room:
        # blockade the enemy port whose destruction pays best, one squadron per port (5.2; both sides)
        best_p = -1
        best_a = -1
        bs = -(1 << 40)
        for p in range(A, N):
            if nodes[p, lay.NS_PSIDE] != 1 - side or sent[p] > 0:
                continue
            for j in range(2):
                a = nodes[p, lay.NS_PAREA1 + j]
                if a < 0:
                    continue
                if rot and coaling[a] > 0:
                    continue
                c = 0 if a == at else cost[lay.KMAX, at, a]
                if c > mp:
                    continue
                thr = threat[a] + 10 * nodes[p, lay.NS_ATT]
                if st10 * 1000 < ratio * thr:
                    continue
                v = (kn[pk.K_BLOCKADE_VALUE] + kn[pk.K_BLOCKADE_DEF] * nodes[p, lay.NS_DEF]
                     + kn[pk.K_BLOCKADE_GARRISON] * vis[p, VIS_N] - kn[pk.K_BLOCKADE_COST] * c - thr // 10)
                if rot and relieved_nb(side, a, ust, UV, coaling):
                    v += kn[pk.K_BLOCKADE_RELIEF]
                if v > bs:
                    bs = v
                    best_p = p
                    best_a = a
        if best_p >= 0:
            sent[best_p] += st10
            acc[1] += st10
            acc[2] += n
            nc = add_candidate_nb(pw, nc, lay.BLOCKADE, best_a, best_p)
    # raid the enemy port area that pays best and get home next turn (5.5; both sides). The share is
    # counted again after any blockade above (the same as share_ok when none was sent)
    share_ok2 = (acc[1] + st10) * 1000 <= aggression * acc[0] + kn[pk.K_SHARE_SLACK] * st10
    vp_col = lay.NS_VP_SPAIN if side == lay.SPAIN else lay.NS_VP_US
    if kn[pk.K_RAIDS] != 0 and n >= 2 and share_ok2:
        best_a = -1
        best_p = -1
        bs = -(1 << 40)
        for p in range(A, N):
            if nodes[p, lay.NS_PSIDE] != 1 - side:
                continue
            for j in range(2):
                a = nodes[p, lay.NS_PAREA1 + j]
                if a < 0 or sent[a] > 0:
                    continue
                c = 0 if a == at else cost[lay.KMAX, at, a]
                if c > mp:
                    continue
                # a raider must get home next turn (5.5 D)
                h = nearest_friendly_memo_nb(a, side, german, np.bool_(False), pw, nodes, cost, par)
                if h < 0 or cost[lay.KMAX, a, h] > mp:
                    continue
                thr = threat[a]
                if st10 * 1000 < ratio * thr:
                    continue
                v = (kn[pk.K_RAID_VP] * nodes[a, vp_col] + kn[pk.K_RAID_VALUE]
                     + kn[pk.K_RAID_DEF] * nodes[p, lay.NS_DEF] - thr - kn[pk.K_RAID_COST] * c)
                if v > bs:
                    bs = v
                    best_a = a
                    best_p = p
        if best_a >= 0:
            acc[1] += st10
            nc = add_candidate_nb(pw, nc, lay.RAID, best_a, best_p)
    if side == lay.US:
        guard = kn[pk.K_GUARD_COAST] != 0
        if kn[pk.K_GUARD_SIZED] > 0:
            # a home guard sized to the raid threat seen: groups guard the coast until their
            # attack matches guard_sized permille of the enemy attack seen within reach of it
            home_first = guard and acc[1] * 1000 < kn[pk.K_GUARD_SIZED] * acc[3]
        else:
            home_first = guard and share_ok
        for a in range(A):
            enemy = vis[a, VIS_ATT]
            v = -(1 << 40)
            if guard:
                # guard the areas off US ports, most where the enemy could strike from nearby
                if home[a] != 0 and home_first:
                    v = (kn[pk.K_GUARD_BASE] + kn[pk.K_GUARD_VP] * nodes[a, lay.NS_VP_SPAIN]
                         + threat[a] // kn[pk.K_GUARD_THREAT_DIV] - sent[a])
                else:
                    v = kn[pk.K_LANE_VP] * nodes[a, lay.NS_VP_US] - sent[a]
            else:
                v = kn[pk.K_LANE_VP] * nodes[a, lay.NS_VP_US] + (kn[pk.K_LANE_FREE] if sent[a] == 0 else -kn[pk.K_LANE_TAKEN])
            if enemy > 0:
                if st10 * 1000 >= ratio * enemy:
                    v2 = kn[pk.K_ATTACK_VALUE] + enemy - sent[a] // 2
                    if v2 > v:
                        v = v2
                else:
                    v = -(1 << 30)
            score[a] = v
        for _ in range(kn[pk.K_PATROL_CHOICES]):
            a, v = pick_area_nb(score, A)
            if a < 0 or v < -(1 << 29):
                break
            nc = add_candidate_nb(pw, nc, lay.PATROL, a, NONE)
            score[a] = -(1 << 40)
        if home_first:
            acc[1] += st10
    else:
        # ---------------- Spain
        if kn[pk.K_SCREEN] != 0 and at >= A and nodes[at, lay.NS_PSIDE] == lay.SPAIN and n >= 2:
            # screening patrol off a threatened port: any squadron there forces a search on the
            # blockaders or raiders, and a failed search is "no further action" (8.2.1), so no
            # port attack; out of a port next to the enemy it goes as a Sortie (5.6 B)
            for j in range(2):
                a = nodes[at, lay.NS_PAREA1 + j]
                if a < 0:
                    continue
                near = 0
                for q in range(N):
                    if q != at and vis[q, VIS_N] > 0 and (q == a or cost[lay.KMAX, q, a] <= kn[pk.K_SCREEN_MP]):
                        near += vis[q, VIS_ATT]
                if near > 0 and st10 * 1000 >= kn[pk.K_SCREEN_ODDS] * near:
                    nc = add_candidate_nb(pw, nc, lay.PATROL, a, NONE)
        if kn[pk.K_CONCENTRATE] != 0:
            base = caribbean_base_nb(kn, at, nodes, cost, par)
            if at >= A and nodes[at, lay.NS_PAREA2] >= 0:
                # Cadiz or the Canary Islands: with cross_in_stages (fleet-in-being) a group crosses in
                # stages, else only what reaches the base in one move goes (historical: Cervera; Camara
                # stays in Cadiz)
                home_fleet = kn[pk.K_KEEP_HOME] != 0 and at == home_port_nb(nodes, par)
                if home_fleet:
                    pass   # the home squadron stays (historical: Camara in Cadiz)
                elif base >= 0 and cost[lay.KMAX, at, base] <= mp:
                    nc = add_candidate_nb(pw, nc, lay.TRANSIT, base, NONE)
                elif base >= 0 and kn[pk.K_CROSS_IN_STAGES] != 0:
                    bst = stage_area_nb(at, base, mp, cost, par)
                    if bst >= 0:
                        nc = add_candidate_nb(pw, nc, lay.TRANSIT, bst, NONE)
                nc = add_candidate_nb(pw, nc, lay.ANCHOR, at, NONE)
            elif at < A:
                if base >= 0:
                    nc = add_candidate_nb(pw, nc, lay.TRANSIT, base, NONE)
                    if kn[pk.K_CROSS_IN_STAGES] != 0 and cost[lay.KMAX, at, base] > mp:
                        bst = stage_area_nb(at, base, mp, cost, par)
                        if bst >= 0 and bst != at:
                            nc = add_candidate_nb(pw, nc, lay.TRANSIT, bst, NONE)
            else:
                # in a Caribbean port: strike (sortie or patrol) where the odds are good
                for a in range(A):
                    if adj[at, a] == 0:
                        continue
                    enemy = vis[a, VIS_ATT]
                    if enemy > 0 and st10 * 1000 >= ratio * enemy and n >= 2:
                        nc = add_candidate_nb(pw, nc, lay.SORTIE, a, NONE)
                        nc = add_candidate_nb(pw, nc, lay.PATROL, a, NONE)
                if kn[pk.K_PATROL_HOME] != 0 and n >= 2:
                    for a in range(A):
                        if (adj[at, a] != 0 and vis[a, VIS_N] == 0 and nodes[a, lay.NS_VP_SPAIN] > 0
                                and threat[a] == 0):
                            nc = add_candidate_nb(pw, nc, lay.PATROL, a, NONE)
                nc = add_candidate_nb(pw, nc, lay.ANCHOR, at, NONE)
        if kn[pk.K_HOLD_LANES] != 0:
            # between raids: hold the sea lanes that pay Spain, where the odds allow
            for a in range(A):
                enemy = threat[a]
                if nodes[a, lay.NS_VP_SPAIN] == 0 or sent[a] > 0:
                    continue
                if enemy == 0 or st10 * 1000 >= ratio * enemy:
                    score[a] = (kn[pk.K_LANE_VP] * nodes[a, lay.NS_VP_SPAIN] - enemy
                                - kn[pk.K_LANE_COST] * cost[lay.KMAX, at, a])
            for _ in range(kn[pk.K_LANE_CHOICES]):
                a, v = pick_area_nb(score, A)
                if a < 0 or v < -(1 << 29):
                    break
                nc = add_candidate_nb(pw, nc, lay.PATROL, a, NONE)
                score[a] = -(1 << 40)
    return nc, True   # then the safe fallbacks (missions_tail_nb)


@kernel(inline="always")
def missions_tail_nb(side, at, n, mp, german, nodes, adj, cost, par, B, pw, nc):
    """The safe fallbacks that follow :func:`missions_nb`'s candidates when it says so: home
    (:func:`add_home_nb`), then what may follow a Patrol (:func:`add_after_patrol_nb`), appended
    from ``nc``; returns the new count. They write nothing but candidates (and the nearest-port
    memo), so :func:`policies.scripted_plan_nb` lists them only when no earlier candidate is
    legal: the same first legal candidate as listing them all at once."""
    nc = add_home_nb(side, at, mp, german, nodes, cost, adj, par, pw, nc)
    return add_after_patrol_nb(side, at, n, german, nodes, adj, par, B, pw, nc)
