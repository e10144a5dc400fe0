"""Ship a finished ``simlab solve`` as the game's solved population for its scenario.

    python -m simlab.testing.solved_install SOLVE_DIR [--why TEXT] [--wall SECONDS] [--dry-run]

copies ``policies.toml`` and ``solve.json`` from ``SOLVE_DIR`` into
``simlab/games/<game>/solved/<scenario>/`` (the folder beside the game's ``policy_file``), writes
``conditions.json`` (``solve.json``'s ``"conditions"``, indented one space, keys sorted),
``golden.sha256`` (the digest of the game's golden file as it is now: the rows the population was
solved on) and a ``README.md`` whose every figure is read from the solve's own files: the command
that reproduces it (rebuilt from ``solve.json``), why it stopped, the value at each iteration, the
final mix's exploitability per side, each scripted preset's figure with its interval and each
side's largest possible gain. ``--why`` is one paragraph put after the title (what changed since the
last population); ``--wall`` the solve's wall-clock seconds, if measured. With ``--dry-run`` the
README is printed and nothing is written.

It refuses (exit 2, one line) a solve that is not complete (no ``conditions`` stamp), one run under
options other than the game's defaults (a shipped population describes a default sweep), one whose
golden stamp (``conditions.game_version``) is not the golden file's present digest (the rows moved
since it was solved: re-run it), and a scenario the game does not ship.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tomllib
from pathlib import Path

from ..errors import InputError
from ..games import get_game

__all__ = ["install", "readme"]

#: ``simlab solve``'s defaults (:func:`simlab.solve.loop.solve`; this layer may not import it, so
#: ``tests/test_solved_install.py`` checks the copy against its signature)
SOLVE_DEFAULTS = {"budget": 200000, "epsilon": 0.01, "meta_games": 2000, "search_games": 400,
                  "confirm_games": 4000, "generations": 6, "iterations": 10, "popsize": None, "method": "auto",
                  "rollouts": 4, "rollout_games": None}
#: the closing rollout's games per opponent of a ``--method auto`` solve: ``min(AUTO_ROLLOUT_GAMES,
#: confirm_games)`` (``simlab.solve.rollout.AUTO_GAMES``); an explicit ``rollout``/``both``: 400
AUTO_ROLLOUT_GAMES = 100
EXPLICIT_ROLLOUT_GAMES = 400

ROOT = Path(__file__).resolve().parents[2]


def _fmt(x: float) -> str:
    return f"{x:+.3f}".replace("-", "\u2212")


def _ci(ci) -> str:
    return f"[{_fmt(ci[0])}, {_fmt(ci[1])}]"


def _gain(r: dict) -> str:
    lo, hi = r["ci"]
    return f"{r['gain']:.3f} [{max(lo, 0.0):.3f}, {hi:.3f}]"


def _mix(m: dict) -> str:
    parts = [(p, w) for p, w in m.items() if w > 0]
    if len(parts) == 1:
        return f"`{parts[0][0]}`"
    return " / ".join(f"`{p}` {w:.2f}" for p, w in sorted(parts, key=lambda t: -t[1]))


def command(run: dict) -> str:
    """The ``simlab solve`` command line that reproduces the solve in ``run`` (its ``solve.json``);
    a setting at ``simlab solve``'s default (:data:`SOLVE_DEFAULTS`) is left out."""
    defaults = SOLVE_DEFAULTS
    st = run["settings"]
    have = {"budget": run["budget"], "epsilon": run["epsilon"], **st}
    args = [f"simlab solve {run['game']} --scenario {run['scenario']}"]
    for key in ("budget", "meta_games", "search_games", "confirm_games", "generations", "popsize",
                "iterations", "epsilon"):
        v = have.get(key)
        if v is not None and v != defaults[key]:
            args.append(f"--{key.replace('_', '-')} {v}")
    # a solve.json written before --method auto (issue 29) has only the method it played, knobs by default
    asked = run.get("method_requested", run.get("method", "knobs"))
    if asked not in ("auto", "knobs") or (asked == "knobs" and "method_requested" in run):
        args.append(f"--method {asked}")
    if run.get("method", "knobs") != "knobs":
        if st.get("rollouts", defaults["rollouts"]) != defaults["rollouts"]:
            args.append(f"--rollouts {st['rollouts']}")
        usual = (min(AUTO_ROLLOUT_GAMES, st.get("confirm_games", defaults["confirm_games"])) if asked == "auto"
                 else EXPLICIT_ROLLOUT_GAMES)
        if st.get("rollout_games", usual) != usual:
            args.append(f"--rollout-games {st['rollout_games']}")
    args.append(f"--seed {run['seed']} --out DIR")
    lines, cur = [], "    "
    for a in args:
        if len(cur) + len(a) > 100:
            lines.append(cur.rstrip() + " \\")
            cur = "        "
        cur += a + " "
    lines.append(cur.rstrip())
    return "\n".join(lines)


