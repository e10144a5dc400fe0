"""Fleet card state queries and changes, compiled (Rules 4, 5.1-5.3, 5.3.2).

Arrays are those of ``layout.py``: ``cs`` (card values), ``st`` (card state), ``rt`` (rule tables).
A *slot* is a squadron position; side ``s`` owns slots ``s * MAXC`` to ``s * MAXC + MAXC - 1``.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from .enums import (
    AIRCRAFT,
    AUXILIARY,
    CAPITAL,
    DESTROYER,
    LONG,
    MEDIUM,
    MERCHANT,
    SHORT,
    SPEED,
    ST_IN_PLAY,
    SUBMARINE,
    TGT_AIR,
    TGT_SUB,
    TGT_SURFACE,
    W_AA,
    W_AIR,
    W_ASW,
    W_BOMBING,
    W_MAIN,
    W_SECONDARY,
    W_TORPEDO,
)
from .layout import (
    C_AAH,
    C_AAL,
    C_AIR,
    C_ASW,
    C_BOMB,
    C_HULL,
    C_MAIN,
    C_MOVE,
    C_SEC,
    C_TORP,
    C_TYPE,
    G_NIGHT,
    MAXC,
    RT_DIST,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
)


@kernel(inline="always")
def is_escort_nb(t):
    """Destroyers and auxiliaries are escorts (Rule 3.1)."""
    return t == DESTROYER or t == AUXILIARY


@kernel(inline="always")
def target_class_nb(t):
    """What kind of target a fleet card type is: surface ship, submarine or aircraft (5.3.1 step 1)."""
    if t == SUBMARINE:
        return TGT_SUB
    if t == AIRCRAFT:
        return TGT_AIR
    return TGT_SURFACE


@kernel
def in_play_nb(st, slot):
    return st[slot, S_STATUS] == ST_IN_PLAY


@kernel
def badly_damaged_nb(cs, st, slot):
    """More damage markers than half the hull: badly damaged (Rule 5.3.2)."""
    return 2 * st[slot, S_DMG] > cs[slot, C_HULL]


@kernel
def printed_value_nb(cs, slot, w):
    """The printed dice of weapon ``w`` (enums.W_*); AA fire rolls heavy + light AA (ruling)."""
    if w == W_MAIN:
        return cs[slot, C_MAIN]
    if w == W_SECONDARY:
        return cs[slot, C_SEC]
    if w == W_TORPEDO:
        return cs[slot, C_TORP]
    if w == W_AA:
        return cs[slot, C_AAH] + cs[slot, C_AAL]
    if w == W_ASW:
        return cs[slot, C_ASW]
    if w == W_AIR:
        return cs[slot, C_AIR]
    return cs[slot, C_BOMB]


@kernel
def reduced_value_nb(cs, st, slot, printed):
    """A combat value after damage and stress (Rule 5.3.2): -1 die when badly damaged, -1 per
    stress marker beyond the first. May be 0 or less: then only a lucky hit is possible."""
    v = printed
    if badly_damaged_nb(cs, st, slot):
        v -= 1
    s = st[slot, S_STRESS]
    if s > 1:
        v -= s - 1
    return v


@kernel
def weapon_dice_nb(cs, st, slot, w):
    """Dice the card rolls with weapon ``w`` now (may be <= 0: lucky hit only; see reduced_value_nb)."""
    return reduced_value_nb(cs, st, slot, printed_value_nb(cs, slot, w))


@kernel
def speed_nb(cs, st, slot):
    """Movement factor now (Rule 5.3.2): -1 when badly damaged, never below 0."""
    m = cs[slot, C_MOVE]
    if badly_damaged_nb(cs, st, slot):
        m -= 1
    return m if m > 0 else 0


@kernel
def row_counts_nb(st, side, counts):
    """Fill ``counts[3]`` with the side's cards in play in each row."""
    counts[0] = 0
    counts[1] = 0
    counts[2] = 0
    base = side * MAXC
    for i in range(base, base + MAXC):
        if st[i, S_STATUS] == ST_IN_PLAY:
            counts[st[i, S_ROW]] += 1


