"""Movement kernels: plots, paths, speed limits, formations, stacking and collisions (Rules 6-7).

A movement plot of one unit or formation flagship is ``(t1, l1, t2, l2)``: turn ``t1`` hexsides
at the start (-2..3, positive clockwise; 3 is about face), move ``l1`` hexes, turn ``t2``, move
``l2`` hexes (Rule 6.12: at most two facing changes, 7.2). One hexside is free; two cost 2 MP and
three 3 MP (7.3). The plot is legal when:

* a unit that enters no hex does not turn (ruling DN-M1);
* ``t2 != 0`` only after ``l1 >= 1`` and with ``l2 >= l1`` (6.12: no turn in the last hex, last
  leg at least the earlier one);
* its MP ``l1 + l2 + costs`` lies within the unit's speed bounds (6.11, 6.4; :func:`speed_bounds_nb`);
* every hex entered is allowed (:func:`hex_allowed_nb`): inside a scenario's confinement, not in
  the enemy's safe zone, not back out of the unit's own safe zone (9.13-9.15).

Paths are written MP by MP into ``px, pz, pf`` (``int64[n, MAXMP + 1]``): entry ``t`` is where the
unit is (and how it faces) after its ``t``-th MP; entry 0 is the start. A unit that has spent its
MP stays where it is. Column members take their path from the flagship's wake (``trail``, 6.22).
"""

from __future__ import annotations

from numba import njit

from ...rng import roll_nb
from . import layout as L
from .enums import AFLOAT, COLUMN, LINE, ROLE_NORTH, SCREEN
from .fire import movement_allowance_nb
from .geometry import DXA, DZA, hex_dist_nb, row_of_nb


@njit(cache=True, inline="always")
def turn_cost_nb(t, rl):
    """MP cost of turning ``t`` hexsides in a hex (Rule 7.0, 7.31, 7.32)."""
    a = t if t >= 0 else -t
    if a <= 1:
        return 0
    if a == 2:
        return rl[L.RL_TURN2]
    return rl[L.RL_TURN3]


@njit(cache=True)
def speed_bounds_nb(st, sh, i, rl):
    """Least and most MP unit ``i`` may expend this Game-Turn (Rules 6.11, 6.4).

    The least is the last speed less 50% rounded up (6 -> 3, 3 -> 1, 1 -> 0), even for a unit
    that has lost its speed (6.4: it keeps moving); the most is the smaller of the Movement
    Allowance after S damage and twice the last speed, and a stopped unit may get under way at
    1 MP (ruling DN-M2); it is never below the least.

    Returns:
        ``(least, most)`` in MP.
    """
    old = sh[i, L.SH_SPD]
    allow = movement_allowance_nb(st[i, L.ST_MOV], sh[i, L.SH_S])
    dec = (old * rl[L.RL_DECEL_PCT] + 99) // 100
    mn = old - dec
    mx = old + old * rl[L.RL_ACCEL_PCT] // 100
    if mx < 1:
        mx = 1
    if allow < mx:
        mx = allow
    if mx < mn:
        mx = mn
    if mx > L.MAXMP:
        mx = L.MAXMP
    if mn > L.MAXMP:
        mn = L.MAXMP
    return mn, mx


@njit(cache=True)
def plot_mp_nb(t1, l1, t2, l2, rl):
    """MP a plot expends (hexes entered plus radical-turn costs), or -1 if its shape is illegal."""
    if l1 < 0 or l2 < 0:
        return -1
    if l1 + l2 == 0:
        if t1 != 0 or t2 != 0:
            return -1
        return 0
    if t2 != 0:
        if l1 < 1 or l2 < l1:
            return -1
    elif l2 != 0:
        return -1
    return l1 + l2 + turn_cost_nb(t1, rl) + turn_cost_nb(t2, rl)


@njit(cache=True)
def plot_end_nb(x, z, f, t1, l1, t2, l2):
    """Where a plot ends: ``(x, z, facing)``."""
    f1 = (f + t1) % 6
    x += DXA[f1] * l1
    z += DZA[f1] * l1
    f2 = (f1 + t2) % 6
    x += DXA[f2] * l2
    z += DZA[f2] * l2
    return x, z, f2


