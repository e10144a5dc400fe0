"""The campaign kernels' named bundles (issue 27): a game's state is one value.

The turn loop (:mod:`campaign_loop`) takes three bundles instead of forty loose arrays, each a
``NamedTuple`` of arrays that numba passes as one argument (vectorbt's context tuples, pgx's
``State``):

* :class:`Tables`: what the scenario and the options fix (Rule 13.0 set-up, the map, the Search
  Matrix, ``par`` and each side's knobs ``kn``);
* :class:`GameState`: everything the rest of a game depends on (units, stacks, leaders, nodes,
  the game scalars, the VP ledger, the battles so far, the game's random stream, its clock and,
  when tracing, its per-turn snapshots). Copy it and :func:`campaign_loop.play_on_nb` continues
  the game from the copy exactly as it would have gone on;
* :class:`Scratch`: the working rows of the phases (the policy views and plan buffers, the
  combat scratch): each phase overwrites what it reads, so a fresh scratch continues a game as
  well as the one that played its first turns.

A *batch state* is a :class:`GameState` whose arrays carry a leading game axis ``g``
(:func:`new_batch_state`); :func:`campaign_loop.game_of_nb` takes game ``i``'s view.
Layouts (``UF_*``, ``G_*``, ``CK_*``...) are in :mod:`campaign_layout`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS
from . import campaign_layout as lay
from .campaign_combat import combat_scratch_nb
from .campaign_orders import B_NODE, MAXSS, PS_NF
from .kernels import W_NF
from .policies import policy_scratch_nb
from .policy_view import VIS_NF, blank_view_nb

__all__ = ["GameState", "Scratch", "Tables", "new_batch_state", "new_scratch_nb", "tables_of"]


class Tables(NamedTuple):
    """The static arrays (:mod:`campaign_layout`): ``ust[U, US_NF]``, ``lst[L, LS_NF]``,
    ``nodes[N, NS_NF]``, ``adj[N, N]``, ``cost[K + 1, N, N]``, ``nh[K + 1, N, N]``,
    ``matrix[7, 8]``, ``markers[2, 7]``, ``par[P_NF]`` and ``kn[2, KN_NF]`` (each side's
    knobs, :mod:`policy_layout`), all ``int64``."""

    ust: np.ndarray
    lst: np.ndarray
    nodes: np.ndarray
    adj: np.ndarray
    cost: np.ndarray
    nh: np.ndarray
    matrix: np.ndarray
    markers: np.ndarray
    par: np.ndarray
    kn: np.ndarray


class GameState(NamedTuple):
    """One game's state (all ``int64`` but ``rng``), or with a leading axis ``g`` a batch's:
    ``U[U, UF_NF]``, ``S[2 * MAXSS, SF_NF]``, ``SM[2 * MAXSS, MAXPER]``, ``LD[max(L, 1), LF_NF]``,
    ``ND[N, ND_NF]``, ``G[G_NF]``, ``ledger[LEDGER_MAX, LG_NF]``, ``bev[BATTLE_MAX, BE_NF]``,
    ``rng``: ``uint64[STATE_WORDS]`` (the game's stream, :mod:`simlab.rng`), ``clock[CK_NF]``
    (next turn, over), ``trace[T + 2, U, TR_NF]`` when ``par[P_TRACE]`` is set (else unused)."""

    U: np.ndarray
    S: np.ndarray
    SM: np.ndarray
    LD: np.ndarray
    ND: np.ndarray
    G: np.ndarray
    ledger: np.ndarray
    bev: np.ndarray
    rng: np.ndarray
    clock: np.ndarray
    trace: np.ndarray


class Scratch(NamedTuple):
    """The phases' scratch (overwritten before it is read; allocated by :func:`new_scratch_nb`):
    ``UV[2, U, UF_NF]``, ``LV[2, L, LF_NF]`` each side's view (enemy rows blanked once,
    :func:`policy_view.blank_view_nb`), ``vis[N, VIS_NF]``, ``B[B_NODE + N]``, the plan
    ``pu[U]``, ``pp[U]``, ``pst[MAXSS, PS_NF]``, ``pl[L]``, ``enemy_n[N]``, the policy scratch
    ``pw``, ``gmem`` (:func:`policies.policy_scratch_nb`), the engine's ``od``, ``ot``
    (``int64[4N]``), the battle rows ``work[W_NF, U]`` (:func:`kernels.new_work`), ``att``, ``dfn``, ``mov``, ``dmg``,
    ``status`` (``int8``), ``mem`` (``[U]``) and ``cw`` (:func:`campaign_combat.combat_scratch_nb`)."""

    UV: np.ndarray
    LV: np.ndarray
    vis: np.ndarray
    B: np.ndarray
    pu: np.ndarray
    pp: np.ndarray
    pst: np.ndarray
    pl: np.ndarray
    enemy_n: np.ndarray
    pw: np.ndarray
    gmem: np.ndarray
    od: np.ndarray
    ot: np.ndarray
    work: np.ndarray
    att: np.ndarray
    dfn: np.ndarray
    mov: np.ndarray
    dmg: np.ndarray
    status: np.ndarray
    mem: np.ndarray
    cw: np.ndarray


@kernel(nrt=True)
def new_scratch_nb(tb):
    """A fresh :class:`Scratch` for the scenario of ``tb`` (:class:`Tables`)."""
    ust, lst = tb.ust, tb.lst
    nu = ust.shape[0]
    nl = max(lst.shape[0], 1)
    N = tb.nodes.shape[0]
    UV = np.zeros((2, nu, lay.UF_NF), dtype=np.int64)
    LV = np.zeros((2, nl, lay.LF_NF), dtype=np.int64)
    for side in range(2):
        blank_view_nb(side, ust, lst, UV[side], LV[side])   # the enemy rows, once for the batch
    pw, gmem = policy_scratch_nb(nu, N)
    return Scratch(UV, LV, np.zeros((N, VIS_NF), dtype=np.int64), np.zeros(B_NODE + N, dtype=np.int64),
                   np.zeros(nu, dtype=np.int64), np.zeros(nu, dtype=np.int64),
                   np.zeros((MAXSS, PS_NF), dtype=np.int64), np.zeros(nl, dtype=np.int64),
                   np.zeros(N, dtype=np.int64), pw, gmem,
                   np.zeros(4 * N, dtype=np.int64), np.zeros(4 * N, dtype=np.int64),
                   np.zeros((W_NF, max(nu, 1)), dtype=np.int64), np.zeros(nu, dtype=np.int64),
                   np.zeros(nu, dtype=np.int64), np.zeros(nu, dtype=np.int64), np.zeros(nu, dtype=np.int64),
                   np.zeros(nu, dtype=np.int8), np.zeros(nu, dtype=np.int64), combat_scratch_nb(nu, N))


def tables_of(data, par: np.ndarray, kn: np.ndarray) -> Tables:
    """The :class:`Tables` of a compiled scenario (:class:`rules.CampaignData`), its ``par``
    (``int64[P_NF]``, :func:`runtime.build_par`) and knobs (``int64[2, KN_NF]``)."""
    return Tables(data.ust, data.lst, data.nodes, data.adj, data.cost, data.nh, data.matrix, data.markers, par, kn)


def new_batch_state(g: int, nu: int, nl: int, n_nodes: int, turns: int, trace: bool) -> GameState:
    """A zeroed batch state for ``g`` games of a scenario with ``nu`` units, ``nl`` leaders and
    ``n_nodes`` nodes (every array with a leading axis ``g``; ``trace[g, turns + 2, nu, TR_NF]``
    when tracing, else ``[g, 1, 1, TR_NF]``); :func:`campaign_loop.start_campaigns_nb` fills it."""
    z = np.zeros
    tr = (g, turns + 2, nu, lay.TR_NF) if trace else (g, 1, 1, lay.TR_NF)
    return GameState(z((g, nu, lay.UF_NF), np.int64), z((g, 2 * MAXSS, lay.SF_NF), np.int64),
                     z((g, 2 * MAXSS, lay.MAXPER), np.int64), z((g, max(nl, 1), lay.LF_NF), np.int64),
                     z((g, n_nodes, lay.ND_NF), np.int64), z((g, lay.G_NF), np.int64),
                     z((g, lay.LEDGER_MAX, lay.LG_NF), np.int64), z((g, lay.BATTLE_MAX, lay.BE_NF), np.int64),
                     z((g, STATE_WORDS), np.uint64), z((g, lay.CK_NF), np.int64), z(tr, np.int64))
