"""The ``simlab`` command line: a thin typer shell over the library functions.

Every command calls one public function (``simlab.sweep``, ``simlab.report``, ``simlab.odds``,
...). Bad input of any kind prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import click
import typer
from rich.console import Console
from rich.table import Table

from .errors import InputError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="simlab: Monte Carlo balance toolkit for Dawn of Empire, Dreadnought and Mar Rojo.")
odds_app = typer.Typer(no_args_is_help=True, help="Exact or Monte Carlo odds of a game's combat.")
data_app = typer.Typer(no_args_is_help=True, help="Show and check data packs (game values with provenance).")
app.add_typer(odds_app, name="odds")
app.add_typer(data_app, name="data")

# rich assumes 80 columns when output is not a terminal; tables of many sides need more
out_console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 160)


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=_json_default) + "\n")


def _json_default(o):
    try:
        import numpy as np
        if isinstance(o, np.generic):
            return o.item()
    except ImportError:  # pragma: no cover
        pass
    return str(o)


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def render_report(rows: list[dict], sides: list[str], title: str = "") -> Table:
    """A rich table of :func:`simlab.report` rows: win rates with 95% Wilson intervals."""
    t = Table(title=title or None, show_lines=False)
    t.add_column("cell", justify="right")
    t.add_column("params", overflow="fold")
    t.add_column("games", justify="right")
    for s in sides:
        t.add_column(f"{s} win rate [95% CI]", justify="right", no_wrap=True)
    t.add_column("draws", justify="right")
    for s in sides:
        t.add_column(f"{s} score ± se", justify="right", no_wrap=True)
    t.add_column("mean turns", justify="right")
    for r in rows:
        params = ", ".join(f"{k}={v}" for k, v in r["params"].items()) or "-"
        cells = [str(r["cell"]), params, f"{r['games']:,}"]
        for s in sides:
            v = r["sides"][s]
            cells.append(f"{_pct(v['win_rate'])} [{_pct(v['ci'][0]).strip()}, {_pct(v['ci'][1]).strip()}]")
        cells.append(_pct(r["draw_rate"]))
        for s in sides:
            v = r["sides"][s]
            cells.append(f"{v['mean_score']:.2f} ± {v['score_se']:.2f}")
        cells.append(f"{r['mean_turns']:.2f}")
        t.add_row(*cells)
    return t


# --------------------------------------------------------------------------- sweep
@app.command()
def sweep(
    experiment: Annotated[Path | None, typer.Argument(help="experiment TOML file (experiments/*.toml)")] = None,
    game: Annotated[str | None, typer.Option(help="game name (ad hoc sweep without a file)")] = None,
    scenario: Annotated[str | None, typer.Option(help="scenario name or file; A,B for a grid axis")] = None,
    policy: Annotated[list[str] | None, typer.Option(help="SIDE=NAME (SIDE=A,B for a grid axis); repeatable")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="OPTION=VALUE; repeatable")] = None,
    grid: Annotated[list[str] | None, typer.Option(help="OPTION=V1,V2,...; repeatable (the grid is their product)")] = None,
    games: Annotated[int | None, typer.Option(help="games per cell")] = None,
    seed: Annotated[int | None, typer.Option(help="master seed")] = None,
    workers: Annotated[int | None, typer.Option(help="worker processes (default: all cores)")] = None,
    chunk_size: Annotated[int | None, typer.Option(help="games per chunk / Parquet part")] = None,
    out: Annotated[Path | None, typer.Option(help="output directory (default results/<name>-<time>)")] = None,
    resume: Annotated[bool, typer.Option(help="continue the sweep in --out, playing only missing chunks")] = False,
    overwrite: Annotated[bool, typer.Option(help="replace the sweep already in --out")] = False,
    data: Annotated[Path | None, typer.Option(help="data pack override (TOML)")] = None,
    crn: Annotated[bool, typer.Option(help="common random numbers: game i of every cell uses the same stream")] = False,
    name: Annotated[str | None, typer.Option(help="experiment name (ad hoc sweeps)")] = None,
    precision: Annotated[float | None, typer.Option(help="play each cell until its win rates' 95% Wilson half-width is at most H")] = None,
    max_games: Annotated[int | None, typer.Option(help="ceiling of games per cell under --precision (default 1,000,000)")] = None,
    progress: Annotated[bool, typer.Option(help="show the progress bar")] = True,
    json_: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Play a sweep and write Parquet, then print the win-rate report."""
    from .api import sweep as run
    from .results import report as rep
    res = run(experiment, game=game, scenario=scenario, policy=policy or [], set_=set_ or [], grid=grid or [],
              games=games, seed=seed, workers=workers, chunk_size=chunk_size, out=out, resume=resume,
              overwrite=overwrite, data=data, crn=crn, name=name, progress=progress, precision=precision,
              max_games=max_games)
    if res.interrupted:
        err_console.print(f"interrupted: complete chunks are kept in {res.path}; rerun with --resume to finish")
        raise typer.Exit(130)
    rows = rep(res.path)
    if json_:
        _print_json(rows)
        return
    man = res.manifest
    rate = man["last_run"]["games_per_second"]
    err_console.print(f"wrote {res.path} ({res.games_played:,} games in {res.seconds:.1f} s"
                      + (f", {rate:,.0f} games/s" if rate else "") + ")")
    _print_provisional(man)
    out_console.print(render_report(rows, man["sides"], title=f"{man['experiment']} — {man['game']}"))


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
) -> None:
    """Win rates with 95% Wilson intervals, scores and turns per cell of a sweep."""
    from .results import report as rep
    from .results import report_frame
    from .sweep.runner import load_manifest
    if json_ and csv:
        raise InputError("choose one of --json and --csv")
    rows = rep(directory)
    if json_:
        _print_json(rows)
    elif csv:
        sys.stdout.write(report_frame(rows).to_csv(index=False))
    else:
        man = load_manifest(directory)
        out_console.print(render_report(rows, man["sides"], title=f"{man['experiment']} — {man['game']}"))
        if man.get("status") != "complete":
            err_console.print(f"note: this sweep is {man.get('status')}; the table covers the games written so far")