@njit(cache=True)
def plot_path_nb(x, z, f, t1, l1, t2, l2, rl, px, pz, pf, row):
    """Write the MP-by-MP path of a plot into row ``row`` of ``px, pz, pf``.

    Turning in a hex spends its MP in place (the new facing shows from the turn's first MP).

    Returns:
        The MP expended.
    """
    t = 0
    px[row, 0] = x
    pz[row, 0] = z
    pf[row, 0] = f
    f = (f + t1) % 6
    for _ in range(turn_cost_nb(t1, rl)):
        t += 1
        px[row, t] = x
        pz[row, t] = z
        pf[row, t] = f
    for _ in range(l1):
        x += DXA[f]
        z += DZA[f]
        t += 1
        px[row, t] = x
        pz[row, t] = z
        pf[row, t] = f
    if t2 != 0:
        f = (f + t2) % 6
        for _ in range(turn_cost_nb(t2, rl)):
            t += 1
            px[row, t] = x
            pz[row, t] = z
            pf[row, t] = f
        for _ in range(l2):
            x += DXA[f]
            z += DZA[f]
            t += 1
            px[row, t] = x
            pz[row, t] = z
            pf[row, t] = f
    for k in range(t + 1, L.MAXMP + 1):
        px[row, k] = x
        pz[row, k] = z
        pf[row, k] = f
    return t


@njit(cache=True, inline="always")
def role_of_nb(side, sc):
    """ROLE_NORTH or ROLE_SOUTH of a side (Rule 9.13)."""
    r0 = sc[L.SC_ROLE0]
    return r0 if side == 0 else 1 - r0


@njit(cache=True)
def in_exit_nb(st, i, x, z, sc):
    """True if unit ``i`` may leave play through hex ``(x, z)`` (a scenario's exit, 10.4-10.5)."""
    if sc[L.SC_EXIT] == 0 or st[i, L.ST_EXIT] == 0:
        return False
    col = x
    row = row_of_nb(x, z)
    return sc[L.SC_EXIT_C0] <= col <= sc[L.SC_EXIT_C1] and sc[L.SC_EXIT_R0] <= row <= sc[L.SC_EXIT_R1]


@njit(cache=True)
def in_own_safe_zone_nb(side, x, z, sc):
    """True if hex ``(x, z)`` lies in the safe zone of ``side`` (tier Three on its side, 9.13)."""
    row = row_of_nb(x, z)
    if role_of_nb(side, sc) == ROLE_NORTH:
        return row <= sc[L.SC_SAFE_N_ROW]
    return row >= sc[L.SC_SAFE_S_ROW]


@njit(cache=True)
def hex_allowed_nb(st, sh, i, x, z, sc):
    """May unit ``i`` enter hex ``(x, z)``? (confinement 10.5; safe zones 9.13-9.15; exits)."""
    if in_exit_nb(st, i, x, z, sc):
        return True
    row = row_of_nb(x, z)
    if sc[L.SC_CONF]:
        if not (sc[L.SC_CONF_C0] <= x <= sc[L.SC_CONF_C1] and sc[L.SC_CONF_R0] <= row <= sc[L.SC_CONF_R1]):
            return False
    side = st[i, L.ST_SIDE]
    if role_of_nb(side, sc) == ROLE_NORTH:
        if row >= sc[L.SC_SAFE_S_ROW]:
            return False
        if sh[i, L.SH_SAFE] and row > sc[L.SC_SAFE_N_ROW]:
            return False
    else:
        if row <= sc[L.SC_SAFE_N_ROW]:
            return False
        if sh[i, L.SH_SAFE] and row < sc[L.SC_SAFE_S_ROW]:
            return False
    return True


@njit(cache=True)
def path_allowed_nb(st, sh, i, px, pz, row, mp, sc):
    """Check the hexes a path enters for unit ``i``.

    Returns:
        ``(ok, exit_mp)``: ok is False if a hex is not allowed; exit_mp is the MP at which the
        unit enters an exit hex (it leaves play there), or ``L.MAXMP + 1``.
    """
    for t in range(1, mp + 1):
        x = px[row, t]
        z = pz[row, t]
        if x == px[row, t - 1] and z == pz[row, t - 1]:
            continue
        if in_exit_nb(st, i, x, z, sc):
            return True, t
        if not hex_allowed_nb(st, sh, i, x, z, sc):
            return False, L.MAXMP + 1
    return True, L.MAXMP + 1


