"""Dice of Mar Rojo combat, compiled (Rule 5.3.1 steps 4, 7, 8, 10 and the lucky hit).

Every die comes from the game's stream (``rng``, ``uint64[STATE_WORDS]``) unless a test script
is given: ``script`` is ``int64[2 + k]`` holding ``[next, k, d1, ..., dk]``; while ``next < k``
the scripted values are used in order (the worked examples of 5.3.1 and 5.5 are replayed this
way), then the stream takes over. Production calls pass ``no_script()``.

Functions here only roll and count; who fires at whom is decided in ``combat.py``.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import roll_nb
from .enums import ARM_X
from .layout import (
    R_ESCORT_TORP_SAVE,
    R_HIT,
    R_LUCKY_FIRST,
    R_LUCKY_SECOND,
    R_TORP_CAPITAL,
    RT_SAVE,
    RT_TORP,
)

__all__ = ["d6_nb", "hit_need_nb", "lucky_hit_nb", "no_script", "roll_hits_nb", "save_hits_nb", "script",
           "torpedo_effect_rolls_nb"]


def no_script() -> np.ndarray:
    """An empty dice script (``int64[2]``): every die comes from the stream."""
    return np.zeros(2, dtype=np.int64)


def script(dice) -> np.ndarray:
    """A dice script replaying ``dice`` (each 1-6) before the stream takes over.

    Raises:
        ValueError: if a value is outside 1..6.
    """
    d = np.asarray(list(dice), dtype=np.int64)
    if d.size and (d.min() < 1 or d.max() > 6):
        raise ValueError("scripted dice must be 1..6")
    return np.concatenate([np.asarray([0, d.size], dtype=np.int64), d])


@kernel(inline="always")
def d6_nb(rng, scr):
    """One six-sided die (1..6): the next scripted value, else the stream's."""
    if scr[0] < scr[1]:
        v = scr[2 + scr[0]]
        scr[0] += 1
        return v
    return roll_nb(rng, np.int64(6))


@kernel(inline="always")
def hit_need_nb(rt, distance_penalty, bonus, night_mod):
    """Least die that hits (Rule 5.3.1 step 8; 10.2): ``hit`` (5) + distance penalty (0 or 1)
    - bonus (Optics +1, Smoke -1) + night modifier (0 or 1). Values above 6 never hit."""
    return rt[R_HIT] + distance_penalty - bonus + night_mod


@kernel
def roll_hits_nb(dice, need, rng, scr):
    """Roll ``dice`` dice and count those ``>= need`` (Rule 5.3.1 step 8)."""
    h = np.int64(0)
    for _ in range(dice):
        if d6_nb(rng, scr) >= need:
            h += 1
    return h


@kernel
def lucky_hit_nb(rt, rng, scr):
    """The lucky hit roll (Rule 5.3.1): a 6, then 4+ on a second die, scores one hit (1, else 0).
    The second die is rolled only after a 6."""
    if d6_nb(rng, scr) >= rt[R_LUCKY_FIRST]:
        if d6_nb(rng, scr) >= rt[R_LUCKY_SECOND]:
            return 1
    return 0


@kernel
def save_hits_nb(rt, hits, armour, rng, scr):
    """Saving rolls (Rule 5.3.1 step 10): one die per hit; returns the hits that stand.

    ``armour`` is enums.ARM_*; X makes no roll at all (no die is consumed)."""
    need = rt[RT_SAVE + armour]
    if armour == ARM_X or need > 6:
        return hits
    stand = np.int64(0)
    for _ in range(hits):
        if d6_nb(rng, scr) < need:
            stand += 1
    return stand


@kernel
def torpedo_effect_rolls_nb(rt, torpedo_hits, capital, escort, rng, scr):
    """Resolve torpedo hits (Rule 5.3.1 steps 8 and 10, as the 5.5 Lepanto example orders them).

    For each torpedo hit: an escort target first makes its special 5+ saving roll (a saved hit
    has no effect); then one die on the torpedo effect table, +1 for a capital ship (so a 6
    reads row 7). Rolling stops at the first Sunk result.

    Returns:
        ``(hits, sunk, resolved)``: damage markers to place, 1 if a Sunk result came up, and the
        torpedo hits resolved (saved or rolled on the table; fewer than ``torpedo_hits`` only
        after a Sunk). ``simlab luck`` counts those (``combat.torpedo_luck_nb``).
    """
    hits = np.int64(0)
    k = np.int64(0)
    for _ in range(torpedo_hits):
        k += 1
        if escort:
            if d6_nb(rng, scr) >= rt[R_ESCORT_TORP_SAVE]:
                continue
        r = d6_nb(rng, scr)
        if capital:
            r += rt[R_TORP_CAPITAL]
        if r > 7:
            r = np.int64(7)
        e = rt[RT_TORP + r]
        if e < 0:
            return hits, 1, k
        hits += e
    return hits, 0, k

