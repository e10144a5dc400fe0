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
from pathlib import Path
from typing import Any

import numpy as np

from ...datapack import DataPack
from ...errors import ScenarioError
from ..base import Batch, DiceCount, Game, Option, Scenario
from . import rules
from .battle_setup import (
    BATTLE_RECORD,
    BUILTIN,
    STATUS_NAMES,
    BattleSetup,
    battle_choices,
    battle_rows,
    parse_battle,
    read_battle_file,
    run_battles,
)
from .enums import END_REASONS, SPEED_MODES
from .luck import DIE_DAMAGE_PMF
from .odds_options import ODDS_OPTIONS, odds_report


class DoeBattle(Game):
    """One Dawn of Empire battle between two squadrons, as a game."""

    name = "doe-battle"
    title = "Dawn of Empire: one battle between two squadrons (Rules 6.2-6.3, 8.3, 10)"
    kernels_name = "Dawn of Empire"
    rulebook = "000_965723e62316277e.txt"
    sides = None
    side_colors = {"us": "#1f3f8f", "spain": "#c60b1e"}
    options = (
        Option("max_rounds", int, 1000, min=1, max=1_000_000,
               doc="battle rounds before a still-undecided battle is stopped and counted a draw"),
        Option("speed_disengage", str, "never", choices=SPEED_MODES,
               doc="Rule 10.2: 'never', or 'when-able' (a faster squadron leaves before battle, "
                   "faster units after each round)"),
    )
    #: the ``line-order`` family: each side's choices in one battle (its line order, 10.2, 8.3.3 A)
    policy_file = Path(__file__).parent / "policies_battle.toml"
    default_policies = {"*": "line-order"}
    scenarios = tuple(BUILTIN)
    default_scenario = "puerto-rico-passage"
    data_dir = rules.DATA_DIR
    bench_cli = True
    golden_extra_cells = ({"scenario": "puerto-rico-passage", "options": {"speed_disengage": "when-able"}},)
    #: the games table, declared once beside run_battles (battle_setup.BATTLE_RECORD, rows by battle_rows)
    output_record = BATTLE_RECORD
    decisions_file = Path(__file__).parent / "decisions_battle.toml"
    #: damage points of one gunfire die (``simlab luck`` gives exact percentiles from it)
    luck_die_pmf = DIE_DAMAGE_PMF

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

    def sweep_kernels(self, scenario: Scenario, options) -> tuple:
        """The battle kernel :func:`.battle_setup.run_battles` calls (the compile progress's total)."""
        from .kernels import play_battles_nb
        return (play_battles_nb,)

    def play_batch(self, scenario: Scenario, options, policies, seeds) -> Batch:
        """Play one battle per seed (see :func:`run_battles`), each side as its ``line-order``
        policy's knobs say (:func:`battle_choices`); columns per side: score (Rule 12.1.2 loss VPs
        earned, halves kept), units sunk, disabled and escaped, damage points taken, leader fate, and
        the gunfire dice luck, as :data:`.battle_setup.BATTLE_RECORD` declares them (the per-unit results
        totalled per side by :func:`.battle_setup.battle_rows`).
        """
        s, choices = battle_choices(scenario.payload, self.policies_of(scenario.payload.sides, policies))
        raw = run_battles(s, seeds, options["max_rounds"], SPEED_MODES.index(options["speed_disengage"]), choices)
        cols, cats = BATTLE_RECORD.columns(battle_rows(s, raw), s.sides)
        return Batch(games=cols, categories=cats)

    def end_reasons(self):
        return END_REASONS

    # ------------------------------------------------------------------ odds (simlab odds doe-battle)
    def odds(self, battle: str | Path | None = None, *, rounds: int | None = None, method: str = "auto",
             games: int | None = None, seed: int = 0, data: str | Path | None = None,
             options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Exact or Monte Carlo odds of one Dawn of Empire battle (Rules 6.2-6.3, 8.3, 10).

        ``simlab.odds("doe-battle", battle, ...)``; ``simlab odds doe-battle BATTLE``: without
        ``--exact`` or ``--mc`` the odds are exact when the battle is small enough (always for
        ``--rounds 1``), else Monte Carlo with 200,000 battles; the output says which.

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

    odds_options = ODDS_OPTIONS

    def odds_report(self, result) -> list:
        """The tables and lines ``simlab odds doe-battle`` prints (:func:`simlab.games.doe.odds_options.odds_report`)."""
        return odds_report(result)

    def bench_targets(self) -> dict[str, tuple[str, float]]:
        """Issue 2's targets: the kernel plays >= 1,000,000 battles/s on one core, >= 50 times the
        pure-Python reference, and exact odds of the 4 v 7 first round take <= 0.1 s."""
        return {"kernel puerto-rico-passage": (">=", 1_000_000), "kernel vs pure Python": (">=", 50),
                "exact single round 4 v 7": ("<=", 0.1),
                # issue 17's scaling target (2 workers over 1 on a 2-core machine)
                "puerto-rico-passage sweep scaling (2 workers over 1)": (">=", 1.8)}

    def bench_cases(self, quick: bool = False) -> list[dict]:
        """The battle kernel and the pure-Python reference on the 18.2.6 battle (battles/s), exact
        odds of its first round (4 v 7) and of a whole 3 v 3 battle (odds/s: seconds = 1 / rate)."""
        from .odds import bench_cases
        return bench_cases(self, quick)

    def bench_dice(self, scenario: Scenario, options, policies, seeds, batch: Batch) -> DiceCount:
        """The gunfire dice of each battle (8.3.2: ``luck_dice_<side>`` of both sides), a lower
        bound: the damage die after each 6 (8.3.2.2 A) and the leader-casualty roll (6.3 D) are rolled
        too but no column counts them (a battle rolls no other die: ``play_batch`` disengages by
        speed without a roll)."""
        dice = sum(np.asarray(batch.games[f"luck_dice_{s}"], dtype=np.int64) for s in scenario.sides)
        return DiceCount(dice, "gunfire dice only (8.3.2, `luck_dice_<side>`); not the damage die after "
                               "each 6 (8.3.2.2 A) nor leader-casualty rolls (6.3 D)", complete=False)

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
