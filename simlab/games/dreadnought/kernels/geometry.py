"""Hex geometry of Dreadnought's map (Rules 5.5, 7.0-7.1, 9.13): cube coordinates, range, bearing
and the arcs of fire.

Cube coordinates ``(x, z)``, ``y = -x - z`` (see :mod:`..geometry` for the offset map). The six
hexside directions are ``DXA[d], DZA[d]`` (``int64[6]``, enums ``N .. NW``).
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ..enums import (
    DX,
    DZ,
)

DXA = np.array(DX, dtype=np.int64)


DZA = np.array(DZ, dtype=np.int64)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def row_of_nb(x, z):
    """Global offset row of cube hex ``(x, z)``."""
    return z + (x - (x & 1)) // 2


@kernel(error_model="numpy")
def hex_dist_nb(x1, z1, x2, z2):
    """Range in hexes between two cube hexes (Rule 5.5: firer exclusive, target inclusive)."""
    dx = x1 - x2
    dz = z1 - z2
    dy = -dx - dz
    a = dx if dx >= 0 else -dx
    b = dz if dz >= 0 else -dz
    c = dy if dy >= 0 else -dy
    m = a if a > b else b
    return m if m > c else c


@kernel(error_model="numpy")
def bearing_nb(dx, dz):
    """Sextant of a cube vector: ``(k, tie)`` where ``k`` (0..5) is the hexside direction whose
    60-degree wedge holds the vector and ``tie`` is 1 when it lies exactly on the boundary line
    between wedges ``k`` and ``k + 1`` (a line through hex vertices). ``(0, 0)`` gives ``(-1, 0)``.
    """
    if dx == 0 and dz == 0:
        return -1, 0
    dy = -dx - dz
    best = -(1 << 60)
    k = 0
    tie = 0
    for d in range(6):
        ex = DXA[d]
        ez = DZA[d]
        ey = -ex - ez
        v = dx * ex + dy * ey + dz * ez
        if v > best:
            best = v
            k = d
            tie = 0
        elif v == best:
            # only adjacent wedges can tie; d > k here, so the pair is (k, d)
            if d == k + 1:
                tie = 1
            else:  # k == 0 and d == 5: the boundary between wedges 5 and 0
                k = 5
                tie = 1
    return k, tie


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _dot_nb(d, dx, dz):
    """Cube dot product of the vector ``(dx, dz)`` with the unit step of direction ``d``."""
    ex = DXA[d]
    ez = DZA[d]
    return dx * ex + (dx + dz) * (ex + ez) + dz * ez


@kernel(error_model="numpy")
def arc_nb(facing, dx, dz):
    """Arc of fire (Rule 7.1) in which a target at cube offset ``(dx, dz)`` lies from a unit facing
    ``facing``: 0 broadside, 1 bow, 2 stern (enums ARC_*).

    The bow and stern arcs are the 60-degree wedges through the bow and stern hexsides; the
    starboard and port arcs the two 120-degree wedges between them. A target exactly on the line
    between the bow (or stern) wedge and a broadside wedge is in the broadside arc (ruling DN-F4).
    """
    # the bow wedge holds v exactly when v leans further toward the bow hexside than toward either
    # neighbouring hexside (cube dot products are Euclidean); the stern wedge is the opposite
    a = _dot_nb(facing, dx, dz)
    left = _dot_nb((facing + 5) % 6, dx, dz)
    right = _dot_nb((facing + 1) % 6, dx, dz)
    if a > left and a > right:
        return 1
    if a < left and a < right:
        return 2
    return 0


@kernel(error_model="numpy", no_cpython_wrapper=True)
def in_buf_nb(buf, k, x, z):
    """Is hex ``(x, z)`` among the first ``k`` rows of ``buf``?"""
    for j in range(k):
        if buf[j, 0] == x and buf[j, 1] == z:
            return True
    return False


@kernel(error_model="numpy")
def rotate_nb(ox, oz, f):
    """Cube offset ``(ox, oz)`` of a cruising formation drawn facing north, turned to face ``f``
    (each step 60 degrees clockwise: ``(x, y, z) -> (-z, -x, -y)``)."""
    x = ox
    z = oz
    for _ in range(f % 6):
        y = -x - z
        x, z = -z, -y
    return x, z
