"""Dreadnought data-pack schema, checks, and its compilation into the kernels' arrays.

The pack (``data/``) holds every game value with its provenance: the Damage Point Table ``dpt``
(Rule 5.8), the Combat Results Table ``crt`` (5.9), single rule values ``rules``, the Range
Effects Table ``range_effects`` (5.51), torpedo range by period ``torpedo_range`` (8.6), the
damage-state VP schedule ``vp_damage_states`` (9.52), the map layout ``map`` (9.1), the Torpedo
Track Chart ``torpedo_tracks`` (8.0) and unit values by class ``classes`` (3.21-3.24).
:func:`compile_rules` reads it through a :class:`~simlab.datapack.PackView` (so a run can count
the provenance of what it used) and returns :class:`RuleArrays`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, create_model

from ...datapack import DataPack, PackSchema, PackView, TableSchema
from ...errors import DataPackError
from . import layout as L
from .enums import CRT_CELLS, CRT_E, RES_E_2G1S, RES_E_SUNK, RES_NONE, RESULT_G, RESULT_NAMES, RESULT_S
from .geometry import MapLayout
from .provisional import BANDS, CRT_COLUMNS

DATA_DIR = Path(__file__).parent / "data"
MAX_CRT_COLUMNS = 10
CRT_ALL_COLUMNS = tuple(f"{i}-1" for i in range(1, MAX_CRT_COLUMNS + 1))
RULE_KEYS = {
    "fired_upon_modifier": L.RL_FIRED_UPON, "bow_stern_modifier": L.RL_BOW_STERN,
    "combing_modifier": L.RL_COMBING, "secondary_range": L.RL_SB_RANGE, "secondary_ratio": L.RL_SB_COL,
    "damage_control_g": L.RL_DC_G, "damage_control_s": L.RL_DC_S, "stack_limit": L.RL_STACK,
    "torpedo_attacks_per_turn": L.RL_TORP_TURN, "torpedo_attacks_per_scenario": L.RL_TORP_SCEN,
    "e_sink_roll_a": L.RL_E_SINK_A, "e_sink_roll_b": L.RL_E_SINK_B, "radical_turn_two": L.RL_TURN2,
    "radical_turn_three": L.RL_TURN3, "acceleration_pct": L.RL_ACCEL_PCT, "deceleration_pct": L.RL_DECEL_PCT,
    "no_sighting_turns": L.RL_NO_SIGHT, "visibility_die": L.RL_VIS_DIE,
    "multiple_fire_halving": L.RL_HALVE_MULTI,
}
#: optional-rule values (12.1-12.5) and their slots in ``rl`` (the switches RL_OPT_* are set per run)
OPTIONAL_KEYS = {
    "radar_after_year": L.RL_RADAR_YEAR, "radar_modifier": L.RL_RADAR_MOD, "planes_after_year": L.RL_PLANES_YEAR,
    "planes_modifier": L.RL_PLANES_MOD, "creep_mp": L.RL_CREEP_MP, "tow_wait_turns": L.RL_TOW_WAIT,
    "tow_mp": L.RL_TOW_MP, "sun_rising_roll": L.RL_SUN_RISE, "sun_setting_roll": L.RL_SUN_SET,
    "sun_first_turn": L.RL_SUN_T0, "sun_last_turn": L.RL_SUN_T1, "sun_toward_modifier": L.RL_SUN_TOWARD,
    "sun_away_modifier": L.RL_SUN_AWAY,
}
#: the optional rules a run may switch on (options of the same names) and their switch slots
OPTIONAL_SWITCHES = {"smoke": L.RL_OPT_SMOKE, "radar": L.RL_OPT_RADAR, "spotting_planes": L.RL_OPT_PLANES,
                     "creep": L.RL_OPT_CREEP, "towing": L.RL_OPT_TOWING, "sun": L.RL_OPT_SUN}
_RULE_BOUNDS = {
    "fired_upon_modifier": (-10, 10), "bow_stern_modifier": (-10, 10), "combing_modifier": (-10, 10),
    "secondary_range": (0, 40), "secondary_ratio": (1, MAX_CRT_COLUMNS), "damage_control_g": (0, 6),
    "damage_control_s": (0, 6), "stack_limit": (1, 20), "torpedo_attacks_per_turn": (0, 1),
    "torpedo_attacks_per_scenario": (0, 100), "e_sink_roll_a": (2, 12), "e_sink_roll_b": (2, 12),
    "radical_turn_two": (0, 6), "radical_turn_three": (0, 6), "acceleration_pct": (0, 1000),
    "deceleration_pct": (0, 100), "no_sighting_turns": (1, 100), "visibility_die": (1, 100),
    "multiple_fire_halving": (0, 1),
}

DptRow = create_model(
    "DptRow", __config__=ConfigDict(extra="forbid"),
    **{b: (StrictInt, Field(ge=0, le=9999)) for b in BANDS},
)
DptRow.__doc__ = "One row of the Damage Point Table (Rule 5.8): damage points by attack band."

CrtCell = Literal[tuple(CRT_CELLS)]  # type: ignore[valid-type]
CrtRow = create_model(
    "CrtRow", __config__=ConfigDict(extra="forbid"),
    **{c: ((CrtCell, ...) if c in CRT_COLUMNS else (CrtCell | None, None)) for c in CRT_ALL_COLUMNS},
)
CrtRow.__doc__ = "One row of the Combat Results Table (Rule 5.9): the result by combat ratio column."


class RuleRow(BaseModel):
    """A single rule value."""

    model_config = ConfigDict(extra="forbid")
    value: StrictInt


class RangeRow(BaseModel):
    """A row of the Range Effects Table (Rule 5.51): up to ``max_hexes``, strength x multiply / divide."""

    model_config = ConfigDict(extra="forbid")
    max_hexes: StrictInt = Field(ge=1, le=999)
    multiply: StrictInt = Field(ge=1, le=10)
    divide: StrictInt = Field(ge=1, le=10)


class TorpedoRangeRow(BaseModel):
    """Torpedo range by period (Rule 8.6): the Torpedo Marker's Movement Points."""

    model_config = ConfigDict(extra="forbid")
    first_year: StrictInt = Field(ge=1800, le=2100)
    last_year: StrictInt = Field(ge=1800, le=2100)
    mp: StrictInt = Field(ge=1, le=L.MAXTRACK)


