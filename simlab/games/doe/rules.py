"""Dawn of Empire data-pack schema and loaders (Rules 3.4, 6.0, 7.0, 8.2, 12.1, 13.0).

The pack in ``data/`` serves both ``doe-battle`` and ``dawn-of-empire``. Each table's rows are
checked by a pydantic model; :func:`check_pack` checks references across tables (an adjacency to
an unknown area, a unit starting at an unknown place, a Search Matrix without a row...).
:func:`compile_campaign` turns a pack, read through a :class:`~simlab.datapack.PackView` so the
values a run relies on are counted by provenance, into the static arrays of the campaign kernels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ...datapack import DataPack, PackSchema, PackView, TableSchema
from ...errors import DataPackError
from . import campaign_layout as L
from .enums import TYPE_NAMES

DATA_DIR = Path(__file__).parent / "data"
SIDES = ("us", "spain")

UnitType = Literal[TYPE_NAMES]  # type: ignore[valid-type]
OrderName = Literal["anchor", "blockade", "coal", "patrol", "raid", "sortie", "transit"]
ORDERS = ("anchor", "blockade", "coal", "patrol", "raid", "sortie", "transit")
_CELL = re.compile(r"^(N/A|VP|1-[1-6])$")


class UnitRow(BaseModel):
    """A ship unit (Rule 3.4.1): side, type, attack, defense, movement (MP), start, entry turn."""

    model_config = ConfigDict(extra="forbid")
    side: Literal["us", "spain", "germany"]
    type: UnitType
    attack: int = Field(ge=0, le=20)
    defense: int = Field(ge=1, le=20)  # Rule 3.4.1 unit values: at least 1 (sunk when damage > defense)
    movement: int = Field(ge=0, le=20)
    start: str | None = None
    entry_turn: int | None = Field(default=None, ge=1, le=9)
    optional: Literal["", "extra-warships", "germans"] = ""
    prior_order: OrderName = "anchor"


class LeaderRow(BaseModel):
    """A leader (Rule 6.0): side and stars (command rate)."""

    model_config = ConfigDict(extra="forbid")
    side: Literal["us", "spain", "germany"]
    stars: int = Field(ge=0, le=6)
    start: str | None = None
    optional: Literal["", "extra-warships", "germans"] = ""


class AreaRow(BaseModel):
    """A sea area (Rules 3.5.7, 7.2.1, 12.1.1): MP to enter, VPs for control, neighbours."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64)
    code: str | None = Field(default=None, pattern=r"^[A-Z]{2}$")
    mp: int = Field(ge=1, le=9)
    vp_us: int = Field(ge=0, le=30)
    vp_spain: int = Field(ge=0, le=30)
    adjacent: list[str] = Field(min_length=1, max_length=16)


class PortRow(BaseModel):
    """A port (Rules 3.5.6, 7.2.2-7.2.3, 8.4, 9.0)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64)
    code: str | None = Field(default=None, pattern=r"^[A-Z]{2}$")
    side: Literal["us", "spain", "neutral"]
    areas: list[str] = Field(min_length=1, max_length=2)
    repair: int = Field(default=0, ge=0, le=20)
    mine: int | None = Field(default=None, ge=0, le=20)
    attack: int | None = Field(default=None, ge=0, le=20)
    # Rule 3.4.5 B: a port marker has attack and defense values "as with ship units" (3.4.1), whose
    # defense is at least 1 (ruling C40)
    defense: int | None = Field(default=None, ge=1, le=20)
    repair_germans: int = Field(default=0, ge=0, le=20)


class SearchRow(BaseModel):
    """One column of the Search Matrix (Rule 8.2): the other side's order -> N/A, VP or 1-k."""

    model_config = ConfigDict(extra="forbid")
    anchor: str = Field(pattern=_CELL.pattern)
    blockade: str = Field(pattern=_CELL.pattern)
    coal: str = Field(pattern=_CELL.pattern)
    patrol: str = Field(pattern=_CELL.pattern)
    raid: str = Field(pattern=_CELL.pattern)
    sortie: str = Field(pattern=_CELL.pattern)
    transit: str = Field(pattern=_CELL.pattern)
    anchor_at_sea: str = Field(pattern=_CELL.pattern)   # anchored at sea where no port borders (5.1 B-C)


