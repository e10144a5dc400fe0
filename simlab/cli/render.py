"""What the ``simlab`` command line prints: tables of win rates, balance, tune points, bids, policies
and odds (rich), and JSON. The commands are in :mod:`simlab.cli`."""

from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.table import Table


# rich assumes 80 columns when output is not a terminal; tables of many sides need more
def _tty(f) -> bool:
    """Whether a stream is a terminal (False for a closed one: ``simlab ... >&-`` leaves it None)."""
    try:
        return f is not None and f.isatty()
    except (OSError, ValueError):
        return False


out_console = Console(highlight=False, width=None if _tty(sys.stdout) else 160)
err_console = Console(stderr=True, highlight=False, width=None if _tty(sys.stderr) else 160)


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


def _print_table(t) -> None:
    """Print a table; when stdout is not a terminal (a pipe, a file, a notebook), give it room
    instead of wrapping every cell at 80 columns."""
    if out_console.is_terminal:
        out_console.print(t)
        return
    old = out_console.width
    out_console.width = 200
    try:
        out_console.print(t)
    finally:
        out_console.width = old


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def render_report(rows: list[dict], sides: list[str], title: str = "", parts: str = "all") -> Table:
    """A rich table of :func:`simlab.report` rows: win rates with 95% Wilson intervals.

    ``parts`` selects the columns: ``all`` (one wide table), or for a narrow terminal ``params``
    (cell and its parameters), ``rates`` (cell, games, win rates, draws) or ``scores`` (cell,
    mean scores, mean turns).
    """
    t = Table(title=title or None, show_lines=False)
    show = {"params": parts in ("all", "params"), "rates": parts in ("all", "rates"),
            "scores": parts in ("all", "scores")}
    t.add_column("cell", justify="right")
    if show["params"]:
        t.add_column("params", overflow="fold")
    if show["rates"]:
        t.add_column("games", justify="right", no_wrap=True)
        for s in sides:
            t.add_column(f"{s} win rate [95% CI]", justify="right", no_wrap=True)
        t.add_column("draws", justify="right", no_wrap=True)
    if show["scores"]:
        for s in sides:
            t.add_column(f"{s} score ± se", justify="right", no_wrap=True)
        t.add_column("mean turns", justify="right", no_wrap=True)
    for r in rows:
        cells = [str(r["cell"])]
        if show["params"]:
            cells.append(", ".join(f"{k}={v}" for k, v in r["params"].items()) or "-")
        if show["rates"]:
            cells.append(f"{r['games']:,}")
            for s in sides:
                v = r["sides"][s]
                cells.append(f"{_pct(v['win_rate'])} [{_pct(v['ci'][0]).strip()}, {_pct(v['ci'][1]).strip()}]")
            cells.append(_pct(r["draw_rate"]))
        if show["scores"]:
            for s in sides:
                v = r["sides"][s]
                cells.append(f"{v['mean_score']:.2f} ± {v['score_se']:.2f}")
            cells.append(f"{r['mean_turns']:.2f}")
        t.add_row(*cells)
    return t


def report_title(man: dict) -> str:
    """A sweep's title: its experiment name and game, each once."""
    return man["experiment"] if man["experiment"] == man["game"] else f"{man['experiment']} — {man['game']}"


def _print_report(rows: list[dict], man: dict) -> None:
    """The win-rate and balance tables of a sweep. On a terminal too narrow for one wide table
    (under 180 columns), the parameters, the rates and the scores come as three tables."""
    title = report_title(man)
    if man.get("status") not in (None, "complete"):
        title += f" (sweep {man['status']})"
    if out_console.is_terminal and out_console.width < 180:
        if any(r["params"] for r in rows):
            _print_table(render_report(rows, man["sides"], title=f"{title}: cells", parts="params"))
        _print_table(render_report(rows, man["sides"], title=f"{title}: win rates", parts="rates"))
        _print_table(render_report(rows, man["sides"], title=f"{title}: scores (VP) and length", parts="scores"))
        _print_table(render_balance(rows, man["sides"], parts="sides"))
        _print_table(render_balance(rows, man["sides"], parts="length"))
    else:
        _print_table(render_report(rows, man["sides"], title=title))
        _print_table(render_balance(rows, man["sides"]))
    _print_table(render_exploitability(rows, man["sides"]))
    for line in unmeasured_lines(rows, man["sides"]):
        out_console.print(line, markup=False)
    print_matrices(rows, man)