def readme(run: dict, book: dict, scenario_title: str, game_title: str, why: str = "",
           wall: float | None = None, where: str = "") -> str:
    """The README.md of a solved population, every figure read from ``run`` (``solve.json``) and
    ``book`` (the parsed ``policies.toml``)."""
    sides = run["sides"]
    its = run["iterations"]
    final = run["final"]
    v = final["value"]
    stop = run["stop"]
    played = run["games_played"]
    out = [f"# {game_title}, {scenario_title}: a solved population (`simlab solve`)", ""]
    if why:
        out += [why.strip(), ""]
    out += ["Default options, provisional data pack values; each side's population starts from the presets the scenario",
            "offers it (caveat families left out):", "", command(run), ""]
    took = f" ({wall / 60:.1f} min wall)" if wall else ""
    out += [f"Stopped by {stop['reason']} after {len(its)} iteration(s) and {played:,} of {run['budget']:,} games"
            f"{took}: {stop['detail']}. Values are the {run['payoff_meaning']}; the rows do not depend on the "
            "workers. **Read the intervals with the game counts in mind**: the stop says no searched response "
            "gained *significantly* more than epsilon at this precision, not that none exists.", ""]
    out += ["| | value | 95% interval | mix |", "|---|---:|---|---|"]
    for k, it in enumerate(its):
        n = it["iteration"]
        label = ("script presets (iteration 1)" if k == 0 else f"iteration {n}")
        if n == final["iteration"]:
            label = "final mix" + (f" (iteration {n})" if k else ", the script presets (iteration 1)")
        elif not it.get("complete", True):
            label += " (incomplete: the budget ended in its search; not the final mix)"
        mix = "; ".join(f"{s} {_mix(it['mixes'][s])}" for s in sides)
        out.append(f"| {label} | {_fmt(it['value'])} | {_ci(it['value_ci'])} | {mix} |")
    ex = final["exploitability"]
    per = "; ".join(f"{s} {_fmt(r['gain'])} {_ci(r['ci'])}" if r.get("ci") else
                    f"{s} {_fmt(r['gain'])}: {r.get('note', 'no response beat the mix')}"
                    for s, r in ex["per_side"].items())
    out += ["", f"Exploitability estimate of the final mix: {ex['estimate']:.3f} ({per}) \u2014 a lower bound."]
    if stop["reason"] != "epsilon":
        out[-1] += (f" **Not converged**: the solve stopped on its {stop['reason']} with a response still gaining "
                    f"{ex['estimate']:.3f}, so this population is not an equilibrium and its value is that of this "
                    "population only; a larger budget (or the rollout exploiter, `--method both`) is the next step.")
    for side, r in (ex.get("rollout_per_side") or {}).items():  # the rollout response closing the solve (issue 29)
        if r.get("gain") is None:
            out.append(f"Rollout response of {side}: {r.get('note', 'not measured')}.")
            continue
        o = r["over_knobs"]
        out.append(f"Rollout response of {side} ({r['rollouts']} rollouts from `{r['base']}`, {r['games']:,} games per "
                   f"opponent): gain {_fmt(r['gain'])} {_ci(r['ci'])} over {side}'s mix, its base "
                   f"{_fmt(r['knob_gain'])} on the same games, rollout − base {_fmt(o['gain'])} {_ci(o['ci'])}.")
    if ex.get("per_method"):
        pm = ex["per_method"]
        out.append("Exploitability by method: knobs " + ("-" if pm["knobs"] is None else f"{pm['knobs']:.3f}")
                   + ", rollout " + ("-" if pm["rollout"] is None else f"{pm['rollout']:.3f}")
                   + "; the estimate above is the larger.")
    out += list(ex.get("misses") or [])
    if ex.get("rollout"):
        out.append(f"Rollout response: {ex['rollout']}.")
    out.append("")
    recorded = book.get("exploitability", {})
    presets = []
    for s in sides:
        for p in recorded.get(s, {}):
            if p not in presets:
                presets.append(p)
    out += ["Exploitability of each scripted preset (the best population response's gain against it over the value, a",
            "lower bound, with its 95% interval; `simlab report`, `simlab meta` and `simlab games` print these for runs",
            "under exactly the solve's conditions, `conditions.json`; otherwise \"unmeasured\" and the condition that",
            "differs):", "",
            "| side | " + " | ".join(presets) + " |", "|---|" + "---:|" * len(presets)]
    for s in sides:
        cells = [(_gain(recorded[s][p]) if p in recorded.get(s, {}) else "(not offered)") for p in presets]
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    out += ["", f"On one scale per side (docs/solve.md): against a {sides[0]} policy a response gains at most "
            f"1 + v = {1 + v:.3f}, against a {sides[1]} policy at most 1 \u2212 v = {1 - v:.3f} (v = {_fmt(v)}, the "
            "final mix's value).", ""]
    if where:
        out += [f"Use it with `--policy {sides[0]}=@mix:{where}` (likewise {sides[1]}) or `--policies-file "
                f"{where}/policies.toml`.", ""]
    return "\n".join(out)