class MarkerRow(BaseModel):
    """Order markers of one side (Rule 5.0 B)."""

    model_config = ConfigDict(extra="forbid")
    anchor: int = Field(ge=0, le=40)
    blockade: int = Field(ge=0, le=40)
    coal: int = Field(ge=0, le=40)
    patrol: int = Field(ge=0, le=40)
    raid: int = Field(ge=0, le=40)
    sortie: int = Field(ge=0, le=40)
    transit: int = Field(ge=0, le=40)


class TypeRow(BaseModel):
    """A ship type (Rule 3.4.1.1) and the VPs for sinking one (12.1.2 A)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    loss_vp: float = Field(ge=0, le=20, multiple_of=0.5)


class RulesRow(BaseModel):
    """Numbers stated in the rule text (sections in the pack's provenance tags)."""

    model_config = ConfigDict(extra="forbid")
    max_turns: int = Field(ge=1, le=9)
    coal_at_sea_us: int = Field(ge=0, le=99)
    coal_at_sea_spain: int = Field(ge=0, le=99)
    coal_neutral_port: int = Field(ge=0, le=99)
    patrol_areas_from_port: int = Field(ge=1, le=9)
    patrol_areas_at_sea: int = Field(ge=1, le=9)
    transit_max_turns: int = Field(ge=1, le=9)
    victory_vp: int = Field(ge=1, le=99)
    automatic_victory_vp: int = Field(ge=1, le=999)
    port_destroyed_vp: int = Field(ge=0, le=99)
    blockade_coal_vp: int = Field(ge=0, le=99)
    min_movement: int = Field(ge=0, le=9)
    min_movement_restricted: int = Field(ge=0, le=9)
    maintenance_us_bb_mo: int = Field(ge=0, le=9)
    maintenance_us_cruisers: int = Field(ge=0, le=9)
    maintenance_us_bb_other: int = Field(ge=0, le=9)
    maintenance_us_cp_gb_other: int = Field(ge=0, le=9)
    maintenance_spain: int = Field(ge=0, le=9)


CAMPAIGN_TABLES = ("areas", "ports", "search_matrix", "order_markers", "types", "rules")


def _v(pack: DataPack, table: str, key: str, field: str, default=None):
    f = pack.tables.get(table, {}).get(key, {}).get(field)
    return default if f is None else f.value


def check_pack(pack: DataPack) -> None:
    """Cross-table checks of a DoE pack.

    Raises:
        DataPackError: (one line) if a table the games need is missing or empty; an area borders
            an unknown area, itself, or an area that does not border it back; a port borders an
            unknown area or lacks its marker values; codes repeat; a unit or leader starts at an
            unknown place or enters after the last possible turn, or starts in the other side's port
            or (a leader) at sea with none of his side's units; the automatic victory threshold is not
            above the victory threshold; the Search Matrix or the order markers lack a row; a ship
            type has no row (:func:`_check_set_up`).
    """
    t = pack.tables
    for name in ("units", "leaders") + CAMPAIGN_TABLES:
        if not t.get(name):
            raise DataPackError(f"data pack {pack.name}: table '{name}' is missing or empty")
    areas = t["areas"]
    where = f"data pack {pack.name}"
    for a in areas:
        adj = _v(pack, "areas", a, "adjacent")
        for b in adj:
            if b not in areas:
                raise DataPackError(f"{where}: areas.{a}.adjacent names unknown area '{b}'")
            if b == a:
                raise DataPackError(f"{where}: areas.{a}.adjacent lists the area itself")
        if len(set(adj)) != len(adj):
            raise DataPackError(f"{where}: areas.{a}.adjacent lists an area twice")
    for a in areas:
        for b in _v(pack, "areas", a, "adjacent"):
            if a not in _v(pack, "areas", b, "adjacent"):
                raise DataPackError(f"{where}: areas.{a} borders {b} but areas.{b}.adjacent does not list {a}")
    codes: dict[str, str] = {}
    for table in ("areas", "ports"):
        for k in t[table]:
            c = _v(pack, table, k, "code")
            if c is None:
                continue
            if c in codes:
                raise DataPackError(f"{where}: code {c} is used by both {codes[c]} and {table}.{k}")
            codes[c] = f"{table}.{k}"
    for p in t["ports"]:
        pa = _v(pack, "ports", p, "areas")
        for a in pa:
            if a not in areas:
                raise DataPackError(f"{where}: ports.{p}.areas names unknown area '{a}'")
        if len(set(pa)) != len(pa):
            raise DataPackError(f"{where}: ports.{p}.areas lists an area twice")
        if _v(pack, "ports", p, "side") != "neutral":
            for f in ("mine", "attack", "defense"):
                if _v(pack, "ports", p, f) is None:
                    raise DataPackError(f"{where}: ports.{p} is a {_v(pack, 'ports', p, 'side')} port without '{f}' (8.4)")
    max_turns = _v(pack, "rules", "core", "max_turns", 9)
    for table in ("units", "leaders"):
        for k in t[table]:
            s = _v(pack, table, k, "start")
            if s is None:
                if table == "units" and "areas" in t:
                    raise DataPackError(f"{where}: {table}.{k} has no start location")
                continue
            if s not in codes:
                raise DataPackError(f"{where}: {table}.{k}.start '{s}' is not the code of an area or port (codes: {', '.join(sorted(codes))})")
            e = _v(pack, table, k, "entry_turn")
            if e is not None:
                if e > max_turns:
                    raise DataPackError(f"{where}: {table}.{k} enters on turn {e}, after the last turn ({max_turns})")
                if not codes[s].startswith("ports."):
                    raise DataPackError(f"{where}: {table}.{k} is a reinforcement but starts in an area (7.7: a port)")
    _check_set_up(pack, t, codes, where)
    for o in ORDERS:
        if o not in t["search_matrix"]:
            raise DataPackError(f"{where}: search_matrix has no column '{o}'")
    for s in SIDES:
        if s not in t["order_markers"]:
            raise DataPackError(f"{where}: order_markers has no row '{s}'")
    for ty in TYPE_NAMES:
        if ty not in t["types"]:
            raise DataPackError(f"{where}: types has no row '{ty}'")
    if "core" not in t["rules"]:
        raise DataPackError(f"{where}: rules has no row 'core'")


def _check_set_up(pack: DataPack, t: dict, codes: dict, where: str) -> None:
    """What the set-up (13.0 B, 3.4.1.2) and the victory rules assume of the pack's values.

    Raises:
        DataPackError: a unit or leader that starts in a port of the other side (each side's
            counters start in its own, or a neutral, port); a leader who starts at sea with no unit of
            his side there to command (6.0: a leader is aboard a ship of his navy); an automatic
            victory threshold (14.7) not above the victory threshold (12.2).
    """
    at_sea: dict[tuple[str, str], int] = {}
    for table in ("units", "leaders"):
        for k in t[table]:
            s, side = _v(pack, table, k, "start"), _v(pack, table, k, "side")
            if s is None or s not in codes or side is None:
                continue
            kind, _, name = codes[s].partition(".")
            if kind == "ports":
                ps = _v(pack, "ports", name, "side")
                if ps not in (side, "neutral", None):
                    raise DataPackError(f"{where}: {table}.{k} is {side} but starts in {name}, a {ps} port "
                                        "(13.0 B: each side's counters start in its own or a neutral port)")
            elif table == "units" and _v(pack, "units", k, "entry_turn") is None:
                at_sea[(s, side)] = at_sea.get((s, side), 0) + 1
            elif table == "leaders" and _v(pack, "leaders", k, "entry_turn") is None and not at_sea.get((s, side)):
                raise DataPackError(f"{where}: leaders.{k} ({side}) starts at sea in {s} with no {side} unit there "
                                    "to be aboard (6.0)")
    core = t["rules"].get("core", {})
    vic, auto = core.get("victory_vp"), core.get("automatic_victory_vp")
    if vic is not None and auto is not None and auto.value <= vic.value:
        raise DataPackError(f"{where}: rules.core.automatic_victory_vp ({auto.value}) must be above victory_vp "
                            f"({vic.value}): 14.7's automatic victory is a larger score than 12.2's")


SCHEMA = PackSchema(
    game="dawn-of-empire",
    tables={
        "units": TableSchema(UnitRow, open=True, doc="ship units: side, type, attack, defense, movement (MP), start"),
        "leaders": TableSchema(LeaderRow, open=True, doc="leaders: side, stars and start"),
        "areas": TableSchema(AreaRow, doc="the 17 sea areas: MP, VPs for control, neighbours"),
        "ports": TableSchema(PortRow, doc="ports: side, areas, repair, mine, attack, defense"),
        "search_matrix": TableSchema(SearchRow, doc="Search Matrix: initiative order (row key) x other order"),
        "order_markers": TableSchema(MarkerRow, doc="order markers per side"),
        "types": TableSchema(TypeRow, doc="ship types and the VPs for sinking one"),
        "rules": TableSchema(RulesRow, doc="numbers stated in the rule text"),
    },
    check=check_pack,
)


# ============================================================================ compiling
@dataclass(frozen=True)
class CampaignData:
    """The static arrays of the campaign kernels (layout in :mod:`campaign_layout`).

    Attributes:
        area_keys, port_keys: data-pack keys; node ``i < A`` is ``area_keys[i]``, node ``A + j`` is
            ``port_keys[j]``.
        node_names: display names of all nodes (areas, then ports).
        unit_names, leader_names: keys of the units and leaders tables, in array order.
        ust: ``int64[U, US_NF]``; lst: ``int64[L, LS_NF]``; nodes: ``int64[N, NS_NF]``.
        adj: ``int64[N, N]``; cost, nh: ``int64[KMAX + 1, N, N]``; matrix: ``int64[7, 8]`` (column 7: anchored at sea, ``SM_ANCHOR_SEA``).
        loss_half: half-VPs per type; markers: ``int64[2, 7]``; rules: the ``rules.core`` row.
    """

    area_keys: tuple[str, ...]
    port_keys: tuple[str, ...]
    node_names: tuple[str, ...]
    unit_names: tuple[str, ...]
    leader_names: tuple[str, ...]
    ust: np.ndarray
    lst: np.ndarray
    nodes: np.ndarray
    adj: np.ndarray
    cost: np.ndarray
    nh: np.ndarray
    matrix: np.ndarray
    loss_half: np.ndarray
    markers: np.ndarray
    rules: dict

    @property
    def n_areas(self) -> int:
        return len(self.area_keys)

    def node(self, key: str) -> int:
        """Node index of an area or port key, or of a display name.

        Raises:
            KeyError: if no area or port has that key or name.
        """
        if key in self.area_keys:
            return self.area_keys.index(key)
        if key in self.port_keys:
            return self.n_areas + self.port_keys.index(key)
        if key in self.node_names:
            return self.node_names.index(key)
        raise KeyError(key)

    def unit(self, name: str) -> int:
        """Index of a unit by name (raises KeyError)."""
        return self.unit_names.index(name)

    def leader(self, name: str) -> int:
        """Index of a leader by name (raises KeyError)."""
        return self.leader_names.index(name)


def _cell(s: str) -> int:
    if s == "N/A":
        return L.SM_NA
    if s == "VP":
        return L.SM_VP
    return int(s.split("-")[1])


def route_tables(adj: np.ndarray, mp: np.ndarray, is_port: np.ndarray, kmax: int = L.KMAX
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Least-MP routes between nodes with a bound on the number of areas entered (Rule 7.1, 7.2).

    A move enters nodes one at a time, paying each node's MP; a port ends a move (it is never
    passed through); the start node costs nothing.

    Args:
        adj: ``int[N, N]``, 1 where node j may be entered from node i.
        mp: ``int[N]`` MP to enter each node.
        is_port: ``bool[N]``.
        kmax: the largest area bound computed (index ``kmax`` serves as "unlimited").

    Returns:
        ``(cost, nh)``, both ``int64[kmax + 1, N, N]``: ``cost[k, i, j]`` the least MP from i to j
        entering at most k areas (``BIG`` if none; entering a final port is not counted as an
        area), ``nh[k, i, j]`` the first node entered on such a route (``-1`` if none, ``i`` when
        ``i == j``). Ties go to fewer areas, then to the lower next node.
    """
    n = adj.shape[0]
    big = L.BIG
    cost = np.full((kmax + 1, n, n), big, dtype=np.int64)
    nh = np.full((kmax + 1, n, n), -1, dtype=np.int64)
    # best[k][i][j] computed backwards: a route from i entering <= k areas
    for k in range(kmax + 1):
        for i in range(n):
            cost[k, i, i] = 0
            nh[k, i, i] = i
    for k in range(kmax + 1):
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                best = big
                bnext = -1
                for x in range(n):
                    if not adj[i, x]:
                        continue
                    if is_port[x]:
                        # a port ends the move: only as the destination
                        c = mp[x] if x == j else big
                    else:
                        if k == 0:
                            continue
                        rest = cost[k - 1, x, j]
                        c = mp[x] + rest if rest < big else big
                    if c < best:
                        best = c
                        bnext = x
                cost[k, i, j] = best
                nh[k, i, j] = bnext
    return cost, nh


def compile_campaign(view: PackView, extra_warships: bool = True, germans: bool = True) -> CampaignData:
    """Compile the campaign's static arrays from a pack (every value read is marked used).

    Args:
        view: a view of a validated DoE pack (:func:`check_pack` has run).
        extra_warships, germans: whether the units of optional rules 14.10 and 14.12 are read
            (they are always compiled into the arrays when read; the kernels keep them out of play
            unless the option is on).

    Returns:
        A :class:`CampaignData`.

    Raises:
        DataPackError: if a required value is missing.
    """
    area_keys = tuple(view.keys("areas"))
    port_keys = tuple(view.keys("ports"))
    na, np_ = len(area_keys), len(port_keys)
    n = na + np_
    nodes = np.zeros((n, L.NS_NF), dtype=np.int64)
    adj = np.zeros((n, n), dtype=np.int64)
    names = []
    codes: dict[str, int] = {}
    for i, a in enumerate(area_keys):
        r = view.row("areas", a)
        names.append(r["name"])
        nodes[i, L.NS_KIND] = L.KIND_AREA
        nodes[i, L.NS_MP] = r["mp"]
        nodes[i, L.NS_VP_US] = r["vp_us"]
        nodes[i, L.NS_VP_SPAIN] = r["vp_spain"]
        nodes[i, L.NS_PSIDE] = -1
        nodes[i, L.NS_PAREA1] = -1
        nodes[i, L.NS_PAREA2] = -1
        for b in r["adjacent"]:
            adj[i, area_keys.index(b)] = 1
        if r.get("code"):
            codes[r["code"]] = i
    side_code = {"us": L.PSIDE_US, "spain": L.PSIDE_SPAIN, "neutral": L.PSIDE_NEUTRAL}
    for j, p in enumerate(port_keys):
        r = view.row("ports", p)
        i = na + j
        names.append(r["name"])
        nodes[i, L.NS_KIND] = L.KIND_PORT
        nodes[i, L.NS_MP] = 1  # Rule 7.2.2 F
        nodes[i, L.NS_PSIDE] = side_code[r["side"]]
        ar = [area_keys.index(a) for a in r["areas"]]
        nodes[i, L.NS_PAREA1] = ar[0]
        nodes[i, L.NS_PAREA2] = ar[1] if len(ar) > 1 else -1
        for a in ar:
            adj[i, a] = 1
            adj[a, i] = 1
        nodes[i, L.NS_REPAIR] = r.get("repair", 0)
        nodes[i, L.NS_MINE] = r.get("mine") or 0
        nodes[i, L.NS_ATT] = r.get("attack") or 0
        nodes[i, L.NS_DEF] = r.get("defense") or 0
        nodes[i, L.NS_REPAIR_GER] = r.get("repair_germans", 0)
        if r.get("code"):
            codes[r["code"]] = i
    is_port = nodes[:, L.NS_KIND] == L.KIND_PORT
    cost, nh = route_tables(adj, nodes[:, L.NS_MP], is_port)

    order_idx = {o: i for i, o in enumerate(ORDERS)}
    matrix = np.zeros((7, 8), dtype=np.int64)
    for o in ORDERS:
        r = view.row("search_matrix", o)
        for o2 in ORDERS:
            matrix[order_idx[o], order_idx[o2]] = _cell(r[o2])
        matrix[order_idx[o], L.SM_ANCHOR_SEA] = _cell(r["anchor_at_sea"])
    markers = np.zeros((2, L.N_ORDERS), dtype=np.int64)
    for s, side in enumerate(SIDES):
        r = view.row("order_markers", side)
        for o in ORDERS:
            markers[s, order_idx[o]] = r[o]
    loss_half = np.zeros(len(TYPE_NAMES), dtype=np.int64)
    for ti, ty in enumerate(TYPE_NAMES):
        loss_half[ti] = int(round(2 * view.value("types", ty, "loss_vp")))
    rules = view.row("rules", "core")

    unit_rows = []
    for k in view.keys("units"):
        opt = view.pack.tables["units"][k].get("optional")
        o = opt.value if opt is not None else ""
        if (o == "extra-warships" and not extra_warships) or (o == "germans" and not germans):
            continue
        unit_rows.append(k)
    if len(unit_rows) > L.MAX_UNITS:
        raise DataPackError(f"data pack {view.pack.name}: {len(unit_rows)} units; the campaign takes at most {L.MAX_UNITS}")
    types = {t: i for i, t in enumerate(TYPE_NAMES)}
    ust = np.zeros((len(unit_rows), L.US_NF), dtype=np.int64)
    for u, k in enumerate(unit_rows):
        r = view.row("units", k)
        ust[u, L.US_SIDE] = 0 if r["side"] == "us" else 1
        ust[u, L.US_GERMAN] = 1 if r["side"] == "germany" else 0
        ust[u, L.US_TYPE] = types[r["type"]]
        ust[u, L.US_ATT] = r["attack"]
        ust[u, L.US_DEF] = r["defense"]
        ust[u, L.US_MOV] = r["movement"]
        ust[u, L.US_START] = codes[r["start"]]
        ust[u, L.US_ENTRY] = r.get("entry_turn") or 0
        ust[u, L.US_PRIOR] = order_idx[r.get("prior_order", "anchor")]
        if r.get("optional") == "extra-warships":
            ust[u, L.US_GERMAN] |= 2
    leader_rows = []
    for k in view.keys("leaders"):
        opt = view.pack.tables["leaders"][k].get("optional")
        o = opt.value if opt is not None else ""
        if o == "germans" and not germans:
            continue
        if view.pack.tables["leaders"][k].get("start") is None:
            continue
        leader_rows.append(k)
    if len(leader_rows) > L.MAX_LEADERS:
        raise DataPackError(f"data pack {view.pack.name}: {len(leader_rows)} leaders; the campaign takes at most {L.MAX_LEADERS}")
    lst = np.zeros((len(leader_rows), L.LS_NF), dtype=np.int64)
    for i, k in enumerate(leader_rows):
        r = view.row("leaders", k)
        lst[i, L.LS_SIDE] = 0 if r["side"] == "us" else 1
        lst[i, L.LS_GERMAN] = 1 if r["side"] == "germany" else 0
        lst[i, L.LS_STARS] = r["stars"]
        lst[i, L.LS_START] = codes[r["start"]]
    return CampaignData(area_keys=area_keys, port_keys=port_keys, node_names=tuple(names),
                        unit_names=tuple(unit_rows), leader_names=tuple(leader_rows), ust=ust, lst=lst,
                        nodes=nodes, adj=adj, cost=cost, nh=nh, matrix=matrix, loss_half=loss_half,
                        markers=markers, rules=rules)
