"""Scripted players of Mar Rojo, compiled: every decision a player takes, for each policy.

Policies (enums.POLICY_NAMES):

* ``random-legal``: every decision uniformly at random among the legal choices (what to play
  or whether to draw, the mode, each activation, targets, weapons, support and interruption
  cards). It exercises every rule path and is the baseline for invariant tests.
* ``aggressive``, ``cautious``, ``torpedo-first``: one greedy player with different parameters
  (``POLICY_PARAMS``; the ``PP_*`` columns of layout.py). Each activation goes to the fleet card
  whose best action is worth most: an attack is worth the target's value times the share of its
  remaining hull the expected damage takes (scenario targets such as capital ships and merchants
  are worth more), minus the stress it costs; uncovering a card is worth part of the attack it
  opens; moves follow the policy's wish to close or to pull damaged cards back; merchants go to
  the short row when the scenario scores them. A card in hand is played when the best of its
  three modes (effect, reorganisation, actions) is worth more than drawing; interruption cards
  are held for the opponent's sub-turn (cautious keeps two), Optics saved for valuable shots.
  ``aggressive`` closes in, rarely holds cards and accepts stress; ``cautious`` protects
  merchants until drawing stops, pulls badly damaged cards back and covers them, reorganises
  early and defends with interruptions; ``torpedo-first`` brings torpedo carriers to the short
  row, doubles the weight of torpedo attacks and holds Cabo Palos for a destroyer attack.
* ``solo-ai`` is the Rule 12 AI (``solo.py``); it takes none of the decisions here except where
  a rule leaves a choice to the AI's owner (then the 12.4.4 default: the highest point value).

Every function takes the game arrays of layout.py; none allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
    AK_BLUE,
    AK_RED,
    AK_SIDE,
    AK_TYPE,
    AT_GENERAL,
    AT_INTERRUPTION,
    AT_SUPPORT,
    CAPITAL,
    DESTROYER,
    K_AIR_DEFENCE,
    K_CABO_PALOS,
    K_COLLATERAL,
    K_CRUISERS,
    K_DEPTH_CHARGES,
    K_DESTROYERS,
    K_FACCIOSO,
    K_FLARES,
    K_FOG,
    K_GENERAL_QUARTERS,
    K_MERCHANT_SHIPS,
    K_MINES,
    K_OPTICS,
    K_PLANES,
    K_RETREAT,
    K_SCOUT,
    K_SMOKE,
    K_SURPRISE,
    K_TORPEDOES,
    LONG,
    MEDIUM,
    MERCHANT,
    MODE_ACTIONS,
    MODE_EFFECT,
    MODE_REORG,
    POL_AGGRESSIVE,
    POL_CAUTIOUS,
    POL_RANDOM,
    POL_SOLO,
    POL_TORPEDO,
    SHORT,
    SPEED,
    ST_IN_PLAY,
    SUBMARINE,
    V_CABO_DE_PALOS,
    W_AA,
    W_AIR,
    W_ASW,
    W_BOMBING,
    W_MAIN,
    W_SECONDARY,
    W_TORPEDO,
)
from .fleet import (
    attack_possible_nb,
    badly_damaged_nb,
    distance_entry_nb,
    distance_penalty_nb,
    is_escort_nb,
    move_keeps_layout_nb,
    printed_value_nb,
    row_counts3_nb,
    speed_chooser_nb,
    speed_nb,
    spread_nb,
    weapon_dice_nb,
    weapon_reaches_nb,
    weapon_usable_nb,
)
from .layout import (
    C_ARMOUR,
    C_COST,
    C_HULL,
    C_SEAPLANE,
    C_TYPE,
    FW_CB,
    FW_COV,
    FW_DICE,
    FW_LUCKY,
    FW_NT,
    FW_PNEED,
    FW_REM,
    FW_SAVEF,
    FW_TLIST,
    FW_TORPF,
    FW_TV,
    FW_VALS,
    G_CABO,
    G_CB_OK,
    G_FINAL,
    G_HAND0_N,
    G_INTERRUPT_USED,
    G_MPTS0,
    G_NIGHT,
    G_POL0,
    G_RESTRICT,
    G_VICTORY,
    MAXC,
    NPP,
    PP_COVER,
    PP_DRAW,
    PP_FORWARD,
    PP_HOLD,
    PP_HOLD_VALUE,
    PP_INTERRUPT_MIN,
    PP_MERCH,
    PP_MIN_ACT,
    PP_REORG_AT,
    PP_RETREAT,
    PP_RETREAT_CARD,
    PP_STRESS_COST,
    PP_SUPPORT_MIN,
    PP_TORP,
    PP_UNCOVER,
    R_AIR_ACTS,
    R_ESCORT_TORP_SAVE,
    R_HIT,
    R_LUCKY_FIRST,
    R_LUCKY_SECOND,
    R_MAIN_EXTRA,
    R_NIGHT_MOD,
    R_OPTICS,
    R_REORG_PER_CARD,
    R_TORP_CAPITAL,
    RT_DIST,
    RT_SAVE,
    RT_TORP,
    S_ACTS,
    S_BONUS,
    S_DMG,
    S_MASK,
    S_REORG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
    WK_CAND,
)
from .victory import winner_nb

#: the parameters of the greedy policies (layout PP_* columns), by policy code; random-legal and
#: solo-ai rows are unused.
POLICY_PARAMS = np.zeros((5, NPP), dtype=np.float64)
for _p, _vals in (
    (POL_AGGRESSIVE, {PP_DRAW: 0.35, PP_HOLD: 0, PP_HOLD_VALUE: 0.0, PP_FORWARD: 1.0, PP_RETREAT: 0.0,
                      PP_REORG_AT: 3, PP_TORP: 1.0, PP_MERCH: 2, PP_COVER: 0, PP_STRESS_COST: 0.04,
                      PP_UNCOVER: 0.9, PP_MIN_ACT: 0.02, PP_SUPPORT_MIN: 0.25, PP_INTERRUPT_MIN: 0.3,
                      PP_RETREAT_CARD: 1}),
    (POL_CAUTIOUS, {PP_DRAW: 0.8, PP_HOLD: 2, PP_HOLD_VALUE: 0.6, PP_FORWARD: 0.0, PP_RETREAT: 1.0,
                    PP_REORG_AT: 2, PP_TORP: 1.0, PP_MERCH: 1, PP_COVER: 1, PP_STRESS_COST: 0.15,
                    PP_UNCOVER: 0.6, PP_MIN_ACT: 0.08, PP_SUPPORT_MIN: 0.5, PP_INTERRUPT_MIN: 0.15,
                    PP_RETREAT_CARD: 1}),
    (POL_TORPEDO, {PP_DRAW: 0.5, PP_HOLD: 1, PP_HOLD_VALUE: 0.3, PP_FORWARD: 0.6, PP_RETREAT: 0.3,
                   PP_REORG_AT: 3, PP_TORP: 2.0, PP_MERCH: 1, PP_COVER: 0, PP_STRESS_COST: 0.08,
                   PP_UNCOVER: 0.9, PP_MIN_ACT: 0.03, PP_SUPPORT_MIN: 0.35, PP_INTERRUPT_MIN: 0.3,
                   PP_RETREAT_CARD: 1}),
):
    for _k, _v in _vals.items():
        POLICY_PARAMS[_p, _k] = _v


# ---------------------------------------------------------------------------------- odds helpers
@njit(cache=True, inline="always", _nrt=False)
def p_die_nb(need):
    """Probability that one d6 rolls ``need`` or more."""
    if need <= 1:
        return 1.0
    if need > 6:
        return 0.0
    return (7 - need) / 6.0


@njit(cache=True, _nrt=False)
def torpedo_hit_value_nb(rt, cs, st, t):
    """Expected damage of one torpedo hit on ``t``: an escort's 5+ save first, then the effect
    table (+1 for a capital ship), a Sunk result counting as the remaining hull (5.3.1)."""
    rem = cs[t, C_HULL] - st[t, S_DMG]
    tt = cs[t, C_TYPE]
    add = rt[R_TORP_CAPITAL] if tt == CAPITAL else np.int64(0)
    v = 0.0
    for r in range(1, 7):
        rr = r + add
        if rr > 7:
            rr = np.int64(7)
        e = rt[RT_TORP + rr]
        v += (rem if e < 0 else e) / 6.0
    if is_escort_nb(tt):
        v *= 1.0 - p_die_nb(rt[R_ESCORT_TORP_SAVE])
    return v


@njit(cache=True, _nrt=False)
def save_factor_nb(rt, cs, t):
    """Share of hits on ``t`` that stand after its saving rolls (5.3.1 step 10)."""
    return 1.0 - p_die_nb(rt[RT_SAVE + cs[t, C_ARMOUR]])


@njit(cache=True, _nrt=False)
def lucky_chance_nb(rt, g):
    """Chance of a lucky hit (5.3.1), none at night (10.2)."""
    if g[G_NIGHT] == 1:
        return 0.0
    return p_die_nb(rt[R_LUCKY_FIRST]) * p_die_nb(rt[R_LUCKY_SECOND])


@njit(cache=True, _nrt=False)
def expected_damage_nb(rt, cs, st, g, a, t, w, d, bonus):
    """Expected damage markers of one attack (a sunk result counts as the remaining hull)."""
    dice = weapon_dice_nb(cs, st, a, w)
    nm = rt[R_NIGHT_MOD] if g[G_NIGHT] == 1 else np.int64(0)
    need = rt[R_HIT] + distance_penalty_nb(w, d) - bonus + nm
    nh = dice * p_die_nb(need) if dice > 0 else lucky_chance_nb(rt, g)
    if w == W_TORPEDO:
        if g[G_CABO] == 1 and cs[a, C_TYPE] == DESTROYER:
            nh *= 2.0
        return nh * torpedo_hit_value_nb(rt, cs, st, t)
    return nh * save_factor_nb(rt, cs, t)


@njit(cache=True, _nrt=False)
def target_value_nb(cs, g, side, t):
    """What sinking card ``t`` is worth to ``side``: its cost + 1, plus the scenario's stake
    (capital ships and merchants score in 7, 8.2, 8.3; 8.1 is won by the Republican sinking a
    capital ship, or a merchant and an escort)."""
    tt = cs[t, C_TYPE]
    v = 1.0 + cs[t, C_COST]
    if g[G_VICTORY] == V_CABO_DE_PALOS:
        if side == 1:
            if tt == CAPITAL:
                v += 6.0
            elif tt == MERCHANT:
                v += 3.0
            elif is_escort_nb(tt):
                v += 1.5
    elif tt == CAPITAL or tt == MERCHANT:
        v += 4.0
    return v


@njit(cache=True, _nrt=False)
def shot_value_nb(rt, cs, st, g, pp, side, a, t, w, d, bonus):
    """Value of firing weapon ``w`` of ``a`` at ``t`` at combat distance ``d``."""
    dmg = expected_damage_nb(rt, cs, st, g, a, t, w, d, bonus)
    rem = cs[t, C_HULL] - st[t, S_DMG]
    share = dmg / rem if rem > 0 else 1.0
    if share > 1.0:
        share = 1.0
    v = target_value_nb(cs, g, side, t) * share + 0.25 * dmg
    if w == W_TORPEDO:
        v *= pp[side, PP_TORP]
    stress = 1 + (rt[R_MAIN_EXTRA] if w == W_MAIN else 0)
    return v - pp[side, PP_STRESS_COST] * stress


@njit(cache=True, _nrt=False)
def best_weapon_at_nb(rt, cs, st, g, pp, side, a, t, d, restrict, bonus):
    """Best weapon (and its value) of ``a`` against ``t`` at distance ``d``; (-1, 0) if none."""
    bw = np.int64(-1)
    bv = -1e9
    for w in range(7):
        if restrict >= 0 and w != restrict:
            continue
        if not weapon_usable_nb(cs, a, t, w) or not weapon_reaches_nb(w, d):
            continue
        v = shot_value_nb(rt, cs, st, g, pp, side, a, t, w, d, bonus)
        if v > bv:
            bv = v
            bw = w
    if bw < 0:
        return -1, 0.0
    return bw, bv


@njit(cache=True, _nrt=False)
def attack_value_nb(rt, cs, st, g, pp, side, a, t, restrict):
    """Value of an attack by ``a`` on ``t`` (after the distance choice: the attacker's best when
    he chooses, the passive player's worst for him otherwise). 0 or less: not worth it."""
    e = distance_entry_nb(rt, cs, st, a, t)
    if e != SPEED:
        w, v = best_weapon_at_nb(rt, cs, st, g, pp, side, a, t, e, restrict, np.int64(0))
        return v if w >= 0 else 0.0
    w1, v1 = best_weapon_at_nb(rt, cs, st, g, pp, side, a, t, st[a, S_ROW], restrict, np.int64(0))
    w2, v2 = best_weapon_at_nb(rt, cs, st, g, pp, side, a, t, st[t, S_ROW], restrict, np.int64(0))
    if w1 < 0:
        v1 = 0.0
    if w2 < 0:
        v2 = 0.0
    if speed_chooser_nb(cs, st, a, t) == 0:
        return v1 if v1 > v2 else v2
    return v1 if v1 < v2 else v2



# ---------------------------------------------------------------------------------- fast evaluation
@njit(cache=True, _nrt=False)
def prep_eval_nb(rt, cs, st, g, side, fw):
    """Fill the evaluation scratch ``fw`` (layout ``FW_*``) for ``side``'s decisions now: its
    cards' dice per weapon, the enemy cards that can be targeted with their value, remaining
    hull, save and torpedo factors, the covered enemy cards per row, and the hit chances."""
    base = side * MAXC
    ebase = (1 - side) * MAXC
    for i in range(MAXC):
        s = base + i
        if st[s, S_STATUS] != ST_IN_PLAY:
            continue
        pen = np.int64(0)
        if badly_damaged_nb(cs, st, s):
            pen += 1
        if st[s, S_STRESS] > 1:
            pen += st[s, S_STRESS] - 1
        o = FW_DICE + 7 * i
        for w in range(7):
            pv = printed_value_nb(cs, s, w)
            fw[o + w] = pv - pen if pv > 0 else -100.0
    nt = np.int64(0)
    fw[FW_COV] = 0.0
    fw[FW_COV + 1] = 0.0
    fw[FW_COV + 2] = 0.0
    for j in range(MAXC):
        t = ebase + j
        if st[t, S_STATUS] != ST_IN_PLAY:
            continue
        if st[t, S_UP] == 0:
            fw[FW_COV + st[t, S_ROW]] += 1.0
            continue
        fw[FW_TLIST + nt] = t
        nt += 1
        fw[FW_TV + j] = target_value_nb(cs, g, side, t)
        fw[FW_REM + j] = cs[t, C_HULL] - st[t, S_DMG]
        fw[FW_SAVEF + j] = save_factor_nb(rt, cs, t)
        fw[FW_TORPF + j] = torpedo_hit_value_nb(rt, cs, st, t)
    fw[FW_NT] = nt
    for k in range(12):
        fw[FW_PNEED + k] = p_die_nb(k)
    fw[FW_LUCKY] = lucky_chance_nb(rt, g)


@njit(cache=True, inline="always", _nrt=False)
def fast_shot_nb(rt, cs, g, pp, fw, side, a, t, w, d):
    """``shot_value_nb`` from the prepared scratch (``prep_eval_nb``); -1e9 if ``w`` cannot fire."""
    dice = fw[FW_DICE + 7 * (a - side * MAXC) + w]
    if dice < -50.0:
        return -1e9
    jt = t - (1 - side) * MAXC
    need = rt[R_HIT] + distance_penalty_nb(w, d) + (rt[R_NIGHT_MOD] if g[G_NIGHT] == 1 else np.int64(0))
    if need > 11:
        need = np.int64(11)
    nh = dice * fw[FW_PNEED + need] if dice > 0 else fw[FW_LUCKY]
    if w == W_TORPEDO:
        if g[G_CABO] == 1 and cs[a, C_TYPE] == DESTROYER:
            nh *= 2.0
        dmg = nh * fw[FW_TORPF + jt]
    else:
        dmg = nh * fw[FW_SAVEF + jt]
    rem = fw[FW_REM + jt]
    share = dmg / rem if rem > 0 else 1.0
    if share > 1.0:
        share = 1.0
    v = fw[FW_TV + jt] * share + 0.25 * dmg
    if w == W_TORPEDO:
        v *= pp[side, PP_TORP]
    stress = 1 + (rt[R_MAIN_EXTRA] if w == W_MAIN else np.int64(0))
    return v - pp[side, PP_STRESS_COST] * stress


@njit(cache=True, inline="always", _nrt=False)
def _fast_best_at_nb(rt, cs, g, pp, fw, side, a, t, d, restrict):
    """Best value of the weapons of ``a`` that can hit ``t`` at distance ``d`` (-1e9: none);
    the weapons by target kind as in ``fleet.weapon_usable_nb``."""
    tt = cs[t, C_TYPE]
    air = cs[a, C_TYPE] == AIRCRAFT
    w0 = np.int64(-1)
    w1 = np.int64(-1)
    w2 = np.int64(-1)
    if tt == SUBMARINE:
        w0 = np.int64(W_ASW)
    elif tt == AIRCRAFT:
        w0 = np.int64(W_AIR) if air else np.int64(W_AA)
    elif air:
        w0 = np.int64(W_BOMBING)
    else:
        w0 = np.int64(W_MAIN)
        w1 = np.int64(W_SECONDARY)
        w2 = np.int64(W_TORPEDO)
    bv = -1e9
    for k in range(3):
        w = w0 if k == 0 else (w1 if k == 1 else w2)
        if w < 0 or (restrict >= 0 and w != restrict) or (d == LONG and w != W_MAIN):
            continue
        v = fast_shot_nb(rt, cs, g, pp, fw, side, a, t, w, d)
        if v > bv:
            bv = v
    return bv


@njit(cache=True, inline="always", _nrt=False)
def fast_pair_nb(rt, cs, st, g, pp, fw, side, a, arow, t, restrict):
    """Value of an attack by ``a`` (standing in row ``arow``) on enemy card ``t`` after the
    combat-distance choice (the attacker's best when he chooses, the passive player's worst
    otherwise); 0 if it cannot attack. ``t`` must be in play and face up."""
    at = cs[a, C_TYPE]
    if at == MERCHANT:
        return 0.0
    if (at == SUBMARINE or at == AIRCRAFT) and arow == LONG:
        return 0.0
    if at == AIRCRAFT and g[G_NIGHT] == 1:
        return 0.0
    tt = cs[t, C_TYPE]
    trow = st[t, S_ROW]
    if (tt == SUBMARINE or tt == AIRCRAFT) and trow == LONG:
        return 0.0
    if at == AIRCRAFT:
        e = np.int64(MEDIUM)
    else:
        e = rt[RT_DIST + 3 * arow + trow]
    if e != SPEED:
        v = _fast_best_at_nb(rt, cs, g, pp, fw, side, a, t, e, restrict)
        return v if v > 0.0 else 0.0
    v1 = _fast_best_at_nb(rt, cs, g, pp, fw, side, a, t, arow, restrict)
    v2 = _fast_best_at_nb(rt, cs, g, pp, fw, side, a, t, trow, restrict)
    if v1 < 0.0:
        v1 = 0.0
    if v2 < 0.0:
        v2 = 0.0
    if speed_nb(cs, st, t) > speed_nb(cs, st, a):
        return v1 if v1 < v2 else v2
    return v1 if v1 > v2 else v2


@njit(cache=True, _nrt=False)
def fast_best_target_nb(rt, cs, st, g, pp, fw, side, a, arow, restrict):
    """Best enemy target of ``a`` from row ``arow`` and its value: ``(value, target)``, (0, -1)
    if none (the card is assumed face up)."""
    bv = 0.0
    bt = np.int64(-1)
    for k in range(np.int64(fw[FW_NT])):
        t = np.int64(fw[FW_TLIST + k])
        v = fast_pair_nb(rt, cs, st, g, pp, fw, side, a, arow, t, restrict)
        if v > bv:
            bv = v
            bt = t
    return bv, bt


# ---------------------------------------------------------------------------------- legality
@njit(cache=True, _nrt=False)
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


@njit(cache=True, inline="always", _nrt=False)
def only_reorganise_nb(cs, st, slot):
    """More stress markers than hull: the only action is to reorganise (Rule 5.3.2)."""
    return st[slot, S_STRESS] > cs[slot, C_HULL]


@njit(cache=True, _nrt=False)
def can_discover_nb(cs, st, slot):
    """An escort or aircraft in the short or medium row may discover (Rule 5.4)."""
    t = cs[slot, C_TYPE]
    return (is_escort_nb(t) or t == AIRCRAFT) and st[slot, S_ROW] != LONG


@njit(cache=True, _nrt=False)
def covered_in_row_nb(st, side, row):
    n = np.int64(0)
    base = side * MAXC
    for i in range(base, base + MAXC):
        if st[i, S_STATUS] == ST_IN_PLAY and st[i, S_UP] == 0 and st[i, S_ROW] == row:
            n += 1
    return n


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def exchange_legal_nb(cs, st, a, b):
    """Two own cards in different rows swap rows; at least one has movement 3 (Rule 5.2)."""
    if a == b or a // MAXC != b // MAXC or st[b, S_STATUS] != ST_IN_PLAY:
        return False
    if st[a, S_ROW] == st[b, S_ROW]:
        return False
    return speed_nb(cs, st, a) == 3 or speed_nb(cs, st, b) == 3


@njit(cache=True, _nrt=False)
def move_legal_nb(cs, st, slot, dst):
    """Move to another row: movement 1 one row, 2 or 3 up to two rows; never at 0; never to a
    worse layout (Rule 5.2)."""
    src = st[slot, S_ROW]
    if dst == src or dst < 0 or dst > 2:
        return False
    sp = speed_nb(cs, st, slot)
    dist = dst - src if dst > src else src - dst
    if sp == 0 or dist > (1 if sp == 1 else 2):
        return False
    return move_keeps_layout_nb(st, slot // MAXC, src, dst)


@njit(cache=True, _nrt=False)
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
        return move_legal_nb(cs, st, slot, p1)
    if act == ACT_EXCHANGE:
        return p1 >= 0 and p1 < 2 * MAXC and exchange_legal_nb(cs, st, slot, p1)
    if act == ACT_DISCOVER:
        return can_discover_nb(cs, st, slot) and discover_legal_nb(cs, st, slot, p1, p2)
    if act == ACT_REORG:
        return st[slot, S_STRESS] > 0 and st[slot, S_REORG] < rt[R_REORG_PER_CARD]
    return False


@njit(cache=True, inline="always", _nrt=False)
def _push_cand_nb(cand, n, s, act, p1, p2):
    cand[4 * n] = s
    cand[4 * n + 1] = act
    cand[4 * n + 2] = p1
    cand[4 * n + 3] = p2
    return n + 1


@njit(cache=True, _nrt=False)
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


# ---------------------------------------------------------------------------------- greedy play
@njit(cache=True, _nrt=False)
def _any_enemy_uncovered_nb(st, side):
    ebase = (1 - side) * MAXC
    for t in range(ebase, ebase + MAXC):
        if st[t, S_STATUS] == ST_IN_PLAY and st[t, S_UP] == 1:
            return True
    return False


@njit(cache=True, _nrt=False)
def merchants_forward_nb(g, pp, side):
    """Whether the policy moves its merchants towards the short row now (8.2, 8.3 score them there)."""
    if g[G_MPTS0 + side] == 0:
        return False
    m = pp[side, PP_MERCH]
    return m >= 2 or (m >= 1 and g[G_FINAL] == 1)


@njit(cache=True, _nrt=False)
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
            return 1.0, ACT_REORG, -1, -1
        return 0.0, -1, -1, -1
    bv = 0.0
    ba = np.int64(-1)
    b1 = np.int64(-1)
    b2 = np.int64(-1)
    up = st[s, S_UP] == 1
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
            v = 0.1 * pp[side, PP_FORWARD] if fw[FW_NT] > 0 else 0.03 * pp[side, PP_FORWARD]
        if v > bv:
            bv = v
            ba = ACT_UNCOVER
    if restrict >= 0:
        return bv, ba, b1, b2
    row = st[s, S_ROW]
    bd = badly_damaged_nb(cs, st, s)
    # reorganise
    if can_reorg and stress >= pp[side, PP_REORG_AT]:
        v = 0.15 + 0.2 * (stress - 1)
        if v > bv:
            bv = v
            ba = ACT_REORG
    # moves
    if t_s == MERCHANT:
        fwd = merchants_forward_nb(g, pp, side)
        for r in range(3):
            if r == row or not move_legal_nb(cs, st, s, r):
                continue
            if fwd:
                v = 0.6 * (row - r)
            else:
                v = 0.3 * (r - row) * (1.0 + pp[side, PP_RETREAT])
            if v > bv:
                bv = v
                ba = ACT_MOVE
                b1 = r
        if up and pp[side, PP_COVER] > 0 and not fwd:
            v = 0.2
            if v > bv:
                bv = v
                ba = ACT_COVER
        return bv, ba, b1, b2
    if bd and pp[side, PP_RETREAT] > 0:
        for r in range(row + 1, 3):
            if move_legal_nb(cs, st, s, r):
                v = 0.25 * pp[side, PP_RETREAT] * (1.0 + cs[s, C_COST]) * (r - row) / 2.0
                if v > bv:
                    bv = v
                    ba = ACT_MOVE
                    b1 = r
        if up and pp[side, PP_COVER] > 0:
            v = 0.2 * (1.0 + cs[s, C_COST])
            if v > bv:
                bv = v
                ba = ACT_COVER
    elif pp[side, PP_FORWARD] > 0 and ba != ACT_ATTACK:
        # close the distance: a card with no shot now moves where it would have one
        for r in range(3):
            if r == row or not move_legal_nb(cs, st, s, r):
                continue
            v, t = fast_best_target_nb(rt, cs, st, g, pp, fw, side, s, np.int64(r), np.int64(-1))
            v = 0.5 * v * pp[side, PP_FORWARD]
            if t < 0 and r < row:
                torp = printed_value_nb(cs, s, np.int64(W_TORPEDO)) > 0
                v = (0.06 + (0.06 if torp else 0.0) * pp[side, PP_TORP]) * pp[side, PP_FORWARD]
                if t_s == SUBMARINE or t_s == AIRCRAFT:
                    v += 0.05
            if v > bv:
                bv = v
                ba = ACT_MOVE
                b1 = r
    # discover
    if can_discover_nb(cs, st, s):
        cs_ = np.int64(fw[FW_COV])
        cm = np.int64(fw[FW_COV + 1])
        cl = np.int64(fw[FW_COV + 2])
        base = 0.12 if fw[FW_NT] > 0 else 0.3
        k = (cs_ if cs_ < 2 else 2)
        r1 = SHORT
        r2 = SHORT if cs_ >= 2 else -1
        if k < 2 and cm > 0:
            if k == 0:
                r1 = MEDIUM
                r2 = MEDIUM if cm >= 2 else -1
                k = cm if cm < 2 else 2
            else:
                r2 = MEDIUM
                k = np.int64(2)
        if k == 0 and cl > 0:
            r1 = LONG
            r2 = np.int64(-1)
            k = np.int64(1)
        if k > 0:
            v = base * k
            if v > bv and discover_legal_nb(cs, st, s, r1, r2):
                bv = v
                ba = ACT_DISCOVER
                b1 = r1
                b2 = r2
    return bv, ba, b1, b2


@njit(cache=True, _nrt=False)
def choose_activation_nb(rt, cs, st, g, pp, side, effect_mode, rng, wk, fw):
    """Pick the next activation of ``side``: ``(slot, act, p1, p2)``, or slot -1 to stop.

    random-legal: uniform among the legal activations and stopping. Greedy policies: the best
    card action (``card_best_nb``) if worth at least ``PP_MIN_ACT``."""
    pol = g[G_POL0 + side]
    if pol == POL_RANDOM:
        n = legal_actions_nb(rt, cs, st, g, side, effect_mode, wk[WK_CAND:], np.int64(512))
        k = roll_nb(rng, n + 1) - 1
        if k == n:
            return -1, -1, -1, -1
        o = WK_CAND + 4 * k
        return wk[o], wk[o + 1], wk[o + 2], wk[o + 3]
    # the first activation after choose_play sees the state it evaluated: reuse its results
    reuse = g[G_CB_OK] == 1 and not effect_mode and g[G_RESTRICT] < 0
    g[G_CB_OK] = 0
    if not reuse:
        prep_eval_nb(rt, cs, st, g, side, fw)
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


# ---------------------------------------------------------------------------------- playing cards
@njit(cache=True, _nrt=False)
def reorg_value_nb(rt, cs, st, side, amount, per_card):
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
            v += 0.12 * k + 0.1 * (over if over < k else k)
            if st[s, S_STRESS] > cs[s, C_HULL]:
                v += 0.5
            left -= k
    return v


@njit(cache=True, _nrt=False)
def _class_member_nb(cs, s, kind):
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


@njit(cache=True, _nrt=False)
def effect_restrict_nb(kind):
    """The weapon a mass activation is restricted to (-1: any action)."""
    if kind == K_TORPEDOES:
        return W_TORPEDO
    if kind == K_DEPTH_CHARGES:
        return W_ASW
    if kind == K_AIR_DEFENCE:
        return W_AA
    return -1


@njit(cache=True, _nrt=False)
def is_mass_activation_nb(kind):
    return (kind == K_DESTROYERS or kind == K_CRUISERS or kind == K_PLANES or kind == K_TORPEDOES
            or kind == K_DEPTH_CHARGES or kind == K_AIR_DEFENCE or kind == K_MERCHANT_SHIPS)


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def winning_now_nb(cs, st, g, side):
    """Whether ``side`` would win if the game ended now (victory.winner_nb decides)."""
    return winner_nb(cs, st, g) == side


@njit(cache=True, _nrt=False)
def effect_value_nb(rt, cs, st, g, ak, pp, fw, side, kind, vals):
    """Value of invoking the effect of ``kind`` (``vals[i]``: each own card's best action value;
    ``fw`` prepared by ``prep_eval_nb``)."""
    if is_mass_activation_nb(kind):
        restrict = effect_restrict_nb(kind)
        v = 0.0
        base = side * MAXC
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] != ST_IN_PLAY or not _class_member_nb(cs, s, kind):
                continue
            if restrict >= 0:
                if st[s, S_UP] == 1:
                    bv, bt = fast_best_target_nb(rt, cs, st, g, pp, fw, side, s, st[s, S_ROW], restrict)
                    v += bv
            else:
                v += vals[s - base] * (1.5 if kind == K_PLANES else 1.0)
        return v
    if kind == K_GENERAL_QUARTERS:
        return reorg_value_nb(rt, cs, st, side, np.int64(1000), rt[R_REORG_PER_CARD])
    if kind == K_SCOUT:
        enemy = 1 - side
        c = covered_in_row_nb(st, enemy, np.int64(0)) + covered_in_row_nb(st, enemy, np.int64(1)) + covered_in_row_nb(st, enemy, np.int64(2))
        k = c if c < 2 else 2
        return (0.15 if fw[FW_NT] > 0 else 0.35) * k
    if kind == K_RETREAT:
        if pp[side, PP_RETREAT_CARD] > 0 and winning_now_nb(cs, st, g, side):
            return 3.0
        return -1.0
    return -1.0


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def _hand_held_nb(hands, g, akind, ak, side):
    n = np.int64(0)
    for i in range(g[G_HAND0_N + side]):
        if ak[akind[hands[side, i]], AK_TYPE] == AT_INTERRUPTION:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def choose_play_nb(rt, cs, st, g, piles, hands, akind, ak, pp, side, can_draw, rng, wk, fw):
    """Step 1-2 of a sub-turn (Rule 5): draw, or play a card from hand in one mode.

    Returns:
        ``(hand_index, mode)``; hand_index -1 means draw.
    """
    hn = g[G_HAND0_N + side]
    pol = g[G_POL0 + side]
    if pol == POL_RANDOM:
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
    prep_eval_nb(rt, cs, st, g, side, fw)
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
            keep = 0.5 * pp[side, PP_HOLD_VALUE]
            if pol == POL_TORPEDO and k == K_CABO_PALOS:
                keep = 0.8
        va = top_sum_nb(vals, np.int64(MAXC), ak[k, AK_RED], fw[MAXC:]) - keep
        if va > best:
            best = va
            bi = i
            bm = MODE_ACTIONS
        vr = reorg_value_nb(rt, cs, st, side, ak[k, AK_BLUE], rt[R_REORG_PER_CARD]) - keep
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
        if hn <= 2:
            thr *= 0.5
        if best < thr:
            return -1, 0
    return bi, bm


@njit(cache=True, _nrt=False)
def choose_reorg_slot_nb(rt, cs, st, side):
    """Where the next stress marker of a reorganisation comes off: the most stressed card that
    may still lose one this sub-turn (-1: none)."""
    bs = np.int64(-1)
    bk = np.int64(0)
    base = side * MAXC
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY or st[s, S_REORG] >= rt[R_REORG_PER_CARD]:
            continue
        k = st[s, S_STRESS]
        if k > bk:
            bk = k
            bs = s
    return bs


# ---------------------------------------------------------------------------------- combat choices
@njit(cache=True, _nrt=False)
def choose_distance_nb(rt, cs, st, g, pp, chooser_side, active_side, a, t, rng):
    """A Speed result (5.3.1 step 2): the chooser picks the row of the active or of the target
    card as the combat distance. The active player takes the better shot, the passive the worse."""
    r1 = st[a, S_ROW]
    r2 = st[t, S_ROW]
    if r1 == r2:
        return r1
    pol = g[G_POL0 + chooser_side]
    if pol == POL_RANDOM:
        return r1 if roll_nb(rng, np.int64(2)) == 1 else r2
    w1, v1 = best_weapon_at_nb(rt, cs, st, g, pp, active_side, a, t, r1, g[G_RESTRICT], np.int64(0))
    w2, v2 = best_weapon_at_nb(rt, cs, st, g, pp, active_side, a, t, r2, g[G_RESTRICT], np.int64(0))
    if w1 < 0:
        v1 = -1e9
    if w2 < 0:
        v2 = -1e9
    if chooser_side == active_side:
        return r1 if v1 >= v2 else r2
    return r1 if v1 <= v2 else r2


@njit(cache=True, _nrt=False)
def choose_weapon_nb(rt, cs, st, g, pp, side, a, t, d, restrict, rng):
    """The weapon fired once the combat distance is known (-1 if none can fire; ``restrict`` >= 0
    limits it to one weapon). The solo AI fires the weapon with the most dice, escorts torpedoes
    at capital ships (12.4.2)."""
    pol = g[G_POL0 + side]
    if pol == POL_RANDOM:
        n = np.int64(0)
        pick = np.int64(-1)
        for w in range(7):
            if (restrict < 0 or w == restrict) and weapon_usable_nb(cs, a, t, w) and weapon_reaches_nb(w, d):
                n += 1
                if roll_nb(rng, n) == 1:
                    pick = w
        return pick
    if pol == POL_SOLO:
        if is_escort_nb(cs[a, C_TYPE]) and cs[t, C_TYPE] == CAPITAL and (restrict < 0 or restrict == W_TORPEDO):
            if weapon_usable_nb(cs, a, t, np.int64(W_TORPEDO)) and weapon_reaches_nb(np.int64(W_TORPEDO), d):
                return W_TORPEDO
        bw = np.int64(-1)
        bd = np.int64(-1000)
        for w in range(7):
            if (restrict < 0 or w == restrict) and weapon_usable_nb(cs, a, t, w) and weapon_reaches_nb(w, d):
                dice = weapon_dice_nb(cs, st, a, w)
                if dice > bd:
                    bd = dice
                    bw = w
        return bw
    w, v = best_weapon_at_nb(rt, cs, st, g, pp, side, a, t, d, restrict, np.int64(0))
    return w


@njit(cache=True, _nrt=False)
def _find_in_hand_nb(hands, g, akind, side, kind):
    for i in range(g[G_HAND0_N + side]):
        if akind[hands[side, i]] == kind:
            return i
    return -1


@njit(cache=True, _nrt=False)
def choose_support_nb(rt, cs, st, g, hands, akind, ak, pp, side, a, t, w, d, rng):
    """Step 5 (5.3.1): the active player's support card for this combat, as a hand index (-1:
    none). Legal: at night only Flares (10.2); on a torpedo attack only Cabo Palos (step 5);
    otherwise Optics. One-side cards only by their side."""
    pol = g[G_POL0 + side]
    if pol == POL_SOLO:
        return -1
    night = g[G_NIGHT] == 1
    idx = np.int64(-1)
    if night:
        idx = _find_in_hand_nb(hands, g, akind, side, np.int64(K_FLARES))
    elif w == W_TORPEDO:
        if ak[K_CABO_PALOS, AK_SIDE] < 0 or ak[K_CABO_PALOS, AK_SIDE] == side:
            if g[G_CABO] == 0:
                idx = _find_in_hand_nb(hands, g, akind, side, np.int64(K_CABO_PALOS))
    else:
        idx = _find_in_hand_nb(hands, g, akind, side, np.int64(K_OPTICS))
    if idx < 0:
        return -1
    if pol == POL_RANDOM:
        return idx if roll_nb(rng, np.int64(2)) == 1 else -1
    k = akind[hands[side, idx]]
    if k == K_CABO_PALOS:
        return idx if cs[a, C_TYPE] == DESTROYER else -1
    rem = cs[t, C_HULL] - st[t, S_DMG]
    dmg = expected_damage_nb(rt, cs, st, g, a, t, w, d, rt[R_OPTICS] if k == K_OPTICS else 0)
    if k == K_FLARES:
        return idx if weapon_dice_nb(cs, st, a, w) >= 2 else -1
    tt = cs[t, C_TYPE]
    if tt == CAPITAL or tt == MERCHANT or dmg >= pp[side, PP_SUPPORT_MIN] * rem or g[G_FINAL] == 1:
        return idx
    return -1


@njit(cache=True, _nrt=False)
def collateral_target_nb(rt, cs, st, g, side_passive, a, t, w):
    """Step 6, Collateral (provisional effect): the passive player's cheapest other uncovered card
    in the target's row that weapon ``w`` can hit (-1: none)."""
    best = np.int64(-1)
    bc = 1 << 30
    base = side_passive * MAXC
    for o in range(base, base + MAXC):
        if o == t or st[o, S_STATUS] != ST_IN_PLAY or st[o, S_UP] == 0 or st[o, S_ROW] != st[t, S_ROW]:
            continue
        if not weapon_usable_nb(cs, a, o, w):
            continue
        if not attack_possible_nb(rt, cs, st, g, a, o):
            continue
        c = cs[o, C_COST] * 4 + (cs[o, C_HULL] - st[o, S_DMG] > 0) * 0
        if cs[o, C_TYPE] == CAPITAL or cs[o, C_TYPE] == MERCHANT:
            c += 100
        if c < bc:
            bc = c
            best = o
    return best


@njit(cache=True, _nrt=False)
def can_return_fire_nb(rt, cs, st, g, t, a, d):
    """Surprise (provisional): the target can fire back at the attacker at distance ``d``."""
    if not attack_possible_nb(rt, cs, st, g, t, a):
        return False
    for w in range(7):
        if weapon_usable_nb(cs, t, a, w) and weapon_reaches_nb(w, d):
            return True
    return False


@njit(cache=True, _nrt=False)
def choose_interruption_nb(rt, cs, st, g, hands, akind, ak, pp, side_passive, a, t, w, d, rng):
    """Step 6 (5.3.1): the passive player's Smoke, Surprise or Collateral for this combat, as a
    hand index (-1: none). One interruption per sub-turn (Rule 5 step 4)."""
    if g[G_INTERRUPT_USED] == 1:
        return -1
    pol = g[G_POL0 + side_passive]
    if pol == POL_SOLO:
        return -1
    hn = g[G_HAND0_N + side_passive]
    ism = np.int64(-1)
    isu = np.int64(-1)
    ico = np.int64(-1)
    for i in range(hn):
        k = akind[hands[side_passive, i]]
        if ak[k, AK_SIDE] >= 0 and ak[k, AK_SIDE] != side_passive:
            continue
        if k == K_SMOKE:
            ism = i
        elif k == K_SURPRISE and can_return_fire_nb(rt, cs, st, g, t, a, d):
            isu = i
        elif k == K_COLLATERAL and collateral_target_nb(rt, cs, st, g, side_passive, a, t, w) >= 0:
            ico = i
    if ism < 0 and isu < 0 and ico < 0:
        return -1
    if pol == POL_RANDOM:
        if roll_nb(rng, np.int64(2)) == 1:
            return -1
        n = np.int64(0)
        pick = np.int64(-1)
        for c in (ism, isu, ico):
            if c >= 0:
                n += 1
                if roll_nb(rng, n) == 1:
                    pick = c
        return pick
    rem = cs[t, C_HULL] - st[t, S_DMG]
    dmg = expected_damage_nb(rt, cs, st, g, a, t, w, d, np.int64(0))
    tt = cs[t, C_TYPE]
    threat = dmg / rem if rem > 0 else 1.0
    if not (tt == CAPITAL or tt == MERCHANT or threat >= pp[side_passive, PP_INTERRUPT_MIN]):
        return -1
    if ico >= 0 and (tt == CAPITAL or tt == MERCHANT):
        return ico
    if ism >= 0:
        return ism
    if isu >= 0:
        return isu
    return ico


@njit(cache=True, _nrt=False)
def choose_faccioso_nb(rt, cs, st, g, hands, akind, pp, side_passive, t, hits, rng):
    """Step 9 (5.3.1): the Nationalist passive player's Faccioso against ``hits`` hits on ``t``
    (hand index, -1: none)."""
    if side_passive != 0 or g[G_INTERRUPT_USED] == 1 or hits <= 0:
        return -1
    pol = g[G_POL0 + side_passive]
    if pol == POL_SOLO:
        return -1
    idx = _find_in_hand_nb(hands, g, akind, side_passive, np.int64(K_FACCIOSO))
    if idx < 0:
        return -1
    if pol == POL_RANDOM:
        return idx if roll_nb(rng, np.int64(2)) == 1 else -1
    tt = cs[t, C_TYPE]
    rem = cs[t, C_HULL] - st[t, S_DMG]
    if tt == CAPITAL or tt == MERCHANT or hits >= rem:
        return idx
    return -1


@njit(cache=True, _nrt=False)
def choose_pending_nb(cs, st, g, hands, akind, ak, pp, side_passive, mode, rng):
    """Step 4 (Rule 5): the passive player's Mines or Fog, resolved after the action card
    (hand index, -1: none)."""
    if g[G_INTERRUPT_USED] == 1:
        return -1
    pol = g[G_POL0 + side_passive]
    if pol == POL_SOLO:
        return -1
    im = _find_in_hand_nb(hands, g, akind, side_passive, np.int64(K_MINES))
    ifo = _find_in_hand_nb(hands, g, akind, side_passive, np.int64(K_FOG))
    if im < 0 and ifo < 0:
        return -1
    if pol == POL_RANDOM:
        if roll_nb(rng, np.int64(3)) != 1:
            return -1
        if im >= 0 and ifo >= 0:
            return im if roll_nb(rng, np.int64(2)) == 1 else ifo
        return im if im >= 0 else ifo
    # keep the single interruption of the sub-turn for combat when holding a combat one
    for i in range(g[G_HAND0_N + side_passive]):
        k = akind[hands[side_passive, i]]
        if k == K_SMOKE or k == K_SURPRISE or k == K_COLLATERAL:
            if mode != MODE_REORG:
                return -1
    active = 1 - side_passive
    if im >= 0 and mode != MODE_REORG:
        base = active * MAXC
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_ROW] == SHORT and cs[s, C_TYPE] != AIRCRAFT:
                return im
    if ifo >= 0 and pp[side_passive, PP_COVER] > 0:
        base = side_passive * MAXC
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 1 and badly_damaged_nb(cs, st, s):
                return ifo
    return -1


