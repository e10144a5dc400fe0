"""The whole-game kernel of Dreadnought: a batch of complete scenarios in one numba call.

:func:`play_batch_nb` plays one game per seed; each game follows the Sequence of Play (Rule 4.1)
turn by turn:

1. Visibility: base + one die (5.71); sighting: any two opposing units in play within it.
2. Fire Plot: both sides plot gunfire, secondary batteries and torpedo attacks (5.1, 8.0, 8.4).
3. Fire Execution: every plotted shot is resolved; results apply at the end of the phase (5.0).
4. Movement Plot: formations and units plot (6.0-6.2, 7.0).
5. Movement Execution: all move MP by MP with the Torpedo Markers (8.0); torpedo results apply
   when movement ends; then exits, safe zones (9.15), collisions and stacking (6.13, 6.31-6.33).
6. Damage Control (5.43-5.44).

A scenario ends after its last Game-Turn, after three consecutive Game-Turns without sighting once
contact has been made (9.42, ruling DN-E2), when a side has no unit left in play, or when an
objective that decides it is met (10.4). Results per game go to ``out`` (layout ``O_*``), shots
to ``ev`` when asked (layout ``E_*``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...rng import STATE_WORDS, new_state_nb, roll_nb
from . import layout as L
from .damage import damage_control_nb, final_result_nb
from .enums import (
    AFLOAT,
    COLUMN,
    END_GAME_LENGTH,
    END_NO_SIGHTING,
    END_OBJECTIVE,
    END_SIDE_GONE,
    EXITED,
    MOVE_HOLD,
    SHOT_GUN,
    SHOT_SECONDARY,
    SHOT_TORPEDO,
    VC_EXIT_OR_POINTS,
)
from .fire import add_pending_nb, apply_pending_nb, crt_shot_nb, damaged_attack_nb, gun_shot_nb
from .geometry import arc_nb, hex_dist_nb
from .movement import collisions_nb, commit_column_nb, detach_nb, in_own_safe_zone_nb
from .policies import (
    MAXC,
    maintain_formations_nb,
    plot_fire_nb,
    plot_movement_nb,
    plot_torpedoes_nb,
    predict_nb,
    preferred_range_nb,
)
from .torpedo import marker_path_nb, sweep_nb


@njit(cache=True)
def _record_nb(ev, k, g, turn, kind, firer, target, rng_hexes, strength, halved, upon, arc, dptr, dp, ratio,
               crtr, res, comb):
    if k >= ev.shape[0]:
        return ev.shape[0] + 1
    ev[k, L.E_GAME] = g
    ev[k, L.E_TURN] = turn
    ev[k, L.E_KIND] = kind
    ev[k, L.E_FIRER] = firer
    ev[k, L.E_TARGET] = target
    ev[k, L.E_RANGE] = rng_hexes
    ev[k, L.E_STRENGTH] = strength
    ev[k, L.E_HALVED] = halved
    ev[k, L.E_UPON] = upon
    ev[k, L.E_ARC] = arc
    ev[k, L.E_DPT_ROLL] = dptr
    ev[k, L.E_DP] = dp
    ev[k, L.E_RATIO] = ratio
    ev[k, L.E_CRT_ROLL] = crtr
    ev[k, L.E_RESULT] = res
    ev[k, L.E_COMBING] = comb
    return k + 1


@njit(cache=True)
def sighting_nb(st, sh, n, vis):
    """True if a unit in play is within ``vis`` hexes of an opposing unit in play (Rule 9.42)."""
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT or st[i, L.ST_SIDE] != 0:
            continue
        for j in range(n):
            if sh[j, L.SH_STATUS] != AFLOAT or st[j, L.ST_SIDE] != 1:
                continue
            if hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z]) <= vis:
                return True
    return False


@njit(cache=True)
def fire_execution_nb(st, sh, n, rl, dpt, band_low, crt, range_tab, rng, desig, shot, crt_out, ev, ev_n, g,
                      turn, record, out):
    """The Fire Execution Phase (Rules 5.0, 5.31, 5.6, 8.41): every plotted attack is resolved
    against the state at the start of the phase; results are applied at its end."""
    for i in range(n):
        sh[i, L.SH_UPON] = 0
        desig[i] = -1
    for i in range(n):
        t = sh[i, L.SH_TGT]
        if t >= 0:
            sh[t, L.SH_UPON] = 1
            a = damaged_attack_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
            d = desig[t]
            if d < 0 or a > damaged_attack_nb(st[d, L.ST_ATT], sh[d, L.SH_G]):
                desig[t] = i
        s = sh[i, L.SH_SB]
        if s >= 0:
            sh[s, L.SH_UPON] = 1
    for i in range(n):
        t = sh[i, L.SH_TGT]
        if t < 0:
            continue
        halved = 1 if (rl[L.RL_HALVE_MULTI] and desig[t] != i) else 0
        d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[t, L.SH_X], sh[t, L.SH_Z])
        arc = arc_nb(sh[i, L.SH_F], sh[t, L.SH_X] - sh[i, L.SH_X], sh[t, L.SH_Z] - sh[i, L.SH_Z])
        a = damaged_attack_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
        res = gun_shot_nb(a, halved, d, sh[i, L.SH_UPON], arc, st[t, L.ST_DEF], dpt, band_low, crt, range_tab, rl,
                          rng, shot)
        add_pending_nb(sh, t, res)
        out[g, L.O_SHOTS0 + st[i, L.ST_SIDE]] += 1
        if record:
            ev_n = _record_nb(ev, ev_n, g, turn, SHOT_GUN, i, t, d, shot[0], halved, sh[i, L.SH_UPON], arc,
                              shot[1], shot[2], shot[3], shot[4], shot[5], 0)
    for i in range(n):
        t = sh[i, L.SH_SB]
        if t < 0:
            continue
        d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[t, L.SH_X], sh[t, L.SH_Z])
        res = crt_shot_nb(rl[L.RL_SB_COL], 0, crt, rl, rng, crt_out)
        add_pending_nb(sh, t, res)
        if record:
            ev_n = _record_nb(ev, ev_n, g, turn, SHOT_SECONDARY, i, t, d, -1, 0, sh[i, L.SH_UPON], 0, 0, 0,
                              rl[L.RL_SB_COL], crt_out[0], crt_out[1], 0)
    apply_pending_nb(sh, n, rl)
    return ev_n


@njit(cache=True)
def _vp(rl):
    v = np.zeros(5, dtype=np.int64)
    v[1] = rl[L.RL_VP1]
    v[2] = rl[L.RL_VP2]
    v[3] = rl[L.RL_VP3]
    v[4] = rl[L.RL_VP4]
    return v


@njit(cache=True)
def play_batch_nb(seeds, start, st, sh0, fm0, trail0, sc, rl, dpt, band_low, crt, range_tab, tracks, eff_gun,
                  eff_crt, pc, kn, opt, out, ev):
    """Play games ``start..len(seeds)-1``, one per seed (Rules 4.0-9.5).

    Args:
        seeds: ``uint64[g]``; start: first game to play.
        st, sh0, fm0, trail0, sc: the compiled scenario (:mod:`.scenario`).
        rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt: the compiled rules.
        pc: ``int64[2, NPC]`` policy codes; kn: ``float64[2, NKN]`` policy knobs.
        opt: ``int64[3]``: game length (Game-Turns), visibility base (hexes), record shots (0/1).
        out: ``int64[g, NOUT]`` results, written; ev: ``int32[cap, NEV]`` shots, written.

    Returns:
        ``(next_game, ev_rows)``: ``next_game < len(seeds)`` when the shots buffer filled up
        during that game (call again from it with a bigger buffer); ``ev_rows`` rows written.
    """
    n = st.shape[0]
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    sh = np.zeros_like(sh0)
    fm = np.zeros_like(fm0)
    trail = np.zeros_like(trail0)
    px = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pz = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pf = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    planned = np.zeros(n, dtype=np.int64)
    exit_mp = np.zeros(n, dtype=np.int64)
    alive = np.zeros(n, dtype=np.int64)
    mpu = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    cnt = np.zeros(n, dtype=np.int64)
    desig = np.zeros(n, dtype=np.int64)
    displaced = np.zeros(n, dtype=np.int64)
    pred = np.zeros((n, 2), dtype=np.int64)
    buf = np.zeros((n, 3), dtype=np.int64)
    cand = np.zeros((MAXC, 5), dtype=np.int64)
    scores = np.zeros(MAXC, dtype=np.float64)
    mx = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    mz = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    md = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    mowner = np.zeros(n, dtype=np.int64)
    hitmask = np.zeros((n, n), dtype=np.int8)
    hits = np.zeros((n * n, 4), dtype=np.int64)
    shot = np.zeros(6, dtype=np.int64)
    crt_out = np.zeros(2, dtype=np.int64)
    length = opt[0]
    vis_base = opt[1]
    record = opt[2]
    ma = sc[L.SC_TORP_MA]
    vp = _vp(rl)
    ev_n = 0
    for g in range(start, seeds.shape[0]):
        ev_start = ev_n
        new_state_nb(seeds[g], rng)
        sh[:, :] = sh0
        fm[:, :] = fm0
        trail[:, :, :] = trail0
        for k in range(L.NOUT):
            out[g, k] = 0
        turn = 0
        contact = 0
        nosight = 0
        ended_by = -1
        reason = END_GAME_LENGTH
        exit_met = 0
        vis = vis_base
        while turn < length:
            turn += 1
            # ---- 1. visibility (5.71) and sighting (9.42)
            vis = vis_base + roll_nb(rng, rl[L.RL_VIS_DIE])
            if sighting_nb(st, sh, n, vis):
                nosight = 0
                if contact == 0:
                    contact = turn
            elif contact > 0:
                nosight += 1
            # ---- 2. fire plot
            predict_nb(sh, n, pred)
            for side in range(2):
                plot_fire_nb(side, st, sh, n, vis, pc[side, L.PC_FIRE], kn[side], rl, eff_gun, eff_crt, range_tab,
                             band_low, rng, order, cnt)
                plot_torpedoes_nb(side, st, sh, n, pc[side, L.PC_TORP], kn[side], sc, rl, tracks, eff_crt, rng,
                                  mx, mz, md)
            # ---- 3. fire execution
            ev_n = fire_execution_nb(st, sh, n, rl, dpt, band_low, crt, range_tab, rng, desig, shot, crt_out, ev,
                                     ev_n, g, turn, record, out)
            # ---- 4. movement plot
            for i in range(n):
                planned[i] = 0
                exit_mp[i] = L.MAXMP + 1
                sh[i, L.SH_MP] = 0
                alive[i] = 1 if sh[i, L.SH_STATUS] == AFLOAT else 0
            predict_nb(sh, n, pred)
            for side in range(2):
                maintain_formations_nb(side, st, sh, fm, trail, n, rl, pc[side], buf)
                rstar = 8
                if pc[side, L.PC_MOVE] == MOVE_HOLD:
                    rstar = preferred_range_nb(side, st, sh, n, vis, eff_gun, range_tab, band_low)
                plot_movement_nb(side, st, sh, fm, trail, n, sc, rl, pc[side], kn[side], vis, rstar, pred, px, pz,
                                 pf, planned, exit_mp, cand, scores, rng)
            # ---- 5. movement execution with torpedoes (8.0)
            nm = 0
            for i in range(n):
                tr = sh[i, L.SH_TTRACK]
                if tr < 0:
                    continue
                sh[i, L.SH_TTRACK] = -1
                # 8.51-8.52: a screen at 2G (or sunk) after the fire phase does not launch
                if sh[i, L.SH_STATUS] != AFLOAT or sh[i, L.SH_G] >= 2 or sh[i, L.SH_TLEFT] <= 0:
                    continue
                sh[i, L.SH_TLEFT] -= 1
                out[g, L.O_LAUNCH0 + st[i, L.ST_SIDE]] += 1
                marker_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], tr, sh[i, L.SH_TARC], ma, tracks, mx,
                               mz, md, nm)
                mowner[nm] = i
                nm += 1
            for i in range(n):
                mpu[i] = sh[i, L.SH_MP]
            if nm > 0:
                nh = sweep_nb(nm, ma, mx, mz, md, n, px, pz, pf, mpu, alive, exit_mp, hitmask, hits)
                for h in range(nh):
                    o = mowner[hits[h, 0]]
                    t = hits[h, 1]
                    comb = hits[h, 3]
                    res = crt_shot_nb(st[o, L.ST_TORP], -rl[L.RL_COMBING] if comb else 0, crt, rl, rng, crt_out)
                    add_pending_nb(sh, t, res)
                    sh[t, L.SH_TORPHIT] += 1
                    if st[o, L.ST_SIDE] == st[t, L.ST_SIDE]:
                        out[g, L.O_FRIENDLY_TORP] += 1
                    else:
                        out[g, L.O_TORP0 + st[o, L.ST_SIDE]] += 1
                    if record:
                        ev_n = _record_nb(ev, ev_n, g, turn, SHOT_TORPEDO, o, t,
                                          hex_dist_nb(mx[hits[h, 0], 0], mz[hits[h, 0], 0], px[t, hits[h, 2]],
                                                      pz[t, hits[h, 2]]),
                                          -1, 0, 0, 0, 0, 0, st[o, L.ST_TORP], crt_out[0], crt_out[1], comb)
            # commit positions, wakes and speeds
            for f in range(n):
                if fm[f, L.FM_MEMBERS] > 0 and fm[f, L.FM_MODE] == COLUMN:
                    flag = fm[f, L.FM_FLAG]
                    if flag >= 0 and alive[flag]:
                        commit_column_nb(trail, fm, f, sh[flag, L.SH_MP], px, pz, pf, flag)
            for i in range(n):
                if alive[i] == 0:
                    continue
                m = sh[i, L.SH_MP]
                if exit_mp[i] <= L.MAXMP:
                    sh[i, L.SH_X] = px[i, exit_mp[i]]
                    sh[i, L.SH_Z] = pz[i, exit_mp[i]]
                    sh[i, L.SH_STATUS] = EXITED
                    sh[i, L.SH_EXIT_TURN] = turn
                    continue
                sh[i, L.SH_X] = px[i, m]
                sh[i, L.SH_Z] = pz[i, m]
                sh[i, L.SH_F] = pf[i, m]
                sh[i, L.SH_SPD] = m
                if fm[sh[i, L.SH_FORM], L.FM_MODE] == COLUMN:
                    sh[i, L.SH_CUR] += m
                if sh[i, L.SH_SAFE] == 0 and in_own_safe_zone_nb(st[i, L.ST_SIDE], sh[i, L.SH_X], sh[i, L.SH_Z], sc):
                    sh[i, L.SH_SAFE] = 1
                    if ended_by < 0:
                        ended_by = st[i, L.ST_SIDE]
            for i in range(n):
                displaced[i] = 0
            moved = collisions_nb(st, sh, n, rng, rl, sc, displaced)
            if moved > 0:
                out[g, L.O_DISPLACED] += moved
                for i in range(n):
                    if displaced[i] and fm[sh[i, L.SH_FORM], L.FM_MEMBERS] > 1:
                        detach_nb(sh, fm, i, n)
            apply_pending_nb(sh, n, rl)
            # ---- 6. damage control
            damage_control_nb(st, sh, n, rl, rng)
            # ---- end of the Game-Turn
            if sc[L.SC_VC] == VC_EXIT_OR_POINTS and turn <= sc[L.SC_EXIT_DEADLINE]:
                k = 0
                for i in range(n):
                    if st[i, L.ST_EXIT] and sh[i, L.SH_STATUS] == EXITED:
                        k += 1
                if k >= sc[L.SC_EXIT_NEED]:
                    exit_met = 1
                    reason = END_OBJECTIVE
                    break
            left0 = 0
            left1 = 0
            for i in range(n):
                if sh[i, L.SH_STATUS] == AFLOAT:
                    if st[i, L.ST_SIDE] == 0:
                        left0 += 1
                    else:
                        left1 += 1
            if left0 == 0 or left1 == 0:
                reason = END_SIDE_GONE
                break
            if nosight >= rl[L.RL_NO_SIGHT]:
                reason = END_NO_SIGHTING
                break
        if ev_n > ev.shape[0]:
            return g, ev_start
        contact_end = 1 if sighting_nb(st, sh, n, vis) else 0
        out[g, L.O_TURNS] = turn
        out[g, L.O_END] = reason
        out[g, L.O_CONTACT] = contact
        final_result_nb(st, sh, n, sc, vp, out, g, ended_by, contact_end, exit_met)
    return seeds.shape[0], ev_n