@njit(cache=True)
def truncate_at_exit_nb(px, pz, pf, row, exit_mp):
    """After a unit enters an exit hex it stays there (it has left play)."""
    if exit_mp <= L.MAXMP:
        for k in range(exit_mp + 1, L.MAXMP + 1):
            px[row, k] = px[row, exit_mp]
            pz[row, k] = pz[row, exit_mp]
            pf[row, k] = pf[row, exit_mp]


@njit(cache=True)
def on_map_nb(sh, i):
    """True while unit ``i`` is in play (afloat and not exited)."""
    return sh[i, L.SH_STATUS] == AFLOAT


@njit(cache=True)
def stack_ok_nb(st, sh, i, x, z, f, planned, n, rl):
    """May unit ``i`` end its movement in ``(x, z)`` facing ``f``? (Rules 6.13, 6.31, 6.33)

    Checks the end positions already planned this phase for its own side (``planned[j] == 1``,
    positions in ``SH_PX/PZ/PF``) and the current hexes of enemy units (6.13: a ship may not enter
    a hex containing an Enemy ship; where both sides still end in one hex, :func:`collisions_nb`
    settles it).
    """
    side = st[i, L.ST_SIDE]
    scr = st[i, L.ST_KIND] == SCREEN
    cnt = 1
    for j in range(n):
        if j == i or sh[j, L.SH_STATUS] != AFLOAT:
            continue
        if st[j, L.ST_SIDE] != side:
            if sh[j, L.SH_X] == x and sh[j, L.SH_Z] == z:
                return False
            continue
        if planned[j] == 0:
            continue
        if sh[j, L.SH_PX] != x or sh[j, L.SH_PZ] != z:
            continue
        if scr or st[j, L.ST_KIND] == SCREEN:
            return False
        if sh[j, L.SH_PF] != f:
            return False
        cnt += 1
    return scr or cnt <= rl[L.RL_STACK]


@njit(cache=True)
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


@njit(cache=True)
def commit_column_nb(trail, fm, f, mp, px, pz, pf, flag_row):
    """Append the flagship's new path to its column's wake and advance the head by ``mp``."""
    head = fm[f, L.FM_HEAD]
    for k in range(1, mp + 1):
        e = (head + k) % L.TRAIL
        trail[f, e, 0] = px[flag_row, k]
        trail[f, e, 1] = pz[flag_row, k]
        trail[f, e, 2] = pf[flag_row, k]
    fm[f, L.FM_HEAD] = head + mp


@njit(cache=True)
def new_formation_nb(fm, n):
    """A free formation slot (``members == 0``), reset; -1 if none."""
    for f in range(n):
        if fm[f, L.FM_MEMBERS] == 0:
            for k in range(L.NFM):
                fm[f, k] = 0
            return f
    return -1


@njit(cache=True)
def detach_nb(sh, fm, i, n):
    """Unit ``i`` leaves its formation and moves alone from now on (Rules 6.27-6.28)."""
    f = sh[i, L.SH_FORM]
    if f >= 0 and fm[f, L.FM_MEMBERS] == 1 and fm[f, L.FM_FLAG] == i:
        fm[f, L.FM_MODE] = LINE
        return f
    g = new_formation_nb(fm, n)
    if f >= 0:
        fm[f, L.FM_MEMBERS] -= 1
    fm[g, L.FM_MODE] = LINE
    fm[g, L.FM_FLAG] = i
    fm[g, L.FM_MEMBERS] = 1
    sh[i, L.SH_FORM] = g
    sh[i, L.SH_CUR] = 0
    return g


@njit(cache=True)
def refresh_formation_nb(st, sh, fm, f, n):
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


@njit(cache=True)
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
        dup = False
        for j in range(k):
            if buf[j, 0] == x and buf[j, 1] == z:
                dup = True
                break
        if not dup:
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
        ahead = False
        for m in range(k):
            if buf[m, 0] == buf[j, 0] + dx and buf[m, 1] == buf[j, 1] + dz:
                ahead = True
                break
        if not ahead:
            if head >= 0:
                return 0
            head = j
    cx = buf[head, 0]
    cz = buf[head, 1]
    seen = 1
    while seen < k:
        cx -= dx
        cz -= dz
        found = False
        for m in range(k):
            if buf[m, 0] == cx and buf[m, 1] == cz:
                found = True
                break
        if not found:
            return 0
        seen += 1
    return k


@njit(cache=True)
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


