"""The Dawn of Empire campaign's runtime: what stands between the façade and the kernels.

* :func:`compile_scenario`: the data pack compiled into the kernels' static arrays (Rule 13.0
  set-up, the map, the Search Matrix, the rules constants; :func:`rules.compile_campaign`);
* :func:`build_par`: the options, the pack's rules constants (``rules.core``: coaling 7.5 C,
  VPs 12.1-12.2, 14.7, patrol reach 5.4, transit 5.7 B, movement floor 8.3.2.3 B, maintenance
  14.3) and each side's policy family packed into the kernels' parameter vector;
* :func:`policy_book` (``policies.toml``, read once) and :func:`pack_policies`: each side's policy
  (a preset name or a resolved :class:`~simlab.games.policy.Policy`) as its family id and its knob
  vector ``kn[2, KN_NF]`` (:mod:`policy_layout`);
* :func:`run_games`: one campaign per seed through :func:`campaign_loop.play_campaigns_nb`,
  raising :class:`PolicyError` when a policy hands in an illegal plan;
* :func:`start_games`, :func:`play_from`, :func:`finish_games`: the same batch paused after a turn
  as a :class:`BatchState` (issue 27: a game's state is one value), continued from a copy of it
  and finished, by the same kernels (:func:`campaign_loop.play_on_nb`).

The façade (:mod:`campaign`, the ``dawn-of-empire`` game) imports this module; nothing here, and
no other module of the game, imports the façade.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...datapack import PackView
from ..policy import Policy, PolicyBook
from . import campaign_layout as lay
from . import policy_layout as pk
from .enums import (
    CO_MAP,
    CO_RANDOM,
    DN_NEARER,
    DP_RANDOM,
    DP_REPAIR,
    FLEE_ALWAYS,
    FLEE_COIN,
    MK_RULE,
    MP_PORT,
    MP_RANDOM,
    PU_RANDOM,
    PU_SLOWEST,
    RF_RANDOM,
    RO_RANDOM,
    RO_STRONG,
    SPEED_NEVER,
    SPEED_WHEN_ABLE,
)
from .rules import CampaignData, compile_campaign

__all__ = ["CAMPAIGN_SPEED_MODES", "POLICY_FILE", "SIDES", "BatchState", "PolicyError", "build_par", "compile_scenario",
           "finish_games", "pack_policies", "play_from", "policy_book", "resolve_policy", "run_games", "start_games"]

SIDES = lay.SIDE_NAMES
#: the campaign's ``speed_disengage`` option (Rule 10.2, ruling C18): each side's policy decides
#: (``policy``, the rule), or for experiments nobody ever disengages or everybody always does
CAMPAIGN_SPEED_MODES = ("policy", "never", "always")
#: the policy families and presets of the campaign
POLICY_FILE = pk.POLICY_PACKING.policy_file
#: the policy of a side whose plans are handed in from outside (:class:`campaign_state.CampaignState`)
SCRIPT = "script"


def compile_scenario(view: PackView) -> CampaignData:
    """The static arrays of the ``standard`` scenario (Rule 13.0) from a pack view (every value
    read is marked used in ``view.used``).

    Raises:
        DataPackError: if the pack lacks a value the campaign needs.
    """
    return compile_campaign(view)


#: ``par`` slots filled from the pack's ``rules.core`` row
_RULES_PAR = (
    (lay.P_COALSEA0, "coal_at_sea_us"), (lay.P_COALSEA1, "coal_at_sea_spain"),
    (lay.P_COALNEUTRAL, "coal_neutral_port"), (lay.P_VICTORY, "victory_vp"), (lay.P_AUTOVP, "automatic_victory_vp"),
    (lay.P_PORTVP, "port_destroyed_vp"), (lay.P_BLKVP, "blockade_coal_vp"),
    (lay.P_PATROL_PORT, "patrol_areas_from_port"), (lay.P_PATROL_SEA, "patrol_areas_at_sea"),
    (lay.P_TRANSIT_MAX, "transit_max_turns"), (lay.P_MINMOV, "min_movement"),
    (lay.P_MINMOV_R, "min_movement_restricted"), (lay.P_MAINT_BBMO, "maintenance_us_bb_mo"),
    (lay.P_MAINT_CRUISERS, "maintenance_us_cruisers"), (lay.P_MAINT_BB_OTHER, "maintenance_us_bb_other"),
    (lay.P_MAINT_CPGB_OTHER, "maintenance_us_cp_gb_other"), (lay.P_MAINT_SPAIN, "maintenance_spain"),
)


class PolicyError(RuntimeError):
    """A policy handed in an illegal plan (a bug in the policy, not bad user input)."""


def policy_book() -> PolicyBook:
    """The campaign's policy families and presets (``policies.toml``; the framework's one cache of
    the book, checked against the kernels' layout by ``policy_layout.POLICY_PACKING``)."""
    return pk.POLICY_PACKING.book()