class VpRow(BaseModel):
    """Share of ship value for damage states left at the end (Rule 9.52), percent."""

    model_config = ConfigDict(extra="forbid")
    percent: StrictInt = Field(ge=0, le=100)


class MapRow(BaseModel):
    """The map: row ``size`` (hexes per section, centre hex) and one row per section (position)."""

    model_config = ConfigDict(extra="forbid")
    cols: StrictInt | None = Field(default=None, ge=2, le=200)
    rows: StrictInt | None = Field(default=None, ge=2, le=200)
    center_col: StrictInt | None = Field(default=None, ge=1, le=200)
    center_row: StrictInt | None = Field(default=None, ge=1, le=200)
    col: StrictInt | None = Field(default=None, ge=0, le=50)
    row: StrictInt | None = Field(default=None, ge=0, le=50)


class TrackRow(BaseModel):
    """A Torpedo Track Chart entry: directions relative to the launcher's facing, starboard launch."""

    model_config = ConfigDict(extra="forbid")
    steps: list[StrictInt] = Field(min_length=1, max_length=L.MAXTRACK)


class ClassRow(BaseModel):
    """Unit values of a class (Rules 3.21-3.24): attack, defense, range (hexes), movement (MP)."""

    model_config = ConfigDict(extra="forbid")
    name: StrictStr = ""
    type: Literal["capital", "CA", "CL", "DD"]
    attack: StrictInt = Field(ge=0, le=999)
    defense: StrictInt = Field(ge=1, le=999)
    range: StrictInt = Field(ge=1, le=99)
    movement: StrictInt = Field(ge=0, le=12)
    torpedo: Literal["", "1:1", "2:1"] = ""


