"""A player's choices inside a combat, compiled (Rule 5.3.1 steps 2-13, 5.4, 10.2).

The Speed distance (step 2), the weapon once the distance is known, the support card (step 5:
Optics, Cabo Palos, Flares at night), the passive player's interruption (step 6: Smoke,
Surprise, Collateral and its target), Faccioso (step 9), Mines or Fog declared in the passive
player's sub-turn (Rule 5 step 4), the escort that attacks a submarine first (step 3), the
submarine's dive (step 13), the discovery after main armament fire (5.4) and which covered card
a discovery turns. The solo AI (Rule 12) plays no support or interruption card; where a rule
leaves it a choice it takes the 12.4.4 default (the highest point value).

Knobs (``pp[side, PP_*]``, ``policies.toml`` family ``greedy``): the least stake to play
Optics or an interruption, and the dice Flares needs; whether Collateral comes first, when Mines,
Fog and Faccioso are played, the escort's attack on a submarine, the dive and the card discovered
after main armament fire (issue 28; ``decisions.toml`` lists every choice and its knobs).
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import roll_nb
from .enums import (
    AIRCRAFT,
    AK_SIDE,
    CAPITAL,
    DESTROYER,
    FAM_GREEDY,
    FAM_RANDOM,
    FAM_SOLO,
    K_CABO_PALOS,
    K_COLLATERAL,
    K_FACCIOSO,
    K_FLARES,
    K_FOG,
    K_MINES,
    K_OPTICS,
    K_SMOKE,
    K_SURPRISE,
    MERCHANT,
    MODE_REORG,
    SHORT,
    ST_IN_PLAY,
    W_ASW,
    W_TORPEDO,
)
from .fleet import (
    attack_possible_nb,
    badly_damaged_nb,
    is_escort_nb,
    printed_value_nb,
    weapon_dice_nb,
    weapon_reaches_nb,
    weapon_usable_nb,
)
from .layout import (
    C_COST,
    C_HULL,
    C_TYPE,
    G_CABO,
    G_FINAL,
    G_HAND0_N,
    G_INTERRUPT_USED,
    G_NIGHT,
    G_POL0,
    G_RESTRICT,
    MAXC,
    PP_COLLATERAL_FIRST,
    PP_COLLATERAL_PICK,
    PP_COVER,
    PP_DIVE,
    PP_ESCORT_ATTACK_SUB,
    PP_FACCIOSO_PLAY,
    PP_FLARES_MIN_DICE,
    PP_FOG_PLAY,
    PP_INTERRUPT_MIN,
    PP_MAIN_DISCOVERY,
    PP_MINES_PLAY,
    PP_SPEED_DISTANCE,
    PP_SUPPORT_MIN,
    R_OPTICS,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_UP,
)
from .legality import (
    can_return_fire_nb,
    only_reorganise_nb,
)
from .policy_value import (
    best_weapon_at_nb,
    expected_damage_nb,
)

__all__ = ["unscripted_shot_nb", "choose_distance_nb", "choose_weapon_nb", "choose_support_nb", "collateral_target_nb", "choose_interruption_nb", "choose_faccioso_nb", "choose_pending_nb", "choose_escort_vs_sub_nb", "choose_dive_nb", "random_collateral_target_nb", "random_covered_nb", "choose_main_discovery_nb", "choose_discover_card_nb"]


@kernel
def _solo_weapon_nb(cs, st, a, t, d, restrict):
    """12.4.2: the solo AI fires the weapon that rolls the most dice at distance ``d``, except an
    escort at a capital ship, which fires torpedoes when they reach (-1: none can fire)."""
    if is_escort_nb(cs[a, C_TYPE]) and cs[t, C_TYPE] == CAPITAL and (restrict < 0 or restrict == W_TORPEDO):
        if weapon_usable_nb(cs, a, t, np.int64(W_TORPEDO)) and weapon_reaches_nb(np.int64(W_TORPEDO), d):
            return np.int64(W_TORPEDO)
    bw = np.int64(-1)
    bd = np.int64(-1000)
    for w in range(7):
        if (restrict < 0 or w == restrict) and weapon_usable_nb(cs, a, t, w) and weapon_reaches_nb(w, d):
            dice = weapon_dice_nb(cs, st, a, w)
            if dice > bd:
                bd = dice
                bw = w
    return bw


@kernel
def unscripted_shot_nb(rt, cs, st, g, a, t, d, restrict):
    """Expected damage markers of an attack by ``a`` at distance ``d`` when its side plays a
    family without knobs: the solo AI's 12.4.2 weapon; random-legal's weapons on average (it
    draws one uniformly). -1e9 if no weapon can fire there."""
    pol = g[G_POL0 + a // MAXC]
    if pol == FAM_SOLO:
        w = _solo_weapon_nb(cs, st, a, t, d, restrict)
        if w < 0:
            return -1e9
        return expected_damage_nb(rt, cs, st, g, a, t, w, d, np.int64(0))
    n = np.int64(0)
    v = 0.0
    for w in range(7):
        if (restrict < 0 or w == restrict) and weapon_usable_nb(cs, a, t, w) and weapon_reaches_nb(w, d):
            n += 1
            v += expected_damage_nb(rt, cs, st, g, a, t, w, d, np.int64(0))
    if n == 0:
        return -1e9
    return v / n


@kernel
def choose_distance_nb(rt, cs, st, g, pp, chooser_side, active_side, a, t, rng):
    """A Speed result (5.3.1 step 2): the chooser picks the row of the active or of the target
    card as the combat distance. The active player takes the better shot, the passive the worse.
    A shot is valued by what the active side fires: a greedy attacker's shot by its own knob row
    (``policy_value.best_weapon_at_nb``); a solo-AI or random-legal attacker's by the expected
    damage of the weapon it fires there (``unscripted_shot_nb``: the AI's 12.4.2 weapon), so
    that neither is read from a row of zero knobs. A random-legal chooser picks either row. A
    greedy chooser by ``speed_distance``: 0 by the shot as above; 1 the shorter of the two rows
    (the one nearer the short row); 2 the longer."""
    r1 = st[a, S_ROW]
    r2 = st[t, S_ROW]
    if r1 == r2:
        return r1
    pol = g[G_POL0 + chooser_side]
    if pol == FAM_RANDOM:
        return r1 if roll_nb(rng, np.int64(2)) == 1 else r2
    if pol == FAM_GREEDY:
        how = np.int64(pp[chooser_side, PP_SPEED_DISTANCE])
        if how == 1:
            return r1 if r1 < r2 else r2
        if how >= 2:
            return r1 if r1 > r2 else r2
    apol = g[G_POL0 + active_side]
    if apol == FAM_SOLO or apol == FAM_RANDOM:
        v1 = unscripted_shot_nb(rt, cs, st, g, a, t, r1, g[G_RESTRICT])
        v2 = unscripted_shot_nb(rt, cs, st, g, a, t, r2, g[G_RESTRICT])
    else:
        w1, v1 = best_weapon_at_nb(rt, cs, st, g, pp, active_side, a, t, r1, g[G_RESTRICT], np.int64(0))
        w2, v2 = best_weapon_at_nb(rt, cs, st, g, pp, active_side, a, t, r2, g[G_RESTRICT], np.int64(0))
        if w1 < 0:
            v1 = -1e9
        if w2 < 0:
            v2 = -1e9
    if chooser_side == active_side:
        return r1 if v1 >= v2 else r2
    return r1 if v1 <= v2 else r2


@kernel
def choose_weapon_nb(rt, cs, st, g, pp, side, a, t, d, restrict, rng):
    """The weapon fired once the combat distance is known (-1 if none can fire; ``restrict`` >= 0
    limits it to one weapon). The solo AI fires the weapon with the most dice, escorts torpedoes
    at capital ships (12.4.2)."""
    pol = g[G_POL0 + side]
    if pol == FAM_RANDOM:
        n = np.int64(0)
        pick = np.int64(-1)
        for w in range(7):
            if (restrict < 0 or w == restrict) and weapon_usable_nb(cs, a, t, w) and weapon_reaches_nb(w, d):
                n += 1
                if roll_nb(rng, n) == 1:
                    pick = w
        return pick
    if pol == FAM_SOLO:
        return _solo_weapon_nb(cs, st, a, t, d, restrict)
    w, v = best_weapon_at_nb(rt, cs, st, g, pp, side, a, t, d, restrict, np.int64(0))
    return w


@kernel
def _find_in_hand_nb(hands, g, akind, side, kind):
    for i in range(g[G_HAND0_N + side]):
        if akind[hands[side, i]] == kind:
            return i
    return -1


@kernel
def choose_support_nb(B, side, a, t, w, d, rng):
    """Step 5 (5.3.1): the active player's support card for this combat, as a hand index (-1:
    none). Legal: at night only Flares (10.2); on a torpedo attack only Cabo Palos (step 5);
    otherwise Optics. One-side cards only by their side. ``B``: the :class:`~.bundles.Board`."""
    rt, cs, st, g, piles, hands, akind, ak, pp = B
    pol = g[G_POL0 + side]
    if pol == FAM_SOLO:
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
    if pol == FAM_RANDOM:
        return idx if roll_nb(rng, np.int64(2)) == 1 else -1
    k = akind[hands[side, idx]]
    if k == K_CABO_PALOS:
        return idx if cs[a, C_TYPE] == DESTROYER else -1
    rem = cs[t, C_HULL] - st[t, S_DMG]
    dmg = expected_damage_nb(rt, cs, st, g, a, t, w, d, rt[R_OPTICS] if k == K_OPTICS else 0)
    if k == K_FLARES:
        return idx if weapon_dice_nb(cs, st, a, w) >= pp[side, PP_FLARES_MIN_DICE] else -1
    tt = cs[t, C_TYPE]
    if tt == CAPITAL or tt == MERCHANT or dmg >= pp[side, PP_SUPPORT_MIN] * rem or g[G_FINAL] == 1:
        return idx
    return -1


@kernel
def collateral_target_nb(rt, cs, st, g, pp, side_passive, a, t, w):
    """Step 6, Collateral (provisional effect): the passive player's other uncovered card in the
    target's row that weapon ``w`` can hit and that the attack turns on (-1: none). Greedy by
    ``collateral_pick``: 0 the cheapest, capital ships and merchants last (as before issue 28's
    gap closing); 1 the one with most hull left (ties: the cheapest), capital ships and merchants
    last; 2 the one with most hull left, whatever its type. Random-legal plays
    :func:`random_collateral_target_nb`; any other caller (the legality test of the card) gets
    the greedy pick of the side's knob row."""
    how = np.int64(pp[side_passive, PP_COLLATERAL_PICK])
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
        if how == 0:
            c = cs[o, C_COST] * 4
        else:
            c = (100 - (cs[o, C_HULL] - st[o, S_DMG])) * 100 + cs[o, C_COST]
        if how < 2 and (cs[o, C_TYPE] == CAPITAL or cs[o, C_TYPE] == MERCHANT):
            c += 100 if how == 0 else 100000
        if c < bc:
            bc = c
            best = o
    return best


