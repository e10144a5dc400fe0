"""The kernel of the ``synthetic-duel`` test instrument (:mod:`simlab.games.synthetic_duel` holds the
game and its constants); kept apart so that listing games imports no numba."""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ..rng import STATE_WORDS, new_state_nb, uniform_nb

__all__ = ["play_duel_nb"]


@kernel(nogil=True, nrt=True)
def play_duel_nb(seeds, p_red, winner):
    """Play one duel per seed: red wins with probability ``p_red`` (float64, from both sides' knobs);
    ``seeds`` is ``uint64[g]``, ``winner`` is ``int8[g]`` out (0 red, 1 blue)."""
    state = np.empty(STATE_WORDS, dtype=np.uint64)
    for i in range(seeds.shape[0]):
        new_state_nb(seeds[i], state)
        winner[i] = 0 if uniform_nb(state) < p_red else 1
