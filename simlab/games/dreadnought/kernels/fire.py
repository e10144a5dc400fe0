"""Gunfire (Rules 5.0-5.9, 7.1, 8.41): dice, the Range Effects Table, the Damage Point Table, the
Combat Results Table, secondary batteries and the Fire Execution Phase.

Results are held face down until the end of the phase (:func:`add_pending_nb`, Rule 5.0) and
applied by :func:`apply_pending_nb` (5.42). Every attack may be written to the ``shots`` buffer
(layout ``E_*``) by :func:`record_shot_nb`.

Luck (``simlab luck``): each attack adds to its side's ``O_LUCK*`` slots (:func:`record_luck_nb`)
the damage steps it dealt (G + S steps of its result, a sinking counting as a wreck's
``RL_MAX_G + RL_MAX_S``) and the exact mean and variance of that number over every roll its dice
could have given (:func:`gun_moments_nb`, :func:`crt_moments_nb`: the odds enumerated, no die
drawn).

Bundles (issue 27): the compiled rules come as one :class:`..rules.RuleTables` ``tb``; a shot's
record as a :class:`ShotHead` (who fired at whom, how); the Fire Execution Phase's work rows as a
:class:`FireScratch` and where its shots go as a :class:`ShotLog`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    CRT_E,
    RES_E_2G1S,
    RES_E_SUNK,
    RES_NONE,
    RESULT_G,
    RESULT_S,
    SHOT_GUN,
    SHOT_SECONDARY,
    SUNK,
)
from .damage import by_damage_nb, wrecked_nb
from .geometry import arc_nb, hex_dist_nb

RES_G = np.array(RESULT_G, dtype=np.int64)


RES_S = np.array(RESULT_S, dtype=np.int64)


#: the slots of a gun shot's figures (``int64[NGS]``, :func:`gun_shot_mod_nb`'s ``out``,
#: :class:`FireScratch` ``shot``): the modified Attack Strength, the DPT roll (modified, clamped),
#: the Damage Points, the combat ratio (0 = below 1-1), the CRT roll (0 if none), the result code
GS_STRENGTH, GS_ROLL, GS_DP, GS_RATIO, GS_CRT_ROLL, GS_RESULT = range(6)
NGS = 6
#: the slots of a CRT attack's figures (``int64[NCS]``, :func:`crt_shot_nb`'s ``out``,
#: :class:`FireScratch` ``crt_out``): the modified, clamped roll and the result code
CS_ROLL, CS_RESULT = range(2)
NCS = 2


class ShotHead(NamedTuple):
    """Who made an attack and how, for its ``shots`` row (layout ``E_*``; all ints): the game's row
    ``g``, the Game-Turn, the kind (``SHOT_*``), firer and target units, range in hexes, halved
    (5.31), fired upon (5.6), the target's arc from the firer (7.1), combing (8.32)."""

    g: int
    turn: int
    kind: int
    firer: int
    target: int
    hexes: int
    halved: int
    upon: int
    arc: int
    combing: int


class FireScratch(NamedTuple):
    """The Fire Execution Phase's work rows (overwritten before read): ``desig``, ``nfire``
    ``int64[n]`` each target's designated unhalved firer and firers; ``shot`` ``int64[NGS]`` a gun
    shot's figures (slots ``GS_*``, :func:`gun_shot_mod_nb`'s ``out``); ``crt_out`` ``int64[NCS]`` a
    CRT attack's (slots ``CS_*``, :func:`crt_shot_nb`)."""

    desig: np.ndarray
    nfire: np.ndarray
    shot: np.ndarray
    crt_out: np.ndarray


class ShotLog(NamedTuple):
    """Where a phase's attacks are counted and recorded (ints): the game's row ``g`` of ``out``, the
    Game-Turn, whether shots are recorded (0/1) and the rows of ``ev`` used so far."""

    g: int
    turn: int
    record: int
    ev_n: int


