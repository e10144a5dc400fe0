"""Damage, damage control and victory (Rules 5.41-5.44, 9.5, 10.x; the campaign's ends, 9.43).

A unit's strengths after damage steps (5.41), wrecks, the Damage Control Phase (5.43-5.44),
each ship's award and the end-of-scenario accounting (9.51-9.55, 10.x victory conditions), and
the checks that end a scenario at the end of a Game-Turn.
"""

from __future__ import annotations

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    AFLOAT,
    END_EXHAUSTED,
    END_NO_SIGHTING,
    END_OBJECTIVE,
    END_SIDE_GONE,
    EXITED,
    LEVEL_DECISIVE,
    LEVEL_DRAW,
    LEVEL_MARGINAL,
    LEVEL_OBJECTIVE,
    LEVEL_SUBSTANTIAL,
    SUNK,
    VC_EXIT_OR_POINTS,
    VC_POINTS,
    VC_SINK_NAMED,
    VC_SINK_NAMED_AND_POINTS,
    VC_SINK_NAMED_OR_ESCAPE,
    WAITING,
)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def by_damage_nb(value, steps):
    """A value after damage steps of its kind (Rule 5.41): one step halves it (fractions dropped),
    two make it zero. Attack Strength after G steps; Movement Allowance (MP) after S steps."""
    if steps <= 0:
        return value
    if steps == 1:
        return value // 2
    return 0


@kernel(error_model="numpy", no_cpython_wrapper=True)
def wrecked_nb(sh, i):
    """2G, 2S: wrecked, permanently out of action (Rule 5.43)."""
    return sh[i, L.SH_G] >= 2 and sh[i, L.SH_S] >= 2


@kernel(error_model="numpy")
def damage_control_nb(st, sh, n, rl, rng):
    """The Damage Control Phase (Rules 5.43-5.44, 9.52).

    Each damaged unit in play that is not wrecked and has not reached its limit (its printed
    Defense Strength, counted over the scenario) rolls one die for G damage (1..``RL_DC_G``
    removes a step) and then one for S damage (1..``RL_DC_S``). Every step removed is one Victory
    Point for the enemy (``SH_DC`` counts them).

    Returns:
        The number of steps removed.
    """
    removed = 0
    for i in range(n):
        if sh[i, L.SH_STATUS] != AFLOAT or wrecked_nb(sh, i):
            continue
        if sh[i, L.SH_G] > 0 and sh[i, L.SH_DC] < st[i, L.ST_DEF]:
            if roll_nb(rng, 6) <= rl[L.RL_DC_G]:
                sh[i, L.SH_G] -= 1
                sh[i, L.SH_DC] += 1
                removed += 1
        if sh[i, L.SH_S] > 0 and sh[i, L.SH_DC] < st[i, L.ST_DEF]:
            if roll_nb(rng, 6) <= rl[L.RL_DC_S]:
                sh[i, L.SH_S] -= 1
                sh[i, L.SH_DC] += 1
                removed += 1
    return removed


@kernel(error_model="numpy")
def ship_award_nb(value, defense, status, g, s, dc, vp_pct):
    """Victory Points the enemy earns from one unit at the end of a scenario (Rules 9.52-9.54).

    Args:
        value: the unit's value (attack + defense + movement, 9.51); defense: its damage-control
            limit (5.44); status: AFLOAT, SUNK or EXITED; g, s: damage steps left; dc: steps
            already removed (each already one VP); vp_pct: ``int64[5]`` percent for 0..4 states.

    Returns:
        VPs (int): sunk = 100% of value; otherwise the steps removed during play, plus the steps
        removed now within the limit (9.53), plus 20/40/60/80% of value (fractions dropped) for
        the states left beyond the limit or when wrecked; never above 100% (9.54).

    Example (9.53): Iron Duke (value 29, defense 6) ends 1G with 2 steps removed -> 3 VPs; ends
    1G, 2S with 4 removed -> 6 + 29 * 20 // 100 = 11 VPs.
    """
    if status == SUNK:
        return value
    award = dc
    steps = g + s
    if steps > 0:
        if g >= 2 and s >= 2:
            award += value * vp_pct[4] // 100
        else:
            room = defense - dc
            if room < 0:
                room = 0
            can = steps if steps < room else room
            award += can
            left = steps - can
            if left > 0:
                award += value * vp_pct[left] // 100
    if award > value:
        award = value
    return award


