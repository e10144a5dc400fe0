"""Scripted policies of Dreadnought, compiled: fire plots, torpedo plots and movement plots.

A side's policy is four integer codes (``pc[side]``: movement behaviour, fire allocation,
torpedo use, preferred formation mode) and numeric knobs (``kn[side]``, layout ``K_*``), all
dispatched inside the kernel. The named policies users pick (``game.POLICIES``) are fixed
combinations:

* ``close-and-engage`` - capital formations in column close to ``K_RANGE`` hexes of the nearest
  enemy capital ship, broadside on; screens run in to torpedo range. Fire: focus by odds (each
  ship takes the target where its expected damage, in share of target value, is greatest,
  counting the halving of a second firer, Rule 5.31, and favouring damaged targets). Torpedoes:
  aggressive (any predicted hit).
* ``hold-range`` - keep the range band where the side's expected damage exchange is best
  (computed each Game-Turn from the DPT and CRT over 2/4/8/12/16 hexes, within visibility),
  broadside on. Fire: spread by target value (unengaged targets first, highest value first).
  Torpedoes: selective (only a predicted hit on a capital ship that is not combing).
* ``break-contact`` - turn away together (line abreast when possible) and run for the own safe
  zone, opening the range from the nearest enemy. Fire: the nearest enemy. Torpedoes:
  defensive (at pursuers: any predicted hit).
* ``make-for-objective`` - where the scenario gives the side an exit (Singora, Surigao Strait),
  steer for it; otherwise as close-and-engage.
* ``random-legal`` - every unit moves alone on a random legal plot, fires at a random target in
  reach (or holds fire), launches torpedoes at random.

Predictions: a unit is expected to keep its course and last speed (policies see the enemy's
positions, Rule 9.42, but not its plots, 4.2).
"""

from __future__ import annotations

from numba import njit

from ...rng import roll_nb
from . import layout as L
from .enums import (
    AFLOAT,
    CAPITAL,
    COLUMN,
    FIRE_FOCUS_ODDS,
    FIRE_RANDOM,
    FIRE_SPREAD_VALUE,
    LINE,
    MOVE_BREAK,
    MOVE_HOLD,
    MOVE_OBJECTIVE,
    MOVE_RANDOM,
    ROLE_NORTH,
    SCREEN,
    TORP_USE_DEFENSIVE,
    TORP_USE_RANDOM,
    TORP_USE_SELECTIVE,
)
from .fire import band_nb, damaged_attack_nb, range_strength_nb
from .geometry import DXA, DZA, arc_nb, hex_dist_nb, row_of_nb
from .movement import (
    column_member_path_nb,
    detach_nb,
    make_column_nb,
    path_allowed_nb,
    plot_end_nb,
    plot_mp_nb,
    plot_path_nb,
    refresh_formation_nb,
    role_of_nb,
    speed_bounds_nb,
    stack_ok_nb,
    straight_column_nb,
    truncate_at_exit_nb,
)
from .torpedo import marker_path_nb

MAXC = 256
DMAX = 64


@njit(cache=True, inline="always")
def _alive(sh, i):
    return sh[i, L.SH_STATUS] == AFLOAT


# --------------------------------------------------------------------------- predictions
@njit(cache=True)
def predict_nb(sh, n, pred):
    """Where each unit would be after this Game-Turn on its course at its last speed.

    Args:
        pred: ``int64[n, 2]`` written (x, z).
    """
    for i in range(n):
        s = sh[i, L.SH_SPD]
        f = sh[i, L.SH_F]
        pred[i, 0] = sh[i, L.SH_X] + DXA[f] * s
        pred[i, 1] = sh[i, L.SH_Z] + DZA[f] * s


@njit(cache=True, inline="always")
def _pos_at_nb(sh, j, t):
    s = sh[j, L.SH_SPD]
    k = t if t < s else s
    f = sh[j, L.SH_F]
    return sh[j, L.SH_X] + DXA[f] * k, sh[j, L.SH_Z] + DZA[f] * k