#: screen-unit classes a fleet listing may give (Rule 11.1: ALPHA and BRAVO screening forces)
SCREEN_CLASSES = tuple(f"{k}{d}0" for k in "CLD" for d in range(1, 9))
#: rule values of the campaign (11.0-11.9) and the extended campaign (12.6), with their bounds
CAMPAIGN_RULES = {
    "fleet_limit_wwi": (1, 100000), "fleet_limit_inter_war": (1, 100000), "fleet_limit_wwii": (1, 100000),
    "period_year_wwi": (1906, 1945), "period_year_inter_war": (1906, 1945), "period_year_wwii": (1906, 1945),
    "base_visibility_dice": (1, 6), "victory_marginal": (0, 1000), "victory_substantial": (0, 1000),
    "victory_decisive": (0, 1000), "interception_min": (0, 1000), "interception_max": (0, 1000),
    "delayed_entry_last_turn": (1, 20), "scenario_turn_limit": (2, 10000), "treasury_min": (0, 100000),
    "treasury_max": (0, 100000), "initial_fleet_limit": (1, 100000), "build_limit_per_turn": (0, 100000),
    "last_turn": (1, 30), "repair_percent": (0, 100), "damage_control_cost": (0, 100), "peace_dice": (1, 4),
}
#: rule values of the optional rules (12.1-12.5), with their bounds
OPTIONAL_RULES = {
    "radar_after_year": (1900, 1950), "radar_modifier": (-10, 10), "planes_after_year": (1900, 1950),
    "planes_modifier": (-10, 10), "creep_mp": (0, 6), "tow_wait_turns": (0, 10), "tow_mp": (0, 10),
    "sun_rising_roll": (2, 12), "sun_setting_roll": (2, 12), "sun_first_turn": (1, 100),
    "sun_last_turn": (1, 100), "sun_toward_modifier": (-10, 10), "sun_away_modifier": (-10, 10),
}


FleetRow = create_model(
    "FleetRow", __config__=ConfigDict(extra="forbid"),
    capital=(list[StrictStr], Field(max_length=40)),
    **{c: (StrictInt | None, Field(default=None, ge=0, le=9)) for c in SCREEN_CLASSES},
)
FleetRow.__doc__ = "A national fleet listing (Rule 11.1): dreadnought classes, and screen units by class."


class ShipRow(BaseModel):
    """One dreadnought of the List of Dreadnoughts: its name (the ID is the key)."""

    model_config = ConfigDict(extra="forbid")
    name: StrictStr


