"""Scripted movement plots (Rules 6-7, 9.13-9.15, 9.41; optional rule 12.1): formations, the
candidate plots of each formation and unit, their scores, and smoke laying.

A side's movement code (``MOVE_*``) and knobs (layout ``K_*``):

* close (``close-and-engage``): capital formations in column close to ``K_RANGE`` hexes of the
  nearest enemy capital ship, broadside on; screens run in to torpedo range;
* hold (``hold-range``): keep the range band where the side's expected damage exchange is best
  (:func:`..policies.fire.preferred_range_nb`), broadside on;
* break (``break-contact``): turn away together (line abreast when possible) and run for the own
  safe zone, opening the range from the nearest enemy;
* objective (``make-for-objective``): where the scenario gives the side an exit, steer for it;
  otherwise as close;
* withdraw (campaign, 9.41): set by :func:`withdraw_check_nb` when the side's losses pass its
  threshold;
* random (``random-legal``): formations divide, change mode and flagship, merge and rejoin on
  coin flips (:func:`random_formations_nb`), and each moves on a random legal plot.

Every plot is checked by the rules (:mod:`..kernels.movement`) before it is kept; a unit left
without one stays where it is (:func:`fallback_plot_nb`).
"""

from __future__ import annotations

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    AFLOAT,
    CAPITAL,
    COLUMN,
    MOVE_BREAK,
    MOVE_HOLD,
    MOVE_OBJECTIVE,
    MOVE_RANDOM,
    MOVE_WITHDRAW,
    ROLE_NORTH,
    TYPE_DD,
)
from ..kernels.contact import on_initial_map_nb
from ..kernels.damage import by_damage_nb, wrecked_nb
from ..kernels.formations import (
    column_member_path_nb,
    detach_nb,
    leg2_column_ok_nb,
    leg2_member_path_nb,
    refresh_formation_nb,
)
from ..kernels.geometry import arc_nb, hex_dist_nb, row_of_nb
from ..kernels.movement import (
    in_exit_nb,
    in_own_safe_zone_nb,
    path_allowed_nb,
    plot_end_nb,
    plot_mp_nb,
    plot_path_nb,
    role_of_nb,
    stack_ok_nb,
    truncate_at_exit_nb,
    turn_cost_nb,
)
from .bundles import MW_KEYS, MW_LST, MW_MEM, Goal
from .fire import unit_lists_nb
from .formation_plans import _bounds_nb
from .knowledge import alive_nb

MAXC = 256
@kernel(error_model="numpy", no_cpython_wrapper=True)
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


@kernel(error_model="numpy")
def candidates_nb(mn, mx, vpref, rl, noabout, cand, all_speeds):
    """A compact set of plots with MP in ``[mn, mx]`` (straight, turns, doglegs, radical turns),
    at the preferred speed, and also at the least and the greatest when ``all_speeds``.
    Returns their number."""
    k = 0
    c2 = rl[L.RL_TURN2]
    c3 = rl[L.RL_TURN3]
    sp0 = mn
    sp1 = vpref if vpref > mn else mn
    if sp1 > mx:
        sp1 = mx
    for q in range(3):
        v = sp0 if q == 0 else (sp1 if q == 1 else mx)
        if (q == 1 and all_speeds and v == sp0) or (q == 2 and (v == sp0 or v == sp1)):
            continue
        if not all_speeds and q != 1:
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