# --------------------------------------------------------------------------- fire plots
@njit(cache=True)
def _shot_value_nb(st, sh, i, j, d, halved, eff_gun, range_tab, band_low, rl):
    a = damaged_attack_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
    if halved:
        a = a // 2
    s = range_strength_nb(a, d, range_tab)
    if s <= 0:
        return 0.0
    pen = 0
    dx = sh[j, L.SH_X] - sh[i, L.SH_X]
    dz = sh[j, L.SH_Z] - sh[i, L.SH_Z]
    if arc_nb(sh[i, L.SH_F], dx, dz) != 0:
        pen -= rl[L.RL_BOW_STERN]
    # the target is likely to fire back if it can reach the firer
    if damaged_attack_nb(st[j, L.ST_ATT], sh[j, L.SH_G]) > 0 and d <= st[j, L.ST_RNG]:
        pen -= rl[L.RL_FIRED_UPON]
    if pen < 0:
        pen = 0
    if pen > 15:
        pen = 15
    dd = st[j, L.ST_DEF]
    if dd > DMAX:
        dd = DMAX
    return eff_gun[band_nb(s, band_low), pen, dd]


@njit(cache=True)
def plot_fire_nb(side, st, sh, n, vis, code, kn, rl, eff_gun, eff_crt, range_tab, band_low, rng, order, cnt):
    """Plot the fire of one side (Rules 5.1-5.3, 5.21-5.23, 8.4): ``SH_TGT`` and ``SH_SB``.

    A ship fires at most at one target within its range and the visibility (5.22-5.23); a
    capital ship may also attack one screen unit within the secondary-battery range at 1:1 (8.41).
    """
    k = 0
    for i in range(n):
        if st[i, L.ST_SIDE] != side:
            continue
        sh[i, L.SH_TGT] = -1
        sh[i, L.SH_SB] = -1
        if _alive(sh, i) and damaged_attack_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) > 0:
            order[k] = i
            k += 1
    # strongest first
    for a in range(1, k):
        u = order[a]
        key = damaged_attack_nb(st[u, L.ST_ATT], sh[u, L.SH_G])
        b = a - 1
        while b >= 0 and damaged_attack_nb(st[order[b], L.ST_ATT], sh[order[b], L.SH_G]) < key:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = u
    for j in range(n):
        cnt[j] = 0
    for a in range(k):
        i = order[a]
        reach = st[i, L.ST_RNG] if st[i, L.ST_RNG] < vis else vis
        best = -1
        bestv = -1e300
        seen = 0
        for j in range(n):
            if st[j, L.ST_SIDE] == side or not _alive(sh, j):
                continue
            d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z])
            if d < 1 or d > reach:
                continue
            seen += 1
            if code == FIRE_RANDOM:
                if roll_nb(rng, seen) == 1:
                    best = j
                continue
            if code == FIRE_FOCUS_ODDS:
                v = _shot_value_nb(st, sh, i, j, d, cnt[j] > 0, eff_gun, range_tab, band_low, rl) * st[j, L.ST_VAL]
                v *= 1.0 + kn[L.K_FOCUS] * (sh[j, L.SH_G] + sh[j, L.SH_S])
            elif code == FIRE_SPREAD_VALUE:
                v = st[j, L.ST_VAL] - 1000.0 * cnt[j]
                if _shot_value_nb(st, sh, i, j, d, cnt[j] > 0, eff_gun, range_tab, band_low, rl) <= 0.0:
                    v -= 1e6
            else:  # FIRE_NEAREST
                v = -1000.0 * d + st[j, L.ST_VAL]
            if v > bestv:
                bestv = v
                best = j
        if code == FIRE_RANDOM and best >= 0 and roll_nb(rng, seen + 1) == 1:
            best = -1  # holding fire is legal too (5.21)
        if best >= 0:
            sh[i, L.SH_TGT] = best
            cnt[best] += 1
    # secondary batteries (8.41)
    sbr = rl[L.RL_SB_RANGE] if rl[L.RL_SB_RANGE] < vis else vis
    for i in range(n):
        if st[i, L.ST_SIDE] != side or st[i, L.ST_KIND] != CAPITAL or not _alive(sh, i):
            continue
        if damaged_attack_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) <= 0:
            continue
        best = -1
        bestd = 1 << 30
        seen = 0
        for j in range(n):
            if st[j, L.ST_SIDE] == side or st[j, L.ST_KIND] != SCREEN or not _alive(sh, j):
                continue
            d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z])
            if d < 1 or d > sbr:
                continue
            seen += 1
            if code == FIRE_RANDOM:
                if roll_nb(rng, seen) == 1:
                    best = j
            elif d < bestd:
                bestd = d
                best = j
        if code == FIRE_RANDOM and best >= 0 and roll_nb(rng, seen + 1) == 1:
            best = -1
        sh[i, L.SH_SB] = best


