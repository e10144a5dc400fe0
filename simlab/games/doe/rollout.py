"""A rollout exploiter for Dawn of Empire, compiled (issue 29): Monte Carlo policy improvement of one
side's Orders Phase plans (Rules 4.1.2, 5.0-5.7) over a base policy, with information-set sampling.

At each Orders Phase of the exploiting side (every turn, Rule 4.1.2) the exploiter weighs
*candidate plans*, each written by the game's own plan kernels (``policies.policy_plan_nb``, so
the engine's plan format and every legality rule flow through unchanged):

* candidate 0, the **base** policy's own plan (its family and knobs, drawn from the game's own
  random stream as the base would draw it);
* the plan each other scripted preset of the side (``us-fleet``/``spain-fleet``) would write now,
  and (``n_knobs``, none by default) the plans of **random knob vectors** of the side's scripted
  family (each knob uniform within its bounds, drawn once from the salt:
  :func:`preset_candidates`); in its play-outs such a candidate goes on playing its own knobs to
  the end of the game (a rollout over several base heuristics, Bertsekas: the choice is at least
  as good as the best of them in expectation), its combat choices staying the base's;
* ``n_random`` **random-legal plans** (``policies.random_plan_nb``), each drawn from a stream of
  its own keyed by the game's seed, the turn and the candidate, so the same fixed plan is replayed
  in every rollout and installed if chosen: plans no family holds.

For rollout ``r = 0 .. R-1`` the state at the start of the Orders Phase (after New Forces, 4.1.1)
is copied, its hidden part resampled from what the side may know (:func:`resample_hidden_nb`) and
its random stream reseeded; every candidate is played from that same sampled world (common
random numbers): the Orders Phase with the candidate as the side's plan and the opponent's
actual policy for its own, the rest of the turn by the engine's phase kernels, then the game to
its end by ``campaign_loop.play_on_nb`` with the opponent's actual policy and, for the
exploiter's later turns, the base (the candidate's own knobs for a preset or knob-vector
candidate). A play-out's value is its result from the exploiter's side (+1 a win, -1 a loss, 0 a
draw, 12.2) plus a tie-break of 0.004 per VP of the final margin (clipped to +-100 VP, so never as
much as a change of result: against a much stronger opponent nearly every play-out is a loss, by
some 45 VP against ``us=blockade``, and the margin tells the plans apart). The candidate with the
best summed value replaces the base's plan only if it also beats it on ``2R`` fresh rollouts
(keys ``R .. 3R - 1``), compared on those alone (the best of many noisy means is biased upwards,
as in the Mar Rojo exploiter); ties keep the base. The engine checks the installed plan
(``campaign_movement.install_plan_nb``) as it checks every plan.

Everything but the Orders Phase plan (free deployment 14.11, the choices inside combat, repair
order...) is the base policy's, from ``par``. With ``R = 0`` the exploiter plays its base policy
through these kernels, and its rows are exactly ``runtime.run_games``'s (a test checks this).

What the side may not see under 13.0 D (counters face down; resampled before every rollout from
the side's view only, so the choice does not depend on it):

- which enemy unit stands where: the side sees how many enemy units are at each node and which
  enemy units are afloat (sinkings and arrivals are public), as ``policy_view.observe_nb`` gives
  it. The rows of the enemy units in play (location, damage, order history, Transit streak,
  neutral-port count...) and the number of enemy leaders aboard each are sorted, then dealt to
  the enemy units afloat in a random order, so each place keeps its count; a unit dealt more
  damage than its defense keeps its defense's worth (it stays afloat, 8.3.2.2 C);
- which enemy leader is aboard which of those units: the enemy leaders in play are dealt to the
  dealt rows' leader counts in a random order;
- the enemy's stacks of the last turn (cleared: its own plan rewrites them before anything reads
  them) and its orders (not yet given: the world is taken before either side plans);
- the future random stream (one stream per game serves both sides' dice and random choices):
  reseeded from the rollout's key.

Under 14.6 Fog of War (counters face up) only the stream is resampled. Simplifications: the damage
the enemy's units carry is dealt with the rows (the side knows neither, and a uniform prior on
damage would be no better), and the sample is uniform: it does not weigh placements by what the
enemy did. The VP track and the port and control markers (``ND``) are public.

The keys of rollout ``r`` depend on the game's seed, the rollout salt, the turn and ``r`` only.

Bundles: :class:`~.campaign_bundles.Tables` ``tb``, one-game
:class:`~.campaign_bundles.GameState` ``st``, :class:`~.campaign_bundles.Scratch` ``sc`` (the
real game's) and ``rsc`` (the rollouts'), and :data:`Rollout` ``R`` (the settings, candidates and
scratch).

The turn after the Orders Phase (:func:`end_turn_nb`) mirrors ``campaign_loop.play_on_nb``'s turn
body phase for phase (the ``R = 0`` test proves it plays the same rows).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS, mix64_nb, new_state_nb, roll_nb
from . import campaign_layout as lay
from . import policy_layout as pk
from .campaign_bundles import GameState, new_scratch_nb
from .campaign_combat import (
    close_orders_nb,
    combat_phase_nb,
    control_vp_phase_nb,
    maintenance_phase_nb,
    repair_phase_nb,
)
from .campaign_loop import play_on_nb, record_game_nb, setup_game_nb
from .campaign_movement import (
    clear_side_stacks_nb,
    enemy_counts_nb,
    install_plan_nb,
    movement_side_nb,
    neutral_ports_nb,
    new_forces_nb,
    start_turn_nb,
)
from .campaign_orders import MAXSS
from .policies import policy_plan_nb
from .policy_view import observe_own_nb

__all__ = ["DEFAULT_KNOB_PLANS", "DEFAULT_RANDOM_PLANS", "DEFAULT_SALT", "DEFAULT_VP_WEIGHT", "MAX_CANDIDATES",
           "RP_NPRESET", "RP_NRANDOM", "RP_ROLLOUTS", "RP_SALT", "RP_SIDE", "RP_VPW", "VP_CLIP", "Rollout",
           "begin_turn_nb", "copy_state_nb", "end_turn_nb", "new_rollout", "one_game_state", "orders_nb",
           "play_rollout_games_nb", "play_rollout_on_nb", "preset_candidates", "resample_hidden_nb",
           "rollout_choice_nb", "run_rollout_games", "side_plan_nb", "world_nb"]

#: candidate plans at one decision at most (the base, other presets, random-legal plans)
MAX_CANDIDATES = 64
#: random-legal candidate plans per decision unless told (against ``us=blockade``, 100 paired games
#: from ``fleet-in-being`` at R = 8: +0.22 with 6, +0.30 with 16, +0.37 with 32)
DEFAULT_RANDOM_PLANS = 32
#: the salt of the rollout keys unless one is given (a rollout policy's rows depend on its seeds only)
DEFAULT_SALT = 0x446F45526F6C6C  # "DoERoll"
#: ``Rollout.params`` layout: the exploiting side, rollouts per candidate, the key salt, the preset
#: candidates (the base at 0 included), the random-legal candidates and the weight of a VP (permille
#: of a win) in a play-out's value
RP_SIDE, RP_ROLLOUTS, RP_SALT, RP_NPRESET, RP_NRANDOM, RP_VPW, RP_NF = range(7)
#: random knob vectors of the side's scripted family among the candidates unless told (none: measured
#: against ``us=blockade``, 8 uniform vectors or 8 perturbations of the base's gained no more than
#: the presets and random-legal plans alone; every uniform vector loses as badly as the base)
DEFAULT_KNOB_PLANS = 0
#: a play-out's value counts each VP of the final margin (from the exploiter's side, clipped to
#: +-VP_CLIP) as this many thousandths of a win unless told: a tie-break among plans that win or
#: lose alike (VP_CLIP * weight < 1, so it never outweighs a change of result in one play-out)
DEFAULT_VP_WEIGHT = 4
VP_CLIP = 100

#: The exploiter's settings, candidates and scratch. ``params`` ``int64[RP_NF]`` (``RP_*``);
#: ``cfam`` ``int64[MAX_CANDIDATES]`` and ``ckn`` ``int64[MAX_CANDIDATES, KN_NF]``: the family and
#: knob row of preset candidate ``j < params[RP_NPRESET]`` (row 0: the base); ``cpar``
#: ``int64[MAX_CANDIDATES, P_NF]`` and ``ckn2`` ``int64[MAX_CANDIDATES, 2, KN_NF]``: the tables'
#: ``par`` and ``kn`` a preset candidate's play-outs go on with (its family and knobs for the
#: exploiter); ``tbc``: a :class:`Tables` whose ``par`` and ``kn`` are loaded from them; ``vals``
#: ``float64[MAX_CANDIDATES]`` each candidate's summed outcome at the last decision; ``gseed``
#: ``uint64[1]`` the game's seed; ``prng`` ``uint64[STATE_WORDS]`` a candidate plan's stream;
#: ``krng`` ``uint64[STATE_WORDS]`` the sampling stream; ``idx`` ``int64[U]``, ``rows``
#: ``int64[U, UF_NF + 1]``, ``lid`` ``int64[max(L, 1)]``: resampling scratch; ``world``,
#: ``work``: one-game :class:`GameState` (the sampled world, a candidate's play-out)
Rollout = namedtuple("Rollout", ["params", "cfam", "ckn", "cpar", "ckn2", "tbc", "vals", "gseed", "prng", "krng",
                                 "idx", "rows", "lid", "world", "work"])


def one_game_state(nu: int, nl: int, n_nodes: int) -> GameState:
    """A zeroed one-game :class:`GameState` (no trace) for a scenario of ``nu`` units, ``nl``
    leaders and ``n_nodes`` nodes."""
    from .campaign_bundles import new_batch_state
    return GameState(*(np.ascontiguousarray(a[0]) for a in new_batch_state(1, nu, nl, n_nodes, 0, False)))


def new_rollout(tb, data, side: int, rollouts: int, presets, n_random: int = DEFAULT_RANDOM_PLANS,
                salt: int = DEFAULT_SALT, vp_weight: int = DEFAULT_VP_WEIGHT) -> Rollout:
    """A :data:`Rollout` bundle.

    Args:
        tb: the batch's :class:`Tables` (the base's and the opponent's families and knobs).
        data: the compiled scenario (:class:`rules.CampaignData`).
        side: the exploiting side (0 US, 1 Spain).
        rollouts: play-outs per candidate and decision (``R >= 0``; 0 plays the base).
        presets: ``[(family id, knob row int64[KN_NF]), ...]``, the base first (its family and
            knobs as packed for the batch), then the other presets and knob vectors whose plans
            (and play-outs) are candidates (:func:`preset_candidates`).
        n_random: random-legal candidate plans per decision (>= 0).
        salt: the rollout keys' salt.
        vp_weight: thousandths of a win a VP of the final margin adds to a play-out's value
            (0..1000 // VP_CLIP - 1; 0: the result alone).

    Raises:
        ValueError: a bad side, count or weight, no base, or more than :data:`MAX_CANDIDATES` candidates.
    """
    if side not in (0, 1):
        raise ValueError(f"dawn-of-empire rollout: side must be 0 or 1, not {side}")
    if rollouts < 0 or n_random < 0:
        raise ValueError(f"dawn-of-empire rollout: rollouts and random plans must be >= 0 ({rollouts}, {n_random})")
    if not presets or len(presets) + n_random > MAX_CANDIDATES:
        raise ValueError(f"dawn-of-empire rollout: 1 to {MAX_CANDIDATES} candidates, base first "
                         f"(got {len(presets)} presets and {n_random} random plans)")
    params = np.zeros(RP_NF, np.int64)
    params[RP_SIDE] = side
    params[RP_ROLLOUTS] = rollouts
    params[RP_SALT] = np.int64(int(salt) & ((1 << 63) - 1))
    params[RP_NPRESET] = len(presets)
    params[RP_NRANDOM] = n_random
    if not 0 <= vp_weight * VP_CLIP < 1000:
        raise ValueError(f"dawn-of-empire rollout: vp_weight must be in 0..{1000 // VP_CLIP - 1}, not {vp_weight}")
    params[RP_VPW] = vp_weight
    cfam = np.zeros(MAX_CANDIDATES, np.int64)
    ckn = np.zeros((MAX_CANDIDATES, pk.KN_NF), np.int64)
    cpar = np.zeros((MAX_CANDIDATES, tb.par.shape[0]), np.int64)
    ckn2 = np.zeros((MAX_CANDIDATES, 2, pk.KN_NF), np.int64)
    for j, (f, k) in enumerate(presets):
        cfam[j] = int(f)
        ckn[j] = np.asarray(k, dtype=np.int64)
        cpar[j] = tb.par
        cpar[j, lay.P_POL0 + side] = int(f)
        ckn2[j] = tb.kn
        ckn2[j, side] = ckn[j]
    tbc = tb._replace(par=tb.par.copy(), kn=tb.kn.copy())
    nu, nl, nn = data.ust.shape[0], data.lst.shape[0], data.nodes.shape[0]
    return Rollout(params, cfam, ckn, cpar, ckn2, tbc, np.zeros(MAX_CANDIDATES, np.float64), np.zeros(1, np.uint64),
                   np.zeros(STATE_WORDS, np.uint64), np.zeros(STATE_WORDS, np.uint64), np.zeros(max(nu, 1), np.int64),
                   np.zeros((max(nu, 1), lay.UF_NF + 1), np.int64), np.zeros(max(nl, 1), np.int64),
                   one_game_state(nu, nl, nn), one_game_state(nu, nl, nn))


# ---------------------------------------------------------------------- copies
@kernel(inline="always")
def _copy1_nb(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i]


@kernel(inline="always")
def _copy2_nb(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]


@kernel
def copy_state_nb(A, B):
    """Copy the one-game state ``A`` into ``B`` (same shapes; the trace is not copied: rollouts
    never trace)."""
    _copy2_nb(A.U, B.U)
    _copy2_nb(A.S, B.S)
    _copy2_nb(A.SM, B.SM)
    _copy2_nb(A.LD, B.LD)
    _copy2_nb(A.ND, B.ND)
    _copy1_nb(A.G, B.G)
    _copy2_nb(A.ledger, B.ledger)
    _copy2_nb(A.bev, B.bev)
    _copy1_nb(A.rng, B.rng)
    _copy1_nb(A.clock, B.clock)


# ---------------------------------------------------------------------- the turn, split at the orders
@kernel
def begin_turn_nb(tb, st, turn):
    """The start of ``turn`` as ``campaign_loop.play_on_nb`` plays it: the clock's turn, New Forces
    (4.1.1) and the turn's counters cleared; the state is then at the start of the Orders Phase."""
    st.G[lay.G_TURN] = turn
    new_forces_nb(turn, tb.ust, tb.par, st.U, st.ND)
    start_turn_nb(st.G, st.U)


@kernel
def _cand_seed_nb(R, turn, j):
    """The stream seed of candidate ``j``'s plan on ``turn`` (game seed, salt, turn, ``j``)."""
    h = mix64_nb(R.gseed[0] ^ np.uint64(R.params[RP_SALT]) ^ np.uint64(0x5A17C0DE))
    h = mix64_nb(h + np.uint64(turn) * np.uint64(1000003))
    return mix64_nb(h + np.uint64(j) * np.uint64(0x9E3779B97F4A7C15))


@kernel
def side_plan_nb(tb, st, sc, R, side, turn, j):
    """Write ``side``'s plan for ``turn`` into the plan rows of ``sc`` (``pu``, ``pp``, ``pst``,
    ``pl``) from the side's view (``policy_view.observe_own_nb``), by the plan kernels: ``j = 0``
    the side's own policy (``tb``'s family and knobs) on the game's stream ``st.rng``, as the
    Orders Phase does; ``0 < j < R.params[RP_NPRESET]`` preset candidate ``j``; a larger ``j`` a
    random-legal plan; both on a stream of their own (:func:`_cand_seed_nb`), so a candidate is the
    same plan in every world with the same view. Returns the number of stacks."""
    uv, lv = sc.UV[side], sc.LV[side]
    observe_own_nb(side, st.U, st.LD, tb.ust, tb.lst, tb.par, uv, lv, sc.vis)
    fam = tb.par[lay.P_POL0 + side]
    kn = tb.kn[side]
    rng = st.rng
    if j > 0:
        new_state_nb(_cand_seed_nb(R, turn, j), R.prng)
        rng = R.prng
        if j < R.params[RP_NPRESET]:
            fam = R.cfam[j]
            kn = R.ckn[j]
        else:
            fam = pk.FAM_RANDOM
    return policy_plan_nb(fam, side, turn, kn, tb.ust, tb.lst, tb.nodes, tb.adj, tb.cost, tb.nh, tb.matrix,
                          tb.markers, tb.par, uv, lv, sc.vis, st.ND, sc.B, sc.pu, sc.pp, sc.pst, sc.pl, rng, sc.pw,
                          sc.gmem)


@kernel
def orders_nb(tb, st, sc, R, turn, j):
    """The Orders Phase (4.1.2, 5.0) as ``campaign_loop.orders_phase_nb`` plays it (Spain, then the
    US; each plan checked and installed by ``install_plan_nb``) but with candidate ``j`` as the plan
    of side ``R.params[RP_SIDE]`` (:func:`side_plan_nb`; ``j = 0``: its own policy). Returns 0, or
    1 after recording an illegal plan in ``st.G`` (``G_ERR``...)."""
    ex = R.params[RP_SIDE]
    G = st.G
    for side in (lay.SPAIN, lay.US):
        nstk = side_plan_nb(tb, st, sc, R, side, turn, j if side == ex else 0)
        enemy_counts_nb(side, st.U, tb.ust, sc.enemy_n)
        err, slot = install_plan_nb(side, sc.pu, sc.pp, sc.pst, sc.pl, nstk, tb.ust, tb.lst, tb.nodes, tb.adj,
                                    tb.cost, tb.markers, tb.par, st.U, st.S, st.SM, st.LD, G, sc.enemy_n, sc.B,
                                    sc.od, sc.ot)
        if err != lay.ERR_NONE:
            G[lay.G_ERR] = err
            G[lay.G_ERR_SIDE] = side
            G[lay.G_ERR_STACK] = slot
            return 1
    return 0


@kernel
def end_turn_nb(tb, st, sc, turn):
    """The rest of ``turn`` after the Orders Phase, as ``campaign_loop.play_on_nb`` plays it:
    Movement (Spain, then the US), neutral ports, Combat, Area Control and VPs, Repairs (14.3
    maintenance), the clock moved on; 14.7 and the last turn end the game. Returns True when the
    game is over (``st.clock[CK_DONE]`` 1). Tracing is not supported (``par[P_TRACE]`` 0)."""
    ust, nodes, par = tb.ust, tb.nodes, tb.par
    U, S, SM, LD, ND, G, rng = st.U, st.S, st.SM, st.LD, st.ND, st.G, st.rng
    movement_side_nb(lay.SPAIN, ust, tb.lst, nodes, tb.adj, tb.cost, tb.nh, tb.markers, par, U, S, SM, LD, ND, G, rng)
    movement_side_nb(lay.US, ust, tb.lst, nodes, tb.adj, tb.cost, tb.nh, tb.markers, par, U, S, SM, LD, ND, G, rng)
    neutral_ports_nb(ust, tb.lst, nodes, par, U, S, SM, LD, G)
    combat_phase_nb(ust, tb.lst, nodes, tb.cost, tb.matrix, par, U, S, SM, LD, ND, G, st.ledger, st.bev, rng,
                    sc.work, sc.att, sc.dfn, sc.mov, sc.dmg, sc.status, sc.mem, sc.cw)
    control_vp_phase_nb(nodes, par, S, ND, G, st.ledger)
    close_orders_nb(ust, U)
    repair_phase_nb(ust, nodes, par, U, ND, sc.cw, rng)
    if par[lay.P_MAINT] != 0:
        maintenance_phase_nb(turn, ust, nodes, par, U, rng)
    G[lay.G_TURNS] = turn
    st.clock[lay.CK_NEXT] = turn + 1
    v = G[lay.G_VP_NET]
    if par[lay.P_AUTO] != 0 and (v >= par[lay.P_AUTOVP] or -v >= par[lay.P_AUTOVP]):
        G[lay.G_END] = lay.END_AUTOMATIC
        st.clock[lay.CK_DONE] = 1
        return True
    if turn >= par[lay.P_TURNS]:
        st.clock[lay.CK_DONE] = 1
        return True
    return False


# ---------------------------------------------------------------------- what the side may not see
@kernel(inline="always")
def _row_less_nb(rows, a, b):
    """Whether resampling row ``a`` sorts before row ``b`` (lexicographic over every field)."""
    for f in range(rows.shape[1]):
        if rows[a, f] != rows[b, f]:
            return rows[a, f] < rows[b, f]
    return False


@kernel
def resample_hidden_nb(tb, D, side, R, rng):
    """Replace the part of the one-game state ``D`` (at the start of an Orders Phase) that ``side``
    cannot see by a sample consistent with its view (the module docstring): the enemy's stale
    stacks cleared (rows zeroed); unless 14.6 is on, the rows of the enemy units in play sorted and dealt to
    those units in a random order (locations kept as a multiset, so every node keeps its count;
    damage capped at the unit's defense), and the enemy leaders in play dealt to the rows'
    leader counts in a random order. The sample depends on the view and on ``rng``
    (``uint64[STATE_WORDS]``, the sampling stream) only. ``D.rng`` is the caller's."""
    ust, lst = tb.ust, tb.lst
    U, LD = D.U, D.LD
    enemy = 1 - side
    clear_side_stacks_nb(enemy, D.S, U, ust)   # install_plan_nb rewrites them before they are read
    for s in range(enemy * MAXSS, (enemy + 1) * MAXSS):
        for f in range(D.S.shape[1]):
            D.S[s, f] = -1 if f == lay.SF_SIDE else 0
        for f in range(D.SM.shape[1]):
            D.SM[s, f] = 0
    if tb.par[lay.P_FACEUP] != 0:
        return
    idx, rows, lid = R.idx, R.rows, R.lid
    nf = lay.UF_NF
    m = 0
    for u in range(ust.shape[0]):
        if ust[u, lay.US_SIDE] == enemy and U[u, lay.UF_LOC] >= 0:
            idx[m] = u
            for f in range(nf):
                rows[m, f] = U[u, f]
            rows[m, nf] = 0
            m += 1
    nl = 0
    for i in range(lst.shape[0]):
        if lst[i, lay.LS_SIDE] != enemy or LD[i, lay.LF_STATE] != lay.LEADER_IN_PLAY:
            continue
        v = LD[i, lay.LF_UNIT]
        if v < 0 or U[v, lay.UF_LOC] < 0:
            continue
        for k in range(m):
            if idx[k] == v:
                rows[k, nf] += 1
                lid[nl] = i
                nl += 1
                break
    for i in range(1, m):   # insertion sort of the rows (the arrangement of the hidden part is lost)
        j = i
        while j > 0 and _row_less_nb(rows, j, j - 1):
            for f in range(nf + 1):
                t = rows[j, f]
                rows[j, f] = rows[j - 1, f]
                rows[j - 1, f] = t
            j -= 1
    for i in range(m - 1, 0, -1):   # which unit gets which row (idx is in unit order: the afloat set)
        j = roll_nb(rng, i + 1) - 1
        t = idx[i]
        idx[i] = idx[j]
        idx[j] = t
    for i in range(nl - 1, 0, -1):  # which leader goes aboard (lid is in leader order)
        j = roll_nb(rng, i + 1) - 1
        t = lid[i]
        lid[i] = lid[j]
        lid[j] = t
    q = 0
    for k in range(m):
        u = idx[k]
        for f in range(nf):
            U[u, f] = rows[k, f]
        U[u, lay.UF_STACK] = -1
        if U[u, lay.UF_DMG] > ust[u, lay.US_DEF]:
            U[u, lay.UF_DMG] = ust[u, lay.US_DEF]
        for _ in range(rows[k, nf]):
            LD[lid[q], lay.LF_UNIT] = u
            q += 1


# ---------------------------------------------------------------------- rollouts
@kernel
def _key_nb(R, turn, r):
    h = mix64_nb(R.gseed[0] ^ np.uint64(R.params[RP_SALT]))
    h = mix64_nb(h + np.uint64(turn) * np.uint64(1000003))
    return mix64_nb(h + np.uint64(r))


@kernel
def world_nb(tb, st, R, turn, r):
    """``R.world``: a copy of ``st`` (at the start of the Orders Phase of ``turn``) with its hidden
    part resampled (:func:`resample_hidden_nb`) and its stream reseeded, both from rollout ``r``'s
    key."""
    D = R.world
    key = _key_nb(R, turn, r)
    copy_state_nb(st, D)
    new_state_nb(key, R.krng)
    resample_hidden_nb(tb, D, R.params[RP_SIDE], R, R.krng)
    new_state_nb(mix64_nb(key + np.uint64(0x9E3779B97F4A7C15)), D.rng)


@kernel
def _playout_nb(tb, rsc, R, turn, j):
    """Play candidate ``j`` from ``R.world`` to the end of the game on ``R.work``; its value from the
    exploiter's side: the result (+1 win, -1 loss, 0 draw, 12.2) plus ``R.params[RP_VPW]``
    thousandths per VP of the final margin clipped to ``+-VP_CLIP`` (-2 if the plan was illegal)."""
    W = R.work
    copy_state_nb(R.world, W)
    if orders_nb(tb, W, rsc, R, turn, j) != 0:
        return -2.0
    if not end_turn_nb(tb, W, rsc, turn):
        if 0 < j < R.params[RP_NPRESET]:   # a preset or knob-vector candidate goes on with its own knobs
            _copy1_nb(R.cpar[j], R.tbc.par)
            _copy2_nb(R.ckn2[j], R.tbc.kn)
            play_on_nb(R.tbc, W, rsc, tb.par[lay.P_TURNS])
        else:
            play_on_nb(tb, W, rsc, tb.par[lay.P_TURNS])
    v = W.G[lay.G_VP_NET]
    win = tb.par[lay.P_VICTORY]
    side = R.params[RP_SIDE]
    res = 0.0
    if v >= win:
        res = 1.0 if side == lay.US else -1.0
    elif v <= -win:
        res = 1.0 if side == lay.SPAIN else -1.0
    m = v if side == lay.US else -v
    m = min(max(m, -VP_CLIP), VP_CLIP)
    return res + R.params[RP_VPW] * m / 1000.0


@kernel
def rollout_choice_nb(tb, st, rsc, R, turn):
    """The exploiter's plan for ``turn``: the index of the candidate to install (0: the base's own
    plan). ``st`` (left unchanged) is at the start of the Orders Phase (:func:`begin_turn_nb`);
    ``R.vals[:n]`` gets each candidate's summed value (:func:`_playout_nb`) over the ``R`` rollouts (all 0 with no
    rollouts or a single candidate, when the base is played). ``rsc``: the rollouts' scratch."""
    nr = R.params[RP_ROLLOUTS]
    n = R.params[RP_NPRESET] + R.params[RP_NRANDOM]
    for j in range(n):
        R.vals[j] = 0.0
    if nr <= 0 or n <= 1:
        return 0
    for r in range(nr):
        world_nb(tb, st, R, turn, r)
        for j in range(n):
            R.vals[j] += _playout_nb(tb, rsc, R, turn, j)
    best = 0
    for j in range(n):
        if R.vals[j] > R.vals[best]:
            best = j
    if best == 0:
        return 0
    # the winner's curse: the best of n noisy sums replaces the base only if it also beats it on
    # 2R fresh rollouts (keys R .. 3R - 1), compared on those alone
    vb = 0.0
    vc = 0.0
    for r in range(nr, 3 * nr):
        world_nb(tb, st, R, turn, r)
        vb += _playout_nb(tb, rsc, R, turn, 0)
        vc += _playout_nb(tb, rsc, R, turn, best)
    return best if vc > vb else 0


@kernel
def play_rollout_on_nb(tb, st, sc, rsc, R):
    """Play a set-up game (``campaign_loop.setup_game_nb``) on from its clock to its end with side
    ``R.params[RP_SIDE]``'s plans chosen by :func:`rollout_choice_nb` (everything else by the
    batch's policies, as ``campaign_loop.play_on_nb``). ``sc``: the game's scratch, ``rsc``: the
    rollouts'."""
    if st.clock[lay.CK_DONE] != 0:
        return
    turn = st.clock[lay.CK_NEXT]
    while turn <= tb.par[lay.P_TURNS]:
        begin_turn_nb(tb, st, turn)
        j = rollout_choice_nb(tb, st, rsc, R, turn)
        if orders_nb(tb, st, sc, R, turn, j) != 0:
            st.clock[lay.CK_DONE] = 1
            return
        if end_turn_nb(tb, st, sc, turn):
            return
        turn += 1
    st.clock[lay.CK_DONE] = 1


@kernel(nogil=True, nrt=True)
def play_rollout_games_nb(seeds, tb, R, st, out_g, out_bev, out_ledger):
    """Play one campaign per seed (``uint64[g]``) with the rollout exploiter on side
    ``R.params[RP_SIDE]`` in the one-game state ``st``, writing ``out_g`` (``int64[g, G_NF]``) and
    ``out_bev`` (battle rows) as ``campaign_loop.play_campaigns_nb`` does (``out_ledger``: an
    empty ``int64[0, 1, LG_NF]``, no tracing). Returns the battle row count. Row ``i`` depends only
    on ``seeds[i]``, the tables and the rollout settings."""
    sc = new_scratch_nb(tb)
    rsc = new_scratch_nb(tb)
    nrow = 0
    for g in range(seeds.shape[0]):
        R.gseed[0] = seeds[g]
        new_state_nb(seeds[g], st.rng)
        setup_game_nb(tb, st, sc)
        play_rollout_on_nb(tb, st, sc, rsc, R)
        nrow = record_game_nb(g, seeds[g], st, out_g, out_bev, nrow, out_ledger)
    return nrow


# ---------------------------------------------------------------------- Python entry point
def preset_candidates(side_name: str, base, n_knobs: int = DEFAULT_KNOB_PLANS, salt: int = DEFAULT_SALT,
                      book=None) -> list[tuple[int, np.ndarray]]:
    """The preset candidates of a rollout exploiter of ``side_name`` over ``base`` (a resolved
    :class:`~simlab.games.policy.Policy`): the base's family id and knob row first, then each
    other preset of the side in ``book`` (default: the game's ``policies.toml``) whose family is
    scripted (random-legal plans are candidates of their own), then ``n_knobs`` knob vectors of the
    side's scripted family (the base's, or the first scripted preset's) with each knob uniform in
    its ``[lo, hi]`` (an ``int`` knob over its integers), drawn from ``salt`` and the side alone;
    without repeats.

    Returns:
        ``[(family id, int64[KN_NF]), ...]`` packed as ``runtime.pack_policies`` packs them.
    """
    from ..policy import Policy
    from .runtime import SIDES, pack_policies, policy_book
    book = book or policy_book()
    s = SIDES.index(side_name)
    other = SIDES[1 - s]
    anyp = book.side_presets(other)[0]

    def packed(p):
        fam, kn = pack_policies({side_name: p, other: anyp})
        return int(fam[s]), kn[s].copy()

    out = [packed(base)]
    fams = []

    def add(pol):
        c = packed(pol)
        if not any(c[0] == f and np.array_equal(c[1], k) for f, k in out):
            out.append(c)

    for name in book.side_presets(side_name):
        pol = book.resolve(side_name, name)
        if pk.FAMILY_IDS[pol.family] != pk.FAM_RANDOM:
            add(pol)
            fams.append(pol.family)
    fam = base.family if pk.FAMILY_IDS.get(base.family, pk.FAM_RANDOM) != pk.FAM_RANDOM else (fams or [None])[0]
    if fam is not None and n_knobs > 0:
        rng = np.random.default_rng([int(salt) & ((1 << 63) - 1), s, 0x4B4E4F42])   # "KNOB"
        knobs = book.families[fam].knobs
        for i in range(n_knobs):
            vec = tuple((k.name, int(rng.integers(int(k.lo), int(k.hi) + 1)) if k.kind is int
                         else float(rng.uniform(k.lo, k.hi))) for k in knobs)
            add(Policy(f"rollout-knobs-{i}", fam, vec))
    return out


def run_rollout_games(data, options, policies, seeds: np.ndarray, side: int, rollouts: int,
                      n_random: int = DEFAULT_RANDOM_PLANS, n_knobs: int = DEFAULT_KNOB_PLANS,
                      salt: int = DEFAULT_SALT, presets=None,
                      vp_weight: int = DEFAULT_VP_WEIGHT) -> dict[str, np.ndarray]:
    """Play one campaign per seed with the rollout exploiter on ``side`` (0 US, 1 Spain).

    Args:
        data: the compiled scenario; options: resolved options (``runtime.build_par``).
        policies: ``{"us": policy, "spain": policy}`` (preset names or resolved policies): the
            exploiter's entry is its base policy, the other side's its actual policy.
        seeds: ``uint64[g]`` stream seeds; rollouts: play-outs per candidate and decision (>= 0;
            0 plays the base policy); n_random: random-legal candidate plans per decision;
            n_knobs: random knob vectors among the candidates; salt: the rollout keys' and the
            knob vectors' salt; presets: the preset candidates (default
            :func:`preset_candidates` with ``n_knobs`` and ``salt``); vp_weight: as
            :func:`new_rollout`.

    Returns:
        ``{"G": int64[g, G_NF], "battles": int64[b, 1 + BE_NF]}`` as :func:`runtime.run_games`.

    Raises:
        ValueError: a bad side or count; PolicyError: a policy handed in an illegal plan.
    """
    from .runtime import SIDES, _raw, _tables, resolve_policy
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    g = seeds.shape[0]
    if side not in (0, 1):
        raise ValueError(f"dawn-of-empire rollout: side must be 0 or 1, not {side}")
    tb = _tables(data, options, policies, False)
    if presets is None:
        presets = preset_candidates(SIDES[side], resolve_policy(SIDES[side], policies[SIDES[side]]), n_knobs, salt)
    R = new_rollout(tb, data, side, rollouts, presets, n_random, salt, vp_weight)
    st = one_game_state(data.ust.shape[0], data.lst.shape[0], data.nodes.shape[0])
    out_g = np.zeros((g, lay.G_NF), dtype=np.int64)
    led = np.zeros((0, 1, lay.LG_NF), dtype=np.int64)
    cap = max(64, 8 * g)
    while True:
        bev = np.zeros((cap, 1 + lay.BE_NF), dtype=np.int64)
        n = play_rollout_games_nb(seeds, tb, R, st, out_g, bev, led)
        if n <= cap:
            break
        cap = n
    return _raw(data, policies, out_g, bev[:n], None, None)
