"""What a scripted policy knows of the position (Rules 4.2, 9.42): units afloat, and where each
unit is expected after this Game-Turn.

Policies see the enemy's positions (9.42) but not its plots (4.2): a unit is expected to keep its
course at half its last speed.
"""

from __future__ import annotations

from simlab.jit import kernel

from .. import layout as L
from ..enums import (
    AFLOAT,
)
from ..kernels.geometry import DXA, DZA


@kernel(error_model="numpy", no_cpython_wrapper=True)
def alive_nb(sh, i):
    return sh[i, L.SH_STATUS] == AFLOAT


@kernel(error_model="numpy", no_cpython_wrapper=True)
def predict_nb(sh, n, pred):
    """Where each unit is expected after this Game-Turn: on its course at half its last speed
    (half, because it may turn; a unit expected at full speed is chased past it).

    Args:
        pred: ``int64[n, 2]`` written (x, z).
    """
    for i in range(n):
        s = sh[i, L.SH_SPD] // 2
        f = sh[i, L.SH_F]
        pred[i, 0] = sh[i, L.SH_X] + DXA[f] * s
        pred[i, 1] = sh[i, L.SH_Z] + DZA[f] * s
