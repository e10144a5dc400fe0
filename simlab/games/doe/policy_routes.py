"""Routes the Dawn of Empire policies choose (Rule 7.1 F; rulings C49, C50, C51).

7.1 B: movement is "through a sequence of adjacent areas and/or ports, paying the movement cost
of each"; 7.1 F: "Areas with opposing forces that do not contain such orders may be traversed if
the owning side so desires", and a squadron must stop where an opposing Patrol, Blockade or
control marker is (4.2 E, 7.6 A). The route is therefore the owner's: a plan names it
(:data:`campaign_orders.PS_RN`, ``PS_R0...``) and the engine checks it
(:func:`campaign_orders.route_ok_nb`); a plan that names none takes the least-MP route (C8).

:func:`route_pick_nb` enumerates the *simple* legal routes (no node twice) from a stack's place to
its destination and returns one:

* :data:`ROUTE_LEAST`: the least MP, then the fewest nodes, then the first in node order (C8's
  rule);
* :data:`ROUTE_AVOID`: the fewest traversed nodes of penalty (``pw[PW_AVOID, node]`` > 0, what the
  policy sets: :func:`avoid_row_nb`), then as :data:`ROUTE_LEAST`;
* :data:`ROUTE_RANDOM`: uniformly among them (random-legal), by reservoir sampling.

Policies see only what their side may know (:mod:`policy_view`): the enemy units seen per place
(``vis[:, VIS_N]``) and the public control markers (``ND[:, ND_CONTROL]``), never the enemy's orders.
"""

from __future__ import annotations

from simlab.jit import kernel

from . import campaign_layout as lay
from . import policy_layout as pk
from .campaign_orders import PS_DROP_I, PS_DROP_N, PS_R0, PS_RN
from .dice import die_nb
from .policy_view import VIS_N

ROUTE_LEAST, ROUTE_AVOID, ROUTE_RANDOM = 0, 1, 2

# the knob route (policies.toml): what a route avoids
RT_LEAST, RT_HALTS, RT_ANY = 0, 1, 2


@kernel
def avoid_row_nb(how, side, vis, ND, par, avoid):
    """Fill ``avoid[N]`` with the penalty of traversing each node under the knob ``route``
    (``how``, ``RT_*``): 1 for a sea area that may halt a squadron (an opposing control marker,
    7.6 A, or two or more opposing units seen: a squadron that may hold Patrol or Blockade orders,
    7.1 F) with ``RT_HALTS``; with ``RT_ANY`` also any area where opposing units are seen (7.1 F:
    the owner does not traverse opposing forces); 0 elsewhere. ``vis``: the side's view
    (:func:`policy_view.observe_nb`)."""
    A = par[lay.P_NAREAS]
    for q in range(avoid.shape[0]):
        avoid[q] = 0
        if q >= A or how == RT_LEAST:
            continue
        seen = vis[q, VIS_N]
        if ND[q, lay.ND_CONTROL] == 1 - side or seen >= 2 or (how == RT_ANY and seen >= 1):
            avoid[q] = 1


@kernel
def route_pick_nb(mode, order, at, dest, mp, nodes, adj, cost, par, rng, pw):
    """A simple legal route (:func:`campaign_orders.route_ok_nb`) for a stack with ``order`` from
    ``at`` to ``dest`` with ``mp`` MP, chosen by ``mode`` (``ROUTE_*``, module docstring), written
    to ``pw[PW_RBEST, :m]``.

    Args: ``nodes``, ``adj``, ``cost`` (``cost[KMAX]``: least MP between nodes, to prune), ``par``,
    ``rng`` (``ROUTE_RANDOM`` only), ``pw`` (the policy scratch; rows ``PW_RPATH``, ``PW_RNEXT``,
    ``PW_RCOST`` are overwritten, ``PW_AVOID`` is read with ``ROUTE_AVOID``).

    Returns:
        ``m``, the number of nodes entered (0: none, e.g. ``dest == at``).
    """
    if dest == at or order == lay.COAL or order >= lay.HOLD:
        return 0
    A = par[lay.P_NAREAS]
    N = nodes.shape[0]
    path, nxt, spent, best, avoid = pw[pk.PW_RPATH], pw[pk.PW_RNEXT], pw[pk.PW_RCOST], pw[pk.PW_RBEST], pw[pk.PW_AVOID]
    klim = lay.RMAX
    if order == lay.PATROL:
        klim = par[lay.P_PATROL_SEA] if at < A else par[lay.P_PATROL_PORT]
    one_step = order == lay.SORTIE or order == lay.ANCHOR
    first_free = one_step or order == lay.PATROL   # 5.4 B, 5.6 B, 5.1 B
    best_m = 0
    best_pen = 1 << 40
    best_c = 1 << 40
    count = 0
    depth = 0
    nxt[0] = 0
    while depth >= 0:
        x = nxt[depth]
        if x >= N:
            depth -= 1   # (each depth's counter already points past the node it tried)
            continue
        nxt[depth] += 1
        prev = at if depth == 0 else path[depth - 1]
        if adj[prev, x] == 0 or x == at:
            continue
        seen = False
        for i in range(depth):
            if path[i] == x:
                seen = True
        if seen:
            continue
        if order == lay.PATROL and (x >= A or depth + 1 > klim):
            continue
        c = (spent[depth - 1] if depth > 0 else 0) + nodes[x, lay.NS_MP]
        if c > mp and not (depth == 0 and first_free):
            continue
        path[depth] = x
        spent[depth] = c
        if x == dest:
            m = depth + 1
            take = False
            if mode == ROUTE_RANDOM:
                count += 1
                take = die_nb(rng, count) == 1
            else:
                pen = 0
                if mode == ROUTE_AVOID:
                    for i in range(depth):
                        pen += avoid[path[i]]
                take = pen < best_pen or (pen == best_pen and (c < best_c or (c == best_c and m < best_m)))
                if take:
                    best_pen = pen
                    best_c = c
            if take:
                best_m = m
                for i in range(m):
                    best[i] = path[i]
            continue
        if x >= A or one_step or depth + 1 >= lay.RMAX or depth + 1 >= klim:
            continue   # a port ends the move (ruling C8); a Sortie or Anchor moves one node
        if c > mp or c + cost[lay.KMAX, x, dest] > mp:
            continue
        depth += 1
        nxt[depth] = 0
    return best_m


@kernel
def put_route_nb(pst, slot, m, dest, drop_i, drop_n, pw):
    """Write route ``pw[PW_RBEST, :m]`` (its last node ``dest``) and a 7.3 D drop-off into plan
    slot ``slot`` of ``pst`` (``int64[MAXSS, PS_NF]``); ``m = 0``: the least-MP route."""
    pst[slot, PS_RN] = m
    for i in range(m):
        pst[slot, PS_R0 + i] = pw[pk.PW_RBEST, i]
    if m > 0:
        pst[slot, PS_R0 + m - 1] = dest
    pst[slot, PS_DROP_I] = drop_i
    pst[slot, PS_DROP_N] = drop_n


__all__ = ["ROUTE_AVOID", "ROUTE_LEAST", "ROUTE_RANDOM", "RT_ANY", "RT_HALTS", "RT_LEAST", "avoid_row_nb",
           "put_route_nb", "route_pick_nb"]
