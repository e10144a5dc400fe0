"""numba kernels of the Dawn of Empire campaign: combat, area control, VPs, repair, maintenance.

Only ``@njit`` functions (suffix ``_nb``); state layout in :mod:`campaign_layout`. Every battle
is resolved by the shared battle-line kernel :func:`simlab.games.doe.kernels.battle_nb` (rulings
B1-B10); the campaign rulings C1... are in docs/rulings.md.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from . import campaign_layout as lay
from .campaign_movement import (
    idle_leaders_off_nb,
    idle_leaders_to_nb,
    live_slots_nb,
    remove_from_stack_nb,
    stack_leader_stars_nb,
    strength_key_nb,
)
from .campaign_orders import (
    MAXSS,
    eff_att_nb,
    eff_mov_nb,
    port_borders_nb,
    port_friendly_nb,
    port_neutral_nb,
)
from .campaign_pursuit import pursuit_round_nb
from .dice import d6_nb
from .enums import (
    DISABLED,
    END_SPEED,
    ESCAPED,
    IN_LINE,
    LEADER_KILLED,
    RO_RANDOM,
    RO_STRONG,
    SPEED_NEVER,
    SPEED_STOP,
    SUNK,
)
from .kernels import W_DICE, W_DMG, BattleChoices, BattleSpec, Squadrons, battle_nb
from .policy_combat import combat_order_nb, disabled_port_nb, maint_pick_nb, repair_key_nb

# combat scratch cw[CW_NF, W] (combat_scratch_nb): Spain's order of the areas' combats and its
# keys (4.3 B), the ports a disabled unit may go to and their MP (8.3.2.1 B), the units a port
# repairs and their keys (9.0), each area's engaged squadron by side (8.1 A, at sea, in port)
CW_ORDER, CW_OKEY, CW_PORT, CW_PMP, CW_RCAND, CW_RKEY, CW_SEA0, CW_SEA1, CW_PORT0, CW_PORT1, CW_NF = range(11)


@kernel(nrt=True)
def combat_scratch_nb(nu, n_nodes):
    """The combat scratch of a batch, ``int64[CW_NF, max(nu, n_nodes, 1)]`` (rows ``CW_*``);
    allocated once by the entry kernel (each thread has its own), overwritten by each phase."""
    return np.zeros((CW_NF, max(nu, n_nodes, 1)), dtype=np.int64)



# ============================================================================ VP ledger
@kernel
def award_nb(side, kind, amount, where, G, ledger):
    """Add ``amount`` VPs to ``side`` (Rule 12.1) and record the award in the ledger."""
    if amount == 0:
        return
    k = G[lay.G_NLEDGER]
    if k < ledger.shape[0]:
        ledger[k, lay.LG_TURN] = G[lay.G_TURN]
        ledger[k, lay.LG_SIDE] = side
        ledger[k, lay.LG_KIND] = kind
        ledger[k, lay.LG_AMOUNT] = amount
        ledger[k, lay.LG_WHERE] = where
    G[lay.G_NLEDGER] = k + 1
    G[lay.G_SCORE0 + side] += amount
    G[lay.G_VPK + side * lay.VK_NF + kind] += amount
    G[lay.G_VP_NET] += amount if side == lay.US else -amount


# ============================================================================ losses
@kernel
def kill_leader_nb(i, lst, LD, G, ledger):
    """Rule 6.3 C-D, 12.1.2 B: a leader killed; the opposing side earns his stars."""
    if LD[i, lay.LF_STATE] != lay.LEADER_IN_PLAY:
        return
    LD[i, lay.LF_STATE] = lay.LEADER_DEAD
    LD[i, lay.LF_UNIT] = -1
    side = lst[i, lay.LS_SIDE]
    G[lay.G_LKILLED0 + side] += 1
    award_nb(1 - side, np.int64(lay.VK_LEADERS), lst[i, lay.LS_STARS], np.int64(-1), G, ledger)


@kernel
def sink_unit_nb(u, scuttled, ust, lst, par, U, S, SM, LD, G, ledger):
    """A unit sunk (8.3.2.2 C) or scuttled (14.8 A, ruling C19): out of play for good; its loss
    VPs (12.1.2 A) count toward the turn's total; leaders aboard die with it (6.3 C)."""
    remove_from_stack_nb(u, U, S, SM, LD, lst)
    side = ust[u, lay.US_SIDE]
    G[lay.G_LOSSHALF0 + 1 - side] += par[lay.P_LOSSHALF + ust[u, lay.US_TYPE]]
    U[u, lay.UF_LOC] = lay.LOC_SCUTTLED if scuttled else lay.LOC_SUNK
    G[lay.G_SUNK + side * lay.N_TYPES + ust[u, lay.US_TYPE]] += 1
    if scuttled:
        G[lay.G_SCUTTLED0 + side] += 1
    for i in range(lst.shape[0]):
        if LD[i, lay.LF_STATE] == lay.LEADER_IN_PLAY and LD[i, lay.LF_UNIT] == u:
            kill_leader_nb(i, lst, LD, G, ledger)


