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
actions) and ``night_subturns``. With ``card_events`` the ``cards`` events table gives every
squadron card's fate (side, card, status, damage).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ...datapack import DataPack
from ...errors import ScenarioError, SpecError
from ..base import Batch, Game, Option, Scenario
from ..policy import policy_names
from . import rules
from .cache import refresh_cache
from .engine import play_games_nb
from .enums import (
    ACTION_NAMES,
    AI_MODE_NAMES,
    AK_COUNT,
    AK_NIGHT_ONLY,
    AK_NIGHT_REMOVE,
    AK_OPTIONAL,
    BUILDER_NAMES,
    END_REASONS,
    F_NEUTRAL,
    FACTION_SIDE,
    LENGTH_NAMES,
    POLICY_NAMES,
    SIDE_NAMES,
    STATUS_NAMES,
    TYPE_NAMES,
)
from .layout import (
    C_COST,
    C_DATE,
    C_FACTION,
    C_TYPE,
    MAXC,
    NOUT,
    NQ,
    NSLOT,
    O_AI0,
    O_ATTACKS0,
    O_BUILD_FAIL,
    O_CARDS0,
    O_DRAWN0,
    O_END_REASON,
    O_FINAL_SUBTURN,
    O_FIRST,
    O_HITS0,
    O_MSHORT0,
    O_NIGHT_SUBTURNS,
    O_POINTS0,
    O_REMOVED,
    O_SCORE0,
    O_SHIPS_SUNK0,
    O_SUBTURNS,
    O_SUNK0,
    O_TURNS,
    O_VIOLATION,
    O_WINNER,
    PT_POINTS,
    Q_BUILD,
    Q_FIRST,
    Q_FIRST_OVERRIDE,
    Q_LENGTH,
    Q_MPTS0,
    Q_REVEAL,
    Q_SPECIAL,
    Q_VICTORY,
    RT_POINTS,
    VIOLATION_NAMES,
)
from .policies import POLICY_PARAMS
from .scenario import BUILTIN, MarRojoSetup, parse_scenario, read_scenario_file

__all__ = ["GAME", "MarRojo", "action_deck", "build_limits", "build_pool_mask", "run_games"]


def action_deck(ak: np.ndarray, night: bool, optional: bool) -> tuple[np.ndarray, np.ndarray]:
    """The 52 action cards (Rule 2) as ``(akind, included)``: each card's kind (in
    ``ACTION_NAMES`` order, ``count`` copies of each) and whether this game uses it: night-only
    cards only with the night rules, ``night_remove`` copies of a kind taken out with them
    (10.1), Faccioso and Cabo Palos only when agreed (4)."""
    kinds = []
    inc = []
    for k in range(len(ACTION_NAMES)):
        n = int(ak[k, AK_COUNT])
        removed = int(ak[k, AK_NIGHT_REMOVE]) if night else 0
        for j in range(n):
            kinds.append(k)
            use = True
            if ak[k, AK_NIGHT_ONLY] and not night:
                use = False
            if j < removed:
                use = False
            if ak[k, AK_OPTIONAL] and not optional:
                use = False
            inc.append(1 if use else 0)
    return np.asarray(kinds, dtype=np.int64), np.asarray(inc, dtype=np.int8)


def build_pool_mask(setup: MarRojoSetup, neutral: bool, intervention: bool, year: int) -> np.ndarray:
    """``int8[2, npool]``: the cards each side may build with (Rules 9, 11)."""
    pool = setup.pool
    out = np.zeros((2, pool.shape[0]), dtype=np.int8)
    for i in range(pool.shape[0]):
        f = int(pool[i, C_FACTION])
        if year and int(pool[i, C_DATE]) > year:
            continue
        fs = FACTION_SIDE[f]
        if f == F_NEUTRAL:
            if neutral:
                out[:, i] = 1
        elif f < 2:
            out[fs, i] = 1
        elif intervention:
            out[fs, i] = 1
    return out


def build_limits(rt: np.ndarray, length: int, points: tuple[int, int]) -> np.ndarray:
    """``int64[2, 8]``: the Rule 9 table row of ``length`` per side, the points replaced where
    ``points[side] > 0``."""
    row = np.asarray(rt[RT_POINTS + 8 * length: RT_POINTS + 8 * length + 8], dtype=np.int64)
    lim = np.vstack([row, row]).copy()
    for s in range(2):
        if points[s] > 0:
            lim[s, PT_POINTS] = points[s]
    return lim


