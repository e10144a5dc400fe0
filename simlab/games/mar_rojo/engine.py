"""The whole game of Mar Rojo in one compiled kernel (Rules 4-12).

``play_games_nb`` plays one game per seed: squadron building (9) or the scenario's squadrons
(8.x), deployment (4, 12.2), the deal, then sub-turns until the drawing has stopped and both
hands are empty (6), and writes one ``out`` row per game (layout ``O_*``). Every decision is a
policy's (policy_*.py, solo.py); every die comes from the game's own stream, seeded by its seed,
so a game's row depends on nothing else.

With ``debug = 1`` the kernel checks its invariants after every sub-turn and every move (every
action card in exactly one place, hands within the limit, legal layouts, damage below hull,
activation limits) and writes the first violation to ``O_VIOLATION``.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS, new_state_nb, roll_nb, stream_draws_nb
from .actions import (
    apply_specials_nb,
    declare_pending_nb,
    discover_nb,
    general_quarters_nb,
    perform_action_nb,
    reorganise_nb,
    resolve_pending_nb,
)
from .build import build_squadron_nb, solo_deploy_nb
from .bundles import Board, GameState
from .combat import uncover_nb
from .deck import (
    conservation_ok_nb,
    deal_nb,
    discard_table_nb,
    draw_nb,
    new_deck_nb,
    play_from_hand_nb,
    retreat_nb,
)
from .enums import (
    ACT_ATTACK,
    AI_AGGRESSIVE,
    AI_NONE,
    AI_PASSIVE,
    AIRCRAFT,
    AK_BLUE,
    AK_RED,
    END_LIMIT,
    END_THE_END,
    FAM_SOLO,
    K_GENERAL_QUARTERS,
    K_PLANES,
    K_RETREAT,
    K_SCOUT,
    LONG,
    MERCHANT,
    MODE_ACTIONS,
    MODE_EFFECT,
    MODE_REORG,
    NTYPES,
    SHORT,
    ST_ABSENT,
    ST_IN_PLAY,
    ST_RESERVE,
    ST_SUNK,
)
from .fleet import is_escort_nb, layout_spread_nb
from .layout import (
    C_COST,
    C_HULL,
    C_POOL,
    C_TYPE,
    FIRST_BY_ESCORTS,
    G_ACTIVE,
    G_AI0,
    G_AI_CAPFOUND0,
    G_ATTACKS0,
    G_CABO,
    G_CB_OK,
    G_DEBUG,
    G_DRAWN0,
    G_END_REASON,
    G_ENDS_NEEDED,
    G_FINAL,
    G_FINAL_SUBTURN,
    G_FIRST,
    G_HAND0_N,
    G_HITS0,
    G_ILLEGAL,
    G_INTERRUPT_USED,
    G_LENGTH,
    G_LIMIT,
    G_LUCK0,
    G_MPTS0,
    G_NEXT,
    G_NIGHT,
    G_NIGHT_SUBTURNS,
    G_OVER,
    G_PENDING,
    G_POL0,
    G_REMOVED,
    G_RESTRICT,
    G_RULES,
    G_SPECIAL,
    G_SUBTURN,
    G_SUPPORT_USED,
    G_VICTORY,
    G_VIOLATION,
    HAND_CAP,
    MAXC,
    NC,
    NFW,
    NG,
    NOUT,
    NPILES,
    NS,
    NSLOT,
    NWK,
    O_AI0,
    O_ATTACKS0,
    O_BUILD_FAIL,
    O_CARDS0,
    O_DRAWN0,
    O_DRAWS,
    O_END_REASON,
    O_FINAL_SUBTURN,
    O_FIRST,
    O_HITS0,
    O_LUCK_DEALT0,
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
    PILE_CAP,
    Q_BUILD,
    Q_FIRST,
    Q_FIRST_OVERRIDE,
    Q_LENGTH,
    Q_MPTS0,
    Q_REVEAL,
    Q_RULES,
    Q_SPECIAL,
    Q_VICTORY,
    R_AI_AGGR_MAX,
    R_AIR_ACTS,
    R_HAND_LIMIT,
    R_OPENING_HAND,
    R_REORG_PER_CARD,
    R_SUBTURN_LIMIT,
    S_ACTS,
    S_BONUS,
    S_DMG,
    S_MASK,
    S_REORG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
    V_ACTS,
    V_COVERED_FIRE,
    V_DAMAGE,
    V_DECK,
    V_HAND,
    V_ILLEGAL,
    V_LAYOUT,
    V_REORG,
    V_ROW,
    V_STRESS,
    WK_SEEN,
)
from .legality import action_legal_nb, class_member_nb, effect_restrict_nb, is_mass_activation_nb
from .policy_activation import choose_activation_nb
from .policy_cards import choose_play_nb, choose_scout_rows_nb
from .policy_setup import choose_reveal_nb, deploy_nb
from .solo import ai_subturn_nb
from .victory import merchants_short_nb, score_nb, ships_sunk_nb, winner_nb

__all__ = ["NO_STOP", "check_invariants_nb", "init_game_nb", "init_games_nb", "new_game_arrays", "play_game_nb",
           "play_games_nb", "play_on_games_nb", "play_on_nb"]

#: the ``stop`` of :func:`play_on_nb` that plays a game to its end
NO_STOP = np.int64(1 << 62)



def new_game_arrays(n_pool: int) -> tuple:
    """Scratch arrays of one game: ``(cs, st, g, piles, hands, wk, fw, rng, taken, tmp)``."""
    return (np.zeros((NSLOT, NC), np.int64), np.zeros((NSLOT, NS), np.int64), np.zeros(NG, np.int64),
            np.zeros((NPILES, PILE_CAP), np.int64), np.zeros((2, HAND_CAP), np.int64), np.zeros(NWK, np.int64),
            np.zeros(NFW, np.float64), np.zeros(STATE_WORDS, np.uint64), np.zeros(max(n_pool, 1), np.int8),
            np.zeros(max(n_pool, 1) + 8, np.int64))


@kernel
def check_invariants_nb(rt, cs, st, g, piles, hands, wk):
    """The first invariant that fails now (layout ``V_*`` code), 0 if none."""
    if not conservation_ok_nb(piles, hands, g, wk[WK_SEEN:]):
        return V_DECK
    for s in range(2):
        if g[G_HAND0_N + s] > rt[R_HAND_LIMIT] or g[G_HAND0_N + s] < 0:
            return V_HAND
        if g[G_POL0 + s] == FAM_SOLO and g[G_HAND0_N + s] != 0:
            return V_HAND
    for i in range(NSLOT):
        if st[i, S_STATUS] != ST_IN_PLAY:
            continue
        if st[i, S_ROW] < 0 or st[i, S_ROW] > 2:
            return V_ROW
        if st[i, S_DMG] >= cs[i, C_HULL] or st[i, S_DMG] < 0:
            return V_DAMAGE
        if st[i, S_STRESS] < 0 or (g[G_POL0 + i // MAXC] == FAM_SOLO and st[i, S_STRESS] != 0):
            return V_STRESS
        lim = (rt[R_AIR_ACTS] if cs[i, C_TYPE] == AIRCRAFT else 1) + st[i, S_BONUS]
        if st[i, S_ACTS] > lim:
            return V_ACTS
        if st[i, S_REORG] > rt[R_REORG_PER_CARD]:
            return V_REORG
    return 0


@kernel
def _debug_check_nb(rt, cs, st, g, piles, hands, wk):
    if g[G_DEBUG] == 1 and g[G_VIOLATION] == 0:
        g[G_VIOLATION] = check_invariants_nb(rt, cs, st, g, piles, hands, wk)


@kernel
def deployment_legal_nb(cs, st, side):
    """Rule 4: rows differ by at most one card, merchants only in the long row, and non-escort,
    non-aircraft cards in the short row only when every escort and aircraft is already there."""
    if layout_spread_nb(st, side) > 1:
        return False
    base = side * MAXC
    esc_air_out = np.int64(0)
    other_short = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY:
            continue
        t = cs[s, C_TYPE]
        r = st[s, S_ROW]
        if t == MERCHANT and r != LONG:
            return False
        if is_escort_nb(t) or t == AIRCRAFT:
            if r != SHORT:
                esc_air_out += 1
        elif r == SHORT:
            other_short += 1
    return not (other_short > 0 and esc_air_out > 0)


@kernel
def run_activations_nb(T, K, S, side, budget, effect_mode):
    """Activations of one action card (Rule 5.1): up to ``budget`` actions, or under an effect
    the actions the effect gave each card; the policy chooses each one or stops. ``T``, ``K``,
    ``S``: the bundles (:mod:`.bundles`); ``side``, ``budget``: int; ``effect_mode``: bool."""
    rt, akind, ak, pp = T.rt, T.akind, T.ak, K.pp
    cs, st, g, piles, hands, rng, scr, wk, fw = S.cs, S.st, S.g, S.piles, S.hands, S.rng, S.scr, S.wk, S.fw
    done = np.int64(0)
    for _ in range(4 * MAXC + 8):
        if done >= budget:
            break
        slot, act, p1, p2 = choose_activation_nb(rt, cs, st, g, pp, side, effect_mode, rng, wk, fw)
        if slot < 0:
            break
        if not action_legal_nb(rt, cs, st, g, slot, act, p1, p2, effect_mode):
            if g[G_VIOLATION] == 0:
                g[G_VIOLATION] = V_ILLEGAL
                g[G_ILLEGAL] = slot
                g[G_ILLEGAL + 1] = act
                g[G_ILLEGAL + 2] = p1
                g[G_ILLEGAL + 3] = p2
                g[G_ILLEGAL + 4] = effect_mode
            break
        if g[G_DEBUG] == 1 and act == ACT_ATTACK and st[slot, S_UP] == 0 and g[G_VIOLATION] == 0:
            g[G_VIOLATION] = V_COVERED_FIRE
        perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), slot, act, p1, p2, effect_mode, rng, scr)
        done += 1
        _debug_check_nb(rt, cs, st, g, piles, hands, wk)


@kernel
def resolve_card_nb(T, K, S, side, kind, mode):
    """Resolve the action card in play (Rule 5 step 2) in the declared mode (``kind``: enums.K_*,
    ``mode``: enums.MODE_*). ``T``, ``K``, ``S``: the bundles (:mod:`.bundles`)."""
    rt, ak = T.rt, T.ak
    cs, st, g, piles, hands, rng = S.cs, S.st, S.g, S.piles, S.hands, S.rng
    if mode == MODE_REORG:
        reorganise_nb(rt, cs, st, g, K.pp, side, ak[kind, AK_BLUE], rng)
        return
    if mode != MODE_EFFECT:
        run_activations_nb(T, K, S, side, ak[kind, AK_RED], np.bool_(False))
        return
    if is_mass_activation_nb(kind):
        base = side * MAXC
        for s in range(base, base + MAXC):
            st[s, S_MASK] = 0
            if st[s, S_STATUS] == ST_IN_PLAY and class_member_nb(cs, s, kind):
                st[s, S_MASK] = rt[R_AIR_ACTS] if kind == K_PLANES else 1
        g[G_RESTRICT] = effect_restrict_nb(kind)
        run_activations_nb(T, K, S, side, np.int64(1 << 20), np.bool_(True))
        g[G_RESTRICT] = -1
        for s in range(base, base + MAXC):
            st[s, S_MASK] = 0
    elif kind == K_GENERAL_QUARTERS:
        general_quarters_nb(rt, cs, st, g, side)
    elif kind == K_SCOUT:
        r1, r2 = choose_scout_rows_nb(st, g, K.pp, side, rng)
        discover_nb(cs, st, g, side, r1, r2, rng)
    elif kind == K_RETREAT:
        if g[G_FINAL] == 0:
            retreat_nb(piles, hands, g, rng)


@kernel
def player_subturn_nb(T, K, S, side):
    """A sub-turn of a player with a hand (Rule 5 steps 1-5); ``T``, ``K``, ``S``: the bundles
    (:mod:`.bundles`), ``side``: int."""
    rt, akind, ak, pp = T.rt, T.akind, T.ak, K.pp
    cs, st, g, piles, hands, rng, scr, wk, fw = S.cs, S.st, S.g, S.piles, S.hands, S.rng, S.scr, S.wk, S.fw
    hn = g[G_HAND0_N + side]
    can_draw = g[G_FINAL] == 0 and hn < rt[R_HAND_LIMIT]
    if hn == 0:
        if can_draw:
            draw_nb(piles, hands, g, akind, side, np.bool_(True), rng)
            apply_specials_nb(rt, cs, st, g, pp, rng)
        return
    i, mode = choose_play_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), side, can_draw, rng, wk, fw)
    if i < 0:
        draw_nb(piles, hands, g, akind, side, np.bool_(True), rng)
        apply_specials_nb(rt, cs, st, g, pp, rng)
        return
    kind = akind[play_from_hand_nb(piles, hands, g, side, i)]
    passive = 1 - side
    if mode != MODE_ACTIONS:
        g[G_CB_OK] = 0  # only an actions activation starts from the state choose_play evaluated
    declare_pending_nb(cs, st, g, piles, hands, akind, ak, pp, passive, mode, rng)
    resolve_card_nb(T, K, S, side, kind, mode)
    resolve_pending_nb(rt, cs, st, g, pp, passive, rng, scr)
    discard_table_nb(piles, g)


@kernel
def _reset_subturn_nb(st, g):
    for i in range(NSLOT):
        st[i, S_ACTS] = 0
        st[i, S_BONUS] = 0
        st[i, S_REORG] = 0
        st[i, S_MASK] = 0
    g[G_SUPPORT_USED] = 0
    g[G_INTERRUPT_USED] = 0
    g[G_CABO] = 0
    g[G_PENDING] = -1
    g[G_RESTRICT] = -1
    g[G_CB_OK] = 0


@kernel
def init_game_nb(T, K, S):
    """Start one game from its seed ``S.seed[0]`` up to its first sub-turn (Rules 4, 8.x, 9, 12.2):
    squadrons, the solo AI's manoeuvre, deployment, first player, the deck, the deal and the optional
    reveal. ``T``: :class:`~.bundles.Tables`; ``K``: :class:`~.bundles.Knobs`; ``S``: a one-game
    :class:`~.bundles.GameState`, overwritten. Leaves ``S.g[G_NEXT]`` the first player; on a
    squadron that cannot be built ``S.out[O_BUILD_FAIL]`` is 1 and the game is over (``G_OVER``)."""
    pool, squads, reinf, avail, lim, builders = T.pool, T.squads, T.reinf, T.avail, T.lim, T.builders
    akind, included, rt, setup = T.akind, T.included, T.rt, T.setup
    pp, pols, debug = K.pp, K.pols, K.debug
    cs, st, g, piles, hands, wk, rng, out = S.cs, S.st, S.g, S.piles, S.hands, S.wk, S.rng, S.out
    new_state_nb(S.seed[0], rng)
    for i in range(NG):
        g[i] = 0
    for i in range(NSLOT):
        for j in range(NS):
            st[i, j] = 0
        for j in range(NC):
            cs[i, j] = 0
    g[G_DEBUG] = debug
    g[G_POL0] = pols[0]
    g[G_POL0 + 1] = pols[1]
    g[G_VICTORY] = setup[Q_VICTORY]
    g[G_RULES] = setup[Q_RULES]
    g[G_MPTS0] = setup[Q_MPTS0]
    g[G_MPTS0 + 1] = setup[Q_MPTS0 + 1]
    g[G_SPECIAL] = setup[Q_SPECIAL]
    g[G_LENGTH] = setup[Q_LENGTH]
    g[G_ENDS_NEEDED] = setup[Q_LENGTH] + 1
    g[G_LIMIT] = rt[R_SUBTURN_LIMIT]
    g[G_PENDING] = -1
    g[G_RESTRICT] = -1
    for i in range(NOUT):
        out[i] = 0
    # squadrons (8.x, or built by points, 9)
    for side in range(2):
        base = side * MAXC
        if setup[Q_BUILD] == 1:
            k = build_squadron_nb(pool, avail[side], lim[side], builders[side], wk[base:base + MAXC], rng, S.taken,
                                  S.tmp)
            if k < 0:
                out[O_BUILD_FAIL] = 1
                g[G_OVER] = 1
                return
            for j in range(MAXC):
                sq = wk[base + j] if j < k else -1
                _place_nb(pool, cs, st, base + j, sq, np.int64(ST_IN_PLAY))
        else:
            n = np.int64(0)
            for j in range(MAXC):
                if squads[side, j] >= 0:
                    _place_nb(pool, cs, st, base + n, squads[side, j], np.int64(ST_IN_PLAY))
                    n += 1
            if reinf[side] >= 0 and n < MAXC:
                _place_nb(pool, cs, st, base + n, reinf[side], np.int64(ST_RESERVE))
        for j in range(MAXC):
            if st[base + j, S_STATUS] == ST_IN_PLAY:
                out[O_POINTS0 + side] += cs[base + j, C_COST]
                out[O_CARDS0 + side] += 1
    # the solo AI's manoeuvre (12.2) and deployment (4, 12.2)
    for side in range(2):
        g[G_AI0 + side] = AI_NONE
        if pols[side] == FAM_SOLO:
            g[G_AI0 + side] = AI_AGGRESSIVE if roll_nb(rng, np.int64(6)) <= rt[R_AI_AGGR_MAX] else AI_PASSIVE
            solo_deploy_nb(rt, cs, st, side, setup[Q_LENGTH], rng, wk[WK_SEEN:WK_SEEN + MAXC])
        else:
            deploy_nb(cs, st, side, pols[side], pp, rng, wk[WK_SEEN:WK_SEEN + MAXC + 3])
            if debug == 1 and g[G_VIOLATION] == 0 and not deployment_legal_nb(cs, st, side):
                g[G_VIOLATION] = V_LAYOUT
    # first player (8.x, 9, 12.2, option)
    first = setup[Q_FIRST]
    if first == FIRST_BY_ESCORTS:
        e0 = np.int64(0)
        e1 = np.int64(0)
        for s in range(NSLOT):
            if st[s, S_STATUS] == ST_IN_PLAY and is_escort_nb(cs[s, C_TYPE]):
                if s < MAXC:
                    e0 += 1
                else:
                    e1 += 1
        first = 1 if e1 > e0 else 0
    if (pols[0] == FAM_SOLO) != (pols[1] == FAM_SOLO):
        ai = 0 if pols[0] == FAM_SOLO else 1
        first = ai if g[G_AI0 + ai] == AI_AGGRESSIVE else 1 - ai
    if setup[Q_FIRST_OVERRIDE] >= 0:
        first = setup[Q_FIRST_OVERRIDE]
    g[G_FIRST] = first
    # the action deck and the deal (4)
    new_deck_nb(piles, hands, g, akind, included, rng)
    deal_to = wk[WK_SEEN + 64:WK_SEEN + 66]
    deal_to[0] = 0 if pols[0] == FAM_SOLO else 1
    deal_to[1] = 0 if pols[1] == FAM_SOLO else 1
    deal_nb(piles, hands, g, akind, rt[R_OPENING_HAND], deal_to, rng)
    # the optional initial reveal (4)
    if setup[Q_REVEAL] == 1:
        for k in range(2):
            side = first if k == 0 else 1 - first
            own, enemy = choose_reveal_nb(cs, st, g, pp, side, rng)
            if own >= 0:
                uncover_nb(cs, st, g, own, side)
            if enemy >= 0:
                uncover_nb(cs, st, g, enemy, side)
    _debug_check_nb(rt, cs, st, g, piles, hands, wk)
    g[G_NEXT] = first


@kernel
def play_on_nb(T, K, S, stop):
    """Play one started game on (Rules 5, 6) until it ends, or until ``stop`` (int) sub-turns have
    been played, whichever comes first; at the end writes the result row ``S.out`` (``int32[NOUT]``,
    layout ``O_*``) and ``S.sq`` (``int16[NSLOT, 3]``) and sets ``G_OVER``. A stopped game's ``S``
    holds everything the rest of the game depends on: playing on from a copy of it gives the rows of
    the uninterrupted game. A game already over is left as it is. Bundles as :func:`init_game_nb`."""
    akind, ak, rt = T.akind, T.ak, T.rt
    pp, pols = K.pp, K.pols
    cs, st, g, piles, hands, wk, rng, scr = S.cs, S.st, S.g, S.piles, S.hands, S.wk, S.rng, S.scr
    if g[G_OVER] == 1:
        return
    active = g[G_NEXT]
    # sub-turns (5, 6)
    while True:
        if g[G_SUBTURN] >= stop:
            g[G_NEXT] = active
            return
        if g[G_FINAL] == 1 and g[G_HAND0_N] == 0 and g[G_HAND0_N + 1] == 0:
            break
        if g[G_SUBTURN] >= g[G_LIMIT]:
            g[G_END_REASON] = END_LIMIT
            break
        if g[G_FINAL] == 1 and pols[active] != FAM_SOLO and g[G_HAND0_N + active] == 0:
            active = 1 - active
            continue
        g[G_ACTIVE] = active
        g[G_SUBTURN] += 1
        if g[G_NIGHT] == 1:
            g[G_NIGHT_SUBTURNS] += 1
        _reset_subturn_nb(st, g)
        if pols[active] == FAM_SOLO:
            ai_subturn_nb(rt, cs, st, g, piles, hands, akind, ak, pp, active, rng, scr)
        else:
            g[G_AI_CAPFOUND0 + 1 - active] = 0
            player_subturn_nb(T, K, S, active)
        _debug_check_nb(rt, cs, st, g, piles, hands, wk)
        active = 1 - active
    g[G_NEXT] = active
    _results_nb(S)
    g[G_OVER] = 1


@kernel
def _results_nb(S):
    """The result row of an ended game (Rules 7, 8.x)."""
    cs, st, g, out, sq_out = S.cs, S.st, S.g, S.out, S.sq
    out[O_WINNER] = winner_nb(cs, st, g)
    for side in range(2):
        out[O_SCORE0 + side] = score_nb(cs, st, g, side)
        out[O_MSHORT0 + side] = merchants_short_nb(cs, st, side)
        out[O_DRAWN0 + side] = g[G_DRAWN0 + side]
        out[O_HITS0 + side] = g[G_HITS0 + side]
        out[O_ATTACKS0 + side] = g[G_ATTACKS0 + side]
        out[O_AI0 + side] = g[G_AI0 + side]
        out[O_SHIPS_SUNK0 + side] = ships_sunk_nb(cs, st, side)
        for k in range(3):
            out[O_LUCK_DEALT0 + 3 * side + k] = g[G_LUCK0 + 3 * side + k]
        base = side * MAXC
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_SUNK:
                out[O_SUNK0 + NTYPES * side + cs[s, C_TYPE]] += 1
    out[O_SUBTURNS] = g[G_SUBTURN]
    out[O_DRAWS] = stream_draws_nb(S.seed[0], S.rng)
    out[O_TURNS] = (g[G_SUBTURN] + 1) // 2
    out[O_END_REASON] = g[G_END_REASON] if g[G_FINAL] == 1 or g[G_END_REASON] == END_LIMIT else END_THE_END
    out[O_REMOVED] = g[G_REMOVED]
    out[O_FIRST] = g[G_FIRST]
    out[O_NIGHT_SUBTURNS] = g[G_NIGHT_SUBTURNS]
    out[O_VIOLATION] = g[G_VIOLATION]
    out[O_FINAL_SUBTURN] = g[G_FINAL_SUBTURN]
    for s in range(NSLOT):
        sq_out[s, 0] = cs[s, C_POOL] if st[s, S_STATUS] != ST_ABSENT else -1
        sq_out[s, 1] = st[s, S_STATUS]
        sq_out[s, 2] = st[s, S_DMG]


@kernel
def play_game_nb(T, K, S):
    """Play one whole game from its seed ``S.seed[0]``: :func:`init_game_nb`, then
    :func:`play_on_nb` to the end. Writes ``S.out`` and ``S.sq``."""
    init_game_nb(T, K, S)
    play_on_nb(T, K, S, NO_STOP)


@kernel
def _place_nb(pool, cs, st, slot, idx, status):
    if idx < 0:
        st[slot, S_STATUS] = ST_ABSENT
        return
    for j in range(NC):
        cs[slot, j] = pool[idx, j]
    st[slot, S_STATUS] = status
    st[slot, S_ROW] = 0



@kernel(nogil=True, nrt=True)
def play_games_nb(seeds, T, K, out, sq_out):
    """Play one game per seed (``uint64[n]``), writing ``out`` (``int32[n, NOUT]``) and ``sq_out``
    (``int16[n, NSLOT, 3]``). Row ``i`` depends only on ``seeds[i]`` and the bundles: ``T``
    (:class:`~.bundles.Tables`: the scenario's pool, squadrons, reinforcements, the Rule 9 pools
    and limits, the builders, the action deck and kind table, the rule tables, the setup row) and
    ``K`` (:class:`~.bundles.Knobs`: knob rows, policy codes, 1 to check invariants). Each game is
    the same path as a resumed one: its initial state (:func:`init_game_nb`), then played on
    (:func:`play_on_nb`), in one scratch state reused from game to game."""
    n = seeds.shape[0]
    m = max(T.pool.shape[0], 1)
    cs = np.zeros((NSLOT, NC), np.int64)
    st = np.zeros((NSLOT, NS), np.int64)
    g = np.zeros(NG, np.int64)
    piles = np.zeros((NPILES, PILE_CAP), np.int64)
    hands = np.zeros((2, HAND_CAP), np.int64)
    wk = np.zeros(NWK, np.int64)
    fw = np.zeros(NFW, np.float64)
    rng = np.zeros(STATE_WORDS, np.uint64)
    seed = np.zeros(1, np.uint64)
    taken = np.zeros(m, np.int8)
    tmp = np.zeros(m + 8, np.int64)
    scr = np.zeros(2, np.int64)
    for i in range(n):
        seed[0] = seeds[i]
        play_game_nb(T, K, GameState(cs, st, g, piles, hands, wk, fw, rng, seed, taken, tmp, scr, out[i], sq_out[i]))


@kernel
def _game_nb(B, i):
    """Game ``i`` of the batch state ``B`` (every field indexed on its leading axis)."""
    return GameState(B.cs[i], B.st[i], B.g[i], B.piles[i], B.hands[i], B.wk[i], B.fw[i], B.rng[i], B.seed[i],
                     B.taken[i], B.tmp[i], B.scr[i], B.out[i], B.sq[i])


@kernel(nogil=True)
def init_games_nb(seeds, T, K, B):
    """Start one game per seed (``uint64[n]``) in the batch state ``B`` (a :class:`~.bundles.GameState`
    with a leading axis of ``n`` on every field): :func:`init_game_nb` on each."""
    for i in range(seeds.shape[0]):
        B.seed[i, 0] = seeds[i]
        init_game_nb(T, K, _game_nb(B, i))


@kernel(nogil=True)
def play_on_games_nb(T, K, B, stop):
    """:func:`play_on_nb` on every game of the batch state ``B`` (in place) up to sub-turn ``stop``."""
    for i in range(B.g.shape[0]):
        play_on_nb(T, K, _game_nb(B, i), stop)
