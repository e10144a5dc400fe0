"""The sweep runner: spec -> cells -> chunks -> workers -> Parquet parts + manifest.

``run_sweep`` checks everything before it writes anything, so bad input leaves no output
directory behind. It holds an exclusive lock on the output directory while it runs, writes
``manifest.json`` first (status ``running``) and last (``complete``, ``failed`` or
``interrupted``), and shows a progress bar on stderr. ``resume=True`` plays only the chunks whose
games part is missing, and refuses a directory written by another spec, data pack or simlab
version. ``extend=True`` grows a finished sweep (more games per cell, more grid values) and plays
only the new games (:mod:`simlab.sweeps.extend`).

Chunks run on a backend (:mod:`simlab.sweeps.backends`): threads or worker processes on this machine, or a
Dask cluster. A chunk that fails (its worker dies or it raises) is retried once in a process of
its own; if it fails again it is reported with its cell and game range, the sweep plays the
rest, and the manifest's status is ``failed`` (``--resume`` plays what is missing).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import platform
import signal
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numba
import numpy as np

from .._version import __version__, git_commit, prefetch_git_commit
from ..data_axes import data_column, data_column_kind, is_data_name
from ..errors import SpecError, SweepStateError, SweepStopped
from ..games import game_target
from ..games.policy import Mixture, policy_names, split_knob_name
from ..measured import game_version
from ..rng import game_seeds
from .backends import (
    Backend,
    InProcess,
    Kept,
    WorkersLost,
    check_backend,
    current_backend,
    default_workers,
    make_backend,
)
from .chunks import ChunkTask, games_part_rel, sweep_knob_columns
from .isolate import one_line
from .extend import check_extension, extents_for, grown, renumber
from .manifest import MANIFEST, check_seal, load_manifest, seal, sweep_schema, sweep_status
from .plans import DEFAULT_MAX_GAMES, FixedPlan, Plan, PrecisionPlan, _parse_part
from .progress import Progress as _Progress
from .spec import Cell, SweepSpec, cell_scenario, check_name, expand
from .store import Store
from .verify import (
    SWEEP_FORMAT,
    PartProblem,
    check_parts,
    migrate_layout,
    missing_events,
    part_digests,
    part_range,
    quarantine,
)

__all__ = ["PREFLIGHT_CELLS", "SweepResult", "auto_chunk_size", "default_workers", "game_min_chunk", "input_changes",
           "load_manifest", "planned_manifest", "preflight", "run_sweep"]

def auto_chunk_size(games: int, workers: int, floor: int = 1_000) -> int:
    """Games per chunk when none is given: about four chunks per worker per cell, ``floor`` to 50,000.

    Args:
        games: games per cell; workers: the sweep's workers.
        floor: the smallest chunk, the game's :attr:`~simlab.games.base.Game.min_chunk` (1,000 but for
            games that play far fewer than 1,000 games a second, whose short sweeps would otherwise be
            one chunk on one worker); clipped to 1..50,000.
    """
    floor = int(min(50_000, max(1, floor)))
    return int(min(50_000, max(floor, math.ceil(games / (4 * max(1, workers))))))


def game_min_chunk(game) -> int:
    """The game's :attr:`~simlab.games.base.Game.min_chunk` (1,000 where a plug-in sets none or no whole number)."""
    v = getattr(game, "min_chunk", 1_000)
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 1 else 1_000


@dataclass
class SweepResult:
    """What a finished (or interrupted) sweep left behind.

    Attributes:
        path: the output directory (a ``Path``, or the URL string for a non-local one).
        manifest: the manifest as written.
        games_played: games played by this call (resumed chunks excluded).
        seconds: wall time of the playing.
        interrupted: True if Ctrl-C stopped it.
        chunks_skipped: chunks already written (``resume``).
        failures: chunks that failed twice: ``{cell, params, start, stop, seeds, error}`` each
            (``start``/``stop`` are game indices, ``seeds`` the first and last per-game seeds).
        quarantined: parts ``resume`` found not to belong to the sweep and moved into
            ``quarantine/`` (their chunks were played again): ``{part, reason, moved_to}`` each.
        cell_stats: ``{cell: stats}`` (:mod:`simlab.stats.cellstats`) of every game the sweep
            holds, summed from the chunks' summaries as they were played, when this call played
            them all (no resume, extension, failure, interruption or precision target); else None.
            ``simlab.results.report_rows(manifest, status, cell_stats)`` gives :func:`simlab.results.report`'s
            rows without reading the parts back.
    """

    path: Path | str
    manifest: dict
    games_played: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    chunks_skipped: int = 0
    failures: list[dict] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    cell_stats: dict | None = None

    @property
    def ok(self) -> bool:
        """True when every chunk was written."""
        return not self.interrupted and not self.failures


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _default_out(spec: SweepSpec) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{spec.name}-{stamp}"


