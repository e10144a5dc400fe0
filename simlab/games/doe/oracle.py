"""A brute-force exact oracle of one Dawn of Empire battle, for tests of ``simlab odds doe-battle``.

It shares no code with :mod:`simlab.games.doe.odds` or the numba kernels: it is written from the
rule text and the rulings B1-B10 of docs/rulings.md, in plain Python, and enumerates every die
one at a time (1-4 nothing, 5 disables, 6 hits and rolls a damage die, Rule 8.3.2) instead of
factorising by target. Whole battles are followed round by round over full battle states (every
unit's status and damage, both lines, both leaders' fates), so it is slow: use it on small
battles only.

``battle_oracle(units0, units1, stars, ...)`` returns the same quantities as the odds engine.
A unit is a tuple ``(attack, defense, movement, damage)``.
"""

from __future__ import annotations

from collections import defaultdict

__all__ = ["battle_oracle", "round_outcomes"]

IN_LINE, SUNK, DISABLED, ESCAPED = "in_line", "sunk", "disabled", "escaped"
ACTIVE, KILLED, LEFT, NONE = "active", "killed", "left", "none"


def _attack_dice(attack: int, damage: int) -> int:
    # Rule 8.3.2.3 B, ruling B3: attack less damage, never below 1 (a printed 0 stays 0)
    if attack <= 0:
        return attack
    return max(1, attack - damage)


def _speed(movement: int, damage: int) -> int:
    # Rule 8.3.2.3 B, ruling B3: movement less damage, never below 2 (a printed value below 2 stays)
    if movement < 2:
        return movement
    return max(2, movement - damage)


def _assignments(state, units, stars, leader_ship):
    """Who fires how many dice at whom this round (Rules 8.3.1 C-E, 8.3.3 D, 6.2 E-F)."""
    lines, dmg, _status, leaders, first = state
    shots = []
    for side in (0, 1):
        mine, theirs = lines[side], lines[1 - side]
        excess_undamaged = 0
        excess_damaged = 0
        bonus_from = None
        if leaders[side] == ACTIVE:
            bonus_from = mine.index(leader_ship[side])
        for pos, u in enumerate(mine):
            if pos < len(theirs):
                target = theirs[pos]
            elif first:
                target = theirs[(pos - len(theirs)) % len(theirs)]
            elif dmg[u] == 0:
                target = theirs[excess_undamaged % len(theirs)]
                excess_undamaged += 1
            else:
                target = theirs[len(theirs) - 1 - excess_damaged % len(theirs)]
                excess_damaged += 1
            n = _attack_dice(units[u][0], dmg[u])
            if bonus_from is not None and bonus_from <= pos < bonus_from + stars[side]:
                n += 1
            shots.append((target, n))
    return shots


