"""A rollout exploiter for Mar Rojo, compiled (issue 29): Monte Carlo policy improvement of one
side's card play (Rule 5 steps 1-2) over a base policy, with information-set sampling.

At each sub-turn of the exploiting side that holds a hand (Rule 5 step 1: draw, or play a card
from hand for its effect, for reorganisation or for actions), every legal option is a candidate
(:func:`candidates_nb`: drawing when the hand is below the limit, and each distinct card kind of the
hand in each mode the rules allow it, exactly the options random-legal samples). For rollout
``r = 0 .. R-1`` the state is copied, its hidden part resampled from what the side may know
(:func:`resample_hidden_nb`), and every candidate is played from that same sampled world (common
random numbers): the sub-turn with the candidate's choice (:func:`forced_subturn_nb`), then the
game to its end by the engine's own kernels (``engine.play_on_nb``) with the batch's policies: the
base policy for the exploiter's later play and the opponent's actual policy. The candidate with
the best mean outcome (+1 a win, -1 a loss, 0 a draw, from the exploiter's side) is played; a tie
with the base policy's own choice keeps the base's choice (Tesauro & Galperin 1996; Bertsekas'
rollout algorithms; determinized information-set sampling, Cowling, Powley & Whitehouse 2012).

Everything else (the activations of the card played, interruptions, deployment, Scout rows) is
the base policy's. With ``R = 0`` the exploiter plays its base policy's choices through the forced
sub-turn, and its rows are exactly the base policy's (a test checks this).

What the side may not see (resampled before every rollout, from the side's view only, so that the
choice does not depend on it):

- the order of the draw pile and the opponent's hand (Rule 3.2; the hand's size is known): the
  cards of both are pooled, sorted by id, shuffled and dealt again, the hand getting only cards a
  hand can hold (never The End or a Day/Night card, which are discarded when drawn, Rules 6, 10.1);
- which of the opponent's covered, undamaged fleet cards in a row is which (ruling M9: "the player
  does not know which covered card is which"): their identities are permuted within each row. The
  row each card stands in is treated as known (a simplification: the deployment itself was face
  down), and a covered card carrying damage keeps its identity;
- the future dice: the world's stream is reseeded from the rollout's key;
- the policies' scratch (``wk``, ``fw``) is cleared.

The key of rollout ``r`` depends on the game's seed, the rollout salt, the sub-turn and ``r`` only.

Bundles: :class:`~.bundles.Tables` ``T``, :class:`~.bundles.Knobs` ``K``, one-game
:class:`~.bundles.GameState` ``S``, and :data:`Rollout` ``R`` (the exploiter's settings and scratch).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from simlab.jit import kernel

from ...rng import mix64_nb, new_state_nb, roll_nb
from .actions import apply_specials_nb, declare_pending_nb, resolve_pending_nb
from .bundles import Board, new_state
from .deck import discard_table_nb, draw_nb, play_from_hand_nb, shuffle_nb
from .engine import NO_STOP, _debug_check_nb, _reset_subturn_nb, init_game_nb, play_on_nb, resolve_card_nb
from .enums import FAM_SOLO, K_DAY_NIGHT, K_RETREAT, K_THE_END, MODE_ACTIONS, MODE_EFFECT, ST_IN_PLAY
from .layout import (
    C_POOL,
    G_ACTIVE,
    G_AI_CAPFOUND0,
    G_CB_OK,
    G_DECK_N,
    G_FINAL,
    G_HAND0_N,
    G_LIMIT,
    G_NEXT,
    G_NIGHT,
    G_NIGHT_SUBTURNS,
    G_OVER,
    G_RETREAT,
    G_RULES,
    G_SUBTURN,
    HAND_CAP,
    MAXC,
    NC,
    O_WINNER,
    P_DECK,
    PILE_CAP,
    R_HAND_LIMIT,
    RU_RETREAT_KEEP_HANDS,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_UP,
)
from .legality import effect_allowed_nb
from .policy_cards import choose_play_nb

__all__ = ["MAX_OPTIONS", "RP_ROLLOUTS", "RP_SALT", "RP_SIDE", "Rollout", "advance_to_decision_nb", "candidates_nb",
           "copy_into_nb", "forced_subturn_nb", "new_rollout", "play_rollout_games_nb", "resample_hidden_nb",
           "rollout_choice_nb"]

#: candidates at one decision at most: drawing, and 3 modes of each card of a full hand
MAX_OPTIONS = 3 * HAND_CAP + 1
#: ``Rollout.params`` layout: the exploiting side, rollouts per candidate, the salt of the rollout keys
RP_SIDE, RP_ROLLOUTS, RP_SALT = 0, 1, 2

#: the exploiter's settings and scratch. ``params`` int64[3] (layout ``RP_*``); ``cand`` int64[2,
#: MAX_OPTIONS] (hand index, -1 to draw; mode); ``vals`` float64[MAX_OPTIONS] summed outcomes;
#: ``buf`` int64[PILE_CAP + HAND_CAP] card scratch; ``ids`` int64[MAXC, NC] fleet card scratch;
#: ``world``, ``work``: one-game GameStates (the sampled world, the candidate's play-out)
Rollout = namedtuple("Rollout", ["params", "cand", "vals", "buf", "ids", "world", "work"])


def new_rollout(n_pool: int, side: int, rollouts: int, salt: int) -> Rollout:
    """A :data:`Rollout` bundle for ``side`` (0 or 1) with ``rollouts`` (>= 0) play-outs per
    candidate; ``n_pool`` is the batch's card-pool size. Raises ValueError on a bad side or count."""
    if side not in (0, 1):
        raise ValueError(f"mar-rojo rollout: side must be 0 or 1, not {side}")
    if rollouts < 0:
        raise ValueError(f"mar-rojo rollout: rollouts must be >= 0, not {rollouts}")
    params = np.zeros(3, np.int64)
    params[RP_SIDE] = side
    params[RP_ROLLOUTS] = rollouts
    params[RP_SALT] = np.int64(int(salt) & ((1 << 63) - 1))
    return Rollout(params, np.zeros((2, MAX_OPTIONS), np.int64), np.zeros(MAX_OPTIONS, np.float64),
                   np.zeros(PILE_CAP + HAND_CAP, np.int64), np.zeros((MAXC, NC), np.int64), new_state(n_pool),
                   new_state(n_pool))


