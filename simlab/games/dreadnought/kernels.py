"""The numba kernels of Dreadnought: geometry, gunnery, movement, torpedoes, damage control,
scripted policies and the whole-game loop (Rules 4.0-9.5).

Only ``@njit(cache=True)`` functions (suffix ``_nb``) and the constant arrays they read live here.
They share one module on purpose: numba's on-disk cache only notices changes to the file that
defines a function, so a whole-game kernel compiled against helpers in other files could keep
running stale code after those files change. The array layouts are in :mod:`.layout`, the integer
constants in :mod:`.enums`.

Sections (in call order): geometry; gunnery (Rule 5); movement (Rules 6-7); torpedoes (Rule 8);
damage control and the end-of-scenario accounting (Rules 5.43-5.44, 9.5); policies; the game loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...rng import STATE_WORDS, new_state_nb, roll_nb
from . import layout as L
from .enums import (
    AFLOAT,
    ALLOC_CONCENTRATE,
    ALLOC_MAIN_BODY,
    ALLOC_RANDOM,
    BUILD_BALANCED,
    BUILD_RANDOM,
    BUILD_VALUE_GREEDY,
    CAMP_COMPLETE,
    CAMP_LOOP_CAP,
    CAPITAL,
    COLUMN,
    CRT_E,
    DX,
    DZ,
    END_AGREEMENT,
    END_EXHAUSTED,
    END_GAME_LENGTH,
    END_LOOP_CAP,
    END_NO_SIGHTING,
    END_OBJECTIVE,
    END_SIDE_GONE,
    END_UNCONTESTED,
    END_WRECKED,
    EXITED,
    EXT_BANKRUPT,
    EXT_LOOP_CAP,
    EXT_PEACE,
    EXT_TURN_LIMIT,
    FIRE_FOCUS_ODDS,
    FIRE_NEAREST,
    FIRE_RANDOM,
    FIRE_SPREAD_VALUE,
    LEVEL_DECISIVE,
    LEVEL_DRAW,
    LEVEL_MARGINAL,
    LEVEL_OBJECTIVE,
    LEVEL_SUBSTANTIAL,
    LINE,
    MOVE_BREAK,
    MOVE_HOLD,
    MOVE_OBJECTIVE,
    MOVE_RANDOM,
    MOVE_WITHDRAW,
    PORT,
    RES_E_2G1S,
    RES_E_SUNK,
    RES_NONE,
    RESULT_G,
    RESULT_S,
    ROLE_NORTH,
    ROLE_SOUTH,
    SCEN_B,
    SCEN_C,
    SCREEN,
    SHOT_GUN,
    SHOT_SECONDARY,
    SHOT_TORPEDO,
    SUN_SETTING_WEST,
    SUNK,
    TORP_USE_DEFENSIVE,
    TORP_USE_RANDOM,
    TORP_USE_SELECTIVE,
    TYPE_CA,
    TYPE_CAPITAL,
    TYPE_CL,
    TYPE_DD,
    VC_EXIT_OR_POINTS,
    VC_POINTS,
    VC_SINK_NAMED,
    VC_SINK_NAMED_AND_POINTS,
    VC_SINK_NAMED_OR_ESCAPE,
    WAITING,
    N,
    S,
)

DXA = np.array(DX, dtype=np.int64)
DZA = np.array(DZ, dtype=np.int64)
RES_G = np.array(RESULT_G, dtype=np.int64)
RES_S = np.array(RESULT_S, dtype=np.int64)
MAXC = 256
DMAX = 64


# ==================================================================================================
# geometry (Rules 5.5, 7.0-7.1, 9.13)
# ==================================================================================================
# Cube coordinates (x, z), y = -x - z; see geometry.py.


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def row_of_nb(x, z):
    """Global offset row of cube hex ``(x, z)``."""
    return z + (x - (x & 1)) // 2


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _dot_nb(d, dx, dz):
    """Cube dot product of the vector ``(dx, dz)`` with the unit step of direction ``d``."""
    ex = DXA[d]
    ez = DZA[d]
    return dx * ex + (dx + dz) * (ex + ez) + dz * ez


@njit(cache=True, error_model="numpy")
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




@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def two_d6_nb(rng):
    """A 2d6 roll (2..12) from the game's stream."""
    return roll_nb(rng, 6) + roll_nb(rng, 6)


@njit(cache=True, error_model="numpy")
def clamp_roll_nb(r):
    """A modified roll below 2 reads as 2 and above 12 as 12 (ruling DN-F2)."""
    if r < 2:
        return 2
    if r > 12:
        return 12
    return r


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def by_damage_nb(value, steps):
    """A value after damage steps of its kind (Rule 5.41): one step halves it (fractions dropped),
    two make it zero. Attack Strength after G steps; Movement Allowance (MP) after S steps."""
    if steps <= 0:
        return value
    if steps == 1:
        return value // 2
    return 0


@njit(cache=True, error_model="numpy")
def range_strength_nb(strength, hexes, range_tab):
    """Attack Strength modified for range (Rule 5.5, Range Effects Table 5.51).

    Args:
        strength: Attack Strength after damage and the multiple-fire halving (Rule 5.31).
        hexes: firing range in hexes (>= 1).
        range_tab: ``int64[k, 3]`` (max hexes, multiply, divide), ascending.

    Returns:
        The modified strength, fractions dropped (17 at 2, 4, 7, 13 hexes -> 51, 34, 17, 8).
    """
    k = range_tab.shape[0]
    for i in range(k):
        if hexes <= range_tab[i, 0]:
            return strength * range_tab[i, 1] // range_tab[i, 2]
    return strength * range_tab[k - 1, 1] // range_tab[k - 1, 2]


@njit(cache=True, error_model="numpy")
def band_nb(strength, band_low):
    """Column (attack band) of the Damage Point Table for a modified strength (Rule 5.8)."""
    b = 0
    for k in range(band_low.shape[0]):
        if strength >= band_low[k]:
            b = k
    return b


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def crt_result_nb(crt, roll, col, rl, rng):
    """Read the CRT (Rule 5.9) and settle an E result (Rule 5.41).

    Args:
        crt: the compiled CRT; roll: the (clamped) 2d6 roll; col: ratio column (>= 1).
        rl: rule scalars (the E sinking rolls).
        rng: the game's stream (one 2d6 is drawn after an E).

    Returns:
        A result code: ``RES_*`` (``RES_E_SUNK`` or ``RES_E_2G1S`` after an E).
    """
    ncols = crt.shape[1] - 1
    c = col if col <= ncols else ncols
    code = crt[roll, c]
    if code == CRT_E:
        r2 = two_d6_nb(rng)
        if r2 == rl[L.RL_E_SINK_A] or r2 == rl[L.RL_E_SINK_B]:
            return RES_E_SUNK
        return RES_E_2G1S
    return code


@njit(cache=True, error_model="numpy")
def gun_shot_nb(attack, halved, hexes, upon, arc, defense, dpt, band_low, crt, range_tab, rl, rng, out):
    """Resolve one ship's gunfire at one target (Rules 5.0, 5.31, 5.5, 5.6, 7.1, 5.8, 5.9, 5.41):
    :func:`gun_shot_mod_nb` without an optional-rule modifier. Same arguments and result."""
    return gun_shot_mod_nb(attack, halved, hexes, upon, arc, defense, dpt, band_low, crt, range_tab, rl, rng, out, 0)


@njit(cache=True, error_model="numpy")
def gun_shot_mod_nb(attack, halved, hexes, upon, arc, defense, dpt, band_low, crt, range_tab, rl, rng, out, extra):
    """Resolve one ship's gunfire at one target (Rules 5.0, 5.31, 5.5, 5.6, 7.1, 5.8, 5.9, 5.41).

    Args:
        attack: the firer's Attack Strength after damage (Rule 5.41).
        halved: 1 if the firer is not the designated unhalved ship of a multiple attack (5.31).
        hexes: range in hexes; upon: 1 if the firer is fired at this phase (5.6);
        arc: ARC_* of the target from the firer (7.1); defense: the target's Defense Strength.
        dpt, band_low, crt, range_tab, rl: compiled tables; rng: the game's stream.
        extra: further DPT roll modifier of the optional rules (radar -2, spotting planes -3, sun
            +1/-1; Rules 12.21, 12.22, 12.52).
        out: ``int64[6]`` written: strength, DPT roll (modified, clamped), damage points, combat
            ratio (0 = below 1-1), CRT roll (0 if none), result code.

    Returns:
        The result code (``RES_*``).
    """
    a = attack // 2 if halved else attack
    strength = range_strength_nb(a, hexes, range_tab)
    out[0] = strength
    if strength <= 0:
        out[1] = 0
        out[2] = 0
        out[3] = 0
        out[4] = 0
        out[5] = RES_NONE
        return RES_NONE
    r = two_d6_nb(rng)
    if upon:
        r += rl[L.RL_FIRED_UPON]
    if arc != 0:
        r += rl[L.RL_BOW_STERN]
    r = clamp_roll_nb(r + extra)
    dp = dpt[r, band_nb(strength, band_low)]
    ratio = dp // defense
    out[1] = r
    out[2] = dp
    out[3] = ratio
    if ratio < 1:
        out[4] = 0
        out[5] = RES_NONE
        return RES_NONE
    cr = two_d6_nb(rng)
    res = crt_result_nb(crt, cr, ratio, rl, rng)
    out[4] = cr
    out[5] = res
    return res


@njit(cache=True, error_model="numpy")
def crt_shot_nb(col, penalty, crt, rl, rng, out):
    """An attack read straight on the CRT: secondary batteries (8.41) and torpedoes (8.0, 8.32).

    Args:
        col: ratio column (1 for 1:1, 2 for 2:1); penalty: amount subtracted from the roll
            (3 when combing, 8.32).
        out: ``int64[2]`` written: the modified, clamped roll and the result code.

    Returns:
        The result code.
    """
    r = clamp_roll_nb(two_d6_nb(rng) - penalty)
    res = crt_result_nb(crt, r, col, rl, rng)
    out[0] = r
    out[1] = res
    return res


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def add_pending_nb(sh, t, res):
    """Hold a result on a target until the end of the phase (Rule 5.0: markers face down)."""
    if res == RES_E_SUNK:
        sh[t, L.SH_PSUNK] = 1
    else:
        sh[t, L.SH_PG] += RES_G[res]
        sh[t, L.SH_PS] += RES_S[res]


@njit(cache=True, error_model="numpy")
def apply_pending_nb(sh, n, rl):
    """Turn the markers face up (Rule 5.0): cumulative damage capped at 2G and 2S (5.42); sinking.

    Returns:
        The number of units sunk now.
    """
    sunk = 0
    for i in range(n):
        if sh[i, L.SH_STATUS] == SUNK:
            sh[i, L.SH_PG] = 0
            sh[i, L.SH_PS] = 0
            sh[i, L.SH_PSUNK] = 0
            continue
        if sh[i, L.SH_PSUNK]:
            sh[i, L.SH_STATUS] = SUNK
            sunk += 1
        g = sh[i, L.SH_G] + sh[i, L.SH_PG]
        s = sh[i, L.SH_S] + sh[i, L.SH_PS]
        sh[i, L.SH_G] = g if g < rl[L.RL_MAX_G] else rl[L.RL_MAX_G]
        sh[i, L.SH_S] = s if s < rl[L.RL_MAX_S] else rl[L.RL_MAX_S]
        sh[i, L.SH_PG] = 0
        sh[i, L.SH_PS] = 0
        sh[i, L.SH_PSUNK] = 0
    return sunk

# ==================================================================================================
# movement (Rules 6-7)
# ==================================================================================================
# Movement kernels: plots, paths, speed limits, formations, stacking and collisions (Rules 6-7).
#
# A movement plot of one unit or formation flagship is ``(t1, l1, t2, l2)``: turn ``t1`` hexsides
# at the start (-2..3, positive clockwise; 3 is about face), move ``l1`` hexes, turn ``t2``, move
# ``l2`` hexes (Rule 6.12: at most two facing changes, 7.2). One hexside is free; two cost 2 MP and
# three 3 MP (7.3). The plot is legal when:
#
# * a unit that enters no hex does not turn (ruling DN-M1);
# * ``t2 != 0`` only after ``l1 >= 1`` and with ``l2 >= l1`` (6.12: no turn in the last hex, last
#   leg at least the earlier one);
# * its MP ``l1 + l2 + costs`` lies within the unit's speed bounds (6.11, 6.4; :func:`speed_bounds_nb`);
# * every hex entered is allowed (:func:`hex_allowed_nb`): inside a scenario's confinement, not in
#   the enemy's safe zone, not back out of the unit's own safe zone (9.13-9.15).
#
# Paths are written MP by MP into ``px, pz, pf`` (``int64[n, MAXMP + 1]``): entry ``t`` is where the
# unit is (and how it faces) after its ``t``-th MP; entry 0 is the start. A unit that has spent its
# MP stays where it is. Column members take their path from the flagship's wake (``trail``, 6.22).


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def turn_cost_nb(t, rl):
    """MP cost of turning ``t`` hexsides in a hex (Rule 7.0, 7.31, 7.32)."""
    a = t if t >= 0 else -t
    if a <= 1:
        return 0
    if a == 2:
        return rl[L.RL_TURN2]
    return rl[L.RL_TURN3]


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def plot_end_nb(x, z, f, t1, l1, t2, l2):
    """Where a plot ends: ``(x, z, facing)``."""
    f1 = (f + t1) % 6
    x += DXA[f1] * l1
    z += DZA[f1] * l1
    f2 = (f1 + t2) % 6
    x += DXA[f2] * l2
    z += DZA[f2] * l2
    return x, z, f2


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def role_of_nb(side, sc):
    """ROLE_NORTH or ROLE_SOUTH of a side (Rule 9.13)."""
    r0 = sc[L.SC_ROLE0]
    return r0 if side == 0 else 1 - r0


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def in_exit_nb(st, i, x, z, sc):
    """True if unit ``i`` may leave play through hex ``(x, z)`` (a scenario's exit, 10.4-10.5)."""
    if sc[L.SC_EXIT] == 0 or st[i, L.ST_EXIT] == 0:
        return False
    col = x
    row = row_of_nb(x, z)
    return sc[L.SC_EXIT_C0] <= col <= sc[L.SC_EXIT_C1] and sc[L.SC_EXIT_R0] <= row <= sc[L.SC_EXIT_R1]


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def in_own_safe_zone_nb(side, x, z, sc):
    """True if hex ``(x, z)`` lies in the safe zone of ``side`` (tier Three on its side, 9.13)."""
    row = row_of_nb(x, z)
    if role_of_nb(side, sc) == ROLE_NORTH:
        return row <= sc[L.SC_SAFE_N_ROW]
    return row >= sc[L.SC_SAFE_S_ROW]


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def truncate_at_exit_nb(px, pz, pf, row, exit_mp):
    """After a unit enters an exit hex it stays there (it has left play)."""
    if exit_mp <= L.MAXMP:
        for k in range(exit_mp + 1, L.MAXMP + 1):
            px[row, k] = px[row, exit_mp]
            pz[row, k] = pz[row, exit_mp]
            pf[row, k] = pf[row, exit_mp]


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def on_map_nb(sh, i):
    """True while unit ``i`` is in play (afloat and not exited)."""
    return sh[i, L.SH_STATUS] == AFLOAT


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _in_buf_nb(buf, k, x, z):
    """Is hex ``(x, z)`` among the first ``k`` rows of ``buf``?"""
    for j in range(k):
        if buf[j, 0] == x and buf[j, 1] == z:
            return True
    return False


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
        if not _in_buf_nb(buf, k, x, z):
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
        if not _in_buf_nb(buf, k, buf[j, 0] + dx, buf[j, 1] + dz):
            if head >= 0:
                return 0
            head = j
    cx = buf[head, 0]
    cz = buf[head, 1]
    seen = 1
    while seen < k:
        cx -= dx
        cz -= dz
        if not _in_buf_nb(buf, k, cx, cz):
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


@njit(cache=True, error_model="numpy")
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
            fixed += 1
    return moved, fixed


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _d6(rng):
    return roll_nb(rng, 6)


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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

# ==================================================================================================
# torpedoes (Rule 8)
# ==================================================================================================
# Torpedo kernels: Torpedo Marker tracks and the MP-by-MP sweep for hits (Rule 8).
#
# A screen unit's plotted torpedo attack names a track of the Torpedo Track Chart and an arc
# (starboard or port, 8.31). At the start of the Movement Execution Phase a marker is placed in the
# launcher's hex; it then moves along the track, one hex per MP, during the first 2, 3 or 5 MP of
# the phase (8.6, 8.23), simultaneously with the ships. It hits a unit (friend or foe, 8.13) when:
#
# * at the end of the same MP both are in one hex and the marker entered it during that MP
#   (Rule 8.0 "enters a hex at the same instant"; a unit that stays in its hex during that MP,
#   turning or stopped, is met too: ruling DN-T1); or
# * the marker and the unit cross the same hexside in opposite directions during the same MP.
#
# A marker attacks each unit it meets once (8.11: each unit in a stack separately; ruling DN-T2)
# and is not removed by hitting (8.12). A unit is combing the wakes when its facing is parallel or
# opposite to the marker's direction at that MP (8.32).


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
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

# ==================================================================================================
# damage control and accounting (Rules 5.43-5.44, 9.5)
# ==================================================================================================
# Damage control and the end-of-scenario accounting (Rules 5.43-5.44, 9.5, 10.x victory).
#
# Only ``@njit`` functions live here (suffix ``_nb``).


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def wrecked_nb(sh, i):
    """2G, 2S: wrecked, permanently out of action (Rule 5.43)."""
    return sh[i, L.SH_G] >= 2 and sh[i, L.SH_S] >= 2


@njit(cache=True, error_model="numpy")
def damage_control_nb(st, sh, n, rl, rng):
    """The Damage Control Phase (Rules 5.43-5.44, 9.52).

    Each damaged unit in play that is not wrecked and has not reached its limit (its printed
    Defense Strength, counted over the scenario) rolls one die for G damage (1..``RL_DC_G``
    removes a step) and then one for S damage (1..``RL_DC_S``). Every step removed is one Victory
    Point for the enemy (``SH_DC`` counts them).

    Returns:
        The number of steps removed.
    """
    removed = 0
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT or wrecked_nb(sh, i):
            continue
        if sh[i, L.SH_G] > 0 and sh[i, L.SH_DC] < st[i, L.ST_DEF]:
            if roll_nb(rng, 6) <= rl[L.RL_DC_G]:
                sh[i, L.SH_G] -= 1
                sh[i, L.SH_DC] += 1
                removed += 1
        if sh[i, L.SH_S] > 0 and sh[i, L.SH_DC] < st[i, L.ST_DEF]:
            if roll_nb(rng, 6) <= rl[L.RL_DC_S]:
                sh[i, L.SH_S] -= 1
                sh[i, L.SH_DC] += 1
                removed += 1
    return removed


