"""numba kernels of the Dawn of Empire battle line (Rules 6.2-6.3, 8.3, 10.1-10.2).

Only ``@njit`` functions live here (suffix ``_nb``). One battle is resolved by
:func:`battle_nb` on flat per-unit arrays; :func:`play_battles_nb` plays a batch of battles of the
same two squadrons, one random stream per battle. The campaign game calls :func:`battle_nb`
directly for each battle it fights.

Unit arrays (length ``n = n0 + n1``): units ``0..n0-1`` are side 0's squadron in line order (top
of the stack first), units ``n0..n-1`` side 1's. A side's leader, if it has stars, is aboard its
first unit (Rule 6.2 A).

Rulings (docs/rulings.md, "Battle line"):

* Round 1 uses the given order; excess units overlap from the front of the opposing line,
  repeating (8.3.1 C-E).
* From round 2 (8.3.3) damaged units go to the end, least damage first; units with the same damage
  go in the order their side picks (8.3.3 A, ruling B11: ``reform0``/``reform1``, by default their
  previous relative order); excess undamaged units overlap from the front of the opposing line and
  the k-th excess damaged unit faces the k-th opposing unit counted from the end.
* Dice per unit: attack less damage, at least 1 (8.3.2.3 B), plus one die for each of the
  ``stars`` units starting at the leader's ship and going down the line (6.2 E-F); stars beyond
  the end of the line are lost.
* A 6 hits and rolls a damage die, a 5 disables (8.3.2); results apply after both sides fire
  (8.3 B); a unit with damage > defense is sunk (8.3.2.2 C).
* A leader whose ship takes damage: killed if it sinks, else killed on a 6 (6.3); he leaves with a
  disabled ship (6.3 B) or a ship that disengages by speed.
* With speed disengagement (10.2), a side able to leave does so if it chooses (``flee0``/``flee1``,
  ruling C18; always by default): before round 1 a side whose every unit is faster than every
  opposing unit leaves (10.2.1); after each round every unit faster than every opposing unit in
  line leaves (10.2.2 B, 14.9). Movement is reduced by damage, never below 2 (8.3.2.3 B).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS, new_state_nb
from .dice import d6_nb, die_nb
from .enums import (
    DISABLED,
    END_GUNFIRE,
    END_MAX_ROUNDS,
    END_MUTUAL,
    END_SPEED,
    ESCAPED,
    IN_LINE,
    LEADER_ACTIVE,
    LEADER_KILLED,
    LEADER_LEFT,
    LEADER_NONE,
    RF_KEEP,
    RF_RANDOM,
    RF_STRONG,
    SPEED_NEVER,
    SPEED_STOP,
    SUNK,
)

__all__ = ["FLEE_ALWAYS", "FLEE_COIN", "BattleChoices", "BattleOut", "BattleSpec", "DEFAULT_CHOICES", "Squadrons",
           "W_DICE", "W_DMG", "W_FLAGS", "W_KEY", "W_LINE0", "W_LINE1", "W_NF", "W_PEND", "battle_nb", "flee_choice_nb",
           "effective_attack_nb", "effective_movement_nb", "leader_position_nb", "line_target_nb", "new_work",
           "play_battles_nb", "reform_line_nb", "unit_dice_nb"]

# ---------------------------------------------------------------- the battle kernel's bundles (issue 27)
#: the units of both squadrons (``n = n0 + n1``; side 0's first, each in line order): ``att``,
#: ``dfn``, ``mov`` ``int64[n]`` printed attack, defense and movement (MP); ``dmg`` ``int64[n]``
#: damage points (initial in, final out); ``status`` ``int8[n]`` (written: IN_LINE, SUNK, DISABLED,
#: ESCAPED)
Squadrons = namedtuple("Squadrons", ["att", "dfn", "mov", "dmg", "status"])
#: what the battle file and the options fix (all ``int64``): the squadron sizes ``n0, n1 >= 1``,
#: each side's leader stars (0: none; aboard the side's first unit), the round limit
#: ``max_rounds >= 1`` and ``speed_mode`` (SPEED_NEVER, SPEED_WHEN_ABLE or SPEED_STOP)
BattleSpec = namedtuple("BattleSpec", ["n0", "n1", "stars0", "stars1", "max_rounds", "speed_mode"])
#: each side's choices in a battle (all ``int64``): ``flee0, flee1`` its 10.2 disengagement
#: threshold (:func:`flee_choice_nb`), ``reform0, reform1`` its 8.3.3 A order of units with the
#: same damage (``enums.RF_*``)
BattleChoices = namedtuple("BattleChoices", ["flee0", "flee1", "reform0", "reform1"])
#: :func:`play_battles_nb`'s output, one row per battle: ``winner int8[g]``, ``rounds int32[g]``,
#: ``reason int8[g]``, ``status int8[g, n]``, ``damage int16[g, n]``, ``leader int8[g, 2]``,
#: ``luck int32[g, 4]``
BattleOut = namedtuple("BattleOut", ["winner", "rounds", "reason", "status", "damage", "leader", "luck"])

# rows of the battle scratch ``work[W_NF, n]`` (:func:`new_work`): each side's current line, the
# damage points each unit received this round, its flags this round (bit 1 disabled, bit 2
# damaged), the luck record (``work[W_DICE, s]`` the gunfire dice side ``s`` rolled, ``work[W_DMG,
# s]`` the damage points they dealt; ``simlab luck``) and the 8.3.3 A reform keys
W_LINE0, W_LINE1, W_PEND, W_FLAGS, W_DICE, W_DMG, W_KEY, W_NF = range(8)


@kernel(inline="always")
def effective_attack_nb(attack, damage):
    """Attack dice of a unit: attack less damage, never below 1 (Rule 8.3.2.3 B)."""
    a = attack - damage
    floor = 1 if attack >= 1 else attack
    return a if a > floor else floor


@kernel(inline="always")
def effective_movement_nb(movement, damage):
    """Movement of a damaged unit: movement less damage, never below 2 (Rule 8.3.2.3 B)."""
    m = movement - damage
    floor = 2 if movement >= 2 else movement
    return m if m > floor else floor


@kernel(inline="always")
def line_target_nb(i, no, first_round, damaged, cu, cd):
    """Whom the unit at position ``i`` of its line fires at (Rules 8.3.1 C-E, 8.3.3 D; rulings B1-B2).

    Args:
        i: the unit's position in its line (0 = top); no: units in the opposing line (``>= 1``).
        first_round: True in round 1; damaged: the unit has damage points.
        cu, cd: excess undamaged / damaged units of this line already placed (this round).

    Returns:
        ``(position in the opposing line, cu, cd)`` with the counters advanced.
    """
    if i < no:
        return i, cu, cd
    if first_round:
        return (i - no) % no, cu, cd
    if not damaged:
        return cu % no, cu + 1, cd
    return no - 1 - (cd % no), cu, cd + 1


@kernel(inline="always")
def leader_position_nb(line, ns, ship, active):
    """Position of an active leader's ship in ``line[:ns]``, or -1 (Rule 6.2 E-F, ruling B4)."""
    if active:
        for i in range(ns):
            if line[i] == ship:
                return i
    return -1