@kernel(error_model="numpy", no_cpython_wrapper=True)
def two_d6_nb(rng):
    """A 2d6 roll (2..12) from the game's stream."""
    return roll_nb(rng, 6) + roll_nb(rng, 6)


@kernel(error_model="numpy")
def clamp_roll_nb(r):
    """A modified roll below 2 reads as 2 and above 12 as 12 (ruling DN-F2)."""
    if r < 2:
        return 2
    if r > 12:
        return 12
    return r


@kernel(error_model="numpy")
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


@kernel(error_model="numpy")
def band_nb(strength, band_low):
    """Column (attack band) of the Damage Point Table for a modified strength (Rule 5.8)."""
    b = 0
    for k in range(band_low.shape[0]):
        if strength >= band_low[k]:
            b = k
    return b


@kernel(error_model="numpy", no_cpython_wrapper=True)
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


@kernel(error_model="numpy")
def gun_shot_nb(attack, halved, hexes, upon, arc, defense, tb, rng, out):
    """Resolve one ship's gunfire at one target (Rules 5.0, 5.31, 5.5, 5.6, 7.1, 5.8, 5.9, 5.41):
    :func:`gun_shot_mod_nb` without an optional-rule modifier. Same arguments and result."""
    return gun_shot_mod_nb(attack, halved, hexes, upon, arc, defense, tb, rng, out, 0)


@kernel(error_model="numpy")
def gun_shot_mod_nb(attack, halved, hexes, upon, arc, defense, tb, rng, out, extra):
    """Resolve one ship's gunfire at one target (Rules 5.0, 5.31, 5.5, 5.6, 7.1, 5.8, 5.9, 5.41).

    Args:
        attack: the firer's Attack Strength after damage (Rule 5.41).
        halved: 1 if the firer is not the designated unhalved ship of a multiple attack (5.31).
        hexes: range in hexes; upon: 1 if the firer is fired at this phase (5.6);
        arc: ARC_* of the target from the firer (7.1); defense: the target's Defense Strength.
        tb: the compiled rules (:class:`..rules.RuleTables`: ``rl``, ``dpt``, ``band_low``, ``crt``,
            ``range_tab`` read); rng: the game's stream.
        extra: further DPT roll modifier of the optional rules (radar -2, spotting planes -3, sun
            +1/-1; Rules 12.21, 12.22, 12.52).
        out: ``int64[NGS]`` written (slots ``GS_*``): strength, DPT roll (modified, clamped),
            damage points, combat ratio (0 = below 1-1), CRT roll (0 if none), result code.

    Returns:
        The result code (``RES_*``).
    """
    rl = tb.rl
    dpt = tb.dpt
    crt = tb.crt
    a = attack // 2 if halved else attack
    strength = range_strength_nb(a, hexes, tb.range_tab)
    out[GS_STRENGTH] = strength
    if strength <= 0:
        out[GS_ROLL] = 0
        out[GS_DP] = 0
        out[GS_RATIO] = 0
        out[GS_CRT_ROLL] = 0
        out[GS_RESULT] = RES_NONE
        return RES_NONE
    r = two_d6_nb(rng)
    if upon:
        r += rl[L.RL_FIRED_UPON]
    if arc != 0:
        r += rl[L.RL_BOW_STERN]
    r = clamp_roll_nb(r + extra)
    dp = dpt[r, band_nb(strength, tb.band_low)]
    ratio = dp // defense
    out[GS_ROLL] = r
    out[GS_DP] = dp
    out[GS_RATIO] = ratio
    if ratio < 1:
        out[GS_CRT_ROLL] = 0
        out[GS_RESULT] = RES_NONE
        return RES_NONE
    cr = two_d6_nb(rng)
    res = crt_result_nb(crt, cr, ratio, rl, rng)
    out[GS_CRT_ROLL] = cr
    out[GS_RESULT] = res
    return res