# --------------------------------------------------------------------------- torpedo plots
@njit(cache=True)
def _track_score_nb(side, st, sh, n, i, ma, mx, mz, md, row, eff_crt, kn, selective):
    score = 0.0
    direct = 0
    odds = st[i, L.ST_TORP]
    x0 = sh[i, L.SH_X]
    z0 = sh[i, L.SH_Z]
    for j in range(n):
        if not _alive(sh, j):
            continue
        if hex_dist_nb(x0, z0, sh[j, L.SH_X], sh[j, L.SH_Z]) > ma + L.MAXMP:
            continue
        hit = False
        comb = 0
        near = False
        for t in range(1, ma + 1):
            a0x, a0z = _pos_at_nb(sh, j, t - 1)
            a1x, a1z = _pos_at_nb(sh, j, t)
            if (a1x == mx[row, t] and a1z == mz[row, t]) or (
                    a0x == mx[row, t] and a0z == mz[row, t] and a1x == mx[row, t - 1] and a1z == mz[row, t - 1]):
                hit = True
                d = md[row, t]
                f = sh[j, L.SH_F]
                comb = 1 if (f == d or f == (d + 3) % 6) else 0
                break
            if hex_dist_nb(a1x, a1z, mx[row, t], mz[row, t]) == 1:
                near = True
        w = eff_crt[odds, 3 if comb else 0] * st[j, L.ST_VAL]
        if st[j, L.ST_SIDE] != side:
            if hit:
                if selective == 0 or (comb == 0 and st[j, L.ST_KIND] == CAPITAL):
                    score += w
                    direct += 1
            elif near:
                score += kn[L.K_NEAR] * eff_crt[odds, 0] * st[j, L.ST_VAL]
        elif hit:
            score -= 2.0 * w
    return score, direct


