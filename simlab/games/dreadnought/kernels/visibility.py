"""Visibility and what blocks or modifies fire (Rules 5.71, 9.42; optional rules 12.1, 12.21-12.22,
12.5): the visibility die roll, sighting, smoke, radar and spotting planes, the sun.

Smoke (12.1): DD units lay Smoke Markers in the hexes they vacate; a marker blocks fire and
torpedo attacks whose line (centre to centre) crosses its hex between the two ships (12.12-12.13).
Radar and spotting planes (12.21-12.22): eligible units fire beyond the visibility at -2 / -3.
Sun (12.5): rolled before a scenario; Game-Turns 6-11 give +1 toward and -1 away from the sun.
"""

from __future__ import annotations

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    AFLOAT,
    SUN_SETTING_WEST,
    TYPE_DD,
)
from .fire import two_d6_nb
from .geometry import hex_dist_nb, in_buf_nb

NO_FIRE = -1000          # fire_mod_nb: this shot is not allowed


@kernel(error_model="numpy", no_cpython_wrapper=True)
def fire_options_on_nb(rl):
    """Is any optional rule that changes fire on (smoke, radar, spotting planes, sun)?"""
    return rl[L.RL_OPT_SMOKE] != 0 or rl[L.RL_OPT_RADAR] != 0 or rl[L.RL_OPT_PLANES] != 0 or rl[L.RL_OPT_SUN] != 0


@kernel(error_model="numpy", no_cpython_wrapper=True)
def beyond_visibility_nb(st, i, rl):
    """May unit ``i`` fire beyond the visibility (radar 12.21 or spotting planes 12.22)?"""
    return (rl[L.RL_OPT_RADAR] != 0 and st[i, L.ST_RADAR] != 0) or (rl[L.RL_OPT_PLANES] != 0 and st[i, L.ST_PLANES] != 0)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _clip_nb(u0, du, t0, t1, strict):
    """Clip ``t`` in ``[t0, t1]`` to where ``u0 + du * t`` lies within ``(-1, 1)`` (``[-1, 1]``
    if not ``strict``)."""
    eps = 1e-9
    if abs(du) < 1e-12:
        inside = (-1.0 + eps < u0 < 1.0 - eps) if strict else (-1.0 - eps <= u0 <= 1.0 + eps)
        return (t0, t1) if inside else (1.0, 0.0)
    ta = (-1.0 - u0) / du
    tb = (1.0 - u0) / du
    if ta > tb:
        ta, tb = tb, ta
    return (t0 if t0 > ta else ta), (t1 if t1 < tb else tb)


@kernel(error_model="numpy")
def smoke_blocks_nb(x0, z0, x1, z1, smoke, k):
    """Does smoke block the line of fire from hex ``(x0, z0)`` to ``(x1, z1)``? (Rules 12.12-12.13)

    The line runs from centre to centre; it is blocked by a Smoke Marker (``smoke[:k]``, cube
    ``(x, z)``) whose hex it passes through, other than the firer's and the target's (12.13). A
    hex is the cube cell ``|x - y|, |y - z|, |z - x| <= 1`` around its centre, so the part of the
    line inside it is found by clipping against three slabs. Where the line runs exactly along a
    hexside the firer may look down either side: it is blocked only if both hexes hold smoke
    (ruling DN-O1).

    Returns:
        True if the fire (or torpedo attack) is not permitted.
    """
    if k == 0 or (x0 == x1 and z0 == z1):
        return False
    y0 = -x0 - z0
    dx = x1 - x0
    dz = z1 - z0
    dyv = -dx - dz
    for m in range(k):
        hx = smoke[m, 0]
        hz = smoke[m, 1]
        if (hx == x0 and hz == z0) or (hx == x1 and hz == z1):
            continue
        hy = -hx - hz
        u0 = float((x0 - y0) - (hx - hy))
        du = float(dx - dyv)
        v0 = float((y0 - z0) - (hy - hz))
        dv = float(dyv - dz)
        w0 = float((z0 - x0) - (hz - hx))
        dw = float(dz - dx)
        a, b = _clip_nb(u0, du, 0.0, 1.0, True)
        a, b = _clip_nb(v0, dv, a, b, True)
        a, b = _clip_nb(w0, dw, a, b, True)
        if b - a > 1e-9:
            return True
        a, b = _clip_nb(u0, du, 0.0, 1.0, False)
        a, b = _clip_nb(v0, dv, a, b, False)
        a, b = _clip_nb(w0, dw, a, b, False)
        if b - a <= 1e-9:
            continue
        # along a hexside: the hex across it must hold smoke too
        nx = hx
        nz = hz
        if abs(du) < 1e-12 and abs(abs(u0) - 1.0) < 1e-9:
            nx = hx + (1 if u0 > 0 else -1)
        elif abs(dv) < 1e-12 and abs(abs(v0) - 1.0) < 1e-9:
            nz = hz + (-1 if v0 > 0 else 1)
        elif abs(dw) < 1e-12 and abs(abs(w0) - 1.0) < 1e-9:
            if w0 > 0:
                nx = hx - 1
                nz = hz + 1
            else:
                nx = hx + 1
                nz = hz - 1
        else:
            continue
        if (nx == x0 and nz == z0) or (nx == x1 and nz == z1):
            continue
        if in_buf_nb(smoke, k, nx, nz):
            return True
    return False