def resolve_policy(side: str, policy: Any) -> Policy:
    """A side's policy as a :class:`~simlab.games.policy.Policy`: a ``Policy`` as it is, a preset
    name with its knobs (family defaults filled in).

    Raises:
        SpecError: an unknown preset for the side.
    """
    return pk.POLICY_PACKING.resolve(side, policy)


#: ``pack_policies(policies) -> (fam, kn)``: each side's policy family id (``int64[2]``,
#: ``policy_layout.FAM_*``) and knob vector (``int64[2, KN_NF]``, knob ``name`` in ``K_<NAME>``, a
#: ``float`` knob in permille, other slots 0; ``"script"`` packs ``FAM_SCRIPT`` and zeros), packed by
#: the framework as ``policy_layout.POLICY_PACKING`` declares
#: (:meth:`simlab.games.packing.PolicyPacking.kernel_arrays`)
pack_policies = pk.POLICY_PACKING.kernel_arrays


def build_par(data: CampaignData, options: Mapping[str, Any], policies: Mapping[str, Any],
              trace: bool = False) -> np.ndarray:
    """The kernels' parameter vector (``int64[P_NF]``, layout in :mod:`campaign_layout`).

    Args:
        data: the compiled scenario.
        options: every option of :class:`DawnOfEmpire`, resolved.
        policies: ``{"us": policy, "spain": policy}``, each a preset name of ``policies.toml``,
            a :class:`~simlab.games.policy.Policy` or ``"script"``.
        trace: record per-turn snapshots and the VP ledger (tests).
    """
    r = data.rules
    par = np.zeros(lay.P_NF, dtype=np.int64)
    par[lay.P_TURNS] = options["turns"]
    par[lay.P_HANDICAP] = options["handicap"]
    for k, name in ((lay.P_DELAYED, "delayed_repair"), (lay.P_MAINT, "maintenance"), (lay.P_FACEUP, "fog_of_war"),
                    (lay.P_AUTO, "automatic_victory"), (lay.P_RESTRICT, "restrict_disabled"),
                    (lay.P_SUBGROUPS, "speed_subgroups"), (lay.P_EXTRA, "extra_warships"),
                    (lay.P_FREE, "free_deployment"), (lay.P_GERMANS, "germans")):
        par[k] = 1 if options[name] else 0
    fam, kn = pack_policies(policies)
    par[lay.P_POL0:lay.P_POL0 + 2] = fam
    mode = options["speed_disengage"]
    par[lay.P_SPEED] = SPEED_NEVER if mode == "never" else SPEED_WHEN_ABLE
    for s in range(2):
        # 10.2 "may disengage": the side's policy decides (kernels.flee_choice_nb); a scripted
        # test side (CampaignState) and the option "always" always leave when able
        if mode == "always" or fam[s] == pk.FAM_SCRIPT:
            par[lay.P_FLEE0 + s] = FLEE_ALWAYS
        elif fam[s] == pk.FAM_RANDOM:
            par[lay.P_FLEE0 + s] = FLEE_COIN
        else:
            par[lay.P_FLEE0 + s] = kn[s, pk.K_DISENGAGE_ODDS]
    # 4.3 B: Spain orders the areas' combats
    sp = fam[lay.SPAIN]
    par[lay.P_CORDER] = (CO_RANDOM if sp == pk.FAM_RANDOM else
                         CO_MAP if sp == pk.FAM_SCRIPT else kn[lay.SPAIN, pk.K_COMBAT_ORDER])
    # 8.3.2.1 B: where each side's disabled units go (policy_combat.disabled_port_nb); a
    # scripted test side takes the most repair, and a neutral port under 14.9 when it is nearer
    for s in range(2):
        if fam[s] == pk.FAM_RANDOM:
            par[lay.P_DISPORT0 + s], par[lay.P_DISNEU0 + s] = DP_RANDOM, DN_NEARER
        elif fam[s] == pk.FAM_SCRIPT:
            par[lay.P_DISPORT0 + s], par[lay.P_DISNEU0 + s] = DP_REPAIR, DN_NEARER
        else:
            par[lay.P_DISPORT0 + s] = kn[s, pk.K_DISABLED_PORT]
            par[lay.P_DISNEU0 + s] = kn[s, pk.K_DISABLED_NEUTRAL]
    # 9.0 B-C: which units each side's ports repair first; 7.3 C: whose order two equal combining
    # squadrons keep (a scripted test side: the strongest first, and the rule's leader-stars-coin)
    # 14.3 A-C: which eligible units take maintenance damage (a scripted test side: in port first);
    # 14.9 B-C: where the pursuer sends its units (a scripted test side: after the slowest subgroup)
    # 8.3.3 A: the order of equally damaged units in a reformed line (a scripted test side: as before,
    # RF_KEEP = 0, par's zero)
    for s in range(2):
        if fam[s] == pk.FAM_RANDOM:
            par[lay.P_REPORD0 + s], par[lay.P_MERGE0 + s], par[lay.P_MAINT0 + s] = RO_RANDOM, MK_RULE, MP_RANDOM
            par[lay.P_PURSUE0 + s] = PU_RANDOM
            par[lay.P_REFORM0 + s] = RF_RANDOM
        elif fam[s] == pk.FAM_SCRIPT:
            par[lay.P_REPORD0 + s], par[lay.P_MERGE0 + s], par[lay.P_MAINT0 + s] = RO_STRONG, MK_RULE, MP_PORT
            par[lay.P_PURSUE0 + s] = PU_SLOWEST
        else:
            par[lay.P_REPORD0 + s] = kn[s, pk.K_REPAIR_ORDER]
            par[lay.P_MERGE0 + s] = kn[s, pk.K_MERGE_KEEP]
            par[lay.P_MAINT0 + s] = kn[s, pk.K_MAINT_PICK]
            par[lay.P_PURSUE0 + s] = kn[s, pk.K_PURSUE]
            par[lay.P_REFORM0 + s] = kn[s, pk.K_REFORM_ORDER]
    for slot, field in _RULES_PAR:
        par[slot] = r[field]
    par[lay.P_MAX_ROUNDS] = 1000
    par[lay.P_LOSSHALF:lay.P_LOSSHALF + lay.N_TYPES] = data.loss_half
    par[lay.P_MARKERS:lay.P_MARKERS + 2 * lay.N_ORDERS] = data.markers.reshape(-1)
    par[lay.P_TRACE] = 1 if trace else 0
    par[lay.P_PORTVP_INIT] = 1 if options["port_vp_initiative"] else 0
    par[lay.P_NAREAS] = data.n_areas
    par[lay.P_NPORTS] = len(data.port_keys)
    par[lay.P_NUNITS] = data.ust.shape[0]
    par[lay.P_NLEADERS] = data.lst.shape[0]
    return par


