"""``dreadnought``: SPI's Dreadnought (1906-45) as a simlab game: the historical scenarios, the
Campaign Game, the Extended Campaign and the optional rules.

The façade the runner calls: historical scenarios (Rule 10.1-10.7) are compiled from
``scenarios/*.toml`` and the data pack (``data/``), and :meth:`Dreadnought.play_batch` plays one
complete scenario per seed inside one numba kernel (:func:`.kernels.turn.play_batch_nb`, run by
:func:`.runtime.run_games`). The scenarios
``campaign`` and ``extended-campaign`` play one Campaign Game (11.0-11.9) or Extended Campaign
(12.6) per seed, also in one kernel (:mod:`.campaign`); their sides are ``north`` and ``south``.
The optional rules (12.1-12.5) are options of every scenario.

Sides are named by nation as the rulebook's scenarios give them: ``british``/``german``
(Dogger Bank, Denmark Strait, North Cape, Jutland), ``british``/``japanese`` (Singora),
``us``/``japanese`` (Surigao Strait, Guam); the Allied side is always first. A sweep may combine
scenarios with the same sides (the runner refuses others).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ...datapack import DataPack
from ...errors import ScenarioError, SpecError
from ..base import Batch, DiceCount, Game, Option, Policy, Scenario
from . import layout as L
from .campaign import campaign_batch, campaign_used
from .enums import ALLOCATION_NAMES, BUILDER_NAMES, END_REASONS, NAVIES, PERIODS
from .odds import ODDS_OPTIONS, odds_report
from .rules import DATA_DIR, SCHEMA, RuleArrays
from .scenario import BUILTIN, SCENARIO_DIR, ScenarioSetup, read_scenario

#: the campaign scenarios (Rules 11.0-11.9 and 12.6)
CAMPAIGNS = L.CAMPAIGNS


class BattlePayload(NamedTuple):
    """The payload of a historical scenario: the compiled scenario and rules."""

    setup: ScenarioSetup
    rules: RuleArrays


class CampaignPayload(NamedTuple):
    """The payload of ``campaign`` / ``extended-campaign``: the pack and rules the campaign is set up from."""

    pack: DataPack
    rules: RuleArrays


class Dreadnought(Game):
    """SPI's Dreadnought: the tactical game and its seven historical scenarios (Rules 4.0-10.7)."""

    name = "dreadnought"
    title = "Dreadnought: surface combat in the battleship era, 1906-45 (historical scenarios, Rules 4-10)"
    kernels_name = "Dreadnought"
    rulebook = "002_9de470c512feaeb5.txt"
    sides = None
    #: the scenarios' navies, and the Campaign Game's North (WWI France) and South (Italy)
    side_colors = {"british": "#1f5fa8", "german": "#3a3a3a", "japanese": "#d62728", "us": "#0b2e6b",
                   "north": "#0055a4", "south": "#008c45"}
    #: every choice the rulebook gives a player and the knobs that make it (issue 28)
    decisions_file = Path(__file__).parent / "decisions.toml"
    options = (
        Option("shots", bool, False, doc="historical scenarios: write the events table 'shots' (one row per gun, secondary or torpedo attack; large)"),
        Option("game_length", int, 0, min=0, max=1000,
               doc="Game-Turns to play; 0 = the scenario's length (Rule 10.x); campaign scenarios: the loop cap, not a rule (9.0: no set length; a scenario still going there ends as loop_cap, a hang), 0 = 500"),
        Option("visibility_base", int, -1, min=-1, max=100,
               doc="historical scenarios: base visibility in hexes (Rule 5.71); -1 = the scenario's (campaigns roll 2d6, 11.7)"),
        Option("check_invariants", bool, False,
               doc="count broken invariants (stacking 6.31-6.33, damage bounds 5.42-5.44) after every Movement Phase into 'violations'"),
        # ---- optional rules (12.1-12.5), every scenario
        Option("smoke", bool, False, doc="optional rule 12.1: DD units make smoke, which blocks fire and torpedo attacks"),
        Option("radar", bool, False, doc="optional rule 12.21: US and British fire-control radar in post-1942 scenarios (-2 beyond visibility)"),
        Option("spotting_planes", bool, False, doc="optional rule 12.22: capital ships and CAs spot beyond visibility in post-1930 scenarios (-3)"),
        Option("creep", bool, False, doc="optional rule 12.3: a ship at 2S but below 2G moves 1 MP a Game-Turn"),
        Option("towing", bool, False, doc="optional rule 12.4: cruisers and capital ships tow immobile capital ships at 2 MP (always on in the extended campaign)"),
        Option("sun", bool, False, doc="optional rule 12.5: rising or setting sun (2d6: 2 east, 12 west), +1/-1 on Game-Turns 6-11"),
        # ---- the campaign (11.0-11.9) and the extended campaign (12.6)
        Option("period", str, "wwi", choices=PERIODS, doc="campaign period (11.1): wwi, inter-war or wwii"),
        Option("north", str, "french", choices=NAVIES, doc="the North player's navy (11.1; minor navies only in wwi)"),
        Option("south", str, "italian", choices=NAVIES, doc="the South player's navy (11.1)"),
        Option("fleet_value_limit", int, 0, min=-1, max=100000,
               doc="fleet value limit in VPs (11.8); 0 = the period's (WWI 200, inter-war 300, WWII 400; extended: 300, 12.61), -1 = none"),
        Option("south_extra_value", int, 0, min=-10000, max=10000, doc="VPs added to the South's fleet value limit (a handicap)"),
        Option("builder_north", str, "auto", choices=("auto",) + BUILDER_NAMES,
               doc="the North's fleet builder (11.8); auto = balanced (random under random-legal)"),
        Option("builder_south", str, "auto", choices=("auto",) + BUILDER_NAMES, doc="the South's fleet builder (11.8)"),
        Option("allocation_north", str, "auto", choices=("auto",) + ALLOCATION_NAMES,
               doc="the North's secret assignment to scenarios A-D (11.0, 11.6); auto = spread (random under random-legal)"),
        Option("allocation_south", str, "auto", choices=("auto",) + ALLOCATION_NAMES,
               doc="the South's secret assignment to scenarios A-D (11.0, 11.6)"),
        Option("interception_bonus", int, 0, min=0, max=1000,
               doc="the convoy's Interception Bonus in VPs (11.4: 25-100); 0 = set by the South's allocation policy"),
        Option("delayed_entry", int, -1, min=-1, max=5,
               doc="Game-Turns the light Task Force enters after the main body (9.28); -1 = 2 (random 0-5 under random-legal)"),
        Option("treasury", int, 0, min=0, max=100000, doc="extended campaign: each treasury in VPs (12.61: 700-900); 0 = 800"),
        Option("south_extra_treasury", int, 0, min=-10000, max=10000,
               doc="extended campaign: VPs added to the South's treasury (a handicap)"),
    )
    #: the policy families, knobs and presets (the base class derives the policy lists from it)
    policy_file = L.POLICY_PACKING.policy_file
    #: how the kernels read the policies: the knob slots of layout PC_*/K_* (simlab.games.packing)
    policy_packing = L.POLICY_PACKING
    default_policies = {"*": "close-and-engage"}
    scenarios = BUILTIN + CAMPAIGNS
    default_scenario = "dogger-bank"
    data_dir = DATA_DIR
    golden_trace_options = {"shots": True}
    #: the games table (a battle's ``out`` rows, a campaign's ``go`` rows) and the events tables shots and
    #: scenarios, declared once beside their slots (layout BATTLE_RECORD, CAMPAIGN_RECORD, ...)
    output_records = (L.BATTLE_RECORD, L.CAMPAIGN_RECORD)
    event_records = {"shots": L.SHOT_RECORD, "scenarios": L.SCENARIO_RECORD}
    #: Jutland plays ~100 games a second on one core and Dogger Bank ~1,500: chunks of 25 games let
    #: a sweep of a few hundred games use every worker (:attr:`Game.min_chunk`)
    min_chunk = 25

    def data_schema(self):
        return SCHEMA

    def check_options(self, options) -> None:
        """Campaign options (11.1, 12.61): each navy must have a listing in the period, and a set
        treasury must lie within 700-900.

        Raises:
            SpecError: with a one-line message.
        """
        keys = set(self.load_data().tables["fleet_listing"])
        for side in ("north", "south"):
            if f"{options['period']}.{options[side]}" not in keys:
                have = sorted(k.split(".", 1)[1] for k in keys if k.startswith(options["period"] + "."))
                raise SpecError(f"option {side}: no {options[side]} fleet listing in the {options['period']} period "
                                f"(11.1: {', '.join(have)})")
        t = int(options.get("treasury", 0))
        lo = int(self.load_data().tables["campaign_rules"]["treasury_min"]["value"].value)
        hi = int(self.load_data().tables["campaign_rules"]["treasury_max"]["value"].value)
        if t and not lo <= t <= hi:
            raise SpecError(f"option treasury: {t} is outside {lo}..{hi} (12.61)")

    def load_scenario(self, name_or_path: str | None, data: DataPack | None = None) -> Scenario:
        """A built-in scenario by name (``dogger-bank``, ..., ``campaign``, ``extended-campaign``)
        or a scenario file (``.toml``).

        Raises:
            ScenarioError: on an unknown name or a malformed file; DataPackError on a bad pack.
        """
        name = name_or_path or self.default_scenario
        from .runtime import rules_for  # the kernels load with the first scenario (lazy start-up)
        pack = data if data is not None else self.load_data()
        rules, used = rules_for(pack)
        if name in CAMPAIGNS:
            title = ("Campaign Game (11.0-11.9)" if name == "campaign"
                     else "Extended Campaign (12.6)")
            return Scenario(name=name, sides=("north", "south"), payload=CampaignPayload(pack, rules),
                            source=f"builtin:{name}", used=campaign_used(pack) | used, title=title)
        view = pack.view()
        if name in BUILTIN:
            setup = read_scenario(SCENARIO_DIR / f"{name}.toml", view, rules, name)
            source = f"builtin:{name}"
        elif name.endswith(".toml") or Path(name).exists():
            setup = read_scenario(name, view, rules)
            source = str(name)
            name = setup.name
        else:
            raise ScenarioError(
                f"unknown dreadnought scenario '{name}' (built-in: {', '.join(BUILTIN)}; or a .toml scenario file)")
        return Scenario(name=name, sides=setup.sides, payload=BattlePayload(setup, rules), source=source,
                        used=frozenset(view.used) | used, title=setup.title)

    def sweep_kernels(self, scenario: Scenario, options) -> tuple:
        """The kernel ``play_batch`` calls for ``scenario``: the campaign's or the scenario's turn loop
        (the compile progress's total)."""
        if isinstance(scenario.payload, CampaignPayload):
            from .kernels.campaign_loop import play_campaign_batch_nb
            return (play_campaign_batch_nb,)
        from .kernels.turn import play_batch_nb
        return (play_batch_nb,)

    def play_batch(self, scenario: Scenario, options: Mapping, policies: Mapping[str, Policy | str], seeds) -> Batch:
        """Play one complete scenario, campaign or extended campaign per seed (see the module
        docstring, :func:`.runtime.run_games` and :func:`.runtime.run_campaigns`).

        ``policies[side]`` is a :class:`~simlab.games.policy.Policy` (a preset name is resolved by
        :meth:`policies_of`); its knobs are packed into the kernels' arrays by
        :func:`.runtime.pack_policies`."""
        from .runtime import campaign_setup, run_campaigns, run_games
        policies = self.policies_of(scenario.sides, policies)
        if isinstance(scenario.payload, CampaignPayload):
            pack, rules = scenario.payload
            setup = campaign_setup(pack, rules, options["period"], options["north"], options["south"])
            extended = scenario.name == "extended-campaign"
            gout, rows, cp = run_campaigns(setup, rules, options, policies, seeds, extended)
            return campaign_batch(setup, gout, rows, cp, extended)
        setup, rules = scenario.payload
        raw, ev = run_games(setup, rules, policies, seeds, options, check=bool(options.get("check_invariants")))
        return _batch(setup, raw, ev if options.get("shots") else None)

    def end_reasons(self):
        return END_REASONS

    def objective(self, scenario: Scenario, side: str) -> str | None:
        """What ``make-for-objective`` makes for with ``side`` in ``scenario`` (one phrase), or
        ``None`` where the scenario gives the side nothing: an exit of its own (10.4 Singora's
        British, 10.5 Surigao's Japanese), named enemy ships of the victory conditions (10.1-10.3:
        the British), the South's bombardment force of campaign scenario B (11.3). Where it is
        ``None`` the preset plays exactly as ``close-and-engage`` (its movement falls back to
        closing, no enemy ship is named, nothing is held back), so it is not offered there."""
        if isinstance(scenario.payload, CampaignPayload):
            return "the bombardment of campaign scenario B (11.3)" if side == "south" else None
        setup = scenario.payload.setup
        k = list(setup.sides).index(side)
        if setup.sc[L.SC_EXIT] and setup.sc[L.SC_EXIT_SIDE] == k and (setup.st[setup.st[:, L.ST_SIDE] == k,
                                                                                 L.ST_EXIT] != 0).any():
            return "the scenario's exit"
        if ((setup.st[:, L.ST_NAMED] != 0) & (setup.st[:, L.ST_SIDE] != k)).any():
            return "the enemy ships its victory conditions name"
        return None

    def policy_unavailable(self, scenario: Scenario, side: str, name: str) -> str | None:
        """``make-for-objective`` is withheld where :meth:`objective` is ``None`` (Jutland and Guam
        for both sides, the Germans at Dogger Bank, Denmark Strait and North Cape, the Japanese at
        Singora, the US at Surigao, the Campaign's North): there it would repeat ``close-and-engage``
        game for game under another name. Returns the one-line reason, or ``None``."""
        if name != "make-for-objective" or side not in scenario.sides or self.objective(scenario, side) is not None:
            return None
        return (f"make-for-objective is not offered to {side} in {scenario.name}: the scenario gives {side} no "
                "objective to make for (no exit, no named enemy ship, no bombardment), so it would play exactly "
                "as close-and-engage; play close-and-engage")

    # ------------------------------------------------------------------ soak
    def soak_cases(self):
        """Every built-in scenario, with the in-kernel invariant count switched on; the campaigns
        also with every optional rule."""
        out = [(s, {"check_invariants": True}) for s in BUILTIN]
        every = {"check_invariants": True, "smoke": True, "radar": True, "spotting_planes": True, "creep": True,
                 "towing": True, "sun": True}
        out.append(("campaign", {"check_invariants": True}))
        out.append(("campaign", dict(every, period="wwii", north="us", south="japanese")))
        out.append(("extended-campaign", every))
        return out

    def invariant_violations(self, scenario: Scenario, batch: Batch, options) -> list[str]:
        """The generic contract plus Dreadnought's invariants (one line each).

        Checked: no broken stacking, damage bound or confinement after any Movement Phase (the
        ``violations`` column, when ``check_invariants`` is on); turns within the game length;
        units sunk + wrecked + exited within each side's units; each side's score within the
        enemy's total value plus its start and exit VPs (9.54); victory level ``draw`` exactly
        for draws.
        """
        out = super().invariant_violations(scenario, batch, options)
        if isinstance(scenario.payload, CampaignPayload):
            from .invariants import campaign_violations
            return out + campaign_violations(scenario, batch, options, self.load_data())
        setup, _ = scenario.payload
        g = batch.games
        if "violations" in g and int(np.asarray(g["violations"]).max(initial=0)) > 0:
            out.append(f"{scenario.name}: {int((np.asarray(g['violations']) > 0).sum())} games broke an invariant "
                       "after a Movement Phase (stacking, damage bounds or confinement)")
        length = int(options.get("game_length") or 0) or int(setup.sc[L.SC_LENGTH])
        t = np.asarray(g["turns"])
        if t.size and (t.min() < 1 or t.max() > length):
            out.append(f"{scenario.name}: turns outside 1..{length}")
        side = setup.st[:, L.ST_SIDE]
        value = setup.st[:, L.ST_VAL]
        for k, s in enumerate(setup.sides):
            units = int((side == k).sum())
            lost = np.asarray(g[f"sunk_{s}"]) + np.asarray(g[f"wrecked_{s}"]) + np.asarray(g[f"exited_{s}"])
            if lost.size and lost.max() > units:
                out.append(f"{scenario.name}: {s} lost more units than it has ({units})")
            cap = int(value[side != k].sum()) + int(setup.sc[L.SC_START_VP0 + k])
            if setup.sc[L.SC_EXIT] and setup.sc[L.SC_EXIT_SIDE] == k and setup.sc[L.SC_EXIT_SCORES]:
                cap += int(value[side == k].sum())
            sc_ = np.asarray(g[f"score_{s}"])
            if sc_.size and (sc_.min() < 0 or sc_.max() > cap):
                out.append(f"{scenario.name}: score_{s} outside 0..{cap} (9.54: never above ship value)")
        w = np.asarray(g["winner"])
        lev = np.asarray(g["victory_level"])
        if w.size and ((w < 0) != (lev == 0)).any():
            out.append(f"{scenario.name}: victory_level 'draw' does not match the draws")
        return out

    def bench_scenarios(self):
        return ("dogger-bank", "jutland", "campaign")

    def bench_cases(self, quick: bool = False) -> list[dict]:
        from .bench import bench_cases
        return bench_cases(self, quick)

    def bench_targets(self) -> dict[str, tuple[str, float]]:
        """Games/s through a 2-worker sweep: Dogger Bank >= 1,000, Jutland >= 100."""
        return {"dogger-bank sweep 2 workers": (">=", 1_000), "jutland sweep 2 workers": (">=", 100)}

    def bench_dice(self, scenario: Scenario, options, policies, seeds, batch: Batch) -> DiceCount:
        """The combat dice of each game, a lower bound, for ``simlab bench``: the same seeds are
        played again with ``shots`` on (the games' rows must come out the same) and every 2d6 of
        the ``shots`` table is counted: a gun shot's DPT roll (5.8, none at strength 0), its CRT
        roll (5.9, only at 1-1 or better), the CRT roll of a secondary (8.41) or torpedo (8.0)
        attack, and the sinking roll after an E (5.41). Not counted (no table records them):
        visibility (5.71) and sun (12.5) rolls, damage control (5.43-5.44), collisions (6.13),
        sighting and the policies' random choices. The campaigns write no ``shots`` table:
        not measured."""
        if isinstance(scenario.payload, CampaignPayload):
            return DiceCount(None, "the campaign writes no `shots` table and its rows do not count its dice",
                             complete=False)
        replay = batch if options.get("shots") else self.play_batch(scenario, dict(options, shots=True), policies,
                                                                    seeds)
        for col in ("winner", "turns", *(f"shots_{s}" for s in scenario.sides)):
            if not np.array_equal(replay.games[col], batch.games[col]):  # pragma: no cover - a bug
                raise RuntimeError(f"dreadnought: the replay with shots on changed column {col}")
        return DiceCount(shots_dice(replay.events["shots"], len(seeds)),
                         "combat 2d6 only (from the `shots` table of a replay: DPT 5.8 and CRT 5.9 rolls, "
                         "secondary 8.41 and torpedo 8.0 CRT rolls, E sinking rolls 5.41); not visibility, "
                         "sun, damage-control or collision rolls", complete=False)

    odds_options = ODDS_OPTIONS

    def odds(self, *args, **kwargs) -> dict:
        """Exact odds of one Dreadnought attack on an undamaged target, gunfire or torpedo (Rules 5.3-5.9, 7.1, 8.0).

        See :func:`simlab.games.dreadnought.odds.odds`.
        """
        from .odds import odds
        return odds(*args, **kwargs)

    def odds_report(self, result) -> list:
        """The lines and table ``simlab odds dreadnought`` prints (:func:`simlab.games.dreadnought.odds.odds_report`)."""
        return odds_report(result)