def print_matrices(rows: list[dict], man: dict) -> None:
    """The win-rate matrices of a grid with two policy axes (:func:`render_matrix`); nothing otherwise."""
    from ..views import policy_axes, policy_matrices
    if len(policy_axes(rows)) >= 2:
        for m in policy_matrices(rows, man["sides"]):
            _print_table(render_matrix(m, man["sides"], title=man["game"]))


def render_exploitability(rows: list[dict], sides: list[str]) -> Table:
    """The policies of each cell with their exploitability estimate where a solve measured it under
    the cell's exact conditions (a lower bound: the largest gain a searched best response found
    over the game's value ``v``, with its interval and, as "of at most M", the most any response
    could gain against that side's policy: ``1 + v`` against the first side's, ``1 - v`` against
    the second's), else "unmeasured" (:func:`unmeasured_lines` says why)."""
    title = "policy strength: exploitability estimate (a lower bound; payoff = win-rate difference"
    if len(sides) == 2:
        title += (f" {sides[0]} − {sides[1]}, value v; a gain is at most 1 + v against {sides[0]}'s policies, "
                  f"1 − v against {sides[1]}'s")
    t = Table(title=title + ")")
    t.add_column("cell", justify="right")
    for s in sides:
        t.add_column(s, overflow="fold")
    for r in rows:
        cells = [str(r["cell"])]
        for s in sides:
            e = (r.get("exploitability") or {}).get(s)
            if not e:
                cells.append("-")
            elif e.get("gain") is None:
                cells.append(f"{e['policy']}: unmeasured" + ("" if e.get("reason") else " (no solve measured it)"))
            else:
                ci = e.get("ci")
                top = e.get("max_gain")
                cells.append(f"{e['policy']}: {e['gain']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
                             + (f" of at most {top:.3f}" if top is not None else ""))
        t.add_row(*cells)
    return t


def unmeasured_lines(rows: list[dict], sides: list[str]) -> list[str]:
    """One line per side (and policy) whose figure a solve measured under other conditions:
    ``"spain: unmeasured (knob raids 1→0 differs from the solve's)"``, prefixed by the cells where
    the sweep has more than one (``"cells 0, 2: ..."``). Policies no solve measured get no line."""
    seen: dict[tuple, list[int]] = {}
    for r in rows:
        for s in sides:
            e = (r.get("exploitability") or {}).get(s) or {}
            if e.get("gain") is None and e.get("reason"):
                seen.setdefault((s, e["policy"], e["reason"]), []).append(r["cell"])
    many = len(rows) > 1
    out = []
    for (s, _pol, why), cells in seen.items():
        where = (f"cell{'s' if len(cells) > 1 else ''} {', '.join(map(str, cells))}: ") if many else ""
        out.append(f"{where}{s}: unmeasured ({why})")
    return out


def render_balance(rows: list[dict], sides: list[str], parts: str = "all") -> Table:
    """A rich table of the balance metrics of :func:`simlab.report` rows: side advantage, draw
    rate, game length and end reasons per cell. ``parts``: ``all``, or for a narrow terminal
    ``sides`` (advantage and draws) or ``length`` (turns and end reasons)."""
    show_sides, show_length = parts in ("all", "sides"), parts in ("all", "length")
    t = Table(title="balance per cell (95% intervals)" if parts != "length" else "game length and end reasons")
    t.add_column("cell", justify="right")
    two = len(sides) == 2 and show_sides
    if two:
        t.add_column(f"{sides[0]} − {sides[1]} win rate", justify="right", no_wrap=True)
        t.add_column("favours", justify="left")
    if show_sides:
        t.add_column("draws", justify="right", no_wrap=True)
    if show_length:
        t.add_column("turns: median (p10–p90, max)", justify="right")
        t.add_column("end reasons", overflow="fold", min_width=14)
    for r in rows:
        cells = [str(r["cell"])]
        if two:
            adv = r.get("side_advantage")
            cells.append("-" if not adv else
                         f"{100 * adv['difference']:+.1f} [{100 * adv['ci'][0]:+.1f}, {100 * adv['ci'][1]:+.1f}] pts")
            cells.append("-" if not adv else (adv["favoured"] or "neither"))
        if show_sides:
            dci = r.get("draw_ci", [r["draw_rate"], r["draw_rate"]])
            cells.append(f"{_pct(r['draw_rate']).strip()} [{_pct(dci[0]).strip()}, {_pct(dci[1]).strip()}]")
        if show_length:
            tr = r.get("turns")
            cells.append("-" if not tr else f"{tr['median']:.0f} ({tr['p10']:.0f}–{tr['p90']:.0f}, {tr['max']})")
            er = r.get("end_reasons") or {}
            cells.append(", ".join(f"{k} {_pct(v['rate']).strip()}" for k, v in er.items()) or "-")
        t.add_row(*cells)
    return t