@njit(cache=True, _nrt=False)
def choose_escort_vs_sub_nb(rt, cs, st, g, side_passive, sub, rng):
    """Step 3 (5.3.1): the passive player's uncovered escort in his short row that attacks a
    submarine about to fire torpedoes (slot, -1: none). The one with most AS dice; the solo AI
    never holds this choice back (12.4.4: highest point value breaks ties)."""
    pol = g[G_POL0 + side_passive]
    best = np.int64(-1)
    bd = np.int64(-1000)
    base = side_passive * MAXC
    n = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY or st[s, S_UP] == 0 or st[s, S_ROW] != SHORT:
            continue
        if not is_escort_nb(cs[s, C_TYPE]) or printed_value_nb(cs, s, np.int64(W_ASW)) <= 0:
            continue
        if only_reorganise_nb(cs, st, s):
            continue
        n += 1
        if pol == POL_RANDOM:
            if roll_nb(rng, n) == 1:
                best = s
            continue
        dice = weapon_dice_nb(cs, st, s, np.int64(W_ASW)) * 100 + cs[s, C_COST]
        if dice > bd:
            bd = dice
            best = s
    if pol == POL_RANDOM and best >= 0 and roll_nb(rng, np.int64(2)) == 1:
        return -1
    return best


@njit(cache=True, _nrt=False)
def choose_dive_nb(g, side, rng):
    """Step 13 (5.3.1): cover the submarine after its torpedo attack (the AI always does, 12.4.2)."""
    pol = g[G_POL0 + side]
    if pol == POL_RANDOM:
        return roll_nb(rng, np.int64(2)) == 1
    return True