def shots_dice(shots: Mapping[str, np.ndarray], n: int) -> np.ndarray:
    """``int64[n]``: the dice (two per 2d6 roll) the attacks of the ``shots`` table rolled, per game.

    A row rolls 2d6 for the DPT when ``dpt_roll > 0`` (a gun shot of strength above 0, 5.8), 2d6
    for the CRT when ``crt_roll > 0`` (a gun shot at 1-1 or better, 5.9; every secondary and
    torpedo attack, 8.41, 8.0), and 2d6 more after an E (``result`` E:sunk or E:2G,1S, 5.41).
    """
    from .enums import RES_E_2G1S, RES_E_SUNK
    res = np.asarray(shots["result"])
    rolls = ((np.asarray(shots["dpt_roll"]) > 0).astype(np.int64) + (np.asarray(shots["crt_roll"]) > 0)
             + ((res == RES_E_SUNK) | (res == RES_E_2G1S)))
    return 2 * np.bincount(np.asarray(shots["game"], dtype=np.int64), weights=rolls, minlength=n).astype(np.int64)


def _batch(setup: ScenarioSetup, out: np.ndarray, ev: np.ndarray | None) -> Batch:
    """Columns of a batch: one row per game (layout ``BATTLE_RECORD``); the ``shots`` table
    (``SHOT_RECORD``) when ``ev`` is given."""
    cols, cats = L.BATTLE_RECORD.columns(out, setup.sides, labels={"ended_by": ("none", *setup.sides)})
    if ev is None:
        return Batch(games=cols, categories=cats)
    shots, shot_cats = L.SHOT_RECORD.columns(ev, setup.sides, when=None, labels={"units": list(setup.labels)})
    cats.update({f"shots.{k}": v for k, v in shot_cats.items()})
    return Batch(games=cols, categories=cats, events={"shots": shots})


GAME = Dreadnought()

__all__ = ["GAME", "Dreadnought", "campaign_setup", "rules_for", "run_games"]  # noqa: F822 (three from __getattr__)


def __getattr__(name: str):
    # runtime's entry points, imported on first use: runtime imports the kernels (numba)
    if name in ("campaign_setup", "rules_for", "run_campaigns", "run_games"):
        from . import runtime
        return getattr(runtime, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