def check_pack(pack: DataPack) -> None:
    """Cross-table checks of a Dreadnought pack.

    Raises:
        DataPackError: on a missing table or row, DPT/CRT rows other than 2..12, CRT columns that
            are not contiguous from 1-1, a rule value out of range, an unordered Range Effects
            Table, torpedo periods that overlap, a map without its size or six sections, or a
            torpedo track that does not leave through the starboard arc; or a value the rules' own
            assumptions exclude (:func:`_check_rule_assumptions`).
    """
    t = pack.tables
    name = pack.name
    for table in ("dpt", "crt", "rules", "range_effects", "torpedo_range", "vp_damage_states", "map",
                  "torpedo_tracks", "classes", "fleet_listing", "ships", "campaign_rules", "optional_rules"):
        if not t.get(table):
            raise DataPackError(f"data pack {name}: table '{table}' is missing or empty")
    rolls = {str(r) for r in range(2, 13)}
    for table in ("dpt", "crt"):
        if set(t[table]) != rolls:
            raise DataPackError(f"data pack {name}: table '{table}' needs exactly the rows 2..12 (the 2d6 rolls)")
    cols = None
    for r in range(2, 13):
        have = [c for c in CRT_ALL_COLUMNS if c in t["crt"][str(r)] and t["crt"][str(r)][c].value is not None]
        if have != list(CRT_ALL_COLUMNS[: len(have)]):
            raise DataPackError(f"data pack {name}: crt row {r}: columns must run 1-1, 2-1, ... without gaps")
        if cols is not None and len(have) != cols:
            raise DataPackError(f"data pack {name}: crt rows have different numbers of columns")
        cols = len(have)
    for k, (lo, hi) in _RULE_BOUNDS.items():
        if k not in t["rules"]:
            raise DataPackError(f"data pack {name}: rules.{k} is missing")
        v = t["rules"][k]["value"].value
        if not lo <= v <= hi:
            raise DataPackError(f"data pack {name}: rules.{k} = {v} is outside {lo}..{hi}")
    if t["rules"]["secondary_ratio"]["value"].value > cols:
        raise DataPackError(f"data pack {name}: rules.secondary_ratio is beyond the CRT's last column")
    rng = sorted((r["max_hexes"].value, k) for k, r in t["range_effects"].items())
    if rng[-1][0] < 99:
        raise DataPackError(f"data pack {name}: range_effects must end with a row reaching 99+ hexes")
    spans = sorted((r["first_year"].value, r["last_year"].value, k) for k, r in t["torpedo_range"].items())
    for (_, a1, ka), (b0, _, kb) in zip(spans, spans[1:], strict=False):
        if b0 <= a1:
            raise DataPackError(f"data pack {name}: torpedo_range {ka} and {kb} overlap")
    for a0, a1, k in spans:
        if a1 < a0:
            raise DataPackError(f"data pack {name}: torpedo_range {k}: last_year before first_year")
    if set(t["vp_damage_states"]) != {"1", "2", "3", "4"}:
        raise DataPackError(f"data pack {name}: vp_damage_states needs rows 1..4")
    m = t["map"]
    if "size" not in m or any(f not in m["size"] for f in ("cols", "rows", "center_col", "center_row")):
        raise DataPackError(f"data pack {name}: map.size needs cols, rows, center_col and center_row")
    if m["size"]["cols"].value % 2:
        raise DataPackError(f"data pack {name}: map.size.cols must be even (column parity must match across sections)")
    secs = {k: (r.get("col"), r.get("row")) for k, r in m.items() if k != "size"}
    if sorted(secs) != list("ABCDEF"):
        raise DataPackError(f"data pack {name}: map needs the sections A..F")
    pos = set()
    for k, (c, r) in secs.items():
        if c is None or r is None:
            raise DataPackError(f"data pack {name}: map.{k} needs col and row")
        pos.add((c.value, r.value))
    if len(pos) != 6:
        raise DataPackError(f"data pack {name}: two map sections share a position")
    for table, bounds in (("campaign_rules", CAMPAIGN_RULES), ("optional_rules", OPTIONAL_RULES)):
        for k, (lo, hi) in bounds.items():
            if k not in t[table]:
                raise DataPackError(f"data pack {name}: {table}.{k} is missing")
            v = t[table][k]["value"].value
            if not lo <= v <= hi:
                raise DataPackError(f"data pack {name}: {table}.{k} = {v} is outside {lo}..{hi}")
    cr = t["campaign_rules"]
    if cr["interception_min"]["value"].value > cr["interception_max"]["value"].value:
        raise DataPackError(f"data pack {name}: campaign_rules.interception_min is above interception_max")
    if cr["treasury_min"]["value"].value > cr["treasury_max"]["value"].value:
        raise DataPackError(f"data pack {name}: campaign_rules.treasury_min is above treasury_max")
    for sid in t["ships"]:
        if not (len(sid) == 3 and sid.isdigit()):
            raise DataPackError(f"data pack {name}: ships.{sid}: a ship ID is three digits")
    for key, row in t["fleet_listing"].items():
        for cls in row["capital"].value:
            if cls not in t["classes"] or t["classes"][cls]["type"].value != "capital":
                raise DataPackError(f"data pack {name}: fleet_listing.{key}: {cls} is not a capital class in 'classes'")
            if not any(sid[:2] + "0" == cls for sid in t["ships"]):
                raise DataPackError(f"data pack {name}: fleet_listing.{key}: class {cls} has no ships in 'ships'")
        for cls, v in row.items():
            if cls != "capital" and v.value and cls not in t["classes"]:
                raise DataPackError(f"data pack {name}: fleet_listing.{key}: screen class {cls} is not in 'classes'")
    longest = max(r["mp"].value for r in t["torpedo_range"].values())
    for k, r in t["torpedo_tracks"].items():
        steps = r["steps"].value
        if steps[0] not in (1, 2):
            raise DataPackError(f"data pack {name}: torpedo_tracks.{k} must start through a starboard hexside (1 or 2)")
        if any(s < 0 or s > 5 for s in steps):
            raise DataPackError(f"data pack {name}: torpedo_tracks.{k}: directions are 0..5")
        if len(steps) < longest:
            raise DataPackError(f"data pack {name}: torpedo_tracks.{k} is shorter than the longest torpedo range ({longest})")
    _check_rule_assumptions(pack, t, spans)


#: the type a class key's form gives (3.21: a dreadnought's three-digit ID; 3.22, 3.23: C, L, D screens)
KEY_TYPE = {"C": "CA", "L": "CL", "D": "DD"}