@njit(cache=True, error_model="numpy")
def ship_award_nb(value, defense, status, g, s, dc, vp_pct):
    """Victory Points the enemy earns from one unit at the end of a scenario (Rules 9.52-9.54).

    Args:
        value: the unit's value (attack + defense + movement, 9.51); defense: its damage-control
            limit (5.44); status: AFLOAT, SUNK or EXITED; g, s: damage steps left; dc: steps
            already removed (each already one VP); vp_pct: ``int64[5]`` percent for 0..4 states.

    Returns:
        VPs (int): sunk = 100% of value; otherwise the steps removed during play, plus the steps
        removed now within the limit (9.53), plus 20/40/60/80% of value (fractions dropped) for
        the states left beyond the limit or when wrecked; never above 100% (9.54).

    Example (9.53): Iron Duke (value 29, defense 6) ends 1G with 2 steps removed -> 3 VPs; ends
    1G, 2S with 4 removed -> 6 + 29 * 20 // 100 = 11 VPs.
    """
    if status == SUNK:
        return value
    award = dc
    steps = g + s
    if steps > 0:
        if g >= 2 and s >= 2:
            award += value * vp_pct[4] // 100
        else:
            room = defense - dc
            if room < 0:
                room = 0
            can = steps if steps < room else room
            award += can
            left = steps - can
            if left > 0:
                award += value * vp_pct[left] // 100
    if award > value:
        award = value
    return award


@njit(cache=True, error_model="numpy")
def final_result_nb(st, sh, n, sc, vp_pct, out, g, ended_by, contact_at_end, exit_met):
    """Scores, winner and victory level of a finished game into ``out[g]`` (Rules 9.5, 10.x).

    Args:
        ended_by: the side that caused the end (first into its safe zone, 9.15) or -1.
        contact_at_end: 1 if opposing units were within visibility at the end (10.2).
        exit_met: 1 if the exit objective was met in time (10.4).
    """
    score = [sc[L.SC_START_VP0], sc[L.SC_START_VP1]]
    sunk = [0, 0]
    wrecked = [0, 0]
    exited = [0, 0]
    named_down = 0
    named_safe = 1
    alive = [0, 0]
    for i in range(n):
        side = st[i, L.ST_SIDE]
        award = ship_award_nb(st[i, L.ST_VAL], st[i, L.ST_DEF], sh[i, L.SH_STATUS], sh[i, L.SH_G],
                              sh[i, L.SH_S], sh[i, L.SH_DC], vp_pct)
        score[1 - side] += award
        st_ = sh[i, L.SH_STATUS]
        wr = st_ != SUNK and wrecked_nb(sh, i)
        # sunk, wrecked and exited are disjoint: a wreck still decelerating (6.4) can drift off the
        # map; it counts as exited (DN-E11), though the enemy still scores it as a wreck (9.52)
        if st_ == SUNK:
            sunk[side] += 1
        elif st_ == EXITED:
            exited[side] += 1
        elif wr:
            wrecked[side] += 1
        if st_ == EXITED:
            if sc[L.SC_EXIT_SCORES]:
                score[side] += st[i, L.ST_VAL]
        if st_ != SUNK and not wr:
            alive[side] += 1
        if st[i, L.ST_NAMED]:
            if st_ == SUNK or wr:
                named_down = 1
                named_safe = 0
    vc = sc[L.SC_VC]
    a = sc[L.SC_VC_SIDE]
    winner = -1
    level = LEVEL_DRAW
    by_points = -1
    if score[0] > score[1]:
        by_points = 0
    elif score[1] > score[0]:
        by_points = 1
    if vc == VC_POINTS:
        winner = by_points
    elif vc == VC_SINK_NAMED_AND_POINTS:
        winner = a if (named_down and score[a] > score[1 - a]) else 1 - a
    elif vc == VC_SINK_NAMED_OR_ESCAPE:
        if named_down:
            winner = a
        elif named_safe and contact_at_end == 0:
            winner = 1 - a
        else:
            winner = -1
    elif vc == VC_SINK_NAMED:
        winner = a if named_down else 1 - a
    elif vc == VC_EXIT_OR_POINTS:
        winner = a if exit_met else by_points
    if winner >= 0:
        lo = 1 - winner
        if vc == VC_EXIT_OR_POINTS and exit_met:
            level = LEVEL_DECISIVE
        elif score[winner] > score[lo]:
            level = LEVEL_MARGINAL
            if score[winner] >= 2 * score[lo]:
                level = LEVEL_SUBSTANTIAL
                if alive[lo] == 0 or ended_by == lo:
                    level = LEVEL_DECISIVE
        else:
            level = LEVEL_OBJECTIVE
    out[g, L.O_WINNER] = winner
    out[g, L.O_LEVEL] = level
    out[g, L.O_SCORE0] = score[0]
    out[g, L.O_SCORE1] = score[1]
    out[g, L.O_SUNK0] = sunk[0]
    out[g, L.O_SUNK1] = sunk[1]
    out[g, L.O_WRECKED0] = wrecked[0]
    out[g, L.O_WRECKED1] = wrecked[1]
    out[g, L.O_EXITED0] = exited[0]
    out[g, L.O_EXITED1] = exited[1]
    out[g, L.O_ENDED_BY] = ended_by

# ==================================================================================================
# scripted policies
# ==================================================================================================
# Scripted policies of Dreadnought, compiled: fire plots, torpedo plots and movement plots.
#
# A side's policy is four integer codes (``pc[side]``: movement behaviour, fire allocation,
# torpedo use, preferred formation mode) and numeric knobs (``kn[side]``, layout ``K_*``), all
# dispatched inside the kernel. The named policies users pick (``game.POLICIES``) are fixed
# combinations:
#
# * ``close-and-engage`` - capital formations in column close to ``K_RANGE`` hexes of the nearest
#   enemy capital ship, broadside on; screens run in to torpedo range. Fire: focus by odds (each
#   ship takes the target where its expected damage, in share of target value, is greatest,
#   counting the halving of a second firer, Rule 5.31, and favouring damaged targets). Torpedoes:
#   aggressive (any predicted hit).
# * ``hold-range`` - keep the range band where the side's expected damage exchange is best
#   (computed each Game-Turn from the DPT and CRT over 2/4/8/12/16 hexes, within visibility),
#   broadside on. Fire: spread by target value (unengaged targets first, highest value first).
#   Torpedoes: selective (only a predicted hit on a capital ship that is not combing).
# * ``break-contact`` - turn away together (line abreast when possible) and run for the own safe
#   zone, opening the range from the nearest enemy. Fire: the nearest enemy. Torpedoes:
#   defensive (at pursuers: any predicted hit).
# * ``make-for-objective`` - where the scenario gives the side an exit (Singora, Surigao Strait),
#   steer for it; otherwise as close-and-engage.
# * ``random-legal`` - every unit moves alone on a random legal plot, fires at a random target in
#   reach (or holds fire), launches torpedoes at random.
#
# Predictions: a unit is expected to keep its course and last speed (policies see the enemy's
# positions, Rule 9.42, but not its plots, 4.2).




@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _alive(sh, i):
    return sh[i, L.SH_STATUS] == AFLOAT


# --------------------------------------------------------------------------- predictions
@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def predict_nb(sh, n, pred):
    """Where each unit is expected after this Game-Turn: on its course at half its last speed
    (half, because it may turn; a unit expected at full speed is chased past it).

    Args:
        pred: ``int64[n, 2]`` written (x, z).
    """
    for i in range(n):
        s = sh[i, L.SH_SPD] // 2
        f = sh[i, L.SH_F]
        pred[i, 0] = sh[i, L.SH_X] + DXA[f] * s
        pred[i, 1] = sh[i, L.SH_Z] + DZA[f] * s


# --------------------------------------------------------------------------- fire plots
@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _shot_value_nb(st, sh, i, j, d, halved, eff_gun, range_tab, band_low, rl, extra):
    a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
    if halved:
        a = a // 2
    s = range_strength_nb(a, d, range_tab)
    if s <= 0:
        return 0.0
    pen = -extra
    dx = sh[j, L.SH_X] - sh[i, L.SH_X]
    dz = sh[j, L.SH_Z] - sh[i, L.SH_Z]
    if arc_nb(sh[i, L.SH_F], dx, dz) != 0:
        pen -= rl[L.RL_BOW_STERN]
    # the target is likely to fire back if it can reach the firer
    if by_damage_nb(st[j, L.ST_ATT], sh[j, L.SH_G]) > 0 and d <= st[j, L.ST_RNG]:
        pen -= rl[L.RL_FIRED_UPON]
    if pen < 0:
        pen = 0
    if pen > 15:
        pen = 15
    dd = st[j, L.ST_DEF]
    if dd > DMAX:
        dd = DMAX
    return eff_gun[band_nb(s, band_low), pen, dd]


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _pick_target_nb(side, st, sh, n, i, reach, screens_only, code, kn, rl, eff_gun, range_tab, band_low, rng, cnt,
                    vis, smoke, dy, turn):
    """The target unit ``i`` picks by fire-allocation ``code`` among enemies within ``reach`` hexes
    (screen units only for secondary batteries); -1 for none. ``cnt[j]``: firers already on j.
    With the optional rules on, targets behind smoke or beyond the visibility are kept or dropped
    by :func:`fire_mod_nb`, and the DPT modifier of the pick is left in ``SH_FMOD``."""
    best = -1
    bestv = -1e300
    bestmod = 0
    seen = 0
    opt = fire_options_on_nb(rl)
    for j in range(n):
        if st[j, L.ST_SIDE] == side or not _alive(sh, j) or (screens_only and st[j, L.ST_KIND] != SCREEN):
            continue
        d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z])
        if d < 1 or d > reach:
            continue
        mod = 0
        if opt:
            if screens_only:
                if rl[L.RL_OPT_SMOKE] and dy[L.DY_NSMOKE] > 0 and not (rl[L.RL_OPT_RADAR] and st[i, L.ST_RADAR]) \
                        and smoke_blocks_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z], smoke,
                                            dy[L.DY_NSMOKE]):
                    continue
            else:
                mod = fire_mod_nb(st, sh, i, j, d, vis, rl, smoke, dy, turn)
                if mod <= NO_FIRE:
                    continue
        seen += 1
        if code == FIRE_RANDOM:
            if roll_nb(rng, seen) == 1:
                best = j
                bestmod = mod
            continue
        if code == FIRE_FOCUS_ODDS:
            v = _shot_value_nb(st, sh, i, j, d, cnt[j] > 0, eff_gun, range_tab, band_low, rl, mod) * st[j, L.ST_VAL]
            v *= 1.0 + kn[L.K_FOCUS] * (sh[j, L.SH_G] + sh[j, L.SH_S])
        elif code == FIRE_SPREAD_VALUE:
            v = st[j, L.ST_VAL] - 1000.0 * cnt[j]
            if _shot_value_nb(st, sh, i, j, d, cnt[j] > 0, eff_gun, range_tab, band_low, rl, mod) <= 0.0:
                v -= 1e6
        else:  # FIRE_NEAREST
            v = -1000.0 * d + st[j, L.ST_VAL]
        if v > bestv:
            bestv = v
            best = j
            bestmod = mod
    if code == FIRE_RANDOM and best >= 0 and roll_nb(rng, seen + 1) == 1:
        best = -1  # holding fire is legal too (5.21)
    if not screens_only:
        sh[i, L.SH_FMOD] = bestmod
    return best


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _holds_fire_nb(side, st, sh, i, sc, code):
    """Campaign scenario B (11.3): under ``make-for-objective`` the South's capital ships never
    fire - they are the bombardment force, whose Attack Strength is the Bombardment Bonus if the
    South wins (or the North leaves the map first); its screen units fight."""
    return (sc[L.SC_CAMPAIGN] != 0 and sc[L.SC_SCEN] == SCEN_B and code == MOVE_OBJECTIVE
            and role_of_nb(side, sc) == ROLE_SOUTH and st[i, L.ST_KIND] == CAPITAL)


@njit(cache=True, error_model="numpy")
def plot_fire_nb(side, st, sh, n, vis, code, kn, rl, eff_gun, eff_crt, range_tab, band_low, rng, order, cnt,
                 smoke, dy, turn, sc, move_code):
    """Plot the fire of one side (Rules 5.1-5.3, 5.21-5.23, 8.4): ``SH_TGT`` and ``SH_SB``.

    A ship fires at most at one target within its range and the visibility (5.22-5.23); a
    capital ship may also attack one screen unit within the secondary-battery range at 1:1 (8.41).
    With the optional rules: not through smoke (12.12); radar and spotting planes reach beyond
    the visibility (12.21-12.22).
    """
    k = 0
    for i in range(n):
        if st[i, L.ST_SIDE] != side:
            continue
        sh[i, L.SH_TGT] = -1
        sh[i, L.SH_SB] = -1
        sh[i, L.SH_FMOD] = 0
        if _alive(sh, i) and by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) > 0 and \
                not _holds_fire_nb(side, st, sh, i, sc, move_code):
            order[k] = i
            k += 1
    # strongest first
    for a in range(1, k):
        u = order[a]
        key = by_damage_nb(st[u, L.ST_ATT], sh[u, L.SH_G])
        b = a - 1
        while b >= 0 and by_damage_nb(st[order[b], L.ST_ATT], sh[order[b], L.SH_G]) < key:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = u
    for j in range(n):
        cnt[j] = 0
    for a in range(k):
        i = order[a]
        reach = st[i, L.ST_RNG] if (st[i, L.ST_RNG] < vis or beyond_visibility_nb(st, i, rl)) else vis
        best = _pick_target_nb(side, st, sh, n, i, reach, False, code, kn, rl, eff_gun, range_tab, band_low, rng, cnt,
                               vis, smoke, dy, turn)
        if best >= 0:
            sh[i, L.SH_TGT] = best
            cnt[best] += 1
    # secondary batteries (8.41): the nearest screen unit in reach
    sbr = rl[L.RL_SB_RANGE] if rl[L.RL_SB_RANGE] < vis else vis
    sbcode = FIRE_RANDOM if code == FIRE_RANDOM else FIRE_NEAREST
    for i in range(n):
        if st[i, L.ST_SIDE] != side or st[i, L.ST_KIND] != CAPITAL or not _alive(sh, i):
            continue
        if by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) <= 0 or _holds_fire_nb(side, st, sh, i, sc, move_code):
            continue
        sh[i, L.SH_SB] = _pick_target_nb(side, st, sh, n, i, sbr, True, sbcode, kn, rl, eff_gun, range_tab, band_low,
                                         rng, cnt, vis, smoke, dy, turn)


# --------------------------------------------------------------------------- torpedo plots
@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _track_score_nb(side, st, sh, near, nn, ppx, ppz, ma, mx, mz, md, row, odds, eff_crt, kn, selective):
    """Value of one marker path against the units ``near[:nn]`` whose expected positions after
    each MP are ``ppx, ppz[k, t]``: enemy hits count for, friendly hits twice against; enemies
    passing one hex from the marker count a little (``K_NEAR``). Returns ``(score, direct hits)``."""
    score = 0.0
    direct = 0
    for k in range(nn):
        j = near[k]
        hit = False
        comb = 0
        close = False
        for t in range(1, ma + 1):
            a1x = ppx[k, t]
            a1z = ppz[k, t]
            if (a1x == mx[row, t] and a1z == mz[row, t]) or (
                    ppx[k, t - 1] == mx[row, t] and ppz[k, t - 1] == mz[row, t]
                    and a1x == mx[row, t - 1] and a1z == mz[row, t - 1]):
                hit = True
                d = md[row, t]
                f = sh[j, L.SH_F]
                comb = 1 if (f == d or f == (d + 3) % 6) else 0
                break
            if not close and hex_dist_nb(a1x, a1z, mx[row, t], mz[row, t]) == 1:
                close = True
        if st[j, L.ST_SIDE] != side:
            if hit:
                if selective == 0 or (comb == 0 and st[j, L.ST_KIND] == CAPITAL):
                    score += eff_crt[odds, 3 if comb else 0] * st[j, L.ST_VAL]
                    direct += 1
            elif close:
                score += kn[L.K_NEAR] * eff_crt[odds, 0] * st[j, L.ST_VAL]
        elif hit:
            score -= 2.0 * eff_crt[odds, 3 if comb else 0] * st[j, L.ST_VAL]
    return score, direct


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def plot_torpedoes_nb(side, st, sh, n, code, kn, sc, rl, tracks, eff_crt, rng, mx, mz, md, near, ppx, ppz):
    """Plot torpedo attacks of one side's screen units (Rules 8.0, 8.21-8.22, 8.31, 8.51).

    Sets ``SH_TTRACK`` (track index, -1 none) and ``SH_TARC`` (STARBOARD/PORT). Each launcher
    weighs every track and arc against the units that could meet the marker, expected to keep
    course and speed (scratch: ``near`` ``int64[n]``, ``ppx, ppz`` ``int64[n, MAXTRACK + 1]``).
    """
    ma = sc[L.SC_TORP_MA]
    nt = tracks.shape[0]
    for i in range(n):
        if st[i, L.ST_SIDE] != side:
            continue
        sh[i, L.SH_TTRACK] = -1
        if st[i, L.ST_TORP] == 0 or not _alive(sh, i) or sh[i, L.SH_TLEFT] <= 0 or sh[i, L.SH_G] >= 2 or ma <= 0:
            continue
        if code == TORP_USE_RANDOM:
            if roll_nb(rng, 2) == 1:
                sh[i, L.SH_TTRACK] = roll_nb(rng, nt) - 1
                sh[i, L.SH_TARC] = roll_nb(rng, 2) - 1
            continue
        # the units a marker could meet this turn, and where they are expected MP by MP
        nn = 0
        enemy = False
        x0 = sh[i, L.SH_X]
        z0 = sh[i, L.SH_Z]
        for j in range(n):
            if not _alive(sh, j):
                continue
            spd = sh[j, L.SH_SPD]
            if hex_dist_nb(x0, z0, sh[j, L.SH_X], sh[j, L.SH_Z]) > ma + spd + 1:
                continue
            near[nn] = j
            f = sh[j, L.SH_F]
            for t in range(ma + 1):
                kk = t if t < spd else spd
                ppx[nn, t] = sh[j, L.SH_X] + DXA[f] * kk
                ppz[nn, t] = sh[j, L.SH_Z] + DZA[f] * kk
            nn += 1
            if st[j, L.ST_SIDE] != side:
                enemy = True
        if not enemy:
            continue
        selective = 1 if code == TORP_USE_SELECTIVE else 0
        odds = st[i, L.ST_TORP]
        best = -1e300
        bt = -1
        ba = 0
        bdirect = 0
        for arc in range(2):
            for tr in range(nt):
                marker_path_nb(x0, z0, sh[i, L.SH_F], tr, arc, ma, tracks, mx, mz, md, 0)
                sc_, direct = _track_score_nb(side, st, sh, near, nn, ppx, ppz, ma, mx, mz, md, 0, odds, eff_crt,
                                              kn, selective)
                if sc_ > best:
                    best = sc_
                    bt = tr
                    ba = arc
                    bdirect = direct
        thr = kn[L.K_TORP_MIN]
        if code == TORP_USE_DEFENSIVE:
            thr = thr * 0.5
        if bt >= 0 and best > thr and (selective == 0 or bdirect > 0):
            sh[i, L.SH_TTRACK] = bt
            sh[i, L.SH_TARC] = ba


