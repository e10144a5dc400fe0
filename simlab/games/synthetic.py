"""``synthetic``: a test instrument, not a wargame — games whose answers are known in closed form.

The balance-analysis layer (``simlab tune``, ``compare``, ``meta``, the report's balance metrics)
is checked against this game, whose win probabilities are exact functions of its options, so a
tuner or a solver can be asked to recover a value that is known without simulation. Users can
run it too, to see what the tools report when the answer is known.

Scenarios:

* ``coin``: one calibrated coin per game. With probability ``draw_rate`` the game is a draw;
  otherwise red wins with probability ``sigmoid(SLOPE * (bias - FAIR_BIAS) + EDGE * M[red, blue])``
  where ``M`` is the rock-paper-scissors matrix of the two policies (+1 when red's policy beats
  blue's, -1 when it loses, 0 otherwise and whenever a side plays ``plain``). The fair bias (equal
  win rates) is therefore exactly :data:`FAIR_BIAS` for ``plain`` against ``plain``. ``turns`` is
  the number of d6 rolled until the first 6, at most :data:`MAX_TURNS` (a known length
  distribution). Scores: 1 to the winner, 0 to the loser.
* ``dice-race``: red rolls :data:`RED_DICE` d6 and blue :data:`BLUE_DICE` d6; each side's score
  is its total, and ``handicap`` VPs are added to red's score when positive, or ``-handicap`` to
  blue's when negative. Red wins when its net score (red - blue) is at least ``threshold``, blue
  when it is at most ``-threshold``, otherwise the game is a draw. ``handicap`` only shifts the
  final score and no policy looks at the score, so it is ``score_only``: ``simlab tune`` can derive
  its curve from one sweep (:meth:`Synthetic.rescore`). With 3d6 against 4d6 the net score is
  symmetric about -3.5, so the fair handicap is 3.5 VP for any threshold.

Each game draws from its own stream (``simlab.rng``), so a row depends only on its seed, and with
common random numbers a coin game's result is monotone in ``bias``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ScenarioError
from .base import Batch, Game, Option, Scenario
from .policy import policy_names

__all__ = ["BLUE_DICE", "EDGE", "FAIR_BIAS", "GAME", "MAX_TURNS", "RED_DICE", "SLOPE", "Synthetic",
           "coin_probabilities"]

#: the bias at which red and blue win equally often in ``coin`` (plain against plain)
FAIR_BIAS = 0.3
#: logistic slope of red's decisive-game win probability against ``bias`` (per unit of bias)
SLOPE = 2.0
#: logit shift of a rock-paper-scissors win
EDGE = 1.0
#: the most turns a ``coin`` game lasts
MAX_TURNS = 20
#: dice rolled by each side in ``dice-race``
RED_DICE = 3
BLUE_DICE = 4

POLICIES = ("plain", "rock", "paper", "scissors")
#: RPS[i, j] = +1 when policy i beats policy j (rock > scissors > paper > rock), -1 when it loses
RPS = np.array([[0, 0, 0, 0],
                [0, 0, -1, 1],
                [0, 1, 0, -1],
                [0, -1, 1, 0]], dtype=np.int64)
END_REASONS = ("decisive", "drawn")
SCENARIO_CODES = {"coin": 0, "dice-race": 1}


def coin_probabilities(bias: float, draw_rate: float, red: str = "plain", blue: str = "plain") -> dict[str, float]:
    """Exact outcome probabilities of a ``coin`` game.

    Args:
        bias: the ``bias`` option (dimensionless).
        draw_rate: the ``draw_rate`` option, in ``[0, 1)``.
        red, blue: the sides' policies.

    Returns:
        ``{"red": p, "blue": q, "draw": d}`` summing to 1.
    """
    x = SLOPE * (bias - FAIR_BIAS) + EDGE * RPS[POLICIES.index(red), POLICIES.index(blue)]
    p = 1.0 / (1.0 + math.exp(-x))
    return {"red": (1 - draw_rate) * p, "blue": (1 - draw_rate) * (1 - p), "draw": draw_rate}


class Synthetic(Game):
    """The synthetic test instrument (see the module docstring)."""

    name = "synthetic"
    title = "Test instrument, not a wargame: a calibrated coin and a dice race with known answers"
    rulebook = ""
    sides = ("red", "blue")
    side_colors = {"red": "#d62728", "blue": "#1f77b4"}
    options = (
        Option("bias", float, 0.0, min=-20.0, max=20.0,
               doc=f"coin: red's logit is {SLOPE} * (bias - {FAIR_BIAS}); fair at bias = {FAIR_BIAS}"),
        Option("draw_rate", float, 0.1, min=0.0, max=0.9, doc="coin: probability of a draw"),
        Option("handicap", int, 0, min=-100, max=100, score_only=True,
               doc="dice race: VP added to red's score (negative: -handicap added to blue's); fair at 3.5 VP"),
        Option("threshold", int, 2, min=1, max=30,
               doc="dice race: net score (VP) a side needs to win; anything closer is a draw"),
    )
    policies = {"*": POLICIES}
    default_policies = {"*": "plain"}
    scenarios = tuple(SCENARIO_CODES)
    default_scenario = "coin"
    data_dir = None
    columns_file = Path(__file__).with_name("synthetic_columns.toml")
    #: the kernel (imported on first play, so listing games loads no numba)
    kernel_modules = ("simlab.games.synthetic_kernels",)

    def load_scenario(self, name_or_path: str | None, data=None) -> Scenario:
        """A built-in scenario (``coin`` or ``dice-race``).

        Raises:
            ScenarioError: on any other name.
        """
        name = name_or_path or self.default_scenario
        if name not in SCENARIO_CODES:
            raise ScenarioError(f"unknown synthetic scenario '{name}' (built-in: {', '.join(SCENARIO_CODES)})")
        return Scenario(name=name, sides=self.sides, payload=SCENARIO_CODES[name], source=f"builtin:{name}",
                        title=f"synthetic {name}")

    def play_batch(self, scenario: Scenario, options: Mapping[str, Any], policies: Mapping[str, str],
                   seeds: np.ndarray) -> Batch:
        """Play one game per seed: columns ``winner``, ``turns``, ``score_red``, ``score_blue`` (VP),
        ``end_reason`` (``decisive`` or ``drawn``)."""
        from .synthetic_kernels import SynthOut, SynthParams, play_synthetic_nb
        policies = policy_names(self.policies_of(scenario.sides, policies))
        g = int(seeds.shape[0])
        cols = {"winner": np.empty(g, np.int8), "turns": np.empty(g, np.int32),
                "score_red": np.empty(g, np.float32), "score_blue": np.empty(g, np.float32),
                "end_reason": np.empty(g, np.int8)}
        # the same float64 arithmetic the kernel did when it read these constants itself
        logit = (SLOPE * (float(options["bias"]) - FAIR_BIAS)
                 + EDGE * int(RPS[POLICIES.index(policies["red"]), POLICIES.index(policies["blue"])]))
        par = SynthParams(int(scenario.payload), float(logit), float(options["draw_rate"]), int(options["handicap"]),
                          int(options["threshold"]), int(MAX_TURNS), int(RED_DICE), int(BLUE_DICE))
        res = SynthOut(cols["winner"], cols["turns"], cols["score_red"], cols["score_blue"], cols["end_reason"])
        play_synthetic_nb(np.ascontiguousarray(seeds, dtype=np.uint64), par, res)
        return Batch(games=cols, categories={"end_reason": END_REASONS})

    def end_reasons(self) -> Sequence[str]:
        return END_REASONS

    def bench_scenarios(self) -> Sequence[str]:
        """None: a test instrument has no throughput target (``simlab bench`` skips it)."""
        return ()

    def rescore(self, scenario: Scenario, games: Mapping[str, np.ndarray], options: Mapping[str, Any],
                changes: Mapping[str, Any]) -> np.ndarray | None:
        """Winners of played ``dice-race`` games had ``handicap`` been ``changes["handicap"]``.

        The played handicap is removed from the scores and the new one applied; the winner is
        then decided as in play (net = red - blue, a win at ``threshold``). Returns None for the
        ``coin`` scenario (its scores do not decide the winner) or for any other option.
        """
        if set(changes) != {"handicap"} or scenario.name != "dice-race":
            return None
        old = int(options["handicap"])
        new = int(changes["handicap"])
        red = np.asarray(games["score_red"], dtype=np.float64) - max(old, 0)
        blue = np.asarray(games["score_blue"], dtype=np.float64) - max(-old, 0)
        net = red - blue + new
        t = int(options["threshold"])
        return np.where(net >= t, 0, np.where(net <= -t, 1, -1)).astype(np.int8)


GAME = Synthetic()