@kernel
def random_collateral_target_nb(rt, cs, st, g, side_passive, a, t, w, rng):
    """Step 6, Collateral played by random-legal: any other uncovered card of the target's row
    that weapon ``w`` can hit, uniformly (-1: none)."""
    pick = np.int64(-1)
    n = np.int64(0)
    base = side_passive * MAXC
    for o in range(base, base + MAXC):
        if o == t or st[o, S_STATUS] != ST_IN_PLAY or st[o, S_UP] == 0 or st[o, S_ROW] != st[t, S_ROW]:
            continue
        if not weapon_usable_nb(cs, a, o, w) or not attack_possible_nb(rt, cs, st, g, a, o):
            continue
        n += 1
        if roll_nb(rng, n) == 1:
            pick = o
    return pick


@kernel
def choose_interruption_nb(B, side_passive, a, t, w, d, rng):
    """Step 6 (5.3.1): the passive player's Smoke, Surprise or Collateral for this combat, as a
    hand index (-1: none). One interruption per sub-turn (Rule 5 step 4). ``B``: the
    :class:`~.bundles.Board`."""
    rt, cs, st, g, piles, hands, akind, ak, pp = B
    if g[G_INTERRUPT_USED] == 1:
        return -1
    pol = g[G_POL0 + side_passive]
    if pol == FAM_SOLO:
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
        elif k == K_COLLATERAL and collateral_target_nb(rt, cs, st, g, pp, side_passive, a, t, w) >= 0:
            ico = i
    if ism < 0 and isu < 0 and ico < 0:
        return -1
    if pol == FAM_RANDOM:
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
    if ico >= 0 and (tt == CAPITAL or tt == MERCHANT) and pp[side_passive, PP_COLLATERAL_FIRST] > 0:
        return ico
    if ism >= 0:
        return ism
    if isu >= 0:
        return isu
    return ico