def render_points(summary: dict) -> Table:
    """The bid/handicap table of a tune: each value's win, draw and loss rates with 95% intervals
    (with two sides one side's losses are the other's wins, so loss columns are shown for more)."""
    sides = summary["sides"]
    pols = ", ".join(f"{k}={v}" for k, v in (summary.get("policies") or {}).items())
    where = f"{summary.get('game', '')} / {summary.get('scenario', '')}" + (f", {pols}" if pols else "")
    t = Table(title=f"{summary['param']}: win / draw / loss rates, % [95% Wilson interval]\n({where})")
    t.add_column(summary["param"] + (f" ({summary['unit']})" if summary.get("unit") else ""), justify="right")
    t.add_column("games", justify="right")
    for s in sides:
        t.add_column(f"{s} wins", justify="right")
    t.add_column("draws", justify="right")
    if len(sides) > 2:
        for s in sides:
            t.add_column(f"{s} loses", justify="right")

    def ci(rate, iv):
        return "-" if rate is None else f"{100 * rate:.1f} [{100 * iv[0]:.1f}, {100 * iv[1]:.1f}]"

    for p in summary["points"]:
        row = [f"{p['value']:g}", f"{p['games']:,}"]
        row += [ci(p["sides"][s]["win_rate"], p["sides"][s]["ci"]) for s in sides]
        row.append(ci(p["draw_rate"], p["draw_ci"]))
        if len(sides) > 2:
            row += [ci(p["sides"][s]["loss_rate"], p["sides"][s]["loss_ci"]) for s in sides]
        t.add_row(*row)
    if len(sides) == 2:
        t.caption = f"{sides[0]} loses when {sides[1]} wins and the reverse"
    return t


def render_bids(bt: dict, unit: str = "") -> Table:
    """One side's bid table (:func:`simlab.analysis.bid_table`)."""
    u = f" ({unit})" if unit else ""
    even = bt["break_even_bid"]
    t = Table(title=f"bidding for {bt['side']}: its win / draw / loss rates, % [95% CI]",
              caption=("break-even bid: " + (f"{even:.3g}{u}" if even is not None else "none (behind at a bid of 0)")))
    for c in (f"bid{u}", "games", "wins", "draws", "losses"):
        t.add_column(c, justify="right")
    for r in bt["rows"]:
        cells = [f"{r['bid']:g}", f"{r['games']:,}"]
        for k in ("win", "draw", "loss"):
            v = r[k]
            cells.append("-" if v["rate"] is None else
                         f"{100 * v['rate']:.1f} [{100 * v['ci'][0]:.1f}, {100 * v['ci'][1]:.1f}]")
        t.add_row(*cells)
    return t


def _figure_text(v: dict) -> str:
    """``"0.012 [0.004, 0.020] of 1.97"`` (gain, interval, the side's maximum gain) or
    ``"unmeasured (knob raids 1→0 differs from the solve's)"``."""
    if v.get("gain") is None:
        return f"unmeasured ({v['reason']})" if v.get("reason") else "unmeasured"
    ci = v.get("ci")
    ci = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    top = f" of {v['max_gain']:.2f}" if v.get("max_gain") is not None else ""
    return f"{v['gain']:.3f}{ci}{top}"


