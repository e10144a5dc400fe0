"""What Mar Rojo's rules allow a fleet card to do now, compiled (Rules 3.2, 3.2.1, 5.1-5.5).

The rules side of every activation: whether a card may act again this sub-turn (5.1), the
actions it may take (attack 5.3, uncover and cover 5.1, move and exchange 5.2, discover 5.4,
reorganise 5.5), the list of every legal activation (what ``random-legal`` draws from), which
cards a mass-activation card activates and the weapon it restricts them to (3.2), which action
cards may be played for their effect in one's own sub-turn (3.2, 3.2.1), and whether a target
can fire back (Surprise). The engine checks every activation a policy picks with
``action_legal_nb``; the policies import these functions, never the reverse.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from .enums import (
    ACT_ATTACK,
    ACT_COVER,
    ACT_DISCOVER,
    ACT_EXCHANGE,
    ACT_MOVE,
    ACT_REORG,
    ACT_UNCOVER,
    AIRCRAFT,
    AK_SIDE,
    AK_TYPE,
    AT_GENERAL,
    CAPITAL,
    DESTROYER,
    K_AIR_DEFENCE,
    K_CRUISERS,
    K_DEPTH_CHARGES,
    K_DESTROYERS,
    K_MERCHANT_SHIPS,
    K_PLANES,
    K_RETREAT,
    K_TORPEDOES,
    LONG,
    MERCHANT,
    SHORT,
    ST_IN_PLAY,
    W_AA,
    W_ASW,
    W_TORPEDO,
)
from .fleet import (
    attack_possible_nb,
    is_escort_nb,
    move_keeps_layout_nb,
    printed_value_nb,
    speed_nb,
    weapon_reaches_nb,
    weapon_usable_nb,
)
from .layout import (
    C_HULL,
    C_SEAPLANE,
    C_TYPE,
    G_FINAL,
    G_RESTRICT,
    G_RULES,
    MAXC,
    R_AIR_ACTS,
    R_REORG_PER_CARD,
    RU_FREE_ROWS,
    S_ACTS,
    S_BONUS,
    S_MASK,
    S_REORG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
)

__all__ = ["can_activate_nb", "only_reorganise_nb", "can_discover_nb", "covered_in_row_nb", "discover_legal_nb", "exchange_legal_nb", "move_legal_nb", "row_types_keep_nb", "short_row_bad_nb", "action_legal_nb", "legal_actions_nb", "class_member_nb", "effect_restrict_nb", "is_mass_activation_nb", "effect_allowed_nb", "can_return_fire_nb"]


@kernel
def can_activate_nb(rt, cs, st, slot, effect_mode):
    """Whether a fleet card may take one more action this sub-turn (Rule 5.1): once, twice for
    aircraft, one more after an uncovering first action; under an effect only while it has
    actions left from it."""
    if st[slot, S_STATUS] != ST_IN_PLAY:
        return False
    lim = (rt[R_AIR_ACTS] if cs[slot, C_TYPE] == AIRCRAFT else 1) + st[slot, S_BONUS]
    if st[slot, S_ACTS] >= lim:
        return False
    if effect_mode and st[slot, S_MASK] <= 0:
        return False
    return True


@kernel(inline="always")
def only_reorganise_nb(cs, st, slot):
    """"If a ship fleet unit has more stress markers than its hull value, the ONLY action it may
    take is to reorganise" (Rule 5.3.2): ships and submarines only, not aircraft (ruling M8)."""
    return st[slot, S_STRESS] > cs[slot, C_HULL] and cs[slot, C_TYPE] != AIRCRAFT


@kernel
def short_row_bad_nb(cs, st, side, a, ra, b, rb):
    """Cards of ``side`` that break Section 4's short-row rule with card ``a`` in row ``ra`` and
    ``b`` in row ``rb`` (``b = -1``: none): capital ships and submarines in the short row while an
    escort or aircraft of the squadron is outside it ("only escort ... and aircraft fleet cards can
    be deployed in the short range row, unless there is no other unit type", read as in M3).
    Merchants are exempt (8.2 and 8.3 score them at the short distance; ruling M1)."""
    base = side * MAXC
    out = np.int64(0)
    bad = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY:
            continue
        r = ra if s == a else (rb if s == b else st[s, S_ROW])
        t = cs[s, C_TYPE]
        if is_escort_nb(t) or t == AIRCRAFT:
            if r != SHORT:
                out += 1
        elif t != MERCHANT and r == SHORT:
            bad += 1
    return bad if out > 0 else np.int64(0)


@kernel
def row_types_keep_nb(cs, st, g, a, ra, b, rb):
    """Whether a move of ``a`` to ``ra`` (and ``b`` to ``rb`` in an exchange) keeps Section 4's
    short-row rule (5.2: "CANNOT leave the squadron deployment layout in an invalid state (See
    Section 4)"): no card breaks it afterwards, or no more than before (as M2 for the counts).
    Always true with the option ``row_limits = counts`` (bit ``RU_FREE_ROWS``)."""
    if g[G_RULES] & RU_FREE_ROWS:
        return True
    side = a // MAXC
    after = short_row_bad_nb(cs, st, side, a, ra, b, rb)
    if after == 0:
        return True
    return after <= short_row_bad_nb(cs, st, side, np.int64(-1), np.int64(-1), np.int64(-1), np.int64(-1))


