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
import sys
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

from .._version import __version__, git_commit
from ..errors import SpecError, SweepStateError, SweepStopped
from ..games import game_target
from ..games.policy import policy_names, split_knob_name
from ..rng import game_seeds
from .backends import (
    Backend,
    Kept,
    WorkersLost,
    check_backend,
    current_backend,
    default_workers,
    make_backend,
)
from .chunks import ChunkTask, cell_dir, games_part_rel, part_name
from .extend import check_extension, extents_for, grown, renumber
from .manifest import MANIFEST, load_manifest, sweep_schema, sweep_status
from .progress import Progress as _Progress
from .spec import Cell, SweepSpec, check_name, expand
from .store import Store
from .verify import SWEEP_FORMAT, cell_chunks, check_parts, migrate_layout, part_range, quarantine

__all__ = ["PREFLIGHT_CELLS", "SweepResult", "default_workers", "load_manifest", "preflight", "run_sweep"]

def auto_chunk_size(games: int, workers: int) -> int:
    """Games per chunk when none is given: about four chunks per worker per cell, 1,000 to 50,000."""
    return int(min(50_000, max(1_000, math.ceil(games / (4 * max(1, workers))))))


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
    import multiprocessing
    if getattr(multiprocessing.current_process(), "_inheriting", False):
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
            in this process.
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
    game, cells, info = expand(spec)
    # typed option values, so that `--set n=3` and `n = 3` in a file are the same spec
    spec = dataclasses.replace(spec, options=info["options"], grid=info["grid"])
    scenario_hash = _scenario_hash(info["scenarios"])
    store, shown = _open_out(out if out is not None else _default_out(spec))
    old = None
    if store.exists() and not store.is_dir():
        raise SweepStateError(f"{store.display} exists and is not a directory")
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
        chunk_size = PRECISION_CHUNK if spec.precision is not None else auto_chunk_size(spec.games, workers)
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
        # the ids the sweep gave its cells (an extension's new cells come after them)
        cells = renumber(cells, old)
    grow = None
    if resume and old is not None:
        grow = {"extents": extents_for(cells, old, spec.games, extending),
                **(grown(old, spec, cells, _now()) if extending else
                   {k: old[k] for k in ("lineage", "extensions") if k in old})}

    # play one game of each cell here first: an error that only a scenario together with its options
    # reveals (e.g. a points budget too small for a legal squadron) is bad input, reported before
    # anything is written; it also compiles the kernels before workers start
    preflight(game, cells, info, spec)
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
    grid_options = tuple(k for k in spec.grid if split_knob_name(k) is None)  # knob axes: knob_* columns
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
        "cells": [{"cell": c.id, "seed_key": c.key, "params": c.params, "scenario": c.scenario,
                   "policies": policy_names(c.policies), "policy_families": {s: p.family for s, p in c.policies.items()},
                   "knobs": {s: p.as_dict() for s, p in c.policies.items()}, "options": c.options,
                   **({"extents": extents[c.id]} if extents else {})} for c in cells],
        "scenarios": {k: {"name": v.name, "source": v.source, "title": v.title, "sides": list(v.sides)}
                      for k, v in info["scenarios"].items()},
        "data": info["data"],
        "scenario_hash": info["scenario_hash"],
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
    store.write_json(MANIFEST, manifest)
    files = sorted({f for f in [_abs_file(spec.data)] + [_abs_file(c.scenario) for c in cells]
                    if f is not None and os.path.isfile(f)})
    ex.check_visible(store.url, manifest["run_id"], files)
    meta = {"simlab_version": __version__, "data_hash": (info["data"] or {}).get("hash"),
            "crn": spec.crn, "fingerprint": manifest["fingerprint"]}
    plugin = game_target(spec.game)

    def make(c: Cell, start: int, stop: int) -> ChunkTask:
        return _task(spec, c, store.url, start, stop, grid_options, meta, plugin)

    quarantined: list[dict] = []
    if resume:
        migrate_layout(store)
        # a part that does not belong (another sweep's, a copy, truncated...) is moved aside and its
        # chunk played again, so the resumed sweep ends with exactly an uninterrupted one's rows
        _, problems = check_parts(store, old)
        for prob, dest in zip(problems, quarantine(store, problems), strict=True):
            quarantined.append({"part": prob.rel, "reason": prob.reason, "moved_to": dest})
    written = _written_parts(store) if resume else set()
    if spec.precision is None:
        plan: _Plan = _FixedPlan(cells, spec.games, chunk_size, make, written, extents)
    else:
        plan = _PrecisionPlan(cells, spec, chunk_size, make, store, written, sides, ahead=max(2, ex.workers))
    t0 = time.perf_counter()
    tally = {"games": 0}
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
    if disk_full is not None:
        manifest["stopped_by"] = f"disk full: {disk_full}"
    if lost_workers is not None:
        manifest["stopped_by"] = lost_workers
    manifest["last_run"] = {"games_played": played, "seconds": round(seconds, 3), **ex.describe(),
                            "quarantined": len(quarantined),
                            "chunks_skipped": plan.skipped, "chunks_failed": len(failures),
                            "games_per_second": round(played / seconds, 1) if seconds > 0 else None}
    try:
        store.write_json(MANIFEST, manifest)
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
    return SweepResult(shown, manifest, played, seconds, interrupted, plan.skipped, failures, quarantined)


