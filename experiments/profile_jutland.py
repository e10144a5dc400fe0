"""Phase profile of Dreadnought's Jutland kernel (issue 17), which cProfile cannot see into.

An instrumented copy of the historical-scenario path of ``kernels/turn.tactical_nb`` (and of the
fire plot and movement plot of one side) calls the very phase kernels of the game with the CPU's
cycle counter read around each; it checks that its games end as the real kernel's do (turns and
end reasons), and prints each phase's share and CPU time per Game-Turn (shares of wall-clock
cycles scaled to the process's CPU time: on a loaded machine the shares stay right, the cycles
do not). Keep it in step with ``tactical_nb``/``plot_fire_nb``/``plot_movement_nb`` when those
change (it is a measuring tool, not part of simlab).

    PYTHONPATH=. nice -n 10 .venv/bin/python experiments/profile_jutland.py 60 [PRESET]
"""
# ruff: noqa: E702, E402, F841, UP031  (a measuring script: one-line timer bookkeeping, phase-grouped imports)
import sys
import time

import llvmlite.ir as ir
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import (
    AFLOAT,
    END_GAME_LENGTH,
    MOVE_HOLD,
    MOVE_RANDOM,
)
from simlab.games.dreadnought.kernels import turn as T
from simlab.games.dreadnought.kernels.damage import damage_control_nb, scenario_end_nb
from simlab.games.dreadnought.kernels.fire import apply_pending_nb, fire_execution_nb
from simlab.games.dreadnought.kernels.movement import commit_moves_nb, resolve_collisions_nb
from simlab.games.dreadnought.kernels.torpedo import launch_torpedoes_nb, torpedo_attacks_nb
from simlab.games.dreadnought.kernels.visibility import sighting_nb, visibility_roll_nb
from simlab.games.dreadnought.policies import movement as PM
from simlab.games.dreadnought.policies.fire import preferred_range_nb
from simlab.games.dreadnought.policies.knowledge import predict_nb
from simlab.games.dreadnought.policies.torpedo import plot_torpedoes_nb
from simlab.rng import STATE_WORDS, new_state_nb