def _feasible(pool: np.ndarray, avail: np.ndarray, lim: np.ndarray) -> bool:
    """Whether the Rule 9 table can be met from the available cards (cheapest completion)."""
    cat = np.where(pool[:, C_TYPE] == 0, 0, np.where(pool[:, C_TYPE] == 4, 1,
                   np.where((pool[:, C_TYPE] == 3) | (pool[:, C_TYPE] == 5), 2, 3)))
    cost = pool[:, C_COST].astype(np.int64)
    used = np.zeros(len(pool), bool)
    total = 0
    spent = 0
    for c, k in ((0, lim[3]), (1, lim[5]), (2, lim[6])):
        idx = [i for i in np.argsort(cost, kind="stable") if avail[i] and cat[i] == c]
        if len(idx) < k:
            return False
        for i in idx[:k]:
            used[i] = True
            spent += int(cost[i])
            total += 1
    if lim[5] > 0 and sum(1 for i in range(len(pool)) if avail[i] and cat[i] == 1) < lim[5]:
        return False
    room = {0: lim[4] - lim[3], 2: lim[7] - lim[6], 3: 10**6}
    for i in np.argsort(cost, kind="stable"):
        if total >= lim[0]:
            break
        if used[i] or not avail[i] or cat[i] == 1 or room[int(cat[i])] <= 0:
            continue
        room[int(cat[i])] -= 1
        used[i] = True
        spent += int(cost[i])
        total += 1
    return total >= lim[0] and spent <= lim[2]