# --------------------------------------------------------------------------- hold-range
@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def preferred_range_nb(side, st, sh, n, vis, eff_gun, range_tab, band_low):
    """The range (hexes) among 2, 4, 8, 12, 16 (at most the visibility) where the side's expected
    damage to the enemy, less the enemy's to it, in ship value, is greatest."""
    best = -1e300
    bestr = 2
    for r in (2, 4, 8, 12, 16):
        if r > vis and r != 2:
            continue
        ex = 0.0
        for s in range(2):
            tot = 0.0
            for i in range(n):
                if st[i, L.ST_SIDE] != (side if s == 0 else 1 - side) or not _alive(sh, i):
                    continue
                if st[i, L.ST_KIND] != CAPITAL or r > st[i, L.ST_RNG]:
                    continue
                a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
                stg = range_strength_nb(a, r, range_tab)
                if stg <= 0:
                    continue
                b = band_nb(stg, band_low)
                m = 0.0
                for j in range(n):
                    if st[j, L.ST_SIDE] == st[i, L.ST_SIDE] or not _alive(sh, j):
                        continue
                    dd = st[j, L.ST_DEF] if st[j, L.ST_DEF] < DMAX else DMAX
                    v = eff_gun[b, 2, dd] * st[j, L.ST_VAL]
                    if v > m:
                        m = v
                tot += m
            ex += tot if s == 0 else -tot
        if ex >= best:
            best = ex
            bestr = r
    return bestr


# --------------------------------------------------------------------------- movement plots
@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _add_cand_nb(cand, k, t1, l1, t2, l2, mn, mx, rl, noabout):
    if k >= MAXC:
        return k
    if noabout and (t1 == 3 or t2 == 3):
        return k
    mp = plot_mp_nb(t1, l1, t2, l2, rl)
    if mp < 0 or mp < mn or mp > mx:
        return k
    cand[k, 0] = t1
    cand[k, 1] = l1
    cand[k, 2] = t2
    cand[k, 3] = l2
    cand[k, 4] = mp
    return k + 1


@njit(cache=True, error_model="numpy")
def candidates_nb(mn, mx, vpref, rl, noabout, cand, all_speeds):
    """A compact set of plots with MP in ``[mn, mx]`` (straight, turns, doglegs, radical turns),
    at the preferred speed, and also at the least and the greatest when ``all_speeds``.
    Returns their number."""
    k = 0
    c2 = rl[L.RL_TURN2]
    c3 = rl[L.RL_TURN3]
    sp0 = mn
    sp1 = vpref if vpref > mn else mn
    if sp1 > mx:
        sp1 = mx
    for q in range(3):
        v = sp0 if q == 0 else (sp1 if q == 1 else mx)
        if (q == 1 and all_speeds and v == sp0) or (q == 2 and (v == sp0 or v == sp1)):
            continue
        if not all_speeds and q != 1:
            continue
        if v == 0:
            k = _add_cand_nb(cand, k, 0, 0, 0, 0, mn, mx, rl, noabout)
            continue
        k = _add_cand_nb(cand, k, 0, v, 0, 0, mn, mx, rl, noabout)
        for s in (1, -1):
            k = _add_cand_nb(cand, k, s, v, 0, 0, mn, mx, rl, noabout)
            k = _add_cand_nb(cand, k, 2 * s, v - c2, 0, 0, mn, mx, rl, noabout)
            for a in (1, v // 2):
                k = _add_cand_nb(cand, k, 0, a, s, v - a, mn, mx, rl, noabout)
                k = _add_cand_nb(cand, k, s, a, s, v - a, mn, mx, rl, noabout)
                k = _add_cand_nb(cand, k, s, a, -s, v - a, mn, mx, rl, noabout)
            h = v - c2
            k = _add_cand_nb(cand, k, 2 * s, h // 2, s, h - h // 2, mn, mx, rl, noabout)
        k = _add_cand_nb(cand, k, 3, v - c3, 0, 0, mn, mx, rl, noabout)
    return k


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _goal_nb(side, st, sh, n, f, flag, code, kn, sc, rstar, pred, is_cap):
    """The goal of a formation: ``(gx, gz, gf, dstar, gmode)``; gmode 0 keep ``dstar`` from the
    goal (whose facing is ``gf``), 1 open the range from it and run for the safe zone, 2 make for
    the exit (gx = target row, gz = 0 north edge, 1 south edge), 3 open the range and stay in the
    disputed zone (campaign withdrawal), -1 no enemy."""
    gmode = 0
    if code == MOVE_OBJECTIVE and sc[L.SC_EXIT] and sc[L.SC_EXIT_SIDE] == side:
        anyexit = False
        for i in range(n):
            if sh[i, L.SH_FORM] == f and _alive(sh, i) and st[i, L.ST_EXIT]:
                anyexit = True
                break
        if anyexit:
            if sc[L.SC_EXIT_R1] < (1 << 39):
                return sc[L.SC_EXIT_R1], 0, 0, 0.0, 2   # north edge: rows up to R1
            return sc[L.SC_EXIT_R0], 1, 0, 0.0, 2       # south edge: rows from R0
    # nearest enemy (capital preferred)
    x0 = sh[flag, L.SH_X]
    z0 = sh[flag, L.SH_Z]
    best = -1
    bestd = 1 << 30
    for pref in range(2):
        for j in range(n):
            if st[j, L.ST_SIDE] == side or not _alive(sh, j):
                continue
            if pref == 0 and st[j, L.ST_KIND] != CAPITAL:
                continue
            d = hex_dist_nb(x0, z0, sh[j, L.SH_X], sh[j, L.SH_Z])
            if d < bestd:
                bestd = d
                best = j
        if best >= 0:
            break
    if best < 0:
        return 0, 0, 0, 0.0, -1
    gx = pred[best, 0]
    gz = pred[best, 1]
    gf = sh[best, L.SH_F]
    if code == MOVE_BREAK:
        return gx, gz, gf, 0.0, 1
    if code == MOVE_WITHDRAW:
        return gx, gz, gf, 0.0, 3
    if code == MOVE_HOLD:
        dstar = float(rstar)
        if not is_cap:
            dstar = dstar + 2.0
        return gx, gz, gf, dstar, gmode
    # close (and objective without an exit)
    if not is_cap:
        # screens attack together with their battle line: while no friendly capital ship is within
        # K_SUPPORT hexes of the target, they keep station two hexes from the nearest one
        sup = -1
        supd = 1 << 30
        for i in range(n):
            if st[i, L.ST_SIDE] == side and st[i, L.ST_KIND] == CAPITAL and _alive(sh, i):
                d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[best, L.SH_X], sh[best, L.SH_Z])
                if d < supd:
                    supd = d
                    sup = i
        if sup >= 0 and supd > kn[L.K_SUPPORT]:
            return pred[sup, 0], pred[sup, 1], sh[sup, L.SH_F], 2.0, gmode
        torp = False
        for i in range(n):
            if sh[i, L.SH_FORM] == f and _alive(sh, i) and st[i, L.ST_TORP] > 0 and sh[i, L.SH_TLEFT] > 0:
                torp = True
        if torp:
            return gx, gz, gf, kn[L.K_SCREEN_RANGE], gmode
    return gx, gz, gf, kn[L.K_RANGE], gmode


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _score_nb(ex, ez, ef, mp, turnmp, gx, gz, gf, dstar, gmode, kn, role, sx, sz):
    if gmode == 2:
        row = row_of_nb(ex, ez)
        if gz == 0:
            dd = row - gx
        else:
            dd = gx - row
        if dd < 0:
            dd = 0
        return -float(dd) + 0.01 * mp
    if gmode < 0:
        return 0.01 * mp
    d = hex_dist_nb(ex, ez, gx, gz)
    tc = kn[L.K_TURNCOST] * turnmp
    if gmode == 3:
        # withdraw (campaign): open the range without running for the safe zone
        s = float(d) + 0.05 * mp - tc
        if d == 0:
            s -= 5.0
        return s
    if gmode == 1:
        row0 = row_of_nb(sx, sz)
        row1 = row_of_nb(ex, ez)
        prog = float(row0 - row1) if role == ROLE_NORTH else float(row1 - row0)
        s = float(d) + kn[L.K_SAFE] * prog + 0.05 * mp - tc
        if d == 0:
            s -= 5.0
        return s
    off = abs(float(d) - dstar)
    s = -off
    if arc_nb(ef, gx - ex, gz - ez) != 0:
        s -= kn[L.K_BROADSIDE]
    if off <= 1.0:
        # at the range wanted: steam parallel to the target, which keeps the range (no dancing)
        df = (ef - gf) % 6
        if df > 3:
            df = 6 - df
        s -= kn[L.K_PARALLEL] * df
    if d == 0:
        s -= 5.0
    return s + 0.01 * mp - tc


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _own_track_hit_nb(st, i, mp, emp, px, pz, sc, tk):
    """Would unit ``i``, moving along ``px, pz[i]`` for ``mp`` MP, meet a Torpedo Marker of its own
    side placed this Movement Phase? ``tk`` = (marker count ``int64[1]``, mx, mz, md, owner)."""
    nm = tk[0][0]
    if nm == 0:
        return False
    mx = tk[1]
    mz = tk[2]
    owner = tk[4]
    ma = sc[L.SC_TORP_MA]
    side = st[i, L.ST_SIDE]
    for m in range(nm):
        if st[owner[m], L.ST_SIDE] != side:
            continue
        for t in range(1, ma + 1):
            if emp < t:
                break
            t0 = t - 1 if t - 1 < mp else mp
            t1 = t if t < mp else mp
            if (px[i, t1] == mx[m, t] and pz[i, t1] == mz[m, t]) or (
                    px[i, t0] == mx[m, t] and pz[i, t0] == mz[m, t] and px[i, t1] == mx[m, t - 1]
                    and pz[i, t1] == mz[m, t - 1]):
                return True
    return False


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _try_plan_nb(st, sh, fm, trail, f, n, t1, l1, t2, l2, mp, sc, rl, px, pz, pf, planned, exit_mp, tk):
    """Lay out formation ``f``'s plot for all members; keep it if every hex is allowed and every
    end position stacks legally. Returns True if kept."""
    flag = fm[f, L.FM_FLAG]
    mode = fm[f, L.FM_MODE]
    # the flagship's path first: column members take theirs from it
    plot_path_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], sh[flag, L.SH_F], t1, l1, t2, l2, rl, px, pz, pf, flag)
    for i in range(n):
        if sh[i, L.SH_FORM] != f or not _alive(sh, i):
            continue
        if i != flag:
            if mode == COLUMN:
                column_member_path_nb(trail, f, fm[f, L.FM_HEAD], sh[i, L.SH_CUR], mp, px, pz, pf, flag, i)
            else:
                plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], t1, l1, t2, l2, rl, px, pz, pf, i)
        ok, em = path_allowed_nb(st, sh, i, px, pz, i, mp, sc)
        if not ok:
            return False
        exit_mp[i] = em
    # no member steers into its own side's torpedoes (the side knows its plots)
    for i in range(n):
        if sh[i, L.SH_FORM] == f and _alive(sh, i) and _own_track_hit_nb(st, i, mp, exit_mp[i], px, pz, sc, tk):
            return False
    # stacking of the end positions, member by member
    ok = True
    for i in range(n):
        if sh[i, L.SH_FORM] != f or not _alive(sh, i):
            continue
        if exit_mp[i] <= L.MAXMP:
            truncate_at_exit_nb(px, pz, pf, i, exit_mp[i])
            continue
        x = px[i, mp]
        z = pz[i, mp]
        fc = pf[i, mp]
        if not stack_ok_nb(st, sh, i, x, z, fc, planned, n, rl):
            ok = False
            break
        sh[i, L.SH_PX] = x
        sh[i, L.SH_PZ] = z
        sh[i, L.SH_PF] = fc
        planned[i] = 1
    if not ok:
        for i in range(n):
            if sh[i, L.SH_FORM] == f:
                planned[i] = 0
        return False
    for i in range(n):
        if sh[i, L.SH_FORM] == f and _alive(sh, i):
            sh[i, L.SH_MP] = mp
            planned[i] = 1
    fm[f, L.FM_T1] = t1
    fm[f, L.FM_L1] = l1
    fm[f, L.FM_T2] = t2
    fm[f, L.FM_L2] = l2
    fm[f, L.FM_MP] = mp
    return True


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _bounds_nb(st, sh, f, n, rl):
    mn = 0
    mx = 1 << 30
    noabout = 0
    for i in range(n):
        if sh[i, L.SH_FORM] != f or not _alive(sh, i):
            continue
        a, b = speed_bounds_nb(st, sh, i, rl)
        if a > mn:
            mn = a
        if b < mx:
            mx = b
        if st[i, L.ST_NOABOUT]:
            noabout = 1
    return mn, mx, noabout


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _random_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, rng, tk):
    mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
    turns = (-2, -1, 0, 1, 2, 3)
    for _ in range(48):
        v = mn + roll_nb(rng, mx - mn + 1) - 1
        if v == 0:
            if _try_plan_nb(st, sh, fm, trail, f, n, 0, 0, 0, 0, 0, sc, rl, px, pz, pf, planned, exit_mp, tk):
                return True
            continue
        t1 = turns[roll_nb(rng, 6) - 1]
        if roll_nb(rng, 2) == 1:
            t2 = 0
            l1 = v - (rl[L.RL_TURN2] if (t1 == 2 or t1 == -2) else (rl[L.RL_TURN3] if t1 == 3 else 0))
            l2 = 0
        else:
            t2 = turns[roll_nb(rng, 6) - 1]
            if t2 == 0:
                t2 = 1
            h = v - (rl[L.RL_TURN2] if (t1 == 2 or t1 == -2) else (rl[L.RL_TURN3] if t1 == 3 else 0)) \
                - (rl[L.RL_TURN2] if (t2 == 2 or t2 == -2) else (rl[L.RL_TURN3] if t2 == 3 else 0))
            if h < 2:
                continue
            l1 = roll_nb(rng, h // 2)
            l2 = h - l1
        if l1 < 0:
            continue
        mp = plot_mp_nb(t1, l1, t2, l2, rl)
        if mp < mn or mp > mx or (noabout and (t1 == 3 or t2 == 3)):
            continue
        if _try_plan_nb(st, sh, fm, trail, f, n, t1, l1, t2, l2, mp, sc, rl, px, pz, pf, planned, exit_mp, tk):
            return True
    return False


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, tk):
    """Any legal plot, scanning systematically; else stop where it is (ruling DN-M4)."""
    flag = fm[f, L.FM_FLAG]
    mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
    turns = (0, 1, -1, 2, -2, 3)
    for v in range(mn, mx + 1):
        for t1 in turns:
            for t2 in turns:
                for l1 in range(0 if v == 0 else 1, v + 1):
                    for l2 in range(0, v + 1):
                        mp = plot_mp_nb(t1, l1, t2, l2, rl)
                        if mp != v or (noabout and (t1 == 3 or t2 == 3)):
                            continue
                        if _try_plan_nb(st, sh, fm, trail, f, n, t1, l1, t2, l2, mp, sc, rl, px, pz, pf,
                                        planned, exit_mp, tk):
                            return True
    # nothing legal: the formation stops (ruling DN-M4); the stacking safety net settles the rest
    plot_path_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], sh[flag, L.SH_F], 0, 0, 0, 0, rl, px, pz, pf, flag)
    for i in range(n):
        if sh[i, L.SH_FORM] == f and _alive(sh, i):
            _stay_plot_nb(sh, i, rl, px, pz, pf, planned, exit_mp)
    fm[f, L.FM_MP] = 0
    return False


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _plan_best_nb(st, sh, fm, trail, f, flag, n, cand, scores, k, sc, rl, px, pz, pf, planned, exit_mp, tk):
    """Try formation ``f``'s candidate plots ``cand[:k]`` (t1, l1, t2, l2, mp, end x, z, facing)
    best score first until one is legal (:func:`_try_plan_nb`); ``scores`` is used up. A cheap look
    at the flagship's end hex comes first (most refusals are stacking there). Returns True if one
    was kept."""
    for _ in range(k):
        b = -1
        bs = -1e300
        for c in range(k):
            if scores[c] > bs:
                bs = scores[c]
                b = c
        if b < 0:
            break
        scores[b] = -1e301
        if not in_exit_nb(st, flag, cand[b, 5], cand[b, 6], sc) and \
                not stack_ok_nb(st, sh, flag, cand[b, 5], cand[b, 6], cand[b, 7], planned, n, rl):
            continue
        if _try_plan_nb(st, sh, fm, trail, f, n, cand[b, 0], cand[b, 1], cand[b, 2], cand[b, 3], cand[b, 4], sc, rl,
                        px, pz, pf, planned, exit_mp, tk):
            return True
    return False


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def maintain_formations_nb(side, st, sh, fm, trail, n, rl, pc, buf):
    """Start of a Movement Plot: drop dead members, detach ships that cannot keep the pace
    (their Movement Allowance below the best of the formation), apply the policy's preferred mode
    where the formation stands in a straight line (Rules 6.24-6.28)."""
    code = pc[L.PC_MOVE]
    pref = pc[L.PC_MODE]
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
            for i in range(n):
                if sh[i, L.SH_FORM] == f and _alive(sh, i) and fm[f, L.FM_MEMBERS] > 1:
                    detach_nb(sh, fm, i, n)
            continue
        if cnt > 1:
            pace = -1
            for i in range(n):
                if sh[i, L.SH_FORM] == f and _alive(sh, i):
                    a, b = speed_bounds_nb(st, sh, i, rl)
                    if b > pace:
                        pace = b
            for i in range(n):
                if sh[i, L.SH_FORM] == f and _alive(sh, i) and fm[f, L.FM_MEMBERS] > 1:
                    a, b = speed_bounds_nb(st, sh, i, rl)
                    if b < pace or sh[i, L.SH_G] + sh[i, L.SH_S] >= 3:
                        detach_nb(sh, fm, i, n)
            refresh_formation_nb(sh, fm, f, n)
        if fm[f, L.FM_MEMBERS] > 1 and pref != fm[f, L.FM_MODE] and pref >= 0:
            if straight_column_nb(sh, f, n, buf) > 0:
                if pref == COLUMN:
                    make_column_nb(sh, fm, trail, f, n)
                else:
                    fm[f, L.FM_MODE] = LINE


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def plot_movement_nb(side, st, sh, fm, trail, n, sc, rl, pc, kn, vis, rstar, pred, px, pz, pf, planned,
                     exit_mp, cand, scores, rng, tk, dy):
    """Plot the movement of one side's formations (Rules 6.0-6.3, 7.0-7.3): paths into
    ``px, pz, pf``, MP into ``SH_MP``, end positions into ``SH_PX/PZ/PF``. A withdrawing side
    (campaign) keeps out of its safe zone (9.15) and, as North in scenarios B and C, on the initial
    Map Area until the South leaves it (11.3, 11.4)."""
    code = pc[L.PC_MOVE]
    role = role_of_nb(side, sc)
    # units that cannot move plot first, so that nobody plans to end in their hex
    for pass_ in range(2):
        for f in range(n):
            if fm[f, L.FM_MEMBERS] == 0:
                continue
            flag = fm[f, L.FM_FLAG]
            if flag < 0 or st[flag, L.ST_SIDE] != side or not _alive(sh, flag) or planned[flag]:
                continue
            if pass_ == 0 and _bounds_nb(st, sh, f, n, rl)[1] > 0:
                continue
            if code == MOVE_RANDOM:
                if not _random_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, rng, tk):
                    _fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, tk)
                continue
            mn, mx, noabout = _bounds_nb(st, sh, f, n, rl)
            is_cap = st[flag, L.ST_KIND] == CAPITAL
            gx, gz, gf, dstar, gmode = _goal_nb(side, st, sh, n, f, flag, code, kn, sc, rstar, pred, is_cap)
            vpref = mx
            if code == MOVE_HOLD and gmode == 0:
                d0 = hex_dist_nb(sh[flag, L.SH_X], sh[flag, L.SH_Z], gx, gz)
                if abs(float(d0) - dstar) <= 1.0:
                    vpref = (mn + mx) // 2
            k = candidates_nb(mn, mx, vpref, rl, noabout, cand, code == MOVE_HOLD)
            sx = sh[flag, L.SH_X]
            sz = sh[flag, L.SH_Z]
            sf = sh[flag, L.SH_F]
            for c in range(k):
                ex, ez, ef = plot_end_nb(sx, sz, sf, cand[c, 0], cand[c, 1], cand[c, 2], cand[c, 3])
                cand[c, 5] = ex
                cand[c, 6] = ez
                cand[c, 7] = ef
                turnmp = cand[c, 4] - cand[c, 1] - cand[c, 3]
                scores[c] = _score_nb(ex, ez, ef, cand[c, 4], turnmp, gx, gz, gf, dstar, gmode, kn, role, sx, sz)
                if gmode == 3:
                    scores[c] -= withdraw_penalty_nb(side, ex, ez, sc, dy)
            done = _plan_best_nb(st, sh, fm, trail, f, flag, n, cand, scores, k, sc, rl, px, pz, pf, planned, exit_mp,
                                 tk)
            if not done:
                if fm[f, L.FM_MEMBERS] > 1:
                    # break the formation up and let each ship find its own way (6.27)
                    for i in range(n):
                        if sh[i, L.SH_FORM] == f and _alive(sh, i) and i != flag:
                            g = detach_nb(sh, fm, i, n)
                            if not _random_plot_nb(st, sh, fm, trail, g, n, sc, rl, px, pz, pf, planned, exit_mp, rng, tk):
                                _fallback_plot_nb(st, sh, fm, trail, g, n, sc, rl, px, pz, pf, planned, exit_mp, tk)
                    refresh_formation_nb(sh, fm, f, n)
                if not _random_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, rng, tk):
                    _fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, tk)

    # ==================================================================================================
    # the game loop (Rule 4.1)
    # ==================================================================================================
    # The whole-game kernel of Dreadnought: a batch of complete scenarios in one numba call.
    #
    # :func:`play_batch_nb` plays one game per seed; each game follows the Sequence of Play (Rule 4.1)
    # turn by turn:
    #
    # 1. Visibility: base + one die (5.71); sighting: any two opposing units in play within it.
    # 2. Fire Plot: both sides plot gunfire, secondary batteries and torpedo attacks (5.1, 8.0, 8.4).
    # 3. Fire Execution: every plotted shot is resolved; results apply at the end of the phase (5.0).
    # 4. Movement Plot: formations and units plot (6.0-6.2, 7.0).
    # 5. Movement Execution: all move MP by MP with the Torpedo Markers (8.0); torpedo results apply
    #    when movement ends; then exits, safe zones (9.15), collisions and stacking (6.13, 6.31-6.33).
    # 6. Damage Control (5.43-5.44).
    #
    # A scenario ends after its last Game-Turn, after three consecutive Game-Turns without sighting once
    # contact has been made (9.42, ruling DN-E2), when a side has no unit left in play, or when an
    # objective that decides it is met (10.4). Results per game go to ``out`` (layout ``O_*``), shots
    # to ``ev`` when asked (layout ``E_*``).
    # every unit in play has a plot (a formation whose flagship was planned elsewhere cannot
    # strand a member): anything left stops where it is
    for i in range(n):
        if st[i, L.ST_SIDE] == side and _alive(sh, i) and planned[i] == 0:
            g = detach_nb(sh, fm, i, n)
            _fallback_plot_nb(st, sh, fm, trail, g, n, sc, rl, px, pz, pf, planned, exit_mp, tk)