@kernel
def can_discover_nb(cs, st, slot):
    """An escort or aircraft in the short or medium row may discover (Rule 5.4)."""
    t = cs[slot, C_TYPE]
    return (is_escort_nb(t) or t == AIRCRAFT) and st[slot, S_ROW] != LONG


@kernel
def covered_in_row_nb(st, side, row):
    n = np.int64(0)
    base = side * MAXC
    for i in range(base, base + MAXC):
        if st[i, S_STATUS] == ST_IN_PLAY and st[i, S_UP] == 0 and st[i, S_ROW] == row:
            n += 1
    return n


@kernel(inline="always")
def order_row_nb(order, i):
    """The ``i``-th row (0-2) of the discovery order ``order`` (0-5, the greedy knob
    ``discover_order``; ``layout.DISCOVER_ORDERS`` spells them out): the first row is
    ``order // 2``, the other two follow in increasing order, swapped when ``order`` is odd."""
    f = order // 2
    if i == 0:
        return f
    a = np.int64(1) if f == 0 else np.int64(0)
    b = np.int64(1) if f == 2 else np.int64(2)
    first_of_rest = a if order % 2 == 0 else b
    if i == 1:
        return first_of_rest
    return b if first_of_rest == a else a


@kernel
def discover_legal_nb(cs, st, slot, r1, r2):
    """Rows of the cards a discovery turns (Rule 5.4): one card in the enemy's long row, or up to
    two in its short and medium rows; a seaplane two in any rows. ``r2 = -1`` for one card."""
    enemy = 1 - slot // MAXC
    sea = cs[slot, C_SEAPLANE] == 1
    if r1 < 0 or r1 > 2 or r2 > 2:
        return False
    c1 = covered_in_row_nb(st, enemy, r1)
    if c1 == 0:
        return False
    if r2 < 0:
        return True
    if not sea and (r1 == LONG or r2 == LONG):
        return False
    if r2 == r1:
        return c1 >= 2
    return covered_in_row_nb(st, enemy, r2) >= 1


@kernel
def exchange_legal_nb(cs, st, g, a, b):
    """Two own cards in different rows swap rows; at least one has movement 3; Section 4's
    short-row rule is kept (Rule 5.2, ``row_types_keep_nb``)."""
    if a == b or a // MAXC != b // MAXC or st[b, S_STATUS] != ST_IN_PLAY:
        return False
    if st[a, S_ROW] == st[b, S_ROW]:
        return False
    if not (speed_nb(cs, st, a) == 3 or speed_nb(cs, st, b) == 3):
        return False
    return row_types_keep_nb(cs, st, g, a, st[b, S_ROW], b, st[a, S_ROW])