@kernel(error_model="numpy", no_cpython_wrapper=True)
def goal_nb(side, bd, n, f, flag, code, kn, rstar, pred, is_cap, lst):
    """The goal of a formation: ``(gx, gz, gf, dstar, gmode)`` (the fields of :class:`.bundles.Goal`); gmode
    0 keep ``dstar`` from the goal (whose facing is ``gf``), 1 open the range from it and run for
    the safe zone, 2 make for the exit (gx = target row, gz = 0 north edge, 1 south edge), 3 open
    the range and stay in the disputed zone (campaign withdrawal), -1 no enemy. ``bd``: the
    :class:`.bundles.MoveBoard` (``st``, ``sh``, ``sc`` read); ``kn`` ``float64[NKN]`` the side's knobs;
    ``rstar`` the hold-range range (hexes); ``pred`` ``int64[n, 2]`` the predicted positions;
    ``lst`` (``int64[2, n + 1]``): ``side``'s enemies and own units afloat, in index order
    (:func:`..policies.fire.unit_lists_nb`)."""
    st = bd.st
    sh = bd.sh
    sc = bd.sc
    gmode = 0
    if code == MOVE_OBJECTIVE and sc[L.SC_EXIT] and sc[L.SC_EXIT_SIDE] == side:
        anyexit = False
        for i in range(n):
            if sh[i, L.SH_FORM] == f and alive_nb(sh, i) and st[i, L.ST_EXIT]:
                anyexit = True
                break
        if anyexit:
            if sc[L.SC_EXIT_R1] < (1 << 39):
                return sc[L.SC_EXIT_R1], 0, 0, 0.0, 2   # north edge: rows up to R1
            return sc[L.SC_EXIT_R0], 1, 0, 0.0, 2       # south edge: rows from R0
    # nearest enemy: under MOVE_OBJECTIVE a named ship of the victory conditions first (10.x);
    # then a capital ship that is not a wreck, any unit that is not, any unit (a wreck can still
    # be sunk, but it neither fires nor runs: 5.43)
    x0 = sh[flag, L.SH_X]
    z0 = sh[flag, L.SH_Z]
    best = -1
    bestd = 1 << 30
    for pref in range(4):
        if pref == 0 and code != MOVE_OBJECTIVE:
            continue
        for e in range(lst[0, 0]):
            j = lst[0, e + 1]
            if pref == 0 and (st[j, L.ST_NAMED] == 0 or wrecked_nb(sh, j)):
                continue
            if pref == 1 and (st[j, L.ST_KIND] != CAPITAL or wrecked_nb(sh, j)):
                continue
            if pref == 2 and wrecked_nb(sh, j):
                continue
            d = hex_dist_nb(x0, z0, sh[j, L.SH_X], sh[j, L.SH_Z])
            if d < bestd:
                bestd = d
                best = j
        if best >= 0:
            break
    if best < 0:
        return 0, 0, 0, 0.0, -1
    gx = pred[best, 0]
    gz = pred[best, 1]
    gf = sh[best, L.SH_F]
    if code == MOVE_BREAK:
        return gx, gz, gf, 0.0, 1
    if code == MOVE_WITHDRAW:
        return gx, gz, gf, 0.0, 3
    if code == MOVE_HOLD:
        dstar = float(rstar)
        if not is_cap:
            dstar = dstar + 2.0
        return gx, gz, gf, dstar, gmode
    # close (and objective without an exit)
    if not is_cap:
        # screens attack together with their battle line: while no friendly capital ship is within
        # K_SUPPORT hexes of the target, they keep station two hexes from the nearest one
        sup = -1
        supd = 1 << 30
        for e in range(lst[1, 0]):
            i = lst[1, e + 1]
            if st[i, L.ST_KIND] == CAPITAL:
                d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[best, L.SH_X], sh[best, L.SH_Z])
                if d < supd:
                    supd = d
                    sup = i
        if sup >= 0 and supd > kn[L.K_SUPPORT]:
            return pred[sup, 0], pred[sup, 1], sh[sup, L.SH_F], 2.0, gmode
        torp = False
        for e in range(lst[1, 0]):
            i = lst[1, e + 1]
            if sh[i, L.SH_FORM] == f and st[i, L.ST_TORP] > 0 and sh[i, L.SH_TLEFT] > 0:
                torp = True
                break
        if torp:
            return gx, gz, gf, kn[L.K_SCREEN_RANGE], gmode
    return gx, gz, gf, kn[L.K_RANGE], gmode


