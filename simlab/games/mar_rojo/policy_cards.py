"""What a policy does with its action cards, compiled (Rules 3.2, 5 steps 1-2, 5.5; Scout, Fog, Mines).

``choose_play_nb``: draw, or play a card from hand for its effect, for reorganisation or for
actions (Rule 5 steps 1-2): ``random-legal`` uniformly among drawing and every legal (card,
mode); ``greedy`` the best of the three modes of each card against a draw threshold, keeping
interruption and support cards for later. Also where a reorganisation takes stress off (5.5),
the rows a Scout discovers, the cards Fog covers and the ship a Mine attacks (provisional
effects, docs/rulings.md).

Knobs (``pp[side, PP_*]``, ``policies.toml`` family ``greedy``): the draw threshold, what a
held card is worth, the values of reorganisation and of each effect, the card a reorganisation
unstresses first (``reorg_pick``) and the order of the rows a Scout looks at (``discover_order``).
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import roll_nb
from .enums import (
    AIRCRAFT,
    AK_BLUE,
    AK_RED,
    AK_SIDE,
    AK_TYPE,
    AT_INTERRUPTION,
    AT_SUPPORT,
    FAM_RANDOM,
    K_CABO_PALOS,
    K_GENERAL_QUARTERS,
    K_OPTICS,
    K_PLANES,
    K_RETREAT,
    K_SCOUT,
    MODE_ACTIONS,
    MODE_EFFECT,
    MODE_REORG,
    SHORT,
    ST_IN_PLAY,
)
from .fleet import (
    badly_damaged_nb,
)
from .layout import (
    C_COST,
    C_HULL,
    C_TYPE,
    FW_CB,
    FW_NT,
    FW_TMP,
    FW_VALS,
    G_CB_OK,
    G_HAND0_N,
    G_POL0,
    MAXC,
    PP_CABO_HOLD_VALUE,
    PP_COVERED_SHARE,
    PP_DISCOVER_ORDER,
    PP_DRAW,
    PP_FOG_PICK,
    PP_HOLD,
    PP_HOLD_CABO,
    PP_HOLD_VALUE,
    PP_MINES_TARGET,
    PP_PLANES_WEIGHT,
    PP_REORG_MARKER,
    PP_REORG_OVER,
    PP_REORG_PICK,
    PP_REORG_UNBLOCK,
    PP_RETREAT_CARD,
    PP_RETREAT_CARD_VALUE,
    PP_RETREAT_DANGER,
    PP_SCOUT_BLIND,
    PP_SCOUT_SEEN,
    PP_SMALL_HAND,
    PP_SMALL_HAND_DRAW,
    PP_SUPPORT_HOLD_SHARE,
    R_REORG_PER_CARD,
    S_REORG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
    WK_CAND,
)
from .legality import (
    class_member_nb,
    covered_in_row_nb,
    effect_allowed_nb,
    effect_restrict_nb,
    is_mass_activation_nb,
    order_row_nb,
)
from .policy_activation import (
    card_best_nb,
)
from .policy_stakes import danger_total_nb
from .policy_value import (
    fast_best_target_nb,
    prep_eval_nb,
)
from .victory import winner_nb

__all__ = ["reorg_value_nb", "winning_now_nb", "effect_value_nb", "top_sum_nb", "choose_play_nb", "choose_reorg_slot_nb", "choose_scout_rows_nb", "choose_fog_card_nb", "choose_mines_target_nb"]


@kernel
def reorg_value_nb(rt, cs, st, pp, side, amount, per_card):
    """Value of removing up to ``amount`` stress markers, at most ``per_card`` from one card."""
    v = 0.0
    left = amount
    base = side * MAXC
    for s in range(base, base + MAXC):
        if left <= 0:
            break
        if st[s, S_STATUS] != ST_IN_PLAY:
            continue
        room = per_card - st[s, S_REORG]
        k = st[s, S_STRESS]
        if k > room:
            k = room
        if k > left:
            k = left
        if k > 0:
            # markers beyond the first cost dice; one above hull blocks the card
            over = st[s, S_STRESS] - 1
            v += pp[side, PP_REORG_MARKER] * k + pp[side, PP_REORG_OVER] * (over if over < k else k)
            if st[s, S_STRESS] > cs[s, C_HULL]:
                v += pp[side, PP_REORG_UNBLOCK]
            left -= k
    return v


@kernel
def winning_now_nb(cs, st, g, side):
    """Whether ``side`` would win if the game ended now (victory.winner_nb decides)."""
    return winner_nb(cs, st, g) == side


@kernel
def effect_value_nb(rt, cs, st, g, ak, pp, fw, side, kind, vals):
    """Value of invoking the effect of ``kind`` (``vals[i]``: each own card's best action value;
    ``fw`` prepared by ``prep_eval_nb``)."""
    if is_mass_activation_nb(kind):
        restrict = effect_restrict_nb(kind)
        v = 0.0
        base = side * MAXC
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] != ST_IN_PLAY or not class_member_nb(cs, s, kind):
                continue
            if restrict >= 0:
                if st[s, S_UP] == 1:
                    bv, bt = fast_best_target_nb(rt, cs, st, g, pp, fw, side, s, st[s, S_ROW], restrict)
                    v += bv
            else:
                v += vals[s - base] * (pp[side, PP_PLANES_WEIGHT] if kind == K_PLANES else 1.0)
        return v
    if kind == K_GENERAL_QUARTERS:
        return reorg_value_nb(rt, cs, st, pp, side, np.int64(1000), rt[R_REORG_PER_CARD])
    if kind == K_SCOUT:
        enemy = 1 - side
        c = covered_in_row_nb(st, enemy, np.int64(0)) + covered_in_row_nb(st, enemy, np.int64(1)) + covered_in_row_nb(st, enemy, np.int64(2))
        k = c if c < 2 else 2
        return (pp[side, PP_SCOUT_SEEN] if fw[FW_NT] > 0 else pp[side, PP_SCOUT_BLIND]) * k
    if kind == K_RETREAT:
        # Rule 6: Retreat ends the drawing at the next Retreat or The End; played when the game
        # is won if it ended now and (when) the danger to this side's cards is at least retreat_danger
        if pp[side, PP_RETREAT_CARD] > 0 and winning_now_nb(cs, st, g, side):
            if danger_total_nb(cs, st, fw, pp, side, pp[side, PP_COVERED_SHARE]) >= pp[side, PP_RETREAT_DANGER]:
                return pp[side, PP_RETREAT_CARD_VALUE]
        return -1.0
    return -1.0


@kernel
def top_sum_nb(vals, n, k, tmp):
    """Sum of the ``k`` largest of ``vals[:n]`` (``tmp`` is scratch of length >= n)."""
    for i in range(n):
        tmp[i] = vals[i]
    total = 0.0
    for _ in range(k if k < n else n):
        bi = np.int64(0)
        for i in range(1, n):
            if tmp[i] > tmp[bi]:
                bi = i
        if tmp[bi] <= 0.0:
            break
        total += tmp[bi]
        tmp[bi] = -1e18
    return total


@kernel
def _hand_held_nb(hands, g, akind, ak, side):
    n = np.int64(0)
    for i in range(g[G_HAND0_N + side]):
        if ak[akind[hands[side, i]], AK_TYPE] == AT_INTERRUPTION:
            n += 1
    return n


@kernel
def choose_play_nb(B, side, can_draw, rng, wk, fw):
    """Step 1-2 of a sub-turn (Rule 5): draw, or play a card from hand in one mode. ``B``: the
    :class:`~.bundles.Board` (rt, cs, st, g, piles, hands, akind, ak, pp).

    Returns:
        ``(hand_index, mode)``; hand_index -1 means draw.
    """
    rt, cs, st, g, piles, hands, akind, ak, pp = B
    hn = g[G_HAND0_N + side]
    pol = g[G_POL0 + side]
    if pol == FAM_RANDOM:
        # uniform over: draw (if allowed) and every legal (card, mode)
        n = np.int64(0)
        if can_draw:
            wk[WK_CAND] = -1
            wk[WK_CAND + 1] = 0
            n = np.int64(1)
        for i in range(hn):
            k = akind[hands[side, i]]
            for m in range(3):
                if m == MODE_EFFECT and not effect_allowed_nb(ak, g, k, side):
                    continue
                wk[WK_CAND + 2 * n] = i
                wk[WK_CAND + 2 * n + 1] = m
                n += 1
        j = roll_nb(rng, n) - 1
        return wk[WK_CAND + 2 * j], wk[WK_CAND + 2 * j + 1]
    # greedy: each card's best single action now
    prep_eval_nb(rt, cs, st, g, pp, side, fw)
    base = side * MAXC
    vals = fw[FW_VALS:FW_VALS + MAXC]
    for s in range(base, base + MAXC):
        v, a, p1, p2 = card_best_nb(rt, cs, st, g, pp, fw, side, s, np.bool_(False))
        vals[s - base] = v if a >= 0 else 0.0
        o = FW_CB + 4 * (s - base)
        fw[o] = v
        fw[o + 1] = a
        fw[o + 2] = p1
        fw[o + 3] = p2
    g[G_CB_OK] = 1
    held = _hand_held_nb(hands, g, akind, ak, side)
    best = -1e9
    bi = np.int64(-1)
    bm = MODE_ACTIONS
    for i in range(hn):
        k = akind[hands[side, i]]
        typ = ak[k, AK_TYPE]
        keep = 0.0
        if typ == AT_INTERRUPTION and held <= pp[side, PP_HOLD]:
            keep = pp[side, PP_HOLD_VALUE]
        elif typ == AT_SUPPORT and (k == K_OPTICS or (k == K_CABO_PALOS and ak[k, AK_SIDE] == side)):
            keep = pp[side, PP_SUPPORT_HOLD_SHARE] * pp[side, PP_HOLD_VALUE]
            if pp[side, PP_HOLD_CABO] > 0 and k == K_CABO_PALOS:
                keep = pp[side, PP_CABO_HOLD_VALUE]
        va = top_sum_nb(vals, np.int64(MAXC), ak[k, AK_RED], fw[FW_TMP:]) - keep
        if va > best:
            best = va
            bi = i
            bm = MODE_ACTIONS
        vr = reorg_value_nb(rt, cs, st, pp, side, ak[k, AK_BLUE], rt[R_REORG_PER_CARD]) - keep
        if vr > best:
            best = vr
            bi = i
            bm = MODE_REORG
        if effect_allowed_nb(ak, g, k, side):
            ve = effect_value_nb(rt, cs, st, g, ak, pp, fw, side, k, vals) - keep
            if ve > best:
                best = ve
                bi = i
                bm = MODE_EFFECT
    if can_draw:
        thr = pp[side, PP_DRAW]
        if hn <= pp[side, PP_SMALL_HAND]:
            thr *= pp[side, PP_SMALL_HAND_DRAW]
        if best < thr:
            return -1, 0
    return bi, bm


@kernel
def choose_reorg_slot_nb(rt, cs, st, g, pp, side, rng):
    """Where the next stress marker of a reorganisation comes off (5.5: "removing the number of
    stress markers equal to the BLUE factor" from "any fleet cards"; at most 2 per card and
    sub-turn): random-legal any card that may still lose one; greedy by ``reorg_pick``, 0 the
    most stressed card, 1 the dearest stressed card (ties: the most stressed); the solo AI takes
    no stress (12.1). -1: none."""
    pol = g[G_POL0 + side]
    bs = np.int64(-1)
    bk = np.int64(0)
    n = np.int64(0)
    dear = pol != FAM_RANDOM and pp[side, PP_REORG_PICK] > 0
    base = side * MAXC
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY or st[s, S_REORG] >= rt[R_REORG_PER_CARD] or st[s, S_STRESS] <= 0:
            continue
        if pol == FAM_RANDOM:
            n += 1
            if roll_nb(rng, n) == 1:
                bs = s
            continue
        k = st[s, S_STRESS]
        if dear:
            k += cs[s, C_COST] * 100
        if k > bk:
            bk = k
            bs = s
    return bs


@kernel
def choose_scout_rows_nb(st, g, pp, side, rng):
    """Rows of the (up to two) cards the Scout effect discovers (-1: none): random-legal any
    rows; greedy in the ``discover_order`` knob's order, two cards from the first row holding
    two or more, else one there and one from the next row holding any."""
    enemy = 1 - side
    pol = g[G_POL0 + side]
    if pol == FAM_RANDOM:
        r1 = roll_nb(rng, np.int64(3)) - 1
        r2 = roll_nb(rng, np.int64(4)) - 2
        return r1, r2
    order = np.int64(pp[side, PP_DISCOVER_ORDER])
    r1 = np.int64(-1)
    r2 = np.int64(-1)
    for i in range(3):
        r = order_row_nb(order, i)
        c = covered_in_row_nb(st, enemy, r)
        if c >= 1 and r1 < 0:
            r1 = r
            if c >= 2:
                r2 = r
                break
        elif c >= 1 and r2 < 0:
            r2 = r
            break
    return r1, r2


@kernel
def choose_fog_card_nb(cs, st, g, pp, side, rng):
    """Fog (provisional; Rule 5 step 4 "cover up to two own cards"): the next own uncovered card
    to cover (slot, -1: stop). Random-legal any or stop. Greedy by ``fog_pick``: 0 badly damaged
    cards first, then the dearest (as before issue 28's gap closing); 1 the dearest first,
    damaged or not; 2 badly damaged cards only, the dearest first (then stop)."""
    pol = g[G_POL0 + side]
    base = side * MAXC
    if pol == FAM_RANDOM:
        n = np.int64(1)
        pick = np.int64(-1)
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 1:
                n += 1
                if roll_nb(rng, n) == 1:
                    pick = s
        return pick
    how = np.int64(pp[side, PP_FOG_PICK])
    best = np.int64(-1)
    bv = np.int64(-1)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 1:
            bad = badly_damaged_nb(cs, st, s)
            if how >= 2 and not bad:
                continue
            v = cs[s, C_COST] + (100 if bad and how != 1 else 0)
            if v > bv:
                bv = v
                best = s
    return best


@kernel
def choose_mines_target_nb(cs, st, g, pp, side_passive, rng):
    """Mines (provisional): the active player's ship in his short row that the mine attacks
    (slot, -1: none). Random-legal any of them. Greedy by ``mines_target``: 0 the dearest
    uncovered one, else the first covered one (as before issue 28's gap closing); 1 the cheapest
    uncovered one, else the first covered one; 2 a covered one at random (the passive player
    does not know them), else the dearest uncovered one."""
    active = 1 - side_passive
    base = active * MAXC
    pol = g[G_POL0 + side_passive]
    how = np.int64(pp[side_passive, PP_MINES_TARGET]) if pol != FAM_RANDOM else np.int64(0)
    best = np.int64(-1)
    bv = np.int64(-1)
    n = np.int64(0)
    nc = np.int64(0)
    pc = np.int64(-1)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY or st[s, S_ROW] != SHORT or cs[s, C_TYPE] == AIRCRAFT:
            continue
        n += 1
        if pol == FAM_RANDOM:
            if roll_nb(rng, n) == 1:
                best = s
            continue
        if how == 2 and st[s, S_UP] == 0:
            nc += 1
            if roll_nb(rng, nc) == 1:
                pc = s
            continue
        if st[s, S_UP] == 1:
            v = (cs[s, C_COST] + 10) if how != 1 else (1000 - cs[s, C_COST])
        else:
            v = 0
        if v > bv:
            bv = v
            best = s
    if pc >= 0:
        return pc
    return best