@njit(cache=True)
def plot_torpedoes_nb(side, st, sh, n, code, kn, sc, rl, tracks, eff_crt, rng, mx, mz, md):
    """Plot torpedo attacks of one side's screen units (Rules 8.0, 8.21-8.22, 8.31, 8.51).

    Sets ``SH_TTRACK`` (track index, -1 none) and ``SH_TARC`` (STARBOARD/PORT).
    """
    ma = sc[L.SC_TORP_MA]
    nt = tracks.shape[0]
    for i in range(n):
        if st[i, L.ST_SIDE] != side:
            continue
        sh[i, L.SH_TTRACK] = -1
        if st[i, L.ST_TORP] == 0 or not _alive(sh, i) or sh[i, L.SH_TLEFT] <= 0 or sh[i, L.SH_G] >= 2 or ma <= 0:
            continue
        if code == TORP_USE_RANDOM:
            if roll_nb(rng, 2) == 1:
                sh[i, L.SH_TTRACK] = roll_nb(rng, nt) - 1
                sh[i, L.SH_TARC] = roll_nb(rng, 2) - 1
            continue
        # a quick look: any enemy within reach of a marker this turn?
        near = False
        for j in range(n):
            if st[j, L.ST_SIDE] != side and _alive(sh, j) and \
                    hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z]) <= ma + sh[j, L.SH_SPD] + 1:
                near = True
                break
        if not near:
            continue
        selective = 1 if code == TORP_USE_SELECTIVE else 0
        best = -1e300
        bt = -1
        ba = 0
        bdirect = 0
        for arc in range(2):
            for tr in range(nt):
                marker_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], tr, arc, ma, tracks, mx, mz, md, 0)
                s, direct = _track_score_nb(side, st, sh, n, i, ma, mx, mz, md, 0, eff_crt, kn, selective)
                if s > best:
                    best = s
                    bt = tr
                    ba = arc
                    bdirect = direct
        thr = kn[L.K_TORP_MIN]
        if code == TORP_USE_DEFENSIVE:
            thr = thr * 0.5
        if bt >= 0 and best > thr and (selective == 0 or bdirect > 0):
            sh[i, L.SH_TTRACK] = bt
            sh[i, L.SH_TARC] = ba


# --------------------------------------------------------------------------- hold-range
@njit(cache=True)
def preferred_range_nb(side, st, sh, n, vis, eff_gun, range_tab, band_low):
    """The range (hexes) among 2, 4, 8, 12, 16 (at most the visibility) where the side's expected
    damage to the enemy, less the enemy's to it, in ship value, is greatest."""
    best = -1e300
    bestr = 2
    for r in (2, 4, 8, 12, 16):
        if r > vis and r != 2:
            continue
        ex = 0.0
        for s in range(2):
            tot = 0.0
            for i in range(n):
                if st[i, L.ST_SIDE] != (side if s == 0 else 1 - side) or not _alive(sh, i):
                    continue
                if st[i, L.ST_KIND] != CAPITAL or r > st[i, L.ST_RNG]:
                    continue
                a = damaged_attack_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
                stg = range_strength_nb(a, r, range_tab)
                if stg <= 0:
                    continue
                b = band_nb(stg, band_low)
                m = 0.0
                for j in range(n):
                    if st[j, L.ST_SIDE] == st[i, L.ST_SIDE] or not _alive(sh, j):
                        continue
                    dd = st[j, L.ST_DEF] if st[j, L.ST_DEF] < DMAX else DMAX
                    v = eff_gun[b, 2, dd] * st[j, L.ST_VAL]
                    if v > m:
                        m = v
                tot += m
            ex += tot if s == 0 else -tot
        if ex >= best:
            best = ex
            bestr = r
    return bestr


# --------------------------------------------------------------------------- movement plots
@njit(cache=True)
def _add_cand_nb(cand, k, t1, l1, t2, l2, mn, mx, rl, noabout):
    if k >= MAXC:
        return k
    if noabout and (t1 == 3 or t2 == 3):
        return k
    mp = plot_mp_nb(t1, l1, t2, l2, rl)
    if mp < 0 or mp < mn or mp > mx:
        return k
    cand[k, 0] = t1
    cand[k, 1] = l1
    cand[k, 2] = t2
    cand[k, 3] = l2
    cand[k, 4] = mp
    return k + 1


