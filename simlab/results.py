"""Reading a sweep's output and summarising it per cell.

``load(DIR)`` returns the games table as a pandas DataFrame (one row per game, sorted by cell and
game index); ``report(DIR)`` returns per-cell win rates with Wilson intervals, mean scores with
standard errors and mean turns.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from .errors import SweepStateError
from .stats.intervals import wilson_interval
from .sweeps.runner import load_manifest

__all__ = ["load", "load_table", "report"]


def _dataset(path: Path, table: str) -> ds.Dataset:
    d = path / "games" if table == "games" else path / "events" / table
    if not d.exists() or not any(d.rglob("*.parquet")):
        raise SweepStateError(f"{path}: no '{table}' rows written yet")
    files = sorted(str(p) for p in d.rglob("*.parquet") if not p.name.startswith("."))
    return ds.dataset(files, format="parquet")


def load_table(path: str | Path, table: str = "games", columns: list[str] | None = None) -> pa.Table:
    """A sweep's table as a pyarrow Table, sorted by ``cell`` then ``game_index``.

    Args:
        path: the sweep directory.
        table: ``"games"`` or an events table name.
        columns: columns to read (default: all).

    Raises:
        SweepStateError: if ``path`` is not a sweep directory or holds no such rows.
        KeyError: if a requested column does not exist.
    """
    p = Path(path)
    load_manifest(p)
    dset = _dataset(p, table)
    cols = None if columns is None else list(dict.fromkeys(list(columns)))
    missing = [c for c in (cols or []) if c not in dset.schema.names]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in {table} (columns: {', '.join(dset.schema.names)})")
    t = dset.to_table(columns=cols)
    keys = [k for k in ("cell", "game_index") if k in t.column_names]
    if keys:
        t = t.sort_by([(k, "ascending") for k in keys])
    return t


def load(path: str | Path, table: str = "games", columns: list[str] | None = None) -> pd.DataFrame:
    """A sweep's games table (or an events table) as a pandas DataFrame.

    One row per game, sorted by ``cell`` then ``game_index``; columns as described in README
    ("Output"). See :func:`load_table` for the arguments and errors.
    """
    return load_table(path, table, columns).to_pandas()


def report(path: str | Path, confidence: float = 0.95) -> list[dict]:
    """Per-cell summary of a sweep.

    Args:
        path: the sweep directory.
        confidence: level of the Wilson intervals.

    Returns:
        One dict per cell (in cell order)::

            {cell, params, games, draws, draw_rate, mean_turns,
             sides: {side: {wins, win_rate, ci: [low, high], mean_score, score_se}}}

        Cells with no games written yet are left out.

    Raises:
        SweepStateError: if ``path`` is not a sweep directory or holds no games.
    """
    p = Path(path)
    man = load_manifest(p)
    sides = man["sides"]
    cols = ["cell", "winner", "turns"] + [f"score_{s}" for s in sides]
    t = load_table(p, "games", cols)
    params = {c["cell"]: c["params"] for c in man["cells"]}
    out = []
    cells = pc.unique(t["cell"]).to_numpy()
    cell_col = t["cell"].to_numpy()
    winner = t["winner"].to_numpy(zero_copy_only=False)
    turns = t["turns"].to_numpy()
    scores = {s: t[f"score_{s}"].to_numpy().astype(np.float64) for s in sides}
    order = np.argsort(cell_col, kind="stable")
    bounds = np.searchsorted(cell_col[order], np.sort(cells))
    bounds = list(bounds) + [len(order)]
    for i, c in enumerate(np.sort(cells)):
        idx = order[bounds[i]:bounds[i + 1]]
        n = len(idx)
        w = winner[idx]
        draws = int((w == "draw").sum())
        rec = {"cell": int(c), "params": params.get(int(c), {}), "games": n, "draws": draws,
               "draw_rate": draws / n, "mean_turns": float(turns[idx].mean()), "sides": {}}
        for s in sides:
            k = int((w == s).sum())
            lo, hi = wilson_interval(k, n, confidence)
            sc = scores[s][idx]
            se = float(sc.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
            rec["sides"][s] = {"wins": k, "win_rate": k / n, "ci": [float(lo), float(hi)],
                               "mean_score": float(sc.mean()), "score_se": se}
        out.append(rec)
    return out


def report_frame(rows: list[dict]) -> pd.DataFrame:
    """Flatten :func:`report` output into one row per cell (the CSV form)."""
    flat = []
    for r in rows:
        d = {"cell": r["cell"]}
        for k, v in r["params"].items():
            d[k] = v
        d.update({"games": r["games"], "draws": r["draws"], "draw_rate": r["draw_rate"]})
        for s, v in r["sides"].items():
            d[f"wins_{s}"] = v["wins"]
            d[f"win_rate_{s}"] = v["win_rate"]
            d[f"ci_low_{s}"] = v["ci"][0]
            d[f"ci_high_{s}"] = v["ci"][1]
            d[f"mean_score_{s}"] = v["mean_score"]
            d[f"score_se_{s}"] = v["score_se"]
        d["mean_turns"] = r["mean_turns"]
        flat.append(d)
    return pd.DataFrame(flat)
