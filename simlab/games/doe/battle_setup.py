"""Battle files and the battle kernel's Python entry (Rules 6.2-6.3, 8.3, 10.1-10.2): what both the
``doe-battle`` façade (:mod:`.battle`) and the odds (:mod:`.odds`) use, so neither imports the other.

A battle file is TOML with exactly two tables, whose names are the side names (the format is
described in :mod:`simlab.games.doe.battle`). :func:`parse_battle` checks a document against the
data pack and compiles it into a :class:`BattleSetup` of per-unit arrays; :func:`run_battles`
plays one battle per seed with :func:`simlab.games.doe.kernels.play_battles_nb`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from ...datapack import PackView
from ...errors import ScenarioError
from ...tomlio import read_toml
from .. import records
from ..base import SIDE_NAME
from .enums import END_REASONS, LEADER_KILLED, LEADER_NAMES, LOSS_HALF_VP, STATUS_NAMES, TYPE_CODE, TYPE_NAMES
from .luck import DIE_MEAN, DIE_VAR

__all__ = ["BATTLE_RECORD", "BUILTIN", "SCENARIO_DIR", "STATUS_NAMES", "BattleSetup", "battle_choices", "battle_rows",
           "line_permutation", "parse_battle", "read_battle_file", "run_battles"]

#: the ``line-order`` family's ``disengage_odds`` at and above which a side always leaves when able
#: (the kernel's ``FLEE_ALWAYS``)
DISENGAGE_ALWAYS = 10_000
#: ``line_order`` values (4.1.2 D / 8.3.1 A): the battle file's order, strongest on top, weakest on top
LO_FILE, LO_STRONG, LO_WEAK = 0, 1, 2

SCENARIO_DIR = Path(__file__).parent / "scenarios"
BUILTIN = {"puerto-rico-passage": SCENARIO_DIR / "puerto-rico-passage.toml"}


class _UnitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: StrictStr = Field(min_length=1, max_length=64)
    type: StrictStr | None = None
    attack: StrictInt | None = Field(default=None, ge=0, le=20)
    defense: StrictInt | None = Field(default=None, ge=1, le=20)  # Rule 3.4.1 unit values: at least 1
    movement: StrictInt | None = Field(default=None, ge=0, le=20)
    damage: StrictInt = Field(default=0, ge=0, le=40)


class _SideIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    units: list[_UnitIn] = Field(min_length=1, max_length=40)
    leader_stars: StrictInt | None = Field(default=None, ge=0, le=6)
    leader: StrictStr | None = None


@dataclass(frozen=True)
class BattleSetup:
    """Two squadrons ready for the kernel (arrays in line order, side 0 first).

    Attributes:
        sides: the two side names.
        names: unit names, ``n`` of them.
        unit_side: ``int8[n]``, 0 or 1.
        type: ``int8[n]`` type codes (enums.TYPE_NAMES).
        attack, defense, movement, damage: ``int64[n]`` (damage = initial damage points).
        n0, n1: squadron sizes.
        stars: leader stars per side; leaders: leader names (or "").
    """

    sides: tuple[str, str]
    names: tuple[str, ...]
    unit_side: np.ndarray
    type: np.ndarray
    attack: np.ndarray
    defense: np.ndarray
    movement: np.ndarray
    damage: np.ndarray
    n0: int
    n1: int
    stars: tuple[int, int]
    leaders: tuple[str, str]
    title: str = ""

    @property
    def n(self) -> int:
        return self.n0 + self.n1


def _pydantic_line(e: ValidationError, where: str) -> str:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    return f"{where}: {loc}: {msg}"


def parse_battle(doc: Mapping[str, Any], view: PackView | None, where: str = "battle file") -> BattleSetup:
    """Check a parsed battle file and build the kernel's arrays.

    Args:
        doc: the TOML document (a dict).
        view: the DoE data pack (read through a view, so provenance is counted), or None.
        where: the file name, for messages.

    Returns:
        A :class:`BattleSetup`.

    Raises:
        ScenarioError: on anything but exactly two sides, a bad side name, an empty line, an
            unknown key, a negative or non-integer value, an unknown unit type, a duplicate unit
            name, damage above defense, or a unit with missing values that is not in the pack.
    """
    title = doc.get("title", "")
    if not isinstance(title, str):
        raise ScenarioError(f"{where}: 'title' must be a string")
    extra = [k for k, v in doc.items() if not isinstance(v, dict) and k not in ("title", "description")]
    if extra:
        raise ScenarioError(f"{where}: unknown top-level key '{extra[0]}' (a battle file has two side tables)")
    sides = [k for k, v in doc.items() if isinstance(v, dict)]
    if len(sides) != 2:
        raise ScenarioError(f"{where}: needs exactly two side tables, found {len(sides)} ({', '.join(sides) or 'none'})")
    for s in sides:
        if not SIDE_NAME.match(s) or s == "draw":
            raise ScenarioError(f"{where}: bad side name '{s}' (lower case letters, digits and _, not 'draw')")
    names: list[str] = []
    cols: dict[str, list[int]] = {k: [] for k in ("side", "type", "attack", "defense", "movement", "damage")}
    stars = []
    leaders = []
    for si, s in enumerate(sides):
        try:
            side = _SideIn.model_validate(doc[s])
        except ValidationError as e:
            raise ScenarioError(_pydantic_line(e, f"{where}: [{s}]")) from None
        if side.leader is not None:
            if view is None or not view.has("leaders", side.leader):
                raise ScenarioError(f"{where}: [{s}] leader '{side.leader}' is not in the data pack")
            st = view.value("leaders", side.leader, "stars") if side.leader_stars is None else side.leader_stars
            leaders.append(side.leader)
        else:
            st = side.leader_stars or 0
            leaders.append("")
        stars.append(int(st))
        for u in side.units:
            if u.name in names:
                raise ScenarioError(f"{where}: duplicate unit name '{u.name}'")
            names.append(u.name)
            vals = {"type": u.type, "attack": u.attack, "defense": u.defense, "movement": u.movement}
            missing = [k for k, v in vals.items() if v is None]
            if missing:
                if view is None or not view.has("units", u.name):
                    raise ScenarioError(
                        f"{where}: [{s}] unit '{u.name}' needs {', '.join(missing)} (no unit of that name in the data pack)"
                    )
                for k in missing:
                    vals[k] = view.value("units", u.name, k)
            if vals["type"] not in TYPE_CODE:
                raise ScenarioError(f"{where}: [{s}] unit '{u.name}': unknown type '{vals['type']}' (types: {' '.join(TYPE_NAMES)})")
            if u.damage > vals["defense"]:
                raise ScenarioError(
                    f"{where}: [{s}] unit '{u.name}': damage {u.damage} exceeds defense {vals['defense']} (it would be sunk)"
                )
            cols["side"].append(si)
            cols["type"].append(TYPE_CODE[vals["type"]])
            for k in ("attack", "defense", "movement"):
                cols[k].append(int(vals[k]))
            cols["damage"].append(u.damage)
    n0 = cols["side"].count(0)
    i64 = {k: np.asarray(cols[k], dtype=np.int64) for k in ("attack", "defense", "movement", "damage")}
    return BattleSetup(
        sides=(sides[0], sides[1]), names=tuple(names), unit_side=np.asarray(cols["side"], dtype=np.int8),
        type=np.asarray(cols["type"], dtype=np.int8), n0=n0, n1=len(names) - n0,
        stars=(stars[0], stars[1]), leaders=(leaders[0], leaders[1]), title=title, **i64,
    )


def read_battle_file(path: str | Path, view: PackView | None) -> BattleSetup:
    """Read and check a battle file (see :func:`parse_battle`).

    Raises:
        ScenarioError: on a missing file, a TOML syntax error or any :func:`parse_battle` error.
    """
    p = Path(path)
    return parse_battle(read_toml(p, ScenarioError, "battle file"), view, p.name)


def line_permutation(setup: BattleSetup, modes: tuple[int, int]) -> np.ndarray:
    """The unit order each side's ``line_order`` knob gives (Rules 4.1.2 D, 8.3.1 A): a permutation
    of ``0..n-1`` (``int64[n]``) that keeps side 0's units first. ``modes[s]``: ``LO_FILE`` the
    battle file's order, ``LO_STRONG`` the strongest (attack, then defense) on top, ``LO_WEAK`` the
    weakest on top; ties keep the file's order.

    Raises:
        ValueError: a mode other than 0, 1 or 2.
    """
    parts = []
    for si, (lo, hi) in enumerate(((0, setup.n0), (setup.n0, setup.n))):
        idx = np.arange(lo, hi, dtype=np.int64)
        mode = int(modes[si])
        if mode not in (LO_FILE, LO_STRONG, LO_WEAK):
            raise ValueError(f"line_order {mode}: 0, 1 or 2")
        if mode != LO_FILE:
            key = setup.attack[lo:hi] * 64 + setup.defense[lo:hi]
            idx = idx[np.argsort(-key if mode == LO_STRONG else key, kind="stable")]
        parts.append(idx)
    return np.concatenate(parts)


def battle_choices(setup: BattleSetup, policies: Mapping[str, Any]) -> tuple[BattleSetup, tuple[int, int, int, int]]:
    """What each side's ``line-order`` policy decides in the battle (decisions_battle.toml): the
    squadrons in the line order its ``line_order`` knob picks (the leader aboard the new top unit,
    6.2 A) and the kernel's choices ``(flee0, flee1, reform0, reform1)``: each side's 10.2
    threshold (``disengage_odds`` permille, ``DISENGAGE_ALWAYS`` or more: the kernel's
    ``FLEE_ALWAYS``) and 8.3.3 A reform order (``reform_order``, ``enums.RF_*``).

    Args:
        setup: the battle file's squadrons.
        policies: ``{side: Policy}`` for both sides (:class:`~simlab.games.policy.Policy`).

    Returns:
        ``(setup in the chosen line order, choices)``; the setup itself when both keep the file's order.
    """
    from .enums import FLEE_ALWAYS
    knobs = [dict(policies[side].knobs) for side in setup.sides]
    order = tuple(int(k.get("line_order", LO_FILE)) for k in knobs)
    flee = [int(k.get("disengage_odds", DISENGAGE_ALWAYS)) for k in knobs]
    flee = [FLEE_ALWAYS if f >= DISENGAGE_ALWAYS else f for f in flee]
    reform = [int(k.get("reform_order", 0)) for k in knobs]
    if order != (LO_FILE, LO_FILE):
        perm = line_permutation(setup, order)
        setup = replace(setup, names=tuple(setup.names[i] for i in perm), unit_side=setup.unit_side[perm],
                        type=setup.type[perm], attack=setup.attack[perm], defense=setup.defense[perm],
                        movement=setup.movement[perm], damage=setup.damage[perm])
    return setup, (flee[0], flee[1], reform[0], reform[1])


def run_battles(setup: BattleSetup, seeds: np.ndarray, max_rounds: int, speed_mode: int,
                choices: tuple[int, int, int, int] | None = None) -> dict[str, np.ndarray]:
    """Play one battle per seed; raw per-unit results.

    Args:
        setup: the squadrons.
        seeds: ``uint64[g]`` stream seeds.
        max_rounds: round limit (``>= 1``); a battle still going is a draw (``winner = -1``).
        speed_mode: index into ``enums.SPEED_MODES``.
        choices: ``(flee0, flee1, reform0, reform1)``, each side's 10.2 disengagement threshold
            and 8.3.3 A reform order (:class:`~.kernels.BattleChoices`); None: both sides leave
            whenever able and keep the previous order (:data:`~.kernels.DEFAULT_CHOICES`).

    Returns:
        ``winner int8[g]``, ``rounds int32[g]``, ``reason int8[g]``, ``status int8[g, n]``,
        ``damage int16[g, n]`` (final damage points), ``leader int8[g, 2]``, ``luck int32[g, 4]``
        (gunfire dice of side 0 and 1, then the damage points those dice dealt; ``simlab luck``).
    """
    # numba loads when a battle is played, not when a game is listed
    from .kernels import DEFAULT_CHOICES, BattleChoices, BattleOut, BattleSpec, Squadrons, play_battles_nb
    g = int(seeds.shape[0])
    n = setup.n
    out = BattleOut(np.empty(g, np.int8), np.empty(g, np.int32), np.empty(g, np.int8), np.empty((g, n), np.int8),
                    np.empty((g, n), np.int16), np.empty((g, 2), np.int8), np.empty((g, 4), np.int32))
    sq = Squadrons(setup.attack, setup.defense, setup.movement, setup.damage, np.zeros(n, np.int8))
    spec = BattleSpec(*(int(v) for v in (setup.n0, setup.n1, setup.stars[0], setup.stars[1], max_rounds, speed_mode)))
    choice = DEFAULT_CHOICES if choices is None else BattleChoices(*(int(v) for v in choices))
    play_battles_nb(np.ascontiguousarray(seeds, dtype=np.uint64), sq, spec, choice, out)
    return out._asdict()


# ---------------------------------------------------------------- the games table (simlab.games.records)
# one int64 row per battle: the kernels' BattleOut (run_battles), per unit, totalled per side (battle_rows)
(B_WINNER, B_ROUNDS, B_REASON, B_SCORE2_0, B_SCORE2_1, B_SUNK0, B_SUNK1, B_DIS0, B_DIS1, B_ESC0, B_ESC1,
 B_DMG0, B_DMG1, B_LEADER0, B_LEADER1, B_DICE0, B_DICE1, B_DEALT0, B_DEALT1, B_NF) = range(20)

#: the games table of ``doe-battle``, declared once: the façade's columns and category labels, ``simlab schema
#: doe-battle`` and the README come from it (Record.check: every slot 0..B_NF-1 is exactly one field's)
BATTLE_RECORD = records.Record(sys.modules[__name__], B_NF, (
    records.Field("winner", "int8", slot="B_WINNER", schema=False),  # the framework's column
    records.Field("turns", "int32", "rounds",
                  "battle rounds fought (Rule 8.3)",
                  "B_ROUNDS"),
    records.Field("end_reason", "string", "label",
                  "gunfire (a line emptied by sinking or disabling, 10.1), speed (a side's last units disengaged, "
                  "10.2), mutual (both lines emptied in one round), max_rounds (the round limit, a draw)",
                  "B_REASON", labels=END_REASONS),
    records.Field("score_{side}", "float32", "VP",
                  "loss VPs that side earned (Rule 12.1.2, halves kept): enemy units sunk, plus the stars of an "
                  "enemy leader killed",
                  "B_SCORE2_0", derive=lambda twice: twice / 2.0),  # the slot holds twice the VPs
    records.Field("sunk_{side}", "int16", "units",
                  "that side's units sunk",
                  "B_SUNK0"),
    records.Field("disabled_{side}", "int16", "units",
                  "that side's units disabled",
                  "B_DIS0"),
    records.Field("escaped_{side}", "int16", "units",
                  "that side's units that disengaged by speed (10.2)",
                  "B_ESC0"),
    records.Field("damage_{side}", "int32", "damage points",
                  "damage points that side's units took in the battle",
                  "B_DMG0"),
    records.Field("leader_{side}", "string", "label",
                  "that side's leader at the end (Rule 6.3): none (no leader), active, killed or left",
                  "B_LEADER0", labels=LEADER_NAMES),
    # dice luck (simlab luck, simlab.games.doe.luck; computed from the odds, no extra draw)
    records.Field("luck_dice_{side}", "int32", "dice",
                  "gunfire dice that side rolled at the enemy (8.3), all battles of the game",
                  "B_DICE0"),
    records.Field("luck_dealt_{side}", "float64", "damage points",
                  "damage those dice dealt (a 6 scores its damage die, 8.3)",
                  "B_DEALT0"),
    records.Field("luck_mean_{side}", "float64", "damage points",
                  "expected damage of those same dice (7/12 a die)",
                  "B_DICE0", derive=lambda n: n * DIE_MEAN, owns=False),
    records.Field("luck_var_{side}", "float64", "damage points squared",
                  "variance of the damage of those same dice",
                  "B_DICE0", derive=lambda n: n * DIE_VAR, owns=False),
), "doe-battle", __file__)


def battle_rows(setup: BattleSetup, raw: Mapping[str, np.ndarray]) -> np.ndarray:
    """The games-table rows of a batch of battles: :func:`run_battles`' per-unit results totalled per
    side (``int64[g, B_NF]``, the slots :data:`BATTLE_RECORD` declares).

    A side's units sunk, disabled and escaped count its units of that final status; its damage is
    the damage points its units took (final minus initial); its score, held twice over (``B_SCORE2_*``),
    is the half-VPs of the enemy units sunk (Rule 12.1.2) plus twice the stars of an enemy leader
    killed (6.3).
    """
    st = raw["status"]
    g = st.shape[0]
    taken = raw["damage"].astype(np.int32) - setup.damage.astype(np.int32)[None, :]
    half_vp = np.asarray(LOSS_HALF_VP, dtype=np.int32)[setup.type]
    out = np.zeros((g, B_NF), dtype=np.int64)
    out[:, B_WINNER] = raw["winner"]
    out[:, B_ROUNDS] = raw["rounds"]
    out[:, B_REASON] = raw["reason"]
    for si in range(2):
        mine = setup.unit_side == si
        theirs = ~mine
        out[:, B_SCORE2_0 + si] = ((st[:, theirs] == 1) * half_vp[theirs]).sum(axis=1) \
            + 2 * (raw["leader"][:, 1 - si] == LEADER_KILLED) * setup.stars[1 - si]
        out[:, B_SUNK0 + si] = (st[:, mine] == 1).sum(axis=1)
        out[:, B_DIS0 + si] = (st[:, mine] == 2).sum(axis=1)
        out[:, B_ESC0 + si] = (st[:, mine] == 3).sum(axis=1)
        out[:, B_DMG0 + si] = taken[:, mine].sum(axis=1)
        out[:, B_LEADER0 + si] = raw["leader"][:, si]
        out[:, B_DICE0 + si] = raw["luck"][:, si]
        out[:, B_DEALT0 + si] = raw["luck"][:, 2 + si]
    return out
