"""Order legality of the Dawn of Empire campaign (Rules 5.0-5.7, 7.1-7.5, 7.2.3, 14.3 F, 14.12 B):
what a stack may be ordered, where it may go and what order markers and coaling it uses.

Only ``@njit`` functions live here (suffix ``_nb``); the state layout is in
:mod:`campaign_layout` (imported as ``lay``). Rulings are in docs/rulings.md, section
"Dawn of Empire — the campaign" (C1...). These are the rules' own checks: the engine applies them
to every plan (:func:`campaign_movement.install_plan_nb`) and the policies call them to stay legal
(policies import the rules, never the reverse). Set-up, plans and movement are in
:mod:`campaign_movement`; combat, control, VPs and repair in :mod:`campaign_combat`; the turn loop
in :mod:`campaign_loop`.

A *plan* is what a side hands in at the orders phase (Rule 4.1.2), as arrays:

* ``pu[U]``: the stack slot (``0..nstk-1``) of each of the side's units in play (else -1);
* ``pp[U]``: a sort key giving the unit's place in its stack (line order, top first);
* ``pst[MAXSS, PS_NF]``: per slot its order, destination node, target port (Raid/Blockade),
  whether an independent unit joins a friendly squadron where it ends its move (7.4 E), its route
  (7.1 F: ``PS_RN`` nodes entered in turn, ``PS_R0...``, the last the destination; 0 nodes: the
  least-MP route, ruling C8) and a drop-off (7.3 D: after entering route node ``PS_DROP_I`` the
  last ``PS_DROP_N`` units of its line stay there; 0 units: none);
* ``pl[LMAX]``: the stack slot of each of the side's leaders in play (else -1).

Slots move in slot order (7.0: the owner moves his stacks one after the other) and are checked in
that order against the side's order markers and coaling limits.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.jit import kernel

from . import campaign_layout as lay

MAXSS = 48             # stack slots per side
PS_ORDER, PS_DEST, PS_TARGET, PS_JOIN, PS_RN, PS_DROP_I, PS_DROP_N, PS_R0 = range(8)
PS_NF = PS_R0 + lay.RMAX
# budget array B: [0:8] markers used per order, [8] units coaling at sea, [9:9+N] per node coaling
B_SEA = lay.N_MARK_SLOTS
B_NODE = B_SEA + 1

ALL_ORDERS = (1 << 7) - 1


class OrderTables(NamedTuple):
    """What the order checks read of the scenario (issue 27: one argument): ``nodes[N, NS_NF]``,
    ``adj[N, N]``, ``cost[K + 1, N, N]``, ``markers[2, N_ORDERS]`` (5.0 B) and ``par[P_NF]``, all
    ``int64`` (:mod:`campaign_layout`). Built where the checks are called (a kernel may build it
    from the arrays it holds: numba constructs named tuples in compiled code)."""

    nodes: np.ndarray
    adj: np.ndarray
    cost: np.ndarray
    markers: np.ndarray
    par: np.ndarray


class StackFacts(NamedTuple):
    """The facts of a would-be stack the order checks read (:func:`facts_nb`): ``mask`` the orders
    every member may take, ``mp`` its MP (7.3 B), ``at`` its place, ``n`` its units,
    ``iu_after`` a single unit that transited last turn (5.4.1 B), ``prev_raid`` a member raided
    last turn (5.5 D), ``locked`` a member may not leave port (14.3 F), ``german`` all are German
    (14.12)."""

    mask: int
    mp: int
    at: int
    n: int
    iu_after: bool
    prev_raid: bool
    locked: bool
    german: bool


# ============================================================================ small helpers
@kernel
def is_area_nb(node, par):
    return node < par[lay.P_NAREAS]


@kernel
def eff_mov_nb(ust, U, u, minmov):
    """Movement allowance (MP) of unit ``u``: printed movement less damage, never below ``minmov``
    (2, or 1 under 14.8 B) unless printed lower (Rule 8.3.2.3 B)."""
    m = ust[u, lay.US_MOV] - U[u, lay.UF_DMG]
    f = minmov if ust[u, lay.US_MOV] >= minmov else ust[u, lay.US_MOV]
    return m if m > f else f


@kernel
def eff_att_nb(ust, U, u):
    """Attack dice of unit ``u``: attack less damage, never below 1 (Rule 8.3.2.3 B)."""
    a = ust[u, lay.US_ATT] - U[u, lay.UF_DMG]
    f = 1 if ust[u, lay.US_ATT] >= 1 else ust[u, lay.US_ATT]
    return a if a > f else f


@kernel
def minmov_nb(par):
    return par[lay.P_MINMOV_R] if par[lay.P_RESTRICT] else par[lay.P_MINMOV]


@kernel
def port_friendly_nb(nodes, p, side, german_only, par):
    """True if node ``p`` is a port friendly to ``side``. Caracas is neutral for German units too:
    it only repairs them (14.12 B: "Caracas is otherwise considered neutral", ruling C44), so
    ``german_only`` (kept for the callers) changes nothing."""
    if p < par[lay.P_NAREAS]:
        return False
    return nodes[p, lay.NS_PSIDE] == side


@kernel
def port_neutral_nb(nodes, p, german_only, par):
    """True if ``p`` is a neutral port (7.2.3 A), for every stack: Caracas too for German units
    (14.12 B, ruling C44; ``german_only`` is kept for the callers and changes nothing)."""
    if p < par[lay.P_NAREAS]:
        return False
    return nodes[p, lay.NS_PSIDE] == lay.PSIDE_NEUTRAL


@kernel
def port_borders_nb(nodes, p, area):
    return nodes[p, lay.NS_PAREA1] == area or nodes[p, lay.NS_PAREA2] == area


@kernel(inline="always")
def port_faces_enemy_nb(nodes, p, enemy_n):
    """True if opposing units are seen (``enemy_n[N]``) in an area bordering port ``p`` (5.6 A-B).
    A port's neighbours in ``adj`` are exactly its one or two bordering areas ``NS_PAREA1``,
    ``NS_PAREA2`` (:func:`rules.compile_campaign`), so only those two are looked at."""
    if enemy_n[nodes[p, lay.NS_PAREA1]] > 0:
        return True
    a2 = nodes[p, lay.NS_PAREA2]
    return a2 >= 0 and enemy_n[a2] > 0


@kernel
def unit_allowed_nb(prev, streak, neutral, transit_max):
    """Bitmask of the orders a unit may take this turn given last turn's order (Rules 5.1 D, 5.2 D,
    5.4 D, 5.5 D, 5.6 C, 5.4.2 C), its Transit streak (5.7 B) and a neutral port (7.2.3 D)."""
    m = ALL_ORDERS
    if prev == lay.BLOCKADE:
        m = 1 << lay.COAL
    elif prev == lay.PATROL:
        m = (1 << lay.COAL) | (1 << lay.ANCHOR)
    elif prev == lay.RAID:
        m = 1 << lay.TRANSIT
    elif prev == lay.SORTIE:
        m = (1 << lay.PATROL) | (1 << lay.RAID) | (1 << lay.TRANSIT)
    elif prev == lay.TRANSIT:
        m = (1 << lay.ANCHOR) | (1 << lay.COAL) | (1 << lay.TRANSIT)
    if streak >= transit_max:
        m &= ~(1 << lay.TRANSIT)
    if neutral == 1:
        # 7.2.3 D: "The Orders Phase after entering a neutral port, units must be ordered to
        # Anchor" (ruling C6)
        m &= 1 << lay.ANCHOR
    return m


@kernel
def maint_locked_nb(ust, U, u, side, par):
    """14.3 F: a unit with damage of half its defense or more may not leave port (Spain rounds the
    half down, the US up; at least 1 point, ruling C30)."""
    if par[lay.P_MAINT] == 0:
        return False
    d = ust[u, lay.US_DEF]
    half = (d + 1) // 2 if side == lay.US else d // 2
    if half < 1:
        half = 1
    return U[u, lay.UF_DMG] >= half


# ============================================================================ stack facts
@kernel(inline="always")
def stack_facts_nb(side, members, n, ust, U, par):
    """Facts of a would-be stack from its members (``int64[n]``).

    Returns:
        ``(mask, mp, at, iu_after_transit, prev_raid, maint_locked, german_only, ok)``: the orders
        every member may take, the stack's MP (its slowest member, 7.3 B), its location, whether it
        is a single unit that transited last turn (5.4.1 B), whether a member raided last turn
        (5.5 D), whether a member may not leave port (14.3 F), whether all are German, and False if
        the members are not in one place.
    """
    transit_max = par[lay.P_TRANSIT_MAX]
    minmov = minmov_nb(par)
    mask = ALL_ORDERS
    mp = 1 << 20
    at = U[members[0], lay.UF_LOC]
    prev_raid = False
    locked = False
    german = True
    ok = True
    for i in range(n):
        u = members[i]
        if U[u, lay.UF_LOC] != at:
            ok = False
        mask &= unit_allowed_nb(U[u, lay.UF_PREV], U[u, lay.UF_STREAK], U[u, lay.UF_NEUTRAL], transit_max)
        m = eff_mov_nb(ust, U, u, minmov)
        if m < mp:
            mp = m
        if U[u, lay.UF_PREV] == lay.RAID:
            prev_raid = True
        if maint_locked_nb(ust, U, u, side, par):
            locked = True
        if ust[u, lay.US_GERMAN] & 1 == 0:
            german = False
    iu_after = False
    if n == 1:
        mask &= (1 << lay.ANCHOR) | (1 << lay.COAL) | (1 << lay.TRANSIT)
        if U[members[0], lay.UF_PREV] == lay.TRANSIT:
            iu_after = True
            mask &= (1 << lay.ANCHOR) | (1 << lay.TRANSIT)
    return mask, mp, at, iu_after, prev_raid, locked, german, ok


@kernel(inline="always")
def facts_nb(side, members, n, ust, U, par):
    """:func:`stack_facts_nb` as ``(StackFacts, ok)``."""
    mask, mp, at, iu_after, prev_raid, locked, german, ok = stack_facts_nb(side, members, n, ust, U, par)
    return StackFacts(mask, mp, at, n, iu_after, prev_raid, locked, german), ok


@kernel(inline="always")
def dest_ok_nb(side, order, dest, target, f, prev_raid, enemy_n, tbl):
    """Whether ``dest``/``target`` are legal for the stack of facts ``f`` (:class:`StackFacts`)
    given ``order``; ``prev_raid`` stands for ``f.prev_raid`` (True also for a 7.5 D Transit, which
    must end in a port). ``tbl``: :class:`OrderTables`.

    Rules 5.1-5.7 (where each order may go), 7.1-7.2 (MP and routes), 7.2.3 E (neutral ports),
    7.4 D (no entering an opposing port), 14.3 F (maintenance). ``enemy_n[N]`` is the number of
    opposing units the side can see at each node (for Sortie, 5.6 A).

    Returns:
        ``ERR_NONE``, ``ERR_DEST`` or ``ERR_TARGET``.
    """
    nodes, adj, cost, par = tbl.nodes, tbl.adj, tbl.cost, tbl.par
    at, mp, n, iu_after, locked, german = f.at, f.mp, f.n, f.iu_after, f.locked, f.german
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    if dest < 0 or dest >= N:
        return lay.ERR_DEST
    at_area = at < A
    dest_area = dest < A
    if locked and not at_area and dest != at:
        return lay.ERR_DEST
    if not at_area and n >= 2 and dest != at and order != lay.SORTIE:
        # 5.6 B: a squadron leaving a port next to opposing forces must have Sortie orders
        if port_faces_enemy_nb(nodes, at, enemy_n):
            return lay.ERR_DEST
    km = lay.KMAX
    if order == lay.ANCHOR:
        if not at_area:
            return lay.ERR_NONE if dest == at else lay.ERR_DEST
        if dest == at:
            if iu_after:
                return lay.ERR_DEST
            for p in range(A, N):
                if port_borders_nb(nodes, p, at):
                    return lay.ERR_DEST
            return lay.ERR_NONE
        if dest_area or not port_borders_nb(nodes, dest, at):
            return lay.ERR_DEST
        if port_friendly_nb(nodes, dest, side, german, par):
            return lay.ERR_NONE
        if port_neutral_nb(nodes, dest, german, par) and not iu_after:
            return lay.ERR_NONE
        return lay.ERR_DEST
    if order == lay.COAL:
        return lay.ERR_NONE if dest == at else lay.ERR_DEST
    if order == lay.PATROL:
        if not dest_area:
            return lay.ERR_DEST
        if dest == at:
            return lay.ERR_NONE if at_area else lay.ERR_DEST
        k = par[lay.P_PATROL_SEA] if at_area else par[lay.P_PATROL_PORT]
        if cost[k, at, dest] <= mp or adj[at, dest] != 0:
            return lay.ERR_NONE
        return lay.ERR_DEST
    if order == lay.RAID or order == lay.BLOCKADE:
        if not dest_area:
            return lay.ERR_DEST
        if dest != at and cost[km, at, dest] > mp:
            return lay.ERR_DEST
        if target < A or target >= N or nodes[target, lay.NS_PSIDE] != 1 - side:
            return lay.ERR_TARGET
        if not port_borders_nb(nodes, target, dest):
            return lay.ERR_TARGET
        return lay.ERR_NONE
    if order == lay.SORTIE:
        if at_area or not dest_area or adj[at, dest] == 0:
            return lay.ERR_DEST
        return lay.ERR_NONE if port_faces_enemy_nb(nodes, at, enemy_n) else lay.ERR_DEST
    if order == lay.TRANSIT:
        if not dest_area and nodes[dest, lay.NS_PSIDE] == 1 - side:
            return lay.ERR_DEST
        if dest == at:
            if iu_after or prev_raid:
                return lay.ERR_DEST
            if n >= 2 and not at_area:
                return lay.ERR_DEST   # 5.1 A: a squadron staying in port must be given Anchor
            return lay.ERR_NONE
        if cost[km, at, dest] > mp:
            return lay.ERR_DEST
        if (not at_area) and port_neutral_nb(nodes, at, german, par) and port_neutral_nb(nodes, dest, german, par):
            return lay.ERR_DEST
        if prev_raid and dest_area:
            return lay.ERR_DEST
        return lay.ERR_NONE
    return lay.ERR_DEST


@kernel
def route_ok_nb(order, at, dest, mp, row, nodes, adj, par):
    """Whether plan row ``row`` (``int64[PS_NF]``, :data:`PS_RN`, :data:`PS_R0`) names a legal
    route for a stack with ``order`` from ``at`` to ``dest`` with ``mp`` MP (rulings C8, C49).

    Rules 7.1 A-B (a line of adjacent areas and ports, paying each node's MP, ``nodes[:, NS_MP]``,
    up to the allowance), 4.2 D, 7.2.2 A (a port is entered only as the move's end: no passing
    through ports, C8), 5.4 A-B (a Patrol enters sea areas only, at most the first and two more
    from a port, two from sea; it may always enter the first area whatever its MP, as may a Sortie,
    5.6 B, and an Anchor into the bordering port, 5.1 B), 5.6 B (a Sortie moves one area). Zero
    nodes is the least-MP route (the engine's, C8) and always legal; a stack that does not move
    (``dest == at``, Coal, HOLD) names none. Routes may revisit a node; the policies offer simple
    ones (:mod:`policy_routes`).

    Returns:
        True if legal.
    """
    m = row[PS_RN]
    if m == 0:
        return True
    if m < 0 or m > lay.RMAX or dest == at or order == lay.COAL or order >= lay.HOLD:
        return False
    if row[PS_R0 + m - 1] != dest:
        return False
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    prev = at
    spent = 0
    areas = 0
    for i in range(m):
        x = row[PS_R0 + i]
        if x < 0 or x >= N or adj[prev, x] == 0:
            return False
        if x >= A:
            if i < m - 1 or order == lay.PATROL:
                return False
        else:
            areas += 1
        spent += nodes[x, lay.NS_MP]
        prev = x
    if order == lay.SORTIE or order == lay.ANCHOR:
        return m == 1
    if order == lay.PATROL:
        k = par[lay.P_PATROL_SEA] if at < A else par[lay.P_PATROL_PORT]
        if areas > k:
            return False
        if m == 1:
            return True
    return spent <= mp


@kernel(inline="always")
def budget_ok_nb(side, order, n, at, german, B, markers, nodes, par):
    """Order markers (5.0 B) and coaling limits (7.5 C) left for a stack of ``n`` units."""
    if n >= 2 and order < lay.HOLD:
        if B[order] + 1 > markers[side, order]:
            return lay.ERR_MARKERS
    if order == lay.COAL:
        if at < par[lay.P_NAREAS]:
            lim = par[lay.P_COALSEA0 + side]
            if B[B_SEA] + n > lim:
                return lay.ERR_COAL_LIMIT
        elif port_neutral_nb(nodes, at, german, par):
            if B[B_NODE + at] + n > par[lay.P_COALNEUTRAL]:
                return lay.ERR_COAL_LIMIT
    return lay.ERR_NONE


@kernel(inline="always")
def budget_commit_nb(order, n, at, german, B, nodes, par):
    if n >= 2 and order < lay.HOLD:
        B[order] += 1
    if order == lay.COAL:
        if at < par[lay.P_NAREAS]:
            B[B_SEA] += n
        elif port_neutral_nb(nodes, at, german, par):
            B[B_NODE + at] += n


@kernel(inline="always")
def coal_excess_nb(side, mask, at, n, german, B, markers, nodes, par):
    """Rule 7.5 D: units that must coal (``mask`` allows Coal) at sea beyond the side's coaling
    limit (7.5 C) "must be ... given orders besides Coaling, such as Anchor" (ruling C36): the
    orders they get besides their sequence, Anchor (5.1 B) and Transit into a friendly or neutral
    port (to coal there). Returns that bitmask (0 when the stack may coal)."""
    if (mask >> lay.COAL) & 1 == 0 or at >= par[lay.P_NAREAS]:
        return 0
    if budget_ok_nb(side, lay.COAL, n, at, german, B, markers, nodes, par) != lay.ERR_COAL_LIMIT:
        return 0
    return ((1 << lay.ANCHOR) | (1 << lay.TRANSIT)) & ~mask


@kernel(inline="always")
def order_ok_nb(side, order, dest, target, f, B, enemy_n, tbl):
    """Full check of one order for the stack of facts ``f`` (:class:`StackFacts`): sequence mask
    (with 7.5 D's exception, :func:`coal_excess_nb`), destination/target, markers, coal. ``B``: the
    side's budget so far; ``tbl``: :class:`OrderTables`."""
    nodes, markers, par = tbl.nodes, tbl.markers, tbl.par
    if order < 0 or order >= lay.HOLD:
        return lay.ERR_SEQUENCE
    to_port = f.prev_raid
    if (f.mask >> order) & 1 == 0:
        if (coal_excess_nb(side, f.mask, f.at, f.n, f.german, B, markers, nodes, par) >> order) & 1 == 0:
            return lay.ERR_SEQUENCE
        to_port = True   # a Transit of 7.5 D ends in a port (dest_ok_nb's raid rule, 5.5 D)
    e = dest_ok_nb(side, order, dest, target, f, to_port, enemy_n, tbl)
    if e != lay.ERR_NONE:
        return e
    return budget_ok_nb(side, order, f.n, f.at, f.german, B, markers, nodes, par)


@kernel
def targets_of_nb(side, dest, nodes, par, out):
    """Opposing ports bordering area ``dest`` (Raid/Blockade targets); returns how many."""
    k = 0
    A = par[lay.P_NAREAS]
    for p in range(A, nodes.shape[0]):
        if nodes[p, lay.NS_PSIDE] == 1 - side and port_borders_nb(nodes, p, dest):
            out[k] = p
            k += 1
    return k


@kernel
def legal_options_nb(side, order, f, B, enemy_n, tbl, out_dest, out_target, first=False):
    """Every legal (destination, target) of one order for the stack of facts ``f``
    (:class:`StackFacts`); returns how many (written to ``out_dest``/``out_target``, each
    ``int64[>= 4N]``). Raid and Blockade list each destination area's opposing ports in node order
    (:func:`targets_of_nb`). With ``first``, stops at the first legal option (returns 1 and writes
    only it). ``tbl``: :class:`OrderTables`."""
    nodes, markers, par = tbl.nodes, tbl.markers, tbl.par
    prev_raid = f.prev_raid
    if (f.mask >> order) & 1 == 0:
        if (coal_excess_nb(side, f.mask, f.at, f.n, f.german, B, markers, nodes, par) >> order) & 1 == 0:
            return 0
        prev_raid = True   # 7.5 D: Anchor, or Transit into a port

    if budget_ok_nb(side, order, f.n, f.at, f.german, B, markers, nodes, par) != lay.ERR_NONE:
        return 0
    N = nodes.shape[0]
    A = par[lay.P_NAREAS]
    k = 0
    NONE = np.int64(-1)
    for d in range(N):
        if order == lay.RAID or order == lay.BLOCKADE:
            if d >= A:
                continue
            for p in range(A, N):   # the targets of d (targets_of_nb), in node order
                if nodes[p, lay.NS_PSIDE] != 1 - side or not port_borders_nb(nodes, p, d):
                    continue
                if dest_ok_nb(side, order, d, p, f, prev_raid, enemy_n, tbl) == lay.ERR_NONE:
                    out_dest[k] = d
                    out_target[k] = p
                    k += 1
                    if first:
                        return k
        else:
            if dest_ok_nb(side, order, d, NONE, f, prev_raid, enemy_n, tbl) == lay.ERR_NONE:
                out_dest[k] = d
                out_target[k] = -1
                k += 1
                if first:
                    return k
    return k


@kernel
def any_legal_nb(side, f, B, enemy_n, tbl, od, ot):
    """True if some order other than HOLD is legal for the stack of facts ``f``
    (:class:`StackFacts`; ruling C12). ``tbl``: :class:`OrderTables`; ``od``, ``ot``: scratch
    ``int64[>= 4N]`` (:func:`legal_options_nb`)."""
    for o in range(lay.N_ORDERS):
        if legal_options_nb(side, o, f, B, enemy_n, tbl, od, ot, True) > 0:
            return True
    return False
