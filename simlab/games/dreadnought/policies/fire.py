"""Scripted fire plots (Rules 5.3-5.31, 5.6, 8.41; optional rules 12.1, 12.21-12.22, 12.5): each
ship's target by the side's fire-allocation code (``FIRE_*``) and knobs (layout ``K_*``), and the
hold-range preferred range.

* focus by odds (``FIRE_FOCUS_ODDS``): each ship takes the target where its expected damage, in
  share of target value, is greatest, counting the halving of a second firer (Rule 5.31) and
  favouring damaged targets (weight ``1 + K_FOCUS * (G + S)``);
* spread by value (``FIRE_SPREAD_VALUE``): unengaged targets first, highest value first;
* nearest (``FIRE_NEAREST``); random (``FIRE_RANDOM``): a random target in reach, or hold fire.
"""

from __future__ import annotations

from numba import njit

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    CAPITAL,
    FIRE_FOCUS_ODDS,
    FIRE_NEAREST,
    FIRE_RANDOM,
    FIRE_SPREAD_VALUE,
    ROLE_SOUTH,
    SCEN_B,
    SCREEN,
)
from ..kernels.damage import by_damage_nb
from ..kernels.fire import band_nb, range_strength_nb
from ..kernels.geometry import arc_nb, hex_dist_nb
from ..kernels.movement import role_of_nb
from ..kernels.visibility import (
    NO_FIRE,
    beyond_visibility_nb,
    fire_mod_nb,
    fire_options_on_nb,
    smoke_blocks_nb,
)
from .knowledge import alive_nb

DMAX = 64


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _shot_value_nb(st, sh, i, j, d, halved, eff_gun, range_tab, band_low, rl, extra):
    a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
    if halved:
        a = a // 2
    s = range_strength_nb(a, d, range_tab)
    if s <= 0:
        return 0.0
    pen = -extra
    dx = sh[j, L.SH_X] - sh[i, L.SH_X]
    dz = sh[j, L.SH_Z] - sh[i, L.SH_Z]
    if arc_nb(sh[i, L.SH_F], dx, dz) != 0:
        pen -= rl[L.RL_BOW_STERN]
    # the target is likely to fire back if it can reach the firer
    if by_damage_nb(st[j, L.ST_ATT], sh[j, L.SH_G]) > 0 and d <= st[j, L.ST_RNG]:
        pen -= rl[L.RL_FIRED_UPON]
    if pen < 0:
        pen = 0
    if pen > 15:
        pen = 15
    dd = st[j, L.ST_DEF]
    if dd > DMAX:
        dd = DMAX
    return eff_gun[band_nb(s, band_low), pen, dd]


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _pick_target_nb(side, st, sh, n, i, reach, screens_only, code, kn, rl, eff_gun, range_tab, band_low, rng, cnt,
                    vis, smoke, dy, turn):
    """The target unit ``i`` picks by fire-allocation ``code`` among enemies within ``reach`` hexes
    (screen units only for secondary batteries); -1 for none. ``cnt[j]``: firers already on j.
    With the optional rules on, targets behind smoke or beyond the visibility are kept or dropped
    by :func:`fire_mod_nb`, and the DPT modifier of the pick is left in ``SH_FMOD``."""
    best = -1
    bestv = -1e300
    bestmod = 0
    seen = 0
    opt = fire_options_on_nb(rl)
    for j in range(n):
        if st[j, L.ST_SIDE] == side or not alive_nb(sh, j) or (screens_only and st[j, L.ST_KIND] != SCREEN):
            continue
        d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z])
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
        if code == FIRE_FOCUS_ODDS:
            v = _shot_value_nb(st, sh, i, j, d, cnt[j] > 0, eff_gun, range_tab, band_low, rl, mod) * st[j, L.ST_VAL]
            v *= 1.0 + kn[L.K_FOCUS] * (sh[j, L.SH_G] + sh[j, L.SH_S])
        elif code == FIRE_SPREAD_VALUE:
            v = st[j, L.ST_VAL] - kn[L.K_SPREAD] * cnt[j]
            if _shot_value_nb(st, sh, i, j, d, cnt[j] > 0, eff_gun, range_tab, band_low, rl, mod) <= 0.0:
                v -= 1e6
        else:  # FIRE_NEAREST
            v = -1000.0 * d + st[j, L.ST_VAL]
        if v > bestv:
            bestv = v
            best = j
            bestmod = mod
    if code == FIRE_RANDOM and best >= 0 and roll_nb(rng, seen + 1) == 1:
        best = -1  # holding fire is legal too (5.21)
    if not screens_only:
        sh[i, L.SH_FMOD] = bestmod
    return best


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _holds_fire_nb(side, st, sh, i, sc, kn):
    """Campaign scenario B (11.3): with the knob ``K_BOMBARD_HOLD`` (``make-for-objective``) the
    South's capital ships never fire - they are the bombardment force, whose Attack Strength is the
    Bombardment Bonus if the South wins (or the North leaves the map first); its screen units fight."""
    return (sc[L.SC_CAMPAIGN] != 0 and sc[L.SC_SCEN] == SCEN_B and kn[L.K_BOMBARD_HOLD] != 0
            and role_of_nb(side, sc) == ROLE_SOUTH and st[i, L.ST_KIND] == CAPITAL)