@njit(cache=True)
def candidates_nb(mn, mx, vpref, rl, noabout, cand):
    """A compact set of plots with MP in ``[mn, mx]`` (straight, turns, doglegs, radical turns),
    at the least, the preferred and the greatest speed. Returns their number."""
    k = 0
    c2 = rl[L.RL_TURN2]
    c3 = rl[L.RL_TURN3]
    sp0 = mn
    sp1 = vpref if vpref > mn else mn
    if sp1 > mx:
        sp1 = mx
    for q in range(3):
        v = sp0 if q == 0 else (sp1 if q == 1 else mx)
        if (q == 1 and v == sp0) or (q == 2 and (v == sp0 or v == sp1)):
            continue
        if v == 0:
            k = _add_cand_nb(cand, k, 0, 0, 0, 0, mn, mx, rl, noabout)
            continue
        k = _add_cand_nb(cand, k, 0, v, 0, 0, mn, mx, rl, noabout)
        for s in (1, -1):
            k = _add_cand_nb(cand, k, s, v, 0, 0, mn, mx, rl, noabout)
            k = _add_cand_nb(cand, k, 2 * s, v - c2, 0, 0, mn, mx, rl, noabout)
            for a in (1, v // 2):
                k = _add_cand_nb(cand, k, 0, a, s, v - a, mn, mx, rl, noabout)
                k = _add_cand_nb(cand, k, s, a, s, v - a, mn, mx, rl, noabout)
                k = _add_cand_nb(cand, k, s, a, -s, v - a, mn, mx, rl, noabout)
            h = v - c2
            k = _add_cand_nb(cand, k, 2 * s, h // 2, s, h - h // 2, mn, mx, rl, noabout)
        k = _add_cand_nb(cand, k, 3, v - c3, 0, 0, mn, mx, rl, noabout)
    return k


@njit(cache=True)
def _goal_nb(side, st, sh, n, f, flag, code, kn, sc, rstar, pred, is_cap):
    """The goal of a formation: ``(gx, gz, dstar, gmode)``; gmode 0 keep ``dstar`` from the goal,
    1 open the range from it, 2 make for the exit (gx = target row), -1 no enemy."""
    gmode = 0
    if code == MOVE_OBJECTIVE and sc[L.SC_EXIT] and sc[L.SC_EXIT_SIDE] == side:
        anyexit = False
        for i in range(n):
            if sh[i, L.SH_FORM] == f and _alive(sh, i) and st[i, L.ST_EXIT]:
                anyexit = True
                break
        if anyexit:
            if sc[L.SC_EXIT_R1] < (1 << 39):
                return sc[L.SC_EXIT_R1], 0, 0.0, 2   # north edge: rows up to R1
            return sc[L.SC_EXIT_R0], 1, 0.0, 2       # south edge: rows from R0
    # nearest enemy (capital preferred)
    x0 = sh[flag, L.SH_X]
    z0 = sh[flag, L.SH_Z]
    best = -1
    bestd = 1 << 30
    for pref in range(2):
        for j in range(n):
            if st[j, L.ST_SIDE] == side or not _alive(sh, j):
                continue
            if pref == 0 and st[j, L.ST_KIND] != CAPITAL:
                continue
            d = hex_dist_nb(x0, z0, sh[j, L.SH_X], sh[j, L.SH_Z])
            if d < bestd:
                bestd = d
                best = j
        if best >= 0:
            break
    if best < 0:
        return 0, 0, 0.0, -1
    gx = pred[best, 0]
    gz = pred[best, 1]
    if code == MOVE_BREAK:
        return gx, gz, 0.0, 1
    if code == MOVE_HOLD:
        dstar = float(rstar)
        if not is_cap:
            dstar = dstar + 2.0
        return gx, gz, dstar, gmode
    # close (and objective without an exit)
    if not is_cap:
        torp = False
        for i in range(n):
            if sh[i, L.SH_FORM] == f and _alive(sh, i) and st[i, L.ST_TORP] > 0 and sh[i, L.SH_TLEFT] > 0:
                torp = True
        if torp:
            return gx, gz, kn[L.K_SCREEN_RANGE], gmode
    return gx, gz, kn[L.K_RANGE], gmode


@njit(cache=True)
def _score_nb(ex, ez, ef, mp, gx, gz, dstar, gmode, kn, role, sx, sz):
    if gmode == 2:
        row = row_of_nb(ex, ez)
        if gz == 0:
            dd = row - gx
        else:
            dd = gx - row
        if dd < 0:
            dd = 0
        return -float(dd) + 0.01 * mp
    if gmode < 0:
        return 0.01 * mp
    d = hex_dist_nb(ex, ez, gx, gz)
    if gmode == 1:
        row0 = row_of_nb(sx, sz)
        row1 = row_of_nb(ex, ez)
        prog = float(row0 - row1) if role == ROLE_NORTH else float(row1 - row0)
        s = float(d) + kn[L.K_SAFE] * prog + 0.05 * mp
        if d == 0:
            s -= 5.0
        return s
    s = -abs(float(d) - dstar)
    if arc_nb(ef, gx - ex, gz - ez) != 0:
        s -= kn[L.K_BROADSIDE]
    if d == 0:
        s -= 5.0
    return s + 0.01 * mp


@njit(cache=True)
def _try_plan_nb(st, sh, fm, trail, f, n, t1, l1, t2, l2, mp, sc, rl, px, pz, pf, planned, exit_mp):
    """Lay out formation ``f``'s plot for all members; keep it if every hex is allowed and every
    end position stacks legally. Returns True if kept."""
    flag = fm[f, L.FM_FLAG]
    mode = fm[f, L.FM_MODE]
    plot_path_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], sh[flag, L.SH_F], t1, l1, t2, l2, rl, px, pz, pf, flag)
    ok, em = path_allowed_nb(st, sh, flag, px, pz, flag, mp, sc)
    if not ok:
        return False
    exit_mp[flag] = em
    for i in range(n):
        if i == flag or sh[i, L.SH_FORM] != f or not _alive(sh, i):
            continue
        if mode == COLUMN:
            column_member_path_nb(trail, f, fm[f, L.FM_HEAD], sh[i, L.SH_CUR], mp, px, pz, pf, flag, i)
            exit_mp[i] = L.MAXMP + 1
        else:
            plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], t1, l1, t2, l2, rl, px, pz, pf, i)
            ok, em = path_allowed_nb(st, sh, i, px, pz, i, mp, sc)
            if not ok:
                return False
            exit_mp[i] = em
    # stacking of the end positions, member by member
    ok = True
    for i in range(n):
        if sh[i, L.SH_FORM] != f or not _alive(sh, i):
            continue
        if exit_mp[i] <= L.MAXMP:
            truncate_at_exit_nb(px, pz, pf, i, exit_mp[i])
            continue
        x = px[i, mp]
        z = pz[i, mp]
        fc = pf[i, mp]
        if not stack_ok_nb(st, sh, i, x, z, fc, planned, n, rl):
            ok = False
            break
        sh[i, L.SH_PX] = x
        sh[i, L.SH_PZ] = z
        sh[i, L.SH_PF] = fc
        planned[i] = 1
    if not ok:
        for i in range(n):
            if sh[i, L.SH_FORM] == f:
                planned[i] = 0
        return False
    for i in range(n):
        if sh[i, L.SH_FORM] == f and _alive(sh, i):
            sh[i, L.SH_MP] = mp
            planned[i] = 1
    fm[f, L.FM_T1] = t1
    fm[f, L.FM_L1] = l1
    fm[f, L.FM_T2] = t2
    fm[f, L.FM_L2] = l2
    fm[f, L.FM_MP] = mp
    return True


