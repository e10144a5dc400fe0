"""Dice for the Dawn of Empire kernels: the game's stream, or a scripted sequence for tests.

Every die a Dawn of Empire kernel rolls goes through :func:`d6_nb` or :func:`die_nb`. In normal
play the ``rng`` argument is a stream state (``uint64[STATE_WORDS]``, :mod:`simlab.rng`) and the
die comes from :func:`simlab.rng.roll_nb`. A *scripted stream* is the same kind of array, longer
than ``STATE_WORDS``: it replays a given sequence of dice, so a test can put the printed dice of a
worked example into the very kernels that play the game. Its layout::

    [0:3]   stream words (unused in scripted mode)
    [3]     cursor: index of the next die in the script
    [4]     number of dice in the script
    [5:]    the dice, in the order the kernels roll them

The only cost on the normal path is one comparison of the array's length, which the branch
predictor always gets right; ``simlab bench`` times the battle kernel to show it. A script that
runs out raises ``IndexError``; a scripted value outside ``1..n`` raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS, roll_nb

__all__ = ["SCRIPT_HEADER", "d6_nb", "die_nb", "script_position", "scripted_stream"]

#: words before the first scripted die
SCRIPT_HEADER = STATE_WORDS + 2


def scripted_stream(dice: Iterable[int]) -> np.ndarray:
    """A scripted stream that replays ``dice`` in order (see the module docstring).

    Args:
        dice: the die results, each an int >= 1 (checked against the die size when rolled).

    Returns:
        ``ndarray(uint64, shape=(SCRIPT_HEADER + len(dice),))`` usable wherever a kernel takes
        its ``rng`` argument.

    Raises:
        ValueError: if a die is not a positive integer.
    """
    d = [int(x) for x in dice]
    if any(x < 1 for x in d):
        raise ValueError("scripted dice must be positive integers")
    out = np.zeros(SCRIPT_HEADER + len(d), dtype=np.uint64)
    out[STATE_WORDS] = 0
    out[STATE_WORDS + 1] = len(d)
    out[SCRIPT_HEADER:] = np.asarray(d, dtype=np.uint64)
    return out


def script_position(rng: np.ndarray) -> int:
    """How many dice of a scripted stream have been rolled so far.

    Raises:
        ValueError: if ``rng`` is a plain stream state, not a scripted stream.
    """
    if rng.shape[0] <= STATE_WORDS:
        raise ValueError("not a scripted stream")
    return int(rng[STATE_WORDS])


@kernel
def _scripted_nb(rng, n):
    i = rng[STATE_WORDS]
    if i >= rng[STATE_WORDS + 1]:
        raise IndexError("scripted dice exhausted")
    v = np.int64(rng[SCRIPT_HEADER + np.int64(i)])
    if v < 1 or v > n:
        raise ValueError("scripted die outside 1..n")
    rng[STATE_WORDS] = i + np.uint64(1)
    return v


@kernel(inline="always")
def die_nb(rng, n):
    """An integer in ``1..n`` from the game's stream, or the next die of a scripted stream."""
    if rng.shape[0] > STATE_WORDS:
        return _scripted_nb(rng, np.int64(n))
    return roll_nb(rng, n)


@kernel(inline="always")
def d6_nb(rng):
    """One six-sided die (``1..6``) from the game's stream, or the next die of a scripted stream."""
    if rng.shape[0] > STATE_WORDS:
        return _scripted_nb(rng, np.int64(6))
    return roll_nb(rng, 6)