@kernel(inline="always")
def unit_dice_nb(attack, damage, i, lpos, stars):
    """Dice rolled by the unit at position ``i``: attack less damage, at least 1 (Rule 8.3.2.3 B),
    plus one if it is one of the ``stars`` units from the leader's position ``lpos`` down the line
    (Rule 6.2 E-F, ruling B4; ``lpos = -1``: no active leader)."""
    d = effective_attack_nb(attack, damage)
    if lpos >= 0 and i >= lpos and i < lpos + stars:
        d += 1
    return d


def new_work(n: int) -> np.ndarray:
    """Scratch space for :func:`battle_nb` with up to ``n`` units: ``ndarray(int64, shape=(W_NF, n))``
    (rows ``W_*``)."""
    return np.zeros((W_NF, max(n, 1)), dtype=np.int64)


from .enums import FLEE_ALWAYS, FLEE_COIN  # noqa: E402,F401  (a side's disengagement choice, 10.2)

#: both sides always leave by speed when able (10.2) and keep the previous order of equally damaged
#: units (8.3.3 A): the choices of the ``line-order`` policy at its defaults and of scripted tests
DEFAULT_CHOICES = BattleChoices(FLEE_ALWAYS, FLEE_ALWAYS, RF_KEEP, RF_KEEP)


