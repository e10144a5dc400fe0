"""The combat procedure of Mar Rojo, compiled (Rule 5.3.1 steps 1-13, 5.3.2, 5.4, 10.2).

``attack_nb`` resolves one combat action of an activated fleet card against an enemy card,
asking the policies (policy_combat.py) for every choice a player makes on the way: the Speed
distance, the weapon (chosen once the combat distance is known), the escort that attacks a
submarine before its torpedoes, the support and interruption cards, Faccioso, the submarine's
dive and the discovery after main armament fire.

Order of a combat (rulings in docs/rulings.md, section Mar Rojo):

1-2. target and combat distance (aircraft attack at Medium; Speed: the faster card's owner
     chooses, the active player on a tie); then the weapon; none can fire: the action is spent.
3.   a submarine firing torpedoes may first be attacked by an uncovered enemy escort in the
     short row with its AS dice (that escort gains stress; no evasion roll).
4.   an AS attack on a submarine: the submarine evades on 5+ (the action is spent, no stress).
5-6. the active player's support card; the passive player's interruption (Smoke -1 to hit,
     Surprise: the target fires first, Collateral: another card of the target's row is hit).
7.   a bombing aircraft first takes the target's light AA fire (hits on 6; saves apply).
8.   hit dice on 5+ (-1 at Medium for secondary and torpedoes, at Long for main; Optics +1;
     night: one more needed unless Flares; a value reduced to 0 rolls for a lucky hit, never at
     night). Air combat: both aircraft fire at once. Cabo Palos doubles destroyer torpedo hits.
9.   Faccioso cancels one hit on a Nationalist target.
10.  saving rolls by armour; against torpedoes only escorts save (5+), before the effect roll.
11.  damage markers; a card with damage >= hull, or a Sunk result, is eliminated.
12.  stress: +1 to every card that fired (AA fire excluded), +1 more for main armament; the solo
     AI's cards take none (12.1).
13.  a submarine that fired torpedoes may dive (cover).
     Main armament fire lets the opposing player discover one card (5.4).

Luck (``simlab luck``, per attack): every hit roll (step 8, the lucky hit and step 7's AA fire
included) adds to its firing side's ``G_LUCK0`` slots the hits it scored with their exact mean and
variance (:func:`luck_nb`); the saving rolls of step 10 then add the hits they cancelled (a
negative count) with theirs, and a torpedo attack's effect rolls add what the effect table made of
its hits (:func:`torpedo_luck_nb`: the markers less the hits, a Sunk counting as the target's
remaining hull), so a side's total is the damage markers its dice dealt. Card effects are not
dice and stay out: a hit Faccioso cancelled still counts, the hits Cabo de Palos doubled do not
(their effect rolls do), so in a rare attack the record can fall below the markers placed.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from .deck import play_from_hand_nb
from .dice import d6_nb, hit_need_nb, lucky_hit_nb, roll_hits_nb, save_hits_nb, torpedo_effect_rolls_nb
from .enums import (
    ARM_X,
    CAPITAL,
    DESTROYER,
    FAM_RANDOM,
    FAM_SOLO,
    K_COLLATERAL,
    K_FLARES,
    K_OPTICS,
    K_SMOKE,
    K_SURPRISE,
    SPEED,
    ST_IN_PLAY,
    ST_SUNK,
    SUBMARINE,
    W_AIR,
    W_ASW,
    W_BOMBING,
    W_MAIN,
    W_TORPEDO,
)
from .fleet import (
    distance_entry_nb,
    distance_penalty_nb,
    is_escort_nb,
    reduced_value_nb,
    speed_chooser_nb,
    weapon_dice_nb,
    weapon_usable_nb,
)
from .layout import (
    C_AAL,
    C_ARMOUR,
    C_HULL,
    C_TYPE,
    G_ACTIVE,
    G_AI_CAPFOUND0,
    G_ATTACKS0,
    G_CABO,
    G_HITS0,
    G_INTERRUPT_USED,
    G_LUCK0,
    G_NIGHT,
    G_POL0,
    G_RESTRICT,
    G_SUPPORT_USED,
    MAXC,
    R_AA_DEFENCE,
    R_ESCORT_TORP_SAVE,
    R_LUCKY_FIRST,
    R_LUCKY_SECOND,
    R_MAIN_EXTRA,
    R_NIGHT_MOD,
    R_OPTICS,
    R_SMOKE,
    R_SUB_EVASION,
    R_TORP_CAPITAL,
    RT_SAVE,
    RT_TORP,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
)
from .legality import can_return_fire_nb
from .policy_combat import (
    choose_distance_nb,
    choose_dive_nb,
    choose_escort_vs_sub_nb,
    choose_faccioso_nb,
    choose_interruption_nb,
    choose_main_discovery_nb,
    choose_support_nb,
    choose_weapon_nb,
    collateral_target_nb,
    random_collateral_target_nb,
)

__all__ = ["add_stress_nb", "apply_damage_nb", "attack_nb", "fire_nb", "torpedo_hit_moments_nb", "torpedo_luck_nb",
           "uncover_nb"]


@kernel
def uncover_nb(cs, st, g, slot, by_side):
    """Turn a fleet card face up. Notes a solo-AI capital ship turned up by the opposing player
    in his own sub-turn (the exception of Rule 12.3)."""
    if st[slot, S_UP] == 1:
        return
    st[slot, S_UP] = 1
    side = slot // MAXC
    if cs[slot, C_TYPE] == CAPITAL and by_side != side and g[G_POL0 + side] == FAM_SOLO and g[G_ACTIVE] == by_side:
        g[G_AI_CAPFOUND0 + side] = 1


@kernel
def add_stress_nb(st, g, slot, k):
    """Stress markers (5.3.1 step 12); the solo AI's cards never take any (12.1)."""
    if g[G_POL0 + slot // MAXC] == FAM_SOLO:
        return
    st[slot, S_STRESS] += k


@kernel
def apply_damage_nb(cs, st, g, slot, hits, sunk):
    """Place ``hits`` damage markers (step 11); eliminate the card when its damage reaches its
    hull or on a Sunk result (5.3.2). Returns True if it was eliminated."""
    if st[slot, S_STATUS] != ST_IN_PLAY:
        return False
    st[slot, S_DMG] += hits
    g[G_HITS0 + slot // MAXC] += hits
    if sunk == 1 or st[slot, S_DMG] >= cs[slot, C_HULL]:
        st[slot, S_STATUS] = ST_SUNK
        st[slot, S_UP] = 0
        return True
    return False


@kernel(inline="always")
def faces_nb(need):
    """Faces of a d6 that reach ``need`` or more (0..6)."""
    f = 7 - need
    return 0 if f < 0 else (6 if f > 6 else f)


@kernel
def luck_nb(g, side, dealt, mean36, var1296):
    """Add one roll to ``side``'s luck (``G_LUCK0 + 3 * side``): its result in hits (saves: minus
    the hits they cancelled), its mean times 36 and its variance times 1296 (exact integers: every
    probability here is a multiple of 1/36)."""
    k = G_LUCK0 + 3 * side
    g[k] += dealt
    g[k + 1] += mean36
    g[k + 2] += var1296


@kernel
def hit_luck_nb(g, side, dice, need, hits):
    """The luck of ``dice`` hit dice each hitting on ``need`` or more (step 8)."""
    f = faces_nb(need)
    luck_nb(g, side, hits, 6 * dice * f, 36 * dice * f * (6 - f))


@kernel
def lucky_luck_nb(rt, g, side, hit):
    """The luck of a lucky-hit roll (a 6, then 4+: 3 ways of 36)."""
    p = faces_nb(rt[R_LUCKY_FIRST]) * faces_nb(rt[R_LUCKY_SECOND])
    luck_nb(g, side, hit, p, p * (36 - p))


@kernel
def save_luck_nb(rt, g, side, hits, armour, stand):
    """The luck of the saving rolls (step 10) made against ``hits`` hits of ``side``: minus the
    hits saved (each saved on ``RT_SAVE + armour`` or more); none when no roll is made."""
    need = rt[RT_SAVE + armour]
    if armour == ARM_X or need > 6 or hits <= 0:
        return
    f = faces_nb(need)
    luck_nb(g, side, stand - hits, -6 * hits * f, 36 * hits * f * (6 - f))


@kernel
def torpedo_hit_moments_nb(rt, capital, escort, rem):
    """One torpedo hit's damage markers over its rolls (5.3.1 steps 8 and 10), as sums over the 36
    ways of an escort's save die and the effect die: ``(m1, m2)``, 36 times the mean and 36 times
    the mean square. A saved hit deals 0; an effect row its hits; a Sunk ``rem`` (the target's
    remaining hull, as ``policy_stakes.torpedo_hit_value_nb`` counts it)."""
    fs = faces_nb(rt[R_ESCORT_TORP_SAVE]) if escort else np.int64(0)
    add = rt[R_TORP_CAPITAL] if capital else np.int64(0)
    m1 = np.int64(0)
    m2 = np.int64(0)
    for r in range(1, 7):
        rr = r + add
        if rr > 7:
            rr = 7
        e = rt[RT_TORP + rr]
        v = rem if e < 0 else e
        m1 += (6 - fs) * v
        m2 += (6 - fs) * v * v
    return m1, m2


@kernel
def torpedo_luck_nb(rt, g, side, hits, resolved, dmg, sunk, capital, escort, rem):
    """The luck of a torpedo attack's effect rolls (5.3.1 steps 8 and 10): the ``hits`` counted
    by the hit dice become ``dmg`` markers (plus ``rem``, the target's remaining hull, on a Sunk);
    each of the ``resolved`` hits (the rolling stops at a Sunk) adds its exact mean and variance
    (:func:`torpedo_hit_moments_nb`), the hits left unrolled after a Sunk deal nothing."""
    m1, m2 = torpedo_hit_moments_nb(rt, capital, escort, rem)
    dealt = dmg + (rem if sunk == 1 else 0)
    luck_nb(g, side, dealt - hits, resolved * m1 - 36 * hits, resolved * (36 * m2 - m1 * m1))


@kernel
def fire_nb(rt, cs, st, g, x, y, w, d, bonus, night_mod, rng, scr):
    """One fire of weapon ``w`` of ``x`` at ``y`` at distance ``d`` (steps 8, 10, 11): hit dice
    (or a lucky hit), saves (torpedo: escort save then the effect table) and damage. Returns True
    if ``y`` was eliminated."""
    hits = fire_hits_nb(rt, cs, st, g, x, w, d, bonus, night_mod, rng, scr)
    return resolve_hits_nb(rt, cs, st, g, x, y, w, hits, rng, scr)


@kernel
def fire_hits_nb(rt, cs, st, g, x, w, d, bonus, night_mod, rng, scr):
    """Hits of one fire before saves (step 8 and the lucky hit)."""
    dice = weapon_dice_nb(cs, st, x, w)
    if dice > 0:
        need = hit_need_nb(rt, distance_penalty_nb(w, d), bonus, night_mod)
        h = roll_hits_nb(dice, need, rng, scr)
        hit_luck_nb(g, x // MAXC, dice, need, h)
        return h
    if g[G_NIGHT] == 1:
        return 0  # no lucky hit at night (10.2)
    h = lucky_hit_nb(rt, rng, scr)
    lucky_luck_nb(rt, g, x // MAXC, h)
    return h


@kernel
def resolve_hits_nb(rt, cs, st, g, x, y, w, hits, rng, scr):
    """Saves and damage of ``hits`` hits on ``y`` (steps 8 torpedo effects, 10, 11)."""
    if hits <= 0:
        return False
    if w == W_TORPEDO:
        ty = cs[y, C_TYPE]
        cap = ty == CAPITAL
        esc = is_escort_nb(ty)
        dmg, sunk, resolved = torpedo_effect_rolls_nb(rt, hits, cap, esc, rng, scr)
        rem = cs[y, C_HULL] - st[y, S_DMG]
        torpedo_luck_nb(rt, g, x // MAXC, hits, resolved, dmg, sunk, cap, esc, rem if rem > 0 else 0)
        return apply_damage_nb(cs, st, g, y, dmg, sunk)
    stand = save_hits_nb(rt, hits, cs[y, C_ARMOUR], rng, scr)
    save_luck_nb(rt, g, x // MAXC, hits, cs[y, C_ARMOUR], stand)
    return apply_damage_nb(cs, st, g, y, stand, np.int64(0))


@kernel
def _stress_for_nb(rt, w):
    return 1 + (rt[R_MAIN_EXTRA] if w == W_MAIN else 0)


@kernel
def attack_nb(B, a, t, rng, scr):
    """One combat action of card ``a`` against enemy card ``t`` (Rule 5.3.1, see the module
    docstring). ``a`` and ``t`` must pass ``fleet.attack_possible_nb``; ``B``: the
    :class:`~.bundles.Board` (rt, cs, st, g, piles, hands, akind, ak, pp).

    Returns:
        The weapon fired (enums.W_*), or -1 when the combat ended before the hit roll (no weapon
        at the combat distance, evasion, the attacker sunk first); stress is then not taken.
    """
    rt, cs, st, g, piles, hands, akind, ak, pp = B
    side = a // MAXC
    passive = 1 - side
    g[G_ATTACKS0 + side] += 1
    restrict = g[G_RESTRICT]
    # steps 1-2: combat distance, then the weapon
    e = distance_entry_nb(rt, cs, st, a, t)
    if e == SPEED:
        chooser = side if speed_chooser_nb(cs, st, a, t) == 0 else passive
        d = choose_distance_nb(rt, cs, st, g, pp, chooser, side, a, t, rng)
    else:
        d = e
    w = choose_weapon_nb(rt, cs, st, g, pp, side, a, t, d, restrict, rng)
    if w < 0:
        return -1
    night = g[G_NIGHT] == 1
    # step 3: an escort attacks a submarine about to fire torpedoes
    if w == W_TORPEDO and cs[a, C_TYPE] == SUBMARINE:
        esc = choose_escort_vs_sub_nb(rt, cs, st, g, pp, passive, a, rng)
        if esc >= 0:
            nm = rt[R_NIGHT_MOD] if night else 0
            gone = fire_nb(rt, cs, st, g, esc, a, np.int64(W_ASW), st[esc, S_ROW], np.int64(0), nm, rng, scr)
            add_stress_nb(st, g, esc, np.int64(1))
            if gone:
                return -1
    # step 4: submarine evasion of an AS attack
    if w == W_ASW and cs[t, C_TYPE] == SUBMARINE:
        if d6_nb(rng, scr) >= rt[R_SUB_EVASION]:
            return -1
    # step 5: support card
    bonus = np.int64(0)
    night_mod = rt[R_NIGHT_MOD] if night else 0
    if g[G_SUPPORT_USED] == 0:
        i = choose_support_nb(B, side, a, t, w, d, rng)
        if i >= 0:
            k = akind[play_from_hand_nb(piles, hands, g, side, i)]
            g[G_SUPPORT_USED] = 1
            if k == K_OPTICS:
                bonus += rt[R_OPTICS]
            elif k == K_FLARES:
                night_mod = np.int64(0)
            else:
                g[G_CABO] = 1
    # step 6: interruption card
    if g[G_INTERRUPT_USED] == 0:
        i = choose_interruption_nb(B, passive, a, t, w, d, rng)
        if i >= 0:
            k = akind[play_from_hand_nb(piles, hands, g, passive, i)]
            g[G_INTERRUPT_USED] = 1
            if k == K_SMOKE:
                bonus -= rt[R_SMOKE]
            elif k == K_SURPRISE:
                if can_return_fire_nb(rt, cs, st, g, t, a, d):
                    rw = choose_weapon_nb(rt, cs, st, g, pp, passive, t, a, d, np.int64(-1), rng)
                    if rw >= 0:
                        nm = rt[R_NIGHT_MOD] if night else 0
                        gone = fire_nb(rt, cs, st, g, t, a, rw, d, np.int64(0), nm, rng, scr)
                        add_stress_nb(st, g, t, _stress_for_nb(rt, rw))
                        if gone:
                            return -1
            elif k == K_COLLATERAL:
                if g[G_POL0 + passive] == FAM_RANDOM:
                    o = random_collateral_target_nb(rt, cs, st, g, passive, a, t, w, rng)
                else:
                    o = collateral_target_nb(rt, cs, st, g, pp, passive, a, t, w)
                if o >= 0:
                    t = o
    # step 7: light AA fire at a bombing aircraft
    if w == W_BOMBING:
        printed = cs[t, C_AAL]
        if printed > 0:
            dice = reduced_value_nb(cs, st, t, printed)
            if dice > 0:
                need = rt[R_AA_DEFENCE] + (rt[R_NIGHT_MOD] if night else 0)
                aa = roll_hits_nb(dice, need, rng, scr)
                hit_luck_nb(g, passive, dice, need, aa)
            elif night:
                aa = np.int64(0)
            else:
                aa = lucky_hit_nb(rt, rng, scr)
                lucky_luck_nb(rt, g, passive, aa)
            if aa > 0:
                stand = save_hits_nb(rt, aa, cs[a, C_ARMOUR], rng, scr)
                save_luck_nb(rt, g, passive, aa, cs[a, C_ARMOUR], stand)
                if apply_damage_nb(cs, st, g, a, stand, np.int64(0)):
                    return -1
    # step 8: hit resolution
    hits = fire_hits_nb(rt, cs, st, g, a, w, d, bonus, night_mod, rng, scr)
    back = np.int64(0)
    if w == W_AIR and weapon_usable_nb(cs, t, a, np.int64(W_AIR)):
        back = fire_hits_nb(rt, cs, st, g, t, np.int64(W_AIR), d, np.int64(0), night_mod, rng, scr)
    if w == W_TORPEDO and g[G_CABO] == 1 and cs[a, C_TYPE] == DESTROYER:
        hits *= 2
    # step 9: Faccioso
    if hits > 0:
        i = choose_faccioso_nb(rt, cs, st, g, hands, akind, pp, passive, t, hits, rng)
        if i >= 0:
            play_from_hand_nb(piles, hands, g, passive, i)
            g[G_INTERRUPT_USED] = 1
            hits -= 1
    # steps 10-11: saves and damage (air combat: both at once)
    resolve_hits_nb(rt, cs, st, g, a, t, w, hits, rng, scr)
    if back > 0:
        resolve_hits_nb(rt, cs, st, g, t, a, np.int64(W_AIR), back, rng, scr)
    # step 12: stress
    if st[a, S_STATUS] == ST_IN_PLAY:
        add_stress_nb(st, g, a, _stress_for_nb(rt, w))
    if w == W_AIR and st[t, S_STATUS] == ST_IN_PLAY and weapon_usable_nb(cs, t, a, np.int64(W_AIR)):
        add_stress_nb(st, g, t, np.int64(1))
    # step 13: submarine dive
    if w == W_TORPEDO and cs[a, C_TYPE] == SUBMARINE and st[a, S_STATUS] == ST_IN_PLAY:
        if choose_dive_nb(g, pp, side, rng):
            st[a, S_UP] = 0
    # 5.4: main armament fire lets the opposing player discover one card
    if w == W_MAIN:
        s = choose_main_discovery_nb(cs, st, g, pp, passive, rng)
        if s >= 0:
            uncover_nb(cs, st, g, s, passive)
    return w


