"""Dice of the Dawn of Empire kernels: the normal path is the game's stream, unchanged; a scripted
stream replays given dice in the same kernels (how the example of play is replayed)."""

import numpy as np
import pytest
from numba import njit

from simlab.games.doe.dice import d6_nb, die_nb, script_position, scripted_stream
from simlab.rng import STATE_WORDS, new_state_nb, roll_nb


@njit(cache=True)
def _draw(rng, n, sides, via_d6):
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = d6_nb(rng) if via_d6 else die_nb(rng, sides)
    return out


@njit(cache=True)
def _reference(seed, n, sides):
    st = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(seed, st)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = roll_nb(st, sides)
    return out


def _stream(seed):
    st = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), st)
    return st


def test_normal_path_draws_exactly_the_streams_dice():
    for seed in (1, 2**63 + 5):
        assert (_draw(_stream(seed), 5000, 6, True) == _reference(np.uint64(seed), 5000, 6)).all()
        assert (_draw(_stream(seed), 5000, 7, False) == _reference(np.uint64(seed), 5000, 7)).all()


def test_scripted_stream_replays_the_given_dice():
    rng = scripted_stream([6, 1, 5, 2, 3])
    assert list(_draw(rng, 3, 6, True)) == [6, 1, 5]
    assert script_position(rng) == 3
    assert list(_draw(rng, 2, 3, False)) == [2, 3]


def test_scripted_stream_errors():
    with pytest.raises(IndexError, match="exhausted"):
        _draw(scripted_stream([1, 2]), 3, 6, True)
    with pytest.raises(ValueError, match="outside"):
        _draw(scripted_stream([4]), 1, 3, False)
    with pytest.raises(ValueError, match="positive"):
        scripted_stream([0])
    with pytest.raises(ValueError, match="not a scripted stream"):
        script_position(_stream(1))
