"""The campaign's game loop (Rules 11.0-11.9, 12.6): a campaign game's state is one value (issue 27).

A :class:`CampaignState` holds everything the rest of a campaign game (or extended campaign)
depends on, between two campaign scenarios; :func:`play_on_nb` plays it on, phase by phase (a
campaign game to begin: the peace roll and the coin of the extended campaign, 12.62-12.63, the
allocation and the Interception Bonus, 11.0-11.6; a scenario to play, :func:`.campaign.campaign_scenario_nb`;
a campaign game played: its result, or the extended campaign's repairs and construction,
12.64-12.65), until a given number of scenarios has been played or the game is over. Whole
batches (:func:`play_campaign_batch_nb`) are "initial state, then play on" with the same loop, so
a copied state played on gives the rows the game would have given
(:mod:`..state`: ``start_campaigns``, ``play_campaigns_from``). Its clock's layout is ``CK_*``,
its phases ``PH_*`` (:mod:`..layout`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.jit import kernel

from ....rng import STATE_WORDS, new_state_nb, roll_nb
from .. import layout as L
from ..enums import (
    BUILD_BALANCED,
    BUILD_VALUE_GREEDY,
    CAMP_COMPLETE,
    CAMP_LOOP_CAP,
    CAPITAL,
    END_LOOP_CAP,
    EXT_BANKRUPT,
    EXT_LOOP_CAP,
    EXT_PEACE,
    EXT_TURN_LIMIT,
    LEVEL_DRAW,
    LEVEL_MARGINAL,
    LEVEL_SUBSTANTIAL,
)
from ..policies.campaign import allocate_nb, build_fleet_nb, interception_bonus_nb, repair_nb, schedule_nb
from .campaign import campaign_scenario_nb

__all__ = ["CampaignState", "CampaignTables", "new_campaign_nb", "play_campaign_batch_nb",
           "play_campaigns_on_nb", "play_on_nb", "rows_per_game_nb", "start_campaigns_nb"]


class CampaignTables(NamedTuple):
    """What a campaign batch is played with (never written): ``po`` ``int64[2, P, NPO]`` each
    player's national listing, ``npool`` ``int64[2]`` its units, ``cp`` ``int64[NCP]`` the
    campaign's parameters, ``sc0`` ``int64[NSC]`` the scenario template, ``geo`` ``(centres,
    tours_n, tours_s, slots_cap, slots_scr)`` (:mod:`..campaign`), ``tb`` the compiled rules
    (:func:`..runtime.rule_tables`), ``pc`` ``int64[2, NPC]`` and ``kn`` ``float64[2, NKN]`` the
    policies' codes and knobs by player."""

    po: np.ndarray
    npool: np.ndarray
    cp: np.ndarray
    sc0: np.ndarray
    geo: tuple
    tb: tuple
    pc: np.ndarray
    kn: np.ndarray


class CampaignState(NamedTuple):
    """One campaign game's state between two campaign scenarios (issue 27), or with a leading game
    axis ``g`` a batch's: everything the rest of the game depends on. ``rng`` ``uint64[STATE_WORDS]``
    its random stream (:mod:`simlab.rng`); ``ps`` ``int64[2, P, NPS]`` each player's units
    (``PS_*``: fleet, damaged, lost, scheduled); ``scen`` ``int64[2, P]`` the allocation of the
    campaign game under way (11.6); ``ck`` ``int64[NCK]`` its clock (``CK_*``: phase, turn, next
    scenario, North, Interception Bonus, campaign VPs, treasuries, end, rows); ``gout``
    ``int64[NGO]`` its game row (``GO_*``, final once over); ``rows`` ``int64[R, NRS]`` its scenario
    rows so far (``RS_*``; ``R`` = 4, or 4 a turn of the extended campaign)."""

    rng: np.ndarray
    ps: np.ndarray
    scen: np.ndarray
    ck: np.ndarray
    gout: np.ndarray
    rows: np.ndarray


@kernel(error_model="numpy", nrt=True)
def rows_per_game_nb(cp):
    """Scenario rows one game can write: 4, or 4 for each Extended Campaign Game-Turn (12.6)."""
    return 4 * (cp[L.CP_LAST_TURN] if cp[L.CP_EXTENDED] else 1)