@kernel(error_model="numpy", nrt=True)   # allocates: reference counting kept under a nrt=False caller
def final_result_nb(st, sh, n, sc, vp_pct, out, g, ended_by, contact_at_end, exit_met):
    """Scores, winner and victory level of a finished game into ``out[g]`` (Rules 9.5, 10.x).

    Args:
        ended_by: the side that caused the end (first into its safe zone, 9.15) or -1.
        contact_at_end: 1 if opposing units were within visibility at the end (10.2).
        exit_met: 1 if the exit objective was met in time (10.4).
    """
    score = [sc[L.SC_START_VP0], sc[L.SC_START_VP1]]
    sunk = [0, 0]
    wrecked = [0, 0]
    exited = [0, 0]
    named_down = 0
    named_safe = 1
    alive = [0, 0]
    for i in range(n):
        side = st[i, L.ST_SIDE]
        award = ship_award_nb(st[i, L.ST_VAL], st[i, L.ST_DEF], sh[i, L.SH_STATUS], sh[i, L.SH_G],
                              sh[i, L.SH_S], sh[i, L.SH_DC], vp_pct)
        score[1 - side] += award
        st_ = sh[i, L.SH_STATUS]
        wr = st_ != SUNK and wrecked_nb(sh, i)
        # sunk, wrecked and exited are disjoint: a wreck still decelerating (6.4) can drift off the
        # map; it counts as exited (DN-E11), though the enemy still scores it as a wreck (9.52)
        if st_ == SUNK:
            sunk[side] += 1
        elif st_ == EXITED:
            exited[side] += 1
        elif wr:
            wrecked[side] += 1
        if st_ == EXITED:
            if sc[L.SC_EXIT_SCORES]:
                score[side] += st[i, L.ST_VAL]
        if st_ != SUNK and not wr:
            alive[side] += 1
        if st[i, L.ST_NAMED]:
            if st_ == SUNK or wr:
                named_down = 1
                named_safe = 0
    vc = sc[L.SC_VC]
    a = sc[L.SC_VC_SIDE]
    winner = -1
    level = LEVEL_DRAW
    by_points = -1
    if score[0] > score[1]:
        by_points = 0
    elif score[1] > score[0]:
        by_points = 1
    if vc == VC_POINTS:
        winner = by_points
    elif vc == VC_SINK_NAMED_AND_POINTS:
        winner = a if (named_down and score[a] > score[1 - a]) else 1 - a
    elif vc == VC_SINK_NAMED_OR_ESCAPE:
        if named_down:
            winner = a
        elif named_safe and contact_at_end == 0:
            winner = 1 - a
        else:
            winner = -1
    elif vc == VC_SINK_NAMED:
        winner = a if named_down else 1 - a
    elif vc == VC_EXIT_OR_POINTS:
        winner = a if exit_met else by_points
    if winner >= 0:
        lo = 1 - winner
        if vc == VC_EXIT_OR_POINTS and exit_met:
            level = LEVEL_DECISIVE
        elif score[winner] > score[lo]:
            level = LEVEL_MARGINAL
            if score[winner] >= 2 * score[lo]:
                level = LEVEL_SUBSTANTIAL
                if alive[lo] == 0 or ended_by == lo:
                    level = LEVEL_DECISIVE
        else:
            level = LEVEL_OBJECTIVE
    out[g, L.O_WINNER] = winner
    out[g, L.O_LEVEL] = level
    out[g, L.O_SCORE0] = score[0]
    out[g, L.O_SCORE1] = score[1]
    out[g, L.O_SUNK0] = sunk[0]
    out[g, L.O_SUNK1] = sunk[1]
    out[g, L.O_WRECKED0] = wrecked[0]
    out[g, L.O_WRECKED1] = wrecked[1]
    out[g, L.O_EXITED0] = exited[0]
    out[g, L.O_EXITED1] = exited[1]
    out[g, L.O_ENDED_BY] = ended_by


@kernel(error_model="numpy")
def campaign_end_nb(st, sh, n):
    """Campaign scenario ends beyond Rule 9.42: no unit of either side able to fire or launch
    torpedoes (``END_EXHAUSTED``, 9.43's "neither can inflict further injury on the other"); -1 if
    the scenario goes on. Units of a delayed Task Force still to come count as able. A side with
    nothing but wrecks left does not end it (9.41-9.42: no Player is required to end a scenario,
    the winner may go on firing to sink the wrecks; it ends by 9.42, by agreement or when the
    wrecks are gone; ruling DN-C9)."""
    able = 0
    for i in range(n):
        s = sh[i, L.SH_STATUS]
        if s == WAITING:
            able += 1
            continue
        if s != AFLOAT:
            continue
        if by_damage_nb(st[i, L.ST_ATT], sh[i, L.SH_G]) > 0 or \
                (st[i, L.ST_TORP] > 0 and sh[i, L.SH_TLEFT] > 0 and sh[i, L.SH_G] < 2):
            able += 1
    if able == 0:
        return END_EXHAUSTED
    return -1


@kernel(error_model="numpy", no_cpython_wrapper=True)
def scenario_end_nb(st, sh, n, sc, rl, turn, nosight):
    """Does the scenario end at the end of this Game-Turn, and why (Rules 9.42, 10.4; campaign 9.43)?

    In order: an exit objective met by its deadline (``END_OBJECTIVE``, 10.4); a side with no
    unit afloat or waiting to enter (``END_SIDE_GONE``); in a campaign, neither side able to hurt
    the other (:func:`campaign_end_nb`); ``nosight`` Game-Turns
    without sighting after contact reaching the limit (``END_NO_SIGHTING``, 9.42).

    Returns:
        The end reason (``END_*``), or -1 to play on.
    """
    if sc[L.SC_VC] == VC_EXIT_OR_POINTS and turn <= sc[L.SC_EXIT_DEADLINE]:
        k = 0
        for i in range(n):
            if st[i, L.ST_EXIT] and sh[i, L.SH_STATUS] == EXITED:
                k += 1
        if k >= sc[L.SC_EXIT_NEED]:
            return END_OBJECTIVE
    left0 = 0
    left1 = 0
    for i in range(n):
        if sh[i, L.SH_STATUS] == AFLOAT or sh[i, L.SH_STATUS] == WAITING:
            if st[i, L.ST_SIDE] == 0:
                left0 += 1
            else:
                left1 += 1
    if left0 == 0 or left1 == 0:
        return END_SIDE_GONE
    if sc[L.SC_CAMPAIGN] != 0:
        r = campaign_end_nb(st, sh, n)
        if r >= 0:
            return r
    if nosight >= rl[L.RL_NO_SIGHT]:
        return END_NO_SIGHTING
    return -1
