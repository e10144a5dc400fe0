"""Formations (Rules 6.2-6.24): columns and lines, the flagship's wake (``trail``), joining and
detaching, and a line abreast formation's second leg in column (6.24).

A formation is a row of ``fm`` (layout ``FM_*``); a column's members follow the flagship's wake
``trail[f]`` (``int64[nform, MAXTRAIL, 3]``: x, z, facing), ``SH_CUR`` MP behind it.
"""

from __future__ import annotations

from simlab.jit import kernel

from .. import layout as L
from ..enums import (
    AFLOAT,
    COLUMN,
    LINE,
)
from .geometry import DXA, DZA, hex_dist_nb, in_buf_nb


@kernel(error_model="numpy")
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


@kernel(error_model="numpy")
def commit_column_nb(trail, fm, f, mp, px, pz, pf, flag_row):
    """Append the flagship's new path to its column's wake and advance the head by ``mp``."""
    head = fm[f, L.FM_HEAD]
    for k in range(1, mp + 1):
        e = (head + k) % L.TRAIL
        trail[f, e, 0] = px[flag_row, k]
        trail[f, e, 1] = pz[flag_row, k]
        trail[f, e, 2] = pf[flag_row, k]
    fm[f, L.FM_HEAD] = head + mp


@kernel(error_model="numpy", no_cpython_wrapper=True)
def new_formation_nb(fm, n):
    """A free formation slot (``members == 0``), reset; -1 if none."""
    for f in range(n):
        if fm[f, L.FM_MEMBERS] == 0:
            for k in range(L.NFM):
                fm[f, k] = 0
            return f
    return -1


@kernel(error_model="numpy", no_cpython_wrapper=True)
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


@kernel(error_model="numpy", no_cpython_wrapper=True)
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


@kernel(error_model="numpy")
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


@kernel(error_model="numpy", no_cpython_wrapper=True)
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


@kernel(error_model="numpy")
def leg2_column_ok_nb(sh, f, n, flag, m1, px, pz, pf):
    """May line abreast formation ``f`` make its second leg in column (Rule 6.24)?

    Yes when, after the first leg (path entry ``m1``, written for every member), every member
    stands directly behind the flagship along the flagship's facing, facing the same way, the
    stacks one hex apart with no gap (the straight line of 6.24-6.25, now along the new course).

    Returns:
        The number of hexes from the flagship to the rearmost stack, or -1 if not.
    """
    fc = pf[flag, m1]
    hx = px[flag, m1]
    hz = pz[flag, m1]
    far = 0
    seen = 0          # bit d: a stack stands d hexes behind
    for i in range(n):
        if sh[i, L.SH_FORM] != f or sh[i, L.SH_STATUS] != AFLOAT:
            continue
        if pf[i, m1] != fc:
            return -1
        d = hex_dist_nb(hx, hz, px[i, m1], pz[i, m1])
        if d > 60 or px[i, m1] != hx - DXA[fc] * d or pz[i, m1] != hz - DZA[fc] * d:
            return -1
        seen |= 1 << d
        if d > far:
            far = d
    if seen != (1 << (far + 1)) - 1:
        return -1
    return far


@kernel(error_model="numpy")
def leg2_member_path_nb(flag, m1, mp, px, pz, pf, row):
    """Second leg in column of a member of a line abreast formation (Rule 6.24): entries
    ``m1 + 1 .. MAXMP`` of row ``row`` (its first leg, entries ``0 .. m1``, already written). The
    member, ``d`` hexes directly behind the flagship after the first leg, goes on along the line
    to the flagship's turning hex and then takes the flagship's path (``px[flag]``) one entry at a
    time, as a column member does (6.22); it spends ``mp`` MP in all."""
    fc = pf[flag, m1]
    d = hex_dist_nb(px[flag, m1], pz[flag, m1], px[row, m1], pz[row, m1])
    for t in range(m1 + 1, L.MAXMP + 1):
        u = (t if t <= mp else mp) - m1
        c = u - d
        if c <= 0:
            px[row, t] = px[flag, m1] + DXA[fc] * c
            pz[row, t] = pz[flag, m1] + DZA[fc] * c
            pf[row, t] = fc
        else:
            px[row, t] = px[flag, m1 + c]
            pz[row, t] = pz[flag, m1 + c]
            pf[row, t] = pf[flag, m1 + c]


@kernel(error_model="numpy")
def leg2_commit_nb(sh, fm, trail, f, n, flag, m1, mp, px, pz, pf):
    """After a Movement Phase whose second leg formation ``f`` made in column (Rule 6.24): the
    formation is a column from now on. Its wake is the line behind the flagship's turning hex
    (``far`` hexes, :func:`leg2_column_ok_nb`) followed by the flagship's second leg; each
    member's cursor is where its path ended (``SH_X``, ``SH_Z`` already committed)."""
    fc = pf[flag, m1]
    far = 0
    for i in range(n):
        if sh[i, L.SH_FORM] == f and sh[i, L.SH_STATUS] == AFLOAT:
            d = hex_dist_nb(px[flag, m1], pz[flag, m1], px[i, m1], pz[i, m1])
            if d > far:
                far = d
    for k in range(far + 1):
        e = (far - k) % L.TRAIL
        trail[f, e, 0] = px[flag, m1] - DXA[fc] * k
        trail[f, e, 1] = pz[flag, m1] - DZA[fc] * k
        trail[f, e, 2] = fc
    for c in range(1, mp - m1 + 1):
        e = (far + c) % L.TRAIL
        trail[f, e, 0] = px[flag, m1 + c]
        trail[f, e, 1] = pz[flag, m1 + c]
        trail[f, e, 2] = pf[flag, m1 + c]
    for i in range(n):
        if sh[i, L.SH_FORM] == f and sh[i, L.SH_STATUS] == AFLOAT:
            d = hex_dist_nb(px[flag, m1], pz[flag, m1], px[i, m1], pz[i, m1])
            sh[i, L.SH_CUR] = far - d + (mp - m1)
    fm[f, L.FM_MODE] = COLUMN
    fm[f, L.FM_HEAD] = far + mp - m1
    fm[f, L.FM_FLAG] = flag
    fm[f, L.FM_LEG2C] = 0
