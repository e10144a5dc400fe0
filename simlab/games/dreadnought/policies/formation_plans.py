"""Formation upkeep of the scripted and random-legal movement plots (Rules 6.21-6.28, 6.13): keeping,
regrouping, merging and rejoining formations (split from :mod:`.movement`, whose functions import them)."""

from __future__ import annotations

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    AFLOAT,
    COLUMN,
    LINE,
    MOVE_RANDOM,
)
from ..kernels.formations import (
    detach_nb,
    make_column_nb,
    refresh_formation_nb,
    straight_column_nb,
)
from ..kernels.geometry import hex_dist_nb
from ..kernels.movement import (
    speed_bounds_nb,
)
from .knowledge import alive_nb

MAXC = 256


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _bounds_nb(st, sh, f, n, rl):
    mn = 0
    mx = 1 << 30
    noabout = 0
    for i in range(n):
        if sh[i, L.SH_FORM] != f or not alive_nb(sh, i):
            continue
        a, b = speed_bounds_nb(st, sh, i, rl)
        if a > mn:
            mn = a
        if b < mx:
            mx = b
        if st[i, L.ST_NOABOUT]:
            noabout = 1
    return mn, mx, noabout



@kernel(error_model="numpy", no_cpython_wrapper=True)
def maintain_formations_nb(side, st, sh, fm, trail, n, rl, pc, buf, rng):
    """Start of a Movement Plot: drop dead members, detach ships that cannot keep the pace
    (their Movement Allowance below the best of the formation) unless policy code ``PC_KEEP_SLOW``
    is 1 (they stay and the formation moves at their pace), detach ships with ``3 +
    PC_KEEP_DAMAGED`` damage steps or more (0: three, 1: four, a wreck, 2: never; 6.27-6.28:
    dividing a formation is the player's choice), apply the policy's preferred
    mode where the formation stands in a straight line (Rules 6.24-6.28). Then (:func:`regroup_nb`)
    a line abreast formation may take a new flagship (``PC_FLAGSHIP``, 6.26) and formations
    standing together may merge (``PC_MERGE``, 6.27) or take a lone ship back (``PC_REJOIN``,
    6.28). ``random-legal`` (``MOVE_RANDOM``) makes each of these choices on coin flips of ``rng``
    (:func:`random_formations_nb`)."""
    code = pc[L.PC_MOVE]
    pref = pc[L.PC_MODE]
    drop_slow = pc[L.PC_KEEP_SLOW] == 0
    drop_damage = 3 + pc[L.PC_KEEP_DAMAGED]
    for f in range(n):
        if fm[f, L.FM_MEMBERS] == 0:
            continue
        flag = fm[f, L.FM_FLAG]
        if flag < 0 or st[flag, L.ST_SIDE] != side:
            continue
        cnt = refresh_formation_nb(sh, fm, f, n)
        if cnt == 0:
            continue
        if code == MOVE_RANDOM:
            random_formations_nb(st, sh, fm, trail, f, n, buf, rng)
            continue
        if cnt > 1:
            pace = -1
            for i in range(n):
                if sh[i, L.SH_FORM] == f and alive_nb(sh, i):
                    a, b = speed_bounds_nb(st, sh, i, rl)
                    if b > pace:
                        pace = b
            for i in range(n):
                if sh[i, L.SH_FORM] == f and alive_nb(sh, i) and fm[f, L.FM_MEMBERS] > 1:
                    a, b = speed_bounds_nb(st, sh, i, rl)
                    if (drop_slow and b < pace) or sh[i, L.SH_G] + sh[i, L.SH_S] >= drop_damage:
                        detach_nb(sh, fm, i, n)
            refresh_formation_nb(sh, fm, f, n)
        if fm[f, L.FM_MEMBERS] > 1 and pref != fm[f, L.FM_MODE] and pref >= 0:
            if straight_column_nb(sh, f, n, buf) > 0:
                if pref == COLUMN:
                    make_column_nb(sh, fm, trail, f, n)
                else:
                    fm[f, L.FM_MODE] = LINE
    if code != MOVE_RANDOM:
        regroup_nb(side, st, sh, fm, trail, n, rl, pc, buf)
    else:
        random_regroup_nb(side, st, sh, fm, trail, n, rl, pc, buf, rng)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def random_formations_nb(st, sh, fm, trail, f, n, buf, rng):
    """random-legal's choices for formation ``f`` at the start of a Movement Phase (Rules
    6.21-6.28), each on a coin flip of ``rng``: every member but the flagship leaves it (6.27-6.28:
    dividing is free, whatever the ship's speed or damage); a formation standing in a straight
    line takes column or line abreast (6.24); a line abreast formation takes any member as its
    flagship (6.26)."""
    flag = fm[f, L.FM_FLAG]
    for i in range(n):
        if sh[i, L.SH_FORM] == f and i != flag and alive_nb(sh, i) and fm[f, L.FM_MEMBERS] > 1 \
                and roll_nb(rng, 2) == 1:
            detach_nb(sh, fm, i, n)
    if fm[f, L.FM_MEMBERS] > 1 and straight_column_nb(sh, f, n, buf) > 0:
        if roll_nb(rng, 2) == 1:
            if fm[f, L.FM_MODE] != COLUMN:
                make_column_nb(sh, fm, trail, f, n)
        else:
            fm[f, L.FM_MODE] = LINE
    if fm[f, L.FM_MEMBERS] > 1 and fm[f, L.FM_MODE] == LINE:
        k = roll_nb(rng, fm[f, L.FM_MEMBERS])
        for i in range(n):
            if sh[i, L.SH_FORM] == f and alive_nb(sh, i):
                k -= 1
                if k == 0:
                    fm[f, L.FM_FLAG] = i
                    break