@njit(cache=True)
def _bounds_nb(st, sh, f, n, rl):
    mn = 0
    mx = 1 << 30
    noabout = 0
    for i in range(n):
        if sh[i, L.SH_FORM] != f or not _alive(sh, i):
            continue
        a, b = speed_bounds_nb(st, sh, i, rl)
        if a > mn:
            mn = a
        if b < mx:
            mx = b
        if st[i, L.ST_NOABOUT]:
            noabout = 1
    return mn, mx, noabout


@njit(cache=True)
def _random_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, rng, stacking):
    mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
    turns = (-2, -1, 0, 1, 2, 3)
    for _ in range(48):
        v = mn + roll_nb(rng, mx - mn + 1) - 1
        if v == 0:
            if _try_plan_nb(st, sh, fm, trail, f, n, 0, 0, 0, 0, 0, sc, rl, px, pz, pf, planned, exit_mp):
                return True
            continue
        t1 = turns[roll_nb(rng, 6) - 1]
        if roll_nb(rng, 2) == 1:
            t2 = 0
            l1 = v - (rl[L.RL_TURN2] if (t1 == 2 or t1 == -2) else (rl[L.RL_TURN3] if t1 == 3 else 0))
            l2 = 0
        else:
            t2 = turns[roll_nb(rng, 6) - 1]
            if t2 == 0:
                t2 = 1
            h = v - (rl[L.RL_TURN2] if (t1 == 2 or t1 == -2) else (rl[L.RL_TURN3] if t1 == 3 else 0)) \
                - (rl[L.RL_TURN2] if (t2 == 2 or t2 == -2) else (rl[L.RL_TURN3] if t2 == 3 else 0))
            if h < 2:
                continue
            l1 = roll_nb(rng, h // 2)
            l2 = h - l1
        if l1 < 0:
            continue
        mp = plot_mp_nb(t1, l1, t2, l2, rl)
        if mp < mn or mp > mx or (noabout and (t1 == 3 or t2 == 3)):
            continue
        if _try_plan_nb(st, sh, fm, trail, f, n, t1, l1, t2, l2, mp, sc, rl, px, pz, pf, planned, exit_mp):
            return True
    return False


@njit(cache=True)
def _fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp):
    """Any legal plot, scanning systematically; else stop where it is (ruling DN-M4)."""
    flag = fm[f, L.FM_FLAG]
    mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
    turns = (0, 1, -1, 2, -2, 3)
    for v in range(mn, mx + 1):
        for t1 in turns:
            for t2 in turns:
                for l1 in range(0 if v == 0 else 1, v + 1):
                    for l2 in range(0, v + 1):
                        mp = plot_mp_nb(t1, l1, t2, l2, rl)
                        if mp != v or (noabout and (t1 == 3 or t2 == 3)):
                            continue
                        if _try_plan_nb(st, sh, fm, trail, f, n, t1, l1, t2, l2, mp, sc, rl, px, pz, pf,
                                        planned, exit_mp):
                            return True
    # nothing legal: the formation stops (ruling DN-M4); the stacking safety net settles the rest
    plot_path_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], sh[flag, L.SH_F], 0, 0, 0, 0, rl, px, pz, pf, flag)
    for i in range(n):
        if sh[i, L.SH_FORM] == f and _alive(sh, i):
            plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], 0, 0, 0, 0, rl, px, pz, pf, i)
            sh[i, L.SH_MP] = 0
            exit_mp[i] = L.MAXMP + 1
            sh[i, L.SH_PX] = sh[i, L.SH_X]
            sh[i, L.SH_PZ] = sh[i, L.SH_Z]
            sh[i, L.SH_PF] = sh[i, L.SH_F]
            planned[i] = 1
    fm[f, L.FM_MP] = 0
    return False


