"""The ``simlab`` command line: a thin typer shell over the library functions.

Every command calls one public function (``simlab.sweep``, ``simlab.report``, ``simlab.odds``,
...). Bad input of any kind prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Annotated

import click
import typer
from rich.table import Table

from ..errors import InputError, SweepStopped
from .render import (  # noqa: F401  (render_report, render_balance: public, re-exported)
    _pct,
    _print_json,
    _print_odds,
    _print_policy_tables,
    _print_report,
    _print_table,
    err_console,
    out_console,
    print_compare,
    print_equilibrium,
    print_matrices,
    print_meta,
    print_tune,
    render_balance,
    render_columns,
    render_report,
    report_title,
)
from .strict import click_errors as _click_errors
from .strict import quiet_closed_stdout, refuse_repeated_options


def _flags_render_as_flags() -> None:
    """Typer >= 0.24 prints a type column for every option, ``<bool>`` beside flags and
    ``<list[str]>`` beside repeatable options; show flags bare and a repeatable option as its
    element type followed by ``...`` (click's convention)."""
    try:
        from typer.core import TyperOption
    except ImportError:  # pragma: no cover
        return
    orig = getattr(TyperOption, "display_type_rich", None)
    if orig is None or getattr(orig, "_simlab", False):
        return

    def display_type_rich(self, ctx):
        if getattr(self, "is_flag", False) or getattr(self, "count", False):
            return None
        shown = orig(self, ctx)
        if isinstance(shown, str) and shown.startswith("<list[") and shown.endswith("]>"):
            return f"<{shown[6:-2]}>..."
        return shown

    display_type_rich._simlab = True
    TyperOption.display_type_rich = display_type_rich


_flags_render_as_flags()


def _version_callback(value: bool) -> None:
    if value:
        from .._version import __version__
        print(f"simlab {__version__}")
        raise typer.Exit(0)


app = typer.Typer(add_completion=True, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="simlab: Monte Carlo balance toolkit for Dawn of Empire, Dreadnought and Mar Rojo.")


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version_callback, is_eager=True,
                                                help="print simlab's version and exit")] = False) -> None:
    """simlab: Monte Carlo balance toolkit for Dawn of Empire, Dreadnought and Mar Rojo."""
data_app = typer.Typer(no_args_is_help=True, help="Show and check data packs (game values with provenance).")
app.add_typer(data_app, name="data")
#: ``simlab odds <game>``: built from each game's declared odds options when asked for (:class:`_OddsGroup`)
odds_app = typer.Typer(no_args_is_help=True, help="Exact or Monte Carlo odds of a game's combat.")



#: options several commands share, declared once
Workers = Annotated[int | None, typer.Option(help="workers: threads, processes or dask workers", show_default="all cores")]
SweepsBackend = Annotated[str | None, typer.Option(help="where the sweeps run: local (threads), processes (worker processes) or dask")]
PoliciesFile = Annotated[list[Path] | None, typer.Option(help="a policies.toml (simlab solve's) whose presets --policy may name; repeatable")]
Scheduler = Annotated[str | None, typer.Option(help="dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: a LocalCluster on 127.0.0.1)")]


# --------------------------------------------------------------------------- sweep
@app.command()
def sweep(
    experiment: Annotated[Path | None, typer.Argument(help="experiment TOML file (experiments/*.toml), or with --resume/--extend a sweep directory")] = None,
    game: Annotated[str | None, typer.Option(help="game name (ad hoc sweep without a file)")] = None,
    scenario: Annotated[str | None, typer.Option(help="scenario name or file; A,B for a grid axis")] = None,
    policy: Annotated[list[str] | None, typer.Option(help="SIDE=NAME (SIDE=A,B for a grid axis); repeatable")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="OPTION=VALUE, SIDE.KNOB=VALUE or data.TABLE.KEY.FIELD=VALUE (VALUE, *FACTOR or +SHIFT; '*' in KEY or FIELD for a group); repeatable")] = None,
    grid: Annotated[list[str] | None, typer.Option(help="OPTION=V1,V2,... (a data.TABLE.KEY.FIELD too: data.ports.*.defense=*1,*1.5,+2); repeatable (the grid is their product)")] = None,
    games: Annotated[int | None, typer.Option(help="games per cell (with an experiment file: the file's)", show_default="1,000")] = None,
    seed: Annotated[int | None, typer.Option(help="master seed (with an experiment file: the file's)", show_default="0")] = None,
    workers: Workers = None,
    chunk_size: Annotated[int | None, typer.Option(help="games per chunk / Parquet part")] = None,
    out: Annotated[str | None, typer.Option(help="output directory or fsspec URL (default results/<name>-<time>)")] = None,
    resume: Annotated[bool, typer.Option(help="continue the sweep in --out, playing only missing chunks")] = False,
    overwrite: Annotated[bool, typer.Option(help="replace the sweep already in --out")] = False,
    extend: Annotated[bool, typer.Option(help="grow the complete sweep in DIR: --games=N is the new total per cell, --grid=K=V adds values to axis K; only new games are played")] = False,
    data: Annotated[Path | None, typer.Option(help="data pack override (TOML)")] = None,
    crn: Annotated[bool, typer.Option(help="common random numbers: game i of every cell uses the same stream")] = False,
    name: Annotated[str | None, typer.Option(help="experiment name (ad hoc sweeps)")] = None,
    precision: Annotated[float | None, typer.Option(help="play each cell until its win rates' 95% Wilson half-width is at most H")] = None,
    max_games: Annotated[int | None, typer.Option(help="ceiling of games per cell under --precision", show_default="1,000,000")] = None,
    progress: Annotated[bool, typer.Option(help="show the progress bar")] = True,
    json_: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    backend: Annotated[str | None, typer.Option(help="where chunks run: local (threads in this process), processes (spawned worker processes: a crashing chunk kills only its worker) or dask")] = None,
    policies_file: PoliciesFile = None,
    scheduler: Scheduler = None,
    dask_timeout: Annotated[float | None, typer.Option(help="dask: seconds without any worker before the sweep stops (default 60)")] = None,
) -> None:
    """Play a sweep and write Parquet, then print the win-rate report.

    Exit status: 0 when every chunk was written; 1 when a chunk failed twice (each is reported on
    stderr with its cell and game range; --resume plays them again), or when a dask cluster had
    no worker for --dask-timeout seconds (finished chunks kept; --resume completes it); 2 on bad
    input (a full disk included: finished chunks kept, --resume completes it); 3 when a
    --precision target was not reached within --max-games in some cell (the manifest's
    ``precision_reached`` gives each cell's half-width); 130 when interrupted.

    `simlab sweep DIR --extend --games=N` plays on to N games per cell (the new total), `--extend
    --grid=K=V` adds cells: only new games are played (spec from DIR's manifest; `--resume` likewise).
    """
    from ..api import sweep as run
    from ..games.policy import using_policies
    from ..results import sweep_report
    from ..sweeps.runner import failure_line
    with using_policies(*(policies_file or [])):
        res = run(experiment, game=game, scenario=scenario, policy=policy or [], set_=set_ or [], grid=grid or [],
                  games=games, seed=seed, workers=workers, chunk_size=chunk_size, out=out, resume=resume,
                  overwrite=overwrite, data=data, crn=crn, name=name, progress=progress, precision=precision,
                  max_games=max_games, backend=backend, scheduler=scheduler, dask_timeout=dask_timeout,
                  extend=extend)
    for q in res.quarantined:
        print(f"simlab: quarantined {q['part']} ({q['reason']}) -> {q['moved_to']}; its chunk was played again",
              file=sys.stderr)
    if res.interrupted:
        err_console.print(f"interrupted: complete chunks are kept in {res.path}; rerun with --resume to finish")
        raise typer.Exit(130)
    man = res.manifest
    written = sum(man.get("games_written", {}).values())
    rows = sweep_report(res) if written else []
    if json_:
        _print_json(rows)
    else:
        rate = man["last_run"]["games_per_second"]
        err_console.print(f"wrote {res.path} ({res.games_played:,} games in {res.seconds:.1f} s"
                          + (f", {rate:,.0f} games/s" if rate else "") + ")")
        _print_provisional(man)
        if rows:
            _print_report(rows, man)
    if res.failures:
        for f in res.failures:
            print(failure_line(f), file=sys.stderr)
        print(f"simlab: {len(res.failures)} chunk(s) failed twice; the rest is written in {res.path}; "
              "fix the cause and rerun with --resume to play them", file=sys.stderr)
        raise typer.Exit(1)
    short = {c: r for c, r in man.get("precision_reached", {}).items() if not r["reached"]}
    if short:
        worst = max(r["half_width"] for r in short.values())
        print(f"simlab: warning: {len(short)} cell(s) stopped at --max-games {man['max_games']:,} before the "
              f"precision target {man['precision']} (widest half-width reached {worst:.4f})", file=sys.stderr)
        raise typer.Exit(3)


