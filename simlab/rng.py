"""Per-game random streams keyed by (master seed, cell, game index).

simlab never uses a global random generator. Every game owns one stream, and a stream is
nothing but a 64-bit starting counter: draw k of the stream is ``mix64(start + k * GAMMA)``
(the SplitMix64 construction, a counter-based generator). Because a game's stream depends only
on ``(master_seed, cell_key, game_index)``, the rows a sweep writes cannot depend on the number
of workers, the chunk size or the order in which chunks finish.

Inside numba kernels a stream is a ``uint64`` array of length :data:`STATE_WORDS`
(``[counter, spare 32 bits, spare flag]``); :func:`new_state_nb` fills it and
:func:`roll_nb` draws an unbiased integer in ``1..n`` from 32 bits (Lemire's
multiply-and-reject method), so one 64-bit draw yields two dice.

``cell_key`` is a stable 64-bit hash of a cell's parameters (:func:`cell_key`), so adding
values to a grid does not change the streams of the cells that were already there; with common
random numbers (``crn=True`` in a sweep) every cell uses ``cell_key = 0`` and game ``i`` of every
cell sees the same dice.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from simlab.jit import kernel

__all__ = [
    "GAMMA",
    "STATE_WORDS",
    "cell_key",
    "game_seeds",
    "mix64",
    "new_state_nb",
    "next_u64_nb",
    "roll_nb",
    "stream_draws_nb",
    "stream_seed",
    "uniform_nb",
]

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SALT = np.uint64(0x5EED5EED2B7E1516)
_MASK32 = np.uint64(0xFFFFFFFF)
# modular inverse of GAMMA (odd) mod 2**64: turns the counter's advance into a count of 64-bit steps
_GAMMA_INV = np.uint64(pow(int(GAMMA), -1, 1 << 64))
STATE_WORDS = 3

_U64 = (1 << 64) - 1


def _mix64_py(z: int) -> int:
    z &= _U64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _U64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _U64
    return z ^ (z >> 31)


def mix64(z: int) -> int:
    """SplitMix64 finaliser of a Python int, modulo 2**64.

    Args:
        z: any integer (taken modulo 2**64).

    Returns:
        int in ``[0, 2**64)``.
    """
    return _mix64_py(int(z))


def stream_seed(master_seed: int, cell: int, game_index: int) -> int:
    """Starting counter of the stream of one game.

    Args:
        master_seed: the sweep's master seed (any integer, taken modulo 2**64).
        cell: the cell key (see :func:`cell_key`; 0 under common random numbers).
        game_index: index of the game within its cell, ``>= 0``.

    Returns:
        int in ``[0, 2**64)``: the stream's first counter value (stored as the ``seed`` column).
    """
    h = _mix64_py((int(master_seed) ^ int(_SALT)) & _U64)
    h = _mix64_py(h ^ (int(cell) & _U64))
    return _mix64_py(h + int(game_index))


def game_seeds(master_seed: int, cell: int, start: int, stop: int) -> np.ndarray:
    """Stream seeds of games ``start..stop-1`` of one cell.

    Args:
        master_seed: the sweep's master seed.
        cell: the cell key.
        start, stop: half-open range of game indices, ``0 <= start <= stop``.

    Returns:
        ``ndarray(uint64, shape=(stop - start,))``; element ``i`` equals
        ``stream_seed(master_seed, cell, start + i)``.

    Raises:
        ValueError: if the range is negative or reversed.
    """
    if start < 0 or stop < start:
        raise ValueError(f"bad game index range {start}..{stop}")
    return _game_seeds_nb(
        np.uint64(int(master_seed) & _U64), np.uint64(int(cell) & _U64), np.int64(start), np.int64(stop)
    )


@kernel(inline="always", nrt=True)
def mix64_nb(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel(nrt=True)
def _game_seeds_nb(master, cell, start, stop):
    out = np.empty(stop - start, dtype=np.uint64)
    h = mix64_nb(master ^ _SALT)
    h = mix64_nb(h ^ cell)
    for i in range(stop - start):
        out[i] = mix64_nb(h + np.uint64(start + i))
    return out


def cell_key(params: dict) -> int:
    """Stable 63-bit key of a cell's parameters (independent of grid order and Python's hash seed).

    Args:
        params: the cell's parameters (scenario, policies, options); JSON-serialisable.

    Returns:
        int in ``[0, 2**63)``.
    """
    blob = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str).encode()
    return int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "little") >> 1


@kernel(inline="always", nrt=True)
def new_state_nb(seed, state):
    """Start a stream: fill ``state`` (``uint64[STATE_WORDS]``) from a game's seed (uint64)."""
    state[0] = seed
    state[1] = np.uint64(0)
    state[2] = np.uint64(0)


@kernel(inline="always", nrt=True)
def next_u64_nb(state):
    """Next 64-bit output of the stream (advances the counter by one)."""
    state[0] += GAMMA
    return mix64_nb(state[0])


@kernel(inline="always", nrt=True)
def stream_draws_nb(seed, state):
    """32-bit draws taken so far from the stream started at ``seed`` (``uint64``) whose state is
    now ``state`` (``uint64[STATE_WORDS]``), as ``int64``: every draw counts, rejected ones too.

    Each 64-bit step advances the counter by ``GAMMA`` and yields two 32-bit draws; ``state[2]``
    flags the spare one not yet used. A d6 is one draw (:func:`roll_nb`) but for its rare rejections.
    """
    steps = (state[0] - np.uint64(seed)) * _GAMMA_INV
    return np.int64(steps) * 2 - np.int64(state[2])


@kernel(inline="always", nrt=True)
def _next_u32_nb(state):
    if state[2] != np.uint64(0):
        state[2] = np.uint64(0)
        return state[1]
    x = next_u64_nb(state)
    state[1] = x >> np.uint64(32)
    state[2] = np.uint64(1)
    return x & _MASK32


@kernel(inline="always", nrt=True)
def roll_nb(state, n):
    """Unbiased integer in ``1..n`` (``n`` in ``1..2**31``); a d6 is ``roll_nb(state, 6)``.

    Lemire's multiply-shift with rejection on 32 bits: exact, and the rejection branch is taken
    with probability below ``n / 2**32``.
    """
    nn = np.uint64(n)
    m = _next_u32_nb(state) * nn
    low = m & _MASK32
    if low < nn:
        threshold = (np.uint64(4294967296) - nn) % nn
        while low < threshold:
            m = _next_u32_nb(state) * nn
            low = m & _MASK32
    return np.int64(m >> np.uint64(32)) + 1


@kernel(inline="always", nrt=True)
def uniform_nb(state):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64_nb(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
