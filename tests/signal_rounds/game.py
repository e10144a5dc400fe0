"""The ``signal-rounds`` façade: the plug-in the framework calls (rules and the rollout exploiter in
:mod:`.kernels`, exact values in :mod:`.oracle`).

It offers a rollout exploiter the way Mar Rojo does (``simlab/games/mar_rojo/game.py``): the game
overrides :meth:`~simlab.games.base.Game.resolve_rollout` to turn ``@rollout:BASE[:R]`` into a
:class:`~simlab.games.policy.RolloutPolicy`, and :meth:`play_batch` plays a side given one with the
rollout kernel (its decision points: every round; its candidates: both targets). So ``simlab sweep
--policy red=@rollout:coin:8`` and ``simlab solve --method rollout|both`` work on it unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from simlab.errors import ScenarioError, SpecError
from simlab.games import Batch, Game, Scenario
from simlab.games.policy import ROLLOUT_PREFIX, RolloutPolicy, parse_rollout

from .oracle import WIN

END_REASONS = ("decided",)
SIDES = ("red", "blue")
#: the salt of the rollout keys (the exploiter's rows depend on the seeds alone)
SALT = 0x5369676E616C  # "Signal"


class SignalRounds(Game):
    """Best of three rounds; red sees a signal its knob family ignores (see :mod:`.kernels`)."""

    name = "signal-rounds"
    title = "Signal rounds: a synthetic game whose best response is outside the knobs (tests/signal_rounds)"
    sides = SIDES
    options = ()
    policy_file = Path(__file__).with_name("policies.toml")
    default_policies = {"red": "coin", "blue": "even"}
    scenarios = ("best-of-three",)
    default_scenario = "best-of-three"
    data_dir = None
    kernel_modules = (f"{__package__}.kernels",)
    columns_file = Path(__file__).parent / "columns" / "signal-rounds.toml"

    def load_scenario(self, name_or_path: str | None, data=None) -> Scenario:
        """The one built-in scenario. Raises: ScenarioError on any other name."""
        name = name_or_path or self.default_scenario
        if name != self.default_scenario:
            raise ScenarioError(f"unknown signal-rounds scenario '{name}' (built-in: {self.default_scenario})")
        return Scenario(name=name, sides=self.sides, payload=0, source=f"builtin:{name}", title="best of three")

    def resolve_policies(self, sides, given, knobs=None):
        """As :meth:`Game.resolve_policies`. Raises: SpecError as there, or both sides rolling out."""
        out = super().resolve_policies(sides, given, knobs)
        if sum(isinstance(p, RolloutPolicy) for p in out.values()) > 1:
            raise SpecError("signal-rounds: only one side may play a rollout exploiter (@rollout:) in a game")
        return out

    def resolve_rollout(self, side: str, name: str, knobs=None) -> RolloutPolicy:
        """``@rollout:BASE[:R]``: the rollout exploiter of :mod:`.kernels` over the preset BASE.

        Raises:
            SpecError: an unknown or non-preset base, or a bad R."""
        base_name, r = parse_rollout(name)
        if base_name.startswith(("@mix:", ROLLOUT_PREFIX)):
            raise SpecError(f"policy {name!r}: the base of a rollout exploiter must be a preset, not {base_name!r}")
        base = self.policy_book().resolve(side, base_name, knobs)
        vec = (("rollouts", float(r)),) + tuple((f"base.{k}", v) for k, v in base.knobs)
        return RolloutPolicy(name if ":" in name[len(ROLLOUT_PREFIX):] else f"{name}:{r}", "rollout", vec, base, r)

    def play_rows(self, policies, seeds: np.ndarray) -> np.ndarray:
        """``int32[n, kernels.NOUT]`` rows of one game per seed (``uint64[n]``) with resolved
        ``{side: Policy}`` (a :class:`RolloutPolicy` on at most one side)."""
        from .kernels import NOUT, play_games_nb
        ro = np.array([-1, 0, SALT], dtype=np.int64)
        base = {}
        for i, s in enumerate(SIDES):
            p = policies[s]
            if isinstance(p, RolloutPolicy):
                ro[0], ro[1] = i, p.rollouts
                p = p.base
            base[s] = p.vector()[0]
        pol = np.array([base["red"], base["blue"]], dtype=np.float64)
        out = np.zeros((int(seeds.shape[0]), NOUT), dtype=np.int32)
        play_games_nb(np.ascontiguousarray(seeds, dtype=np.uint64), WIN, pol, ro, out)
        return out

    def play_batch(self, scenario: Scenario, options: Mapping[str, Any], policies, seeds: np.ndarray) -> Batch:
        """One game per seed: ``winner``, ``turns`` (rounds), ``score_<side>`` (rounds won), ``end_reason``."""
        out = self.play_rows(self.policies_of(scenario.sides, policies), seeds)
        g = int(seeds.shape[0])
        return Batch(games={"winner": out[:, 0].astype(np.int8), "turns": out[:, 1].astype(np.int32),
                            "score_red": out[:, 2].astype(np.float32), "score_blue": out[:, 3].astype(np.float32),
                            "end_reason": np.zeros(g, np.int8)},
                     categories={"end_reason": END_REASONS})

    def end_reasons(self):
        return END_REASONS

    def bench_scenarios(self):
        """None: a test instrument has no throughput target."""
        return ()


GAME = SignalRounds()
