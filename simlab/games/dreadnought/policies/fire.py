"""Scripted fire plots (Rules 5.3-5.31, 5.6, 8.41; optional rules 12.1, 12.21-12.22, 12.5): each
ship's target by the side's fire-allocation code (``FIRE_*``) and knobs (layout ``K_*``), and the
hold-range preferred range.

* focus by odds (``FIRE_FOCUS_ODDS``): each ship, strongest first, takes the target where its
  shot adds most: the Victory Points the shot is expected to add given what the target may
  already suffer this phase (its damage state and the shots plotted at it before, Rules 5.42,
  5.44, 9.52-9.54: a step the target will repair is worth 1 VP, a wreck 80% and a sinking 100% of
  its value), plus ``K_THREAT`` times the fire the target is expected to lose (G steps, a
  sinking), plus ``K_SUPPRESS`` times what the -2 of Rule 5.6 costs an unengaged target's own
  fire, plus ``K_CONCENTRATE`` VP per ship already on it (negative spreads), plus ``K_OBJECTIVE``
  VP when it is a named ship of the victory conditions (10.1, 10.2, 10.3) and not yet a wreck;
* spread by value (``FIRE_SPREAD_VALUE``): unengaged targets first, the most VP still to win
  first (a wreck's is only its sinking);
* nearest (``FIRE_NEAREST``): the nearest target that is not a wreck, else the nearest;
* random (``FIRE_RANDOM``): a random target in reach, or hold fire.

With ``K_WRECKS`` 0 the first three never fire at a wreck (2G, 2S: only a sinking can still
score, 5.43; they hold fire instead, 5.21); with 1 a wreck is a target only when no other is in
reach.

Of several ships on one target the plot designates the unhalved one (Rule 5.31, ruling DN-F1):
the one that makes the attacks' expected result greatest (:func:`designate_nb`); at random under
``FIRE_RANDOM``.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    AFLOAT,
    CAPITAL,
    FIRE_FOCUS_ODDS,
    FIRE_NEAREST,
    FIRE_RANDOM,
    FIRE_SPREAD_VALUE,
    RES_E_SUNK,
    ROLE_SOUTH,
    SCEN_B,
    SCREEN,
)
from ..kernels.damage import by_damage_nb, ship_award_nb, wrecked_nb
from ..kernels.fire import RES_G, RES_S, band_nb, range_strength_nb
from ..kernels.geometry import arc_nb, hex_dist_nb
from ..kernels.movement import role_of_nb
from ..kernels.visibility import (
    NO_FIRE,
    beyond_visibility_nb,
    fire_mod_nb,
    fire_options_on_nb,
    smoke_blocks_nb,
)
from ..rules import RuleTables
from .bundles import FirePlotScratch, Gains, GunTables, PickScratch, Sight
from .knowledge import alive_nb

DMAX = 64
#: damage-control counts (SH_DC 0 .. DC_ROWS - 1) whose present-state gains are remembered (pure_gain_nb)
DC_ROWS = 4


def _next_state_table():
    """``NEXT_STATE[k, c]``: :func:`state_after_nb` of state ``k`` (0..9) and CRT result ``c`` (0..10),
    read by :func:`gain_nb` (a table look-up instead of the arithmetic)."""
    t = np.zeros((10, 11), dtype=np.int64)
    for k in range(10):
        for c in range(11):
            if c == RES_E_SUNK:
                t[k, c] = 9
            else:
                g1 = min(k // 3 + int(RES_G[c]), 2)
                s1 = min(k % 3 + int(RES_S[c]), 2)
                t[k, c] = g1 * 3 + s1
    return t


NEXT_STATE = _next_state_table()


@kernel(error_model="numpy", no_cpython_wrapper=True)
def shot_terms_nb(st, sh, i, j, d, halved, range_tab, band_low, rl, extra, upon):
    """The DPT column and roll penalty of unit ``i``'s main-battery shot at ``j`` from ``d`` hexes
    (Rules 5.31, 5.5, 5.6, 7.1; the optional rules' modifier ``extra``): ``(band, penalty)``,
    band -1 when the modified strength is zero. ``upon`` 1 counts the -2 of 5.6, 0 not, -1 when
    ``j`` can fire and reach ``i`` (it is then expected to fire back)."""
    b = shot_band_nb(st, sh, i, d, halved, range_tab, band_low)
    if b < 0:
        return -1, 0
    return b, shot_penalty_nb(st, sh, i, j, d, rl, extra, upon)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def shot_band_nb(st, sh, i, d, halved, range_tab, band_low):
    """The DPT column of unit ``i``'s main-battery shot from ``d`` hexes, halved or not (Rules
    5.31, 5.5, 5.8); -1 when the modified strength is zero (:func:`shot_terms_nb`)."""
    a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
    if halved:
        a = a // 2
    s = range_strength_nb(a, d, range_tab)
    if s <= 0:
        return -1
    return band_nb(s, band_low)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def shot_penalty_nb(st, sh, i, j, d, rl, extra, upon):
    """The DPT roll penalty (0..15) of unit ``i``'s shot at ``j`` from ``d`` hexes (Rules 5.6,
    7.1; ``extra``, ``upon`` as :func:`shot_terms_nb`)."""
    pen = -extra
    dx = sh[j, L.SH_X] - sh[i, L.SH_X]
    dz = sh[j, L.SH_Z] - sh[i, L.SH_Z]
    if arc_nb(sh[i, L.SH_F], dx, dz) != 0:
        pen -= rl[L.RL_BOW_STERN]
    # the target is likely to fire back if it can reach the firer
    if upon == 1 or (upon < 0 and by_damage_nb(st[j, L.ST_ATT], sh[j, L.SH_G]) > 0 and d <= st[j, L.ST_RNG]):
        pen -= rl[L.RL_FIRED_UPON]
    if pen < 0:
        pen = 0
    if pen > 15:
        pen = 15
    return pen


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _shot_value_nb(st, sh, i, j, d, halved, eff_gun, range_tab, band_low, rl, extra):
    """Expected share of an undamaged ``j``'s value removed by ``i``'s shot (heuristic)."""
    b, pen = shot_terms_nb(st, sh, i, j, d, halved, range_tab, band_low, rl, extra, -1)
    if b < 0:
        return 0.0
    dd = st[j, L.ST_DEF]
    if dd > DMAX:
        dd = DMAX
    return eff_gun[b, pen, dd, L.EFF_SHARE]


@kernel(error_model="numpy", no_cpython_wrapper=True)
def state_vp_nb(st, sh, j, g, s, vp_pct):
    """VP the enemy would score from unit ``j`` left at ``g`` G and ``s`` S steps (state 9 =
    sunk), its damage control so far counted (Rules 5.44, 9.52-9.54; :func:`ship_award_nb`)."""
    return float(ship_award_nb(st[j, L.ST_VAL], st[j, L.ST_DEF], AFLOAT, g, s, sh[j, L.SH_DC], vp_pct))


@kernel(error_model="numpy", no_cpython_wrapper=True)
def gain_nb(st, sh, j, dist, b, pen, eff_gun, sv, att_loss):
    """Expected VP one shot (DPT column ``b``, roll penalty ``pen``) adds at unit ``j`` whose
    state this phase is ``dist`` (``float64[10]``: G*3+S, 9 sunk), ``sv`` its states' VP
    (:func:`fire_values_nb`); ``att_loss[0]`` is written with the expected share of ``j``'s
    present Attack Strength the shot takes away (5.41)."""
    att_loss[0] = 0.0
    if b < 0:
        return 0.0
    loss = 0.0
    dd = st[j, L.ST_DEF] if st[j, L.ST_DEF] < DMAX else DMAX
    att = st[j, L.ST_ATT]
    a0 = by_damage_nb(att, sh[j, L.SH_G])
    # Attack Strength after 0, 1, 2 G steps (5.41), read once
    bd0 = att
    bd1 = by_damage_nb(att, 1)
    bd2 = by_damage_nb(att, 2)
    tot = 0.0
    for k in range(9):
        pk = dist[k]
        if pk <= 0.0:
            continue
        v0 = sv[k]
        g0 = k // 3
        ag = bd0 if g0 == 0 else (bd1 if g0 == 1 else bd2)
        for c in range(11):
            p = eff_gun[b, pen, dd, L.EFF_P0 + c]
            if p <= 0.0:
                continue
            k1 = NEXT_STATE[k, c]
            w = pk * p
            tot += w * (sv[k1] - v0)
            if a0 > 0:
                g1 = k1 // 3
                loss += w * (ag if k1 == 9 else ag - (bd0 if g1 == 0 else (bd1 if g1 == 1 else bd2))) / a0
    att_loss[0] = loss
    return tot


@kernel(error_model="numpy", no_cpython_wrapper=True)
def state_after_nb(k, c):
    """The damage state (``3 G + S``, ``0..8``; ``9`` sunk) of a ship in state ``k`` after CRT
    result code ``c`` (``RES_*``): an E that sinks ends it, other results add their G and S steps,
    each capped at 2 (Rules 5.41-5.42)."""
    if c == RES_E_SUNK:
        return 9
    g1 = k // 3 + RES_G[c]
    s1 = k % 3 + RES_S[c]
    return (g1 if g1 < 2 else 2) * 3 + (s1 if s1 < 2 else 2)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _apply_shot_nb(dist, b, pen, dd, eff_gun, nd):
    """``dist`` after one more shot (DPT column ``b``, penalty ``pen``, defense ``dd``) lands;
    ``nd`` (``float64[10]``) is scratch."""
    if b < 0:
        return
    for k in range(9):
        nd[k] = 0.0
    nd[9] = dist[9]
    for k in range(9):
        pk = dist[k]
        if pk <= 0.0:
            continue
        for c in range(11):
            nd[state_after_nb(k, c)] += pk * eff_gun[b, pen, dd, L.EFF_P0 + c]
    for k in range(10):
        dist[k] = nd[k]


@kernel(error_model="numpy", no_cpython_wrapper=True)
def threat_nb(side, st, sh, j, vis, gt, gains, bcol, lst):
    """Expected VP enemy unit ``j``'s best main-battery shot at ``side``'s units is worth (its
    fire this phase, as a policy reckons it): ``(unengaged, fired upon)``, the second with the
    roll penalty of Rule 5.6. One pass over the targets serves both (the shot's column and other
    penalties do not depend on being fired upon).

    ``gt``: the :class:`.bundles.GunTables`; ``gains``: the :class:`.bundles.Gains` (each own
    unit's gain is its present-state gain, :func:`pure_gain_nb`); ``bcol`` (``int64[>= reach +
    1]``) scratch: ``j``'s DPT column by range (-1 when the modified strength is zero); ``lst[1]``:
    ``side``'s units afloat (:func:`unit_lists_nb`)."""
    rl, eff_gun, range_tab, band_low = gt.rl, gt.eff_gun, gt.range_tab, gt.band_low
    sv, pg, pl, prow, pure, loss = gains.sv, gains.pg, gains.pl, gains.prow, gains.pure, gains.loss
    if by_damage_nb(st[j, L.ST_ATT], sh[j, L.SH_G]) <= 0:
        return 0.0, 0.0
    reach = st[j, L.ST_RNG] if st[j, L.ST_RNG] < vis else vis
    a = by_damage_nb(st[j, L.ST_ATT], sh[j, L.SH_G])
    xj = sh[j, L.SH_X]
    zj = sh[j, L.SH_Z]
    fj = sh[j, L.SH_F]
    best0 = 0.0
    best1 = 0.0
    for q in range(reach + 1):
        bcol[q] = -2
    bow = rl[L.RL_BOW_STERN]
    upon = rl[L.RL_FIRED_UPON]
    for q in range(lst[1, 0]):
        k = lst[1, q + 1]
        xk = sh[k, L.SH_X]
        zk = sh[k, L.SH_Z]
        d = hex_dist_nb(xj, zj, xk, zk)
        if d < 1 or d > reach:
            continue
        # shot_terms_nb(st, sh, j, k, d, False, ..., 0, upon) for upon 0 and 1
        b = bcol[d]
        if b == -2:
            s = range_strength_nb(a, d, range_tab)
            b = band_nb(s, band_low) if s > 0 else -1
            bcol[d] = b
        if b < 0:
            continue
        pen = 0
        if arc_nb(fj, xk - xj, zk - zj) != 0:
            pen -= bow
        pen1 = pen - upon
        pen = 0 if pen < 0 else (15 if pen > 15 else pen)
        pen1 = 0 if pen1 < 0 else (15 if pen1 > 15 else pen1)
        # the remembered present-state gains read here (pure_gain_nb works out the missing ones)
        r = prow[k]
        v = pg[r, b * 16 + pen] if r >= 0 else np.nan
        if v != v:
            v = pure_gain_nb(st, sh, k, b, pen, eff_gun, sv, pg, pl, prow, pure, loss)
        if v > best0:
            best0 = v
        v = pg[r, b * 16 + pen1] if r >= 0 else np.nan
        if v != v:
            v = pure_gain_nb(st, sh, k, b, pen1, eff_gun, sv, pg, pl, prow, pure, loss)
        if v > best1:
            best1 = v
    return best0, best1