def _disk_error_tail(error: str) -> str:
    for m in _DISK_FULL[1::2]:
        if m in error:
            return m
    return error[:120]


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


def _parse_part(rel: str) -> tuple[int, int, int] | None:
    """``(cell, start, stop)`` of a games part's relative path (see :func:`~simlab.sweeps.verify.part_range`)."""
    where = part_range(rel)
    return where[1:] if where is not None and where[0] == "games" else None


PRECISION_CHUNK = 2000
DEFAULT_MAX_GAMES = 1_000_000
#: chunks in one sweep at most (each is a task and a Parquet part)
MAX_CHUNKS = 10_000_000


class _Plan:
    """Which chunks to play. ``next()`` gives a task to start (or None for now); ``done(r)`` takes a
    finished chunk's summary, ``failed(task)`` a chunk given up on; ``finished()`` says when
    nothing is left."""

    total: int | None
    done_before: int
    skipped: int

    def peek(self) -> ChunkTask | None:
        raise NotImplementedError

    def next(self) -> ChunkTask | None:
        raise NotImplementedError

    def done(self, r: dict) -> None:
        raise NotImplementedError

    def failed(self, task: ChunkTask) -> None:
        raise NotImplementedError

    def finished(self) -> bool:
        raise NotImplementedError

    def discard_extra(self) -> None:
        """Delete the parts of chunks played beyond where the plan stopped (precision only)."""

    def games_written(self) -> dict[str, int]:
        raise NotImplementedError


class _FixedPlan(_Plan):
    """Every chunk of every cell: ``games`` per cell (chunks already ``written`` are skipped).

    ``extents`` (an extended sweep's, :func:`simlab.sweeps.verify.cell_extents`) chunk each cell
    segment by segment. Tasks are made as they are needed, so memory does not grow with the number
    of chunks.
    """

    def __init__(self, cells, games, chunk, make, written: set, extents: dict[int, list[int]] | None = None):
        self.skipped = 0
        self.per_cell = {c.id: 0 for c in cells}

        def chunks(c):
            if extents is None:
                return ((start, min(games, start + chunk)) for start in range(0, games, chunk))
            return iter(cell_chunks(extents[c.id], chunk))

        for c in cells:
            for a, b in chunks(c):
                if (c.id, a, b) in written:
                    self.skipped += 1
                    self.per_cell[c.id] += b - a
        self.total = games * len(cells)
        self.done_before = sum(self.per_cell.values())
        self._gen = ((c, a, b) for c in cells for a, b in chunks(c) if (c.id, a, b) not in written)
        self._ahead = None
        self._advance()
        self.make = make
        self.outstanding = 0

    def _advance(self) -> None:
        self._ahead = next(self._gen, None)

    def peek(self):
        return None if self._ahead is None else self.make(*self._ahead)

    def next(self):
        if self._ahead is None:
            return None
        t = self.make(*self._ahead)
        self._advance()
        self.outstanding += 1
        return t

    def done(self, r):
        self.outstanding -= 1
        self.per_cell[r["cell"]] += r["games"]

    def failed(self, task):
        self.outstanding -= 1

    def finished(self):
        return self._ahead is None and self.outstanding == 0

    def games_written(self):
        return {str(k): v for k, v in self.per_cell.items()}


