"""Dreadnought's named policies as the kernels read them: four codes and a knob vector each.

Interim table (moved from game.py and campaign.py); ``policies.toml`` replaces it.
"""

from __future__ import annotations

import numpy as np

from . import layout as L
from .enums import (
    COLUMN,
    FIRE_FOCUS_ODDS,
    FIRE_NEAREST,
    FIRE_RANDOM,
    FIRE_SPREAD_VALUE,
    LINE,
    MOVE_BREAK,
    MOVE_CLOSE,
    MOVE_HOLD,
    MOVE_OBJECTIVE,
    MOVE_RANDOM,
    TORP_USE_AGGRESSIVE,
    TORP_USE_DEFENSIVE,
    TORP_USE_RANDOM,
    TORP_USE_SELECTIVE,
)


def _knobs(kw: dict | None = None) -> np.ndarray:
    base = {L.K_RANGE: 2.0, L.K_BROADSIDE: 0.6, L.K_TORP_MIN: 1.0, L.K_NEAR: 0.1, L.K_SAFE: 1.0,
            L.K_FOCUS: 0.5, L.K_SCREEN_RANGE: 2.0, L.K_PARALLEL: 0.4,
            L.K_TURNCOST: 0.3, L.K_SUPPORT: 8.0}
    base.update(kw or {})
    k = np.zeros(L.NKN, dtype=np.float64)
    for slot, v in base.items():
        k[slot] = v
    return k


#: policy name -> (movement, fire allocation, torpedo use, preferred formation mode), knobs
POLICIES: dict[str, tuple[tuple[int, int, int, int], np.ndarray]] = {
    "close-and-engage": ((MOVE_CLOSE, FIRE_FOCUS_ODDS, TORP_USE_AGGRESSIVE, COLUMN), _knobs()),
    "hold-range": ((MOVE_HOLD, FIRE_SPREAD_VALUE, TORP_USE_SELECTIVE, COLUMN), _knobs({L.K_BROADSIDE: 1.0})),
    "break-contact": ((MOVE_BREAK, FIRE_NEAREST, TORP_USE_DEFENSIVE, LINE), _knobs()),
    "make-for-objective": ((MOVE_OBJECTIVE, FIRE_FOCUS_ODDS, TORP_USE_AGGRESSIVE, COLUMN), _knobs()),
    "random-legal": ((MOVE_RANDOM, FIRE_RANDOM, TORP_USE_RANDOM, -1), _knobs()),
}

#: scripted policies' withdrawal threshold in the campaign (9.41): a side withdraws once its Attack
#: Strength in play falls below this share of the enemy's (0: never)
WITHDRAW = {"close-and-engage": 0.35, "hold-range": 0.6, "break-contact": 0.0, "make-for-objective": 0.35,
            "random-legal": 0.0}
