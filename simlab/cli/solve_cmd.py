"""``simlab solve``: the command and what it prints (the library function is :func:`simlab.solve`).

:func:`solve` is registered on the app by ``simlab/cli/__init__.py`` (this module does not import it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from .render import _print_json, _print_table, err_console, out_console

LOWER = "a lower bound: the largest gain any searched response found; a better response may exist"


def _mix(m: dict) -> str:
    return ", ".join(f"{p} {w:.2f}" for p, w in m.items() if w > 1e-9)


def render_solve(res: dict) -> list:
    """The tables and lines of a solve summary, in order (rich tables and strings)."""
    s0, s1 = res["sides"]
    out: list = []
    t = Table(title=f"{res['game']} / {res['scenario']}: solve, value = {res['payoff_meaning']}")
    for c in ("iteration", "population", "value [95% CI]", f"mix of {s0}", f"mix of {s1}",
              "best-response gain (confirmed, 95% CI)", "added"):
        t.add_column(c, overflow="fold")
    for it in res["iterations"]:
        gains, added = [], []
        for s, br in it["best_response"].items():
            c = br.get("confirmed")
            gains.append(f"{s}: {c['gain']:+.4f} [{c['ci'][0]:+.4f}, {c['ci'][1]:+.4f}]" if c else
                         f"{s}: none beat the mix")
            if br.get("added"):
                added.append(br["added"])
        lo, hi = it["value_ci"]
        t.add_row(str(it["iteration"]), f"{len(it['population'][s0])} x {len(it['population'][s1])}",
                  f"{it['value']:+.4f} [{lo:+.4f}, {hi:+.4f}]", _mix(it["mixes"][s0]), _mix(it["mixes"][s1]),
                  "; ".join(gains) or ("(search not finished)" if not it["complete"] else "-"),
                  ", ".join(added) or "-")
    out.append(t)
    for side, recs in (res.get("excluded") or {}).items():
        out.append(f"left out of {side}'s population (their family has a caveat; --include-caveats uses them): "
                   + "; ".join(f"{p} ({c})" for p, c in recs.items()))
    st = res["stop"]
    out.append(f"stopped: {st['reason']} ({st['detail']}); {res['games_played']:,} of {res['budget']:,} games played")
    f = res.get("final")
    if f is None:
        out.append("no iteration finished within the budget: no final mix")
        return out
    lo, hi = f["value_ci"]
    out.append(f"[bold]value at the final mix (iteration {f['iteration']}): {f['value']:+.4f}[/bold] 95% interval "
               f"[{lo:+.4f}, {hi:+.4f}]")
    for s, m in f["mixes"].items():
        out.append(f"final mix of {s}: {_mix(m)}")
    ex = f["exploitability"]
    if ex["estimate"] is not None:
        per = "; ".join(f"{s} {v['gain']:+.4f}" for s, v in ex["per_side"].items())
        out.append(f"[bold]exploitability estimate: {ex['estimate']:.4f}[/bold] ({per}) — {LOWER}")
    out += _rollout_lines(ex)
    return out


def _rollout_lines(ex: dict) -> list[str]:
    """The rollout response's lines of a summary's ``exploitability``: its gains (``--method
    auto|rollout|both``), or one line saying why there is none ("rollout: not available for GAME")."""
    out = [f"rollout: {ex['rollout']}"] if ex.get("rollout") and not ex.get("rollout_per_side") else []
    for s, r in (ex.get("rollout_per_side") or {}).items():
        if r.get("gain") is None:
            out.append(f"rollout response of {s}: {r.get('note', 'not measured')}")
            continue
        o = r["over_knobs"]
        out.append(f"rollout response of {s} ({r['rollouts']} rollouts from {r['base']}, {r['games']:,} games per "
                   f"opponent): gain {r['gain']:+.4f} [{r['ci'][0]:+.4f}, {r['ci'][1]:+.4f}]; its base on the same "
                   f"games {r['knob_gain']:+.4f} [{r['knob_ci'][0]:+.4f}, {r['knob_ci'][1]:+.4f}]; rollout - base "
                   f"{o['gain']:+.4f} [{o['ci'][0]:+.4f}, {o['ci'][1]:+.4f}]")
    pm = ex.get("per_method")
    if pm:
        k = "-" if pm["knobs"] is None else f"{pm['knobs']:.4f}"
        r = "-" if pm["rollout"] is None else f"{pm['rollout']:.4f}"
        out.append(f"exploitability by method: knobs {k}, rollout {r}; reported: the larger")
    out += list(ex.get("misses") or [])
    return out


def render_solve_grid(res: dict) -> list:
    """The table of a grid solve's summary (``solve-grid.json``): a row per option setting."""
    t = Table(title=f"{res['game']} / {res['scenario']}: solve per option setting, value = {res['payoff_meaning']}")
    axes = list(res["grid"])
    for c in (*axes, "value at the final mix [95% CI]", "exploitability (lower bound)", "stopped by", "games"):
        t.add_column(c, overflow="fold")
    for r in res["cells"]:
        v, ci = r["value"], r["value_ci"]
        t.add_row(*(str(r["options"][a]) for a in axes),
                  "-" if v is None else f"{v:+.4f} [{ci[0]:+.4f}, {ci[1]:+.4f}]",
                  "-" if r["exploitability"] is None else f"{r['exploitability']:.4f}",
                  r["stop"]["reason"], f"{r['games_played']:,}")
    return [t, f"each setting's solve: {res['path']}/<setting>/ (solve.json, policies.toml); budget "
               f"{res['budget_per_cell']:,} games per setting, seed {res['seed']}"]