def _check_rule_assumptions(pack: DataPack, t: dict, spans: list) -> None:
    """What the rules assume of a Dreadnought pack's values, beyond each field's own range (issue 32).

    Raises:
        DataPackError: (one line, naming the value and the rule) on a class whose type is not the
            one its key names (three digits: a dreadnought, 3.21; C/L/D and two digits: CA, CL, DD
            screen units, 3.22, 3.23); a dreadnought class with a torpedo rating (8.0: screen units
            only); a ship of the List of Dreadnoughts whose class is not a dreadnought class; a map
            centre hex outside its section (9.22); two Range Effects rows for the same range (5.51);
            a Damage Point Table that gives fewer points to a higher roll or a stronger attack
            band (5.8); damage-state VP shares that fall as damage states rise (9.52); victory
            bonuses out of the order Marginal, Substantial, Decisive (9.55); campaign periods out of
            order (11.1); a sun window that ends before it starts (12.5); an about-face cheaper
            than a two-hexside turn (7.31, 7.32); torpedo periods with a gap (8.6: a year without
            torpedo range).
    """
    name = pack.name
    for k, r in t["classes"].items():
        kind = r["type"].value
        want = "capital" if k.isdigit() and len(k) == 3 else KEY_TYPE.get(k[:1]) if len(k) == 3 and k[1:].isdigit() else None
        if want is None:
            raise DataPackError(f"data pack {name}: classes.{k}: a class key is three digits (a dreadnought class, 3.21) "
                                "or C, L or D and two digits (a screen class, 3.22, 3.23)")
        if kind != want:
            raise DataPackError(f"data pack {name}: classes.{k} has type {kind!r}, but its key names a {want} class "
                                "(3.21-3.23: the ID code gives the unit's kind)")
        torpedo = r["torpedo"].value if "torpedo" in r else ""
        if kind == "capital" and torpedo:
            raise DataPackError(f"data pack {name}: classes.{k} is a dreadnought class with torpedo {torpedo!r}: "
                                "only screen units attack with torpedoes (8.0)")
    for sid in t["ships"]:
        cls = sid[:2] + "0"
        if cls not in t["classes"] or t["classes"][cls]["type"].value != "capital":
            raise DataPackError(f"data pack {name}: ships.{sid}: its class {cls} is not a dreadnought class in 'classes'")
    size = t["map"]["size"]
    for c, n in (("center_col", "cols"), ("center_row", "rows")):
        if size[c].value > size[n].value:
            raise DataPackError(f"data pack {name}: map.size.{c} {size[c].value} is outside the section's "
                                f"{size[n].value} {n} (9.22: the centre, lettered, hex is a hex of each section)")
    seen: dict[int, str] = {}
    for k, r in t["range_effects"].items():
        h = r["max_hexes"].value
        if h in seen:
            raise DataPackError(f"data pack {name}: range_effects.{seen[h]} and {k} both reach {h} hexes (5.51)")
        seen[h] = k
    from .provisional import BANDS
    dpt = [[t["dpt"][str(roll)][b].value for b in BANDS] for roll in range(2, 13)]
    for i, row in enumerate(dpt):
        for j in range(1, len(BANDS)):
            if row[j] < row[j - 1]:
                raise DataPackError(f"data pack {name}: dpt.{i + 2}: band {BANDS[j]} gives {row[j]} damage points, "
                                    f"fewer than band {BANDS[j - 1]} ({row[j - 1]}) (5.8: a stronger attack never scores less)")
            if i and row[j] < dpt[i - 1][j]:
                raise DataPackError(f"data pack {name}: dpt.{i + 2}.{BANDS[j]} gives {row[j]} damage points, fewer than "
                                    f"roll {i + 1} ({dpt[i - 1][j]}) (5.8: a higher roll never scores less)")
    vp = [t["vp_damage_states"][str(k)]["percent"].value for k in range(1, 5)]
    for k in range(1, 4):
        if vp[k] < vp[k - 1]:
            raise DataPackError(f"data pack {name}: vp_damage_states.{k + 1} ({vp[k]}%) is below "
                                f"vp_damage_states.{k} ({vp[k - 1]}%): more damage left never scores less (9.52)")
    cr = {k: r["value"].value for k, r in t["campaign_rules"].items()}
    for a, b in (("victory_marginal", "victory_substantial"), ("victory_substantial", "victory_decisive")):
        if cr[a] > cr[b]:
            raise DataPackError(f"data pack {name}: campaign_rules.{a} ({cr[a]}) is above {b} ({cr[b]}): "
                                "a greater victory earns no smaller bonus (9.55)")
    for a, b in (("period_year_wwi", "period_year_inter_war"), ("period_year_inter_war", "period_year_wwii")):
        if cr[a] >= cr[b]:
            raise DataPackError(f"data pack {name}: campaign_rules.{a} ({cr[a]}) must be before {b} ({cr[b]}) "
                                "(11.1: WWI, Interwar, WWII)")
    opt = {k: r["value"].value for k, r in t["optional_rules"].items()}
    if opt["sun_first_turn"] > opt["sun_last_turn"]:
        raise DataPackError(f"data pack {name}: optional_rules.sun_first_turn ({opt['sun_first_turn']}) is after "
                            f"sun_last_turn ({opt['sun_last_turn']}) (12.5)")
    rl = {k: r["value"].value for k, r in t["rules"].items()}
    if rl["radical_turn_three"] < rl["radical_turn_two"]:
        raise DataPackError(f"data pack {name}: rules.radical_turn_three ({rl['radical_turn_three']}) is below "
                            f"radical_turn_two ({rl['radical_turn_two']}): an about-face costs at least a two-hexside "
                            "turn (7.31, 7.32)")
    for (_, a1, ka), (b0, _, kb) in zip(spans, spans[1:], strict=False):
        if b0 > a1 + 1:
            raise DataPackError(f"data pack {name}: torpedo_range {ka} and {kb} leave {a1 + 1}..{b0 - 1} without a "
                                "torpedo range (8.6)")