@kernel
def flee_choice_nb(flee, own, enemy, rng):
    """Whether a side able to disengage by speed does so (Rule 10.2: it "may"): ``own`` and
    ``enemy`` are the attack dice in line; ``flee`` the side's threshold in permille (see
    :func:`battle_nb`)."""
    if flee == FLEE_COIN:
        return d6_nb(rng) <= 3
    return 1000 * own < flee * enemy


@kernel
def wants_to_flee_nb(flee, lo, hi, olo, ohi, att, dmg, rng):
    """:func:`flee_choice_nb` for units ``lo..hi-1`` against ``olo..ohi-1`` (before battle)."""
    if flee >= FLEE_ALWAYS:
        return True
    own = 0
    for i in range(lo, hi):
        own += effective_attack_nb(att[i], dmg[i])
    enemy = 0
    for i in range(olo, ohi):
        enemy += effective_attack_nb(att[i], dmg[i])
    return flee_choice_nb(flee, own, enemy, rng)


@kernel
def wants_to_flee_line_nb(flee, line, ln, oline, oln, att, dmg, rng):
    """:func:`flee_choice_nb` for the units of ``line[:ln]`` against ``oline[:oln]`` (after a round)."""
    if flee >= FLEE_ALWAYS:
        return True
    own = 0
    for i in range(ln):
        own += effective_attack_nb(att[line[i]], dmg[line[i]])
    enemy = 0
    for i in range(oln):
        enemy += effective_attack_nb(att[oline[i]], dmg[oline[i]])
    return flee_choice_nb(flee, own, enemy, rng)


@kernel
def _reform_nb(line, ln, dmg):
    # Rule 8.3.3: undamaged first in their order, then damaged by damage, ties in previous order.
    # Insertion sort on the key (damage > 0, damage) is stable.
    for i in range(1, ln):
        u = line[i]
        ku = dmg[u]
        j = i - 1
        while j >= 0 and dmg[line[j]] > ku:
            line[j + 1] = line[j]
            j -= 1
        line[j + 1] = u


@kernel
def reform_line_nb(line, ln, sq, mode, rng, key):
    """Reform a battle line after a round (Rule 8.3.3 A-B, rulings B2, B11): ``line[:ln]`` (unit
    indices, the survivors in their previous order) becomes the undamaged units in their order, then
    the damaged ones by damage, least first; units with the same damage go in the order the owning
    side picks, ``mode`` (``enums.RF_*``): ``RF_KEEP`` their previous order, ``RF_STRONG`` the most
    defense left first (then the most attack), ``RF_WEAK`` the least defense left first (then the
    least attack), ``RF_RANDOM`` a uniformly random order (one draw of ``2**20`` per damaged unit
    that shares its damage with another; ties keep the previous order). ``sq``: the
    :class:`Squadrons`; ``key``: scratch ``int64[>= n]`` (``work[W_KEY]``); ``rng`` is drawn only
    under ``RF_RANDOM``. The policy reads only its own units' printed values and damage."""
    if mode == RF_KEEP:
        _reform_nb(line, ln, sq.dmg)
        return
    dmg, dfn, att = sq.dmg, sq.dfn, sq.att
    for i in range(ln):
        u = line[i]
        if dmg[u] == 0:
            key[u] = 0
        elif mode == RF_RANDOM:
            tie = False
            for j in range(ln):
                if j != i and dmg[line[j]] == dmg[u]:
                    tie = True
                    break
            key[u] = np.int64(die_nb(rng, 1 << 20)) if tie else 0
        else:
            k = (dfn[u] - dmg[u]) * 64 + att[u]
            key[u] = -k if mode == RF_STRONG else k
    # stable insertion sort on (damage, key)
    for i in range(1, ln):
        u = line[i]
        du = dmg[u]
        ku = key[u]
        j = i - 1
        while j >= 0 and (dmg[line[j]] > du or (dmg[line[j]] == du and key[line[j]] > ku)):
            line[j + 1] = line[j]
            j -= 1
        line[j + 1] = u


