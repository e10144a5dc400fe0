"""Figures of sweeps and analyses (matplotlib only), used by ``simlab plot`` and the notebooks.

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot's global state
(so it is safe in worker processes and tests); :func:`plot` saves one to PNG or SVG.

Kinds:

* ``winrate``: win rate of each side (and the draw rate) against a numeric grid option, with
  95% Wilson bands, or per cell as bars with 95% Wilson intervals when the grid is categorical;
  from a sweep directory, or from a tune directory (then with the fitted curve and the fair
  value and its interval marked);
* ``tune``: a tune directory's points, fitted curves, fair value and interval;
* ``scores``: histograms of each side's final score, one panel per cell;
* ``matrix``: a meta-game's policy matrix as a heatmap (payoff = first side's win rate minus the
  second's), with the equilibrium mixes in the labels; or the win-rate matrix of any sweep with
  two policy axes (:func:`simlab.plot_kinds.sweep_matrix_figure`);
* ``sprt``: a comparison's SPRT path (log-likelihood ratio per discordant game) with its bounds;
* ``solve``: a solve directory's value per iteration with its bootstrap interval, and each side's
  confirmed best-response gain (the exploitability estimate, a lower bound) per iteration.

Every side has one colour in every figure (the game's declared colour,
:func:`simlab.colors.side_colors`), draws are grey, heat-map labels are black or white by
contrast with their cell, and titles name the game and scenario once.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .colors import DRAW_COLOR, side_colors, two_side_cmap
from .errors import InputError, SpecError, SweepStateError
from .plot_kinds import (
    annotate_heatmap,
    categorical_winrate_figure,
    figure_title,
    sprt_figure,
    sweep_matrix_figure,
    sweep_scenario,
)

__all__ = ["KINDS", "matrix_figure", "plot", "scores_figure", "solve_figure", "tune_figure", "winrate_figure"]

KINDS = ("winrate", "scores", "matrix", "tune", "solve", "sprt", "sensitivity")
FORMATS = (".png", ".svg")


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise SweepStateError(f"{path}: unreadable ({e})") from None


def _axis_label(name: str, unit: str = "") -> str:
    return f"{name} ({unit})" if unit else name


def tune_figure(summary: dict) -> Figure:
    """Win rate against the tuned option: points with 95% Wilson intervals, fitted curves, fair value.

    With equal win rates as the target the root is where the first side wins half the decided
    games; that curve (a share of decided games, not a win rate) is drawn on its own right-hand
    axis with its own legend, beside the line at 1/2 it crosses.

    Args:
        summary: a ``tune.json`` (:func:`simlab.analysis.tune`).
    """
    fig = Figure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    x = np.array([p["value"] for p in summary["points"]], dtype=float)
    colors = side_colors(summary.get("game"), summary["sides"])
    for s in summary["sides"]:
        y = np.array([p["sides"][s]["win_rate"] for p in summary["points"]], dtype=float)
        lo = np.array([p["sides"][s]["ci"][0] for p in summary["points"]], dtype=float)
        hi = np.array([p["sides"][s]["ci"][1] for p in summary["points"]], dtype=float)
        ax.errorbar(x, y, yerr=np.clip([y - lo, hi - y], 0, None), fmt="o", ms=3, capsize=2, color=colors[s],
                    label=f"{s} wins (95% CI)")
        curve = summary.get("curve", {}).get("sides", {}).get(s)
        if curve is not None:
            ax.plot(summary["curve"]["x"], curve, color=colors[s], lw=1.0, alpha=0.7,
                    label=f"{s}: monotone fit")
    fair = summary.get("curve", {}).get("fair")
    share = isinstance(fair, dict) and summary.get("target") is None
    if isinstance(fair, dict) and not share:
        ax.plot(fair["x"], fair["y"], color="black", lw=1.6, alpha=0.8,
                label=f"{fair['fit']} fit for the root: {summary['curve'].get('fair_label', '')}")
    d = np.array([p["draw_rate"] for p in summary["points"]], dtype=float)
    if np.nanmax(d) > 0:
        ax.plot(x, d, "s", ms=3, color=DRAW_COLOR, label="draws")
    fv = summary.get("fair_value")
    ci = summary.get("ci") or [None, None]
    lo_x, hi_x = float(x.min()), float(x.max())
    if ci[0] is not None or ci[1] is not None:
        ax.axvspan(ci[0] if ci[0] is not None else lo_x, ci[1] if ci[1] is not None else hi_x, color="gold",
                   alpha=0.25, label=f"{summary.get('confidence', 0.95):.0%} interval")
    if fv is not None:
        ax.axvline(fv, color="black", ls="--", lw=1, label=f"fair value {fv:.3g}")
    if summary.get("target") is not None:
        ax.axhline(summary["target"], color="black", ls=":", lw=1, label=f"target {summary['target']:g}")
    ax.set_xlabel(_axis_label(summary["param"], summary.get("unit", "")))
    ax.set_ylabel("win rate (fraction of games)")
    ax.set_ylim(-0.02, 1.02)
    what = ("equal win rates" if summary.get("target") is None
            else f"{summary.get('side')} win rate = {summary['target']:g}")
    pols = ", ".join(f"{k}={v}" for k, v in (summary.get("policies") or {}).items())
    ax.set_title(figure_title(summary["game"], summary["scenario"], f"{summary['param']} for {what} "
                              f"({summary['method']})") + (f"\n{pols}" if pols else ""), fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    if share:
        first = summary["sides"][0]
        bx = ax.twinx()
        bx.plot(fair["x"], fair["y"], color="black", lw=1.6, alpha=0.8,
                label=f"{fair['fit']} fit: share of decided games won by {first} (right axis)")
        bx.axhline(0.5, color="black", ls=":", lw=1, label="share 1/2: equal win rates (the root)")
        bx.set_ylim(-0.02, 1.02)
        bx.set_ylabel(f"share of decided games won by {first}")
        bx.legend(fontsize=8, loc="upper right")
    return fig


def winrate_figure(path: str | Path, param: str | None = None) -> Figure:
    """Win rate of each side against a numeric grid option of a sweep, with 95% Wilson bands.

    Args:
        path: a sweep directory whose grid has a numeric option (or a tune directory).
        param: the option on the x axis (default: the only numeric grid option).

    Raises:
        SpecError: if the sweep has no numeric grid option (or several and ``param`` is None).
        SweepStateError: if ``path`` is not a sweep directory.
    """
    p = Path(path)
    if (p / "tune.json").exists():
        return tune_figure(_read_json(p / "tune.json"))
    from .results import report
    from .sweeps.manifest import load_manifest
    man = load_manifest(p)
    rows = report(p)
    numeric = [k for k in man.get("grid_options", [])
               if all(isinstance(r["params"].get(k), (int, float)) and not isinstance(r["params"].get(k), bool)
                      for r in rows)]
    if param is None:
        if not numeric:
            return categorical_winrate_figure(p)
        if len(numeric) != 1:
            raise SpecError(f"{p}: choose the x axis with --param (numeric grid options: {', '.join(numeric)})")
        param = numeric[0]
    elif param not in numeric:
        return categorical_winrate_figure(p, param)
    others = [k for k in rows[0]["params"] if k != param]
    groups: dict[str, list[dict]] = {}
    for r in rows:
        key = ", ".join(f"{k}={r['params'][k]}" for k in others)
        groups.setdefault(key, []).append(r)
    fig = Figure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    colors = side_colors(man["game"], man["sides"])
    styles = [("o", "-"), ("s", "--"), ("^", "-."), ("D", ":"), ("v", (0, (5, 1))), ("P", (0, (3, 1, 1, 1)))]
    for g, (key, rs) in enumerate(groups.items()):
        rs = sorted(rs, key=lambda r: r["params"][param])
        x = np.array([r["params"][param] for r in rs], dtype=float)
        marker, ls = styles[g % len(styles)]
        for s in man["sides"]:
            y = np.array([r["sides"][s]["win_rate"] for r in rs])
            lo = np.array([r["sides"][s]["ci"][0] for r in rs])
            hi = np.array([r["sides"][s]["ci"][1] for r in rs])
            label = f"{s} wins" + (f" ({key})" if key else "")
            ax.plot(x, y, marker=marker, ls=ls, ms=3, color=colors[s], label=label)
            ax.fill_between(x, lo, hi, color=colors[s], alpha=0.15 if len(groups) > 1 else 0.2)
        dr = np.array([r["draw_rate"] for r in rs])
        if dr.max() > 0:
            ax.plot(x, dr, marker=marker, ls=ls, ms=3, color=DRAW_COLOR, label="draws" + (f" ({key})" if key else ""))
    ax.set_xlabel(_axis_label(param, _option_unit(man["game"], param)))
    ax.set_ylabel("win rate (fraction of games; bands: 95% Wilson)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(figure_title(man["game"], sweep_scenario(man), f"win rate against {param}", man.get("experiment")),
                 fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _option_unit(game: str, param: str) -> str:
    from .analysis.tune import unit_of
    from .games import get_game
    try:
        opt = get_game(game).option_map().get(param)
    except InputError:
        return ""
    return unit_of(opt.doc) if opt is not None else ""


def scores_figure(path: str | Path, max_cells: int = 36) -> Figure:
    """Histograms of each side's final score, one panel per cell (the first ``max_cells``; the
    title says so when there are more).

    Raises:
        SweepStateError: if ``path`` is not a sweep directory with games.
    """
    from .results import load_table
    from .sweeps.manifest import load_manifest
    p = Path(path)
    man = load_manifest(p)
    sides = man["sides"]
    colors = side_colors(man["game"], sides)
    t = load_table(p, "games", ["cell"] + [f"score_{s}" for s in sides])
    cell = t["cell"].to_numpy()
    every = np.unique(cell)
    cells = every[:max_cells]
    params = {c["cell"]: c["params"] for c in man["cells"]}
    k = len(cells)
    ncol = min(3, k)
    nrow = int(np.ceil(k / ncol))
    fig = Figure(figsize=(4.2 * ncol, 3.2 * nrow), layout="constrained")
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for i, c in enumerate(cells):
        ax = axes[i // ncol][i % ncol]
        m = cell == c
        vals = [t[f"score_{s}"].to_numpy()[m].astype(float) for s in sides]
        lo = min(v.min() for v in vals)
        hi = max(v.max() for v in vals)
        integral = all(np.allclose(v * 2, np.round(v * 2)) for v in vals) and hi - lo <= 200
        bins = np.arange(np.floor(lo) - 0.25, np.ceil(hi) + 0.75, 0.5) if integral else 30
        for s, v in zip(sides, vals, strict=True):
            ax.hist(v, bins=bins, alpha=0.55, color=colors[s], label=f"{s} (mean {v.mean():.2f})")
        label = ", ".join(f"{a}={b}" for a, b in params.get(int(c), {}).items()) or f"cell {c}"
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("final score (game points, VP)")
        ax.set_ylabel("games")
        ax.legend(fontsize=7)
    for j in range(k, nrow * ncol):
        axes[j // ncol][j % ncol].set_visible(False)
    more = f" (cells {cells[0]}–{cells[-1]} of {every.size})" if every.size > cells.size else ""
    fig.suptitle(figure_title(man["game"], sweep_scenario(man), f"final scores{more}", man.get("experiment")),
                 fontsize=10)
    return fig


def matrix_figure(summary: dict) -> Figure:
    """The meta-game's policy matrix as a heatmap (payoff, with both sides' win rates annotated).

    Args:
        summary: a ``meta.json`` (:func:`simlab.analysis.meta`).
    """
    sides = summary["sides"]
    rows = summary["policies"][sides[0]]
    cols = summary["policies"][sides[1]]
    a = np.asarray(summary["payoff"], dtype=float)
    fig = Figure(figsize=(1.6 * len(cols) + 3.2, 1.0 * len(rows) + 2.4), layout="constrained")
    ax = fig.add_subplot()
    colors = side_colors(summary.get("game"), sides)
    im = ax.imshow(a, cmap=two_side_cmap(colors[sides[1]], colors[sides[0]]), vmin=-1, vmax=1, aspect="auto")
    cb = fig.colorbar(im, ax=ax)
    cb.set_label(f"payoff: {sides[0]} win rate − {sides[1]} win rate")
    mix0 = summary["mixes"][sides[0]]
    mix1 = summary["mixes"][sides[1]]
    ax.set_xticks(range(len(cols)), [f"{c}\n(mix {mix1[c]:.2f})" for c in cols], fontsize=8)
    ax.set_yticks(range(len(rows)), [f"{r} (mix {mix0[r]:.2f})" for r in rows], fontsize=8)
    ax.set_xlabel(f"{sides[1]} policy")
    ax.set_ylabel(f"{sides[0]} policy")
    texts = [[f"{sides[0]} {summary['cells'][i][j]['sides'][sides[0]]['rate']:.1%}\n"
              f"{sides[1]} {summary['cells'][i][j]['sides'][sides[1]]['rate']:.1%}" for j in range(len(cols))]
             for i in range(len(rows))]
    annotate_heatmap(ax, im, texts)
    lo, hi = summary["value_ci"]
    ax.set_title(figure_title(summary["game"], summary["scenario"], f"equilibrium value {summary['value']:+.3f} "
                              f"[{lo:+.3f}, {hi:+.3f}]"), fontsize=10)
    return fig


def solve_figure(summary: dict) -> Figure:
    """Value per iteration (with its 95% bootstrap interval) and each side's confirmed best-response
    gain per iteration (95% interval): the exploitability estimate, a lower bound.

    Args:
        summary: a ``solve.json`` (:func:`simlab.solve`).
    """
    its = summary["iterations"]
    x = [it["iteration"] for it in its]
    fig = Figure(figsize=(8, 6), layout="constrained")
    ax, bx = fig.subplots(2, 1, sharex=True)
    v = np.array([it["value"] for it in its])
    lo = np.array([it["value_ci"][0] for it in its])
    hi = np.array([it["value_ci"][1] for it in its])
    ax.fill_between(x, lo, hi, alpha=0.25, label="95% bootstrap interval")
    ax.plot(x, v, "o-", label="value of the population's meta-game")
    ax.set_ylabel(f"value ({summary['sides'][0]} − {summary['sides'][1]} win rate)")
    ax.legend(fontsize=8)
    colors = side_colors(summary.get("game"), summary["sides"])
    for k, s in enumerate(summary["sides"]):
        pts = [(it["iteration"], it["best_response"][s]["confirmed"]) for it in its
               if s in it.get("best_response", {}) and it["best_response"][s].get("confirmed")]
        if not pts:
            continue
        xs = np.array([p[0] for p in pts]) + (k - 0.5) * 0.08
        g = np.array([p[1]["gain"] for p in pts])
        err = np.array([[p[1]["gain"] - p[1]["ci"][0], p[1]["ci"][1] - p[1]["gain"]] for p in pts]).T
        bx.errorbar(xs, g, yerr=np.clip(err, 0, None), fmt="o-", capsize=3, color=colors[s],
                    label=f"{s}'s best-response gain")
    eps = summary.get("epsilon")
    if eps is not None:
        bx.axhline(eps, color="grey", ls="--", lw=0.8, label=f"epsilon {eps:g}")
    bx.axhline(0, color="black", lw=0.5)
    bx.set_xlabel("iteration")
    bx.set_xticks(x)
    bx.set_ylabel("gain over the mix (a lower bound\non exploitability)")
    bx.legend(fontsize=8)
    fig.suptitle(figure_title(summary["game"], summary["scenario"], f"solve (stopped: {summary['stop']['reason']})"),
                 fontsize=10)
    return fig


def plot(path: str | Path, kind: str | None = None, out: str | Path | None = None,
         param: str | None = None) -> Path:
    """Draw a sweep or an analysis and save it.

    Args:
        path: a sweep directory, or a tune / meta / solve / compare / sensitivity directory
            (``tune.json`` / ``meta.json`` / ``solve.json`` / ``compare.json`` / ``sensitivity.json``).
        kind: one of :data:`KINDS`; default ``sensitivity`` (μ* against σ) for a sensitivity
            directory, ``solve`` for a solve directory, ``tune`` for a tune
            directory, ``matrix`` for a meta directory, ``sprt`` for a comparison run with
            ``--sprt``; for a sweep ``winrate`` with a numeric grid option, ``matrix`` with two
            policy axes, ``winrate`` (bars) with another varying option, else ``scores``.
        out: ``.png`` or ``.svg`` file (default ``<path>/plot-<kind>.png``).
        param: the x-axis option of ``winrate`` (a sweep with several numeric grid options).

    Returns:
        The file written.

    Raises:
        SpecError: an unknown kind, a kind the directory cannot give, or an unknown file type.
        SweepStateError: ``path`` is not a sweep or analysis directory.
    """
    p = Path(path)
    if not p.is_dir():
        raise SweepStateError(f"{p} is not a directory")
    if kind is not None and kind not in KINDS:
        raise SpecError(f"--kind {kind!r}: choose one of {', '.join(KINDS)}")
    if out is not None and Path(out).suffix.lower() not in FORMATS:
        raise SpecError(f"--out {out}: the file must end in .png or .svg")
    tune_json, meta_json, solve_json = p / "tune.json", p / "meta.json", p / "solve.json"
    compare_json, sens_json = p / "compare.json", p / "sensitivity.json"
    if kind is None:
        if sens_json.exists():
            kind = "sensitivity"
        elif solve_json.exists():
            kind = "solve"
        elif tune_json.exists():
            kind = "tune"
        elif meta_json.exists():
            kind = "matrix"
        elif compare_json.exists() and _read_json(compare_json).get("sprt"):
            kind = "sprt"
        else:
            kind = _sweep_kind(p)
    if kind == "tune" or (kind == "winrate" and tune_json.exists()):
        if not tune_json.exists():
            raise SpecError(f"{p}: --kind tune needs a tune directory (no tune.json)")
        fig = tune_figure(_read_json(tune_json))
    elif kind == "solve":
        if not solve_json.exists():
            raise SpecError(f"{p}: --kind solve needs a solve directory (no solve.json)")
        fig = solve_figure(_read_json(solve_json))
    elif kind == "sensitivity":
        if not sens_json.exists():
            raise SpecError(f"{p}: --kind sensitivity needs a sensitivity directory (no sensitivity.json)")
        from .plot_kinds import sensitivity_figure
        fig = sensitivity_figure(_read_json(sens_json))
    elif kind == "sprt":
        if not compare_json.exists():
            raise SpecError(f"{p}: --kind sprt needs a compare directory (no compare.json)")
        fig = sprt_figure(p, _read_json(compare_json))
    elif kind == "matrix" and meta_json.exists():
        fig = matrix_figure(_read_json(meta_json))
    elif kind == "matrix":
        from .views import policy_axes
        if not (p / "manifest.json").exists() or len(policy_axes(_report(p))) < 2:
            raise SpecError(f"{p}: --kind matrix needs a meta directory or a sweep with two policy axes "
                            "(--policy SIDE=A,B for two sides)")
        fig = sweep_matrix_figure(p)
    else:
        sweep = _sweep_dir(p)
        fig = winrate_figure(sweep, param) if kind == "winrate" else scores_figure(sweep)
    target = Path(out) if out is not None else p / f"plot-{kind}.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target, dpi=120)
    return target


def _sweep_dir(p: Path) -> Path:
    if (p / "manifest.json").exists():
        return p
    for sub in ("sweep", "played", "pass-1", "a"):
        if (p / sub / "manifest.json").exists():
            return p / sub
    raise SweepStateError(f"{p} is not a sweep directory (no manifest.json)")


def _report(p: Path) -> list[dict]:
    from .results import report
    return report(p)


def _sweep_kind(p: Path) -> str:
    """The default figure of a sweep: ``winrate`` for a numeric grid option, ``matrix`` for two
    policy axes, ``winrate`` (bars) for another option that varies, else ``scores``."""
    if _has_numeric_grid(p):
        return "winrate"
    from .sweeps.manifest import load_manifest
    from .views import policy_axes
    sweep = _sweep_dir(p)
    man = load_manifest(sweep)
    params = [c.get("params", {}) for c in man.get("cells", [])]
    varying = [k for k in (params[0] if params else {}) if len({str(q.get(k)) for q in params}) > 1]
    if sweep == p and sum(k.startswith("policy_") for k in varying) >= 2 and len(policy_axes(_report(p))) >= 2:
        return "matrix"
    return "winrate" if varying else "scores"


def _has_numeric_grid(p: Path) -> bool:
    from .sweeps.manifest import load_manifest
    man = load_manifest(_sweep_dir(p))  # a damaged manifest is reported here, in one line
    for k in man.get("grid_options", []):
        vals = [c["params"].get(k) for c in man.get("cells", [])]
        if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            return True
    return False
