"""``simlab bench``: throughput of every registered kernel and game, and CLI start-up.

What is measured (each figure is the median of several runs in one process, so ratios between
figures of one run are fair even on a noisy shared machine):

* every game's ``bench_cases`` (kernel-level work: battles, shots, draws per second ...);
* every game's ``bench_scenarios``: games per second of ``play_batch`` in this process (one
  core), and of a whole sweep (Parquet written) with 1 worker and with 2 (threads, the default
  local backend), run alternately (1, 2, 1, 2 ...), and the *scaling ratio*: the median of each
  pair's 2-worker rate over its 1-worker rate, the same sweep in the same run; for
  the first scenario of each game also the sweep on 2 worker processes (``--backend processes``);
* the CPU use of those local sweeps: cores busy (process CPU time over wall time) of the 1-worker
  sweeps, which already write Parquet on a second thread, and the 2-worker sweeps' utilisation
  (process CPU time over wall time × cores), so a scaling ratio under 2 can be read as idle cores
  or as a 1-worker sweep that already kept more than one core busy;
* the *dice-floor ratio* of every game: time per game over the time to draw that many dice in
  one numpy call, the dice counted by the game's ``bench_dice`` hook (the ``dice`` column where
  the games table has one; the detail column says what each game's count covers, and when it is
  only a lower bound);
* peak memory (max resident set) of a large sweep in a fresh process, of each game that sets
  ``Game.bench_peak_memory``;
* CLI start-up: ``simlab --help`` and ``simlab games``; seconds from launching ``simlab sweep
  --games 1`` to exit with a warm numba cache and with a cold one (an empty ``NUMBA_CACHE_DIR``),
  and of a 1,000-game sweep (warm), all of the game that sets ``Game.bench_cli``.

Targets are attached by name and reported as met or missed: the framework's own (CLI start-up) in
:data:`TARGETS`, and each game's from its ``bench_targets()`` hook, so a game's targets live with the
game.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from .errors import SpecError

__all__ = ["TARGETS", "all_targets", "interleaved", "pair_ratios", "run_benchmarks", "to_markdown"]

#: name -> (comparison, value): the framework's own speed targets (games declare theirs in
#: ``Game.bench_targets``).
TARGETS: dict[str, tuple[str, float]] = {
    "cli/start-up to first battle (warm cache)": ("<=", 3.0),
    "cli/simlab --help": ("<=", 0.5),
    "cli/simlab games": ("<=", 1.0),
}
#: the target of the 1,000-game sweep of the game that sets ``Game.bench_cli`` (seconds, start to exit)
CLI_SWEEP_TARGET = ("<=", 1.5)


def _cli_sweep_name(game_name: str) -> str:
    return f"cli/1,000-game {game_name} sweep, start to exit (warm cache)"


def all_targets(games) -> dict[str, tuple[str, float]]:
    """:data:`TARGETS` plus every given game's ``bench_targets()``, keyed ``"<game>/<benchmark>"``,
    and :data:`CLI_SWEEP_TARGET` for the game that sets ``bench_cli``.

    Raises:
        SpecError: a target whose comparison is not ``>=`` or ``<=``.
    """
    out = dict(TARGETS)
    for g in games:
        if g.bench_cli:
            out[_cli_sweep_name(g.name)] = CLI_SWEEP_TARGET
        for k, (op, val) in g.bench_targets().items():
            if op not in (">=", "<="):
                raise SpecError(f"game {g.name}: bench target {k!r} has comparison {op!r} (use >= or <=)")
            out[f"{g.name}/{k}"] = (op, float(val))
    return out


def _time(fn: Callable[[], object], repeats: int) -> list[float]:
    fn()  # warm-up: compile or load from the numba cache
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


_TARGETS: dict[str, tuple[str, float]] = dict(TARGETS)  # of the run in progress (:func:`run_benchmarks`)


def _record(name: str, unit: str, values: list[float], detail: str = "") -> dict:
    med = statistics.median(values)
    rec = {"name": name, "unit": unit, "median": med, "min": min(values), "max": max(values), "n": len(values),
           "detail": detail}
    if name in _TARGETS:
        op, val = _TARGETS[name]
        rec["target"] = f"{op} {val:,g}"
        rec["met"] = bool(med >= val) if op == ">=" else bool(med <= val)
    return rec


def _rate_case(name: str, unit: str, items: int, fn, repeats: int, detail: str = "") -> dict:
    secs = _time(fn, repeats)
    rates = [items / s for s in secs]
    return _record(name, f"{unit}/s", rates, f"{items:,} {unit} per run" + (f"; {detail}" if detail else ""))


def _games_for(seconds: float, rate: float, lo: int = 200, hi: int = 2_000_000) -> int:
    return int(min(hi, max(lo, rate * seconds)))


def _scenario_benchmarks(game, scen: str, quick: bool, repeats: int, log, first: bool = False) -> list[dict]:
    from .rng import game_seeds
    from .sweeps.runner import game_min_chunk, run_sweep
    from .sweeps.spec import SweepSpec
    pack = game.load_data()
    sc = game.load_scenario(scen, pack)
    opts = game.resolve_options({})
    pols = game.resolve_policies(sc.sides, {})
    # size the runs from a probe so each lasts about a second (a few in full mode)
    probe = game_seeds(1, 0, 0, 200)
    game.play_batch(sc, opts, pols, probe)
    t = time.perf_counter()
    game.play_batch(sc, opts, pols, probe)
    rate = 200 / max(time.perf_counter() - t, 1e-6)
    n = _games_for(0.5 if quick else 2.0, rate)
    seeds = game_seeds(7, 0, 0, n)
    out = [_rate_case(f"{game.name}/{scen} play_batch 1 core", "games", n,
                      lambda: game.play_batch(sc, opts, pols, seeds), repeats)]
    log(f"  {out[-1]['name']}: {out[-1]['median']:,.0f} games/s")
    # Each sweep runs ~4 s of one core's work (the thread backend pays no worker start-up; the
    # process backend's ~2 s a worker shows in its own row), and at least two of the game's smallest
    # automatic chunks, so that two workers have something to split
    n_sweep = max(_games_for(1.5 if quick else 4.0, rate, hi=5_000_000), 2 * game_min_chunk(game))
    pairs = 1 if quick else 3

    busy: dict[int, list[float]] = {1: [], 2: []}  # cores busy (process CPU / wall) of each local sweep

    def sweep(w: int, backend: str, r: int) -> float:
        with tempfile.TemporaryDirectory() as d:
            spec = SweepSpec(name="bench", game=game.name, scenarios=[scen], games=n_sweep, seed=r)
            t, cpu = time.perf_counter(), time.process_time()
            run_sweep(spec, Path(d) / "o", workers=w, backend=backend, progress=False)
            wall = time.perf_counter() - t
            if backend == "local":  # threads of this process: its CPU time is the whole sweep's
                busy[w].append((time.process_time() - cpu) / wall)
            return n_sweep / wall

    # 1 worker and 2 threads alternately (1, 2, 1, 2 ...), so that a drift of the machine's speed
    # falls on both alike; the scaling ratio is the median of the pairs' ratios
    one, two = interleaved(pairs, lambda r: sweep(1, "local", r), lambda r: sweep(2, "local", r))
    runs = [(1, "", one, ", in this process, run alternately with the 2-worker sweep"),
            (2, "s", two, ", threads, run alternately with the 1-worker sweep")]
    if first:
        procs = [sweep(2, "processes", r) for r in range(pairs)]
        runs.append((2, " processes", procs, ", worker start-up included"))
    for w, suffix, vals, how in runs:
        out.append(_record(f"{game.name}/{scen} sweep {w} worker{suffix}", "games/s", vals,
                           f"{n_sweep:,} games, Parquet written{how}"))
        log(f"  {out[-1]['name']}: {out[-1]['median']:,.0f} games/s")
    # the scaling ratio: 2 threads over 1 worker, the same sweep in the same run
    ratios = pair_ratios(one, two)
    out.append(_record(f"{game.name}/{scen} sweep scaling (2 workers over 1)", "x", ratios,
                       f"median of {len(ratios)} per-pair ratios of the two sweeps above, run alternately "
                       f"(1 worker, 2 workers, 1, 2 ...; {n_sweep:,} games each)"))
    log(f"  {out[-1]['name']}: {out[-1]['median']:.2f}x")
    out += _cpu_use(f"{game.name}/{scen}", busy)
    log(f"  {out[-1]['name']}: {out[-1]['median']:.0f}%")
    out += _dice_floor(game, scen, sc, opts, pols, seeds, repeats)
    return out


def _cpu_use(prefix: str, busy: dict[int, list[float]], cores: int | None = None) -> list[dict]:
    """Rows of the local sweeps' CPU use: cores busy of the 1-worker sweeps, and the 2-worker
    sweeps' utilisation, process CPU time over (wall time × cores) in percent. A 1-worker sweep
    already writes Parquet on a second thread, so a scaling ratio under 2 with a 2-worker
    utilisation near 100% means the cores were busy (the 1-worker sweep used more than one), not
    idle."""
    cores = cores or os.cpu_count() or 1
    one = statistics.median(busy[1])
    return [_record(f"{prefix} sweep 1 worker CPU (cores busy)", "cores", busy[1],
                    "process CPU time over wall time of the 1-worker sweeps above (play on one thread, "
                    "Parquet written on another)"),
            _record(f"{prefix} sweep 2 workers CPU utilisation", "%", [100 * b / cores for b in busy[2]],
                    f"process CPU time over (wall time x {cores} cores) of the 2-worker sweeps above; "
                    f"the 1-worker sweeps kept {one:.2f} cores busy ({100 * one / cores:.0f}%)")]


def interleaved(pairs: int, a: Callable[[int], float], b: Callable[[int], float]) -> tuple[list[float], list[float]]:
    """Run ``a(r)`` and ``b(r)`` alternately, ``a(0), b(0), a(1), b(1) ...``, ``pairs`` times each.

    Returns:
        ``(a's values, b's values)`` in run order (pair ``r`` is ``(a[r], b[r])``).
    """
    ra: list[float] = []
    rb: list[float] = []
    for r in range(pairs):
        ra.append(a(r))
        rb.append(b(r))
    return ra, rb


def pair_ratios(a: list[float], b: list[float]) -> list[float]:
    """``b[r] / a[r]`` for each pair of :func:`interleaved` runs (rates: ``b`` over ``a``).

    Raises:
        ValueError: lists of different lengths, or a rate that is not positive.
    """
    if len(a) != len(b) or not a:
        raise ValueError(f"pair_ratios needs two equally long non-empty lists (got {len(a)} and {len(b)})")
    if min(a) <= 0 or min(b) <= 0:
        raise ValueError("pair_ratios needs positive rates")
    return [y / x for x, y in zip(a, b, strict=True)]


def _dice_floor(game, scen: str, sc, opts, pols, seeds, repeats: int) -> list[dict]:
    """The dice-floor ratio: seconds per game of ``play_batch`` (with the sweep's options) over
    seconds to draw the game's dice (their mean over the batch, :meth:`Game.bench_dice`) in one
    ``numpy.random.Generator.integers`` call. The detail column says what was counted; where the
    count is partial (a lower bound) the ratio is an upper bound, and the detail says so."""
    batch = game.play_batch(sc, opts, pols, seeds)
    name = f"{game.name}/{scen} dice-floor ratio (time per game / time to draw its dice)"
    count = game.bench_dice(sc, opts, pols, seeds, batch)
    if count.per_game is None:
        return [{"name": name, "unit": "x", "median": None, "min": None, "max": None,
                 "n": 0, "detail": f"not measured: {count.what}"}]
    n = len(seeds)
    per_game = float(np.mean(count.per_game))
    ndice = max(1, int(round(per_game * n)))
    gen = np.random.default_rng(2024)
    play = statistics.median(_time(lambda: game.play_batch(sc, opts, pols, seeds), repeats))
    draw = statistics.median(_time(lambda: gen.integers(1, 7, size=ndice, dtype=np.int64), repeats))
    bound = "" if count.complete else "; a lower bound, so the ratio is an upper bound"
    return [_record(name, "x", [play / draw], f"{per_game:.0f} dice a game, {n:,} games; counted: {count.what}{bound}")]


def _peak_memory(quick: bool, gname: str) -> list[dict]:
    """Max resident set of a fresh ``simlab sweep`` process playing a large sweep of game ``gname``
    (default workers: threads in one process, so the figure is the whole sweep's)."""
    n = 20_000 if quick else 1_000_000
    code = ("import resource, sys\nfrom simlab.cli import main\nrc = main(sys.argv[1:])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\nsys.exit(rc)")
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([sys.executable, "-c", code, "sweep", "--game", gname, "--games", str(n),
                            "--no-progress", "--out", str(Path(d) / "o")], capture_output=True, text=True,
                           check=True)
    mib = int(r.stdout.strip().splitlines()[-1]) / 1024  # Linux reports KiB
    return [_record(f"{gname}/peak memory of a large sweep", "MiB", [mib],
                    f"max resident set of `simlab sweep --game {gname} --games {n:,}` (all cores)")]


def _cli_startup(quick: bool, gname: str) -> list[dict]:
    """CLI start-up figures; the sweeps are of game ``gname`` (the one that sets ``bench_cli``)."""
    exe = [sys.executable, "-m", "simlab"]
    out = []

    def timed(args: list[str], env: dict) -> float:
        t = time.perf_counter()
        subprocess.run(exe + args, env=env, capture_output=True, check=True)
        return time.perf_counter() - t

    reps = 1 if quick else 5
    for label, args in (("simlab --help", ["--help"]), ("simlab games", ["games"])):
        vals = [timed(args, dict(os.environ)) for _ in range(reps)]
        out.append(_record(f"cli/{label}", "s", vals, f"`{label}`, process start to exit (loads no kernel)"))
    for label, cold in (("warm cache", False), ("cold cache", True)):
        vals = []
        for _ in range(1 if (quick or cold) else reps):
            with tempfile.TemporaryDirectory() as d:
                env = dict(os.environ)
                if cold:
                    env["NUMBA_CACHE_DIR"] = str(Path(d) / "numba-cache")
                vals.append(timed(["sweep", "--game", gname, "--games", "1", "--workers", "1",
                                   "--no-progress", "--out", str(Path(d) / "o")], env))
        out.append(_record(f"cli/start-up to first battle ({label})", "s", vals,
                           f"`simlab sweep --game {gname} --games 1`, process start to exit"))
    vals = []
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as d:
            vals.append(timed(["sweep", "--game", gname, "--games", "1000", "--no-progress",
                               "--out", str(Path(d) / "o")], dict(os.environ)))
    out.append(_record(_cli_sweep_name(gname), "s", vals,
                       f"`simlab sweep --game {gname} --games 1000`, process start to exit"))
    return out


def run_benchmarks(quick: bool = False, only: list[str] | None = None,
                   log: Callable[[str], None] = lambda m: None) -> dict:
    """Run every benchmark.

    Args:
        quick: one or two repeats and short runs (a smoke test of the harness).
        only: run only benchmarks whose name contains one of these strings (when each names a game,
            ``"<game>"`` or ``"<game>/..."``, only those games are even loaded).
        log: called with a line per finished figure.

    Raises:
        SpecError: an ``only`` string that matches no benchmark (nothing is run).

    Returns:
        ``{"machine": {...}, "command": str, "results": [{name, unit, median, min, max, n, detail,
        target?, met?}]}``.
    """
    from .games import BenchCase, game_names, get_game
    repeats = 2 if quick else 5
    only = list(only or [])
    names_all = game_names()
    # when every --only string names a game ("<game>", "<game>/..."), the other games' cases are
    # not even built (building one may play a probe); otherwise every game's names are matched
    def game_of(o: str) -> str | None:
        return next((g for g in names_all if o == g or o.startswith(g + "/")), None)

    named = [game_of(o) for o in only]
    gnames = [g for g in names_all if g in named] if only and None not in named else names_all

    def wanted(name: str) -> bool:
        return not only or any(o in name for o in only)

    games = [get_game(g) for g in gnames]
    _TARGETS.clear()
    _TARGETS.update(all_targets(games))
    if only:
        names = ["cli/start-up to first battle", "cli/simlab --help", "cli/simlab games", "cli/1,000-game"]
        for game in games:
            if game.bench_peak_memory:
                names.append(f"{game.name}/peak memory")
            names += [f"{game.name}/{BenchCase.of(c).name}" for c in game.bench_cases(quick=True)]
            names += [f"{game.name}/{scen}" for scen in game.bench_scenarios()]
        missing = [o for o in only if not any(o in n for n in names)]
        if missing:
            raise SpecError(f"--only {missing[0]!r} matches no benchmark (names: {', '.join(names)})")

    results: list[dict] = []
    for game in games:
        gname = game.name
        game.ensure_kernels_fresh()
        for case in map(BenchCase.of, game.bench_cases(quick=quick)):
            name = f"{gname}/{case.name}"
            if not wanted(name):
                continue
            if case.unit == "s":
                results.append(_record(name, "s", _time(case.fn, repeats), case.detail))
            else:
                results.append(_rate_case(name, case.unit, case.items, case.fn, repeats, case.detail))
            if case.ratio_to:
                # a derived figure: this case's rate over another case's of the same game
                results[-1]["ratio_to"] = f"{gname}/{case.ratio_to}"
                results[-1]["ratio_name"] = f"{gname}/{case.ratio_name or case.name + ' ratio'}"
            log(f"  {name}: {results[-1]['median']:,.4g} {results[-1]['unit']}")
        for i, scen in enumerate(game.bench_scenarios()):
            if wanted(f"{gname}/{scen}"):
                results += _scenario_benchmarks(game, scen, quick, repeats, log, first=i == 0)
        if game.bench_peak_memory and wanted(f"{gname}/peak memory"):
            results += _peak_memory(quick, gname)
            log(f"  {results[-1]['name']}: {results[-1]['median']:,.0f} MiB")
    _derived(results)
    cli_game = next((g.name for g in games if g.bench_cli), None)
    if wanted("cli/") and cli_game is not None:
        results += _cli_startup(quick, cli_game)
        for r in results[-5:]:
            log(f"  {r['name']}: {r['median']:.2f} s")
    machine = {"cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
               "numpy": np.__version__, "numba": __import__("numba").__version__,
               "date": datetime.now(UTC).isoformat(timespec="seconds")}
    cmd = "simlab bench" + (" --quick" if quick else "") + "".join(f" --only {o}" for o in only)
    return {"machine": machine, "command": cmd, "results": results}


def _derived(results: list[dict]) -> None:
    """Ratios measured in the same run (e.g. kernel vs pure Python)."""
    by = {r["name"]: r for r in results}
    for r in list(results):
        other = by.get(r.get("ratio_to", ""))
        if other is not None:
            results.append(_record(r["ratio_name"], "x", [r["median"] / other["median"]],
                                   f"{r['name']} over {other['name']} (medians above)"))


def to_markdown(res: dict) -> str:
    """BENCHMARKS.md text for :func:`run_benchmarks` output."""
    m = res["machine"]
    lines = [
        "# Benchmarks", "",
        f"Produced by `{res['command']}` (also `make bench`) on {m['date']}: {m['cores']} cores, "
        f"{m['platform']}, Python {m['python']}, numpy {m['numpy']}, numba {m['numba']}.", "",
        "Medians of repeated runs in one process (min–max beside them); the machine is shared and noisy, so "
        "compare figures of one run with each other rather than across runs. Sweep figures include writing "
        "Parquet; the 2-worker sweeps run on threads of one process, the `processes` rows on spawned worker "
        "processes (their start-up, ~2 s a worker, included); each sweep is about 4 s of one core's work.", "",
        "| benchmark | median | min – max | runs | target | met | detail |",
        "|---|---:|---:|---:|---:|:---:|---|",
    ]
    for r in res["results"]:
        fmt = ((lambda v: f"{v:,.4g}") if r["unit"] == "s" else (lambda v: f"{v:,.3f}") if r["unit"] == "x"
               else (lambda v: f"{v:,.2f}") if r["unit"] == "cores" else (lambda v: f"{v:,.0f}"))
        if r["n"] == 0:
            lines.append(f"| {r['name']} | not measured | | 0 | {r.get('target', '')} | | {r['detail']} |")
            continue
        met = "" if "met" not in r else ("yes" if r["met"] else "**no**")
        lines.append(f"| {r['name']} | {fmt(r['median'])} {r['unit']} | {fmt(r['min'])} – {fmt(r['max'])} | "
                     f"{r['n']} | {r.get('target', '')} | {met} | {r['detail']} |")
    return "\n".join(lines) + "\n"