def round_outcomes(state, units, stars, leader_ship, speed):
    """Every outcome of one battle round from ``state``, die by die.

    Args:
        state: ``(lines, damage, status, leaders, first_round)`` with tuples.
        units: per unit ``(attack, defense, movement, initial damage)``; stars: per side;
        leader_ship: each side's leader's unit; speed: apply Rule 10.2.2 after the round.

    Returns:
        list of ``(next_state_or_end, probability, expected_damage)``: an end is
        ``("end", winner, reason, status, leaders)``; ``expected_damage[u]`` is
        E[damage points unit u takes this round; this outcome] (damage beyond sinking included).
    """
    lines, dmg, status, leaders, first = state
    n = len(units)
    # partial results: (pending damage per unit, 5 seen per unit) -> [prob, E[damage] vector]
    partial = {(tuple([0] * n), tuple([False] * n)): [1.0, [0.0] * n]}
    for target, count in _assignments(state, units, stars, leader_ship):
        room = units[target][1] - dmg[target] + 1   # more pending damage than this sinks it anyway
        for _ in range(count):
            nxt = defaultdict(lambda: [0.0, [0.0] * n])
            for (pend, five), (p, ed) in partial.items():
                # 1, 2, 3, 4: nothing
                cell = nxt[(pend, five)]
                cell[0] += p * 4 / 6
                for u in range(n):
                    cell[1][u] += ed[u] * 4 / 6
                # 5: disabled
                f2 = list(five)
                f2[target] = True
                cell = nxt[(pend, tuple(f2))]
                cell[0] += p / 6
                for u in range(n):
                    cell[1][u] += ed[u] / 6
                # 6: a hit, and a damage die
                for pts in range(1, 7):
                    p2 = list(pend)
                    p2[target] = min(room, p2[target] + pts)
                    cell = nxt[(tuple(p2), five)]
                    cell[0] += p / 36
                    for u in range(n):
                        cell[1][u] += ed[u] / 36
                    cell[1][target] += p / 36 * pts
            partial = nxt
    results = defaultdict(lambda: [0.0, [0.0] * n])
    for (pend, five), (p, ed) in partial.items():
        new_dmg = list(dmg)
        new_status = list(status)
        for side in (0, 1):
            for u in lines[side]:
                new_dmg[u] = dmg[u] + pend[u]
                if new_dmg[u] > units[u][1]:
                    new_status[u] = SUNK
                elif five[u]:
                    new_status[u] = DISABLED
        # Rule 6.3: a leader whose ship took damage is killed if it sank, else on a 6
        branches = [(list(leaders), 1.0)]
        for side in (0, 1):
            ship = leader_ship[side]
            grown = []
            for lead, q in branches:
                if lead[side] == ACTIVE and pend[ship] > 0:
                    if new_status[ship] == SUNK:
                        killed = lead.copy()
                        killed[side] = KILLED
                        grown.append((killed, q))
                        continue
                    killed = lead.copy()
                    killed[side] = KILLED
                    grown.append((killed, q / 6))
                    lead = lead.copy()
                    q = q * 5 / 6
                if lead[side] == ACTIVE and new_status[ship] == DISABLED:
                    lead = lead.copy()
                    lead[side] = LEFT
                grown.append((lead, q))
            branches = grown
        for lead, q in branches:
            key = _close_round(lines, new_dmg, new_status, lead, units, leader_ship, speed)
            cell = results[key]
            cell[0] += p * q
            for u in range(n):
                cell[1][u] += ed[u] * q
    return [(k, v[0], v[1]) for k, v in results.items()]


def _close_round(lines, dmg, status, leaders, units, leader_ship, speed):
    # Rule 8.3.3: lines lose their sunk and disabled units and re-form; 10.1 end checks; 10.2.2.
    new_lines = []
    for side in (0, 1):
        keep = [u for u in lines[side] if status[u] == IN_LINE]
        keep = sorted(keep, key=lambda u: dmg[u])   # Python's sort is stable: ties keep their order
        new_lines.append(keep)
    status = list(status)
    leaders = list(leaders)
    if not new_lines[0] and not new_lines[1]:
        return ("end", -1, "mutual", tuple(status), tuple(leaders))
    for side in (0, 1):
        if not new_lines[side]:
            return ("end", 1 - side, "gunfire", tuple(status), tuple(leaders))
    if speed:
        fastest = [max(_speed(units[u][2], dmg[u]) for u in new_lines[s]) for s in (0, 1)]
        for side in (0, 1):
            stay = []
            for u in new_lines[side]:
                if _speed(units[u][2], dmg[u]) > fastest[1 - side]:
                    status[u] = ESCAPED
                    if u == leader_ship[side] and leaders[side] == ACTIVE:
                        leaders[side] = LEFT
                else:
                    stay.append(u)
            new_lines[side] = stay
        for side in (0, 1):
            if not new_lines[side]:
                return ("end", 1 - side, "speed", tuple(status), tuple(leaders))
    dmg_key = tuple(dmg[u] if status[u] == IN_LINE else 0 for u in range(len(dmg)))
    return ((tuple(new_lines[0]), tuple(new_lines[1])), dmg_key, tuple(status), tuple(leaders), False)


