"""Test helpers for the Dreadnought optional rules and campaign tests (each has a test that must
fail: test_dreadnought_campaign_helpers.py).

* :func:`position` builds the kernels' arrays for a hand-built position;
* :func:`smoke_blocked_oracle` decides Rule 12.12's line of fire by plane geometry (hexagons and a
  segment), independently of the kernel's hex-line walk;
* :func:`play_turns` plays a hand-built position for some Game-Turns through the game loop.
"""

from __future__ import annotations

import math

import numpy as np

from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import LINE, ROLE_NORTH, TYPE_NAMES
from simlab.rng import STATE_WORDS, new_state_nb

KINDS = {"capital": 0, "CA": 1, "CL": 1, "DD": 1}


def position(units: list[dict], torpedo_mp: int = 2, year: int = 1915):
    """Kernel arrays of a hand-built position; every unit moves alone (its own formation).

    Args:
        units: dicts with ``side`` (0/1), ``type`` (capital, CA, CL, DD), ``x``, ``z`` (cube),
            and optionally ``f`` (facing, 0 = N), ``speed``, ``attack``, ``defense``, ``range``,
            ``movement``, ``torp`` (0/1/2), ``G``, ``S``, ``radar``, ``planes``.

    Returns:
        ``(st, sh, fm, trail, sc)``.

    Raises:
        ValueError: on an unknown type, a side other than 0 or 1, or units of both sides in one hex.
    """
    n = len(units)
    st = np.zeros((n, L.NST), dtype=np.int64)
    sh = np.zeros((n, L.NSH), dtype=np.int64)
    fm = np.zeros((n, L.NFM), dtype=np.int64)
    trail = np.zeros((n, L.TRAIL, 3), dtype=np.int64)
    where: dict[tuple[int, int], int] = {}
    for i, u in enumerate(units):
        if u["type"] not in KINDS:
            raise ValueError(f"unknown unit type {u['type']!r}")
        if u["side"] not in (0, 1):
            raise ValueError(f"side must be 0 or 1, got {u['side']!r}")
        hx = (u["x"], u["z"])
        if hx in where and where[hx] != u["side"]:
            raise ValueError(f"units of both sides in hex {hx}")
        where[hx] = u["side"]
        st[i, L.ST_SIDE] = u["side"]
        st[i, L.ST_KIND] = KINDS[u["type"]]
        st[i, L.ST_TYPE] = TYPE_NAMES.index(u["type"])
        st[i, L.ST_ATT] = u.get("attack", 20)
        st[i, L.ST_DEF] = u.get("defense", 6)
        st[i, L.ST_RNG] = u.get("range", 12)
        st[i, L.ST_MOV] = u.get("movement", 6)
        st[i, L.ST_TORP] = u.get("torp", 0)
        st[i, L.ST_VAL] = st[i, L.ST_ATT] + st[i, L.ST_DEF] + st[i, L.ST_MOV]
        st[i, L.ST_RADAR] = u.get("radar", 0)
        st[i, L.ST_PLANES] = u.get("planes", 0)
        for k in L.SH_MINUS_ONE:
            sh[i, k] = -1
        sh[i, L.SH_X] = u["x"]
        sh[i, L.SH_Z] = u["z"]
        sh[i, L.SH_F] = u.get("f", 0)
        sh[i, L.SH_SPD] = u.get("speed", 0)
        sh[i, L.SH_G] = u.get("G", 0)
        sh[i, L.SH_S] = u.get("S", 0)
        sh[i, L.SH_TLEFT] = 2 if st[i, L.ST_TORP] else 0
        sh[i, L.SH_FORM] = i
        fm[i, L.FM_MODE] = LINE
        fm[i, L.FM_FLAG] = i
        fm[i, L.FM_MEMBERS] = 1
    sc = np.zeros(L.NSC, dtype=np.int64)
    sc[L.SC_N] = n
    sc[L.SC_N0] = int(sum(1 for u in units if u["side"] == 0))
    sc[L.SC_ROLE0] = ROLE_NORTH
    sc[L.SC_SAFE_N_ROW] = -(1 << 30)
    sc[L.SC_SAFE_S_ROW] = 1 << 30
    sc[L.SC_TORP_MA] = torpedo_mp
    sc[L.SC_YEAR] = year
    sc[L.SC_SCEN] = -1
    sc[L.SC_NFORM] = n
    return st, sh, fm, trail, sc