@kernel
def nearest_port_nb(frm, side, german, allow_neutral, nodes, cost, par):
    """The nearest port (least MP from ``frm``) friendly to ``side`` (and neutral ones when
    ``allow_neutral``); ties go to the larger repair value, then the lower node (the owner's
    choice, 8.3.2.1 B, ruling C17). Returns ``(port, mp)`` or ``(-1, BIG)``."""
    A = par[lay.P_NAREAS]
    best = -1
    bc = lay.BIG
    br = -1
    for p in range(A, nodes.shape[0]):
        ok = port_friendly_nb(nodes, p, side, german, par)
        if not ok and allow_neutral and port_neutral_nb(nodes, p, german, par):
            ok = True
        if not ok:
            continue
        c = cost[lay.KMAX, frm, p] if p != frm else 0
        r = nodes[p, lay.NS_REPAIR]
        if c < bc or (c == bc and r > br):
            best = p
            bc = c
            br = r
    return best, bc


@kernel
def disabled_ports_nb(frm, side, german, neutral_ok, nodes, cost, par, out, outc):
    """The ports a disabled unit may be sent to from ``frm`` (Rule 8.3.2.1 B, ruling C39): the
    nearest friendly ports (in MP; all of them when more than one is equally near, "at the option
    of the owning side") and, when ``neutral_ok`` (Optional Rule 14.9, ruling C37), the nearest
    neutral ports likewise. Writes the ports to ``out`` and their MP to ``outc``
    (``int64[>= ports]``); returns how many."""
    A = par[lay.P_NAREAS]
    k = 0
    for want_neutral in range(2):
        if want_neutral == 1 and not neutral_ok:
            break
        bc = lay.BIG
        for p in range(A, nodes.shape[0]):
            ok = port_neutral_nb(nodes, p, german, par) if want_neutral else port_friendly_nb(nodes, p, side, german, par)
            if ok:
                c = cost[lay.KMAX, frm, p] if p != frm else 0
                if c < bc:
                    bc = c
        if bc >= lay.BIG:
            continue
        for p in range(A, nodes.shape[0]):
            ok = port_neutral_nb(nodes, p, german, par) if want_neutral else port_friendly_nb(nodes, p, side, german, par)
            if ok and (cost[lay.KMAX, frm, p] if p != frm else 0) == bc:
                out[k] = p
                outc[k] = bc
                k += 1
    return k


@kernel
def send_to_port_nb(u, frm, why, tb, st, cw):
    """A disabled unit goes to a port its side's policy picks among those 8.3.2.1 B allows
    (:func:`disabled_ports_nb`, :func:`policy_combat.disabled_port_nb`; the engine checks the pick,
    ``ERR_DISABLED_PORT``), scuttled on the way under 14.8; a unit that disengaged by speed to the
    nearest friendly or neutral port (10.2.2 B). Leaders aboard go with it (6.3 B). ``tb``, ``st``:
    the :class:`~.campaign_bundles.Tables` and one game's :class:`~.campaign_bundles.GameState`;
    ``cw``: the combat scratch (:func:`combat_scratch_nb`; rows ``CW_PORT``, ``CW_PMP``)."""
    ust, lst, nodes, cost, par = tb.ust, tb.lst, tb.nodes, tb.cost, tb.par
    U, S, SM, LD, G, ledger, rng = st.U, st.S, st.SM, st.LD, st.G, st.ledger, st.rng
    remove_from_stack_nb(u, U, S, SM, LD, lst)
    U[u, lay.UF_OUT] = why
    side = ust[u, lay.US_SIDE]
    german = ust[u, lay.US_GERMAN] & 1 != 0
    restrict = par[lay.P_RESTRICT] != 0
    if why == lay.OUT_DISABLED:
        cand, cc = cw[CW_PORT], cw[CW_PMP]
        k = disabled_ports_nb(frm, side, german, par[lay.P_SUBGROUPS] != 0, nodes, cost, par, cand, cc)
        if k == 0:
            return
        mov = eff_mov_nb(ust, U, u, par[lay.P_MINMOV_R]) if restrict else lay.BIG
        j = disabled_port_nb(par[lay.P_DISPORT0 + side], par[lay.P_DISNEU0 + side], mov, cand, cc, k,
                             side, german, nodes, par, rng)
        if j < 0 or j >= k:
            G[lay.G_ERR] = lay.ERR_DISABLED_PORT
            G[lay.G_ERR_SIDE] = side
            G[lay.G_ERR_STACK] = -1
            j = 0
        p = cand[j]
        c = cc[j]
    else:
        # 10.2.2 B: to a friendly or neutral port
        p, c = nearest_port_nb(frm, side, german, np.bool_(True), nodes, cost, par)
    if p < 0:
        return
    if restrict and why == lay.OUT_DISABLED and c > 0:
        if eff_mov_nb(ust, U, u, par[lay.P_MINMOV_R]) < c:
            sink_unit_nb(u, np.bool_(True), ust, lst, par, U, S, SM, LD, G, ledger)
            return
    U[u, lay.UF_LOC] = p
    if port_neutral_nb(nodes, p, german, par) and p != frm:
        U[u, lay.UF_NEUTRAL] = 1


