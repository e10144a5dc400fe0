"""The rules of ``signal-rounds`` and its rollout exploiter: ``@njit`` functions only (suffix ``_nb``).

Rules. A game is rounds until a side has won two (at most three). Each round:

1. chance shows a *signal* ``s`` (target 0 or 1, each 1/2) to red only;
2. blue picks a target to *guard* ``b`` (blue sees nothing of the round); red picks a target to *aim*
   at ``a`` (red sees ``s`` but not ``b``), simultaneously;
3. red wins the round with probability ``win[hit, guarded]`` (``hit``: ``a == s``, ``guarded``:
   ``b == a``), else blue wins it.

Every round draws four uniforms from the game's stream in a fixed order (the signal, blue's draw,
red's draw, the die) whatever the sides choose, so games with the same seed are paired across
policies (common random numbers). The families: red ``habit`` aims at 1 when its draw is below
``aim``; blue ``guard`` guards 1 when its draw is below ``press``. Neither looks at the signal.

The rollout exploiter of side ``X`` (Monte Carlo policy improvement over a base policy, as Mar
Rojo's ``simlab/games/mar_rojo/rollout.py``): at each round it tries both targets; for rollout ``r``
it seeds a world from ``(game seed, salt, round, r)`` alone, resamples there what ``X`` cannot see
(red: blue's guard this round, from blue's policy; blue: the signal and red's aim, from red's
policy) and the die, plays the round with the candidate and the game on with the base policies,
and scores +1 a win, -1 a loss for ``X``. Both candidates play the same world. The base policy's
own choice is kept unless the other candidate has the strictly larger total over ``R`` rollouts
*and* again over ``2R`` fresh ones (the winner's curse). ``R = 0`` plays the base policy.

Arrays: ``win`` ``float64[2, 2]`` (``[hit, guarded]``); ``pol`` ``float64[2]`` (red's aim, blue's
press: the base policies); ``ro`` ``int64[3]`` (rollout side: -1 none, 0 red, 1 blue; ``R``; salt).
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel
from simlab.rng import STATE_WORDS, mix64_nb, new_state_nb, uniform_nb

#: ``out`` columns of :func:`play_games_nb`
O_WINNER, O_ROUNDS, O_RED, O_BLUE, O_PLAYOUTS, O_CHANGED = 0, 1, 2, 3, 4, 5
NOUT = 6
RO_SIDE, RO_R, RO_SALT = 0, 1, 2


@kernel(nrt=True)
def round_nb(win, s, a, b, u):
    """1 when red wins a round with signal ``s``, aim ``a``, guard ``b`` and die ``u`` (``[0, 1)``), else 0."""
    hit = 1 if a == s else 0
    guarded = 1 if b == a else 0
    return 1 if u < win[hit, guarded] else 0


@kernel(nrt=True)
def play_on_nb(st, win, pol, g):
    """Play the game in ``g`` (``int64[3]``: rounds played, red's wins, blue's wins) to its end with the
    base policies ``pol``, drawing from ``st``; returns 0 when red wins, 1 when blue wins."""
    while g[1] < 2 and g[2] < 2:
        s = 1 if uniform_nb(st) < 0.5 else 0
        b = 1 if uniform_nb(st) < pol[1] else 0
        a = 1 if uniform_nb(st) < pol[0] else 0
        u = uniform_nb(st)
        if round_nb(win, s, a, b, u) == 1:
            g[1] += 1
        else:
            g[2] += 1
        g[0] += 1
    return 0 if g[1] >= 2 else 1


@kernel(nrt=True)
def _key_nb(seed, salt, t, r):
    h = mix64_nb(np.uint64(seed) ^ np.uint64(salt))
    h = mix64_nb(h + np.uint64(t) * np.uint64(1000003))
    return mix64_nb(h + np.uint64(r))


@kernel(nrt=True)
def playout_nb(seed, win, pol, g, side, s_known, c, salt, r, st, w):
    """One play-out of candidate ``c`` for ``side`` in the world of rollout ``r``: +1 when ``side``
    wins, -1 when it loses. ``g`` is the game before the round (left unchanged); ``s_known`` the
    signal (read only when ``side`` is red); ``st`` (rng state) and ``w`` (``int64[3]``) scratch."""
    new_state_nb(_key_nb(seed, salt, g[0], r), st)
    if side == 0:  # red knows the signal; blue's guard is hidden: drawn from blue's policy
        s = s_known
        b = 1 if uniform_nb(st) < pol[1] else 0
        a = c
    else:  # blue sees nothing: the signal and red's aim are drawn from red's view of the world
        s = 1 if uniform_nb(st) < 0.5 else 0
        a = 1 if uniform_nb(st) < pol[0] else 0
        b = c
    u = uniform_nb(st)
    w[0] = g[0] + 1
    w[1] = g[1]
    w[2] = g[2]
    if round_nb(win, s, a, b, u) == 1:
        w[1] += 1
    else:
        w[2] += 1
    return 1 if play_on_nb(st, win, pol, w) == side else -1


@kernel(nrt=True)
def rollout_choice_nb(seed, win, pol, g, side, s_known, base, ro, st, w, vals):
    """The rollout exploiter's target this round (0 or 1) for ``side`` in game ``g`` (before the
    round), its base policy choosing ``base``; ``vals`` (``float64[2]``) gets each candidate's total
    over the first ``R`` rollouts. Returns ``(choice, play-outs played)``. Depends only on what
    ``side`` may know: the seed, the round, the score, its base's choice and (red) the signal."""
    nr = ro[RO_R]
    salt = ro[RO_SALT]
    vals[0] = 0.0
    vals[1] = 0.0
    if nr <= 0:
        return base, 0
    for r in range(nr):
        for c in range(2):
            vals[c] += playout_nb(seed, win, pol, g, side, s_known, c, salt, r, st, w)
    other = 1 - base
    if vals[other] <= vals[base]:
        return base, 2 * nr
    vb = 0.0
    vc = 0.0
    for r in range(nr, 3 * nr):
        vb += playout_nb(seed, win, pol, g, side, s_known, base, salt, r, st, w)
        vc += playout_nb(seed, win, pol, g, side, s_known, other, salt, r, st, w)
    if vc <= vb:
        return base, 6 * nr
    return other, 6 * nr


