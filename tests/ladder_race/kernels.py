"""The ladder race's kernel: ``@njit`` functions only (suffix ``_nb``).

Each turn both sides climb; ``steady`` rolls one d6, ``bold`` rolls two d6 but slides back 2 rungs
(never below 0) when either die shows a 1. The first side at or above ``target`` rungs wins; both
in the same turn: the higher wins, equal is a draw. A race still going after ``max_turns`` turns
stops (``end_reason`` ``max_turns``) and is a draw.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel
from simlab.rng import STATE_WORDS, new_state_nb, roll_nb

#: ``end_reason`` codes
END_REACHED = 0
END_MAX_TURNS = 1


@kernel(nrt=True)
def climb_nb(state, policy):
    """Rungs climbed in one turn by ``policy`` (0 steady, 1 bold); may be negative for bold."""
    if policy == 0:
        return roll_nb(state, 6)
    a = roll_nb(state, 6)
    b = roll_nb(state, 6)
    if a == 1 or b == 1:
        return -2
    return a + b


@kernel(nrt=True)
def play_races_nb(seeds, target, head_start, max_turns, pol_red, pol_blue, winner, turns, score_red, score_blue,
                  reason):
    """Play one race per seed.

    Args:
        seeds: ``uint64[g]`` stream seeds; target: rungs to reach; head_start: red's starting rung
            (blue starts at 0); max_turns: the turn cap; pol_red, pol_blue: 0 steady, 1 bold.
        winner: ``int8[g]`` out (0 red, 1 blue, -1 draw); turns: ``int32[g]`` out;
        score_red, score_blue: ``float32[g]`` out (the final rung); reason: ``int8[g]`` out.
    """
    state = np.empty(STATE_WORDS, dtype=np.uint64)
    for i in range(seeds.shape[0]):
        new_state_nb(seeds[i], state)
        r = head_start
        b = 0
        t = 0
        while t < max_turns and r < target and b < target:
            t += 1
            r = max(0, r + climb_nb(state, pol_red))
            b = max(0, b + climb_nb(state, pol_blue))
        if r >= target or b >= target:
            reason[i] = END_REACHED
            winner[i] = 0 if r > b else (1 if b > r else -1)
        else:
            reason[i] = END_MAX_TURNS
            winner[i] = -1
        turns[i] = t
        score_red[i] = r
        score_blue[i] = b
