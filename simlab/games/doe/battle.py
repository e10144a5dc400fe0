"""``doe-battle``: one Dawn of Empire battle between two squadrons (Rules 6.2-6.3, 8.3, 10.1-10.2).

A battle file is TOML with exactly two tables, whose names are the side names::

    title = "optional"
    [us]
    leader_stars = 2           # 0 = no leader; the leader is aboard the first unit (Rule 6.2 A)
    units = [                  # in line order, top of the stack first
      { name = "Massachusetts", type = "BB", attack = 6, defense = 5, movement = 4, damage = 0 },
    ]
    [spain]
    leader = "Cervera"         # or a leader from the data pack (his stars are used)
    units = [ { name = "Teresa" } ]   # a unit from the data pack: its values are used

A unit gives ``name`` and either all of ``type`` (BB CA CP CU GB MO), ``attack``, ``defense`` and
``movement`` (MP), or names a unit of the Dawn of Empire data pack, whose values fill what is not
given. ``damage`` (damage points already taken) defaults to 0 and must not exceed ``defense``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from ...datapack import DataPack, PackView
from ...errors import ScenarioError
from ...tomlio import read_toml
from ..base import SIDE_NAME, Batch, Game, Option, Scenario
from . import rules
from ._cache import KERNEL_MODULES
from .enums import (
    END_REASONS,
    LEADER_KILLED,
    LEADER_NAMES,
    LOSS_HALF_VP,
    SPEED_MODES,
    STATUS_NAMES,
    TYPE_CODE,
    TYPE_NAMES,
)
from .kernels import play_battles_nb

SCENARIO_DIR = Path(__file__).parent / "scenarios"
BUILTIN = {"puerto-rico-passage": SCENARIO_DIR / "puerto-rico-passage.toml"}


class _UnitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: StrictStr = Field(min_length=1, max_length=64)
    type: StrictStr | None = None
    attack: StrictInt | None = Field(default=None, ge=0, le=20)
    defense: StrictInt | None = Field(default=None, ge=0, le=20)
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


def run_battles(setup: BattleSetup, seeds: np.ndarray, max_rounds: int, speed_mode: int) -> dict[str, np.ndarray]:
    """Play one battle per seed; raw per-unit results.

    Args:
        setup: the squadrons.
        seeds: ``uint64[g]`` stream seeds.
        max_rounds: round limit (``>= 1``); a battle still going is a draw (``winner = -1``).
        speed_mode: index into ``enums.SPEED_MODES``.

    Returns:
        ``winner int8[g]``, ``rounds int32[g]``, ``reason int8[g]``, ``status int8[g, n]``,
        ``damage int16[g, n]`` (final damage points), ``leader int8[g, 2]``.
    """
    g = int(seeds.shape[0])
    n = setup.n
    out = {
        "winner": np.empty(g, np.int8), "rounds": np.empty(g, np.int32), "reason": np.empty(g, np.int8),
        "status": np.empty((g, n), np.int8), "damage": np.empty((g, n), np.int16), "leader": np.empty((g, 2), np.int8),
    }
    play_battles_nb(np.ascontiguousarray(seeds, dtype=np.uint64), setup.attack, setup.defense, setup.movement,
                    setup.damage, setup.n0, setup.n1, setup.stars[0], setup.stars[1], int(max_rounds),
                    int(speed_mode), out["winner"], out["rounds"], out["reason"], out["status"], out["damage"],
                    out["leader"])
    return out


class DoeBattle(Game):
    """One Dawn of Empire battle between two squadrons, as a game."""

    name = "doe-battle"
    title = "Dawn of Empire: one battle between two squadrons (Rules 6.2-6.3, 8.3, 10)"
    rulebook = "000_965723e62316277e.txt"
    sides = None
    kernel_modules = KERNEL_MODULES
    options = (
        Option("max_rounds", int, 1000, min=1, max=1_000_000,
               doc="battle rounds before a still-undecided battle is stopped and counted a draw"),
        Option("speed_disengage", str, "never", choices=SPEED_MODES,
               doc="Rule 10.2: 'never', or 'when-able' (a faster squadron leaves before battle, "
                   "faster units after each round)"),
    )
    policies = {"*": ("line-order",)}
    default_policies = {"*": "line-order"}
    scenarios = tuple(BUILTIN)
    default_scenario = "puerto-rico-passage"
    data_dir = rules.DATA_DIR

    def data_schema(self):
        return rules.SCHEMA

    def load_scenario(self, name_or_path: str | None, data: DataPack | None = None) -> Scenario:
        """A built-in battle by name or a battle file (see the module docstring).

        Raises:
            ScenarioError: on an unknown name or a malformed file; DataPackError on a bad pack.
        """
        name = name_or_path or self.default_scenario
        pack = data if data is not None else self.load_data()
        view = pack.view()
        if name in BUILTIN:
            setup = read_battle_file(BUILTIN[name], view)
            source = f"builtin:{name}"
        elif name.endswith(".toml") or Path(name).exists():
            setup = read_battle_file(name, view)
            source = str(name)
            name = Path(name).stem
        else:
            raise ScenarioError(
                f"unknown doe-battle scenario '{name}' (built-in: {', '.join(BUILTIN)}; or a .toml battle file)"
            )
        return Scenario(name=name, sides=setup.sides, payload=setup, source=source, used=frozenset(view.used),
                        title=setup.title)

    def play_batch(self, scenario: Scenario, options, policies, seeds) -> Batch:
        """Play one battle per seed (see :func:`run_battles`); columns per side: score (Rule 12.1.2
        loss VPs earned, halves kept), units sunk, disabled and escaped, damage points taken, leader fate.
        """
        s: BattleSetup = scenario.payload
        raw = run_battles(s, seeds, options["max_rounds"], SPEED_MODES.index(options["speed_disengage"]))
        st = raw["status"]
        taken = raw["damage"].astype(np.int32) - s.damage.astype(np.int32)[None, :]
        half_vp = np.asarray(LOSS_HALF_VP, dtype=np.int32)[s.type]
        cols: dict[str, np.ndarray] = {
            "winner": raw["winner"], "turns": raw["rounds"], "end_reason": raw["reason"],
        }
        for si, side in enumerate(s.sides):
            mine = s.unit_side == si
            theirs = ~mine
            sunk_theirs = (st[:, theirs] == 1)
            score = (sunk_theirs * half_vp[theirs]).sum(axis=1) / 2.0
            score = score + (raw["leader"][:, 1 - si] == LEADER_KILLED) * s.stars[1 - si]
            cols[f"score_{side}"] = score.astype(np.float32)
        for si, side in enumerate(s.sides):
            mine = s.unit_side == si
            cols[f"sunk_{side}"] = (st[:, mine] == 1).sum(axis=1).astype(np.int16)
            cols[f"disabled_{side}"] = (st[:, mine] == 2).sum(axis=1).astype(np.int16)
            cols[f"escaped_{side}"] = (st[:, mine] == 3).sum(axis=1).astype(np.int16)
            cols[f"damage_{side}"] = taken[:, mine].sum(axis=1).astype(np.int32)
            cols[f"leader_{side}"] = raw["leader"][:, si]
        cats = {"end_reason": END_REASONS}
        for side in s.sides:
            cats[f"leader_{side}"] = LEADER_NAMES
        return Batch(games=cols, categories=cats)

    def end_reasons(self):
        return END_REASONS

    # ------------------------------------------------------------------ odds (simlab odds doe-battle)
    def odds(self, battle: str | Path | None = None, *, rounds: int | None = None, method: str = "auto",
             games: int | None = None, seed: int = 0, data: str | Path | None = None,
             options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Exact or Monte Carlo odds of one battle: ``simlab.odds("doe-battle", battle, ...)``.

        Args:
            battle: a battle file or a built-in scenario name (default ``puerto-rico-passage``).
            rounds: stop after this many rounds (a battle still going counts as neither side).
            method: ``"auto"``, ``"exact"`` or ``"monte_carlo"``; games: Monte Carlo battles;
            seed: Monte Carlo master seed; data: a data-pack override file; options: game
            options (``max_rounds``, ``speed_disengage``).

        Returns:
            The dict :func:`simlab.games.doe.odds.battle_odds` documents, plus the scenario and
            the data-pack values it read, counted by provenance.

        Raises:
            ScenarioError, DataPackError, SpecError: bad input (one-line messages).
        """
        from .odds import game_odds
        return game_odds(self, battle, rounds=rounds, method=method, games=games, seed=seed, data=data,
                         options=dict(options or {}))

    @property
    def odds_command(self):
        """The typer command ``simlab odds doe-battle`` (see :func:`simlab.games.doe.odds.odds_command`)."""
        from .odds import odds_command
        return odds_command

    def bench_cases(self, quick: bool = False) -> list[dict]:
        """The battle kernel and the pure-Python reference on the 18.2.6 battle (battles/s), exact
        odds of its first round (4 v 7) and of a whole 3 v 3 battle (odds/s: seconds = 1 / rate)."""
        from .odds import bench_cases
        return bench_cases(self, quick)

    def soak_cases(self):
        """Every built-in battle with and without disengagement by speed (Rule 10.2)."""
        return [(s, {"speed_disengage": m}) for s in self.scenarios for m in SPEED_MODES]

    def invariant_violations(self, scenario: Scenario, batch: Batch, options) -> list[str]:
        """The contract (``Game.invariant_violations``) plus the battle's own invariants:
        units sunk + disabled + escaped never exceed a side's units; damage taken and scores are
        never negative and scores come in half VPs (Rule 12.1.2); a won battle (gunfire or speed,
        Rules 10.1-10.2) leaves the loser no unit in line; a battle nobody won ended mutually or at
        ``max_rounds`` (Ruling B7, B9), and only a ``max_rounds`` battle played that many rounds.
        """
        out = super().invariant_violations(scenario, batch, options)
        if out:
            return out
        s: BattleSetup = scenario.payload
        g = batch.games
        w = np.asarray(g["winner"])
        reason = np.asarray(g["end_reason"])
        turns = np.asarray(g["turns"])
        n_units = (s.n0, s.n1)
        gone = []
        for si, side in enumerate(s.sides):
            k = (np.asarray(g[f"sunk_{side}"]).astype(np.int64) + np.asarray(g[f"disabled_{side}"])
                 + np.asarray(g[f"escaped_{side}"]))
            gone.append(k)
            if (k > n_units[si]).any():
                out.append(f"{side}: more units sunk, disabled or escaped than the side has")
            if (np.asarray(g[f"damage_{side}"]) < 0).any():
                out.append(f"{side}: negative damage taken")
            sc = np.asarray(g[f"score_{side}"], dtype=np.float64)
            if (sc < 0).any() or not np.array_equal(sc * 2, np.round(sc * 2)):
                out.append(f"score_{side}: negative or not in half VPs")
        won = w >= 0
        by_rules = np.isin(reason, [END_REASONS.index("gunfire"), END_REASONS.index("speed")])
        if not np.array_equal(won, by_rules):
            out.append("winner and end_reason disagree (a won battle must end by gunfire or speed)")
        for si in range(2):
            lost = w == 1 - si
            if (gone[si][lost] != n_units[si]).any():
                out.append(f"{s.sides[si]} lost with units still in line")
        at_cap = reason == END_REASONS.index("max_rounds")
        if (turns > options["max_rounds"]).any() or (turns[at_cap] != options["max_rounds"]).any():
            out.append("rounds played disagree with max_rounds")
        return out


GAME = DoeBattle()

__all__ = ["BattleSetup", "DoeBattle", "GAME", "STATUS_NAMES", "parse_battle", "read_battle_file", "run_battles"]
