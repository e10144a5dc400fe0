"""The soak: many random-legal games of every registered game, with every invariant checked.

``simlab soak`` (and ``make soak``, 100,000 games per case) plays each game's soak cases
(:meth:`simlab.games.base.Game.soak_cases`: scenario and options) with its soak policies
(``Game.soak_policies``: ``random-legal`` where the game has it) in batches on worker processes,
and counts, per case:

* **crashes**: batches whose worker raised or died (each crashed batch is replayed alone, so a
  batch that only shared a pool with a crashing one is not blamed);
* **violations**: batches for which ``Game.invariant_violations`` reported something;
* **hangs**: games that stopped at a loop cap (``Game.capped``, from ``Game.cap_reasons``), plus
  batches that did not finish within the time limit (their worker is killed).

Nothing is written to disk. Games are keyed like sweep games (master seed, a key of the case,
game index), so a problem is reproduced from the seed and game range the report gives.
"""

from __future__ import annotations

import contextlib
import math
import signal
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import numpy as np

from ..errors import SpecError
from ..games import game_names, game_target, get_game
from ..games.policy import policy_names
from ..rng import cell_key, game_seeds

__all__ = ["SoakCase", "play_soak_batch", "soak", "soak_cases"]

DEFAULT_BATCH = 10_000
DEFAULT_TIMEOUT_S = 600.0


@dataclass
class SoakCase:
    """One row of the soak report."""

    game: str
    scenario: str
    options: dict
    policies: dict
    key: int
    games: int = 0
    crashes: int = 0
    violations: int = 0
    hangs: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.crashes == 0 and self.violations == 0 and self.hangs == 0

    def to_dict(self) -> dict:
        return {"game": self.game, "scenario": self.scenario, "options": self.options, "policies": self.policies,
                "games": self.games, "crashes": self.crashes, "violations": self.violations, "hangs": self.hangs,
                "seconds": round(self.seconds, 2), "problems": self.problems[:10], "ok": self.ok}


def _init_worker() -> None:  # pragma: no cover - runs in children
    from ..sweeps.chunks import die_with_parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def play_soak_batch(game: str, plugin: str | None, scenario: str, options: dict, policies: dict, seed: int,
                    key: int, start: int, stop: int) -> dict:
    """Play games ``start..stop-1`` of a soak case and check them (runs in a worker).

    Returns:
        ``{"games": n, "violations": [messages], "capped": count}``.
    """
    from ..sweeps.chunks import _game, _scenario
    g = _game(game, plugin)
    sc = _scenario(game, scenario, None, plugin)
    opts = g.resolve_options(options)
    seeds = game_seeds(seed, key, start, stop)
    batch = g.play_batch(sc, opts, policies, seeds)
    bad = g.invariant_violations(sc, batch, opts)
    capped = int(np.count_nonzero(g.capped(sc, batch, opts)))
    return {"games": stop - start, "violations": [" ".join(str(m).split()) for m in bad], "capped": capped}


def soak_cases(names: list[str] | None = None, options: dict[str, Any] | None = None) -> list[SoakCase]:
    """The cases a soak plays, with their seed keys (nothing played yet).

    A case's key depends on the game, the scenario, the policies and the case's own options, not
    on ``options`` given to every case, so those replay the same games.

    Raises:
        SpecError: an unknown game or option.
    """
    out = []
    for name in names or game_names():
        g = get_game(name)
        for scen, opts in g.soak_cases():
            merged = {**opts, **(options or {})}
            g.resolve_options(merged)
            sc = g.load_scenario(scen, g.load_data())
            pols = policy_names(g.resolve_policies(sc.sides, g.soak_policies(sc.sides)))
            key = cell_key({"soak": name, "scenario": scen, **{f"policy_{k}": v for k, v in pols.items()},
                            **{k: g.option_map()[k].parse(v) for k, v in sorted(opts.items())}})
            out.append(SoakCase(name, scen, merged, pols, key))
    return out


