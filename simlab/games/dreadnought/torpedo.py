"""Torpedo kernels: Torpedo Marker tracks and the MP-by-MP sweep for hits (Rule 8).

A screen unit's plotted torpedo attack names a track of the Torpedo Track Chart and an arc
(starboard or port, 8.31). At the start of the Movement Execution Phase a marker is placed in the
launcher's hex; it then moves along the track, one hex per MP, during the first 2, 3 or 5 MP of
the phase (8.6, 8.23), simultaneously with the ships. It hits a unit (friend or foe, 8.13) when:

* at the end of the same MP both are in one hex and the marker entered it during that MP
  (Rule 8.0 "enters a hex at the same instant"; a unit that stays in its hex during that MP,
  turning or stopped, is met too: ruling DN-T1); or
* the marker and the unit cross the same hexside in opposite directions during the same MP.

A marker attacks each unit it meets once (8.11: each unit in a stack separately; ruling DN-T2)
and is not removed by hitting (8.12). A unit is combing the wakes when its facing is parallel or
opposite to the marker's direction at that MP (8.32).
"""

from __future__ import annotations

from numba import njit

from .enums import PORT
from .geometry import DXA, DZA


@njit(cache=True)
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


@njit(cache=True)
def sweep_nb(nm, ma, mx, mz, md, n, px, pz, pf, mp, alive, exit_mp, hitmask, hits):
    """Find every hit of ``nm`` markers on ``n`` units during one Movement Phase (Rule 8.0).

    Args:
        nm: markers placed this phase; ma: their Movement Points.
        mx, mz, md: marker paths (:func:`marker_path_nb`).
        px, pz, pf: ``int64[n, MAXMP + 1]`` unit paths; mp: ``int64[n]`` MP each unit expends.
        alive: ``int64[n]`` 1 for units in play when movement starts.
        exit_mp: ``int64[n]`` MP at which a unit leaves play through an exit (MAXMP + 1: never).
        hitmask: ``int8[>= nm, n]`` scratch (zeroed here).
        hits: ``int64[>= nm * n, 4]`` written: (marker, unit, MP, combing) in the order found
            (by MP, then marker, then unit).

    Returns:
        The number of hits.
    """
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
                hit = (a1x == h1x and a1z == h1z) or (a0x == h1x and a0z == h1z and a1x == h0x and a1z == h0z)
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

