"""The kernel of the ``synthetic`` test instrument (:mod:`simlab.games.synthetic` describes the
games and holds their constants, which it passes in); kept apart so that listing games imports no
numba."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.jit import kernel

from ..rng import STATE_WORDS, new_state_nb, roll_nb, uniform_nb

__all__ = ["SynthOut", "SynthParams", "play_synthetic_nb"]


class SynthParams(NamedTuple):
    """One batch's game parameters (issue 27 bundle; :mod:`simlab.games.synthetic` works them out):
    ``scenario`` 0 coin, 1 dice race; coin: ``logit_red`` red's decisive-game logit ``SLOPE * (bias -
    FAIR_BIAS) + EDGE * RPS[red, blue]`` (float64), ``draw_rate`` the probability of a draw (float64),
    ``max_turns`` the most turns (:data:`~simlab.games.synthetic.MAX_TURNS`); dice race: ``handicap``,
    ``threshold`` (VP, int64), ``red_dice``, ``blue_dice`` dice per side."""

    scenario: int
    logit_red: float
    draw_rate: float
    handicap: int
    threshold: int
    max_turns: int
    red_dice: int
    blue_dice: int


class SynthOut(NamedTuple):
    """The result columns, one row per game (issue 27 bundle), written by :func:`play_synthetic_nb`:
    ``winner`` ``int8[g]`` (0 red, 1 blue, -1 draw), ``turns`` ``int32[g]``, ``score_red``,
    ``score_blue`` ``float32[g]`` (VP), ``reason`` ``int8[g]`` (an index of END_REASONS)."""

    winner: np.ndarray
    turns: np.ndarray
    score_red: np.ndarray
    score_blue: np.ndarray
    reason: np.ndarray


@kernel(nogil=True, nrt=True)
def play_synthetic_nb(seeds, par, res):
    """Play one synthetic game per seed (see :mod:`simlab.games.synthetic`).

    Args:
        seeds: ``uint64[g]`` stream seeds.
        par: the :class:`SynthParams`.
        res: the :class:`SynthOut` columns, written.
    """
    scenario = par.scenario
    logit_red = par.logit_red
    draw_rate = par.draw_rate
    handicap = par.handicap
    threshold = par.threshold
    max_turns = par.max_turns
    red_dice = par.red_dice
    blue_dice = par.blue_dice
    winner = res.winner
    turns = res.turns
    score_red = res.score_red
    score_blue = res.score_blue
    reason = res.reason
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