# ============================================================================ combat
@kernel
def engaged_stack_nb(side, area, nodes, par, S, nslots):
    """The squadron a side fights with in an area (8.1 A, ruling C14): its squadron at sea there,
    else its largest squadron in a friendly port bordering the area. ``nslots``: the side's stack
    slots in use (:func:`live_slots_nb`). Returns ``(stack, at_sea)`` or ``(-1, False)``."""
    base = side * MAXSS
    best = -1
    bn = 1
    for s in range(base, base + nslots):
        if S[s, lay.SF_SIDE] == side and S[s, lay.SF_LOC] == area and S[s, lay.SF_N] > bn:
            best = s
            bn = S[s, lay.SF_N]
    if best >= 0:
        return best, True
    A = par[lay.P_NAREAS]
    for s in range(base, base + nslots):
        if S[s, lay.SF_SIDE] != side or S[s, lay.SF_N] <= bn:
            continue
        loc = S[s, lay.SF_LOC]
        if loc >= A and nodes[loc, lay.NS_PSIDE] == side and port_borders_nb(nodes, loc, area):
            best = s
            bn = S[s, lay.SF_N]
    return best, False


@kernel(inline="always")
def blockade_vs_coal_nb(init, area, nodes, par, S, ND, G, ledger):
    """Rule 12.1.3 B: the initiative side with a Blockade squadron in the area earns 2 VPs if an
    opposing squadron in the area or a bordering port has Coal orders (once per area and turn)."""
    if ND[area, lay.ND_BLKVP] != 0:
        return
    has_blk = False
    base = init * MAXSS
    for s in range(base, base + MAXSS):
        if (S[s, lay.SF_SIDE] == init and S[s, lay.SF_N] >= 2 and S[s, lay.SF_LOC] == area
                and S[s, lay.SF_ORDER] == lay.BLOCKADE):
            has_blk = True
    if not has_blk:
        return
    opp = 1 - init
    base = opp * MAXSS
    for s in range(base, base + MAXSS):
        if S[s, lay.SF_SIDE] != opp or S[s, lay.SF_N] < 2 or S[s, lay.SF_ORDER] != lay.COAL:
            continue
        loc = S[s, lay.SF_LOC]
        if loc == area or (loc >= par[lay.P_NAREAS] and port_borders_nb(nodes, loc, area)):
            ND[area, lay.ND_BLKVP] = 1
            award_nb(init, np.int64(lay.VK_BLOCKADE), par[lay.P_BLKVP], area, G, ledger)
            return


