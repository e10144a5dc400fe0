"""The solo game's artificial intelligence as a policy (``solo-ai``), compiled (Rule 12).

The AI holds no hand and draws no opening cards (12.2). In each of its sub-turns (12.3):

1. Exception first (ruling M41): if in the player's previous sub-turn the player turned up one
   of the AI's capital ships, the AI discovers one of the player's cards in his long row, however
   many of its own cards are face up. Otherwise, if fewer than half of its cards in play are
   uncovered, it turns one up: a die gives the row (1-3 short, 4-5 medium, 6 long; an empty row
   passes the discovery on: short to medium, medium to long, long to short).
2. Unless the drawing has stopped (Rule 6), it draws the top card and resolves it at once:
   Destroyers, Cruisers and Planes as their effect (every card of the class acts once, twice for
   aircraft), every other card as actions (its red value) (12.3; the cards 12.3 does not list
   whose effects only act inside a combat, Optics, Smoke, Surprise, Mines, Flares, are played as
   actions too).
3. Each action follows the 12.4.1 priorities and the 12.5 chart (``ai_action_nb``); with face-up
   player cards out of range, its fastest card moves to a row from which it can fight one of
   them at any distance the player's faster card may choose (12.4.1, 5.3.1 step 2), else the fastest non-merchant card one row closer (the 12.5 chart). Its moves
   and exchanges keep the layout rules of 5.2 and Section 4 like a player's.

Its cards never gain stress (12.1), never play support or interruption cards, and a submarine
covers itself after a combat (12.4.2). The 12.2 manoeuvre roll (1-3 aggressive, 4-6 passive)
adds 1 to the discovery die of an aggressive AI; an aggressive AI takes the first sub-turn.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import roll_nb
from .actions import apply_specials_nb, declare_pending_nb, discover_nb, perform_action_nb, resolve_pending_nb
from .bundles import Board
from .combat import uncover_nb
from .deck import discard_table_nb, draw_nb
from .enums import (
    ACT_ATTACK,
    ACT_COVER,
    ACT_DISCOVER,
    ACT_EXCHANGE,
    ACT_MOVE,
    AI_AGGRESSIVE,
    AIRCRAFT,
    AK_RED,
    AK_SOLO_EFFECT,
    CAPITAL,
    DESTROYER,
    K_CRUISERS,
    K_DESTROYERS,
    K_MERCHANT_SHIPS,
    K_PLANES,
    LONG,
    MEDIUM,
    MERCHANT,
    MODE_ACTIONS,
    SHORT,
    SPEED,
    ST_IN_PLAY,
    SUBMARINE,
    W_ASW,
)
from .fleet import (
    attack_possible_nb,
    distance_entry_nb,
    is_escort_nb,
    speed_chooser_nb,
    speed_nb,
    weapon_reaches_nb,
    weapon_usable_nb,
)
from .layout import (
    C_COST,
    C_SEAPLANE,
    C_TYPE,
    G_AI0,
    G_AI_CAPFOUND0,
    G_FINAL,
    G_RESTRICT,
    MAXC,
    R_AIR_ACTS,
    S_ACTS,
    S_DMG,
    S_MASK,
    S_ROW,
    S_STATUS,
    S_UP,
)
from .legality import covered_in_row_nb, exchange_legal_nb, move_legal_nb

__all__ = ["ai_action_nb", "ai_subturn_nb"]


@kernel
def _ai_can_act_nb(rt, cs, st, s):
    if st[s, S_STATUS] != ST_IN_PLAY:
        return False
    lim = rt[R_AIR_ACTS] if cs[s, C_TYPE] == AIRCRAFT else 1
    return st[s, S_ACTS] < lim


@kernel
def _priority_nb(cs, st, s, combat):
    """12.4.2: highest point value first, then the card closest to the player's cards; in combat
    a card with three or more hits comes last. Larger is better."""
    p = cs[s, C_COST] * 10 + (2 - st[s, S_ROW])
    if combat and st[s, S_DMG] >= 3:
        p -= 100000
    return p


@kernel
def _has_target_nb(rt, cs, st, g, s):
    """Whether AI card ``s`` has a player card in combat range (5.3.1 steps 1-2)."""
    ebase = (1 - s // MAXC) * MAXC
    for t in range(ebase, ebase + MAXC):
        if attack_possible_nb(rt, cs, st, g, s, t):
            return True
    return False


@kernel
def _allowed_nb(cs, st, s, only):
    return only < 0 or s == only


@kernel
def _ai_discovery_row_nb(st, enemy, roll):
    """A die roll to a row (1-3 short, 4-5 medium, 6+ long), passing on to the next row when the
    rolled row has no covered card (short -> medium -> long -> short). -1 if none anywhere."""
    r = SHORT if roll <= 3 else (MEDIUM if roll <= 5 else LONG)
    for _ in range(3):
        if covered_in_row_nb(st, enemy, r) > 0:
            return r
        r = (r + 1) % 3
    return -1


@kernel
def _target_nb(rt, cs, st, g, a, rng):
    """12.4.3 / 12.5: the player's card the AI attacks with ``a`` (-1: none in range). Damaged
    cards first; if capital or merchant ships are among them, a die: 1-3 one of those, 4-6
    another card (if any); then the shortest combat distance, then the highest point value."""
    side = a // MAXC
    ebase = (1 - side) * MAXC
    any_damaged = False
    n_cm = np.int64(0)
    n_other = np.int64(0)
    for t in range(ebase, ebase + MAXC):
        if attack_possible_nb(rt, cs, st, g, a, t) and st[t, S_DMG] > 0:
            any_damaged = True
    for t in range(ebase, ebase + MAXC):
        if not attack_possible_nb(rt, cs, st, g, a, t):
            continue
        if any_damaged and st[t, S_DMG] == 0:
            continue
        tt = cs[t, C_TYPE]
        if tt == CAPITAL or tt == MERCHANT:
            n_cm += 1
        else:
            n_other += 1
    if n_cm + n_other == 0:
        return -1
    want_cm = np.int64(-1)  # -1: any
    if n_cm > 0 and n_other > 0:
        want_cm = 1 if roll_nb(rng, np.int64(6)) <= 3 else 0
    best = np.int64(-1)
    bk = -1 << 40
    for t in range(ebase, ebase + MAXC):
        if not attack_possible_nb(rt, cs, st, g, a, t):
            continue
        if any_damaged and st[t, S_DMG] == 0:
            continue
        tt = cs[t, C_TYPE]
        is_cm = 1 if (tt == CAPITAL or tt == MERCHANT) else 0
        if want_cm >= 0 and is_cm != want_cm:
            continue
        e = distance_entry_nb(rt, cs, st, a, t)
        if e == SPEED:
            e = st[a, S_ROW] if st[a, S_ROW] < st[t, S_ROW] else st[t, S_ROW]
        k = -e * 1000 + cs[t, C_COST]
        if k > bk:
            bk = k
            best = t
    return best


@kernel
def _counting_uncovered_nb(rt, cs, st, g, side):
    """Uncovered player cards the AI sees (12.4.3: a submarine does not count unless an AI card
    with an AS factor has it in range)."""
    n = np.int64(0)
    ebase = (1 - side) * MAXC
    base = side * MAXC
    for t in range(ebase, ebase + MAXC):
        if st[t, S_STATUS] != ST_IN_PLAY or st[t, S_UP] == 0:
            continue
        if cs[t, C_TYPE] == SUBMARINE:
            ok = False
            for s in range(base, base + MAXC):
                if weapon_usable_nb(cs, s, t, np.int64(W_ASW)) and attack_possible_nb(rt, cs, st, g, s, t):
                    ok = True
                    break
            if not ok:
                continue
        n += 1
    return n


@kernel
def _retreat_option_nb(cs, st, g, s):
    """How a damaged AI card can go to a farther distance: ``(act, arg)`` = swap with a farther
    AI card when one of the two has movement 3, else a one-row move back; (-1, -1) if neither."""
    side = s // MAXC
    row = st[s, S_ROW]
    if row == LONG:
        return -1, -1
    base = side * MAXC
    best = np.int64(-1)
    bp = -1 << 40
    for o in range(base, base + MAXC):
        if o == s or st[o, S_STATUS] != ST_IN_PLAY or st[o, S_ROW] <= row:
            continue
        if exchange_legal_nb(cs, st, g, s, o):
            p = -cs[o, C_COST] * 10 - st[o, S_ROW]
            if p > bp:
                bp = p
                best = o
    if best >= 0:
        return ACT_EXCHANGE, best
    if move_legal_nb(cs, st, g, s, row + 1):
        return ACT_MOVE, row + 1
    return -1, -1


@kernel
def _can_fight_nb(rt, cs, st, g, s):
    """Whether AI card ``s`` can fight a face-up player card whatever distance the player may
    choose (5.3.1 step 2): in combat range (``fleet.attack_possible_nb``), and where the table
    gives Speed and the player's card is the faster, so that "the player that controls the fleet
    card that has the highest speed factor chooses the combat distance", a weapon that can hit it
    from both rows (the player may pick either)."""
    ebase = (1 - s // MAXC) * MAXC
    for t in range(ebase, ebase + MAXC):
        if not attack_possible_nb(rt, cs, st, g, s, t):
            continue
        if distance_entry_nb(rt, cs, st, s, t) != SPEED or speed_chooser_nb(cs, st, s, t) == 0:
            return True
        for w in range(7):
            if (weapon_usable_nb(cs, s, t, w) and weapon_reaches_nb(w, st[s, S_ROW])
                    and weapon_reaches_nb(w, st[t, S_ROW])):
                return True
    return False


@kernel
def _fights_from_nb(rt, cs, st, g, s, row):
    """Whether AI card ``s`` standing face up in ``row`` could fight a face-up player card
    (``_can_fight_nb``: in combat range, at any distance the player's faster card may choose;
    12.4.1 "within fighting distance", 5.3.1 steps 1-2)."""
    r0 = st[s, S_ROW]
    u0 = st[s, S_UP]
    st[s, S_ROW] = row
    st[s, S_UP] = 1
    ok = _can_fight_nb(rt, cs, st, g, s)
    st[s, S_ROW] = r0
    st[s, S_UP] = u0
    return ok


@kernel
def _fighting_move_nb(rt, cs, st, g, side, only):
    """12.4.1: the fastest AI card (non-merchant, able to act and move, not already within range)
    that one legal move brings within fighting distance of a face-up player card, and the row
    it moves to: the smallest move that does (on equal moves the shorter row); ties between
    cards by movement factor, then point value (12.4.4). ``(-1, -1)`` if no card can."""
    base = side * MAXC
    bm = np.int64(-1)
    bdst = np.int64(-1)
    bp = -1 << 40
    for s in range(base, base + MAXC):
        if cs[s, C_TYPE] == MERCHANT or not _allowed_nb(cs, st, s, only) or not _ai_can_act_nb(rt, cs, st, s):
            continue
        row = st[s, S_ROW]
        if _fights_from_nb(rt, cs, st, g, s, row):
            continue
        d = np.int64(-1)
        dk = 1 << 20
        for r in range(3):
            if r == row or not move_legal_nb(cs, st, g, s, r):
                continue
            if not _fights_from_nb(rt, cs, st, g, s, r):
                continue
            k = (r - row if r > row else row - r) * 10 + r
            if k < dk:
                dk = k
                d = r
        if d < 0:
            continue
        p = speed_nb(cs, st, s) * 1000 + cs[s, C_COST]
        if p > bp:
            bp = p
            bm = s
            bdst = d
    return bm, bdst


@kernel
def ai_action_nb(B, side, only, merchants, rng, scr):
    """One AI action by the 12.4.1 priorities and the 12.5 chart. ``only`` >= 0 limits it to
    that card (an effect activating one card after another); ``merchants`` lets the AI's merchant
    ships act (the Merchant Ships card, 12.4). ``B``: the :class:`~.bundles.Board`. Returns True
    if an action was performed."""
    rt, cs, st, g, piles, hands, akind, ak, pp = B
    base = side * MAXC
    # 12.4: merchants swap with a card at long distance, or cover if already there
    if merchants:
        for s in range(base, base + MAXC):
            if cs[s, C_TYPE] != MERCHANT or not _allowed_nb(cs, st, s, only) or not _ai_can_act_nb(rt, cs, st, s):
                continue
            if st[s, S_ROW] != LONG:
                o = np.int64(-1)
                for x in range(base, base + MAXC):
                    if x != s and st[x, S_STATUS] == ST_IN_PLAY and st[x, S_ROW] == LONG and cs[x, C_TYPE] != MERCHANT:
                        o = x
                        break
                if o >= 0:
                    perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), s, np.int64(ACT_EXCHANGE), o, np.int64(-1), np.bool_(False), rng, scr)
                    return True
            elif st[s, S_UP] == 1:
                perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), s, np.int64(ACT_COVER), np.int64(-1), np.int64(-1), np.bool_(False), rng, scr)
                return True
    # Any AI card with a player card in combat range?
    in_range = False
    for s in range(base, base + MAXC):
        if cs[s, C_TYPE] == MERCHANT or not _allowed_nb(cs, st, s, only) or not _ai_can_act_nb(rt, cs, st, s):
            continue
        if st[s, S_UP] == 1 and _has_target_nb(rt, cs, st, g, s):
            in_range = True
            break
    if in_range:
        # damaged cards try to pull back: 1-3 swap with a farther card, 4-6 fight on
        bs = np.int64(-1)
        bp = -1 << 40
        for s in range(base, base + MAXC):
            if cs[s, C_TYPE] == MERCHANT or st[s, S_DMG] == 0 or not _allowed_nb(cs, st, s, only):
                continue
            if not _ai_can_act_nb(rt, cs, st, s):
                continue
            act, arg = _retreat_option_nb(cs, st, g, s)
            if act >= 0:
                p = _priority_nb(cs, st, s, np.bool_(False))
                if p > bp:
                    bp = p
                    bs = s
        if bs >= 0 and roll_nb(rng, np.int64(6)) <= 3:
            act, arg = _retreat_option_nb(cs, st, g, bs)
            perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), bs, act, arg, np.int64(-1), np.bool_(False), rng, scr)
            return True
        # combat: the attacker by 12.4.2, the target by 12.4.3
        ba = np.int64(-1)
        bp = -1 << 40
        for s in range(base, base + MAXC):
            if cs[s, C_TYPE] == MERCHANT or st[s, S_UP] == 0 or not _allowed_nb(cs, st, s, only):
                continue
            if not _ai_can_act_nb(rt, cs, st, s) or not _has_target_nb(rt, cs, st, g, s):
                continue
            p = _priority_nb(cs, st, s, np.bool_(True))
            if p > bp:
                bp = p
                ba = s
        if ba < 0:
            return False
        t = _target_nb(rt, cs, st, g, ba, rng)
        if t < 0:
            return False
        perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), ba, np.int64(ACT_ATTACK), t, np.int64(-1), np.bool_(False), rng, scr)
        if cs[ba, C_TYPE] == SUBMARINE and st[ba, S_STATUS] == ST_IN_PLAY:
            st[ba, S_UP] = 0
        return True
    if _counting_uncovered_nb(rt, cs, st, g, side) == 0:
        # discover: an escort or aircraft at short or medium distance, highest point value first
        bd = np.int64(-1)
        bp = -1 << 40
        for s in range(base, base + MAXC):
            t = cs[s, C_TYPE]
            if not (is_escort_nb(t) or t == AIRCRAFT) or st[s, S_ROW] == LONG:
                continue
            if not _allowed_nb(cs, st, s, only) or not _ai_can_act_nb(rt, cs, st, s):
                continue
            p = _priority_nb(cs, st, s, np.bool_(False))
            if p > bp:
                bp = p
                bd = s
        if bd < 0:
            return False
        roll = roll_nb(rng, np.int64(6)) + (1 if g[G_AI0 + side] == AI_AGGRESSIVE else 0)
        r = _ai_discovery_row_nb(st, 1 - side, roll)
        if r < 0:
            return False
        r2 = np.int64(-1)
        if r != LONG or cs[bd, C_SEAPLANE] == 1:
            r2 = r if covered_in_row_nb(st, 1 - side, r) >= 2 else -1
        perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), bd, np.int64(ACT_DISCOVER), r, r2, np.bool_(False), rng, scr)
        return True
    # 12.4.1: "the AI moves its fastest card to within fighting distance of the nearest player's
    # card"; if no card can get there in one move, the 12.5 chart's "the fastest non-merchant ship
    # moves to a shorter distance"
    bm, dst = _fighting_move_nb(rt, cs, st, g, side, only)
    if bm < 0:
        bp = -1 << 40
        for s in range(base, base + MAXC):
            if cs[s, C_TYPE] == MERCHANT or not _allowed_nb(cs, st, s, only) or not _ai_can_act_nb(rt, cs, st, s):
                continue
            row = st[s, S_ROW]
            if row == SHORT or not move_legal_nb(cs, st, g, s, row - 1):
                continue
            p = speed_nb(cs, st, s) * 1000 + cs[s, C_COST]
            if p > bp:
                bp = p
                bm = s
                dst = row - 1
    if bm < 0:
        return False
    perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), bm, np.int64(ACT_MOVE), dst, np.int64(-1), np.bool_(False), rng, scr)
    return True


@kernel
def ai_discovery_step_nb(rt, cs, st, g, side, rng):
    """12.3: the AI's discovery step at the start of its sub-turn."""
    base = side * MAXC
    n = np.int64(0)
    up = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY:
            n += 1
            up += st[s, S_UP]
    capfound = g[G_AI_CAPFOUND0 + side] == 1
    g[G_AI_CAPFOUND0 + side] = 0
    # the exception replaces the step whatever the count (ruling M41): the player's discovery of a
    # capital ship is answered even when it brought the AI to half its cards face up
    if capfound:
        enemy = 1 - side
        if covered_in_row_nb(st, enemy, np.int64(LONG)) > 0:
            discover_nb(cs, st, g, side, np.int64(LONG), np.int64(-1), rng)
            return
    if 2 * up >= n:
        return
    r = _ai_discovery_row_nb(st, side, roll_nb(rng, np.int64(6)))
    if r < 0:
        return
    n = np.int64(0)
    pick = np.int64(-1)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0 and st[s, S_ROW] == r:
            n += 1
            if roll_nb(rng, n) == 1:
                pick = s
    if pick >= 0:
        uncover_nb(cs, st, g, pick, side)