def _print_provisional(man: dict) -> None:
    d = man.get("data")
    if d:
        c = d["counts"]
        err_console.print(
            f"data pack {d['name']} {d['version']} ({d['hash']}): this run used {d['values_used']} values — "
            f"{c['rulebook']} rulebook, {c['example']} example, {c['provisional']} provisional, {c['user']} user "
            "(`simlab data show` lists them)")


# --------------------------------------------------------------------------- report
@app.command()
def report(
    directory: Annotated[Path, typer.Argument(help="a sweep's output directory")],
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    csv: Annotated[bool, typer.Option("--csv", help="print CSV")] = False,
    sort: Annotated[str | None, typer.Option(help="sort the cells by this column (-COL: descending), e.g. -win_rate_red")] = None,
    where: Annotated[list[str] | None, typer.Option(help="KEY=VALUE: only cells with this grid option or column value; repeatable")] = None,
    columns: Annotated[str | None, typer.Option(help="show only these columns, e.g. cell,policy_red,win_rate_red (`--csv` lists them all)")] = None,
) -> None:
    """Win rates with 95% Wilson intervals, scores and turns per cell of a sweep; on a grid of two
    policy axes, the win-rate matrix (row policy by column policy) too."""
    from ..results import report as rep
    from ..results import report_frame
    from ..sweeps.manifest import load_manifest
    from ..views import apply_view
    if json_ and csv:
        raise InputError("choose one of --json and --csv")
    every = rep(directory)
    rows, cols = apply_view(every, where or [], sort, columns)
    if json_:
        _print_json(rows if cols is None else report_frame(rows)[cols].to_dict("records"))
    elif csv:
        sys.stdout.write(report_frame(rows)[cols or slice(None)].to_csv(index=False))
    else:
        man = load_manifest(directory)
        status = rows[0]["status"] if rows else man.get("status")
        if cols is not None:
            _print_table(render_columns(rows, cols, title=report_title(man)))
            print_matrices(rows, man)
        else:
            _print_report(rows, dict(man, status=status))
        if status != "complete":
            hint = "; `simlab sweep ... --resume` finishes it" if status == "interrupted" else ""
            err_console.print(f"note: this sweep is {status}; the table covers the games written so far{hint}")
        written = man.get("games_written")
        if isinstance(written, dict):
            expected = sum(int(v) for v in written.values() if isinstance(v, int))
            found = sum(r["games"] for r in every)
            if found != expected:
                err_console.print(f"warning: the manifest records {expected:,} games written but {found:,} are there "
                                  "(Parquet parts missing or added by hand); `simlab sweep ... --resume` replays missing chunks")