def install(solve_dir: str | Path, why: str = "", wall: float | None = None, dry_run: bool = False) -> Path:
    """Install the solve in ``solve_dir`` as its game's shipped population (module docstring).

    Returns:
        The population's folder (``simlab/games/<game>/solved/<scenario>``).

    Raises:
        InputError: an incomplete solve, non-default options, a stale golden stamp, or a scenario
            the game does not ship; OSError: unreadable files.
    """
    src = Path(solve_dir)
    run = json.loads((src / "solve.json").read_text())
    cond = run.get("conditions")
    if not cond:
        raise InputError(f"{src}: solve.json has no conditions stamp (an unfinished or older solve)")
    g = get_game(run["game"])
    if run["options"] != dict(g.resolve_options({})):
        raise InputError(f"{src}: solved under options other than {g.name}'s defaults; a shipped population describes a default sweep")
    sc = g.load_scenario(run["scenario"])
    if sc.name != run["scenario"]:
        raise InputError(f"{src}: scenario {run['scenario']!r} is not one {g.name} ships")
    golden = ROOT / "tests" / "golden" / f"{g.name}.json"
    digest = hashlib.sha256(golden.read_bytes()).hexdigest()
    if cond.get("game_version") != digest:
        raise InputError(f"{src}: solved on other {g.name} rows than {golden.relative_to(ROOT)} holds now; re-run the solve")
    pf = getattr(g, "policy_file", None)
    if pf is None:
        raise InputError(f"{g.name} has no policy file, so no solved folder")
    dest = Path(pf).parent / "solved" / sc.name
    book = tomllib.loads((src / "policies.toml").read_text())
    title = (getattr(g, "title", "") or g.name.replace("-", " ").title()).split(":")[0]
    text = readme(run, book, getattr(sc, "title", "") or sc.name.replace("-", " ").title(), title, why, wall,
                  str(dest.relative_to(ROOT)))
    if dry_run:
        print(text)
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("policies.toml", "solve.json"):
        shutil.copyfile(src / name, dest / name)
    (dest / "conditions.json").write_text(json.dumps(cond, indent=1, sort_keys=True) + "\n")
    (dest / "golden.sha256").write_text(f"{digest}  {golden.relative_to(ROOT)}\n")
    (dest / "README.md").write_text(text)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simlab.testing.solved_install",
                                 description="ship a finished simlab solve as the game's solved population")
    ap.add_argument("solve_dir")
    ap.add_argument("--why", default="", help="a paragraph after the title: what changed since the last population")
    ap.add_argument("--wall", type=float, default=None, help="the solve's wall-clock seconds")
    ap.add_argument("--dry-run", action="store_true", help="print the README, write nothing")
    a = ap.parse_args(argv)
    try:
        dest = install(a.solve_dir, a.why, a.wall, a.dry_run)
    except (InputError, OSError, ValueError, KeyError) as e:
        print(f"solved_install: error: {e}", file=sys.stderr)
        return 2
    if not a.dry_run:
        print(f"installed {dest.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