@kernel(error_model="numpy", no_cpython_wrapper=True)
def random_regroup_nb(side, st, sh, fm, trail, n, rl, pc, buf, rng):
    """random-legal's merging and rejoining (Rules 6.27-6.28): each pair of ``side``'s
    formations that may join (:func:`can_join_nb`, by the side's own ``keep_slow`` and
    ``keep_damaged``) joins on a coin flip of ``rng``."""
    for f in range(n):
        if fm[f, L.FM_MEMBERS] == 0:
            continue
        flag = fm[f, L.FM_FLAG]
        if flag < 0 or st[flag, L.ST_SIDE] != side or not alive_nb(sh, flag):
            continue
        for g in range(n):
            if g == f or fm[g, L.FM_MEMBERS] == 0 or fm[f, L.FM_MEMBERS] == 0:
                continue
            gf = fm[g, L.FM_FLAG]
            if gf < 0 or st[gf, L.ST_SIDE] != side or not alive_nb(sh, gf):
                continue
            if fm[g, L.FM_MEMBERS] > fm[f, L.FM_MEMBERS] or (fm[g, L.FM_MEMBERS] == fm[f, L.FM_MEMBERS] and g < f):
                continue
            if can_join_nb(st, sh, fm, f, g, n, rl, pc) and roll_nb(rng, 2) == 1:
                join_nb(sh, fm, trail, f, g, n, buf)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def regroup_nb(side, st, sh, fm, trail, n, rl, pc, buf):
    """The player's formation choices at the start of a Movement Phase after the drops of
    :func:`maintain_formations_nb` (Rules 6.26-6.28), by ``side``'s policy codes ``pc``:

    * ``PC_FLAGSHIP`` 1: each line abreast formation takes as flagship the member nearest the
      nearest enemy unit in play (6.26, 'change flagships ... citing a new flagship in the plot';
      the present one kept on ties); 0 keeps it while it lives. A column's flagship is its head
      (6.22), always.
    * ``PC_MERGE`` 1: two formations of two or more ships that stand together (:func:`can_join_nb`)
      become one, the larger taking the other (6.27, 'treated as one large formation').
    * ``PC_REJOIN`` 1: a ship moving alone that stands with a formation (or with another lone
      ship) joins it (6.28, 'rejoining later or joining with other ships in new formations').

    A formation joined to a column must leave it a straight column (its wake is rebuilt,
    :func:`..kernels.formations.make_column_nb`); else only line abreast formations take ships.
    ``buf``: ``int64[n, 3]`` scratch."""
    if pc[L.PC_FLAGSHIP] == 1:
        for f in range(n):
            if fm[f, L.FM_MEMBERS] < 2 or fm[f, L.FM_MODE] != LINE:
                continue
            flag = fm[f, L.FM_FLAG]
            if flag < 0 or st[flag, L.ST_SIDE] != side or not alive_nb(sh, flag):
                continue
            best = flag
            bestd = _enemy_dist_nb(side, st, sh, n, flag)
            for i in range(n):
                if sh[i, L.SH_FORM] == f and i != flag and alive_nb(sh, i):
                    d = _enemy_dist_nb(side, st, sh, n, i)
                    if d < bestd:
                        bestd = d
                        best = i
            fm[f, L.FM_FLAG] = best
    merge = pc[L.PC_MERGE] == 1
    rejoin = pc[L.PC_REJOIN] == 1
    if not merge and not rejoin:
        return
    for f in range(n):
        if fm[f, L.FM_MEMBERS] == 0:
            continue
        flag = fm[f, L.FM_FLAG]
        if flag < 0 or st[flag, L.ST_SIDE] != side or not alive_nb(sh, flag):
            continue
        for g in range(n):
            if g == f or fm[g, L.FM_MEMBERS] == 0 or fm[f, L.FM_MEMBERS] == 0:
                continue
            gf = fm[g, L.FM_FLAG]
            if gf < 0 or st[gf, L.ST_SIDE] != side or not alive_nb(sh, gf):
                continue
            # the larger formation takes the smaller (ties: the lower slot)
            if fm[g, L.FM_MEMBERS] > fm[f, L.FM_MEMBERS] or (fm[g, L.FM_MEMBERS] == fm[f, L.FM_MEMBERS] and g < f):
                continue
            lone = fm[g, L.FM_MEMBERS] == 1
            if (lone and not rejoin) or (not lone and not merge):
                continue
            if can_join_nb(st, sh, fm, f, g, n, rl, pc):
                join_nb(sh, fm, trail, f, g, n, buf)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _enemy_dist_nb(side, st, sh, n, i):
    """Hexes from unit ``i`` to the nearest enemy unit in play (``1 << 30``: none)."""
    best = 1 << 30
    for e in range(n):
        if st[e, L.ST_SIDE] != side and alive_nb(sh, e):
            d = hex_dist_nb(sh[e, L.SH_X], sh[e, L.SH_Z], sh[i, L.SH_X], sh[i, L.SH_Z])
            if d < best:
                best = d
    return best


