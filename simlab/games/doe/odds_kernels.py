"""numba kernels of the exact Dawn of Empire battle odds (Rules 6.2-6.3, 8.3, 10.1-10.2).

Only ``@njit`` functions live here (suffix ``_nb``); :mod:`simlab.games.doe.odds` is the façade.
They follow :func:`simlab.games.doe.kernels.battle_nb` step by step (the same targeting, dice,
reforming, leader casualties and disengagement), but instead of rolling dice they enumerate what
the dice can do.

**The Markov chain.** A battle between rounds is a *state*: each unit's damage points and whether
it is still in line, each side's current line order, whether each side's leader is still active
(aboard a ship in line), and whether the next round is round 1 (whose overlap rule, 8.3.1 C-E,
differs from later rounds, 8.3.3 D). Within a round every unit's fate depends only on the dice
aimed at it, and those are independent across target units (Rule 8.3 B: all results apply after
both sides fire), so each side's outcomes are the product of per-unit outcome lists; the two sides'
outcomes are paired only to apply the end checks (10.1) and disengagement by speed (10.2.2).

**Side states and side tables.** A state is a pair of *side states* plus the round-1 flag.
:func:`side_table_nb` lists every state one side can be in (a closure over every outcome a round
can have for that side) and, for each, every outcome of a round as a row of option indices (one
per unit in line) with the side state it leads to (and, under disengagement by speed, the side
state left after the units faster than each possible threshold leave). In the chain, a state's
outcome probabilities are then only products of per-unit option probabilities, and its
probability mass lives in a dense ``float64[S0, S1]`` array indexed by side-state ids.

A side state's code (``int64``, mixed radix; units out of line are absent and count 0 damage)::

    side   = (line * drad + damage) * 2 + leader_active
    line   = sum_j (local index of the j-th unit in line + 1) * (ns + 1) ** j
    damage = sum_v damage[v] * dmult[v],   dmult[v] = prod_{w < v} (defense[w] + 1)

A unit's options, in this order: stay undamaged this round (index 0); for each added damage
``x = 1..defense - damage``: stay with ``damage + x`` (on the ship of an active leader: the leader
survives, then the leader is killed: Rule 6.3); leave the line (sunk or disabled).

**Order of processing.** A unit's *level* is its damage while in line and ``defense + 1`` once
out. Damage dice never roll 0, so every round that changes a state after round 1 raises the sum
of the levels (round 1 may only reform the lines). States are processed in increasing level sum,
after the round-1 state, so all the inflow to a state is known when it is processed. A round in
which nothing changes is a self-loop of probability ``q``: a state reached with probability ``m``
is visited ``m / (1 - q)`` times on average (the whole battle), or the chain is propagated round
by round (a round limit).

**Per-unit dice table.** ``tno5[n, x]`` is the probability that ``n`` dice show no 5 and their
6s roll ``x`` damage points in total; ``tall[n, x]`` the probability of ``x`` damage points
whatever the 5s (Rule 8.3.2: a 6 hits and rolls one damage die, a 5 disables).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import types
from numba.typed import Dict

from simlab.jit import kernel

from .kernels import effective_movement_nb, leader_position_nb, line_target_nb, unit_dice_nb

__all__ = ["ChainSpec", "ChainTables", "chain_nb", "side_code_nb", "side_table_nb"]

# ---------------------------------------------------------------- the chain's bundles (issue 27)
#: the two sides' tables from :func:`side_table_nb`, side 1's appended to side 0's (its state ids,
#: outcome rows and ``T_OFF`` shifted; ``nxts`` and ``escs`` keep side-local ids): ``tab int64[S + 1,
#: NT]`` (the last row closes side 1's outcome rows), ``lines``, ``dmgs int64[S, ns]``, ``opts
#: int8[W, ns]``, ``nxts``, ``mms int64[W]``, ``escs``, ``masks int64[W, K]``
ChainTables = namedtuple("ChainTables", ["tab", "lines", "dmgs", "opts", "nxts", "mms", "escs", "masks"])
#: the battle the chain solves: ``s0`` side-0 states, squadron sizes ``n0, n1``, ``att``, ``dfn``
#: ``int64[n]`` printed attack and defense, ``stars``, ``lship`` ``int64[2]`` each side's leader
#: stars and ship (unit index), ``speed`` 1 when units disengage by speed (10.2, ``when-able``) else
#: 0, ``thr_idx int64[2, max movement + 1]`` (column of ``escs`` for side s when the other side's
#: fastest unit has movement m), ``tno5``, ``tall`` ``float64[d + 1, max defense + 1]`` dice tables
ChainSpec = namedtuple("ChainSpec", ["s0", "n0", "n1", "att", "dfn", "stars", "lship", "speed", "thr_idx", "tno5",
                                     "tall"])
#: one round's working arrays (:func:`chain_nb` allocates them once): ``dice int64[n]`` aimed at
#: each unit, ``optp float64[ns, 2 d + 3]`` option probabilities, ``pa``, ``pb float64[W]`` each
#: side's outcome probabilities, ``pm float64[m + 1]``, ``urate float64[n, 4]`` per-unit rates,
#: ``lkill float64[2]``, ``res float64[NRES]`` end probabilities, ``cb_k int64[W]``, ``cb_p
#: float64[W]``, ``gstart``, ``gval int64[m + 2]`` side 1's outcomes grouped by fastest unit
RoundScratch = namedtuple("RoundScratch", ["dice", "optp", "pa", "pb", "pm", "urate", "lkill", "res", "cb_k", "cb_p",
                                           "gstart", "gval"])

# res[] slots
R_WIN0, R_WIN1, R_MUTUAL, R_SPEED0, R_SPEED1 = 0, 1, 2, 3, 4
NRES = 5
# unit rate columns
U_SUNK, U_DISABLED, U_ESCAPED, U_DAMAGE = 0, 1, 2, 3
# out[] slots of chain_nb
O_WIN0, O_WIN1, O_MUTUAL, O_SPEED0, O_SPEED1, O_UNFINISHED, O_ROUNDS, O_QMAX, O_LK0, O_LK1, O_STUCK_T = range(11)
NOUT = 11
# side-table column of a state: code, level sum, units in line, leader flag, outcome offset
T_CODE, T_LVL, T_LN, T_LEAD, T_OFF = 0, 1, 2, 3, 4
NT = 5


# --------------------------------------------------------------------------- codes
@kernel(nrt=True)
def side_code_nb(units, dmgs, ln, base, ns, dmult, drad_s, lead):
    """Code of one side (module docstring) from its line ``units[:ln]`` (global unit indices),
    their damage points ``dmgs[:ln]`` and the leader flag (0/1). Returns ``int64``."""
    lc = 0
    pw = 1
    dc = 0
    for j in range(ln):
        u = units[j]
        lc += (u - base + 1) * pw
        pw *= ns + 1
        dc += dmgs[j] * dmult[u]
    return (lc * drad_s + dc) * 2 + lead


@kernel(nrt=True)
def _decode_side_nb(c, base, ns, dfn, drad_s, dmult, line_row, dmg_row):
    # line_row[:ln] = units in line, dmg_row[:ln] their damage; returns (ln, lead)
    lead = c % 2
    c //= 2
    dc = c % drad_s
    lc = c // drad_s
    k = 0
    while lc > 0:
        u = base + lc % (ns + 1) - 1
        line_row[k] = u
        dmg_row[k] = (dc // dmult[u]) % (dfn[u] + 1)
        lc //= ns + 1
        k += 1
    return k, lead


@kernel(nrt=True)
def _n_options_nb(cap, is_l):
    # options of a unit that can take `cap` more damage points and stay (module docstring)
    return 2 + cap * (2 if is_l else 1)


# --------------------------------------------------------------------------- side tables
@kernel(nrt=True)
def _grow_nb(a, rows, n):
    # a copy of a with `rows` rows, the first n copied
    b = np.zeros((rows,) + a.shape[1:], dtype=a.dtype)
    b[:n] = a[:n]
    return b


@kernel(nrt=True)
def side_table_nb(base, ns, dfn, mov, dmg0, lead0, lship_s, thresholds, dmult, drad_s, max_states, max_rows):
    """The states one side can be in during a battle, and every outcome of a round from each.

    Starting from the side's initial line (its given order, ``dmg0``, leader flag ``lead0``), close
    under "each unit in line takes one of its options (module docstring), the line is reformed
    (Rule 8.3.3, ruling B2), and, when ``thresholds`` is not empty, the units faster than a
    threshold leave (Rule 10.2.2, ruling B8)". Sides with no unit left are not states.

    Args:
        base, ns: the side's first unit index and size; dfn, mov, dmg0: ``int64[n]``;
        lead0: 0/1; lship_s: the leader's ship (unit index).
        thresholds: ``int64[K]``, the fastest movements (MP) the other side can show, ascending
            (empty without disengagement by speed).
        dmult: ``int64[n]``; drad_s: the side's damage radix.
        max_states, max_rows: give up beyond this many states or outcome rows.

    Returns:
        ``(table int64[S, NT], line int64[S, ns], dmg int64[S, ns], opt int8[W, ns], nxt int64[W],
        mm int64[W], esc int64[W, K], mask int64[W, K])``: per state its T_* columns (``T_OFF`` is
        its first outcome row; rows of state i are ``table[i, T_OFF] .. table[i + 1, T_OFF] - 1``,
        with one extra table row closing the last state), its line and damage; per outcome row
        the option index of each unit in line, the state it leads to (-1: no unit left), its
        fastest unit's movement, and per threshold the state left after the faster units leave
        (-1: none) and the bitmask of the units that leave. Empty arrays when a limit is passed.
    """
    k_thr = thresholds.shape[0]
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    cap_s = 256
    table = np.zeros((cap_s + 1, NT), dtype=np.int64)
    line = np.zeros((cap_s, max(ns, 1)), dtype=np.int64)
    dmg = np.zeros((cap_s, max(ns, 1)), dtype=np.int64)
    cap_w = 1024
    opt = np.zeros((cap_w, max(ns, 1)), dtype=np.int8)
    nxt = np.zeros(cap_w, dtype=np.int64)
    mmv = np.zeros(cap_w, dtype=np.int64)
    esc = np.zeros((cap_w, max(k_thr, 1)), dtype=np.int64)
    mask = np.zeros((cap_w, max(k_thr, 1)), dtype=np.int64)
    idx = np.zeros(max(ns, 1), dtype=np.int64)
    nopt = np.zeros(max(ns, 1), dtype=np.int64)
    tmp_u = np.zeros(max(ns, 1), dtype=np.int64)
    tmp_d = np.zeros(max(ns, 1), dtype=np.int64)
    post_u = np.zeros(max(ns, 1), dtype=np.int64)
    post_d = np.zeros(max(ns, 1), dtype=np.int64)
    empty = (np.zeros((0, NT), dtype=np.int64), np.zeros((0, ns), dtype=np.int64), np.zeros((0, ns), dtype=np.int64),
             np.zeros((0, ns), dtype=np.int8), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
             np.zeros((0, k_thr), dtype=np.int64), np.zeros((0, k_thr), dtype=np.int64))
    # the initial side: its given order
    for v in range(ns):
        tmp_u[v] = base + v
        tmp_d[v] = dmg0[base + v]
    c0 = side_code_nb(tmp_u, tmp_d, ns, base, ns, dmult, drad_s, lead0)
    index[c0] = 0
    table[0, T_CODE] = c0
    table[0, T_LN] = ns
    table[0, T_LEAD] = lead0
    lv = 0
    for v in range(ns):
        lv += dmg0[base + v]
        line[0, v] = base + v
        dmg[0, v] = dmg0[base + v]
    table[0, T_LVL] = lv
    lvl_all = 0
    for v in range(ns):
        lvl_all += dfn[base + v] + 1
    count = 1
    w = 0
    i = 0
    while i < count:
        table[i, T_OFF] = w
        ln = table[i, T_LN]
        lead = table[i, T_LEAD]
        for j in range(ln):
            u = line[i, j]
            nopt[j] = _n_options_nb(dfn[u] - dmg[i, j], lead == 1 and u == lship_s)
            idx[j] = 0
        while True:
            # ---- one outcome: apply the options, reform (stable sort by damage)
            m = 0
            lf = lead
            for j in range(ln):
                u = line[i, j]
                o = idx[j]
                if o == nopt[j] - 1:                 # out of the line
                    if u == lship_s:
                        lf = 0
                    continue
                is_l = lead == 1 and u == lship_s
                x = o if not is_l else (o + 1) // 2
                if is_l and o > 0 and o % 2 == 0:     # leader killed (Rule 6.3)
                    lf = 0
                tmp_u[m] = u
                tmp_d[m] = dmg[i, j] + x
                m += 1
            for a in range(1, m):
                uu = tmp_u[a]
                dd = tmp_d[a]
                b = a - 1
                while b >= 0 and tmp_d[b] > dd:
                    tmp_u[b + 1] = tmp_u[b]
                    tmp_d[b + 1] = tmp_d[b]
                    b -= 1
                tmp_u[b + 1] = uu
                tmp_d[b + 1] = dd
            if w >= cap_w:
                if w >= max_rows:
                    return empty
                cap_w *= 2
                opt = _grow_nb(opt, cap_w, w)
                nxt = _grow_nb(nxt, cap_w, w)
                mmv = _grow_nb(mmv, cap_w, w)
                esc = _grow_nb(esc, cap_w, w)
                mask = _grow_nb(mask, cap_w, w)
            for j in range(ln):
                opt[w, j] = idx[j]
            fastest = -1
            for a in range(m):
                fastest = max(fastest, effective_movement_nb(mov[tmp_u[a]], tmp_d[a]))
            mmv[w] = fastest
            # ---- the side after the round, then after the faster units leave (each threshold)
            for t in range(-1, k_thr):
                c = 0
                lf2 = lf
                bits = 0
                for a in range(m):
                    u = tmp_u[a]
                    if t >= 0 and effective_movement_nb(mov[u], tmp_d[a]) > thresholds[t]:
                        bits |= 1 << u
                        if u == lship_s:
                            lf2 = 0
                    else:
                        post_u[c] = u
                        post_d[c] = tmp_d[a]
                        c += 1
                sid = -1
                if c > 0:
                    code = side_code_nb(post_u, post_d, c, base, ns, dmult, drad_s, lf2)
                    if code in index:
                        sid = index[code]
                    else:
                        if count >= max_states:
                            return empty
                        if count >= cap_s:
                            cap_s *= 2
                            table = _grow_nb(table, cap_s + 1, count)
                            line = _grow_nb(line, cap_s, count)
                            dmg = _grow_nb(dmg, cap_s, count)
                        sid = count
                        index[code] = sid
                        table[sid, T_CODE] = code
                        table[sid, T_LN] = c
                        table[sid, T_LEAD] = lf2
                        lv = lvl_all
                        for a in range(c):
                            line[sid, a] = post_u[a]
                            dmg[sid, a] = post_d[a]
                            lv += post_d[a] - dfn[post_u[a]] - 1
                        table[sid, T_LVL] = lv
                        count += 1
                if t < 0:
                    nxt[w] = sid
                else:
                    esc[w, t] = sid
                    mask[w, t] = bits
            w += 1
            # ---- next outcome (odometer)
            j = 0
            while j < ln:
                idx[j] += 1
                if idx[j] < nopt[j]:
                    break
                idx[j] = 0
                j += 1
            if j == ln:
                break
        i += 1
    table[count, T_OFF] = w
    return (table[: count + 1].copy(), line[:count].copy(), dmg[:count].copy(), opt[:w].copy(), nxt[:w].copy(),
            mmv[:w].copy(), esc[:w].copy(), mask[:w].copy())


# --------------------------------------------------------------------------- one round
@kernel(nrt=True)
def _dice_at_nb(att, line0, ln0, dmg0, line1, ln1, dmg1, lead, stars, lship, init, dice):
    # Dice aimed at each unit this round: the targeting of battle_nb (Rules 8.3.1 C-E, 8.3.3 D,
    # 8.3.2.3 B, 6.2 E-F). dice[] must be zero on entry.
    for s in range(2):
        if s == 0:
            line, ns, dm, oline, no = line0, ln0, dmg0, line1, ln1
        else:
            line, ns, dm, oline, no = line1, ln1, dmg1, line0, ln0
        lpos = leader_position_nb(line, ns, lship[s], lead[s] == 1)
        cu = 0
        cd = 0
        for i in range(ns):
            k, cu, cd = line_target_nb(i, no, init == 1, dm[i] > 0, cu, cd)
            dice[oline[k]] += unit_dice_nb(att[line[i]], dm[i], i, lpos, stars[s])


@kernel(nrt=True)
def _options_p_nb(line, ln, dmg_row, lead_s, s, spec, w):
    # Probabilities of each unit's options (module docstring order) given the dice aimed at it;
    # per-unit rates (sunk, disabled, mean damage) and the leader's casualty chance (Rule 6.3).
    # spec: ChainSpec; w: RoundScratch (dice read; optp, urate, lkill written).
    lship_s, dfn, tno5, tall = spec.lship[s], spec.dfn, spec.tno5, spec.tall
    dice, optp, urate, lkill = w.dice, w.optp, w.urate, w.lkill
    for j in range(ln):
        u = line[j]
        nd = dice[u]
        cap = dfn[u] - dmg_row[j]
        is_l = lead_s == 1 and u == lship_s
        k = 0
        c5 = 0.0
        ca = 0.0
        for x in range(cap + 1):
            p = tno5[nd, x]
            c5 += p
            ca += tall[nd, x]
            if is_l and x > 0:
                optp[j, k] = p * (5.0 / 6.0)
                optp[j, k + 1] = p * (1.0 / 6.0)
                k += 2
            else:
                optp[j, k] = p
                k += 1
        sunk = 1.0 - ca
        if sunk < 0.0:
            sunk = 0.0
        dis = ca - c5
        if dis < 0.0:
            dis = 0.0
        optp[j, k] = sunk + dis
        urate[u, U_SUNK] = sunk
        urate[u, U_DISABLED] = dis
        urate[u, U_DAMAGE] = nd * (7.0 / 12.0)
        if is_l:
            # killed if the ship sinks, else on a 6 when it took damage (ruling B5)
            lkill[s] = sunk + (ca - tall[nd, 0]) / 6.0


@kernel(nrt=True)
def _outcome_p_nb(r0, r1, ln, opt, optp, pout):
    # pout[k] = probability of outcome row r0 + k: the product of its units' option probabilities
    for k in range(r1 - r0):
        p = 1.0
        for j in range(ln):
            p *= optp[j, opt[r0 + k, j]]
        pout[k] = p


@kernel(nrt=True)
def _round_nb(ia, ib, init, tb, spec, w):
    # Everything about one round from state (ia, ib) except the pairing: outcome probabilities of
    # each side (w.pa, w.pb), per-unit rates and leader casualties. Returns the outcome row ranges.
    # tb: ChainTables; spec: ChainSpec; w: RoundScratch.
    tab, lines, dmgs, opts, nxts, mms, masks = tb.tab, tb.lines, tb.dmgs, tb.opts, tb.nxts, tb.mms, tb.masks
    s0, n0, n1, att, stars, lship, speed, thr_idx = (spec.s0, spec.n0, spec.n1, spec.att, spec.stars, spec.lship,
                                                      spec.speed, spec.thr_idx)
    dice, pa_, pb_, pm, urate, lkill = w.dice, w.pa, w.pb, w.pm, w.urate, w.lkill
    n = n0 + n1
    ga = ia
    gb = s0 + ib
    ln0 = tab[ga, T_LN]
    ln1 = tab[gb, T_LN]
    lead = (tab[ga, T_LEAD], tab[gb, T_LEAD])
    for u in range(n):
        dice[u] = 0
        for c in range(4):
            urate[u, c] = 0.0
    lkill[0] = 0.0
    lkill[1] = 0.0
    _dice_at_nb(att, lines[ga], ln0, dmgs[ga], lines[gb], ln1, dmgs[gb], lead, stars, lship, init, dice)
    a0 = tab[ga, T_OFF]
    a1 = tab[ga + 1, T_OFF]
    b0 = tab[gb, T_OFF]
    b1 = tab[gb + 1, T_OFF]
    _options_p_nb(lines[ga], ln0, dmgs[ga], lead[0], 0, spec, w)
    _outcome_p_nb(a0, a1, ln0, opts, w.optp, pa_)
    _options_p_nb(lines[gb], ln1, dmgs[gb], lead[1], 1, spec, w)
    _outcome_p_nb(b0, b1, ln1, opts, w.optp, pb_)
    if speed == 1:
        # escape rates (Rule 10.2.2): side s's units faster than the other side's fastest unit
        for s in range(2):
            r0 = a0 if s == 0 else b0
            r1 = a1 if s == 0 else b1
            o0 = b0 if s == 0 else a0
            o1 = b1 if s == 0 else a1
            for m in range(pm.shape[0]):
                pm[m] = 0.0
            for k in range(o1 - o0):
                if nxts[o0 + k] >= 0:
                    pm[mms[o0 + k]] += pb_[k] if s == 0 else pa_[k]
            for m in range(pm.shape[0]):
                if pm[m] == 0.0:
                    continue
                t = thr_idx[s, m]
                for k in range(r1 - r0):
                    if nxts[r0 + k] < 0:
                        continue
                    bits = masks[r0 + k, t]
                    if bits == 0:
                        continue
                    p = (pa_[k] if s == 0 else pb_[k]) * pm[m]
                    for u in range(n):
                        if bits & (1 << u):
                            urate[u, U_ESCAPED] += p
    return a0, a1, b0, b1


@kernel(nrt=True)
def _push_nb(v, ta, rows, tb, spec, w, dest, tdest, track_t):
    # Pair the two sides' outcomes (Rules 10.1, 10.2.2): end probabilities into w.res, the mass v
    # of the state onto its successors in dest[S0, S1] (and the elapsed-rounds flow ta into tdest).
    # The state's own cell receives its self-loop too: the whole-battle chain has read that cell
    # already and accounts for the self-loop through the visit count m / (1 - q).
    # rows: (a0, a1, b0, b1), _round_nb's outcome row ranges; tb: ChainTables; spec: ChainSpec;
    # w: RoundScratch.
    a0, a1, b0, b1 = rows
    speed, thr_idx = spec.speed, spec.thr_idx
    nxts, mms, escs = tb.nxts, tb.mms, tb.escs
    pa_, pb_, res, cb_k, cb_p, gstart, gval = w.pa, w.pb, w.res, w.cb_k, w.cb_p, w.gstart, w.gval
    for i in range(NRES):
        res[i] = 0.0
    pe1 = 0.0
    pn1 = 0.0
    for k in range(b1 - b0):
        if nxts[b0 + k] < 0:
            pe1 += pb_[k]
        else:
            pn1 += pb_[k]
    if speed == 0:
        nb = 0
        for k in range(b1 - b0):
            if nxts[b0 + k] >= 0 and pb_[k] > 0.0:
                cb_k[nb] = nxts[b0 + k]
                cb_p[nb] = pb_[k]
                nb += 1
        for k in range(a1 - a0):
            pa = pa_[k]
            if pa == 0.0:
                continue
            ia = nxts[a0 + k]
            if ia < 0:
                res[R_MUTUAL] += pa * pe1
                res[R_WIN1] += pa * pn1
                continue
            res[R_WIN0] += pa * pe1
            va = v * pa
            row = dest[ia]
            for q in range(nb):
                row[cb_k[q]] += va * cb_p[q]
            if track_t:
                tva = ta * pa
                trow = tdest[ia]
                for q in range(nb):
                    trow[cb_k[q]] += tva * cb_p[q]
        return
    # with speed: side 1's non-empty outcomes grouped by their fastest unit (side 0's threshold)
    ng = 0
    nb = 0
    for m in range(gstart.shape[0] - 1):
        first = True
        for k in range(b1 - b0):
            if nxts[b0 + k] >= 0 and mms[b0 + k] == m and pb_[k] > 0.0:
                if first:
                    gval[ng] = m
                    gstart[ng] = nb
                    ng += 1
                    first = False
                cb_k[nb] = b0 + k
                cb_p[nb] = pb_[k]
                nb += 1
    gstart[ng] = nb
    for k in range(a1 - a0):
        pa = pa_[k]
        if pa == 0.0:
            continue
        ra = a0 + k
        if nxts[ra] < 0:
            res[R_MUTUAL] += pa * pe1
            res[R_WIN1] += pa * pn1
            continue
        res[R_WIN0] += pa * pe1
        ta_idx = thr_idx[1, mms[ra]]
        va = v * pa
        tva = ta * pa
        for g in range(ng):
            ia = escs[ra, thr_idx[0, gval[g]]]
            if ia < 0:
                # every unit of side 0 left: side 1 wins by speed (checked first, as battle_nb)
                for q in range(gstart[g], gstart[g + 1]):
                    res[R_SPEED1] += pa * cb_p[q]
                continue
            row = dest[ia]
            trow = tdest[ia if track_t else 0]
            for q in range(gstart[g], gstart[g + 1]):
                ib = escs[cb_k[q], ta_idx]
                if ib < 0:
                    res[R_SPEED0] += pa * cb_p[q]
                    continue
                row[ib] += va * cb_p[q]
                if track_t:
                    trow[ib] += tva * cb_p[q]


@kernel(nrt=True)
def _self_loop_nb(ia, ib, a0, b0, tb, spec, w):
    # P(the round changes nothing): row 0 of each side is "every unit undamaged this round"
    # (probability (4/6)**dice > 0); it is a self-loop unless units then leave by speed.
    speed, thr_idx = spec.speed, spec.thr_idx
    nxts, mms, escs = tb.nxts, tb.mms, tb.escs
    pa_, pb_ = w.pa, w.pb
    if speed == 0:
        ja = nxts[a0]
        jb = nxts[b0]
    else:
        ja = escs[a0, thr_idx[0, mms[b0]]]
        jb = escs[b0, thr_idx[1, mms[a0]]]
    if ja == ia and jb == ib:
        return pa_[0] * pb_[0]
    return 0.0


# --------------------------------------------------------------------------- the chain
@kernel(nrt=True)
def chain_nb(tb, spec, rounds, track_t, urate_acc, out):
    """Exact odds of a battle by a Markov chain over battle states (module docstring).

    Args:
        tb: the :class:`ChainTables`, the two sides' tables from :func:`side_table_nb` joined.
        spec: the :class:`ChainSpec` (side-0 states, squadron sizes, unit values, leaders, speed
            disengagement, the escape-threshold columns and the dice tables; module docstring).
        rounds: 0 = the whole battle (no round limit); ``K >= 1`` = propagate round by round and
            stop after K rounds (battles still going are counted in ``out[O_UNFINISHED]``).
        track_t: keep the expected elapsed rounds (needed only when a state without any dice can
            be reached: such a battle runs to the round limit).
        urate_acc: ``float64[n, 4]``, zero on entry; out: per unit the probability of ending
            sunk, ending disabled (not sunk), escaping by speed, and the mean damage points taken.
        out: ``float64[NOUT]``, zero on entry: win by gunfire per side, mutual destruction, win by
            speed per side, unfinished (or stuck), rounds fought (visits), largest self-loop
            probability, leader killed per side, elapsed rounds on entering stuck states.

    Returns:
        The number of states with positive probability processed (``int``).
    """
    tab = tb.tab
    s0, n0, n1, dfn, thr_idx = spec.s0, spec.n0, spec.n1, spec.dfn, spec.thr_idx
    n = n0 + n1
    s1 = tab.shape[0] - 1 - s0
    nsm = max(n0, n1)
    dmax = 0
    for u in range(n):
        dmax = max(dmax, dfn[u])
    wmax = 0
    for g in range(s0 + s1):
        wmax = max(wmax, tab[g + 1, T_OFF] - tab[g, T_OFF])
    mmax = thr_idx.shape[1] - 1
    dice = np.zeros(n, dtype=np.int64)
    optp = np.zeros((nsm, 2 * dmax + 3), dtype=np.float64)
    pa_ = np.zeros(wmax, dtype=np.float64)
    pb_ = np.zeros(wmax, dtype=np.float64)
    pm = np.zeros(mmax + 1, dtype=np.float64)
    urate = np.zeros((n, 4), dtype=np.float64)
    lkill = np.zeros(2, dtype=np.float64)
    res = np.zeros(NRES, dtype=np.float64)
    cb_k = np.zeros(wmax, dtype=np.int64)
    cb_p = np.zeros(wmax, dtype=np.float64)
    gstart = np.zeros(mmax + 2, dtype=np.int64)
    gval = np.zeros(mmax + 2, dtype=np.int64)
    w = RoundScratch(dice, optp, pa_, pb_, pm, urate, lkill, res, cb_k, cb_p, gstart, gval)
    mass = np.zeros((s0, s1), dtype=np.float64)
    tflow = np.zeros((s0, s1) if track_t else (1, 1), dtype=np.float64)
    processed = 0
    if rounds > 0:
        # ---- round by round: `mass` holds the battles still going before each round
        nxt = np.zeros((s0, s1), dtype=np.float64)
        for r in range(rounds):
            nxt[:, :] = 0.0
            for ia in range(s0):
                for ib in range(s1):
                    if r == 0:
                        if ia > 0 or ib > 0:
                            continue
                        wt = 1.0
                    else:
                        wt = mass[ia, ib]
                        if wt == 0.0:
                            continue
                    processed += 1
                    out[O_ROUNDS] += wt
                    rows = _round_nb(ia, ib, 1 if r == 0 else 0, tb, spec, w)
                    _push_nb(wt, 0.0, rows, tb, spec, w, nxt, tflow, False)
                    _accumulate_nb(wt, n, urate, lkill, res, urate_acc, out)
            mass, nxt = nxt, mass
        out[O_UNFINISHED] += mass.sum()
        return processed

    # ---- the whole battle: round 1, then the states by increasing level sum
    lvl_hi = 0
    for g in range(s0 + s1):
        lvl_hi = max(lvl_hi, tab[g, T_LVL])
    order = np.argsort(tab[: s0 + s1, T_LVL], kind="mergesort")
    starts = np.zeros((2, lvl_hi + 2), dtype=np.int64)
    ids = np.zeros((2, max(s0, s1)), dtype=np.int64)
    cnt = np.zeros(2, dtype=np.int64)
    for q in range(s0 + s1):
        g = order[q]
        s = 0 if g < s0 else 1
        ids[s, cnt[s]] = g if s == 0 else g - s0
        cnt[s] += 1
        starts[s, tab[g, T_LVL] + 1] = cnt[s]
    for s in range(2):
        for lv in range(1, lvl_hi + 2):
            if starts[s, lv] < starts[s, lv - 1]:
                starts[s, lv] = starts[s, lv - 1]
    qmax = 0.0
    for step in range(-1, 2 * lvl_hi + 1):
        for la in range(0 if step < 0 else max(0, step - lvl_hi), 1 if step < 0 else min(lvl_hi, step) + 1):
            lb = step - la
            lo_a = 0 if step < 0 else starts[0, la]
            hi_a = 1 if step < 0 else starts[0, la + 1]
            lo_b = 0 if step < 0 else starts[1, lb]
            hi_b = 1 if step < 0 else starts[1, lb + 1]
            for xa in range(lo_a, hi_a):
                ia = 0 if step < 0 else ids[0, xa]
                for xb in range(lo_b, hi_b):
                    ib = 0 if step < 0 else ids[1, xb]
                    if step < 0:
                        m = 1.0
                        t_in = 0.0
                        init = 1
                    else:
                        m = mass[ia, ib]
                        if m == 0.0:
                            continue
                        t_in = tflow[ia, ib] if track_t else 0.0
                        init = 0
                    processed += 1
                    rows = _round_nb(ia, ib, init, tb, spec, w)
                    q = 0.0 if init == 1 else _self_loop_nb(ia, ib, rows[0], rows[2], tb, spec, w)
                    if q >= 1.0:
                        # nothing can ever change (no dice at all): the battle runs to its limit
                        out[O_UNFINISHED] += m
                        out[O_STUCK_T] += t_in
                        continue
                    if q > qmax:
                        qmax = q
                    v = m / (1.0 - q)
                    tout = (t_in + v) / (1.0 - q)
                    _push_nb(v, tout, rows, tb, spec, w, mass, tflow, track_t)
                    out[O_ROUNDS] += v
                    _accumulate_nb(v, n, urate, lkill, res, urate_acc, out)
    out[O_QMAX] = qmax
    return processed


@kernel(nrt=True)
def _accumulate_nb(w, n, urate, lkill, res, urate_acc, out):
    for u in range(n):
        for c in range(4):
            urate_acc[u, c] += w * urate[u, c]
    out[O_LK0] += w * lkill[0]
    out[O_LK1] += w * lkill[1]
    out[O_WIN0] += w * res[R_WIN0]
    out[O_WIN1] += w * res[R_WIN1]
    out[O_MUTUAL] += w * res[R_MUTUAL]
    out[O_SPEED0] += w * res[R_SPEED0]
    out[O_SPEED1] += w * res[R_SPEED1]
