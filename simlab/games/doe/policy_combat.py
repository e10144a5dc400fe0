"""The players' choices inside the Dawn of Empire Combat Phase (numba kernels, suffix ``_nb``).

* Rule 4.3 B: "The order of combat resolution is determined by Spain" — :func:`combat_order_nb`
  orders the areas from what Spain knows (where its own squadrons are), by the Spanish policy's
  ``combat_order`` knob (copied to ``par[P_CORDER]`` by the runtime).
* Rule 10.2: a squadron able to disengage by speed "may" do so — each side's threshold (the
  ``disengage_odds`` knob, ``par[P_FLEE0 + side]``) is applied inside the battle kernel by
  :func:`simlab.games.doe.kernels.flee_choice_nb`, from the battle lines both sides see.
* Rule 8.3.2.1 B: where a disabled unit goes, among the ports the engine allows
  (:func:`campaign_combat.disabled_ports_nb`: the nearest friendly ports, and under 14.9 the
  nearest neutral ones) — :func:`disabled_port_nb`, by the side's ``disabled_port`` and
  ``disabled_neutral`` knobs (``par[P_DISPORT0 + side]``, ``par[P_DISNEU0 + side]``).
* Rule 9.0 B-C: "each side simply removes damage from units of its choice" — :func:`repair_key_nb`
  orders the damaged units in a port by the side's ``repair_order`` knob (``par[P_REPORD0 + side]``);
  the port repairs them in that order, each as fully as its points allow
  (:func:`campaign_combat.repair_phase_nb`).
* Rule 14.3 A-C (optional): which eligible units take each maintenance damage point —
  :func:`maint_pick_nb`, by the side's ``maint_pick`` knob (``par[P_MAINT0 + side]``), for
  :func:`campaign_combat.maintenance_phase_nb`.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from . import campaign_layout as lay
from .campaign_orders import port_neutral_nb
from .dice import die_nb
from .enums import (  # noqa: F401  (the 4.3 B, 8.3.2.1 B and 9.0 B modes)
    CO_MAP,
    CO_RANDOM,
    CO_STRONG_FIRST,
    CO_WEAK_FIRST,
    DN_ESCAPE,
    DN_NEARER,
    DP_RANDOM,
    DP_SAFE,
    MP_PORT,
    MP_RANDOM,
    MP_WEAK,
    RO_LEAST,
    RO_MOST,
    RO_RANDOM,
    RO_STRONG,
)


@kernel
def combat_order_nb(mode, par, nodes, S, rng, out, key):
    """Spain's order of the areas' combats (Rule 4.3 B, ruling C13): ``out[:A]`` gets a
    permutation of the sea areas (``int64``). ``mode`` is a ``CO_*`` constant; the key is the
    number of Spanish units that can fight in each area (Spain's own squadrons, ``S``: at sea
    there or in a Spanish port bordering it, 8.1 A), ties in pack order. ``CO_RANDOM`` draws one
    die per area after the first (a Fisher-Yates shuffle). ``key``: scratch ``int64[>= A]``."""
    A = par[lay.P_NAREAS]
    for a in range(A):
        out[a] = a
    if mode == CO_MAP:
        return
    if mode == CO_RANDOM:
        for i in range(A - 1, 0, -1):
            j = die_nb(rng, i + 1) - 1
            t = out[i]
            out[i] = out[j]
            out[j] = t
        return
    for a in range(A):
        key[a] = 0
    for s in range(S.shape[0]):
        if S[s, lay.SF_SIDE] != lay.SPAIN or S[s, lay.SF_N] < 2:
            continue
        loc = S[s, lay.SF_LOC]
        if loc < A:
            key[loc] += S[s, lay.SF_N]
        elif nodes[loc, lay.NS_PSIDE] == lay.SPAIN:
            for j in range(2):
                a = nodes[loc, lay.NS_PAREA1 + j]
                if a >= 0:
                    key[a] += S[s, lay.SF_N]
    sgn = -1 if mode == CO_STRONG_FIRST else 1
    for i in range(1, A):
        v = out[i]
        j = i - 1
        while j >= 0 and sgn * key[out[j]] > sgn * key[v]:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = v


@kernel
def _best_port_nb(tie, cand, k, want_neutral, german, nodes, par):
    """Index in ``cand[:k]`` of the best port of one kind (friendly or neutral): the most repair
    (``DP_REPAIR``) or the most defense + mines (``DP_SAFE``), then the first; -1 if none."""
    best = -1
    bv = -1
    for j in range(k):
        neutral = port_neutral_nb(nodes, cand[j], german, par)
        if neutral != want_neutral:
            continue
        if tie == DP_SAFE:
            v = nodes[cand[j], lay.NS_DEF] + nodes[cand[j], lay.NS_MINE]
        else:
            v = nodes[cand[j], lay.NS_REPAIR]
        if v > bv:
            bv = v
            best = j
    return best


@kernel
def disabled_port_nb(tie, neu, mov, cand, cc, k, side, german, nodes, par, rng):
    """The port a disabled unit of ``side`` goes to (Rule 8.3.2.1 B, ruling C39): an index into
    the ``k`` legal ports ``cand`` (MP away ``cc``) the engine lists. ``neu`` (``DN_*``, 14.9):
    never a neutral port, a neutral port when it is nearer than the friendly ones, or only when
    the unit's movement ``mov`` (14.8 A; ``BIG`` without 14.8) cannot reach a friendly one but
    reaches the neutral. ``tie`` (``DP_*``): among equally near ports the most repair, the most
    defense + mines, or (random-legal) a uniform draw among every legal port (one die, only when
    there is a choice). What the policy reads is public (the ports' printed values) or its own
    (the unit's movement)."""
    if tie == DP_RANDOM:
        return die_nb(rng, k) - 1 if k > 1 else 0
    f = _best_port_nb(tie, cand, k, False, german, nodes, par)
    n = _best_port_nb(tie, cand, k, True, german, nodes, par)
    if n < 0:
        return f
    if f < 0:
        return n
    if neu == DN_NEARER and cc[n] < cc[f]:
        return n
    if neu == DN_ESCAPE and mov < cc[f] and mov >= cc[n]:
        return n
    return f


@kernel(inline="always")
def repair_key_nb(mode, ust, U, u, rng):
    """The sort key (``int64``, lowest repaired first) of damaged unit ``u`` in a port (Rule 9.0 B-C,
    the owner's choice): by ``mode`` (``RO_*``) the strongest first (attack, then defense: ruling
    C20), the least damaged first (ties: the strongest), the most damaged first (ties: the
    strongest), or (``RO_RANDOM``, random-legal) one die of ``2**20`` per unit, ties in unit order.
    The policy reads only its own units' printed values and damage."""
    strength = ust[u, lay.US_ATT] * 64 + ust[u, lay.US_DEF]
    if mode == RO_RANDOM:
        return np.int64(die_nb(rng, 1 << 20))
    if mode == RO_LEAST:
        return U[u, lay.UF_DMG] * 4096 - strength
    if mode == RO_MOST:
        return -U[u, lay.UF_DMG] * 4096 - strength
    return -strength


@kernel
def _maint_eligible_nb(u, side, type_mask, turn, ust, U):
    """Can unit ``u`` take a maintenance point now (14.3 A-C, E; ruling C30)? Its side's, afloat, of
    the group's types, not maintained last turn nor this one, and not sunk by the point."""
    if U[u, lay.UF_LOC] < 0 or ust[u, lay.US_SIDE] != side or ust[u, lay.US_GERMAN] & 1:
        return False
    if (type_mask >> ust[u, lay.US_TYPE]) & 1 == 0:
        return False
    if (U[u, lay.UF_MAINT] == turn - 1 and turn > 1) or U[u, lay.UF_MAINT] == turn:
        return False
    return ust[u, lay.US_DEF] - U[u, lay.UF_DMG] >= 1


@kernel
def maint_pick_nb(side, type_mask, turn, ust, nodes, par, U, rng):
    """The unit to take one maintenance point (Rule 14.3 A-C; the owning player's choice): among the
    eligible (:func:`_maint_eligible_nb`) the one the side's ``maint_pick`` (``par[P_MAINT0 +
    side]``, enums.MP_*) prefers: MP_PORT one in a friendly port first, then the most defense left;
    MP_STRONG the most defense left; MP_WEAK the least defense left; MP_RANDOM a uniform draw from
    ``rng`` (one die, drawn only when two or more are eligible). Ties: the lowest unit index.
    Returns the unit, -1 when none is eligible."""
    mode = par[lay.P_MAINT0 + side]
    if mode == MP_RANDOM:
        n = 0
        for u in range(ust.shape[0]):
            if _maint_eligible_nb(u, side, type_mask, turn, ust, U):
                n += 1
        if n == 0:
            return -1
        k = die_nb(rng, n) if n > 1 else 1
        for u in range(ust.shape[0]):
            if _maint_eligible_nb(u, side, type_mask, turn, ust, U):
                k -= 1
                if k == 0:
                    return u
    best = -1
    bk = -(1 << 30)
    for u in range(ust.shape[0]):
        if not _maint_eligible_nb(u, side, type_mask, turn, ust, U):
            continue
        left = ust[u, lay.US_DEF] - U[u, lay.UF_DMG]
        k = left if mode != MP_WEAK else -left
        loc = U[u, lay.UF_LOC]
        if mode == MP_PORT and loc >= par[lay.P_NAREAS] and nodes[loc, lay.NS_PSIDE] == side:
            k += 100
        if k > bk:
            bk = k
            best = u
    return best


__all__ = ["CO_MAP", "CO_RANDOM", "CO_STRONG_FIRST", "CO_WEAK_FIRST", "combat_order_nb", "disabled_port_nb",
           "maint_pick_nb", "repair_key_nb"]
