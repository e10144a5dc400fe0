"""Playing one chunk of games and writing it as Parquet parts (runs inside worker processes).

A chunk is a half-open range of game indices of one cell. Its rows depend only on the master
seed, the cell's seed key and the game indices, so chunks can run anywhere in any order. Each
chunk writes its event tables first and its games part last, each atomically (a temporary file,
then a rename): a games part that exists is complete, and so are the event parts beside it.

Layout under the output directory::

    games/cell-<id>/part-<start>-<stop>.parquet
    events/<table>/cell-<id>/part-<start>-<stop>.parquet

The folders are named ``cell-<id>``, not hive-style ``cell=<id>``: the ``cell`` column is in every
file, so pandas, Polars, DuckDB and pyarrow all read ``games/`` as it is, with the same rows and
types, and none infers a second ``cell`` from the folder names. (Sweeps of the older ``cell=<id>``
layout are renamed by ``--resume`` or ``simlab verify DIR --migrate``.)
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..games import Batch, Game, Scenario, get_game, register
from ..games.policy import policy_names
from ..numba_start import start_numba
from ..rng import game_seeds
from ..stats.cellstats import part_stats
from .store import Store

__all__ = ["ChunkTask", "build_games_table", "sweep_knob_columns", "chunk_summary", "games_part_rel", "part_name", "play_chunk",
           "play_chunk_tables", "worker_game", "worker_scenario", "write_parts"]

#: names of events tables (they become folder names under ``events/``)
EVENTS_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")

KEY_COLUMNS = ("experiment", "cell", "game_index", "seed", "game", "scenario")


@dataclass(frozen=True)
class ChunkTask:
    """Everything a worker needs to play one chunk (picklable, no numba objects).

    Attributes:
        out: output directory.
        experiment, game: names.
        scenario: scenario name or file; data: override-pack path or None.
        cell, cell_key: the cell's id and seed key; params: its grid parameters.
        policies: ``{side: Policy}`` resolved for the cell; options: likewise.
        grid_options: names of the options that get a column.
        master_seed: the sweep's seed; start, stop: game index range.
        meta: JSON-able facts stamped into each file's metadata.
        plugin: the game's registry target (``module:attribute``), so that a worker where the game
            is not registered (a plug-in registered at run time) can import it.
        knob_columns: the sweep's ``knob_*`` columns (:func:`sweep_knob_columns`).
        data_edits: the cell's data-pack edits ``((data name, value), ...)`` (:mod:`simlab.data_axes`).
        data_columns: ``((data name, column, kind), ...)``: one games-table column per data axis,
            ``kind`` ``int64``, ``float64`` or ``string`` (:func:`simlab.data_axes.data_column_kind`).
    """

    out: str
    experiment: str
    game: str
    scenario: str
    data: str | None
    cell: int
    cell_key: int
    params: dict
    policies: dict
    options: dict
    grid_options: tuple[str, ...]
    master_seed: int
    start: int
    stop: int
    meta: dict
    plugin: str | None = None
    knob_columns: tuple[tuple[str, str], ...] = ()
    data_edits: tuple = ()
    data_columns: tuple = ()


def sweep_knob_columns(sides, policies_of_cells) -> tuple[tuple[str, str], ...]:
    """The ``knob_*`` columns of a whole sweep, computed once before play so that every games part
    carries the same columns in the same order with the same types (issue 32: parts of a sweep that
    mixes policy families must not differ in their columns).

    Args:
        sides: the game's sides, in order.
        policies_of_cells: each cell's ``{side: Policy}``, in cell order.

    Returns:
        ``((column name, "int64" | "float64"), ...)``: side by side, each side's knobs in order of
        first use over the cells (a one-family sweep: that family's knob order); a column is
        ``float64`` when any cell's value of it is a real, else ``int64``.
    """
    cols: dict[str, str] = {}
    for side in sides:
        for pols in policies_of_cells:
            pol = pols.get(side)
            if pol is None:
                continue
            for knob, value in pol.knobs:
                name = f"knob_{side}_{knob}"
                kind = "int64" if isinstance(value, int) and not isinstance(value, bool) else "float64"
                if cols.get(name) != "float64":
                    cols[name] = kind
    return tuple(cols.items())


def part_name(start: int, stop: int) -> str:
    """File name of a chunk's part: ``part-<start>-<stop>.parquet``, zero-padded to sort."""
    return f"part-{start:012d}-{stop:012d}.parquet"


def cell_dir(cell: int) -> str:
    """Folder of a cell's parts: ``cell-<id>``."""
    return f"cell-{int(cell)}"


def games_part_rel(cell: int, start: int, stop: int) -> str:
    """Relative name of a chunk's games part under the output directory."""
    return f"games/{cell_dir(cell)}/{part_name(int(start), int(stop))}"


def events_part_rel(table: str, cell: int, start: int, stop: int) -> str:
    """Relative name of a chunk's part of an events table.

    Raises:
        ValueError: if the table name is not a plain lower-case name (``EVENTS_NAME``).
    """
    if not isinstance(table, str) or not EVENTS_NAME.match(table):
        raise ValueError(f"events table name {table!r} is not a plain lower-case name")
    return f"events/{table}/{cell_dir(cell)}/{part_name(int(start), int(stop))}"


_SCENARIOS: dict[tuple, Scenario] = {}
_SCENARIOS_LOCK = threading.Lock()
_STORES: dict[str, Store] = {}


def worker_game(name: str, plugin: str | None = None) -> Game:
    """The plug-in of game ``name`` in a worker process, registering it from ``plugin``
    (``"module:attribute"``, :func:`simlab.games.game_target`) when this process does not know it.

    Raises:
        SpecError: if the game is unknown here and no ``plugin`` is given.
    """
    from ..games import game_names
    if plugin is not None and name not in game_names():
        register(name, plugin)
    return get_game(name)


def worker_scenario(game_name: str, scenario: str, data: str | None = None, plugin: str | None = None,
                    edits: Sequence = ()) -> Scenario:
    """Scenario ``scenario`` of a game compiled with data-pack override ``data`` and then the data
    edits ``edits`` (``((data name, value), ...)``, :func:`simlab.data_axes.resolve_edits`),
    compiled once per process and reused by every later chunk (see :func:`worker_game` for ``plugin``).

    Raises:
        ScenarioError, DataPackError: what the game's ``load_scenario``/``load_data`` raise.
    """
    edits = tuple(tuple(e) for e in edits)  # a task read back from JSON holds lists
    key = (game_name, scenario, data, edits)
    if key not in _SCENARIOS:
        with _SCENARIOS_LOCK:  # threads of the thread backend: one compiles, the others reuse it
            if key not in _SCENARIOS:
                game = worker_game(game_name, plugin)
                pack = game.load_data(data)
                if edits:
                    from ..data_axes import resolve_edits
                    pack = resolve_edits(pack, edits, game.data_schema())
                _SCENARIOS[key] = game.load_scenario(scenario, pack)
    return _SCENARIOS[key]


def _store(url: str) -> Store:
    if url not in _STORES:
        _STORES[url] = Store(url)
    return _STORES[url]


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (a worker must not outlive a killed sweep)."""
    with contextlib.suppress(Exception):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _arrow(values) -> pa.Array:
    """A NumPy column as an Arrow array, without copying numbers.

    Numbers and booleans are wrapped buffer by buffer (``pa.array`` would ask pyarrow's pandas shim
    about every input, which imports pandas: ~0.35 s of a short sweep's start-up); anything else
    goes through ``pa.array``. Same values and types as ``pa.array(values)``.
    """
    a = np.asarray(values)
    if a.ndim == 1 and a.dtype.isnative and a.dtype.kind in "iuf":
        a = np.ascontiguousarray(a)
        return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), len(a), [None, pa.py_buffer(a)])
    if a.ndim == 1 and a.dtype.kind == "b":
        bits = np.packbits(a.astype(np.uint8), bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(a), [None, pa.py_buffer(bits)])
    return pa.array(a)


def _strings(labels) -> pa.Array:
    """A string array of a few labels (built from buffers, see :func:`_arrow`)."""
    data = [str(x).encode() for x in labels]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(d) for d in data])
    return pa.StringArray.from_buffers(len(data), pa.py_buffer(offsets), pa.py_buffer(b"".join(data)))


def _labels(values: np.ndarray, labels, draw: str | None = None) -> pa.Array:
    """Small-int codes to a string column (``draw`` names the code -1), as a dictionary array.

    Its dictionary holds the labels that occur, in the order they first occur: the dictionary
    Parquet's writer builds from the plain strings, so :meth:`Store.write_parquet
    <simlab.sweeps.store.Store.write_parquet>` writes it byte for byte as the string column (every
    reader gets ``string``), without hashing a string a row or copying one (``pc.take``).

    Raises:
        ValueError: a code outside the labels.
    """
    lab = list(labels)
    idx = np.asarray(values).astype(np.int32)
    if draw is not None:
        lab = lab + [draw]
        idx = np.where(idx < 0, len(lab) - 1, idx).astype(np.int32)
    if idx.size and (idx.min() < 0 or idx.max() >= len(lab)):
        raise ValueError(f"category code out of range 0..{len(lab) - 1}")
    return _dictionary(idx, lab)


def _dictionary(idx: np.ndarray, labels: list) -> pa.DictionaryArray:
    """``labels[idx]`` as a ``dictionary<int32, string>`` array whose dictionary is the labels
    used, in order of first use (``idx``: int32 codes, all in range)."""
    k = len(labels)
    if idx.size == 0:
        used = np.zeros(0, dtype=np.int64)
    elif k <= 32:  # a few labels: one comparison pass each finds where each first occurs
        present = np.flatnonzero(np.bincount(idx, minlength=k))
        first = np.array([int(np.argmax(idx == c)) for c in present], dtype=np.int64)
        used = present[np.argsort(first, kind="stable")]
    else:
        codes, first = np.unique(idx, return_index=True)
        used = codes[np.argsort(first, kind="stable")].astype(np.int64)
    if len(used) != k or (used != np.arange(k)).any():
        remap = np.zeros(k, dtype=np.int32)
        remap[used] = np.arange(len(used), dtype=np.int32)
        idx = remap[idx]
    return pa.DictionaryArray.from_arrays(_arrow(idx), _strings([labels[int(c)] for c in used]))


#: constant columns already built, by (value, type, length): a sweep's chunks mostly share one length,
#: so each cell builds its constant columns once (Arrow arrays are immutable, so sharing is safe)
_CONSTS: dict[tuple, pa.Array] = {}
_CONSTS_MAX = 256


def _const(value, n: int, type_=None) -> pa.Array:
    """A column holding one value ``n`` times (``pa.repeat`` is far slower), built once per
    value, type and length; ``type_`` None infers it as ``pa.array([value])`` does."""
    try:
        key = (type(value).__name__, value, str(type_), n)
        col = _CONSTS.get(key)
    except TypeError:  # an unhashable value (a list option): built every time
        key, col = None, None
    if col is None:
        col = _build_const(value, n, type_)
        if key is not None:
            if len(_CONSTS) >= _CONSTS_MAX:
                _CONSTS.clear()
            _CONSTS[key] = col
    return col


def _build_const(value, n: int, type_) -> pa.Array:
    kind = type_ if type_ is not None else (
        pa.bool_() if isinstance(value, bool) else
        pa.int64() if isinstance(value, int) and -2**63 <= value < 2**63 else
        pa.float64() if isinstance(value, float) else
        pa.string() if isinstance(value, str) else None)
    if kind == pa.string() and isinstance(value, str):  # written as a string column (see _labels)
        return _dictionary(np.zeros(n, dtype=np.int32), [value])
    if kind == pa.bool_() and isinstance(value, bool):
        return _arrow(np.full(n, value, dtype=bool))
    if kind == pa.int64() and isinstance(value, int) and not isinstance(value, bool) and -2**63 <= value < 2**63:
        return _arrow(np.full(n, value, dtype=np.int64))
    if kind == pa.float64() and isinstance(value, (int, float)) and not isinstance(value, bool):
        return _arrow(np.full(n, float(value), dtype=np.float64))
    import pyarrow.compute as pc  # a value of no simple type (rare): ~0.1 s of import a sweep need not pay
    return pc.take(pa.array([value], type=type_), pa.array(np.zeros(n, dtype=np.int32)))


def build_games_table(task: ChunkTask, scenario: Scenario, batch: Batch, seeds: np.ndarray) -> pa.Table:
    """The games table of a chunk: key columns, policies, grid options, then the game's columns.

    Its string columns (keys, policies, ``winner``, category labels) are ``dictionary<int32,
    string>`` arrays, which :meth:`Store.write_parquet <simlab.sweeps.store.Store.write_parquet>`
    writes as plain string columns (readers get ``string``; cast with ``.cast(pa.string())`` to
    compare in memory).

    Raises:
        ValueError: if the game's batch breaks the contract (missing column, wrong length).
    """
    n = task.stop - task.start
    g = batch.games
    for req in ["winner", "turns"] + [f"score_{s}" for s in scenario.sides]:
        if req not in g:
            raise ValueError(f"game {task.game} did not return column '{req}'")
    for k, v in g.items():
        if np.asarray(v).shape != (n,):
            raise ValueError(f"game {task.game}: column '{k}' has shape {np.asarray(v).shape}, expected ({n},)")
    cols: dict[str, Any] = {
        "experiment": _const(task.experiment, n, pa.string()),
        "cell": _arrow(np.full(n, task.cell, dtype=np.int32)),
        "game_index": _arrow(np.arange(task.start, task.stop, dtype=np.int64)),
        "seed": _arrow(seeds.astype(np.uint64)),
        "game": _const(task.game, n, pa.string()),
        "scenario": _const(scenario.name, n, pa.string()),
    }
    for side in scenario.sides:
        cols[f"policy_{side}"] = _const(task.policies[side].name, n, pa.string())
    for opt in task.grid_options:
        cols[opt] = _const(task.options[opt], n)
    for name, column, kind in task.data_columns:  # one column per data axis (simlab.data_axes)
        v = task.params[name]
        type_ = {"int64": pa.int64(), "float64": pa.float64()}.get(kind, pa.string())
        cols[column] = _const(str(v) if kind == "string" else v, n, type_)
    cols["winner"] = _labels(g["winner"], scenario.sides, draw="draw")
    for side in scenario.sides:
        cols[f"score_{side}"] = _arrow(g[f"score_{side}"])
    cols["turns"] = _arrow(g["turns"])
    for k, v in g.items():
        if k in cols or k == "winner":
            continue
        if k in batch.categories:
            cols[k] = _labels(v, batch.categories[k])
        else:
            cols[k] = _arrow(v)
    own = {f"knob_{side}_{knob}": value for side in scenario.sides for knob, value in task.policies[side].knobs}
    if task.knob_columns:  # the sweep's knob columns, each in every part: nulls where the cell's family lacks it
        for name, kind in task.knob_columns:
            type_ = pa.int64() if kind == "int64" else pa.float64()
            cols[name] = _const(own[name], n, type_) if name in own else pa.nulls(n, type_)
        own = {k: v for k, v in own.items() if k not in cols}
    for name, value in own.items():  # the knob vector in force, so a row says exactly what played
        cols[name] = _const(value, n, pa.int64() if isinstance(value, int) else pa.float64())
    table = pa.table(cols)
    meta = _file_meta(task, scenario)
    meta["seeds"] = [int(seeds[0]), int(seeds[-1])] if n else []  # first and last per-game seeds
    return table.replace_schema_metadata({"simlab": json.dumps(meta, default=str)})


def _file_meta(task: ChunkTask, scenario: Scenario) -> dict:
    return {**task.meta, "experiment": task.experiment, "game": task.game, "scenario": scenario.name,
            "scenario_source": scenario.source, "cell": task.cell, "params": task.params,
            "options": task.options, "policies": policy_names(task.policies),
            "knobs": {s: p.as_dict() for s, p in task.policies.items()}, "master_seed": task.master_seed,
            "game_index_range": [task.start, task.stop]}


def play_chunk(task: ChunkTask) -> dict:
    """Play a chunk and write its parts (events first, the games part last, each atomically).

    Returns:
        ``{"cell", "start", "stop", "games", "wins": {side or "draw": count}, "stats"}``
        (:func:`chunk_summary`).

    Raises:
        ValueError: if the game's batch breaks the contract (see :func:`build_games_table`) or
            names an events table with anything but a plain lower-case name.
    """
    writes, summary = play_chunk_tables(task)
    write_parts(task.out, writes)
    return summary


def play_chunk_tables(task: ChunkTask) -> tuple[list[tuple[str, pa.Table]], dict]:
    """Play a chunk and build its tables without writing them: ``(writes, summary)``, ``writes``
    the ``(relative name, table)`` of each part in the order to write them (events first, the
    games part last; :func:`write_parts`), ``summary`` as :func:`play_chunk` returns it.

    Raises:
        ValueError: as :func:`play_chunk`.
    """
    start_numba()  # a worker process's first kernel (game_seeds) loads without numba's refresh
    game = worker_game(task.game, task.plugin)
    scenario = worker_scenario(task.game, task.scenario, task.data, task.plugin, task.data_edits)
    seeds = game_seeds(task.master_seed, task.cell_key, task.start, task.stop)
    batch = game.play_batch(scenario, task.options, task.policies, seeds)
    table = build_games_table(task, scenario, batch, seeds)
    meta = table.schema.metadata
    writes: list[tuple[str, pa.Table]] = []
    for name, ev in batch.events.items():
        rel = events_part_rel(name, task.cell, task.start, task.stop)
        if "game" not in ev:
            raise ValueError(f"game {task.game}: events table '{name}' has no 'game' column")
        rows = np.asarray(ev["game"], dtype=np.int64)
        ecols: dict[str, Any] = {
            "experiment": _const(task.experiment, len(rows), pa.string()),
            "cell": _arrow(np.full(len(rows), task.cell, dtype=np.int32)),
            "game_index": _arrow(rows + task.start),
        }
        for k, v in ev.items():
            if k == "game":
                continue
            cats = batch.categories.get(f"{name}.{k}")
            ecols[k] = _labels(v, cats) if cats is not None else _arrow(v)
        writes.append((rel, pa.table(ecols).replace_schema_metadata(meta)))
    writes.append((games_part_rel(task.cell, task.start, task.stop), table))
    return writes, chunk_summary(task, scenario, batch)


def write_parts(out: str, writes: list[tuple[str, pa.Table]]) -> None:
    """Write a chunk's parts (:func:`play_chunk_tables`) in order, each atomically, under ``out``."""
    store = _store(out)
    for rel, t in writes:
        store.write_parquet(rel, t)


def chunk_summary(task: ChunkTask, scenario: Scenario, batch: Batch) -> dict:
    """A played chunk's summary: ``{"cell", "start", "stop", "games", "wins": {side or "draw": count},
    "stats"}``, ``stats`` the cell statistics of its games (:mod:`simlab.stats.cellstats`), equal to
    those of its games part read back."""
    g = batch.games
    w = np.asarray(g["winner"])
    wins = {s: int((w == i).sum()) for i, s in enumerate(scenario.sides)}
    wins["draw"] = int((w < 0).sum())
    reasons = None
    if "end_reason" in g:
        r = np.asarray(g["end_reason"])
        cats = batch.categories.get("end_reason")
        if cats is not None:
            codes, counts = np.unique(r.astype(np.int64), return_counts=True)
            reasons = {str(cats[int(c)]): int(k) for c, k in zip(codes, counts, strict=True)}
        else:
            v, counts = np.unique(r.astype(str), return_counts=True)
            reasons = {str(x): int(k) for x, k in zip(v, counts, strict=True)}
    stats = part_stats(wins, np.asarray(g["turns"]), {s: np.asarray(g[f"score_{s}"]) for s in scenario.sides},
                       reasons)
    return {"cell": task.cell, "start": task.start, "stop": task.stop, "games": task.stop - task.start,
            "wins": wins, "stats": stats}