def _policy_error(data: CampaignData, G: np.ndarray, policies: Mapping[str, Any], game: int) -> PolicyError:
    side = SIDES[int(G[lay.G_ERR_SIDE])]
    err = lay.ERR_NAMES[int(G[lay.G_ERR])]
    return PolicyError(f"policy {str(policies[side])!r} ({side}) handed in an illegal plan on turn {int(G[lay.G_TURN])} "
                       f"of game {game}: {err} (stack slot {int(G[lay.G_ERR_STACK])})")


def _tables(data: CampaignData, options: Mapping[str, Any], policies: Mapping[str, Any], trace: bool):
    from .campaign_bundles import tables_of

    par = build_par(data, options, policies, trace)
    _, kn = pack_policies(policies)
    return tables_of(data, par, kn)


def run_games(data: CampaignData, options: Mapping[str, Any], policies: Mapping[str, Any], seeds: np.ndarray,
              trace: bool = False) -> dict[str, np.ndarray]:
    """Play one campaign per seed; the kernels' raw output.

    Args:
        data: the compiled scenario; options, policies: as :func:`build_par`.
        seeds: ``uint64[g]`` stream seeds.
        trace: also return per-turn unit snapshots and each game's VP ledger.

    Returns:
        ``{"G": int64[g, G_NF], "battles": int64[b, 1 + BE_NF]}``, plus ``"trace"``
        (``int64[g, T + 2, U, TR_NF]``: the set-up, each turn after its orders, the end) and
        ``"ledger"`` (``int64[g, LEDGER_MAX, LG_NF]``, each game's VP awards) when tracing.

    Raises:
        PolicyError: if a policy handed in an illegal plan.
    """
    from .campaign_loop import play_campaigns_nb

    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    g = seeds.shape[0]
    tb = _tables(data, options, policies, trace)
    nu = data.ust.shape[0]
    T = int(options["turns"])
    out_g = np.zeros((g, lay.G_NF), dtype=np.int64)
    tr = np.zeros((g if trace else 1, T + 2, nu, lay.TR_NF), dtype=np.int64)
    led = np.zeros((g if trace else 1, lay.LEDGER_MAX if trace else 1, lay.LG_NF), dtype=np.int64)
    cap = max(64, 8 * g)
    while True:
        bev = np.zeros((cap, 1 + lay.BE_NF), dtype=np.int64)
        n = play_campaigns_nb(seeds, tb, out_g, bev, tr, led)
        if n <= cap:
            break
        cap = n
    return _raw(data, policies, out_g, bev[:n], tr if trace else None, led if trace else None)