@kernel
def copy_into_nb(A, B):
    """Copy every field of the one-game state ``A`` into ``B`` (same shapes)."""
    _copy2_nb(A.cs, B.cs)
    _copy2_nb(A.st, B.st)
    _copy1_nb(A.g, B.g)
    _copy2_nb(A.piles, B.piles)
    _copy2_nb(A.hands, B.hands)
    _copy1_nb(A.wk, B.wk)
    _copy1_nb(A.fw, B.fw)
    _copy1_nb(A.rng, B.rng)
    _copy1_nb(A.seed, B.seed)
    _copy1_nb(A.taken, B.taken)
    _copy1_nb(A.tmp, B.tmp)
    _copy1_nb(A.scr, B.scr)
    _copy1_nb(A.out, B.out)
    _copy2_nb(A.sq, B.sq)


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
def advance_to_decision_nb(T, K, S, side):
    """Play the game on (by ``engine.play_on_nb``, one sub-turn at a time) up to the next sub-turn of
    ``side``, exactly as the uninterrupted game would. Returns True with ``S`` just before that
    sub-turn (``S.g[G_NEXT] == side``), or False once the game is over (its result row written)."""
    g = S.g
    pols = K.pols
    while True:
        if g[G_OVER] == 1:
            return False
        active = g[G_NEXT]
        # the checks at the top of play_on_nb's loop (Rule 6: the end; the safety limit)
        if (g[G_FINAL] == 1 and g[G_HAND0_N] == 0 and g[G_HAND0_N + 1] == 0) or g[G_SUBTURN] >= g[G_LIMIT]:
            play_on_nb(T, K, S, NO_STOP)
            return False
        if g[G_FINAL] == 1 and pols[active] != FAM_SOLO and g[G_HAND0_N + active] == 0:
            g[G_NEXT] = 1 - active  # an empty hand after the drawing stopped passes (Rule 6)
            continue
        if active == side:
            return True
        play_on_nb(T, K, S, g[G_SUBTURN] + 1)