@kernel(inline="always")
def spread_nb(a, b, c):
    hi = a if a > b else b
    hi = hi if hi > c else c
    lo = a if a < b else b
    lo = lo if lo < c else c
    return hi - lo


@kernel(inline="always")
def row_counts3_nb(st, side):
    """The side's cards in play in the short, medium and long rows: ``(short, medium, long)``."""
    a = np.int64(0)
    b = np.int64(0)
    c = np.int64(0)
    base = side * MAXC
    for i in range(base, base + MAXC):
        if st[i, S_STATUS] == ST_IN_PLAY:
            r = st[i, S_ROW]
            if r == 0:
                a += 1
            elif r == 1:
                b += 1
            else:
                c += 1
    return a, b, c


@kernel
def layout_spread_nb(st, side):
    """Largest minus smallest row count of a side (Rule 4: a legal layout has at most 1)."""
    a, b, c = row_counts3_nb(st, side)
    return spread_nb(a, b, c)


@kernel
def move_keeps_layout_nb(st, side, src, dst):
    """Whether moving one card of ``side`` from row ``src`` to ``dst`` keeps Section 4's row
    counts, as Rule 5.2 asks (ruling M2: the layout after the move has a spread <= 1, or no larger
    than before when losses already broke it). This checks the counts only; moves must also keep
    Section 4's short-row card types (ruling M1, ``legality.row_types_keep_nb``; merchants
    exempt), unless the option ``row_limits = counts`` plays the counts alone."""
    a, b, c = row_counts3_nb(st, side)
    before = spread_nb(a, b, c)
    a += (dst == 0) - (src == 0)
    b += (dst == 1) - (src == 1)
    c += (dst == 2) - (src == 2)
    limit = before if before > 1 else 1
    return spread_nb(a, b, c) <= limit


@kernel
def can_fight_from_nb(cs, st, slot):
    """Submarines and aircraft attack, and are attacked, only from the short or medium row (5.3.1 step 1)."""
    t = cs[slot, C_TYPE]
    if t == SUBMARINE or t == AIRCRAFT:
        return st[slot, S_ROW] != LONG
    return True


@kernel
def weapon_usable_nb(cs, attacker, target, w):
    """Weapon ``w`` of ``attacker`` can be aimed at ``target``'s kind (Rule 5.3, 5.3.1 step 1):
    printed value > 0, the right kind of target, and air combat / bombardment for aircraft only
    (main, secondary, torpedo and AA fire for ships only). Merchants never fire (3.1: 'not used
    in combat')."""
    at = cs[attacker, C_TYPE]
    if at == MERCHANT:
        return False
    if printed_value_nb(cs, attacker, w) <= 0:
        return False
    tc = target_class_nb(cs[target, C_TYPE])
    if w == W_MAIN or w == W_SECONDARY or w == W_TORPEDO:
        return at != AIRCRAFT and tc == TGT_SURFACE
    if w == W_AA:
        return at != AIRCRAFT and tc == TGT_AIR
    if w == W_ASW:
        return tc == TGT_SUB
    if w == W_AIR:
        return at == AIRCRAFT and tc == TGT_AIR
    if w == W_BOMBING:
        return at == AIRCRAFT and tc == TGT_SURFACE
    return False


@kernel(inline="always")
def weapon_reaches_nb(w, distance):
    """Only main armament fires at Long; torpedoes (and every other weapon) at Short or Medium (5.3.1 step 2)."""
    if w == W_MAIN:
        return True
    return distance != LONG


@kernel(inline="always")
def distance_penalty_nb(w, distance):
    """-1 on each hit die (returned as +1 needed): secondary and torpedoes at Medium, main at Long (step 8)."""
    if (w == W_SECONDARY or w == W_TORPEDO) and distance == MEDIUM:
        return 1
    if w == W_MAIN and distance == LONG:
        return 1
    return 0