def battle_oracle(units0, units1, stars=(0, 0), rounds=None, speed=False, eps=1e-14, max_rounds=1000):
    """Exact odds of a battle by brute force (see the module docstring).

    Args:
        units0, units1: each side's units in line order, ``(attack, defense, movement, damage)``.
        stars: leader stars per side (the leader is aboard the first unit, Rule 6.2 A).
        rounds: stop after this many rounds (None: run until the mass still fighting is < eps,
            or ``max_rounds``).
        speed: Rule 10.2 disengagement by speed (option ``when-able``).

    Returns:
        dict with ``p_win`` (2), ``p_win_speed`` (2), ``p_mutual``, ``p_unfinished``,
        ``mean_rounds``, per unit ``p_sunk``, ``p_disabled``, ``p_escaped``, ``mean_damage``
        (lists in unit order, side 0 first), and ``p_leader_killed`` (2).
    """
    units = [tuple(u) for u in units0] + [tuple(u) for u in units1]
    n0, n = len(units0), len(units)
    leader_ship = (0, n0)
    res = {"p_win": [0.0, 0.0], "p_win_speed": [0.0, 0.0], "p_mutual": 0.0, "p_unfinished": 0.0,
           "mean_rounds": 0.0, "p_sunk": [0.0] * n, "p_disabled": [0.0] * n, "p_escaped": [0.0] * n,
           "mean_damage": [0.0] * n, "p_leader_killed": [0.0, 0.0]}

    def finish(status, leaders, p, ed, r):
        res["mean_rounds"] += p * r
        for u in range(n):
            res["mean_damage"][u] += ed[u]
            if status[u] == SUNK:
                res["p_sunk"][u] += p
            elif status[u] == DISABLED:
                res["p_disabled"][u] += p
            elif status[u] == ESCAPED:
                res["p_escaped"][u] += p
        for side in (0, 1):
            if leaders[side] == KILLED:
                res["p_leader_killed"][side] += p

    lead0 = tuple(ACTIVE if s > 0 else NONE for s in stars)
    # Rule 10.2.1: a squadron faster than every opposing unit leaves before battle
    if speed:
        v = [[_speed(u[2], u[3]) for u in units0], [_speed(u[2], u[3]) for u in units1]]
        for side in (0, 1):
            if min(v[side]) > max(v[1 - side]):
                status = [ESCAPED if (u < n0) == (side == 0) else IN_LINE for u in range(n)]
                leaders = [LEFT if (side == s and lead0[s] == ACTIVE) else lead0[s] for s in (0, 1)]
                res["p_win"][1 - side] = 1.0
                res["p_win_speed"][1 - side] = 1.0
                finish(status, leaders, 1.0, [0.0] * n, 0)
                return res
    start = ((tuple(range(n0)), tuple(range(n0, n))), tuple(u[3] for u in units), tuple([IN_LINE] * n), lead0, True)
    dist = {start: (1.0, [0.0] * n)}
    cache = {}
    limit = max_rounds if rounds is None else min(rounds, max_rounds)
    r = 0
    while dist and r < limit:
        r += 1
        nxt = defaultdict(lambda: [0.0, [0.0] * n])
        for st, (p, acc) in dist.items():
            if st not in cache:
                lines, dmg, status, leaders, first = st
                cache[st] = round_outcomes((lines, dmg, status, leaders, first), units, stars, leader_ship, speed)
            for key, q, ed in cache[st]:
                ed_tot = [acc[u] * q + p * ed[u] for u in range(n)]
                if key[0] == "end":
                    _, winner, reason, status, leaders = key
                    if winner >= 0:
                        res["p_win"][winner] += p * q
                        if reason == "speed":
                            res["p_win_speed"][winner] += p * q
                    else:
                        res["p_mutual"] += p * q
                    finish(status, leaders, p * q, ed_tot, r)
                else:
                    cell = nxt[key]
                    cell[0] += p * q
                    for u in range(n):
                        cell[1][u] += ed_tot[u]
        dist = {k: (v[0], v[1]) for k, v in nxt.items()}
        if rounds is None and sum(v[0] for v in dist.values()) < eps:
            break
    for st, (p, acc) in dist.items():
        res["p_unfinished"] += p
        finish(st[2], st[3], p, acc, r)
    return res