@kernel(error_model="numpy", nrt=True)
def new_campaign_nb(seed, ct, gs):
    """Set game ``gs`` up from ``seed`` (Rules 11.8, 12.61): its stream, each player's fleet built
    under its fleet value limit and, in the extended campaign, its treasury and construction
    schedule; the clock at the first campaign game to begin (``PH_GAME``)."""
    po = ct.po
    npool = ct.npool
    cp = ct.cp
    ps = gs.ps
    ck = gs.ck
    gout = gs.gout
    rng = gs.rng
    new_state_nb(seed, rng)
    gout[:] = 0
    ps[:] = 0
    ck[:] = 0
    gs.scen[:] = -1
    if cp[L.CP_EXTENDED] == 0:
        for p in range(2):
            gout[L.GO_FLEET_VALUE0 + p] = build_fleet_nb(po[p], npool[p], ps[p], cp[L.CP_LIMIT0 + p],
                                                         cp[L.CP_BUILD0 + p], rng, L.PS_FLEET)
    else:
        for p in range(2):
            ck[L.CK_TREAS0 + p] = cp[L.CP_TREASURY0 + p]
            v = build_fleet_nb(po[p], npool[p], ps[p], cp[L.CP_LIMIT0 + p], cp[L.CP_BUILD0 + p], rng,
                               L.PS_FLEET)
            gout[L.GO_FLEET_VALUE0 + p] = v
            ck[L.CK_TREAS0 + p] -= v
            share = 80 if cp[L.CP_BUILD0 + p] == BUILD_VALUE_GREEDY else (
                50 if cp[L.CP_BUILD0 + p] == BUILD_BALANCED else roll_nb(rng, 101) - 1)
            budget = ck[L.CK_TREAS0 + p] * share // 100
            gout[L.GO_SCHEDULED0 + p] = schedule_nb(po[p], npool[p], ps[p], cp[L.CP_BUILD0 + p], rng, budget,
                                                    cp[L.CP_BUILD_LIMIT], cp[L.CP_LAST_TURN])
            gout[L.GO_TREAS0 + 13 * p] = ck[L.CK_TREAS0 + p]
        ck[L.CK_END] = EXT_TURN_LIMIT
    ck[L.CK_PHASE] = L.PH_GAME


@kernel(error_model="numpy", nrt=True)
def begin_campaign_game_nb(ct, gs):
    """Begin a campaign game (Rules 11.0-11.6; 12.62-12.63): in the extended campaign the peace
    roll (the war may end: then the game is scored and over) and the coin for North; then each
    player's secret allocation to A-D and the South's Interception Bonus."""
    po = ct.po
    npool = ct.npool
    cp = ct.cp
    ps = gs.ps
    ck = gs.ck
    rng = gs.rng
    scen = gs.scen
    if cp[L.CP_EXTENDED]:
        t = ck[L.CK_TURN] + 1
        if t > cp[L.CP_LAST_TURN]:
            end_extended_nb(ct, gs)
            return
        # peace resolution (12.62)
        r = 0
        for _ in range(cp[L.CP_PEACE_DICE]):
            r += roll_nb(rng, 6)
        if r == t:
            ck[L.CK_END] = EXT_PEACE
            gs.gout[L.GO_PEACE_TURN] = t
            end_extended_nb(ct, gs)
            return
        ck[L.CK_TURN] = t
        north = roll_nb(rng, 2) - 1                  # 12.63: a coin decides who is North
        ck[L.CK_NORTH] = north
        if north == 0:
            gs.gout[L.GO_NORTH_TURNS0] += 1
        ck[L.CK_BEFORE] = ck[L.CK_NROW]
    scen[:] = -1
    for r in range(2):
        p = ck[L.CK_NORTH] if r == 0 else 1 - ck[L.CK_NORTH]
        allocate_nb(po[p], npool[p], ps[p], cp[L.CP_ALLOC0 + p], rng, scen[p])
    south = 1 - ck[L.CK_NORTH]
    ck[L.CK_IB] = interception_bonus_nb(po[south], npool[south], ps[south], scen[south],
                                        cp[L.CP_ALLOC0 + south], rng, cp[L.CP_IBONUS], cp[L.CP_IB_MIN],
                                        cp[L.CP_IB_MAX])
    ck[L.CK_SCEN] = 0
    ck[L.CK_TOT0] = 0
    ck[L.CK_TOT1] = 0
    ck[L.CK_PHASE] = L.PH_SCEN


@kernel(error_model="numpy", nrt=True)
def play_scenario_step_nb(ct, gs, g):
    """Play the next scenario of the campaign game under way (Rule 11.6: A, B, C, D in order) into
    the game's next row; after D (or when a treasury falls to zero in the extended campaign, 12.66)
    the campaign game is over (``PH_AFTER``)."""
    cp = ct.cp
    ck = gs.ck
    north = ck[L.CK_NORTH]
    pcr = np.zeros_like(ct.pc)
    knr = np.zeros_like(ct.kn)
    for r in range(2):
        p = north if r == 0 else 1 - north
        pcr[r] = ct.pc[p]
        knr[r] = ct.kn[p]
    row = gs.rows[ck[L.CK_NROW]]
    campaign_scenario_nb(ck[L.CK_SCEN], g, ct, gs, pcr, knr, row)
    ck[L.CK_TOT0] += row[L.RS_SCORE0]
    ck[L.CK_TOT1] += row[L.RS_SCORE1]
    ck[L.CK_NROW] += 1
    ck[L.CK_SCEN] += 1
    if ck[L.CK_SCEN] == 4 or (cp[L.CP_EXTENDED] and (ck[L.CK_TREAS0] <= 0 or ck[L.CK_TREAS1] <= 0)):
        ck[L.CK_PHASE] = L.PH_AFTER