@app.command()
def verify(
    directory: Annotated[Path, typer.Argument(help="a sweep's output directory")],
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    migrate: Annotated[bool, typer.Option("--migrate", help="first rename the cell=N folders of an older sweep to cell-N")] = False,
) -> None:
    """Check that every Parquet part of a sweep belongs to it (fingerprint, cell, game range, seeds,
    row count, chunking); name each one that does not.

    Also says (a note, exit status unchanged) when the sweep's inputs resolve differently now: an
    edited --policies-file, @mix directory, data pack or scenario file, or another game version.

    Exit status: 0 when every part passes; 1 when any does not (`simlab sweep ... --resume` moves
    those into DIR/quarantine/ and plays their chunks again); 2 when DIR is not a sweep.
    """
    from ..sweeps.manifest import check_seal, load_manifest, sweep_status
    from ..sweeps.store import Store
    from ..sweeps.verify import check_parts, migrate_layout
    store = Store(directory)
    man = load_manifest(store)
    if migrate:
        store.check_free()
        with store.lock():
            for d in migrate_layout(store):
                err_console.print(f"renamed {d} to {d.replace('cell=', 'cell-')}")
        man = load_manifest(store)
    good, problems = check_parts(store, man, content=True)
    status = sweep_status(store, man)
    from ..sweeps.verify import PartProblem, check_accounting, missing_events
    edited = check_seal(man)
    problems = ([PartProblem("manifest.json", edited.split(" ", 1)[1])] if edited else []) + problems + [
        PartProblem(*line.split(": ", 1)) for line in check_accounting(man, good, status == "complete")] + \
        missing_events(store, man)
    from ..sweeps.runner import input_changes
    changed = input_changes(man, str(directory))
    if json_:
        _print_json({"directory": str(directory), "status": status, "parts_ok": len(good),
                     "problems": [{"part": p.rel, "reason": p.reason} for p in problems],
                     "inputs_changed": changed})
    else:
        for p in problems:
            print(f"simlab: {p.line()}", file=sys.stderr)
        if changed:
            print(f"simlab: note: the inputs of {directory} changed since it was played: {changed}; its parts are "
                  "still its own, but --resume and --extend will refuse", file=sys.stderr)
        out_console.print(f"{directory}: {len(good):,} part(s) ok, {len(problems):,} problem(s); sweep {status}")
    if problems:
        raise typer.Exit(1)


# --------------------------------------------------------------------------- tune


@app.command()
def tune(
    game: Annotated[str, typer.Argument(help="game name")],
    param: Annotated[str, typer.Option(help="the numeric option to tune (a handicap, a bid), or a data-pack value data.<table>.<key>.<field>")],
    range_: Annotated[str, typer.Option("--range", help="LOW:HIGH[:STEP] values to play")],
    scenario: Annotated[str | None, typer.Option(help="scenario name or file")] = None,
    policy: Annotated[list[str] | None, typer.Option(help="SIDE=NAME; repeatable")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="OPTION=VALUE held fixed; repeatable")] = None,
    data: Annotated[Path | None, typer.Option(help="data pack override (TOML)")] = None,
    target: Annotated[float | None, typer.Option(help="find where --side's win rate equals this (default: equal win rates)")] = None,
    side: Annotated[str | None, typer.Option(help="the side --target applies to (default: the first side)")] = None,
    games: Annotated[int | None, typer.Option(help="games per value", show_default="2,000")] = None,
    precision: Annotated[float | None, typer.Option(help="play each value until its win rates' 95% Wilson half-width is at most H")] = None,
    max_games: Annotated[int | None, typer.Option(help="ceiling of games per value under --precision")] = None,
    seed: Annotated[int, typer.Option(help="master seed (every value uses the same streams)")] = 0,
    fit: Annotated[str, typer.Option(help="logistic or isotonic (monotone, no shape assumed)")] = "logistic",
    method: Annotated[str, typer.Option(help="auto, replay, or score (one sweep, winners recomputed from final scores)")] = "auto",
    refine: Annotated[bool, typer.Option(help="replay a finer set of values around the first estimate")] = True,
    replicates: Annotated[int, typer.Option(help="bootstrap replicates for the interval")] = 1000,
    workers: Workers = None,
    out: Annotated[Path | None, typer.Option(help="output directory (default results/tune-<game>-<param>-<time>)")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace the tune already in --out")] = False,
    from_sweep: Annotated[Path | None, typer.Option(help="rescore this existing sweep instead of playing (score-only options)")] = None,
    cell: Annotated[int | None, typer.Option(help="--from-sweep: the cell to rescore (when the sweep has several)")] = None,
    bids: Annotated[bool, typer.Option("--bids/--no-bids", help="also print each side's bid table (Rule 14.4: a bid of b VPs for a side gives the other side b)")] = False,
    progress: Annotated[bool, typer.Option(help="show progress bars")] = True,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    backend: SweepsBackend = None,
    policies_file: PoliciesFile = None,
    scheduler: Scheduler = None,
    equilibrium: Annotated[bool, typer.Option(help="find where the game's value under solved play is 0: each value solved with `simlab solve` (--budget games each, common random numbers) instead of fixed policies")] = False,
    budget: Annotated[int | None, typer.Option(help="--equilibrium: games of each value's solve", show_default="100,000")] = None,
) -> None:
    """Find the fair value of a numeric option (handicap, bid) with a 95% interval, and the bid table."""
    from ..api import tune as run
    from ..games.policy import using_policies
    from ..sweeps.backends import sweep_backend
    if budget is not None and not equilibrium:
        raise InputError("--budget only applies with --equilibrium")
    if bids and target is not None:
        raise InputError("--bids needs two sides and equal win rates (no --target)")
    if equilibrium:
        given = [f for f, v in (("--policy", policy), ("--target", target), ("--side", side), ("--games", games),
                                ("--precision", precision), ("--max-games", max_games), ("--from-sweep", from_sweep),
                                ("--cell", cell)) if v]
        given += [f for f, v, d in (("--fit", fit, "logistic"), ("--method", method, "auto")) if v != d]
        if given:
            raise InputError(f"{given[0]} does not apply with --equilibrium (each value's policies are solved)")
        if budget is not None and budget < 1000:
            raise InputError(f"--budget must be at least 1000 games (got {budget})")
        from ..solve.equilibrium import tune_equilibrium
        with sweep_backend(backend, scheduler, workers), using_policies(*(policies_file or [])):
            res = tune_equilibrium(game, param=param, range_=range_, scenario=scenario, set_=set_ or [], data=data,
                                   budget=100_000 if budget is None else budget, seed=seed, out=out,
                                   overwrite=overwrite, workers=workers, progress=progress,
                                   replicates=200 if replicates == 1000 else replicates)  # solve's default
        _analysis_output(res, json_, print_equilibrium)
        return
    with sweep_backend(backend, scheduler, workers), using_policies(*(policies_file or [])):
        res = run(game, param=param, range_=range_, scenario=scenario, policy=policy or [], set_=set_ or [],
                  data=data, target=target, side=side, games=games, precision=precision, max_games=max_games,
                  seed=seed,
                  fit=fit, method=method, refine=refine, replicates=replicates, workers=workers, out=out,
                  overwrite=overwrite, progress=progress, from_sweep=from_sweep, cell=cell,
                  log=lambda m: err_console.print(m))
    if bids and len(res["sides"]) != 2:
        raise InputError("--bids needs two sides and equal win rates (no --target)")
    if bids:
        from ..analysis import bid_table
        res["bids"] = {s: bid_table(res, s) for s in res["sides"]}
    _analysis_output(res, json_, print_tune)