@kernel
def battle_in_area_nb(area, s0, s1, init, tb, st, sc):
    """One battle between the US squadron ``s0`` and the Spanish squadron ``s1`` (Rules 8.3, 6.2-6.3,
    10.1-10.2) through :func:`~simlab.games.doe.kernels.battle_nb`, then its results applied to
    the campaign: sunk units and losses VPs, disabled units to port, leaders, the events row.
    ``tb``, ``st``, ``sc``: the :class:`~.campaign_bundles.Tables`, one game's
    :class:`~.campaign_bundles.GameState` and the :class:`~.campaign_bundles.Scratch` (its battle
    rows ``work``, ``att``, ``dfn``, ``mov``, ``dmg``, ``status``, ``mem`` and the combat scratch
    ``cw``, :func:`combat_scratch_nb`). Each side reforms its line as its policy's
    ``par[P_REFORM0 + side]`` says (8.3.3 A, ruling B11)."""
    ust, lst, par = tb.ust, tb.lst, tb.par
    U, S, SM, LD, ND, G, ledger, bev, rng = st.U, st.S, st.SM, st.LD, st.ND, st.G, st.ledger, st.bev, st.rng
    work, att, dfn, mov, dmg, status, mem, cw = sc.work, sc.att, sc.dfn, sc.mov, sc.dmg, sc.status, sc.mem, sc.cw
    n0 = S[s0, lay.SF_N]
    n1 = S[s1, lay.SF_N]
    n = n0 + n1
    for i in range(n):
        s = s0 if i < n0 else s1
        u = SM[s, i if i < n0 else i - n0]
        mem[i] = u
        att[i] = ust[u, lay.US_ATT]
        dfn[i] = ust[u, lay.US_DEF]
        m = ust[u, lay.US_MOV]
        if S[s, lay.SF_ORDER] == lay.COAL:
            m -= 1  # 5.3 A: coaling squadrons lose 1 MP for disengagement
        mov[i] = m
        dmg[i] = U[u, lay.UF_DMG]
    st0, ld0 = stack_leader_stars_nb(s0, S, SM, LD, lst)
    st1, ld1 = stack_leader_stars_nb(s1, S, SM, LD, lst)
    o0 = S[s0, lay.SF_ORDER]
    o1 = S[s1, lay.SF_ORDER]
    loc0 = S[s0, lay.SF_LOC]
    loc1 = S[s1, lay.SF_LOC]
    d_before0 = 0
    d_before1 = 0
    for i in range(n):
        if i < n0:
            d_before0 += dmg[i]
        else:
            d_before1 += dmg[i]
    speed = par[lay.P_SPEED]
    if speed != SPEED_NEVER and par[lay.P_SUBGROUPS] != 0:
        speed = SPEED_STOP
    w, rounds, why, lf0, lf1 = battle_nb(
        Squadrons(att[:n], dfn[:n], mov[:n], dmg[:n], status[:n]),
        BattleSpec(n0, n1, np.int64(st0), np.int64(st1), par[lay.P_MAX_ROUNDS], np.int64(speed)),
        BattleChoices(par[lay.P_FLEE0], par[lay.P_FLEE1], par[lay.P_REFORM0], par[lay.P_REFORM1]), rng, work)
    for k in range(2):  # luck recording (simlab luck): this battle's gunfire dice and their damage
        G[lay.G_LUCK + k] += work[W_DICE, k]
        G[lay.G_LUCK + 2 + k] += work[W_DMG, k]
    if speed == SPEED_STOP and why == END_SPEED and rounds > 0:
        # the pursuer's choice (14.9 B-C): battle side w is the US (0) or Spain (1), as par's sides
        rounds += pursuit_round_nb(w, n0, n, att, dfn, mov, dmg, status, par[lay.P_PURSUE0 + w], rng,
                                   G[lay.G_LUCK:lay.G_LUCK + 4])
    sunk0 = sunk1 = dis0 = dis1 = esc0 = esc1 = dsum0 = dsum1 = 0   # by side: US, Spain
    # leaders killed by the die (6.3 D) while their ship survives
    if lf0 == LEADER_KILLED and ld0 >= 0:
        kill_leader_nb(ld0, lst, LD, G, ledger)
    if lf1 == LEADER_KILLED and ld1 >= 0:
        kill_leader_nb(ld1, lst, LD, G, ledger)
    # 6.2 D, 6.3 A (ruling C42): leaders with no effect stay with their squadron, aboard its last
    # unit still in line; if none is, aboard its last unit that leaves afloat (by speed, then
    # disabled); only when every ship sank are they lost with it
    for k in range(2):
        lo = 0 if k == 0 else n0
        hi = n0 if k == 0 else n
        carrier = -1
        for want in (IN_LINE, ESCAPED, DISABLED):
            for i in range(lo, hi):
                if status[i] == want:
                    carrier = mem[i]
            if carrier >= 0:
                break
        idle_leaders_to_nb(carrier, lo, hi - lo, mem, ld0 if k == 0 else ld1, LD, lst)
    for i in range(n):
        u = mem[i]
        k = 0 if i < n0 else 1
        U[u, lay.UF_DMG] = dmg[i]
        if k == 0:
            dsum0 += dmg[i]
        else:
            dsum1 += dmg[i]
        frm = loc0 if k == 0 else loc1
        if status[i] == SUNK:
            if k == 0:
                sunk0 += 1
            else:
                sunk1 += 1
            sink_unit_nb(u, np.bool_(False), ust, lst, par, U, S, SM, LD, G, ledger)
        elif status[i] == DISABLED:
            if k == 0:
                dis0 += 1
            else:
                dis1 += 1
            send_to_port_nb(u, frm, lay.OUT_DISABLED, tb, st, cw)
        elif status[i] == ESCAPED:
            if k == 0:
                esc0 += 1
            else:
                esc1 += 1
            send_to_port_nb(u, frm, lay.OUT_ESCAPED, tb, st, cw)
    for k in range(2):
        s = s0 if k == 0 else s1
        if (esc0 if k == 0 else esc1) > 0 or S[s, lay.SF_N] == 0 or S[s, lay.SF_SIDE] != k:
            ND[area, lay.ND_NOCTRL0 + k] = 1
    G[lay.G_BATTLES] += 1
    b = G[lay.G_NBEV]
    if b < bev.shape[0]:
        bev[b, lay.BE_TURN] = G[lay.G_TURN]
        bev[b, lay.BE_AREA] = area
        bev[b, lay.BE_INIT] = init
        bev[b, lay.BE_ORDER0] = o0
        bev[b, lay.BE_ORDER1] = o1
        bev[b, lay.BE_N0] = n0
        bev[b, lay.BE_N1] = n1
        bev[b, lay.BE_ROUNDS] = rounds
        bev[b, lay.BE_REASON] = why
        bev[b, lay.BE_WINNER] = w
        bev[b, lay.BE_SUNK0] = sunk0
        bev[b, lay.BE_SUNK1] = sunk1
        bev[b, lay.BE_DIS0] = dis0
        bev[b, lay.BE_DIS1] = dis1
        bev[b, lay.BE_ESC0] = esc0
        bev[b, lay.BE_ESC1] = esc1
        bev[b, lay.BE_LK0] = 1 if (ld0 >= 0 and LD[ld0, lay.LF_STATE] == lay.LEADER_DEAD) else 0
        bev[b, lay.BE_LK1] = 1 if (ld1 >= 0 and LD[ld1, lay.LF_STATE] == lay.LEADER_DEAD) else 0
        bev[b, lay.BE_DMG0] = dsum0 - d_before0
        bev[b, lay.BE_DMG1] = dsum1 - d_before1
    G[lay.G_NBEV] = b + 1


