"""The ``ladder-race`` façade: the plug-in the framework calls (see :mod:`.kernels` for the rules).

Everything the framework needs is declared here: the typed options, the policies, the kernel
modules (numba's cache of them is kept fresh by the framework), the columns file in the game's own
folder (``columns/ladder-race.toml``), the luck distribution of its die, a speed target for ``simlab
bench``, and an odds calculator (plain values plus typed options; the CLI builds ``simlab odds
ladder-race`` from them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from simlab.errors import ScenarioError, SpecError
from simlab.games import Batch, Game, Option, Scenario
from simlab.games.odds import OddsOption, Table
from simlab.games.policy import policy_names

POLICIES = ("steady", "bold")
END_REASONS = ("reached", "max_turns")
#: built-in scenarios: name -> rungs to reach
LADDERS = {"short": 12, "long": 30}


@dataclass(frozen=True)
class Ladder:
    """The payload of a ladder-race scenario."""

    target: int


class LadderRace(Game):
    """Two sides race up a ladder of d6 rolls (see :mod:`.kernels`)."""

    name = "ladder-race"
    title = "Ladder race: the fourth game, a plug-in test (tests/ladder_race)"
    sides = ("red", "blue")
    options = (
        Option("head_start", int, 0, min=0, max=20, doc="red's starting rung (rungs)"),
        Option("max_turns", int, 50, min=1, max=1000, doc="turns before a race stops as a draw"),
    )
    policies = {"*": POLICIES}
    default_policies = {"*": "steady"}
    scenarios = tuple(LADDERS)
    default_scenario = "short"
    kernel_modules = (f"{__package__}.kernels",)
    #: the games table's columns, in the game's own folder (simlab.games.schema)
    columns_file = Path(__file__).parent / "columns" / "ladder-race.toml"
    #: rungs one d6 climbs: 1 to 6, each 1/6 (``pmf[v]``; simlab luck's exact percentiles)
    luck_die_pmf = np.array([0.0] + [1 / 6] * 6)
    odds_options = (
        OddsOption("dice", int, 1, doc="d6 rolled"),
        OddsOption("need", int, required=True, doc="the total needed (rungs)"),
    )

    def load_scenario(self, name_or_path: str | None, data=None) -> Scenario[Ladder]:
        """A built-in ladder. Raises: ScenarioError on any other name."""
        name = name_or_path or self.default_scenario
        if name not in LADDERS:
            raise ScenarioError(f"unknown ladder-race scenario '{name}' (built-in: {', '.join(LADDERS)})")
        return Scenario(name=name, sides=self.sides, payload=Ladder(LADDERS[name]), source=f"builtin:{name}")

    def play_batch(self, scenario: Scenario[Ladder], options: Mapping[str, Any], policies: Mapping[str, str],
                   seeds: np.ndarray) -> Batch:
        """One race per seed: ``winner``, ``turns``, ``score_<side>`` (final rung), ``end_reason``."""
        from .kernels import play_races_nb
        policies = policy_names(self.policies_of(scenario.sides, policies))
        g = int(seeds.shape[0])
        cols = {"winner": np.empty(g, np.int8), "turns": np.empty(g, np.int32),
                "score_red": np.empty(g, np.float32), "score_blue": np.empty(g, np.float32),
                "end_reason": np.empty(g, np.int8)}
        play_races_nb(np.ascontiguousarray(seeds, dtype=np.uint64), scenario.payload.target,
                      int(options["head_start"]), int(options["max_turns"]), POLICIES.index(policies["red"]),
                      POLICIES.index(policies["blue"]), cols["winner"], cols["turns"], cols["score_red"],
                      cols["score_blue"], cols["end_reason"])
        return Batch(games=cols, categories={"end_reason": END_REASONS})

    def end_reasons(self):
        return END_REASONS

    def invariant_violations(self, scenario, batch, options) -> list[str]:
        """The contract, plus: a race that reached the top has a side at ``target`` or above."""
        out = super().invariant_violations(scenario, batch, options)
        g = batch.games
        top = np.maximum(g["score_red"], g["score_blue"])
        reached = g["end_reason"] == END_REASONS.index("reached")
        if (top[reached] < scenario.payload.target).any():
            out.append("a race ended 'reached' below the top of the ladder")
        return out

    def bench_targets(self) -> dict[str, tuple[str, float]]:
        return {"short play_batch 1 core": (">=", 1.0)}

    def odds(self, dice: int = 1, need: int = 1) -> dict:
        """Exact chance that ``dice`` d6 total at least ``need``. Raises: SpecError for dice outside 1..6."""
        if not 1 <= dice <= 6:
            raise SpecError(f"--dice must be 1..6, got {dice}")
        hits = sum(1 for r in product(range(1, 7), repeat=dice) if sum(r) >= need)
        p = Fraction(hits, 6 ** dice)
        return {"dice": dice, "need": need, "p": float(p), "exact": f"{p.numerator}/{p.denominator}"}

    def odds_report(self, result) -> list:
        t = Table(("dice", "need", "probability", "exact"), right=("probability",))
        t.add_row(str(result["dice"]), str(result["need"]), f"{result['p']:.4f}", result["exact"])
        return [t]


GAME = LadderRace()
