"""``dawn-of-empire``: the whole Dawn of Empire campaign (Rules 4.0-14.12), played by scripted
policies inside numba.

The scenario ``standard`` is the set-up of Rule 13.0, read from the data pack (every unit's start
and entry turn, the leaders, the map). Options switch the optional rules of section 14 and set the
game length and the handicap. The policies are presets of the families in ``policies.toml``
(:mod:`simlab.games.doe.policies`); their knobs, ``aggression`` among them, are set per side
(``us.aggression``). One row per campaign:

* ``winner`` (``us`` when ``vp_net >= 6``, ``spain`` when ``<= -6``, else ``draw``; 12.2),
  ``vp_net`` (the VP track, US minus Spain, handicap included), ``score_us``/``score_spain`` (VPs
  each side earned), ``turns``, ``end_reason`` (``turns`` or ``automatic_victory``, 14.7);
* ``sunk_<side>_<type>`` ships of that side sunk (or scuttled, 14.8) by type, ``leaders_killed_<side>``,
  ``ports_destroyed_<side>`` (that side's ports destroyed), ``interned_<side>``, ``scuttled_<side>``,
  ``battles``, ``port_attacks``, ``vp_<kind>_<side>`` (VPs by kind: area, losses, leaders, port,
  blockade), ``dice`` (random draws the game used);
* ``luck_dice_<side>``, ``luck_dealt_<side>``, ``luck_mean_<side>``, ``luck_var_<side>``: the
  gunfire dice the side rolled over every battle, the damage points they dealt, and their expected
  value and variance (``simlab luck``; :mod:`simlab.games.doe.luck`).

A side may play the rollout exploiter ``@rollout:BASE[:R]`` (:mod:`simlab.games.doe.rollout`, issue 29):
at each of its Orders Phases it weighs its base preset's plan, the other scripted presets' plans and
random-legal plans, playing each on ``R`` times from states whose hidden part is resampled.

The events table ``battles`` has one row per battle: ``turn``, ``area``, ``initiative``, each
side's order, units, losses (sunk, disabled, escaped, damage points taken, leader killed),
``rounds``, ``end_reason`` and ``winner``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ...datapack import DataPack
from ...errors import ScenarioError, SpecError
from ..base import Batch, Game, Option, Scenario
from ..policy import RolloutPolicy, parse_rollout
from . import campaign_layout as lay
from . import policy_layout as pk
from . import rules
from .enums import TYPE_NAMES
from .luck import DIE_DAMAGE_PMF
from .rules import CampaignData
from .runtime import (
    CAMPAIGN_SPEED_MODES,
    SIDES,
    BatchState,
    PolicyError,
    build_par,
    compile_scenario,
    finish_games,
    play_from,
    policy_book,
    run_games,
    start_games,
)

__all__ = ["DawnOfEmpire", "GAME", "PolicyError", "build_par", "run_games"]

US_POLICIES = policy_book().side_presets("us")
SPAIN_POLICIES = policy_book().side_presets("spain")
VP_KIND_COLUMNS = lay.VP_KINDS[:lay.VK_OTHER]  # the vp_<kind>_<side> columns (GAMES_RECORD)


def games_columns(G: np.ndarray, victory: int) -> dict[str, np.ndarray]:
    """The games-table columns from the kernels' final game scalars (``int64[g, G_NF]``): ``winner``
    (``int8`` side code, -1 a draw; 12.2: ``vp_net`` at least ``victory`` for the US, at most
    ``-victory`` for Spain), then the columns ``campaign_layout.GAMES_RECORD`` declares."""
    vp = G[:, lay.G_VP_NET]
    winner = np.where(vp >= victory, 0, np.where(vp <= -victory, 1, -1)).astype(np.int8)
    return {"winner": winner, **lay.GAMES_RECORD.columns(G, SIDES)[0]}


def battles_columns(bev: np.ndarray, areas=()) -> tuple[dict[str, np.ndarray], dict[str, tuple]]:
    """The ``battles`` events columns from the kernels' battle rows (``int64[b, 1 + BE_NF]``: the game
    index, then the slots ``campaign_layout.BATTLE_RECORD`` declares) and their category labels
    (``areas``: the scenario's sea area names)."""
    cols, cats = lay.BATTLE_RECORD.columns(bev[:, 1:], SIDES, labels={"areas": tuple(areas)})
    return {"game": bev[:, 0].astype(np.int64), **cols}, cats


class DawnOfEmpire(Game):
    """The Dawn of Empire campaign game (see the module docstring)."""

    name = "dawn-of-empire"
    title = "Dawn of Empire: the 1898 naval campaign in the Atlantic (Rules 4.0-14.12)"
    kernels_name = "Dawn of Empire"
    rulebook = "000_965723e62316277e.txt"
    sides = SIDES
    side_colors = {"us": "#1f3f8f", "spain": "#c60b1e"}
    options = (
        Option("turns", int, 6, min=1, max=9,
               doc="game length in turns (Rule 4.5 B: 6; 14.1 Extra Time: 7-9)"),
        Option("handicap", int, 0, min=-60, max=60, score_only=True,
               doc="starting VPs on the track, positive favours the US, negative Spain (14.4 Bidding, 14.5 "
                   "Handicapping); no policy reads the VP track, so it only shifts vp_net (with "
                   "automatic_victory on it can also end a game sooner)"),
        Option("speed_disengage", str, "policy", choices=CAMPAIGN_SPEED_MODES,
               doc="Rule 10.2: 'policy' (the standard rule: a side able to disengage by speed may, and its "
                   "policy decides, knob disengage_odds), or for experiments 'never' or 'always' (when able)"),
        Option("delayed_repair", bool, False, doc="14.2 Alternate Delayed Repair"),
        Option("maintenance", bool, False, doc="14.3 Maintenance damage (not with delayed_repair)"),
        Option("fog_of_war", bool, False,
               doc="14.6 Fog of War: counters face up, so policies see enemy units (orders stay hidden)"),
        Option("automatic_victory", bool, False, doc="14.7 Automatic Victory at 29 VPs at the end of a turn"),
        Option("restrict_disabled", bool, False,
               doc="14.8 Restricting Disabled Units: scuttling, movement floor 1"),
        Option("speed_subgroups", bool, False,
               doc="14.9 Speed Defined Subgroups (needs speed_disengage other than never); disabled units "
                   "may then use neutral ports (8.3.2.1 B)"),
        Option("extra_warships", bool, False, doc="14.10 Extra Warships"),
        Option("free_deployment", bool, False, doc="14.11 Free Deployment (policies place the set-up)"),
        Option("germans", bool, False, doc="14.12 The Germans (four units and a leader at Caracas, for Spain)"),
        Option("port_vp_initiative", bool, True,
               doc="12.1.3 A (the default): a destroyed port earns VPs only for a side that had the initiative "
                   "in the area or was alone there; false: any attacker with units left (8.4 L)"),
    )
    #: families, knobs and presets (the policy lists derive from the presets)
    policy_file = pk.POLICY_PACKING.policy_file
    #: how the kernels read the policies: the knob slots of policy_layout K_* (simlab.games.packing)
    policy_packing = pk.POLICY_PACKING
    decisions_file = Path(__file__).parent / "decisions.toml"
    default_policies = {"us": "hunter", "spain": "raider"}
    scenarios = ("standard",)
    default_scenario = "standard"
    #: damage points of one gunfire die (``simlab luck`` gives exact percentiles from it)
    luck_die_pmf = DIE_DAMAGE_PMF
    bench_peak_memory = True
    data_dir = rules.DATA_DIR
    #: the games table and the events table battles, declared once beside the G and bev slots (campaign_layout)
    output_record = lay.GAMES_RECORD
    event_records = {"battles": lay.BATTLE_RECORD}

    def data_schema(self):
        return rules.SCHEMA

    def check_options(self, options: Mapping[str, Any]) -> None:
        """14.3 G: maintenance may not be used with delayed repair; 14.9 needs speed disengagement.

        Raises:
            SpecError: on a forbidden combination.
        """
        if options.get("maintenance") and options.get("delayed_repair"):
            raise SpecError("options maintenance and delayed_repair cannot be combined (Rule 14.3 G)")
        if options.get("speed_subgroups") and options.get("speed_disengage") == "never":
            raise SpecError("option speed_subgroups (14.9) needs speed_disengage = policy or always")

    def load_scenario(self, name_or_path: str | None, data: DataPack | None = None) -> Scenario:
        """The built-in scenario ``standard`` (Rule 13.0), compiled from the data pack.

        Raises:
            ScenarioError: on any other name (the campaign has no scenario files).
            DataPackError: if the pack lacks a value the campaign needs.
        """
        name = name_or_path or self.default_scenario
        if name not in self.scenarios:
            raise ScenarioError(f"unknown dawn-of-empire scenario '{name}' (built-in: {', '.join(self.scenarios)})")
        pack = data if data is not None else self.load_data()
        view = pack.view()
        cd = compile_scenario(view)
        return Scenario(name=name, sides=SIDES, payload=cd, source=f"builtin:{name}", used=frozenset(view.used),
                        title="The 13.0 set-up: the Spanish-American naval war in the Atlantic, 1898")

    def sweep_kernels(self, scenario: Scenario, options) -> tuple:
        """The campaign loop :func:`.runtime.run_games` calls (the compile progress's total; not the odds kernels)."""
        from .campaign_loop import play_campaigns_nb
        return (play_campaigns_nb,)

    def play_batch(self, scenario: Scenario, options, policies, seeds) -> Batch:
        """Play one campaign per seed (see the module docstring for the columns).

        Raises:
            PolicyError: if a policy hands in an illegal plan (a bug, reported with its turn).
        """
        data: CampaignData = scenario.payload
        # each side's Policy (preset, family, knobs); runtime.pack_policies packs its knobs by name
        policies = self.policies_of(scenario.sides, policies)
        ro = [s for s, p in policies.items() if isinstance(p, RolloutPolicy)]
        if ro:  # a side playing @rollout:BASE:R: the rollout exploiter (.rollout, issue 29) over its base
            from .rollout import run_rollout_games
            (side,) = ro  # resolve_policies refuses two
            base = {**policies, side: policies[side].base}
            return self._batch(data, run_rollout_games(data, options, base, seeds, SIDES.index(side),
                                                       policies[side].rollouts))
        return self._batch(data, run_games(data, options, policies, seeds))

    def resolve_policies(self, sides, given, knobs=None):
        """As :meth:`Game.resolve_policies`; at most one side may play a rollout exploiter.

        Raises:
            SpecError: as there, or both sides given ``@rollout:``."""
        out = super().resolve_policies(sides, given, knobs)
        if sum(isinstance(p, RolloutPolicy) for p in out.values()) > 1:
            raise SpecError("dawn-of-empire: only one side may play a rollout exploiter (@rollout:) in a game")
        return out

    def resolve_rollout(self, side: str, name: str, knobs=None) -> RolloutPolicy:
        """``@rollout:BASE[:R]`` for ``side``: the rollout exploiter of :mod:`.rollout` (at each of the
        side's Orders Phases, the base's plan, the other scripted presets' plans and random-legal
        plans, each played on ``R`` times; default 4) over the preset BASE (``knobs`` set on it).

        Raises:
            SpecError: an unknown base, a mixed or rollout base, or a bad R."""
        base_name, r = parse_rollout(name)
        if base_name.startswith(("@mix:", "@rollout:")):
            raise SpecError(f"policy {name!r}: the base of a rollout exploiter must be a preset, not {base_name!r}")
        base = self.policy_book().resolve(side, base_name, knobs)
        vec = (("rollouts", float(r)),) + tuple((f"base.{k}", v) for k, v in base.knobs)
        return RolloutPolicy(name if ":" in name[len("@rollout:"):] else f"{name}:{r}", "rollout", vec, base, r)

    def start_batch(self, scenario: Scenario, options, policies, seeds, stop_turn: int) -> BatchState:
        """The campaigns of :meth:`play_batch` paused after turn ``stop_turn`` (0: after the set-up):
        a :class:`runtime.BatchState` (issue 27), continued by :meth:`play_from` and
        :meth:`finish_batch`.

        Raises:
            PolicyError: if a policy hands in an illegal plan.
        """
        policies = self.policies_of(scenario.sides, policies)
        return start_games(scenario.payload, options, policies, seeds, stop_turn)

    def play_from(self, scenario: Scenario, state: BatchState, stop_turn: int | None = None) -> BatchState:
        """A copy of ``state`` played on through turn ``stop_turn`` (``None``: to the end); ``state``
        is left as it was.

        Raises:
            PolicyError: if a policy hands in an illegal plan.
        """
        return play_from(scenario.payload, state, stop_turn)

    def finish_batch(self, scenario: Scenario, state: BatchState) -> Batch:
        """A copy of ``state`` played to the end: exactly the :class:`Batch` that :meth:`play_batch`
        returns for the same seeds, options and policies.

        Raises:
            PolicyError: if a policy hands in an illegal plan.
        """
        return self._batch(scenario.payload, finish_games(scenario.payload, state))

    @staticmethod
    def _batch(data: CampaignData, raw: dict) -> Batch:
        cols = games_columns(raw["G"], int(data.rules["victory_vp"]))
        ev, ev_cats = battles_columns(raw["battles"], data.node_names[:data.n_areas])
        cats = {"end_reason": lay.END_REASONS, **{f"battles.{k}": v for k, v in ev_cats.items()}}
        return Batch(games=cols, categories=cats, events={"battles": ev})

    def end_reasons(self):
        return lay.END_REASONS

    # ------------------------------------------------------------------ analysis and soak hooks
    def rescore(self, scenario: Scenario, games, options, changes):
        """Winners with another ``handicap`` (14.4-14.5, ruling C26): the VP track is the handicap
        plus ``score_us - score_spain`` (the VPs earned, which no policy's play depends on the
        handicap for) and the winner follows 12.2. ``None`` under 14.7 (automatic victory ends games on the
        running track, which a starting handicap moves; ruling A3)."""
        if options.get("automatic_victory"):
            return None
        if set(changes) - {"handicap"}:
            return None
        vic = int(scenario.payload.rules["victory_vp"])
        h = int(changes.get("handicap", options["handicap"]))
        vp = h + np.asarray(games["score_us"], dtype=np.int64) - np.asarray(games["score_spain"], dtype=np.int64)
        return np.where(vp >= vic, 0, np.where(vp <= -vic, 1, -1)).astype(np.int8)

    def soak_cases(self):
        """The standard rules, every optional rule that can be combined, and 14.2 with 14.11."""
        return [("standard", {}),
                ("standard", {"turns": 9, "extra_warships": True, "germans": True, "maintenance": True,
                              "fog_of_war": True, "automatic_victory": True, "restrict_disabled": True,
                              "speed_subgroups": True, "port_vp_initiative": False}),
                ("standard", {"delayed_repair": True, "free_deployment": True, "speed_disengage": "never"})]

    def invariant_violations(self, scenario: Scenario, batch: Batch, options) -> list[str]:
        """The generic contract plus the campaign's own: the VP track is the handicap plus both
        sides' VPs, each side's VPs are the sum of its VPs by kind (12.1), the winner follows the
        track (12.2), every game ran its turns or ended by 14.7, the battles table has one row per
        battle counted, and no battle sank more units than a side lost."""
        out = super().invariant_violations(scenario, batch, options)
        g = {k: np.asarray(v) for k, v in batch.games.items()}
        n = len(g["winner"])
        if n == 0:
            return out
        h = int(options.get("handicap", 0))
        if (g["vp_net"] != h + g["score_us"] - g["score_spain"]).any():
            out.append("vp_net is not handicap + score_us - score_spain")
        for side in SIDES:
            kinds = sum(g[f"vp_{k}_{side}"] for k in VP_KIND_COLUMNS)
            if (kinds != g[f"score_{side}"]).any():
                out.append(f"score_{side} is not the sum of its VPs by kind")
        vic = int(scenario.payload.rules["victory_vp"])
        want = np.where(g["vp_net"] >= vic, 0, np.where(g["vp_net"] <= -vic, 1, -1))
        if (want != g["winner"]).any():
            out.append("winner does not follow the VP track (12.2)")
        ended = (g["turns"] == int(options.get("turns", 6))) | (g["end_reason"] == lay.END_AUTOMATIC)
        if not ended.all():
            out.append("a game stopped before its last turn without an automatic victory")
        ev = batch.events.get("battles", {})
        rows = np.bincount(np.asarray(ev.get("game", np.zeros(0, np.int64))), minlength=n)
        if (rows != g["battles"]).any():
            out.append("battles column differs from the battles table")
        for side in SIDES:
            lost = sum(g[f"sunk_{side}_{t.lower()}"] for t in TYPE_NAMES)
            in_battle = np.bincount(np.asarray(ev.get("game", np.zeros(0, np.int64))),
                                    weights=np.asarray(ev.get(f"sunk_{side}", np.zeros(0))), minlength=n)
            if (in_battle > lost).any():
                out.append(f"battles sank more {side} units than the {side} lost")
        return out

    def capped(self, scenario: Scenario, batch: Batch, options) -> np.ndarray:
        """Games with a battle stopped at the round cap (ruling B9); the turn loop has no other cap
        a game can reach."""
        g = np.asarray(batch.games["winner"])
        ev = batch.events.get("battles", {})
        if not len(np.asarray(ev.get("game", ()))):
            return np.zeros(len(g), dtype=bool)
        from .enums import END_MAX_ROUNDS
        hit = np.asarray(ev["game"])[np.asarray(ev["end_reason"]) == END_MAX_ROUNDS]
        out = np.zeros(len(g), dtype=bool)
        out[hit] = True
        return out

    def bench_scenarios(self):
        return ("standard",)

    def bench_cases(self, quick: bool = False) -> list[dict]:
        """Campaigns per second in one process and the dice floor (see :func:`bench_cases`)."""
        return bench_cases(self, quick)

    def bench_targets(self) -> dict[str, tuple[str, float]]:
        """The campaign's speed target: 5,000 campaigns/s through a 2-worker sweep; issue 17's scaling
        (2 workers over 1 on a 2-core machine) and memory ceiling (MiB)."""
        return {"standard sweep 2 workers": (">=", 5_000),
                "standard sweep scaling (2 workers over 1)": (">=", 1.8),
                "peak memory of a large sweep": ("<=", 1024.0)}


def bench_cases(game: DawnOfEmpire, quick: bool = False) -> list[dict]:
    """Two cases whose rate ratio is the *dice-floor ratio* (time per campaign / time to draw the
    same number of dice in one vectorised numpy call), which ``simlab bench`` reports as a derived
    figure (``ratio_to``):

    * ``campaign kernel standard``: ``items`` 6-turn campaigns of ``standard`` with the default
      policies in one process (unit ``games``);
    * ``dice floor standard``: the same number of games' worth of dice (the mean ``dice`` column
      of those campaigns) drawn by ``numpy.random.Generator.integers`` in one call (unit
      ``games``).
    """
    from ...rng import game_seeds  # imports numba: only when benchmarking (lazy start-up)
    n = 2_000 if quick else 20_000
    sc = game.load_scenario("standard")
    opts = game.resolve_options({})
    pols = game.resolve_policies(SIDES, {})
    seeds = game_seeds(2024, 1, 0, n)
    gen = np.random.default_rng(2024)
    ndice: list[int] = []  # the probe is played by dice()'s first (untimed) call, not here: building
    # the cases plays nothing (`simlab bench --only` checks names before it runs a case)

    def campaigns():
        run_games(sc.payload, opts, pols, seeds)

    def dice():
        if not ndice:
            probe = run_games(sc.payload, opts, pols, seeds[: min(n, 2000)])
            ndice.append(int(round(float(probe["G"][:, lay.G_DRAWS].mean()) * n)))
        gen.integers(1, 7, size=ndice[0], dtype=np.int64)

    return [
        {"name": "campaign kernel standard", "unit": "games", "items": n, "fn": campaigns,
         "detail": "6-turn campaigns, default policies, one process"},
        {"name": "dice floor standard", "unit": "games", "items": n, "fn": dice, "ratio_to": "campaign kernel standard",
         "ratio_name": "dice-floor ratio (time per campaign / time to draw its dice)",
         "detail": "the mean dice of 2,000 probe campaigns, drawn in one numpy call"},
    ]


GAME = DawnOfEmpire()