@kernel
def port_attack_nb(s, area, tb, st, sc):
    """Port Attack Resolution (Rule 8.4) by the Raid or Blockade squadron ``s``: one round; every
    unit fires in line order (8.4 E, ruling C15), hitting the port on 5 or 6 with a damage die per
    hit (8.4 G); the port fires back with its attack (Blockade: at the 1st, 3rd, ... unit) or mine
    value (Raid: at the 1st, 4th, ...) (8.4 B-C, E, H), simultaneously with that unit; the attack
    ends when the port's damage exceeds its defense, and the attacker, if it has units left, then
    earns 3 + defense VPs (8.4 I, L) if it had the initiative in the area or was alone there
    (12.1.3 A, the default; option ``port_vp_initiative = false``: any attacker, ruling C16).
    Only a squadron (two or more units) begins a port attack (7.4 C, ruling C40: the caller
    checks); once begun, the round is fought out by the units left, as Oquendo fights on alone in
    18.2.6 K, and 8.4 L's "units remaining" scores.
    ``tb``, ``st``, ``sc``: the :class:`~.campaign_bundles.Tables`, one game's
    :class:`~.campaign_bundles.GameState` and the :class:`~.campaign_bundles.Scratch` (its ``mem``
    row and the combat scratch ``cw``, :func:`combat_scratch_nb`)."""
    ust, lst, nodes, par = tb.ust, tb.lst, tb.nodes, tb.par
    U, S, SM, LD, ND, G, ledger, rng = st.U, st.S, st.SM, st.LD, st.ND, st.G, st.ledger, st.rng
    mem, cw = sc.mem, sc.cw
    side = S[s, lay.SF_SIDE]
    p = S[s, lay.SF_TARGET]
    if p < 0 or nodes[p, lay.NS_PSIDE] != 1 - side or not port_borders_nb(nodes, p, area):
        return
    if ND[p, lay.ND_PDMG] > nodes[p, lay.NS_DEF]:
        return  # still destroyed (14.2): nothing to attack until it recovers
    blockade = S[s, lay.SF_ORDER] == lay.BLOCKADE
    port_dice = nodes[p, lay.NS_ATT] if blockade else nodes[p, lay.NS_MINE]
    every = 2 if blockade else 3
    G[lay.G_PATTACKS] += 1
    n = S[s, lay.SF_N]
    for i in range(n):
        mem[i] = SM[s, i]
    stars, ld = stack_leader_stars_nb(s, S, SM, LD, lst)
    lship = mem[0]
    destroyed = False
    for i in range(n):
        u = mem[i]
        dice = eff_att_nb(ust, U, u)
        if ld >= 0 and i < stars and LD[ld, lay.LF_STATE] == lay.LEADER_IN_PLAY and LD[ld, lay.LF_UNIT] == lship \
                and U[lship, lay.UF_STACK] == s:
            dice += 1
        for _ in range(dice):
            r = d6_nb(rng)
            if r >= 5:
                ND[p, lay.ND_PDMG] += d6_nb(rng)
                ND[p, lay.ND_PHIT] = 1
        if i % every == 0 and port_dice > 0:
            hit = 0
            disabled = False
            for _ in range(port_dice):
                r = d6_nb(rng)
                if r == 6:
                    hit += d6_nb(rng)
                elif r == 5:
                    disabled = True
            if hit > 0:
                U[u, lay.UF_DMG] += hit
            if U[u, lay.UF_DMG] > ust[u, lay.US_DEF] or disabled:
                idle_leaders_off_nb(u, s, ld, U, S, SM, LD, lst)   # 6.2 D, 6.3 A (C42)
            if U[u, lay.UF_DMG] > ust[u, lay.US_DEF]:
                sink_unit_nb(u, np.bool_(False), ust, lst, par, U, S, SM, LD, G, ledger)
            else:
                if hit > 0 and ld >= 0 and LD[ld, lay.LF_STATE] == lay.LEADER_IN_PLAY and LD[ld, lay.LF_UNIT] == u:
                    if d6_nb(rng) == 6:
                        kill_leader_nb(ld, lst, LD, G, ledger)
                if disabled:
                    send_to_port_nb(u, area, lay.OUT_DISABLED, tb, st, cw)
        if ND[p, lay.ND_PDMG] > nodes[p, lay.NS_DEF]:
            destroyed = True
            break
    if destroyed:
        ND[p, lay.ND_PDESTROYED] += 1
        G[lay.G_PDEST0 + 1 - side] += 1
        # 12.1.3 A: only the side with the initiative scores; a side alone in the area (no search
        # there, ND_INIT < 0) holds it (ruling C16)
        if S[s, lay.SF_N] > 0 and S[s, lay.SF_SIDE] == side and (par[lay.P_PORTVP_INIT] == 0
                                                                 or ND[area, lay.ND_INIT] == side
                                                                 or ND[area, lay.ND_INIT] < 0):
            award_nb(side, np.int64(lay.VK_PORT), par[lay.P_PORTVP] + nodes[p, lay.NS_DEF], p, G, ledger)