@njit(cache=True)
def maintain_formations_nb(side, st, sh, fm, trail, n, rl, pc, buf):
    """Start of a Movement Plot: drop dead members, detach ships that cannot keep the pace
    (their Movement Allowance below the best of the formation), apply the policy's preferred mode
    where the formation stands in a straight line (Rules 6.24-6.28)."""
    code = pc[L.PC_MOVE]
    pref = pc[L.PC_MODE]
    for f in range(n):
        if fm[f, L.FM_MEMBERS] == 0:
            continue
        flag = fm[f, L.FM_FLAG]
        if flag < 0 or st[flag, L.ST_SIDE] != side:
            continue
        cnt = refresh_formation_nb(st, sh, fm, f, n)
        if cnt == 0:
            continue
        if code == MOVE_RANDOM:
            for i in range(n):
                if sh[i, L.SH_FORM] == f and _alive(sh, i) and fm[f, L.FM_MEMBERS] > 1:
                    detach_nb(sh, fm, i, n)
            continue
        if cnt > 1:
            pace = -1
            for i in range(n):
                if sh[i, L.SH_FORM] == f and _alive(sh, i):
                    a, b = speed_bounds_nb(st, sh, i, rl)
                    if b > pace:
                        pace = b
            for i in range(n):
                if sh[i, L.SH_FORM] == f and _alive(sh, i) and fm[f, L.FM_MEMBERS] > 1:
                    a, b = speed_bounds_nb(st, sh, i, rl)
                    if b < pace or sh[i, L.SH_G] + sh[i, L.SH_S] >= 3:
                        detach_nb(sh, fm, i, n)
            refresh_formation_nb(st, sh, fm, f, n)
        if fm[f, L.FM_MEMBERS] > 1 and pref != fm[f, L.FM_MODE] and pref >= 0:
            if straight_column_nb(sh, f, n, buf) > 0:
                if pref == COLUMN:
                    make_column_nb(sh, fm, trail, f, n)
                else:
                    fm[f, L.FM_MODE] = LINE