# ==================================================================================================
# optional rules (12.1-12.5) and the campaign's tactical additions (9.2-9.3, 9.41-9.43, 11.3-11.4)
# ==================================================================================================
# Smoke (12.1): DD units lay Smoke Markers in the hexes they vacate; a marker blocks fire and
# torpedo attacks whose line (centre to centre) crosses its hex between the two ships (12.12-12.13).
# Radar and spotting planes (12.21-12.22): eligible units fire beyond the visibility at -2 / -3.
# Creep (12.3): in speed_bounds_nb. Towing (12.4): a capital ship or CA/CL unit stacks with an
# immobile friendly capital ship, both lie still two Game-Turns, then the pair moves at most 2 MP.
# Sun (12.5): rolled before a scenario; Game-Turns 6-11 give +1 toward and -1 away from the sun.

NO_FIRE = -1000          # fire_mod_nb: this shot is not allowed
TURNS6 = (0, 1, -1, 2, -2, 3)


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def fire_options_on_nb(rl):
    """Is any optional rule that changes fire on (smoke, radar, spotting planes, sun)?"""
    return rl[L.RL_OPT_SMOKE] != 0 or rl[L.RL_OPT_RADAR] != 0 or rl[L.RL_OPT_PLANES] != 0 or rl[L.RL_OPT_SUN] != 0


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def beyond_visibility_nb(st, i, rl):
    """May unit ``i`` fire beyond the visibility (radar 12.21 or spotting planes 12.22)?"""
    return (rl[L.RL_OPT_RADAR] != 0 and st[i, L.ST_RADAR] != 0) or (rl[L.RL_OPT_PLANES] != 0 and st[i, L.ST_PLANES] != 0)


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _clip_nb(u0, du, t0, t1, strict):
    """Clip ``t`` in ``[t0, t1]`` to where ``u0 + du * t`` lies within ``(-1, 1)`` (``[-1, 1]``
    if not ``strict``)."""
    eps = 1e-9
    if abs(du) < 1e-12:
        inside = (-1.0 + eps < u0 < 1.0 - eps) if strict else (-1.0 - eps <= u0 <= 1.0 + eps)
        return (t0, t1) if inside else (1.0, 0.0)
    ta = (-1.0 - u0) / du
    tb = (1.0 - u0) / du
    if ta > tb:
        ta, tb = tb, ta
    return (t0 if t0 > ta else ta), (t1 if t1 < tb else tb)


@njit(cache=True, error_model="numpy")
def smoke_blocks_nb(x0, z0, x1, z1, smoke, k):
    """Does smoke block the line of fire from hex ``(x0, z0)`` to ``(x1, z1)``? (Rules 12.12-12.13)

    The line runs from centre to centre; it is blocked by a Smoke Marker (``smoke[:k]``, cube
    ``(x, z)``) whose hex it passes through, other than the firer's and the target's (12.13). A
    hex is the cube cell ``|x - y|, |y - z|, |z - x| <= 1`` around its centre, so the part of the
    line inside it is found by clipping against three slabs. Where the line runs exactly along a
    hexside the firer may look down either side: it is blocked only if both hexes hold smoke
    (ruling DN-O1).

    Returns:
        True if the fire (or torpedo attack) is not permitted.
    """
    if k == 0 or (x0 == x1 and z0 == z1):
        return False
    y0 = -x0 - z0
    dx = x1 - x0
    dz = z1 - z0
    dyv = -dx - dz
    for m in range(k):
        hx = smoke[m, 0]
        hz = smoke[m, 1]
        if (hx == x0 and hz == z0) or (hx == x1 and hz == z1):
            continue
        hy = -hx - hz
        u0 = float((x0 - y0) - (hx - hy))
        du = float(dx - dyv)
        v0 = float((y0 - z0) - (hy - hz))
        dv = float(dyv - dz)
        w0 = float((z0 - x0) - (hz - hx))
        dw = float(dz - dx)
        a, b = _clip_nb(u0, du, 0.0, 1.0, True)
        a, b = _clip_nb(v0, dv, a, b, True)
        a, b = _clip_nb(w0, dw, a, b, True)
        if b - a > 1e-9:
            return True
        a, b = _clip_nb(u0, du, 0.0, 1.0, False)
        a, b = _clip_nb(v0, dv, a, b, False)
        a, b = _clip_nb(w0, dw, a, b, False)
        if b - a <= 1e-9:
            continue
        # along a hexside: the hex across it must hold smoke too
        nx = hx
        nz = hz
        if abs(du) < 1e-12 and abs(abs(u0) - 1.0) < 1e-9:
            nx = hx + (1 if u0 > 0 else -1)
        elif abs(dv) < 1e-12 and abs(abs(v0) - 1.0) < 1e-9:
            nz = hz + (-1 if v0 > 0 else 1)
        elif abs(dw) < 1e-12 and abs(abs(w0) - 1.0) < 1e-9:
            if w0 > 0:
                nx = hx - 1
                nz = hz + 1
            else:
                nx = hx + 1
                nz = hz - 1
        else:
            continue
        if (nx == x0 and nz == z0) or (nx == x1 and nz == z1):
            continue
        if _in_buf_nb(smoke, k, nx, nz):
            return True
    return False


@njit(cache=True, error_model="numpy")
def sun_mod_nb(dx, dz, sun, rl):
    """DPT roll modifier of the sun for a target at cube offset ``(dx, dz)`` (Rule 12.52).

    The setting sun lies west: a target on or between the hexrows running NW and SW from the
    firer is toward it (+1); one on or between the NE and SE hexrows is away from it (-1); any
    other target has none. The rising sun (east) is the mirror image.
    """
    dyv = -dx - dz
    west = dz >= 0 and dyv >= 0
    east = dz <= 0 and dyv <= 0
    if sun == SUN_SETTING_WEST:
        toward = west
        away = east
    else:
        toward = east
        away = west
    if toward:
        return rl[L.RL_SUN_TOWARD]
    if away:
        return rl[L.RL_SUN_AWAY]
    return 0


@njit(cache=True, error_model="numpy")
def sun_roll_nb(rng, rl):
    """Sun position before a scenario (Rule 12.51): 2 rising in the east, 12 setting in the west."""
    r = two_d6_nb(rng)
    if r == rl[L.RL_SUN_RISE]:
        return 1
    if r == rl[L.RL_SUN_SET]:
        return 2
    return 0


@njit(cache=True, error_model="numpy")
def fire_mod_nb(st, sh, i, j, d, vis, rl, smoke, dy, turn):
    """May unit ``i`` fire its main battery at ``j``, ``d`` hexes off, and with what DPT modifier?

    Rules 5.23 and the optional rules: within the visibility unless radar (12.21, -2 beyond it)
    or spotting planes (12.22, -3 beyond it, not through smoke) let it fire to its range; never
    through smoke (12.12) except by radar (ruling DN-O2); the sun's +1/-1 on Game-Turns 6-11
    (12.52-12.53).

    Returns:
        The modifier, or ``NO_FIRE`` if the shot is not allowed.
    """
    if d > st[i, L.ST_RNG]:
        return NO_FIRE
    radar = rl[L.RL_OPT_RADAR] != 0 and st[i, L.ST_RADAR] != 0
    planes = rl[L.RL_OPT_PLANES] != 0 and st[i, L.ST_PLANES] != 0
    blocked = False
    if rl[L.RL_OPT_SMOKE] and dy[L.DY_NSMOKE] > 0:
        blocked = smoke_blocks_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z], smoke, dy[L.DY_NSMOKE])
    mod = 0
    if d > vis:
        if radar:
            mod += rl[L.RL_RADAR_MOD]
        elif planes and not blocked:
            mod += rl[L.RL_PLANES_MOD]
        else:
            return NO_FIRE
    elif blocked and not radar:
        return NO_FIRE
    if rl[L.RL_OPT_SUN] and dy[L.DY_SUN] != 0 and rl[L.RL_SUN_T0] <= turn <= rl[L.RL_SUN_T1]:
        mod += sun_mod_nb(sh[j, L.SH_X] - sh[i, L.SH_X], sh[j, L.SH_Z] - sh[i, L.SH_Z], dy[L.DY_SUN], rl)
    return mod


# --------------------------------------------------------------------------- towing (12.4)
@njit(cache=True, error_model="numpy")
def tow_pair_nb(sh, i, j, rl):
    """Are ``i`` and ``j`` a towing ship and the ship it tows (they may share a hex, 12.41)?"""
    return rl[L.RL_OPT_TOWING] != 0 and (sh[i, L.SH_TOW] == j or sh[j, L.SH_TOW] == i)


@njit(cache=True, error_model="numpy")
def tower_ok_nb(st, sh, i):
    """May unit ``i`` take a tow (Rules 12.41-12.42)? A capital ship, CA or CL unit in play, not
    wrecked, able to move, neither towing nor towed."""
    if sh[i, L.SH_STATUS] != AFLOAT or wrecked_nb(sh, i):
        return False
    t = st[i, L.ST_TYPE]
    if t != TYPE_CAPITAL and t != TYPE_CA and t != TYPE_CL:
        return False
    return sh[i, L.SH_TOW] < 0 and sh[i, L.SH_TOWED_BY] < 0 and by_damage_nb(st[i, L.ST_MOV], sh[i, L.SH_S]) > 0


@njit(cache=True, error_model="numpy")
def towable_nb(st, sh, j, rl):
    """May unit ``j`` be taken in tow (12.41-12.43)? A capital ship in play that cannot move
    (wrecked, or at 2S without creep) and has come to rest (6.4)."""
    if sh[j, L.SH_STATUS] != AFLOAT or st[j, L.ST_KIND] != CAPITAL:
        return False
    if sh[j, L.SH_TOWED_BY] >= 0 or sh[j, L.SH_TOW] >= 0:
        return False
    a, b = speed_bounds_nb(st, sh, j, rl)
    return b == 0


@njit(cache=True, error_model="numpy")
def release_tow_nb(sh, i):
    """The tow of unit ``i`` is broken (12.41: instantly, at any Game-Turn)."""
    j = sh[i, L.SH_TOW]
    if j >= 0:
        sh[j, L.SH_TOWED_BY] = -1
    sh[i, L.SH_TOW] = -1
    sh[i, L.SH_TOW_WAIT] = 0


@njit(cache=True, error_model="numpy")
def under_tow_nb(sh, j):
    """Is ``j`` under tow: its towing ship in play and in its hex (12.64; ruling DN-O5)?"""
    i = sh[j, L.SH_TOWED_BY]
    if i < 0 or sh[i, L.SH_STATUS] != AFLOAT or sh[i, L.SH_TOW] != j:
        return False
    return sh[i, L.SH_X] == sh[j, L.SH_X] and sh[i, L.SH_Z] == sh[j, L.SH_Z]