@kernel(error_model="numpy", nrt=True)
def end_extended_nb(ct, gs):
    """The end of an extended campaign (12.66): the treasuries stay as they ended for the turns not
    played; the scores are the treasuries."""
    ck = gs.ck
    gout = gs.gout
    turn = ck[L.CK_TURN]
    for p in range(2):
        last = gout[L.GO_TREAS0 + 13 * p + turn]
        for t in range(turn + 1, 13):
            gout[L.GO_TREAS0 + 13 * p + t] = last
    gout[L.GO_SCORE0] = ck[L.CK_TREAS0]
    gout[L.GO_SCORE1] = ck[L.CK_TREAS1]
    gout[L.GO_TURNS] = turn
    gout[L.GO_END] = ck[L.CK_END]
    end_game_nb(ct, gs)


@kernel(error_model="numpy", nrt=True)
def after_campaign_game_nb(ct, gs):
    """After a campaign game: the Campaign Game's result (11.0-11.9), or in the extended campaign
    the loop-cap and bankruptcy ends, the Repair Phase (North first, 12.64) and the Build Phase
    (12.65), and the next campaign game to begin."""
    po = ct.po
    npool = ct.npool
    cp = ct.cp
    ps = gs.ps
    ck = gs.ck
    gout = gs.gout
    rows = gs.rows
    nrow = ck[L.CK_NROW]
    if cp[L.CP_EXTENDED] == 0:
        gout[L.GO_SCORE0] = ck[L.CK_TOT0]
        gout[L.GO_SCORE1] = ck[L.CK_TOT1]
        gout[L.GO_END] = CAMP_COMPLETE
        turns = 0
        for r in range(nrow):
            turns += rows[r, L.RS_TURNS]
            if rows[r, L.RS_END] == END_LOOP_CAP:
                gout[L.GO_END] = CAMP_LOOP_CAP
        gout[L.GO_TURNS] = turns
        gout[L.GO_NORTH_TURNS0] = 1
        end_game_nb(ct, gs)
        return
    t = ck[L.CK_TURN]
    end = ck[L.CK_END]
    for rr in range(ck[L.CK_BEFORE], nrow):
        if rows[rr, L.RS_END] == END_LOOP_CAP:
            end = EXT_LOOP_CAP
    if ck[L.CK_TREAS0] <= 0 or ck[L.CK_TREAS1] <= 0:
        end = EXT_BANKRUPT
    ck[L.CK_END] = end
    if end == EXT_LOOP_CAP or end == EXT_BANKRUPT:
        for p in range(2):
            gout[L.GO_TREAS0 + 13 * p + t] = ck[L.CK_TREAS0 + p]
        end_extended_nb(ct, gs)
        return
    # repair phase, North first (12.64); build phase (12.65)
    for r2 in range(2):
        p = ck[L.CK_NORTH] if r2 == 0 else 1 - ck[L.CK_NORTH]
        nxt = 0
        for u in range(npool[p]):
            if ps[p, u, L.PS_STATUS] == L.PS_SCHEDULED and ps[p, u, L.PS_BUILD] == t + 1:
                nxt += po[p, u, L.PO_VAL]
        spent = repair_nb(po[p], npool[p], ps[p], ck[L.CK_TREAS0 + p], cp[L.CP_BUILD0 + p], gs.rng,
                          cp[L.CP_REPAIR_PCT], nxt + 50)
        ck[L.CK_TREAS0 + p] -= spent
        gout[L.GO_REPAIRED0 + p] += spent
    for p in range(2):
        for u in range(npool[p]):
            if ps[p, u, L.PS_STATUS] == L.PS_SCHEDULED and ps[p, u, L.PS_BUILD] == t:
                ps[p, u, L.PS_STATUS] = L.PS_FLEET
                ck[L.CK_TREAS0 + p] -= po[p, u, L.PO_VAL]
                gout[L.GO_BUILT0 + p] += po[p, u, L.PO_VAL]
        gout[L.GO_TREAS0 + 13 * p + t] = ck[L.CK_TREAS0 + p]
    if ck[L.CK_TREAS0] <= 0 or ck[L.CK_TREAS1] <= 0:
        ck[L.CK_END] = EXT_BANKRUPT
        end_extended_nb(ct, gs)
        return
    ck[L.CK_PHASE] = L.PH_GAME


