"""Formations (Rules 6.2-6.22): columns and lines, the flagship's wake (``trail``), joining and
detaching.

A formation is a row of ``fm`` (layout ``FM_*``); a column's members follow the flagship's wake
``trail[f]`` (``int64[nform, MAXTRAIL, 3]``: x, z, facing), ``SH_CUR`` MP behind it.
"""

from __future__ import annotations

from numba import njit

from .. import layout as L
from ..enums import (
    AFLOAT,
    COLUMN,
    LINE,
)
from .geometry import DXA, DZA, hex_dist_nb, in_buf_nb


@njit(cache=True, error_model="numpy")
def column_member_path_nb(trail, f, head, cur, mp, px, pz, pf, flag_row, row):
    """Path of a column member at cursor ``cur`` following its flagship for ``mp`` MP (Rule 6.22).

    Entries up to the head come from the wake; later ones from the flagship's new path
    (``px[flag_row]``).
    """
    for t in range(0, L.MAXMP + 1):
        tt = t if t <= mp else mp
        c = cur + tt
        if c <= head:
            e = c % L.TRAIL
            px[row, t] = trail[f, e, 0]
            pz[row, t] = trail[f, e, 1]
            pf[row, t] = trail[f, e, 2]
        else:
            k = c - head
            px[row, t] = px[flag_row, k]
            pz[row, t] = pz[flag_row, k]
            pf[row, t] = pf[flag_row, k]


@njit(cache=True, error_model="numpy")
def commit_column_nb(trail, fm, f, mp, px, pz, pf, flag_row):
    """Append the flagship's new path to its column's wake and advance the head by ``mp``."""
    head = fm[f, L.FM_HEAD]
    for k in range(1, mp + 1):
        e = (head + k) % L.TRAIL
        trail[f, e, 0] = px[flag_row, k]
        trail[f, e, 1] = pz[flag_row, k]
        trail[f, e, 2] = pf[flag_row, k]
    fm[f, L.FM_HEAD] = head + mp


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def new_formation_nb(fm, n):
    """A free formation slot (``members == 0``), reset; -1 if none."""
    for f in range(n):
        if fm[f, L.FM_MEMBERS] == 0:
            for k in range(L.NFM):
                fm[f, k] = 0
            return f
    return -1


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def detach_nb(sh, fm, i, n):
    """Unit ``i`` leaves its formation and moves alone from now on (Rules 6.27-6.28)."""
    f = sh[i, L.SH_FORM]
    if f >= 0 and fm[f, L.FM_MEMBERS] == 1 and fm[f, L.FM_FLAG] == i:
        fm[f, L.FM_MODE] = LINE
        return f
    g = new_formation_nb(fm, n)
    fm[g, L.FM_MODE] = LINE
    fm[g, L.FM_FLAG] = i
    fm[g, L.FM_MEMBERS] = 1
    sh[i, L.SH_FORM] = g
    sh[i, L.SH_CUR] = 0
    if f >= 0:
        # the old formation recounts and, if it lost its flagship, takes a new one
        refresh_formation_nb(sh, fm, f, n)
    return g


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def refresh_formation_nb(sh, fm, f, n):
    """Recount a formation's live members and pick its flagship (Rule 6.26).

    A column's flagship is the member furthest along the wake; a line keeps its flagship while
    it lives, else takes the first live member. Dead or exited members leave.

    Returns:
        The number of live members.
    """
    cnt = 0
    best = -1
    bestcur = -(1 << 60)
    flag_alive = False
    for i in range(n):
        if sh[i, L.SH_FORM] != f:
            continue
        if sh[i, L.SH_STATUS] != AFLOAT:
            sh[i, L.SH_FORM] = -1
            continue
        cnt += 1
        if i == fm[f, L.FM_FLAG]:
            flag_alive = True
        if fm[f, L.FM_MODE] == COLUMN:
            if sh[i, L.SH_CUR] > bestcur:
                bestcur = sh[i, L.SH_CUR]
                best = i
        elif best < 0:
            best = i
    fm[f, L.FM_MEMBERS] = cnt
    if cnt == 0:
        return 0
    if fm[f, L.FM_MODE] == COLUMN:
        fm[f, L.FM_FLAG] = best
        fm[f, L.FM_HEAD] = bestcur
    elif not flag_alive:
        fm[f, L.FM_FLAG] = best
    return cnt


