"""Views of a sweep's report for large grids: filter, sort and choose columns, and the win-rate
matrix of a policy grid (``simlab report --where/--sort/--columns``, ``simlab plot --kind matrix``).

The rows are :func:`simlab.results.report`'s; the columns are those of its flat form
(:func:`simlab.results.report_frame`: ``cell``, each grid option, ``games``, ``win_rate_<side>``,
``ci_low_<side>``, ``mean_score_<side>``, ``advantage``, ``turns_median`` ...).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from .errors import InputError

__all__ = ["POLICY_PREFIX", "apply_view", "flat_columns", "parse_where", "policy_axes", "policy_matrices", "variant_label"]

#: the grid option of a policy axis is ``policy_<side>`` (``--policy SIDE=A,B``)
POLICY_PREFIX = "policy_"


def _near(name: str, names: Sequence[str]) -> str:
    near = difflib.get_close_matches(name, list(names), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def flat_columns(rows: list[dict]) -> list[str]:
    """The column names of the flat report of ``rows`` (:func:`simlab.results.report_frame`)."""
    from .results import report_frame
    return list(report_frame(rows[:1]).columns) if rows else []


def parse_where(items: Sequence[str]) -> list[tuple[str, str]]:
    """``KEY=VALUE`` items of ``--where`` as ``(key, value)`` pairs.

    Raises:
        InputError: an item without ``=`` or with an empty key.
    """
    out = []
    for it in items:
        if "=" not in it:
            raise InputError(f"--where {it!r}: expected KEY=VALUE, e.g. --where policy_red=rock")
        k, v = it.split("=", 1)
        if not k.strip():
            raise InputError(f"--where {it!r}: the key is empty")
        out.append((k.strip(), v.strip()))
    return out


def _matches(value, wanted: str) -> bool:
    """Whether a cell's value equals the ``--where`` text: numbers compare as numbers (``0.30`` is
    ``0.3``), booleans as ``true``/``false``, anything else as its text."""
    if isinstance(value, bool):
        return wanted.lower() in (("true", "1", "yes") if value else ("false", "0", "no"))
    if isinstance(value, (int, float)):
        try:
            return float(wanted) == float(value)
        except ValueError:
            return False
    return str(value) == wanted


def _value_of(row: dict, flat: dict, key: str):
    if key in row["params"]:
        return row["params"][key]
    return flat.get(key)


def apply_view(rows: list[dict], where: Sequence[str] = (), sort: str | None = None,
               columns: str | Sequence[str] | None = None) -> tuple[list[dict], list[str] | None]:
    """Filter and sort report rows, and check a column list.

    Args:
        rows: :func:`simlab.results.report` rows.
        where: ``KEY=VALUE`` items, all of which a row must meet; ``KEY`` is a grid option or a
            flat column (:func:`flat_columns`).
        sort: a flat column to sort by, ascending; ``-COL`` for descending. Rows without a value
            for it (an end reason that never occurred) come last.
        columns: flat columns to show, as ``"a,b,c"`` or a list; None for the usual tables.

    Returns:
        ``(rows, columns)``: the rows kept, in order, and the column list (None when not given).

    Raises:
        InputError: an unknown key or column (with a did-you-mean), a malformed ``where`` item,
            an empty column list, or a filter that no cell meets (naming the values the key takes).
    """
    from .results import report_frame
    flat = report_frame(rows).to_dict("records") if rows else []
    names = list(report_frame(rows).columns) if rows else []
    keys = list(dict.fromkeys([k for r in rows for k in r["params"]] + names))
    pairs = list(zip(rows, flat, strict=True))
    for k, v in parse_where(where):
        if k not in keys:
            raise InputError(f"--where {k}={v}: no column {k!r} (grid options: "
                             f"{', '.join(rows[0]['params']) if rows else 'none'}){_near(k, keys)}")
        kept = [(r, f) for r, f in pairs if _matches(_value_of(r, f, k), v)]
        if not kept:
            seen = sorted({str(_value_of(r, f, k)) for r, f in pairs})
            shown = ", ".join(seen[:12]) + (", ..." if len(seen) > 12 else "")
            raise InputError(f"--where {k}={v}: no cell has {k} = {v} (its values: {shown})")
        pairs = kept
    if sort is not None:
        desc = sort.startswith("-")
        col = sort[1:] if desc else sort
        if col not in keys:
            raise InputError(f"--sort {sort}: no column {col!r}{_near(col, keys)}; `--csv` shows every column")
        import math

        def key(p):
            v = _value_of(p[0], p[1], col)
            missing = v is None or (isinstance(v, float) and math.isnan(v))
            return (missing, v if not missing else 0)
        present = [p for p in pairs if not key(p)[0]]
        absent = [p for p in pairs if key(p)[0]]
        try:
            present.sort(key=lambda p: _value_of(p[0], p[1], col), reverse=desc)
        except TypeError:  # mixed types in one column: compare as text
            present.sort(key=lambda p: str(_value_of(p[0], p[1], col)), reverse=desc)
        pairs = present + absent
    cols = None
    if columns is not None:
        cols = [c.strip() for c in (columns.split(",") if isinstance(columns, str) else columns) if c.strip()]
        if not cols:
            raise InputError("--columns: give column names, e.g. --columns cell,games,win_rate_red")
        for c in cols:
            if c not in keys:
                raise InputError(f"--columns: no column {c!r}{_near(c, keys)}; `--csv` shows every column")
        cols = list(dict.fromkeys(cols))
    return [r for r, _ in pairs], cols


def policy_axes(rows: list[dict]) -> list[str]:
    """The grid options of ``rows`` that are policy axes (``policy_<side>``) taking two or more values."""
    axes = []
    for k in (rows[0]["params"] if rows else {}):
        if k.startswith(POLICY_PREFIX) and len({str(r["params"].get(k)) for r in rows}) > 1:
            axes.append(k)
    return axes


def policy_matrices(rows: list[dict], sides: Sequence[str]) -> list[dict]:
    """The win-rate matrices of a sweep with two (or more) policy axes: row policy x column policy.

    The first policy axis gives the rows (its side is the row side), the second the columns;
    every other grid option (a scenario, a third policy axis) splits the cells into groups, one
    matrix each.

    Args:
        rows: :func:`simlab.results.report` rows.
        sides: the sweep's sides.

    Returns:
        One dict per group::

            {group: {option: value}, row_side, col_side, row_axis, col_axis, rows: [policy],
             cols: [policy], cells: [[None | {cell, games, sides: {side: {win_rate, ci}},
             draw_rate, draw_ci}]]}

        ``cells[i][j]`` is the cell in which the row side plays ``rows[i]`` and the column side
        ``cols[j]`` (None where the grid has no such cell, e.g. after ``--where``).

    Raises:
        InputError: if fewer than two policy axes vary.
    """
    axes = policy_axes(rows)
    if len(axes) < 2:
        raise InputError("a win-rate matrix needs two policy axes (e.g. --policy red=A,B --policy blue=A,B); "
                         f"this sweep has {len(axes)}: {', '.join(axes) or 'none'}")
    ra, ca = axes[0], axes[1]
    rside, cside = ra[len(POLICY_PREFIX):], ca[len(POLICY_PREFIX):]
    others = [k for k in rows[0]["params"] if k not in (ra, ca)]
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(str(r["params"].get(k)) for k in others), []).append(r)
    out = []
    for _, rs in groups.items():
        rp = list(dict.fromkeys(str(r["params"][ra]) for r in rs))
        cp = list(dict.fromkeys(str(r["params"][ca]) for r in rs))
        grid: list[list[dict | None]] = [[None] * len(cp) for _ in rp]
        for r in rs:
            i, j = rp.index(str(r["params"][ra])), cp.index(str(r["params"][ca]))
            grid[i][j] = {"cell": r["cell"], "games": r["games"],
                          "sides": {s: {"win_rate": r["sides"][s]["win_rate"], "ci": list(r["sides"][s]["ci"])}
                                    for s in sides},
                          "draw_rate": r["draw_rate"], "draw_ci": list(r.get("draw_ci", [r["draw_rate"]] * 2))}
        out.append({"group": {k: rs[0]["params"].get(k) for k in others}, "row_side": rside, "col_side": cside,
                    "row_axis": ra, "col_axis": ca, "rows": rp, "cols": cp, "cells": grid})
    return out


def variant_label(v: dict, other: dict | None = None) -> str:
    """What a compare variant is: its experiment file (if any) and the option, policy and data
    values that tell it from the other variant (all of them when ``other`` is None), e.g.
    ``"bias=0.3"`` or ``"a.toml (bias=0.3)"``."""
    parts = []
    for k, x in (v.get("options") or {}).items():
        if other is None or (other.get("options") or {}).get(k) != x:
            parts.append(f"{k}={x}")
    for s, p in (v.get("policies") or {}).items():
        if other is None or (other.get("policies") or {}).get(s) != p or \
                (other.get("knobs") or {}).get(s) != (v.get("knobs") or {}).get(s):
            parts.append(f"policy {s}={p}")
    if v.get("data") and (other is None or other.get("data") != v.get("data")):
        parts.append(f"data {v['data']}")
    what = ", ".join(parts) or ("the defaults" if other is None else "identical to the other variant")
    return f"{v['file']} ({what})" if v.get("file") else what
