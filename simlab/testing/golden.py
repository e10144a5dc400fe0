"""Golden outputs: proof that a change moved no output row.

For every registered game, every built-in scenario is played under the default policies, and every
policy of each side against the other sides' defaults: 256 games per cell at a fixed master seed,
through the real sweep runner (one worker), exactly as ``simlab sweep`` writes them. Each cell's
entry holds the sha256 of its sorted games table (:func:`table_digest`) and a short readable trace
of game 0 (:func:`trace_game0`: the game's events table grouped by turn, when it has one).

``make golden`` (``python -m simlab.testing.golden --write tests/golden``) regenerates the files;
``tests/test_golden.py`` replays every cell and compares. A refactor keeps them byte for byte; a
rule or policy change that moves rows on purpose regenerates them in a commit that names the rule.

What the digest covers: every column of the games table except ``experiment`` (the sweep's name),
the ``knob_*`` columns (the policies' knob values, which describe what played rather than what
happened) and the ``luck_*`` columns (``simlab luck``'s record of the dice: counts and sums over
the dice already rolled, derived from the odds with no draw of their own, so they add a
description of what happened and cannot move a row), sorted by name, each with its Arrow type,
rows in ``game_index`` order. Beside it a cell may store ``columns`` (the sha256 of each digested
column alone) and ``games`` (a 16-hex-digit hash of each game's row), which :func:`difference` reads
to name the first column and game index that moved; files written before they existed keep their
``sha256`` valid and are localised by game 0's trace alone. The trace of game 0 leaves out the same columns, in its row and in
its events tables (the Dreadnought campaigns' ``scenarios`` table has ``luck_*`` columns too).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pyarrow as pa

__all__ = ["GAMES_PER_CELL", "SEED", "column_digests", "difference", "game_digests", "golden_cells", "play_cell", "table_digest", "trace_game0", "write_golden"]

#: games per golden cell
GAMES_PER_CELL = 256
#: master seed of every golden sweep
SEED = 20261201
#: columns the digest leaves out (see the module docstring)
EXCLUDED = ("experiment",)
EXCLUDED_PREFIXES = ("knob_", "luck_")
#: at most this many events of game 0 are written to a trace
TRACE_EVENTS = 12


def golden_cells(game_name: str) -> list[dict]:
    """The golden cells of one game: ``[{"scenario": str, "policies": {side: policy}}]``.

    Every built-in scenario under the default policies, then, per side, every other policy the
    scenario offers that side (:meth:`Game.scenario_policies`) against the other sides' defaults
    (no cell twice).
    """
    from ..games import get_game
    from ..games.policy import policy_names

    game = get_game(game_name)
    cells: list[dict] = []
    seen: set = set()
    for sc in game.scenarios:
        scenario = game.load_scenario(sc, game.load_data())
        sides = game.sides or scenario.sides
        base = policy_names(game.resolve_policies(sides, {}))
        variants = [dict(base)]
        for s in sides:
            for p in game.scenario_policies(scenario, s):
                variants.append({**base, s: p})
        for pol in variants:
            key = (sc, tuple(sorted(pol.items())))
            if key in seen:
                continue
            seen.add(key)
            cells.append({"scenario": sc, "policies": pol, "options": {}})
    for extra in game.golden_extra_cells:
        sides = game.sides or game.load_scenario(extra["scenario"], game.load_data()).sides
        cells.append({"scenario": extra["scenario"], "policies": policy_names(game.resolve_policies(sides, {})),
                      "options": dict(extra["options"])})
    return cells


def table_digest(t: pa.Table) -> str:
    """sha256 of a games table: columns sorted by name (less ``EXCLUDED``), each as ``name:type``
    and then its values in row order, as Arrow IPC bytes. Rows must already be in a fixed order.
    """
    names = sorted(c for c in t.column_names
                   if c not in EXCLUDED and not c.startswith(EXCLUDED_PREFIXES))
    h = hashlib.sha256()
    for c in names:
        col = t.column(c).combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        h.update(f"{c}:{col.type}\n".encode())
        sink = pa.BufferOutputStream()
        one = pa.table({c: col})
        with pa.ipc.new_stream(sink, one.schema) as w:
            w.write_table(one)
        h.update(sink.getvalue().to_pybytes())
    return h.hexdigest()


def _digest_columns(t: pa.Table) -> list[str]:
    return sorted(c for c in t.column_names if c not in EXCLUDED and not c.startswith(EXCLUDED_PREFIXES))


def column_digests(t: pa.Table) -> dict[str, str]:
    """``{column: sha256 hex}`` of each digested column alone (the same bytes :func:`table_digest`
    feeds its hash for that column), so a failing cell can name the first column that moved."""
    out = {}
    for c in _digest_columns(t):
        col = t.column(c).combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        h = hashlib.sha256(f"{c}:{col.type}\n".encode())
        sink = pa.BufferOutputStream()
        one = pa.table({c: col})
        with pa.ipc.new_stream(sink, one.schema) as w:
            w.write_table(one)
        h.update(sink.getvalue().to_pybytes())
        out[c] = h.hexdigest()
    return out


def game_digests(t: pa.Table) -> list[str]:
    """One short hash (16 hex digits) per row, in row order, of that game's digested values
    (``column=value`` lines, columns sorted by name), so a failing cell can name the first game that moved."""
    names = _digest_columns(t)
    cols = {c: t.column(c).to_pylist() for c in names}
    return [hashlib.sha256("\n".join(f"{c}={cols[c][i]!r}" for c in names).encode()).hexdigest()[:16]
            for i in range(t.num_rows)]


def difference(game_name: str, cell: dict, t: pa.Table, trace: dict | None = None) -> str | None:
    """None when ``t`` (a replayed golden cell, rows in ``game_index`` order) matches the stored
    ``cell``; else one line naming the game, the cell, the first column and the game index that differ.

    The column comes from the cell's ``columns`` (per-column digests) and the game index from its
    ``games`` (per-game hashes) when the file stores them (``make golden`` writes both beside the
    unchanged ``sha256``); otherwise game 0's row in ``trace_game0`` is compared with ``trace``'s.
    """
    where = f"golden {game_name} cell {cell['id']}"
    got = table_digest(t)
    trace_ok = trace is None or json.loads(json.dumps(trace)) == cell["trace_game0"]
    if got == cell["sha256"] and trace_ok:
        return None
    parts = []
    stored_cols = cell.get("columns")
    if stored_cols is not None:
        now = column_digests(t)
        moved = [c for c in sorted(set(stored_cols) | set(now)) if stored_cols.get(c) != now.get(c)]
        if moved:
            c = moved[0]
            what = "missing now" if c not in now else "new" if c not in stored_cols else "values differ"
            parts.append(f"first differing column {c} ({what}; {len(moved)} column(s) moved: {', '.join(moved[:6])})")
    stored_games = cell.get("games")
    if stored_games is not None:
        now_g = game_digests(t)
        idx = next((i for i, (a, b) in enumerate(zip(stored_games, now_g, strict=False)) if a != b), None)
        if idx is None and len(stored_games) != len(now_g):
            idx = min(len(stored_games), len(now_g))
        if idx is not None:
            parts.append(f"first differing game index {idx}")
    if trace is not None and (stored_cols is None or stored_games is None):
        old = cell["trace_game0"].get("row", {})
        new = json.loads(json.dumps(trace)).get("row", {})
        moved0 = [c for c in sorted(set(old) | set(new)) if old.get(c) != new.get(c)]
        if moved0:
            c = moved0[0]
            parts.append(f"game index 0 differs, first in column {c} ({old.get(c)!r} -> {new.get(c)!r})")
        elif not trace_ok:
            tables = [k for k in sorted(set(cell["trace_game0"]) | set(trace)) if k != "row"
                      and cell["trace_game0"].get(k) != json.loads(json.dumps(trace)).get(k)]
            parts.append(f"game index 0's row matches but its events differ (table {', '.join(tables)})")
        else:
            parts.append("game index 0's row matches, so a later game differs (this file stores no per-column "
                         "or per-game digests to say which: `make golden` adds them, keeping every sha256)")
    if got != cell["sha256"]:
        parts.append(f"sha256 {got[:12]}… != stored {cell['sha256'][:12]}…")
    return f"{where}: " + "; ".join(parts)


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return round(float(v), 6)
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    return v


def play_cell(game_name: str, scenario: str, policies: dict, options: dict | None = None,
              games: int = GAMES_PER_CELL, seed: int = SEED, tmp: Path | None = None) -> pa.Table:
    """Play one golden cell through the sweep runner (one worker) and return its games table,
    sorted by ``game_index``.
    """
    from ..results import load_table
    from ..sweeps.runner import run_sweep
    from ..sweeps.spec import spec_from_args

    spec = spec_from_args(game_name, scenario=scenario, policy=[f"{s}={p}" for s, p in policies.items()],
                          set_=[f"{k}={v}" for k, v in (options or {}).items()], games=games, seed=seed, name="golden")
    with tempfile.TemporaryDirectory(dir=tmp) as d:
        run_sweep(spec, Path(d) / "s", workers=1, progress=False)
        return load_table(Path(d) / "s")


def trace_game0(game_name: str, scenario: str, policies: dict, options: dict, row0: dict, seed0: int) -> dict:
    """A short readable trace of game 0: its games-table row and, where the game writes an events
    table, how many events fell in each turn and the first ``TRACE_EVENTS`` of them.

    The events are played again with ``play_batch`` on game 0's own seed and the options that turn
    the events on (the game's ``golden_trace_options``); those options only add a table.
    """
    from ..games import get_game

    game = get_game(game_name)
    sc = game.load_scenario(scenario, game.load_data())
    opts = game.resolve_options({**options, **game.golden_trace_options})
    batch = game.play_batch(sc, opts, policies, np.array([seed0], dtype=np.uint64))
    out: dict = {"row": {k: _jsonable(v) for k, v in row0.items()
                         if k not in EXCLUDED and not k.startswith(EXCLUDED_PREFIXES)}}
    for table in sorted(batch.events):
        cols = batch.events[table]
        if not cols:
            continue
        names = [c for c in cols if c != "game" and not c.startswith(EXCLUDED_PREFIXES)]
        n = len(np.asarray(cols["game"]))
        rows = []
        for i in range(n):
            r = {}
            for c in names:
                v = np.asarray(cols[c])[i]
                labels = batch.categories.get(f"{table}.{c}")
                if labels is not None and 0 <= int(v) < len(labels):
                    v = labels[int(v)]
                r[c] = _jsonable(v)
            rows.append(r)
        out[table] = {"events": n}
        if "turn" in names:
            per_turn: dict = {}
            for r in rows:
                per_turn[str(r["turn"])] = per_turn.get(str(r["turn"]), 0) + 1
            out[table]["per_turn"] = per_turn
        out[table]["first"] = rows[:TRACE_EVENTS]
    return out


def cell_id(game_name: str, scenario: str, policies: dict, options: dict) -> str:
    tail = "".join(f";{k}={v}" for k, v in options.items())
    return f"{game_name}/{scenario}/" + ",".join(f"{s}={p}" for s, p in policies.items()) + tail


def compute(game_name: str, tmp: Path | None = None) -> dict:
    """Every golden cell of one game: ``{"game", "games_per_cell", "seed", "cells": [...]}``."""
    entries = []
    for c in golden_cells(game_name):
        t = play_cell(game_name, c["scenario"], c["policies"], c["options"], tmp=tmp)
        row0 = {k: v[0] for k, v in t.slice(0, 1).to_pydict().items()}
        entries.append({
            "id": cell_id(game_name, c["scenario"], c["policies"], c["options"]),
            "scenario": c["scenario"],
            "policies": c["policies"],
            "options": c["options"],
            "sha256": table_digest(t),
            "columns": column_digests(t),
            "games": game_digests(t),
            "trace_game0": trace_game0(game_name, c["scenario"], c["policies"], c["options"], row0,
                                       int(row0["seed"])),
        })
    return {"game": game_name, "games_per_cell": GAMES_PER_CELL, "seed": SEED, "cells": entries}


def golden_path(folder: Path, game_name: str) -> Path:
    return Path(folder) / f"{game_name}.json"


def write_golden(folder: Path, games: Iterable[str]) -> list[Path]:
    """Regenerate the golden files of ``games`` under ``folder`` (one JSON per game)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for g in games:
        data = compute(g)
        p = golden_path(folder, g)
        p.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
        written.append(p)
        print(f"{p}: {len(data['cells'])} cells", file=sys.stderr)
    return written


def main(argv: list[str] | None = None) -> int:
    from ..games import game_names, game_target

    ap = argparse.ArgumentParser(description="regenerate the golden output files")
    ap.add_argument("--write", required=True, help="folder of the golden files (tests/golden)")
    ap.add_argument("--game", action="append", help="only these games (default: every game simlab ships)")
    a = ap.parse_args(argv)
    write_golden(Path(a.write), a.game or [g for g in game_names() if game_target(g).startswith("simlab.")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