@kernel(error_model="numpy", no_cpython_wrapper=True)
def score_nb(ex, ez, ef, mp, turnmp, goal, kn, role, sx, sz):
    """The score of a candidate plot ending at hex ``(ex, ez)`` facing ``ef`` after ``mp`` MP, of
    which ``turnmp`` spent turning, started from ``(sx, sz)``, for the formation's :class:`.bundles.Goal`
    ``goal``; ``kn`` ``float64[NKN]`` the side's knobs (``K_SPEED``, ``K_TURNCOST``, ``K_RUN_SPEED``,
    ``K_SAFE``, ``K_ON_GOAL``, ``K_BROADSIDE``, ``K_PARALLEL``); ``role`` the side's ``ROLE_*``."""
    gx = goal.x
    gz = goal.z
    gf = goal.f
    dstar = goal.dstar
    gmode = goal.mode
    if gmode == 2:
        row = row_of_nb(ex, ez)
        if gz == 0:
            dd = row - gx
        else:
            dd = gx - row
        if dd < 0:
            dd = 0
        return -float(dd) + kn[L.K_SPEED] * mp
    if gmode < 0:
        return kn[L.K_SPEED] * mp
    d = hex_dist_nb(ex, ez, gx, gz)
    tc = kn[L.K_TURNCOST] * turnmp
    if gmode == 3:
        # withdraw (campaign): open the range without running for the safe zone
        s = float(d) + kn[L.K_RUN_SPEED] * mp - tc
        if d == 0:
            s -= kn[L.K_ON_GOAL]
        return s
    if gmode == 1:
        row0 = row_of_nb(sx, sz)
        row1 = row_of_nb(ex, ez)
        prog = float(row0 - row1) if role == ROLE_NORTH else float(row1 - row0)
        s = float(d) + kn[L.K_SAFE] * prog + kn[L.K_RUN_SPEED] * mp - tc
        if d == 0:
            s -= kn[L.K_ON_GOAL]
        return s
    off = abs(float(d) - dstar)
    s = -off
    if arc_nb(ef, gx - ex, gz - ez) != 0:
        s -= kn[L.K_BROADSIDE]
    if off <= 1.0:
        # at the range wanted: steam parallel to the target, which keeps the range (no dancing)
        df = (ef - gf) % 6
        if df > 3:
            df = 6 - df
        s -= kn[L.K_PARALLEL] * df
    if d == 0:
        s -= kn[L.K_ON_GOAL]
    return s + kn[L.K_SPEED] * mp - tc


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _own_track_hit_nb(st, i, mp, emp, px, pz, sc, tk):
    """Would unit ``i``, moving along ``px, pz[i]`` for ``mp`` MP, meet a Torpedo Marker of its own
    side placed this Movement Phase? ``tk``: the :class:`.bundles.PlotWork` (``nmark``, ``mx``, ``mz``,
    ``owner`` read)."""
    nm = tk.nmark[0]
    if nm == 0:
        return False
    mx = tk.mx
    mz = tk.mz
    owner = tk.owner
    ma = sc[L.SC_TORP_MA]
    side = st[i, L.ST_SIDE]
    for m in range(nm):
        if st[owner[m], L.ST_SIDE] != side:
            continue
        for t in range(1, ma + 1):
            if emp < t:
                break
            t0 = t - 1 if t - 1 < mp else mp
            t1 = t if t < mp else mp
            if (px[i, t1] == mx[m, t] and pz[i, t1] == mz[m, t]) or (
                    px[i, t0] == mx[m, t] and pz[i, t0] == mz[m, t] and px[i, t1] == mx[m, t - 1]
                    and pz[i, t1] == mz[m, t - 1]):
                return True
    return False


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _hex_key_nb(x, z):
    """A hex's key for :func:`quick_stack_ok_nb` (one-to-one on the map's cube coordinates)."""
    return (x << 32) ^ (z & 0xFFFFFFFF)


