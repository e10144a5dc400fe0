"""The Dawn of Empire turn loop as one compiled kernel (Rules 4.0-4.5), and its batch driver.

:func:`play_game_nb` plays one campaign from the set-up (13.0) to the end of the last turn or an
automatic victory (14.7); :func:`play_campaigns_nb` plays one campaign per seed, reusing the state
arrays, and writes each game's scalars and battles. Only ``@njit`` functions live here.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS, new_state_nb, stream_draws_nb
from . import campaign_layout as lay
from .campaign_combat import (
    close_orders_nb,
    combat_phase_nb,
    combat_scratch_nb,
    control_vp_phase_nb,
    maintenance_phase_nb,
    repair_phase_nb,
)
from .campaign_movement import (
    apply_deployment_nb,
    enemy_counts_nb,
    init_game_nb,
    install_plan_nb,
    movement_side_nb,
    neutral_ports_nb,
    new_forces_nb,
    start_turn_nb,
)
from .campaign_orders import B_NODE, MAXSS, PS_NF
from .policies import policy_plan_nb, policy_scratch_nb
from .policy_deploy import deploy_plan_nb
from .policy_view import VIS_NF, blank_view_nb, observe_own_nb


@kernel
def orders_phase_nb(turn, ust, lst, nodes, adj, cost, nh, matrix, markers, par, kn, U, S, SM, LD, ND, G, rng,
                    UV, LV, vis, B, pu, pp, pst, pl, enemy_n, pw, gmem, od, ot):
    """Orders Phase (4.1.2, 5.0): each side's policy writes its plan from what it may see; the
    engine checks and installs it. ``kn[2, KN_NF]``: each side's knobs (:mod:`policy_layout`);
    ``pw``, ``gmem``: the policy scratch (:func:`policies.policy_scratch_nb`); ``od``, ``ot``: the
    engine's (``int64[4N]``). ``UV[2, U, UF_NF]``, ``LV[2, L, LF_NF]``: each side's view, its
    enemy rows blanked once (:func:`policy_view.blank_view_nb`). Returns 0, or 1 after recording
    an illegal plan in G."""
    for side in (lay.SPAIN, lay.US):
        uv, lv = UV[side], LV[side]
        observe_own_nb(side, U, LD, ust, lst, par, uv, lv, vis)
        fam = par[lay.P_POL0 + side]
        nstk = policy_plan_nb(fam, side, turn, kn[side], ust, lst, nodes, adj, cost, nh, matrix,
                              markers, par, uv, lv, vis, ND, B, pu, pp, pst, pl, rng, pw, gmem)
        enemy_counts_nb(side, U, ust, enemy_n)
        err, slot = install_plan_nb(side, pu, pp, pst, pl, nstk, ust, lst, nodes, adj, cost, markers, par, U, S,
                                    SM, LD, G, enemy_n, B, od, ot)
        if err != lay.ERR_NONE:
            G[lay.G_ERR] = err
            G[lay.G_ERR_SIDE] = side
            G[lay.G_ERR_STACK] = slot
            return 1
    return 0


@kernel
def snapshot_nb(t, U, trace):
    for u in range(U.shape[0]):
        trace[t, u, lay.TR_LOC] = U[u, lay.UF_LOC]
        trace[t, u, lay.TR_DMG] = U[u, lay.UF_DMG]
        trace[t, u, lay.TR_ORDER] = U[u, lay.UF_ORDER]
        trace[t, u, lay.TR_PREV] = U[u, lay.UF_PREV]
        trace[t, u, lay.TR_STREAK] = U[u, lay.UF_STREAK]
        trace[t, u, lay.TR_NEUTRAL] = U[u, lay.UF_NEUTRAL]
        trace[t, u, lay.TR_STACK] = U[u, lay.UF_STACK]


@kernel
def play_game_nb(ust, lst, nodes, adj, cost, nh, matrix, markers, par, kn, U, S, SM, LD, ND, G, ledger, bev, rng,
                 UV, LV, vis, B, pu, pp, pst, pl, enemy_n, pw, gmem, od, ot, work, att, dfn, mov, dmg, status, mem,
                 cw, trace):
    """One campaign (Rules 4.0-4.5) from the set-up to the end: per turn New Forces, Orders (both
    policies), Movement (Spain, then the US), Combat, Area Control and VPs, Repairs (and 14.3
    maintenance). When ``par[P_TRACE]`` is set, ``trace[t, u, TR_*]`` gets each unit's state after
    the orders of turn ``t``, slot 0 the set-up (free deployment included) and slot ``T + 1`` the
    final state. ``UV``, ``LV``: each side's view (:func:`orders_phase_nb`); ``pw``, ``gmem``,
    ``od``, ``ot``: scratch (:func:`orders_phase_nb`); ``cw``: the
    combat scratch (:func:`campaign_combat.combat_scratch_nb`). Stops early on
    an illegal plan (``G[G_ERR]``) or an automatic victory (14.7)."""
    init_game_nb(ust, lst, nodes, par, U, S, SM, LD, ND, G)
    if par[lay.P_FREE] != 0:
        # 14.11: the US sets up first, then Spain (14.11 A, C)
        for side in (lay.US, lay.SPAIN):
            observe_own_nb(side, U, LD, ust, lst, par, UV[side], LV[side], vis)
            deploy_plan_nb(par[lay.P_POL0 + side], side, kn[side], ust, lst, nodes, cost, par, UV[side], LV[side],
                           pu, pl, rng)
            if apply_deployment_nb(side, pu, pl, ust, lst, nodes, par, U, LD) != lay.ERR_NONE:
                G[lay.G_ERR] = lay.ERR_DEPLOY
                G[lay.G_ERR_SIDE] = side
                G[lay.G_ERR_STACK] = -1
                return
    tr = par[lay.P_TRACE] != 0
    if tr:
        snapshot_nb(0, U, trace)
    for turn in range(1, par[lay.P_TURNS] + 1):
        G[lay.G_TURN] = turn
        new_forces_nb(turn, ust, par, U, ND)
        start_turn_nb(G, U)
        if orders_phase_nb(turn, ust, lst, nodes, adj, cost, nh, matrix, markers, par, kn, U, S, SM, LD, ND, G, rng,
                           UV, LV, vis, B, pu, pp, pst, pl, enemy_n, pw, gmem, od, ot) != 0:
            return
        if tr:
            snapshot_nb(turn, U, trace)
        movement_side_nb(lay.SPAIN, ust, lst, nodes, adj, cost, nh, markers, par, U, S, SM, LD, ND, G, rng)
        movement_side_nb(lay.US, ust, lst, nodes, adj, cost, nh, markers, par, U, S, SM, LD, ND, G, rng)
        neutral_ports_nb(ust, lst, nodes, par, U, S, SM, LD, G)
        combat_phase_nb(ust, lst, nodes, cost, matrix, par, U, S, SM, LD, ND, G, ledger, bev, rng, work,
                        att, dfn, mov, dmg, status, mem, cw)
        control_vp_phase_nb(nodes, par, S, ND, G, ledger)
        close_orders_nb(ust, U)
        repair_phase_nb(ust, nodes, par, U, ND, cw)
        if par[lay.P_MAINT] != 0:
            maintenance_phase_nb(turn, ust, nodes, par, U)
        G[lay.G_TURNS] = turn
        v = G[lay.G_VP_NET]
        if par[lay.P_AUTO] != 0 and (v >= par[lay.P_AUTOVP] or -v >= par[lay.P_AUTOVP]):
            G[lay.G_END] = lay.END_AUTOMATIC
            break
    if tr:
        snapshot_nb(par[lay.P_TURNS] + 1, U, trace)


@kernel(nogil=True, nrt=True)
def play_campaigns_nb(seeds, ust, lst, nodes, adj, cost, nh, matrix, markers, par, kn, out_g, out_bev, trace,
                      out_ledger):
    """Play one campaign per seed.

    Args:
        seeds: ``uint64[g]`` stream seeds (one stream per game, :mod:`simlab.rng`).
        ust, lst, nodes, adj, cost, nh, matrix, markers, par: the static arrays
            (:mod:`campaign_layout`).
        kn: ``int64[2, KN_NF]`` each side's policy knobs (:mod:`policy_layout`; the family is
            ``par[P_POL0 + side]``).
        out_g: ``int64[g, G_NF]``, each game's final ``G`` (``G_DRAWS`` holds the 32-bit random
            draws it used).
        out_bev: ``int64[cap, 1 + BE_NF]`` battles: the game's row in the batch, then ``BE_*``.
        trace: ``int64[g, T + 2, U, TR_NF]`` when ``par[P_TRACE]`` is set, else
            ``int64[1, T + 2, U, TR_NF]`` (unused).
        out_ledger: ``int64[g, LEDGER_MAX, LG_NF]`` when tracing (each game's VP awards), else
            any shape.

    Returns:
        The number of battle rows the batch produced (more than ``cap`` means ``out_bev`` was too
        small: rerun with a larger one; rows past ``cap`` were dropped).
    """
    nu = ust.shape[0]
    nl = lst.shape[0]
    N = nodes.shape[0]
    U = np.zeros((nu, lay.UF_NF), dtype=np.int64)
    S = np.zeros((2 * MAXSS, lay.SF_NF), dtype=np.int64)
    SM = np.zeros((2 * MAXSS, lay.MAXPER), dtype=np.int64)
    LD = np.zeros((max(nl, 1), lay.LF_NF), dtype=np.int64)
    ND = np.zeros((N, lay.ND_NF), dtype=np.int64)
    G = np.zeros(lay.G_NF, dtype=np.int64)
    ledger = np.zeros((lay.LEDGER_MAX, lay.LG_NF), dtype=np.int64)
    bev = np.zeros((lay.BATTLE_MAX, lay.BE_NF), dtype=np.int64)
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    UV = np.zeros((2, nu, lay.UF_NF), dtype=np.int64)          # each side's view (orders_phase_nb)
    LV = np.zeros((2, max(nl, 1), lay.LF_NF), dtype=np.int64)
    for side in range(2):
        blank_view_nb(side, ust, lst, UV[side], LV[side])   # the enemy rows, once for the batch
    vis = np.zeros((N, VIS_NF), dtype=np.int64)
    B = np.zeros(B_NODE + N, dtype=np.int64)
    pu = np.zeros(nu, dtype=np.int64)
    pp = np.zeros(nu, dtype=np.int64)
    pst = np.zeros((MAXSS, PS_NF), dtype=np.int64)
    pl = np.zeros(max(nl, 1), dtype=np.int64)
    enemy_n = np.zeros(N, dtype=np.int64)
    pw, gmem = policy_scratch_nb(nu, N)   # scratch: allocated once per call (each thread has its own)
    od = np.zeros(4 * N, dtype=np.int64)
    ot = np.zeros(4 * N, dtype=np.int64)
    work = np.zeros((6, max(nu, 1)), dtype=np.int64)
    att = np.zeros(nu, dtype=np.int64)
    dfn = np.zeros(nu, dtype=np.int64)
    mov = np.zeros(nu, dtype=np.int64)
    dmg = np.zeros(nu, dtype=np.int64)
    status = np.zeros(nu, dtype=np.int8)
    mem = np.zeros(nu, dtype=np.int64)
    cw = combat_scratch_nb(nu, N)
    tr = par[lay.P_TRACE] != 0
    nrow = 0
    cap = out_bev.shape[0]
    for g in range(seeds.shape[0]):
        new_state_nb(seeds[g], rng)
        G[lay.G_NBEV] = 0
        ttr = trace[g if tr else 0]
        play_game_nb(ust, lst, nodes, adj, cost, nh, matrix, markers, par, kn, U, S, SM, LD, ND, G, ledger, bev, rng,
                     UV, LV, vis, B, pu, pp, pst, pl, enemy_n, pw, gmem, od, ot, work, att, dfn, mov, dmg, status, mem,
                     cw, ttr)
        G[lay.G_DRAWS] = stream_draws_nb(seeds[g], rng)
        for f in range(lay.G_NF):
            out_g[g, f] = G[f]
        nb = G[lay.G_NBEV]
        if nb > lay.BATTLE_MAX:
            nb = lay.BATTLE_MAX
        for b in range(nb):
            if nrow < cap:
                out_bev[nrow, 0] = g
                for f in range(lay.BE_NF):
                    out_bev[nrow, 1 + f] = bev[b, f]
            nrow += 1
        if tr:
            nlg = G[lay.G_NLEDGER]
            if nlg > lay.LEDGER_MAX:
                nlg = lay.LEDGER_MAX
            for i in range(nlg):
                for f in range(lay.LG_NF):
                    out_ledger[g, i, f] = ledger[i, f]
    return nrow
