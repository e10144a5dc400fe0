"""Rule checks of played Mar Rojo games, row by row (used by ``Game.invariant_violations``, the
soak and the tests).

The kernel checks its own invariants while it plays when the ``check_invariants`` option is on
(every action card in exactly one place, hand limits, legal layouts, damage below hull,
activation and reorganisation limits; layout ``V_*`` codes in the ``invariant_violation``
column). :func:`row_violations` checks what a finished game's row must satisfy: the winner
against the scenario's victory conditions (7, 8.1-8.3), scores against the cards sunk, sunk
counts against the squadrons, the tie-break count, the Transfer (8.2) and the turn count.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .enums import (
    SIDE_NAMES,
    SP_TRANSFER,
    TYPE_NAMES,
    V_CABO_DE_PALOS,
    V_CAPITAL_MERCHANT,
)
from .layout import C_TYPE, VIOLATION_NAMES

__all__ = ["row_violations"]


def _first(mask: np.ndarray) -> int:
    return int(np.nonzero(mask)[0][0])


def row_violations(setup, games: Mapping[str, np.ndarray], events: Mapping | None = None) -> list[str]:
    """Every rule a batch of played games breaks, as one-line messages (empty: none).

    Args:
        setup: the scenario payload (``MarRojoSetup``).
        games: the batch's game columns (``winner`` as side indices, -1 a draw).
        events: the batch's events; its ``cards`` table (option ``card_events``) is checked too.
    """
    out: list[str] = []
    g = {k: np.asarray(v).astype(np.int64) for k, v in games.items()}
    n = len(g["winner"])
    if n == 0:
        return out

    def bad(mask, what):
        if mask.any():
            out.append(f"mar-rojo: {what} (row {_first(mask)}, {int(mask.sum())} rows)")

    if "invariant_violation" in g:
        v = g["invariant_violation"]
        if (v != 0).any():
            code = int(v[v != 0][0])
            name = VIOLATION_NAMES[code] if 0 <= code < len(VIOLATION_NAMES) else str(code)
            bad(v != 0, f"kernel invariant '{name}' broken")
    bad((g["winner"] < -1) | (g["winner"] > 1), "winner outside -1..1")
    bad(g["turns"] != (g["subturns"] + 1) // 2, "turns is not half the sub-turns rounded up")
    sunk = {s: {t: g[f"sunk_{s}_{t}"] for t in TYPE_NAMES} for s in SIDE_NAMES}
    for si, s in enumerate(SIDE_NAMES):
        total = sum(sunk[s].values())
        limit = g[f"squadron_cards_{s}"] + (1 if setup.reinf[si] >= 0 else 0)
        bad(total > limit, f"more {s} cards sunk than its squadron holds")
        if not setup.build:
            types = setup.pool[setup.squads[si][setup.squads[si] >= 0], C_TYPE]
            if setup.reinf[si] >= 0:
                types = np.append(types, setup.pool[setup.reinf[si], C_TYPE])
            for ti, t in enumerate(TYPE_NAMES):
                bad(sunk[s][t] > int(np.sum(types == ti)), f"more {s} {t} cards sunk than the scenario lists")
            bad(g[f"merchants_short_{s}"] > int(np.sum(types == 4)), f"more {s} merchants at short than it has")
        other = SIDE_NAMES[1 - si]
        ships = total - sunk[s]["aircraft"]
        bad(g[f"ships_sunk_by_{other}"] != ships, f"ships_sunk_by_{other} differs from the {s} ships sunk")
    cm = {s: sunk[s]["capital"] + sunk[s]["merchant"] for s in SIDE_NAMES}
    if setup.victory == V_CABO_DE_PALOS:
        nat = sunk["nationalist"]
        rep_wins = (nat["capital"] > 0) | ((nat["merchant"] > 0) & (nat["destroyer"] + nat["auxiliary"] > 0))
        bad(g["winner"] != np.where(rep_wins, 1, 0), "8.1 winner does not follow the victory conditions")
    else:
        score = {}
        for si, s in enumerate(SIDE_NAMES):
            o = SIDE_NAMES[1 - si]
            if setup.victory == V_CAPITAL_MERCHANT:
                pts = cm[o] + g[f"merchants_short_{s}"] * setup.merchant_points[si]
            else:
                others = sum(sunk[o].values()) - cm[o]
                pts = cm[o] + others // 4
            score[s] = pts
            bad(g[f"score_{s}"] != pts, f"score_{s} does not follow the victory points")
        a, b = score["nationalist"], score["republican"]
        ta, tb = g["ships_sunk_by_nationalist"], g["ships_sunk_by_republican"]
        want = np.where(a > b, 0, np.where(b > a, 1, np.where(ta > tb, 0, np.where(tb > ta, 1, -1))))
        bad(g["winner"] != want, "winner does not follow the points and the Rule 7 tie-break")
    removed = g["removed_republican"]
    if setup.special & SP_TRANSFER:
        bad(removed > 2, "more than two ships removed by the Transfer (8.2)")
    else:
        bad(removed != 0, "ships removed without the Transfer rule")
    if events and "cards" in events:
        ev = {k: np.asarray(v) for k, v in events["cards"].items()}
        for si, s in enumerate(SIDE_NAMES):
            m = (ev["side"] == si) & (ev["status"] == 2)
            per = np.bincount(ev["game"][m].astype(np.int64), minlength=n)
            bad(per != sum(sunk[s].values()), f"the cards table's sunk {s} cards differ from the sunk columns")
    return out
