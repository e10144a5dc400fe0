"""The Dawn of Empire turn loop as compiled kernels (Rules 4.0-4.5), and its batch drivers.

A game is one value (:class:`campaign_bundles.GameState`): :func:`setup_game_nb` fills it from the
set-up (13.0, 14.11), :func:`play_on_nb` plays its turns on from its clock to a given turn or the
end (the last turn or an automatic victory, 14.7). A whole game (:func:`play_game_nb`) is
"initial state, then play on"; :func:`play_campaigns_nb` plays one campaign per seed in one reused
state and writes each game's scalars and battles; :func:`start_campaigns_nb` and
:func:`resume_campaigns_nb` do the same two steps for a batch state kept between calls (a game
paused after turn ``k`` and continued from a copy). Only compiled functions live here.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS, new_state_nb, stream_draws_nb
from . import campaign_layout as lay
from .campaign_bundles import GameState, new_scratch_nb
from .campaign_combat import (
    close_orders_nb,
    combat_phase_nb,
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
from .campaign_orders import MAXSS
from .policies import PlanBuffers, PolicyTables, PolicyView, policy_plan_nb
from .policy_deploy import deploy_plan_nb
from .policy_view import observe_own_nb


@kernel
def orders_phase_nb(turn, tb, st, sc):
    """Orders Phase (4.1.2, 5.0) of ``turn``: each side's policy writes its plan from what it may
    see; the engine checks and installs it. ``tb``, ``st``, ``sc``: the bundles
    (:mod:`campaign_bundles`; the knobs ``tb.kn[2, KN_NF]``, :mod:`policy_layout`). Returns 0,
    or 1 after recording an illegal plan in ``st.G`` (``G_ERR``, ``G_ERR_SIDE``, ``G_ERR_STACK``)."""
    ust, lst, par = tb.ust, tb.lst, tb.par
    U, G = st.U, st.G
    pt = PolicyTables(ust, lst, tb.nodes, tb.adj, tb.cost, tb.markers, par)   # no knobs: each side has its own
    plan = PlanBuffers(sc.B, sc.pu, sc.pp, sc.pst, sc.pl, sc.pw, sc.gmem)
    for side in (lay.SPAIN, lay.US):
        uv, lv = sc.UV[side], sc.LV[side]
        observe_own_nb(side, U, st.LD, ust, lst, par, uv, lv, sc.vis)
        fam = par[lay.P_POL0 + side]
        nstk = policy_plan_nb(fam, side, turn, tb.kn[side], pt, PolicyView(uv, lv, sc.vis, st.ND), plan, st.rng)
        enemy_counts_nb(side, U, ust, sc.enemy_n)
        err, slot = install_plan_nb(side, nstk, tb, st, sc)
        if err != lay.ERR_NONE:
            G[lay.G_ERR] = err
            G[lay.G_ERR_SIDE] = side
            G[lay.G_ERR_STACK] = slot
            return 1
    return 0


@kernel
def snapshot_nb(t, U, trace):
    """``trace[t, u, TR_*]`` from each unit's row ``U[u, UF_*]`` (tests)."""
    for u in range(U.shape[0]):
        trace[t, u, lay.TR_LOC] = U[u, lay.UF_LOC]
        trace[t, u, lay.TR_DMG] = U[u, lay.UF_DMG]
        trace[t, u, lay.TR_ORDER] = U[u, lay.UF_ORDER]
        trace[t, u, lay.TR_PREV] = U[u, lay.UF_PREV]
        trace[t, u, lay.TR_STREAK] = U[u, lay.UF_STREAK]
        trace[t, u, lay.TR_NEUTRAL] = U[u, lay.UF_NEUTRAL]
        trace[t, u, lay.TR_STACK] = U[u, lay.UF_STACK]


@kernel
def setup_game_nb(tb, st, sc):
    """A game's state from the set-up (13.0), free deployment included (14.11: the US sets up
    first, then Spain); its clock at turn 1 (over after an illegal deployment, ``G_ERR``). The
    random stream ``st.rng`` is the caller's (seeded before). When ``par[P_TRACE]`` is set,
    ``st.trace[0]`` gets the set-up."""
    ust, lst, nodes, par = tb.ust, tb.lst, tb.nodes, tb.par
    U, G = st.U, st.G
    init_game_nb(ust, lst, nodes, par, U, st.S, st.SM, st.LD, st.ND, G)
    st.clock[lay.CK_NEXT] = 1
    st.clock[lay.CK_DONE] = 0
    if par[lay.P_FREE] != 0:
        for side in (lay.US, lay.SPAIN):
            observe_own_nb(side, U, st.LD, ust, lst, par, sc.UV[side], sc.LV[side], sc.vis)
            deploy_plan_nb(par[lay.P_POL0 + side], side, tb.kn[side],
                           PolicyTables(ust, lst, nodes, tb.adj, tb.cost, tb.markers, par), sc.UV[side],
                           sc.LV[side], sc.pu, sc.pl, st.rng)
            if apply_deployment_nb(side, sc.pu, sc.pl, ust, lst, nodes, par, U, st.LD) != lay.ERR_NONE:
                G[lay.G_ERR] = lay.ERR_DEPLOY
                G[lay.G_ERR_SIDE] = side
                G[lay.G_ERR_STACK] = -1
                st.clock[lay.CK_DONE] = 1
                return
    if par[lay.P_TRACE] != 0:
        snapshot_nb(0, U, st.trace)