@kernel(error_model="numpy", no_cpython_wrapper=True)
def pure_gain_nb(st, sh, j, b, pen, eff_gun, sv, pg, pl, prow, pure, loss):
    """:func:`gain_nb` of unit ``j`` known to be in its present state (``SH_G``, ``SH_S``) for
    DPT column ``b`` (>= 0) and penalty ``pen``, its attack-strength loss left in ``loss[0]``;
    remembered in ``pg[r, b * 16 + pen]`` and ``pl[r, b * 16 + pen]`` (NaN: not yet) for the row
    ``r = prow[j]`` of its class, state and damage control (:func:`fire_values_nb`; -1: not
    remembered): the gain depends on nothing else, so units of one class share it and it stands
    for the whole call. ``pure`` (``float64[10]``, all 0) scratch for the one-state distribution."""
    q = b * 16 + pen
    r = prow[j]
    if r >= 0:
        v = pg[r, q]
        if v == v:
            loss[0] = pl[r, q]
            return v
    k0 = sh[j, L.SH_G] * 3 + sh[j, L.SH_S]
    pure[k0] = 1.0
    v = gain_nb(st, sh, j, pure, b, pen, eff_gun, sv[j], loss)
    pure[k0] = 0.0
    if r >= 0:
        pg[r, q] = v
        pl[r, q] = loss[0]
    return v


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _pick_target_nb(side, st, sh, i, reach, screens_only, code, kn, gt, rng, sight, ps):
    """The target unit ``i`` picks by fire-allocation ``code`` among enemies within ``reach`` hexes
    (screen units only for secondary batteries); -1 for none.

    ``kn``: the side's knobs ``float64[NKN]``; ``gt``: the :class:`.bundles.GunTables`; ``sight``:
    the :class:`.bundles.Sight` of this Game-Turn; ``ps``: the :class:`.bundles.PickScratch`, of
    which ``cnt[j]``: firers already on j; ``dist[j]``: j's expected state after them
    (:func:`gain_nb`); ``thr[j]``: j's fire unengaged and engaged (:func:`threat_nb`; NaN: not
    reckoned yet, worked out here on first use). With the optional rules on, targets behind smoke
    or beyond the visibility are kept or dropped by :func:`fire_mod_nb`, and the DPT modifier of
    the pick is left in ``SH_FMOD``. ``ps.mg``, ``ml`` (``float64[n, 16 B]``), ``mst``
    (``int64[n, 16 B]``): per target and ``column * 16 + penalty`` the :func:`gain_nb` (gain, loss)
    worked out while ``dist[j]`` stood at version ``ver[j]`` (``mst[j, q] == ver[j]``: valid; a new
    version is drawn whenever ``dist[j]`` changes); ``ps.lst[0]``: the enemy units afloat
    (:func:`unit_lists_nb`); ``ps.bcol`` (``int64[3 (R + 1)]``, R >= reach) scratch; a target no
    shot is plotted at yet (its ``dist[j]`` its present state) takes its gain from
    :func:`pure_gain_nb` (``ps.gains``)."""
    rl, eff_gun, range_tab, band_low = gt.rl, gt.eff_gun, gt.range_tab, gt.band_low
    vis, smoke, dy, turn = sight.vis, sight.smoke, sight.dy, sight.turn
    cnt, dist, thr, bcol, mg, ml, mst, ver, lst = ps.cnt, ps.dist, ps.thr, ps.bcol, ps.mg, ps.ml, ps.mst, ps.ver, ps.lst
    gains = ps.gains
    sv, pg, pl, prow, pure, loss = gains.sv, gains.pg, gains.pl, gains.prow, gains.pure, gains.loss
    best = -1
    bestv = -1e300
    bestmod = 0
    seen = 0
    opt = fire_options_on_nb(rl)
    # the firer's hex and facing, the rules' penalties and the knobs, read once (the loop writes
    # only scratch)
    xi = sh[i, L.SH_X]
    zi = sh[i, L.SH_Z]
    fi = sh[i, L.SH_F]
    bow = rl[L.RL_BOW_STERN]
    upon = rl[L.RL_FIRED_UPON]
    k_wrecks = kn[L.K_WRECKS]
    k_threat = kn[L.K_THREAT]
    k_suppress = kn[L.K_SUPPRESS]
    k_conc = kn[L.K_CONCENTRATE]
    k_obj = kn[L.K_OBJECTIVE]
    # the DPT column of this firer's shot by range and halving (it depends on nothing else)
    for q in range((reach + 1) * 2):
        bcol[q] = -2
    for e in range(lst[0, 0]):
        j = lst[0, e + 1]
        if screens_only and st[j, L.ST_KIND] != SCREEN:
            continue
        xj = sh[j, L.SH_X]
        zj = sh[j, L.SH_Z]
        d = hex_dist_nb(xi, zi, xj, zj)
        if d < 1 or d > reach:
            continue
        mod = 0
        if opt:
            if screens_only:
                if rl[L.RL_OPT_SMOKE] and dy[L.DY_NSMOKE] > 0 and not (rl[L.RL_OPT_RADAR] and st[i, L.ST_RADAR]) \
                        and smoke_blocks_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z], smoke,
                                            dy[L.DY_NSMOKE]):
                    continue
            else:
                mod = fire_mod_nb(st, sh, i, j, d, vis, rl, smoke, dy, turn)
                if mod <= NO_FIRE:
                    continue
        seen += 1
        if code == FIRE_RANDOM:
            if roll_nb(rng, seen) == 1:
                best = j
                bestmod = mod
            continue
        wreck = wrecked_nb(sh, j)
        if wreck and k_wrecks == 0.0:
            continue  # hold fire rather than shoot at a wreck (5.21)
        if screens_only:
            # secondary batteries (8.41), by the knob K_SB: 0 the nearest screen unit that is not
            # a wreck (value breaks ties), 1 the most valuable (the nearer on ties)
            if kn[L.K_SB] == 1.0:
                v = 1000.0 * st[j, L.ST_VAL] - d - (1e6 if wreck else 0.0)
            else:
                v = -1000.0 * d + st[j, L.ST_VAL] - (1e6 if wreck else 0.0)
        elif code == FIRE_FOCUS_ODDS:
            if thr[j, 0] != thr[j, 0]:
                # j's fire is reckoned the first time a firer weighs j (threat_nb: the same values
                # for the whole plot; its band table is the last third of bcol)
                thr[j, 0], thr[j, 1] = threat_nb(side, st, sh, j, vis, gt, gains, bcol[bcol.shape[0] * 2 // 3:], lst)
            q = d * 2 + (1 if cnt[j] > 0 else 0)
            if bcol[q] == -2:
                bcol[q] = shot_band_nb(st, sh, i, d, cnt[j] > 0, range_tab, band_low)
            b = bcol[q]
            pen = 0
            if b >= 0:
                # shot_penalty_nb(st, sh, i, j, d, rl, mod, -1), its terms read once above
                pen = -mod
                if arc_nb(fi, xj - xi, zj - zi) != 0:
                    pen -= bow
                if by_damage_nb(st[j, L.ST_ATT], sh[j, L.SH_G]) > 0 and d <= st[j, L.ST_RNG]:
                    pen -= upon
                pen = 0 if pen < 0 else (15 if pen > 15 else pen)
            key = b * 16 + pen
            if b >= 0 and cnt[j] == 0:
                r = prow[j]     # remembered (pure_gain_nb works out a missing one)
                v = pg[r, key] if r >= 0 else np.nan
                if v == v:
                    loss[0] = pl[r, key]
                else:
                    v = pure_gain_nb(st, sh, j, b, pen, eff_gun, sv, pg, pl, prow, pure, loss)
            elif b >= 0 and mst[j, key] == ver[j]:
                v = mg[j, key]
                loss[0] = ml[j, key]
            else:
                v = gain_nb(st, sh, j, dist[j], b, pen, eff_gun, sv[j], loss)
                if b >= 0:
                    mst[j, key] = ver[j]
                    mg[j, key] = v
                    ml[j, key] = loss[0]
            v += k_threat * thr[j, 0] * loss[0]
            if cnt[j] == 0:
                v += k_suppress * (thr[j, 0] - thr[j, 1])
            v += k_conc * cnt[j] + k_obj * st[j, L.ST_NAMED] * (0.0 if wreck else 1.0)
            if b < 0:
                v -= 1e6
        elif code == FIRE_SPREAD_VALUE:
            # the VP still to win from j: a wreck's is only its sinking
            v = st[j, L.ST_VAL] - sv[j, sh[j, L.SH_G] * 3 + sh[j, L.SH_S]] \
                - kn[L.K_SPREAD] * cnt[j]
            if _shot_value_nb(st, sh, i, j, d, cnt[j] > 0, eff_gun, range_tab, band_low, rl, mod) <= 0.0:
                v -= 1e6
        else:  # FIRE_NEAREST: the nearest that is not a wreck
            v = -1000.0 * d + st[j, L.ST_VAL] - (1e5 if wreck else 0.0)
        if v > bestv:
            bestv = v
            best = j
            bestmod = mod
    if code == FIRE_RANDOM and best >= 0 and roll_nb(rng, seen + 1) == 1:
        best = -1  # holding fire is legal too (5.21)
    if not screens_only:
        sh[i, L.SH_FMOD] = bestmod
    return best


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)   # allocates its scratch
def designate_nb(side, st, sh, n, eff_gun, range_tab, band_low, rl, code, rng):
    """:func:`designate_scr_nb` with scratch of its own (the firers per target counted here); the
    rule tables the designation does not read (``dpt``, ``crt``, ``tracks``, ``eff_crt``) are left
    empty in its :class:`..rules.RuleTables`."""
    fs = fire_scratch_nb(st, n, rl, band_low)
    cnt = fs.cnt
    for i in range(n):
        if st[i, L.ST_SIDE] == side and sh[i, L.SH_TGT] >= 0:
            cnt[sh[i, L.SH_TGT]] += 1
    none2 = np.zeros((0, 0), dtype=np.int64)
    tb = RuleTables(rl, none2, band_low, none2, range_tab, none2, eff_gun, np.zeros((0, 0), dtype=np.float64))
    designate_scr_nb(side, st, sh, n, tb, code, rng, fs)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def designate_scr_nb(side, st, sh, n, tb, code, rng, fs):
    """Designate the unhalved firer of each target (Rule 5.31: "chosen by the Firing Player";
    ruling DN-F1): ``SH_UNHALVED`` = 1 on the firer that makes the sum of the attacks' expected
    result on the target greatest (share of value removed, ties by expected Damage Points; 5.8),
    the others 0; at random under ``FIRE_RANDOM``. A lone firer is designated too.

    Example (ruling DN-F1): AS 20 at 10 hexes and AS 15 at 2 hexes on one target: the AS 15 ship
    unhalved (45 and 10 after modification) beats the AS 20 ship (20 and 21).

    ``tb``: the compiled rules (:class:`..rules.RuleTables`: ``rl``, ``eff_gun``, ``range_tab``,
    ``band_low`` read); ``fs``: the :class:`.bundles.FirePlotScratch`, of which ``firers`` (``int64[n]``),
    ``term`` (``float64[n, 2]``), ``has`` (``int64[n, 2]``) are scratch and ``cnt[t]`` is how many
    of ``side``'s ships have ``SH_TGT == t`` (the fire plot's count)."""
    rl, eff_gun, range_tab, band_low = tb.rl, tb.eff_gun, tb.range_tab, tb.band_low
    firers, term, has, cnt = fs.firers, fs.term, fs.has, fs.cnt
    for i in range(n):
        if st[i, L.ST_SIDE] == side:
            sh[i, L.SH_UNHALVED] = 0
    for t in range(n):
        if cnt[t] == 0:
            continue
        nf = 0
        for i in range(n):
            if st[i, L.ST_SIDE] == side and sh[i, L.SH_TGT] == t:
                firers[nf] = i
                nf += 1
                if nf == cnt[t]:
                    break
        if nf == 1:
            sh[firers[0], L.SH_UNHALVED] = 1
            continue
        if code == FIRE_RANDOM:
            sh[firers[roll_nb(rng, nf) - 1], L.SH_UNHALVED] = 1
            continue
        dd = st[t, L.ST_DEF] if st[t, L.ST_DEF] < DMAX else DMAX
        # each firer's term unhalved and halved, worked out once (summed below in firer order)
        for c in range(nf):
            i = firers[c]
            d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[t, L.SH_X], sh[t, L.SH_Z])
            for h in range(2):
                b, pen = shot_terms_nb(st, sh, i, t, d, h == 1, range_tab, band_low, rl, sh[i, L.SH_FMOD], -1)
                term[c, h] = eff_gun[b, pen, dd, L.EFF_SHARE] + 1e-6 * eff_gun[b, pen, dd, L.EFF_DP] if b >= 0 else 0.0
                has[c, h] = 1 if b >= 0 else 0
        best = firers[0]
        bestv = -1e300
        for a in range(nf):
            u = firers[a]
            v = 0.0
            for c in range(nf):
                h = 0 if c == a else 1
                if has[c, h]:
                    v += term[c, h]
            if v > bestv:
                bestv = v
                best = u
        sh[best, L.SH_UNHALVED] = 1


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _holds_fire_nb(side, st, i, sc, dy):
    """Campaign scenario B (11.3): when the South's policy holds them (``dy[DY_HOLD]``, decided by
    :func:`bombard_hold_nb`) the South's capital ships never fire - they are the bombardment force,
    whose Attack Strength is the Bombardment Bonus if the South wins (or the North leaves the map
    first); its screen units fight."""
    return (dy[L.DY_HOLD] == 1 and role_of_nb(side, sc) == ROLE_SOUTH and st[i, L.ST_KIND] == CAPITAL)


