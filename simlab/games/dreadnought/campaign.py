"""Dreadnought's Campaign Game (Rules 11.0-11.9) and Extended Campaign (12.6): set-up and output.

The campaign is played as the scenarios ``campaign`` and ``extended-campaign`` of the
``dreadnought`` game (sides ``north`` and ``south``: the players holding the ``north`` and
``south`` options' navies). This module compiles what the kernel needs from the data pack and the
options: each player's national fleet listing (11.1) as an array of units, the campaign's
parameters, the map's lettered hexes and the cruising formations' slots; and turns the output of
:func:`.runtime.run_campaigns` (:func:`.kernels.campaign_loop.play_campaign_batch_nb`: fleet building,
allocation, the four scenarios and, in the extended campaign, up to twelve campaign games with
treasuries, all in one numba call) into a :class:`~simlab.games.base.Batch`: one row per campaign
(or extended campaign) and the events table ``scenarios`` with one row per campaign scenario
played.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...datapack import DataPack, PackView
from ...errors import SpecError
from ..base import Batch
from . import layout as L
from .enums import (
    ALLOCATION_NAMES,
    BUILDER_NAMES,
    CAMPAIGN_END_NAMES,
    CAMPAIGN_SCENARIOS,
    CAPITAL,
    END_REASONS,
    EXTENDED_END_NAMES,
    NAVIES,
    PERIODS,
    ROLE_NORTH,
    SCREEN,
    TYPE_NAMES,
    VC_POINTS,
)
from .geometry import offset_to_cube
from .rules import RuleArrays
from .scenario import RADAR_SIDES

#: the players (layout SIDES): ``north`` holds the ``north`` option's navy
SIDES = L.SIDES
#: Game-Turns the approach may take before it counts as a loop cap (9.26 promises contact)
APPROACH_CAP = 60
#: section orders of the lettered-hex tours (9.22) on the 3 x 2 map, as (top/bottom, west..east)
#: positions; the North's start on the top tier, the South's are the same with the tiers swapped
TOURS = (
    (("T", 0), ("B", 0), ("B", 1), ("T", 1), ("T", 2), ("B", 2)),
    (("T", 2), ("B", 2), ("B", 1), ("T", 1), ("T", 0), ("B", 0)),
    (("T", 0), ("T", 1), ("T", 2), ("B", 2), ("B", 1), ("B", 0)),
    (("T", 2), ("T", 1), ("T", 0), ("B", 0), ("B", 1), ("B", 2)),
    (("T", 1), ("T", 0), ("B", 0), ("B", 1), ("B", 2), ("T", 2)),
    (("T", 1), ("T", 2), ("B", 2), ("B", 1), ("B", 0), ("T", 0)),
    (("T", 0), ("B", 0), ("B", 1), ("B", 2), ("T", 2), ("T", 1)),
    (("T", 2), ("B", 2), ("B", 1), ("B", 0), ("T", 0), ("T", 1)),
)


def _ring(r: int) -> list[tuple[int, int]]:
    return [(x, z) for x in range(-r, r + 1) for z in range(-r, r + 1) if max(abs(x), abs(z), abs(x + z)) == r]


def _bearing(x: int, z: int) -> float:
    """Angle from ahead (north) of a cube offset, clockwise, in -pi..pi (flat-topped hexes)."""
    ex = 1.5 * x
    sy = math.sqrt(3.0) * (z + x / 2.0)    # grows southward
    return math.atan2(ex, -sy)


def _slots(first: list[tuple[int, int]], rings: range, skip_astern: bool) -> np.ndarray:
    out = list(first)
    for r in rings:
        ring = [h for h in _ring(r) if not (skip_astern and h[0] == 0 and h[1] > 0)]
        ring.sort(key=lambda h: (round(abs(_bearing(*h)), 6), -_bearing(*h)))
        out += ring
    return np.array(out, dtype=np.int64)


#: screen stations of a Task Force with capital ships, drawn facing north around the head of its
#: column (the column runs astern of (0, 0)): rings at 2, 3 and 4 hexes, ahead first (9.21)
SLOTS_CAPITAL = _slots([], range(2, 5), skip_astern=True)
#: stations of a Task Force of screen units only: the marker's hex, then rings at 1-3 hexes
SLOTS_SCREENS = _slots([(0, 0)], range(1, 4), skip_astern=False)


@dataclass(frozen=True)
class CampaignSetup:
    """A compiled campaign: what :func:`.runtime.run_campaigns` hands the kernel.

    Attributes:
        period, navies: the options' period and each player's navy (player 0 ``north``).
        po: ``int64[2, P, NPO]`` each player's listing (layout ``PO_*``); npool: ``int64[2]``.
        labels: per player, ``"ID Name"`` of each unit of its listing.
        year: the period's year (8.6 torpedo range, 12.21-12.22).
        sc0: ``int64[NSC]`` the campaign scenarios' template.
        geo: ``(centres, tours_n, tours_s, slots_cap, slots_scr)``.
        values: the campaign rule values read from the pack (``campaign_rules``).
    """

    period: str
    navies: tuple[str, str]
    po: np.ndarray
    npool: np.ndarray
    labels: tuple[tuple[str, ...], tuple[str, ...]]
    year: int
    sc0: np.ndarray
    geo: tuple
    values: dict


def listing_units(view: PackView, period: str, navy: str, year: int, rl: np.ndarray) -> list[dict]:
    """The units of a national fleet listing (Rule 11.1) with their values.

    Every ship of each dreadnought class listed (the ``ships`` table, by the class of its ID), then
    the screen units ``C11, C12, ...`` of each screen class in the quantity listed.

    Args:
        view: the data pack (values read are counted).
        period, navy: e.g. ``"wwi"``, ``"french"``.
        year: the period's year; rl: the compiled rule scalars (radar and spotting-plane years).

    Returns:
        One dict per unit: ``id, name, class, kind, type, attack, defense, range, movement,
        torpedo, value, radar, planes``.

    Raises:
        SpecError: if the navy has no listing in that period (11.1: the minor navies only in WWI).
    """
    key = f"{period}.{navy}"
    if not view.has("fleet_listing", key):
        have = sorted(k.split(".", 1)[1] for k in view.keys("fleet_listing") if k.startswith(period + "."))
        raise SpecError(f"no {navy} fleet listing in the {period} period (11.1; navies: {', '.join(have)})")
    row = view.row("fleet_listing", key)
    ships = {sid: view.value("ships", sid, "name") for sid in view.keys("ships")}
    units = []

    def add(uid, name, cls):
        c = view.row("classes", cls)
        kind = CAPITAL if c["type"] == "capital" else SCREEN
        units.append({
            "id": uid, "name": name, "class": cls, "kind": kind, "type": TYPE_NAMES.index(c["type"]),
            "attack": c["attack"], "defense": c["defense"], "range": c["range"], "movement": c["movement"],
            "torpedo": {"": 0, "1:1": 1, "2:1": 2}[c["torpedo"]] if kind == SCREEN else 0,
            "value": c["attack"] + c["defense"] + c["movement"],
            "radar": 1 if (navy in RADAR_SIDES and year > rl[L.RL_RADAR_YEAR]) else 0,
            "planes": 1 if (c["type"] in ("capital", "CA") and year > rl[L.RL_PLANES_YEAR]) else 0,
        })

    for cls in row["capital"]:
        for sid in sorted(s for s in ships if s[:2] + "0" == cls):
            add(sid, ships[sid], cls)
    for cls, qty in row.items():
        if cls == "capital" or not qty:
            continue
        for k in range(1, qty + 1):
            add(f"{cls[:2]}{k}", "", cls)
    return units


def _geometry(rules: RuleArrays) -> tuple[np.ndarray, tuple, tuple[int, int, int, int]]:
    lay = rules.layout
    letters = sorted(lay.sections)
    centres = np.array([offset_to_cube(*lay.center_offset(s)) for s in letters], dtype=np.int64)
    rows = sorted({v[1] for v in lay.sections.values()})
    cols = sorted({v[0] for v in lay.sections.values()})
    grid = {(v[1], v[0]): letters.index(k) for k, v in lay.sections.items()}
    top, bottom = rows[0], rows[-1]

    def tour(t, north):
        out = []
        for tier, c in t:
            r = (top if tier == "T" else bottom) if north else (bottom if tier == "T" else top)
            out.append(grid[(r, cols[c])])
        return out

    tours_n = np.array([tour(t, True) for t in TOURS], dtype=np.int64)
    tours_s = np.array([tour(t, False) for t in TOURS], dtype=np.int64)
    rect = (cols[0] * lay.cols, (cols[-1] + 1) * lay.cols - 1, top * lay.rows, (bottom + 1) * lay.rows - 1)
    return centres, (tours_n, tours_s), rect


def compile_campaign(pack: DataPack, rules: RuleArrays, period: str, north: str, south: str) -> tuple[CampaignSetup, frozenset]:
    """Compile a campaign for a period and two navies (Rules 11.1, 9.1, 9.13).

    Returns:
        ``(setup, used)``: the :class:`CampaignSetup` and the pack values it read.

    Raises:
        SpecError: on an unknown period or a navy without a listing in it.
    """
    if period not in PERIODS:
        raise SpecError(f"unknown period '{period}' (periods: {', '.join(PERIODS)})")
    view = pack.view()
    values = {k: int(view.value("campaign_rules", k, "value")) for k in view.keys("campaign_rules")}
    year = values[f"period_year_{period.replace('-', '_')}"]
    pools = [listing_units(view, period, navy, year, rules.rl) for navy in (north, south)]
    size = max(1, max(len(p) for p in pools))
    po = np.zeros((2, size, L.NPO), dtype=np.int64)
    labels = []
    for p, units in enumerate(pools):
        lab = []
        for u, d in enumerate(units):
            po[p, u] = (d["kind"], d["type"], d["attack"], d["defense"], d["range"], d["movement"], d["torpedo"],
                        d["value"], d["radar"], d["planes"], u)
            lab.append(d["id"] + (" " + d["name"] if d["name"] else ""))
        labels.append(tuple(lab))
    centres, (tours_n, tours_s), rect = _geometry(rules)
    sc0 = np.zeros(L.NSC, dtype=np.int64)
    sc0[L.SC_CAMPAIGN] = 1
    sc0[L.SC_ROLE0] = ROLE_NORTH
    sc0[L.SC_VC] = VC_POINTS
    sc0[L.SC_VC_SIDE] = -1
    sc0[L.SC_TORP_MA] = rules.torpedo_mp(year)
    sc0[L.SC_YEAR] = year
    sc0[L.SC_MAP_C0], sc0[L.SC_MAP_C1], sc0[L.SC_MAP_R0], sc0[L.SC_MAP_R1] = rect
    lay = rules.layout
    top = min(v[1] for v in lay.sections.values())
    bottom = max(v[1] for v in lay.sections.values())
    sc0[L.SC_SAFE_N_ROW] = (top - 3) * lay.rows + lay.rows - 1
    sc0[L.SC_SAFE_S_ROW] = (bottom + 3) * lay.rows
    setup = CampaignSetup(period=period, navies=(north, south), po=po,
                          npool=np.array([len(p) for p in pools], dtype=np.int64), labels=(labels[0], labels[1]),
                          year=year, sc0=sc0, geo=(centres, tours_n, tours_s, SLOTS_CAPITAL, SLOTS_SCREENS),
                          values=values)
    return setup, frozenset(view.used)


def campaign_used(pack: DataPack) -> frozenset:
    """Every pack value a campaign may read, whatever its options (a scenario's ``used``): the
    campaign rule values, every fleet listing, the ships and the classes they list."""
    view = pack.view()
    view.rows("campaign_rules")
    view.rows("ships")
    classes = set()
    for key in view.keys("fleet_listing"):
        row = view.row("fleet_listing", key)
        classes.update(row["capital"])
        classes.update(c for c, q in row.items() if c != "capital" and q)
    for c in sorted(classes):
        if view.has("classes", c):
            view.row("classes", c)
    return frozenset(view.used)


def _player_policy(options: Mapping, name: str, side: str, policy, choices: tuple[str, ...]) -> int:
    """The option ``<name>_<side>`` as an index of ``choices``; ``auto``: the policy's knob ``name``."""
    v = options.get(f"{name}_{side}", "auto")
    if v == "auto":
        return int(policy.value(name))
    return choices.index(v)


def campaign_parameters(setup: CampaignSetup, rules: RuleArrays, options: Mapping, policies: Mapping,
                        extended: bool) -> np.ndarray:
    """The kernel's ``cp`` (layout ``CP_*``) from the options, the policies and the pack values.

    ``policies``: ``{side: Policy}``; its knobs ``builder`` and ``allocation`` stand where the
    options ``builder_<side>``/``allocation_<side>`` are ``auto`` (11.8, 11.0, 11.6); its knobs
    ``stack`` and ``tour`` are the player's approach (9.21, 9.22; ``CP_STACK0``, ``CP_TOUR0``).

    Fleet value limit (11.8): ``fleet_value_limit`` (0: the period's suggestion, or 300 for the
    extended campaign's initial fleet, 12.61; -1: none), the South's raised by
    ``south_extra_value``. Treasuries (12.61): ``treasury`` (0: the middle of 700-900), the South's
    raised by ``south_extra_treasury``.
    """
    v = setup.values
    cp = np.zeros(L.NCP, dtype=np.int64)
    lim = int(options.get("fleet_value_limit", 0) or 0)
    if lim == 0:
        lim = v["initial_fleet_limit"] if extended else v[f"fleet_limit_{setup.period.replace('-', '_')}"]
    elif lim < 0:
        lim = 1 << 40
    cp[L.CP_LIMIT0] = lim
    cp[L.CP_LIMIT1] = max(0, lim + int(options.get("south_extra_value", 0) or 0))
    for p, side in enumerate(SIDES):
        cp[L.CP_BUILD0 + p] = _player_policy(options, "builder", side, policies[side], BUILDER_NAMES)
        cp[L.CP_ALLOC0 + p] = _player_policy(options, "allocation", side, policies[side], ALLOCATION_NAMES)
        # the approach (9.21 capital ships per stack of the cruising formation, 9.22 the tour)
        cp[L.CP_STACK0 + p] = int(policies[side].value("stack"))
        cp[L.CP_TOUR0 + p] = int(policies[side].value("tour"))
    cp[L.CP_IBONUS] = int(options.get("interception_bonus", 0) or 0)
    cp[L.CP_DELAY] = int(options.get("delayed_entry", -1))
    cp[L.CP_VIS_DICE] = v["base_visibility_dice"]
    cp[L.CP_TURN_LIMIT] = int(options.get("game_length", 0) or 0) or v["scenario_turn_limit"]
    cp[L.CP_BONUS_M] = v["victory_marginal"]
    cp[L.CP_BONUS_S] = v["victory_substantial"]
    cp[L.CP_BONUS_D] = v["victory_decisive"]
    cp[L.CP_IB_MIN] = v["interception_min"]
    cp[L.CP_IB_MAX] = v["interception_max"]
    cp[L.CP_DELAY_LAST] = v["delayed_entry_last_turn"]
    cp[L.CP_EXTENDED] = 1 if extended else 0
    t = int(options.get("treasury", 0) or 0) or (v["treasury_min"] + v["treasury_max"]) // 2
    cp[L.CP_TREASURY0] = t
    cp[L.CP_TREASURY1] = t + int(options.get("south_extra_treasury", 0) or 0)
    cp[L.CP_BUILD_LIMIT] = v["build_limit_per_turn"]
    cp[L.CP_LAST_TURN] = v["last_turn"]
    cp[L.CP_REPAIR_PCT] = v["repair_percent"]
    cp[L.CP_DC_COST] = v["damage_control_cost"]
    cp[L.CP_PEACE_DICE] = v["peace_dice"]
    cp[L.CP_CHECK] = 1 if options.get("check_invariants") else 0
    cp[L.CP_APPROACH_CAP] = APPROACH_CAP
    cp[L.CP_TORP_SCEN] = rules.rl[L.RL_TORP_SCEN]
    return cp


def campaign_luck(rows: np.ndarray, g: int) -> dict[str, np.ndarray]:
    """Each player's dice luck over its campaign (``simlab luck``): the ``luck_*`` game columns.

    Every scenario row's luck (by role, ``RS_LUCK_*``: damage steps its attacks dealt, their mean
    times ``LUCK_SCALE`` and variance times ``LUCK_SCALE ** 2``, summed per shot by the tactical
    game) is added to the player who held that role (``RS_NORTH`` is North's player), summed
    exactly in int64 over every scenario of the game (the extended campaign: of all its campaign
    games), then scaled.

    Args:
        rows: ``int64[k, NRS]`` the scenario rows; g: games in the batch.

    Returns:
        ``{"luck_dealt_north": float64[g], "luck_mean_north", "luck_var_north", ... south}``.
    """
    game = rows[:, L.RS_GAME]
    north = rows[:, L.RS_NORTH]
    acc = np.zeros((g, 2, 3), dtype=np.int64)
    for role in range(2):
        player = north if role == 0 else 1 - north
        for j in range(3):
            np.add.at(acc[:, :, j], (game, player), rows[:, L.RS_LUCK_DEALT0 + 3 * role + j])
    out = {}
    for p, side in enumerate(SIDES):
        out[f"luck_dealt_{side}"] = acc[:, p, 0].astype(np.float64)
        out[f"luck_mean_{side}"] = acc[:, p, 1] / float(L.LUCK_SCALE)
        out[f"luck_var_{side}"] = acc[:, p, 2] / float(L.LUCK_SCALE) ** 2
    return out


def campaign_batch(setup: CampaignSetup, gout: np.ndarray, rows: np.ndarray, cp: np.ndarray, extended: bool) -> Batch:
    """The :class:`Batch` of a campaign run: games by player (layout ``CAMPAIGN_RECORD``: the ``go`` rows,
    and the columns derived here from the scenario rows and the set-up), the ``scenarios`` table by
    role (``SCENARIO_RECORD``)."""
    g = gout.shape[0]
    game = rows[:, L.RS_GAME]
    derived = {
        "period": np.full(g, PERIODS.index(setup.period)),
        "navy_north": np.full(g, NAVIES.index(setup.navies[0])),
        "navy_south": np.full(g, NAVIES.index(setup.navies[1])),
        "limit_north": np.full(g, min(cp[L.CP_LIMIT0], 2**31 - 1)),
        "limit_south": np.full(g, min(cp[L.CP_LIMIT1], 2**31 - 1)),
        "violations": np.bincount(game, rows[:, L.RS_VIOLATIONS], minlength=g),
        **campaign_luck(rows, g),
    }
    if not extended:
        derived["interception_bonus"] = np.zeros(g, dtype=np.int64)
        for s, name in enumerate(CAMPAIGN_SCENARIOS):
            r = rows[rows[:, L.RS_SCEN] == s]
            gi = r[:, L.RS_GAME]
            x = name.lower()
            for target, slot, fill in ((f"vp_{x}_north", L.RS_SCORE0, 0), (f"vp_{x}_south", L.RS_SCORE1, 0),
                                       (f"winner_{x}", L.RS_WINNER, -1), (f"level_{x}", L.RS_LEVEL, 0)):
                a = np.full(g, fill, dtype=np.int64)
                a[gi] = r[:, slot]
                derived[target] = a
            if s == 2:
                derived["interception_bonus"][gi] = r[:, L.RS_IBONUS]
        for name, slot in (("bonus_north", L.RS_BONUS0), ("bonus_south", L.RS_BONUS1),
                           ("bombardment_bonus", L.RS_BOMBARD), ("interception_north", L.RS_INTERCEPT0),
                           ("interception_south", L.RS_INTERCEPT1)):
            derived[name] = np.bincount(game, rows[:, slot], minlength=g)
        derived["uncontested"] = np.bincount(game, rows[:, L.RS_END] == END_REASONS.index("uncontested"), minlength=g)
    scenario = "extended-campaign" if extended else "campaign"
    cols, cats = L.CAMPAIGN_RECORD.columns(gout, SIDES, scenario=scenario, derived=derived,
                                           labels={"end": EXTENDED_END_NAMES if extended else CAMPAIGN_END_NAMES})
    ev, ev_cats = L.SCENARIO_RECORD.columns(rows, SIDES, scenario=scenario)
    cats.update({f"scenarios.{k}": v for k, v in ev_cats.items()})
    return Batch(games=cols, categories=cats, events={"scenarios": ev})


__all__ = ["CampaignSetup", "SIDES", "campaign_batch", "campaign_luck", "campaign_parameters", "campaign_used", "compile_campaign",
           "listing_units"]
