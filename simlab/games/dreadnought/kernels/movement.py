"""Movement (Rules 6-7, 9.13-9.15, 10.5; optional rules 12.3-12.4): plots and paths, speed limits,
confinement and safe zones, stacking, collisions, tows, and the Movement Execution Phase.

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
MP stays where it is. Column members take their path from the flagship's wake (``trail``, 6.22;
:mod:`.formations`).

Creep (12.3) is in :func:`speed_bounds_nb`. Towing (12.4): a capital ship or CA/CL unit stacks
with an immobile friendly capital ship, both lie still two Game-Turns, then the pair moves at
most 2 MP.
"""

from __future__ import annotations

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    AFLOAT,
    CAPITAL,
    COLUMN,
    EXITED,
    MOVE_RANDOM,
    ROLE_NORTH,
    SCREEN,
    TYPE_CA,
    TYPE_CAPITAL,
    TYPE_CL,
)
from .damage import by_damage_nb, wrecked_nb
from .formations import commit_column_nb, detach_nb, leg2_commit_nb, make_column_nb, straight_column_nb
from .geometry import DXA, DZA, hex_dist_nb, row_of_nb


@kernel(error_model="numpy", no_cpython_wrapper=True)
def turn_cost_nb(t, rl):
    """MP cost of turning ``t`` hexsides in a hex (Rule 7.0, 7.31, 7.32)."""
    a = t if t >= 0 else -t
    if a <= 1:
        return 0
    if a == 2:
        return rl[L.RL_TURN2]
    return rl[L.RL_TURN3]


@kernel(error_model="numpy")
def speed_bounds_nb(st, sh, i, rl):
    """Least and most MP unit ``i`` may expend this Game-Turn (Rules 6.11, 6.4).

    The least is the last speed less 50% rounded up (6 -> 3, 3 -> 1, 1 -> 0), even for a unit
    that has lost its speed (6.4: it keeps moving); the most is the smaller of the Movement
    Allowance after S damage and twice the last speed, and a stopped unit may get under way at
    1 MP (ruling DN-M2); it is never below the least. Optional rules: a unit at 2S but below 2G
    creeps at 1 MP (12.3); a towing unit makes at most 2 MP (12.41).

    Returns:
        ``(least, most)`` in MP.
    """
    old = sh[i, L.SH_SPD]
    allow = by_damage_nb(st[i, L.ST_MOV], sh[i, L.SH_S])
    if rl[L.RL_OPT_CREEP] and sh[i, L.SH_S] >= 2 and sh[i, L.SH_G] < 2:
        allow = rl[L.RL_CREEP_MP]       # Rule 12.3: creep
    dec = (old * rl[L.RL_DECEL_PCT] + 99) // 100
    mn = old - dec
    mx = old + old * rl[L.RL_ACCEL_PCT] // 100
    if mx < 1:
        mx = 1
    if allow < mx:
        mx = allow
    if rl[L.RL_OPT_TOWING] and sh[i, L.SH_TOW] >= 0 and mx > rl[L.RL_TOW_MP]:
        mx = rl[L.RL_TOW_MP]            # Rule 12.41: a tow makes at most 2 MP
    if mx < mn:
        mx = mn
    if mx > L.MAXMP:
        mx = L.MAXMP
    if mn > L.MAXMP:
        mn = L.MAXMP
    return mn, mx


@kernel(error_model="numpy")
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


@kernel(error_model="numpy")
def plot_end_nb(x, z, f, t1, l1, t2, l2):
    """Where a plot ends: ``(x, z, facing)``."""
    f1 = (f + t1) % 6
    x += DXA[f1] * l1
    z += DZA[f1] * l1
    f2 = (f1 + t2) % 6
    x += DXA[f2] * l2
    z += DZA[f2] * l2
    return x, z, f2


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _leg_nb(x, z, f, turn, hexes, rl, px, pz, pf, row, t):
    """One leg of a plot: turn in the hex (its MP spent in place), then ``hexes`` hexes ahead;
    writes entries ``t + 1 ...`` of the path. Returns ``(x, z, facing, t)``."""
    f = (f + turn) % 6
    for _ in range(turn_cost_nb(turn, rl)):
        t += 1
        px[row, t] = x
        pz[row, t] = z
        pf[row, t] = f
    for _ in range(hexes):
        x += DXA[f]
        z += DZA[f]
        t += 1
        px[row, t] = x
        pz[row, t] = z
        pf[row, t] = f
    return x, z, f, t