def _warm(game: str, plugin: str | None, scenario: str) -> int:  # pragma: no cover - runs in workers
    """Import and compile in a worker before any batch's clock starts."""
    from ..sweeps.chunks import _game, _scenario
    g = _game(game, plugin)
    sc = _scenario(game, scenario, None, plugin)
    g.play_batch(sc, g.resolve_options({}), g.resolve_policies(sc.sides, g.soak_policies(sc.sides)),
                 game_seeds(0, 0, 0, 1))
    return 1


def soak(games: int = 100_000, names: list[str] | None = None, *, options: dict[str, Any] | None = None,
         seed: int = 20261130, batch: int = DEFAULT_BATCH, workers: int | None = None,
         timeout: float = DEFAULT_TIMEOUT_S, log=None) -> list[SoakCase]:
    """Soak registered games (see the module docstring).

    Args:
        games: games per case (``>= 1``).
        names: game names (default: every registered game).
        options: option values applied to every case (e.g. ``{"max_rounds": 50}``).
        seed: master seed.
        batch: games per batch (one worker task).
        workers: worker processes (default: every core).
        timeout: seconds a batch may run before it counts as a hang and its worker is killed.
        log: called with a line of progress per finished case.

    Returns:
        One :class:`SoakCase` per game and case, in order.

    Raises:
        SpecError: an unknown game or option, or a count below 1.
    """
    if games < 1 or batch < 1:
        raise SpecError(f"--games and --batch must be at least 1 (got {games}, {batch})")
    from ..sweeps.spec import MAX_GAMES
    if games > MAX_GAMES:
        raise SpecError(f"--games must be at most {MAX_GAMES:,} (got {games})")
    if not (timeout > 0 and math.isfinite(timeout)):
        raise SpecError(f"--timeout must be a positive number of seconds (got {timeout})")
    if workers is not None and workers < 1:
        raise SpecError(f"--workers must be at least 1 (got {workers})")
    from ..sweeps.runner import default_workers
    workers = workers or default_workers()
    names = list(names) if names else game_names()
    for n in names:
        get_game(n)
    cases = soak_cases(names, dict(options or {}))
    jobs = [(ci, start, min(games, start + batch)) for ci in range(len(cases)) for start in range(0, games, batch)]
    runner = _Runner(cases, workers, timeout, seed, games)
    try:
        runner.run(jobs, log)
    finally:
        runner.close()
    return cases