@kernel(inline="always")
def engaged_table_nb(side, nodes, par, S, nslots, cw):
    """Each area's engaged squadron of ``side`` as :func:`engaged_stack_nb` finds it, for all
    areas in one pass over the side's slots in use: ``cw[CW_SEA0 + side, a]`` its largest
    squadron at sea in area ``a``, ``cw[CW_PORT0 + side, a]`` its largest in a friendly port
    bordering ``a`` (-1: none; ties to the first slot, as there)."""
    A = par[lay.P_NAREAS]
    sea, port = cw[CW_SEA0 + side], cw[CW_PORT0 + side]
    for a in range(A):
        sea[a] = -1
        port[a] = -1
    base = side * MAXSS
    for s in range(base, base + nslots):
        n = S[s, lay.SF_N]
        if S[s, lay.SF_SIDE] != side or n <= 1:
            continue
        loc = S[s, lay.SF_LOC]
        if loc < A:
            if sea[loc] < 0 or n > S[sea[loc], lay.SF_N]:
                sea[loc] = s
        elif nodes[loc, lay.NS_PSIDE] == side:
            for j in range(2):
                a = nodes[loc, lay.NS_PAREA1 + j]
                if a >= 0 and (port[a] < 0 or n > S[port[a], lay.SF_N]):
                    port[a] = s


@kernel
def combat_phase_nb(tb, st, sc):
    """The Combat Phase (Rules 4.3, 8.0-8.4, 10, 12.1.3), area by area in the order Spain chooses
    (4.3 B: :func:`policy_combat.combat_order_nb`, ruling C13): initiative (8.1; Spain rolls
    first, ties to the US; a squadron anchored at sea takes none and is searched in the Matrix's
    anchored-at-sea column, 5.1 B-C, ruling C41), the Search Matrix (8.2; a stranded ``hold``
    squadron is searched as the Coal squadron it is at sea, ruling C12), a battle, then the port attacks of Raid and
    Blockade squadrons still in the area (8.4 A). An N/A or a failed engagement roll ends the
    area's combat: "there is no further action" (8.2.1, 8.2.3; ruling C35), so no port attack.
    ``tb``, ``st``, ``sc``: the :class:`~.campaign_bundles.Tables`, one game's
    :class:`~.campaign_bundles.GameState` and the :class:`~.campaign_bundles.Scratch` (the combat
    scratch is ``sc.cw``, :func:`combat_scratch_nb`). Each area's engaged squadrons
    (:func:`engaged_stack_nb`) come from tables worked out again after each battle or port
    attack (only those change the stacks)."""
    lst, nodes, matrix, par = tb.lst, tb.nodes, tb.matrix, tb.par
    S, SM, LD, ND, G, ledger, rng = st.S, st.SM, st.LD, st.ND, st.G, st.ledger, st.rng
    cw = sc.cw
    A = par[lay.P_NAREAS]
    order = cw[CW_ORDER]
    combat_order_nb(par[lay.P_CORDER], par, nodes, S, rng, order, cw[CW_OKEY])
    # no slot fills during combat: each side's slots past these stay empty (live_slots_nb)
    n0 = live_slots_nb(lay.US, S)
    n1 = live_slots_nb(lay.SPAIN, S)
    stale = True
    for ai in range(A):
        a = order[ai]
        if stale:
            engaged_table_nb(lay.US, nodes, par, S, n0, cw)
            engaged_table_nb(lay.SPAIN, nodes, par, S, n1, cw)
            stale = False
        s0 = cw[CW_SEA0, a]
        sea0 = s0 >= 0
        if not sea0:
            s0 = cw[CW_PORT0, a]
        s1 = cw[CW_SEA1, a]
        sea1 = s1 >= 0
        if not sea1:
            s1 = cw[CW_PORT1, a]
        no_action = False
        # 5.1 B-C (ruling C41): a squadron anchored at sea (only where no port borders the area,
        # C7) "may not attack": like a squadron in port it takes no initiative (8.1 B), and the
        # other side searches for it in the Search Matrix's anchored-at-sea row
        act0 = sea0 and s0 >= 0 and S[s0, lay.SF_ORDER] != lay.ANCHOR
        act1 = sea1 and s1 >= 0 and S[s1, lay.SF_ORDER] != lay.ANCHOR
        if s0 >= 0 and s1 >= 0 and (act0 or act1):
            if act0 and not act1:
                init = lay.US
            elif act1 and not act0:
                init = lay.SPAIN
            else:
                st0, _ = stack_leader_stars_nb(s0, S, SM, LD, lst)
                st1, _ = stack_leader_stars_nb(s1, S, SM, LD, lst)
                v1 = S[s1, lay.SF_N] + st1 + d6_nb(rng)
                v0 = S[s0, lay.SF_N] + st0 + d6_nb(rng)
                init = lay.US if v0 >= v1 else lay.SPAIN
            ND[a, lay.ND_INIT] = init
            blockade_vs_coal_nb(init, a, nodes, par, S, ND, G, ledger)
            si = s0 if init == lay.US else s1
            so = s1 if init == lay.US else s0
            oi = S[si, lay.SF_ORDER]
            oo = S[so, lay.SF_ORDER]
            if oi == lay.HOLD:
                oi = lay.COAL
            if oo == lay.HOLD:
                oo = lay.COAL
            elif oo == lay.ANCHOR and (sea1 if init == lay.US else sea0):
                oo = lay.SM_ANCHOR_SEA
            cell = matrix[oi, oo]
            if cell > 0:
                if d6_nb(rng) <= cell:
                    battle_in_area_nb(a, s0, s1, init, tb, st, sc)
                    stale = True
                else:
                    no_action = True   # a roll outside the range is a No Result (8.2.3)
            elif cell == lay.SM_NA:
                no_action = True       # 8.2.1 (a VP event, 8.2.2, still has its port attacks)
        if no_action:
            continue
        for side in range(2):
            base = side * MAXSS
            for s in range(base, base + (n0 if side == lay.US else n1)):
                # 7.4 C, 3.5.8: a single unit left of a squadron is an independent unit, which
                # "may not engage in combat or earn VPs": only a squadron attacks (ruling C40)
                if (S[s, lay.SF_SIDE] == side and S[s, lay.SF_N] >= 2 and S[s, lay.SF_LOC] == a
                        and (S[s, lay.SF_ORDER] == lay.RAID or S[s, lay.SF_ORDER] == lay.BLOCKADE)):
                    port_attack_nb(s, a, tb, st, sc)
                    stale = True


