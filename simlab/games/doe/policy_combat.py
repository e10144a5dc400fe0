"""The players' choices inside the Dawn of Empire Combat Phase (numba kernels, suffix ``_nb``).

* Rule 4.3 B: "The order of combat resolution is determined by Spain" — :func:`combat_order_nb`
  orders the areas from what Spain knows (where its own squadrons are), by the Spanish policy's
  ``combat_order`` knob (copied to ``par[P_CORDER]`` by the runtime).
* Rule 10.2: a squadron able to disengage by speed "may" do so — each side's threshold (the
  ``disengage_odds`` knob, ``par[P_FLEE0 + side]``) is applied inside the battle kernel by
  :func:`simlab.games.doe.kernels.flee_choice_nb`, from the battle lines both sides see.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import campaign_layout as lay
from .dice import die_nb

from .enums import CO_MAP, CO_RANDOM, CO_STRONG_FIRST, CO_WEAK_FIRST  # noqa: E402,F401  (4.3 B modes)


@njit(cache=True)
def combat_order_nb(mode, par, nodes, S, rng, out):
    """Spain's order of the areas' combats (Rule 4.3 B, ruling C13): ``out[:A]`` gets a
    permutation of the sea areas (``int64``). ``mode`` is a ``CO_*`` constant; the key is the
    number of Spanish units that can fight in each area (Spain's own squadrons, ``S``: at sea
    there or in a Spanish port bordering it, 8.1 A), ties in pack order. ``CO_RANDOM`` draws one
    die per area after the first (a Fisher-Yates shuffle)."""
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
    key = np.zeros(A, dtype=np.int64)
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


__all__ = ["CO_MAP", "CO_RANDOM", "CO_STRONG_FIRST", "CO_WEAK_FIRST", "combat_order_nb"]