@kernel(error_model="numpy")
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
    x, z, f, t = _leg_nb(x, z, f, t1, l1, rl, px, pz, pf, row, t)
    if t2 != 0:
        x, z, f, t = _leg_nb(x, z, f, t2, l2, rl, px, pz, pf, row, t)
    for k in range(t + 1, L.MAXMP + 1):
        px[row, k] = x
        pz[row, k] = z
        pf[row, k] = f
    return t


@kernel(error_model="numpy", no_cpython_wrapper=True)
def role_of_nb(side, sc):
    """ROLE_NORTH or ROLE_SOUTH of a side (Rule 9.13)."""
    r0 = sc[L.SC_ROLE0]
    return r0 if side == 0 else 1 - r0


@kernel(error_model="numpy", no_cpython_wrapper=True)
def in_exit_nb(st, i, x, z, sc):
    """True if unit ``i`` may leave play through hex ``(x, z)`` (a scenario's exit, 10.4-10.5)."""
    if sc[L.SC_EXIT] == 0 or st[i, L.ST_EXIT] == 0:
        return False
    col = x
    row = row_of_nb(x, z)
    return sc[L.SC_EXIT_C0] <= col <= sc[L.SC_EXIT_C1] and sc[L.SC_EXIT_R0] <= row <= sc[L.SC_EXIT_R1]


@kernel(error_model="numpy", no_cpython_wrapper=True)
def in_own_safe_zone_nb(side, x, z, sc):
    """True if hex ``(x, z)`` lies in the safe zone of ``side`` (tier Three on its side, 9.13)."""
    row = row_of_nb(x, z)
    if role_of_nb(side, sc) == ROLE_NORTH:
        return row <= sc[L.SC_SAFE_N_ROW]
    return row >= sc[L.SC_SAFE_S_ROW]


@kernel(error_model="numpy", no_cpython_wrapper=True)
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


@kernel(error_model="numpy", no_cpython_wrapper=True)
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


@kernel(error_model="numpy", no_cpython_wrapper=True)
def truncate_at_exit_nb(px, pz, pf, row, exit_mp):
    """After a unit enters an exit hex it stays there (it has left play)."""
    if exit_mp <= L.MAXMP:
        for k in range(exit_mp + 1, L.MAXMP + 1):
            px[row, k] = px[row, exit_mp]
            pz[row, k] = pz[row, exit_mp]
            pf[row, k] = pf[row, exit_mp]


@kernel(error_model="numpy", no_cpython_wrapper=True)
def on_map_nb(sh, i):
    """True while unit ``i`` is in play (afloat and not exited)."""
    return sh[i, L.SH_STATUS] == AFLOAT


@kernel(error_model="numpy")
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
        if planned[j] == 0 or tow_pair_nb(sh, i, j, rl):
            continue
        if sh[j, L.SH_PX] != x or sh[j, L.SH_PZ] != z:
            continue
        if scr or st[j, L.ST_KIND] == SCREEN:
            return False
        if sh[j, L.SH_PF] != f:
            return False
        cnt += 1
    return scr or cnt <= rl[L.RL_STACK]


@kernel(error_model="numpy", no_cpython_wrapper=True, inline="always")
def _settle_hex_nb(st, sh, i, n, rng_roll, rl, sc, displaced, key, pcs):
    """Rule 6.13 for the hex of unit ``i``, which holds both sides: both roll a die (ties
    re-rolled), and every unit of the lower roll's side in that hex is displaced
    (:func:`_displace_nb`, toward the side the loser's policy code ``PC_DISPLACE`` prefers) and
    marked in ``displaced``. ``key``: :func:`collisions_keyed_nb`'s ``int64`` hex keys, each
    displaced unit's redone (empty: none kept). ``pcs``: the policy codes in force, ``int64[2,
    NPC]`` (no rows: ahead-right first for both). Returns the units moved."""
    x = sh[i, L.SH_X]
    z = sh[i, L.SH_Z]
    a = 0
    b = 0
    for _ in range(64):            # ties are re-rolled (a cap: 64 ties in a row has odds 6**-64)
        a = _d6(rng_roll)
        b = _d6(rng_roll)
        if a != b:
            break
    if a == b:
        a = b - 1
    loser = st[i, L.ST_SIDE] if a < b else 1 - st[i, L.ST_SIDE]
    pref = displace_pref_nb(pcs, loser, rng_roll)
    moved = 0
    for j in range(n):
        if sh[j, L.SH_STATUS] == AFLOAT and st[j, L.ST_SIDE] == loser and sh[j, L.SH_X] == x \
                and sh[j, L.SH_Z] == z:
            _displace_nb(st, sh, j, n, rl, sc, pref)
            displaced[j] = 1
            moved += 1
            if key.shape[0] > 0:
                key[j] = _side_key_nb(st, sh, j)
    return moved