@njit(cache=True)
def plot_movement_nb(side, st, sh, fm, trail, n, sc, rl, pc, kn, vis, rstar, pred, px, pz, pf, planned,
                     exit_mp, cand, scores, rng):
    """Plot the movement of one side's formations (Rules 6.0-6.3, 7.0-7.3): paths into
    ``px, pz, pf``, MP into ``SH_MP``, end positions into ``SH_PX/PZ/PF``."""
    code = pc[L.PC_MOVE]
    role = role_of_nb(side, sc)
    for f in range(n):
        if fm[f, L.FM_MEMBERS] == 0:
            continue
        flag = fm[f, L.FM_FLAG]
        if flag < 0 or st[flag, L.ST_SIDE] != side or not _alive(sh, flag) or planned[flag]:
            continue
        if code == MOVE_RANDOM:
            if not _random_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, rng, True):
                _fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp)
            continue
        mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
        is_cap = st[flag, L.ST_KIND] == CAPITAL
        gx, gz, dstar, gmode = _goal_nb(side, st, sh, n, f, flag, code, kn, sc, rstar, pred, is_cap)
        vpref = mx
        if code == MOVE_HOLD and gmode == 0:
            d0 = hex_dist_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], gx, gz)
            if abs(float(d0) - dstar) <= 1.0:
                vpref = (mn + mx) // 2
        k = candidates_nb(mn, mx, vpref, rl, noabout, cand)
        sx = sh[flag, L.SH_X]
        sz = sh[flag, L.SH_Z]
        sf = sh[flag, L.SH_F]
        for c in range(k):
            ex, ez, ef = plot_end_nb(sx, sz, sf, cand[c, 0], cand[c, 1], cand[c, 2], cand[c, 3])
            scores[c] = _score_nb(ex, ez, ef, cand[c, 4], gx, gz, dstar, gmode, kn, role, sx, sz)
        done = False
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
            if _try_plan_nb(st, sh, fm, trail, f, n, cand[b, 0], cand[b, 1], cand[b, 2], cand[b, 3], cand[b, 4],
                            sc, rl, px, pz, pf, planned, exit_mp):
                done = True
                break
        if not done:
            if fm[f, L.FM_MEMBERS] > 1:
                # break the formation up and let each ship find its own way (6.27)
                for i in range(n):
                    if sh[i, L.SH_FORM] == f and _alive(sh, i) and i != flag:
                        g = detach_nb(sh, fm, i, n)
                        if not _random_plot_nb(st, sh, fm, trail, g, n, sc, rl, px, pz, pf, planned, exit_mp, rng, True):
                            _fallback_plot_nb(st, sh, fm, trail, g, n, sc, rl, px, pz, pf, planned, exit_mp)
                refresh_formation_nb(st, sh, fm, f, n)
            if not _random_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, rng, True):
                _fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp)