# ============================================================================ control and VPs
@kernel
def control_vp_phase_nb(nodes, par, S, ND, G, ledger):
    """Area Control and VP Phase (Rules 4.4, 11.0, 12.1.1-12.1.2): a side controls an area where
    it alone has a squadron of two or more units at sea that is not under Transit orders (11 A, B,
    F), unless it disengaged or lost its squadron there this turn (11 D); controlled areas earn
    their VPs; the turn's losses VPs are totalled with fractions dropped."""
    A = par[lay.P_NAREAS]
    # one pass over the stacks: while it runs, ND_CONTROL holds the sides present in the area
    # (bit 1 for the US, 2 for Spain)
    for a in range(A):
        ND[a, lay.ND_CONTROL] = 0
    for s in range(S.shape[0]):
        a = S[s, lay.SF_LOC]
        if S[s, lay.SF_SIDE] < 0 or S[s, lay.SF_N] < 2 or a < 0 or a >= A:
            continue
        if S[s, lay.SF_ORDER] == lay.TRANSIT:
            continue
        ND[a, lay.ND_CONTROL] |= 1 if S[s, lay.SF_SIDE] == 0 else 2
    for a in range(A):
        pres = ND[a, lay.ND_CONTROL]
        ctrl = -1
        if pres == 1 and ND[a, lay.ND_NOCTRL0] == 0:
            ctrl = 0
        elif pres == 2 and ND[a, lay.ND_NOCTRL1] == 0:
            ctrl = 1
        ND[a, lay.ND_CONTROL] = ctrl
    for a in range(A):
        if ND[a, lay.ND_CONTROL] == 0:
            award_nb(np.int64(0), np.int64(lay.VK_AREA), nodes[a, lay.NS_VP_US], a, G, ledger)
    for a in range(A):
        if ND[a, lay.ND_CONTROL] == 1:
            award_nb(np.int64(1), np.int64(lay.VK_AREA), nodes[a, lay.NS_VP_SPAIN], a, G, ledger)
    for k in range(2):
        v = G[lay.G_LOSSHALF0 + k] // 2
        G[lay.G_LOSSHALF0 + k] = 0
        award_nb(k, np.int64(lay.VK_LOSSES), v, np.int64(-1), G, ledger)


# ============================================================================ repair
@kernel
def close_orders_nb(ust, U):
    """End of a turn's orders: each unit's order becomes its previous order for 5.x sequences;
    disabled units count as Anchored (8.3.2.1 C), and so do units that disengaged by speed and
    stranded units (rulings C12, C18); Transit streaks are counted (5.7 B)."""
    for u in range(ust.shape[0]):
        if U[u, lay.UF_LOC] < 0:
            continue
        o = U[u, lay.UF_ORDER]
        if U[u, lay.UF_OUT] != 0 or o == lay.HOLD or o == lay.NO_ORDER:
            o = lay.ANCHOR
        U[u, lay.UF_PREV] = o
        U[u, lay.UF_STREAK] = U[u, lay.UF_STREAK] + 1 if o == lay.TRANSIT else 0
        U[u, lay.UF_ORDER] = lay.NO_ORDER