@kernel
def _prelude_nb(S, active):
    """The start of a sub-turn of ``active`` as ``engine.play_on_nb`` does it (Rule 5: the counts of
    the sub-turn cleared)."""
    g = S.g
    g[G_ACTIVE] = active
    g[G_SUBTURN] += 1
    if g[G_NIGHT] == 1:
        g[G_NIGHT_SUBTURNS] += 1
    _reset_subturn_nb(S.st, g)
    g[G_AI_CAPFOUND0 + 1 - active] = 0


@kernel
def forced_subturn_nb(T, K, S, side, hand_index, mode):
    """One sub-turn of ``side`` (Rule 5 steps 1-5) with its step 1-2 choice given: ``hand_index``
    -1 to draw, else the hand position of the card played in ``mode`` (enums.MODE_*). The same
    steps as ``engine.play_on_nb`` and ``engine.player_subturn_nb`` (the policy's ``choose_play_nb``
    is still called first, so its scratch and random draws are those of the engine's sub-turn; its
    answer is replaced). Call it with ``S.g[G_NEXT] == side`` (after :func:`advance_to_decision_nb`)."""
    rt, akind, ak, pp = T.rt, T.akind, T.ak, K.pp
    cs, st, g, piles, hands, rng, scr, wk, fw = S.cs, S.st, S.g, S.piles, S.hands, S.rng, S.scr, S.wk, S.fw
    active = side
    _prelude_nb(S, side)
    hn = g[G_HAND0_N + side]
    can_draw = g[G_FINAL] == 0 and hn < rt[R_HAND_LIMIT]
    if hn == 0:
        if can_draw:
            draw_nb(piles, hands, g, akind, side, np.bool_(True), rng)
            apply_specials_nb(rt, cs, st, g, pp, rng)
    else:
        choose_play_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), side, can_draw, rng, wk, fw)
        if hand_index < 0:
            draw_nb(piles, hands, g, akind, side, np.bool_(True), rng)
            apply_specials_nb(rt, cs, st, g, pp, rng)
        else:
            kind = akind[play_from_hand_nb(piles, hands, g, side, hand_index)]
            passive = 1 - side
            if mode != MODE_ACTIONS:
                g[G_CB_OK] = 0
            declare_pending_nb(cs, st, g, piles, hands, akind, ak, pp, passive, mode, rng)
            resolve_card_nb(T, K, S, side, kind, mode)
            resolve_pending_nb(rt, cs, st, g, pp, passive, rng, scr)
            discard_table_nb(piles, g)
    _debug_check_nb(rt, cs, st, g, piles, hands, wk)
    g[G_NEXT] = 1 - active


@kernel
def candidates_nb(T, S, side, cand):
    """The legal step 1-2 options of ``side`` now (Rule 5 steps 1-2, 3.2, 3.2.1): drawing (hand
    index -1, when the drawing goes on and the hand is below the limit), then each distinct card
    kind of the hand, at its first hand position, in each mode: reorganisation and actions always,
    its effect where ``legality.effect_allowed_nb`` allows it. Writes ``cand[0, j]`` (hand index)
    and ``cand[1, j]`` (mode); returns the count."""
    g, hands, akind, ak = S.g, S.hands, T.akind, T.ak
    hn = g[G_HAND0_N + side]
    n = np.int64(0)
    if g[G_FINAL] == 0 and hn < T.rt[R_HAND_LIMIT]:
        cand[0, 0] = -1
        cand[1, 0] = 0
        n = np.int64(1)
    for i in range(hn):
        k = akind[hands[side, i]]
        dup = False
        for j in range(i):
            if akind[hands[side, j]] == k:
                dup = True
                break
        if dup:
            continue
        for m in range(3):
            if m == MODE_EFFECT and not effect_allowed_nb(ak, g, k, side):
                continue
            cand[0, n] = i
            cand[1, n] = m
            n += 1
    return n