@kernel(error_model="numpy")
def bombard_hold_nb(sc, kn, dy, rng):
    """The South's choice in campaign scenario B (Rule 11.3), made once a scenario, at its first
    Fire Plot Phase, into ``dy[DY_HOLD]`` (1 its capital ships hold fire all scenario, 0 they fight;
    left at 0 in any other scenario): its policy's ``K_BOMBARD_HOLD`` knob (``kn`` ``float64[2,
    NKN]``), 1 hold, 0 fight, -1 (random-legal) a coin flip from the game's stream ``rng``, drawn
    only then. Nothing is drawn once it is decided (``dy[DY_HOLD] >= 0``)."""
    if dy[L.DY_HOLD] >= 0:
        return
    dy[L.DY_HOLD] = 0
    if sc[L.SC_CAMPAIGN] == 0 or sc[L.SC_SCEN] != SCEN_B:
        return
    for side in range(2):
        if role_of_nb(side, sc) == ROLE_SOUTH:
            k = kn[side, L.K_BOMBARD_HOLD]
            if k < 0.0:
                dy[L.DY_HOLD] = roll_nb(rng, 2) - 1
            elif k != 0.0:
                dy[L.DY_HOLD] = 1


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)   # allocates: reference counting kept
def fire_scratch_nb(st, n, rl, band_low):
    """The fire plot's work arrays for ``n`` units (:func:`plot_fire_scr_nb`; one set per call of
    the entry kernel, never shared between threads): a :class:`.bundles.FirePlotScratch` (its shapes there),
    ``svkey``, ``prow`` all -1 (no values yet), ``pg``, ``pl`` all NaN, ``bcol`` all -2, ``cls``
    each unit's class, the rest 0."""
    r = rl[L.RL_SB_RANGE]
    for i in range(n):
        if st[i, L.ST_RNG] > r:
            r = st[i, L.ST_RNG]
    nq = 16 * band_low.shape[0]
    cls = np.zeros(n, dtype=np.int64)
    nc = 0
    for i in range(n):
        cls[i] = -1
        for h in range(i):
            if st[h, L.ST_ATT] == st[i, L.ST_ATT] and st[h, L.ST_DEF] == st[i, L.ST_DEF] and \
                    st[h, L.ST_VAL] == st[i, L.ST_VAL]:
                cls[i] = cls[h]
                break
        if cls[i] < 0:
            cls[i] = nc
            nc += 1
    npg = nc * DC_ROWS * 9
    return FirePlotScratch(
        np.zeros(5, dtype=np.int64), np.zeros((n, 10)), np.full(n, -1, dtype=np.int64), np.zeros((n, 10)),
        np.zeros((n, 2)), np.zeros(1), np.zeros((n, nq)), np.full((r + 1) * 3, -2, dtype=np.int64),
        np.zeros(10), np.empty(n, dtype=np.int64), np.zeros((n, 2)), np.zeros((n, 2), dtype=np.int64),
        np.full((npg, nq), np.nan), np.full((npg, nq), np.nan), np.full(n, -1, dtype=np.int64), np.zeros(10),
        np.zeros((n, nq)), np.zeros((n, nq), dtype=np.int64), np.zeros(n, dtype=np.int64),
        np.zeros(1, dtype=np.int64), np.zeros((2, n + 1), dtype=np.int64), cls, np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64))