@njit(cache=True, error_model="numpy")
def assign_tows_nb(side, st, sh, n, vis, rl, withdrawing, code, rng):
    """Give each immobile capital ship of ``side`` a towing ship (policy; Rule 12.4).

    A tow is taken when no enemy unit is within the visibility of the cripple, or at once when
    the side withdraws; the nearest able cruiser unit goes, a capital ship only if no cruiser is
    much nearer (within 16 hexes). ``random-legal`` takes a tow on a coin flip.
    """
    for j in range(n):
        if st[j, L.ST_SIDE] != side or not towable_nb(st, sh, j, rl):
            continue
        if code == MOVE_RANDOM:
            if roll_nb(rng, 2) != 1:
                continue
        elif not withdrawing:
            near = False
            for e in range(n):
                if st[e, L.ST_SIDE] != side and _alive(sh, e) and \
                        hex_dist_nb(sh[e, L.SH_X], sh[e, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z]) <= vis:
                    near = True
                    break
            if near:
                continue
        best = -1
        bestd = 1 << 30
        for i in range(n):
            if st[i, L.ST_SIDE] != side or i == j or not tower_ok_nb(st, sh, i):
                continue
            d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z])
            if d > 16:
                continue
            if st[i, L.ST_TYPE] == TYPE_CAPITAL:
                d += 8
            if d < bestd:
                bestd = d
                best = i
        if best >= 0:
            sh[best, L.SH_TOW] = j
            sh[j, L.SH_TOWED_BY] = best
            sh[best, L.SH_TOW_WAIT] = 0


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _stay_plot_nb(sh, i, rl, px, pz, pf, planned, exit_mp):
    """Unit ``i`` spends no MP this Movement Phase (its plot and planned end: where it is)."""
    plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], 0, 0, 0, 0, rl, px, pz, pf, i)
    sh[i, L.SH_MP] = 0
    exit_mp[i] = L.MAXMP + 1
    sh[i, L.SH_PX] = sh[i, L.SH_X]
    sh[i, L.SH_PZ] = sh[i, L.SH_Z]
    sh[i, L.SH_PF] = sh[i, L.SH_F]
    planned[i] = 1


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _tow_approach_nb(st, sh, fm, trail, i, j, n, sc, rl, px, pz, pf, planned, exit_mp, tk):
    """Plot towing ship ``i`` toward the hex of ``j``, arriving at 1 MP or less so that it can lie
    still there next Game-Turn (6.4: a ship decelerates by at most half); every legal plot is
    weighed."""
    mn, mx = speed_bounds_nb(st, sh, i, rl)
    wx = sh[j, L.SH_X]
    wz = sh[j, L.SH_Z]
    noabout = st[i, L.ST_NOABOUT]
    cap = 4096
    sc_ = np.empty(cap, dtype=np.float64)
    shp = np.empty((cap, 8), dtype=np.int64)
    k = 0
    for v in range(mn, mx + 1):
        for a in range(6):
            for b in range(6):
                t1 = TURNS6[a]
                t2 = TURNS6[b]
                for l1 in range(0, v + 1):
                    for l2 in range(0, v + 1):
                        mp = plot_mp_nb(t1, l1, t2, l2, rl)
                        if mp != v or k >= cap or (noabout and (t1 == 3 or t2 == 3)):
                            continue
                        ex, ez, ef = plot_end_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], t1, l1, t2, l2)
                        d = hex_dist_nb(ex, ez, wx, wz)
                        s = -10.0 * d
                        if d == 0:
                            s += 1000.0 if v <= 1 else -50.0
                        elif d == 1:
                            kk, tie = bearing_nb(wx - ex, wz - ez)
                            df = (kk - ef) % 6
                            if df == 0 or df == 1 or df == 5:
                                s += 3.0
                        if d <= 2:
                            s -= v
                        sc_[k] = s
                        shp[k, 0] = t1
                        shp[k, 1] = l1
                        shp[k, 2] = t2
                        shp[k, 3] = l2
                        shp[k, 4] = mp
                        shp[k, 5] = ex
                        shp[k, 6] = ez
                        shp[k, 7] = ef
                        k += 1
    f = sh[i, L.SH_FORM]
    if _plan_best_nb(st, sh, fm, trail, f, i, n, shp, sc_, k, sc, rl, px, pz, pf, planned, exit_mp, tk):
        return True
    return _fallback_plot_nb(st, sh, fm, trail, f, n, sc, rl, px, pz, pf, planned, exit_mp, tk)


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def plan_tows_nb(side, st, sh, fm, trail, n, sc, rl, kn, pred, px, pz, pf, planned, exit_mp, cand, scores, tk):
    """Movement plots of ``side``'s tows (Rule 12.41): the towed ship lies still; the towing ship
    closes on it, lies still beside it for two Game-Turns, then moves at most 2 MP away from the
    enemy with the towed ship in its hex (same path)."""
    for i in range(n):
        if st[i, L.ST_SIDE] != side or sh[i, L.SH_TOW] < 0:
            continue
        j = sh[i, L.SH_TOW]
        if not _alive(sh, i) or wrecked_nb(sh, i) or not _alive(sh, j):
            release_tow_nb(sh, i)
            continue
        if fm[sh[i, L.SH_FORM], L.FM_MEMBERS] > 1:
            detach_nb(sh, fm, i, n)
        if fm[sh[j, L.SH_FORM], L.FM_MEMBERS] > 1:
            detach_nb(sh, fm, j, n)
        same = sh[i, L.SH_X] == sh[j, L.SH_X] and sh[i, L.SH_Z] == sh[j, L.SH_Z]
        established = same and sh[i, L.SH_TOW_WAIT] >= rl[L.RL_TOW_WAIT]
        if not planned[j]:
            _stay_plot_nb(sh, j, rl, px, pz, pf, planned, exit_mp)
        if planned[i]:
            continue
        fi = sh[i, L.SH_FORM]
        if not established:
            _tow_approach_nb(st, sh, fm, trail, i, j, n, sc, rl, px, pz, pf, planned, exit_mp, tk)
            continue
        mn, mx = speed_bounds_nb(st, sh, i, rl)
        gx, gz, gf, dstar, gmode = _goal_nb(side, st, sh, n, fi, i, MOVE_BREAK, kn, sc, 8, pred, True)
        k = candidates_nb(mn, mx, mx, rl, st[i, L.ST_NOABOUT], cand, True)
        role = role_of_nb(side, sc)
        for c in range(k):
            ex, ez, ef = plot_end_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], cand[c, 0], cand[c, 1], cand[c, 2],
                                     cand[c, 3])
            cand[c, 5] = ex
            cand[c, 6] = ez
            cand[c, 7] = ef
            scores[c] = _score_nb(ex, ez, ef, cand[c, 4], cand[c, 4] - cand[c, 1] - cand[c, 3], gx, gz, gf, dstar,
                                  gmode, kn, role, sh[i, L.SH_X], sh[i, L.SH_Z])
        if not _plan_best_nb(st, sh, fm, trail, fi, i, n, cand, scores, k, sc, rl, px, pz, pf, planned, exit_mp, tk):
            _fallback_plot_nb(st, sh, fm, trail, fi, n, sc, rl, px, pz, pf, planned, exit_mp, tk)
        # the towed ship goes where its towing ship goes
        for t in range(L.MAXMP + 1):
            px[j, t] = px[i, t]
            pz[j, t] = pz[i, t]
            pf[j, t] = pf[i, t]
        sh[j, L.SH_MP] = sh[i, L.SH_MP]
        exit_mp[j] = exit_mp[i]
        sh[j, L.SH_PX] = sh[i, L.SH_PX]
        sh[j, L.SH_PZ] = sh[i, L.SH_PZ]
        sh[j, L.SH_PF] = sh[i, L.SH_PF]


@njit(cache=True, error_model="numpy")
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


# --------------------------------------------------------------------------- smoke (12.1)
@njit(cache=True, error_model="numpy")
def plot_smoke_nb(side, st, sh, n, code, rng):
    """Which of ``side``'s DD units make smoke this Movement Phase (policy; Rule 12.11, 12.14)?

    A withdrawing or breaking-off side's destroyers make smoke; so does a destroyer within three
    hexes of a friendly capital ship with two or more damage steps. ``random-legal``: a coin flip.
    """
    for i in range(n):
        if st[i, L.ST_SIDE] != side or st[i, L.ST_TYPE] != TYPE_DD:
            continue
        sh[i, L.SH_SMOKE] = 0
        if not _alive(sh, i):
            continue
        if code == MOVE_RANDOM:
            s = roll_nb(rng, 2) == 1
        else:
            s = code == MOVE_BREAK or code == MOVE_WITHDRAW
            if not s:
                for c in range(n):
                    if st[c, L.ST_SIDE] == side and st[c, L.ST_KIND] == CAPITAL and _alive(sh, c) and \
                            sh[c, L.SH_G] + sh[c, L.SH_S] >= 2 and \
                            hex_dist_nb(sh[c, L.SH_X], sh[c, L.SH_Z], sh[i, L.SH_X], sh[i, L.SH_Z]) <= 3:
                        s = True
                        break
        if s:
            sh[i, L.SH_SMOKE] = 1


@njit(cache=True, error_model="numpy")
def lay_smoke_nb(st, sh, n, px, pz, alive, exit_mp, smoke, k):
    """Rule 12.11: each DD unit making smoke leaves a Smoke Marker in every hex it vacates during
    its movement (not in the hex where it ends). Returns the new number of markers."""
    cap = smoke.shape[0]
    for i in range(n):
        if alive[i] == 0 or sh[i, L.SH_SMOKE] == 0 or st[i, L.ST_TYPE] != TYPE_DD:
            continue
        m = sh[i, L.SH_MP]
        for t in range(1, m + 1):
            if t > exit_mp[i]:
                break
            if px[i, t] == px[i, t - 1] and pz[i, t] == pz[i, t - 1]:
                continue
            x = px[i, t - 1]
            z = pz[i, t - 1]
            if k < cap and not _in_buf_nb(smoke, k, x, z):
                smoke[k, 0] = x
                smoke[k, 1] = z
                k += 1
    return k


# --------------------------------------------------------------------------- campaign play
@njit(cache=True, error_model="numpy")
def on_initial_map_nb(x, z, sc):
    """Is hex ``(x, z)`` on the initial Map Area, sections A-F (Rule 9.11)?"""
    row = row_of_nb(x, z)
    return sc[L.SC_MAP_C0] <= x <= sc[L.SC_MAP_C1] and sc[L.SC_MAP_R0] <= row <= sc[L.SC_MAP_R1]


@njit(cache=True, error_model="numpy")
def withdraw_check_nb(side, st, sh, n, kn, dy):
    """Campaign (9.41: a player persists only while the action is to his benefit): ``side``
    withdraws, for the rest of the scenario, once the Attack Strength it has in play falls below
    ``K_WITHDRAW`` times the enemy's. Returns whether it withdraws."""
    if dy[L.DY_WITHDRAW0 + side]:
        return True
    thr = kn[L.K_WITHDRAW]
    if thr <= 0.0:
        return False
    own = 0
    en = 0
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
        if st[i, L.ST_SIDE] == side:
            own += a
        else:
            en += a
    if en > 0 and own < thr * en:
        dy[L.DY_WITHDRAW0 + side] = 1
        return True
    return False


@njit(cache=True, error_model="numpy")
def withdraw_penalty_nb(side, ex, ez, sc, dy):
    """Penalty of a withdrawing plot's end hex: in the own safe zone (it would cause the end,
    9.15), or off the initial Map Area for the North in scenarios B and C while the South is
    still on it (11.3-11.4)."""
    pen = 0.0
    if in_own_safe_zone_nb(side, ex, ez, sc):
        pen += 100.0
    if sc[L.SC_NORTH_STAY] and role_of_nb(side, sc) == ROLE_NORTH and \
            dy[L.DY_OFF_TURN0 + 1 - side] >= L.NEVER and not on_initial_map_nb(ex, ez, sc):
        pen += 100.0
    return pen


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def campaign_end_nb(st, sh, n):
    """Campaign scenario ends beyond Rule 9.42 (9.43, by agreement): a side with nothing but wrecks
    left (``END_WRECKED``), or no unit of either side able to fire or launch torpedoes
    (``END_EXHAUSTED``); -1 if the scenario goes on. Units of a delayed Task Force still to come
    count as fresh and able."""
    fresh0 = 0
    fresh1 = 0
    able = 0
    for i in range(n):
        s = sh[i, L.SH_STATUS]
        if s == WAITING:
            if st[i, L.ST_SIDE] == 0:
                fresh0 += 1
            else:
                fresh1 += 1
            able += 1
            continue
        if s != AFLOAT:
            continue
        if not wrecked_nb(sh, i):
            if st[i, L.ST_SIDE] == 0:
                fresh0 += 1
            else:
                fresh1 += 1
        if by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) > 0 or \
                (st[i, L.ST_TORP] > 0 and sh[i, L.SH_TLEFT] > 0 and sh[i, L.SH_G] < 2):
            able += 1
    if fresh0 == 0 or fresh1 == 0:
        return END_WRECKED
    if able == 0:
        return END_EXHAUSTED
    return -1


@njit(cache=True, error_model="numpy")
def rotate_nb(ox, oz, f):
    """Cube offset ``(ox, oz)`` of a cruising formation drawn facing north, turned to face ``f``
    (each step 60 degrees clockwise: ``(x, y, z) -> (-z, -x, -y)``)."""
    x = ox
    z = oz
    for _ in range(f % 6):
        y = -x - z
        x, z = -z, -y
    return x, z


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _record_nb(ev, k, g, turn, kind, firer, target, rng_hexes, strength, halved, upon, arc, dptr, dp, ratio,
               crtr, res, comb):
    if k >= ev.shape[0]:
        return ev.shape[0] + 1
    ev[k, L.E_GAME] = g
    ev[k, L.E_TURN] = turn
    ev[k, L.E_KIND] = kind
    ev[k, L.E_FIRER] = firer
    ev[k, L.E_TARGET] = target
    ev[k, L.E_RANGE] = rng_hexes
    ev[k, L.E_STRENGTH] = strength
    ev[k, L.E_HALVED] = halved
    ev[k, L.E_UPON] = upon
    ev[k, L.E_ARC] = arc
    ev[k, L.E_DPT_ROLL] = dptr
    ev[k, L.E_DP] = dp
    ev[k, L.E_RATIO] = ratio
    ev[k, L.E_CRT_ROLL] = crtr
    ev[k, L.E_RESULT] = res
    ev[k, L.E_COMBING] = comb
    return k + 1


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def invariants_nb(st, sh, n, sc, rl):
    """Count broken invariants of a position (a self-check for tests and modified data packs).

    Counts: a side over-stacked in a hex (more than the stack limit, mixed facings, or a screen
    unit sharing a hex; Rules 6.31-6.33), opposing units in one hex (6.13), damage steps outside
    0..2 (5.42), more steps removed than the damage-control limit (5.44), a unit in play outside a
    scenario's confinement (10.5). A towing unit and the ship it tows share a hex (12.41).
    """
    bad = 0
    for i in range(n):
        if sh[i, L.SH_G] < 0 or sh[i, L.SH_G] > 2 or sh[i, L.SH_S] < 0 or sh[i, L.SH_S] > 2:
            bad += 1
        if sh[i, L.SH_DC] > st[i, L.ST_DEF]:
            bad += 1
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        if sc[L.SC_CONF]:
            row = sh[i, L.SH_Z] + (sh[i, L.SH_X] - (sh[i, L.SH_X] & 1)) // 2
            if not (sc[L.SC_CONF_C0] <= sh[i, L.SH_X] <= sc[L.SC_CONF_C1] and sc[L.SC_CONF_R0] <= row <= sc[L.SC_CONF_R1]):
                bad += 1
        cnt = 1
        for j in range(i):
            if sh[j, L.SH_STATUS] != AFLOAT or sh[j, L.SH_X] != sh[i, L.SH_X] or sh[j, L.SH_Z] != sh[i, L.SH_Z]:
                continue
            if st[j, L.ST_SIDE] != st[i, L.ST_SIDE]:
                bad += 1
            elif tow_pair_nb(sh, i, j, rl):
                continue
            elif st[j, L.ST_KIND] != st[i, L.ST_KIND] or st[i, L.ST_KIND] == 1:
                bad += 1
            elif sh[j, L.SH_F] != sh[i, L.SH_F]:
                bad += 1
            else:
                cnt += 1
        if cnt > rl[L.RL_STACK]:
            bad += 1
    return bad


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def sighting_nb(st, sh, n, vis):
    """True if a unit in play is within ``vis`` hexes of an opposing unit in play (Rule 9.42)."""
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT or st[i, L.ST_SIDE] != 0:
            continue
        for j in range(n):
            if sh[j, L.SH_STATUS] != AFLOAT or st[j, L.ST_SIDE] != 1:
                continue
            if hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[j, L.SH_X], sh[j, L.SH_Z]) <= vis:
                return True
    return False


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def fire_execution_nb(st, sh, n, rl, dpt, band_low, crt, range_tab, rng, desig, shot, crt_out, ev, ev_n, g,
                      turn, record, out):
    """The Fire Execution Phase (Rules 5.0, 5.31, 5.6, 8.41): every plotted attack is resolved
    against the state at the start of the phase; results are applied at its end. A main-battery
    shot takes the optional-rule DPT modifier plotted with it (``SH_FMOD``); every firer is marked
    ``SH_FIRED`` (the Bombardment Bonus counts ships that never fired, 11.3)."""
    for i in range(n):
        sh[i, L.SH_UPON] = 0
        desig[i] = -1
    for i in range(n):
        t = sh[i, L.SH_TGT]
        if t >= 0:
            sh[t, L.SH_UPON] = 1
            a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
            d = desig[t]
            if d < 0 or a > by_damage_nb(st[d, L.ST_ATT], sh[d, L.SH_G]):
                desig[t] = i
        s = sh[i, L.SH_SB]
        if s >= 0:
            sh[s, L.SH_UPON] = 1
    for i in range(n):
        t = sh[i, L.SH_TGT]
        if t < 0:
            continue
        halved = 1 if (rl[L.RL_HALVE_MULTI] and desig[t] != i) else 0
        d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[t, L.SH_X], sh[t, L.SH_Z])
        arc = arc_nb(sh[i, L.SH_F], sh[t, L.SH_X] - sh[i, L.SH_X], sh[t, L.SH_Z] - sh[i, L.SH_Z])
        a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
        res = gun_shot_mod_nb(a, halved, d, sh[i, L.SH_UPON], arc, st[t, L.ST_DEF], dpt, band_low, crt, range_tab, rl,
                              rng, shot, sh[i, L.SH_FMOD])
        sh[i, L.SH_FIRED] = 1
        add_pending_nb(sh, t, res)
        out[g, L.O_SHOTS0 + st[i, L.ST_SIDE]] += 1
        if record:
            ev_n = _record_nb(ev, ev_n, g, turn, SHOT_GUN, i, t, d, shot[0], halved, sh[i, L.SH_UPON], arc,
                              shot[1], shot[2], shot[3], shot[4], shot[5], 0)
    for i in range(n):
        t = sh[i, L.SH_SB]
        if t < 0:
            continue
        d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[t, L.SH_X], sh[t, L.SH_Z])
        res = crt_shot_nb(rl[L.RL_SB_COL], 0, crt, rl, rng, crt_out)
        sh[i, L.SH_FIRED] = 1
        add_pending_nb(sh, t, res)
        if record:
            ev_n = _record_nb(ev, ev_n, g, turn, SHOT_SECONDARY, i, t, d, -1, 0, sh[i, L.SH_UPON], 0, 0, 0,
                              rl[L.RL_SB_COL], crt_out[0], crt_out[1], 0)
    apply_pending_nb(sh, n, rl)
    return ev_n


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _trace_nb(trace, t, sh, n):
    for i in range(n):
        trace[t, i, L.TR_X] = sh[i, L.SH_X]
        trace[t, i, L.TR_Z] = sh[i, L.SH_Z]
        trace[t, i, L.TR_F] = sh[i, L.SH_F]
        trace[t, i, L.TR_G] = sh[i, L.SH_G]
        trace[t, i, L.TR_S] = sh[i, L.SH_S]
        trace[t, i, L.TR_STATUS] = sh[i, L.SH_STATUS]
        trace[t, i, L.TR_MP] = sh[i, L.SH_SPD]
        trace[t, i, L.TR_FORM] = sh[i, L.SH_FORM]
        trace[t, i, L.TR_DC] = sh[i, L.SH_DC]


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _vp(rl):
    v = np.zeros(5, dtype=np.int64)
    v[1] = rl[L.RL_VP1]
    v[2] = rl[L.RL_VP2]
    v[3] = rl[L.RL_VP3]
    v[4] = rl[L.RL_VP4]
    return v