def _analysis_output(res: dict, json_: bool, render) -> None:
    """An analysis's warnings on stderr, then its JSON, or "wrote DIR" and its tables."""
    for w in res.get("warnings", []):
        print(f"simlab: warning: {w}", file=sys.stderr)
    if json_:
        _print_json(res)
        return
    err_console.print(f"wrote {res['path']}")
    render(res)


# --------------------------------------------------------------------------- sensitivity
@app.command()
def sensitivity(
    game: Annotated[str, typer.Argument(help="game name")],
    values: Annotated[list[str] | None, typer.Option(help="TABLE.KEY.FIELD pattern (* wildcards), e.g. 'ports.*.defense'; repeatable (default: every provisional numeric value, grouped by table and field)")] = None,
    group: Annotated[bool, typer.Option(help="each --values pattern is one factor (its values scaled together)")] = False,
    range_: Annotated[str | None, typer.Option("--range", help="LO:HI multipliers of every value, instead of each value's plausible range from the pack (the default)")] = None,
    method: Annotated[str, typer.Option(help="morris (elementary effects) or sobol (indices)")] = "morris",
    trajectories: Annotated[int, typer.Option(help="Morris trajectories (or Sobol's base sample)")] = 10,
    levels: Annotated[int, typer.Option(help="Morris grid levels (even)")] = 4,
    games: Annotated[int, typer.Option(help="games per design point (the same seeds at every point)")] = 400,
    output: Annotated[str, typer.Option(help="win-rate, score, or a numeric games-table column (its mean)")] = "win-rate",
    side: Annotated[str | None, typer.Option(help="the side whose win rate or score (default: the first side)")] = None,
    scenario: Annotated[str | None, typer.Option(help="scenario name or file")] = None,
    policy: Annotated[list[str] | None, typer.Option(help="SIDE=NAME; repeatable")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="OPTION=VALUE held fixed; repeatable")] = None,
    seed: Annotated[int, typer.Option(help="master seed (every point uses the same streams)")] = 0,
    replicates: Annotated[int, typer.Option(help="bootstrap resamples of the intervals")] = 1000,
    workers: Workers = None,
    out: Annotated[Path | None, typer.Option(help="output directory (default results/sensitivity-<game>-<time>)")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace the sensitivity already in --out")] = False,
    progress: Annotated[bool, typer.Option(help="one line per 5% of the points on stderr")] = True,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    respond: Annotated[bool, typer.Option(help="answer each design point with a short simlab solve on its values and play the sides' solved mixes (the effects when players adapt)")] = False,
    respond_budget: Annotated[int | None, typer.Option(help="--respond: games of each point's solve (default 30,000)")] = None,
    respond_iterations: Annotated[int | None, typer.Option(help="--respond: solve iterations per point (default 2)")] = None,
    respond_generations: Annotated[int | None, typer.Option(help="--respond: CMA-ES generations per search (default 2)")] = None,
    respond_meta_games: Annotated[int | None, typer.Option(help="--respond: games per pairing of each meta-game (default 100)")] = None,
    respond_search_games: Annotated[int | None, typer.Option(help="--respond: games per search candidate (default 50)")] = None,
    respond_confirm_games: Annotated[int | None, typer.Option(help="--respond: games per confirmation (default 200)")] = None,
) -> None:
    """Which game values decide the answer: Morris elementary effects (or Sobol indices) of data-pack values."""
    from ..solve.sensitivity import sensitivity as run
    if replicates < 100:
        raise InputError(f"--replicates must be at least 100 (got {replicates})")
    given = {"budget": respond_budget, "iterations": respond_iterations, "generations": respond_generations,
             "meta_games": respond_meta_games, "search_games": respond_search_games,
             "confirm_games": respond_confirm_games}
    res = run(game, values=values or [], group=group, range_=range_, method=method, trajectories=trajectories,
              levels=levels, games=games, output=output, side=side, scenario=scenario, policy=policy or [],
              set_=set_ or [], seed=seed, out=out, overwrite=overwrite, workers=workers, progress=progress,
              replicates=replicates, respond=respond, respond_settings={k: v for k, v in given.items() if v is not None},
              log=lambda m: err_console.print(m, markup=False) if progress else None)
    if json_:
        _print_json(res)
        return
    err_console.print(f"wrote {res['path']}")
    morris = res["method"] == "morris"
    what = f"{res['side']} win rate" if res["output"] == "win-rate" else (
        f"{res['side']} mean score" if res["output"] == "score" else f"mean {res['output']}")
    responded = res.get("policies") == "responded"
    t = Table(title=f"{res['game']} / {res['scenario']}: what moves the {what} "
                    f"({res['method']}, {res['points']:,} points x {res['games_per_point']:,} games, "
                    + ("values over their plausible ranges" if res["range"] == "pack" else
                       f"values x {res['range'][0]:g}..{res['range'][1]:g}")
                    + (f"; RESPONDED: each point's sides re-solved, {res['respond']['settings']['budget']:,} games a point"
                       if responded else "") + ")")
    r = " (responded)" if responded else ""
    cols = ["rank", "value(s)", "base", "range", "provisional"] + ([f"mu*{r} [95% CI]", "sigma", "mu"] if morris else
                                                         [f"S1{r} [95% CI]", f"ST{r} [95% CI]"])
    for c in cols:
        t.add_column(c, justify="right" if c not in ("value(s)",) else "left", overflow="fold")
    for i, f in enumerate(res["factors"], 1):
        base = f"{f['base'][0]:g}" if len(f["base"]) == 1 else f"{min(f['base']):g}-{max(f['base']):g} ({len(f['base'])})"
        if morris:
            extra = [f"{f['mu_star']:.4f} [{f['mu_star_ci'][0]:.4f}, {f['mu_star_ci'][1]:.4f}]", f"{f['sigma']:.4f}",
                     f"{f['mu']:+.4f}"]
        else:
            extra = [f"{f['S1']:.3f} [{f['S1_ci'][0]:.3f}, {f['S1_ci'][1]:.3f}]",
                     f"{f['ST']:.3f} [{f['ST_ci'][0]:.3f}, {f['ST_ci'][1]:.3f}]"]
        rg = [r for r in f.get("ranges") or [] if r is not None]
        span = (f"{rg[0][0]:g}-{rg[0][1]:g}" if len(rg) == 1 else
                f"{min(r[0] for r in rg):g}-{max(r[1] for r in rg):g}" if rg else "x0.5-1.5" if res["range"] == "pack" else "")
        t.add_row(str(i), f["name"], base, span, f"{f['provisional']}/{len(f['base'])}", *extra)
    _print_table(t)
    out_console.print(f"note: {res['range_note']}; {res['meaning']}", markup=False)


