"""The campaign's tactical additions (Rules 9.2-9.3, 9.41, 11.3-11.4): the Task Forces' approach
until contact, deployment after contact, delayed Task Forces entering, and moves off the initial
Map Area.

Per side arrays of a campaign scenario are by role: side 0 is North.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    AFLOAT,
    CAPITAL,
    LINE,
    WAITING,
)
from .formations import detach_nb, make_column_nb, new_formation_nb, straight_column_nb
from .geometry import DXA, DZA, hex_dist_nb, rotate_nb, row_of_nb
from .movement import collisions_nb


@kernel(error_model="numpy")
def on_initial_map_nb(x, z, sc):
    """Is hex ``(x, z)`` on the initial Map Area, sections A-F (Rule 9.11)?"""
    row = row_of_nb(x, z)
    return sc[L.SC_MAP_C0] <= x <= sc[L.SC_MAP_C1] and sc[L.SC_MAP_R0] <= row <= sc[L.SC_MAP_R1]


@kernel(error_model="numpy")
def track_off_map_nb(st, sh, n, px, pz, alive, exit_mp, sc, dy, turn):
    """Record the first Game-Turn and Movement Point at which each side moves a ship from the
    initial Map Area off it (11.3: the North concedes the Bombardment Bonus; 11.4: it loses the
    Interception Bonus)."""
    for i in range(n):
        if alive[i] == 0:
            continue
        side = st[i, L.ST_SIDE]
        if dy[L.DY_OFF_TURN0 + side] < turn:
            continue
        m = sh[i, L.SH_MP]
        for t in range(1, m + 1):
            if t > exit_mp[i]:
                break
            if on_initial_map_nb(px[i, t - 1], pz[i, t - 1], sc) and not on_initial_map_nb(px[i, t], pz[i, t], sc):
                if dy[L.DY_OFF_TURN0 + side] > turn or dy[L.DY_OFF_MP0 + side] > t:
                    dy[L.DY_OFF_TURN0 + side] = turn
                    dy[L.DY_OFF_MP0 + side] = t
                break


@kernel(error_model="numpy")
def first_off_map_nb(dy):
    """The side that first moved a ship off the initial Map Area, or -1 (none, or both at the same
    Movement Point; ruling DN-C6)."""
    a = dy[L.DY_OFF_TURN0] * 64 + (dy[L.DY_OFF_MP0] if dy[L.DY_OFF_MP0] < 64 else 63)
    b = dy[L.DY_OFF_TURN1] * 64 + (dy[L.DY_OFF_MP1] if dy[L.DY_OFF_MP1] < 64 else 63)
    if dy[L.DY_OFF_TURN0] >= L.NEVER and dy[L.DY_OFF_TURN1] >= L.NEVER:
        return -1
    if a < b:
        return 0
    if b < a:
        return 1
    return -1


@kernel(error_model="numpy")
def place_tf_nb(sh, n, tf, mx_, mz_, f, ex, ez, rng):
    """Replace Task Force ``tf``'s marker at ``(mx_, mz_)`` by its ships (Rules 9.25, 9.27, 9.33).

    Each member's place in the cruising formation (``SH_OX``, ``SH_OZ``, drawn facing north) is
    turned to the Task Force's course ``f``; the member nearest the enemy marker ``(ex, ez)`` goes
    into the marker's hex and the others keep their places around it; a die decides between
    equally near places (9.27). Every ship faces ``f``; speeds are left as set (the Task Force's).

    Returns:
        The number of ships placed.
    """
    pick = -1
    best = 1 << 30
    cnt = 0
    px_ = 0
    pz_ = 0
    for i in range(n):
        if sh[i, L.SH_TF] != tf:
            continue
        ox, oz = rotate_nb(sh[i, L.SH_OX], sh[i, L.SH_OZ], f)
        d = hex_dist_nb(mx_ + ox, mz_ + oz, ex, ez)
        if d < best:
            best = d
            pick = i
            px_ = ox
            pz_ = oz
            cnt = 1
        elif d == best and (ox != px_ or oz != pz_):
            cnt += 1
            if roll_nb(rng, cnt) == 1:
                pick = i
                px_ = ox
                pz_ = oz
    k = 0
    if pick < 0:
        return 0
    for i in range(n):
        if sh[i, L.SH_TF] != tf:
            continue
        ox, oz = rotate_nb(sh[i, L.SH_OX], sh[i, L.SH_OZ], f)
        sh[i, L.SH_X] = mx_ + ox - px_
        sh[i, L.SH_Z] = mz_ + oz - pz_
        sh[i, L.SH_F] = f
        sh[i, L.SH_STATUS] = AFLOAT
        k += 1
    return k


@kernel(error_model="numpy")
def form_tf_nb(st, sh, fm, trail, n, tf, buf):
    """Formations of a Task Force just placed (Rule 6.2): its capital ships one formation, in
    column where their stacks stand one behind the other (else each alone); screens alone."""
    f = -1
    cnt = 0
    for i in range(n):
        if sh[i, L.SH_TF] != tf or sh[i, L.SH_STATUS] != AFLOAT:
            continue
        if st[i, L.ST_KIND] == CAPITAL:
            if f < 0:
                f = new_formation_nb(fm, n)
                fm[f, L.FM_MODE] = LINE
                fm[f, L.FM_FLAG] = i
            cnt += 1
            fm[f, L.FM_MEMBERS] = cnt
            sh[i, L.SH_FORM] = f
            sh[i, L.SH_CUR] = 0
        else:
            sh[i, L.SH_FORM] = -1
            detach_nb(sh, fm, i, n)      # a formation of its own
    if cnt > 1:
        if straight_column_nb(sh, f, n, buf) > 0:
            make_column_nb(sh, fm, trail, f, n)
        else:
            for i in range(n):
                if sh[i, L.SH_FORM] == f and i != fm[f, L.FM_FLAG]:
                    detach_nb(sh, fm, i, n)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _nearest_enemy_nb(st, sh, n, side, x, z):
    best = -1
    bestd = 1 << 30
    for j in range(n):
        if st[j, L.ST_SIDE] == side or sh[j, L.SH_STATUS] != AFLOAT:
            continue
        d = hex_dist_nb(x, z, sh[j, L.SH_X], sh[j, L.SH_Z])
        if d < bestd:
            bestd = d
            best = j
    return best, bestd


@kernel(error_model="numpy")
def enter_delayed_nb(st, sh, fm, trail, n, turn, vis, rl, sc, rng, buf, displaced):
    """Delayed Task Forces entering after contact (Rule 9.28).

    A waiting Task Force (status ``WAITING``) whose entry Game-Turn has come enters at its plotted
    entry hex (held in its members' ``SH_X, SH_Z``, course in ``SH_F``). If that hex is within the
    visibility of an enemy ship, the marker is moved back against its course to the limit of
    visibility; then its ships are placed as in 9.25 and formed up; any clash with units already
    there is settled as in 6.13.

    Returns:
        The number of Task Forces that entered.
    """
    entered = 0
    for tf in range(8):
        first = -1
        for i in range(n):
            if sh[i, L.SH_STATUS] == WAITING and sh[i, L.SH_TF] == tf and sh[i, L.SH_ENTRY] <= turn:
                first = i
                break
        if first < 0:
            continue
        side = st[first, L.ST_SIDE]
        mx_ = sh[first, L.SH_X]
        mz_ = sh[first, L.SH_Z]
        f = sh[first, L.SH_F]
        e, d = _nearest_enemy_nb(st, sh, n, side, mx_, mz_)
        if e >= 0:
            k = 0
            while d < vis and k < 64:
                mx_ -= DXA[f]
                mz_ -= DZA[f]
                d = hex_dist_nb(mx_, mz_, sh[e, L.SH_X], sh[e, L.SH_Z])
                k += 1
            ex = sh[e, L.SH_X]
            ez = sh[e, L.SH_Z]
        else:
            ex = mx_ + DXA[f] * 20
            ez = mz_ + DZA[f] * 20
        place_tf_nb(sh, n, tf, mx_, mz_, f, ex, ez, rng)
        form_tf_nb(st, sh, fm, trail, n, tf, buf)
        entered += 1
    if entered > 0:
        for i in range(n):
            displaced[i] = 0
        collisions_nb(st, sh, n, rng, rl, sc, displaced)
        for i in range(n):
            if displaced[i] and fm[sh[i, L.SH_FORM], L.FM_MEMBERS] > 1:
                detach_nb(sh, fm, i, n)
    return entered


@kernel(error_model="numpy")
def step_toward_nb(x, z, f, tx, tz):
    """The direction of one step on a shortest path from ``(x, z)`` to ``(tx, tz)`` (Rule 9.24),
    the one nearest the present course ``f`` where several are shortest; -1 if already there."""
    d0 = hex_dist_nb(x, z, tx, tz)
    if d0 == 0:
        return -1
    best = -1
    bestkey = 1 << 30
    for k in range(6):
        if hex_dist_nb(x + DXA[k], z + DZA[k], tx, tz) >= d0:
            continue
        t = (k - f) % 6
        if 6 - t < t:
            t = 6 - t
        if t < bestkey:
            bestkey = t
            best = k
    return best


@kernel(error_model="numpy")
def nearest_enemy_marker_nb(ta, k):
    """The opposing Task Force marker on the map nearest Task Force ``k``'s, or -1 (Rule 9.25)."""
    best = -1
    bestd = 1 << 30
    for j in range(L.NTF):
        if ta[j, L.TA_MEMBERS] > 0 and ta[j, L.TA_STATE] == L.TF_MARKER and ta[j, L.TA_SIDE] != ta[k, L.TA_SIDE]:
            d = hex_dist_nb(ta[k, L.TA_X], ta[k, L.TA_Z], ta[j, L.TA_X], ta[j, L.TA_Z])
            if d < bestd:
                bestd = d
                best = j
    return best


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _tf_target_nb(ta, k, centres, tours, edge_row):
    """Where Task Force ``k`` heads now: its tour's next lettered hex, its own edge after the
    sixth (Rule 9.22), or, on a new plot after a tour without contact, the nearest enemy marker
    (9.26, ruling DN-C3)."""
    leg = ta[k, L.TA_LEG]
    if leg < 6:
        c = tours[ta[k, L.TA_TOUR], leg]
        return centres[c, 0], centres[c, 1]
    if leg == 7:
        best = nearest_enemy_marker_nb(ta, k)
        if best >= 0:
            return ta[best, L.TA_X], ta[best, L.TA_Z]
    x = ta[k, L.TA_X]
    return x, edge_row - (x - (x & 1)) // 2


@kernel(error_model="numpy")
def approach_nb(ta, centres, tours_n, tours_s, sc, vis_base, rl, rng, cap):
    """The initial movement of the Task Force markers until contact (Rules 9.22-9.28, 9.26).

    Each Game-Turn the visibility is rolled (5.71); markers move MP by MP together, a marker
    entering on its plotted Game-Turn spends its first MP on its entry hex (9.22, 9.28), and each
    takes the shortest path through the lettered hexes of its tour (9.24) and back to its own
    edge, where instead of exiting it is given a new plot (9.26): toward the nearest enemy marker
    (markers are on the map for both players to see, 9.23), or another tour if none has entered
    yet. Contact is made the moment two
    opposing markers are within the visibility (9.24); a delayed marker entering in sight is put
    back to the limit of visibility (9.28).

    Args:
        ta: ``int64[NTF, NTA]`` the Task Forces (marker state written).
        centres: ``int64[6, 2]`` cube hexes of the lettered hexes A-F; tours_n, tours_s:
            ``int64[k, 6]`` section orders for North and South; sc: the scenario scalars (map).
        cap: the most Game-Turns to try.

    Returns:
        ``(turn, mp, vis)`` of the contact, or ``(0, 0, 0)`` if none came within ``cap``.
    """
    for turn in range(1, cap + 1):
        vis = vis_base + roll_nb(rng, rl[L.RL_VIS_DIE])
        maxs = 0
        for k in range(L.NTF):
            if ta[k, L.TA_MEMBERS] > 0 and ta[k, L.TA_SPEED] > maxs:
                maxs = ta[k, L.TA_SPEED]
        if maxs < 1:
            maxs = 1
        for m in range(1, maxs + 1):
            for k in range(L.NTF):
                if ta[k, L.TA_MEMBERS] == 0:
                    continue
                north = ta[k, L.TA_SIDE] == 0
                edge = sc[L.SC_MAP_R0] if north else sc[L.SC_MAP_R1]
                tours = tours_n if north else tours_s
                if ta[k, L.TA_STATE] == L.TF_WAITING:
                    if ta[k, L.TA_ENTRY] == turn and m == 1:
                        ta[k, L.TA_STATE] = L.TF_MARKER
                        ta[k, L.TA_X] = ta[k, L.TA_EX]
                        ta[k, L.TA_Z] = ta[k, L.TA_EZ]
                        ta[k, L.TA_F] = ta[k, L.TA_EF]
                        # 9.28: a marker entering in sight is put back to the limit of visibility
                        for j in range(L.NTF):
                            if ta[j, L.TA_MEMBERS] > 0 and ta[j, L.TA_STATE] == L.TF_MARKER and \
                                    ta[j, L.TA_SIDE] != ta[k, L.TA_SIDE]:
                                kk = 0
                                while hex_dist_nb(ta[k, L.TA_X], ta[k, L.TA_Z], ta[j, L.TA_X], ta[j, L.TA_Z]) < vis \
                                        and kk < 64:
                                    ta[k, L.TA_X] -= DXA[ta[k, L.TA_F]]
                                    ta[k, L.TA_Z] -= DZA[ta[k, L.TA_F]]
                                    kk += 1
                    continue
                if ta[k, L.TA_SPEED] < m:
                    continue
                for _ in range(8):   # reach a target: take the next (a new tour at the edge, 9.26)
                    tx, tz = _tf_target_nb(ta, k, centres, tours, edge)
                    d = step_toward_nb(ta[k, L.TA_X], ta[k, L.TA_Z], ta[k, L.TA_F], tx, tz)
                    if d >= 0:
                        ta[k, L.TA_X] += DXA[d]
                        ta[k, L.TA_Z] += DZA[d]
                        ta[k, L.TA_F] = d
                        break
                    if ta[k, L.TA_LEG] < 6:
                        ta[k, L.TA_LEG] += 1
                    else:
                        # 9.26: no contact by the end of the tour: a new plot instead of exiting,
                        # made for the nearest enemy marker in sight on the map (ruling DN-C3);
                        # with none on the map, another tour
                        if nearest_enemy_marker_nb(ta, k) >= 0 and ta[k, L.TA_LEG] == 6:
                            ta[k, L.TA_LEG] = 7
                        else:
                            ta[k, L.TA_TOUR] = roll_nb(rng, tours.shape[0]) - 1
                            ta[k, L.TA_LEG] = 0
            for a in range(L.NTF):
                if ta[a, L.TA_MEMBERS] == 0 or ta[a, L.TA_STATE] != L.TF_MARKER or ta[a, L.TA_SIDE] != 0:
                    continue
                for b in range(L.NTF):
                    if ta[b, L.TA_MEMBERS] == 0 or ta[b, L.TA_STATE] != L.TF_MARKER or ta[b, L.TA_SIDE] != 1:
                        continue
                    if hex_dist_nb(ta[a, L.TA_X], ta[a, L.TA_Z], ta[b, L.TA_X], ta[b, L.TA_Z]) <= vis:
                        return turn, m, vis
    return 0, 0, 0


@kernel(error_model="numpy", nrt=True)   # allocates: reference counting kept under a nrt=False caller
def deploy_after_contact_nb(st, sh, fm, trail, n, ta, rl, sc, rng):
    """After contact (Rules 9.25-9.28, 9.33): every marker on the map is replaced by its ships,
    placed around the marker's hex with the ship nearest the nearest enemy marker in it; Task
    Forces not yet entered wait (status ``WAITING``) at their entry hexes for their Game-Turn.
    Clashes with units placed before are settled as in 6.13.

    Returns:
        The number of units moved by that settling.
    """
    buf = np.zeros((n, 3), dtype=np.int64)
    displaced = np.zeros(n, dtype=np.int64)
    for k in range(L.NTF):
        if ta[k, L.TA_MEMBERS] == 0:
            continue
        if ta[k, L.TA_STATE] != L.TF_MARKER:
            for i in range(n):
                if sh[i, L.SH_TF] == k:
                    sh[i, L.SH_STATUS] = WAITING
                    sh[i, L.SH_X] = ta[k, L.TA_EX]
                    sh[i, L.SH_Z] = ta[k, L.TA_EZ]
                    sh[i, L.SH_F] = ta[k, L.TA_EF]
                    sh[i, L.SH_ENTRY] = ta[k, L.TA_ENTRY]
            continue
        best = nearest_enemy_marker_nb(ta, k)
        place_tf_nb(sh, n, k, ta[k, L.TA_X], ta[k, L.TA_Z], ta[k, L.TA_F], ta[best, L.TA_X], ta[best, L.TA_Z], rng)
        form_tf_nb(st, sh, fm, trail, n, k, buf)
        ta[k, L.TA_STATE] = L.TF_PLACED
    moved, fixed = collisions_nb(st, sh, n, rng, rl, sc, displaced)
    for i in range(n):
        if displaced[i] and sh[i, L.SH_FORM] >= 0 and fm[sh[i, L.SH_FORM], L.FM_MEMBERS] > 1:
            detach_nb(sh, fm, i, n)
    return moved + fixed
