"""Mar Rojo scenarios: the three historical ones (8.1-8.3), points-built squadrons (9), or a
scenario file of the same form.

A scenario file is TOML::

    title = "Battle of Cabo de Palos, 5 March 1938"
    rule = "8.1"                      # optional, for the record
    length = "short"                  # short | average | long (Rule 6)
    first_player = "republican"       # nationalist | republican | escorts (Rule 9: more escort cards)
    victory = "cabo-de-palos"         # cabo-de-palos (8.1) | capital-merchant (8.2, 8.3) | points (7)
    merchant_points = []              # sides scoring their merchants in the short row (8.2, 8.3)
    special = []                      # transfer-to-cantabrian-sea (8.2), navarra-arrives (8.3)
    build = false                     # true: squadrons are built by points (9); no side tables then

    [nationalist]
    cards = ["Canarias", "Baleares"]  # fleet cards of the data pack, 1 to 15
    reinforcement = "Navarra"          # optional: joins at the first The End (navarra-arrives)

    [republican]
    cards = ["Libertad"]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError

from ...datapack import PackView
from ...errors import ScenarioError
from ...tomlio import read_toml
from .enums import (
    FACTION_NAMES,
    FACTION_SIDE,
    LENGTH_NAMES,
    MERCHANT,
    SIDE_NAMES,
    SPECIAL_NAMES,
    TYPE_NAMES,
    VICTORY_NAMES,
)
from .layout import C_FACTION, C_TYPE, FIRST_BY_ESCORTS, MAXC
from .rules import compile_cards, compile_tables

SCENARIO_DIR = Path(__file__).parent / "scenarios"
BUILTIN = {
    "cabo-de-palos": SCENARIO_DIR / "cabo-de-palos.toml",
    "strait-of-gibraltar": SCENARIO_DIR / "strait-of-gibraltar.toml",
    "mediterranean-campaign": SCENARIO_DIR / "mediterranean-campaign.toml",
    "points-built": SCENARIO_DIR / "points-built.toml",
}


class _SideIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cards: list[StrictStr] = Field(min_length=1, max_length=MAXC - 1)
    reinforcement: StrictStr | None = None


class _ScenarioIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: StrictStr = ""
    description: StrictStr = ""
    rule: StrictStr = ""
    length: Literal[LENGTH_NAMES]  # type: ignore[valid-type]
    first_player: Literal["nationalist", "republican", "escorts"]
    victory: Literal[VICTORY_NAMES]  # type: ignore[valid-type]
    merchant_points: list[Literal[SIDE_NAMES]] = []  # type: ignore[valid-type]
    special: list[Literal[tuple(SPECIAL_NAMES)]] = []  # type: ignore[valid-type]
    build: StrictBool = False
    nationalist: _SideIn | None = None
    republican: _SideIn | None = None


@dataclass(frozen=True)
class MarRojoSetup:
    """A compiled scenario (the ``Scenario.payload`` of ``mar-rojo``).

    Attributes:
        title, rule: for the record.
        length: enums.LEN_*; first: 0, 1 or ``FIRST_BY_ESCORTS``; victory: enums.V_*;
        merchant_points: 1 per side scoring merchants in the short row; special: enums.SP_* bits;
        build: squadrons built by points (9).
        pool: ``int64[n, NC]`` the fleet cards the game may use; pool_names: their names.
        squads: ``int64[2, MAXC]`` pool indices of each side's squadron (-1 pad; unused when
            ``build``); reinf: ``int64[2]`` a reinforcement per side or -1.
        rt, ak: the compiled rule tables and action-kind table (rules.compile_tables).
    """

    title: str
    rule: str
    length: int
    first: int
    victory: int
    merchant_points: tuple[int, int]
    special: int
    build: bool
    pool: np.ndarray
    pool_names: tuple[str, ...]
    squads: np.ndarray
    reinf: np.ndarray
    rt: np.ndarray
    ak: np.ndarray


def _one_line(e: ValidationError, where: str) -> str:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
    return f"{where}: {loc}: {msg}"


def read_scenario_file(path: str | Path) -> dict:
    """The TOML document of a scenario file.

    Raises:
        ScenarioError: on a missing file, a directory, a syntax error or a non-UTF-8 file.
    """
    return read_toml(path, ScenarioError, "scenario file")


def parse_scenario(doc: dict, view: PackView, where: str = "scenario") -> MarRojoSetup:
    """Check a parsed scenario and compile it against the data pack.

    Every fleet card named is read through ``view`` (so the run counts its values by
    provenance); a points-built scenario reads the whole ``fleet`` table.

    Raises:
        ScenarioError: on an unknown key or value, a missing side, a card not in the pack, a
            card of the wrong side, a card listed twice, more merchants than the long row can
            hold (Rule 4), a reinforcement without ``navarra-arrives`` (or the reverse), or side
            tables in a points-built scenario.
    """
    try:
        sc = _ScenarioIn.model_validate(doc)
    except ValidationError as e:
        raise ScenarioError(_one_line(e, where)) from None
    special = 0
    for sp in sc.special:
        special |= SPECIAL_NAMES[sp]
    rt, ak = compile_tables(view)
    squads = np.full((2, MAXC), -1, dtype=np.int64)
    reinf = np.full(2, -1, dtype=np.int64)
    if sc.build:
        if sc.nationalist is not None or sc.republican is not None:
            raise ScenarioError(f"{where}: a points-built scenario (build = true) takes no side tables")
        if sc.special:
            raise ScenarioError(f"{where}: special rules need the historical squadrons (build = false)")
        names = view.keys("fleet")
        pool = compile_cards(view, names)
    else:
        sides = (sc.nationalist, sc.republican)
        for sname, sd in zip(SIDE_NAMES, sides, strict=True):
            if sd is None:
                raise ScenarioError(f"{where}: missing table [{sname}] (or set build = true)")
        names: list[str] = []
        for sname, sd in zip(SIDE_NAMES, sides, strict=True):
            wanted = list(sd.cards) + ([sd.reinforcement] if sd.reinforcement else [])
            for c in wanted:
                if c in names:
                    raise ScenarioError(f"{where}: fleet card '{c}' is listed twice")
                if not view.has("fleet", c):
                    raise ScenarioError(f"{where}: [{sname}] fleet card '{c}' is not in the data pack")
                names.append(c)
        pool = compile_cards(view, names)
        k = 0
        for si, (sname, sd) in enumerate(zip(SIDE_NAMES, sides, strict=True)):
            merchants = 0
            for j, c in enumerate(sd.cards):
                _check_side(pool[k], si, sname, c, where)
                merchants += int(pool[k, C_TYPE] == MERCHANT)
                squads[si, j] = k
                k += 1
            n = len(sd.cards)
            if merchants > (n + 2) // 3:
                raise ScenarioError(
                    f"{where}: [{sname}] {merchants} merchants cannot all deploy in the long row of {n} cards (Rule 4)")
            if sd.reinforcement:
                _check_side(pool[k], si, sname, sd.reinforcement, where)
                reinf[si] = k
                k += 1
        has_navarra = bool(special & SPECIAL_NAMES["navarra-arrives"])
        if has_navarra != (reinf[0] >= 0):
            raise ScenarioError(
                f"{where}: 'navarra-arrives' needs a [nationalist] reinforcement, and a reinforcement needs it")
        if reinf[1] >= 0:
            raise ScenarioError(f"{where}: only the Nationalist side has a reinforcement rule (8.3)")
    first = {"nationalist": 0, "republican": 1, "escorts": FIRST_BY_ESCORTS}[sc.first_player]
    mp = tuple(int(s in sc.merchant_points) for s in SIDE_NAMES)
    return MarRojoSetup(
        title=sc.title, rule=sc.rule, length=LENGTH_NAMES.index(sc.length), first=first,
        victory=VICTORY_NAMES.index(sc.victory), merchant_points=mp, special=special, build=sc.build,
        pool=pool, pool_names=tuple(names), squads=squads, reinf=reinf, rt=rt, ak=ak,
    )


def _check_side(row: np.ndarray, side: int, sname: str, card: str, where: str) -> None:
    fs = FACTION_SIDE[int(row[C_FACTION])]
    if fs >= 0 and fs != side:
        raise ScenarioError(
            f"{where}: [{sname}] fleet card '{card}' is a {FACTION_NAMES[int(row[C_FACTION])]} card")


__all__ = ["BUILTIN", "MarRojoSetup", "TYPE_NAMES", "parse_scenario", "read_scenario_file"]