@kernel
def choose_faccioso_nb(rt, cs, st, g, hands, akind, pp, side_passive, t, hits, rng):
    """Step 9 (5.3.1): the Nationalist passive player's Faccioso against ``hits`` hits on ``t``
    (hand index, -1: none): random-legal plays it or not at random; greedy by ``faccioso_play``
    (0 never, 1 for a capital ship, a merchant or hits that sink the target, 2 on any hit)."""
    if side_passive != 0 or g[G_INTERRUPT_USED] == 1 or hits <= 0:
        return -1
    pol = g[G_POL0 + side_passive]
    if pol == FAM_SOLO:
        return -1
    idx = _find_in_hand_nb(hands, g, akind, side_passive, np.int64(K_FACCIOSO))
    if idx < 0:
        return -1
    if pol == FAM_RANDOM:
        return idx if roll_nb(rng, np.int64(2)) == 1 else -1
    play = pp[side_passive, PP_FACCIOSO_PLAY]
    if play <= 0:
        return -1
    tt = cs[t, C_TYPE]
    rem = cs[t, C_HULL] - st[t, S_DMG]
    if play >= 2 or tt == CAPITAL or tt == MERCHANT or hits >= rem:
        return idx
    return -1


@kernel
def choose_pending_nb(cs, st, g, hands, akind, ak, pp, side_passive, mode, rng):
    """Step 4 (Rule 5): the passive player's Mines or Fog, resolved after the action card
    (hand index, -1: none). Random-legal: one time in three, either card. Greedy: none while it
    holds a combat interruption (one interruption a sub-turn), unless the card is played to
    reorganise; Mines when an enemy ship stands in its short row (``mines_play`` = 1); Fog by
    ``fog_play`` (1: with ``cover`` = 1 for a face-up badly damaged own card; 2: for any face-up
    own card)."""
    if g[G_INTERRUPT_USED] == 1:
        return -1
    pol = g[G_POL0 + side_passive]
    if pol == FAM_SOLO:
        return -1
    im = _find_in_hand_nb(hands, g, akind, side_passive, np.int64(K_MINES))
    ifo = _find_in_hand_nb(hands, g, akind, side_passive, np.int64(K_FOG))
    if im < 0 and ifo < 0:
        return -1
    if pol == FAM_RANDOM:
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
    if im >= 0 and mode != MODE_REORG and pp[side_passive, PP_MINES_PLAY] > 0:
        base = active * MAXC
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_ROW] == SHORT and cs[s, C_TYPE] != AIRCRAFT:
                return im
    fog = pp[side_passive, PP_FOG_PLAY]
    if ifo >= 0 and (fog >= 2 or (fog >= 1 and pp[side_passive, PP_COVER] > 0)):
        base = side_passive * MAXC
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 1 and (fog >= 2 or badly_damaged_nb(cs, st, s)):
                return ifo
    return -1


