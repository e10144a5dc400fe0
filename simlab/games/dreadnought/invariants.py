"""Invariants of played campaigns (Rules 9.5, 11.0-11.9, 12.6), for the soak and the tests.

:func:`campaign_violations` checks a :class:`~simlab.games.base.Batch` of the ``campaign`` or
``extended-campaign`` scenario against facts that must hold whatever the dice and the policies,
computed from the output alone (so the check is independent of the kernel's bookkeeping): each
ship in at most one scenario, fleets within their limits, scenario scores made of their parts,
Victory Points within what the enemy risked (9.54), the bonuses of 9.55 and 11.6, the Bombardment
and Interception Bonuses within their bounds (11.3-11.4), campaign totals and winners, and the
extended campaign's treasuries and end.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...datapack import DataPack
from ..base import Batch, Scenario
from .enums import CAMPAIGN_END_NAMES, END_REASONS, EXTENDED_END_NAMES, LEVEL_NAMES

SUBSTANTIAL = LEVEL_NAMES.index("substantial")
UNCONTESTED = END_REASONS.index("uncontested")
LOOP_CAP = END_REASONS.index("loop_cap")


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def campaign_violations(scenario: Scenario, batch: Batch, options: Mapping, pack: DataPack) -> list[str]:
    """Everything wrong with a batch of campaigns, one line each (empty: nothing wrong); ``pack`` is
    the game's data pack (its ``campaign_rules``)."""
    out: list[str] = []
    name = scenario.name
    extended = name == "extended-campaign"
    g = {k: np.asarray(v) for k, v in batch.games.items()}
    ev = {k: np.asarray(v) for k, v in batch.events.get("scenarios", {}).items()}
    n = len(g["winner"])
    if not ev:
        return [f"{name}: no scenarios table"]
    vals = {k: int(v["value"].value) for k, v in pack.tables["campaign_rules"].items()}
    bonus = {LEVEL_NAMES.index("marginal"): vals["victory_marginal"],
             LEVEL_NAMES.index("substantial"): vals["victory_substantial"],
             LEVEL_NAMES.index("decisive"): vals["victory_decisive"]}
    lookup = np.array([bonus.get(i, 0) for i in range(len(LEVEL_NAMES))], dtype=np.int64)
    game = ev["game"]
    rows_per_game = np.bincount(game, minlength=n)
    if (rows_per_game != g["scenarios_played"]).any():
        out.append(f"{name}: scenarios_played does not match the scenarios table")
    # ---- each scenario row
    for k, side in enumerate(("north", "south")):
        other = ("north", "south")[1 - k]
        if (ev[f"damage_vp_{side}"] > ev[f"value_{other}"]).any():
            out.append(f"{name}: {side} scored more damage VPs than the enemy ships it met were worth (9.54)")
        expect = np.where(ev["winner"] == k, lookup[ev["victory_level"].astype(np.int64)], 0)
        if (ev[f"bonus_{side}"] != expect).any():
            i = _first(ev[f"bonus_{side}"] != expect)
            out.append(f"{name}: {side}'s victory bonus {ev[f'bonus_{side}'][i]} does not match its result (9.55)")
    parts0 = ev["damage_vp_north"] + ev["bonus_north"] + ev["interception_north"]
    parts1 = ev["damage_vp_south"] + ev["bonus_south"] + ev["interception_south"] + ev["bombardment_bonus"]
    if (parts0 != ev["score_north"]).any() or (parts1 != ev["score_south"]).any():
        out.append(f"{name}: a scenario's score is not the sum of its parts")
    c = ev["scenario"] == 2
    if (ev["interception_north"][~c] != 0).any() or (ev["interception_south"][~c] != 0).any():
        out.append(f"{name}: interception points outside scenario C")
    ib = ev["interception_bonus"][c]
    if ((ib < vals["interception_min"]) | (ib > vals["interception_max"])).any():
        out.append(f"{name}: an Interception Bonus outside {vals['interception_min']}-{vals['interception_max']} (11.4)")
    if ((ev["interception_north"][c] + ev["interception_south"][c]) != ib).any() or \
            (ev["interception_north"][c] < 0).any():
        out.append(f"{name}: the convoy's Interception Bonus is not split between North and South (11.4)")
    b = ev["scenario"] == 1
    if (ev["bombardment_bonus"][~b] != 0).any():
        out.append(f"{name}: a Bombardment Bonus outside scenario B")
    if (ev["bombardment_bonus"][b] > ev["south_capital_attack"][b]).any():
        out.append(f"{name}: a Bombardment Bonus above the South's capital ships' Attack Strength (11.3)")
    unc = ev["end_reason"] == UNCONTESTED
    one = (ev["units_north"] > 0) != (ev["units_south"] > 0)
    if (unc != ((ev["units_north"] == 0) | (ev["units_south"] == 0))).any():
        out.append(f"{name}: a scenario with no ships on a side was played, or one with both was conceded")
    if unc.any():
        w = np.where(ev["units_north"] > 0, 0, 1)
        bad = unc & one & ((ev["winner"] != w) | (ev["victory_level"] != SUBSTANTIAL))
        if bad.any():
            out.append(f"{name}: an uncontested scenario is not a Substantial Victory of the side that came (11.6)")
    limit = int(options.get("game_length") or 0) or vals["scenario_turn_limit"]
    played = ~unc & (ev["end_reason"] != LOOP_CAP)
    if (ev["turns"][played] > limit).any() or (ev["contact_turn"][played] < 1).any():
        out.append(f"{name}: a scenario without contact or past its {limit} Game-Turns")
    if (ev["violations"] > 0).any():
        out.append(f"{name}: {int((ev['violations'] > 0).sum())} scenarios broke a tactical invariant "
                   "(stacking, damage bounds) after a Movement Phase")
    # ---- each game
    w = g["winner"]
    a, bb = g["score_north"], g["score_south"]
    if ((w == 0) != (a > bb)).any() or ((w == 1) != (bb > a)).any() or ((w == -1) != (a == bb)).any():
        out.append(f"{name}: the winner is not the side with the larger total")
    if not extended:
        if (rows_per_game != 4).any():
            out.append(f"{name}: a campaign did not play scenarios A-D once each (11.6)")
        elif (ev["scenario"] != np.tile(np.arange(4), n)).any() or (game != np.repeat(np.arange(n), 4)).any():
            out.append(f"{name}: scenarios not played in the order A, B, C, D (11.6)")
        for side in ("north", "south"):
            tot = np.bincount(game, ev[f"score_{side}"], minlength=n)
            if (tot != g[f"score_{side}"]).any():
                out.append(f"{name}: score_{side} is not the sum of the scenarios' scores")
            if (g[f"fleet_value_{side}"] > g[f"limit_{side}"]).any():
                out.append(f"{name}: the {side} fleet exceeds its fleet value limit (11.8)")
            assigned = np.bincount(game, ev[f"value_{side}"], minlength=n)
            units = np.bincount(game, ev[f"units_{side}"], minlength=n)
            if (assigned > g[f"fleet_value_{side}"]).any() or (units > g[f"fleet_units_{side}"]).any():
                out.append(f"{name}: {side} assigned more ships to scenarios A-D than its fleet has "
                           "(a ship in two scenarios, 11.0)")
        ok = set(range(len(CAMPAIGN_END_NAMES)))
    else:
        ok = set(range(len(EXTENDED_END_NAMES)))
        turns = g["turns"]
        if (turns < 0).any() or (turns > vals["last_turn"]).any():
            out.append(f"{name}: Extended Campaign Game-Turns outside 0..{vals['last_turn']} (12.66)")
        for side in ("north", "south"):
            final = g[f"treasury_{side}_t12"]
            if (final != g[f"score_{side}"]).any():
                out.append(f"{name}: the final treasury of {side} is not its score (12.66)")
            if (g[f"fleet_value_{side}"] > g[f"limit_{side}"]).any():
                out.append(f"{name}: the {side} initial fleet exceeds its limit (12.61)")
        peace = EXTENDED_END_NAMES.index("peace")
        p = g["end_reason"] == peace
        if (p != (g["peace_turn"] > 0)).any() or (g["peace_turn"][p] < 2).any():
            out.append(f"{name}: a peace without its roll (12.62: two dice equal to the Game-Turn)")
        bank = g["end_reason"] == EXTENDED_END_NAMES.index("bankrupt")
        if (bank != ((g["score_north"] <= 0) | (g["score_south"] <= 0))).any():
            out.append(f"{name}: a treasury at zero that did not end the game, or a bankruptcy without one (12.66)")
        # 12.63-12.65: the treasury moves only by victory bonuses, the convoy's balance (South), the
        # Bombardment Bonus (out of the North's), cures, repairs and construction
        north = ev["north_player"].astype(np.int64)
        for p, side in enumerate(("north", "south")):
            as_n = north == p
            flow = (np.where(as_n, ev["bonus_north"], ev["bonus_south"])
                    + np.where(as_n, 0, ev["interception_south"]) - np.where(as_n, ev["bombardment_bonus"], 0)
                    - np.where(as_n, ev["cured_north"], ev["cured_south"]) * vals["damage_control_cost"])
            expect = (g[f"treasury_{side}_t00"] + np.bincount(game, flow.astype(np.int64), minlength=n)
                      - g[f"repaired_{side}"] - g[f"built_{side}"])
            if (expect != g[f"score_{side}"]).any():
                i = _first(expect != g[f"score_{side}"])
                out.append(f"{name}: the {side} treasury does not add up (game {i}: {int(g[f'score_{side}'][i])} "
                           f"against {int(expect[i])} from its bonuses, cures, repairs and construction, 12.63-12.65)")
        if (ev["ext_turn"] < 1).any() or (ev["ext_turn"] > vals["last_turn"]).any():
            out.append(f"{name}: a campaign scenario outside Extended Campaign Game-Turns 1..{vals['last_turn']}")
    if not set(np.unique(g["end_reason"]).tolist()) <= ok:
        out.append(f"{name}: end_reason codes outside their labels")
    return out


__all__ = ["campaign_violations"]