@kernel(error_model="numpy")
def stack_keys_nb(st, sh, side, n, planned, keys):
    """The hexes :func:`..kernels.movement.stack_ok_nb` looks at for a unit of ``side``, one key
    per unit (``int64[n]``, written): an enemy in play where it stands, an own unit in play and
    planned where it plans to end (``SH_PX``, ``SH_PZ``), any other unit a key of its own."""
    for j in range(n):
        if sh[j, L.SH_STATUS] != AFLOAT:
            keys[j] = -1 - j
        elif st[j, L.ST_SIDE] != side:
            keys[j] = _hex_key_nb(sh[j, L.SH_X], sh[j, L.SH_Z])
        elif planned[j] != 0:
            keys[j] = _hex_key_nb(sh[j, L.SH_PX], sh[j, L.SH_PZ])
        else:
            keys[j] = -1 - j


@kernel(error_model="numpy")
def quick_stack_ok_nb(st, sh, i, x, z, f, planned, n, rl, keys, quick):
    """:func:`..kernels.movement.stack_ok_nb`, answered at once when ``quick`` and no other unit's
    key in ``keys`` (:func:`stack_keys_nb`, a superset of the hexes that count: a stale key only
    sends the question to the full scan) is hex ``(x, z)``'s: unit ``i`` is then alone there."""
    if quick and rl[L.RL_STACK] >= 1:
        k = _hex_key_nb(x, z)
        c = 0
        for j in range(n):
            c += 1 if keys[j] == k else 0
        if keys[i] == k:
            c -= 1
        if c == 0:
            return True
    return stack_ok_nb(st, sh, i, x, z, f, planned, n, rl)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _try_plan_nb(bd, f, n, t1, l1, t2, l2, mp, pl, tk, quick):
    """Lay out formation ``f``'s plot (turn ``t1`` after ``l1`` hexes, ``t2`` after ``l2``, ``mp``
    MP) for all members; keep it if every hex is allowed and every end position stacks legally.
    Returns True if kept. ``bd``: the :class:`.bundles.MoveBoard`; ``pl``: the :class:`.bundles.Plots`, written;
    ``tk``: the :class:`.bundles.PlotWork`, whose ``mw[MW_MEM]`` is scratch (the members) and
    ``mw[MW_KEYS]`` the stacking keys (:func:`stack_keys_nb`, kept a superset here when ``quick``;
    not read otherwise)."""
    st = bd.st
    sh = bd.sh
    fm = bd.fm
    trail = bd.trail
    sc = bd.sc
    rl = bd.rl
    px = pl.px
    pz = pl.pz
    pf = pl.pf
    planned = pl.planned
    exit_mp = pl.exit_mp
    flag = fm[f, L.FM_FLAG]
    mode = fm[f, L.FM_MODE]
    # the live members in index order (nothing below changes who they are)
    mem = tk.mw[MW_MEM]
    keys = tk.mw[MW_KEYS]
    nm = 0
    for i in range(n):
        if sh[i, L.SH_FORM] == f and alive_nb(sh, i):
            mem[nm] = i
            nm += 1
    # the flagship's path first: column members take theirs from it
    plot_path_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], sh[flag, L.SH_F], t1, l1, t2, l2, rl, px, pz, pf, flag)
    for q in range(nm):
        i = mem[q]
        if i != flag:
            if mode == COLUMN:
                column_member_path_nb(trail, f, fm[f, L.FM_HEAD], sh[i, L.SH_CUR], mp, px, pz, pf, flag, i)
            else:
                plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], t1, l1, t2, l2, rl, px, pz, pf, i)
    # 6.24: a line abreast formation wanting column (FM_LEG2C 1) makes its second leg in column
    # where its ships then stand directly behind the flagship
    leg2 = False
    if mode != COLUMN and fm[f, L.FM_LEG2C] >= 1 and t2 != 0 and l1 >= 1:
        m1 = turn_cost_nb(t1, rl) + l1
        if leg2_column_ok_nb(sh, f, n, flag, m1, px, pz, pf) >= 0:
            leg2 = True
            for q in range(nm):
                i = mem[q]
                if i != flag:
                    leg2_member_path_nb(flag, m1, mp, px, pz, pf, i)
    for q in range(nm):
        i = mem[q]
        ok, em = path_allowed_nb(st, sh, i, px, pz, i, mp, sc)
        if not ok:
            return False
        exit_mp[i] = em
    # no member steers into its own side's torpedoes (the side knows its plots)
    for q in range(nm):
        i = mem[q]
        if _own_track_hit_nb(st, i, mp, exit_mp[i], px, pz, sc, tk):
            return False
    # stacking of the end positions, member by member
    ok = True
    for q in range(nm):
        i = mem[q]
        if exit_mp[i] <= L.MAXMP:
            truncate_at_exit_nb(px, pz, pf, i, exit_mp[i])
            continue
        x = px[i, mp]
        z = pz[i, mp]
        fc = pf[i, mp]
        if not quick_stack_ok_nb(st, sh, i, x, z, fc, planned, n, rl, keys, quick):
            ok = False
            break
        sh[i, L.SH_PX] = x
        sh[i, L.SH_PZ] = z
        sh[i, L.SH_PF] = fc
        planned[i] = 1
        if quick:
            keys[i] = _hex_key_nb(x, z)
    if not ok:
        for i in range(n):
            if sh[i, L.SH_FORM] == f:
                planned[i] = 0
        return False
    for q in range(nm):
        i = mem[q]
        sh[i, L.SH_MP] = mp
        planned[i] = 1
    fm[f, L.FM_T1] = t1
    fm[f, L.FM_L1] = l1
    fm[f, L.FM_T2] = t2
    fm[f, L.FM_L2] = l2
    fm[f, L.FM_MP] = mp
    if leg2:
        for q in range(nm):
            if exit_mp[mem[q]] <= L.MAXMP:
                leg2 = False
    fm[f, L.FM_LEG2C] = 2 if leg2 else 0
    fm[f, L.FM_M1] = turn_cost_nb(t1, rl) + l1 if leg2 else 0
    return True



