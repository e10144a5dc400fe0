"""Torpedoes (Rule 8): Torpedo Marker tracks, the launch at the start of the Movement Phase and
the MP-by-MP sweep for hits.

A screen unit's plotted torpedo attack names a track of the Torpedo Track Chart and an arc
(starboard or port, 8.31). At the start of the Movement Execution Phase a marker is placed in the
launcher's hex (:func:`launch_torpedoes_nb`; 8.51-8.52); it then moves along the track, one hex
per MP, during the first 2, 3 or 5 MP of the phase (8.6, 8.23), simultaneously with the ships. It
hits a unit (friend or foe, 8.13) when:

* both enter one hex while expending the same MP (Rule 8.0 "enters a hex at the same instant
  (while expending the same Movement Point) as a ship unit"; a unit that stays in its hex during
  that MP, turning, stopped or done moving, is not met: ruling DN-T1); or
* the marker and the unit cross the same hexside in opposite directions during the same MP.

A marker attacks each unit it meets once (8.11: each unit in a stack separately; ruling DN-T2)
and is not removed by hitting (8.12). A unit is combing the wakes when its facing is parallel or
opposite to the marker's direction at that MP (8.32). :func:`torpedo_attacks_nb` resolves the
hits on the CRT (8.0, 8.32; smoke 12.12).

Bundles (issue 27): the markers' paths come as :class:`Markers`, the units' plotted paths as
:class:`UnitPaths`, the sweep's work rows as :class:`TorpedoScratch`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.jit import kernel

from .. import layout as L
from ..enums import (
    AFLOAT,
    PORT,
    SHOT_TORPEDO,
)
from .fire import (
    CS_RESULT,
    CS_ROLL,
    ShotHead,
    add_pending_nb,
    crt_moments_nb,
    crt_shot_nb,
    record_luck_nb,
    record_shot_nb,
)
from .geometry import DXA, DZA, hex_dist_nb
from .visibility import lay_smoke_upto_nb, smoke_blocks_nb


class Markers(NamedTuple):
    """Torpedo Markers' paths (:func:`marker_path_nb`): ``mx``, ``mz`` ``int64[m, MAXTRACK + 1]``
    the hex after each MP (entry 0 the launch hex), ``md`` the direction of each MP's step and
    ``mowner`` ``int64[m]`` each marker's launcher."""

    mx: np.ndarray
    mz: np.ndarray
    md: np.ndarray
    mowner: np.ndarray


class UnitPaths(NamedTuple):
    """The units' plotted moves of one Movement Phase: ``px``, ``pz``, ``pf`` ``int64[n, MAXMP + 1]``
    the hex and facing after each MP; ``mp`` ``int64[n]`` the MP each expends; ``alive`` 1 for units
    in play when movement starts; ``exit_mp`` the MP of an exit (``MAXMP + 1``: never)."""

    px: np.ndarray
    pz: np.ndarray
    pf: np.ndarray
    mp: np.ndarray
    alive: np.ndarray
    exit_mp: np.ndarray


class TorpedoScratch(NamedTuple):
    """The torpedo attacks' work rows (overwritten before read): the sweep's ``hitmask``
    ``int8[>= m, n]`` and ``hits`` ``int64[>= m * n, 4]`` (:func:`sweep_nb`), a CRT attack's
    ``crt_out`` ``int64[NCS]`` (:func:`.fire.crt_shot_nb`'s slots ``CS_*``), and ``smoke`` ``int64[k, 2]`` the Smoke Markers laid so far this phase."""

    hitmask: np.ndarray
    hits: np.ndarray
    crt_out: np.ndarray
    smoke: np.ndarray