@kernel(error_model="numpy")
def crt_shot_nb(col, penalty, crt, rl, rng, out):
    """An attack read straight on the CRT: secondary batteries (8.41) and torpedoes (8.0, 8.32).

    Args:
        col: ratio column (1 for 1:1, 2 for 2:1); penalty: amount subtracted from the roll
            (3 when combing, 8.32).
        out: ``int64[NCS]`` written (slots ``CS_*``): the modified, clamped roll and the result code.

    Returns:
        The result code.
    """
    r = clamp_roll_nb(two_d6_nb(rng) - penalty)
    res = crt_result_nb(crt, r, col, rl, rng)
    out[CS_ROLL] = r
    out[CS_RESULT] = res
    return res


@kernel(error_model="numpy", inline="always")
def ways_2d6_nb(r):
    """Ways (of 36) that two dice sum to ``r``."""
    w = 6 - abs(r - 7)
    return w if w > 0 else 0


@kernel(error_model="numpy")
def result_steps_nb(res, rl):
    """Damage steps of a result code for ``simlab luck``: G + S steps; a sinking (E) counts as a
    wreck's ``RL_MAX_G + RL_MAX_S`` (Rules 5.41, 5.42)."""
    if res == RES_E_SUNK:
        return rl[L.RL_MAX_G] + rl[L.RL_MAX_S]
    return RES_G[res] + RES_S[res]


@kernel(error_model="numpy")
def crt_moments_nb(crt, col, penalty, rl):
    """Exact moments of the damage steps of one CRT roll (and its E roll) at ratio column ``col``
    with ``penalty`` off the roll, as :func:`crt_result_nb` reads them.

    Returns:
        ``(s1, s2)``: sums of steps and of squared steps weighted by ways out of ``36 * 36``.
    """
    ncols = crt.shape[1] - 1
    c = col if col <= ncols else ncols
    a = rl[L.RL_E_SINK_A]
    b = rl[L.RL_E_SINK_B]
    sink = ways_2d6_nb(a) + (ways_2d6_nb(b) if b != a else 0)
    vs = result_steps_nb(RES_E_SUNK, rl)
    ve = result_steps_nb(RES_E_2G1S, rl)
    s1 = 0
    s2 = 0
    for r in range(2, 13):
        w = ways_2d6_nb(r)
        code = crt[clamp_roll_nb(r - penalty), c]
        if code == CRT_E:
            s1 += w * (sink * vs + (36 - sink) * ve)
            s2 += w * (sink * vs * vs + (36 - sink) * ve * ve)
        else:
            v = result_steps_nb(code, rl)
            s1 += w * 36 * v
            s2 += w * 36 * v * v
    return s1, s2


@kernel(error_model="numpy")
def gun_moments_nb(strength, mod, defense, dpt, band_low, crt, rl):
    """Exact moments of the damage steps of one gun shot (Rules 5.8, 5.9, 5.41) at modified
    ``strength`` with the DPT roll modifier ``mod`` (5.6 fired upon, 7.1 arc, optional rules) against
    ``defense``: :func:`gun_shot_mod_nb`'s odds, enumerated.

    Returns:
        ``(s1, s2)``: sums of steps and of squared steps weighted by ways out of ``36 ** 3``.
    """
    s1 = 0
    s2 = 0
    if strength <= 0:
        return s1, s2
    band = band_nb(strength, band_low)
    for r in range(2, 13):
        dp = dpt[clamp_roll_nb(r + mod), band]
        ratio = dp // defense
        if ratio >= 1:
            c1, c2 = crt_moments_nb(crt, ratio, 0, rl)
            w = ways_2d6_nb(r)
            s1 += w * c1
            s2 += w * c2
    return s1, s2