@kernel(error_model="numpy", no_cpython_wrapper=True)
def _random_plot_nb(bd, f, n, pl, rng, tk):
    """A random legal plot for formation ``f`` (the random-legal policy; up to 48 draws from the
    stream ``rng``): True if one was kept (:func:`_try_plan_nb`; ``bd``, ``pl``, ``tk`` as there)."""
    st = bd.st
    sh = bd.sh
    rl = bd.rl
    mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
    if mx < mn:     # no speed all members may make (can_join_nb keeps this from happening)
        return False
    turns = (-2, -1, 0, 1, 2, 3)
    for _ in range(48):
        v = mn + roll_nb(rng, mx - mn + 1) - 1
        if v == 0:
            if _try_plan_nb(bd, f, n, 0, 0, 0, 0, 0, pl, tk, False):
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
        if _try_plan_nb(bd, f, n, t1, l1, t2, l2, mp, pl, tk, False):
            return True
    return False


@kernel(error_model="numpy", no_cpython_wrapper=True)
def fallback_plot_nb(bd, f, n, pl, tk):
    """Any legal plot for formation ``f``, scanning systematically; else stop where it is (ruling
    DN-M4). ``bd``, ``pl``, ``tk`` as :func:`_try_plan_nb`. Returns True if a plot was kept."""
    st = bd.st
    sh = bd.sh
    fm = bd.fm
    rl = bd.rl
    px = pl.px
    pz = pl.pz
    pf = pl.pf
    planned = pl.planned
    exit_mp = pl.exit_mp
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
                        if _try_plan_nb(bd, f, n, t1, l1, t2, l2, mp, pl, tk, False):
                            return True
    # nothing legal: the formation stops (ruling DN-M4); the stacking safety net settles the rest
    plot_path_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], sh[flag, L.SH_F], 0, 0, 0, 0, rl, px, pz, pf, flag)
    for i in range(n):
        if sh[i, L.SH_FORM] == f and alive_nb(sh, i):
            stay_plot_nb(sh, i, rl, px, pz, pf, planned, exit_mp)
    fm[f, L.FM_MP] = 0
    return False


