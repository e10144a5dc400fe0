"""Squadron building (Rule 9) and deployment (Rules 4, 12.2), compiled.

Builders pick fleet cards from a pool (the cards of the side's factions, by the neutral and
intervention options of Rule 11, and not dated after the year limit) so that the squadron meets
the Rule 9 table of its game length: merchants exactly, capital ships and aircraft-plus-
submarines within their limits, a card count within its limits and the points within the
budget. Every pick keeps the rest of the table reachable with the cheapest remaining cards.

* ``balanced``: the minimum of capital ships, the middle of the aircraft-and-submarine range,
  then as many escorts as the points allow (cheapest first), then whatever still fits.
* ``value-greedy``: the dearest cards first: capital ships to their maximum, then aircraft and
  submarines, then escorts.
* ``random``: uniformly random among the cards that keep the table reachable, stopping at random
  once the minimums are met.

Ties between equal cards are broken at random, so squadrons vary from game to game.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import roll_nb
from .enums import (
    AIRCRAFT,
    B_BALANCED,
    B_GREEDY,
    B_RANDOM,
    CAPITAL,
    LONG,
    MEDIUM,
    MERCHANT,
    SHORT,
    ST_IN_PLAY,
    SUBMARINE,
)
from .layout import (
    C_COST,
    C_TYPE,
    MAXC,
    PT_AIRSUB_MAX,
    PT_AIRSUB_MIN,
    PT_CAP_MAX,
    PT_CAP_MIN,
    PT_CARDS_MAX,
    PT_CARDS_MIN,
    PT_MERCHANTS,
    PT_POINTS,
    RT_SOLO,
    S_ROW,
    S_STATUS,
    S_UP,
)

__all__ = ["build_squadron_nb", "row_sizes_nb", "solo_deploy_nb"]

CAT_CAP, CAT_MER, CAT_AS, CAT_ESC = 0, 1, 2, 3


@kernel
def _cat_nb(t):
    if t == CAPITAL:
        return CAT_CAP
    if t == MERCHANT:
        return CAT_MER
    if t == AIRCRAFT or t == SUBMARINE:
        return CAT_AS
    return CAT_ESC


@kernel
def _cheapest_completion_nb(pool, avail, taken, cnt, lim, tmp):
    """Least points to complete the minimums from the cards still available (-1: impossible).

    ``cnt[4]``: cards per category so far; ``lim`` = (cards_min, cards_max, points, cap_min,
    cap_max, merchants, as_min, as_max)."""
    need_cap = lim[PT_CAP_MIN] - cnt[CAT_CAP]
    need_mer = lim[PT_MERCHANTS] - cnt[CAT_MER]
    need_as = lim[PT_AIRSUB_MIN] - cnt[CAT_AS]
    if need_cap < 0:
        need_cap = np.int64(0)
    if need_as < 0:
        need_as = np.int64(0)
    if need_mer < 0:
        return -1
    total = cnt[0] + cnt[1] + cnt[2] + cnt[3]
    n = pool.shape[0]
    # mark used picks in tmp (1 = used by this completion)
    for i in range(n):
        tmp[i] = 0
    cost = np.int64(0)
    for cat, k in ((CAT_CAP, need_cap), (CAT_MER, need_mer), (CAT_AS, need_as)):
        for _ in range(k):
            bi = np.int64(-1)
            bc = 1 << 30
            for i in range(n):
                if avail[i] == 1 and taken[i] == 0 and tmp[i] == 0 and _cat_nb(pool[i, C_TYPE]) == cat:
                    if pool[i, C_COST] < bc:
                        bc = pool[i, C_COST]
                        bi = i
            if bi < 0:
                return -1
            tmp[bi] = 1
            cost += bc
            total += 1
    if total > lim[PT_CARDS_MAX]:
        return -1
    # reach cards_min with the cheapest cards any category may still take
    room_cap = lim[PT_CAP_MAX] - cnt[CAT_CAP] - need_cap
    room_as = lim[PT_AIRSUB_MAX] - cnt[CAT_AS] - need_as
    while total < lim[PT_CARDS_MIN]:
        bi = np.int64(-1)
        bc = 1 << 30
        for i in range(n):
            if avail[i] == 0 or taken[i] == 1 or tmp[i] == 1:
                continue
            c = _cat_nb(pool[i, C_TYPE])
            if c == CAT_MER or (c == CAT_CAP and room_cap <= 0) or (c == CAT_AS and room_as <= 0):
                continue
            if pool[i, C_COST] < bc:
                bc = pool[i, C_COST]
                bi = i
        if bi < 0:
            return -1
        c = _cat_nb(pool[bi, C_TYPE])
        if c == CAT_CAP:
            room_cap -= 1
        elif c == CAT_AS:
            room_as -= 1
        tmp[bi] = 1
        cost += bc
        total += 1
    return cost


@kernel
def _can_add_nb(pool, avail, taken, cnt, spent, lim, i, tmp):
    """Whether card ``i`` may be added and the table still be met."""
    if avail[i] == 0 or taken[i] == 1:
        return False
    c = _cat_nb(pool[i, C_TYPE])
    total = cnt[0] + cnt[1] + cnt[2] + cnt[3]
    if total >= lim[PT_CARDS_MAX]:
        return False
    if c == CAT_CAP and cnt[CAT_CAP] >= lim[PT_CAP_MAX]:
        return False
    if c == CAT_MER and cnt[CAT_MER] >= lim[PT_MERCHANTS]:
        return False
    if c == CAT_AS and cnt[CAT_AS] >= lim[PT_AIRSUB_MAX]:
        return False
    if spent + pool[i, C_COST] > lim[PT_POINTS]:
        return False
    taken[i] = 1
    cnt[c] += 1
    rest = _cheapest_completion_nb(pool, avail, taken, cnt, lim, tmp)
    cnt[c] -= 1
    taken[i] = 0
    return rest >= 0 and spent + pool[i, C_COST] + rest <= lim[PT_POINTS]


@kernel
def build_squadron_nb(pool, avail, lim, builder, out, rng, taken, tmp):
    """Build one squadron by Rule 9.

    Args:
        pool: ``int64[n, NC]`` the card pool; avail: ``int8[n]`` 1 if the side may take card i.
        lim: ``int64[8]`` (cards_min, cards_max, points, cap_min, cap_max, merchants, as_min,
            as_max); builder: enums.B_*; out: ``int64[MAXC]`` receives pool indices.
        taken, tmp: ``int8/int64[n]`` scratch.

    Returns:
        The number of cards, or -1 when the table cannot be met from this pool.
    """
    n = pool.shape[0]
    for i in range(n):
        taken[i] = 0
    cnt = tmp[n:n + 4]
    for c in range(4):
        cnt[c] = 0
    spent = np.int64(0)
    k = np.int64(0)
    if _cheapest_completion_nb(pool, avail, taken, cnt, lim, tmp) < 0:
        return -1
    stop_random = False
    for _step in range(MAXC):
        if k >= MAXC or k >= lim[PT_CARDS_MAX]:
            break
        minimums = cnt[CAT_MER] >= lim[PT_MERCHANTS] and cnt[CAT_CAP] >= lim[PT_CAP_MIN] and cnt[CAT_AS] >= lim[PT_AIRSUB_MIN] and k >= lim[PT_CARDS_MIN]
        if builder == B_RANDOM and minimums:
            if roll_nb(rng, np.int64(10)) <= 3:
                stop_random = True
        if stop_random:
            break
        # the category wanted next
        want = np.int64(-1)
        if builder == B_BALANCED:
            mid_as = (lim[PT_AIRSUB_MIN] + lim[PT_AIRSUB_MAX] + 1) // 2
            if cnt[CAT_MER] < lim[PT_MERCHANTS]:
                want = CAT_MER
            elif cnt[CAT_CAP] < lim[PT_CAP_MIN]:
                want = CAT_CAP
            elif cnt[CAT_AS] < mid_as:
                want = CAT_AS
            else:
                want = CAT_ESC
        elif builder == B_GREEDY:
            if cnt[CAT_MER] < lim[PT_MERCHANTS]:
                want = CAT_MER
            elif cnt[CAT_CAP] < lim[PT_CAP_MAX]:
                want = CAT_CAP
            elif cnt[CAT_AS] < lim[PT_AIRSUB_MAX]:
                want = CAT_AS
            else:
                want = CAT_ESC
        best = np.int64(-1)
        bkey = -(1 << 40)
        nties = np.int64(0)
        for pass_ in range(2):
            for i in range(n):
                c = _cat_nb(pool[i, C_TYPE])
                if pass_ == 0 and want >= 0 and c != want:
                    continue
                if not _can_add_nb(pool, avail, taken, cnt, spent, lim, i, tmp):
                    continue
                if builder == B_GREEDY:
                    key = pool[i, C_COST]
                elif builder == B_BALANCED:
                    key = -pool[i, C_COST] if c == CAT_ESC else pool[i, C_COST]
                else:
                    key = np.int64(0)
                if key > bkey:
                    bkey = key
                    best = i
                    nties = np.int64(1)
                elif key == bkey:
                    nties += 1
                    if roll_nb(rng, nties) == 1:
                        best = i
            if best >= 0 or builder == B_RANDOM:
                break
        if best < 0:
            break
        taken[best] = 1
        cnt[_cat_nb(pool[best, C_TYPE])] += 1
        spent += pool[best, C_COST]
        out[k] = best
        k += 1
    if cnt[CAT_MER] != lim[PT_MERCHANTS] or cnt[CAT_CAP] < lim[PT_CAP_MIN] or cnt[CAT_AS] < lim[PT_AIRSUB_MIN] or k < lim[PT_CARDS_MIN]:
        return -1
    for j in range(k, MAXC):
        out[j] = -1
    return k


@kernel
def row_sizes_nb(n, first, second):
    """A balanced split of ``n`` cards (Rule 4: no row more than one card above another) with the
    extra cards in rows ``first`` then ``second``."""
    b = n // 3
    r = n % 3
    s0 = b
    s1 = b
    s2 = b
    if r >= 1:
        if first == 0:
            s0 += 1
        elif first == 1:
            s1 += 1
        else:
            s2 += 1
    if r >= 2:
        if second == 0:
            s0 += 1
        elif second == 1:
            s1 += 1
        else:
            s2 += 1
    return s0, s1, s2


@kernel
def solo_deploy_nb(rt, cs, st, side, length, rng, order):
    """The solo AI's deployment (Rule 12.2): three decks (1st: half the escorts, submarines and
    aircraft, rounded up; 2nd: the rest of them, one capital ship and one merchant; 3rd: the
    other capital ships and merchants), each shuffled, dealt in that order into the short,
    medium and long rows. Row sizes: the 12.2 table for the game length when the squadron has
    that many cards, else the same pattern (extra cards short, then medium) for its size.
    ``order`` is ``int64[MAXC]`` scratch."""
    base = side * MAXC
    n = np.int64(0)
    n_e = np.int64(0)
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY:
            n += 1
            st[s, S_UP] = 0
            t = cs[s, C_TYPE]
            if t != CAPITAL and t != MERCHANT:
                n_e += 1
    half = (n_e + 1) // 2
    # deck membership: 1, 2 or 3, with a random key inside the deck
    k = np.int64(0)
    e_seen = np.int64(0)
    cap_in_2 = False
    mer_in_2 = False
    # random order of the cards first, so the "half" and the single capital/merchant are random
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] == ST_IN_PLAY:
            order[k] = s
            k += 1
    for i in range(k - 1, 0, -1):
        j = roll_nb(rng, i + 1) - 1
        tmp = order[i]
        order[i] = order[j]
        order[j] = tmp
    # deck membership is written into S_ROW as 10 + deck until the cards are dealt
    for i in range(k):
        s = order[i]
        t = cs[s, C_TYPE]
        if t != CAPITAL and t != MERCHANT:
            if e_seen < half:
                st[s, S_ROW] = 11
            else:
                st[s, S_ROW] = 12
            e_seen += 1
        elif t == CAPITAL and not cap_in_2:
            st[s, S_ROW] = 12
            cap_in_2 = True
        elif t == MERCHANT and not mer_in_2:
            st[s, S_ROW] = 12
            mer_in_2 = True
        else:
            st[s, S_ROW] = 13
    a = rt[RT_SOLO + 3 * length]
    b = rt[RT_SOLO + 3 * length + 1]
    c = rt[RT_SOLO + 3 * length + 2]
    if a + b + c != n:
        a, b, c = row_sizes_nb(n, np.int64(SHORT), np.int64(MEDIUM))
    # deal deck 1, then 2, then 3 (each already in random order) into short, medium, long
    pos = np.int64(0)
    for d in (11, 12, 13):
        for i in range(k):
            s = order[i]
            if st[s, S_ROW] == d:
                st[s, S_ROW] = SHORT if pos < a else (MEDIUM if pos < a + b else LONG)
                pos += 1

