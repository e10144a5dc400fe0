"""The sweep runner: spec -> cells -> chunks -> worker processes -> Parquet parts + manifest.

``run_sweep`` checks everything before it writes anything, so bad input leaves no output
directory behind. It holds an exclusive lock on the output directory while it runs, writes
``manifest.json`` first (status ``running``) and last (status ``complete``), and shows a progress
bar on stderr. ``resume=True`` plays only the chunks whose games part is missing, and refuses a
directory written by another spec, data pack or simlab version.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import math
import os
import platform
import shutil
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path

import numba
import numpy as np

from .._version import __version__, git_commit
from ..errors import SweepStateError
from ..rng import game_seeds
from .chunks import ChunkTask, games_part_path, play_chunk
from .spec import Cell, SweepSpec, expand

__all__ = ["SweepResult", "default_workers", "run_sweep"]

MANIFEST = "manifest.json"


def default_workers() -> int:
    """Cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def auto_chunk_size(games: int, workers: int) -> int:
    """Games per chunk when none is given: about four chunks per worker per cell, 1,000 to 50,000."""
    return int(min(50_000, max(1_000, math.ceil(games / (4 * max(1, workers))))))


@dataclass
class SweepResult:
    """What a finished (or interrupted) sweep left behind.

    Attributes:
        path: the output directory.
        manifest: the manifest as written.
        games_played: games played by this call (resumed chunks excluded).
        seconds: wall time of the playing.
        interrupted: True if Ctrl-C stopped it.
    """

    path: Path
    manifest: dict
    games_played: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    chunks_skipped: int = 0
    extra: dict = field(default_factory=dict)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _write_json_atomic(path: Path, obj: dict) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(obj, indent=2, default=str) + "\n")
    os.replace(tmp, path)


def _clean_tmp(out: Path) -> None:
    for sub in ("games", "events"):
        d = out / sub
        if d.exists():
            for p in d.rglob(".*.tmp-*"):
                with contextlib.suppress(OSError):
                    p.unlink()


def _init_worker() -> None:  # pragma: no cover - runs in children
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Lock:
    def __init__(self, out: Path):
        self.path = out / ".lock"
        self.fh = None

    def __enter__(self):
        self.fh = open(self.path, "a+")
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.fh.close()
            raise SweepStateError(f"another sweep is writing to {self.path.parent}; wait for it or use another --out") from None
        self.fh.seek(0)
        self.fh.truncate()
        self.fh.write(f"{os.getpid()}\n")
        self.fh.flush()
        return self

    def __exit__(self, *exc):
        with contextlib.suppress(OSError):
            fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


def _default_out(spec: SweepSpec) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{spec.name}-{stamp}"