def _raw(data, policies, out_g, bev, tr, led) -> dict[str, np.ndarray]:
    bad = np.nonzero(out_g[:, lay.G_ERR])[0]
    if bad.size:
        raise _policy_error(data, out_g[bad[0]], policies, int(bad[0]))
    out = {"G": out_g, "battles": bev}
    if tr is not None:
        out["trace"] = tr
        out["ledger"] = led
    return out


@dataclass(frozen=True)
class BatchState:
    """A batch of campaigns paused between turns (issue 27): everything the rest of each game
    depends on, and what it is played with.

    Attributes:
        seeds: ``uint64[g]`` the games' stream seeds (their draw counts, ``G_DRAWS``, are counted
            from them).
        tables: the :class:`campaign_bundles.Tables` (scenario arrays, ``par``, knobs ``kn``).
        state: the :class:`campaign_bundles.GameState` of the batch (each array with a leading
            game axis ``g``; ``state.clock[:, CK_NEXT]`` each game's next turn, ``CK_DONE`` 1 once
            it is over).
        policies: each side's policy (for the message of a :class:`PolicyError`).
        trace: whether ``state.trace`` and the ledgers are returned at the end.
    """

    seeds: np.ndarray
    tables: Any
    state: Any
    policies: Mapping[str, Any]
    trace: bool

    def copy(self) -> BatchState:
        """A deep copy: the state's arrays copied (the tables, never written, are shared)."""
        return replace(self, seeds=self.seeds.copy(), state=type(self.state)(*(a.copy() for a in self.state)))

    @property
    def over(self) -> bool:
        """Whether every game of the batch is over."""
        return bool(np.all(self.state.clock[:, lay.CK_DONE] != 0))


def start_games(data: CampaignData, options: Mapping[str, Any], policies: Mapping[str, Any], seeds: np.ndarray,
                stop: int, trace: bool = False) -> BatchState:
    """Set up one campaign per seed and play each through turn ``stop`` (0: only the set-up, 13.0
    and 14.11); a game that ends sooner (14.7) stays over. Arguments as :func:`run_games`.

    Raises:
        PolicyError: if a policy handed in an illegal plan.
    """
    from .campaign_bundles import new_batch_state
    from .campaign_loop import start_campaigns_nb

    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    tb = _tables(data, options, policies, trace)
    st = new_batch_state(seeds.shape[0], data.ust.shape[0], data.lst.shape[0], data.nodes.shape[0],
                         int(options["turns"]), trace)
    start_campaigns_nb(seeds, tb, st, int(stop))
    return _checked(data, BatchState(seeds, tb, st, dict(policies), bool(trace)))


def _checked(data: CampaignData, bs: BatchState) -> BatchState:
    bad = np.nonzero(bs.state.G[:, lay.G_ERR])[0]
    if bad.size:
        raise _policy_error(data, bs.state.G[bad[0]], bs.policies, int(bad[0]))
    return bs


def play_from(data: CampaignData, state: BatchState, stop: int | None = None) -> BatchState:
    """A copy of ``state`` with each game played on through turn ``stop`` (``None``: to its end) by
    the kernels that play whole batches; ``state`` itself is left as it was.

    Raises:
        PolicyError: if a policy handed in an illegal plan.
    """
    from .campaign_loop import resume_campaigns_nb

    bs = state.copy()
    T = int(bs.tables.par[lay.P_TURNS])
    empty = np.zeros((0, 1, lay.LG_NF), dtype=np.int64)
    resume_campaigns_nb(bs.seeds, bs.tables, bs.state, T if stop is None else int(stop),
                        np.zeros((0, lay.G_NF), dtype=np.int64), np.zeros((0, 1 + lay.BE_NF), dtype=np.int64), empty)
    return _checked(data, bs)


def finish_games(data: CampaignData, state: BatchState) -> dict[str, np.ndarray]:
    """Play a copy of ``state`` to the end of every game; the output of :func:`run_games` for the
    same seeds (exactly its rows: the same kernels play on from the same state).

    Raises:
        PolicyError: if a policy handed in an illegal plan.
    """
    from .campaign_loop import resume_campaigns_nb

    g = state.seeds.shape[0]
    T = int(state.tables.par[lay.P_TURNS])
    out_g = np.zeros((g, lay.G_NF), dtype=np.int64)
    led = np.zeros((g if state.trace else 0, lay.LEDGER_MAX, lay.LG_NF), dtype=np.int64)
    cap = max(64, 8 * g)
    while True:
        work = state.copy()   # each try plays on from the state as it was handed in
        bev = np.zeros((cap, 1 + lay.BE_NF), dtype=np.int64)
        n = resume_campaigns_nb(work.seeds, work.tables, work.state, T, out_g, bev, led)
        if n <= cap:
            break
        cap = n
    return _raw(data, state.policies, out_g, bev[:n], work.state.trace if state.trace else None,
                led if state.trace else None)
