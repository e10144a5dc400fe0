"""Helpers shared by the analyses: output directories, outcome matrices, JSON summaries."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from ..errors import SweepStateError
from ..results import load_table
from ..stats.intervals import wilson_interval
from ..stats.tuning import MISSING

__all__ = ["MISSING", "prepare_out", "rate", "read_outcomes", "winner_codes", "write_json"]


def prepare_out(out: str | Path | None, kind: str, name: str, summary: str, overwrite: bool) -> Path:
    """The output directory of an analysis, checked before anything is played.

    Args:
        out: the directory asked for, or None for ``results/<kind>-<name>-<time>``.
        kind: ``tune``, ``compare`` or ``meta``; name: the game (and parameter).
        summary: the summary file the analysis writes (``tune.json`` ...).
        overwrite: replace a previous analysis of the same kind in ``out``.

    Returns:
        The directory (not yet created).

    Raises:
        SweepStateError: if ``out`` is a file, or holds something and ``overwrite`` is not given,
            or holds something that is not an analysis of this kind.
    """
    if out is None:
        return Path("results") / f"{kind}-{name}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise SweepStateError(f"{p} exists and is not a directory")
    if p.exists() and any(p.iterdir()):
        if not overwrite:
            raise SweepStateError(f"{p} is not empty: pass --overwrite to replace it, or choose another --out")
        if not (p / summary).exists():
            raise SweepStateError(f"refusing to overwrite {p}: it holds no {summary}")
    return p


def preflight(*specs) -> None:
    """Play one game of each cell of each spec in this process, so that bad input that only play
    reveals (a scenario with options no squadron can meet) is reported before an analysis
    replaces or creates its output directory.

    Raises:
        InputError: what the game raises.
    """
    from ..sweeps.runner import preflight
    from ..sweeps.spec import expand
    for spec in specs:
        game, cells, info = expand(spec)
        preflight(game, cells, info, spec)


def clear_out(p: Path, summary: str) -> None:
    """Remove a previous analysis (its summary and its sweep folders) from ``p``."""
    if (p / summary).exists():
        for child in p.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()


def write_json(path: Path, obj) -> None:
    """Write ``obj`` as indented JSON atomically (NumPy scalars converted)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(obj, indent=2, default=_default) + "\n")
    os.replace(tmp, path)


def _default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def winner_codes(labels, sides: Sequence[str]) -> np.ndarray:
    """``winner`` labels (side names or ``draw``) as ``int8`` codes: side index, ``-1`` for a draw.

    Raises:
        ValueError: on a label that is neither a side nor ``draw``.
    """
    lab = np.asarray(labels, dtype=object)
    out = np.full(lab.shape, -1, dtype=np.int8)
    known = lab == "draw"
    for i, s in enumerate(sides):
        m = lab == s
        out[m] = i
        known |= m
    if not known.all():
        raise ValueError(f"unknown winner label {lab[~known][0]!r}")
    return out


def read_outcomes(path: Path, sides: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A sweep's games as ``(cell, game_index, winner code)`` arrays (sorted by cell, index).

    Raises:
        SweepStateError: if the sweep holds no games.
    """
    t = load_table(path, "games", ["cell", "game_index", "winner"])
    return (t["cell"].to_numpy().astype(np.int64), t["game_index"].to_numpy().astype(np.int64),
            winner_codes(t["winner"].to_numpy(zero_copy_only=False), sides))


def outcome_matrix(cells: np.ndarray, index: np.ndarray, codes: np.ndarray, n_cells: int) -> np.ndarray:
    """Winner codes as an ``int8[n_cells, max index + 1]`` matrix, :data:`MISSING` where unplayed."""
    width = int(index.max()) + 1 if index.size else 0
    y = np.full((n_cells, width), MISSING, dtype=np.int8)
    y[cells, index] = codes
    return y


def rate(k: int, n: int, confidence: float) -> dict:
    """``{count, rate, ci}`` of ``k`` in ``n`` with the Wilson interval (``rate`` None when n = 0)."""
    if n == 0:
        return {"count": 0, "rate": None, "ci": [None, None]}
    lo, hi = wilson_interval(k, n, confidence)
    return {"count": int(k), "rate": k / n, "ci": [float(lo), float(hi)]}


def require_sweep_games(path: Path) -> None:
    if not (path / "games").exists():
        raise SweepStateError(f"{path}: no games were written")