@kernel
def battle_nb(sq, spec, choice, rng, work):
    """Resolve one battle between two squadrons (Rules 6.2-6.3, 8.3, 10.1-10.2).

    Args:
        sq: the :class:`Squadrons` (``n = n0 + n1`` units): ``att``, ``dfn``, ``mov`` read,
            ``dmg`` updated in place (initial damage in, final out), ``status`` written.
        spec: the :class:`BattleSpec`: squadron sizes ``n0, n1 >= 1``, leader stars of each side
            (0 = no leader; aboard its first unit), ``max_rounds`` (``>= 1``: the battle stops as a
            draw after this many rounds) and ``speed_mode``: SPEED_NEVER or SPEED_WHEN_ABLE (Rule
            10.2), or SPEED_STOP (14.9: as when-able, but stop after the first round in which units
            disengage by speed).
        choice: the :class:`BattleChoices`, each side's choices: ``flee0, flee1`` whether to use a
            disengagement by speed it is able to make (10.2 "may disengage", ruling C18): it leaves
            when ``1000 * own < flee * enemy``, the attack dice (less damage) of the units still in
            line; ``FLEE_ALWAYS`` always, 0 never, ``FLEE_COIN`` (-1) on a die roll of 1-3 at each
            chance. ``reform0, reform1``: the order of its units with the same damage when the line
            is reformed (8.3.3 A, ruling B11; ``enums.RF_*``, :func:`reform_line_nb`).
            :data:`DEFAULT_CHOICES`: always leave, keep the previous order.
        rng: the game's stream (``uint64[STATE_WORDS]``).
        work: scratch from :func:`new_work` (``int64[W_NF, >= n]``); on return ``work[W_DICE, s]``
            holds the gunfire dice side ``s`` rolled (8.3.2) and ``work[W_DMG, s]`` the damage points
            they dealt (the sum of the damage dice after each 6, overkill included), for ``simlab luck``.

    Returns:
        ``(winner, rounds, reason, leader0, leader1)``: winner 0, 1 or -1 (neither), rounds fought,
        an END_* reason, and each side's leader fate (LEADER_* enums).
    """
    att, dfn, mov, dmg, status = sq.att, sq.dfn, sq.mov, sq.dmg, sq.status
    n0, n1, stars0, stars1 = spec.n0, spec.n1, spec.stars0, spec.stars1
    max_rounds, speed_mode = spec.max_rounds, spec.speed_mode
    flee0, flee1, reform0, reform1 = choice.flee0, choice.flee1, choice.reform0, choice.reform1
    n = n0 + n1
    line0 = work[W_LINE0]
    line1 = work[W_LINE1]
    pend = work[W_PEND]    # damage points received this round
    flags = work[W_FLAGS]  # bit 1: disabled this round, bit 2: damaged this round
    luck_dice = work[W_DICE]   # luck: gunfire dice side s rolled (8.3.2; leader and flee dice not counted)
    luck_dmg = work[W_DMG]     # luck: damage points those dice dealt (the damage die after each 6)
    for s in range(2):
        luck_dice[s] = 0
        luck_dmg[s] = 0
    for i in range(n):
        status[i] = IN_LINE
        pend[i] = 0
        flags[i] = 0
    for i in range(n0):
        line0[i] = i
    for i in range(n1):
        line1[i] = n0 + i
    ln0 = n0
    ln1 = n1
    stars = (stars0, stars1)
    lship0 = 0
    lship1 = n0
    lstate0 = LEADER_ACTIVE if stars0 > 0 else LEADER_NONE
    lstate1 = LEADER_ACTIVE if stars1 > 0 else LEADER_NONE

    if speed_mode != SPEED_NEVER:
        # Rule 10.2.1: a whole squadron faster than every opposing unit may leave before battle.
        min0 = 1 << 30
        max0 = -1
        for i in range(n0):
            m = effective_movement_nb(mov[i], dmg[i])
            min0 = min(min0, m)
            max0 = max(max0, m)
        min1 = 1 << 30
        max1 = -1
        for i in range(n0, n):
            m = effective_movement_nb(mov[i], dmg[i])
            min1 = min(min1, m)
            max1 = max(max1, m)
        leaver = -1
        if min0 > max1 and wants_to_flee_nb(flee0, 0, n0, n0, n, att, dmg, rng):
            leaver = 0
        elif min1 > max0 and wants_to_flee_nb(flee1, n0, n, 0, n0, att, dmg, rng):
            leaver = 1
        if leaver >= 0:
            lo = 0 if leaver == 0 else n0
            hi = n0 if leaver == 0 else n
            for i in range(lo, hi):
                status[i] = ESCAPED
            if leaver == 0 and lstate0 == LEADER_ACTIVE:
                lstate0 = LEADER_LEFT
            if leaver == 1 and lstate1 == LEADER_ACTIVE:
                lstate1 = LEADER_LEFT
            return 1 - leaver, 0, END_SPEED, lstate0, lstate1

    rounds = 0
    winner = -1
    reason = END_MAX_ROUNDS
    while True:
        if rounds >= max_rounds:
            winner = -1
            reason = END_MAX_ROUNDS
            break
        # ---- fire: both sides, results pending (Rule 8.3 B)
        for s in range(2):
            if s == 0:
                line, ns, oline, no, lstate, lship = line0, ln0, line1, ln1, lstate0, lship0
            else:
                line, ns, oline, no, lstate, lship = line1, ln1, line0, ln0, lstate1, lship1
            lpos = leader_position_nb(line, ns, lship, lstate == LEADER_ACTIVE)
            cu = 0
            cd = 0
            for i in range(ns):
                u = line[i]
                k, cu, cd = line_target_nb(i, no, rounds == 0, dmg[u] > 0, cu, cd)
                t = oline[k]
                dice = unit_dice_nb(att[u], dmg[u], i, lpos, stars[s])
                luck_dice[s] += dice        # luck recording: gunfire dice of side s
                for _ in range(dice):
                    r = d6_nb(rng)
                    if r == 6:
                        h = d6_nb(rng)
                        pend[t] += h
                        luck_dmg[s] += h    # luck recording: damage points side s's dice dealt
                        flags[t] |= 2
                    elif r == 5:
                        flags[t] |= 1
        # ---- apply (Rules 8.3.2.1-8.3.2.2)
        for s in range(2):
            line = line0 if s == 0 else line1
            ns = ln0 if s == 0 else ln1
            for i in range(ns):
                u = line[i]
                if pend[u] > 0:
                    dmg[u] += pend[u]
                if dmg[u] > dfn[u]:
                    status[u] = SUNK
                elif flags[u] & 1:
                    status[u] = DISABLED
        # ---- leader casualties (Rule 6.3)
        if lstate0 == LEADER_ACTIVE:
            if flags[lship0] & 2:
                if status[lship0] == SUNK or d6_nb(rng) == 6:
                    lstate0 = LEADER_KILLED
            if lstate0 == LEADER_ACTIVE and status[lship0] == DISABLED:
                lstate0 = LEADER_LEFT
        if lstate1 == LEADER_ACTIVE:
            if flags[lship1] & 2:
                if status[lship1] == SUNK or d6_nb(rng) == 6:
                    lstate1 = LEADER_KILLED
            if lstate1 == LEADER_ACTIVE and status[lship1] == DISABLED:
                lstate1 = LEADER_LEFT
        rounds += 1
        # ---- close the lines and reform (Rule 8.3.3)
        k = 0
        for i in range(ln0):
            u = line0[i]
            pend[u] = 0
            flags[u] = 0
            if status[u] == IN_LINE:
                line0[k] = u
                k += 1
        ln0 = k
        k = 0
        for i in range(ln1):
            u = line1[i]
            pend[u] = 0
            flags[u] = 0
            if status[u] == IN_LINE:
                line1[k] = u
                k += 1
        ln1 = k
        if reform0 == RF_KEEP:
            _reform_nb(line0, ln0, dmg)
        else:
            reform_line_nb(line0, ln0, sq, reform0, rng, work[W_KEY])
        if reform1 == RF_KEEP:
            _reform_nb(line1, ln1, dmg)
        else:
            reform_line_nb(line1, ln1, sq, reform1, rng, work[W_KEY])
        # ---- disengagement by gunfire (Rule 10.1)
        if ln0 == 0 and ln1 == 0:
            winner = -1
            reason = END_MUTUAL
            break
        if ln0 == 0:
            winner = 1
            reason = END_GUNFIRE
            break
        if ln1 == 0:
            winner = 0
            reason = END_GUNFIRE
            break
        # ---- disengagement by speed (Rule 10.2.2)
        if speed_mode != SPEED_NEVER:
            max0 = -1
            for i in range(ln0):
                max0 = max(max0, effective_movement_nb(mov[line0[i]], dmg[line0[i]]))
            max1 = -1
            for i in range(ln1):
                max1 = max(max1, effective_movement_nb(mov[line1[i]], dmg[line1[i]]))
            # a side with faster units decides, from the lines in sight, whether they leave (10.2.2)
            go0 = max0 > max1 and wants_to_flee_line_nb(flee0, line0, ln0, line1, ln1, att, dmg, rng)
            go1 = max1 > max0 and wants_to_flee_line_nb(flee1, line1, ln1, line0, ln0, att, dmg, rng)
            k = 0
            for i in range(ln0):
                u = line0[i]
                if go0 and effective_movement_nb(mov[u], dmg[u]) > max1:
                    status[u] = ESCAPED
                    if u == lship0 and lstate0 == LEADER_ACTIVE:
                        lstate0 = LEADER_LEFT
                else:
                    line0[k] = u
                    k += 1
            esc0 = ln0 - k
            ln0 = k
            k = 0
            for i in range(ln1):
                u = line1[i]
                if go1 and effective_movement_nb(mov[u], dmg[u]) > max0:
                    status[u] = ESCAPED
                    if u == lship1 and lstate1 == LEADER_ACTIVE:
                        lstate1 = LEADER_LEFT
                else:
                    line1[k] = u
                    k += 1
            esc1 = ln1 - k
            ln1 = k
            if ln0 == 0:
                winner = 1
                reason = END_SPEED
                break
            if ln1 == 0:
                winner = 0
                reason = END_SPEED
                break
            if speed_mode == SPEED_STOP and (esc0 > 0 or esc1 > 0):
                # 14.9: the side whose units disengaged breaks off; the caller plays the pursuit
                winner = 1 if esc0 > 0 else 0
                reason = END_SPEED
                break
    return winner, rounds, reason, lstate0, lstate1