@kernel(error_model="numpy", no_cpython_wrapper=True)
def unit_lists_nb(side, st, sh, n, lst):
    """The units afloat at a Fire Plot, in index order: ``lst[0, 1:1 + lst[0, 0]]`` the enemies of
    ``side``, ``lst[1, 1:1 + lst[1, 0]]`` its own (``int64[2, n + 1]``; nobody sinks or leaves
    during a plot, so the lists stand for all of it)."""
    lst[0, 0] = 0
    lst[1, 0] = 0
    for j in range(n):
        if not alive_nb(sh, j):
            continue
        r = 1 if st[j, L.ST_SIDE] == side else 0
        lst[r, 0] += 1
        lst[r, lst[r, 0]] = j


@kernel(error_model="numpy", no_cpython_wrapper=True)
def fire_values_nb(st, sh, n, rl, fs):
    """Bring the fire scratch's ship-state values up to date (``fs``: the :class:`.bundles.FirePlotScratch`;
    ``fs.sv[j, k]``: :func:`state_vp_nb` of every unit ``j`` for its states k = G*3+S, 9: sunk at
    100%; the VP percentages of 9.53-9.54): a unit's row is worked out again only when its damage
    control so far (``SH_DC``, kept in ``fs.svkey``) changed; the rest of a row depends on the
    unit's printed values only. Both sides' plots read the same table (it holds no side's view).
    Each unit's row of remembered present-state gains (``fs.prow[j]``, rows of ``fs.pg``,
    ``fs.pl``: :func:`pure_gain_nb`) is that of its class (``fs.cls``), damage control so far and
    state ``3 G + S``; -1 (not remembered) once its damage control reaches ``DC_ROWS``."""
    vp_pct, sv, svkey, prow, cls = fs.vp_pct, fs.sv, fs.svkey, fs.prow, fs.cls
    for j in range(n):
        dc = sh[j, L.SH_DC]
        prow[j] = ((cls[j] * DC_ROWS + dc) * 9 + sh[j, L.SH_G] * 3 + sh[j, L.SH_S]) if 0 <= dc < DC_ROWS else -1
    vp_pct[0] = 0
    vp_pct[1] = rl[L.RL_VP1]
    vp_pct[2] = rl[L.RL_VP2]
    vp_pct[3] = rl[L.RL_VP3]
    vp_pct[4] = rl[L.RL_VP4]
    for j in range(n):
        if svkey[j] == sh[j, L.SH_DC]:
            continue
        svkey[j] = sh[j, L.SH_DC]
        for k in range(9):
            sv[j, k] = state_vp_nb(st, sh, j, k // 3, k % 3, vp_pct)
        sv[j, 9] = float(st[j, L.ST_VAL])


@kernel(error_model="numpy", nrt=True)   # allocates its scratch
def plot_fire_own_nb(side, st, sh, n, code, kn, tb, rng, sc, sight):
    """Plot the fire of one side (Rules 5.1-5.3, 5.21-5.23, 8.4): ``SH_TGT`` and ``SH_SB``
    (:func:`plot_fire_scr_nb` with work arrays of its own, their ship-state values worked out here)."""
    fs = fire_scratch_nb(st, n, tb.rl, tb.band_low)
    fire_values_nb(st, sh, n, tb.rl, fs)
    plot_fire_scr_nb(side, st, sh, n, code, kn, tb, rng, sc, sight, fs)


def plot_fire_nb(side, st, sh, n, vis, code, kn, rl, eff_gun, eff_crt, range_tab, band_low, rng, order, cnt,
                 smoke, dy, turn, sc):
    """Plot the fire of one side from loose arrays (tests and tools; the game loop calls
    :func:`plot_fire_scr_nb`): ``SH_TGT``, ``SH_SB`` and ``SH_FMOD`` of ``sh`` written (Rules 5.1-5.3,
    5.21-5.23, 8.4; :func:`plot_fire_own_nb`). Python, not compiled: it packs the bundles.

    Args:
        side: 0 or 1; st ``int64[n, NST]``, sh ``int64[n, NSH]`` the units; n: their number.
        vis: visibility (hexes); code: the side's fire-allocation code (``FIRE_*``); kn:
            ``float64[NKN]`` its knobs; rl, eff_gun, eff_crt, range_tab, band_low: as
            :class:`..rules.RuleTables` (``eff_crt`` is not read); rng: ``uint64[STATE_WORDS]`` the
            stream; order, cnt: ``int64[n]``, not read (the plot keeps scratch of its own); smoke
            ``int64[k, 2]``, dy ``int64[NDY]``, turn: as :class:`.bundles.Sight`; sc ``int64[NSC]`` the
            scenario record.
    """
    none2 = np.zeros((0, 0), dtype=np.int64)
    tb = RuleTables(rl, none2, band_low, none2, range_tab, none2, eff_gun, eff_crt)
    plot_fire_own_nb(side, st, sh, n, code, kn, tb, rng, sc, Sight(vis, turn, smoke, dy))


@kernel(error_model="numpy", no_cpython_wrapper=True)
def plot_fire_scr_nb(side, st, sh, n, code, kn, tb, rng, sc, sight, fs):
    """Plot the fire of one side (Rules 5.1-5.3, 5.21-5.23, 8.4): ``SH_TGT`` and ``SH_SB``.

    A ship fires at most at one target within its range and the visibility (5.22-5.23); a
    capital ship may also attack one screen unit within the secondary-battery range at 1:1 (8.41).
    With the optional rules: not through smoke (12.12); radar and spotting planes reach beyond
    the visibility (12.21-12.22).

    ``code``: the side's fire-allocation code (``FIRE_*``); ``kn``: its knobs ``float64[NKN]``;
    ``tb``: the compiled rules (:class:`..rules.RuleTables`); ``sc``: the scenario record
    ``int64[NSC]``; ``sight``: the :class:`.bundles.Sight` of this Game-Turn; ``fs``: the
    :class:`.bundles.FirePlotScratch`, its ship-state values up to date (:func:`fire_values_nb`).
    """
    rl, eff_gun, range_tab, band_low = tb.rl, tb.eff_gun, tb.range_tab, tb.band_low
    vis, dy = sight.vis, sight.dy
    dist, thr, loss, nd, ver, vc, lst = fs.dist, fs.thr, fs.loss, fs.nd, fs.ver, fs.vc, fs.lst
    order, cnt = fs.order, fs.cnt
    # the target picks get only what they read (lighter calls than the whole tables and scratch)
    gt = GunTables(rl, eff_gun, range_tab, band_low)
    ps = PickScratch(cnt, dist, thr, fs.bcol, fs.mg, fs.ml, fs.mst, ver, lst,
                     Gains(fs.sv, fs.pg, fs.pl, fs.prow, fs.pure, loss))
    unit_lists_nb(side, st, sh, n, lst)
    k = 0
    for i in range(n):
        if st[i, L.ST_SIDE] != side:
            continue
        sh[i, L.SH_TGT] = -1
        sh[i, L.SH_SB] = -1
        sh[i, L.SH_FMOD] = 0
        if alive_nb(sh, i) and by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) > 0 and \
                not _holds_fire_nb(side, st, i, sc, dy):
            order[k] = i
            k += 1
    # strongest first
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
    loss[0] = 0.0
    for j in range(n):
        for q in range(10):
            dist[j, q] = 0.0
        thr[j, 0] = 0.0
        thr[j, 1] = 0.0
        vc[0] += 1
        ver[j] = vc[0]
    for j in range(n):
        if st[j, L.ST_SIDE] == side or not alive_nb(sh, j):
            continue
        dist[j, sh[j, L.SH_G] * 3 + sh[j, L.SH_S]] = 1.0
        if code == FIRE_FOCUS_ODDS and (kn[L.K_THREAT] != 0.0 or kn[L.K_SUPPRESS] != 0.0):
            # NaN: j's threats (threat_nb) not reckoned yet; _pick_target_nb does it when a firer
            # first weighs j (nobody's shot reaches many enemies)
            thr[j, 0] = np.nan
            thr[j, 1] = np.nan
    for a in range(k):
        i = order[a]
        reach = st[i, L.ST_RNG] if (st[i, L.ST_RNG] < vis or beyond_visibility_nb(st, i, rl)) else vis
        best = _pick_target_nb(side, st, sh, i, reach, False, code, kn, gt, rng, sight, ps)
        if best >= 0:
            sh[i, L.SH_TGT] = best
            d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[best, L.SH_X], sh[best, L.SH_Z])
            b, pen = shot_terms_nb(st, sh, i, best, d, cnt[best] > 0, range_tab, band_low, rl, sh[i, L.SH_FMOD], -1)
            _apply_shot_nb(dist[best], b, pen, st[best, L.ST_DEF] if st[best, L.ST_DEF] < DMAX else DMAX, eff_gun, nd)
            cnt[best] += 1
            vc[0] += 1
            ver[best] = vc[0]
    designate_scr_nb(side, st, sh, n, tb, code, rng, fs)
    # secondary batteries (8.41): a screen unit in reach that is not a wreck, by the knob K_SB
    # (0 the nearest, 1 the most valuable, 2 none: the SB attack is the player's to plot or not)
    sbr = rl[L.RL_SB_RANGE] if rl[L.RL_SB_RANGE] < vis else vis
    sbcode = FIRE_RANDOM if code == FIRE_RANDOM else FIRE_NEAREST
    if sbcode != FIRE_RANDOM and kn[L.K_SB] == 2.0:
        sbr = 0
    for i in range(n):
        if st[i, L.ST_SIDE] != side or st[i, L.ST_KIND] != CAPITAL or not alive_nb(sh, i):
            continue
        if by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) <= 0 or _holds_fire_nb(side, st, i, sc, dy):
            continue
        sh[i, L.SH_SB] = _pick_target_nb(side, st, sh, i, sbr, True, sbcode, kn, gt, rng, sight, ps)


@kernel(error_model="numpy", no_cpython_wrapper=True)
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
                if st[i, L.ST_SIDE] != (side if s == 0 else 1 - side) or not alive_nb(sh, i):
                    continue
                if st[i, L.ST_KIND] != CAPITAL or r > st[i, L.ST_RNG]:
                    continue
                a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
                stg = range_strength_nb(a, r, range_tab)
                if stg <= 0:
                    continue
                b = band_nb(stg, band_low)
                m = 0.0
                for j in range(n):
                    if st[j, L.ST_SIDE] == st[i, L.ST_SIDE] or not alive_nb(sh, j):
                        continue
                    dd = st[j, L.ST_DEF] if st[j, L.ST_DEF] < DMAX else DMAX
                    v = eff_gun[b, 2, dd, L.EFF_SHARE] * st[j, L.ST_VAL]
                    if v > m:
                        m = v
                tot += m
            ex += tot if s == 0 else -tot
        if ex >= best:
            best = ex
            bestr = r
    return bestr