@kernel
def distance_entry_nb(rt, cs, st, attacker, target):
    """The combat distance table entry (5.3.1 step 2): SHORT, MEDIUM, LONG or SPEED.
    Attacks by aircraft are always at Medium."""
    if cs[attacker, C_TYPE] == AIRCRAFT:
        return MEDIUM
    return rt[RT_DIST + 3 * st[attacker, S_ROW] + st[target, S_ROW]]


@kernel
def speed_chooser_nb(cs, st, attacker, target):
    """Who chooses a Speed result: 0 the active player (faster or equal card), 1 the passive."""
    if speed_nb(cs, st, target) > speed_nb(cs, st, attacker):
        return 1
    return 0


@kernel
def attack_possible_nb(rt, cs, st, g, attacker, target):
    """Whether ``attacker`` may attack ``target`` at all (5.3.1 steps 1-2, 10.2): both in play and
    uncovered, on opposite sides, rows allowed for submarines and aircraft, no aircraft attacking
    at night, and a weapon that can hit this kind of target at one of the distances the table
    allows."""
    if st[attacker, S_STATUS] != ST_IN_PLAY or st[target, S_STATUS] != ST_IN_PLAY:
        return False
    if g[G_NIGHT] == 1 and cs[attacker, C_TYPE] == AIRCRAFT:
        return False
    if st[attacker, S_UP] == 0 or st[target, S_UP] == 0:
        return False
    if attacker // MAXC == target // MAXC:
        return False
    if not can_fight_from_nb(cs, st, attacker) or not can_fight_from_nb(cs, st, target):
        return False
    e = distance_entry_nb(rt, cs, st, attacker, target)
    for w in range(7):
        if weapon_usable_nb(cs, attacker, target, w):
            if e == SPEED:
                if weapon_reaches_nb(w, st[attacker, S_ROW]) or weapon_reaches_nb(w, st[target, S_ROW]):
                    return True
            elif weapon_reaches_nb(w, e):
                return True
    return False


@kernel
def count_type_nb(cs, st, side, t, status):
    """Cards of type ``t`` of ``side`` with the given status (enums.ST_*)."""
    n = np.int64(0)
    base = side * MAXC
    for i in range(base, base + MAXC):
        if st[i, S_STATUS] == status and cs[i, C_TYPE] == t:
            n += 1
    return n


@kernel
def capital_or_merchant_nb(t):
    return t == CAPITAL or t == MERCHANT


@kernel
def short_row_ok_nb(cs, side_types_escort_air_left, t):
    """Deployment (Rule 4): a card of type ``t`` may go to the short row when it is an escort or
    aircraft, or when the squadron has no escort or aircraft left to put there."""
    if is_escort_nb(t) or t == AIRCRAFT:
        return True
    return side_types_escort_air_left == 0


@kernel
def rows_of_nb(st, side, row, out):
    """Slots of the side's cards in play in ``row``; returns how many were written to ``out``."""
    n = np.int64(0)
    base = side * MAXC
    for i in range(base, base + MAXC):
        if st[i, S_STATUS] == ST_IN_PLAY and st[i, S_ROW] == row:
            out[n] = i
            n += 1
    return n


__all__ = [
    "attack_possible_nb", "badly_damaged_nb", "row_counts3_nb", "can_fight_from_nb", "capital_or_merchant_nb", "count_type_nb",
    "distance_entry_nb", "distance_penalty_nb", "in_play_nb", "is_escort_nb", "layout_spread_nb",
    "move_keeps_layout_nb", "printed_value_nb", "reduced_value_nb", "row_counts_nb", "rows_of_nb",
    "short_row_ok_nb", "speed_chooser_nb", "speed_nb", "spread_nb", "target_class_nb", "weapon_dice_nb",
    "weapon_reaches_nb", "weapon_usable_nb", "SHORT",
]