@kernel(error_model="numpy", nrt=True)
def end_game_nb(ct, gs):
    """Score a finished game (11.9, 12.66): the winner has more campaign VPs (or the larger
    treasury), a Substantial Victory at twice the loser's (Campaign Game only); the fleets'
    units; the game is over (``PH_OVER``)."""
    po = ct.po
    npool = ct.npool
    cp = ct.cp
    ps = gs.ps
    gout = gs.gout
    a = gout[L.GO_SCORE0]
    b = gout[L.GO_SCORE1]
    gout[L.GO_WINNER] = 0 if a > b else (1 if b > a else -1)
    lev = LEVEL_DRAW
    if a != b:
        hi = a if a > b else b
        lo = b if a > b else a
        lev = LEVEL_SUBSTANTIAL if (hi >= 2 * lo and cp[L.CP_EXTENDED] == 0) else LEVEL_MARGINAL
    gout[L.GO_LEVEL] = lev
    for p in range(2):
        for u in range(npool[p]):
            if ps[p, u, L.PS_STATUS] != L.PS_NONE and ps[p, u, L.PS_STATUS] != L.PS_SCHEDULED:
                gout[L.GO_FLEET_UNITS0 + p] += 1
                if po[p, u, L.PO_KIND] == CAPITAL:
                    gout[L.GO_FLEET_CAP0 + p] += 1
    gout[L.GO_ROWS] = gs.ck[L.CK_NROW]
    gs.ck[L.CK_PHASE] = L.PH_OVER


@kernel(error_model="numpy", nrt=True)
def play_on_nb(ct, gs, g, stop):
    """Play game ``g`` on from its state ``gs`` (in place) until it has ``stop`` scenario rows or is
    over: the one loop of every campaign game, whole or continued (issue 27). The game stops only
    before a scenario (``PH_SCEN``), so a copy of its state played on gives the rows the game would
    have given."""
    ck = gs.ck
    while ck[L.CK_PHASE] != L.PH_OVER:
        ph = ck[L.CK_PHASE]
        if ph == L.PH_GAME:
            begin_campaign_game_nb(ct, gs)
        elif ph == L.PH_SCEN:
            if ck[L.CK_NROW] >= stop:
                return
            play_scenario_step_nb(ct, gs, g)
        else:
            after_campaign_game_nb(ct, gs)


@kernel(error_model="numpy", nrt=True)
def game_state_nb(bs, i):
    """Game ``i``'s :class:`CampaignState`: views of the batch state ``bs``'s rows."""
    return CampaignState(bs.rng[i], bs.ps[i], bs.scen[i], bs.ck[i], bs.gout[i], bs.rows[i])


@kernel(error_model="numpy", nogil=True, nrt=True)
def start_campaigns_nb(seeds, ct, bs):
    """Set up one game per seed in the batch state ``bs`` (:func:`new_campaign_nb`)."""
    for i in range(seeds.shape[0]):
        new_campaign_nb(seeds[i], ct, game_state_nb(bs, i))


@kernel(error_model="numpy", nogil=True, nrt=True)
def play_campaigns_on_nb(ct, bs, stop):
    """Play every game of the batch state ``bs`` on (in place) until ``stop`` scenario rows or its
    end (:func:`play_on_nb`)."""
    for i in range(bs.ck.shape[0]):
        play_on_nb(ct, game_state_nb(bs, i), i, stop)


@kernel(error_model="numpy", nogil=True, nrt=True)
def play_campaign_batch_nb(seeds, ct, gout, rows):
    """Play one campaign game (or extended campaign) per seed (Rules 11.0-11.9, 12.6): for each,
    its initial state (:func:`new_campaign_nb`), then played on to its end (:func:`play_on_nb`).

    Args:
        seeds: ``uint64[g]``; ct: the :class:`CampaignTables`.
        gout: ``int64[g, NGO]`` one row per game (written); rows: ``int64[cap, NRS]`` one row per
            campaign scenario (written, in game order).

    Returns:
        The number of scenario rows written.
    """
    P = ct.po.shape[1]
    gs = CampaignState(np.zeros(STATE_WORDS, dtype=np.uint64), np.zeros((2, P, L.NPS), dtype=np.int64),
                       np.full((2, P), -1, dtype=np.int64), np.zeros(L.NCK, dtype=np.int64),
                       np.zeros(L.NGO, dtype=np.int64),
                       np.zeros((rows_per_game_nb(ct.cp), L.NRS), dtype=np.int64))
    nrow = 0
    for g in range(seeds.shape[0]):
        new_campaign_nb(seeds[g], ct, gs)
        play_on_nb(ct, gs, g, 1 << 40)
        gout[g] = gs.gout
        k = gs.ck[L.CK_NROW]
        rows[nrow:nrow + k] = gs.rows[:k]
        nrow += k
    return nrow