@kernel
def _hand_ok_nb(akind, g, card):
    """Whether an action card can be in a hand (The End and Day/Night are discarded when drawn,
    Rules 6, 10.1; after Retreat was played, a drawn Retreat ends the drawing, Rule 6)."""
    k = akind[card]
    if k == K_THE_END or k == K_DAY_NIGHT:
        return False
    if k == K_RETREAT and g[G_RETREAT] == 1 and (g[G_RULES] & RU_RETREAT_KEEP_HANDS) == 0:
        return False
    return True


@kernel
def resample_hidden_nb(T, S, side, buf, ids, rng):
    """Replace the part of ``S`` that ``side`` cannot see by a sample consistent with its view (see
    the module docstring): the draw pile and the opponent's hand dealt again from their pooled
    cards (sorted by id first, so the sample depends only on the pool, not on its arrangement);
    the opponent's covered undamaged cards' identities permuted within each row (sorted by pool
    index first); ``wk`` and ``fw`` cleared. ``rng``: the sampling stream (``uint64[3]``);
    ``buf``, ``ids``: scratch (:data:`Rollout`). The world's own stream is left to the caller."""
    g, piles, hands, cs, st, akind = S.g, S.piles, S.hands, S.cs, S.st, T.akind
    opp = 1 - side
    nd = g[G_DECK_N]
    nh = g[G_HAND0_N + opp]
    n = np.int64(0)
    for i in range(nd):
        buf[n] = piles[P_DECK, i]
        n += 1
    for i in range(nh):
        buf[n] = hands[opp, i]
        n += 1
    for i in range(1, n):  # insertion sort by card id
        x = buf[i]
        j = i - 1
        while j >= 0 and buf[j] > x:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = x
    shuffle_nb(buf, n, rng)
    h = np.int64(0)
    d = np.int64(0)
    for i in range(n):
        c = buf[i]
        if h < nh and _hand_ok_nb(akind, g, c):
            hands[opp, h] = c
            h += 1
        else:
            piles[P_DECK, d] = c
            d += 1
    while h < nh:  # (not reached: the true hand's cards are all eligible) keep the counts whole
        d -= 1
        hands[opp, h] = piles[P_DECK, d]
        h += 1
    # the opponent's covered, undamaged cards: which is which within a row (ruling M9)
    base = opp * MAXC
    for r in range(3):
        m = np.int64(0)
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0 and st[s, S_ROW] == r and st[s, S_DMG] == 0:
                for c in range(NC):
                    ids[m, c] = cs[s, c]
                m += 1
        if m < 2:
            continue
        for i in range(1, m):  # insertion sort by pool index
            j = i
            while j > 0 and ids[j - 1, C_POOL] > ids[j, C_POOL]:
                for c in range(NC):
                    t = ids[j - 1, c]
                    ids[j - 1, c] = ids[j, c]
                    ids[j, c] = t
                j -= 1
        for i in range(m - 1, 0, -1):  # Fisher-Yates on the rows
            j = roll_nb(rng, i + 1) - 1
            for c in range(NC):
                t = ids[i, c]
                ids[i, c] = ids[j, c]
                ids[j, c] = t
        k = np.int64(0)
        for s in range(base, base + MAXC):
            if st[s, S_STATUS] == ST_IN_PLAY and st[s, S_UP] == 0 and st[s, S_ROW] == r and st[s, S_DMG] == 0:
                for c in range(NC):
                    cs[s, c] = ids[k, c]
                k += 1
    for i in range(S.wk.shape[0]):
        S.wk[i] = 0
    for i in range(S.fw.shape[0]):
        S.fw[i] = 0.0