@kernel(nogil=True, nrt=True)
def play_battles_nb(seeds, sq0, spec, choice, out):
    """Play one battle per seed between the same two squadrons.

    Args:
        seeds: ``uint64[g]`` stream seeds.
        sq0: the :class:`Squadrons`: unit values and initial damage (``sq0.dmg``; read only, as
            ``sq0.status``: each battle plays on copies).
        spec, choice: the :class:`BattleSpec` and :class:`BattleChoices` of :func:`battle_nb`.
        out: the :class:`BattleOut`, written: ``winner int8[g]``, ``rounds int32[g]``,
            ``reason int8[g]``, ``status int8[g, n]`` final status, ``damage int16[g, n]`` final
            damage points, ``leader int8[g, 2]`` leader fates, ``luck int32[g, 4]`` gunfire dice
            rolled by side 0 and 1, then the damage points they dealt (``work[W_DICE]`` and
            ``work[W_DMG]`` of :func:`battle_nb`; ``simlab luck``).
    """
    n = spec.n0 + spec.n1
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    work = np.zeros((W_NF, n), dtype=np.int64)
    dmg = np.zeros(n, dtype=np.int64)
    status = np.zeros(n, dtype=np.int8)
    sq = Squadrons(sq0.att, sq0.dfn, sq0.mov, dmg, status)
    dmg0 = sq0.dmg
    o_w, o_r, o_why, o_st, o_dmg, o_ld, o_luck = out.winner, out.rounds, out.reason, out.status, out.damage, \
        out.leader, out.luck
    for g in range(seeds.shape[0]):
        new_state_nb(seeds[g], rng)
        for i in range(n):
            dmg[i] = dmg0[i]
        w, r, why, l0, l1 = battle_nb(sq, spec, choice, rng, work)
        o_w[g] = w
        o_r[g] = r
        o_why[g] = why
        o_ld[g, 0] = l0
        o_ld[g, 1] = l1
        for s in range(2):
            o_luck[g, s] = work[W_DICE, s]
            o_luck[g, 2 + s] = work[W_DMG, s]
        for i in range(n):
            o_st[g, i] = status[i]
            o_dmg[g, i] = dmg[i]
