"""Kernel benchmarks of ``mar-rojo`` for ``simlab bench`` (Game.bench_cases).

* ``deck shuffle+deal+draw``: action-deck passes per second: shuffle, deal two hands, draw to the end of
  a long game (three passes of The End).
* ``combat fire``: combat resolutions per second: hit dice, saves and damage of a 5-die
  main-armament fire at an H-armoured cruiser (Rule 5.3.1 steps 8-11).
* ``torpedo attack``: torpedo attacks per second: 2 dice, escort save and effect table.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS, new_state_nb
from .combat import fire_nb
from .deck import deal_nb, draw_nb, new_deck_nb
from .enums import W_MAIN, W_TORPEDO
from .layout import (
    C_ARMOUR,
    C_HULL,
    C_MAIN,
    C_TORP,
    C_TYPE,
    G_ENDS_NEEDED,
    G_FINAL,
    G_HAND0_N,
    HAND_CAP,
    NC,
    NG,
    NPILES,
    NS,
    NSLOT,
    PILE_CAP,
    S_DMG,
    S_STATUS,
    S_UP,
)

__all__ = ["bench_cases", "bench_combat_nb", "bench_deck_nb"]


@kernel(nrt=True)
def bench_deck_nb(n, akind, included, seed):
    """``n`` deck passes of a long game; returns the cards drawn (to keep the work observable)."""
    g = np.zeros(NG, np.int64)
    piles = np.zeros((NPILES, PILE_CAP), np.int64)
    hands = np.zeros((2, HAND_CAP), np.int64)
    rng = np.zeros(STATE_WORDS, np.uint64)
    deal_to = np.ones(2, np.int64)
    total = np.int64(0)
    for i in range(n):
        new_state_nb(seed + np.uint64(i), rng)
        for j in range(NG):
            g[j] = 0
        g[G_ENDS_NEEDED] = 3
        new_deck_nb(piles, hands, g, akind, included, rng)
        deal_nb(piles, hands, g, akind, np.int64(5), deal_to, rng)
        side = np.int64(0)
        while g[G_FINAL] == 0:
            if g[G_HAND0_N + side] >= 5:
                g[G_HAND0_N + side] = 0  # discard the hand (the benchmark measures drawing)
            if draw_nb(piles, hands, g, akind, side, np.bool_(True), rng) < 0:
                break
            total += 1
            side = 1 - side
    return total


@kernel(nrt=True)
def bench_combat_nb(n, rt, weapon, dice, target_type, armour, hull, seed):
    """``n`` fires of ``weapon`` with ``dice`` dice at a fresh target; returns the target's total
    damage."""
    cs = np.zeros((NSLOT, NC), np.int64)
    st = np.zeros((NSLOT, NS), np.int64)
    g = np.zeros(NG, np.int64)
    rng = np.zeros(STATE_WORDS, np.uint64)
    scr = np.zeros(2, np.int64)
    new_state_nb(seed, rng)
    a = np.int64(0)
    t = NSLOT // 2
    cs[a, C_MAIN] = dice
    cs[a, C_TORP] = dice
    cs[a, C_HULL] = 6
    cs[t, C_TYPE] = target_type
    cs[t, C_ARMOUR] = armour
    cs[t, C_HULL] = hull
    st[a, S_STATUS] = 1
    st[a, S_UP] = 1
    total = np.int64(0)
    for _ in range(n):
        st[t, S_STATUS] = 1
        st[t, S_DMG] = 0
        fire_nb(rt, cs, st, g, a, t, weapon, np.int64(0), np.int64(0), np.int64(0), rng, scr)
        total += st[t, S_DMG]
    return total


def bench_cases(game, quick: bool = False) -> list[dict]:
    """The kernel benchmarks (see the module docstring)."""
    from .rules import compile_tables
    from .runtime import action_deck
    rt, ak = compile_tables(game.load_data().view())
    akind, included = action_deck(ak, False, True)
    k = 200 if quick else 20_000
    m = 20_000 if quick else 1_000_000
    seed = np.uint64(12345)
    return [
        {"name": "deck shuffle+deal+draw (long game)", "unit": "deck passes", "items": k,
         "fn": lambda: bench_deck_nb(k, akind, included, seed)},
        {"name": "combat fire (5 dice, saves, damage)", "unit": "fires", "items": m,
         "fn": lambda: bench_combat_nb(m, rt, np.int64(W_MAIN), np.int64(5), np.int64(0), np.int64(2), np.int64(7), seed)},
        {"name": "torpedo attack (2 dice, escort save, effect)", "unit": "attacks", "items": m,
         "fn": lambda: bench_combat_nb(m, rt, np.int64(W_TORPEDO), np.int64(2), np.int64(1), np.int64(1), np.int64(3), seed)},
    ]
