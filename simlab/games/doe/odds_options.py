"""The ``simlab odds doe-battle`` command as plain data: its typed options and the report of a result
(Rules 6.2-6.3, 8.3, 10: the odds of :mod:`.odds`). No numba, no command-line library: the CLI
builds the command from :data:`ODDS_OPTIONS` and draws :func:`odds_report`'s tables.
"""

from __future__ import annotations

from typing import Any

from ..odds import OddsOption, Table

__all__ = ["ODDS_OPTIONS", "odds_report"]

#: the options of ``simlab odds doe-battle`` (keywords of ``DoeBattle.odds``). Without --exact or
#: --mc the odds are exact when the battle is small enough (always for --rounds 1), else Monte
#: Carlo with 200,000 battles; the output says which.
ODDS_OPTIONS = (
    OddsOption("battle", str, argument=True, required=True,
               doc="battle file (TOML) or built-in scenario name, e.g. puerto-rico-passage"),
    OddsOption("rounds", int, doc="stop after K rounds (a battle still going counts as neither)"),
    OddsOption("exact", bool, dest="method", const="exact",
               doc="exact odds (refused, in one line, when the battle is too big)"),
    OddsOption("games", int, flag="--mc", also={"method": "monte_carlo"}, doc="Monte Carlo with N battles"),
    OddsOption("seed", int, 0, doc="Monte Carlo master seed"),
    OddsOption("data", str, doc="data pack override (TOML)"),
    OddsOption("options", str, flag="--set", pairs=True,
               doc="OPTION=VALUE (max_rounds, speed_disengage); repeatable"),
)


def odds_report(res: dict[str, Any]) -> list[str | Table]:
    """The human-readable form of :func:`simlab.games.doe.odds.game_odds`'s dict: the sides' win
    chances (by gunfire, by speed, leader killed), a summary line, each unit's fate, the data pack."""

    def pct(x: float) -> str:
        return f"{100 * x:.2f}%"

    exact = res["method"] == "exact"
    if exact:
        how = f"exact: {res.get('engine', '')}" + (f", {res['states']:,} states" if "states" in res else "")
        if "state_rounds" in res:
            how += f", {res['state_rounds']:,} state-rounds"
    else:
        how = f"Monte Carlo: {res['games']:,} battles, seed {res['seed']}, 95% Wilson intervals"
    if res.get("chosen_automatically"):
        how += " (chosen automatically)"
    lim = f"stops after {res['rounds']} round(s)" if res["rounds"] is not None else "whole battle"
    title = (f"{res.get('title') or res.get('scenario', 'battle')} — {lim}, "
             f"speed_disengage={res['speed_disengage']}, max_rounds={res['max_rounds']}")
    cols = ("side", "wins") + (() if exact else ("95% CI",)) + ("by gunfire", "by speed", "leader", "leader killed")
    t = Table(cols, title=title, caption=how, right=tuple(c for c in cols if c not in ("side", "leader")))
    for name, v in res["sides"].items():
        row = [name, pct(v["p_win"])]
        if not exact:
            row.append(f"{100 * v['ci'][0]:.2f}–{pct(v['ci'][1])}")
        lead = f"{v['leader'] or 'leader'} ({v['leader_stars']}★)" if v["leader_stars"] else "-"
        row += [pct(v["p_win_gunfire"]), pct(v["p_win_speed"]), lead,
                pct(v["p_leader_killed"]) if v["leader_stars"] else "-"]
        t.add_row(*row)
    summary = (f"neither side wins: {pct(res['p_neither'])} (both lines emptied in the same round "
               f"{pct(res['p_mutual'])}, still fighting at the round limit {pct(res['p_unfinished'])}); "
               f"mean rounds {res['mean_rounds']:.3f}")
    if res.get("tail_bound"):
        summary += (f"; P(longer than {res['max_rounds'] if res['rounds'] is None else res['rounds']} rounds) "
                    f"<= {res['tail_bound']:.1e}")
    ucols = ("side", "unit", "sunk", "disabled", "escaped", "in line", "mean damage")
    u = Table(ucols, right=ucols[2:])
    for r in res["units"]:
        u.add_row(r["side"], r["name"], pct(r["p_sunk"]), pct(r["p_disabled"]), pct(r["p_escaped"]),
                  pct(r["p_in_line"]), f"{r['mean_damage']:.3f}")
    parts: list[str | Table] = [t, summary, u]
    d = res.get("data")
    if d:
        c = d["counts"]
        parts.append(f"data pack {d['name']} {d['version']} ({d['hash']}): {d['values_used']} values used — "
                     f"{c['rulebook']} rulebook, {c['example']} example, {c['provisional']} provisional, "
                     f"{c['user']} user (`simlab data show dawn-of-empire`)")
    return parts
