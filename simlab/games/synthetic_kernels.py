"""The kernel of the ``synthetic`` test instrument (:mod:`simlab.games.synthetic` describes the
games and holds their constants, which it passes in); kept apart so that listing games imports no
numba."""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ..rng import STATE_WORDS, new_state_nb, roll_nb, uniform_nb

__all__ = ["play_synthetic_nb"]


@kernel(nogil=True, nrt=True)
def play_synthetic_nb(seeds, scenario, logit_red, draw_rate, handicap, threshold, max_turns, red_dice, blue_dice,
                      winner, turns, score_red, score_blue, reason):
    """Play one synthetic game per seed (see :mod:`simlab.games.synthetic`).

    Args:
        seeds: ``uint64[g]`` stream seeds.
        scenario: 0 coin, 1 dice race.
        logit_red: coin, red's decisive-game logit ``SLOPE * (bias - FAIR_BIAS) + EDGE * RPS[red, blue]``
            (float64); draw_rate: coin, probability of a draw (float64).
        handicap, threshold: dice-race parameters (VP, int64).
        max_turns: coin, the most turns (:data:`~simlab.games.synthetic.MAX_TURNS`); red_dice, blue_dice: dice-race dice per side.
        winner: ``int8[g]`` out (0 red, 1 blue, -1 draw); turns: ``int32[g]`` out;
        score_red, score_blue: ``float32[g]`` out (VP); reason: ``int8[g]`` out (END_REASONS).
    """
    state = np.empty(STATE_WORDS, dtype=np.uint64)
    p_red = 1.0 / (1.0 + np.exp(-logit_red))
    for i in range(seeds.shape[0]):
        new_state_nb(seeds[i], state)
        if scenario == 0:
            u_draw = uniform_nb(state)
            u_side = uniform_nb(state)
            if u_draw < draw_rate:
                w = -1
            elif u_side < p_red:
                w = 0
            else:
                w = 1
            t = 1
            while t < max_turns and roll_nb(state, 6) != 6:
                t += 1
            turns[i] = t
            winner[i] = w
            score_red[i] = 1.0 if w == 0 else 0.0
            score_blue[i] = 1.0 if w == 1 else 0.0
        else:
            r = 0
            for _ in range(red_dice):
                r += roll_nb(state, 6)
            b = 0
            for _ in range(blue_dice):
                b += roll_nb(state, 6)
            if handicap > 0:
                r += handicap
            else:
                b -= handicap
            net = r - b
            if net >= threshold:
                w = 0
            elif net <= -threshold:
                w = 1
            else:
                w = -1
            turns[i] = 1
            winner[i] = w
            score_red[i] = r
            score_blue[i] = b
        reason[i] = 1 if winner[i] < 0 else 0