class _Runner:
    """Keeps at most ``workers`` batches in flight, so each batch's clock starts when it does."""

    def __init__(self, cases: list[SoakCase], workers: int, timeout: float, seed: int, games: int):
        self.cases = cases
        self.workers = workers
        self.timeout = timeout
        self.seed = seed
        self.games = games
        self.ex: ProcessPoolExecutor | None = None
        self.size = 0

    def _pool(self, n: int) -> ProcessPoolExecutor:
        if self.ex is not None and self.size != n:
            self.close()
        if self.ex is None:
            self.ex = ProcessPoolExecutor(max_workers=n, mp_context=get_context("spawn"), initializer=_init_worker)
            self.size = n
        return self.ex

    def close(self) -> None:
        if self.ex is not None:
            procs = list((getattr(self.ex, "_processes", None) or {}).values())
            self.ex.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                with contextlib.suppress(Exception):
                    p.kill()
            self.ex = None

    def _submit(self, job, n_workers: int):
        ci, start, stop = job
        c = self.cases[ci]
        return self._pool(n_workers).submit(play_soak_batch, c.game, game_target(c.game), c.scenario, c.options,
                                            c.policies, self.seed, c.key, start, stop)

    def _record(self, job, r: dict | None, problem: str | None, kind: str | None, seconds: float) -> None:
        ci, start, stop = job
        c = self.cases[ci]
        c.seconds += seconds
        where = f"games {start}..{stop - 1} (seed {self.seed}, key {c.key})"
        if r is not None:
            c.games += r["games"]
            if r["violations"]:
                c.violations += 1
                c.problems.append(f"violation in {where}: {r['violations'][0]}")
            if r["capped"]:
                c.hangs += r["capped"]
                c.problems.append(f"{r['capped']} game(s) stopped at a loop cap in {where}")
        elif kind == "crash":
            c.crashes += 1
            c.problems.append(f"crash in {where}: {problem}")
        else:
            c.hangs += 1
            c.problems.append(f"hang: {where} did not finish within {self.timeout:g} s")

    def warm_up(self) -> str | None:
        """Start the workers and compile the kernels (limit: the larger of the timeout and 300 s).
        Returns a problem, or None."""
        from ..sweeps.isolate import one_line
        seen = set()
        fs = []
        for c in self.cases:
            if c.game in seen:
                continue
            seen.add(c.game)
            for _ in range(self.workers):
                fs.append(self._pool(self.workers).submit(_warm, c.game, game_target(c.game), c.scenario))
        done, late = wait(fs, timeout=max(self.timeout, 300.0))
        if late:
            self.close()
            return "workers did not start within the time limit"
        for f in done:
            e = f.exception()
            if e is not None:
                self.close()
                return one_line(e) if not isinstance(e, BrokenProcessPool) else "worker process died at start"
        return None

    def run(self, jobs: list, log) -> None:
        from ..sweeps.isolate import one_line
        self.warm_up()  # a game that cannot start fails again, attributed, in the batches below
        queue = list(jobs)
        queue.reverse()
        inflight: dict[Any, tuple] = {}
        suspects: list = []
        while queue or inflight or suspects:
            if suspects and not inflight:
                # replay each batch that was in flight when the pool broke, alone, to find the culprit
                job = suspects.pop()
                t0 = time.perf_counter()
                f = self._submit(job, 1)
                self._finish_alone(job, f, t0, one_line)
                self._log(job, log)
                continue
            while queue and len(inflight) < self.workers and not suspects:
                job = queue.pop()
                inflight[self._submit(job, self.workers)] = (job, time.perf_counter())
            if not inflight:
                continue
            oldest = min(t for _, t in inflight.values())
            done, _ = wait(list(inflight), timeout=max(0.05, oldest + self.timeout - time.perf_counter()),
                           return_when=FIRST_COMPLETED)
            now = time.perf_counter()
            if not done:
                # the oldest batch is over time: kill the pool, count it as a hang, replay the others
                late = [f for f, (_, t) in inflight.items() if now - t >= self.timeout]
                if not late:
                    continue
                for f in late:
                    job, t0 = inflight.pop(f)
                    self._record(job, None, None, "hang", now - t0)
                queue.extend(j for j, _ in inflight.values())
                inflight.clear()
                self.close()
                continue
            for f in done:
                job, t0 = inflight.pop(f)
                e = f.exception()
                if e is None:
                    self._record(job, f.result(), None, None, now - t0)
                    self._log(job, log)
                elif isinstance(e, BrokenProcessPool):
                    suspects.append(job)
                else:
                    self._record(job, None, one_line(e), "crash", now - t0)
            if suspects:
                for f, (job, _) in list(inflight.items()):
                    inflight.pop(f)
                    suspects.append(job)
                self.close()  # the pool is broken

    def _finish_alone(self, job, f, t0, one_line) -> None:
        try:
            r = f.result(timeout=self.timeout)
        except TimeoutError:
            self._record(job, None, None, "hang", time.perf_counter() - t0)
            self.close()
            return
        except BrokenProcessPool:
            self._record(job, None, "worker process died", "crash", time.perf_counter() - t0)
            self.close()
            return
        except Exception as e:
            self._record(job, None, one_line(e), "crash", time.perf_counter() - t0)
            return
        self._record(job, r, None, None, time.perf_counter() - t0)

    def _log(self, job, log) -> None:
        c = self.cases[job[0]]
        if log is not None and c.games == self.games:
            log(f"{c.game} {c.scenario} {c.options}: {c.games:,} games, {c.crashes} crashes, "
                f"{c.violations} violations, {c.hangs} hangs")
