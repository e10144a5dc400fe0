"""Scripted towing (optional rule 12.4): which cruiser or capital ship takes an immobile capital
ship in tow, and the plots that bring the tower alongside and take the pair home.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    MOVE_BREAK,
    MOVE_RANDOM,
    TYPE_CAPITAL,
)
from ..kernels.damage import wrecked_nb
from ..kernels.formations import detach_nb
from ..kernels.geometry import bearing_nb, hex_dist_nb
from ..kernels.movement import (
    plot_end_nb,
    plot_mp_nb,
    release_tow_nb,
    role_of_nb,
    speed_bounds_nb,
    towable_nb,
    tower_ok_nb,
)
from .bundles import MW_LST, Goal
from .fire import unit_lists_nb
from .knowledge import alive_nb
from .movement import (
    candidates_nb,
    fallback_plot_nb,
    goal_nb,
    plan_best_nb,
    score_nb,
    stay_plot_nb,
)

TURNS6 = (0, 1, -1, 2, -2, 3)


@kernel(error_model="numpy")
def assign_tows_nb(side, st, sh, n, vis, rl, withdrawing, code, kn, rng):
    """Give each immobile capital ship of ``side`` a towing ship (policy; Rule 12.41: 'any capital
    ship may be towed by any capital ship or cruiser unit').

    By the side's knobs ``kn`` (``float64[NKN]``): a tow is taken when no enemy unit in play is
    within ``K_TOW_CLEAR`` times the visibility ``vis`` (hexes) of the cripple (0: at once), or
    at once when the side withdraws; the tower is the able unit within 16 hexes nearest the
    cripple, a capital ship's distance counted ``K_TOW_CAPITAL`` hexes longer (a cruiser unit is
    preferred unless a capital ship is that much nearer). ``random-legal`` (``code``
    ``MOVE_RANDOM``) first breaks each of its tows on a coin flip, then takes a tow on a coin flip.
    """
    clear = kn[L.K_TOW_CLEAR] * vis
    capital = kn[L.K_TOW_CAPITAL]
    if code == MOVE_RANDOM:
        # 12.41 'a tow may be broken instantaneously at any Game-Turn': random-legal breaks each
        # of its tows on a coin flip (the scripted policies by K_TOW_BREAK, plan_tows_nb)
        for i in range(n):
            if st[i, L.ST_SIDE] == side and sh[i, L.SH_TOW] >= 0 and roll_nb(rng, 2) == 1:
                release_tow_nb(sh, i)
    for j in range(n):
        if st[j, L.ST_SIDE] != side or not towable_nb(st, sh, j, rl):
            continue
        if code == MOVE_RANDOM:
            if roll_nb(rng, 2) != 1:
                continue
        elif not withdrawing and clear > 0.0:
            near = False
            for e in range(n):
                if st[e, L.ST_SIDE] != side and alive_nb(sh, e) and \
                        hex_dist_nb(sh[e, L.SH_X], sh[e, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z]) <= clear:
                    near = True
                    break
            if near:
                continue
        best = -1
        bestd = 1e300
        for i in range(n):
            if st[i, L.ST_SIDE] != side or i == j or not tower_ok_nb(st, sh, i):
                continue
            d = float(hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z]))
            if d > 16:
                continue
            if st[i, L.ST_TYPE] == TYPE_CAPITAL:
                d += capital
            if d < bestd:
                bestd = d
                best = i
        if best >= 0:
            sh[best, L.SH_TOW] = j
            sh[j, L.SH_TOWED_BY] = best
            sh[best, L.SH_TOW_WAIT] = 0


@kernel(error_model="numpy")
def _enemy_within_nb(side, st, sh, n, i, d):
    """True if a unit in play not of ``side`` is within ``d`` hexes of unit ``i``."""
    for e in range(n):
        if st[e, L.ST_SIDE] != side and alive_nb(sh, e) and \
                hex_dist_nb(sh[e, L.SH_X], sh[e, L.SH_Z], sh[i, L.SH_X], sh[i, L.SH_Z]) <= d:
            return True
    return False


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)   # allocates: reference counting kept under a nrt=False caller
def _tow_approach_nb(bd, i, j, n, pl, tk):
    """Plot towing ship ``i`` toward the hex of ``j``, arriving at 1 MP or less so that it can lie
    still there next Game-Turn (6.4: a ship decelerates by at most half); every legal plot is
    weighed. ``bd``: the :class:`.bundles.MoveBoard`; ``pl``: the :class:`.bundles.Plots`,
    written; ``tk``: the :class:`.bundles.PlotWork`. Returns True if a plot was kept."""
    st = bd.st
    sh = bd.sh
    rl = bd.rl
    mn, mx = speed_bounds_nb(st, sh, i, rl)
    wx = sh[j, L.SH_X]
    wz = sh[j, L.SH_Z]
    noabout = st[i, L.ST_NOABOUT]
    cap = 4096
    sc_ = np.empty(cap, dtype=np.float64)
    shp = np.empty((cap, 8), dtype=np.int64)
    k = 0
    for v in range(mn, mx + 1):
        for a in range(6):
            for b in range(6):
                t1 = TURNS6[a]
                t2 = TURNS6[b]
                for l1 in range(0, v + 1):
                    for l2 in range(0, v + 1):
                        mp = plot_mp_nb(t1, l1, t2, l2, rl)
                        if mp != v or k >= cap or (noabout and (t1 == 3 or t2 == 3)):
                            continue
                        ex, ez, ef = plot_end_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], t1, l1, t2, l2)
                        d = hex_dist_nb(ex, ez, wx, wz)
                        s = -10.0 * d
                        if d == 0:
                            s += 1000.0 if v <= 1 else -50.0
                        elif d == 1:
                            kk, tie = bearing_nb(wx - ex, wz - ez)
                            df = (kk - ef) % 6
                            if df == 0 or df == 1 or df == 5:
                                s += 3.0
                        if d <= 2:
                            s -= v
                        sc_[k] = s
                        shp[k, 0] = t1
                        shp[k, 1] = l1
                        shp[k, 2] = t2
                        shp[k, 3] = l2
                        shp[k, 4] = mp
                        shp[k, 5] = ex
                        shp[k, 6] = ez
                        shp[k, 7] = ef
                        k += 1
    f = sh[i, L.SH_FORM]
    if plan_best_nb(bd, f, i, n, shp, sc_, k, pl, tk):
        return True
    return fallback_plot_nb(bd, f, n, pl, tk)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def plan_tows_nb(side, bd, n, kn, pred, pl, tk):
    """Movement plots of ``side``'s tows (Rule 12.41): the towed ship lies still; the towing ship
    closes on it, lies still beside it for two Game-Turns, then moves at most 2 MP away from the
    enemy with the towed ship in its hex (same path). 12.41 "a tow may be broken instantaneously
    at any Game-Turn": the policy breaks it when an enemy unit in play stands within
    ``kn[K_TOW_BREAK]`` hexes of the towing ship (0: never); the towing ship then plots as any
    other unit.

    ``bd``: the :class:`.bundles.MoveBoard`; ``kn`` ``float64[NKN]``: the side's knobs; ``pred``
    ``int64[n, 2]``: the predicted positions; ``pl``: the :class:`.bundles.Plots`, written; ``tk``:
    the :class:`.bundles.PlotWork` (its candidate plots and work rows used)."""
    st = bd.st
    sh = bd.sh
    fm = bd.fm
    sc = bd.sc
    rl = bd.rl
    px = pl.px
    pz = pl.pz
    pf = pl.pf
    planned = pl.planned
    exit_mp = pl.exit_mp
    cand = tk.cand
    scores = tk.scores
    brk = kn[L.K_TOW_BREAK]
    for i in range(n):
        if st[i, L.ST_SIDE] != side or sh[i, L.SH_TOW] < 0:
            continue
        j = sh[i, L.SH_TOW]
        if not alive_nb(sh, i) or wrecked_nb(sh, i) or not alive_nb(sh, j):
            release_tow_nb(sh, i)
            continue
        if brk > 0.0 and _enemy_within_nb(side, st, sh, n, i, brk):
            release_tow_nb(sh, i)
            continue
        if fm[sh[i, L.SH_FORM], L.FM_MEMBERS] > 1:
            detach_nb(sh, fm, i, n)
        if fm[sh[j, L.SH_FORM], L.FM_MEMBERS] > 1:
            detach_nb(sh, fm, j, n)
        same = sh[i, L.SH_X] == sh[j, L.SH_X] and sh[i, L.SH_Z] == sh[j, L.SH_Z]
        established = same and sh[i, L.SH_TOW_WAIT] >= rl[L.RL_TOW_WAIT]
        if not planned[j]:
            stay_plot_nb(sh, j, rl, px, pz, pf, planned, exit_mp)
        if planned[i]:
            continue
        fi = sh[i, L.SH_FORM]
        if not established:
            _tow_approach_nb(bd, i, j, n, pl, tk)
            continue
        mn, mx = speed_bounds_nb(st, sh, i, rl)
        lst = tk.mw[MW_LST:MW_LST + 2]
        unit_lists_nb(side, st, sh, n, lst)
        gx, gz, gf, dstar, gmode = goal_nb(side, bd, n, fi, i, MOVE_BREAK, kn, 8, pred, True, lst)
        goal = Goal(gx, gz, gf, dstar, gmode)
        k = candidates_nb(mn, mx, mx, rl, st[i, L.ST_NOABOUT], cand, True)
        role = role_of_nb(side, sc)
        for c in range(k):
            ex, ez, ef = plot_end_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], cand[c, 0], cand[c, 1], cand[c, 2],
                                     cand[c, 3])
            cand[c, 5] = ex
            cand[c, 6] = ez
            cand[c, 7] = ef
            scores[c] = score_nb(ex, ez, ef, cand[c, 4], cand[c, 4] - cand[c, 1] - cand[c, 3], goal, kn, role,
                                 sh[i, L.SH_X], sh[i, L.SH_Z])
        if not plan_best_nb(bd, fi, i, n, cand, scores, k, pl, tk):
            fallback_plot_nb(bd, fi, n, pl, tk)
        # the towed ship goes where its towing ship goes
        for t in range(L.MAXMP + 1):
            px[j, t] = px[i, t]
            pz[j, t] = pz[i, t]
            pf[j, t] = pf[i, t]
        sh[j, L.SH_MP] = sh[i, L.SH_MP]
        exit_mp[j] = exit_mp[i]
        sh[j, L.SH_PX] = sh[i, L.SH_PX]
        sh[j, L.SH_PZ] = sh[i, L.SH_PZ]
        sh[j, L.SH_PF] = sh[i, L.SH_PF]
