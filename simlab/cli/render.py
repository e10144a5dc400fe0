"""What the ``simlab`` command line prints: tables of win rates, balance, tune points, bids, policies
and odds (rich), and JSON. The commands are in :mod:`simlab.cli`."""

from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.table import Table

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


def _print_report(rows: list[dict], man: dict) -> None:
    """The win-rate and balance tables of a sweep. On a terminal too narrow for one wide table
    (under 180 columns), the parameters, the rates and the scores come as three tables."""
    title = man["experiment"] if man["experiment"] == man["game"] else f"{man['experiment']} — {man['game']}"
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


def render_exploitability(rows: list[dict], sides: list[str]) -> Table:
    """The policies of each cell with their exploitability estimate where a ``policies.toml``
    records one (a lower bound: the largest gain a searched best response found), else "unmeasured"."""
    t = Table(title="policy strength: exploitability estimate (a lower bound; payoff = win-rate difference)")
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
                cells.append(f"{e['policy']}: unmeasured")
            else:
                ci = e.get("ci")
                cells.append(f"{e['policy']}: {e['gain']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
        t.add_row(*cells)
    return t


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


def _print_policy_tables(g: dict) -> None:
    """The game's presets (family and knob values, by side) and its families' knobs, as tables."""
    t = Table(title=f"{g['name']}: policies (presets)", title_justify="left")
    for c in ("side", "preset", "family", "knobs", "exploitability"):
        t.add_column(c, overflow="fold")
    for side, rows in g["presets"].items():
        for r in rows:
            knobs = ", ".join(f"{k}={v:g}" for k, v in r["knobs"].items()) or "-"
            ex = r["exploitability"]
            ex = ex if isinstance(ex, str) else ", ".join(f"{sc}: {v.get('gain', '?')}" for sc, v in ex.items())
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
        for s in (s0, s1):
            per = ", ".join(f"{p} {r['gain']:.3f}" for p, r in sol["presets"].get(s, {}).items())
            if per:
                lines.append(f"exploitability of {s}'s policies (a lower bound): {per}")
        if sol.get("value") is not None:
            vlo, vhi = sol["value_ci"]
            lines.append(f"under searched play ({sol['path']}, stopped by {sol['stop']}): value "
                         f"{sol['value']:+.3f} [{vlo:+.3f}, {vhi:+.3f}], exploitability "
                         f"{sol['exploitability']:.3f} (a lower bound)")
    else:
        lines.append("exploitability of these policies: unmeasured (no solved population for this "
                     "scenario and these options; see simlab solve)")
    return lines