@kernel(error_model="numpy")
def sun_mod_nb(dx, dz, sun, rl):
    """DPT roll modifier of the sun for a target at cube offset ``(dx, dz)`` (Rule 12.52).

    The setting sun lies west: a target on or between the hexrows running NW and SW from the
    firer is toward it (+1); every other bearing is away from it (-1; ruling DN-O6: 12.52 knows
    only toward and away). The rising sun (east) is the mirror image.
    """
    dyv = -dx - dz
    west = dz >= 0 and dyv >= 0
    east = dz <= 0 and dyv <= 0
    toward = west if sun == SUN_SETTING_WEST else east
    if toward:
        return rl[L.RL_SUN_TOWARD]
    return rl[L.RL_SUN_AWAY]


@kernel(error_model="numpy")
def sun_roll_nb(rng, rl):
    """Sun position before a scenario (Rule 12.51): 2 rising in the east, 12 setting in the west."""
    r = two_d6_nb(rng)
    if r == rl[L.RL_SUN_RISE]:
        return 1
    if r == rl[L.RL_SUN_SET]:
        return 2
    return 0


@kernel(error_model="numpy")
def fire_mod_nb(st, sh, i, j, d, vis, rl, smoke, dy, turn):
    """May unit ``i`` fire its main battery at ``j``, ``d`` hexes off, and with what DPT modifier?

    Rules 5.23 and the optional rules: within the visibility unless radar (12.21, -2 beyond it)
    or spotting planes (12.22, -3 beyond it, not through smoke) let it fire to its range; never
    through smoke (12.12) except by radar (ruling DN-O2); the sun's +1/-1 on Game-Turns 6-11
    (12.52-12.53).

    Returns:
        The modifier, or ``NO_FIRE`` if the shot is not allowed.
    """
    if d > st[i, L.ST_RNG]:
        return NO_FIRE
    radar = rl[L.RL_OPT_RADAR] != 0 and st[i, L.ST_RADAR] != 0
    planes = rl[L.RL_OPT_PLANES] != 0 and st[i, L.ST_PLANES] != 0
    blocked = False
    if rl[L.RL_OPT_SMOKE] and dy[L.DY_NSMOKE] > 0:
        blocked = smoke_blocks_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z], smoke, dy[L.DY_NSMOKE])
    mod = 0
    if d > vis:
        if radar:
            mod += rl[L.RL_RADAR_MOD]
        elif planes and not blocked:
            mod += rl[L.RL_PLANES_MOD]
        else:
            return NO_FIRE
    elif blocked and not radar:
        return NO_FIRE
    if rl[L.RL_OPT_SUN] and dy[L.DY_SUN] != 0 and rl[L.RL_SUN_T0] <= turn <= rl[L.RL_SUN_T1]:
        mod += sun_mod_nb(sh[j, L.SH_X] - sh[i, L.SH_X], sh[j, L.SH_Z] - sh[i, L.SH_Z], dy[L.DY_SUN], rl)
    return mod


@kernel(error_model="numpy")
def lay_smoke_nb(st, sh, n, px, pz, alive, exit_mp, smoke, k):
    """Rule 12.11: each DD unit making smoke leaves a Smoke Marker in every hex it vacates during
    its movement (not in the hex where it ends). Returns the new number of markers."""
    return lay_smoke_upto_nb(st, sh, n, px, pz, alive, exit_mp, smoke, k, L.MAXMP)


@kernel(error_model="numpy")
def lay_smoke_upto_nb(st, sh, n, px, pz, alive, exit_mp, smoke, k, upto):
    """:func:`lay_smoke_nb` for the first ``upto`` MP of the phase only: the Smoke Markers on the
    map at that instant of the Movement Phase (12.11). Returns the new number of markers."""
    cap = smoke.shape[0]
    for i in range(n):
        if alive[i] == 0 or sh[i, L.SH_SMOKE] == 0 or st[i, L.ST_TYPE] != TYPE_DD:
            continue
        m = sh[i, L.SH_MP] if sh[i, L.SH_MP] < upto else upto
        for t in range(1, m + 1):
            if t > exit_mp[i]:
                break
            if px[i, t] == px[i, t - 1] and pz[i, t] == pz[i, t - 1]:
                continue
            x = px[i, t - 1]
            z = pz[i, t - 1]
            if k < cap and not in_buf_nb(smoke, k, x, z):
                smoke[k, 0] = x
                smoke[k, 1] = z
                k += 1
    return k


@kernel(error_model="numpy", no_cpython_wrapper=True)
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


@kernel(error_model="numpy", no_cpython_wrapper=True)
def visibility_roll_nb(vis_base, rl, rng, dy):
    """This Game-Turn's visibility in hexes: the base plus one die (``RL_VIS_DIE`` sides; Rule
    5.71), or the visibility carried over for one Game-Turn after a campaign contact (9.32:
    ``dy[DY_VIS_CARRY] >= 0``, which is then cleared and no die is rolled)."""
    if dy[L.DY_VIS_CARRY] >= 0:
        vis = dy[L.DY_VIS_CARRY]
        dy[L.DY_VIS_CARRY] = -1
        return vis
    return vis_base + roll_nb(rng, rl[L.RL_VIS_DIE])