@kernel(error_model="numpy", no_cpython_wrapper=True)
def plan_best_nb(bd, f, flag, n, cand, scores, k, pl, tk):
    """Try formation ``f``'s candidate plots ``cand[:k]`` (t1, l1, t2, l2, mp, end x, z, facing)
    best score first until one is legal (:func:`_try_plan_nb`; ``bd``, ``pl``, ``tk`` as there);
    ``scores`` is used up. A cheap look at the flagship ``flag``'s end hex comes first (most
    refusals are stacking there). Returns True if one was kept. The stacking looks start from the
    keys of :func:`stack_keys_nb` (``tk.mw[MW_KEYS]``): only :func:`_try_plan_nb` plans anything
    while this runs, and it keeps them a superset."""
    st = bd.st
    sh = bd.sh
    sc = bd.sc
    rl = bd.rl
    planned = pl.planned
    keys = tk.mw[MW_KEYS]
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
        if not in_exit_nb(st, flag, cand[b, 5], cand[b, 6], sc) and \
                not quick_stack_ok_nb(st, sh, flag, cand[b, 5], cand[b, 6], cand[b, 7], planned, n, rl, keys, True):
            continue
        if _try_plan_nb(bd, f, n, cand[b, 0], cand[b, 1], cand[b, 2], cand[b, 3], cand[b, 4], pl, tk, True):
            return True
    return False