@kernel
def after_orders_nb(tb, st, sc, turn):
    """The phases of ``turn`` after the Orders Phase (Rules 4.2-4.5): Movement (Spain, then the
    US), neutral ports (7.2.3), Combat, Area Control and VPs, the orders closed, Repairs (and 14.3
    maintenance); ``G[G_TURNS]`` becomes ``turn``. The clock and the end of the game are the
    caller's (:func:`play_on_nb`; the rollout exploiter, :mod:`.rollout`, plays on from here)."""
    ust, nodes, par = tb.ust, tb.nodes, tb.par
    U, S, SM, LD, ND, G, rng = st.U, st.S, st.SM, st.LD, st.ND, st.G, st.rng
    movement_side_nb(lay.SPAIN, tb, st)
    movement_side_nb(lay.US, tb, st)
    neutral_ports_nb(ust, tb.lst, nodes, par, U, S, SM, LD, G)
    combat_phase_nb(tb, st, sc)
    control_vp_phase_nb(nodes, par, S, ND, G, st.ledger)
    close_orders_nb(ust, U)
    repair_phase_nb(ust, nodes, par, U, ND, sc.cw, rng)
    if par[lay.P_MAINT] != 0:
        maintenance_phase_nb(turn, ust, nodes, par, U, rng)
    G[lay.G_TURNS] = turn


@kernel
def play_on_nb(tb, st, sc, stop):
    """Play a game on from its clock (``st.clock[CK_NEXT]``) through turn ``stop`` or to its end:
    per turn New Forces, Orders (both policies), Movement (Spain, then the US), Combat, Area
    Control and VPs, Repairs (and 14.3 maintenance). The game is over (``clock[CK_DONE]`` 1)
    after its last turn (``par[P_TURNS]``), an automatic victory (14.7) or an illegal plan
    (``G[G_ERR]``); a game over is left as it is. When ``par[P_TRACE]`` is set, ``st.trace[t]``
    gets each unit after the orders of turn ``t`` and ``trace[T + 1]`` the final state."""
    if st.clock[lay.CK_DONE] != 0:
        return
    ust, par = tb.ust, tb.par
    U, ND, G = st.U, st.ND, st.G
    tr = par[lay.P_TRACE] != 0
    T = par[lay.P_TURNS]
    turn = st.clock[lay.CK_NEXT]
    while turn <= T:
        if turn > stop:
            return
        G[lay.G_TURN] = turn
        new_forces_nb(turn, ust, par, U, ND)
        start_turn_nb(G, U)
        if orders_phase_nb(turn, tb, st, sc) != 0:
            st.clock[lay.CK_DONE] = 1
            return
        if tr:
            snapshot_nb(turn, U, st.trace)
        after_orders_nb(tb, st, sc, turn)
        turn += 1
        st.clock[lay.CK_NEXT] = turn
        v = G[lay.G_VP_NET]
        if par[lay.P_AUTO] != 0 and (v >= par[lay.P_AUTOVP] or -v >= par[lay.P_AUTOVP]):
            G[lay.G_END] = lay.END_AUTOMATIC
            break
    st.clock[lay.CK_DONE] = 1
    if tr:
        snapshot_nb(T + 1, U, st.trace)


@kernel
def play_game_nb(tb, st, sc):
    """One campaign (Rules 4.0-4.5) from the set-up to the end: :func:`setup_game_nb`, then
    :func:`play_on_nb` through the last turn (stops early on an illegal plan or 14.7)."""
    setup_game_nb(tb, st, sc)
    play_on_nb(tb, st, sc, tb.par[lay.P_TURNS])