@intrinsic
def rdtsc(typingctx):
    """The CPU's cycle counter (``llvm.readcyclecounter``)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.uint64(), codegen



from simlab.games.dreadnought.enums import CAPITAL, FIRE_FOCUS_ODDS, FIRE_NEAREST, FIRE_RANDOM
from simlab.games.dreadnought.kernels.damage import by_damage_nb
from simlab.games.dreadnought.kernels.geometry import hex_dist_nb
from simlab.games.dreadnought.kernels.visibility import beyond_visibility_nb
from simlab.games.dreadnought.policies.fire import (
    DMAX,
    _apply_shot_nb,
    _holds_fire_nb,
    _pick_target_nb,
    designate_scr_nb,
    fire_scratch_nb,
    fire_values_nb,
    shot_terms_nb,
    unit_lists_nb,
)


@njit(cache=False, _nrt=False)
def plot_fire_prof(side, st, sh, n, vis, code, kn, rl, eff_gun, eff_crt, range_tab, band_low, rng, order, cnt,
                 smoke, dy, turn, sc, TT, fs):
    t0 = rdtsc()
    vp_pct, sv, svkey, dist, thr, loss, mg, bcol, nd, firers, term, has, pg, pl, prow, pure, ml, mst, ver, vc, lst, _ = fs
    unit_lists_nb(side, st, sh, n, lst)
    k = 0
    for i in range(n):
        if st[i, L.ST_SIDE] != side:
            continue
        sh[i, L.SH_TGT] = -1
        sh[i, L.SH_SB] = -1
        sh[i, L.SH_FMOD] = 0
        if sh[i, L.SH_STATUS] == AFLOAT and by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) > 0 and \
                not _holds_fire_nb(side, st, sh, i, sc, kn):
            order[k] = i
            k += 1
    for a in range(1, k):
        u = order[a]
        key = by_damage_nb(st[u, L.ST_ATT], sh[u, L.SH_G])
        b = a - 1
        while b >= 0 and by_damage_nb(st[order[b], L.ST_ATT], sh[order[b], L.SH_G]) < key:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = u
    for j in range(n):
        cnt[j] = 0
        vc[0] += 1
        ver[j] = vc[0]
    loss[0] = 0.0
    for j in range(n):
        for q in range(10):
            dist[j, q] = 0.0
        thr[j, 0] = 0.0
        thr[j, 1] = 0.0
    t1 = rdtsc(); TT[20] += t1 - t0
    for j in range(n):
        if st[j, L.ST_SIDE] == side or sh[j, L.SH_STATUS] != AFLOAT:
            continue
        dist[j, sh[j, L.SH_G] * 3 + sh[j, L.SH_S]] = 1.0
        if code == FIRE_FOCUS_ODDS and (kn[L.K_THREAT] != 0.0 or kn[L.K_SUPPRESS] != 0.0):
            thr[j, 0] = np.nan     # reckoned by _pick_target_nb on first use (its time counts there)
            thr[j, 1] = np.nan
    t2 = rdtsc(); TT[21] += t2 - t1
    for a in range(k):
        i = order[a]
        reach = st[i, L.ST_RNG] if (st[i, L.ST_RNG] < vis or beyond_visibility_nb(st, i, rl)) else vis
        best = _pick_target_nb(side, st, sh, n, i, reach, False, code, kn, rl, eff_gun, range_tab, band_low, rng, cnt,
                               vis, smoke, dy, turn, dist, thr, sv, loss, bcol, pg, pl, prow, pure, mg, ml, mst, ver, lst)
        if best >= 0:
            sh[i, L.SH_TGT] = best
            d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[best, L.SH_X], sh[best, L.SH_Z])
            b, pen = shot_terms_nb(st, sh, i, best, d, cnt[best] > 0, range_tab, band_low, rl, sh[i, L.SH_FMOD], -1)
            _apply_shot_nb(dist[best], b, pen, st[best, L.ST_DEF] if st[best, L.ST_DEF] < DMAX else DMAX, eff_gun, nd)
            cnt[best] += 1
            vc[0] += 1
            ver[best] = vc[0]
    t3 = rdtsc(); TT[22] += t3 - t2
    designate_scr_nb(side, st, sh, n, eff_gun, range_tab, band_low, rl, code, rng, firers, term, has, cnt)
    t4 = rdtsc(); TT[23] += t4 - t3
    sbr = rl[L.RL_SB_RANGE] if rl[L.RL_SB_RANGE] < vis else vis
    sbcode = FIRE_RANDOM if code == FIRE_RANDOM else FIRE_NEAREST
    for i in range(n):
        if st[i, L.ST_SIDE] != side or st[i, L.ST_KIND] != CAPITAL or sh[i, L.SH_STATUS] != AFLOAT:
            continue
        if by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) <= 0 or _holds_fire_nb(side, st, sh, i, sc, kn):
            continue
        sh[i, L.SH_SB] = _pick_target_nb(side, st, sh, n, i, sbr, True, sbcode, kn, rl, eff_gun, range_tab, band_low,
                                         rng, cnt, vis, smoke, dy, turn, dist, thr, sv, loss, bcol, pg, pl, prow, pure, mg, ml, mst, ver, lst)
    TT[24] += rdtsc() - t4


from simlab.games.dreadnought.enums import COLUMN
from simlab.games.dreadnought.kernels.movement import in_exit_nb, plot_end_nb, role_of_nb
from simlab.games.dreadnought.policies.movement import (
    _bounds_nb,
    _random_plot_nb,
    _try_plan_nb,
    candidates_nb,
    detach_nb,
    fallback_plot_nb,
    goal_nb,
    quick_stack_ok_nb,
    refresh_formation_nb,
    score_nb,
    stack_keys_nb,
)


@njit(cache=False, _nrt=False)
def plan_best_prof(st, sh, fm, trail, f, flag, n, cand, scores, k, sc, rl, px, pz, pf, planned, exit_mp, tk, TT):
    keys = tk[5][1]
    stack_keys_nb(st, sh, st[flag, L.ST_SIDE], n, planned, keys)
    for _ in range(k):
        b = -1
        bs = -1e300
        for c in range(k):
            if scores[c] > bs:
                bs = scores[c]
                b = c
        if b < 0:
            break
        scores[b] = -1e301
        TT[30] += 1
        if not in_exit_nb(st, flag, cand[b, 5], cand[b, 6], sc) and \
                not quick_stack_ok_nb(st, sh, flag, cand[b, 5], cand[b, 6], cand[b, 7], planned, n, rl, keys, True):
            continue
        TT[31] += 1
        if _try_plan_nb(st, sh, fm, trail, f, n, cand[b, 0], cand[b, 1], cand[b, 2], cand[b, 3], cand[b, 4], sc, rl,
                        px, pz, pf, planned, exit_mp, tk, True):
            return True
    return False

@njit(cache=False, _nrt=False)
def plot_movement_prof(side, st, sh, fm, trail, n, sc, rl, pc, kn, vis, rstar, pred, px, pz, pf, planned,
                     exit_mp, cand, scores, rng, tk, dy, TT):
    code = pc[L.PC_MOVE]
    role = role_of_nb(side, sc)
    lst = tk[5][2:4]
    unit_lists_nb(side, st, sh, n, lst)
    for pass_ in range(2):
        for f in range(n):
            if fm[f, L.FM_MEMBERS] == 0:
                continue
            flag = fm[f, L.FM_FLAG]
            if flag < 0 or st[flag, L.ST_SIDE] != side or sh[flag, L.SH_STATUS] != AFLOAT or planned[flag]:
                continue
            t0 = rdtsc()
            if pass_ == 0 and _bounds_nb(st, sh, f, n, rl)[1] > 0:
                TT[25] += rdtsc() - t0
                continue
            TT[29] += 1
            if code == MOVE_RANDOM:
                if not _random_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, rng, tk):
                    fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, tk)
                TT[27] += rdtsc() - t0
                continue
            fm[f, L.FM_LEG2C] = 1 if (fm[f, L.FM_MODE] != COLUMN and pc[L.PC_MODE] == COLUMN
                                      and fm[f, L.FM_MEMBERS] > 1) else 0
            mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
            is_cap = st[flag, L.ST_KIND] == CAPITAL
            gx, gz, gf, dstar, gmode = goal_nb(side, st, sh, n, f, flag, code, kn, sc, rstar, pred, is_cap, lst)
            vpref = mx
            k = candidates_nb(mn, mx, vpref, rl, noabout, cand, code == MOVE_HOLD)
            sx = sh[flag, L.SH_X]
            sz = sh[flag, L.SH_Z]
            sf = sh[flag, L.SH_F]
            for c in range(k):
                ex, ez, ef = plot_end_nb(sx, sz, sf, cand[c, 0], cand[c, 1], cand[c, 2], cand[c, 3])
                cand[c, 5] = ex
                cand[c, 6] = ez
                cand[c, 7] = ef
                turnmp = cand[c, 4] - cand[c, 1] - cand[c, 3]
                scores[c] = score_nb(ex, ez, ef, cand[c, 4], turnmp, gx, gz, gf, dstar, gmode, kn, role, sx, sz)
            t1 = rdtsc(); TT[26] += t1 - t0
            done = plan_best_prof(st, sh, fm, trail, f, flag, n, cand, scores, k, sc, rl, px, pz, pf, planned, exit_mp,
                                 tk, TT)
            t2 = rdtsc(); TT[27] += t2 - t1
            if not done:
                if fm[f, L.FM_MEMBERS] > 1:
                    for i in range(n):
                        if sh[i, L.SH_FORM] == f and sh[i, L.SH_STATUS] == AFLOAT and i != flag:
                            g = detach_nb(sh, fm, i, n)
                            if not _random_plot_nb(st, sh, fm, trail, g, n, sc, rl, px, pz, pf, planned, exit_mp, rng, tk):
                                fallback_plot_nb(st, sh, fm, trail, g, n, sc, rl, px, pz, pf, planned, exit_mp, tk)
                    refresh_formation_nb(sh, fm, f, n)
                if not _random_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, rng, tk):
                    fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, tk)
                TT[28] += rdtsc() - t2
    for i in range(n):
        if st[i, L.ST_SIDE] == side and sh[i, L.SH_STATUS] == AFLOAT and planned[i] == 0:
            g = detach_nb(sh, fm, i, n)
            fallback_plot_nb(st, sh, fm, trail, g, n, sc, rl, px, pz, pf, planned, exit_mp, tk)



NAMES = ["visibility+sighting", "predict", "plot_fire (target choice)", "plot_torpedoes", "harm",
         "fire_execution (DPT/CRT)", "launch_torpedoes", "maintain_formations", "preferred_range",
         "plot_movement", "plot_smoke", "torpedo_attacks (sweep)", "commit_moves", "resolve_collisions",
         "apply_pending", "damage_control", "scenario_end", "mp reset", "alloc/setup", "fire: state values (fire_values_nb, once a phase)", "fire: setup (order, clearing)", "fire: threats (marked; reckoned in target choice)", "fire: pick main targets", "fire: designate", "fire: secondary targets", "move: bounds pass 0", "move: goal+candidates+scores", "move: plan_best (try plots)", "move: break-up / random fallback"]


@njit(cache=False)
def tactical_prof(st, sh, fm, trail, sc, tb, pc, kn, out, g, ev, ev_n, rng, dy, length, vis_base, TT, fs):
    rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt = tb
    n = st.shape[0]
    t0 = rdtsc()
    px = np.zeros((n, L.MAXMP + 1), dtype=np.int64); pz = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pf = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    planned = np.zeros(n, dtype=np.int64); exit_mp = np.zeros(n, dtype=np.int64); alive = np.zeros(n, dtype=np.int64)
    mpu = np.zeros(n, dtype=np.int64); order = np.zeros(n, dtype=np.int64); cnt = np.zeros(n, dtype=np.int64)
    desig = np.zeros(n, dtype=np.int64); displaced = np.zeros(n, dtype=np.int64)
    pred = np.zeros((n, 2), dtype=np.int64); buf = np.zeros((n, 3), dtype=np.int64)
    cand = np.zeros((PM.MAXC, 8), dtype=np.int64); scores = np.zeros(PM.MAXC, dtype=np.float64)
    mx = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64); mz = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    md = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64); mowner = np.zeros(n, dtype=np.int64)
    nmark = np.zeros(1, dtype=np.int64)
    tk = (nmark, mx, mz, md, mowner, np.zeros((4, n + 1), dtype=np.int64))
    tk_none = (np.zeros(1, dtype=np.int64), mx, mz, md, mowner, tk[5])   # random-legal ignores its torpedoes
    ppx = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64); ppz = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    hitmask = np.zeros((n, n), dtype=np.int8); hits = np.zeros((n * n, 4), dtype=np.int64)
    shot = np.zeros(6, dtype=np.int64); crt_out = np.zeros(2, dtype=np.int64)
    smoke = np.zeros((n * (L.MAXMP + 1) + 1, 2), dtype=np.int64)
    smoke_new = np.zeros((n * (L.MAXMP + 1) + 1, 2), dtype=np.int64)
    pcs = pc.copy()
    nfire = np.zeros(n, dtype=np.int64)
    TT[18] += rdtsc() - t0
    turn = 0; nosight = 0; ended_by = -1; reason = END_GAME_LENGTH
    vis = vis_base
    while turn < length:
        turn += 1
        t0 = rdtsc()
        vis = visibility_roll_nb(vis_base, rl, rng, dy)
        if sighting_nb(st, sh, n, vis):
            nosight = 0
        else:
            nosight += 1
        t1 = rdtsc(); TT[0] += t1 - t0
        predict_nb(sh, n, pred)
        t2 = rdtsc(); TT[1] += t2 - t1
        fire_values_nb(st, sh, n, rl, fs)
        t1 = t2; t2 = rdtsc(); TT[19] += t2 - t1
        for side in range(2):
            a = rdtsc()
            plot_fire_prof(side, st, sh, n, vis, pcs[side, L.PC_FIRE], kn[side], rl, eff_gun, eff_crt, range_tab,
                         band_low, rng, order, cnt, smoke, dy, turn, sc, TT, fs)
            b = rdtsc(); TT[2] += b - a
            plot_torpedoes_nb(side, st, sh, n, pcs[side, L.PC_TORP], kn[side], sc, rl, tracks, eff_crt, rng,
                              mx, mz, md, order, ppx, ppz)
            TT[3] += rdtsc() - b
        t0 = rdtsc()
        harm = T.harm_nb(sh, n)
        t1 = rdtsc(); TT[4] += t1 - t0
        ev_n = fire_execution_nb(st, sh, n, rl, dpt, band_low, crt, range_tab, rng, desig, nfire, shot, crt_out, ev,
                                 ev_n, g, turn, 0, out)
        t2 = rdtsc(); TT[5] += t2 - t1
        nmark[0] = launch_torpedoes_nb(st, sh, n, sc[L.SC_TORP_MA], tracks, mx, mz, md, mowner, out, g)
        t3 = rdtsc(); TT[6] += t3 - t2
        # movement plot phase (historical scenario: no campaign, no tows, no smoke)
        for i in range(n):
            planned[i] = 0
            exit_mp[i] = L.MAXMP + 1
            sh[i, L.SH_MP] = 0
            alive[i] = 1 if sh[i, L.SH_STATUS] == AFLOAT else 0
        predict_nb(sh, n, pred)
        t4 = rdtsc(); TT[17] += t4 - t3
        for side in range(2):
            a = rdtsc()
            PM.maintain_formations_nb(side, st, sh, fm, trail, n, rl, pcs[side], buf)
            b = rdtsc(); TT[7] += b - a
            rstar = 8
            if pcs[side, L.PC_MOVE] == MOVE_HOLD:
                rstar = preferred_range_nb(side, st, sh, n, vis, eff_gun, range_tab, band_low)
            c = rdtsc(); TT[8] += c - b
            plot_movement_prof(side, st, sh, fm, trail, n, sc, rl, pcs[side], kn[side], vis, rstar, pred, px, pz,
                                pf, planned, exit_mp, cand, scores, rng, tk_none if pcs[side, L.PC_MOVE] == MOVE_RANDOM else tk, dy, TT)
            d = rdtsc(); TT[9] += d - c
        t0 = rdtsc()
        ev_n = torpedo_attacks_nb(st, sh, n, nmark[0], sc[L.SC_TORP_MA], mx, mz, md, mowner, px, pz, pf, mpu, alive,
                                  exit_mp, hitmask, hits, rl, crt, rng, crt_out, smoke_new, dy, out, g, ev, ev_n, turn,
                                  0)
        t1 = rdtsc(); TT[11] += t1 - t0
        ended_by = commit_moves_nb(st, sh, fm, trail, n, sc, turn, ended_by, px, pz, pf, alive, exit_mp)
        t2 = rdtsc(); TT[12] += t2 - t1
        resolve_collisions_nb(st, sh, fm, n, rng, rl, sc, displaced, out, g, tk[5][1])
        t3 = rdtsc(); TT[13] += t3 - t2
        apply_pending_nb(sh, n, rl)
        t4 = rdtsc(); TT[14] += t4 - t3
        damage_control_nb(st, sh, n, rl, rng)
        t5 = rdtsc(); TT[15] += t5 - t4
        r = scenario_end_nb(st, sh, n, sc, rl, turn, nosight)
        TT[16] += rdtsc() - t5
        if r >= 0:
            reason = r
            break
    return turn, reason, ev_n


@njit(cache=False)
def batch_prof(seeds, st, sh0, fm0, trail0, sc, rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt, pc, kn,
               opt, out, ev, TT):
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    sh = np.zeros_like(sh0); fm = np.zeros_like(fm0); trail = np.zeros_like(trail0)
    dy = np.zeros(L.NDY, dtype=np.int64)
    tb = (rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt)
    fs = fire_scratch_nb(st, st.shape[0], rl, band_low)    # one set per call, as play_batch_nb's
    turns = 0
    for g in range(seeds.shape[0]):
        new_state_nb(seeds[g], rng)
        sh[:, :] = sh0; fm[:, :] = fm0; trail[:, :, :] = trail0
        for k in range(L.NOUT):
            out[g, k] = 0
        T.reset_dy_nb(dy)
        turn, reason, ev_n = tactical_prof(st, sh, fm, trail, sc, tb, pc, kn, out, g, ev, 0, rng, dy, opt[0], opt[1], TT,
                                           fs)
        out[g, L.O_TURNS] = turn
        out[g, L.O_END] = reason
        turns += turn
    return turns


if __name__ == "__main__":
    import simlab.games.dreadnought.runtime as RT
    from simlab.games import get_game
    from simlab.rng import game_seeds
    cap = {}
    real = RT.play_batch_nb
    def spy(*a):
        cap["a"] = a
        return real(*a)
    RT.play_batch_nb = spy
    g = get_game("dreadnought"); sc = g.load_scenario("jutland", g.load_data())
    # an optional second argument: a preset both sides play (e.g. random-legal, the floor)
    preset = {x: sys.argv[2] for x in sc.sides} if len(sys.argv) > 2 else {}
    opts, pols = g.resolve_options({}), g.resolve_policies(sc.sides, preset)
    N = int(sys.argv[1])
    seeds = game_seeds(7, 0, 0, N)
    t = time.perf_counter(); b = g.play_batch(sc, opts, pols, seeds); real_dt = time.perf_counter() - t
    a = cap["a"]
    (_, _, st, (sh0, fm0, trail0), scv, (rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt), (pc, kn), opt, out,
     ev, tr) = a
    print("n units", st.shape[0], "length", opt[0], "vis", opt[1], "pc", pc.tolist())
    TT = np.zeros(32, dtype=np.uint64)
    out2 = np.zeros_like(out)
    batch_prof(seeds[:2], st, sh0, fm0, trail0, scv, rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt, pc, kn, opt, out2, ev, TT)
    TT[:] = 0
    t = time.perf_counter(); c0 = time.process_time()
    turns = batch_prof(seeds, st, sh0, fm0, trail0, scv, rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt, pc, kn, opt, out2, ev, TT)
    dt = time.perf_counter() - t; cpu = time.process_time() - c0
    same = np.array_equal(out2[:, L.O_TURNS], out[:, L.O_TURNS]) and np.array_equal(out2[:, L.O_END], out[:, L.O_END])
    tot = float(TT[:20].sum())
    print(f"{N} games, {turns} Game-Turns ({turns / N:.1f} a game); instrumented {dt:.2f} s wall, {cpu:.2f} s CPU ({N / cpu:.0f} games/s CPU), real kernel {real_dt:.2f} s; turns/ends match real kernel: {same}")
    rows = sorted(range(29), key=lambda k: -int(TT[k]))
    cyc_per_s = tot / dt
    print("formations plotted/turn %.1f, candidates tried %.1f, _try_plan calls %.1f" % (TT[29] / turns, TT[30] / turns, TT[31] / turns))
    for k in rows:
        if TT[k] == 0 or k >= 29:
            continue
        print(f"| {NAMES[k]} | {100 * TT[k] / tot:5.1f}% | {TT[k] / tot * cpu / turns * 1e6:8.1f} us CPU/turn |")
