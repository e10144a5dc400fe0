"""Phase profile of the Dawn of Empire campaign kernel (issue 17): where a campaign's time goes.

cProfile sees one compiled call (``campaign_loop.play_campaigns_nb``). This script replays the
same turn loop (:func:`campaign_loop.play_game_nb`, standard rules, default policies, no free
deployment) with the CPU's cycle counter (``llvm.readcyclecounter``) read around each phase, and
prints each phase's share of the batch and its microseconds per game::

    PYTHONPATH=. python benchmarks/doe_campaign_profile.py 4000

Only a measurement aid: it is not part of the package and no test runs it. It calls the phase
kernels of the checkout on the path, so it profiles that checkout's code (numba caches this
file's own kernel next to it; delete ``benchmarks/__pycache__`` after changing a phase kernel).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.campaign_bundles import GameState, Scratch, Tables
from simlab.games.doe.campaign_combat import (
    close_orders_nb,
    combat_phase_nb,
    combat_scratch_nb,
    control_vp_phase_nb,
    maintenance_phase_nb,
    repair_phase_nb,
)
from simlab.games.doe.campaign_movement import (
    enemy_counts_nb,
    init_game_nb,
    install_plan_nb,
    movement_side_nb,
    neutral_ports_nb,
    new_forces_nb,
    start_turn_nb,
)
from simlab.games.doe.campaign_orders import B_NODE, MAXSS, PS_NF
from simlab.games.doe.policies import PlanBuffers, PolicyTables, PolicyView, policy_plan_nb, policy_scratch_nb
from simlab.games.doe.policy_view import VIS_NF, blank_view_nb, observe_own_nb
from simlab.rng import STATE_WORDS, new_state_nb


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter (``uint64``)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.uint64(), codegen


PHASES = ("init", "new forces + start", "observe", "policy plan", "enemy counts", "install plan",
          "movement spain", "movement us", "neutral ports", "combat", "control + vp", "close + repair + maint")


@njit(cache=True)
def profile_nb(seeds, ust, lst, nodes, adj, cost, nh, matrix, markers, par, kn, turns):
    """Play one campaign per seed and return ``uint64[16]``: cycles per phase (``PHASES`` order),
    slot 15 the whole batch."""
    nu, nl, N = ust.shape[0], lst.shape[0], nodes.shape[0]
    U = np.zeros((nu, lay.UF_NF), dtype=np.int64)
    S = np.zeros((2 * MAXSS, lay.SF_NF), dtype=np.int64)
    SM = np.zeros((2 * MAXSS, lay.MAXPER), dtype=np.int64)
    LD = np.zeros((max(nl, 1), lay.LF_NF), dtype=np.int64)
    ND = np.zeros((N, lay.ND_NF), dtype=np.int64)
    G = np.zeros(lay.G_NF, dtype=np.int64)
    ledger = np.zeros((lay.LEDGER_MAX, lay.LG_NF), dtype=np.int64)
    bev = np.zeros((lay.BATTLE_MAX, lay.BE_NF), dtype=np.int64)
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    UV = np.zeros((2, nu, lay.UF_NF), dtype=np.int64)
    LV = np.zeros((2, max(nl, 1), lay.LF_NF), dtype=np.int64)
    for side in range(2):
        blank_view_nb(side, ust, lst, UV[side], LV[side])
    vis = np.zeros((N, VIS_NF), dtype=np.int64)
    B = np.zeros(B_NODE + N, dtype=np.int64)
    pu = np.zeros(nu, dtype=np.int64)
    pp = np.zeros(nu, dtype=np.int64)
    pst = np.zeros((MAXSS, PS_NF), dtype=np.int64)
    pl = np.zeros(max(nl, 1), dtype=np.int64)
    enemy_n = np.zeros(N, dtype=np.int64)
    pw, gmem = policy_scratch_nb(nu, N)
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
    acc = np.zeros(16, dtype=np.uint64)
    # the bundles the orders and movement kernels take (simlab.games.doe.campaign_bundles)
    tb = Tables(ust, lst, nodes, adj, cost, nh, matrix, markers, par, kn)
    st = GameState(U, S, SM, LD, ND, G, ledger, bev, rng, np.zeros(lay.CK_NF, dtype=np.int64),
                   np.zeros((1, 1, lay.TR_NF), dtype=np.int64))
    sc = Scratch(UV, LV, vis, B, pu, pp, pst, pl, enemy_n, pw, gmem, od, ot, work, att, dfn, mov, dmg, status, mem, cw)
    pt = PolicyTables(ust, lst, nodes, adj, cost, markers, par)
    plan = PlanBuffers(B, pu, pp, pst, pl, pw, gmem)
    t_all = cycles()
    for g in range(seeds.shape[0]):
        new_state_nb(seeds[g], rng)
        G[lay.G_NBEV] = 0
        t0 = cycles()
        init_game_nb(ust, lst, nodes, par, U, S, SM, LD, ND, G)
        acc[0] += cycles() - t0
        for turn in range(1, turns + 1):
            G[lay.G_TURN] = turn
            t0 = cycles()
            new_forces_nb(turn, ust, par, U, ND)
            start_turn_nb(G, U)
            acc[1] += cycles() - t0
            for side in (lay.SPAIN, lay.US):
                t0 = cycles()
                observe_own_nb(side, U, LD, ust, lst, par, UV[side], LV[side], vis)
                t1 = cycles()
                nstk = policy_plan_nb(par[lay.P_POL0 + side], side, turn, kn[side], pt,
                                      PolicyView(UV[side], LV[side], vis, ND), plan, rng)
                t2 = cycles()
                enemy_counts_nb(side, U, ust, enemy_n)
                t3 = cycles()
                install_plan_nb(side, nstk, tb, st, sc)
                t4 = cycles()
                acc[2] += t1 - t0
                acc[3] += t2 - t1
                acc[4] += t3 - t2
                acc[5] += t4 - t3
            t0 = cycles()
            movement_side_nb(lay.SPAIN, tb, st)
            t1 = cycles()
            movement_side_nb(lay.US, tb, st)
            t2 = cycles()
            neutral_ports_nb(ust, lst, nodes, par, U, S, SM, LD, G)
            t3 = cycles()
            combat_phase_nb(ust, lst, nodes, cost, matrix, par, U, S, SM, LD, ND, G, ledger, bev, rng, work,
                            att, dfn, mov, dmg, status, mem, cw)
            t4 = cycles()
            control_vp_phase_nb(nodes, par, S, ND, G, ledger)
            t5 = cycles()
            close_orders_nb(ust, U)
            repair_phase_nb(ust, nodes, par, U, ND, cw, rng)
            if par[lay.P_MAINT] != 0:
                maintenance_phase_nb(turn, ust, nodes, par, U, rng)
            t6 = cycles()
            acc[6] += t1 - t0
            acc[7] += t2 - t1
            acc[8] += t3 - t2
            acc[9] += t4 - t3
            acc[10] += t5 - t4
            acc[11] += t6 - t5
            G[lay.G_TURNS] = turn
    acc[15] = cycles() - t_all
    return acc


def main(n: int) -> None:
    """Profile ``n`` campaigns of ``standard`` with the default policies and print the table."""
    from simlab.games import get_game
    from simlab.games.doe.runtime import build_par, pack_policies
    from simlab.rng import game_seeds
    game = get_game("dawn-of-empire")
    sc = game.load_scenario("standard")
    opts = game.resolve_options({})
    pols = game.policies_of(sc.sides, game.resolve_policies(sc.sides, {}))
    d = sc.payload
    par = build_par(d, opts, pols, False)
    _, kn = pack_policies(pols)
    seeds = game_seeds(2024, 1, 0, n)
    args = (d.ust, d.lst, d.nodes, d.adj, d.cost, d.nh, d.matrix, d.markers, par, kn, int(opts["turns"]))
    profile_nb(seeds[:20], *args)   # compile or load
    t = time.perf_counter()
    acc = profile_nb(seeds, *args)
    dt = time.perf_counter() - t
    tot = float(acc[15])
    print(f"{n} campaigns in {dt:.3f} s = {n / dt:,.0f} games/s, {dt / n * 1e6:.1f} us a game")
    parts = [float(v) for v in acc[:len(PHASES)]]
    rows = list(zip(PHASES, parts, strict=True)) + [("(loop, seeding)", tot - sum(parts))]
    for name, v in sorted(rows, key=lambda r: -r[1]):
        print(f"  {name:24s} {100 * v / tot:5.1f}%  {v / tot * dt / n * 1e6:7.1f} us a game")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