@kernel(error_model="numpy", no_cpython_wrapper=True)
def plot_movement_nb(side, bd, n, pc, kn, vis, rstar, pred, pl, rng, tk, dy):
    """Plot the movement of one side's formations (Rules 6.0-6.3, 7.0-7.3): paths into
    ``pl`` (:class:`.bundles.Plots`), MP into ``SH_MP``, end positions into ``SH_PX/PZ/PF``. A withdrawing
    side (campaign) keeps out of its safe zone (9.15) and, as North in scenarios B and C, on the
    initial Map Area until the South leaves it (11.3, 11.4).

    ``bd``: the :class:`.bundles.MoveBoard`; ``pc`` ``int64[NPC]``, ``kn`` ``float64[NKN]``: the side's
    policy codes and knobs; ``vis``: visibility (hexes); ``rstar``: the hold-range range (hexes);
    ``pred`` ``int64[n, 2]``: the predicted positions; ``rng``: the stream; ``tk``: the
    :class:`.bundles.PlotWork` (the Torpedo Markers of this Movement Phase, the candidate plots, and the
    work rows: members and stacking keys of :func:`_try_plan_nb`, then the side's unit lists,
    :func:`goal_nb`); ``dy`` ``int64[NDY]``: the scenario's running state."""
    st = bd.st
    sh = bd.sh
    fm = bd.fm
    sc = bd.sc
    rl = bd.rl
    planned = pl.planned
    cand = tk.cand
    scores = tk.scores
    code = pc[L.PC_MOVE]
    role = role_of_nb(side, sc)
    lst = tk.mw[MW_LST:MW_LST + 2]
    unit_lists_nb(side, st, sh, n, lst)     # nobody sinks or leaves during a plot
    # units that cannot move plot first, so that nobody plans to end in their hex
    for pass_ in range(2):
        for f in range(n):
            if fm[f, L.FM_MEMBERS] == 0:
                continue
            flag = fm[f, L.FM_FLAG]
            if flag < 0 or st[flag, L.ST_SIDE] != side or not alive_nb(sh, flag) or planned[flag]:
                continue
            if pass_ == 0 and _bounds_nb(st, sh, f, n, rl)[1] > 0:
                continue
            if code == MOVE_RANDOM:
                if not _random_plot_nb(bd, f, n, pl, rng, tk):
                    fallback_plot_nb(bd, f, n, pl, tk)
                continue
            # 6.24: a line abreast formation of a side preferring column asks for its second leg in column
            fm[f, L.FM_LEG2C] = 1 if (fm[f, L.FM_MODE] != COLUMN and pc[L.PC_MODE] == COLUMN
                                      and fm[f, L.FM_MEMBERS] > 1) else 0
            mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
            is_cap = st[flag, L.ST_KIND] == CAPITAL
            gx, gz, gf, dstar, gmode = goal_nb(side, bd, n, f, flag, code, kn, rstar, pred, is_cap, lst)
            goal = Goal(gx, gz, gf, dstar, gmode)
            vpref = mx
            if code == MOVE_HOLD and gmode == 0:
                d0 = hex_dist_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], gx, gz)
                if abs(float(d0) - dstar) <= 1.0:
                    vpref = (mn + mx) // 2
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
                scores[c] = score_nb(ex, ez, ef, cand[c, 4], turnmp, goal, kn, role, sx, sz)
                if gmode == 3:
                    scores[c] -= withdraw_penalty_nb(side, ex, ez, sc, dy)
            done = plan_best_nb(bd, f, flag, n, cand, scores, k, pl, tk)
            if not done:
                if fm[f, L.FM_MEMBERS] > 1:
                    # break the formation up and let each ship find its own way (6.27)
                    for i in range(n):
                        if sh[i, L.SH_FORM] == f and alive_nb(sh, i) and i != flag:
                            g = detach_nb(sh, fm, i, n)
                            if not _random_plot_nb(bd, g, n, pl, rng, tk):
                                fallback_plot_nb(bd, g, n, pl, tk)
                    refresh_formation_nb(sh, fm, f, n)
                if not _random_plot_nb(bd, f, n, pl, rng, tk):
                    fallback_plot_nb(bd, f, n, pl, tk)

    # ==================================================================================================
    # the game loop (Rule 4.1)
    # ==================================================================================================
    # The whole-game kernel of Dreadnought: a batch of complete scenarios in one numba call.
    #
    # :func:`play_batch_nb` plays one game per seed; each game follows the Sequence of Play (Rule 4.1)
    # turn by turn:
    #
    # 1. Visibility: base + one die (5.71); sighting: any two opposing units in play within it.
    # 2. Fire Plot: both sides plot gunfire, secondary batteries and torpedo attacks (5.1, 8.0, 8.4).
    # 3. Fire Execution: every plotted shot is resolved; results apply at the end of the phase (5.0).
    # 4. Movement Plot: formations and units plot (6.0-6.2, 7.0).
    # 5. Movement Execution: all move MP by MP with the Torpedo Markers (8.0); torpedo results apply
    #    when movement ends; then exits, safe zones (9.15), collisions and stacking (6.13, 6.31-6.33).
    # 6. Damage Control (5.43-5.44).
    #
    # A scenario ends after its last Game-Turn, after three consecutive Game-Turns without sighting once
    # contact has been made (9.42, ruling DN-E2), when a side has no unit left in play, or when an
    # objective that decides it is met (10.4). Results per game go to ``out`` (layout ``O_*``), shots
    # to ``ev`` when asked (layout ``E_*``).
    # every unit in play has a plot (a formation whose flagship was planned elsewhere cannot
    # strand a member): anything left stops where it is
    for i in range(n):
        if st[i, L.ST_SIDE] == side and alive_nb(sh, i) and planned[i] == 0:
            g = detach_nb(sh, fm, i, n)
            fallback_plot_nb(bd, g, n, pl, tk)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def stay_plot_nb(sh, i, rl, px, pz, pf, planned, exit_mp):
    """Unit ``i`` spends no MP this Movement Phase (its plot and planned end: where it is)."""
    plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], 0, 0, 0, 0, rl, px, pz, pf, i)
    sh[i, L.SH_MP] = 0
    exit_mp[i] = L.MAXMP + 1
    sh[i, L.SH_PX] = sh[i, L.SH_X]
    sh[i, L.SH_PZ] = sh[i, L.SH_Z]
    sh[i, L.SH_PF] = sh[i, L.SH_F]
    planned[i] = 1