@kernel(error_model="numpy")
def record_luck_nb(out, g, side, res, s1, s2, rl):
    """Add one attack of ``side`` to its luck slots (layout ``O_LUCK_DEALT0``): the steps its result
    dealt, the mean times ``LUCK_SCALE`` (``s1``) and the variance times ``LUCK_SCALE ** 2``; ``s1,
    s2`` are sums over ``LUCK_SCALE`` (``36 ** 3``) ways."""
    k = L.O_LUCK_DEALT0 + 3 * side
    out[g, k] += result_steps_nb(res, rl)
    out[g, k + 1] += s1
    out[g, k + 2] += L.LUCK_SCALE * s2 - s1 * s1


@kernel(error_model="numpy", no_cpython_wrapper=True)
def add_pending_nb(sh, t, res):
    """Hold a result on a target until the end of the phase (Rule 5.0: markers face down)."""
    if res == RES_E_SUNK:
        sh[t, L.SH_PSUNK] = 1
    else:
        sh[t, L.SH_PG] += RES_G[res]
        sh[t, L.SH_PS] += RES_S[res]


@kernel(error_model="numpy")
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


@kernel(error_model="numpy", no_cpython_wrapper=True)
def record_shot_nb(ev, k, head, strength, dptr, dp, ratio, crtr, res):
    """Write one attack to row ``k`` of the ``shots`` buffer ``ev`` (``int32[cap, NEV]``, layout
    ``E_*``): its :class:`ShotHead`, the modified strength (-1: none, a CRT attack), DPT roll, damage
    points, ratio column, CRT roll and result code. Returns ``k + 1``, or ``cap + 1`` when full (the
    caller plays the batch again with a larger buffer)."""
    if k >= ev.shape[0]:
        return ev.shape[0] + 1
    ev[k, L.E_GAME] = head.g
    ev[k, L.E_TURN] = head.turn
    ev[k, L.E_KIND] = head.kind
    ev[k, L.E_FIRER] = head.firer
    ev[k, L.E_TARGET] = head.target
    ev[k, L.E_RANGE] = head.hexes
    ev[k, L.E_STRENGTH] = strength
    ev[k, L.E_HALVED] = head.halved
    ev[k, L.E_UPON] = head.upon
    ev[k, L.E_ARC] = head.arc
    ev[k, L.E_DPT_ROLL] = dptr
    ev[k, L.E_DP] = dp
    ev[k, L.E_RATIO] = ratio
    ev[k, L.E_CRT_ROLL] = crtr
    ev[k, L.E_RESULT] = res
    ev[k, L.E_COMBING] = head.combing
    return k + 1