@kernel(error_model="numpy")
def collisions_nb(st, sh, n, rng_roll, rl, sc, displaced):
    """Settle opposing units ending in one hex (Rule 6.13) and any over-stacking (6.31-6.33).

    For each hex holding both sides, both roll a die (ties re-rolled); the lower roll's units move
    one hex, as close to their course as possible: ahead, ahead-right, ahead-left, ... (the first
    hex that takes them without enemies and within the stacking limits). A side's own
    over-stacking (which the policies avoid) is settled the same way, last units first.

    Args:
        rng_roll: the game's stream; displaced: ``int64[n]`` set to 1 for each unit moved.

    Returns:
        ``(moved, fixed)``: units moved by 6.13, and units moved off an over-stacked hex of their
        own side (the safety net; 0 unless no legal plot was found).
    """
    moved = 0
    fixed = 0
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
        moved += _settle_hex_nb(st, sh, i, n, rng_roll, rl, sc, displaced, displaced[:0],
                                displaced[:0].reshape((0, 1)))
    # own-side over-stacking (a safety net: the policies never plot it)
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        if not _stack_legal_here_nb(st, sh, i, n, rl):
            _displace_nb(st, sh, i, n, rl, sc, 0)
            displaced[i] = 1
            fixed += 1
    return moved, fixed


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _d6(rng):
    return roll_nb(rng, 6)


@kernel(error_model="numpy", no_cpython_wrapper=True)
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
        if tow_pair_nb(sh, i, j, rl):
            continue
        if st[i, L.ST_KIND] == SCREEN or st[j, L.ST_KIND] == SCREEN:
            return False
        if sh[j, L.SH_F] != sh[i, L.SH_F]:
            return False
        cnt += 1
    return st[i, L.ST_KIND] == SCREEN or cnt <= rl[L.RL_STACK]


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _fits_nb(st, sh, i, x, z, n, rl):
    side = st[i, L.ST_SIDE]
    scr = st[i, L.ST_KIND] == SCREEN
    cnt = 1
    for j in range(n):
        if j == i or sh[j, L.SH_STATUS] != AFLOAT or sh[j, L.SH_X] != x or sh[j, L.SH_Z] != z:
            continue
        if st[j, L.ST_SIDE] != side:
            return False
        if tow_pair_nb(sh, i, j, rl):
            continue
        if scr or st[j, L.ST_KIND] == SCREEN or sh[j, L.SH_F] != sh[i, L.SH_F]:
            return False
        cnt += 1
    return scr or cnt <= rl[L.RL_STACK]


@kernel(error_model="numpy", no_cpython_wrapper=True)
def displace_pref_nb(pcs, side, rng):
    """The displacement side ``side``'s policy chooses when it loses a 6.13 die roll: 0 right
    first (ahead, ahead-right, ahead-left, ...), 1 left first; ``pcs`` the policy codes in force
    (``int64[2, NPC]``; no rows: 0); random-legal (``MOVE_RANDOM``) either, on a coin flip of ``rng``. Rule 6.13 ('as close as possible to the ship's original
    course') leaves the side of the course to the owning player."""
    if pcs.shape[0] == 0:
        return 0
    if pcs[side, L.PC_MOVE] == MOVE_RANDOM:
        return roll_nb(rng, 2) - 1      # random-legal: either side
    return pcs[side, L.PC_DISPLACE]


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _displace_nb(st, sh, i, n, rl, sc, pref):
    """Move unit ``i`` one hex off its hex (Rule 6.13, ruling DN-M5): the first hex of the rings
    around it that takes it (allowed, not an exit, within the stacking limits), ahead first, then
    ahead-right, ahead-left, right, left, astern (``pref`` 0) or ahead-left before ahead-right and
    left before right (``pref`` 1, the owning player's choice of side)."""
    f = sh[i, L.SH_F]
    x0 = sh[i, L.SH_X]
    z0 = sh[i, L.SH_Z]
    order = (0, 1, -1, 2, -2, 3) if pref == 0 else (0, -1, 1, -2, 2, 3)
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