def run_games(setup: MarRojoSetup, options: Mapping[str, Any], policies: Mapping[str, str], seeds: np.ndarray,
              debug: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Play one game per seed with the compiled kernel.

    Args:
        setup: the scenario payload; options: resolved options; policies: ``{side: policy}``;
        seeds: ``uint64[n]``; debug: check invariants throughout (slower).

    Returns:
        ``(out, sq)``: ``int32[n, NOUT]`` (layout ``O_*``) and ``int16[n, NSLOT, 3]`` (pool index,
        final status, damage of every squadron slot).

    Raises:
        ScenarioError: if a points-built squadron cannot meet the Rule 9 table from its pool.
    """
    refresh_cache()
    length = setup.length if options["length"] == "scenario" else LENGTH_NAMES.index(options["length"])
    akind, included = action_deck(setup.ak, bool(options["night_combat"]), bool(options["faccioso_cabo_palos"]))
    avail = build_pool_mask(setup, options["neutral_fleets"], options["intervention_fleets"], options["build_year"])
    lim = build_limits(setup.rt, length, (options["points_nationalist"], options["points_republican"]))
    if setup.build:
        for s, side in enumerate(SIDE_NAMES):
            if not _feasible(setup.pool, avail[s], lim[s]):
                raise ScenarioError(
                    f"no {side} squadron can meet the Rule 9 table of the {LENGTH_NAMES[length]} length from the cards "
                    f"allowed (year {options['build_year'] or 'any'}, {lim[s, PT_POINTS]} points)")
    builders = np.asarray([BUILDER_NAMES.index(options["builder_nationalist"]),
                           BUILDER_NAMES.index(options["builder_republican"])], dtype=np.int64)
    pols = np.asarray([POLICY_NAMES.index(policies[s]) for s in SIDE_NAMES], dtype=np.int64)
    pp = np.ascontiguousarray(POLICY_PARAMS[pols])
    q = np.zeros(NQ, dtype=np.int64)
    q[Q_VICTORY] = setup.victory
    q[Q_MPTS0] = setup.merchant_points[0]
    q[Q_MPTS0 + 1] = setup.merchant_points[1]
    q[Q_SPECIAL] = setup.special
    q[Q_LENGTH] = length
    q[Q_FIRST] = setup.first
    fp = options["first_player"]
    q[Q_FIRST_OVERRIDE] = -1 if fp == "scenario" else SIDE_NAMES.index(fp)
    q[Q_REVEAL] = int(bool(options["initial_reveal"]))
    q[Q_BUILD] = int(setup.build)
    n = int(seeds.shape[0])
    out = np.zeros((n, NOUT), dtype=np.int32)
    sq = np.zeros((n, NSLOT, 3), dtype=np.int16)
    play_games_nb(np.ascontiguousarray(seeds, dtype=np.uint64), setup.pool, setup.squads, setup.reinf, avail, lim,
                  builders, akind, included, setup.ak, setup.rt, pp, pols, q, 1 if debug else 0, out, sq)
    return out, sq


def _columns(setup: MarRojoSetup, out: np.ndarray, sq: np.ndarray, card_events: bool) -> Batch:
    cols: dict[str, np.ndarray] = {
        "winner": out[:, O_WINNER].astype(np.int8),
        "score_nationalist": out[:, O_SCORE0].astype(np.int16),
        "score_republican": out[:, O_SCORE0 + 1].astype(np.int16),
        "turns": out[:, O_TURNS].astype(np.int16),
        "subturns": out[:, O_SUBTURNS].astype(np.int16),
        "cards_drawn": (out[:, O_DRAWN0] + out[:, O_DRAWN0 + 1]).astype(np.int16),
        "end_reason": out[:, O_END_REASON].astype(np.int8),
        "draw_stop_subturn": out[:, O_FINAL_SUBTURN].astype(np.int16),
        "first_player": out[:, O_FIRST].astype(np.int8),
        "removed_republican": out[:, O_REMOVED].astype(np.int8),
        "night_subturns": out[:, O_NIGHT_SUBTURNS].astype(np.int16),
    }
    for s, side in enumerate(SIDE_NAMES):
        cols[f"cards_drawn_{side}"] = out[:, O_DRAWN0 + s].astype(np.int16)
        cols[f"merchants_short_{side}"] = out[:, O_MSHORT0 + s].astype(np.int8)
        cols[f"ships_sunk_by_{side}"] = out[:, O_SHIPS_SUNK0 + s].astype(np.int8)
        for t, tn in enumerate(TYPE_NAMES):
            cols[f"sunk_{side}_{tn}"] = out[:, O_SUNK0 + 6 * s + t].astype(np.int8)
        cols[f"ai_{side}"] = out[:, O_AI0 + s].astype(np.int8)
        cols[f"squadron_points_{side}"] = out[:, O_POINTS0 + s].astype(np.int16)
        cols[f"squadron_cards_{side}"] = out[:, O_CARDS0 + s].astype(np.int8)
        cols[f"hits_{side}"] = out[:, O_HITS0 + s].astype(np.int16)
        cols[f"attacks_{side}"] = out[:, O_ATTACKS0 + s].astype(np.int16)
    cats: dict[str, Any] = {"end_reason": END_REASONS, "first_player": SIDE_NAMES}
    for side in SIDE_NAMES:
        cats[f"ai_{side}"] = AI_MODE_NAMES
    events = {}
    if card_events:
        g, slot = np.nonzero(sq[:, :, 0] >= 0)
        events["cards"] = {
            "game": g.astype(np.int64),
            "side": (slot // MAXC).astype(np.int8),
            "card": sq[g, slot, 0].astype(np.int16),
            "status": sq[g, slot, 1].astype(np.int8),
            "damage": sq[g, slot, 2].astype(np.int8),
        }
        cats["cards.side"] = SIDE_NAMES
        cats["cards.card"] = setup.pool_names
        cats["cards.status"] = STATUS_NAMES
    return Batch(games=cols, categories=cats, events=events)


class MarRojo(Game):
    """Mar Rojo, the naval card game of the Spanish Civil War, as a simlab game."""

    name = "mar-rojo"
    title = "Mar Rojo: naval card game of the Spanish Civil War (Rules 3-12)"
    rulebook = "004_de35405c1f288ce0.txt"
    sides = SIDE_NAMES
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
        Option("card_events", bool, False,
               doc="also write the 'cards' events table: every squadron card's fate (status, damage)"),
        Option("check_invariants", bool, False,
               doc="check the rules' invariants throughout every game (slower; the soak turns it on) and write "
                   "the first one broken in the 'invariant_violation' column"),
    )
    policies = {"*": POLICY_NAMES}
    default_policies = {"*": "aggressive"}
    scenarios = tuple(BUILTIN)
    default_scenario = "cabo-de-palos"
    data_dir = rules.DATA_DIR

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
        name = name_or_path or self.default_scenario
        pack = data if data is not None else self.load_data()
        view = pack.view()
        if name in BUILTIN:
            doc = read_scenario_file(BUILTIN[name])
            source = f"builtin:{name}"
        elif name.endswith(".toml") or Path(name).exists():
            doc = read_scenario_file(name)
            source = str(name)
            name = Path(name).stem
        else:
            raise ScenarioError(
                f"unknown mar-rojo scenario '{name}' (built-in: {', '.join(BUILTIN)}; or a .toml scenario file)")
        setup = parse_scenario(doc, view, where=Path(source).name if source != f"builtin:{name}" else name)
        return Scenario(name=name, sides=SIDE_NAMES, payload=setup, source=source, used=frozenset(view.used),
                        title=setup.title)

    def play_batch(self, scenario: Scenario, options, policies, seeds) -> Batch:
        """Play one game per seed (see the module docstring for the columns)."""
        setup: MarRojoSetup = scenario.payload
        policies = policy_names(self.policies_of(scenario.sides, policies))
        check = bool(options.get("check_invariants", False))
        out, sq = run_games(setup, options, policies, seeds, debug=check)
        if (out[:, O_BUILD_FAIL] != 0).any():
            raise ScenarioError("a points-built squadron could not meet the Rule 9 table")
        bad = out[:, O_VIOLATION]
        if not check and (bad != 0).any():  # pragma: no cover - a bug, not bad input
            raise RuntimeError(f"mar-rojo: rule violation {VIOLATION_NAMES[int(bad[bad != 0][0])]}")
        batch = _columns(setup, out, sq, bool(options.get("card_events", False)))
        if check:
            batch.games["invariant_violation"] = bad.astype(np.int8)
            batch.categories["invariant_violation"] = VIOLATION_NAMES
        return batch

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
        """Exact odds of one Mar Rojo combat (see :func:`simlab.games.mar_rojo.odds.odds`)."""
        from .odds import odds
        return odds(*args, **kwargs)

    @property
    def odds_command(self):
        from .odds import odds_command
        return odds_command

    def bench_scenarios(self):
        return ("cabo-de-palos", "strait-of-gibraltar", "mediterranean-campaign")

    def bench_cases(self, quick: bool = False) -> list[dict]:
        from .bench import bench_cases
        return bench_cases(self, quick)


GAME = MarRojo()