@njit(cache=True, error_model="numpy")
def plot_fire_nb(side, st, sh, n, vis, code, kn, rl, eff_gun, eff_crt, range_tab, band_low, rng, order, cnt,
                 smoke, dy, turn, sc):
    """Plot the fire of one side (Rules 5.1-5.3, 5.21-5.23, 8.4): ``SH_TGT`` and ``SH_SB``.

    A ship fires at most at one target within its range and the visibility (5.22-5.23); a
    capital ship may also attack one screen unit within the secondary-battery range at 1:1 (8.41).
    With the optional rules: not through smoke (12.12); radar and spotting planes reach beyond
    the visibility (12.21-12.22).
    """
    k = 0
    for i in range(n):
        if st[i, L.ST_SIDE] != side:
            continue
        sh[i, L.SH_TGT] = -1
        sh[i, L.SH_SB] = -1
        sh[i, L.SH_FMOD] = 0
        if alive_nb(sh, i) and by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) > 0 and \
                not _holds_fire_nb(side, st, sh, i, sc, kn):
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
    for a in range(k):
        i = order[a]
        reach = st[i, L.ST_RNG] if (st[i, L.ST_RNG] < vis or beyond_visibility_nb(st, i, rl)) else vis
        best = _pick_target_nb(side, st, sh, n, i, reach, False, code, kn, rl, eff_gun, range_tab, band_low, rng, cnt,
                               vis, smoke, dy, turn)
        if best >= 0:
            sh[i, L.SH_TGT] = best
            cnt[best] += 1
    # secondary batteries (8.41): the nearest screen unit in reach
    sbr = rl[L.RL_SB_RANGE] if rl[L.RL_SB_RANGE] < vis else vis
    sbcode = FIRE_RANDOM if code == FIRE_RANDOM else FIRE_NEAREST
    for i in range(n):
        if st[i, L.ST_SIDE] != side or st[i, L.ST_KIND] != CAPITAL or not alive_nb(sh, i):
            continue
        if by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) <= 0 or _holds_fire_nb(side, st, sh, i, sc, kn):
            continue
        sh[i, L.SH_SB] = _pick_target_nb(side, st, sh, n, i, sbr, True, sbcode, kn, rl, eff_gun, range_tab, band_low,
                                         rng, cnt, vis, smoke, dy, turn)


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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
                    v = eff_gun[b, 2, dd] * st[j, L.ST_VAL]
                    if v > m:
                        m = v
                tot += m
            ex += tot if s == 0 else -tot
        if ex >= best:
            best = ex
            bestr = r
    return bestr