@kernel
def record_game_nb(g, seed, st, out_g, out_bev, nrow, out_ledger):
    """Write game ``g``'s over state ``st`` into the batch output (:func:`play_campaigns_nb`'s
    ``out_g``, ``out_bev`` from row ``nrow``, ``out_ledger[g]`` unless it has no rows); ``G[G_DRAWS]`` gets
    the draws of the stream seeded with ``seed``. Returns the battle row count after it."""
    G = st.G
    G[lay.G_DRAWS] = stream_draws_nb(seed, st.rng)
    for f in range(lay.G_NF):
        out_g[g, f] = G[f]
    nb = G[lay.G_NBEV]
    if nb > lay.BATTLE_MAX:
        nb = lay.BATTLE_MAX
    cap = out_bev.shape[0]
    for b in range(nb):
        if nrow < cap:
            out_bev[nrow, 0] = g
            for f in range(lay.BE_NF):
                out_bev[nrow, 1 + f] = st.bev[b, f]
        nrow += 1
    if out_ledger.shape[0] > 0:
        nlg = min(G[lay.G_NLEDGER], lay.LEDGER_MAX)
        for i in range(nlg):
            for f in range(lay.LG_NF):
                out_ledger[g, i, f] = st.ledger[i, f]
    return nrow


@kernel(nrt=True)
def game_of_nb(bst, g):
    """Game ``g``'s :class:`GameState` in a batch state (views, no copy)."""
    return GameState(bst.U[g], bst.S[g], bst.SM[g], bst.LD[g], bst.ND[g], bst.G[g], bst.ledger[g], bst.bev[g],
                     bst.rng[g], bst.clock[g], bst.trace[g])


@kernel(nogil=True, nrt=True)
def play_campaigns_nb(seeds, tb, out_g, out_bev, trace, out_ledger):
    """Play one campaign per seed, each in one reused :class:`GameState`.

    Args:
        seeds: ``uint64[g]`` stream seeds (one stream per game, :mod:`simlab.rng`).
        tb: the :class:`campaign_bundles.Tables` (the family of side ``s`` is ``par[P_POL0 + s]``).
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
    nu, N = tb.ust.shape[0], tb.nodes.shape[0]
    nl = max(tb.lst.shape[0], 1)
    sc = new_scratch_nb(tb)   # scratch: allocated once per call (each thread has its own)
    U = np.zeros((nu, lay.UF_NF), dtype=np.int64)
    S = np.zeros((2 * MAXSS, lay.SF_NF), dtype=np.int64)
    SM = np.zeros((2 * MAXSS, lay.MAXPER), dtype=np.int64)
    LD = np.zeros((nl, lay.LF_NF), dtype=np.int64)
    ND = np.zeros((N, lay.ND_NF), dtype=np.int64)
    G = np.zeros(lay.G_NF, dtype=np.int64)
    ledger = np.zeros((lay.LEDGER_MAX, lay.LG_NF), dtype=np.int64)
    bev = np.zeros((lay.BATTLE_MAX, lay.BE_NF), dtype=np.int64)
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    clock = np.zeros(lay.CK_NF, dtype=np.int64)
    tr = tb.par[lay.P_TRACE] != 0
    led = out_ledger if tr else out_ledger[:0]
    nrow = 0
    for g in range(seeds.shape[0]):
        st = GameState(U, S, SM, LD, ND, G, ledger, bev, rng, clock, trace[g if tr else 0])
        new_state_nb(seeds[g], rng)
        play_game_nb(tb, st, sc)
        nrow = record_game_nb(g, seeds[g], st, out_g, out_bev, nrow, led)
    return nrow


@kernel(nogil=True, nrt=True)
def start_campaigns_nb(seeds, tb, bst, stop):
    """Set up one campaign per seed in the batch state ``bst`` (:func:`campaign_bundles.new_batch_state`)
    and play each through turn ``stop`` (0: the set-up only): the first half of
    :func:`play_campaigns_nb`, the state kept."""
    sc = new_scratch_nb(tb)
    for g in range(seeds.shape[0]):
        st = game_of_nb(bst, g)
        new_state_nb(seeds[g], st.rng)
        setup_game_nb(tb, st, sc)
        play_on_nb(tb, st, sc, stop)


@kernel(nogil=True, nrt=True)
def resume_campaigns_nb(seeds, tb, bst, stop, out_g, out_bev, out_ledger):
    """Play each game of the batch state ``bst`` on through turn ``stop``; when every game is then
    over, write the batch's output as :func:`play_campaigns_nb` does (``out_g[g, G_NF]``,
    ``out_bev``, ``out_ledger`` when tracing) and return the battle row count, else return -1."""
    sc = new_scratch_nb(tb)
    over = True
    for g in range(seeds.shape[0]):
        st = game_of_nb(bst, g)
        play_on_nb(tb, st, sc, stop)
        if st.clock[lay.CK_DONE] == 0:
            over = False
    if not over:
        return -1
    led = out_ledger if tb.par[lay.P_TRACE] != 0 else out_ledger[:0]
    nrow = 0
    for g in range(seeds.shape[0]):
        nrow = record_game_nb(g, seeds[g], game_of_nb(bst, g), out_g, out_bev, nrow, led)
    return nrow