@kernel(error_model="numpy")
def tow_pair_nb(sh, i, j, rl):
    """Are ``i`` and ``j`` a towing ship and the ship it tows (they may share a hex, 12.41)?"""
    return rl[L.RL_OPT_TOWING] != 0 and (sh[i, L.SH_TOW] == j or sh[j, L.SH_TOW] == i)


@kernel(error_model="numpy")
def tower_ok_nb(st, sh, i):
    """May unit ``i`` take a tow (Rules 12.41-12.42)? A capital ship, CA or CL unit in play, not
    wrecked, able to move, neither towing nor towed."""
    if sh[i, L.SH_STATUS] != AFLOAT or wrecked_nb(sh, i):
        return False
    t = st[i, L.ST_TYPE]
    if t != TYPE_CAPITAL and t != TYPE_CA and t != TYPE_CL:
        return False
    return sh[i, L.SH_TOW] < 0 and sh[i, L.SH_TOWED_BY] < 0 and by_damage_nb(st[i, L.ST_MOV], sh[i, L.SH_S]) > 0


@kernel(error_model="numpy")
def towable_nb(st, sh, j, rl):
    """May unit ``j`` be taken in tow (12.41-12.43)? A capital ship in play that cannot move
    (wrecked, or at 2S without creep) and has come to rest (6.4)."""
    if sh[j, L.SH_STATUS] != AFLOAT or st[j, L.ST_KIND] != CAPITAL:
        return False
    if sh[j, L.SH_TOWED_BY] >= 0 or sh[j, L.SH_TOW] >= 0:
        return False
    a, b = speed_bounds_nb(st, sh, j, rl)
    return b == 0


@kernel(error_model="numpy")
def release_tow_nb(sh, i):
    """The tow of unit ``i`` is broken (12.41: instantly, at any Game-Turn)."""
    j = sh[i, L.SH_TOW]
    if j >= 0:
        sh[j, L.SH_TOWED_BY] = -1
    sh[i, L.SH_TOW] = -1
    sh[i, L.SH_TOW_WAIT] = 0


@kernel(error_model="numpy")
def under_tow_nb(sh, j):
    """Is ``j`` under tow: its towing ship in play and in its hex (12.64; ruling DN-O5)?"""
    i = sh[j, L.SH_TOWED_BY]
    if i < 0 or sh[i, L.SH_STATUS] != AFLOAT or sh[i, L.SH_TOW] != j:
        return False
    return sh[i, L.SH_X] == sh[j, L.SH_X] and sh[i, L.SH_Z] == sh[j, L.SH_Z]


@kernel(error_model="numpy")
def update_tows_nb(sh, n, rl):
    """After movement: a pair that lay still together counts one more Game-Turn toward the tow
    (12.41); a tow whose ships were parted starts over; a sunk, wrecked or lost ship ends it."""
    for i in range(n):
        j = sh[i, L.SH_TOW]
        if j < 0:
            continue
        if sh[i, L.SH_STATUS] != AFLOAT or wrecked_nb(sh, i) or sh[j, L.SH_STATUS] != AFLOAT:
            release_tow_nb(sh, i)
            continue
        if sh[i, L.SH_X] == sh[j, L.SH_X] and sh[i, L.SH_Z] == sh[j, L.SH_Z]:
            if sh[i, L.SH_TOW_WAIT] < rl[L.RL_TOW_WAIT]:
                if sh[i, L.SH_SPD] == 0 and sh[j, L.SH_SPD] == 0:
                    sh[i, L.SH_TOW_WAIT] += 1
                else:
                    sh[i, L.SH_TOW_WAIT] = 0
        else:
            sh[i, L.SH_TOW_WAIT] = 0


