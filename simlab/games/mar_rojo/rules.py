"""Mar Rojo data-pack schema and compilers (Rules 3, 5.3.1, 6, 9, 12.2).

The pack in ``data/`` has these tables (``simlab data show mar-rojo``):

* ``fleet``: one row per fleet card (Rule 3.1.1), open to new cards in an override pack;
* ``actions``: one row per action card kind (Rule 3.2) with its deck count;
* ``torpedo_effect``, ``saves``, ``distance``: the tables of 5.3.1;
* ``points``: the squadron-building table of 9; ``solo_deployment``: the table of 12.2;
* ``constants``: single numbers (hand limit, hit number, lucky hit...).

Everything is read through a :class:`simlab.datapack.PackView`, so a run counts the values it used
by provenance. The compiled forms are plain numpy arrays that the kernels read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from ...datapack import DataPack, PackSchema, PackView, TableSchema
from ...errors import DataPackError
from .enums import (
    ACTION_NAMES,
    ACTION_TYPE_NAMES,
    AIRCRAFT,
    AK_BLUE,
    AK_COUNT,
    AK_NIGHT_ONLY,
    AK_NIGHT_REMOVE,
    AK_OPTIONAL,
    AK_RED,
    AK_SIDE,
    AK_SOLO_EFFECT,
    AK_TYPE,
    ARMOUR_NAMES,
    FACTION_NAMES,
    K_THE_END,
    LENGTH_NAMES,
    NAK,
    NKINDS,
    ROW_NAMES,
    SPEED,
    TYPE_NAMES,
)
from .layout import (
    C_AAH,
    C_AAL,
    C_AIR,
    C_ARMOUR,
    C_ASW,
    C_BOMB,
    C_COST,
    C_DATE,
    C_FACTION,
    C_HULL,
    C_MAIN,
    C_MOVE,
    C_POOL,
    C_SEAPLANE,
    C_SEC,
    C_TORP,
    C_TYPE,
    CONSTANT_NAMES,
    HAND_CAP,
    NC,
    NPT,
    NRT,
    PILE_CAP,
    POINTS_FIELDS,
    RT_DIST,
    RT_POINTS,
    RT_SAVE,
    RT_SOLO,
    RT_TORP,
)

DATA_DIR = Path(__file__).parent / "data"

_Small = Field(ge=0, le=20)


class FleetRow(BaseModel):
    """A fleet card (Rule 3.1.1): values in dice, hull in hits, movement 0-3, cost in points."""

    model_config = ConfigDict(extra="forbid")
    faction: Literal[FACTION_NAMES]  # type: ignore[valid-type]
    type: Literal[TYPE_NAMES]  # type: ignore[valid-type]
    role: Literal["", "fighter", "bomber", "seaplane"] = ""
    seaplane: StrictBool = False
    date: StrictInt = Field(ge=1850, le=1950)
    hull: StrictInt = Field(ge=1, le=20)
    main: StrictInt = _Small
    secondary: StrictInt = _Small
    torpedoes: StrictInt = _Small
    movement: StrictInt = Field(ge=0, le=3)
    armour: Literal[ARMOUR_NAMES]  # type: ignore[valid-type]
    aa_heavy: StrictInt = _Small
    aa_light: StrictInt = _Small
    asw: StrictInt = _Small
    air: StrictInt = _Small
    bombing: StrictInt = _Small
    cost: StrictInt = Field(ge=0, le=50)


class ActionRow(BaseModel):
    """An action card kind (Rule 3.2.1): type, red (actions), blue (stress), copies in the deck."""

    model_config = ConfigDict(extra="forbid")
    type: Literal[ACTION_TYPE_NAMES]  # type: ignore[valid-type]
    red: StrictInt = Field(ge=0, le=10)
    blue: StrictInt = Field(ge=0, le=10)
    count: StrictInt = Field(ge=0, le=20)
    night: Literal["day-and-night", "night-only"]
    night_remove: StrictInt = Field(ge=0, le=20)
    optional: StrictBool
    side: Literal["any", "nationalist", "republican"]
    solo: Literal["effect", "actions"]
    effect: StrictStr


class TorpedoRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hits: StrictInt = Field(ge=-1, le=10)


class SaveRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    need: StrictInt = Field(ge=1, le=7)


_Dist = Literal["short", "medium", "long", "speed"]


class DistanceRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    short: _Dist
    medium: _Dist
    long: _Dist


class PointsRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cards_min: StrictInt = Field(ge=1, le=16)
    cards_max: StrictInt = Field(ge=1, le=16)
    points: StrictInt = Field(ge=0, le=200)
    capital_min: StrictInt = Field(ge=0, le=16)
    capital_max: StrictInt = Field(ge=0, le=16)
    merchants: StrictInt = Field(ge=0, le=16)
    air_sub_min: StrictInt = Field(ge=0, le=16)
    air_sub_max: StrictInt = Field(ge=0, le=16)


class SoloRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    short: StrictInt = Field(ge=0, le=16)
    medium: StrictInt = Field(ge=0, le=16)
    long: StrictInt = Field(ge=0, le=16)


class ConstantRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: StrictInt = Field(ge=0, le=100_000)


def check_pack(pack: DataPack) -> None:
    """Cross-table checks of a Mar Rojo pack.

    Raises:
        DataPackError: on a missing table or row, a points row with min above max, a deck with
            more cards than the kernel holds, not exactly one The End card, a hand limit outside
            1..HAND_CAP, or an opening hand above the hand limit; or a value the rules' own
            assumptions exclude (:func:`_check_rule_assumptions`).
    """
    t = pack.tables
    need = {
        "fleet": None, "actions": ACTION_NAMES, "torpedo_effect": tuple(str(i) for i in range(1, 8)),
        "saves": ARMOUR_NAMES, "distance": ROW_NAMES, "points": LENGTH_NAMES, "solo_deployment": LENGTH_NAMES,
        "constants": CONSTANT_NAMES,
    }
    for table, keys in need.items():
        if not t.get(table):
            raise DataPackError(f"data pack {pack.name}: table '{table}' is missing or empty")
        for k in keys or ():
            if k not in t[table]:
                raise DataPackError(f"data pack {pack.name}: row {table}.{k} is missing")
    for k, row in t["points"].items():
        for lo, hi in (("cards_min", "cards_max"), ("capital_min", "capital_max"), ("air_sub_min", "air_sub_max")):
            if row[lo].value > row[hi].value:
                raise DataPackError(f"data pack {pack.name}: points.{k}: {lo} {row[lo].value} exceeds {hi} {row[hi].value}")
    total = sum(r["count"].value for r in t["actions"].values())
    if total > PILE_CAP - 8:
        raise DataPackError(f"data pack {pack.name}: the action deck has {total} cards (at most {PILE_CAP - 8})")
    if t["actions"]["The End"]["count"].value != 1:
        raise DataPackError(f"data pack {pack.name}: actions.The End.count must be 1 (Rule 6)")
    for k, r in t["actions"].items():
        if r["night_remove"].value > r["count"].value:
            raise DataPackError(f"data pack {pack.name}: actions.{k}: night_remove exceeds count")
    limit = t["constants"]["hand_limit"]["value"].value
    opening = t["constants"]["opening_hand"]["value"].value
    if not 1 <= limit <= HAND_CAP:
        raise DataPackError(f"data pack {pack.name}: constants.hand_limit {limit} must be 1..{HAND_CAP} "
                            "(the kernel's hand holds that many cards)")
    if opening > limit:
        raise DataPackError(f"data pack {pack.name}: constants.opening_hand {opening} exceeds hand_limit {limit} (Rules 3.2, 4)")
    _check_rule_assumptions(pack, t, total, opening)


#: constants that are the least roll of one die (``N+`` on a d6) the rules name
D6_THRESHOLDS = {"hit": "5.3.1 step 8", "escort_torpedo_save": "5.3.1 step 10", "submarine_evasion": "5.3.1 step 4",
                 "aa_defence_hit": "5.3.1 step 7", "lucky_first": "5.3.1", "lucky_second": "5.3.1",
                 "mines_hit": "5.3.1 step 8"}
#: the fleet cards of a squadron (Rule 1: "between 5 and 15 fleet cards")
SQUADRON_CARDS = (5, 15)


def _check_rule_assumptions(pack: DataPack, t: dict, deck: int, opening: int) -> None:
    """What the rules assume of a pack's values, beyond each field's own range (issue 32).

    Raises:
        DataPackError: (one line, naming the value and the rule) on an aircraft card without a
            role, or a ship card with one or marked a seaplane (3.1); a die threshold that no d6 roll
            meets or every roll does not need (``N+`` outside 1..6, 5.3.1; the AI's aggressive roll
            outside 0..6, 12.2); a capital-ship torpedo bonus that reads past the torpedo effect
            table's rows 1..7 (5.3.1 step 8); a combat distance table that is not the same for both
            cards or gives a distance outside the two cards' rows (5.3.1 step 2); a points row whose
            squadron sizes leave 5..15 cards (1), whose minimums cannot all fit in its largest
            squadron, or whose merchants cannot all deploy in the long row (4, 9); a solo deployment
            row outside 5..15 cards or breaking the layout's "one more card than in any other row"
            (4, 12.2); a deck too small to deal both opening hands and keep The End (4, 6).
    """
    where = f"data pack {pack.name}"
    for k, r in t["fleet"].items():
        kind, role = r["type"].value, r["role"].value if "role" in r else ""
        plane = r["seaplane"].value if "seaplane" in r else False
        if kind == "aircraft" and not role:
            raise DataPackError(f"{where}: fleet.{k} is an aircraft card without a role "
                                "(3.1: fighters and bombers, which may also be seaplanes)")
        if kind != "aircraft" and (role or plane):
            what = f"role {role!r}: only aircraft have a role" if role else "seaplane = true: only aircraft are seaplanes"
            raise DataPackError(f"{where}: fleet.{k} is a {kind} card with {what} (3.1)")
    c = {k: r["value"].value for k, r in t["constants"].items()}
    for k, sec in D6_THRESHOLDS.items():
        if not 1 <= c[k] <= 6:
            raise DataPackError(f"{where}: constants.{k} {c[k]} must be 1..6: it is the least roll of a d6 ({sec})")
    if not 0 <= c["ai_aggressive_max"] <= 6:
        raise DataPackError(f"{where}: constants.ai_aggressive_max {c['ai_aggressive_max']} must be 0..6: "
                            "the AI is aggressive on a d6 roll up to it (12.2)")
    if c["torpedo_capital_bonus"] > 1:
        raise DataPackError(f"{where}: constants.torpedo_capital_bonus {c['torpedo_capital_bonus']} must be 0 or 1: "
                            "the torpedo effect table has rows 1..7, a d6 plus at most 1 (5.3.1 step 8)")
    if c["subturn_limit"] < 1:
        raise DataPackError(f"{where}: constants.subturn_limit must be at least 1 (a safety stop, not a rule)")
    d = {a: {b: t["distance"][a][b].value for b in ROW_NAMES} for a in ROW_NAMES}
    for i, a in enumerate(ROW_NAMES):
        for j, b in enumerate(ROW_NAMES):
            if d[a][b] != d[b][a]:
                raise DataPackError(f"{where}: distance.{a}.{b} is {d[a][b]!r} but distance.{b}.{a} is {d[b][a]!r}: "
                                    "the combat distance of two rows is the same whichever card is active (5.3.1 step 2)")
            v = d[a][b]
            if v != "speed" and not min(i, j) <= ROW_NAMES.index(v) <= max(i, j):
                raise DataPackError(f"{where}: distance.{a}.{b} is {v!r}, outside the two cards' rows "
                                    "(5.3.1 step 2: the distance of the active or the target card's row, or between)")
    lo, hi = SQUADRON_CARDS
    for k, r in t["points"].items():
        v = {f: r[f].value for f in POINTS_FIELDS}
        if v["cards_min"] < lo or v["cards_max"] > hi:
            raise DataPackError(f"{where}: points.{k}: squadrons of {v['cards_min']}..{v['cards_max']} cards leave "
                                f"{lo}..{hi} (1: 'between 5 and 15 fleet cards')")
        need = v["capital_min"] + v["merchants"] + v["air_sub_min"]
        if need > v["cards_max"]:
            raise DataPackError(f"{where}: points.{k}: capital_min + merchants + air_sub_min = {need} cards exceed "
                                f"cards_max {v['cards_max']}: no squadron meets the table (9)")
        if v["merchants"] > (v["cards_max"] + 2) // 3:
            raise DataPackError(f"{where}: points.{k}: {v['merchants']} merchants cannot all deploy in the long row of "
                                f"at most {v['cards_max']} cards (4: merchants only in the long row, 9)")
    for k, r in t["solo_deployment"].items():
        n = [r[row].value for row in ROW_NAMES]
        if not lo <= sum(n) <= hi:
            raise DataPackError(f"{where}: solo_deployment.{k} deploys {sum(n)} cards, outside {lo}..{hi} (1, 12.2)")
        if max(n) - min(n) > 1:
            raise DataPackError(f"{where}: solo_deployment.{k} deploys {'-'.join(map(str, n))}: a row may hold only one "
                                "more card than any other (4, 12.2)")
    if deck < 2 * opening + 1:
        raise DataPackError(f"{where}: the action deck has {deck} cards, too few to deal two opening hands of "
                            f"{opening} and keep The End (4, 6)")


SCHEMA = PackSchema(
    game="mar-rojo",
    tables={
        "fleet": TableSchema(FleetRow, open=True, doc="fleet cards: faction, type, date, hull, armament, movement, armour, cost"),
        "actions": TableSchema(ActionRow, doc="action card kinds: type, red, blue, copies in the 52-card deck, effect"),
        "torpedo_effect": TableSchema(TorpedoRow, doc="the torpedo effect table (5.3.1 step 8), -1 = Sunk"),
        "saves": TableSchema(SaveRow, doc="saving roll by armour class (5.3.1 step 10), 7 = none"),
        "distance": TableSchema(DistanceRow, doc="the combat distance table (5.3.1 step 2)"),
        "points": TableSchema(PointsRow, doc="squadron building limits by game length (9)"),
        "solo_deployment": TableSchema(SoloRow, doc="the solo AI's cards per distance by game length (12.2)"),
        "constants": TableSchema(ConstantRow, doc="single numbers: hand limit, hit number, lucky hit, ..."),
    },
    check=check_pack,
)

_DIST_CODE = {"short": 0, "medium": 1, "long": 2, "speed": SPEED}


def compile_tables(view: PackView) -> tuple[np.ndarray, np.ndarray]:
    """The rule tables and the action-kind table, as the kernels read them.

    Returns:
        ``(rt, ak)``: ``rt`` is ``int64[NRT]`` (layout ``R_*`` / ``RT_*`` offsets); ``ak`` is
        ``int64[NKINDS, NAK]`` (enums ``AK_*`` columns) in ``enums.ACTION_NAMES`` order.

    Raises:
        DataPackError: if a row is missing (the pack check normally catches it first).
    """
    rt = np.zeros(NRT, dtype=np.int64)
    for i, name in enumerate(CONSTANT_NAMES):
        rt[i] = view.value("constants", name, "value")
    for r in range(1, 8):
        rt[RT_TORP + r] = view.value("torpedo_effect", str(r), "hits")
    for i, a in enumerate(ARMOUR_NAMES):
        rt[RT_SAVE + i] = view.value("saves", a, "need")
    for i, a in enumerate(ROW_NAMES):
        row = view.row("distance", a)
        for j, b in enumerate(ROW_NAMES):
            rt[RT_DIST + 3 * i + j] = _DIST_CODE[row[b]]
    for i, ln in enumerate(LENGTH_NAMES):
        row = view.row("points", ln)
        for j, f in enumerate(POINTS_FIELDS):
            rt[RT_POINTS + NPT * i + j] = row[f]
        srow = view.row("solo_deployment", ln)
        for j, r in enumerate(ROW_NAMES):
            rt[RT_SOLO + 3 * i + j] = srow[r]
    ak = np.zeros((NKINDS, NAK), dtype=np.int64)
    for k, name in enumerate(ACTION_NAMES):
        row = view.row("actions", name)
        ak[k, AK_TYPE] = ACTION_TYPE_NAMES.index(row["type"])
        ak[k, AK_RED] = row["red"]
        ak[k, AK_BLUE] = row["blue"]
        ak[k, AK_COUNT] = row["count"]
        ak[k, AK_NIGHT_ONLY] = row["night"] == "night-only"
        ak[k, AK_NIGHT_REMOVE] = row["night_remove"]
        ak[k, AK_OPTIONAL] = row["optional"]
        ak[k, AK_SIDE] = {"any": -1, "nationalist": 0, "republican": 1}[row["side"]]
        ak[k, AK_SOLO_EFFECT] = row["solo"] == "effect"
    if ak[K_THE_END, AK_COUNT] != 1:
        raise DataPackError("actions.The End.count must be 1 (Rule 6)")
    return rt, ak


def compile_cards(view: PackView, names: list[str]) -> np.ndarray:
    """Fleet card values of ``names`` in that order: ``int64[len(names), NC]`` (layout ``C_*``).

    ``C_POOL`` holds the row's index in ``names``. Aircraft always get movement 3 (Rule 5.2)
    whatever the pack says.

    Raises:
        DataPackError: if a name is not a row of the ``fleet`` table.
    """
    out = np.zeros((len(names), NC), dtype=np.int64)
    for i, n in enumerate(names):
        if not view.has("fleet", n):
            raise DataPackError(f"data pack {view.pack.name}: no fleet card '{n}'")
        r = view.row("fleet", n)
        out[i, C_POOL] = i
        out[i, C_FACTION] = FACTION_NAMES.index(r["faction"])
        out[i, C_TYPE] = TYPE_NAMES.index(r["type"])
        out[i, C_HULL] = r["hull"]
        out[i, C_MAIN] = r["main"]
        out[i, C_SEC] = r["secondary"]
        out[i, C_TORP] = r["torpedoes"]
        out[i, C_MOVE] = 3 if out[i, C_TYPE] == AIRCRAFT else r["movement"]
        out[i, C_ARMOUR] = ARMOUR_NAMES.index(r["armour"])
        out[i, C_AAH] = r["aa_heavy"]
        out[i, C_AAL] = r["aa_light"]
        out[i, C_ASW] = r["asw"]
        out[i, C_AIR] = r["air"]
        out[i, C_BOMB] = r["bombing"]
        out[i, C_COST] = r["cost"]
        out[i, C_SEAPLANE] = 1 if (r["seaplane"] or r["role"] == "seaplane") else 0
        out[i, C_DATE] = r["date"]
    return out