@kernel(error_model="numpy")
def marker_path_nb(x, z, facing, track, arc, ma, tracks, mx, mz, md, row):
    """Write the hexes of a Torpedo Marker into row ``row`` of ``mx, mz, md``.

    Args:
        x, z, facing: the launcher's hex and facing at launch.
        track: index into ``tracks`` (``int64[ntracks, MAXTRACK]``, starboard-relative directions).
        arc: STARBOARD or PORT (a port launch mirrors the track, 8.31).
        ma: the marker's Movement Points (8.6).
        mx, mz: ``int64[m, MAXTRACK + 1]`` positions after each MP (entry 0 = launch hex);
        md: ``int64[m, MAXTRACK + 1]`` direction of the step made at each MP.
    """
    mx[row, 0] = x
    mz[row, 0] = z
    md[row, 0] = facing
    for t in range(1, ma + 1):
        rel = tracks[track, t - 1]
        if arc == PORT:
            rel = (6 - rel) % 6
        d = (facing + rel) % 6
        x += DXA[d]
        z += DZA[d]
        mx[row, t] = x
        mz[row, t] = z
        md[row, t] = d


@kernel(error_model="numpy")
def sweep_nb(nm, ma, mk, n, up, hitmask, hits):
    """Find every hit of ``nm`` markers on ``n`` units during one Movement Phase (Rule 8.0).

    Args:
        nm: markers placed this phase; ma: their Movement Points.
        mk: the :class:`Markers` (``mx``, ``mz``, ``md`` read).
        up: the :class:`UnitPaths` of the ``n`` units.
        hitmask: ``int8[>= nm, n]`` scratch (zeroed here).
        hits: ``int64[>= nm * n, 4]`` written: (marker, unit, MP, combing) in the order found
            (by MP, then marker, then unit).

    Returns:
        The number of hits.
    """
    mx = mk.mx
    mz = mk.mz
    md = mk.md
    px = up.px
    pz = up.pz
    pf = up.pf
    mp = up.mp
    alive = up.alive
    exit_mp = up.exit_mp
    for m in range(nm):
        for s in range(n):
            hitmask[m, s] = 0
    k = 0
    for t in range(1, ma + 1):
        for m in range(nm):
            h0x = mx[m, t - 1]
            h0z = mz[m, t - 1]
            h1x = mx[m, t]
            h1z = mz[m, t]
            d = md[m, t]
            for s in range(n):
                if alive[s] == 0 or hitmask[m, s] != 0:
                    continue
                if exit_mp[s] < t:
                    continue
                t0 = t - 1 if t - 1 < mp[s] else mp[s]
                t1 = t if t < mp[s] else mp[s]
                a0x = px[s, t0]
                a0z = pz[s, t0]
                a1x = px[s, t1]
                a1z = pz[s, t1]
                # 8.0: both enter the hex while expending the same MP (a unit that stays in its hex
                # is not met: ruling DN-T1), or they cross one hexside in opposite directions
                moved = a0x != a1x or a0z != a1z
                hit = (moved and a1x == h1x and a1z == h1z) or \
                    (a0x == h1x and a0z == h1z and a1x == h0x and a1z == h0z)
                if hit:
                    hitmask[m, s] = 1
                    f = pf[s, t1]
                    comb = 1 if (f == d or f == (d + 3) % 6) else 0
                    hits[k, 0] = m
                    hits[k, 1] = s
                    hits[k, 2] = t
                    hits[k, 3] = comb
                    k += 1
    return k


@kernel(error_model="numpy", no_cpython_wrapper=True)
def launch_torpedoes_nb(st, sh, n, ma, tracks, mx, mz, md, mowner, out, g):
    """Place the Torpedo Markers of the attacks plotted this Game-Turn (Rules 8.0, 8.51-8.52).

    A unit's plotted attack (``SH_TTRACK``, ``SH_TARC``) is cleared; a screen at 2G (or sunk)
    after the Fire Execution Phase, or with no torpedo attack left, does not launch. Each marker's
    track is written to row ``k`` of ``mx, mz, md`` (``int64[n, MAXTRACK + 1]``; ``ma`` MP) and its
    launcher to ``mowner[k]``; ``out[g, O_LAUNCH*]`` counts the launches.

    Returns:
        The number of markers placed.
    """
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
    return nm