class _PrecisionPlan(_Plan):
    """Chunks of each cell in index order until the cell's win rates are precise enough.

    The stopping rule is evaluated on chunks 0..k in index order, whatever order they finish in,
    so the rows written depend only on the seed, the spec and the chunk size — not on the number
    of workers, nor on where an earlier run was killed. Parts beyond the stopping point (started
    ahead, or left by a killed run) are deleted at the end. A cell with a failed chunk stops
    there: its stopping point cannot be known until that chunk is played (``--resume``).
    """

    def __init__(self, cells, spec: SweepSpec, chunk, make, store: Store, written: set, sides, ahead):
        self.cells = {c.id: c for c in cells}
        self.make = make
        self.store = store
        self.chunk = chunk
        self.h = spec.precision
        self.min_games = spec.games
        self.max_games = spec.max_games or DEFAULT_MAX_GAMES
        self.sides = list(sides)
        self.ahead = ahead
        self.results: dict[int, dict[int, dict]] = {c.id: {} for c in cells}
        self.next_start = {c.id: 0 for c in cells}
        self.stop_at: dict[int, int | None] = {c.id: None for c in cells}
        self.half_width: dict[int, float] = {}
        self.inflight = {c.id: 0 for c in cells}
        self.blocked: set[int] = set()
        self.skipped = 0
        self.total = None
        done_before = 0
        for (cid, a, b) in sorted(written):
            # every part of the current chunking counts, also one beyond a gap left by a killed run
            if cid in self.cells and a % chunk == 0 and b == min(self.max_games, a + chunk):
                wins = _wins_in_part(store, games_part_rel(cid, a, b), self.sides)
                self.results[cid][a] = {"games": b - a, "wins": wins}
                self.skipped += 1
                done_before += b - a
        for c in cells:
            self._decide(c.id)
            self.next_start[c.id] = self._free(c.id, 0)
        self.done_before = done_before
        self.rr = 0

    def _decide(self, cid: int) -> None:
        from ..stats.intervals import wilson_half_width
        if self.stop_at[cid] is not None:
            return
        n = 0
        wins = dict.fromkeys(self.sides, 0)
        start = 0
        res = self.results[cid]
        while start in res:
            r = res[start]
            n += r["games"]
            for s in self.sides:
                wins[s] += r["wins"][s]
            start += r["games"]
            if n >= self.min_games or n >= self.max_games:
                hw = max(float(wilson_half_width(wins[s], n)) for s in self.sides)
                if hw <= self.h or n >= self.max_games:
                    self.stop_at[cid] = n
                    self.half_width[cid] = hw
                    return

    def precision_reached(self) -> dict[str, dict]:
        """Per cell (keyed by its id as a string): games played, the widest Wilson half-width of the
        side win rates reached, and whether it met the target (cells stopped by ``max_games`` did not)."""
        return {str(cid): {"games": self.stop_at[cid], "half_width": round(hw, 6), "reached": hw <= self.h}
                for cid, hw in sorted(self.half_width.items())}

    def _free(self, cid: int, start: int) -> int:
        """The first chunk start at or after ``start`` not yet played."""
        while start in self.results[cid]:
            start += self.results[cid][start]["games"]
        return start

    def _candidates(self):
        ids = list(self.cells)
        k = len(ids)
        for j in range(k):
            cid = ids[(self.rr + j) % k]
            if (self.stop_at[cid] is None and cid not in self.blocked and self.next_start[cid] < self.max_games
                    and self.inflight[cid] < self.ahead):
                yield cid

    def peek(self):
        for cid in self._candidates():
            s = self.next_start[cid]
            return self.make(self.cells[cid], s, min(self.max_games, s + self.chunk))
        return None

    def next(self):
        for cid in self._candidates():
            s = self.next_start[cid]
            e = min(self.max_games, s + self.chunk)
            self.next_start[cid] = self._free(cid, e)
            self.inflight[cid] += 1
            self.rr += 1
            return self.make(self.cells[cid], s, e)
        return None

    def done(self, r):
        cid = r["cell"]
        self.inflight[cid] -= 1
        self.results[cid][r["start"]] = {"games": r["games"], "wins": r["wins"]}
        self._decide(cid)

    def failed(self, task):
        self.inflight[task.cell] -= 1
        self.blocked.add(task.cell)

    def finished(self):
        return all(v == 0 for v in self.inflight.values()) and next(self._candidates(), None) is None

    def discard_extra(self):
        events = None
        for cid, limit in self.stop_at.items():
            if limit is None:
                continue
            for rel in self.store.find(f"games/{cell_dir(cid)}"):
                parsed = _parse_part(rel)
                if parsed is None or parsed[1] < limit:
                    continue
                self.store.remove(rel)
                events = self.store.find("events") if events is None else events
                for ev in events:
                    if ev.endswith(f"/{cell_dir(cid)}/{part_name(parsed[1], parsed[2])}"):
                        self.store.remove(ev)
                self.results[cid].pop(parsed[1], None)

    def games_written(self):
        return {str(cid): sum(r["games"] for r in res.values()) for cid, res in self.results.items()}