# --------------------------------------------------------------------------- compare
@app.command()
def compare(
    a: Annotated[Path | None, typer.Argument(help="experiment file of variant A")] = None,
    b: Annotated[Path | None, typer.Argument(help="experiment file of variant B")] = None,
    game: Annotated[str | None, typer.Option(help="game name (variants given by --set-a/--set-b etc.)")] = None,
    scenario: Annotated[str | None, typer.Option(help="scenario name or file (both variants)")] = None,
    set_a: Annotated[list[str] | None, typer.Option("--set-a", help="OPTION=VALUE of variant A; repeatable")] = None,
    set_b: Annotated[list[str] | None, typer.Option("--set-b", help="OPTION=VALUE of variant B; repeatable")] = None,
    policy_a: Annotated[list[str] | None, typer.Option("--policy-a", help="SIDE=NAME of variant A; repeatable")] = None,
    policy_b: Annotated[list[str] | None, typer.Option("--policy-b", help="SIDE=NAME of variant B; repeatable")] = None,
    data_a: Annotated[Path | None, typer.Option("--data-a", help="data pack override of variant A")] = None,
    data_b: Annotated[Path | None, typer.Option("--data-b", help="data pack override of variant B")] = None,
    games: Annotated[int | None, typer.Option(help="games per variant", show_default="10,000 (A's file's with files)")] = None,
    seed: Annotated[int | None, typer.Option(help="master seed of both variants", show_default="0 (A's file's with files)")] = None,
    side: Annotated[str | None, typer.Option(help="the side whose win rate is compared (default: the first)")] = None,
    sprt: Annotated[str | None, typer.Option(help="P0,P1: SPRT on P(side wins under B | the variants disagree)")] = None,
    alpha: Annotated[float | None, typer.Option(help="SPRT: chance of accepting P1 when P0 holds (default 0.05)")] = None,
    beta: Annotated[float | None, typer.Option(help="SPRT: chance of accepting P0 when P1 holds (default 0.05)")] = None,
    stage: Annotated[int | None, typer.Option(help="SPRT: games per variant per stage (default 1,000)")] = None,
    max_games: Annotated[int | None, typer.Option(help="SPRT: most games per variant (default 1,000,000)")] = None,
    workers: Workers = None,
    out: Annotated[Path | None, typer.Option(help="output directory (default results/compare-<game>-<time>)")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace the comparison already in --out")] = False,
    progress: Annotated[bool, typer.Option(help="show progress bars")] = True,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    backend: SweepsBackend = None,
    policies_file: PoliciesFile = None,
    scheduler: Scheduler = None,
) -> None:
    """Compare two variants on the same seeds: win-rate difference with a paired interval, optional SPRT."""
    from ..api import compare as run
    from ..sweeps.backends import sweep_backend

    def stage_line(r: dict) -> None:
        at = f"at game {r['decided_at']:,}: " if r.get("decided_at") else ""
        llr, lo, hi = r["llr"], r["lower"], r["upper"]
        where = (f"at or below the lower bound {lo:.3f}" if llr <= lo else
                 f"at or above the upper bound {hi:.3f}" if llr >= hi else f"between the bounds ({lo:.3f}, {hi:.3f})")
        err_console.print(f"stage {r['stage'] + 1}: {r['games']:,} games played; {at}{r['discordant']:,} discordant "
                          f"({r['b_better']:,} for B), LLR {llr:+.3f} {where}"
                          + (f" -> accept {r['decision']}" if r["decision"] else ""), markup=False)

    from ..games.policy import using_policies
    with sweep_backend(backend, scheduler, workers), using_policies(*(policies_file or [])):
        res = run(a, b, game=game, scenario=scenario, policy_a=policy_a or [], policy_b=policy_b or [],
                  set_a=set_a or [], set_b=set_b or [], data_a=data_a, data_b=data_b, games=games, seed=seed,
                  side=side, sprt=sprt, alpha=alpha, beta=beta, stage=stage, max_games=max_games, out=out,
                  overwrite=overwrite, workers=workers, progress=progress, on_stage=stage_line)
    for w in res.get("warnings", []):
        print(f"simlab: warning: {w}", file=sys.stderr)
    if json_:
        _print_json(res)
        return
    err_console.print(f"wrote {res['path']}")
    print_compare(res)


# --------------------------------------------------------------------------- meta
@app.command()
def meta(
    game: Annotated[str, typer.Argument(help="game name")],
    policies: Annotated[list[str] | None, typer.Option("--policy", "--policies", help="SIDE=A,B,... (default: every policy of each side); repeatable (--policies is the older spelling)")] = None,
    scenario: Annotated[str | None, typer.Option(help="scenario name or file")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="OPTION=VALUE; repeatable")] = None,
    data: Annotated[Path | None, typer.Option(help="data pack override (TOML)")] = None,
    games: Annotated[int, typer.Option(help="games per policy pairing")] = 2000,
    seed: Annotated[int, typer.Option(help="master seed (every pairing uses the same streams)")] = 0,
    replicates: Annotated[int, typer.Option(help="bootstrap replicates for the value's interval")] = 500,
    workers: Workers = None,
    out: Annotated[Path | None, typer.Option(help="output directory (default results/meta-<game>-<time>)")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace the meta-game already in --out")] = False,
    progress: Annotated[bool, typer.Option(help="show the progress bar")] = True,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    backend: SweepsBackend = None,
    policies_file: PoliciesFile = None,
    scheduler: Scheduler = None,
) -> None:
    """Play every policy pairing; show the win-rate matrix and the equilibrium mix and value."""
    from ..api import meta as run
    from ..games.policy import using_policies
    from ..sweeps.backends import sweep_backend
    with sweep_backend(backend, scheduler, workers), using_policies(*(policies_file or [])):
        res = run(game, policies=policies or [], scenario=scenario, set_=set_ or [], data=data, games=games,
                  seed=seed, replicates=replicates, workers=workers, out=out, overwrite=overwrite,
                  progress=progress)
    for w in res.get("warnings", []):
        print(f"simlab: warning: {w}", file=sys.stderr)
    if json_:
        _print_json(res)
        return
    err_console.print(f"wrote {res['path']}")
    print_meta(res)


# --------------------------------------------------------------------------- plot
@app.command()
def plot(
    directory: Annotated[Path, typer.Argument(help="a sweep, tune, meta, solve or compare output directory")],
    kind: Annotated[str | None, typer.Option(help="winrate, scores, matrix, tune, solve or sprt (default: from the directory)")] = None,
    out: Annotated[Path | None, typer.Option(help="output .png or .svg (default <directory>/plot-<kind>.png)")] = None,
    param: Annotated[str | None, typer.Option(help="winrate: the grid option on the x axis")] = None,
) -> None:
    """Draw win rates against a grid option (curves or bars), score histograms, a policy matrix (a
    meta-game's, or a sweep's with two policy axes), a tune curve, a solve, or a comparison's SPRT path."""
    from ..plots import plot as draw
    path = draw(directory, kind=kind, out=out, param=param)
    out_console.print(f"wrote {path}")


from .luck_cmd import luck as _luck_command  # noqa: E402
from .schema_cmd import schema as _schema_command  # noqa: E402
from .solve_cmd import solve as _solve_command  # noqa: E402

app.command("solve")(_solve_command)
app.command("luck")(_luck_command)
app.command("schema")(_schema_command)


# --------------------------------------------------------------------------- games
@app.command("games")
def games_cmd(json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
    """List games with their sides, scenarios, policies and options."""
    from ..api import list_games
    info = list_games()
    if json_:
        _print_json(info)
        return
    for g in info:
        out_console.print(f"[bold]{g['name']}[/bold] — {g['title']}")
        sides = g["sides"] if isinstance(g["sides"], str) else ", ".join(g["sides"])
        out_console.print(f"  sides: {sides}")
        out_console.print(f"  scenarios: {', '.join(g['scenarios'])} (default {g['default_scenario']})")
        for side, pols in g["policies"].items():
            out_console.print(f"  policies ({'any side' if side == '*' else side}): {', '.join(pols)}")
        _print_policy_tables(g)
        for o in g["options"]:
            extra = f" one of {', '.join(map(str, o['choices']))}" if "choices" in o else ""
            rng = ""
            if "min" in o or "max" in o:
                rng = f" in [{o.get('min', '')}, {o.get('max', '')}]"
            out_console.print(f"  option {o['name']} ({o['type']}, default {o['default']}{extra}{rng}): {o['doc']}")
        _print_decisions(g)


def _print_decisions(g: dict) -> None:
    """The decision inventory of one game: section, side, decision, and the knobs or the gap."""
    ds = g.get("decisions") or []
    if not ds:
        return
    gaps = sum(1 for d in ds if not d["knobs"])
    t = Table(title=f"{g['name']}: {len(ds)} decisions the rules give a player "
                    f"({len(ds) - gaps} with knobs, {gaps} without)", title_justify="left")
    for c in ("section", "side", "decision", "knobs (or why none)"):
        t.add_column(c, overflow="fold")
    for d in ds:
        how = ", ".join(d["knobs"]) if d["knobs"] else f"[red]none[/red]: {d.get('gap', '')}"
        t.add_row(d["section"], "any" if d["side"] == "*" else d["side"], d["decision"], how)
    out_console.print(t)


# --------------------------------------------------------------------------- data
@data_app.command("show")
def data_show(
    game: Annotated[str, typer.Argument(help="game name")],
    json_: Annotated[bool, typer.Option("--json", help="print JSON records")] = False,
    data: Annotated[Path | None, typer.Option(help="apply this override pack first")] = None,
    provisional: Annotated[bool, typer.Option(help="only provisional values")] = False,
    table: Annotated[str | None, typer.Option(help="only this table (e.g. units)")] = None,
    key: Annotated[str | None, typer.Option(help="only this row key (e.g. Brooklyn)")] = None,
) -> None:
    """Print a game's data pack: every value with its provenance."""
    from ..api import data_show as show
    d = show(game, data=data)
    tables = sorted({r["table"] for r in d["records"]})
    if table is not None and table not in tables:
        raise InputError(f"--table {table!r}: no such table in {d['name']} (tables: {', '.join(tables)})")
    recs = [r for r in d["records"] if table is None or r["table"] == table]
    if key is not None:
        keys = sorted({r["key"] for r in recs})
        if key not in keys:
            import difflib
            near = difflib.get_close_matches(key, keys, n=1)
            raise InputError(f"--key {key!r}: no such row" + (f" in table {table}" if table else "")
                             + (f"; did you mean {near[0]!r}?" if near else ""))
        recs = [r for r in recs if r["key"] == key]
    recs = [r for r in recs if not provisional or r["provenance"] == "provisional"]
    if json_:
        d = dict(d)
        d["records"] = recs
        _print_json(d)
        return
    t = Table(title=f"{d['name']} {d['version']} ({d['hash']}) — {d['game']}")
    for c in ("table", "key", "field", "value", "provenance", "note"):
        t.add_column(c, overflow="fold")
    for r in recs:
        t.add_row(r["table"], r["key"], r["field"], json.dumps(r["value"]) if not isinstance(r["value"], str)
                  else r["value"], r["provenance"], r["note"])
    out_console.print(t)
    c = d["counts"]
    shown = f"{len(recs)} shown of " if len(recs) != sum(c.values()) else ""
    out_console.print(f"{shown}{sum(c.values())} values: {c['rulebook']} rulebook, {c['example']} example, "
                      f"{c['provisional']} provisional, {c['user']} user")


@data_app.command("check")
def data_check(
    file: Annotated[Path, typer.Argument(help="override pack (TOML with a \\[pack] table: game = ...)")],
    game: Annotated[str | None, typer.Option(help="game name (default: from the file's \\[pack] table)")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Validate an override pack and list the values it changes."""
    from ..api import data_check as check
    res = check(file, game=game)
    if json_:
        _print_json(res)
        return
    out_console.print(f"{file}: valid override of {res['base']['name']} {res['base']['version']} "
                      f"for {res['game']}; {len(res['changes'])} value(s) changed, new hash {res['hash']}")
    for ch in res["changes"]:
        old = "(new)" if ch["old"] is None else f"{ch['old']!r} [{ch['old_provenance']}]"
        out_console.print(f"  {ch['table']}.{ch['key']}.{ch['field']}: {old} -> {ch['new']!r}", markup=False)


@data_app.command("diff")
def data_diff_cmd(
    a: Annotated[str, typer.Argument(help="a game name (its built-in pack) or an override pack file")],
    b: Annotated[str, typer.Argument(help="a game name or an override pack file")],
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """List the values on which two data packs disagree (value or provenance)."""
    from ..api import data_diff
    res = data_diff(a, b)
    if json_:
        _print_json(res)
        return
    t = Table(title=f"{a} ({res['a']['hash']}) vs {b} ({res['b']['hash']}): {len(res['differences'])} difference(s)")
    for c in ("table", "key", "field", "A", "B", "A provenance", "B provenance"):
        t.add_column(c, overflow="fold")
    show = lambda v: "-" if v is None else (v if isinstance(v, str) else json.dumps(v))  # noqa: E731
    for d in res["differences"]:
        t.add_row(d["table"], d["key"], d["field"], show(d["a"]), show(d["b"]), show(d["a_provenance"]),
                  show(d["b_provenance"]))
    out_console.print(t)


# --------------------------------------------------------------------------- bench
@app.command()
def bench(
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    quick: Annotated[bool, typer.Option(help="fewer repeats (a smoke run)")] = False,
    write: Annotated[Path | None, typer.Option(help="also write the figures as markdown to this file")] = None,
    only: Annotated[list[str] | None, typer.Option(help="run only benchmarks whose name contains this")] = None,
) -> None:
    """Measure kernels and games: battles or games per second, 1 vs 2 workers, CLI start-up."""
    from ..bench import run_benchmarks, to_markdown
    if write is not None and (write.is_dir() or not write.parent.is_dir()):
        raise InputError(f"--write {write}: not a file in an existing folder (checked before the benchmarks run)")
    res = run_benchmarks(quick=quick, only=only or [], log=lambda m: err_console.print(m))
    if write is not None:
        write.write_text(to_markdown(res))
        err_console.print(f"wrote {write}")
    if json_:
        _print_json(res)
    else:
        out_console.print(to_markdown(res))


# --------------------------------------------------------------------------- soak
@app.command("soak")
def soak_cmd(
    games: Annotated[int, typer.Option(help="games per game and case")] = 100_000,
    game: Annotated[list[str] | None, typer.Option(help="soak only this game; repeatable (default: every game)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="OPTION=VALUE for every case; repeatable")] = None,
    seed: Annotated[int, typer.Option(help="master seed")] = 20261130,
    batch: Annotated[int, typer.Option(help="games per worker task")] = 10_000,
    workers: Annotated[int | None, typer.Option(help="worker processes", show_default="all cores")] = None,
    timeout: Annotated[float, typer.Option(help="seconds a batch may run before it counts as a hang")] = 600.0,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Play many random-legal games of every game with every invariant checked.

    Prints crashes, invariant violations and hangs (games stopped at a loop cap, batches over
    --timeout) per game and case; exits 1 if there is any.
    """
    from ..sweeps.spec import split_kv
    from ..testing.soak import soak as run_soak
    opts = {}
    for k, v in split_kv(set_ or [], "--set"):
        if k in opts:
            raise InputError(f"--set {k} given twice")
        opts[k] = v
    if seed < 0 or seed >= 2**64:
        raise InputError(f"--seed must be in 0..2**64-1 (got {seed})")
    rows = run_soak(games, game or None, options=opts, seed=seed, batch=batch, workers=workers, timeout=timeout,
                    log=None if json_ else (lambda m: err_console.print(m, markup=False)))
    if json_:
        _print_json([r.to_dict() for r in rows])
    else:
        t = Table(title=f"soak: {games:,} games per case, seed {seed}")
        for c in ("game", "scenario", "options", "policies", "games", "crashes", "violations", "hangs", "first problem"):
            t.add_column(c, overflow="fold", justify="right" if c in ("games", "crashes", "violations", "hangs") else "left")
        for r in rows:
            t.add_row(r.game, r.scenario, ", ".join(f"{k}={v}" for k, v in r.options.items()) or "-",
                      ", ".join(f"{k}={v}" for k, v in r.policies.items()), f"{r.games:,}", str(r.crashes),
                      str(r.violations), str(r.hangs), r.problems[0] if r.problems else "")
        out_console.print(t)
    bad = [r for r in rows if not r.ok]
    if bad:
        print(f"simlab soak: problems in {len(bad)} of {len(rows)} case(s)", file=sys.stderr)
        raise typer.Exit(1)


@app.command()
def version() -> None:
    """Print simlab's version."""
    from .._version import __version__
    out_console.print(__version__)


# --------------------------------------------------------------------------- odds


def _odds_signature(options) -> tuple[inspect.Signature, dict]:
    """A typer-readable signature (and annotations) for a game's declared odds options
    (:class:`simlab.games.odds.OddsOption`), plus ``--json``."""
    params, ann = [], {}
    for o in options:
        t = bool if o.kind is bool else (list[str] | None if o.pairs else (o.kind if o.required else o.kind | None))
        if o.argument:
            info = typer.Argument(help=o.doc, show_default=False)
        elif o.kind is bool:
            info = typer.Option(o.cli_flag, help=o.doc)
        else:
            info = typer.Option(o.cli_flag, help=o.doc, show_default=o.default is not None)
        a = Annotated[t, info]
        default = inspect.Parameter.empty if o.required else (False if o.kind is bool else o.default)
        params.append(inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=a))
        ann[o.name] = a
    a = Annotated[bool, typer.Option("--json", help="print JSON")]
    params.append(inspect.Parameter("json_", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=a))
    ann["json_"] = a
    return inspect.Signature(params), ann


def odds_keywords(options, given: dict) -> dict:
    """The keywords for ``Game.odds`` from parsed command-line values of its declared options.

    An option left out (``None``, an unset flag, no ``--set``) passes nothing, so ``Game.odds``'s
    own default applies; a ``pairs`` option becomes a ``{key: value}`` dict.

    Raises:
        InputError: a malformed ``KEY=VALUE`` or one given twice, or two options that pass one
            keyword different values (``--exact`` with ``--mc``).
    """
    out: dict = {}
    by: dict = {}
    for o in options:
        v = given.get(o.name)
        if v is None or v is False or (o.pairs and not v):
            continue
        if o.pairs:
            d = {}
            for item in v:
                if "=" not in item:
                    raise InputError(f"{o.cli_flag} wants OPTION=VALUE, got '{item}'")
                k, val = item.split("=", 1)
                d[k.strip()] = val.strip()
            v = d
        for k, val in o.passes(v).items():
            if k in out and out[k] != val:
                raise InputError(f"choose one of {by[k]} and {o.cli_flag}")
            out[k] = val
            by.setdefault(k, o.cli_flag)
    return out


def _odds_command(name: str):
    """The command ``simlab odds <name>`` built from the game's declarations (None: it has none)."""
    from ..games import get_game
    game = get_game(name)
    if not game.odds_options:
        return None
    opts = game.odds_options

    def run(**given) -> None:
        # what simlab.odds does, without importing simlab.api (its sweeps and scipy.stats cost ~1 s)
        json_ = given.pop("json_")
        kwargs = odds_keywords(opts, given)
        game.ensure_kernels_fresh()
        res = game.odds(**kwargs)
        if json_:
            _print_json(res)
        else:
            _print_odds(game.odds_report(res))

    run.__signature__, run.__annotations__ = _odds_signature(opts)
    run.__doc__ = (type(game).odds.__doc__ or "").strip().split("\n\n")[0]
    sub = typer.Typer(add_completion=False)
    sub.command(name=name, no_args_is_help=any(o.required for o in opts))(run)
    return typer.main.get_command(sub)


class _OddsGroup(typer.core.TyperGroup):
    """``simlab odds``: one sub-command per game that declares odds options, each built only when
    it is asked for, so ``simlab --help`` and every other command load no game."""

    def list_commands(self, ctx) -> list[str]:
        from ..games import game_names
        return [n for n in game_names() if self.get_command(ctx, n) is not None]

    def get_command(self, ctx, cmd_name):
        from ..games import game_names
        if cmd_name not in game_names():
            return None
        return _odds_command(cmd_name)


odds_app.info.cls = _OddsGroup
app.add_typer(odds_app, name="odds")


def _one_line(msg: str) -> str:
    return " ".join(str(msg).split())


@quiet_closed_stdout
def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``simlab`` console script; returns the exit status.

    Bad input of any kind (an InputError from the library, a usage error from the command line,
    a path the system cannot read or create, a file nested too deeply to parse) prints one line
    ``simlab: error: ...`` on stderr and returns 2, with no traceback.
    """
    cmd = typer.main.get_command(app)
    errs = _click_errors()
    try:
        refuse_repeated_options(cmd, list(sys.argv[1:] if argv is None else argv))
        rv = cmd.main(args=argv, prog_name="simlab", standalone_mode=False)
    except errs["help"] as e:
        ctx = getattr(e, "ctx", None)
        click.echo(ctx.get_help() if ctx else str(e), err=False)
        return 0
    except errs["usage"] as e:
        ctx = getattr(e, "ctx", None)
        where = ctx.command_path if ctx is not None and ctx.command_path else "simlab"
        print(f"{where}: error: {_one_line(e.format_message())}", file=sys.stderr)
        return 2
    except errs["click"] as e:  # e.g. a file option that cannot be opened
        print(f"simlab: error: {_one_line(e.format_message())}", file=sys.stderr)
        return 2
    except errs["exit"] as e:
        return int(getattr(e, "exit_code", 0) or 0)
    except (*errs["abort"], KeyboardInterrupt):
        print("simlab: interrupted", file=sys.stderr)
        return 130
    except InputError as e:
        print(f"simlab: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except SweepStopped as e:
        print(f"simlab: error: {_one_line(e)}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # pragma: no cover - e.g. `simlab report | head`
        return 0
    except OSError as e:
        # a path that cannot be read or created (a file where a folder should be, a name too
        # long, /proc, no permission, a full disk): the system's one line, with the path
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        print(f"simlab: error: {where}{_one_line(e.strerror or e)}", file=sys.stderr)
        return 2
    except RecursionError:
        print("simlab: error: an input file is nested too deeply to read", file=sys.stderr)
        return 2
    # without standalone mode click returns the code of a `typer.Exit(code)` raised by a command
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