def run_sweep(spec: SweepSpec, out: str | Path | None = None, *, workers: int | None = None,
              resume: bool = False, overwrite: bool = False, progress: bool = True,
              on_chunk: Callable[[dict], None] | None = None) -> SweepResult:
    """Play every game of a spec and write it under ``out``.

    Args:
        spec: the experiment (:func:`simlab.sweeps.spec.load_spec` or ``spec_from_args``).
        out: output directory; default ``results/<name>-<timestamp>``.
        workers: worker processes (default: every core this process may use); 1 plays in-process.
        resume: continue the sweep already in ``out`` (same spec), playing only missing chunks.
        overwrite: replace a previous sweep in ``out`` (only a directory with a manifest).
        progress: show a progress bar on stderr.
        on_chunk: called in this process with each finished chunk's summary.

    Returns:
        A :class:`SweepResult`.

    Raises:
        SpecError, ScenarioError, DataPackError: bad input (nothing written).
        SweepStateError: ``out`` holds something else, is locked by another sweep, or ``resume``
            finds a different spec, data pack or simlab version.
    """
    if workers is not None and workers < 1:
        from ..errors import SpecError
        raise SpecError(f"--workers must be at least 1 (got {workers})")
    workers = workers or default_workers()
    game, cells, info = expand(spec)
    out = Path(out) if out is not None else _default_out(spec)
    manifest_path = out / MANIFEST
    old = None
    if out.exists() and not out.is_dir():
        raise SweepStateError(f"{out} exists and is not a directory")
    if out.exists() and any(out.iterdir()):
        if manifest_path.exists():
            try:
                old = json.loads(manifest_path.read_text())
            except (OSError, json.JSONDecodeError):
                raise SweepStateError(f"{manifest_path} is unreadable; cannot resume or overwrite it") from None
        if resume:
            if old is None:
                raise SweepStateError(f"{out} holds no sweep to resume (no {MANIFEST})")
        elif overwrite:
            if old is None:
                raise SweepStateError(f"refusing to overwrite {out}: it is not a simlab sweep directory")
        else:
            raise SweepStateError(f"{out} already holds a sweep: pass --resume to continue it, --overwrite to replace it, or choose another --out")
    chunk_size = spec.chunk_size
    if resume and old is not None:
        if chunk_size is not None and chunk_size != old.get("chunk_size"):
            raise SweepStateError(f"cannot resume {out} with --chunk-size {chunk_size}: it was written with {old.get('chunk_size')}")
        chunk_size = old.get("chunk_size")
    if chunk_size is None:
        # under a precision target the rows depend on the chunk size, so it must not depend on workers
        chunk_size = PRECISION_CHUNK if spec.precision is not None else auto_chunk_size(spec.games, workers)
    spec = dataclasses.replace(spec, chunk_size=chunk_size)
    if resume and old is not None:
        mine = {"fingerprint": spec.fingerprint(), "data_hash": (info["data"] or {}).get("hash"),
                "simlab_version": __version__}
        theirs = {"fingerprint": old.get("fingerprint"), "data_hash": (old.get("data") or {}).get("hash"),
                  "simlab_version": old.get("simlab_version")}
        for k in mine:
            if mine[k] != theirs[k]:
                what = {"fingerprint": "experiment spec", "data_hash": "data pack hash",
                        "simlab_version": "simlab version"}[k]
                raise SweepStateError(
                    f"cannot resume {out}: its {what} differs ({theirs[k]} there, {mine[k]} now); use another --out")

    out.mkdir(parents=True, exist_ok=True)
    with _Lock(out):
        if overwrite and old is not None and not resume:
            for sub in ("games", "events"):
                shutil.rmtree(out / sub, ignore_errors=True)
        _clean_tmp(out)
        grid_options = tuple(k for k in spec.grid)
        sides = info["sides"]
        manifest = {
            "format": "simlab-sweep/1",
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
                       "policies": c.policies, "options": c.options} for c in cells],
            "scenarios": {k: {"name": v.name, "source": v.source, "title": v.title, "sides": list(v.sides)}
                          for k, v in info["scenarios"].items()},
            "data": info["data"],
            "simlab_version": __version__,
            "git_commit": git_commit(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "started": (old or {}).get("started", _now()),
            "status": "running",
        }
        _write_json_atomic(manifest_path, manifest)
        meta = {"simlab_version": __version__, "data_hash": (info["data"] or {}).get("hash"),
                "crn": spec.crn, "fingerprint": manifest["fingerprint"]}

        def make(c: Cell, start: int, stop: int) -> ChunkTask:
            return _task(spec, c, out, start, stop, grid_options, meta)

        if spec.precision is None:
            plan: _Plan = _FixedPlan(cells, spec.games, chunk_size, make, out, resume)
        else:
            plan = _PrecisionPlan(cells, spec, chunk_size, make, out, resume, sides, ahead=max(2, workers))
        t0 = time.perf_counter()
        played = 0
        interrupted = False
        bar = _Progress(plan.total, plan.done_before, enabled=progress,
                        label=f"{spec.name}: {len(cells)} cell(s)")
        try:
            with bar:
                first = plan.peek()
                if first is not None:
                    _warm_up(first)
                played = _execute(plan, workers, bar, on_chunk)
        except KeyboardInterrupt:
            interrupted = True
        seconds = time.perf_counter() - t0
        plan.discard_extra()
        _clean_tmp(out)
        manifest["status"] = "interrupted" if interrupted else "complete"
        manifest["finished"] = _now()
        manifest["games_written"] = plan.games_written()
        manifest["last_run"] = {"games_played": played, "seconds": round(seconds, 3), "workers": workers,
                                "chunks_skipped": plan.skipped,
                                "games_per_second": round(played / seconds, 1) if seconds > 0 else None}
        _write_json_atomic(manifest_path, manifest)
    return SweepResult(out, manifest, played, seconds, interrupted, plan.skipped)


PRECISION_CHUNK = 2000
DEFAULT_MAX_GAMES = 1_000_000


