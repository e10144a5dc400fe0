"""The sweep runner: spec -> cells -> chunks -> worker processes -> Parquet parts + manifest.

``run_sweep`` checks everything before it writes anything, so bad input leaves no output
directory behind. It holds an exclusive lock on the output directory while it runs, writes
``manifest.json`` first (status ``running``) and last (status ``complete``), and shows a progress
bar on stderr. ``resume=True`` plays only the chunks whose games part is missing, and refuses a
directory written by another spec, data pack or simlab version.
"""

from __future__ import annotations

import contextlib
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
from datetime import datetime, timezone
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
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


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
        spec: the experiment (:func:`simlab.sweep.spec.load_spec` or ``spec_from_args``).
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
        mine = {"fingerprint": spec.fingerprint(), "data_hash": (info["data"] or {}).get("hash"),
                "simlab_version": __version__}
        theirs = {"fingerprint": old.get("fingerprint"), "data_hash": (old.get("data") or {}).get("hash"),
                  "simlab_version": old.get("simlab_version")}
        for k in mine:
            if mine[k] != theirs[k]:
                raise SweepStateError(
                    f"cannot resume {out}: its {k.replace('_', ' ')} differs ({theirs[k]} there, {mine[k]} now); use another --out")
        if chunk_size is not None and chunk_size != old.get("chunk_size"):
            raise SweepStateError(f"cannot resume {out} with --chunk-size {chunk_size}: it was written with {old.get('chunk_size')}")
        chunk_size = old.get("chunk_size")
    if chunk_size is None:
        chunk_size = auto_chunk_size(spec.games, workers)

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
            "games_per_cell": spec.games,
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
        tasks: list[ChunkTask] = []
        skipped = 0
        for c in cells:
            for start in range(0, spec.games, chunk_size):
                stop = min(spec.games, start + chunk_size)
                if resume and games_part_path(out, c.id, start, stop).exists():
                    skipped += 1
                    continue
                tasks.append(_task(spec, c, out, start, stop, grid_options, meta))
        total = spec.games * len(cells)
        done_before = total - sum(t.stop - t.start for t in tasks)
        t0 = time.perf_counter()
        played = 0
        interrupted = False
        bar = _Progress(total, done_before, enabled=progress, label=f"{spec.name}: {len(cells)} cell(s)")
        try:
            with bar:
                if tasks:
                    _warm_up(tasks[0])
                if workers == 1 or len(tasks) <= 1:
                    for t in tasks:
                        r = play_chunk(t)
                        played += r["games"]
                        bar.advance(r["games"])
                        if on_chunk:
                            on_chunk(r)
                else:
                    played = _run_pool(tasks, workers, bar, on_chunk)
        except KeyboardInterrupt:
            interrupted = True
        seconds = time.perf_counter() - t0
        _clean_tmp(out)
        manifest["status"] = "interrupted" if interrupted else "complete"
        manifest["finished"] = _now()
        manifest["last_run"] = {"games_played": played, "seconds": round(seconds, 3), "workers": workers,
                                "chunks_skipped": skipped,
                                "games_per_second": round(played / seconds, 1) if seconds > 0 else None}
        _write_json_atomic(manifest_path, manifest)
    return SweepResult(out, manifest, played, seconds, interrupted, skipped)


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


def _run_pool(tasks: list[ChunkTask], workers: int, bar, on_chunk) -> int:
    played = 0
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_init_worker)
    try:
        pending = set()
        it = iter(tasks)
        # keep at most 2 chunks per worker queued, so memory stays flat for any number of chunks
        for t in it:
            pending.add(ex.submit(play_chunk, t))
            if len(pending) >= 2 * workers:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                r = f.result()
                played += r["games"]
                bar.advance(r["games"])
                if on_chunk:
                    on_chunk(r)
                nxt = next(it, None)
                if nxt is not None:
                    pending.add(ex.submit(play_chunk, nxt))
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        for p in list(getattr(ex, "_processes", {}).values()):
            with contextlib.suppress(Exception):
                p.terminate()
        raise
    ex.shutdown(wait=True)
    return played


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
