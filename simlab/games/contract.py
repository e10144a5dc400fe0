"""The generic batch contract of :mod:`simlab.games.base`, checked without any test machinery.

:meth:`simlab.games.base.Game.invariant_violations` (``simlab soak``) and
:func:`simlab.testing.conformance.check_batch` (the conformance tests) both use
:func:`batch_violation`, so a game and its tests read one definition of a well-formed batch.
"""

from __future__ import annotations

import numpy as np

__all__ = ["batch_violation"]


def batch_violation(game_name: str, scenario, batch, n: int, max_turns: int | None = None) -> str | None:
    """The first way a played batch breaks the contract, or None when it honours it.

    Checked in this order: the required columns (``winner``, ``turns``, ``score_<side>``) exist;
    every column is numeric with shape ``(n,)`` and finite floats; ``winner`` is an integer in
    ``-1..len(sides)-1``; ``turns >= 0`` (and ``<= max_turns`` when given); category codes lie
    within their labels; every events table has a ``game`` column pointing inside the batch and
    columns of one length.

    Args:
        game_name: the game's registry name (for the message).
        scenario: the :class:`Scenario` played (its ``name`` and ``sides`` are read).
        batch: the :class:`~simlab.games.base.Batch` ``play_batch`` returned; n: the number of seeds it was given.
        max_turns: the game's bound on ``turns``, if it declares one.

    Returns:
        A one-line message naming the game, scenario and column, or None.
    """
    g = batch.games
    where = f"{game_name}/{scenario.name}"
    for c in ["winner", "turns"] + [f"score_{s}" for s in scenario.sides]:
        if c not in g:
            return f"{where}: missing column {c}"
    for k, v in g.items():
        a = np.asarray(v)
        if a.shape != (n,):
            return f"{where}: column {k} has shape {a.shape}, expected ({n},)"
        if a.dtype.kind not in "iufb":
            return f"{where}: column {k} has dtype {a.dtype} (numeric columns only)"
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            return f"{where}: column {k} has non-finite values"
    w = np.asarray(g["winner"])
    if w.dtype.kind != "i":
        return f"{where}: winner must be an integer column"
    if not ((w >= -1) & (w < len(scenario.sides))).all():
        return f"{where}: winner outside -1..{len(scenario.sides) - 1}"
    t = np.asarray(g["turns"])
    if not (t >= 0).all():
        return f"{where}: negative turns"
    if max_turns is not None and not (t <= max_turns).all():
        return f"{where}: a game ran past {max_turns} turns"
    for k, labels in batch.categories.items():
        if "." in k:
            table, col = k.split(".", 1)
            a = np.asarray(batch.events[table][col])
        else:
            a = np.asarray(g[k])
        if not (a.size == 0 or (a.min() >= 0 and a.max() < len(labels))):
            return f"{where}: {k} codes outside its labels"
    for name, ev in batch.events.items():
        if "game" not in ev:
            return f"{where}: events table {name} has no 'game' column"
        rows = np.asarray(ev["game"])
        if not (rows.size == 0 or (rows.min() >= 0 and rows.max() < n)):
            return f"{where}: events {name} point outside the batch"
        if len({np.asarray(v).shape[0] for v in ev.values()}) != 1:
            return f"{where}: events table {name} has columns of different lengths"
    return None
