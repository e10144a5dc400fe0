"""What the scenario's victory condition makes each card worth to a greedy policy, compiled
(Rules 6, 7, 8.1-8.3, 5.3.1).

The greedy family values its moves by the scenario's own result (``victory.winner_nb``):

* a card's **loss** to its own side (``own_loss_value_nb``): its cost (knob ``own_loss``), the
  point it gives the enemy where capital ships and merchants score (7, 8.2, 8.3; in 8.1 the
  Nationalist's capital ships, merchants and escorts, which make up the Republican's condition:
  knob ``own_stake``), and ``decisive`` times how far the loss would move the result now (a win
  to a draw or a loss: one step each; in 8.1 any Nationalist capital ship, or the merchant once an
  escort is sunk);
* the **gain** from sinking an enemy card (``sink_gain_nb``): ``decisive`` times how far it moves
  the result towards this side, plus ``threat_kill`` times the danger that card poses to this
  side's cards;
* the **danger** of an own ship in each row (``FW_DANGER``): its loss value times the share of its
  remaining hull that the enemy's fire could take in one round, face-up enemy cards at their rows
  and covered ones (which the policy cannot identify) as the average of the enemy's covered cards
  (knob ``hidden_threat``); the activation values then weigh staying covered (``cover_weight``,
  ``covered_share``), moving out of danger towards the long row (``back_weight``) and exposing a
  card by uncovering it (``expose_weight``); Retreat is played when it wins and the danger to
  this side is at least ``retreat_danger`` (Rule 6).

Submarines and aircraft are given no danger (only AS and AA fire reach them; their loss decides
no scenario). ``prep_stakes_nb`` fills the scratch (layout ``FW_OWNV``, ``FW_DANGER``,
``FW_EPROF``) and adds the gains to ``FW_TV``; ``policy_value.prep_eval_nb`` calls it.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from .enums import (
    AIRCRAFT,
    CAPITAL,
    LONG,
    MEDIUM,
    MERCHANT,
    SPEED,
    ST_IN_PLAY,
    ST_SUNK,
    SUBMARINE,
    V_CABO_DE_PALOS,
    W_BOMBING,
    W_MAIN,
    W_SECONDARY,
    W_TORPEDO,
)
from .fleet import distance_penalty_nb, is_escort_nb, printed_value_nb, weapon_dice_nb
from .layout import (
    C_ARMOUR,
    C_COST,
    C_HULL,
    C_TYPE,
    FW_DANGER,
    FW_EPROF,
    FW_OWNSF,
    FW_OWNTF,
    FW_OWNV,
    FW_POOL,
    FW_TV,
    G_NIGHT,
    G_VICTORY,
    MAXC,
    PP_DECISIVE,
    PP_HIDDEN_THREAT,
    PP_OWN_LOSS,
    PP_OWN_STAKE,
    PP_THREAT_KILL,
    R_ESCORT_TORP_SAVE,
    R_HIT,
    R_LUCKY_FIRST,
    R_LUCKY_SECOND,
    R_NIGHT_MOD,
    R_TORP_CAPITAL,
    RT_DIST,
    RT_SAVE,
    RT_TORP,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_UP,
)
from .victory import winner_nb

__all__ = ["p_die_nb", "torpedo_hit_value_nb", "save_factor_nb", "result_rank_nb", "loss_shift_nb",
           "own_loss_value_nb", "sink_gain_nb", "prep_stakes_nb", "danger_total_nb"]


@kernel(inline="always")
def p_die_nb(need):
    """Probability that one d6 rolls ``need`` or more."""
    if need <= 1:
        return 1.0
    if need > 6:
        return 0.0
    return (7 - need) / 6.0


@kernel
def torpedo_hit_value_nb(rt, cs, st, t):
    """Expected damage of one torpedo hit on ``t``: an escort's 5+ save first, then the effect
    table (+1 for a capital ship), a Sunk result counting as the remaining hull (5.3.1)."""
    rem = cs[t, C_HULL] - st[t, S_DMG]
    tt = cs[t, C_TYPE]
    add = rt[R_TORP_CAPITAL] if tt == CAPITAL else np.int64(0)
    v = 0.0
    for r in range(1, 7):
        rr = r + add
        if rr > 7:
            rr = np.int64(7)
        e = rt[RT_TORP + rr]
        v += (rem if e < 0 else e) / 6.0
    if is_escort_nb(tt):
        v *= 1.0 - p_die_nb(rt[R_ESCORT_TORP_SAVE])
    return v


@kernel
def save_factor_nb(rt, cs, t):
    """Share of hits on ``t`` that stand after its saving rolls (5.3.1 step 10)."""
    return 1.0 - p_die_nb(rt[RT_SAVE + cs[t, C_ARMOUR]])


@kernel
def result_rank_nb(w, side):
    """2 if ``side`` wins, 1 on a draw, 0 if it loses (``w``: ``victory.winner_nb``)."""
    if w == side:
        return np.int64(2)
    if w < 0:
        return np.int64(1)
    return np.int64(0)


@kernel
def loss_shift_nb(cs, st, g, side, s, before=-1):
    """How many steps (win, draw, loss) the result now moves for ``side`` if card ``s`` (of either
    side) were sunk: positive towards ``side``, negative against it. ``before``: the result's rank
    now (``result_rank_nb``) if the caller has it, else -1."""
    if before < 0:
        before = result_rank_nb(winner_nb(cs, st, g), side)
    keep = st[s, S_STATUS]
    st[s, S_STATUS] = ST_SUNK
    after = result_rank_nb(winner_nb(cs, st, g), side)
    st[s, S_STATUS] = keep
    return after - before


@kernel
def own_loss_value_nb(cs, st, g, pp, side, s, before=-1):
    """What losing own card ``s`` costs ``side`` (value units; see the module docstring);
    ``before`` as for ``loss_shift_nb``."""
    t = cs[s, C_TYPE]
    v = pp[side, PP_OWN_LOSS] * (1.0 + cs[s, C_COST])
    if g[G_VICTORY] == V_CABO_DE_PALOS:
        scores = side == 0 and (t == CAPITAL or t == MERCHANT or is_escort_nb(t))
    else:
        scores = t == CAPITAL or t == MERCHANT
    if scores:
        v += pp[side, PP_OWN_STAKE]
    shift = loss_shift_nb(cs, st, g, side, s, before)
    if shift < 0:
        v -= pp[side, PP_DECISIVE] * shift
    return v


@kernel
def sink_gain_nb(cs, st, g, pp, side, t, before=-1):
    """``decisive`` times the steps sinking enemy card ``t`` moves the result towards ``side``;
    ``before`` as for ``loss_shift_nb``."""
    shift = loss_shift_nb(cs, st, g, side, t, before)
    return pp[side, PP_DECISIVE] * shift if shift > 0 else 0.0


@kernel
def _lucky_nb(rt, g):
    if g[G_NIGHT] == 1:
        return 0.0
    return p_die_nb(rt[R_LUCKY_FIRST]) * p_die_nb(rt[R_LUCKY_SECOND])


@kernel
def _hits_nb(rt, cs, st, g, e, w, d):
    """Expected hits (before saves) of weapon ``w`` of ``e`` at distance ``d``; 0 if it has none."""
    if printed_value_nb(cs, e, w) <= 0:
        return 0.0
    dice = weapon_dice_nb(cs, st, e, w)
    if dice <= 0:
        return _lucky_nb(rt, g)
    nm = rt[R_NIGHT_MOD] if g[G_NIGHT] == 1 else np.int64(0)
    return dice * p_die_nb(rt[R_HIT] + distance_penalty_nb(w, d) + nm)


@kernel
def _profile_nb(rt, cs, st, g, e, prof, o):
    """Enemy card ``e``'s expected gun hits (prof[o + d]) and torpedo hits (prof[o + 3 + d]) at
    a ship, d = SHORT, MEDIUM, LONG (aircraft bomb at Medium from any distance, none at night)."""
    for d in range(6):
        prof[o + d] = 0.0
    t = cs[e, C_TYPE]
    if t == MERCHANT:
        return
    if t == AIRCRAFT:
        if g[G_NIGHT] == 1:
            return
        b = _hits_nb(rt, cs, st, g, e, np.int64(W_BOMBING), np.int64(MEDIUM))
        for d in range(3):
            prof[o + d] = b
        return
    for d in range(3):
        m = _hits_nb(rt, cs, st, g, e, np.int64(W_MAIN), np.int64(d))
        if d != LONG:
            sc = _hits_nb(rt, cs, st, g, e, np.int64(W_SECONDARY), np.int64(d))
            if sc > m:
                m = sc
            prof[o + 3 + d] = _hits_nb(rt, cs, st, g, e, np.int64(W_TORPEDO), np.int64(d))
        prof[o + d] = m


@kernel(inline="always")
def _dmg_nb(prof, o, d, sf, tf):
    a = prof[o + d] * sf
    b = prof[o + 3 + d] * tf
    return a if a > b else b


@kernel
def _fire_at_nb(rt, etype, prof, o, q, r, sf, tf):
    """Expected damage of the enemy profile at ``prof[o:]`` (a card of type ``etype`` in row
    ``q``) on a ship in row ``r`` (Speed: the better of the two rows for the enemy)."""
    if (etype == SUBMARINE or etype == AIRCRAFT) and q == LONG:
        return 0.0
    if etype == AIRCRAFT:
        return _dmg_nb(prof, o, np.int64(MEDIUM), sf, tf)
    e = rt[RT_DIST + 3 * q + r]
    if e != SPEED:
        return _dmg_nb(prof, o, e, sf, tf)
    a = _dmg_nb(prof, o, q, sf, tf)
    b = _dmg_nb(prof, o, r, sf, tf)
    return a if a > b else b


@kernel
def prep_stakes_nb(rt, cs, st, g, pp, side, fw):
    """Fill ``FW_OWNV``, ``FW_DANGER`` and ``FW_EPROF`` for ``side`` and add to ``FW_TV`` (the
    value of each face-up enemy card, already set by ``prep_eval_nb``) the gain of sinking it:
    ``sink_gain_nb`` plus ``threat_kill`` times the danger it poses to this side's ships now.
    Only face-up enemy cards are identified; covered ones count as the average covered card."""
    base = side * MAXC
    ebase = (1 - side) * MAXC
    ncov = np.int64(0)
    covq0 = np.int64(0)
    covq1 = np.int64(0)
    covq2 = np.int64(0)
    # pooled profile of the covered enemy cards (gun, torpedo by distance) as if standing in each
    # row (a covered submarine or aircraft in the long row cannot fire)
    for k in range(18):
        fw[FW_POOL + k] = 0.0
    for j in range(MAXC):
        e = ebase + j
        if st[e, S_STATUS] != ST_IN_PLAY:
            continue
        o = FW_EPROF + 6 * j
        _profile_nb(rt, cs, st, g, e, fw, o)
        if st[e, S_UP] == 0:
            ncov += 1
            q = st[e, S_ROW]
            if q == 0:
                covq0 += 1
            elif q == 1:
                covq1 += 1
            else:
                covq2 += 1
            te = cs[e, C_TYPE]
            for q2 in range(3):
                if (te == SUBMARINE or te == AIRCRAFT) and q2 == LONG:
                    continue
                for k in range(6):
                    fw[FW_POOL + 6 * q2 + k] += fw[o + k]
    hid = pp[side, PP_HIDDEN_THREAT]
    if ncov > 0:
        for k in range(18):
            fw[FW_POOL + k] /= ncov
    now = result_rank_nb(winner_nb(cs, st, g), side)
    for i in range(MAXC):
        s = base + i
        fw[FW_OWNV + i] = 0.0
        for r in range(3):
            fw[FW_DANGER + 3 * i + r] = 0.0
        if st[s, S_STATUS] != ST_IN_PLAY:
            continue
        fw[FW_OWNV + i] = own_loss_value_nb(cs, st, g, pp, side, s, now)
        fw[FW_OWNSF + i] = save_factor_nb(rt, cs, s)
        fw[FW_OWNTF + i] = torpedo_hit_value_nb(rt, cs, st, s)
    for i in range(MAXC):
        s = base + i
        if st[s, S_STATUS] != ST_IN_PLAY:
            continue
        ts = cs[s, C_TYPE]
        if ts == SUBMARINE or ts == AIRCRAFT:
            continue
        rem = cs[s, C_HULL] - st[s, S_DMG]
        if rem <= 0:
            continue
        sf = fw[FW_OWNSF + i]
        tf = fw[FW_OWNTF + i]
        for r in range(3):
            tot = 0.0
            for j in range(MAXC):
                e = ebase + j
                if st[e, S_STATUS] != ST_IN_PLAY or st[e, S_UP] == 0:
                    continue
                tot += _fire_at_nb(rt, cs[e, C_TYPE], fw, FW_EPROF + 6 * j, st[e, S_ROW], np.int64(r), sf, tf)
            if ncov > 0 and hid > 0.0:
                for q in range(3):
                    nq = covq0 if q == 0 else (covq1 if q == 1 else covq2)
                    if nq > 0:
                        tot += hid * nq * _fire_at_nb(rt, np.int64(CAPITAL), fw, FW_POOL + 6 * q, np.int64(q),
                                                      np.int64(r), sf, tf)
            share = tot / rem
            if share > 1.0:
                share = 1.0
            fw[FW_DANGER + 3 * i + r] = fw[FW_OWNV + i] * share
    # the gain of sinking each face-up enemy card
    tk = pp[side, PP_THREAT_KILL]
    for j in range(MAXC):
        t = ebase + j
        if st[t, S_STATUS] != ST_IN_PLAY or st[t, S_UP] == 0:
            continue
        v = sink_gain_nb(cs, st, g, pp, side, t, now)
        if tk > 0.0:
            o = FW_EPROF + 6 * j
            for i in range(MAXC):
                s = base + i
                if st[s, S_STATUS] != ST_IN_PLAY:
                    continue
                ts = cs[s, C_TYPE]
                if ts == SUBMARINE or ts == AIRCRAFT:
                    continue
                rem = cs[s, C_HULL] - st[s, S_DMG]
                if rem <= 0:
                    continue
                dmg = _fire_at_nb(rt, cs[t, C_TYPE], fw, o, st[t, S_ROW], st[s, S_ROW], fw[FW_OWNSF + i],
                                  fw[FW_OWNTF + i])
                share = dmg / rem
                if share > 1.0:
                    share = 1.0
                v += tk * fw[FW_OWNV + i] * share * (1.0 if st[s, S_UP] == 1 else hid)
        fw[FW_TV + j] += v


@kernel
def danger_total_nb(cs, st, fw, pp, side, covered_share):
    """The danger to ``side``'s cards as they stand (face-up cards at their row's danger, covered
    ones at ``covered_share`` of it); ``fw`` prepared by ``prep_stakes_nb``."""
    base = side * MAXC
    v = 0.0
    for i in range(MAXC):
        s = base + i
        if st[s, S_STATUS] != ST_IN_PLAY:
            continue
        d = fw[FW_DANGER + 3 * i + st[s, S_ROW]]
        v += d if st[s, S_UP] == 1 else d * covered_share
    return v