class _Plan:
    """Which chunks to play. ``next()`` gives a task to start (or None for now); ``done(r)`` takes a
    finished chunk's summary; ``finished()`` says when nothing is left."""

    total: int | None
    done_before: int
    skipped: int

    def peek(self) -> ChunkTask | None:
        raise NotImplementedError

    def next(self) -> ChunkTask | None:
        raise NotImplementedError

    def done(self, r: dict) -> None:
        raise NotImplementedError

    def finished(self) -> bool:
        raise NotImplementedError

    def discard_extra(self) -> None:
        """Delete the parts of chunks played beyond where the plan stopped (precision only)."""

    def games_written(self) -> dict[str, int]:
        raise NotImplementedError


class _FixedPlan(_Plan):
    """Every chunk of every cell: ``games`` per cell."""

    def __init__(self, cells, games, chunk, make, out, resume):
        self.tasks = []
        self.skipped = 0
        self.per_cell = {c.id: games for c in cells}
        for c in cells:
            for start in range(0, games, chunk):
                stop = min(games, start + chunk)
                if resume and games_part_path(out, c.id, start, stop).exists():
                    self.skipped += 1
                    continue
                self.tasks.append(make(c, start, stop))
        self.total = games * len(cells)
        self.done_before = self.total - sum(t.stop - t.start for t in self.tasks)
        self.i = 0
        self.outstanding = 0

    def peek(self):
        return self.tasks[0] if self.tasks else None

    def next(self):
        if self.i >= len(self.tasks):
            return None
        self.i += 1
        self.outstanding += 1
        return self.tasks[self.i - 1]

    def done(self, r):
        self.outstanding -= 1

    def finished(self):
        return self.i >= len(self.tasks) and self.outstanding == 0

    def games_written(self):
        return {str(k): v for k, v in self.per_cell.items()}


class _PrecisionPlan(_Plan):
    """Chunks of each cell in index order until the cell's win rates are precise enough.

    The stopping rule is evaluated on chunks 0..k in index order, whatever order they finish in,
    so the rows written depend only on the seed, the spec and the chunk size — not on the number
    of workers. Chunks started beyond the stopping point are deleted at the end.
    """

    def __init__(self, cells, spec: SweepSpec, chunk, make, out, resume, sides, ahead):
        self.cells = {c.id: c for c in cells}
        self.make = make
        self.out = out
        self.chunk = chunk
        self.h = spec.precision
        self.min_games = spec.games
        self.max_games = spec.max_games or DEFAULT_MAX_GAMES
        self.sides = list(sides)
        self.ahead = ahead
        self.results: dict[int, dict[int, dict]] = {c.id: {} for c in cells}
        self.next_start = {c.id: 0 for c in cells}
        self.stop_at: dict[int, int | None] = {c.id: None for c in cells}
        self.inflight = {c.id: 0 for c in cells}
        self.skipped = 0
        self.total = None
        done_before = 0
        if resume:
            for c in cells:
                start = 0
                while start < self.max_games:
                    stop = min(self.max_games, start + chunk)
                    p = games_part_path(out, c.id, start, stop)
                    if not p.exists():
                        break
                    self.results[c.id][start] = {"games": stop - start, "wins": _wins_in_part(p, self.sides)}
                    self.skipped += 1
                    done_before += stop - start
                    start = stop
                self.next_start[c.id] = start
                self._decide(c.id)
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
            if n >= self.min_games:
                hw = max(float(wilson_half_width(wins[s], n)) for s in self.sides)
                if hw <= self.h or n >= self.max_games:
                    self.stop_at[cid] = n
                    return
            if n >= self.max_games:
                self.stop_at[cid] = n
                return

    def _candidates(self):
        ids = list(self.cells)
        k = len(ids)
        for j in range(k):
            cid = ids[(self.rr + j) % k]
            if self.stop_at[cid] is None and self.next_start[cid] < self.max_games and self.inflight[cid] < self.ahead:
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
            self.next_start[cid] = e
            self.inflight[cid] += 1
            self.rr += 1
            return self.make(self.cells[cid], s, e)
        return None

    def done(self, r):
        cid = r["cell"]
        self.inflight[cid] -= 1
        self.results[cid][r["start"]] = {"games": r["games"], "wins": r["wins"]}
        self._decide(cid)

    def finished(self):
        return all(v == 0 for v in self.inflight.values()) and next(self._candidates(), None) is None

    def discard_extra(self):
        for cid, res in self.results.items():
            limit = self.stop_at[cid]
            if limit is None:
                continue
            for start, r in list(res.items()):
                if start >= limit:
                    p = games_part_path(self.out, cid, start, start + r["games"])
                    with contextlib.suppress(OSError):
                        p.unlink()
                    for ev in (self.out / "events").glob(f"*/cell={cid}/{p.name}"):
                        with contextlib.suppress(OSError):
                            ev.unlink()
                    del res[start]

    def games_written(self):
        return {str(cid): sum(r["games"] for r in res.values()) for cid, res in self.results.items()}


