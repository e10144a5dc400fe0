"""What an attack is worth to a greedy policy, compiled: the target and weapon choice (Rule 5.3.1).

The expected damage of one attack by the combat procedure's odds (hit number 5.3.1 step 7,
distance penalties, night 10.2, Optics, lucky hits, saving rolls step 10, the torpedo effect
table and escorts' torpedo save), the value of sinking a card (its cost, plus the scenario's
stake: capital ships and merchants in 7, 8.2, 8.3; 8.1's conditions for the Republican) and of
one shot (the share of the target's remaining hull it takes, minus the stress it costs, 5.3.1
step 12). ``prep_eval_nb`` fills the scratch ``fw`` (layout ``FW_*``) once per decision so that
``fast_best_target_nb`` can score every (card, row, target) quickly.

Knobs (``pp[side, PP_*]``, ``policies.toml`` family ``greedy``): the stakes, the damage weight,
the torpedo weight and the stress cost.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from .enums import (
    AIRCRAFT,
    CAPITAL,
    DESTROYER,
    LONG,
    MEDIUM,
    MERCHANT,
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
    badly_damaged_nb,
    distance_entry_nb,
    distance_penalty_nb,
    is_escort_nb,
    printed_value_nb,
    speed_chooser_nb,
    speed_nb,
    weapon_dice_nb,
    weapon_reaches_nb,
    weapon_usable_nb,
)
from .layout import (
    C_COST,
    C_HULL,
    C_TYPE,
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
    G_CABO,
    G_NIGHT,
    G_VICTORY,
    MAXC,
    PP_ATTACK_WEIGHT,
    PP_DAMAGE_WEIGHT,
    PP_SCENARIO_STAKES,
    PP_STAKE,
    PP_STAKE_CABO_CAPITAL,
    PP_STAKE_CABO_ESCORT,
    PP_STAKE_CABO_MERCHANT,
    PP_STRESS_COST,
    PP_TORP,
    R_HIT,
    R_LUCKY_FIRST,
    R_LUCKY_SECOND,
    R_MAIN_EXTRA,
    R_NIGHT_MOD,
    RT_DIST,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
)
from .policy_stakes import p_die_nb, prep_stakes_nb, save_factor_nb, torpedo_hit_value_nb

__all__ = ["p_die_nb", "torpedo_hit_value_nb", "save_factor_nb", "lucky_chance_nb", "expected_damage_nb", "target_value_nb", "shot_value_nb", "best_weapon_at_nb", "attack_value_nb", "prep_eval_nb", "fast_shot_nb", "fast_pair_nb", "fast_best_target_nb"]


@kernel
def lucky_chance_nb(rt, g):
    """Chance of a lucky hit (5.3.1), none at night (10.2)."""
    if g[G_NIGHT] == 1:
        return 0.0
    return p_die_nb(rt[R_LUCKY_FIRST]) * p_die_nb(rt[R_LUCKY_SECOND])


@kernel
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


@kernel
def target_value_nb(cs, g, pp, side, t):
    """What sinking card ``t`` is worth to ``side``: its cost + 1, plus the scenario's stake
    (capital ships and merchants score in 7, 8.2, 8.3: knob ``stake``; 8.1 is won by the
    Republican sinking a capital ship, or a merchant and an escort: the ``stake_cabo_*`` knobs,
    with ``scenario_stakes`` = 1), times ``attack_weight``. ``prep_eval_nb`` adds what the victory
    condition makes of the sinking (``policy_stakes.prep_stakes_nb``)."""
    tt = cs[t, C_TYPE]
    v = 1.0 + cs[t, C_COST]
    if g[G_VICTORY] == V_CABO_DE_PALOS and pp[side, PP_SCENARIO_STAKES] > 0:
        if side == 1:
            if tt == CAPITAL:
                v += pp[side, PP_STAKE_CABO_CAPITAL]
            elif tt == MERCHANT:
                v += pp[side, PP_STAKE_CABO_MERCHANT]
            elif is_escort_nb(tt):
                v += pp[side, PP_STAKE_CABO_ESCORT]
    elif tt == CAPITAL or tt == MERCHANT:
        v += pp[side, PP_STAKE]
    return v * pp[side, PP_ATTACK_WEIGHT]


@kernel
def shot_value_nb(rt, cs, st, g, pp, side, a, t, w, d, bonus):
    """Value of firing weapon ``w`` of ``a`` at ``t`` at combat distance ``d``."""
    dmg = expected_damage_nb(rt, cs, st, g, a, t, w, d, bonus)
    rem = cs[t, C_HULL] - st[t, S_DMG]
    share = dmg / rem if rem > 0 else 1.0
    if share > 1.0:
        share = 1.0
    v = target_value_nb(cs, g, pp, side, t) * share + pp[side, PP_DAMAGE_WEIGHT] * pp[side, PP_ATTACK_WEIGHT] * dmg
    if w == W_TORPEDO:
        v *= pp[side, PP_TORP]
    stress = 1 + (rt[R_MAIN_EXTRA] if w == W_MAIN else 0)
    return v - pp[side, PP_STRESS_COST] * stress


@kernel
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


@kernel
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


@kernel
def prep_eval_nb(rt, cs, st, g, pp, side, fw):
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
        fw[FW_TV + j] = target_value_nb(cs, g, pp, side, t)
        fw[FW_REM + j] = cs[t, C_HULL] - st[t, S_DMG]
        fw[FW_SAVEF + j] = save_factor_nb(rt, cs, t)
        fw[FW_TORPF + j] = torpedo_hit_value_nb(rt, cs, st, t)
    fw[FW_NT] = nt
    for k in range(12):
        fw[FW_PNEED + k] = p_die_nb(k)
    fw[FW_LUCKY] = lucky_chance_nb(rt, g)
    prep_stakes_nb(rt, cs, st, g, pp, side, fw)


@kernel(inline="always")
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
    v = fw[FW_TV + jt] * share + pp[side, PP_DAMAGE_WEIGHT] * pp[side, PP_ATTACK_WEIGHT] * dmg
    if w == W_TORPEDO:
        v *= pp[side, PP_TORP]
    stress = 1 + (rt[R_MAIN_EXTRA] if w == W_MAIN else np.int64(0))
    return v - pp[side, PP_STRESS_COST] * stress


@kernel(inline="always")
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


@kernel(inline="always")
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


@kernel
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