def _open_out(out: str | Path) -> tuple[Store, Path | str]:
    store = Store(out)
    return store, (store.url if not store.local or isinstance(out, str) and "://" in out else Path(out))


def _refuse_in_a_starting_worker() -> None:
    """A script without ``if __name__ == "__main__":`` re-runs its sweep in every spawned worker,
    as the worker imports the script; stop that worker with one line saying so."""
    multiprocessing = sys.modules.get("multiprocessing")  # a spawned worker has it; a plain process need not
    if multiprocessing is not None and getattr(multiprocessing.current_process(), "_inheriting", False):
        sys.stderr.write("simlab: error: a sweep was started while a worker process was importing your script; "
                         "put the sweep under `if __name__ == \"__main__\":` (Python's spawn start method needs it)\n")
        sys.stderr.flush()
        raise SystemExit(2)


def run_sweep(spec: SweepSpec, out: str | Path | None = None, *, workers: int | None = None,
              resume: bool = False, overwrite: bool = False, progress: bool = True,
              on_chunk: Callable[[dict], None] | None = None, backend: str | None = None,
              scheduler: Any = None, dask_timeout: float | None = None, extend: bool = False) -> SweepResult:
    """Play every game of a spec and write it under ``out``.

    Args:
        spec: the experiment (:func:`simlab.sweeps.spec.load_spec` or ``spec_from_args``).
        out: output directory: a local path or an fsspec URL (``file:///...``, ``s3://bucket/x``
            with s3fs installed); default ``results/<name>-<timestamp>``. With the dask backend
            on several hosts it must be a path every worker reaches (shared filesystem) or a URL.
        workers: worker threads or processes (default: every core this process may use); 1 plays
            in this process (a writer thread writes each chunk's parts while the next plays).
            With ``backend="dask"`` and no scheduler: the LocalCluster's worker processes.
        resume: continue the sweep already in ``out`` (same spec), playing only missing chunks.
        overwrite: replace a previous sweep in ``out`` (only a directory with a manifest).
        extend: grow the complete sweep in ``out`` to ``spec``, which may only have more games per
            cell (the new total) or grid values appended to existing axes; only the new games are
            played (:mod:`simlab.sweeps.extend`). Run again after an interruption, it resumes.
        progress: show a progress bar on stderr.
        on_chunk: called in this process with each finished chunk's summary.
        dask_timeout: dask only: seconds the cluster may have no worker at all while chunks wait
            before the sweep stops (default 60; raises SweepStopped, finished chunks are kept).
        backend: ``"local"`` (default: in this process with 1 worker, else on threads),
            ``"processes"`` (spawned worker processes, for fault isolation) or ``"dask"``.
        scheduler: dask only: a scheduler address (``tcp://host:8786``) or a ``distributed.Client``
            (see :func:`simlab.sweeps.backends.dask_client` to share one cluster across sweeps);
            None starts a LocalCluster bound to 127.0.0.1 and stops it at the end. With neither
            ``backend`` nor ``scheduler``, the innermost ``with sweep_backend(...)`` decides (local
            processes outside one).

    Returns:
        A :class:`SweepResult`; ``result.failures`` lists chunks that failed twice (the rest was
        played; the manifest's status is then ``failed``).

    Raises:
        SpecError, ScenarioError, DataPackError: bad input, including bad backend arguments or an
            unreachable scheduler (nothing written).
        SweepStateError: ``out`` holds something else, is locked by another sweep, or ``resume``
            finds a different spec, data pack or simlab version, or ``extend`` finds no sweep, an
            unfinished one or a change beyond games and grid values; or the disk filled up (complete
            chunks kept, the manifest says ``interrupted``).
        SweepStopped: the dask cluster had no worker for ``dask_timeout`` seconds (complete
            chunks kept, the manifest says ``interrupted``).
    """
    _refuse_in_a_starting_worker()
    if resume and overwrite:
        raise SpecError("--resume and --overwrite contradict each other: --resume continues the sweep in --out, "
                        "--overwrite replaces it; give one")
    if extend and overwrite:
        raise SpecError("--extend and --overwrite contradict each other: --extend grows the sweep in --out, "
                        "--overwrite replaces it; give one")
    if backend is None and scheduler is None:
        backend, scheduler = current_backend()  # set by `with sweep_backend(...)` (tune, compare, meta)
    kept = scheduler if isinstance(scheduler, Kept) else None  # `with kept_backend(...)` (solve)
    if kept is not None:
        scheduler, workers = None, kept.workers
    backend = check_backend(backend, scheduler, workers)
    workers = workers or default_workers()
    check_name(spec.name)
    prefetch_git_commit()  # the manifest's commit, found while the kernels load
    game, cells, info = expand(spec)
    # typed option values, so that `--set n=3` and `n = 3` in a file are the same spec
    spec = dataclasses.replace(spec, options=info["options"], grid=info["grid"])
    scenario_hash = _scenario_hash(info["scenarios"])
    store, shown = _open_out(out if out is not None else _default_out(spec))
    old = None
    if store.exists() and not store.is_dir():
        raise SweepStateError(f"{store.display} exists and is not a directory")
    if store.local and not store.exists():  # bad input before the preflight compiles anything
        up = Path(store.root).parent
        while not up.exists() and up != up.parent:
            up = up.parent
        if not up.is_dir():
            raise SweepStateError(f"{store.display}: Not a directory ({up} is a file)")
    store.check_free()
    if not store.is_empty():
        if store.exists(MANIFEST):
            try:
                old = store.read_json(MANIFEST)
            except (OSError, ValueError):
                raise SweepStateError(f"{store.display}/{MANIFEST} is unreadable; cannot resume or overwrite it") from None
            if not isinstance(old, dict):
                raise SweepStateError(f"{store.display}/{MANIFEST} is not a sweep manifest")
        if resume or extend:
            if old is None:
                raise SweepStateError(f"{store.display} holds no sweep to {'extend' if extend else 'resume'} "
                                      f"(no {MANIFEST})")
        elif overwrite:
            if old is None:
                raise SweepStateError(f"refusing to overwrite {store.display}: it is not a simlab sweep directory")
        elif old is None:  # not a sweep: --resume and --overwrite would be refused too, so do not offer them
            raise SweepStateError(f"{store.display} is not empty and holds no sweep ({MANIFEST}): choose another --out")
        else:
            raise SweepStateError(f"{store.display} already holds a sweep: pass --resume to continue it, --overwrite to replace it, or choose another --out")
    if (resume or extend) and old is None:
        raise SweepStateError(f"{store.display} holds no sweep to {'extend' if extend else 'resume'}"
                              + (" (it does not exist)" if not store.exists() else f" (no {MANIFEST})"))
    extending = False
    if extend:
        # a re-run of an interrupted extension (the spec is the sweep's own) resumes it
        extending = not check_extension(store.display, old, spec, sweep_status(store, old))
        resume = True
    chunk_size, verb = spec.chunk_size, "extend" if extend else "resume"
    if resume and old is not None:
        if chunk_size is not None and chunk_size != old.get("chunk_size"):
            raise SweepStateError(f"cannot {verb} {store.display} with --chunk-size {chunk_size}: it was written with {old.get('chunk_size')}")
        chunk_size = old.get("chunk_size")
        if not isinstance(chunk_size, int) or chunk_size < 1:
            raise SweepStateError(f"cannot {verb} {store.display}: its manifest has no valid chunk_size")
    if chunk_size is None:
        # under a precision target the rows depend on the chunk size, so it must not depend on workers
        chunk_size = (PRECISION_CHUNK if spec.precision is not None else
                      auto_chunk_size(spec.games, workers, game_min_chunk(game)))
    per_cell = (spec.games if spec.precision is None else (spec.max_games or DEFAULT_MAX_GAMES))
    n_chunks = len(cells) * -(-per_cell // chunk_size)
    if n_chunks > MAX_CHUNKS:
        raise SpecError(f"this sweep would have {n_chunks:,} chunks (limit {MAX_CHUNKS:,}): choose a larger --chunk-size")
    spec = dataclasses.replace(spec, chunk_size=chunk_size)
    if resume and old is not None:
        mine = {"fingerprint": spec.fingerprint(), "data_hash": (info["data"] or {}).get("hash"),
                "scenario_hash": scenario_hash, "simlab_version": __version__}
        theirs = {"fingerprint": old.get("fingerprint"), "data_hash": (old.get("data") or {}).get("hash"),
                  "scenario_hash": old.get("scenario_hash"), "simlab_version": old.get("simlab_version")}
        for k in mine:
            if mine[k] != theirs[k] and not (extending and k == "fingerprint"):
                what = {"fingerprint": "experiment spec", "data_hash": "data pack hash",
                        "scenario_hash": "scenario file content", "simlab_version": "simlab version"}[k]
                detail = f"{theirs[k]} there, {mine[k]} now"
                if k == "fingerprint":
                    detail = _spec_differences(old.get("spec"), spec.to_dict()) or detail
                raise SweepStateError(
                    f"cannot {verb} {store.display}: its {what} differs ({detail}); "
                    "use another --out")
        edited = check_seal(old)
        if edited is not None:
            raise SweepStateError(f"cannot {verb} {store.display}: {edited}")
        # the ids the sweep gave its cells (an extension's new cells come after them)
        cells = renumber(cells, old)
        changed = _cell_definition_changes(cells, old)
        if changed:
            raise SweepStateError(f"cannot {verb} {store.display}: {changed}; its rows were played under the "
                                  "old definition, so new games would not match them: use another --out")
    grow = None
    if resume and old is not None:
        grow = {"extents": extents_for(cells, old, spec.games, extending),
                **(grown(old, spec, cells, _now()) if extending else
                   {k: old[k] for k in ("lineage", "extensions") if k in old})}

    # play one game of each cell here first: an error that only a scenario together with its options
    # reveals (e.g. a points budget too small for a legal squadron) is bad input, reported before
    # anything is written; it also compiles the kernels before workers start
    preflight(game, cells, info, spec, progress)
    # a scheduler we connect to is reached before anything is written (a wrong address writes nothing)
    ex: Backend | None = kept if kept is not None else (
        make_backend(backend, workers, scheduler, dask_timeout) if scheduler is not None else None)
    try:
        store.makedirs()
        with store.lock():
            if ex is None:
                ex = make_backend(backend, workers, None, dask_timeout)
            info["scenario_hash"] = scenario_hash
            res = _run_locked(spec, game, cells, info, store, shown, old, resume, overwrite, ex, progress,
                              on_chunk, grow)
    except BaseException:
        if ex is not None:
            ex.close(cancel=True)
        raise
    ex.close(cancel=res.interrupted)
    return res


def _run_locked(spec, game, cells, info, store: Store, shown, old, resume, overwrite, ex: Backend, progress,
                on_chunk, grow: dict | None = None) -> SweepResult:
    chunk_size = spec.chunk_size
    if overwrite and old is not None and not resume:
        for sub in ("games", "events"):
            store.remove(sub)
    store.clean_tmp()
    # knob axes: knob_* columns; data axes: data_* columns
    grid_options = tuple(k for k in spec.grid if split_knob_name(k) is None and not is_data_name(k))
    sides = info["sides"]
    extents = (grow or {}).get("extents")
    manifest = {
        "format": SWEEP_FORMAT,
        "experiment": spec.name,
        "description": spec.description,
        "game": spec.game,
        "sides": list(sides),
        "spec": spec.to_dict(),
        "fingerprint": spec.fingerprint(),
        "master_seed": spec.seed,
        "crn": spec.crn,
        "games_per_cell": spec.games if spec.precision is None else None,
        "precision": spec.precision,
        "max_games": (spec.max_games or DEFAULT_MAX_GAMES) if spec.precision is not None else None,
        "chunk_size": chunk_size,
        "grid_options": list(grid_options),
        "cells": [_cell_record(c, extents) for c in cells],
        "scenarios": {k: {"name": v.name, "source": v.source, "title": v.title, "sides": list(v.sides)}
                      for k, v in info["scenarios"].items()},
        "data": info["data"],
        "scenario_hash": info["scenario_hash"],
        # the game version (issue 29): an exploitability figure applies only to sweeps of the same one;
        # a sweep resumed or extended under another holds games of both, and records none
        "game_version": _game_version_of(game, old if (resume or grow) else None),
        "simlab_version": __version__,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "started": (old or {}).get("started", _now()),
        "run_id": uuid.uuid4().hex,
        "status": "running",
        **{k: v for k, v in (grow or {}).items() if k != "extents"},
    }
    store.write_json(MANIFEST, seal(manifest))
    files = sorted({f for f in [_abs_file(spec.data)] + [_abs_file(c.scenario) for c in cells]
                    if f is not None and os.path.isfile(f)})
    ex.check_visible(store.url, manifest["run_id"], files)
    meta = {"simlab_version": __version__, "data_hash": (info["data"] or {}).get("hash"),
            "crn": spec.crn, "fingerprint": manifest["fingerprint"]}
    plugin = game_target(spec.game)
    knob_columns = sweep_knob_columns(sides, [c.policies for c in cells])  # once per sweep (issue 32)
    data_columns = tuple((k, data_column(k), data_column_kind(v)) for k, v in spec.grid.items() if is_data_name(k))

    def make(c: Cell, start: int, stop: int) -> ChunkTask:
        return dataclasses.replace(_task(spec, c, store.url, start, stop, grid_options, meta, plugin),
                                   knob_columns=knob_columns, data_edits=c.data, data_columns=data_columns)

    quarantined: list[dict] = []
    if resume:
        migrate_layout(store)
        # a part that does not belong (another sweep's, a copy, truncated...) is moved aside and its
        # chunk played again, so the resumed sweep ends with exactly an uninterrupted one's rows
        _, problems = check_parts(store, old, content=True)
        # a chunk whose events part was lost is played again whole: its games part is moved aside too
        present = set(store.find("games"))
        for gone in missing_events(store, old):
            where = part_range(gone.rel)
            rel = games_part_rel(*where[1:]) if where is not None else None
            if rel in present and all(p.rel != rel for p in problems):
                problems.append(PartProblem(rel, f"its chunk's events part {gone.rel} is missing"))
        for prob, dest in zip(problems, quarantine(store, problems), strict=True):
            quarantined.append({"part": prob.rel, "reason": prob.reason, "moved_to": dest})
    written = _written_parts(store) if resume else set()
    # the parts this run found and kept: their recorded digests stand (a part played again gets its own)
    kept_parts = set(store.find("games") + store.find("events")) if resume else set()
    inner = getattr(ex, "inner", ex)  # a Kept backend's own
    if isinstance(inner, InProcess):  # one chunk ahead only where every chunk will be kept
        inner.overlap = spec.precision is None
    if spec.precision is None:
        plan: Plan = FixedPlan(cells, spec.games, chunk_size, make, written, extents)
    else:
        plan = PrecisionPlan(cells, spec, chunk_size, make, store, written, sides, ahead=max(2, ex.workers))
    t0 = time.perf_counter()
    tally: dict[str, Any] = {"games": 0, "stats": {}}
    interrupted = False
    failures: list[dict] = []
    bar = _Progress(plan.total, plan.done_before, enabled=progress,
                    label=f"{spec.name}: {len(cells)} cell(s)")
    disk_full = lost_workers = None
    try:
        with bar:
            _execute(plan, ex, bar, on_chunk, failures, {c.id: c for c in cells}, tally)
    except KeyboardInterrupt:
        interrupted = True
        for o in ex.stop():  # chunks already playing on threads finish: count the parts they wrote
            if o.result is not None:
                plan.done(o.result)
                tally["games"] += o.result["games"]
        ex.close(cancel=True)
    except DiskFullError as e:
        interrupted = True
        disk_full = str(e)
        ex.close(cancel=True)
    except WorkersLost as e:
        interrupted = True
        lost_workers = str(e)
        ex.close(cancel=True)
    played = tally["games"]
    seconds = time.perf_counter() - t0
    plan.discard_extra()
    store.clean_tmp()
    manifest["status"] = "interrupted" if interrupted else ("failed" if failures else "complete")
    manifest["finished"] = _now()
    manifest["games_written"] = plan.games_written()
    if failures:
        manifest["failed_chunks"] = failures
    if spec.precision is not None:
        manifest["precision_reached"] = plan.precision_reached()
    if quarantined:
        manifest.setdefault("quarantined", []).extend(quarantined)
    manifest["schema"] = sweep_schema(store, manifest, game)
    # every part's digest, so verify and resume find a changed byte even where the rows read the same
    manifest["parts"] = part_digests(store, {k: v for k, v in ((old or {}).get("parts") or {}).items()
                                             if k in kept_parts} if resume else None)
    if disk_full is not None:
        manifest["stopped_by"] = f"disk full: {disk_full}"
    if lost_workers is not None:
        manifest["stopped_by"] = lost_workers
    manifest["last_run"] = {"games_played": played, "seconds": round(seconds, 3), **ex.describe(),
                            "quarantined": len(quarantined),
                            "chunks_skipped": plan.skipped, "chunks_failed": len(failures),
                            "games_per_second": round(played / seconds, 1) if seconds > 0 else None}
    try:
        store.write_json(MANIFEST, seal(manifest))
    except OSError:
        if disk_full is None:
            raise
        # no room even for the manifest: it still says "running", which report shows as interrupted
    if disk_full is not None:
        raise SweepStateError(f"the disk of {store.display} is full ({_disk_error_tail(disk_full)}); "
                              f"{sum(manifest['games_written'].values()):,} games are written: free some space "
                              "and rerun with --resume")
    if lost_workers is not None:
        raise SweepStopped(f"{lost_workers}; {sum(manifest['games_written'].values()):,} games are written: "
                           "rerun with --resume once the cluster has workers")
    whole = (spec.precision is None and not resume and not interrupted and not failures and plan.skipped == 0
             and tally["stats"] is not None and manifest["status"] == "complete")
    return SweepResult(shown, manifest, played, seconds, interrupted, plan.skipped, failures, quarantined,
                       cell_stats=tally["stats"] if whole else None)


def _game_version_of(game, old: dict | None) -> str | None:
    """The game version a sweep's manifest records (:func:`simlab.measured.game_version`): None
    when the games already written (``old``'s manifest, on a resume or an extension) were played
    under another version or recorded none."""
    now = game_version(game)
    if old is not None and old.get("game_version") != now:
        return None
    return now


def _disk_error_tail(error: str) -> str:
    for m in _DISK_FULL[1::2]:
        if m in error:
            return m
    return error[:120]


def planned_manifest(spec: SweepSpec) -> dict:
    """The fields a sweep of ``spec`` would record about its cells in its manifest, without
    playing a game or writing anything: ``{"game", "sides", "spec", "cells", "scenarios", "data",
    "game_version"}`` as JSON-plain values (what :func:`simlab.results.policy_exploitability` reads
    to say whether a solve's figure applies to those cells).

    Raises:
        SpecError, ScenarioError, DataPackError: as :func:`simlab.sweeps.spec.expand`.
    """
    import json as _json
    game, cells, info = expand(spec)
    return {"game": spec.game, "sides": list(info["sides"]), "spec": spec.to_dict(),
            "cells": [_json.loads(_json.dumps(_cell_record(c), default=str)) for c in cells],
            "scenarios": {k: {"name": v.name, "source": v.source} for k, v in info["scenarios"].items()},
            "data": info["data"], "game_version": game_version(game)}


def input_changes(man: dict, where: str) -> str | None:
    """What has changed, since a sweep was played, among the inputs it was played from (the
    checks ``--resume`` and ``--extend`` make before they play, without playing): its data pack
    override, its scenario files, the presets and knob vectors its cells resolve to (an edited
    ``--policies-file`` or ``policies.toml``), its ``@mix`` directories, and the game version (the
    rows the game's rules code plays, :func:`simlab.measured.game_version`). ``simlab verify``
    prints it; the parts are still the sweep's own either way.

    Args:
        man: the sweep's manifest; where: how to name the sweep in the text.

    Returns:
        None when the inputs resolve as they did; else one line, e.g. ``"cell 0's knobs differ
        ({...} there, {...} now)"`` or ``"its inputs no longer load (...)"``.
    """
    from ..errors import InputError
    from .extend import spec_from_manifest
    try:
        spec = spec_from_manifest(man, where)
        game, cells, info = expand(spec)
    except (InputError, ValueError, OSError) as e:
        return f"its inputs no longer load ({one_line(e)})"
    if (info["data"] or {}).get("hash") != (man.get("data") or {}).get("hash"):
        return (f"the data pack differs ({(man.get('data') or {}).get('hash')} there, "
                f"{(info['data'] or {}).get('hash')} now)")
    if _scenario_hash(info["scenarios"]) != man.get("scenario_hash"):
        return "a scenario file differs from the one the sweep played"
    changed = _cell_definition_changes(renumber(cells, man), man)
    if changed:
        return changed
    now = game_version(game)
    if man.get("game_version") is not None and now != man["game_version"]:
        return (f"the game version differs (golden rows {man['game_version'][:12]} there, "
                f"{(now or 'none')[:12]} now): the rules code plays other rows since")
    return None


def _cell_record(c: Cell, extents: dict | None = None) -> dict:
    """A cell as the manifest records it: ids, parameters, scenario, policies with their full knob
    vectors, each mixed side's components (weight, preset, full knob vector) and options (everything
    its rows depend on besides the spec, data and scenario files)."""
    mixes = {s: p.to_json()["mix"] for s, p in c.policies.items() if isinstance(p, Mixture)}
    return {"cell": c.id, "seed_key": c.key, "params": c.params, "scenario": c.scenario,
            "policies": policy_names(c.policies), "policy_families": {s: p.family for s, p in c.policies.items()},
            "knobs": {s: p.as_dict() for s, p in c.policies.items()}, "options": c.options,
            **({"mixes": mixes} if mixes else {}),
            **({"data": {"edits": {k: v for k, v in c.data}, "hash": c.data_hash}} if c.data else {}),
            **({"extents": extents[c.id]} if extents else {})}

#: the fields of a manifest's cell that decide its rows (a resume or extend must find them unchanged)
_DEFINING = ("seed_key", "scenario", "policies", "policy_families", "knobs", "mixes", "options", "data")


def _cell_definition_changes(cells: list[Cell], old: dict) -> str:
    """``"cell 0's knobs differ ({...} there, {...} now)"`` for the first cell of ``old`` that the new run
    would play under another definition (a policies file, a mix directory or a preset edited since), or ""."""
    import json as _json

    def js(v) -> str:
        return _json.dumps(v, sort_keys=True, default=str)

    def short(t: str) -> str:
        return t if len(t) <= 120 else t[:117] + "..."

    olds = {c.get("cell"): c for c in old.get("cells", []) if isinstance(c, dict)}
    for c in cells:
        was = olds.get(c.id)
        if was is None:
            continue
        now = _json.loads(_json.dumps(_cell_record(c), default=str))
        for k in _DEFINING:
            if k == "mixes" and k in was and js(was[k]) != js(now.get(k)):
                return (f"cell {c.id}'s mixed policies differ ({short(js(was[k]))} there, "
                        f"{short(js(now.get(k)))} now: a @mix directory was edited)")
            if k != "mixes" and k in was and js(was[k]) != js(now.get(k)):
                return f"cell {c.id}'s {k.replace('_', ' ')} differ ({short(js(was[k]))} there, {short(js(now[k]))} now)"
    return ""


def _spec_differences(theirs, mine: dict) -> str:
    """``"games: 500 there, 600 now; seed: 1 there, 2 now"`` for the spec fields that decide rows."""
    if not isinstance(theirs, dict):
        return ""
    out = []
    for k in sorted(set(theirs) | set(mine)):
        if k in ("name", "description", "chunk_size"):
            continue
        a, b = theirs.get(k), mine.get(k)
        if json.dumps(a, sort_keys=True, default=str) != json.dumps(b, sort_keys=True, default=str):
            out.append(f"{k}: {json.dumps(a, default=str)} there, {json.dumps(b, default=str)} now")
    return "; ".join(out)


def _scenario_hash(scenarios: dict) -> str:
    """Hash of the scenarios' content: a file's bytes, or a built-in's source name (its content is
    fixed by the simlab version)."""
    h = hashlib.sha256()
    for key in sorted(scenarios):
        sc = scenarios[key]
        h.update(key.encode() + b"\0")
        src = str(sc.source)
        if src and not src.startswith("builtin:") and os.path.isfile(src):
            with open(src, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
        else:
            h.update(src.encode())
    return h.hexdigest()[:16]


def _written_parts(store: Store) -> set[tuple[int, int, int]]:
    """``(cell, start, stop)`` of every games part in the directory."""
    out = set()
    for rel in store.find("games"):
        parsed = _parse_part(rel)
        if parsed is not None:
            out.add(parsed)
    return out




PRECISION_CHUNK = 2000
#: chunks in one sweep at most (each is a task and a Parquet part)
MAX_CHUNKS = 10_000_000


def _failure(o, cell: Cell, master_seed: int) -> dict:
    seeds = game_seeds(master_seed, cell.key, o.task.start, o.task.stop)
    return {"cell": cell.id, "params": cell.params, "start": o.task.start, "stop": o.task.stop,
            "seeds": [int(seeds[0]), int(seeds[-1])], "error": o.error}


def failure_line(f: dict) -> str:
    """One line describing a failed chunk (for stderr)."""
    params = ", ".join(f"{k}={v}" for k, v in f["params"].items())
    return (f"chunk failed twice: cell {f['cell']}" + (f" ({params})" if params else "")
            + f", games {f['start']}..{f['stop'] - 1} (seeds {f['seeds'][0]}..{f['seeds'][1]}): {f['error']}")


class DiskFullError(Exception):
    """A chunk could not be written because the output's disk is full (or over quota)."""


_DISK_FULL = ("[Errno 28]", "No space left on device", "[Errno 122]", "Disk quota exceeded")


def _disk_full(error: str) -> bool:
    """Whether a chunk's error line says the disk is full (ENOSPC) or over quota (EDQUOT)."""
    return any(m in error for m in _DISK_FULL)


#: how often a retry may be lost to workers that other chunks kill before it counts as failed
MAX_LOST_RETRIES = 3


def _execute(plan: Plan, ex: Backend, bar, on_chunk, failures: list, cells: dict, tally: dict) -> None:
    """Run a plan on a backend, counting the games of written chunks in ``tally["games"]`` (kept
    when Ctrl-C interrupts). A failed first attempt is retried once (before new chunks start); a
    failed retry is appended to ``failures``. A retry lost with a worker that another chunk killed
    is resubmitted (at most ``MAX_LOST_RETRIES`` times)."""
    retry: deque[ChunkTask] = deque()
    lost: dict[tuple[int, int], int] = {}
    with _CountBeforeCtrlC() as ctrl_c:
        while True:
            if ctrl_c.pressed:  # every outcome the backend has returned is counted: stop here
                raise KeyboardInterrupt
            if not _step(plan, ex, bar, on_chunk, failures, cells, tally, retry, lost):
                return


class _CountBeforeCtrlC:
    """Ctrl-C (SIGINT) during a sweep is acted on between the runner's steps, not inside one, so a
    chunk whose parts are written is always counted (``last_run.games_played`` equals the rows on
    disk): the first Ctrl-C sets ``pressed``, which the runner checks before each step; a second
    one raises ``KeyboardInterrupt`` at once. A step waits for the next chunk to end (a second or
    so). Only in the main thread, and only where Python's own SIGINT handler is installed;
    elsewhere Ctrl-C raises where it lands, as before."""

    def __init__(self):
        self.pressed = False
        self._prev = None

    def __enter__(self):
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._prev = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def _on_sigint(self, signum, frame):
        if self.pressed:
            raise KeyboardInterrupt
        self.pressed = True

    def __exit__(self, *exc):
        if self._prev is not None:
            signal.signal(signal.SIGINT, self._prev)
        return False


def _step(plan, ex, bar, on_chunk, failures, cells, tally, retry, lost) -> bool:
    """One step of :func:`_execute`: fill the backend's slots, wait for attempts to end and
    count them. False once nothing is left to play."""
    while ex.pending() < ex.slots:
        if retry:
            ex.submit(retry.popleft(), 2)
            continue
        t = plan.next()
        if t is None:
            break
        ex.submit(t, 1)
    if ex.pending() == 0:
        return False
    for o in ex.wait():
        key = (o.task.cell, o.task.start)
        if o.result is not None:
            plan.done(o.result)
            tally["games"] += o.result["games"]
            _add_stats(tally, o.result)
            bar.advance(o.result["games"])
            if on_chunk:
                on_chunk(o.result)
        elif o.error is not None and _disk_full(o.error):
            # retrying cannot help: stop now, keep what is written, let --resume finish it
            raise DiskFullError(o.error)
        elif o.attempt == 1 or (o.lost and lost.get(key, 0) < MAX_LOST_RETRIES):
            if o.attempt > 1:
                lost[key] = lost.get(key, 0) + 1
            retry.append(o.task)
        else:
            f = _failure(o, cells[o.task.cell], o.task.master_seed)
            failures.append(f)
            plan.failed(o.task)
            bar.log(failure_line(f))
    return True


def _add_stats(tally: dict, r: dict) -> None:
    """Add a chunk's cell statistics to ``tally["stats"]`` (a summary without them, e.g. from a
    worker of another simlab build, turns the end report to reading the parts back)."""
    from ..stats.cellstats import merge
    if tally.get("stats") is None:
        return
    st = r.get("stats")
    if not isinstance(st, dict):
        tally["stats"] = None
        return
    tally["stats"][r["cell"]] = merge(tally["stats"].get(r["cell"]), st)


def _abs_file(path: str | None) -> str | None:
    """An existing file as an absolute path (workers may run elsewhere); anything else as is."""
    return os.path.abspath(path) if path is not None and os.path.isfile(path) else path


def _task(spec: SweepSpec, c: Cell, out: str, start: int, stop: int, grid_options, meta, plugin) -> ChunkTask:
    return ChunkTask(out=out, experiment=spec.name, game=spec.game, scenario=_abs_file(c.scenario),
                     data=_abs_file(spec.data),
                     cell=c.id, cell_key=c.key, params=c.params, policies=c.policies, options=c.options,
                     grid_options=grid_options, master_seed=spec.seed, start=start, stop=stop, meta=meta,
                     plugin=plugin)


PREFLIGHT_CELLS = 2000


def preflight(game, cells: list[Cell], info: dict, spec: SweepSpec, progress: bool = True) -> None:
    """Play one game of each distinct cell (at most :data:`PREFLIGHT_CELLS`) in this process.

    This is where a sweep's kernels compile (or load from numba's cache) before any worker starts,
    so workers, threads or processes, find them compiled or cached. A compile is shown on stderr
    (:class:`simlab.compile_progress.CompileProgress`: a progress line on a terminal, one line
    otherwise, nothing when every kernel is cached or ``progress`` is False), its total from the
    kernels the game says its sweeps call (:meth:`simlab.games.base.Game.sweep_kernels`) for these
    cells' options.

    Raises:
        InputError: what the game raises for a scenario and options that cannot be played together.
    """
    from ..compile_progress import CompileProgress
    from ..numba_start import start_numba
    start_numba()  # before the first kernel (game_seeds) loads: numba started cheaply (numba_start)
    game.ensure_kernels_fresh()  # stale cached kernels dropped before the compile is counted
    picked, seen = [], set()
    for c in cells[:PREFLIGHT_CELLS]:
        key = (c.scenario, json.dumps(c.options, sort_keys=True, default=str),
               json.dumps({s: p.to_json() for s, p in c.policies.items()}, sort_keys=True))
        if key not in seen:
            seen.add(key)
            picked.append(c)
    from ..rng import _game_seeds_nb
    entries: list = []
    for c in picked:
        entries.extend(k for k in game.sweep_kernels(cell_scenario(info, c), c.options) if all(k is not e for e in entries))
    if entries:  # a game that declares none: a count without a total
        entries.insert(0, _game_seeds_nb)
    with CompileProgress(game.kernels_name or game.name, entries, enabled=progress):
        for c in picked:
            game.play_batch(cell_scenario(info, c), c.options, c.policies, game_seeds(spec.seed, c.key, 0, 1))