@kernel(error_model="numpy", no_cpython_wrapper=True)
def torpedo_attacks_nb(st, sh, n, nm, ma, mk, up, ts, tb, rng, io, log):
    """The torpedo attacks of the Movement Execution Phase (Rules 8.0, 8.11-8.13, 8.32; 12.12).

    The ``nm`` markers of ``ma`` MP (:class:`Markers` ``mk``) sweep the plotted paths
    (:class:`UnitPaths` ``up``, its ``mp`` written: each unit's plotted MP; :func:`sweep_nb`); each
    hit is read on the CRT at the launcher's column, less the combing penalty (8.32), and held
    until the end of the phase. With smoke (12.11-12.12) no attack
    is made when a Smoke Marker laid so far this phase lies between the launcher and the ship at
    the MP of the hit (ruling DN-O3); ``ts.smoke`` is scratch here (the caller lays the phase's
    markers after this call). ``ts``: the :class:`TorpedoScratch`; ``tb``: the compiled rules
    (:class:`..rules.RuleTables`); ``io``: ``(out, ev, ...)``; ``log``: the
    :class:`.fire.ShotLog`. Counts ``O_TORP*`` and ``O_FRIENDLY_TORP``; writes each attack to ``ev``
    when ``log.record``.

    Returns:
        ``ev_n``, the shots buffer's rows so far.
    """
    rl = tb.rl
    crt = tb.crt
    mx = mk.mx
    mz = mk.mz
    mowner = mk.mowner
    px = up.px
    pz = up.pz
    alive = up.alive
    exit_mp = up.exit_mp
    hits = ts.hits
    crt_out = ts.crt_out
    smoke = ts.smoke
    out = io[0]
    ev = io[1]
    g = log.g
    ev_n = log.ev_n
    for i in range(n):
        up.mp[i] = sh[i, L.SH_MP]
    if nm > 0:
        smoking = rl[L.RL_OPT_SMOKE] != 0
        nh = sweep_nb(nm, ma, mk, n, up, ts.hitmask, hits)
        for h in range(nh):
            o = mowner[hits[h, 0]]
            t = hits[h, 1]
            comb = hits[h, 3]
            # 12.11-12.12: no torpedo attack between the launcher and the ship with a Smoke Marker
            # between them at the instant of the hit: the markers laid so far this Movement
            # Phase (the last phase's were removed as it began; ruling DN-O3)
            if smoking:
                tm = hits[h, 2]
                ns = lay_smoke_upto_nb(st, sh, n, px, pz, alive, exit_mp, smoke, 0, tm)
                if ns > 0 and smoke_blocks_nb(px[o, tm], pz[o, tm], px[t, tm], pz[t, tm], smoke, ns):
                    continue
            res = crt_shot_nb(st[o, L.ST_TORP], -rl[L.RL_COMBING] if comb else 0, crt, rl, rng, crt_out)
            add_pending_nb(sh, t, res)
            sh[t, L.SH_TORPHIT] += 1
            if st[o, L.ST_SIDE] == st[t, L.ST_SIDE]:
                out[g, L.O_FRIENDLY_TORP] += 1
            else:
                out[g, L.O_TORP0 + st[o, L.ST_SIDE]] += 1
                # luck (simlab luck): a hit on the enemy, at the attack's own odds (friendly hits left out)
                s1, s2 = crt_moments_nb(crt, st[o, L.ST_TORP], -rl[L.RL_COMBING] if comb else 0, rl)
                record_luck_nb(out, g, st[o, L.ST_SIDE], res, 36 * s1, 36 * s2, rl)
            if log.record:
                d = hex_dist_nb(mx[hits[h, 0], 0], mz[hits[h, 0], 0], px[t, hits[h, 2]], pz[t, hits[h, 2]])
                ev_n = record_shot_nb(ev, ev_n, ShotHead(g, log.turn, SHOT_TORPEDO, o, t, d, 0, 0, 0, comb),
                                      -1, 0, 0, st[o, L.ST_TORP], crt_out[CS_ROLL], crt_out[CS_RESULT])
    return ev_n