@kernel
def ai_subturn_nb(rt, cs, st, g, piles, hands, akind, ak, pp, side, rng, scr):
    """One sub-turn of the solo AI (Rule 12.3, see the module docstring)."""
    ai_discovery_step_nb(rt, cs, st, g, side, rng)
    if g[G_FINAL] == 1:
        return
    c = draw_nb(piles, hands, g, akind, side, np.bool_(False), rng)
    apply_specials_nb(rt, cs, st, g, pp, rng)
    if c < 0:
        return
    kind = akind[c]
    passive = 1 - side
    # Rule 5 step 4: the player may answer with Mines or Fog, resolved afterwards
    declare_pending_nb(cs, st, g, piles, hands, akind, ak, pp, passive, np.int64(MODE_ACTIONS), rng)
    g[G_RESTRICT] = -1
    if ak[kind, AK_SOLO_EFFECT] == 1 and (kind == K_DESTROYERS or kind == K_CRUISERS or kind == K_PLANES):
        base = side * MAXC
        # every card of the class acts, highest priority first
        for s in range(base, base + MAXC):
            st[s, S_MASK] = 0
            if st[s, S_STATUS] != ST_IN_PLAY:
                continue
            t = cs[s, C_TYPE]
            if (kind == K_DESTROYERS and t == DESTROYER) or (kind == K_CRUISERS and t == CAPITAL) or (kind == K_PLANES and t == AIRCRAFT):
                st[s, S_MASK] = 2 if t == AIRCRAFT else 1
        while True:
            bs = np.int64(-1)
            bp = -1 << 40
            for s in range(base, base + MAXC):
                if st[s, S_MASK] > 0 and st[s, S_STATUS] == ST_IN_PLAY:
                    p = _priority_nb(cs, st, s, np.bool_(False))
                    if p > bp:
                        bp = p
                        bs = s
            if bs < 0:
                break
            st[bs, S_MASK] -= 1
            ai_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), side, bs, np.bool_(False), rng, scr)
    else:
        for _ in range(ak[kind, AK_RED]):
            if not ai_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), side, np.int64(-1), kind == K_MERCHANT_SHIPS, rng, scr):
                # the action is lost; the next ones would find the same situation
                break
    resolve_pending_nb(rt, cs, st, g, pp, passive, rng, scr)
    discard_table_nb(piles, g)