def play_turns(rules, st, sh, fm, trail, sc, turns: int, vis_base: int = 10, policies=("break-contact",) * 2,
               rl=None, seed: int = 1, dy=None):
    """Play ``turns`` Game-Turns of a hand-built position through the game loop (``tactical_nb``).

    Returns:
        ``(result tuple of tactical_nb, out row, dy)``; ``sh`` is played on in place.
    """
    from simlab.games.dreadnought.kernels.turn import reset_dy_nb, tactical_nb
    from simlab.games.dreadnought.runtime import pack_policies, rule_tables
    pc, kn = pack_policies({"side0": policies[0], "side1": policies[1]}, ("side0", "side1"))
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    if dy is None:
        dy = np.zeros(L.NDY, dtype=np.int64)
        reset_dy_nb(dy)
    out = np.zeros((1, L.NOUT), dtype=np.int64)
    ev = np.zeros((0, L.NEV), dtype=np.int32)
    trace = np.zeros((0, st.shape[0], L.NTR), dtype=np.int64)
    tb = rule_tables(rules, rl)
    res = tactical_nb(st, sc, tb, (pc, kn), (sh, fm, trail, dy, rng), (out, ev, trace),
                      (0, 0, 0, turns, int(vis_base), 0, 1, 0))
    return res, out[0], dy


# ---------------------------------------------------------------- the line of fire by geometry
def _centre(x: int, z: int) -> tuple[float, float]:
    """Plane centre of cube hex (x, z): flat-topped hexes of circumradius 1."""
    return 1.5 * x, math.sqrt(3.0) * (z + x / 2.0)


def _corners(x: int, z: int) -> list[tuple[float, float]]:
    cx, cy = _centre(x, z)
    return [(cx + math.cos(math.radians(60 * k)), cy + math.sin(math.radians(60 * k))) for k in range(6)]


def _inside_length(p0, p1, poly) -> float:
    """Length of segment p0-p1 strictly inside a convex polygon (Cyrus-Beck clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    cx = sum(p[0] for p in poly) / len(poly)
    cy = sum(p[1] for p in poly) / len(poly)
    for a, b in zip(poly, poly[1:] + poly[:1], strict=True):
        ex, ey = b[0] - a[0], b[1] - a[1]
        nx, ny = -ey, ex
        if nx * (cx - a[0]) + ny * (cy - a[1]) < 0:
            nx, ny = -nx, -ny
        num = nx * (p0[0] - a[0]) + ny * (p0[1] - a[1])
        den = nx * dx + ny * dy
        if abs(den) < 1e-12:
            if num <= 1e-9:
                return 0.0
            continue
        t = -num / den
        if den > 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
    return max(0.0, t1 - t0) * math.hypot(dx, dy)


def smoke_blocked_oracle(x0: int, z0: int, x1: int, z1: int, smoke: list[tuple[int, int]]) -> bool:
    """Rule 12.12-12.13 by plane geometry: the segment between the hex centres is blocked when it
    runs through the inside of a smoke hex other than the two ships' (12.13), or along a hexside
    with smoke on both sides of it (ruling DN-O1)."""
    p0, p1 = _centre(x0, z0), _centre(x1, z1)
    if (x0, z0) == (x1, z1):
        return False
    cells = {h for h in smoke if h not in ((x0, z0), (x1, z1))}
    for h in cells:
        if _inside_length(p0, p1, _corners(*h)) > 1e-6:
            return True
    for a in cells:
        for b in cells:
            if a < b and max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[0] + a[1] - b[0] - b[1])) == 1:
                ca, cb = _corners(*a), _corners(*b)
                shared = [p for p in ca if any(math.dist(p, q) < 1e-9 for q in cb)]
                if len(shared) == 2 and _on_segment(shared[0], shared[1], p0, p1):
                    return True
    return False


def _on_segment(e0, e1, p0, p1) -> bool:
    """Does segment p0-p1 overlap the edge e0-e1 over a positive length?"""
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    length = math.hypot(dx, dy)
    for e in (e0, e1):
        if abs(dx * (e[1] - p0[1]) - dy * (e[0] - p0[0])) / length > 1e-6:
            return False
    ts = sorted(((e[0] - p0[0]) * dx + (e[1] - p0[1]) * dy) / length ** 2 for e in (e0, e1))
    return min(ts[1], 1.0) - max(ts[0], 0.0) > 1e-6
