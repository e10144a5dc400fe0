"""``synthetic-duel``: a test instrument with a closed-form equilibrium over continuous and integer knobs.

Not a wargame. Each side plays the one family ``duel`` with two knobs: ``aim`` (a real in
``[0, 1]``) and ``range`` (an integer in ``0..10``). With red's knobs ``x = (a, r)`` and blue's
``y = (b, s)``, red wins a game with probability ``sigmoid(g(x, y))`` and blue otherwise (no
draws), where

    g(x, y) = V0 - A (a - RED_AIM)^2 - B (r - RED_RANGE)^2
                 + A (b - BLUE_AIM)^2 + B (s - BLUE_RANGE)^2 + C (a - RED_AIM)(b - BLUE_AIM)

``g`` is concave in red's knobs and convex in blue's (``C^2 < 4 A^2``), so the game has a pure
saddle point at ``x* = (RED_AIM, RED_RANGE)``, ``y* = (BLUE_AIM, BLUE_RANGE)`` and, since the
payoff (red's win rate minus blue's, ``2 sigmoid(g) - 1``) is a monotone function of ``g``, its
value is :data:`VALUE` ``= 2 sigmoid(V0) - 1`` (option ``v0`` replaces ``V0``: the value is
then ``2 sigmoid(v0) - 1`` at the same saddle point). Red's best response to a blue aim ``b`` is
``a = RED_AIM + C (b - BLUE_AIM) / (2 A)`` (clipped to ``[0, 1]``), so a best response depends
on the opponent. :func:`duel_payoff` is the exact payoff and :func:`exploitability` the exact
NashConv of a pair of mixes (by enumeration over the integer knob and a fine grid of the real one),
which the tests of ``simlab solve`` compare against.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ScenarioError
from .base import Batch, Game, Option, Scenario

__all__ = ["GAME", "VALUE", "SyntheticDuel", "duel_payoff", "exploitability"]

V0, A, B, C = 0.2, 4.0, 0.05, 2.0
RED_AIM, RED_RANGE, BLUE_AIM, BLUE_RANGE = 0.7, 6, 0.4, 3
#: the value of the game (red's win rate minus blue's) at its equilibrium
VALUE = 2.0 / (1.0 + math.exp(-V0)) - 1.0
END_REASONS = ("decisive",)


def duel_payoff(red: Sequence[float], blue: Sequence[float]):
    """Exact payoff (red's win rate minus blue's) of red knobs ``(aim, range)`` against blue's.

    Arguments may be arrays that broadcast (``red[0]`` aims, ``red[1]`` ranges, ...). Returns a
    float or ``ndarray(float64)``.
    """
    a, r = np.asarray(red[0], float), np.asarray(red[1], float)
    b, s = np.asarray(blue[0], float), np.asarray(blue[1], float)
    g = (V0 - A * (a - RED_AIM) ** 2 - B * (r - RED_RANGE) ** 2 + A * (b - BLUE_AIM) ** 2
         + B * (s - BLUE_RANGE) ** 2 + C * (a - RED_AIM) * (b - BLUE_AIM))
    return 2.0 / (1.0 + np.exp(-g)) - 1.0


def exploitability(red_mix: Sequence[tuple[float, tuple[float, int]]],
                   blue_mix: Sequence[tuple[float, tuple[float, int]]], steps: int = 2001) -> dict:
    """Exact best-response gains against a pair of mixes ``[(weight, (aim, range)), ...]``.

    Returns:
        ``{"value": payoff of the mixes, "red_gain": red's best response payoff against blue's mix
        minus it, "blue_gain": likewise for blue, "nash_conv": their sum}`` (aims on a grid of
        ``steps`` points, ranges 0..10).
    """
    aims = np.linspace(0.0, 1.0, steps)[:, None]
    ranges = np.arange(11)[None, :]
    v = sum(wr * wb * float(duel_payoff(x, y)) for wr, x in red_mix for wb, y in blue_mix)
    red_br = max(float(sum(w * duel_payoff((aims, ranges), y) for w, y in blue_mix).max()), v)
    blue_br = min(float(sum(w * duel_payoff(x, (aims, ranges)) for w, x in red_mix).min()), v)
    return {"value": v, "red_gain": red_br - v, "blue_gain": v - blue_br, "nash_conv": red_br - blue_br}


class SyntheticDuel(Game):
    """The two-knob duel (see the module docstring)."""

    name = "synthetic-duel"
    title = "Test instrument, not a wargame: a two-knob duel whose equilibrium and value are known in closed form"
    rulebook = ""
    sides = ("red", "blue")
    side_colors = {"red": "#d62728", "blue": "#1f77b4"}
    options = (
        Option("v0", float, V0, min=-5.0, max=5.0,
               doc="g's constant: the value at the saddle point is 2 sigmoid(v0) - 1 (the knobs' optima do not move)"),
    )
    policy_file = Path(__file__).with_name("synthetic_duel.toml")
    default_policies = {"*": "middle"}
    scenarios = ("duel",)
    default_scenario = "duel"
    data_dir = None
    columns_file = Path(__file__).with_name("synthetic_duel_columns.toml")
    kernel_modules = ("simlab.games.synthetic_duel_kernels",)

    def load_scenario(self, name_or_path: str | None, data=None) -> Scenario:
        """The one built-in scenario ``duel``.

        Raises:
            ScenarioError: on any other name.
        """
        name = name_or_path or self.default_scenario
        if name != "duel":
            raise ScenarioError(f"unknown synthetic-duel scenario '{name}' (built-in: duel)")
        return Scenario(name=name, sides=self.sides, payload=0, source="builtin:duel", title="synthetic duel")

    def play_batch(self, scenario: Scenario, options: Mapping[str, Any], policies, seeds: np.ndarray) -> Batch:
        """Columns ``winner``, ``turns`` (1), ``score_red``/``score_blue`` (1 for the winner), ``end_reason``."""
        pol = self.policies_of(scenario.sides, policies)
        g = int(seeds.shape[0])
        w = np.empty(g, np.int8)
        from .synthetic_duel_kernels import play_duel_nb
        (a, r), (b, s) = pol["red"].vector()[:2], pol["blue"].vector()[:2]
        g_ = (float(options.get("v0", V0)) - A * (a - RED_AIM) ** 2 - B * (r - RED_RANGE) ** 2 + A * (b - BLUE_AIM) ** 2
              + B * (s - BLUE_RANGE) ** 2 + C * (a - RED_AIM) * (b - BLUE_AIM))
        play_duel_nb(np.ascontiguousarray(seeds, dtype=np.uint64), float(1.0 / (1.0 + np.exp(-g_))), w)
        return Batch(games={"winner": w, "turns": np.ones(g, np.int32), "score_red": (w == 0).astype(np.float32),
                            "score_blue": (w == 1).astype(np.float32), "end_reason": np.zeros(g, np.int8)},
                     categories={"end_reason": END_REASONS})

    def end_reasons(self) -> Sequence[str]:
        return END_REASONS

    def bench_scenarios(self) -> Sequence[str]:
        """None: a test instrument has no throughput target."""
        return ()


GAME = SyntheticDuel()