SCHEMA = PackSchema(
    game="dreadnought",
    tables={
        "dpt": TableSchema(DptRow, doc="Damage Point Table (5.8): roll x attack band -> damage points"),
        "crt": TableSchema(CrtRow, doc="Combat Results Table (5.9): roll x combat ratio -> result"),
        "rules": TableSchema(RuleRow, doc="single rule values (modifiers, limits)"),
        "range_effects": TableSchema(RangeRow, doc="Range Effects Table (5.51)"),
        "torpedo_range": TableSchema(TorpedoRangeRow, open=True, doc="torpedo range by period (8.6)"),
        "vp_damage_states": TableSchema(VpRow, doc="VP share for damage states left (9.52)"),
        "map": TableSchema(MapRow, doc="map sections and their size (9.1)"),
        "torpedo_tracks": TableSchema(TrackRow, open=True, doc="Torpedo Track Chart (8.0)"),
        "classes": TableSchema(ClassRow, open=True, doc="unit values by class (3.21-3.24)"),
        "fleet_listing": TableSchema(FleetRow, doc="national fleet listings by period (11.11-11.13)"),
        "ships": TableSchema(ShipRow, open=True, doc="the ships of each dreadnought class (List of Dreadnoughts)"),
        "campaign_rules": TableSchema(RuleRow, doc="campaign and extended-campaign values (11.0-11.9, 12.6)"),
        "optional_rules": TableSchema(RuleRow, doc="optional-rule values (12.1-12.5)"),
    },
    check=check_pack,
)


class RuleTables(NamedTuple):
    """The kernels' bundle of compiled rules (issue 27; :func:`.runtime.rule_tables`): the arrays of
    :class:`RuleArrays` of the same names, ``rl`` the run's (with its optional rules,
    :func:`with_options`). Passed whole to the game loop (:func:`.kernels.turn.tactical_nb`), the
    gunfire (:func:`.kernels.fire.gun_shot_nb`, :func:`.kernels.fire.fire_execution_nb`) and the
    torpedoes (:func:`.kernels.torpedo.torpedo_attacks_nb`, :func:`.policies.torpedo.plot_torpedoes_nb`)."""

    rl: np.ndarray
    dpt: np.ndarray
    band_low: np.ndarray
    crt: np.ndarray
    range_tab: np.ndarray
    tracks: np.ndarray
    eff_gun: np.ndarray
    eff_crt: np.ndarray


