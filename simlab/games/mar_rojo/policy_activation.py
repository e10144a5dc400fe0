"""Which fleet card a greedy or random policy activates and what it does, compiled (Rules 5.1-5.5).

``choose_activation_nb`` picks each activation of an action card played for actions or for its
effect: ``random-legal`` uniformly among the legal activations and stopping; ``greedy`` the
card whose best action (``card_best_nb``) is worth most, if worth at least ``min_act``.
A card's best action weighs attacking (5.3) or uncovering to attack (5.1), reorganising (5.5),
moving: closing the distance, pulling badly damaged cards back, merchants to or from the short
row (5.2; 8.2, 8.3 score merchants at short), exchanging two cards' rows (5.2, by the knob
``exchange``; 0 never), covering (5.1), and discovering (5.4).

Knobs (``pp[side, PP_*]``, ``policies.toml`` family ``greedy``): every weight of these values.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import roll_nb
from .enums import (
    ACT_ATTACK,
    ACT_COVER,
    ACT_DISCOVER,
    ACT_EXCHANGE,
    ACT_MOVE,
    ACT_REORG,
    ACT_UNCOVER,
    AIRCRAFT,
    FAM_RANDOM,
    LONG,
    MEDIUM,
    MERCHANT,
    SHORT,
    ST_IN_PLAY,
    SUBMARINE,
    W_TORPEDO,
)
from .fleet import (
    badly_damaged_nb,
    printed_value_nb,
)
from .layout import (
    C_COST,
    C_TYPE,
    FW_CB,
    FW_COV,
    FW_DANGER,
    FW_NT,
    G_CB_OK,
    G_FINAL,
    G_MPTS0,
    G_POL0,
    G_RESTRICT,
    MAX_CAND,
    MAXC,
    PP_ADVANCE,
    PP_ADVANCE_SHORT_RANGE,
    PP_ADVANCE_TORPEDO,
    PP_BACK_WEIGHT,
    PP_CLOSE_SHARE,
    PP_COVER,
    PP_COVER_WEIGHT,
    PP_COVERED_SHARE,
    PP_DAMAGED_COVER,
    PP_DISCOVER_BLIND,
    PP_DISCOVER_ORDER,
    PP_DISCOVER_SEEN,
    PP_EXCHANGE,
    PP_EXPOSE_WEIGHT,
    PP_FORWARD,
    PP_MERCH,
    PP_MERCHANT_BACK,
    PP_MERCHANT_COVER,
    PP_MERCHANT_FORWARD,
    PP_MIN_ACT,
    PP_REORG_AT,
    PP_REORG_BASE,
    PP_REORG_BLOCKED,
    PP_REORG_STEP,
    PP_RETREAT,
    PP_RETREAT_MOVE,
    PP_TORP,
    PP_UNCOVER,
    PP_UNCOVER_BLIND,
    PP_UNCOVER_SEEN,
    R_REORG_PER_CARD,
    S_REORG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
    WK_CAND,
)
from .legality import (
    can_activate_nb,
    can_discover_nb,
    discover_legal_nb,
    exchange_legal_nb,
    legal_actions_nb,
    move_legal_nb,
    only_reorganise_nb,
    order_row_nb,
)
from .policy_value import (
    fast_best_target_nb,
    prep_eval_nb,
)

__all__ = ["merchants_forward_nb", "discovery_rows_nb", "card_best_nb", "choose_activation_nb"]


@kernel
def _any_enemy_uncovered_nb(st, side):
    ebase = (1 - side) * MAXC
    for t in range(ebase, ebase + MAXC):
        if st[t, S_STATUS] == ST_IN_PLAY and st[t, S_UP] == 1:
            return True
    return False


@kernel
def merchants_forward_nb(g, pp, side):
    """Whether the policy moves its merchants towards the short row now (8.2, 8.3 score them there)."""
    if g[G_MPTS0 + side] == 0:
        return False
    m = pp[side, PP_MERCH]
    return m >= 2 or (m >= 1 and g[G_FINAL] == 1)


@kernel
def discovery_rows_nb(cs_, cm, cl, order):
    """The rows of the cards a greedy discovery (5.4) turns, given the covered enemy cards in the
    short, medium and long rows: ``(r1, r2, k)``, ``k`` cards (0-2; ``r2 = -1`` for one). Rows
    are looked at in the ``discover_order`` knob's order (``legality.order_row_nb``); two cards
    from the first row holding two or more, else one there and one from the next row holding
    any; the long row gives one card and is never paired (5.4: "one enemy card at long
    distance"; a seaplane, which could, is played the same way)."""
    r1 = np.int64(-1)
    r2 = np.int64(-1)
    k = np.int64(0)
    for i in range(3):
        r = order_row_nb(order, i)
        c = cs_ if r == SHORT else (cm if r == MEDIUM else cl)
        if c <= 0:
            continue
        if k == 0:
            r1 = r
            k = 1
            if r == LONG:
                break
            if c >= 2:
                r2 = r
                k = 2
                break
        elif r != LONG:
            r2 = r
            k = 2
            break
    return r1, r2, k


@kernel
def card_best_nb(rt, cs, st, g, pp, fw, side, s, effect_mode):
    """The greedy policy's best action for card ``s`` now: ``(value, act, p1, p2)``; value 0 and
    act -1 when it has nothing worth doing. ``fw`` must hold ``prep_eval_nb(side)``."""
    if not can_activate_nb(rt, cs, st, s, effect_mode):
        return 0.0, -1, -1, -1
    restrict = g[G_RESTRICT]
    t_s = cs[s, C_TYPE]
    stress = st[s, S_STRESS]
    can_reorg = stress > 0 and st[s, S_REORG] < rt[R_REORG_PER_CARD]
    if only_reorganise_nb(cs, st, s):
        if can_reorg and restrict < 0:
            return pp[side, PP_REORG_BLOCKED], ACT_REORG, -1, -1
        return 0.0, -1, -1, -1
    bv = 0.0
    ba = np.int64(-1)
    b1 = np.int64(-1)
    b2 = np.int64(-1)
    up = st[s, S_UP] == 1
    # the victory condition's stakes (policy_stakes): this card's danger in each row if face up
    di = FW_DANGER + 3 * (s - side * MAXC)
    csh = pp[side, PP_COVERED_SHARE]
    upf = 1.0 if up else csh
    here = fw[di + st[s, S_ROW]]
    # attack, or uncover to attack
    if up:
        v, t = fast_best_target_nb(rt, cs, st, g, pp, fw, side, s, st[s, S_ROW], restrict)
        if t >= 0 and v > bv:
            bv = v
            ba = ACT_ATTACK
            b1 = t
    elif t_s != MERCHANT and (restrict < 0 or printed_value_nb(cs, s, restrict) > 0):
        v, t = fast_best_target_nb(rt, cs, st, g, pp, fw, side, s, st[s, S_ROW], restrict)
        v = v * pp[side, PP_UNCOVER]
        if t < 0:
            v = (pp[side, PP_UNCOVER_SEEN] * pp[side, PP_FORWARD] if fw[FW_NT] > 0
                 else pp[side, PP_UNCOVER_BLIND] * pp[side, PP_FORWARD])
        v -= pp[side, PP_EXPOSE_WEIGHT] * (1.0 - csh) * here
        if v > bv:
            bv = v
            ba = ACT_UNCOVER
    if restrict >= 0:
        return bv, ba, b1, b2
    row = st[s, S_ROW]
    bd = badly_damaged_nb(cs, st, s)
    # staying covered: the danger a face-up card sheds by covering
    if up:
        v = pp[side, PP_COVER_WEIGHT] * (1.0 - csh) * here
        if v > bv:
            bv = v
            ba = ACT_COVER
    bw = pp[side, PP_BACK_WEIGHT]
    # reorganise
    if can_reorg and stress >= pp[side, PP_REORG_AT]:
        v = pp[side, PP_REORG_BASE] + pp[side, PP_REORG_STEP] * (stress - 1)
        if v > bv:
            bv = v
            ba = ACT_REORG
    # moves
    if t_s == MERCHANT:
        fwd = merchants_forward_nb(g, pp, side)
        for r in range(3):
            if r == row or not move_legal_nb(cs, st, g, s, r):
                continue
            if fwd:
                v = pp[side, PP_MERCHANT_FORWARD] * (row - r)
            else:
                v = pp[side, PP_MERCHANT_BACK] * (r - row) * (1.0 + pp[side, PP_RETREAT])
            v += bw * upf * (here - fw[di + r])
            if v > bv:
                bv = v
                ba = ACT_MOVE
                b1 = r
        if up and pp[side, PP_COVER] > 0 and not fwd:
            v = pp[side, PP_MERCHANT_COVER]
            if v > bv:
                bv = v
                ba = ACT_COVER
        return bv, ba, b1, b2
    if bd and pp[side, PP_RETREAT] > 0:
        for r in range(row + 1, 3):
            if move_legal_nb(cs, st, g, s, r):
                v = pp[side, PP_RETREAT_MOVE] * pp[side, PP_RETREAT] * (1.0 + cs[s, C_COST]) * (r - row) / 2.0
                v += bw * upf * (here - fw[di + r])
                if v > bv:
                    bv = v
                    ba = ACT_MOVE
                    b1 = r
        if up and pp[side, PP_COVER] > 0:
            v = pp[side, PP_DAMAGED_COVER] * (1.0 + cs[s, C_COST])
            if v > bv:
                bv = v
                ba = ACT_COVER
    elif pp[side, PP_FORWARD] > 0 and ba != ACT_ATTACK:
        # close the distance: a card with no shot now moves where it would have one
        for r in range(3):
            if r == row or not move_legal_nb(cs, st, g, s, r):
                continue
            v, t = fast_best_target_nb(rt, cs, st, g, pp, fw, side, s, np.int64(r), np.int64(-1))
            v = pp[side, PP_CLOSE_SHARE] * v * pp[side, PP_FORWARD]
            if t < 0 and r < row:
                torp = printed_value_nb(cs, s, np.int64(W_TORPEDO)) > 0
                v = ((pp[side, PP_ADVANCE] + (pp[side, PP_ADVANCE_TORPEDO] if torp else 0.0) * pp[side, PP_TORP])
                     * pp[side, PP_FORWARD])
                if t_s == SUBMARINE or t_s == AIRCRAFT:
                    v += pp[side, PP_ADVANCE_SHORT_RANGE]
            v += bw * upf * (here - fw[di + r])
            if v > bv:
                bv = v
                ba = ACT_MOVE
                b1 = r
    # out of danger (towards the long row, usually), whatever the branches above weighed
    if bw > 0.0 and here > 0.0:
        for r in range(3):
            if r == row or not move_legal_nb(cs, st, g, s, r):
                continue
            v = bw * upf * (here - fw[di + r])
            if v > bv:
                bv = v
                ba = ACT_MOVE
                b1 = r
    # exchange (5.2): swap rows with another own card (one of the two with movement 3), valued by
    # what both gain in best shot and shed in danger in their new rows, times the knob (0: never)
    ex = pp[side, PP_EXCHANGE]
    if ex > 0.0:
        base = side * MAXC
        v0 = 0.0
        if up:
            v, t = fast_best_target_nb(rt, cs, st, g, pp, fw, side, s, row, np.int64(-1))
            v0 = v if t >= 0 else 0.0
        for o in range(base, base + MAXC):
            if not exchange_legal_nb(cs, st, g, s, o):
                continue
            ro = st[o, S_ROW]
            v = 0.0
            if up:
                vn, t = fast_best_target_nb(rt, cs, st, g, pp, fw, side, s, ro, np.int64(-1))
                v += (vn if t >= 0 else 0.0) - v0
            if st[o, S_UP] == 1:
                vo, t = fast_best_target_nb(rt, cs, st, g, pp, fw, side, o, ro, np.int64(-1))
                vn, tn = fast_best_target_nb(rt, cs, st, g, pp, fw, side, o, row, np.int64(-1))
                v += (vn if tn >= 0 else 0.0) - (vo if t >= 0 else 0.0)
            dio = FW_DANGER + 3 * (o - base)
            upo = 1.0 if st[o, S_UP] == 1 else csh
            v += bw * (upf * (here - fw[di + ro]) + upo * (fw[dio + ro] - fw[dio + row]))
            v *= ex
            if v > bv:
                bv = v
                ba = ACT_EXCHANGE
                b1 = o
    # discover
    if can_discover_nb(cs, st, s):
        cs_ = np.int64(fw[FW_COV])
        cm = np.int64(fw[FW_COV + 1])
        cl = np.int64(fw[FW_COV + 2])
        base = pp[side, PP_DISCOVER_SEEN] if fw[FW_NT] > 0 else pp[side, PP_DISCOVER_BLIND]
        r1, r2, k = discovery_rows_nb(cs_, cm, cl, np.int64(pp[side, PP_DISCOVER_ORDER]))
        if k > 0:
            v = base * k
            if v > bv and discover_legal_nb(cs, st, s, r1, r2):
                bv = v
                ba = ACT_DISCOVER
                b1 = r1
                b2 = r2
    return bv, ba, b1, b2


@kernel
def choose_activation_nb(rt, cs, st, g, pp, side, effect_mode, rng, wk, fw):
    """Pick the next activation of ``side``: ``(slot, act, p1, p2)``, or slot -1 to stop.

    random-legal: uniform among the legal activations and stopping. Greedy policies: the best
    card action (``card_best_nb``) if worth at least ``PP_MIN_ACT``."""
    pol = g[G_POL0 + side]
    if pol == FAM_RANDOM:
        n = legal_actions_nb(rt, cs, st, g, side, effect_mode, wk[WK_CAND:], np.int64(MAX_CAND))
        k = roll_nb(rng, n + 1) - 1
        if k == n:
            return -1, -1, -1, -1
        o = WK_CAND + 4 * k
        return wk[o], wk[o + 1], wk[o + 2], wk[o + 3]
    # the first activation after choose_play sees the state it evaluated: reuse its results
    reuse = g[G_CB_OK] == 1 and not effect_mode and g[G_RESTRICT] < 0
    g[G_CB_OK] = 0
    if not reuse:
        prep_eval_nb(rt, cs, st, g, pp, side, fw)
    best = pp[side, PP_MIN_ACT]
    bs = np.int64(-1)
    ba = np.int64(-1)
    b1 = np.int64(-1)
    b2 = np.int64(-1)
    base = side * MAXC
    for s in range(base, base + MAXC):
        if reuse:
            o = FW_CB + 4 * (s - base)
            v = fw[o]
            a = np.int64(fw[o + 1])
            p1 = np.int64(fw[o + 2])
            p2 = np.int64(fw[o + 3])
        else:
            v, a, p1, p2 = card_best_nb(rt, cs, st, g, pp, fw, side, s, effect_mode)
        if a >= 0 and v >= best:
            best = v
            bs = s
            ba = a
            b1 = p1
            b2 = p2
    return bs, ba, b1, b2
