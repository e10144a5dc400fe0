"""A straightforward pure-Python resolver of one Dawn of Empire battle (no numba, no numpy).

It plays the same battle as :func:`simlab.games.doe.kernels.battle_nb` (Rules 6.2-6.3, 8.3,
10.1-10.2 with the rulings B1-B10 of docs/rulings.md) with plain lists and loops and a
``random.Random`` seeded per battle. It exists for two reasons: ``simlab bench`` measures the
kernel against it (issue 2: the kernel must be at least 50 times faster), and a test checks that
its outcome frequencies agree with the kernel's, so the kernel cannot drift from the rules it
states without a second, readable implementation noticing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["ReferenceResult", "play_reference", "resolve_battle"]

IN_LINE, SUNK, DISABLED, ESCAPED = 0, 1, 2, 3            # enums.IN_LINE ... (same codes)
NONE, ACTIVE, KILLED, LEFT = 0, 1, 2, 3                   # enums.LEADER_*
GUNFIRE, SPEED, MUTUAL, MAX_ROUNDS = 0, 1, 2, 3           # enums.END_*


@dataclass
class ReferenceResult:
    """One battle: ``winner`` 0/1/-1, ``rounds``, ``reason`` (END_* code), per unit ``status`` and
    final ``damage`` (lists), per side ``leader`` fate (LEADER_* code)."""

    winner: int
    rounds: int
    reason: int
    status: list
    damage: list
    leader: list


def _dice(attack, damage):
    # Rule 8.3.2.3 B: attack less damage, never below 1 (a printed 0 stays 0)
    return max(attack - damage, 1 if attack >= 1 else attack)


def _speed(movement, damage):
    # Rule 8.3.2.3 B: movement less damage, never below 2 (a printed value below 2 stays)
    return max(movement - damage, 2 if movement >= 2 else movement)


def resolve_battle(units, n0, stars, rng, max_rounds=1000, speed=False):
    """Resolve one battle.

    Args:
        units: list of ``(attack, defense, movement, damage)``, side 0's squadron first, each in
            line order.
        n0: side 0's squadron size; stars: ``(stars0, stars1)``, each leader aboard his side's
            first unit (Rule 6.2 A).
        rng: a ``random.Random``.
        max_rounds: rounds before the battle stops as a draw (ruling B9).
        speed: disengagement by speed (Rule 10.2, option ``when-able``).

    Returns:
        :class:`ReferenceResult`.
    """
    n = len(units)
    attack = [u[0] for u in units]
    defense = [u[1] for u in units]
    movement = [u[2] for u in units]
    damage = [u[3] for u in units]
    status = [IN_LINE] * n
    lines = [list(range(n0)), list(range(n0, n))]
    ship = [0, n0]
    leader = [ACTIVE if stars[s] > 0 else NONE for s in (0, 1)]

    def d6():
        return rng.randint(1, 6)

    if speed:
        # Rule 10.2.1: a squadron faster than every opposing unit leaves before battle
        v = [[_speed(movement[u], damage[u]) for u in lines[s]] for s in (0, 1)]
        for s in (0, 1):
            if min(v[s]) > max(v[1 - s]):
                for u in lines[s]:
                    status[u] = ESCAPED
                if leader[s] == ACTIVE:
                    leader[s] = LEFT
                return ReferenceResult(1 - s, 0, SPEED, status, damage, leader)

    rounds = 0
    while True:
        if rounds >= max_rounds:
            return ReferenceResult(-1, rounds, MAX_ROUNDS, status, damage, leader)
        # ---- both sides fire; results wait until both have fired (Rule 8.3 B)
        taken = [0] * n
        disabled = [False] * n
        for s in (0, 1):
            mine, theirs = lines[s], lines[1 - s]
            bonus_at = mine.index(ship[s]) if leader[s] == ACTIVE else -1
            excess_fresh = excess_hurt = 0
            for i, u in enumerate(mine):
                if i < len(theirs):
                    target = theirs[i]
                elif rounds == 0:                       # 8.3.1 C-E: overlap from the front
                    target = theirs[(i - len(theirs)) % len(theirs)]
                elif damage[u] == 0:                    # 8.3.3 D: undamaged from the front
                    target = theirs[excess_fresh % len(theirs)]
                    excess_fresh += 1
                else:                                   # damaged from the end
                    target = theirs[len(theirs) - 1 - excess_hurt % len(theirs)]
                    excess_hurt += 1
                dice = _dice(attack[u], damage[u])
                if bonus_at >= 0 and bonus_at <= i < bonus_at + stars[s]:
                    dice += 1                           # 6.2 E-F: a die per star down the line
                for _ in range(dice):
                    roll = d6()
                    if roll == 6:
                        taken[target] += d6()
                    elif roll == 5:
                        disabled[target] = True
        # ---- results (Rules 8.3.2.1-8.3.2.2)
        for s in (0, 1):
            for u in lines[s]:
                damage[u] += taken[u]
                if damage[u] > defense[u]:
                    status[u] = SUNK
                elif disabled[u]:
                    status[u] = DISABLED
        # ---- leader casualties (Rule 6.3)
        for s in (0, 1):
            if leader[s] != ACTIVE:
                continue
            u = ship[s]
            if taken[u] > 0 and (status[u] == SUNK or d6() == 6):
                leader[s] = KILLED
            elif status[u] == DISABLED:
                leader[s] = LEFT
        rounds += 1
        # ---- reform the lines (Rule 8.3.3): undamaged first, then by damage, ties keep order
        for s in (0, 1):
            lines[s] = sorted((u for u in lines[s] if status[u] == IN_LINE), key=lambda u: damage[u])
        if not lines[0] and not lines[1]:
            return ReferenceResult(-1, rounds, MUTUAL, status, damage, leader)
        for s in (0, 1):
            if not lines[s]:
                return ReferenceResult(1 - s, rounds, GUNFIRE, status, damage, leader)
        # ---- disengagement by speed after the round (Rule 10.2.2)
        if speed:
            fastest = [max(_speed(movement[u], damage[u]) for u in lines[s]) for s in (0, 1)]
            for s in (0, 1):
                stay = []
                for u in lines[s]:
                    if _speed(movement[u], damage[u]) > fastest[1 - s]:
                        status[u] = ESCAPED
                        if u == ship[s] and leader[s] == ACTIVE:
                            leader[s] = LEFT
                    else:
                        stay.append(u)
                lines[s] = stay
            for s in (0, 1):
                if not lines[s]:
                    return ReferenceResult(1 - s, rounds, SPEED, status, damage, leader)


def play_reference(units, n0, stars, seeds, max_rounds=1000, speed=False):
    """Play one battle per seed with :func:`resolve_battle` (``random.Random(seed)`` each).

    Args:
        units, n0, stars, max_rounds, speed: as in :func:`resolve_battle`.
        seeds: iterable of ints.

    Returns:
        list of :class:`ReferenceResult`, in seed order.
    """
    return [resolve_battle(units, n0, stars, random.Random(int(s)), max_rounds, speed) for s in seeds]