def solve(
    game: Annotated[str, typer.Argument(help="game name (two sides)")],
    scenario: Annotated[str | None, typer.Option(help="scenario name or file")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="OPTION=VALUE or SIDE.KNOB=VALUE; repeatable")] = None,
    grid: Annotated[list[str] | None, typer.Option(
        help="OPTION=V1,V2: one solve per setting of the product (each with --budget and --seed), into --out/<setting>/")] = None,
    data: Annotated[Path | None, typer.Option(help="data pack override (TOML)")] = None,
    budget: Annotated[int, typer.Option(help="the most games the whole solve plays")] = 200_000,
    epsilon: Annotated[float, typer.Option(help="stop when no best response gains significantly more (payoff units)")] = 0.01,
    seed: Annotated[int, typer.Option(help="the seed of every sweep and of the optimiser")] = 0,
    exploit: Annotated[str | None, typer.Option(help="SIDE=POLICY: measure one policy (a best response against it)")] = None,
    method: Annotated[str, typer.Option(
        help="auto: both where the game has a rollout exploiter, else knobs; knobs: the knob search only (no "
             "closing rollout); rollout: the rollout exploiter from each side's best preset; both: the knob search, "
             "then the rollout exploiter from the knob best response (the exploitability is the larger gain)")] = "auto",
    rollouts: Annotated[int, typer.Option(help="the rollout exploiter's play-outs per candidate and decision")] = 4,
    rollout_games: Annotated[int | None, typer.Option(
        help="the rollout response's games per opponent (fresh seeds, not charged to --budget)",
        show_default="400; auto: min(100, --confirm-games)")] = None,
    include_caveats: Annotated[bool, typer.Option(
        help="also use policies whose family has a caveat (e.g. a solo AI under other rules); left out by default")] = False,
    meta_games: Annotated[int, typer.Option(help="games per meta-game pairing")] = 2000,
    search_games: Annotated[int, typer.Option(help="games per search candidate and opponent")] = 400,
    confirm_games: Annotated[int, typer.Option(help="games per confirmation pairing (fresh seeds)")] = 4000,
    generations: Annotated[int, typer.Option(help="CMA-ES generations per best-response search")] = 6,
    popsize: Annotated[int | None, typer.Option(help="CMA-ES candidates per generation (default 4 + 3 ln d)")] = None,
    iterations: Annotated[int, typer.Option(help="the most iterations")] = 10,
    workers: Annotated[int | None, typer.Option(help="workers: threads, processes or dask workers", show_default="all cores")] = None,
    out: Annotated[Path | None, typer.Option(help="output directory (default results/solve-<game>-<time>)")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace the solve already in --out")] = False,
    progress: Annotated[bool, typer.Option(help="progress lines on stderr")] = True,
    json_: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
    backend: Annotated[str | None, typer.Option(help="where the sweeps run: local or dask")] = None,
    scheduler: Annotated[str | None, typer.Option(help="dask scheduler address")] = None,
) -> None:
    """Search best responses over the policy knobs (PSRO): the value at equilibrium of the found
    population, each side's mix, and an exploitability estimate (a lower bound)."""
    from ..solve import solve as run
    res = run(game, scenario=scenario, set_=set_ or [], grid=grid or [], data=data, budget=budget, epsilon=epsilon,
              seed=seed, out=out, overwrite=overwrite, workers=workers, backend=backend, scheduler=scheduler,
              progress=progress, meta_games=meta_games, search_games=search_games, confirm_games=confirm_games,
              generations=generations, popsize=popsize, iterations=iterations, exploit=exploit,
              include_caveats=include_caveats, method=method, rollouts=rollouts, rollout_games=rollout_games)
    if json_:
        _print_json(res)
        return
    if grid:
        err_console.print(f"wrote {res['path']} (solve-grid.json, a solve per setting)")
        for part in render_solve_grid(res):
            _print_table(part) if isinstance(part, Table) else out_console.print(part)
        return
    err_console.print(f"wrote {res['path']} (solve.json, policies.toml, sweeps/)")
    if exploit:
        _print_exploit(res)
        return
    for part in render_solve(res):
        _print_table(part) if isinstance(part, Table) else out_console.print(part)


def _print_exploit(res: dict) -> None:
    (side, pol), = res["fixed"].items()
    f = res.get("final")
    if f is None:
        out_console.print("the budget ended before the search finished: nothing measured")
        return
    for s, v in f["exploitability"]["per_side"].items():
        it = res["iterations"][f["iteration"] - 1]
        br = it["best_response"][s]
        ci = v.get("ci")
        knobs = ", ".join(f"{k}={x}" for k, x in (br.get("knobs") or {}).items())
        out_console.print(f"best response of {s} to {side}={pol}: " + (f"family {br['family']} ({knobs})" if knobs or
                          br.get("family") else "none beat the presets"))
        out_console.print(f"[bold]its gain over {s}'s best preset: {v['gain']:+.4f}[/bold]"
                          + (f" 95% interval [{ci[0]:+.4f}, {ci[1]:+.4f}]" if ci else "")
                          + f"; the value against {pol} was {it['value']:+.4f} with the presets — {LOWER}")
    for line in _rollout_lines(f["exploitability"]):
        out_console.print(line)