@kernel
def choose_escort_vs_sub_nb(rt, cs, st, g, pp, side_passive, sub, rng):
    """Step 3 (5.3.1): the passive player's uncovered escort in his short row that attacks a
    submarine about to fire torpedoes ("may be attacked"; slot, -1: none). The one with most AS
    dice, when the greedy knob ``escort_attack_sub`` is 1 (0: never); random-legal any of them
    or none; the solo AI never holds this choice back (12.4.4: highest point value breaks ties)."""
    pol = g[G_POL0 + side_passive]
    if pol == FAM_GREEDY and pp[side_passive, PP_ESCORT_ATTACK_SUB] <= 0:
        return -1
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
        if pol == FAM_RANDOM:
            if roll_nb(rng, n) == 1:
                best = s
            continue
        dice = weapon_dice_nb(cs, st, s, np.int64(W_ASW)) * 100 + cs[s, C_COST]
        if dice > bd:
            bd = dice
            best = s
    if pol == FAM_RANDOM and best >= 0 and roll_nb(rng, np.int64(2)) == 1:
        return -1
    return best


@kernel
def choose_dive_nb(g, pp, side, rng):
    """Step 13 (5.3.1): whether the submarine "may be covered" after its torpedo attack:
    random-legal at random, greedy by the knob ``dive`` (1 yes), the solo AI always (12.4.2)."""
    pol = g[G_POL0 + side]
    if pol == FAM_RANDOM:
        return roll_nb(rng, np.int64(2)) == 1
    if pol == FAM_GREEDY:
        return pp[side, PP_DIVE] > 0
    return True


@kernel
def random_covered_nb(st, side, row, rng):
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


@kernel
def choose_main_discovery_nb(cs, st, g, pp, side_passive, rng):
    """Rule 5.4: after main armament fire, the opposing player may discover one card, his own or
    the firer's (slot, -1: none). Random-legal picks any covered card of either side or none;
    the AI one of the firer's covered cards, nearest row first (12.4.4 leaves it no other
    guide); greedy by ``main_discovery``: 0 as the AI, 1 the firer's long row first, 2 its own
    dearest covered card, 3 none."""
    pol = g[G_POL0 + side_passive]
    if pol == FAM_RANDOM:
        n = np.int64(1)
        pick = np.int64(-1)
        for s in range(2 * MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0:
                n += 1
                if roll_nb(rng, n) == 1:
                    pick = s
        return pick
    firer = 1 - side_passive
    how = np.int64(pp[side_passive, PP_MAIN_DISCOVERY]) if pol == FAM_GREEDY else np.int64(0)
    if how >= 3:
        return -1
    if how == 2:
        best = np.int64(-1)
        bc = np.int64(-1)
        base = side_passive * MAXC
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0 and cs[s, C_COST] > bc:
                bc = cs[s, C_COST]
                best = s
        return best
    for i in range(3):
        r = i if how == 0 else 2 - i
        s = random_covered_nb(st, firer, r, rng)
        if s >= 0:
            return s
    return -1


@kernel
def choose_discover_card_nb(st, enemy, row, rng):
    """The covered enemy card a discovery in ``row`` turns: unknown cards, so any of them."""
    return random_covered_nb(st, enemy, row, rng)
