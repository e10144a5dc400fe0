"""Dreadnought scenario files: parsing, checking and compiling into the kernels' arrays.

A scenario file (``scenarios/*.toml``) is the Order of Battle and deployment of Rule 10.x::

    title = "Dogger Bank, 24 January 1915"
    section = "10.1"          # rulebook section (documentation)
    year = 1915               # sets the torpedo range (Rule 8.6)
    game_length = 12          # Game-Turns
    visibility_base = 9       # hexes (Rule 5.71)
    confine = "BE"            # optional: play confined to these map sections (10.5)
    no_about_face = "british" # optional: that side's capital ships may not turn 180 degrees (10.7)
    start_vp = { german = 49 }  # optional: Victory Points a side starts with (10.7)

    [sides.british]           # two sides, in order; names: lower case letters, digits, _
    role = "north"            # whose safe zone lies north (Rule 9.13)

    [victory]                 # Rule 10.x victory conditions
    kind = "sink-named-and-points"   # points | sink-named-and-points | sink-named-or-escape
    side = "british"                 #   | sink-named | exit-or-points
    named = ["651", "711"]           # unit IDs the side must sink or wreck

    [exit]                    # optional: units leave play across an edge (10.4, 10.5)
    side = "japanese"
    edge = "north"            # north of the given sections (default: of the whole initial map)
    sections = "B"
    ships = "all"             # "all", "capital" or a list of unit IDs
    scores = true             # the side scores each exited unit's full value (10.5)
    need = 2                  # exit-or-points: units that must exit ...
    by_turn = 7               # ... by the end of this Game-Turn

    [formations."Grand Fleet"]
    mode = "column"           # column (stacks one behind the other) or line (Rule 6.2)

    [[units]]                 # one deployment line: a stack of ships, or screen units
    side = "british"
    ships = ["211 Lion", "221 Tiger", { id = "712", name = "Lutzow", damage = "1G" }]
    hex = "B0207"             # or a section letter: its centre hex, then behind it (screens)
    facing = "SE"
    speed = 6                 # MP expended last Game-Turn (Rule 6.4)
    formation = "Grand Fleet" # optional

A unit's class (its values in the data pack's ``classes`` table) is its ID's leading two
characters plus ``0``: ``211`` -> ``210``, ``C33`` -> ``C30``. Any scalar may be written
``{ value = ..., provenance = ..., note = ... }`` to record where it comes from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from ...datapack import PackView, provenance_kind
from ...errors import DataPackError, ScenarioError
from ...tomlio import read_toml
from ..base import SIDE_NAME
from . import layout as L
from .enums import (
    CAPITAL,
    COLUMN,
    DX,
    DZ,
    FACING_NAMES,
    LINE,
    MODE_NAMES,
    ROLE_NAMES,
    SCREEN,
    TYPE_NAMES,
    VC_NAMES,
)
from .geometry import offset_to_cube
from .rules import RuleArrays

SCENARIO_DIR = Path(__file__).parent / "scenarios"
BUILTIN = L.BATTLES

#: sides whose units have fire-control radar in a post-1942 scenario (Rule 12.21: U.S. and British)
RADAR_SIDES = ("british", "us")
_ID = re.compile(r"^(?:[0-9]{3}|[CLD][0-9]{2})$")
_SHIP_STR = re.compile(r"^\s*(\S+)(?:\s+(.*\S))?\s*$")
_DAMAGE = re.compile(r"^(?:([12])G)?(?:,?\s*([12])S)?$")


def _unwrap(v: Any, notes: list, where: str) -> Any:
    """``{value, provenance, note}`` -> value (recording provenance); plain values pass."""
    if isinstance(v, dict) and "value" in v and set(v) <= {"value", "provenance", "note"}:
        prov = v.get("provenance", "")
        try:
            kind = provenance_kind(prov)
        except DataPackError as e:
            raise ScenarioError(f"{where}: {e}") from None
        if kind == "provisional" and not str(v.get("note", "")).strip():
            raise ScenarioError(f"{where}: a provisional value needs a note")
        notes.append((where, v["value"], prov, v.get("note", "")))
        return v["value"]
    return v


def _deep_unwrap(obj: Any, notes: list, where: str = "") -> Any:
    if isinstance(obj, dict):
        if "value" in obj and set(obj) <= {"value", "provenance", "note"}:
            return _unwrap(obj, notes, where)
        return {k: _deep_unwrap(v, notes, f"{where}.{k}" if where else str(k)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_deep_unwrap(v, notes, f"{where}[{i}]") for i, v in enumerate(obj)]
    return obj


class _ShipIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: StrictStr
    name: StrictStr = ""
    damage: StrictStr = ""
    note: StrictStr = ""


class _UnitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    side: StrictStr
    ships: list[StrictStr | _ShipIn] = Field(min_length=1, max_length=40)
    hex: StrictStr
    facing: Literal["N", "NE", "SE", "S", "SW", "NW"]
    speed: StrictInt = Field(ge=0, le=L.MAXMP)
    formation: StrictStr | None = None


class _SideIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["north", "south"]


class _VictoryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal[VC_NAMES]  # type: ignore[valid-type]
    side: StrictStr | None = None
    named: list[StrictStr] = []
    note: StrictStr = ""


class _ExitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    side: StrictStr
    edge: Literal["north", "south"]
    sections: StrictStr | None = None
    ships: StrictStr | list[StrictStr] = "all"
    scores: StrictBool = False
    need: StrictInt = Field(default=0, ge=0, le=100)
    by_turn: StrictInt = Field(default=0, ge=0, le=1000)
    note: StrictStr = ""


class _FormationIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["column", "line"]


class _ScenarioIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: StrictStr = ""
    section: StrictStr = ""
    year: StrictInt = Field(ge=1900, le=1950)
    game_length: StrictInt = Field(ge=1, le=1000)
    visibility_base: StrictInt = Field(ge=0, le=100)
    confine: StrictStr | None = None
    no_about_face: StrictStr | None = None
    start_vp: dict[StrictStr, StrictInt] = {}
    sides: dict[StrictStr, _SideIn]
    victory: _VictoryIn
    exit: _ExitIn | None = None
    formations: dict[StrictStr, _FormationIn] = {}
    units: list[_UnitIn] = Field(min_length=2, max_length=400)


@dataclass
class ScenarioSetup:
    """A compiled scenario: what the kernels need plus labels.

    Attributes:
        name, title, sides: as in the file (``sides`` in order; side 0's units come first).
        st: ``int64[n, NST]`` static unit values; sh0: ``int64[n, NSH]`` initial state.
        fm0: ``int64[n, NFM]`` initial formations; trail0: ``int64[n, TRAIL, 3]``.
        sc: ``int64[NSC]`` scenario scalars.
        labels: ``"ID Name"`` of each unit; ids: unit IDs; classes: class codes.
        notes: provenance records of annotated values in the file.
    """

    name: str
    title: str
    sides: tuple[str, str]
    st: np.ndarray
    sh0: np.ndarray
    fm0: np.ndarray
    trail0: np.ndarray
    sc: np.ndarray
    labels: tuple[str, ...]
    ids: tuple[str, ...]
    classes: tuple[str, ...]
    year: int
    notes: list = field(default_factory=list)

    @property
    def n(self) -> int:
        return int(self.st.shape[0])


def _pyd_line(e: ValidationError, where: str) -> str:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
    return f"{where}: {loc}: {msg}"


def _class_of(uid: str) -> str:
    return uid[:2] + "0"


def starting_award(value: int, defense: int, g: int, s: int, vp_pct) -> int:
    """VP the enemy would score for a unit that ended the scenario in the damage state it began
    it with, no step yet removed (Rules 9.52-9.53; :func:`.kernels.damage.ship_award_nb`):
    ruling DN-S7 takes it off the enemy's score (Jutland's Lützow 1G, von der Tann 2G, Warspite
    2S: 10.7).

    Example: Lützow (1G, Defense Strength 12) -> 1 VP (the step is removed at the end, 9.53).
    """
    steps = g + s
    if steps == 0:
        return 0
    if g >= 2 and s >= 2:
        return min(value, value * int(vp_pct[4]) // 100)
    can = min(steps, max(defense, 0))
    left = steps - can
    return min(value, can + (value * int(vp_pct[left]) // 100 if left else 0))


def _parse_damage(text: str, where: str) -> tuple[int, int]:
    t = text.replace(" ", "").upper()
    if not t:
        return 0, 0
    m = _DAMAGE.match(t)
    if not m or (m.group(1) is None and m.group(2) is None):
        raise ScenarioError(f"{where}: bad damage '{text}' (e.g. 1G, 2S, 1G,1S)")
    return int(m.group(1) or 0), int(m.group(2) or 0)


def parse_scenario(doc: Mapping[str, Any], view: PackView, rules: RuleArrays, name: str,
                   where: str = "scenario") -> ScenarioSetup:
    """Check a parsed scenario file and compile it.

    Args:
        doc: the TOML document.
        view: the data pack, read through a view (the classes used are counted).
        rules: the compiled rules (map layout, torpedo range, torpedo attacks per scenario).
        name: the scenario's name; where: the file name for messages.

    Returns:
        A :class:`ScenarioSetup`.

    Raises:
        ScenarioError: on a malformed file, a side that is not one of the two declared, a unit ID
            that is malformed, repeated or of a class missing from the pack, a speed above the
            unit's movement allowance, a bad hex, enemy units in one hex, more than the stack
            limit in one hex, a column whose stacks are not one behind the other, or a victory or
            exit rule naming unknown units.
    """
    notes: list = []
    doc = _deep_unwrap(dict(doc), notes)
    try:
        s = _ScenarioIn.model_validate(doc)
    except ValidationError as e:
        raise ScenarioError(_pyd_line(e, where)) from None
    sides = list(s.sides)
    if len(sides) != 2:
        raise ScenarioError(f"{where}: needs exactly two sides, found {len(sides)}")
    for sd in sides:
        if not SIDE_NAME.match(sd) or sd == "draw":
            raise ScenarioError(f"{where}: bad side name '{sd}' (lower case letters, digits and _, not 'draw')")
    if {s.sides[sides[0]].role, s.sides[sides[1]].role} != {"north", "south"}:
        raise ScenarioError(f"{where}: one side must have role north and the other south")

    def side_index(x: str | None, what: str) -> int:
        if x not in sides:
            raise ScenarioError(f"{where}: {what}: unknown side '{x}' (sides: {', '.join(sides)})")
        return sides.index(x)

    lay = rules.layout
    ships: list[dict] = []
    seen: set[str] = set()
    stacks: list[dict] = []
    for ui, u in enumerate(s.units):
        w = f"{where}: units[{ui}]"
        si = side_index(u.side, f"units[{ui}]")
        items = []
        for sh in u.ships:
            if isinstance(sh, str):
                m = _SHIP_STR.match(sh)
                if not m:
                    raise ScenarioError(f"{w}: bad ship '{sh}'")
                sh = _ShipIn(id=m.group(1), name=m.group(2) or "")
            if not _ID.match(sh.id):
                raise ScenarioError(f"{w}: bad unit ID '{sh.id}' (three digits, or C/L/D and two digits)")
            if sh.id in seen:
                raise ScenarioError(f"{w}: unit {sh.id} appears twice")
            seen.add(sh.id)
            cls = _class_of(sh.id)
            if not view.has("classes", cls):
                raise ScenarioError(f"{w}: unit {sh.id}: class {cls} is not in the data pack")
            vals = view.row("classes", cls)
            g, sdmg = _parse_damage(sh.damage, f"{w}: unit {sh.id}")
            items.append({"id": sh.id, "name": sh.name, "cls": cls, "vals": vals, "G": g, "S": sdmg})
        kinds = {it["vals"]["type"] == "capital" for it in items}
        if len(kinds) > 1:
            raise ScenarioError(f"{w}: capital ships and screen units cannot share a deployment line")
        is_cap = kinds.pop()
        if u.speed > L.MAXMP:
            raise ScenarioError(f"{w}: speed {u.speed} is above {L.MAXMP}")
        fac = FACING_NAMES.index(u.facing)
        if len(u.hex.strip()) == 1:
            col, row = lay.center_offset(u.hex, w)
            hexes = []
            x, z = offset_to_cube(col, row)
            per = len(items) if is_cap else 1
            for _ in range(0, len(items), per):
                hexes.append((x, z))
                x -= DX[fac]
                z -= DZ[fac]
        else:
            col, row = lay.to_offset(u.hex, w)
            hexes = [offset_to_cube(col, row)]
        if not is_cap and len(hexes) == 1:
            hexes = hexes * len(items)
        if is_cap:
            hexes = hexes * len(items)
        for k, it in enumerate(items):
            it.update(side=si, x=hexes[k][0], z=hexes[k][1], f=fac, speed=u.speed, capital=is_cap,
                      formation=u.formation, line=ui)
            ships.append(it)
        stacks.append({"line": ui, "side": si, "formation": u.formation, "capital": is_cap,
                       "ships": [it["id"] for it in items]})
    for fn in s.formations:
        if not any(st["formation"] == fn for st in stacks):
            raise ScenarioError(f"{where}: formation '{fn}' has no units")
    for st_ in stacks:
        if st_["formation"] is not None and st_["formation"] not in s.formations:
            raise ScenarioError(f"{where}: units[{st_['line']}]: formation '{st_['formation']}' is not declared in [formations]")
        if st_["formation"] is not None and not st_["capital"]:
            raise ScenarioError(f"{where}: units[{st_['line']}]: screen units move alone (6.33), not in formation")
    # side 0 first, file order within a side
    ships.sort(key=lambda it: it["side"])
    n = len(ships)
    n0 = sum(1 for it in ships if it["side"] == 0)
    if n0 == 0 or n0 == n:
        raise ScenarioError(f"{where}: each side needs at least one unit")
    index = {it["id"]: i for i, it in enumerate(ships)}
    stack_limit = int(view.value("rules", "stack_limit", "value"))
    occupancy: dict[tuple[int, int], list[int]] = {}
    for i, it in enumerate(ships):
        occupancy.setdefault((it["x"], it["z"]), []).append(i)
    for members in occupancy.values():
        if len({ships[i]["side"] for i in members}) > 1:
            raise ScenarioError(f"{where}: units of both sides start in one hex ({', '.join(ships[i]['id'] for i in members)})")
        caps = [i for i in members if ships[i]["capital"]]
        if len(caps) > stack_limit:
            raise ScenarioError(f"{where}: {len(caps)} ships start in one hex (at most {stack_limit}, Rule 6.31)")
        if len({ships[i]["f"] for i in caps}) > 1:
            raise ScenarioError(f"{where}: ships stacked in one hex must face the same way (Rule 6.31)")
    for it in ships:
        mv = int(it["vals"]["movement"])
        if it["S"] == 0 and it["speed"] > mv:
            raise ScenarioError(f"{where}: unit {it['id']} starts at speed {it['speed']} above its movement allowance {mv}")

    # ---- static values
    st = np.zeros((n, L.NST), dtype=np.int64)
    sh0 = np.zeros((n, L.NSH), dtype=np.int64)
    torp_scen = int(view.value("rules", "torpedo_attacks_per_scenario", "value"))
    for i, it in enumerate(ships):
        v = it["vals"]
        st[i, L.ST_SIDE] = it["side"]
        st[i, L.ST_KIND] = CAPITAL if it["capital"] else SCREEN
        st[i, L.ST_ATT] = v["attack"]
        st[i, L.ST_DEF] = v["defense"]
        st[i, L.ST_RNG] = v["range"]
        st[i, L.ST_MOV] = v["movement"]
        st[i, L.ST_TORP] = {"": 0, "1:1": 1, "2:1": 2}[v["torpedo"]] if not it["capital"] else 0
        st[i, L.ST_VAL] = v["attack"] + v["defense"] + v["movement"]
        sh0[i, L.SH_X] = it["x"]
        sh0[i, L.SH_Z] = it["z"]
        sh0[i, L.SH_F] = it["f"]
        sh0[i, L.SH_SPD] = it["speed"]
        sh0[i, L.SH_G] = it["G"]
        sh0[i, L.SH_S] = it["S"]
        sh0[i, L.SH_TLEFT] = torp_scen if st[i, L.ST_TORP] else 0
        st[i, L.ST_TYPE] = TYPE_NAMES.index(v["type"])
        st[i, L.ST_RADAR] = 1 if (sides[it["side"]] in RADAR_SIDES and s.year > rules.rl[L.RL_RADAR_YEAR]) else 0
        st[i, L.ST_PLANES] = 1 if (v["type"] in ("capital", "CA") and s.year > rules.rl[L.RL_PLANES_YEAR]) else 0
        for k in L.SH_MINUS_ONE:
            sh0[i, k] = -1
    # ---- victory
    vc = VC_NAMES.index(s.victory.kind)
    vc_side = -1
    if s.victory.kind != "points":
        if s.victory.side is None:
            raise ScenarioError(f"{where}: victory kind {s.victory.kind} needs a side")
        vc_side = side_index(s.victory.side, "victory.side")
    elif s.victory.side is not None:
        side_index(s.victory.side, "victory.side")
    if s.victory.kind in ("sink-named-and-points", "sink-named-or-escape", "sink-named") and not s.victory.named:
        raise ScenarioError(f"{where}: victory kind {s.victory.kind} needs named units")
    for uid in s.victory.named:
        if uid not in index:
            raise ScenarioError(f"{where}: victory.named: unknown unit {uid}")
        if ships[index[uid]]["side"] == vc_side:
            raise ScenarioError(f"{where}: victory.named: unit {uid} belongs to the side that must sink it")
        st[index[uid], L.ST_NAMED] = 1
    sc = np.zeros(L.NSC, dtype=np.int64)
    sc[L.SC_N] = n
    sc[L.SC_N0] = n0
    sc[L.SC_LENGTH] = s.game_length
    sc[L.SC_VIS_BASE] = s.visibility_base
    sc[L.SC_TORP_MA] = rules.torpedo_mp(s.year)
    sc[L.SC_SCEN] = -1
    sc[L.SC_YEAR] = s.year
    sc[L.SC_VC] = vc
    sc[L.SC_VC_SIDE] = vc_side
    for sd, vp in s.start_vp.items():
        sc[L.SC_START_VP0 + side_index(sd, "start_vp")] = vp
    # ruling DN-S7 (10.7): damage a unit starts with was inflicted before the scenario; the enemy
    # scores only what the game adds to it, so the award of the starting state is taken off
    for i in range(n):
        if sh0[i, L.SH_G] or sh0[i, L.SH_S]:
            sc[L.SC_START_VP0 + 1 - st[i, L.ST_SIDE]] -= starting_award(
                int(st[i, L.ST_VAL]), int(st[i, L.ST_DEF]), int(sh0[i, L.SH_G]), int(sh0[i, L.SH_S]), rules.vp_pct)
    sc[L.SC_ROLE0] = ROLE_NAMES.index(s.sides[sides[0]].role)
    if s.confine:
        c0, c1, r0, r1 = _rect(lay, s.confine, where)
        sc[L.SC_CONF] = 1
        sc[L.SC_CONF_C0], sc[L.SC_CONF_C1], sc[L.SC_CONF_R0], sc[L.SC_CONF_R1] = c0, c1, r0, r1
        for it in ships:
            col, row = it["x"], it["z"] + (it["x"] - (it["x"] & 1)) // 2
            if not (c0 <= col <= c1 and r0 <= row <= r1):
                raise ScenarioError(f"{where}: unit {it['id']} starts outside the sections play is confined to ({s.confine})")
    if s.no_about_face:
        k = side_index(s.no_about_face, "no_about_face")
        for i, it in enumerate(ships):
            if it["side"] == k and it["capital"]:
                st[i, L.ST_NOABOUT] = 1
    if s.exit is not None:
        e = s.exit
        es = side_index(e.side, "exit.side")
        if e.sections:
            c0, c1, r0, r1 = _rect(lay, e.sections, where)
        else:
            c0, c1 = -(1 << 40), 1 << 40
            srows = [v[1] for v in lay.sections.values()]
            r0, r1 = min(srows) * lay.rows, (max(srows) + 1) * lay.rows - 1
        if e.edge == "north":
            zone = (c0, c1, -(1 << 40), r0 - 1)
        else:
            zone = (c0, c1, r1 + 1, 1 << 40)
        sc[L.SC_EXIT] = 1
        sc[L.SC_EXIT_SIDE] = es
        sc[L.SC_EXIT_C0], sc[L.SC_EXIT_C1], sc[L.SC_EXIT_R0], sc[L.SC_EXIT_R1] = zone
        sc[L.SC_EXIT_SCORES] = 1 if e.scores else 0
        sc[L.SC_EXIT_NEED] = e.need
        sc[L.SC_EXIT_DEADLINE] = e.by_turn
        if isinstance(e.ships, str):
            if e.ships not in ("all", "capital"):
                raise ScenarioError(f"{where}: exit.ships must be 'all', 'capital' or a list of unit IDs")
            for i, it in enumerate(ships):
                if it["side"] == es and (e.ships == "all" or it["capital"]):
                    st[i, L.ST_EXIT] = 1
        else:
            for uid in e.ships:
                if uid not in index or ships[index[uid]]["side"] != es:
                    raise ScenarioError(f"{where}: exit.ships: {uid} is not a unit of {e.side}")
                st[index[uid], L.ST_EXIT] = 1
        if vc == VC_NAMES.index("exit-or-points") and (e.need < 1 or e.by_turn < 1 or es != vc_side):
            raise ScenarioError(f"{where}: exit-or-points needs an exit rule for the victory side with need and by_turn")
    elif vc == VC_NAMES.index("exit-or-points"):
        raise ScenarioError(f"{where}: victory kind exit-or-points needs an [exit] table")
    # safe zones (Rule 9.13): tier Three North starts three section rows above tier Zero North
    top = min(v[1] for v in lay.sections.values())
    bottom = max(v[1] for v in lay.sections.values())
    sc[L.SC_SAFE_N_ROW] = (top - 3) * lay.rows + lay.rows - 1      # rows <= this: tier Three North and beyond
    sc[L.SC_SAFE_S_ROW] = (bottom + 3) * lay.rows                   # rows >= this: tier Three South and beyond

    # ---- formations (Rule 6.2)
    fm0 = np.zeros((n, L.NFM), dtype=np.int64)
    trail0 = np.zeros((n, L.TRAIL, 3), dtype=np.int64)
    nf = 0
    groups: list[tuple[str | None, list[int]]] = []
    named: dict[str, list[int]] = {}
    for st_ in stacks:
        if st_["formation"] is None:
            groups.append((None, [st_["line"]]))
        else:
            if st_["formation"] not in named:
                named[st_["formation"]] = []
                groups.append((st_["formation"], named[st_["formation"]]))
            named[st_["formation"]].append(st_["line"])
    by_line: dict[int, list[int]] = {}
    for i, it in enumerate(ships):
        by_line.setdefault(it["line"], []).append(i)
    # screens in a multi-unit line (e.g. D12-D16 at "A") each move alone
    expanded: list[tuple[str | None, list[list[int]]]] = []
    for fname, lines in groups:
        if fname is None and not ships[by_line[lines[0]][0]]["capital"]:
            for i in by_line[lines[0]]:
                expanded.append((None, [[i]]))
        else:
            expanded.append((fname, [by_line[ln] for ln in lines]))
    for fname, stack_list in expanded:
        mode = MODE_NAMES.index(s.formations[fname].mode) if fname else LINE
        members = [i for grp in stack_list for i in grp]
        f0 = ships[members[0]]
        for i in members:
            if ships[i]["f"] != f0["f"] or ships[i]["speed"] != f0["speed"] or ships[i]["side"] != f0["side"]:
                raise ScenarioError(f"{where}: formation '{fname}': its units must share side, facing and speed")
        fm0[nf, L.FM_MODE] = mode
        fm0[nf, L.FM_FLAG] = members[0]
        fm0[nf, L.FM_MEMBERS] = len(members)
        pos = [(ships[g[0]]["x"], ships[g[0]]["z"]) for g in stack_list]
        if mode == COLUMN:
            fac = f0["f"]
            for k in range(1, len(pos)):
                if pos[k] != (pos[k - 1][0] - DX[fac], pos[k - 1][1] - DZ[fac]):
                    raise ScenarioError(f"{where}: column '{fname}': each stack must be in the hex directly behind the one before it (Rule 6.22)")
            if len(pos) + L.MAXMP + 1 > L.TRAIL:
                raise ScenarioError(f"{where}: column '{fname}' is longer than {L.TRAIL - L.MAXMP - 1} stacks")
            k = len(pos) - 1
            fm0[nf, L.FM_HEAD] = k
            for j, grp in enumerate(stack_list):
                cur = k - j
                trail0[nf, cur] = (pos[j][0], pos[j][1], fac)
                for i in grp:
                    sh0[i, L.SH_CUR] = cur
        else:
            if len(pos) > 1 and not _collinear(pos):
                raise ScenarioError(f"{where}: line '{fname}': its stacks must stand in a straight line (Rule 6.25)")
        for i in members:
            sh0[i, L.SH_FORM] = nf
        nf += 1
    sc[L.SC_NFORM] = nf
    labels = tuple((it["id"] + (" " + it["name"] if it["name"] else "")) for it in ships)
    return ScenarioSetup(
        name=name, title=s.title, sides=(sides[0], sides[1]), st=st, sh0=sh0, fm0=fm0, trail0=trail0, sc=sc,
        labels=labels, ids=tuple(it["id"] for it in ships), classes=tuple(it["cls"] for it in ships),
        year=s.year, notes=notes,
    )


def _collinear(pos: list[tuple[int, int]]) -> bool:
    for axis in range(3):
        vals = {(x if axis == 0 else z if axis == 1 else -x - z) for x, z in pos}
        if len(vals) == 1:
            return True
    return False


def _rect(lay, letters: str, where: str) -> tuple[int, int, int, int]:
    try:
        return lay.section_rect(letters)
    except ScenarioError as e:
        raise ScenarioError(f"{where}: {e}") from None


def read_scenario(path: str | Path, view: PackView, rules: RuleArrays, name: str | None = None) -> ScenarioSetup:
    """Read and compile a scenario file (see :func:`parse_scenario`).

    Raises:
        ScenarioError: on a missing file, a TOML syntax error or any :func:`parse_scenario` error.
    """
    p = Path(path)
    return parse_scenario(read_toml(p, ScenarioError, "scenario file"), view, rules, name or p.stem, p.name)