@njit(cache=True)
def collisions_nb(st, sh, n, rng_roll, rl, sc, displaced):
    """Settle opposing units ending in one hex (Rule 6.13) and any over-stacking (6.31-6.33).

    For each hex holding both sides, both roll a die (ties re-rolled); the lower roll's units move
    one hex, as close to their course as possible: ahead, ahead-right, ahead-left, ... (the first
    hex that takes them without enemies and within the stacking limits). A side's own
    over-stacking (which the policies avoid) is settled the same way, last units first.

    Args:
        rng_roll: the game's stream; displaced: ``int64[n]`` set to 1 for each unit moved.

    Returns:
        The number of units moved.
    """
    moved = 0
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        x = sh[i, L.SH_X]
        z = sh[i, L.SH_Z]
        enemy = False
        for j in range(n):
            if j != i and sh[j, L.SH_STATUS] == AFLOAT and st[j, L.ST_SIDE] != st[i, L.ST_SIDE] \
                    and sh[j, L.SH_X] == x and sh[j, L.SH_Z] == z:
                enemy = True
                break
        if not enemy:
            continue
        a = 0
        b = 0
        while a == b:
            a = _d6(rng_roll)
            b = _d6(rng_roll)
        loser = st[i, L.ST_SIDE] if a < b else 1 - st[i, L.ST_SIDE]
        for j in range(n):
            if sh[j, L.SH_STATUS] == AFLOAT and st[j, L.ST_SIDE] == loser and sh[j, L.SH_X] == x \
                    and sh[j, L.SH_Z] == z:
                _displace_nb(st, sh, j, n, rl, sc)
                displaced[j] = 1
                moved += 1
    # own-side over-stacking (a safety net: the policies never plot it)
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        if not _stack_legal_here_nb(st, sh, i, n, rl):
            _displace_nb(st, sh, i, n, rl, sc)
            displaced[i] = 1
            moved += 1
    return moved


@njit(cache=True, inline="always")
def _d6(rng):
    return roll_nb(rng, 6)


@njit(cache=True)
def _stack_legal_here_nb(st, sh, i, n, rl):
    """Is unit ``i`` legal where it stands, counting only units before it in its hex?"""
    x = sh[i, L.SH_X]
    z = sh[i, L.SH_Z]
    cnt = 1
    for j in range(i):
        if sh[j, L.SH_STATUS] != AFLOAT or sh[j, L.SH_X] != x or sh[j, L.SH_Z] != z:
            continue
        if st[j, L.ST_SIDE] != st[i, L.ST_SIDE]:
            return False
        if st[i, L.ST_KIND] == SCREEN or st[j, L.ST_KIND] == SCREEN:
            return False
        if sh[j, L.SH_F] != sh[i, L.SH_F]:
            return False
        cnt += 1
    return st[i, L.ST_KIND] == SCREEN or cnt <= rl[L.RL_STACK]


@njit(cache=True)
def _fits_nb(st, sh, i, x, z, n, rl):
    side = st[i, L.ST_SIDE]
    scr = st[i, L.ST_KIND] == SCREEN
    cnt = 1
    for j in range(n):
        if j == i or sh[j, L.SH_STATUS] != AFLOAT or sh[j, L.SH_X] != x or sh[j, L.SH_Z] != z:
            continue
        if st[j, L.ST_SIDE] != side:
            return False
        if scr or st[j, L.ST_KIND] == SCREEN or sh[j, L.SH_F] != sh[i, L.SH_F]:
            return False
        cnt += 1
    return scr or cnt <= rl[L.RL_STACK]


@njit(cache=True)
def _displace_nb(st, sh, i, n, rl, sc):
    f = sh[i, L.SH_F]
    x0 = sh[i, L.SH_X]
    z0 = sh[i, L.SH_Z]
    order = (0, 1, -1, 2, -2, 3)
    for ring in range(1, 8):
        for o in order:
            d = (f + o) % 6
            # a hex ``ring`` steps out: go along d, then bend toward d+2 for the rest of the ring
            for k in range(ring):
                x = x0 + DXA[d] * (ring - k) + DXA[(d + 2) % 6] * k
                z = z0 + DZA[d] * (ring - k) + DZA[(d + 2) % 6] * k
                if not hex_allowed_nb(st, sh, i, x, z, sc) or in_exit_nb(st, i, x, z, sc):
                    continue
                if _fits_nb(st, sh, i, x, z, n, rl):
                    sh[i, L.SH_X] = x
                    sh[i, L.SH_Z] = z
                    return
    # no free hex within 7: stay (cannot happen with fewer than ~150 units)