def _print_policy_tables(g: dict) -> None:
    """The game's presets (family and knob values, by side) and its families' knobs, as tables."""
    t = Table(title=f"{g['name']}: policies (presets)", title_justify="left")
    for c in ("side", "preset", "family", "knobs", "exploitability"):
        t.add_column(c, overflow="fold")
    for side, rows in g["presets"].items():
        for r in rows:
            knobs = ", ".join(f"{k}={v:g}" for k, v in r["knobs"].items()) or "-"
            ex = r["exploitability"]
            ex = ex if isinstance(ex, str) else "; ".join(f"{sc}: {_figure_text(v)}" for sc, v in ex.items())
            t.add_row("any" if side == "*" else side, r["name"], r["family"], knobs, ex)
    out_console.print(t)
    for f in g["policy_families"]:
        if f.get("caveat"):
            out_console.print(f"  note ({f['name']}): {f['caveat']}", markup=False)
    fams = [f for f in g["policy_families"] if f["knobs"]]
    if not fams:
        return
    t = Table(title=f"{g['name']}: policy families and their knobs (set as SIDE.KNOB)", title_justify="left")
    for c in ("family", "sides", "knob", "type", "default", "lo", "hi", "doc"):
        t.add_column(c, overflow="fold")
    for f in fams:
        sides = f["sides"] if isinstance(f["sides"], str) else ", ".join(f["sides"])
        for k in f["knobs"]:
            t.add_row(f["name"], sides, k["name"], k["type"], f"{k['default']:g}", f"{k['lo']:g}", f"{k['hi']:g}",
                      k["doc"])
    out_console.print(t)


def _print_odds(parts) -> None:
    """Draw a game's odds report: plain lines, and :class:`simlab.games.odds.Table` s as rich tables."""
    from ..games.odds import Table as PlainTable
    con = Console(highlight=False)
    for p in parts:
        if isinstance(p, PlainTable):
            t = Table(title=p.title or None, caption=p.caption or None)
            for c in p.columns:
                t.add_column(c, justify="right" if c in p.right else "left")
            for r in p.rows:
                t.add_row(*r)
            con.print(t)
        else:
            con.print(str(p), markup=False)


def meta_strength_lines(res: dict) -> list[str]:
    """The lines under a meta-game's table that say how strong its policies are: each policy's
    exploitability and the value under searched play, from the game's shipped solved population
    (``res["solved"]``), or that they are unmeasured."""
    sol = res.get("solved")
    s0, s1 = res["sides"]
    lines: list[str] = []
    if sol:
        from ..measured import max_gain
        for s in (s0, s1):
            per = ", ".join(f"{p} {r['gain']:.3f}" for p, r in sol["presets"].get(s, {}).items())
            top = max_gain(s, (s0, s1), sol.get("value"))
            scale = "" if top is None else f", at most {top:.3f} = 1 {'+' if s == s0 else '−'} v"
            if per:
                lines.append(f"exploitability of {s}'s policies (a lower bound{scale}): {per}")
            for p, why in (sol.get("unmeasured") or {}).get(s, {}).items():
                lines.append(f"{s}: {p} unmeasured ({why})")
        if sol.get("value") is not None:
            vlo, vhi = sol["value_ci"]
            lines.append(f"under searched play ({sol['path']}, stopped by {sol['stop']}): value "
                         f"{sol['value']:+.3f} [{vlo:+.3f}, {vhi:+.3f}], exploitability "
                         f"{sol['exploitability']:.3f} (a lower bound)")
    else:
        lines.append("exploitability of these policies: unmeasured (no solved population for this "
                     "scenario and these options; see simlab solve)")
    return lines