@kernel(error_model="numpy", no_cpython_wrapper=True)
def can_join_nb(st, sh, fm, f, g, n, rl, pc):
    """May formation ``g`` join formation ``f`` (Rules 6.2, 6.27-6.28)? Every live member of both
    faces one way, is of the kind of ``f``'s flagship (capital ship or screen: the plots differ),
    tows and is towed by nobody (12.4), would not at once leave again by the policy's drops
    (:func:`maintain_formations_nb`: damage below ``3 + PC_KEEP_DAMAGED`` steps, and the same best
    Movement Allowance unless ``PC_KEEP_SLOW``), could all expend one number of MP this Game-Turn
    (their formations' :func:`_bounds_nb` ranges meet: 6.11 bounds each ship's speed by its last, and a
    formation moves as one), and some member of ``g`` stands in or next to the hex of a member of
    ``f`` (6.2: each ship adjacent to another)."""
    flag = fm[f, L.FM_FLAG]
    facing = sh[flag, L.SH_F]
    kind = st[flag, L.ST_KIND]
    pace = speed_bounds_nb(st, sh, flag, rl)[1]
    drop_slow = pc[L.PC_KEEP_SLOW] == 0
    drop_damage = 3 + pc[L.PC_KEEP_DAMAGED]
    mn_f, mx_f, _ = _bounds_nb(st, sh, f, n, rl)
    mn_g, mx_g, _ = _bounds_nb(st, sh, g, n, rl)
    if max(mn_f, mn_g) > min(mx_f, mx_g):
        return False
    touch = False
    for i in range(n):
        fi = sh[i, L.SH_FORM]
        if (fi != f and fi != g) or not alive_nb(sh, i):
            continue
        if sh[i, L.SH_F] != facing or st[i, L.ST_KIND] != kind or sh[i, L.SH_TOW] >= 0 \
                or sh[i, L.SH_TOWED_BY] >= 0 or sh[i, L.SH_G] + sh[i, L.SH_S] >= drop_damage:
            return False
        if drop_slow and speed_bounds_nb(st, sh, i, rl)[1] != pace:
            return False
        if fi == g and not touch:
            for j in range(n):
                if sh[j, L.SH_FORM] == f and alive_nb(sh, j) and \
                        hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z]) <= 1:
                    touch = True
                    break
    return touch


@kernel(error_model="numpy", no_cpython_wrapper=True)
def join_nb(sh, fm, trail, f, g, n, buf):
    """Formation ``g``'s live members join formation ``f`` (Rules 6.27-6.28): into a column only
    where all then stand in a straight column (its wake rebuilt, 6.24; else nothing changes),
    into a line abreast formation as they stand. Returns True if they joined."""
    for i in range(n):
        if sh[i, L.SH_FORM] == g and sh[i, L.SH_STATUS] == AFLOAT:
            sh[i, L.SH_FORM] = f
            sh[i, L.SH_CUR] = -1 - sh[i, L.SH_CUR]      # marked (cursors are >= 0) until kept
    if fm[f, L.FM_MODE] == COLUMN and straight_column_nb(sh, f, n, buf) == 0:
        for i in range(n):
            if sh[i, L.SH_FORM] == f and sh[i, L.SH_CUR] < 0:
                sh[i, L.SH_FORM] = g
                sh[i, L.SH_CUR] = -1 - sh[i, L.SH_CUR]
        return False
    for i in range(n):
        if sh[i, L.SH_FORM] == f and sh[i, L.SH_CUR] < 0:
            sh[i, L.SH_CUR] = -1 - sh[i, L.SH_CUR]
    fm[g, L.FM_MEMBERS] = 0
    if fm[f, L.FM_MODE] == COLUMN:
        make_column_nb(sh, fm, trail, f, n)
    refresh_formation_nb(sh, fm, f, n)
    return True