@kernel(error_model="numpy", no_cpython_wrapper=True)
def commit_moves_nb(st, sh, fm, trail, n, sc, turn, ended_by, up):
    """Commit the plotted moves (Rules 6.0, 6.22, 9.15, 10.4): each column's wake, then each unit
    afloat at the start of the phase (``up.alive``) to the end of its path (``up.px, pz, pf`` at its
    MP ``SH_MP``) with its speed (``SH_SPD``, MP); a unit whose path left by its exit
    (``up.exit_mp[i] <= MAXMP``) is ``EXITED``. A unit entering its own safe zone is marked
    ``SH_SAFE``. A line abreast formation whose plot made its second leg in column (``FM_LEG2C``
    2) becomes a column with the wake of that leg (6.24, :func:`.formations.leg2_commit_nb`).

    Args:
        st, sh, fm, trail, n: the units, formations and wakes; sc: the scenario record; turn: the
            Game-Turn (``SH_EXIT_TURN``); ended_by: as returned so far.
        up: the phase's :class:`.torpedo.UnitPaths` (``px``, ``pz``, ``pf``, ``alive``, ``exit_mp``
            read).

    Returns:
        ``ended_by``: the first side to reach its safe zone (unchanged if already set, -1 none).
    """
    px = up.px
    pz = up.pz
    pf = up.pf
    alive = up.alive
    exit_mp = up.exit_mp
    for f in range(n):
        if fm[f, L.FM_MEMBERS] > 0 and fm[f, L.FM_MODE] == COLUMN:
            flag = fm[f, L.FM_FLAG]
            if flag >= 0 and alive[flag]:
                commit_column_nb(trail, fm, f, sh[flag, L.SH_MP], px, pz, pf, flag)
    for i in range(n):
        if alive[i] == 0:
            continue
        m = sh[i, L.SH_MP]
        if exit_mp[i] <= L.MAXMP:
            sh[i, L.SH_X] = px[i, exit_mp[i]]
            sh[i, L.SH_Z] = pz[i, exit_mp[i]]
            sh[i, L.SH_STATUS] = EXITED
            sh[i, L.SH_EXIT_TURN] = turn
            continue
        sh[i, L.SH_X] = px[i, m]
        sh[i, L.SH_Z] = pz[i, m]
        sh[i, L.SH_F] = pf[i, m]
        sh[i, L.SH_SPD] = m
        if fm[sh[i, L.SH_FORM], L.FM_MODE] == COLUMN:
            sh[i, L.SH_CUR] += m
        if sh[i, L.SH_SAFE] == 0 and in_own_safe_zone_nb(st[i, L.ST_SIDE], sh[i, L.SH_X], sh[i, L.SH_Z], sc):
            sh[i, L.SH_SAFE] = 1
            if ended_by < 0:
                ended_by = st[i, L.ST_SIDE]
    # 6.24: a line abreast formation that made its second leg in column is a column from now on
    for f in range(n):
        if fm[f, L.FM_MEMBERS] > 0 and fm[f, L.FM_LEG2C] == 2:
            flag = fm[f, L.FM_FLAG]
            if flag >= 0 and alive[flag] and sh[flag, L.SH_STATUS] == AFLOAT:
                leg2_commit_nb(sh, fm, trail, f, n, flag, fm[f, L.FM_M1], sh[flag, L.SH_MP], px, pz, pf)
        fm[f, L.FM_LEG2C] = 0
    return ended_by


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _side_key_nb(st, sh, j):
    """Unit ``j``'s hex and side in one key (``2 hexkey + side``) while in play; a key of its own
    (negative, even) when not."""
    if sh[j, L.SH_STATUS] != AFLOAT:
        return -2 * (j + 1)
    return (((sh[j, L.SH_X] << 32) ^ (sh[j, L.SH_Z] & 0xFFFFFFFF)) << 1) | st[j, L.ST_SIDE]