def render_matrix(m: dict, sides: list[str], title: str = "") -> Table:
    """A policy grid's win-rate matrix (:func:`simlab.views.policy_matrices`): the row side's win
    rate with its 95% Wilson interval in each cell, row policy by column policy."""
    rs, cs = m["row_side"], m["col_side"]
    group = ", ".join(f"{k}={v}" for k, v in m["group"].items())
    t = Table(title=(title + ": " if title else "") + f"{rs} win rate, % [95% CI]" + (f"\n{group}" if group else ""))
    t.add_column(f"{rs} \\ {cs}")
    for c in m["cols"]:
        t.add_column(c, justify="right")
    for i, r in enumerate(m["rows"]):
        cells = []
        for c in m["cells"][i]:
            if c is None:
                cells.append("-")
                continue
            v = c["sides"][rs]
            cells.append(f"{100 * v['win_rate']:.1f} [{100 * v['ci'][0]:.1f}, {100 * v['ci'][1]:.1f}]")
        t.add_row(r, *cells)
    others = [s for s in sides if s not in (rs, cs)]
    draws = any(c is not None and c["draw_rate"] > 0 for row in m["cells"] for c in row)
    t.caption = f"rows: {rs}'s policy, columns: {cs}'s; "
    if len(sides) == 2:
        t.caption += f"{cs} wins the rest" + (" less the draws" if draws else "")
    elif others:
        t.caption += f"other sides: {', '.join(others)}"
    t.caption += " (`report --csv` has every rate)"
    return t


def _cell_text(col: str, v) -> str:
    import math
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float):
        if col.startswith(("win_rate_", "ci_low_", "ci_high_", "draw_", "end_")) or col in ("draw_rate", "advantage",
                                                                                            "advantage_ci_low",
                                                                                            "advantage_ci_high"):
            return f"{100 * v:.1f}%"
        return f"{v:.4g}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}" if col in ("games", "draws") or col.startswith("wins_") else str(v)
    return str(v)


def render_columns(rows: list[dict], columns: list[str], title: str = "") -> Table:
    """The chosen flat columns (:func:`simlab.results.report_frame`) of report rows, one row per cell;
    rates as percentages."""
    from ..results import report_frame
    flat = report_frame(rows)
    t = Table(title=title or None)
    for c in columns:
        t.add_column(c, justify="right" if c not in (rows[0]["params"] if rows else {}) else "left")
    for rec in flat.to_dict("records"):
        t.add_row(*[_cell_text(c, rec.get(c)) for c in columns])
    return t


def print_tune(res: dict) -> None:
    """``simlab tune``'s output: the answer first (the fair value and its interval, or why there is
    none and which range to try), then the points table and the bid tables."""
    unit = f" {res['unit']}" if res.get("unit") else ""
    what = "equal win rates" if res["target"] is None else f"{res['side']} win rate {res['target']:g}"
    if res["fair_value"] is None:
        out_console.print(f"[bold]no fair {res['param']} for {what}[/bold]: {res['note']}")
    else:
        lo, hi = res["ci"]
        iv = f"[{'below range' if lo is None else f'{lo:.3g}'}, {'above range' if hi is None else f'{hi:.3g}'}]"
        br = res.get("bracket") or [None, None]
        between = (f"; played values either side: {br[0]:g} and {br[1]:g}{unit}"
                   if None not in br and br[0] != br[1] else "")
        out_console.print(f"[bold]fair {res['param']} for {what}: {res['fair_value']:.3g}{unit}[/bold] "
                          f"{res['confidence']:.0%} interval {iv} ({res['fit']} fit, {res['method']}){between}")
        if res["note"]:
            out_console.print(f"note: {res['note']}", markup=False)
    _print_table(render_points(res))
    for bt in (res.get("bids") or {}).values():
        _print_table(render_bids(bt, res.get("unit", "")))


def print_equilibrium(res: dict) -> None:
    """``simlab tune --equilibrium``'s output: the fair value under solved play and its interval (or
    why there is none), then each value's solved game value, interval and exploitability."""
    if res["fair_value"] is None:
        out_console.print(f"[bold]no fair {res['param']} at equilibrium[/bold]: {res['note']}")
    else:
        lo, hi = res["ci"]
        iv = f"[{'below range' if lo is None else f'{lo:.3g}'}, {'above range' if hi is None else f'{hi:.3g}'}]"
        out_console.print(f"[bold]fair {res['param']} at equilibrium (value 0 under solved play): "
                          f"{res['fair_value']:.3g}[/bold] 95% interval {iv}")
    t = Table(title=f"{res['game']} / {res['scenario']}: {res['value_meaning']}; "
                    f"{res['budget_per_value']:,} games per solve, seed {res['seed']}")
    for c in (res["param"], "value [95% CI]", "exploitability (lower bound)", "stopped", "games"):
        t.add_column(c, justify="right")
    for p in res["points"]:
        ci = p["value_ci"]
        val = "—" if p["game_value"] is None else (
            f"{p['game_value']:+.3f}" + ("" if None in ci else f" [{ci[0]:+.3f}, {ci[1]:+.3f}]"))
        ex = "—" if p["exploitability"] is None else f"{p['exploitability']:.3f}"
        t.add_row(f"{p['value']:g}", val, ex, str(p["stop"] or ""), f"{p['games_played']:,}")
    _print_table(t)
    for c in res.get("caveats", []):
        out_console.print(f"note: {c}", markup=False)