@njit(cache=True, error_model="numpy")
def reset_dy_nb(dy):
    """A scenario's running state at its start (layout ``DY_*``)."""
    for k in range(L.NDY):
        dy[k] = 0
    dy[L.DY_OFF_TURN0] = L.NEVER
    dy[L.DY_OFF_TURN1] = L.NEVER
    dy[L.DY_OFF_MP0] = L.NEVER
    dy[L.DY_OFF_MP1] = L.NEVER
    dy[L.DY_VIS_CARRY] = -1


@njit(cache=True, error_model="numpy")
def tactical_nb(st, sh, fm, trail, sc, rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt, pc, kn,
                record, check, out, g, ev, ev_n, trace, tracing, rng, dy, turn0, length, vis_base):
    """Play one scenario from its present position to its end, Game-Turn by Game-Turn (Rule 4.1).

    Each Game-Turn: visibility (base + one die, 5.71; carried over once after a campaign contact,
    9.32) and, in a campaign, delayed Task Forces entering (9.28); sighting (9.42); fire plot and
    execution (5.0-5.9, 8.4); torpedo markers placed (8.0); movement plot with formations, tows
    (12.4), withdrawal (campaign, 9.41) and smoke (12.1); movement execution with the torpedo
    sweep, exits, safe zones (9.15), moves off the initial Map Area (11.3-11.4), collisions and
    stacking (6.13, 6.31-6.33); damage control (5.43). The scenario ends after Game-Turn
    ``length`` (a campaign scenario then ends by agreement, 9.43), three Game-Turns without
    sighting once contact has been made (9.42), a side with no unit left, an exit objective met
    (10.4), or in a campaign a side with only wrecks left or neither side able to hurt the other.

    Args:
        st, sh, fm, trail, sc: the scenario's arrays (``sh``, ``fm``, ``trail`` are played on).
        rl ... eff_crt: the compiled rules (``rl`` with the run's optional-rule switches).
        pc, kn: ``int64[2, NPC]`` policy codes and ``float64[2, NKN]`` knobs.
        record, check: write shots to ``ev``; count broken invariants into ``out[g, O_VIOLATIONS]``.
        out: ``int64[*, NOUT]``; row ``g`` collects the counters (shots, torpedo hits, collisions).
        ev, ev_n: the shots buffer and its rows so far.
        trace, tracing: ``int64[turns + 2, n, NTR]`` written after each Movement Phase if tracing.
        rng: the game's stream; dy: ``int64[NDY]`` running state (:func:`reset_dy_nb`, sun set).
        turn0: Game-Turns already played (the campaign's approach; contact counts as made when > 0).
        length: the last Game-Turn; vis_base: base visibility (hexes).

    Returns:
        ``(turn, reason, ended_by, contact, contact_at_end, exit_met, ev_n)``.
    """
    n = st.shape[0]
    px = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pz = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pf = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    planned = np.zeros(n, dtype=np.int64)
    exit_mp = np.zeros(n, dtype=np.int64)
    alive = np.zeros(n, dtype=np.int64)
    mpu = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    cnt = np.zeros(n, dtype=np.int64)
    desig = np.zeros(n, dtype=np.int64)
    displaced = np.zeros(n, dtype=np.int64)
    pred = np.zeros((n, 2), dtype=np.int64)
    buf = np.zeros((n, 3), dtype=np.int64)
    cand = np.zeros((MAXC, 8), dtype=np.int64)
    scores = np.zeros(MAXC, dtype=np.float64)
    mx = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    mz = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    md = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    mowner = np.zeros(n, dtype=np.int64)
    nmark = np.zeros(1, dtype=np.int64)
    tk = (nmark, mx, mz, md, mowner)
    tk_none = (np.zeros(1, dtype=np.int64), mx, mz, md, mowner)   # random-legal ignores its torpedoes
    ppx = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    ppz = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    hitmask = np.zeros((n, n), dtype=np.int8)
    hits = np.zeros((n * n, 4), dtype=np.int64)
    shot = np.zeros(6, dtype=np.int64)
    crt_out = np.zeros(2, dtype=np.int64)
    smoke = np.zeros((n * (L.MAXMP + 1) + 1, 2), dtype=np.int64)
    smoke_new = np.zeros((n * (L.MAXMP + 1) + 1, 2), dtype=np.int64)
    pcs = pc.copy()
    campaign = sc[L.SC_CAMPAIGN] != 0
    smoking = rl[L.RL_OPT_SMOKE] != 0
    towing = rl[L.RL_OPT_TOWING] != 0
    ma = sc[L.SC_TORP_MA]
    turn = turn0
    contact = turn0
    nosight = 0
    ended_by = -1
    reason = END_AGREEMENT if campaign else END_GAME_LENGTH
    exit_met = 0
    vis = vis_base if dy[L.DY_VIS_CARRY] < 0 else dy[L.DY_VIS_CARRY]
    while turn < length:
        turn += 1
        # ---- 1. visibility (5.71; carried over for one turn after contact, 9.32) and sighting (9.42)
        if dy[L.DY_VIS_CARRY] >= 0:
            vis = dy[L.DY_VIS_CARRY]
            dy[L.DY_VIS_CARRY] = -1
        else:
            vis = vis_base + roll_nb(rng, rl[L.RL_VIS_DIE])
        if campaign:
            dy[L.DY_ENTERED] += enter_delayed_nb(st, sh, fm, trail, n, turn, vis, rl, sc, rng, buf, displaced)
        if sighting_nb(st, sh, n, vis):
            nosight = 0
            if contact == 0:
                contact = turn
        elif contact > 0:
            nosight += 1
        # ---- 2. fire plot
        predict_nb(sh, n, pred)
        for side in range(2):
            plot_fire_nb(side, st, sh, n, vis, pcs[side, L.PC_FIRE], kn[side], rl, eff_gun, eff_crt, range_tab,
                         band_low, rng, order, cnt, smoke, dy, turn, sc, pc[side, L.PC_MOVE])
            plot_torpedoes_nb(side, st, sh, n, pcs[side, L.PC_TORP], kn[side], sc, rl, tracks, eff_crt, rng,
                              mx, mz, md, order, ppx, ppz)
        # ---- 3. fire execution
        ev_n = fire_execution_nb(st, sh, n, rl, dpt, band_low, crt, range_tab, rng, desig, shot, crt_out, ev,
                                 ev_n, g, turn, record, out)
        # torpedo attacks: markers are placed when movement starts (8.0, 8.51-8.52); each side
        # knows where its own will run when it plots its movement
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
        nmark[0] = nm
        # ---- 4. movement plot
        for i in range(n):
            planned[i] = 0
            exit_mp[i] = L.MAXMP + 1
            sh[i, L.SH_MP] = 0
            alive[i] = 1 if sh[i, L.SH_STATUS] == AFLOAT else 0
        predict_nb(sh, n, pred)
        for side in range(2):
            maintain_formations_nb(side, st, sh, fm, trail, n, rl, pcs[side], buf)
            wd = False
            if campaign:
                wd = withdraw_check_nb(side, st, sh, n, kn[side], dy)
                if wd and pc[side, L.PC_MOVE] != MOVE_BREAK and pc[side, L.PC_MOVE] != MOVE_RANDOM:
                    pcs[side, L.PC_MOVE] = MOVE_WITHDRAW
            if towing:
                assign_tows_nb(side, st, sh, n, vis, rl, wd, pcs[side, L.PC_MOVE], rng)
                plan_tows_nb(side, st, sh, fm, trail, n, sc, rl, kn[side], pred, px, pz, pf, planned, exit_mp, cand,
                             scores, tk)
            rstar = 8
            if pcs[side, L.PC_MOVE] == MOVE_HOLD:
                rstar = preferred_range_nb(side, st, sh, n, vis, eff_gun, range_tab, band_low)
            plot_movement_nb(side, st, sh, fm, trail, n, sc, rl, pcs[side], kn[side], vis, rstar, pred, px, pz,
                             pf, planned, exit_mp, cand, scores, rng,
                             tk_none if pcs[side, L.PC_MOVE] == MOVE_RANDOM else tk, dy)
            if smoking:
                plot_smoke_nb(side, st, sh, n, pcs[side, L.PC_MOVE], rng)
        # ---- 5. movement execution with the Torpedo Markers (8.0)
        for i in range(n):
            mpu[i] = sh[i, L.SH_MP]
        if nm > 0:
            nh = sweep_nb(nm, ma, mx, mz, md, n, px, pz, pf, mpu, alive, exit_mp, hitmask, hits)
            for h in range(nh):
                o = mowner[hits[h, 0]]
                t = hits[h, 1]
                comb = hits[h, 3]
                # 12.12: no torpedo attack between two ships with smoke between them when it was
                # plotted (the markers of the Fire Phase; ruling DN-O3)
                if smoking and dy[L.DY_NSMOKE] > 0 and smoke_blocks_nb(mx[hits[h, 0], 0], mz[hits[h, 0], 0],
                                                                       px[t, 0], pz[t, 0], smoke, dy[L.DY_NSMOKE]):
                    continue
                res = crt_shot_nb(st[o, L.ST_TORP], -rl[L.RL_COMBING] if comb else 0, crt, rl, rng, crt_out)
                add_pending_nb(sh, t, res)
                sh[t, L.SH_TORPHIT] += 1
                if st[o, L.ST_SIDE] == st[t, L.ST_SIDE]:
                    out[g, L.O_FRIENDLY_TORP] += 1
                else:
                    out[g, L.O_TORP0 + st[o, L.ST_SIDE]] += 1
                if record:
                    ev_n = _record_nb(ev, ev_n, g, turn, SHOT_TORPEDO, o, t,
                                      hex_dist_nb(mx[hits[h, 0], 0], mz[hits[h, 0], 0], px[t, hits[h, 2]],
                                                  pz[t, hits[h, 2]]),
                                      -1, 0, 0, 0, 0, 0, st[o, L.ST_TORP], crt_out[0], crt_out[1], comb)
        if campaign:
            track_off_map_nb(st, sh, n, px, pz, alive, exit_mp, sc, dy, turn)
        if smoking:
            # 12.11: the markers of the last Movement Phase go; this phase's are laid
            ns = lay_smoke_nb(st, sh, n, px, pz, alive, exit_mp, smoke_new, 0)
            for k in range(ns):
                smoke[k, 0] = smoke_new[k, 0]
                smoke[k, 1] = smoke_new[k, 1]
            dy[L.DY_NSMOKE] = ns
            dy[L.DY_SMOKE_LAID] += ns
        # commit positions, wakes and speeds
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
        for i in range(n):
            displaced[i] = 0
        moved, fixed = collisions_nb(st, sh, n, rng, rl, sc, displaced)
        if moved + fixed > 0:
            out[g, L.O_DISPLACED] += moved
            out[g, L.O_RESTACKED] += fixed
            for i in range(n):
                if displaced[i] and fm[sh[i, L.SH_FORM], L.FM_MEMBERS] > 1:
                    detach_nb(sh, fm, i, n)
        apply_pending_nb(sh, n, rl)
        if towing:
            update_tows_nb(sh, n, rl)
        if check:
            out[g, L.O_VIOLATIONS] += invariants_nb(st, sh, n, sc, rl)
        if tracing and turn < trace.shape[0] - 1:
            _trace_nb(trace, turn, sh, n)
        # ---- 6. damage control
        damage_control_nb(st, sh, n, rl, rng)
        # ---- end of the Game-Turn
        if sc[L.SC_VC] == VC_EXIT_OR_POINTS and turn <= sc[L.SC_EXIT_DEADLINE]:
            k = 0
            for i in range(n):
                if st[i, L.ST_EXIT] and sh[i, L.SH_STATUS] == EXITED:
                    k += 1
            if k >= sc[L.SC_EXIT_NEED]:
                exit_met = 1
                reason = END_OBJECTIVE
                break
        left0 = 0
        left1 = 0
        for i in range(n):
            if sh[i, L.SH_STATUS] == AFLOAT or sh[i, L.SH_STATUS] == WAITING:
                if st[i, L.ST_SIDE] == 0:
                    left0 += 1
                else:
                    left1 += 1
        if left0 == 0 or left1 == 0:
            reason = END_SIDE_GONE
            break
        if campaign:
            r = campaign_end_nb(st, sh, n)
            if r >= 0:
                reason = r
                break
        if nosight >= rl[L.RL_NO_SIGHT]:
            reason = END_NO_SIGHTING
            break
    contact_end = 0 if reason == END_NO_SIGHTING else (1 if sighting_nb(st, sh, n, vis) else 0)
    return turn, reason, ended_by, contact, contact_end, exit_met, ev_n


@njit(cache=True, error_model="numpy")
def play_batch_nb(seeds, start, st, sh0, fm0, trail0, sc, rl, dpt, band_low, crt, range_tab, tracks, eff_gun,
                  eff_crt, pc, kn, opt, out, ev, trace):
    """Play games ``start..len(seeds)-1``, one per seed (Rules 4.0-9.5): :func:`tactical_nb` from the
    scenario's set-up, then the accounting of 9.5 and 10.x.

    Args:
        seeds: ``uint64[g]``; start: first game to play.
        st, sh0, fm0, trail0, sc: the compiled scenario (:mod:`.scenario`).
        rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt: the compiled rules (``rl``
            with the run's optional-rule switches).
        pc: ``int64[2, NPC]`` policy codes; kn: ``float64[2, NKN]`` policy knobs.
        opt: ``int64[4]``: game length (Game-Turns), visibility base (hexes), record shots (0/1),
            check invariants after every Movement Phase (0/1; counted in ``O_VIOLATIONS``).
        out: ``int64[g, NOUT]`` results, written; ev: ``int32[cap, NEV]`` shots, written.
        trace: ``int64[turns + 2, n, NTR]``: game 0's units after set-up (row 0), after the
            Movement Phase of each Game-Turn t (row t) and at the end (last row); a zero-length
            array for none.

    Returns:
        ``(next_game, ev_rows)``: ``next_game < len(seeds)`` when the shots buffer filled up
        during that game (call again from it with a bigger buffer); ``ev_rows`` rows written.
    """
    n = st.shape[0]
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    sh = np.zeros_like(sh0)
    fm = np.zeros_like(fm0)
    trail = np.zeros_like(trail0)
    dy = np.zeros(L.NDY, dtype=np.int64)
    length = opt[0]
    vis_base = opt[1]
    record = opt[2]
    check = opt[3]
    vp = _vp(rl)
    ev_n = 0
    for g in range(start, seeds.shape[0]):
        ev_start = ev_n
        new_state_nb(seeds[g], rng)
        sh[:, :] = sh0
        fm[:, :] = fm0
        trail[:, :, :] = trail0
        for k in range(L.NOUT):
            out[g, k] = 0
        reset_dy_nb(dy)
        if rl[L.RL_OPT_SUN]:
            dy[L.DY_SUN] = sun_roll_nb(rng, rl)
        tracing = g == 0 and trace.shape[0] > 0
        if tracing:
            _trace_nb(trace, 0, sh, n)
        turn, reason, ended_by, contact, contact_end, exit_met, ev_n = tactical_nb(
            st, sh, fm, trail, sc, rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt, pc, kn, record,
            check, out, g, ev, ev_n, trace, tracing, rng, dy, 0, length, vis_base)
        if tracing:
            _trace_nb(trace, trace.shape[0] - 1, sh, n)
        if ev_n > ev.shape[0]:
            return g, ev_start
        out[g, L.O_TURNS] = turn
        out[g, L.O_END] = reason
        out[g, L.O_CONTACT] = contact
        final_result_nb(st, sh, n, sc, vp, out, g, ended_by, contact_end, exit_met)
    return seeds.shape[0], ev_n


# ==================================================================================================
# the campaign game (Rules 9.2-9.3, 11.0-11.9) and the extended campaign (12.6)
# ==================================================================================================
# A campaign game, per seed: each player builds a fleet under the fleet value limit (11.8) by its
# builder policy; assigns it secretly to scenarios A-D by its allocation policy (11.0, 11.6; the
# South also sets the Interception Bonus, 11.4); then A, B, C and D are played in order (11.6):
# base visibility 2d6 (11.7), Task Forces entering on their sides and sweeping every lettered hex
# until contact (9.22-9.28), ships placed (9.25), the tactical game to its end (tactical_nb), and
# the scenario's Victory Points with the 9.55 bonus, the Bombardment Bonus (11.3) and the
# Interception Bonus (11.4). Uncontested scenarios are conceded (11.6). The extended campaign
# plays up to twelve campaign games with treasuries, construction, repairs, scuttling and the
# peace roll (12.61-12.66). Per side arrays of a scenario are by role: side 0 is North.


#: a scenario's results and counters copied into its campaign row: (slot of ``out`` or ``dy``, ``RS_*``)
OUT_RESULT = np.array([[L.O_SCORE0, L.RS_DAMAGE0], [L.O_SCORE1, L.RS_DAMAGE1], [L.O_SUNK0, L.RS_SUNK0],
                       [L.O_SUNK1, L.RS_SUNK1], [L.O_WRECKED0, L.RS_WRECKED0], [L.O_WRECKED1, L.RS_WRECKED1],
                       [L.O_WINNER, L.RS_WINNER], [L.O_LEVEL, L.RS_LEVEL]], dtype=np.int64)
OUT_COUNTS = np.array([[L.O_SHOTS0, L.RS_SHOTS0], [L.O_SHOTS1, L.RS_SHOTS1], [L.O_TORP0, L.RS_TORP0],
                       [L.O_TORP1, L.RS_TORP1], [L.O_DISPLACED, L.RS_COLLISIONS],
                       [L.O_VIOLATIONS, L.RS_VIOLATIONS]], dtype=np.int64)