# --------------------------------------------------------------------------- games
@app.command("games")
def games_cmd(json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
    """List games with their sides, scenarios, policies and options."""
    from .api import games as list_games
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
        for o in g["options"]:
            extra = f" one of {', '.join(map(str, o['choices']))}" if "choices" in o else ""
            rng = ""
            if "min" in o or "max" in o:
                rng = f" in [{o.get('min', '')}, {o.get('max', '')}]"
            out_console.print(f"  option {o['name']} ({o['type']}, default {o['default']}{extra}{rng}): {o['doc']}")


# --------------------------------------------------------------------------- data
@data_app.command("show")
def data_show(
    game: Annotated[str, typer.Argument(help="game name")],
    json_: Annotated[bool, typer.Option("--json", help="print JSON records")] = False,
    data: Annotated[Path | None, typer.Option(help="apply this override pack first")] = None,
    provisional: Annotated[bool, typer.Option(help="only provisional values")] = False,
) -> None:
    """Print a game's data pack: every value with its provenance."""
    from .api import data_show as show
    d = show(game, data=data)
    recs = [r for r in d["records"] if not provisional or r["provenance"] == "provisional"]
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
    out_console.print(f"{sum(c.values())} values: {c['rulebook']} rulebook, {c['example']} example, "
                      f"{c['provisional']} provisional, {c['user']} user")


@data_app.command("check")
def data_check(
    file: Annotated[Path, typer.Argument(help="override pack (TOML with [pack] game = ...)")],
    game: Annotated[str | None, typer.Option(help="game name (default: from the file's [pack] game)")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Validate an override pack and list the values it changes."""
    from .api import data_check as check
    res = check(file, game=game)
    if json_:
        _print_json(res)
        return
    out_console.print(f"{file}: valid override of {res['base']['name']} {res['base']['version']} "
                      f"for {res['game']}; {len(res['changes'])} value(s) changed, new hash {res['hash']}")
    for ch in res["changes"]:
        old = "(new)" if ch["old"] is None else f"{ch['old']!r} [{ch['old_provenance']}]"
        out_console.print(f"  {ch['table']}.{ch['key']}.{ch['field']}: {old} -> {ch['new']!r}", markup=False)


# --------------------------------------------------------------------------- bench
@app.command()
def bench(
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    quick: Annotated[bool, typer.Option(help="fewer repeats (a smoke run)")] = False,
    write: Annotated[Path | None, typer.Option(help="also write the figures as markdown to this file")] = None,
    only: Annotated[list[str] | None, typer.Option(help="run only benchmarks whose name contains this")] = None,
) -> None:
    """Measure kernels and games: battles or games per second, 1 vs 2 workers, CLI start-up."""
    from .bench import run_benchmarks, to_markdown
    res = run_benchmarks(quick=quick, only=only or [], log=lambda m: err_console.print(m))
    if write is not None:
        write.write_text(to_markdown(res))
        err_console.print(f"wrote {write}")
    if json_:
        _print_json(res)
    else:
        out_console.print(to_markdown(res))


@app.command()
def version() -> None:
    """Print simlab's version."""
    from ._version import __version__
    out_console.print(__version__)


def _register_game_commands() -> None:
    from .games import game_names, get_game
    for name in game_names():
        g = get_game(name)
        fn = getattr(g, "odds_command", None)
        if fn is not None:
            odds_app.command(name=name)(fn)


_register_game_commands()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``simlab`` console script; returns the exit status."""
    cmd = typer.main.get_command(app)
    try:
        cmd.main(args=argv, prog_name="simlab", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help() if e.ctx else str(e), err=False)
        return 0
    except click.exceptions.UsageError as e:
        msg = " ".join(e.format_message().split())
        where = f" {e.ctx.command_path}" if e.ctx is not None and e.ctx.command_path != "simlab" else ""
        print(f"simlab{where}: error: {msg}", file=sys.stderr)
        return 2
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        print("simlab: interrupted", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("simlab: interrupted", file=sys.stderr)
        return 130
    except InputError as e:
        print(f"simlab: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover - e.g. `simlab report | head`
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
