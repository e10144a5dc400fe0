"""The Campaign Game (Rules 9.2-9.3, 11.0-11.9) and the Extended Campaign (12.6).

A campaign game, per seed: each player builds a fleet under the fleet value limit (11.8) by its
builder policy; assigns it secretly to scenarios A-D by its allocation policy (11.0, 11.6; the
South also sets the Interception Bonus, 11.4); then A, B, C and D are played in order (11.6):
base visibility 2d6 (11.7), Task Forces entering on their sides and sweeping every lettered hex
until contact (9.22-9.28), ships placed (9.25), the tactical game to its end (``tactical_nb``), and
the scenario's Victory Points with the 9.55 bonus, the Bombardment Bonus (11.3) and the
Interception Bonus (11.4). Uncontested scenarios are conceded (11.6). The extended campaign
plays up to twelve campaign games with treasuries, construction, repairs, scuttling and the
peace roll (12.61-12.66). Per side arrays of a scenario are by role: side 0 is North. The
players' choices (builders, allocation, schedule, repairs) are in :mod:`..policies.campaign`.

Luck (``simlab luck``): each played scenario's row carries, by role, the damage steps its attacks
dealt and their exact mean and variance as the tactical game records them per shot
(``RS_LUCK_*``, copied from ``O_LUCK_*``; no draw of its own); :func:`..campaign.campaign_batch`
sums them by player over every scenario of the game. Uncontested scenarios add nothing.

A game's state between two scenarios and the loop that plays it on are in :mod:`.campaign_loop`.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    CAPITAL,
    END_LOOP_CAP,
    END_UNCONTESTED,
    LEVEL_DECISIVE,
    LEVEL_DRAW,
    LEVEL_MARGINAL,
    LEVEL_SUBSTANTIAL,
    SCEN_B,
    SCEN_C,
    SUNK,
    TYPE_CA,
    TYPE_CAPITAL,
    WAITING,
    N,
    S,
)
from .contact import approach_nb, deploy_after_contact_nb, first_off_map_nb
from .damage import by_damage_nb, final_result_nb, wrecked_nb
from .movement import under_tow_nb
from .turn import reset_dy_nb, tactical_nb, vp_table_nb
from .visibility import sun_roll_nb

#: a scenario's results and counters copied into its campaign row: (slot of ``out`` or ``dy``, ``RS_*``)
OUT_RESULT = np.array([[L.O_SCORE0, L.RS_DAMAGE0], [L.O_SCORE1, L.RS_DAMAGE1], [L.O_SUNK0, L.RS_SUNK0],
                       [L.O_SUNK1, L.RS_SUNK1], [L.O_WRECKED0, L.RS_WRECKED0], [L.O_WRECKED1, L.RS_WRECKED1],
                       [L.O_WINNER, L.RS_WINNER], [L.O_LEVEL, L.RS_LEVEL]], dtype=np.int64)


OUT_COUNTS = np.array([[L.O_SHOTS0, L.RS_SHOTS0], [L.O_SHOTS1, L.RS_SHOTS1], [L.O_TORP0, L.RS_TORP0],
                       [L.O_TORP1, L.RS_TORP1], [L.O_DISPLACED, L.RS_COLLISIONS],
                       [L.O_VIOLATIONS, L.RS_VIOLATIONS], [L.O_WASTED0, L.RS_WASTED0],
                       [L.O_WASTED1, L.RS_WASTED1],
                       # simlab luck (kernels.fire.record_luck_nb): each role's damage steps dealt, mean, variance
                       [L.O_LUCK_DEALT0, L.RS_LUCK_DEALT0], [L.O_LUCK_MEAN0, L.RS_LUCK_MEAN0],
                       [L.O_LUCK_VAR0, L.RS_LUCK_VAR0], [L.O_LUCK_DEALT1, L.RS_LUCK_DEALT1],
                       [L.O_LUCK_MEAN1, L.RS_LUCK_MEAN1], [L.O_LUCK_VAR1, L.RS_LUCK_VAR1]], dtype=np.int64)


DY_COUNTS = np.array([[L.DY_ENTERED, L.RS_DELAYED], [L.DY_WITHDRAW0, L.RS_WITHDREW0],
                      [L.DY_WITHDRAW1, L.RS_WITHDREW1], [L.DY_SMOKE_LAID, L.RS_SMOKE]], dtype=np.int64)


@kernel(error_model="numpy", nrt=True)
def final_states_nb(g, s, dc, defense):
    """Damage states left after the end-of-scenario recovery (Rule 9.53): steps within the
    damage-control limit are removed, G before S (ruling DN-C8); a wreck keeps all four.

    Returns:
        ``(g_left, s_left, recovered)``.
    """
    if g >= 2 and s >= 2:
        return g, s, 0
    room = defense - dc
    if room < 0:
        room = 0
    rg = g if g < room else room
    room -= rg
    rs = s if s < room else room
    return g - rg, s - rs, rg + rs


@kernel(error_model="numpy", nrt=True)
def setup_scenario_nb(s, players, ct, ps, scen, ap, rng):
    """Compile campaign scenario ``s`` (0-3 = A-D) for the units assigned to it (Rules 9.21-9.22).

    Side 0 is the North player's units (``players[0]``), side 1 the South's. Each side forms a
    main Task Force (capital ships in a column of stacks of ``ap[side, 1]``, CA units on a screen
    around its head) entering on Game-Turn 1, and a light one (CL and DD units) entering
    ``ap[side, 0]`` Game-Turns later (9.28; -1: a random 0-5; merged into the main body at 0;
    all screen units form one Task Force when there is no capital ship). Both Task Forces of a
    side sweep the same tour of the lettered hexes (9.22, 9.26), tour ``ap[side, 2]`` of the
    geometry's ``tours_*`` (its first hex's column the entry hex's).

    Args:
        s: the scenario (0-3); players: ``int64[2]`` the players who are North and South.
        ct: the :class:`.campaign_loop.CampaignTables` (``po``, ``npool``, ``cp``, ``sc0``, ``geo``).
        ps: ``int64[2, P, NPS]`` the players' units (``PS_*``); scen: ``int64[2, P]`` each unit's
            scenario (-1 none).
        ap: ``int64[2, 3]`` by role, the approach choices: the light Task Force's delay (9.28), the
            capital ships per stack (1-4, 6.31; 9.21) and the tour (0-7; 9.22); -1 each: at random
            (drawn in that order, a side at a time).
        rng: the game's stream.

    Returns:
        ``(st, sh, fm, trail, sc, ta, idx)``: the scenario arrays, the Task Forces, and each
        unit's row in its player's listing.
    """
    po = ct.po
    npool = ct.npool
    cp = ct.cp
    sc0 = ct.sc0
    centres, tours_n, tours_s, slots_cap, slots_scr = ct.geo
    n0 = 0
    n1 = 0
    for r in range(2):
        p = players[r]
        for u in range(npool[p]):
            if ps[p, u, L.PS_STATUS] == L.PS_FLEET and scen[p, u] == s:
                if r == 0:
                    n0 += 1
                else:
                    n1 += 1
    n = n0 + n1
    st = np.zeros((n, L.NST), dtype=np.int64)
    sh = np.zeros((n, L.NSH), dtype=np.int64)
    fm = np.zeros((n, L.NFM), dtype=np.int64)
    trail = np.zeros((n, L.TRAIL, 3), dtype=np.int64)
    idx = np.zeros(n, dtype=np.int64)
    ta = np.zeros((L.NTF, L.NTA), dtype=np.int64)
    k = 0
    for r in range(2):
        p = players[r]
        for u in range(npool[p]):
            if ps[p, u, L.PS_STATUS] != L.PS_FLEET or scen[p, u] != s:
                continue
            st[k, L.ST_SIDE] = r
            st[k, L.ST_KIND] = po[p, u, L.PO_KIND]
            st[k, L.ST_TYPE] = po[p, u, L.PO_TYPE]
            st[k, L.ST_ATT] = po[p, u, L.PO_ATT]
            st[k, L.ST_DEF] = po[p, u, L.PO_DEF]
            st[k, L.ST_RNG] = po[p, u, L.PO_RNG]
            st[k, L.ST_MOV] = po[p, u, L.PO_MOV]
            st[k, L.ST_TORP] = po[p, u, L.PO_TORP]
            st[k, L.ST_VAL] = po[p, u, L.PO_VAL]
            st[k, L.ST_RADAR] = po[p, u, L.PO_RADAR]
            st[k, L.ST_PLANES] = po[p, u, L.PO_PLANES]
            for c in L.SH_MINUS_ONE:
                sh[k, c] = -1
            sh[k, L.SH_FORM] = -1
            sh[k, L.SH_STATUS] = WAITING
            sh[k, L.SH_TLEFT] = cp[L.CP_TORP_SCEN] if st[k, L.ST_TORP] else 0
            idx[k] = u
            k += 1
    for r in range(2):
        lo = 0 if r == 0 else n0
        hi = n0 if r == 0 else n
        if hi == lo:
            continue
        main = 2 * r
        light = 2 * r + 1
        ncap = 0
        vals = np.zeros(hi - lo, dtype=np.int64)
        for i in range(lo, hi):
            vals[i - lo] = -st[i, L.ST_VAL] * 4 - (3 - st[i, L.ST_TYPE])
            if st[i, L.ST_KIND] == CAPITAL:
                ncap += 1
        order = np.argsort(vals, kind="mergesort")
        delay = ap[r, 0] if ap[r, 0] >= 0 else roll_nb(rng, 6) - 1
        last = cp[L.CP_DELAY_LAST] - 1
        if delay > last:
            delay = last
        # 9.21: the cruising formation's column, ``stack`` capital ships a hex (6.31: four at most)
        stack = ap[r, 1] if ap[r, 1] >= 0 else roll_nb(rng, 4)
        if stack < 1:
            stack = 1
        c = 0
        js = 0
        jl = 0
        for a in range(hi - lo):
            i = lo + order[a]
            t = st[i, L.ST_TYPE]
            if ncap > 0 and t == TYPE_CAPITAL:
                sh[i, L.SH_TF] = main
                sh[i, L.SH_OX] = 0
                sh[i, L.SH_OZ] = c // stack
                c += 1
            elif ncap > 0 and (t == TYPE_CA or delay == 0):
                sh[i, L.SH_TF] = main
                sh[i, L.SH_OX] = slots_cap[js % slots_cap.shape[0], 0]
                sh[i, L.SH_OZ] = slots_cap[js % slots_cap.shape[0], 1] + 2 * (js // slots_cap.shape[0])
                js += 1
            else:
                sh[i, L.SH_TF] = light if ncap > 0 else main
                sh[i, L.SH_OX] = slots_scr[jl % slots_scr.shape[0], 0]
                sh[i, L.SH_OZ] = slots_scr[jl % slots_scr.shape[0], 1] + 2 * (jl // slots_scr.shape[0])
                jl += 1
        tours = tours_n if r == 0 else tours_s
        tour = ap[r, 2] % tours.shape[0] if ap[r, 2] >= 0 else roll_nb(rng, tours.shape[0]) - 1
        x = centres[tours[tour, 0], 0]
        row = sc0[L.SC_MAP_R0] if r == 0 else sc0[L.SC_MAP_R1]
        for tf in (main, light):
            ta[tf, L.TA_SIDE] = r
            ta[tf, L.TA_MEMBERS] = 0
            sp = 1 << 30
            for i in range(lo, hi):
                if sh[i, L.SH_TF] == tf:
                    ta[tf, L.TA_MEMBERS] += 1
                    if st[i, L.ST_MOV] < sp:
                        sp = st[i, L.ST_MOV]
            if ta[tf, L.TA_MEMBERS] == 0:
                continue
            ta[tf, L.TA_SPEED] = sp
            ta[tf, L.TA_ENTRY] = 1 if tf == main else 1 + delay
            ta[tf, L.TA_STATE] = L.TF_WAITING
            ta[tf, L.TA_TOUR] = tour
            ta[tf, L.TA_EX] = x
            ta[tf, L.TA_EZ] = row - (x - (x & 1)) // 2
            ta[tf, L.TA_EF] = S if r == 0 else N
            for i in range(lo, hi):
                if sh[i, L.SH_TF] == tf:
                    sh[i, L.SH_SPD] = sp
    sc = sc0.copy()
    sc[L.SC_N] = n
    sc[L.SC_N0] = n0
    sc[L.SC_SCEN] = s
    sc[L.SC_NORTH_STAY] = 1 if (s == SCEN_B or s == SCEN_C) else 0
    sc[L.SC_LENGTH] = cp[L.CP_TURN_LIMIT]
    return st, sh, fm, trail, sc, ta, idx


@kernel(error_model="numpy", nrt=True)
def score_scenario_nb(st, sh, n, sc, s, ended_by, contact_end, ibonus, cp, vp, dy, row):
    """Victory Points of a played campaign scenario (Rules 9.5, 11.2-11.5) into ``row`` (``RS_*``).

    Damage VPs (9.52-9.54) and the victory level (9.55) of each side; the winner's bonus (10, 20,
    30); in B the South's Bombardment Bonus: the Attack Strength (after its final G states) of
    its capital ships afloat that never fired, if it won at least a Substantial Victory without
    causing the end, or sank or wrecked every North ship, or the North moved a ship off the initial
    Map Area first (11.3); in C the North's interception: the Attack Strength of its ships
    undamaged after the final recovery (9.53), up to the Interception Bonus, unless it caused the
    end or moved a ship off the initial Map Area first; the South gets the balance (11.4).
    """
    tmp = np.zeros((1, L.NOUT), dtype=np.int64)
    final_result_nb(st, sh, n, sc, vp, tmp, 0, ended_by, contact_end, 0)
    winner = tmp[0, L.O_WINNER]
    level = tmp[0, L.O_LEVEL]
    for k in range(OUT_RESULT.shape[0]):
        row[OUT_RESULT[k, 1]] = tmp[0, OUT_RESULT[k, 0]]
    bonus = 0
    if level == LEVEL_MARGINAL:
        bonus = cp[L.CP_BONUS_M]
    elif level == LEVEL_SUBSTANTIAL:
        bonus = cp[L.CP_BONUS_S]
    elif level == LEVEL_DECISIVE:
        bonus = cp[L.CP_BONUS_D]
    row[L.RS_BONUS0] = bonus if winner == 0 else 0
    row[L.RS_BONUS1] = bonus if winner == 1 else 0
    off = first_off_map_nb(dy)
    row[L.RS_OFF_FIRST] = off
    bomb = 0
    if s == SCEN_B:
        north_left = 0
        for i in range(n):
            if st[i, L.ST_SIDE] == 0 and sh[i, L.SH_STATUS] != SUNK and not wrecked_nb(sh, i):
                north_left += 1
        if (winner == 1 and level >= LEVEL_SUBSTANTIAL and ended_by != 1) or north_left == 0 or off == 0:
            for i in range(n):
                if st[i, L.ST_SIDE] == 1 and st[i, L.ST_KIND] == CAPITAL and sh[i, L.SH_STATUS] != SUNK \
                        and sh[i, L.SH_FIRED] == 0:
                    gl, sl, rec = final_states_nb(sh[i, L.SH_G], sh[i, L.SH_S], sh[i, L.SH_DC], st[i, L.ST_DEF])
                    bomb += by_damage_nb(st[i, L.ST_ATT], gl)
    row[L.RS_BOMBARD] = bomb
    i0 = 0
    i1 = 0
    if s == SCEN_C:
        if ended_by != 0 and off != 0:
            und = 0
            for i in range(n):
                if st[i, L.ST_SIDE] == 0 and sh[i, L.SH_STATUS] != SUNK:
                    gl, sl, rec = final_states_nb(sh[i, L.SH_G], sh[i, L.SH_S], sh[i, L.SH_DC], st[i, L.ST_DEF])
                    if gl + sl == 0:
                        und += st[i, L.ST_ATT]
            i0 = und if und < ibonus else ibonus
        i1 = ibonus - i0
    row[L.RS_INTERCEPT0] = i0
    row[L.RS_INTERCEPT1] = i1
    row[L.RS_SCORE0] = row[L.RS_DAMAGE0] + row[L.RS_BONUS0] + i0
    row[L.RS_SCORE1] = row[L.RS_DAMAGE1] + row[L.RS_BONUS1] + i1 + bomb


@kernel(error_model="numpy", nrt=True)
def score_uncontested_nb(s, cap_att0, att0, cap_att1, n0, n1, ibonus, cp, row):
    """Victory Points of an uncontested campaign scenario (Rule 11.6): the side that assigned
    ships wins a Substantial Victory (20 VPs) plus its objective: in B the South's Bombardment
    Bonus (all its capital ships' Attack Strength), in C the North's interception (its Attack
    Strength up to the Interception Bonus, the South keeping the balance) or, with no North ships,
    the whole bonus for the South (ruling DN-C4). Neither side: no VPs but the convoy's bonus.

    Args:
        cap_att0/1, att0: the capital ships' and all units' Attack Strength of the North
            (``cap_att1``: the South's capital ships); n0, n1: units assigned.
    """
    winner = -1
    level = LEVEL_DRAW
    if n0 > 0 and n1 == 0:
        winner = 0
        level = LEVEL_SUBSTANTIAL
    elif n1 > 0 and n0 == 0:
        winner = 1
        level = LEVEL_SUBSTANTIAL
    row[L.RS_WINNER] = winner
    row[L.RS_LEVEL] = level
    row[L.RS_BONUS0] = cp[L.CP_BONUS_S] if winner == 0 else 0
    row[L.RS_BONUS1] = cp[L.CP_BONUS_S] if winner == 1 else 0
    row[L.RS_OFF_FIRST] = -1
    bomb = 0
    if s == SCEN_B and winner == 1:
        bomb = cap_att1
    row[L.RS_BOMBARD] = bomb
    i0 = 0
    i1 = 0
    if s == SCEN_C:
        if n0 > 0:
            i0 = att0 if att0 < ibonus else ibonus
        i1 = ibonus - i0
    row[L.RS_INTERCEPT0] = i0
    row[L.RS_INTERCEPT1] = i1
    row[L.RS_SCORE0] = row[L.RS_BONUS0] + i0
    row[L.RS_SCORE1] = row[L.RS_BONUS1] + i1 + bomb


@kernel(error_model="numpy", nrt=True)
def campaign_scenario_nb(s, g, ct, gs, pcr, knr, row):
    """Play (or concede) campaign scenario ``s`` of game ``g`` and write its row (``RS_*``). In the
    extended campaign also apply its treasury flows and fleet changes (Rules 12.63-12.64).

    Args:
        ct: the :class:`.campaign_loop.CampaignTables`; gs: the game's
            :class:`.campaign_loop.CampaignState` (its clock ``ck`` names the players who are North
            and South, the Extended Campaign Game-Turn, the Interception Bonus and the treasuries,
            written; ``ps`` and ``gout`` are written).
        pcr, knr: policy codes and knobs by role (side 0 North).
        row: ``int64[NRS]`` written.
    """
    cp = ct.cp
    tb = ct.tb
    ck = gs.ck
    ps = gs.ps
    rng = gs.rng
    gout = gs.gout
    centres, tours_n, tours_s, _, _ = ct.geo
    rl = tb[0]
    players = np.zeros(2, dtype=np.int64)
    players[0] = ck[L.CK_NORTH]
    players[1] = 1 - ck[L.CK_NORTH]
    ibonus = ck[L.CK_IB]
    ap = np.zeros((2, 3), dtype=np.int64)
    for r in range(2):
        if cp[L.CP_DELAY] >= 0:
            ap[r, 0] = cp[L.CP_DELAY]
        else:
            ap[r, 0] = np.int64(knr[r, L.K_DELAY])   # -1: at random (9.28)
        ap[r, 1] = cp[L.CP_STACK0 + players[r]]      # 9.21
        ap[r, 2] = cp[L.CP_TOUR0 + players[r]]       # 9.22
    st, sh, fm, trail, sc, ta, idx = setup_scenario_nb(s, players, ct, ps, gs.scen, ap, rng)
    n = st.shape[0]
    n0 = sc[L.SC_N0]
    n1 = n - n0
    for k in range(L.NRS):
        row[k] = 0
    row[L.RS_GAME] = g
    row[L.RS_EXT_TURN] = ck[L.CK_TURN]
    row[L.RS_SCEN] = s
    row[L.RS_NORTH] = players[0]
    row[L.RS_UNITS0] = n0
    row[L.RS_UNITS1] = n1
    row[L.RS_ENDED_BY] = -1
    row[L.RS_OFF_FIRST] = -1
    row[L.RS_IBONUS] = ibonus if s == SCEN_C else 0
    cap_att0 = 0
    att0 = 0
    cap_att1 = 0
    for i in range(n):
        row[L.RS_VALUE0 + st[i, L.ST_SIDE]] += st[i, L.ST_VAL]
        if st[i, L.ST_SIDE] == 0:
            att0 += st[i, L.ST_ATT]
            if st[i, L.ST_KIND] == CAPITAL:
                cap_att0 += st[i, L.ST_ATT]
        elif st[i, L.ST_KIND] == CAPITAL:
            cap_att1 += st[i, L.ST_ATT]
    row[L.RS_CAP_ATT1] = cap_att1
    vp = vp_table_nb(rl)
    if n0 == 0 or n1 == 0:
        row[L.RS_END] = END_UNCONTESTED
        score_uncontested_nb(s, cap_att0, att0, cap_att1, n0, n1, row[L.RS_IBONUS], cp, row)
    else:
        dy = np.zeros(L.NDY, dtype=np.int64)
        reset_dy_nb(dy)
        if rl[L.RL_OPT_SUN]:
            dy[L.DY_SUN] = sun_roll_nb(rng, rl)
        row[L.RS_SUN] = dy[L.DY_SUN]
        vb = 0
        for _ in range(cp[L.CP_VIS_DICE]):
            vb += roll_nb(rng, 6)
        row[L.RS_VIS_BASE] = vb
        sc[L.SC_VIS_BASE] = vb
        t, m, vis = approach_nb(ta, centres, tours_n, tours_s, sc, vb, rl, rng, cp[L.CP_APPROACH_CAP])
        out = np.zeros((1, L.NOUT), dtype=np.int64)
        if t == 0:
            row[L.RS_END] = END_LOOP_CAP
            row[L.RS_TURNS] = cp[L.CP_APPROACH_CAP]
            row[L.RS_WINNER] = -1
        else:
            row[L.RS_CONTACT] = t
            out[0, L.O_DISPLACED] += deploy_after_contact_nb(st, sh, fm, trail, n, ta, rl, sc, rng)
            dy[L.DY_VIS_CARRY] = vis
            ev = np.zeros((0, L.NEV), dtype=np.int32)
            trace = np.zeros((0, n, L.NTR), dtype=np.int64)
            turn, reason, ended_by, contact, contact_end, exit_met, ev_n = tactical_nb(
                st, sc, tb, (pcr, knr), (sh, fm, trail, dy, rng), (out, ev, trace),
                (0, 0, t, cp[L.CP_TURN_LIMIT], vb, 0, cp[L.CP_CHECK], 0))
            row[L.RS_TURNS] = turn
            row[L.RS_END] = reason
            row[L.RS_ENDED_BY] = ended_by
            score_scenario_nb(st, sh, n, sc, s, ended_by, contact_end, row[L.RS_IBONUS], cp, vp, dy, row)
        for k in range(OUT_COUNTS.shape[0]):
            row[OUT_COUNTS[k, 1]] = out[0, OUT_COUNTS[k, 0]]
        for k in range(DY_COUNTS.shape[0]):
            row[DY_COUNTS[k, 1]] = dy[DY_COUNTS[k, 0]]
        for i in range(n):
            if sh[i, L.SH_STATUS] != SUNK and wrecked_nb(sh, i) and under_tow_nb(sh, i):
                row[L.RS_TOWED0 + st[i, L.ST_SIDE]] += 1
        if cp[L.CP_EXTENDED]:
            # 12.64: cures cost a point each; wrecks not under tow are scuttled; permanent damage waits
            for i in range(n):
                r = st[i, L.ST_SIDE]
                p = players[r]
                u = idx[i]
                gl, sl, rec = final_states_nb(sh[i, L.SH_G], sh[i, L.SH_S], sh[i, L.SH_DC], st[i, L.ST_DEF])
                cured = sh[i, L.SH_DC] + rec
                row[L.RS_CURED0 + r] += cured
                ck[L.CK_TREAS0 + p] -= cured * cp[L.CP_DC_COST]
                if sh[i, L.SH_STATUS] == SUNK:
                    ps[p, u, L.PS_STATUS] = L.PS_LOST
                    gout[L.GO_LOST0 + p] += 1
                elif wrecked_nb(sh, i) and not under_tow_nb(sh, i):
                    ps[p, u, L.PS_STATUS] = L.PS_LOST
                    row[L.RS_SCUTTLED0 + r] += 1
                    gout[L.GO_SCUTTLED0 + p] += 1
                elif gl + sl > 0:
                    ps[p, u, L.PS_STATUS] = L.PS_DAMAGED
                    ps[p, u, L.PS_G] = gl
                    ps[p, u, L.PS_S] = sl
    if cp[L.CP_EXTENDED]:
        # 12.63: victory bonuses and the convoy's balance go to the treasury; the Bombardment
        # Bonus comes out of the North's; damage VPs only decide the scenario
        if row[L.RS_WINNER] >= 0:
            ck[L.CK_TREAS0 + players[row[L.RS_WINNER]]] += row[L.RS_BONUS0] + row[L.RS_BONUS1]
        ck[L.CK_TREAS0 + players[1]] += row[L.RS_INTERCEPT1]
        ck[L.CK_TREAS0 + players[0]] -= row[L.RS_BOMBARD]
