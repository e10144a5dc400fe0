"""A tiny test plug-in with policy families and knobs (tests/test_policy_knobs.py).

Each side fires ``shots`` shots that hit with probability ``accuracy``; the side with more hits
wins, equal hits are a draw. Red's expected hits are ``shots * accuracy``, so a knob's effect on
the win rate is known exactly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simlab.games import Batch, Game, Scenario


class KnobDuel(Game):
    name = "knob-duel"
    title = "test plug-in: a duel whose policies have knobs"
    sides = ("red", "blue")
    policy_file = Path(__file__).parent / "policies.toml"
    default_policies = {"*": "steady"}
    scenarios = ("duel",)
    default_scenario = "duel"

    def load_scenario(self, name_or_path, data=None) -> Scenario:
        return Scenario(name="duel", sides=self.sides, payload=None, source="builtin:duel")

    def play_batch(self, scenario, options, policies, seeds) -> Batch:
        pols = self.policies_of(scenario.sides, policies)
        n = len(seeds)
        hits = np.zeros((2, n), dtype=np.int32)
        for i, s in enumerate(seeds):
            rng = np.random.default_rng(int(s))
            for k, side in enumerate(scenario.sides):
                p = pols[side]
                if p.family == "aim":
                    hits[k, i] = int((rng.random(int(p.value("shots"))) < p.value("accuracy")).sum())
        winner = np.where(hits[0] > hits[1], 0, np.where(hits[1] > hits[0], 1, -1)).astype(np.int8)
        return Batch(games={"winner": winner, "turns": np.ones(n, dtype=np.int16),
                            "score_red": hits[0].astype(np.float64), "score_blue": hits[1].astype(np.float64)})


GAME = KnobDuel()