@kernel(error_model="numpy")
def plot_smoke_nb(side, st, sh, n, pc, rng):
    """Which of ``side``'s DD units make smoke this Movement Phase (policy; Rule 12.11, 12.14)?

    By the side's policy codes ``pc`` (``int64[NPC]``): ``PC_SMOKE`` 0, a withdrawing or
    breaking-off side's destroyers make smoke, and so does a destroyer within three hexes of a
    friendly capital ship with two or more damage steps; 1 never; 2 every DD unit every Game-Turn
    (12.14). ``random-legal`` (``MOVE_RANDOM``): a coin flip for each.
    """
    code = pc[L.PC_MOVE]
    how = pc[L.PC_SMOKE]
    for i in range(n):
        if st[i, L.ST_SIDE] != side or st[i, L.ST_TYPE] != TYPE_DD:
            continue
        sh[i, L.SH_SMOKE] = 0
        if not alive_nb(sh, i):
            continue
        if code == MOVE_RANDOM:
            s = roll_nb(rng, 2) == 1
        elif how != 0:
            s = how == 2
        else:
            s = code == MOVE_BREAK or code == MOVE_WITHDRAW
            if not s:
                for c in range(n):
                    if st[c, L.ST_SIDE] == side and st[c, L.ST_KIND] == CAPITAL and alive_nb(sh, c) and \
                            sh[c, L.SH_G] + sh[c, L.SH_S] >= 2 and \
                            hex_dist_nb(sh[c, L.SH_X], sh[c, L.SH_Z], sh[i, L.SH_X], sh[i, L.SH_Z]) <= 3:
                        s = True
                        break
        if s:
            sh[i, L.SH_SMOKE] = 1


@kernel(error_model="numpy")
def withdraw_check_nb(side, st, sh, n, kn, dy):
    """Campaign (9.41: a player persists only while the action is to his benefit): ``side``
    withdraws, for the rest of the scenario, once the Attack Strength it has in play falls below
    ``K_WITHDRAW`` times the enemy's. Returns whether it withdraws."""
    if dy[L.DY_WITHDRAW0 + side]:
        return True
    thr = kn[L.K_WITHDRAW]
    if thr <= 0.0:
        return False
    own = 0
    en = 0
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
        if st[i, L.ST_SIDE] == side:
            own += a
        else:
            en += a
    if en > 0 and own < thr * en:
        dy[L.DY_WITHDRAW0 + side] = 1
        return True
    return False


@kernel(error_model="numpy")
def withdraw_penalty_nb(side, ex, ez, sc, dy):
    """Penalty of a withdrawing plot's end hex: in the own safe zone (it would cause the end,
    9.15), or off the initial Map Area for the North in scenarios B and C while the South is
    still on it (11.3-11.4)."""
    pen = 0.0
    if in_own_safe_zone_nb(side, ex, ez, sc):
        pen += 100.0
    if sc[L.SC_NORTH_STAY] and role_of_nb(side, sc) == ROLE_NORTH and \
            dy[L.DY_OFF_TURN0 + 1 - side] >= L.NEVER and not on_initial_map_nb(ex, ez, sc):
        pen += 100.0
    return pen