@njit(cache=True, error_model="numpy")
def straight_column_nb(sh, f, n, buf):
    """Do the members of formation ``f`` stand one directly behind the other, all facing the same way?

    (Rules 6.24-6.25: the condition for changing between column and line abreast.)

    Args:
        buf: ``int64[n, 3]`` scratch.

    Returns:
        The number of distinct stacks if they do, else 0.
    """
    facing = -1
    k = 0
    for i in range(n):
        if sh[i, L.SH_FORM] != f or sh[i, L.SH_STATUS] != AFLOAT:
            continue
        if facing < 0:
            facing = sh[i, L.SH_F]
        elif sh[i, L.SH_F] != facing:
            return 0
        x = sh[i, L.SH_X]
        z = sh[i, L.SH_Z]
        if not in_buf_nb(buf, k, x, z):
            buf[k, 0] = x
            buf[k, 1] = z
            buf[k, 2] = 0
            k += 1
    if k <= 1:
        return k
    dx = DXA[facing]
    dz = DZA[facing]
    # the head: no stack in the hex ahead of it
    head = -1
    for j in range(k):
        if not in_buf_nb(buf, k, buf[j, 0] + dx, buf[j, 1] + dz):
            if head >= 0:
                return 0
            head = j
    cx = buf[head, 0]
    cz = buf[head, 1]
    seen = 1
    while seen < k:
        cx -= dx
        cz -= dz
        if not in_buf_nb(buf, k, cx, cz):
            return 0
        seen += 1
    return k


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def make_column_nb(sh, fm, trail, f, n):
    """Turn formation ``f`` (already a straight column, :func:`straight_column_nb`) into column
    mode: rebuild its wake from the stacks' hexes, head first (Rule 6.24)."""
    facing = -1
    hx = 0
    hz = 0
    best = -(1 << 60)
    for i in range(n):
        if sh[i, L.SH_FORM] != f or sh[i, L.SH_STATUS] != AFLOAT:
            continue
        facing = sh[i, L.SH_F]
        ex = DXA[facing]
        ez = DZA[facing]
        # advance along the facing: cube dot product with the direction
        adv = sh[i, L.SH_X] * ex + (-sh[i, L.SH_X] - sh[i, L.SH_Z]) * (-ex - ez) + sh[i, L.SH_Z] * ez
        if adv > best:
            best = adv
            hx = sh[i, L.SH_X]
            hz = sh[i, L.SH_Z]
    dx = DXA[facing]
    dz = DZA[facing]
    length = 0
    for i in range(n):
        if sh[i, L.SH_FORM] != f or sh[i, L.SH_STATUS] != AFLOAT:
            continue
        d = hex_dist_nb(hx, hz, sh[i, L.SH_X], sh[i, L.SH_Z])
        if d > length:
            length = d
    head = length
    for k in range(length + 1):
        e = (head - k) % L.TRAIL
        trail[f, e, 0] = hx - dx * k
        trail[f, e, 1] = hz - dz * k
        trail[f, e, 2] = facing
    flag = -1
    for i in range(n):
        if sh[i, L.SH_FORM] != f or sh[i, L.SH_STATUS] != AFLOAT:
            continue
        d = hex_dist_nb(hx, hz, sh[i, L.SH_X], sh[i, L.SH_Z])
        sh[i, L.SH_CUR] = head - d
        if d == 0 and flag < 0:
            flag = i
    fm[f, L.FM_MODE] = COLUMN
    fm[f, L.FM_HEAD] = head
    fm[f, L.FM_FLAG] = flag