@njit(cache=True, _nrt=False)
def _random_covered_nb(st, side, row, rng):
    """A random covered card of ``side`` in ``row`` (any row if -1); -1 if none."""
    n = np.int64(0)
    pick = np.int64(-1)
    base = side * MAXC
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0 and (row < 0 or st[s, S_ROW] == row):
            n += 1
            if roll_nb(rng, n) == 1:
                pick = s
    return pick


@njit(cache=True, _nrt=False)
def choose_main_discovery_nb(cs, st, g, side_passive, rng):
    """Rule 5.4: after main armament fire, the opposing player may discover one card, his own or
    the firer's (slot, -1: none). Greedy policies and the AI turn up one of the firer's covered
    cards, nearest row first; random-legal picks any covered card of either side or none."""
    pol = g[G_POL0 + side_passive]
    if pol == POL_RANDOM:
        n = np.int64(1)
        pick = np.int64(-1)
        for s in range(2 * MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0:
                n += 1
                if roll_nb(rng, n) == 1:
                    pick = s
        return pick
    firer = 1 - side_passive
    for r in range(3):
        s = _random_covered_nb(st, firer, r, rng)
        if s >= 0:
            return s
    return -1


@njit(cache=True, _nrt=False)
def choose_discover_card_nb(st, enemy, row, rng):
    """The covered enemy card a discovery in ``row`` turns: unknown cards, so any of them."""
    return _random_covered_nb(st, enemy, row, rng)


@njit(cache=True, _nrt=False)
def choose_scout_rows_nb(st, g, side, rng):
    """Rows of the (up to two) cards the Scout effect discovers (-1: none)."""
    enemy = 1 - side
    pol = g[G_POL0 + side]
    if pol == POL_RANDOM:
        r1 = roll_nb(rng, np.int64(3)) - 1
        r2 = roll_nb(rng, np.int64(4)) - 2
        return r1, r2
    r1 = np.int64(-1)
    r2 = np.int64(-1)
    for r in range(3):
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


@njit(cache=True, _nrt=False)
def choose_fog_card_nb(cs, st, g, side, rng):
    """Fog (provisional): the next own uncovered card to cover (-1: stop). Badly damaged cards
    first, then the most valuable; random-legal any or stop."""
    pol = g[G_POL0 + side]
    base = side * MAXC
    if pol == POL_RANDOM:
        n = np.int64(1)
        pick = np.int64(-1)
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 1:
                n += 1
                if roll_nb(rng, n) == 1:
                    pick = s
        return pick
    best = np.int64(-1)
    bv = np.int64(-1)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 1:
            v = cs[s, C_COST] + (100 if badly_damaged_nb(cs, st, s) else 0)
            if v > bv:
                bv = v
                best = s
    return best


@njit(cache=True, _nrt=False)
def choose_mines_target_nb(cs, st, g, side_passive, rng):
    """Mines (provisional): the active player's ship in his short row that the mine attacks:
    the most valuable uncovered one, else any covered one (-1: none)."""
    active = 1 - side_passive
    base = active * MAXC
    pol = g[G_POL0 + side_passive]
    best = np.int64(-1)
    bv = np.int64(-1)
    n = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY or st[s, S_ROW] != SHORT or cs[s, C_TYPE] == AIRCRAFT:
            continue
        n += 1
        if pol == POL_RANDOM:
            if roll_nb(rng, n) == 1:
                best = s
            continue
        v = (cs[s, C_COST] + 10) if st[s, S_UP] == 1 else 0
        if v > bv:
            bv = v
            best = s
    return best


@njit(cache=True, _nrt=False)
def choose_transfer_victim_nb(cs, st, g, rng):
    """8.2 Transfer to the Cantabrian Sea: the next Republican ship the Nationalist removes (-1:
    none). The most valuable uncovered ship, else any covered ship (aircraft are not ships)."""
    pol = g[G_POL0]
    base = MAXC
    best = np.int64(-1)
    bv = np.int64(-1)
    n = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY or cs[s, C_TYPE] == AIRCRAFT:
            continue
        n += 1
        if pol == POL_RANDOM:
            if roll_nb(rng, n) == 1:
                best = s
            continue
        v = (cs[s, C_COST] + 10) if st[s, S_UP] == 1 else roll_nb(rng, np.int64(5))
        if v > bv:
            bv = v
            best = s
    return best


@njit(cache=True, _nrt=False)
def choose_reveal_nb(cs, st, g, side, rng):
    """The optional initial reveal (Rule 4): ``(own, enemy)``: one own card of the short row and
    one enemy card of any row to turn face up (-1: none)."""
    pol = g[G_POL0 + side]
    own = np.int64(-1)
    base = side * MAXC
    if pol == POL_RANDOM or pol == POL_SOLO:
        own = _random_covered_nb(st, side, np.int64(SHORT), rng)
    else:
        bv = np.int64(-1)
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0 and st[s, S_ROW] == SHORT:
                v = cs[s, C_COST] if pol == POL_AGGRESSIVE or pol == POL_TORPEDO else 10 - cs[s, C_COST]
                if v > bv:
                    bv = v
                    own = s
    enemy = _random_covered_nb(st, 1 - side, np.int64(SHORT), rng)
    if enemy < 0:
        enemy = _random_covered_nb(st, 1 - side, np.int64(-1), rng)
    return own, enemy


@njit(cache=True, _nrt=False)
def choose_reinforcement_row_nb(cs, st, g, side, slot, rng):
    """8.3 The Navarra: the row it is deployed in "at any legal position": the row that keeps the
    layout's spread smallest, preferring medium (aggressive) or long (cautious); the short row
    only when Rule 4 allows a capital ship there."""
    pol = g[G_POL0 + side]
    c0, c1, c2 = row_counts3_nb(st, side)
    base = side * MAXC
    esc_air = np.int64(0)
    for s in range(base, base + MAXC):
        t = cs[s, C_TYPE]
        if st[s, S_STATUS] == ST_IN_PLAY and (is_escort_nb(t) or t == AIRCRAFT) and st[s, S_ROW] != SHORT:
            esc_air += 1
    best = np.int64(-1)
    bv = 1 << 30
    for r in range(3):
        if r == SHORT and esc_air > 0 and cs[slot, C_TYPE] != AIRCRAFT and not is_escort_nb(cs[slot, C_TYPE]):
            continue
        v = spread_nb(c0 + (r == 0), c1 + (r == 1), c2 + (r == 2)) * 10
        if pol == POL_RANDOM:
            v += roll_nb(rng, np.int64(5))
        elif pol == POL_CAUTIOUS:
            v += 2 - r
        else:
            v += 0 if r == MEDIUM else 1
        if v < bv:
            bv = v
            best = r
    return best