DY_COUNTS = np.array([[L.DY_ENTERED, L.RS_DELAYED], [L.DY_WITHDRAW0, L.RS_WITHDREW0],
                      [L.DY_WITHDRAW1, L.RS_WITHDREW1], [L.DY_SMOKE_LAID, L.RS_SMOKE]], dtype=np.int64)


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _order_by_value_nb(po, npl, desc):
    vals = np.zeros(npl, dtype=np.int64)
    for u in range(npl):
        vals[u] = -po[u, L.PO_VAL] if desc else po[u, L.PO_VAL]
    return np.argsort(vals, kind="mergesort")


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _shuffle_nb(k, rng):
    idx = np.arange(k)
    for a in range(k - 1, 0, -1):
        b = roll_nb(rng, a + 1) - 1
        t = idx[a]
        idx[a] = idx[b]
        idx[b] = t
    return idx


@njit(cache=True, error_model="numpy")
def build_fleet_nb(po, npl, ps, limit, code, rng, mark):
    """Choose a fleet from a national listing under a fleet value limit (Rules 11.1, 11.8, 12.61).

    Units not yet owned (``PS_NONE``) are taken into status ``mark`` while their values (9.51:
    attack + defense + movement, VPs) fit under ``limit``:

    * value-greedy: the most valuable units first;
    * balanced: capital ships, most valuable first, up to two thirds of the limit, then screen
      units, most valuable first, then anything that still fits;
    * random: in a random order.

    Args:
        po: ``int64[P, NPO]`` the listing; npl: its units; ps: ``int64[P, NPS]`` (written).

    Returns:
        The value taken (VPs).
    """
    total = 0
    if code == BUILD_RANDOM:
        order = _shuffle_nb(npl, rng)
    else:
        order = _order_by_value_nb(po, npl, True)
    if code == BUILD_BALANCED:
        cap_budget = limit * 2 // 3
        for a in range(npl):
            u = order[a]
            if ps[u, L.PS_STATUS] == L.PS_NONE and po[u, L.PO_KIND] == CAPITAL and total + po[u, L.PO_VAL] <= cap_budget:
                ps[u, L.PS_STATUS] = mark
                total += po[u, L.PO_VAL]
        for a in range(npl):
            u = order[a]
            if ps[u, L.PS_STATUS] == L.PS_NONE and po[u, L.PO_KIND] != CAPITAL and total + po[u, L.PO_VAL] <= limit:
                ps[u, L.PS_STATUS] = mark
                total += po[u, L.PO_VAL]
    for a in range(npl):
        u = order[a]
        if ps[u, L.PS_STATUS] == L.PS_NONE and total + po[u, L.PO_VAL] <= limit:
            ps[u, L.PS_STATUS] = mark
            total += po[u, L.PO_VAL]
    return total


@njit(cache=True, error_model="numpy")
def schedule_nb(po, npl, ps, code, rng, budget, per_turn, last_turn):
    """A secret construction schedule (Rule 12.61): units of the balance of the national mix,
    each given an Extended Campaign Game-Turn, at most ``per_turn`` VPs a turn (12.61) and
    ``budget`` in all. Value-greedy and balanced fill the turns in order with the most valuable
    units that fit; random takes units in a random order. Returns the value scheduled."""
    if code == BUILD_RANDOM:
        order = _shuffle_nb(npl, rng)
    else:
        order = _order_by_value_nb(po, npl, True)
    total = 0
    for t in range(1, last_turn + 1):
        spent = 0
        for a in range(npl):
            u = order[a]
            v = po[u, L.PO_VAL]
            if ps[u, L.PS_STATUS] == L.PS_NONE and spent + v <= per_turn and total + v <= budget:
                ps[u, L.PS_STATUS] = L.PS_SCHEDULED
                ps[u, L.PS_BUILD] = t
                spent += v
                total += v
    return total


@njit(cache=True, error_model="numpy")
def allocate_nb(po, npl, ps, code, rng, scen):
    """Secret assignment of a fleet to the campaign scenarios A-D (Rules 11.0, 11.6).

    Each unit in the fleet (``PS_FLEET``) gets one scenario (0-3) or none (-1); no unit is in two.

    * spread: most valuable first, each to the scenario with the least value so far;
    * main-body: the more valuable half of the capital ships to C (the convoy), the rest spread
      over A, B and D; screen units spread over all four;
    * concentrate: everything to C (A, B and D are conceded, 11.6);
    * random: each unit to A, B, C, D or none at random.
    """
    for u in range(npl):
        scen[u] = -1
    load = np.zeros(4, dtype=np.int64)
    order = _order_by_value_nb(po, npl, True)
    ncap = 0
    for u in range(npl):
        if ps[u, L.PS_STATUS] == L.PS_FLEET and po[u, L.PO_KIND] == CAPITAL:
            ncap += 1
    seen_cap = 0
    for a in range(npl):
        u = order[a]
        if ps[u, L.PS_STATUS] != L.PS_FLEET:
            continue
        if code == ALLOC_RANDOM:
            scen[u] = roll_nb(rng, 5) - 2
            continue
        if code == ALLOC_CONCENTRATE:
            scen[u] = SCEN_C
            continue
        lo = 0
        skip_c = False
        if code == ALLOC_MAIN_BODY and po[u, L.PO_KIND] == CAPITAL:
            seen_cap += 1
            if seen_cap <= (ncap + 1) // 2:
                scen[u] = SCEN_C
                load[SCEN_C] += po[u, L.PO_VAL]
                continue
            skip_c = True
        best = -1
        for s in range(4):
            if skip_c and s == SCEN_C:
                continue
            if best < 0 or load[s] < load[best]:
                best = s
        lo = best
        scen[u] = lo
        load[lo] += po[u, L.PO_VAL]


@njit(cache=True, error_model="numpy")
def interception_bonus_nb(po, npl, ps, scen, code, rng, fixed, lo, hi):
    """The South's secret Interception Bonus for the convoy of scenario C (Rule 11.4): ``fixed``
    if set, else random (``lo..hi``) for the random allocation, else ``lo + (hi - lo) * min(1,
    2 * share)`` where share is the part of its assigned value the South gave to C (a convoy
    guarded by the main fleet is worth more to it, 11.9)."""
    if fixed > 0:
        return lo if fixed < lo else (hi if fixed > hi else fixed)
    if code == ALLOC_RANDOM:
        return lo + roll_nb(rng, hi - lo + 1) - 1
    tot = 0
    inc = 0
    for u in range(npl):
        if ps[u, L.PS_STATUS] == L.PS_FLEET and scen[u] >= 0:
            tot += po[u, L.PO_VAL]
            if scen[u] == SCEN_C:
                inc += po[u, L.PO_VAL]
    if tot == 0:
        return lo
    share = 2.0 * inc / tot
    if share > 1.0:
        share = 1.0
    return lo + int((hi - lo) * share)