@kernel
def _repair_at_nb(p, pts, german_only, ust, U, par, cand, key, dl, nd, rng):
    """Repairs at port ``p`` (:func:`repair_phase_nb`); ``dl[:nd]``: the damaged units in ports,
    in unit order. The units are repaired in the order their side chooses (9.0 B-C,
    ``par[P_REPORD0 + side]``, :func:`policy_combat.repair_key_nb`), each as fully as the points left
    allow (9.0 C)."""
    k = 0
    for i in range(nd):
        u = dl[i]
        if U[u, lay.UF_LOC] != p or U[u, lay.UF_DMG] <= 0:
            continue
        if german_only and ust[u, lay.US_GERMAN] & 1 == 0:
            continue
        if par[lay.P_DELAYED] != 0 and (U[u, lay.UF_STARTLOC] != p or U[u, lay.UF_MOVED] != 0
                                        or U[u, lay.UF_OUT] != 0):
            continue
        cand[k] = u
        k += 1
    if k == 0:
        return
    mode = par[lay.P_REPORD0 + ust[cand[0], lay.US_SIDE]]   # a port holds one side's units (7.4 D)
    if mode == RO_RANDOM and k == 1:
        mode = RO_STRONG   # no choice to draw
    for i in range(k):
        key[cand[i]] = repair_key_nb(mode, ust, U, cand[i], rng)
    for i in range(1, k):
        u = cand[i]
        j = i - 1
        while j >= 0 and key[cand[j]] > key[u]:
            cand[j + 1] = cand[j]
            j -= 1
        cand[j + 1] = u
    for i in range(k):
        if pts <= 0:
            break
        u = cand[i]
        r = U[u, lay.UF_DMG] if U[u, lay.UF_DMG] < pts else pts
        U[u, lay.UF_DMG] -= r
        pts -= r


@kernel
def repair_phase_nb(ust, nodes, par, U, ND, cw, rng):
    """Repairs Phase (Rules 4.5, 9.0): each friendly port removes up to its repair value in damage
    points from units in it, in the order its side chooses (9.0 B-C, the ``repair_order`` knob:
    by default the strongest units first, ruling C20; ``rng``: random-legal's draws); a port
    damaged this turn repairs nothing (9 E, 8.4 I); neutral ports repair nothing (7.2.3 C) except Caracas for German units
    (14.12 B). With 14.2 only units that stayed in the port all turn are repaired, and a damaged
    port spends its repair value on itself first. Disabled markers are removed. ``cw``: the
    combat scratch (:func:`combat_scratch_nb`)."""
    A = par[lay.P_NAREAS]
    nu = ust.shape[0]
    cand, key, dl = cw[CW_RCAND], cw[CW_RKEY], cw[CW_PORT]
    nd = 0   # the damaged units in ports, in unit order (only those can be repaired)
    for u in range(nu):
        if U[u, lay.UF_LOC] >= A and U[u, lay.UF_DMG] > 0:
            dl[nd] = u
            nd += 1
    for p in range(A, nodes.shape[0]):
        side = nodes[p, lay.NS_PSIDE]
        if side == lay.PSIDE_NEUTRAL:
            if par[lay.P_GERMANS] != 0 and nodes[p, lay.NS_REPAIR_GER] > 0:
                _repair_at_nb(p, nodes[p, lay.NS_REPAIR_GER], np.bool_(True), ust, U, par, cand, key, dl, nd, rng)
            continue
        pts = nodes[p, lay.NS_REPAIR]
        if par[lay.P_DELAYED] != 0:
            if ND[p, lay.ND_PDMG] > 0:
                r = ND[p, lay.ND_PDMG] if ND[p, lay.ND_PDMG] < pts else pts
                ND[p, lay.ND_PDMG] -= r
                continue
        elif ND[p, lay.ND_PHIT] != 0:
            continue
        _repair_at_nb(p, pts, np.bool_(False), ust, U, par, cand, key, dl, nd, rng)
    for u in range(nu):
        U[u, lay.UF_OUT] = 0


@kernel
def maintenance_phase_nb(turn, ust, nodes, par, U, rng):
    """Optional rule 14.3: maintenance damage after repairs, one point per unit and turn (ruling
    C30). US turns 2-5: 1 point to a BB/MO and 2 to CA/CP/CU units; other turns 1 to a BB and 1 to
    CP/GB units. Spain: 4 points to BB/CA/CP/CU units. Which units take them is each side's
    choice (:func:`policy_combat.maint_pick_nb`; ``rng`` the game's stream, drawn only by a random pick)."""
    BB, CA, CP, CU, GB, MO = 0, 1, 2, 3, 4, 5
    for side in range(2):
        if side == lay.US:
            if 2 <= turn <= 5:
                groups = ((1 << BB) | (1 << MO), (1 << CA) | (1 << CP) | (1 << CU))
                counts = (par[lay.P_MAINT_BBMO], par[lay.P_MAINT_CRUISERS])
            else:
                groups = ((1 << BB), (1 << CP) | (1 << GB))
                counts = (par[lay.P_MAINT_BB_OTHER], par[lay.P_MAINT_CPGB_OTHER])
        else:
            groups = ((1 << BB) | (1 << CA) | (1 << CP) | (1 << CU), 0)
            counts = (par[lay.P_MAINT_SPAIN], 0)
        for g in range(2):
            for _ in range(counts[g]):
                u = maint_pick_nb(side, groups[g], turn, ust, nodes, par, U, rng)
                if u < 0:
                    break
                U[u, lay.UF_DMG] += 1
                U[u, lay.UF_MAINT] = turn


__all__ = ["award_nb", "battle_in_area_nb", "close_orders_nb", "combat_phase_nb", "combat_scratch_nb", "control_vp_phase_nb",
           "maintenance_phase_nb", "port_attack_nb", "repair_phase_nb", "strength_key_nb"]