@kernel(nogil=True, nrt=True)
def play_games_nb(seeds, win, pol, ro, out):
    """Play one game per seed (``uint64[n]``) into ``out`` (``int32[n, NOUT]``: winner 0 red / 1 blue,
    rounds, rounds won by red and by blue, rollout play-outs, rounds where the rollout exploiter
    left its base's choice). Row ``i`` depends only on ``seeds[i]``, ``win``, ``pol`` and ``ro``."""
    st = np.empty(STATE_WORDS, dtype=np.uint64)
    wst = np.empty(STATE_WORDS, dtype=np.uint64)
    g = np.zeros(3, dtype=np.int64)
    w = np.zeros(3, dtype=np.int64)
    vals = np.zeros(2, dtype=np.float64)
    side = ro[RO_SIDE]
    for i in range(seeds.shape[0]):
        new_state_nb(seeds[i], st)
        g[0] = 0
        g[1] = 0
        g[2] = 0
        played = 0
        changed = 0
        while g[1] < 2 and g[2] < 2:
            s = 1 if uniform_nb(st) < 0.5 else 0
            b = 1 if uniform_nb(st) < pol[1] else 0
            a = 1 if uniform_nb(st) < pol[0] else 0
            u = uniform_nb(st)
            if side == 0:
                c, n = rollout_choice_nb(seeds[i], win, pol, g, 0, s, a, ro, wst, w, vals)
                changed += 1 if c != a else 0
                a = c
                played += n
            elif side == 1:
                c, n = rollout_choice_nb(seeds[i], win, pol, g, 1, -1, b, ro, wst, w, vals)
                changed += 1 if c != b else 0
                b = c
                played += n
            if round_nb(win, s, a, b, u) == 1:
                g[1] += 1
            else:
                g[2] += 1
            g[0] += 1
        out[i, O_WINNER] = 0 if g[1] >= 2 else 1
        out[i, O_ROUNDS] = g[0]
        out[i, O_RED] = g[1]
        out[i, O_BLUE] = g[2]
        out[i, O_PLAYOUTS] = played
        out[i, O_CHANGED] = changed