@njit(cache=True, error_model="numpy")
def final_states_nb(g, s, dc, defense):
    """Damage states left after the end-of-scenario recovery (Rule 9.53): steps within the
    damage-control limit are removed, G before S (ruling DN-C8); a wreck keeps all four.

    Returns:
        ``(g_left, s_left, recovered)``.
    """
    if g >= 2 and s >= 2:
        return g, s, 0
    room = defense - dc
    if room < 0:
        room = 0
    rg = g if g < room else room
    room -= rg
    rs = s if s < room else room
    return g - rg, s - rs, rg + rs


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def setup_scenario_nb(s, players, po, npool, ps, scen, cp, sc0, centres, tours_n, tours_s, slots_cap, slots_scr,
                      delays, rng):
    """Compile campaign scenario ``s`` (0-3 = A-D) for the units assigned to it (Rules 9.21-9.22).

    Side 0 is the North player's units (``players[0]``), side 1 the South's. Each side forms a
    main Task Force (capital ships in a column of stacks of ``CP_STACK``, CA units on a screen
    around its head) entering on Game-Turn 1, and a light one (CL and DD units) entering
    ``delays[side]`` Game-Turns later (9.28; -1: a random 0-5; merged into the main body at 0;
    all screen units form one Task Force when there is no capital ship). Both
    sweep the same tour of the lettered hexes, drawn at random (9.22, 9.26).

    Returns:
        ``(st, sh, fm, trail, sc, ta, idx)``: the scenario arrays, the Task Forces, and each
        unit's row in its player's listing.
    """
    n0 = 0
    n1 = 0
    for r in range(2):
        p = players[r]
        for u in range(npool[p]):
            if ps[p, u, L.PS_STATUS] == L.PS_FLEET and scen[p, u] == s:
                if r == 0:
                    n0 += 1
                else:
                    n1 += 1
    n = n0 + n1
    st = np.zeros((n, L.NST), dtype=np.int64)
    sh = np.zeros((n, L.NSH), dtype=np.int64)
    fm = np.zeros((n, L.NFM), dtype=np.int64)
    trail = np.zeros((n, L.TRAIL, 3), dtype=np.int64)
    idx = np.zeros(n, dtype=np.int64)
    ta = np.zeros((L.NTF, L.NTA), dtype=np.int64)
    k = 0
    for r in range(2):
        p = players[r]
        for u in range(npool[p]):
            if ps[p, u, L.PS_STATUS] != L.PS_FLEET or scen[p, u] != s:
                continue
            st[k, L.ST_SIDE] = r
            st[k, L.ST_KIND] = po[p, u, L.PO_KIND]
            st[k, L.ST_TYPE] = po[p, u, L.PO_TYPE]
            st[k, L.ST_ATT] = po[p, u, L.PO_ATT]
            st[k, L.ST_DEF] = po[p, u, L.PO_DEF]
            st[k, L.ST_RNG] = po[p, u, L.PO_RNG]
            st[k, L.ST_MOV] = po[p, u, L.PO_MOV]
            st[k, L.ST_TORP] = po[p, u, L.PO_TORP]
            st[k, L.ST_VAL] = po[p, u, L.PO_VAL]
            st[k, L.ST_RADAR] = po[p, u, L.PO_RADAR]
            st[k, L.ST_PLANES] = po[p, u, L.PO_PLANES]
            for c in L.SH_MINUS_ONE:
                sh[k, c] = -1
            sh[k, L.SH_FORM] = -1
            sh[k, L.SH_STATUS] = WAITING
            sh[k, L.SH_TLEFT] = cp[L.CP_TORP_SCEN] if st[k, L.ST_TORP] else 0
            idx[k] = u
            k += 1
    stack = cp[L.CP_STACK] if cp[L.CP_STACK] > 0 else 1
    for r in range(2):
        lo = 0 if r == 0 else n0
        hi = n0 if r == 0 else n
        if hi == lo:
            continue
        main = 2 * r
        light = 2 * r + 1
        ncap = 0
        vals = np.zeros(hi - lo, dtype=np.int64)
        for i in range(lo, hi):
            vals[i - lo] = -st[i, L.ST_VAL] * 4 - (3 - st[i, L.ST_TYPE])
            if st[i, L.ST_KIND] == CAPITAL:
                ncap += 1
        order = np.argsort(vals, kind="mergesort")
        delay = delays[r] if delays[r] >= 0 else roll_nb(rng, 6) - 1
        last = cp[L.CP_DELAY_LAST] - 1
        if delay > last:
            delay = last
        c = 0
        js = 0
        jl = 0
        for a in range(hi - lo):
            i = lo + order[a]
            t = st[i, L.ST_TYPE]
            if ncap > 0 and t == TYPE_CAPITAL:
                sh[i, L.SH_TF] = main
                sh[i, L.SH_OX] = 0
                sh[i, L.SH_OZ] = c // stack
                c += 1
            elif ncap > 0 and (t == TYPE_CA or delay == 0):
                sh[i, L.SH_TF] = main
                sh[i, L.SH_OX] = slots_cap[js % slots_cap.shape[0], 0]
                sh[i, L.SH_OZ] = slots_cap[js % slots_cap.shape[0], 1] + 2 * (js // slots_cap.shape[0])
                js += 1
            else:
                sh[i, L.SH_TF] = light if ncap > 0 else main
                sh[i, L.SH_OX] = slots_scr[jl % slots_scr.shape[0], 0]
                sh[i, L.SH_OZ] = slots_scr[jl % slots_scr.shape[0], 1] + 2 * (jl // slots_scr.shape[0])
                jl += 1
        tours = tours_n if r == 0 else tours_s
        tour = roll_nb(rng, tours.shape[0]) - 1
        x = centres[tours[tour, 0], 0]
        row = sc0[L.SC_MAP_R0] if r == 0 else sc0[L.SC_MAP_R1]
        for tf in (main, light):
            ta[tf, L.TA_SIDE] = r
            ta[tf, L.TA_MEMBERS] = 0
            sp = 1 << 30
            for i in range(lo, hi):
                if sh[i, L.SH_TF] == tf:
                    ta[tf, L.TA_MEMBERS] += 1
                    if st[i, L.ST_MOV] < sp:
                        sp = st[i, L.ST_MOV]
            if ta[tf, L.TA_MEMBERS] == 0:
                continue
            ta[tf, L.TA_SPEED] = sp
            ta[tf, L.TA_ENTRY] = 1 if tf == main else 1 + delay
            ta[tf, L.TA_STATE] = L.TF_WAITING
            ta[tf, L.TA_TOUR] = tour
            ta[tf, L.TA_EX] = x
            ta[tf, L.TA_EZ] = row - (x - (x & 1)) // 2
            ta[tf, L.TA_EF] = S if r == 0 else N
            for i in range(lo, hi):
                if sh[i, L.SH_TF] == tf:
                    sh[i, L.SH_SPD] = sp
    sc = sc0.copy()
    sc[L.SC_N] = n
    sc[L.SC_N0] = n0
    sc[L.SC_SCEN] = s
    sc[L.SC_NORTH_STAY] = 1 if (s == SCEN_B or s == SCEN_C) else 0
    sc[L.SC_LENGTH] = cp[L.CP_TURN_LIMIT]
    return st, sh, fm, trail, sc, ta, idx


@njit(cache=True, error_model="numpy")
def score_scenario_nb(st, sh, n, sc, s, ended_by, contact_end, ibonus, cp, vp, dy, row):
    """Victory Points of a played campaign scenario (Rules 9.5, 11.2-11.5) into ``row`` (``RS_*``).

    Damage VPs (9.52-9.54) and the victory level (9.55) of each side; the winner's bonus (10, 20,
    30); in B the South's Bombardment Bonus: the Attack Strength (after its final G states) of
    its capital ships afloat that never fired, if it won at least a Substantial Victory without
    causing the end, or sank or wrecked every North ship, or the North moved a ship off the initial
    Map Area first (11.3); in C the North's interception: the Attack Strength of its ships
    undamaged after the final recovery (9.53), up to the Interception Bonus, unless it caused the
    end or moved a ship off the initial Map Area first; the South gets the balance (11.4).
    """
    tmp = np.zeros((1, L.NOUT), dtype=np.int64)
    final_result_nb(st, sh, n, sc, vp, tmp, 0, ended_by, contact_end, 0)
    winner = tmp[0, L.O_WINNER]
    level = tmp[0, L.O_LEVEL]
    for k in range(OUT_RESULT.shape[0]):
        row[OUT_RESULT[k, 1]] = tmp[0, OUT_RESULT[k, 0]]
    bonus = 0
    if level == LEVEL_MARGINAL:
        bonus = cp[L.CP_BONUS_M]
    elif level == LEVEL_SUBSTANTIAL:
        bonus = cp[L.CP_BONUS_S]
    elif level == LEVEL_DECISIVE:
        bonus = cp[L.CP_BONUS_D]
    row[L.RS_BONUS0] = bonus if winner == 0 else 0
    row[L.RS_BONUS1] = bonus if winner == 1 else 0
    off = first_off_map_nb(dy)
    row[L.RS_OFF_FIRST] = off
    bomb = 0
    if s == SCEN_B:
        north_left = 0
        for i in range(n):
            if st[i, L.ST_SIDE] == 0 and sh[i, L.SH_STATUS] != SUNK and not wrecked_nb(sh, i):
                north_left += 1
        if (winner == 1 and level >= LEVEL_SUBSTANTIAL and ended_by != 1) or north_left == 0 or off == 0:
            for i in range(n):
                if st[i, L.ST_SIDE] == 1 and st[i, L.ST_KIND] == CAPITAL and sh[i, L.SH_STATUS] != SUNK \
                        and sh[i, L.SH_FIRED] == 0:
                    gl, sl, rec = final_states_nb(sh[i, L.SH_G], sh[i, L.SH_S], sh[i, L.SH_DC], st[i, L.ST_DEF])
                    bomb += by_damage_nb(st[i, L.ST_ATT], gl)
    row[L.RS_BOMBARD] = bomb
    i0 = 0
    i1 = 0
    if s == SCEN_C:
        if ended_by != 0 and off != 0:
            und = 0
            for i in range(n):
                if st[i, L.ST_SIDE] == 0 and sh[i, L.SH_STATUS] != SUNK:
                    gl, sl, rec = final_states_nb(sh[i, L.SH_G], sh[i, L.SH_S], sh[i, L.SH_DC], st[i, L.ST_DEF])
                    if gl + sl == 0:
                        und += st[i, L.ST_ATT]
            i0 = und if und < ibonus else ibonus
        i1 = ibonus - i0
    row[L.RS_INTERCEPT0] = i0
    row[L.RS_INTERCEPT1] = i1
    row[L.RS_SCORE0] = row[L.RS_DAMAGE0] + row[L.RS_BONUS0] + i0
    row[L.RS_SCORE1] = row[L.RS_DAMAGE1] + row[L.RS_BONUS1] + i1 + bomb


@njit(cache=True, error_model="numpy")
def score_uncontested_nb(s, cap_att0, att0, cap_att1, n0, n1, ibonus, cp, row):
    """Victory Points of an uncontested campaign scenario (Rule 11.6): the side that assigned
    ships wins a Substantial Victory (20 VPs) plus its objective: in B the South's Bombardment
    Bonus (all its capital ships' Attack Strength), in C the North's interception (its Attack
    Strength up to the Interception Bonus, the South keeping the balance) or, with no North ships,
    the whole bonus for the South (ruling DN-C4). Neither side: no VPs but the convoy's bonus.

    Args:
        cap_att0/1, att0: the capital ships' and all units' Attack Strength of the North
            (``cap_att1``: the South's capital ships); n0, n1: units assigned.
    """
    winner = -1
    level = LEVEL_DRAW
    if n0 > 0 and n1 == 0:
        winner = 0
        level = LEVEL_SUBSTANTIAL
    elif n1 > 0 and n0 == 0:
        winner = 1
        level = LEVEL_SUBSTANTIAL
    row[L.RS_WINNER] = winner
    row[L.RS_LEVEL] = level
    row[L.RS_BONUS0] = cp[L.CP_BONUS_S] if winner == 0 else 0
    row[L.RS_BONUS1] = cp[L.CP_BONUS_S] if winner == 1 else 0
    row[L.RS_OFF_FIRST] = -1
    bomb = 0
    if s == SCEN_B and winner == 1:
        bomb = cap_att1
    row[L.RS_BOMBARD] = bomb
    i0 = 0
    i1 = 0
    if s == SCEN_C:
        if n0 > 0:
            i0 = att0 if att0 < ibonus else ibonus
        i1 = ibonus - i0
    row[L.RS_INTERCEPT0] = i0
    row[L.RS_INTERCEPT1] = i1
    row[L.RS_SCORE0] = row[L.RS_BONUS0] + i0
    row[L.RS_SCORE1] = row[L.RS_BONUS1] + i1 + bomb


@njit(cache=True, error_model="numpy")
def campaign_scenario_nb(s, players, g, ext_turn, po, npool, ps, scen, ibonus, cp, sc0, geo, tb, pcr, knr, rng,
                         row, treasury, gout):
    """Play (or concede) campaign scenario ``s`` and write its row (``RS_*``). In the extended
    campaign also apply its treasury flows and fleet changes (Rules 12.63-12.64).

    Args:
        players: ``int64[2]`` the players who are North and South.
        pcr, knr: policy codes and knobs by role (side 0 North).
        geo: ``(centres, tours_n, tours_s, slots_cap, slots_scr)``; tb: the compiled rules.
        treasury: ``int64[2]`` by player (extended campaign; written).
    """
    centres, tours_n, tours_s, slots_cap, slots_scr = geo
    rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt = tb
    delays = np.zeros(2, dtype=np.int64)
    for r in range(2):
        if cp[L.CP_DELAY] >= 0:
            delays[r] = cp[L.CP_DELAY]
        else:
            delays[r] = -1 if pcr[r, L.PC_MOVE] == MOVE_RANDOM else 2
    st, sh, fm, trail, sc, ta, idx = setup_scenario_nb(s, players, po, npool, ps, scen, cp, sc0, centres, tours_n,
                                                       tours_s, slots_cap, slots_scr, delays, rng)
    n = st.shape[0]
    n0 = sc[L.SC_N0]
    n1 = n - n0
    for k in range(L.NRS):
        row[k] = 0
    row[L.RS_GAME] = g
    row[L.RS_EXT_TURN] = ext_turn
    row[L.RS_SCEN] = s
    row[L.RS_NORTH] = players[0]
    row[L.RS_UNITS0] = n0
    row[L.RS_UNITS1] = n1
    row[L.RS_ENDED_BY] = -1
    row[L.RS_OFF_FIRST] = -1
    row[L.RS_IBONUS] = ibonus if s == SCEN_C else 0
    cap_att0 = 0
    att0 = 0
    cap_att1 = 0
    for i in range(n):
        row[L.RS_VALUE0 + st[i, L.ST_SIDE]] += st[i, L.ST_VAL]
        if st[i, L.ST_SIDE] == 0:
            att0 += st[i, L.ST_ATT]
            if st[i, L.ST_KIND] == CAPITAL:
                cap_att0 += st[i, L.ST_ATT]
        elif st[i, L.ST_KIND] == CAPITAL:
            cap_att1 += st[i, L.ST_ATT]
    row[L.RS_CAP_ATT1] = cap_att1
    vp = _vp(rl)
    if n0 == 0 or n1 == 0:
        row[L.RS_END] = END_UNCONTESTED
        score_uncontested_nb(s, cap_att0, att0, cap_att1, n0, n1, row[L.RS_IBONUS], cp, row)
    else:
        dy = np.zeros(L.NDY, dtype=np.int64)
        reset_dy_nb(dy)
        if rl[L.RL_OPT_SUN]:
            dy[L.DY_SUN] = sun_roll_nb(rng, rl)
        row[L.RS_SUN] = dy[L.DY_SUN]
        vb = 0
        for _ in range(cp[L.CP_VIS_DICE]):
            vb += roll_nb(rng, 6)
        row[L.RS_VIS_BASE] = vb
        sc[L.SC_VIS_BASE] = vb
        t, m, vis = approach_nb(ta, centres, tours_n, tours_s, sc, vb, rl, rng, cp[L.CP_APPROACH_CAP])
        out = np.zeros((1, L.NOUT), dtype=np.int64)
        if t == 0:
            row[L.RS_END] = END_LOOP_CAP
            row[L.RS_TURNS] = cp[L.CP_APPROACH_CAP]
            row[L.RS_WINNER] = -1
        else:
            row[L.RS_CONTACT] = t
            out[0, L.O_DISPLACED] += deploy_after_contact_nb(st, sh, fm, trail, n, ta, rl, sc, rng)
            dy[L.DY_VIS_CARRY] = vis
            ev = np.zeros((0, L.NEV), dtype=np.int32)
            trace = np.zeros((0, n, L.NTR), dtype=np.int64)
            turn, reason, ended_by, contact, contact_end, exit_met, ev_n = tactical_nb(
                st, sh, fm, trail, sc, rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt, pcr, knr, 0,
                cp[L.CP_CHECK], out, 0, ev, 0, trace, False, rng, dy, t, cp[L.CP_TURN_LIMIT], vb)
            row[L.RS_TURNS] = turn
            row[L.RS_END] = reason
            row[L.RS_ENDED_BY] = ended_by
            score_scenario_nb(st, sh, n, sc, s, ended_by, contact_end, row[L.RS_IBONUS], cp, vp, dy, row)
        for k in range(OUT_COUNTS.shape[0]):
            row[OUT_COUNTS[k, 1]] = out[0, OUT_COUNTS[k, 0]]
        for k in range(DY_COUNTS.shape[0]):
            row[DY_COUNTS[k, 1]] = dy[DY_COUNTS[k, 0]]
        for i in range(n):
            if sh[i, L.SH_STATUS] != SUNK and wrecked_nb(sh, i) and under_tow_nb(sh, i):
                row[L.RS_TOWED0 + st[i, L.ST_SIDE]] += 1
        if cp[L.CP_EXTENDED]:
            # 12.64: cures cost a point each; wrecks not under tow are scuttled; permanent damage waits
            for i in range(n):
                r = st[i, L.ST_SIDE]
                p = players[r]
                u = idx[i]
                gl, sl, rec = final_states_nb(sh[i, L.SH_G], sh[i, L.SH_S], sh[i, L.SH_DC], st[i, L.ST_DEF])
                cured = sh[i, L.SH_DC] + rec
                row[L.RS_CURED0 + r] += cured
                treasury[p] -= cured * cp[L.CP_DC_COST]
                if sh[i, L.SH_STATUS] == SUNK:
                    ps[p, u, L.PS_STATUS] = L.PS_LOST
                    gout[g, L.GO_LOST0 + p] += 1
                elif wrecked_nb(sh, i) and not under_tow_nb(sh, i):
                    ps[p, u, L.PS_STATUS] = L.PS_LOST
                    row[L.RS_SCUTTLED0 + r] += 1
                    gout[g, L.GO_SCUTTLED0 + p] += 1
                elif gl + sl > 0:
                    ps[p, u, L.PS_STATUS] = L.PS_DAMAGED
                    ps[p, u, L.PS_G] = gl
                    ps[p, u, L.PS_S] = sl
    if cp[L.CP_EXTENDED]:
        # 12.63: victory bonuses and the convoy's balance go to the treasury; the Bombardment
        # Bonus comes out of the North's; damage VPs only decide the scenario
        if row[L.RS_WINNER] >= 0:
            treasury[players[row[L.RS_WINNER]]] += row[L.RS_BONUS0] + row[L.RS_BONUS1]
        treasury[players[1]] += row[L.RS_INTERCEPT1]
        treasury[players[0]] -= row[L.RS_BOMBARD]


@njit(cache=True, error_model="numpy")
def campaign_game_nb(g, ext_turn, players, po, npool, ps, cp, sc0, geo, tb, pc, kn, rng, rows, nrow, treasury, gout):
    """One campaign game (Rules 11.0-11.9): allocation, the Interception Bonus, and scenarios A-D
    in order. ``players[0]`` is North. In the extended campaign the game stops at once when a
    treasury falls to zero (12.66).

    Returns:
        ``(nrow, totals)``: rows written so far and ``int64[2]`` campaign VPs by role.
    """
    P = po.shape[1]
    scen = np.full((2, P), -1, dtype=np.int64)
    for r in range(2):
        p = players[r]
        allocate_nb(po[p], npool[p], ps[p], cp[L.CP_ALLOC0 + p], rng, scen[p])
    south = players[1]
    ib = interception_bonus_nb(po[south], npool[south], ps[south], scen[south], cp[L.CP_ALLOC0 + south], rng,
                               cp[L.CP_IBONUS], cp[L.CP_IB_MIN], cp[L.CP_IB_MAX])
    pcr = np.zeros_like(pc)
    knr = np.zeros_like(kn)
    for r in range(2):
        pcr[r] = pc[players[r]]
        knr[r] = kn[players[r]]
    totals = np.zeros(2, dtype=np.int64)
    for s in range(4):
        row = rows[nrow]
        campaign_scenario_nb(s, players, g, ext_turn, po, npool, ps, scen, ib, cp, sc0, geo, tb, pcr, knr, rng, row,
                             treasury, gout)
        totals[0] += row[L.RS_SCORE0]
        totals[1] += row[L.RS_SCORE1]
        nrow += 1
        if cp[L.CP_EXTENDED] and (treasury[0] <= 0 or treasury[1] <= 0):
            break
    return nrow, totals


@njit(cache=True, error_model="numpy")
def repair_nb(po, npl, ps, treasury, code, rng, pct, reserve):
    """The Repair Phase of one player (Rule 12.64): permanently damaged ships repaired at ``pct``%
    of their value per damage state (fractions dropped), most valuable first, while the treasury
    keeps ``reserve`` (random: each affordable one on a coin flip). Returns the points spent."""
    order = _order_by_value_nb(po, npl, True)
    spent = 0
    for a in range(npl):
        u = order[a]
        if ps[u, L.PS_STATUS] != L.PS_DAMAGED:
            continue
        cost = po[u, L.PO_VAL] * pct * (ps[u, L.PS_G] + ps[u, L.PS_S]) // 100
        if code == BUILD_RANDOM:
            if treasury - spent - cost <= 0 or roll_nb(rng, 2) != 1:
                continue
        elif treasury - spent - cost < reserve:
            continue
        spent += cost
        ps[u, L.PS_STATUS] = L.PS_FLEET
        ps[u, L.PS_G] = 0
        ps[u, L.PS_S] = 0
    return spent


@njit(cache=True, error_model="numpy")
def play_campaign_batch_nb(seeds, po, npool, cp, sc0, geo, tb, pc, kn, gout, rows):
    """Play one campaign game (or extended campaign) per seed (Rules 11.0-11.9, 12.6).

    Args:
        seeds: ``uint64[g]``.
        po: ``int64[2, P, NPO]`` each player's national listing; npool: ``int64[2]`` its units.
        cp: ``int64[NCP]`` the campaign's parameters; sc0: ``int64[NSC]`` the scenario template.
        geo: ``(centres, tours_n, tours_s, slots_cap, slots_scr)``; tb: the compiled rules.
        pc, kn: policy codes and knobs by player.
        gout: ``int64[g, NGO]`` one row per game (written); rows: ``int64[cap, NRS]`` one row per
            campaign scenario (written, in game order).

    Returns:
        The number of scenario rows written.
    """
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    P = po.shape[1]
    nrow = 0
    players = np.zeros(2, dtype=np.int64)
    treasury = np.zeros(2, dtype=np.int64)
    for g in range(seeds.shape[0]):
        new_state_nb(seeds[g], rng)
        for k in range(L.NGO):
            gout[g, k] = 0
        ps = np.zeros((2, P, L.NPS), dtype=np.int64)
        start = nrow
        if cp[L.CP_EXTENDED] == 0:
            for p in range(2):
                gout[g, L.GO_FLEET_VALUE0 + p] = build_fleet_nb(po[p], npool[p], ps[p], cp[L.CP_LIMIT0 + p],
                                                                 cp[L.CP_BUILD0 + p], rng, L.PS_FLEET)
            players[0] = 0
            players[1] = 1
            nrow, totals = campaign_game_nb(g, 0, players, po, npool, ps, cp, sc0, geo, tb, pc, kn, rng, rows, nrow,
                                            treasury, gout)
            gout[g, L.GO_SCORE0] = totals[0]
            gout[g, L.GO_SCORE1] = totals[1]
            gout[g, L.GO_END] = CAMP_COMPLETE
            turns = 0
            for r in range(start, nrow):
                turns += rows[r, L.RS_TURNS]
                if rows[r, L.RS_END] == END_LOOP_CAP:
                    gout[g, L.GO_END] = CAMP_LOOP_CAP
            gout[g, L.GO_TURNS] = turns
            gout[g, L.GO_NORTH_TURNS0] = 1
        else:
            for p in range(2):
                treasury[p] = cp[L.CP_TREASURY0 + p]
                v = build_fleet_nb(po[p], npool[p], ps[p], cp[L.CP_LIMIT0 + p], cp[L.CP_BUILD0 + p], rng, L.PS_FLEET)
                gout[g, L.GO_FLEET_VALUE0 + p] = v
                treasury[p] -= v
                share = 80 if cp[L.CP_BUILD0 + p] == BUILD_VALUE_GREEDY else (
                    50 if cp[L.CP_BUILD0 + p] == BUILD_BALANCED else roll_nb(rng, 101) - 1)
                budget = treasury[p] * share // 100
                gout[g, L.GO_SCHEDULED0 + p] = schedule_nb(po[p], npool[p], ps[p], cp[L.CP_BUILD0 + p], rng, budget,
                                                           cp[L.CP_BUILD_LIMIT], cp[L.CP_LAST_TURN])
                gout[g, L.GO_TREAS0 + 13 * p] = treasury[p]
            end = EXT_TURN_LIMIT
            turn = 0
            for t in range(1, cp[L.CP_LAST_TURN] + 1):
                # peace resolution (12.62)
                r = 0
                for _ in range(cp[L.CP_PEACE_DICE]):
                    r += roll_nb(rng, 6)
                if r == t:
                    end = EXT_PEACE
                    gout[g, L.GO_PEACE_TURN] = t
                    break
                turn = t
                north = roll_nb(rng, 2) - 1                  # 12.63: a coin decides who is North
                players[0] = north
                players[1] = 1 - north
                if north == 0:
                    gout[g, L.GO_NORTH_TURNS0] += 1
                before = nrow
                nrow, totals = campaign_game_nb(g, t, players, po, npool, ps, cp, sc0, geo, tb, pc, kn, rng, rows,
                                                nrow, treasury, gout)
                for rr in range(before, nrow):
                    if rows[rr, L.RS_END] == END_LOOP_CAP:
                        end = EXT_LOOP_CAP
                if treasury[0] <= 0 or treasury[1] <= 0:
                    end = EXT_BANKRUPT
                if end == EXT_LOOP_CAP or end == EXT_BANKRUPT:
                    for p in range(2):
                        gout[g, L.GO_TREAS0 + 13 * p + t] = treasury[p]
                    break
                # repair phase, North first (12.64); build phase (12.65)
                for r2 in range(2):
                    p = players[r2]
                    nxt = 0
                    for u in range(npool[p]):
                        if ps[p, u, L.PS_STATUS] == L.PS_SCHEDULED and ps[p, u, L.PS_BUILD] == t + 1:
                            nxt += po[p, u, L.PO_VAL]
                    spent = repair_nb(po[p], npool[p], ps[p], treasury[p], cp[L.CP_BUILD0 + p], rng,
                                      cp[L.CP_REPAIR_PCT], nxt + 50)
                    treasury[p] -= spent
                    gout[g, L.GO_REPAIRED0 + p] += spent
                for p in range(2):
                    for u in range(npool[p]):
                        if ps[p, u, L.PS_STATUS] == L.PS_SCHEDULED and ps[p, u, L.PS_BUILD] == t:
                            ps[p, u, L.PS_STATUS] = L.PS_FLEET
                            treasury[p] -= po[p, u, L.PO_VAL]
                            gout[g, L.GO_BUILT0 + p] += po[p, u, L.PO_VAL]
                    gout[g, L.GO_TREAS0 + 13 * p + t] = treasury[p]
                if treasury[0] <= 0 or treasury[1] <= 0:
                    end = EXT_BANKRUPT
                    break
            # the treasury stays as it ended for the turns not played
            for p in range(2):
                last = gout[g, L.GO_TREAS0 + 13 * p + turn] if turn > 0 else gout[g, L.GO_TREAS0 + 13 * p]
                for t in range(turn + 1, 13):
                    gout[g, L.GO_TREAS0 + 13 * p + t] = last
            gout[g, L.GO_SCORE0] = treasury[0]
            gout[g, L.GO_SCORE1] = treasury[1]
            gout[g, L.GO_TURNS] = turn
            gout[g, L.GO_END] = end
        # the winner: more campaign VPs, or the larger treasury (12.66)
        a = gout[g, L.GO_SCORE0]
        b = gout[g, L.GO_SCORE1]
        gout[g, L.GO_WINNER] = 0 if a > b else (1 if b > a else -1)
        lev = LEVEL_DRAW
        if a != b:
            hi = a if a > b else b
            lo = b if a > b else a
            lev = LEVEL_SUBSTANTIAL if (hi >= 2 * lo and cp[L.CP_EXTENDED] == 0) else LEVEL_MARGINAL
        gout[g, L.GO_LEVEL] = lev
        for p in range(2):
            for u in range(npool[p]):
                if ps[p, u, L.PS_STATUS] != L.PS_NONE and ps[p, u, L.PS_STATUS] != L.PS_SCHEDULED:
                    gout[g, L.GO_FLEET_UNITS0 + p] += 1
                    if po[p, u, L.PO_KIND] == CAPITAL:
                        gout[g, L.GO_FLEET_CAP0 + p] += 1
        gout[g, L.GO_ROWS] = nrow - start
    return nrow
