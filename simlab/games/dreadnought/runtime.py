"""Dreadnought's runtime: what the façade (:mod:`.game`) calls to play.

The compiled rules of a data pack and the compiled campaigns (cached by the pack's hash), the
policy book (``policies.toml``) and its packing (a side's policy into the kernels' ``pc``/``kn``
rows, as ``layout.POLICY_PACKING`` declares), and the two entry points:
:func:`run_games` (historical scenarios, Rules 4.0-10.7) and :func:`run_campaigns` (the Campaign
Game 11.0-11.9 and the Extended Campaign 12.6). Nothing here imports the façade.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...datapack import DataPack
from ..policy import Policy, PolicyBook
from . import bench as _bench  # noqa: F401  (its kernels are refreshed with the game's)
from . import layout as L
from .campaign import SIDES, CampaignSetup, campaign_parameters, compile_campaign
from .kernels.campaign_loop import CampaignTables, play_campaign_batch_nb, rows_per_game_nb
from .kernels.turn import play_batch_nb
from .rules import RuleArrays, RuleTables, compile_rules, with_options
from .scenario import ScenarioSetup

#: the policy families, their knobs and the named presets (:mod:`simlab.games.policy`)
POLICY_FILE = L.POLICY_PACKING.policy_file
#: knobs read before the kernels run (:func:`.campaign.campaign_parameters`; layout ``POLICY_PACKING``)
CAMPAIGN_KNOBS = L.POLICY_PACKING.host_knobs

_RULES_CACHE: dict[str, tuple[RuleArrays, frozenset]] = {}
_CAMPAIGN_CACHE: dict[tuple, CampaignSetup] = {}


def rules_for(pack: DataPack) -> tuple[RuleArrays, frozenset]:
    """The compiled rules of a pack and the pack values they read (cached by the pack's hash)."""
    if pack.hash not in _RULES_CACHE:
        view = pack.view()
        arrays = compile_rules(view)
        _RULES_CACHE[pack.hash] = (arrays, frozenset(view.used))
    return _RULES_CACHE[pack.hash]


def campaign_setup(pack: DataPack, rules: RuleArrays, period: str, north: str, south: str) -> CampaignSetup:
    """The compiled campaign for a period and two navies (cached by the pack's hash)."""
    key = (pack.hash, period, north, south)
    if key not in _CAMPAIGN_CACHE:
        _CAMPAIGN_CACHE[key] = compile_campaign(pack, rules, period, north, south)[0]
    return _CAMPAIGN_CACHE[key]


def policy_book() -> PolicyBook:
    """The families and presets of :data:`POLICY_FILE` (the framework's one cache of the book,
    checked against the kernels' layout by ``layout.POLICY_PACKING``)."""
    return L.POLICY_PACKING.book()


def preset_names() -> tuple[str, ...]:
    """The named policies (presets), in file order."""
    return tuple(policy_book().presets)


def as_policy(policy: str | Policy, side: str) -> Policy:
    """A side's policy with every knob: a :class:`~simlab.games.policy.Policy` as given, or a
    preset's name resolved with its family's defaults.

    Raises:
        SpecError: an unknown preset.
    """
    return L.POLICY_PACKING.resolve(side, policy)


#: ``pack_policies(policies, sides) -> (pc, kn)``: the kernels' policy rows for both sides (in
#: ``sides`` order), ``int64[2, NPC]`` codes (knob ``name`` in ``PC_<NAME>``) and ``float64[2, NKN]``
#: knobs (``K_<NAME>``), packed by the framework as ``layout.POLICY_PACKING`` declares
#: (:meth:`simlab.games.packing.PolicyPacking.kernel_arrays`; the runtime's ``host_knobs`` are in neither)
pack_policies = L.POLICY_PACKING.kernel_arrays


def rule_tables(rules: RuleArrays, rl: np.ndarray | None = None) -> RuleTables:
    """The kernels' bundle of compiled rules, a :class:`.rules.RuleTables` ``(rl, dpt, band_low, crt,
    range_tab, tracks, eff_gun, eff_crt)`` (:func:`.kernels.turn.tactical_nb`), ``rl`` the run's (with
    its optional rules; ``None``: the pack's, every optional rule off)."""
    return RuleTables(rules.rl if rl is None else rl, rules.dpt, rules.band_low, rules.crt, rules.range_tab,
                      rules.tracks, rules.eff_gun, rules.eff_crt)


def game_options(setup: ScenarioSetup, opts: Mapping, check: bool) -> np.ndarray:
    """``int64[4]``: game length (Game-Turns; ``game_length`` 0 = the scenario's), visibility base
    (hexes; ``visibility_base`` -1 = the scenario's), whether shots are recorded, whether invariants
    are checked: the ``opt`` row :func:`run_games` and :func:`.state.start_games` give the kernels."""
    length = int(opts.get("game_length") or 0) or int(setup.sc[L.SC_LENGTH])
    vb = int(opts.get("visibility_base", -1))
    vis = int(setup.sc[L.SC_VIS_BASE]) if vb < 0 else vb
    return np.array([length, vis, 1 if opts.get("shots") else 0, 1 if check else 0], dtype=np.int64)


def run_games(setup: ScenarioSetup, rules: RuleArrays, policies: Mapping[str, str], seeds: np.ndarray,
              options: Mapping | None = None, check: bool = False,
              trace: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play one game per seed; raw kernel output.

    Args:
        setup, rules: the compiled scenario and rules.
        policies: ``{side: preset name or Policy}`` for both sides.
        seeds: ``uint64[g]`` stream seeds.
        options: ``shots`` (bool), ``game_length`` (0 = scenario's), ``visibility_base`` (-1 =
            scenario's), and the optional rules' switches.
        check: count broken invariants after every Movement Phase (column ``O_VIOLATIONS``).
        trace: ``int64[turns + 2, n, NTR]`` to receive game 0's units turn by turn (set-up, after
            each Movement Phase, final state in the last row).

    Returns:
        ``(out, ev)``: ``int64[g, NOUT]`` results (layout ``O_*``) and ``int32[k, NEV]`` shots
        (empty unless ``shots``).
    """
    opts = dict(options or {})
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    g = int(seeds.shape[0])
    pc, kn = pack_policies(policies, setup.sides)
    opt = game_options(setup, opts, check)
    record = int(opt[2])
    rl = with_options(rules.rl, opts)
    tr = trace if trace is not None else np.zeros((0, setup.n, L.NTR), dtype=np.int64)
    out = np.zeros((g, L.NOUT), dtype=np.int64)
    cap = max(16, g * setup.n * 2) if record else 0
    ev = np.zeros((cap, L.NEV), dtype=np.int32)
    chunks = []
    start = 0
    while True:
        nxt, rows = play_batch_nb(seeds, start, setup.st, (setup.sh0, setup.fm0, setup.trail0), setup.sc,
                                  rule_tables(rules, rl), (pc, kn), opt, out, ev, tr)
        chunks.append(ev[:rows].copy())
        if nxt >= g:
            break
        start = int(nxt)
        ev = np.zeros((max(cap, 16) * 2, L.NEV), dtype=np.int32)
        cap = ev.shape[0]
    evs = np.concatenate(chunks) if chunks else np.zeros((0, L.NEV), dtype=np.int32)
    return out, evs


def run_campaigns(setup: CampaignSetup, rules: RuleArrays, options: Mapping, policies: Mapping[str, str],
                  seeds: np.ndarray, extended: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play one campaign (or extended campaign) per seed (Rules 11.0-11.9, 12.6).

    Args:
        setup, rules: from :func:`.campaign.compile_campaign` and the pack.
        options: the game's resolved options; policies: ``{"north": ..., "south": ...}`` (preset
            names or Policies).
        seeds: ``uint64[g]``; extended: the extended campaign (12.6; towing 12.4 is then on,
            ruling DN-X3).

    Returns:
        ``(gout, rows, cp)``: ``int64[g, NGO]`` per game, ``int64[k, NRS]`` per campaign scenario,
        and the parameters played.
    """
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    g = int(seeds.shape[0])
    ct = campaign_tables(setup, rules, options, policies, extended)
    gout = np.zeros((g, L.NGO), dtype=np.int64)
    rows = np.zeros((max(1, g * int(rows_per_game_nb(ct.cp))), L.NRS), dtype=np.int64)
    nrow = play_campaign_batch_nb(seeds, ct, gout, rows)
    return gout, rows[:nrow].copy(), ct.cp


def campaign_tables(setup: CampaignSetup, rules: RuleArrays, options: Mapping, policies: Mapping[str, str],
                    extended: bool) -> CampaignTables:
    """The campaign kernels' :class:`.kernels.campaign_loop.CampaignTables` for a run (arguments as
    :func:`run_campaigns`): the listings, the parameters (:func:`.campaign.campaign_parameters`),
    the geometry, the compiled rules with the run's optional rules and the policies by player."""
    pols = {side: as_policy(policies[side], side) for side in SIDES}
    cp = campaign_parameters(setup, rules, options, pols, extended)
    pc, kn = pack_policies(pols, SIDES)
    opts = dict(options)
    if extended:
        opts["towing"] = True
    tb = rule_tables(rules, with_options(rules.rl, opts))
    return CampaignTables(setup.po, setup.npool, cp, setup.sc0, setup.geo, tb, pc, kn)