@kernel(error_model="numpy", no_cpython_wrapper=True)
def fire_execution_nb(st, sh, n, tb, rng, fs, io, log):
    """The Fire Execution Phase (Rules 5.0, 5.31, 5.6, 8.41): every plotted attack is resolved
    against the state at the start of the phase; results are applied at its end. A ship is
    "being fired at" (5.6, -2 on its own DPT roll) when an enemy's main battery is plotted at it;
    a secondary-battery attack (8.41, read straight on the CRT) is not fire under 5.6 (ruling
    DN-F3). Of several ships
    firing at one target, all but the one the plot designates (``SH_UNHALVED``; the first so
    marked) fire halved (5.31, ruling DN-F1); a plot that designates none has them all halved. A
    main-battery shot takes the optional-rule DPT modifier plotted with it (``SH_FMOD``); every
    firer is marked ``SH_FIRED`` (the Bombardment Bonus counts ships that never fired, 11.3). A
    gun shot at a wreck (2G, 2S at the start of the phase: only a sinking can still add to its
    score) is counted in ``O_WASTED*``.

    Args:
        st, sh, n: the units; tb: the compiled rules (:class:`..rules.RuleTables`); rng: the stream.
        fs: the :class:`FireScratch`; io: ``(out, ev, ...)`` the counters ``int64[g, NOUT]`` and the
            shots buffer; log: the :class:`ShotLog` (game row, Game-Turn, record, rows used).

    Returns:
        ``ev_n``, the shots buffer's rows used.
    """
    rl = tb.rl
    crt = tb.crt
    desig = fs.desig
    nfire = fs.nfire
    shot = fs.shot
    crt_out = fs.crt_out
    out = io[0]
    ev = io[1]
    g = log.g
    turn = log.turn
    record = log.record
    ev_n = log.ev_n
    for i in range(n):
        sh[i, L.SH_UPON] = 0
        desig[i] = -1
        nfire[i] = 0
    for i in range(n):
        t = sh[i, L.SH_TGT]
        if t >= 0:
            sh[t, L.SH_UPON] = 1
            nfire[t] += 1
            # 5.31: the one unhalved ship is the one the Fire Plot designates (the first so marked)
            if desig[t] < 0 and sh[i, L.SH_UNHALVED] != 0:
                desig[t] = i
    for i in range(n):
        t = sh[i, L.SH_TGT]
        if t < 0:
            continue
        if wrecked_nb(sh, t):
            out[g, L.O_WASTED0 + st[i, L.ST_SIDE]] += 1
        halved = 1 if (rl[L.RL_HALVE_MULTI] and nfire[t] > 1 and desig[t] != i) else 0
        d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[t, L.SH_X], sh[t, L.SH_Z])
        arc = arc_nb(sh[i, L.SH_F], sh[t, L.SH_X] - sh[i, L.SH_X], sh[t, L.SH_Z] - sh[i, L.SH_Z])
        a = by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G])
        res = gun_shot_mod_nb(a, halved, d, sh[i, L.SH_UPON], arc, st[t, L.ST_DEF], tb, rng, shot, sh[i, L.SH_FMOD])
        sh[i, L.SH_FIRED] = 1
        add_pending_nb(sh, t, res)
        out[g, L.O_SHOTS0 + st[i, L.ST_SIDE]] += 1
        # luck: the same modifiers as gun_shot_mod_nb's roll (5.6, 7.1, the plotted optional ones)
        mod = ((rl[L.RL_FIRED_UPON] if sh[i, L.SH_UPON] else 0) + (rl[L.RL_BOW_STERN] if arc != 0 else 0)
               + sh[i, L.SH_FMOD])
        s1, s2 = gun_moments_nb(shot[GS_STRENGTH], mod, st[t, L.ST_DEF], tb.dpt, tb.band_low, crt, rl)
        record_luck_nb(out, g, st[i, L.ST_SIDE], res, s1, s2, rl)
        if record:
            ev_n = record_shot_nb(ev, ev_n, ShotHead(g, turn, SHOT_GUN, i, t, d, halved, sh[i, L.SH_UPON], arc, 0),
                                  shot[GS_STRENGTH], shot[GS_ROLL], shot[GS_DP], shot[GS_RATIO],
                                  shot[GS_CRT_ROLL], shot[GS_RESULT])
    for i in range(n):
        t = sh[i, L.SH_SB]
        if t < 0:
            continue
        d = hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[t, L.SH_X], sh[t, L.SH_Z])
        res = crt_shot_nb(rl[L.RL_SB_COL], 0, crt, rl, rng, crt_out)
        sh[i, L.SH_FIRED] = 1
        add_pending_nb(sh, t, res)
        s1, s2 = crt_moments_nb(crt, rl[L.RL_SB_COL], 0, rl)
        record_luck_nb(out, g, st[i, L.ST_SIDE], res, 36 * s1, 36 * s2, rl)
        if record:
            ev_n = record_shot_nb(ev, ev_n, ShotHead(g, turn, SHOT_SECONDARY, i, t, d, 0, sh[i, L.SH_UPON], 0, 0),
                                  -1, 0, 0, rl[L.RL_SB_COL], crt_out[CS_ROLL], crt_out[CS_RESULT])
    apply_pending_nb(sh, n, rl)
    return ev_n