@dataclass(frozen=True)
class RuleArrays:
    """The pack compiled for the kernels.

    Attributes:
        rl: ``int64[NRL]`` rule scalars (layout ``RL_*``); the optional-rule switches are 0 here
            (:func:`with_options` returns a copy with the run's switches set).
        dpt: ``int64[13, 11]`` damage points by roll (rows 2..12) and attack band.
        band_low: ``int64[11]`` lowest attack strength of each band.
        crt: ``int64[13, ncols + 1]`` result codes (enums ``RES_*``, ``CRT_E`` for E) by roll
            and column (column 0 unused).
        range_tab: ``int64[k, 3]`` (max hexes, multiply, divide), ascending.
        tracks: ``int64[ntracks, MAXTRACK]`` relative directions (starboard), padded by repeating.
        track_names: the tracks' letter codes.
        vp_pct: ``int64[5]`` percent of ship value for 0..4 damage states left.
        torpedo_periods: ``((first_year, last_year, mp), ...)``.
        eff_gun: ``float64[11, 16, DMAX + 1, L.NEFF]`` one gunfire shot by attack band, DPT roll
            penalty (0..15) and defense: ``[..., L.EFF_SHARE]`` the expected share of an undamaged
            target's value removed (policy heuristic), ``[..., L.EFF_P0 + code]`` the probability of
            each result code (``RES_*``, Rules 5.8-5.9, 5.41) and ``[..., L.EFF_DP]`` the expected
            Damage Points (5.8).
        eff_crt: ``float64[ncols + 1, 16]`` the same for a shot straight on the CRT (torpedoes,
            secondary batteries) by column and roll penalty.
        layout: the :class:`MapLayout`.
    """

    rl: np.ndarray
    dpt: np.ndarray
    band_low: np.ndarray
    crt: np.ndarray
    range_tab: np.ndarray
    tracks: np.ndarray
    track_names: tuple[str, ...]
    vp_pct: np.ndarray
    torpedo_periods: tuple[tuple[int, int, int], ...]
    eff_gun: np.ndarray
    eff_crt: np.ndarray
    layout: MapLayout

    @property
    def ncols(self) -> int:
        return self.crt.shape[1] - 1

    def torpedo_mp(self, year: int) -> int:
        """Torpedo Marker MP for a scenario year (Rule 8.6); 0 outside every period."""
        for a, b, mp in self.torpedo_periods:
            if a <= year <= b:
                return mp
        return 0


DMAX = 64


def _result_share(code: int) -> float:
    return 0.2 * (RESULT_G[code] + RESULT_S[code])


def _crt_effect(crt: np.ndarray, rl: np.ndarray, col: int, penalty: int) -> float:
    """Expected share of ship value removed by one CRT roll at ``col`` with ``penalty`` (heuristic)."""
    p_sink = sum(1 for a in range(1, 7) for b in range(1, 7)
                 if a + b in (rl[L.RL_E_SINK_A], rl[L.RL_E_SINK_B])) / 36.0
    e_share = p_sink + (1 - p_sink) * _result_share(6)
    tot = 0.0
    for a in range(1, 7):
        for b in range(1, 7):
            r = min(12, max(2, a + b - penalty))
            c = crt[r, col]
            tot += e_share if c == CRT_E else _result_share(int(c))
    return tot / 36.0