def _wins_in_part(store: Store, rel: str, sides) -> dict[str, int]:
    import pyarrow.compute as pc
    w = store.read_parquet(rel, columns=["winner"])["winner"]
    counts = {d["values"]: d["counts"] for d in pc.value_counts(w).to_pylist()}
    return {s: int(counts.get(s, 0)) for s in sides}


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


def _execute(plan: _Plan, ex: Backend, bar, on_chunk, failures: list, cells: dict, tally: dict) -> None:
    """Run a plan on a backend, counting the games of written chunks in ``tally["games"]`` (kept
    when Ctrl-C interrupts). A failed first attempt is retried once (before new chunks start); a
    failed retry is appended to ``failures``. A retry lost with a worker that another chunk killed
    is resubmitted (at most ``MAX_LOST_RETRIES`` times)."""
    retry: deque[ChunkTask] = deque()
    lost: dict[tuple[int, int], int] = {}
    while True:
        while ex.pending() < ex.slots:
            if retry:
                ex.submit(retry.popleft(), 2)
                continue
            t = plan.next()
            if t is None:
                break
            ex.submit(t, 1)
        if ex.pending() == 0:
            break
        for o in ex.wait():
            key = (o.task.cell, o.task.start)
            if o.result is not None:
                plan.done(o.result)
                tally["games"] += o.result["games"]
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


def preflight(game, cells: list[Cell], info: dict, spec: SweepSpec) -> None:
    """Play one game of each distinct cell (at most :data:`PREFLIGHT_CELLS`) in this process.

    Raises:
        InputError: what the game raises for a scenario and options that cannot be played together.
    """
    seen = set()
    for c in cells[:PREFLIGHT_CELLS]:
        key = (c.scenario, json.dumps(c.options, sort_keys=True, default=str),
               json.dumps({s: p.to_json() for s, p in c.policies.items()}, sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        game.play_batch(info["scenarios"][c.scenario], c.options, c.policies, game_seeds(spec.seed, c.key, 0, 1))

