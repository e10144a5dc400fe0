"""Figures of :mod:`simlab.plots` drawn from a sweep's report or a comparison: the win-rate matrix
of a sweep with two policy axes, win rates on a categorical axis (bars with intervals), and the
SPRT path of ``simlab compare --sprt`` with its bounds; and the helpers every figure shares (a
title that names game and scenario once, heat-map labels in a readable colour).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .colors import DRAW_COLOR, side_colors, text_color, two_side_cmap
from .errors import SpecError

__all__ = ["annotate_heatmap", "categorical_winrate_figure", "figure_title", "sensitivity_figure", "sprt_figure",
           "sweep_matrix_figure", "sweep_scenario"]


def figure_title(game: str, scenario: str | None, what: str, experiment: str | None = None) -> str:
    """``"<game> / <scenario>: <what>"``, each name once; an experiment name is added only when it
    is neither the game's nor the scenario's."""
    head = game if not scenario or scenario == game else f"{game} / {scenario}"
    if experiment and experiment not in (game, scenario):
        head = f"{experiment} — {head}"
    return f"{head}: {what}" if what else head


def sweep_scenario(man: dict) -> str | None:
    """The scenario every cell of a sweep plays, or None when cells play different ones (then the
    scenario is a grid axis and each cell's label names it)."""
    keys = {c.get("scenario") for c in man.get("cells", [])}
    if len(keys) != 1:
        return None
    key = keys.pop()
    return (man.get("scenarios", {}).get(key) or {}).get("name", key)


def annotate_heatmap(ax, im, texts: list[list[str]], fontsize: float = 7) -> list:
    """Write ``texts[i][j]`` on cell ``(i, j)`` of an ``imshow`` heat map, each in black or white,
    whichever contrasts more with that cell's colour (:func:`simlab.colors.text_color`).

    Returns:
        The matplotlib Text objects, row by row (an empty string is not drawn).
    """
    a = np.asarray(im.get_array(), dtype=float)
    out = []
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if not texts[i][j]:
                continue
            bg = im.cmap(im.norm(a[i, j])) if np.isfinite(a[i, j]) else im.cmap.get_bad()
            out.append(ax.text(j, i, texts[i][j], ha="center", va="center", fontsize=fontsize, color=text_color(bg)))
    return out


def sweep_matrix_figure(path: str | Path, max_groups: int = 6) -> Figure:
    """The win-rate matrix of a sweep with two policy axes, as heat maps: the row side's win rate
    (colour, 0 to 1) with its 95% Wilson interval and the column side's win rate in each cell;
    one panel per value of the other grid options (the first ``max_groups``).

    Raises:
        SpecError: if the sweep has fewer than two policy axes.
        SweepStateError: if ``path`` is not a sweep with games.
    """
    from .results import report
    from .sweeps.manifest import load_manifest
    from .views import policy_matrices
    p = Path(path)
    man = load_manifest(p)
    rows = report(p)
    mats = policy_matrices(rows, man["sides"])
    shown = mats[:max_groups]
    nr = max(len(m["rows"]) for m in shown)
    nc = max(len(m["cols"]) for m in shown)
    ncol = min(2, len(shown))
    nrow = int(np.ceil(len(shown) / ncol))
    fig = Figure(figsize=(ncol * (1.7 * nc + 2.6), nrow * (0.95 * nr + 1.9) + 0.6), layout="constrained")
    axes = fig.subplots(nrow, ncol, squeeze=False)
    colors = side_colors(man["game"], man["sides"])
    cmap = two_side_cmap(colors[shown[0]["col_side"]], colors[shown[0]["row_side"]])
    im = None
    for k, m in enumerate(shown):
        ax = axes[k // ncol][k % ncol]
        rs, cs = m["row_side"], m["col_side"]
        a = np.full((len(m["rows"]), len(m["cols"])), np.nan)
        texts = [["" for _ in m["cols"]] for _ in m["rows"]]
        for i, line in enumerate(m["cells"]):
            for j, c in enumerate(line):
                if c is None:
                    continue
                v, w = c["sides"][rs], c["sides"][cs]
                a[i, j] = v["win_rate"]
                texts[i][j] = (f"{rs} {v['win_rate']:.1%}\n[{v['ci'][0]:.1%}, {v['ci'][1]:.1%}]\n"
                               f"{cs} {w['win_rate']:.1%}")
        im = ax.imshow(np.ma.masked_invalid(a), cmap=cmap, vmin=0, vmax=1, aspect="auto")
        annotate_heatmap(ax, im, texts)
        ax.set_xticks(range(len(m["cols"])), m["cols"], fontsize=8)
        ax.set_yticks(range(len(m["rows"])), m["rows"], fontsize=8)
        ax.set_xlabel(f"{cs} policy ({m['col_axis']})")
        ax.set_ylabel(f"{rs} policy ({m['row_axis']})")
        grp = ", ".join(f"{x}={y}" for x, y in m["group"].items())
        if grp:
            ax.set_title(grp, fontsize=9)
    for j in range(len(shown), nrow * ncol):
        axes[j // ncol][j % ncol].set_visible(False)
    cb = fig.colorbar(im, ax=axes.ravel().tolist())
    cb.set_label(f"{shown[0]['row_side']} win rate (fraction of games)")
    more = f" (first {len(shown)} of {len(mats)} groups)" if len(mats) > len(shown) else ""
    fig.suptitle(figure_title(man["game"], sweep_scenario(man), "win rate by policy pairing, 95% Wilson intervals"
                              + more, man.get("experiment")), fontsize=10)
    return fig


def categorical_winrate_figure(path: str | Path, param: str | None = None) -> Figure:
    """Each side's win rate (and the draw rate) per cell of a sweep, as bars with 95% Wilson
    intervals, in each side's colour; cells in the order of ``param``'s values (then the other
    grid options), labelled by the options that vary.

    Raises:
        SpecError: ``param`` is not a grid option of the sweep.
        SweepStateError: if ``path`` is not a sweep with games.
    """
    from .results import report
    from .sweeps.manifest import load_manifest
    p = Path(path)
    man = load_manifest(p)
    rows = report(p)
    keys = list(rows[0]["params"])
    varying = [k for k in keys if len({str(r["params"][k]) for r in rows}) > 1]
    if param is not None:
        if param not in keys:
            raise SpecError(f"{p}: '{param}' is not a grid option (grid options: {', '.join(keys) or 'none'})")
        order = {v: i for i, v in enumerate(dict.fromkeys(str(r["params"][param]) for r in rows))}
        rows = sorted(rows, key=lambda r: order[str(r["params"][param])])
        varying = [param] + [k for k in varying if k != param]
    sides = man["sides"]
    colors = side_colors(man["game"], sides)
    draws = any(r["draw_rate"] > 0 for r in rows)
    series = list(sides) + (["draws"] if draws else [])
    width = 0.8 / len(series)
    x = np.arange(len(rows))
    fig = Figure(figsize=(max(6.0, 0.9 * len(rows) * len(series) * 0.45 + 2.5), 4.8), layout="constrained")
    ax = fig.add_subplot()
    for k, s in enumerate(series):
        if s == "draws":
            y = np.array([r["draw_rate"] for r in rows])
            ci = np.array([r.get("draw_ci", [r["draw_rate"]] * 2) for r in rows])
            color, label = DRAW_COLOR, "draws"
        else:
            y = np.array([r["sides"][s]["win_rate"] for r in rows])
            ci = np.array([r["sides"][s]["ci"] for r in rows])
            color, label = colors[s], f"{s} wins"
        err = np.clip(np.vstack([y - ci[:, 0], ci[:, 1] - y]), 0, None)
        ax.bar(x + (k - (len(series) - 1) / 2) * width, y, width, yerr=err, capsize=2, color=color, label=label,
               error_kw={"lw": 0.8})
    labels = ["\n".join(f"{k}={r['params'][k]}" for k in varying) or f"cell {r['cell']}" for r in rows]
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("win rate (fraction of games; bars: 95% Wilson)")
    ax.set_ylim(0, 1.02)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(figure_title(man["game"], sweep_scenario(man), "win rate per cell", man.get("experiment")),
                 fontsize=10)
    return fig


def sprt_path(path: str | Path, summary: dict) -> dict:
    """The SPRT's log-likelihood ratio after each discordant game of a comparison, recomputed from
    its stage sweeps.

    Args:
        path: the compare directory (holding ``a/stage-*`` and ``b/stage-*``).
        summary: its ``compare.json``.

    Returns:
        ``{game: [g], llr: [v], stage_ends: [g]}``: ``game`` is the game number (from 1, over all
        stages, per variant) of each discordant game up to the decision, ``llr`` the ratio after it.
    """
    from .analysis.compare import _codes
    sp = summary["sprt"]
    sides = summary["sides"]
    si = sides.index(summary["side"])
    win = np.log(sp["p1"] / sp["p0"])
    lose = np.log((1 - sp["p1"]) / (1 - sp["p0"]))
    games, llr, ends = [], [], []
    played, cur = 0, 0.0
    base = Path(path)
    for st in sp["stages"]:
        k = st["stage"]
        ca = _codes(base / "a" / f"stage-{k:04d}", sides) == si
        cb = _codes(base / "b" / f"stage-{k:04d}", sides) == si
        disc = np.flatnonzero(ca != cb)
        steps = np.where(cb[disc], win, lose)
        path_k = cur + np.cumsum(steps)
        g = played + disc + 1
        stop = st.get("decided_at")
        if stop:
            keep = g <= stop
            g, path_k = g[keep], path_k[keep]
        games += g.tolist()
        llr += path_k.tolist()
        if path_k.size:
            cur = float(path_k[-1])
        played = st["games"]
        ends.append(played)
        if stop:
            break
    return {"game": games, "llr": llr, "stage_ends": ends}


def sprt_figure(path: str | Path, summary: dict) -> Figure:
    """The SPRT path of a comparison: the log-likelihood ratio after each discordant game against
    the game number, with Wald's bounds (accept P1 at or above the upper, P0 at or below the
    lower) and the decision marked.

    Raises:
        SpecError: if the comparison ran no SPRT.
    """
    if not summary.get("sprt"):
        raise SpecError(f"{path}: --kind sprt needs a comparison run with --sprt (this one played a fixed number "
                        "of games)")
    sp = summary["sprt"]
    pth = sprt_path(path, summary)
    side = summary["side"]
    color = side_colors(summary["game"], summary["sides"])[side]
    fig = Figure(figsize=(7.5, 4.6), layout="constrained")
    ax = fig.add_subplot()
    ax.step([0] + pth["game"], [0.0] + pth["llr"], where="post", color=color, lw=1.2,
            label=f"LLR after each discordant game for {side}")
    ax.axhline(sp["upper"], color="black", ls="--", lw=1, label=f"upper bound {sp['upper']:.3f}: accept P1 = {sp['p1']:g}")
    ax.axhline(sp["lower"], color="black", ls=":", lw=1, label=f"lower bound {sp['lower']:.3f}: accept P0 = {sp['p0']:g}")
    ax.axhline(0, color="grey", lw=0.5)
    for e in pth["stage_ends"][:-1]:
        ax.axvline(e, color="grey", lw=0.4, alpha=0.5)
    if sp.get("decided_at") and pth["game"]:
        ax.plot([pth["game"][-1]], [pth["llr"][-1]], "o", color="black", ms=5,
                label=f"decision: accept {'P1' if sp['decision'] == 'H1' else 'P0'} at game {sp['decided_at']:,}")
    ax.set_xlabel("games played per variant (faint lines: stage ends)")
    ax.set_ylabel("log-likelihood ratio (P1 against P0)")
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    verdict = {"H0": "accepts P0", "H1": "accepts P1", None: "undecided"}[sp["decision"]]
    ax.set_title(figure_title(summary["game"], summary["scenario"],
                              f"SPRT on {sp['meaning']}; {verdict}") + "\n" + _ab_line(summary), fontsize=9)
    return fig


def _ab_line(summary: dict) -> str:
    from .views import variant_label
    va, vb = summary["variants"]["a"], summary["variants"]["b"]
    return f"A = {variant_label(va, vb)}; B = {variant_label(vb, va)}"


def sensitivity_figure(summary: dict, label: int = 12) -> Figure:
    """``simlab sensitivity``'s Morris screen: each factor's μ* (with its 95% interval) against σ,
    the ``label`` largest named; Sobol runs show ST against S1 instead.

    Args:
        summary: a ``sensitivity.json`` (:func:`simlab.solve.sensitivity.sensitivity`).
    """
    fig = Figure(figsize=(7.5, 5.5), layout="constrained")
    ax = fig.add_subplot()
    fs = summary["factors"]
    morris = summary["method"] == "morris"
    xk, yk, ck = ("sigma", "mu_star", "mu_star_ci") if morris else ("S1", "ST", "ST_ci")
    x = np.array([f[xk] for f in fs])
    y = np.array([f[yk] for f in fs])
    lo = np.array([f[ck][0] for f in fs])
    hi = np.array([f[ck][1] for f in fs])
    ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], fmt="o", ms=4, capsize=2,
                color="#1f4e79", ecolor="#7f9fbf")
    for f, xi, yi in list(zip(fs, x, y, strict=True))[:label]:
        ax.annotate(f["name"], (xi, yi), textcoords="offset points", xytext=(4, 3), fontsize=7)
    what = (f"{summary['side']} win rate" if summary["output"] == "win-rate" else
            f"{summary['side']} mean score" if summary["output"] == "score" else f"mean {summary['output']}")
    ax.set_xlabel("σ (spread of the elementary effects)" if morris else "S1 (first-order index)")
    ax.set_ylabel("μ* (mean |elementary effect|), 95% interval" if morris else "ST (total index), 95% interval")
    ax.set_title(figure_title(summary["game"], summary.get("scenario"),
                              f"what moves the {what} ({summary['points']:,} points"
                              + ("; responded: sides re-solved at each point" if summary.get("policies") == "responded"
                                 else "") + ")"), fontsize=10)
    ax.grid(alpha=0.3)
    return fig