@kernel
def move_legal_nb(cs, st, g, slot, dst):
    """Move to another row: movement 1 one row, 2 or 3 up to two rows; never at 0; never to a
    worse layout: row counts (M2) and Section 4's short-row card types (Rule 5.2, M1)."""
    src = st[slot, S_ROW]
    if dst == src or dst < 0 or dst > 2:
        return False
    sp = speed_nb(cs, st, slot)
    dist = dst - src if dst > src else src - dst
    if sp == 0 or dist > (1 if sp == 1 else 2):
        return False
    if not move_keeps_layout_nb(st, slot // MAXC, src, dst):
        return False
    return row_types_keep_nb(cs, st, g, slot, dst, np.int64(-1), np.int64(-1))


@kernel
def action_legal_nb(rt, cs, st, g, slot, act, p1, p2, effect_mode):
    """Whether one activation (``act`` with its arguments) is legal now (Rules 5.1-5.5)."""
    if not can_activate_nb(rt, cs, st, slot, effect_mode):
        return False
    side = slot // MAXC
    restrict = g[G_RESTRICT]
    if only_reorganise_nb(cs, st, slot) and act != ACT_REORG:
        return False
    if restrict >= 0 and act != ACT_ATTACK and act != ACT_UNCOVER:
        return False
    if act == ACT_ATTACK:
        if p1 < 0 or p1 >= 2 * MAXC or p1 // MAXC == side:
            return False
        if not attack_possible_nb(rt, cs, st, g, slot, p1):
            return False
        if restrict >= 0:
            return weapon_usable_nb(cs, slot, p1, restrict)
        return True
    if act == ACT_UNCOVER:
        if st[slot, S_UP] == 1:
            return False
        return restrict < 0 or printed_value_nb(cs, slot, restrict) > 0
    if act == ACT_COVER:
        return st[slot, S_UP] == 1
    if act == ACT_MOVE:
        return move_legal_nb(cs, st, g, slot, p1)
    if act == ACT_EXCHANGE:
        return p1 >= 0 and p1 < 2 * MAXC and exchange_legal_nb(cs, st, g, slot, p1)
    if act == ACT_DISCOVER:
        return can_discover_nb(cs, st, slot) and discover_legal_nb(cs, st, slot, p1, p2)
    if act == ACT_REORG:
        return st[slot, S_STRESS] > 0 and st[slot, S_REORG] < rt[R_REORG_PER_CARD]
    return False


@kernel(inline="always")
def _push_cand_nb(cand, n, s, act, p1, p2):
    cand[4 * n] = s
    cand[4 * n + 1] = act
    cand[4 * n + 2] = p1
    cand[4 * n + 3] = p2
    return n + 1


@kernel
def legal_actions_nb(rt, cs, st, g, side, effect_mode, cand, maxc):
    """Every legal activation of ``side`` now, written to ``cand`` as (slot, act, p1, p2) rows of
    4 ints; returns how many (at most ``maxc``). Arguments tried: attack, every enemy slot; move,
    every row; exchange, every own slot; discover, every pair of rows (or one row); the others
    none."""
    n = np.int64(0)
    base = side * MAXC
    ebase = (1 - side) * MAXC
    none = np.int64(-1)
    for s in range(base, base + MAXC):
        if not can_activate_nb(rt, cs, st, s, effect_mode):
            continue
        for act in range(7):
            if n >= maxc:
                break
            if act == ACT_ATTACK or act == ACT_EXCHANGE:
                lo = ebase if act == ACT_ATTACK else base
                for p1 in range(lo, lo + MAXC):
                    if n < maxc and action_legal_nb(rt, cs, st, g, s, act, p1, none, effect_mode):
                        n = _push_cand_nb(cand, n, s, act, p1, none)
            elif act == ACT_MOVE or act == ACT_DISCOVER:
                for p1 in range(3):
                    for p2 in range(-1, 3 if act == ACT_DISCOVER else 0):
                        if p2 >= 0 and p2 < p1:
                            continue
                        if n < maxc and action_legal_nb(rt, cs, st, g, s, act, p1, p2, effect_mode):
                            n = _push_cand_nb(cand, n, s, act, p1, p2)
            elif action_legal_nb(rt, cs, st, g, s, act, none, none, effect_mode):
                n = _push_cand_nb(cand, n, s, act, none, none)
    return n


@kernel
def class_member_nb(cs, s, kind):
    t = cs[s, C_TYPE]
    if kind == K_DESTROYERS:
        return t == DESTROYER
    if kind == K_CRUISERS:
        return t == CAPITAL
    if kind == K_PLANES:
        return t == AIRCRAFT
    if kind == K_MERCHANT_SHIPS:
        return t == MERCHANT
    if kind == K_TORPEDOES:
        return printed_value_nb(cs, s, np.int64(W_TORPEDO)) > 0
    if kind == K_DEPTH_CHARGES:
        return printed_value_nb(cs, s, np.int64(W_ASW)) > 0
    if kind == K_AIR_DEFENCE:
        return t != AIRCRAFT and printed_value_nb(cs, s, np.int64(W_AA)) > 0
    return False


@kernel
def effect_restrict_nb(kind):
    """The weapon a mass activation is restricted to (-1: any action)."""
    if kind == K_TORPEDOES:
        return W_TORPEDO
    if kind == K_DEPTH_CHARGES:
        return W_ASW
    if kind == K_AIR_DEFENCE:
        return W_AA
    return -1


@kernel
def is_mass_activation_nb(kind):
    return (kind == K_DESTROYERS or kind == K_CRUISERS or kind == K_PLANES or kind == K_TORPEDOES
            or kind == K_DEPTH_CHARGES or kind == K_AIR_DEFENCE or kind == K_MERCHANT_SHIPS)


@kernel
def effect_allowed_nb(ak, g, kind, side):
    """Whether ``side`` may invoke the effect of ``kind`` in its own sub-turn (Rules 3.2, 3.2.1):
    general cards only (support and interruption effects act in combat or in the opponent's
    sub-turn), and one-side cards only by their side. Retreat only before drawing stopped."""
    if ak[kind, AK_TYPE] != AT_GENERAL:
        return False
    if ak[kind, AK_SIDE] >= 0 and ak[kind, AK_SIDE] != side:
        return False
    if kind == K_RETREAT and g[G_FINAL] == 1:
        return False
    return True


@kernel
def can_return_fire_nb(rt, cs, st, g, t, a, d):
    """Surprise (provisional): the target can fire back at the attacker at distance ``d``. A ship
    with more stress markers than its hull cannot: "the ONLY action it may take is to reorganise"
    (Rule 5.3.2, ruling M8: ships and submarines, not aircraft)."""
    if only_reorganise_nb(cs, st, t):
        return False
    if not attack_possible_nb(rt, cs, st, g, t, a):
        return False
    for w in range(7):
        if weapon_usable_nb(cs, t, a, w) and weapon_reaches_nb(w, d):
            return True
    return False