@kernel
def _outcome_nb(S, side):
    w = S.out[O_WINNER]
    if w == side:
        return 1.0
    if w == 1 - side:
        return -1.0
    return 0.0


@kernel
def _rollout_key_nb(S, R, r):
    h = mix64_nb(S.seed[0] ^ np.uint64(R.params[RP_SALT]))
    h = mix64_nb(h + np.uint64(S.g[G_SUBTURN]) * np.uint64(1000003))
    return mix64_nb(h + np.uint64(r))


@kernel
def rollout_choice_nb(T, K, S, R):
    """The exploiter's step 1-2 choice now: ``(hand_index, mode, n_candidates, base_index)`` (the
    base policy's own hand index where its option is kept), the
    candidates in ``R.cand[:, :n]`` and their summed outcomes over the rollouts in ``R.vals[:n]``.
    ``S`` (left unchanged) is just before a sub-turn of side ``R.params[RP_SIDE]`` that holds a
    hand. With 0 rollouts, or a single candidate, the base policy's choice."""
    side = R.params[RP_SIDE]
    nr = R.params[RP_ROLLOUTS]
    W, D = R.work, R.world
    n = candidates_nb(T, S, side, R.cand)
    # the base policy's own choice, on a copy at the start of the sub-turn (its scratch and random
    # draws stay off S)
    copy_into_nb(S, W)
    _prelude_nb(W, side)
    hn = W.g[G_HAND0_N + side]
    can_draw = W.g[G_FINAL] == 0 and hn < T.rt[R_HAND_LIMIT]
    bi, bm = choose_play_nb(Board(T.rt, W.cs, W.st, W.g, W.piles, W.hands, T.akind, T.ak, K.pp), side, can_draw,
                            W.rng, W.wk, W.fw)
    base = np.int64(0)
    if bi >= 0:
        kb = T.akind[S.hands[side, bi]]
        for j in range(n):
            if R.cand[0, j] >= 0 and T.akind[S.hands[side, R.cand[0, j]]] == kb and R.cand[1, j] == bm:
                base = j
                break
    for j in range(n):
        R.vals[j] = 0.0
    if nr <= 0 or n <= 1:
        return bi, bm, n, base
    for r in range(nr):
        key = _rollout_key_nb(S, R, r)
        copy_into_nb(S, D)
        new_state_nb(key, D.rng)
        resample_hidden_nb(T, D, side, R.buf, R.ids, D.rng)
        new_state_nb(mix64_nb(key + np.uint64(0x9E3779B97F4A7C15)), D.rng)
        for j in range(n):
            copy_into_nb(D, W)
            forced_subturn_nb(T, K, W, side, R.cand[0, j], R.cand[1, j])
            play_on_nb(T, K, W, NO_STOP)
            R.vals[j] += _outcome_nb(W, side)
    best = base
    for j in range(n):
        if R.vals[j] > R.vals[best]:
            best = j
    if best == base:
        return bi, bm, n, base  # the base's own card (of its kind, the copy it chose)
    # the best of n noisy means is biased upwards (the winner's curse): it replaces the base's choice
    # only if it also beats it on 2R fresh rollouts (keys R .. 3R - 1), compared on those alone
    vb = 0.0
    vc = 0.0
    for r in range(nr, 3 * nr):
        key = _rollout_key_nb(S, R, r)
        copy_into_nb(S, D)
        new_state_nb(key, D.rng)
        resample_hidden_nb(T, D, side, R.buf, R.ids, D.rng)
        new_state_nb(mix64_nb(key + np.uint64(0x9E3779B97F4A7C15)), D.rng)
        copy_into_nb(D, W)
        forced_subturn_nb(T, K, W, side, R.cand[0, base], R.cand[1, base])
        play_on_nb(T, K, W, NO_STOP)
        vb += _outcome_nb(W, side)
        copy_into_nb(D, W)
        forced_subturn_nb(T, K, W, side, R.cand[0, best], R.cand[1, best])
        play_on_nb(T, K, W, NO_STOP)
        vc += _outcome_nb(W, side)
    if vc <= vb:
        return bi, bm, n, base
    return R.cand[0, best], R.cand[1, best], n, base


