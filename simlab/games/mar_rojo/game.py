"""``mar-rojo``: the Mar Rojo card game, played whole by scripted policies (Rules 3-12).

Sides: ``nationalist`` and ``republican``. Scenarios: ``cabo-de-palos`` (8.1),
``strait-of-gibraltar`` (8.2), ``mediterranean-campaign`` (8.3), ``points-built`` (9), or a
scenario file (see :mod:`simlab.games.mar_rojo.scenario`).

Columns per game (besides the runner's keys): ``winner`` (by the scenario's conditions, the Rule
7 tie-break, then a draw), ``score_<side>`` (victory points: 8.2/8.3 capital ships and merchants
sunk plus merchants at short; 7 and, for information, 8.1: capital ships and merchants sunk plus
one per four other cards), ``turns`` (game turns, two sub-turns each), ``subturns``,
``cards_drawn`` and ``cards_drawn_<side>`` (action cards drawn after the deal, replacements of
The End and Day/Night included), ``end_reason`` (``the_end`` or ``retreat``; ``limit`` would mean
the safety stop), ``draw_stop_subturn`` (the sub-turn at which drawing stopped),
``merchants_short_<side>``, ``sunk_<side>_<type>`` (that side's cards sunk, by type),
``ships_sunk_by_<side>`` (the tie-break count), ``removed_republican`` (8.2 Transfer),
``first_player``, ``ai_<side>`` (the solo AI's manoeuvre), ``squadron_points_<side>`` and
``squadron_cards_<side>``, ``hits_<side>`` (damage markers taken), ``attacks_<side>`` (combat
actions), ``night_subturns``, and ``luck_dealt_<side>``, ``luck_mean_<side>``, ``luck_var_<side>``
(the damage markers the side's dice dealt, hit rolls less the hits saves cancelled plus what the
torpedo effect table made of torpedo hits, and their expected value and variance: ``simlab luck``, :mod:`.combat`). With ``card_events`` the ``cards`` events table gives every
squadron card's fate (side, card, status, damage).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ...datapack import DataPack
from ...errors import ScenarioError, SpecError
from ..base import Batch, DiceCount, Game, Option, Scenario
from ..policy import RolloutPolicy, parse_rollout
from . import rules
from .enums import (
    BUILDER_NAMES,
    END_REASONS,
    LENGTH_NAMES,
    SIDE_NAMES,
)
from .layout import (
    CARD_RECORD,
    MAXC,
    O_BUILD_FAIL,
    O_DRAWS,
    O_VIOLATION,
    O_WINNER,
    OUTPUT_RECORD,
    POLICY_PACKING,
    VIOLATION_NAMES,
)
from .odds import ODDS_OPTIONS, odds_report
from .scenario import BUILTIN, MarRojoSetup

__all__ = ["GAME", "MarRojo"]


def _columns(setup: MarRojoSetup, out: np.ndarray, sq: np.ndarray, card_events: bool, check: bool) -> Batch:
    """The batch of rows ``out`` (and ``sq``, for the events table ``cards``), as ``layout.OUTPUT_RECORD``
    and ``layout.CARD_RECORD`` declare them (``invariant_violation`` only under ``check``)."""
    cols, cats = OUTPUT_RECORD.columns(out, SIDE_NAMES, when=("invariant_violation",) if check else ())
    events = {}
    if card_events:
        g, slot = np.nonzero(sq[:, :, 0] >= 0)
        rows = np.column_stack([slot // MAXC, sq[g, slot]])
        ev, ev_cats = CARD_RECORD.columns(rows, SIDE_NAMES, when=None, labels={"pool": setup.pool_names})
        events["cards"] = {"game": g.astype(np.int64), **ev}
        cats.update({f"cards.{k}": v for k, v in ev_cats.items()})
    return Batch(games=cols, categories=cats, events=events)


class MarRojo(Game):
    """Mar Rojo, the naval card game of the Spanish Civil War, as a simlab game."""

    name = "mar-rojo"
    title = "Mar Rojo: naval card game of the Spanish Civil War (Rules 3-12)"
    kernels_name = "Mar Rojo"
    rulebook = "004_de35405c1f288ce0.txt"
    sides = SIDE_NAMES
    side_colors = {"nationalist": "#b8860b", "republican": "#6a1b9a"}
    #: the Mediterranean campaign plays ~1,000 games a second on one core: chunks of 100 games let a
    #: sweep of a few hundred games use every worker (:attr:`Game.min_chunk`)
    min_chunk = 100
    options = (
        Option("length", str, "scenario", choices=("scenario",) + LENGTH_NAMES,
               doc="game length (Rule 6): The End ends the drawing at its 1st (short), 2nd (average) or 3rd "
                   "(long) appearance; 'scenario' uses the scenario's"),
        Option("night_combat", bool, False,
               doc="night combat (Rule 10): Day/Night and Flares cards in the deck, one Scout, General Quarters "
                   "and Optics out"),
        Option("faccioso_cabo_palos", bool, False,
               doc="play with the optional Faccioso and Cabo Palos cards (Rule 4)"),
        Option("initial_reveal", bool, False,
               doc="the optional initial reveal (Rule 4): each player turns up one own short-row card and one "
                   "enemy card"),
        Option("first_player", str, "scenario", choices=("scenario",) + SIDE_NAMES,
               doc="who takes the first sub-turn; 'scenario': the scenario's (8.x), Rule 9's escort count, or "
                   "an aggressive solo AI (12.2)"),
        Option("neutral_fleets", bool, False,
               doc="points-built squadrons (Rule 9) may use the neutral fleet cards (Rule 11)"),
        Option("intervention_fleets", bool, False,
               doc="points-built squadrons may use the intervention fleet cards (Rule 11: Royal Navy for the "
                   "Republican, Kriegsmarine and Regia Marina for the Nationalist)"),
        Option("build_year", int, 0, min=0, max=1939,
               doc="points-built squadrons: no card dated after this year (Rule 9); 0 = no limit"),
        Option("builder_nationalist", str, "balanced", choices=BUILDER_NAMES,
               doc="how the Nationalist points-built squadron is chosen (Rule 9; see build.py)"),
        Option("builder_republican", str, "balanced", choices=BUILDER_NAMES,
               doc="how the Republican points-built squadron is chosen (Rule 9; see build.py)"),
        Option("points_nationalist", int, 0, min=0, max=200,
               doc="points-built squadrons: the Nationalist budget in points (Rule 9); 0 = the table's (10, 15 "
                   "or 20 by length) — a bid or handicap"),
        Option("points_republican", int, 0, min=0, max=200,
               doc="points-built squadrons: the Republican budget in points (Rule 9); 0 = the table's"),
        Option("cabo_victory", str, "capital-or-pair", choices=("capital-or-pair", "either-and-escort"),
               doc="8.1's \"sinks a capital ship or a merchant and an escort\": 'capital-or-pair' = a capital ship, or "
                   "a merchant and an escort (ruling M51); 'either-and-escort' = a capital ship or a merchant, and an "
                   "escort"),
        Option("retreat_hands", str, "shuffled", choices=("shuffled", "kept"),
               doc="Retreat played as an effect (Rule 6): 'shuffled' = all action cards, the hands included, are "
                   "shuffled into the deck (ruling M27); 'kept' = the hands stay"),
        Option("row_limits", str, "types", choices=("types", "counts"),
               doc="moves and exchanges (5.2 'See Section 4'): 'types' = 4's row counts and its short-row card "
                   "types (only escorts and aircraft, merchants exempt; ruling M1); 'counts' = the row counts only"),
        Option("card_events", bool, False,
               doc="also write the 'cards' events table: every squadron card's fate (status, damage)"),
        Option("check_invariants", bool, False,
               doc="check the rules' invariants throughout every game (slower; the soak turns it on) and write "
                   "the first one broken in the 'invariant_violation' column"),
    )
    #: how the kernels read the policies (the knob slots of layout PP_*) and the policies file
    #: (families, knobs and presets; the policy lists derive from its presets)
    policy_packing = POLICY_PACKING
    policy_file = POLICY_PACKING.policy_file
    #: every choice the rules give a player and the knobs that make it (issue 28)
    decisions_file = Path(__file__).with_name("decisions.toml")
    default_policies = {"*": "aggressive"}
    scenarios = tuple(BUILTIN)
    default_scenario = "cabo-de-palos"
    data_dir = rules.DATA_DIR
    golden_trace_options = {"card_events": True}
    #: the games table and the events table cards, declared once beside the out slots (layout)
    output_record = OUTPUT_RECORD
    event_records = {"cards": CARD_RECORD}

    def data_schema(self):
        return rules.SCHEMA

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Raises SpecError on a build year before the war's fleets existed (below 1930) other than 0."""
        y = options.get("build_year", 0)
        if y and y < 1930:
            raise SpecError(f"option build_year: {y} leaves no legal squadron; use 0 (no limit) or 1930-1939")

    def load_scenario(self, name_or_path: str | None, data: DataPack | None = None) -> Scenario:
        """A built-in scenario by name or a scenario file (see :mod:`.scenario`).

        Raises:
            ScenarioError: on an unknown name or a malformed file; DataPackError on a bad pack.
        """
        from .runtime import load_setup  # the kernels load with the first scenario (lazy start-up)
        name, setup, source, used = load_setup(name_or_path or self.default_scenario,
                                               data if data is not None else self.load_data())
        return Scenario(name=name, sides=SIDE_NAMES, payload=setup, source=source, used=used, title=setup.title)

    def sweep_kernels(self, scenario: Scenario, options) -> tuple:
        """The game loop :func:`.runtime.run_games` calls (the compile progress's total)."""
        from .engine import play_games_nb
        return (play_games_nb,)

    def play_batch(self, scenario: Scenario, options, policies, seeds) -> Batch:
        """Play one game per seed (see the module docstring for the columns); a side playing
        ``@rollout:BASE[:R]`` is played by the rollout exploiter (:mod:`.rollout`)."""
        from .runtime import run_games
        policies = self.policies_of(scenario.sides, policies)  # {side: Policy}; runtime packs the knob rows
        check = bool(options.get("check_invariants", False))
        ro = [s for s, p in policies.items() if isinstance(p, RolloutPolicy)]
        if ro:
            from .rollout import run_rollout_games
            (side,) = ro  # resolve_policies refuses two
            pol = policies[side]
            base = {**policies, side: pol.base}
            out, sq = run_rollout_games(scenario.payload, options, base, seeds, SIDE_NAMES.index(side), pol.rollouts,
                                        debug=check)
        else:
            out, sq = run_games(scenario.payload, options, policies, seeds, debug=check)
        return self._batch_of(scenario, options, out, sq)

    def resolve_policies(self, sides, given, knobs=None):
        """As :meth:`Game.resolve_policies`; at most one side may play a rollout exploiter.

        Raises:
            SpecError: as there, or both sides given ``@rollout:``."""
        out = super().resolve_policies(sides, given, knobs)
        if sum(isinstance(p, RolloutPolicy) for p in out.values()) > 1:
            raise SpecError("mar-rojo: only one side may play a rollout exploiter (@rollout:) in a game")
        return out

    def resolve_rollout(self, side: str, name: str, knobs=None) -> RolloutPolicy:
        """``@rollout:BASE[:R]`` for ``side``: the rollout exploiter of :mod:`.rollout` over the
        preset BASE (``knobs`` set on it), ``R`` play-outs per candidate (default 4).

        Raises:
            SpecError: an unknown base, a base of the solo AI (it holds no hand, Rule 12) or a
                mixed base, or a bad R."""
        base_name, r = parse_rollout(name)
        if base_name.startswith(("@mix:", "@rollout:")):
            raise SpecError(f"policy {name!r}: the base of a rollout exploiter must be a preset, not {base_name!r}")
        base = self.policy_book().resolve(side, base_name, knobs)
        if base.family == "solo-ai":
            raise SpecError(f"policy {name!r}: the solo AI holds no hand to choose from (Rule 12); "
                            "give a greedy or random-legal base")
        vec = (("rollouts", float(r)),) + tuple((f"base.{k}", v) for k, v in base.knobs)
        return RolloutPolicy(name if ":" in name[len("@rollout:"):] else f"{name}:{r}", "rollout", vec, base, r)

    def _batch_of(self, scenario: Scenario, options, out: np.ndarray, sq: np.ndarray) -> Batch:
        check = bool(options.get("check_invariants", False))
        if (out[:, O_BUILD_FAIL] != 0).any():
            raise ScenarioError("a points-built squadron could not meet the Rule 9 table")
        bad = out[:, O_VIOLATION]
        if not check and (bad != 0).any():  # pragma: no cover - a bug, not bad input
            raise RuntimeError(f"mar-rojo: rule violation {VIOLATION_NAMES[int(bad[bad != 0][0])]}")
        return _columns(scenario.payload, out, sq, bool(options.get("card_events", False)), check)

    # ------------------------------------------------------------------ state (issue 27)
    def start_games(self, scenario: Scenario, options, policies, seeds, stop: int = 0):
        """Start one game per seed and stop each after ``stop`` sub-turns (or at its end): the full
        state of every game, a batch :class:`~simlab.games.mar_rojo.bundles.GameState` (arrays with
        a leading axis of ``len(seeds)``; see there for the fields), to continue with
        :meth:`play_from`. Raises ScenarioError (Rule 9 table unmet) and ValueError (``stop < 0``)."""
        from .runtime import start_games
        check = bool(options.get("check_invariants", False))
        return start_games(scenario.payload, options, self.policies_of(scenario.sides, policies), seeds, stop,
                           debug=check)

    def play_from(self, scenario: Scenario, options, policies, state, stop: int | None = None):
        """Continue the games of ``state`` (from :meth:`start_games` or :meth:`play_from`, with the
        same scenario, options and policies) on a deep copy of it, by the kernels that play a whole
        game, up to ``stop`` sub-turns in all (None: to the end); ``state`` is left unchanged.
        Returns the new state; :meth:`state_batch` turns it into the batch of the whole games."""
        from .runtime import play_from
        check = bool(options.get("check_invariants", False))
        return play_from(state, scenario.payload, options, self.policies_of(scenario.sides, policies), stop,
                         debug=check)

    def state_batch(self, scenario: Scenario, options, state) -> Batch:
        """The :meth:`play_batch` columns of a state whose games have all ended (exactly the rows of
        the uninterrupted games). Raises ValueError if a game of ``state`` is still in play."""
        from .layout import G_OVER
        if not (state.g[:, G_OVER] == 1).all():
            raise ValueError(f"mar-rojo: {int((state.g[:, G_OVER] != 1).sum())} game(s) of the state are not over")
        return self._batch_of(scenario, options, state.out, state.sq)

    def end_reasons(self):
        return END_REASONS

    # ------------------------------------------------------------------ soak
    #: the sub-turn safety stop (constants.subturn_limit) is the only loop cap
    cap_reasons = ("limit",)

    def soak_cases(self) -> list[tuple[str, dict[str, Any]]]:
        """Every scenario with the kernel's invariant checks and the cards table on, plus the options
        that change the game loop: night combat, the optional cards and reveal, other lengths, and
        points-built squadrons from every fleet with the random builder."""
        on = {"check_invariants": True, "card_events": True}
        cases = [(s, dict(on)) for s in self.scenarios]
        extra = {"night_combat": True, "faccioso_cabo_palos": True, "initial_reveal": True}
        cases += [("cabo-de-palos", {**on, **extra, "length": "long"}),
                  ("mediterranean-campaign", {**on, **extra}),
                  ("points-built", {**on, **extra, "length": "long", "neutral_fleets": True,
                                    "intervention_fleets": True, "builder_nationalist": "random",
                                    "builder_republican": "random"})]
        return cases

    def invariant_violations(self, scenario: Scenario, batch: Batch, options: Mapping[str, Any]) -> list[str]:
        """The generic contract, the kernel's invariants (``check_invariants``) and the rule checks
        of every row (:func:`simlab.games.mar_rojo.checks.row_violations`)."""
        from .checks import row_violations
        found = super().invariant_violations(scenario, batch, options)
        return found + row_violations(scenario.payload, batch.games, batch.events)

    # ------------------------------------------------------------------ hooks
    def odds(self, *args, **kwargs) -> dict:
        """Exact hits that stand after saves for one Mar Rojo attack (Rule 5.3.1).

        See :func:`simlab.games.mar_rojo.odds.odds`.
        """
        from .odds import odds
        return odds(*args, **kwargs)

    odds_options = ODDS_OPTIONS

    def odds_report(self, result) -> list:
        """The table and line ``simlab odds mar-rojo`` prints (:func:`simlab.games.mar_rojo.odds.odds_report`)."""
        return odds_report(result)

    def bench_scenarios(self):
        return ("cabo-de-palos", "strait-of-gibraltar", "mediterranean-campaign")

    def bench_cases(self, quick: bool = False) -> list[dict]:
        from .bench import bench_cases
        return bench_cases(self, quick)

    def bench_dice(self, scenario: Scenario, options, policies, seeds, batch: Batch) -> DiceCount:
        """Every random draw of each game, for ``simlab bench``: the same seeds are played again and
        the kernel's count of the 32-bit draws taken from the game's stream is read (``O_DRAWS``,
        :func:`simlab.rng.stream_draws_nb`): the combat dice (hit, lucky-hit, save, evasion and
        torpedo-effect rolls, 5.3.1), the deck's shuffles (n - 1 draws for n cards, 3.2, 6), the
        squadron builders' and the policies' random choices. The rows must come out the same."""
        from .runtime import run_games
        out, _ = run_games(scenario.payload, options, self.policies_of(scenario.sides, policies), seeds,
                           debug=bool(options.get("check_invariants", False)))
        if not np.array_equal(out[:, O_WINNER].astype(np.int8), batch.games["winner"]):  # pragma: no cover - a bug
            raise RuntimeError("mar-rojo: the replay for the dice count changed the winners")
        return DiceCount(out[:, O_DRAWS].astype(np.int64),
                         "every random draw from the game's stream (combat dice, deck shuffles, random choices)")

    def bench_targets(self) -> dict[str, tuple[str, float]]:
        """Games/s through a 2-worker sweep of Cabo de Palos: at least 10,000."""
        return {"cabo-de-palos sweep 2 workers": (">=", 10_000)}


GAME = MarRojo()

