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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..games import Batch, Game, Scenario, get_game, register
from ..games.policy import policy_names
from ..rng import game_seeds
from .store import Store

__all__ = ["ChunkTask", "build_games_table", "games_part_rel", "part_name", "play_chunk", "worker_game", "worker_scenario"]

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


def worker_scenario(game_name: str, scenario: str, data: str | None = None, plugin: str | None = None) -> Scenario:
    """Scenario ``scenario`` of a game compiled with data-pack override ``data``, compiled once per
    process and reused by every later chunk (see :func:`worker_game` for ``plugin``).

    Raises:
        ScenarioError, DataPackError: what the game's ``load_scenario``/``load_data`` raise.
    """
    key = (game_name, scenario, data)
    if key not in _SCENARIOS:
        with _SCENARIOS_LOCK:  # threads of the thread backend: one compiles, the others reuse it
            if key not in _SCENARIOS:
                game = worker_game(game_name, plugin)
                _SCENARIOS[key] = game.load_scenario(scenario, game.load_data(data))
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


def _labels(values: np.ndarray, labels, draw: str | None = None) -> pa.Array:
    """Small-int codes to a string column (``draw`` names the code -1)."""
    lab = list(labels)
    idx = np.asarray(values).astype(np.int32)
    if draw is not None:
        lab = lab + [draw]
        idx = np.where(idx < 0, len(lab) - 1, idx).astype(np.int32)
    if idx.size and (idx.min() < 0 or idx.max() >= len(lab)):
        raise ValueError(f"category code out of range 0..{len(lab) - 1}")
    return pc.take(pa.array(lab, type=pa.string()), pa.array(idx))


def _const(value, n: int, type_=None) -> pa.Array:
    """A column holding one value ``n`` times (``pa.repeat`` is far slower)."""
    return pc.take(pa.array([value], type=type_), pa.array(np.zeros(n, dtype=np.int32)))


def build_games_table(task: ChunkTask, scenario: Scenario, batch: Batch, seeds: np.ndarray) -> pa.Table:
    """The games table of a chunk: key columns, policies, grid options, then the game's columns.

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
        "cell": pa.array(np.full(n, task.cell, dtype=np.int32)),
        "game_index": pa.array(np.arange(task.start, task.stop, dtype=np.int64)),
        "seed": pa.array(seeds.astype(np.uint64)),
        "game": _const(task.game, n, pa.string()),
        "scenario": _const(scenario.name, n, pa.string()),
    }
    for side in scenario.sides:
        cols[f"policy_{side}"] = _const(task.policies[side].name, n, pa.string())
    for opt in task.grid_options:
        cols[opt] = _const(task.options[opt], n)
    cols["winner"] = _labels(g["winner"], scenario.sides, draw="draw")
    for side in scenario.sides:
        cols[f"score_{side}"] = pa.array(np.asarray(g[f"score_{side}"]))
    cols["turns"] = pa.array(np.asarray(g["turns"]))
    for k, v in g.items():
        if k in cols or k == "winner":
            continue
        if k in batch.categories:
            cols[k] = _labels(v, batch.categories[k])
        else:
            cols[k] = pa.array(np.asarray(v))
    for side in scenario.sides:  # the knob vector in force, so a row says exactly what played
        for knob, value in task.policies[side].knobs:
            cols[f"knob_{side}_{knob}"] = _const(value, n, pa.int64() if isinstance(value, int) else pa.float64())
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
        ``{"cell", "start", "stop", "games", "wins": {side or "draw": count}}``.

    Raises:
        ValueError: if the game's batch breaks the contract (see :func:`build_games_table`) or
            names an events table with anything but a plain lower-case name.
    """
    game = worker_game(task.game, task.plugin)
    scenario = worker_scenario(task.game, task.scenario, task.data, task.plugin)
    store = _store(task.out)
    seeds = game_seeds(task.master_seed, task.cell_key, task.start, task.stop)
    batch = game.play_batch(scenario, task.options, task.policies, seeds)
    table = build_games_table(task, scenario, batch, seeds)
    meta = table.schema.metadata
    for name, ev in batch.events.items():
        rel = events_part_rel(name, task.cell, task.start, task.stop)
        if "game" not in ev:
            raise ValueError(f"game {task.game}: events table '{name}' has no 'game' column")
        rows = np.asarray(ev["game"], dtype=np.int64)
        ecols: dict[str, Any] = {
            "experiment": _const(task.experiment, len(rows), pa.string()),
            "cell": pa.array(np.full(len(rows), task.cell, dtype=np.int32)),
            "game_index": pa.array(rows + task.start),
        }
        for k, v in ev.items():
            if k == "game":
                continue
            cats = batch.categories.get(f"{name}.{k}")
            ecols[k] = _labels(v, cats) if cats is not None else pa.array(np.asarray(v))
        et = pa.table(ecols).replace_schema_metadata(meta)
        store.write_parquet(rel, et)
    store.write_parquet(games_part_rel(task.cell, task.start, task.stop), table)
    w = np.asarray(batch.games["winner"])
    wins = {s: int((w == i).sum()) for i, s in enumerate(scenario.sides)}
    wins["draw"] = int((w < 0).sum())
    return {"cell": task.cell, "start": task.start, "stop": task.stop, "games": task.stop - task.start,
            "wins": wins}