@kernel
def play_rollout_on_nb(T, K, S, R):
    """Play a started game (``engine.init_game_nb``) to its end with side ``R.params[RP_SIDE]``'s
    step 1-2 choices made by :func:`rollout_choice_nb` (the rest by the batch's policies)."""
    side = R.params[RP_SIDE]
    while advance_to_decision_nb(T, K, S, side):
        if S.g[G_HAND0_N + side] == 0:
            play_on_nb(T, K, S, S.g[G_SUBTURN] + 1)
            continue
        i, m, n, b = rollout_choice_nb(T, K, S, R)
        forced_subturn_nb(T, K, S, side, i, m)


@kernel(nogil=True)
def play_rollout_games_nb(seeds, T, K, R, S, out, sq_out):
    """Play one game per seed (``uint64[n]``) with the rollout exploiter on side
    ``R.params[RP_SIDE]``, writing ``out`` (``int32[n, NOUT]``) and ``sq_out`` (``int16[n, NSLOT,
    3]``) as ``engine.play_games_nb``; ``S`` is a one-game scratch state. Row ``i`` depends only on
    ``seeds[i]``, the bundles and the rollout settings."""
    for i in range(seeds.shape[0]):
        S.seed[0] = seeds[i]
        init_game_nb(T, K, S)
        if S.g[G_OVER] == 0:
            play_rollout_on_nb(T, K, S, R)
        _copy1_nb(S.out, out[i])
        _copy2_nb(S.sq, sq_out[i])


# ---------------------------------------------------------------------- Python entry points

#: the salt of the rollout keys unless one is given (so a rollout policy's rows depend on its seeds only)
DEFAULT_SALT = 0x526F6C6C6F7574  # "Rollout"


def run_rollout_games(setup, options, policies, seeds: np.ndarray, side: int, rollouts: int,
                      salt: int = DEFAULT_SALT, debug: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Play one game per seed with the rollout exploiter on ``side`` (0 Nationalist, 1 Republican).

    Args:
        setup, options, seeds, debug: as :func:`.runtime.run_games`; policies: ``{side: preset
            name or Policy}``: the exploiter's entry is its base policy (greedy or random-legal),
            the other side's its actual policy; rollouts: play-outs per candidate (>= 0; 0 plays
            the base policy); salt: the rollout keys' salt.

    Returns:
        ``(out, sq)`` as :func:`.runtime.run_games`.

    Raises:
        ValueError: a solo-AI base (it has no hand to choose from, Rule 12), a bad side or count;
        ScenarioError: as :func:`.runtime.run_games`.
    """
    from .layout import NOUT, NSLOT
    from .runtime import batch_bundles
    tables, knobs = batch_bundles(setup, options, policies, debug)
    if int(knobs.pols[side]) == FAM_SOLO:
        raise ValueError("mar-rojo rollout: the exploiter's base policy cannot be the solo AI (no hand, Rule 12)")
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n = int(seeds.shape[0])
    out = np.zeros((n, NOUT), dtype=np.int32)
    sq = np.zeros((n, NSLOT, 3), dtype=np.int16)
    R = new_rollout(setup.pool.shape[0], side, rollouts, salt)
    play_rollout_games_nb(seeds, tables, knobs, R, new_state(setup.pool.shape[0]), out, sq)
    return out, sq