@kernel(error_model="numpy")
def collisions_keyed_nb(st, sh, n, rng_roll, rl, sc, displaced, key, pcs):
    """:func:`collisions_nb` with its scans of all units made on hex keys (``key``, ``int64[n]``
    scratch: :func:`_side_key_nb` of each unit, kept up to date as units are displaced): the same
    units are found in the same order, the same dice rolled and the same units displaced. A key
    that matches without the hex matching (a unit out of play against a hex of negative
    coordinates) only sends the unit to :func:`collisions_nb`'s own test. ``pcs``: the policy
    codes in force (``int64[2, NPC]``): the loser's ``PC_DISPLACE`` chooses the displacement hex."""
    for j in range(n):
        key[j] = _side_key_nb(st, sh, j)
    moved = 0
    fixed = 0
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        other = key[i] ^ 1     # the same hex, the other side
        c = 0
        for j in range(n):
            c += 1 if key[j] == other else 0
        if c == 0:
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
        moved += _settle_hex_nb(st, sh, i, n, rng_roll, rl, sc, displaced, key, pcs)
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        # _stack_legal_here_nb counts the units before i in its hex: none, and i is legal alone
        h = key[i] >> 1
        c = 0
        for j in range(i):
            c += 1 if (key[j] >> 1) == h else 0
        if c == 0 and rl[L.RL_STACK] >= 1:
            continue
        if not _stack_legal_here_nb(st, sh, i, n, rl):
            _displace_nb(st, sh, i, n, rl, sc, 0)
            displaced[i] = 1
            fixed += 1
            key[i] = _side_key_nb(st, sh, i)
    return moved, fixed


@kernel(error_model="numpy", no_cpython_wrapper=True)
def resolve_collisions_nb(st, sh, fm, n, rng, rl, sc, work, out, g, pcs):
    """Settle collisions and over-stacking after movement (Rules 6.13, 6.31-6.33;
    :func:`collisions_nb`, here :func:`collisions_keyed_nb`): the losing side's policy code
    ``PC_DISPLACE`` chooses the side of the displacement hex; a displaced unit leaves its
    formation unless its side's ``PC_DISP_STAYS`` is 1 (random-legal: on a coin flip) and it may
    stay (:func:`may_stay_nb`). Counts ``O_DISPLACED`` and ``O_RESTACKED`` in ``out[g]``;
    ``work``: ``(displaced, key, buf, trail)``, scratch ``int64[>= n]``, ``int64[>= n]``,
    ``int64[n, 3]`` and the formations' wakes (a column keeping its displaced ship has its wake
    rebuilt); ``pcs`` the policy codes in force, ``int64[2, NPC]``."""
    displaced, key, buf, trail = work
    for i in range(n):
        displaced[i] = 0
    moved, fixed = collisions_keyed_nb(st, sh, n, rng, rl, sc, displaced, key, pcs)
    if moved + fixed > 0:
        out[g, L.O_DISPLACED] += moved
        out[g, L.O_RESTACKED] += fixed
        for i in range(n):
            if displaced[i] and fm[sh[i, L.SH_FORM], L.FM_MEMBERS] > 1:
                side = st[i, L.ST_SIDE]
                if pcs[side, L.PC_MOVE] == MOVE_RANDOM:
                    stays = roll_nb(rng, 2) == 1          # random-legal: either
                else:
                    stays = pcs[side, L.PC_DISP_STAYS] == 1
                if stays and may_stay_nb(sh, fm, i, n, buf):
                    f = sh[i, L.SH_FORM]
                    if fm[f, L.FM_MODE] == COLUMN:
                        make_column_nb(sh, fm, trail, f, n)
                    continue
                detach_nb(sh, fm, i, n)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def may_stay_nb(sh, fm, i, n, buf):
    """May displaced unit ``i`` stay in its formation (Rule 6.13 leaves it to the player; 6.2)?
    It must face as its flagship. A column keeps it only where its ships still stand one directly
    behind the other (:func:`.formations.straight_column_nb`, ``buf`` ``int64[n, 3]`` scratch: a
    ship displaced ahead, along the column; the wake is then rebuilt, 6.22, 6.24); a line abreast
    formation where every live member is still in or next to another's hex (6.2: 'adjacent to
    one or two other ships in the formation')."""
    f = sh[i, L.SH_FORM]
    if f < 0:
        return False
    flag = fm[f, L.FM_FLAG]
    if flag < 0 or sh[flag, L.SH_F] != sh[i, L.SH_F]:
        return False
    if fm[f, L.FM_MODE] == COLUMN:
        return straight_column_nb(sh, f, n, buf) > 0
    for a in range(n):
        if sh[a, L.SH_FORM] != f or sh[a, L.SH_STATUS] != AFLOAT:
            continue
        near = False
        for b in range(n):
            if b != a and sh[b, L.SH_FORM] == f and sh[b, L.SH_STATUS] == AFLOAT and \
                    hex_dist_nb(sh[a, L.SH_X], sh[a, L.SH_Z], sh[b, L.SH_X], sh[b, L.SH_Z]) <= 1:
                near = True
                break
        if not near:
            return False
    return True