def print_compare(res: dict) -> None:
    """``simlab compare``'s table (B − A per side and draws, paired intervals), naming A and B,
    then the SPRT's verdict."""
    from ..views import variant_label
    va, vb = res["variants"]["a"], res["variants"]["b"]
    la, lb = variant_label(va, vb), variant_label(vb, va)
    t = Table(title=f"{res['game']} / {res['scenario']}: B − A on the same {res['games']:,} seeds "
              f"(95% paired intervals)\nA = {la}\nB = {lb}")
    for c in ("", "A", "B", "B − A [95% CI]", "games only A / only B", "p (McNemar)"):
        t.add_column(c, justify="right", overflow="fold")
    rows = [(f"{s} wins", res["difference"][s]) for s in res["sides"]] + [("draws", res["draws"])]
    for label, d in rows:
        t.add_row(label, _pct(d["a_rate"]), _pct(d["b_rate"]),
                  f"{100 * d['difference']:+.2f} [{100 * d['ci'][0]:+.2f}, {100 * d['ci'][1]:+.2f}] pts",
                  f"{d['a_only']:,} / {d['b_only']:,}", f"{d['p_value']:.3g}" if d["p_value"] > 0 else "< 1e-300")
    _print_table(t)
    sp = res.get("sprt")
    if sp:
        verdict = {"H0": f"accept P0 = {sp['p0']:g}", "H1": f"accept P1 = {sp['p1']:g}",
                   None: "undecided at the game limit"}[sp["decision"]]
        when = (f"at game {sp['decided_at']:,} of the {sp['games']:,} played per variant" if sp.get("decided_at")
                else f"after {sp['games']:,} games per variant")
        out_console.print(f"SPRT ({sp['meaning']}): {verdict} {when} ({sp['discordant']:,} discordant games up to "
                          f"then, {sp['b_better']:,} for B, LLR {sp['llr']:+.3f}); the table above covers every "
                          "game played; `simlab plot` draws its path", markup=False)


def print_meta(res: dict) -> None:
    """``simlab meta``'s output: the first side's win rate per policy pairing, the caveats, the
    equilibrium mixes and the value."""
    s0, s1 = res["sides"]
    t = Table(title=f"{res['game']} / {res['scenario']}: {s0} win rate, % [95% CI] ({s0} policy rows, {s1} columns)")
    t.add_column(f"{s0} \\ {s1}")
    for c in res["policies"][s1]:
        t.add_column(c, justify="right")
    for i, r in enumerate(res["policies"][s0]):
        cells = []
        for j in range(len(res["policies"][s1])):
            c = res["cells"][i][j]["sides"][s0]
            cells.append(f"{100 * c['rate']:.1f} [{100 * c['ci'][0]:.1f}, {100 * c['ci'][1]:.1f}]")
        t.add_row(r, *cells)
    _print_table(t)
    for s in (s0, s1):
        for p, c in res.get("caveats", {}).get(s, {}).items():
            out_console.print(f"note: {s} {p}: {c}", markup=False)
    for s in (s0, s1):
        mix = ", ".join(f"{p} {w:.2f}" for p, w in res["mixes"][s].items() if w > 1e-9)
        out_console.print(f"equilibrium mix of {s}: {mix}")
    lo, hi = res["value_ci"]
    out_console.print(f"[bold]value ({res['payoff_meaning']}): {res['value']:+.3f}[/bold] 95% interval "
                      f"[{lo:+.3f}, {hi:+.3f}]; 0 = balanced at equilibrium")
    for line in meta_strength_lines(res):
        out_console.print(line)