def compile_rules(view: PackView) -> RuleArrays:
    """Read the whole rules part of a pack (not ``classes``) into :class:`RuleArrays`.

    Raises:
        DataPackError: if a table is missing (the pack check normally catches it first).
    """
    rl = np.zeros(L.NRL, dtype=np.int64)
    for k, slot in RULE_KEYS.items():
        rl[slot] = int(view.value("rules", k, "value"))
    dpt = np.zeros((13, len(BANDS)), dtype=np.int64)
    for r in range(2, 13):
        row = view.row("dpt", str(r))
        for b, band in enumerate(BANDS):
            dpt[r, b] = int(row[band])
    ncols = 0
    crt_rows = {}
    for r in range(2, 13):
        row = {k: v for k, v in view.row("crt", str(r)).items() if v is not None}
        crt_rows[r] = row
        ncols = len(row)
    crt = np.zeros((13, ncols + 1), dtype=np.int64)
    for r in range(2, 13):
        for c in range(1, ncols + 1):
            code = CRT_CELLS[crt_rows[r][f"{c}-1"]]
            crt[r, c] = CRT_E if code < 0 else code
    rows = sorted((view.row("range_effects", k) for k in view.keys("range_effects")), key=lambda x: x["max_hexes"])
    range_tab = np.array([[x["max_hexes"], x["multiply"], x["divide"]] for x in rows], dtype=np.int64)
    names = tuple(view.keys("torpedo_tracks"))
    tracks = np.zeros((len(names), L.MAXTRACK), dtype=np.int64)
    for i, k in enumerate(names):
        steps = list(view.value("torpedo_tracks", k, "steps"))
        for j in range(L.MAXTRACK):
            tracks[i, j] = steps[j] if j < len(steps) else steps[-1]
    vp = np.zeros(5, dtype=np.int64)
    for k in range(1, 5):
        vp[k] = int(view.value("vp_damage_states", str(k), "percent"))
    periods = tuple(sorted(
        (int(v["first_year"]), int(v["last_year"]), int(v["mp"]))
        for v in (view.row("torpedo_range", k) for k in view.keys("torpedo_range"))
    ))
    size = view.row("map", "size")
    sections = {k: (int(view.value("map", k, "col")), int(view.value("map", k, "row"))) for k in "ABCDEF"}
    layout = MapLayout(sections=sections, cols=int(size["cols"]), rows=int(size["rows"]),
                       center=(int(size["center_col"]), int(size["center_row"])))
    rl[L.RL_MAX_G] = 2
    rl[L.RL_MAX_S] = 2
    rl[L.RL_NBANDS] = len(BANDS)
    rl[L.RL_NCOLS] = ncols
    rl[L.RL_NTRACKS] = len(names)
    rl[L.RL_TRACKLEN] = L.MAXTRACK
    rl[L.RL_VP1:L.RL_VP4 + 1] = vp[1:5]
    for k, slot in OPTIONAL_KEYS.items():
        rl[slot] = int(view.value("optional_rules", k, "value"))
    band_low = np.array([int(b.split("-")[0].rstrip("+")) for b in BANDS], dtype=np.int64)
    eff_crt = np.zeros((ncols + 1, 16), dtype=np.float64)
    for c in range(1, ncols + 1):
        for pen in range(16):
            eff_crt[c, pen] = _crt_effect(crt, rl, c, pen)
    eff_gun = np.zeros((len(BANDS), 16, DMAX + 1, L.NEFF), dtype=np.float64)
    two_d6 = np.add.outer(np.arange(1, 7), np.arange(1, 7)).ravel()
    defense = np.arange(1, DMAX + 1)
    crt_share = np.concatenate([[0.0], eff_crt[1:, 0]])
    # result distribution of one CRT roll by column (column 0: below 1-1, no result)
    crt_p = np.zeros((ncols + 1, len(RESULT_NAMES)), dtype=np.float64)
    crt_p[0, RES_NONE] = 1.0
    p_sink = sum(1 for a in range(1, 7) for b in range(1, 7)
                 if a + b in (rl[L.RL_E_SINK_A], rl[L.RL_E_SINK_B])) / 36.0
    for c in range(1, ncols + 1):
        for r in two_d6:
            code = int(crt[r, c])
            if code == CRT_E:
                crt_p[c, RES_E_SUNK] += p_sink / 36.0
                crt_p[c, RES_E_2G1S] += (1 - p_sink) / 36.0
            else:
                crt_p[c, code] += 1 / 36.0
    for pen in range(16):
        rolls = np.clip(two_d6 - pen, 2, 12)
        for b in range(len(BANDS)):
            ratio = np.minimum(dpt[rolls, b][:, None] // defense[None, :], ncols)
            eff_gun[b, pen, 1:, L.EFF_SHARE] = crt_share[ratio].mean(axis=0)
            eff_gun[b, pen, 1:, L.EFF_P0:L.EFF_P0 + len(RESULT_NAMES)] = crt_p[ratio].mean(axis=0)
            eff_gun[b, pen, :, L.EFF_DP] = dpt[rolls, b].mean()
    return RuleArrays(rl=rl, dpt=dpt, band_low=band_low, crt=crt, range_tab=range_tab, tracks=tracks,
                      track_names=names, vp_pct=vp, torpedo_periods=periods, eff_gun=eff_gun,
                      eff_crt=eff_crt, layout=layout)


def with_options(rl: np.ndarray, options) -> np.ndarray:
    """A copy of the rule scalars with the optional rules a run switched on (Rules 12.1-12.5).

    Args:
        rl: ``int64[NRL]`` from :func:`compile_rules`.
        options: the run's options (``smoke``, ``radar``, ``spotting_planes``, ``creep``,
            ``towing``, ``sun``: bool; missing means off).
    """
    out = rl.copy()
    for name, slot in OPTIONAL_SWITCHES.items():
        out[slot] = 1 if options.get(name) else 0
    return out