def _wins_in_part(path: Path, sides) -> dict[str, int]:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    w = pq.read_table(path, columns=["winner"])["winner"]
    counts = {d["values"]: d["counts"] for d in pc.value_counts(w).to_pylist()}
    return {s: int(counts.get(s, 0)) for s in sides}


def _execute(plan: _Plan, workers: int, bar, on_chunk) -> int:
    """Run a plan in this process (workers == 1) or on a process pool; returns games played."""
    played = 0
    if workers == 1:
        while not plan.finished():
            t = plan.next()
            if t is None:  # pragma: no cover - a plan with nothing in flight always has a next task
                break
            r = play_chunk(t)
            plan.done(r)
            played += r["games"]
            bar.advance(r["games"])
            if on_chunk:
                on_chunk(r)
        return played
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_init_worker)
    try:
        pending = set()
        while True:
            # keep at most 2 chunks per worker queued, so memory stays flat for any number of chunks
            while len(pending) < 2 * workers:
                t = plan.next()
                if t is None:
                    break
                pending.add(ex.submit(play_chunk, t))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                r = f.result()
                plan.done(r)
                played += r["games"]
                bar.advance(r["games"])
                if on_chunk:
                    on_chunk(r)
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        for p in list(getattr(ex, "_processes", {}).values()):
            with contextlib.suppress(Exception):
                p.terminate()
        raise
    ex.shutdown(wait=True)
    return played


def _task(spec: SweepSpec, c: Cell, out: Path, start: int, stop: int, grid_options, meta) -> ChunkTask:
    return ChunkTask(out=str(out), experiment=spec.name, game=spec.game, scenario=c.scenario, data=spec.data,
                     cell=c.id, cell_key=c.key, params=c.params, policies=c.policies, options=c.options,
                     grid_options=grid_options, master_seed=spec.seed, start=start, stop=stop, meta=meta)


def _warm_up(task: ChunkTask) -> None:
    """Compile (or load from the numba cache) in this process before workers start."""
    from ..games import get_game
    from .chunks import _scenario
    game = get_game(task.game)
    sc = _scenario(task.game, task.scenario, task.data)
    game.play_batch(sc, task.options, task.policies, game_seeds(task.master_seed, task.cell_key, 0, 2))


class _Progress:
    """A rich progress bar on stderr: games done, games/s, elapsed and ETA."""

    def __init__(self, total: int, done: int, enabled: bool, label: str):
        self.enabled = enabled
        self.total = total
        self.done = done
        self.label = label
        self.p = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            self.p = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("games"), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                TextColumn("ETA"), TimeRemainingColumn(),
                console=Console(stderr=True), transient=False, refresh_per_second=8,
            )
            self.p.__enter__()
            self.task = self.p.add_task(self.label, total=self.total, completed=self.done, rate="")
            self.t0 = time.perf_counter()
            self.n = 0
        return self

    def advance(self, n: int) -> None:
        if self.p is not None:
            self.n += n
            dt = time.perf_counter() - self.t0
            rate = f"{self.n / dt:,.0f} games/s" if dt > 0 else ""
            self.p.update(self.task, advance=n, rate=rate)

    def __exit__(self, *exc):
        if self.p is not None:
            self.p.__exit__(*exc)
        return False


def load_manifest(path: str | Path) -> dict:
    """The manifest of a sweep directory.

    Raises:
        SweepStateError: if ``path`` holds no readable manifest.
    """
    p = Path(path) / MANIFEST
    try:
        return json.loads(p.read_text())
    except FileNotFoundError:
        raise SweepStateError(f"{path} is not a sweep directory (no {MANIFEST})") from None
    except (OSError, json.JSONDecodeError) as e:
        raise SweepStateError(f"{p}: unreadable manifest ({e})") from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use `simlab sweep`")
