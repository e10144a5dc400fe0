"""Exact odds of one Dawn of Empire battle (Rules 6.2-6.3, 8.3.2 dice and damage, 10.1-10.2 end of
battle and disengagement by speed; rulings B1-B10 and O1-O7 of docs/rulings.md).

* **One round** (:func:`single_round`): every unit's fate depends only on the dice aimed at it,
  independent across target units, so per-unit results come from :func:`damage_tables`, a side's
  line empties with the product of its units' chances to leave it, and disengagement by speed
  after the round (10.2.2) conditions on the opposing side's fastest remaining unit.
* **Whole battles** and ``rounds >= 2`` (:func:`plan_exact`, :func:`solve_plan`): a Markov chain
  over battle states solved in order of increasing damage (:mod:`.odds_kernels`), with the round
  limit honoured exactly or by a binomial tail bound below :data:`TAIL_TOLERANCE`.

:func:`exact_odds` chooses between them; :mod:`.odds` is the public entry (``battle_odds``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ...errors import SpecError
from .battle_setup import BattleSetup
from .enums import (
    SPEED_WHEN_ABLE,
)
from .kernels import line_target_nb
from .odds_kernels import (
    NOUT,
    O_LK0,
    O_LK1,
    O_MUTUAL,
    O_QMAX,
    O_ROUNDS,
    O_SPEED0,
    O_SPEED1,
    O_STUCK_T,
    O_UNFINISHED,
    O_WIN0,
    O_WIN1,
    T_OFF,
    U_DAMAGE,
    U_DISABLED,
    U_ESCAPED,
    U_SUNK,
    ChainSpec,
    ChainTables,
    chain_nb,
    side_table_nb,
)

__all__ = [
    "AUTO_MAX_BOUND",
    "AUTO_MAX_WORK",
    "EXACT_MAX_BOUND",
    "EXACT_MAX_WORK",
    "TAIL_TOLERANCE",
    "BattleOdds",
    "ExactPlan",
    "TooBigError",
    "damage_tables",
    "exact_odds",
    "plan_exact",
    "pre_battle_leaver",
    "single_round",
    "size_bound",
    "solve_plan",
    "with_detail",
]

#: The unlimited whole-battle solution is used for a round limit K when P(more than K rounds)
#: is provably below this; otherwise the chain is propagated round by round.
TAIL_TOLERANCE = 1e-12
#: Work (outcome pairings, see :class:`ExactPlan`) up to which ``method="auto"`` is exact: about
#: 1-3 s with a warm cache on one core of the development machine (docs/rulings.md O6).
AUTO_MAX_WORK = 2.0e9
#: Work above which ``method="exact"`` is refused (about 2-5 minutes).
EXACT_MAX_WORK = 2.0e11
#: :func:`size_bound` above which the side tables are not even built (``auto``: Monte Carlo;
#: ``exact``: refused). 4 v 4 of the 18.2.6 ships is about 2e12, 4 v 5 about 1e14.
AUTO_MAX_BOUND = 3.0e11
EXACT_MAX_BOUND = 5.0e12
#: side states one side may have (the closure of :func:`~.odds_kernels.side_table_nb`).
MAX_SIDE_STATES = 200_000
#: outcome rows one side's table may have (each state's outcomes of a round).
MAX_SIDE_ROWS = 4_000_000
#: cells of the dense ``float64[S0, S1]`` probability array (memory guard: 8 bytes each).
MAX_CELLS = 12_000_000


class TooBigError(SpecError):
    """Exact odds of this battle would take too long or too much memory (``method="exact"``)."""


@dataclass(frozen=True)
class BattleOdds:
    """Raw odds of one battle, before naming (probabilities as floats; per unit ``float64[n]``).

    Attributes:
        win_gunfire, win_speed: per side, the probability of winning because the other line
            emptied by gunfire (Rule 10.1) or because the other side's last units left by speed
            (Rule 10.2, ruling B8).
        mutual: both lines emptied in the same round (ruling B7).
        unfinished: still going at the round limit (ruling B9, ``--rounds``).
        mean_rounds: rounds fought, averaged over battles.
        p_sunk, p_disabled, p_escaped: ``float64[n]`` how each unit ends.
        mean_damage: ``float64[n]`` damage points taken in this battle.
        p_leader_killed: per side (Rule 6.3).
        games: Monte Carlo battles (None when exact).
        detail: how it was computed (``engine``, ``states``, ``tail_bound``, ``seconds``; Monte
            Carlo: the win, neither and sunk counts behind the intervals).
    """

    win_gunfire: tuple[float, float]
    win_speed: tuple[float, float]
    mutual: float
    unfinished: float
    mean_rounds: float
    p_sunk: np.ndarray
    p_disabled: np.ndarray
    p_escaped: np.ndarray
    mean_damage: np.ndarray
    p_leader_killed: tuple[float, float]
    games: int | None = None
    detail: dict | None = None

    @property
    def p_win(self) -> tuple[float, float]:
        return (self.win_gunfire[0] + self.win_speed[0], self.win_gunfire[1] + self.win_speed[1])


# --------------------------------------------------------------------------- dice
def damage_tables(max_dice: int, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact distribution of what ``n`` dice aimed at one unit do (Rule 8.3.2).

    Each die: 1-4 nothing, 5 disables, 6 hits and rolls one damage die (1-6 points).

    Args:
        max_dice: largest ``n`` (``>= 0``).
        max_points: largest damage total tabulated (larger totals are left out of the rows).

    Returns:
        ``(tno5, tall)``, both ``float64[max_dice + 1, max_points + 1]``: ``tno5[n, x]`` is the
        probability that no die shows 5 and the damage dice total ``x``; ``tall[n, x]`` the
        probability that the damage dice total ``x`` (5s or not).
    """
    w = max_points + 1
    f_no5 = np.zeros(w)
    f_all = np.zeros(w)
    f_no5[0] = 4.0 / 6.0
    f_all[0] = 5.0 / 6.0
    top = min(6, max_points)
    f_no5[1:top + 1] = 1.0 / 36.0
    f_all[1:top + 1] = 1.0 / 36.0
    tno5 = np.zeros((max_dice + 1, w))
    tall = np.zeros((max_dice + 1, w))
    tno5[0, 0] = 1.0
    tall[0, 0] = 1.0
    for k in range(1, max_dice + 1):
        tno5[k] = np.convolve(tno5[k - 1], f_no5)[:w]
        tall[k] = np.convolve(tall[k - 1], f_all)[:w]
    return tno5, tall


def _eff_attack(a: int, d: int) -> int:
    floor = 1 if a >= 1 else a
    return max(a - d, floor)


def _eff_move(m: int, d: int) -> int:
    floor = 2 if m >= 2 else m
    return max(m - d, floor)


def _max_dice(s: BattleSetup) -> int:
    return int(s.attack.sum()) + s.stars[0] + s.stars[1]


def pre_battle_leaver(s: BattleSetup, speed_mode: int) -> int:
    """Rule 10.2.1 (ruling B8): the side whose every unit is faster than every opposing unit, or -1."""
    if speed_mode != SPEED_WHEN_ABLE:
        return -1
    em = [_eff_move(int(m), int(d)) for m, d in zip(s.movement, s.damage, strict=True)]
    e0, e1 = em[: s.n0], em[s.n0:]
    if min(e0) > max(e1):
        return 0
    if min(e1) > max(e0):
        return 1
    return -1


def _left_before_battle(s: BattleSetup, leaver: int) -> BattleOdds:
    n = s.n
    esc = (s.unit_side == leaver).astype(np.float64)
    win = [0.0, 0.0]
    win[1 - leaver] = 1.0
    z = np.zeros(n)
    return BattleOdds(win_gunfire=(0.0, 0.0), win_speed=(win[0], win[1]), mutual=0.0, unfinished=0.0,
                      mean_rounds=0.0, p_sunk=z, p_disabled=z.copy(), p_escaped=esc, mean_damage=z.copy(),
                      p_leader_killed=(0.0, 0.0), detail={"engine": "pre-battle disengagement (Rule 10.2.1)"})


# --------------------------------------------------------------------------- one round
def single_round(s: BattleSetup, speed_mode: int) -> BattleOdds:
    """Exact odds of round 1 of a battle, the battle stopping after it (Rules 6.2-6.3, 8.3.1-8.3.2, 10.1,
    10.2.2).

    Works for any line lengths in time linear in the units: the dice aimed at different units are
    independent, so each unit's fate comes from :func:`damage_tables`, a side's line empties with
    the product of its units' chances, and disengagement by speed after the round conditions on
    the distribution of the opposing side's fastest unit still in line.

    Args:
        s: the battle.
        speed_mode: index into ``enums.SPEED_MODES``.

    Returns:
        :class:`BattleOdds`; ``unfinished`` is the probability that both lines still stand.
    """
    leaver = pre_battle_leaver(s, speed_mode)
    if leaver >= 0:
        return _left_before_battle(s, leaver)
    n0, n = s.n0, s.n
    att = [int(x) for x in s.attack]
    dmg = [int(x) for x in s.damage]
    dfn = [int(x) for x in s.defense]
    mov = [int(x) for x in s.movement]
    lines = (list(range(n0)), list(range(n0, n)))
    dice = [0] * n
    # the kernel's own targeting rule, as plain Python (a numba call would cost a cache load)
    target = line_target_nb.py_func
    for side in (0, 1):
        line, other = lines[side], lines[1 - side]
        for i, u in enumerate(line):
            k, _, _ = target(i, len(other), True, dmg[u] > 0, 0, 0)   # Rule 8.3.1 C-E, ruling B1
            d = _eff_attack(att[u], dmg[u])
            if i < s.stars[side]:                                      # Rule 6.2 E-F, ruling B4
                d += 1
            dice[other[k]] += d
    tno5, tall = damage_tables(max(dice), max(dfn))
    mmax = max(mov)
    p_out = np.zeros(n)
    p_sunk = np.zeros(n)
    p_dis = np.zeros(n)
    stay_mov = np.zeros((n, mmax + 1))   # P(in line after the round with effective movement m)
    lkill = [0.0, 0.0]
    for u in range(n):
        k, cap = dice[u], dfn[u] - dmg[u]
        ca = float(tall[k, : cap + 1].sum())
        c5 = float(tno5[k, : cap + 1].sum())
        p_sunk[u] = max(0.0, 1.0 - ca)
        p_dis[u] = max(0.0, ca - c5)
        p_out[u] = p_sunk[u] + p_dis[u]
        for x in range(cap + 1):
            stay_mov[u, _eff_move(mov[u], dmg[u] + x)] += tno5[k, x]
        side = 0 if u < n0 else 1
        if s.stars[side] > 0 and u == (0 if side == 0 else n0):
            lkill[side] = p_sunk[u] + float(tall[k, 1: cap + 1].sum()) / 6.0   # Rule 6.3, ruling B5
    mean_damage = np.asarray(dice, dtype=np.float64) * (7.0 / 12.0)
    sides = (np.arange(n0), np.arange(n0, n))
    empty = [float(np.prod(p_out[sides[t]])) for t in (0, 1)]
    w0 = (1.0 - empty[0]) * empty[1]
    w1 = empty[0] * (1.0 - empty[1])
    mutual = empty[0] * empty[1]
    sp = [0.0, 0.0]
    p_esc = np.zeros(n)
    if speed_mode == SPEED_WHEN_ABLE:
        # F[t][m]: P(no unit of side t in line is faster than m); G[t][m]: P(every unit in line is)
        cum = np.cumsum(stay_mov, axis=1)
        le = p_out[:, None] + cum
        gt = p_out[:, None] + (cum[:, -1:] - cum)
        big_f = [np.prod(le[sides[t]], axis=0) for t in (0, 1)]
        big_g = [np.prod(gt[sides[t]], axis=0) for t in (0, 1)]
        for t in (0, 1):
            o = 1 - t
            # P(other side non-empty with its fastest unit slower than m), m = 0..mmax
            below = np.concatenate([[0.0], big_f[o][:-1] - empty[o]])
            for u in sides[t]:
                p_esc[u] = float(np.dot(stay_mov[u], below))
            # P(the other side's max is exactly m) times P(all of side t in line are faster than m)
            exact_max = np.diff(np.concatenate([[empty[o]], big_f[o]]))
            sp[o] += float(np.dot(exact_max, big_g[t] - empty[t]))   # side t all leave: o wins
    unfinished = max(0.0, 1.0 - (w0 + w1 + mutual + sp[0] + sp[1]))
    return BattleOdds(win_gunfire=(w0, w1), win_speed=(sp[0], sp[1]), mutual=mutual, unfinished=unfinished,
                      mean_rounds=1.0, p_sunk=p_sunk, p_disabled=p_dis, p_escaped=p_esc,
                      mean_damage=mean_damage, p_leader_killed=(lkill[0], lkill[1]),
                      detail={"engine": "single round (per-unit factorisation)"})


# --------------------------------------------------------------------------- the chain
@dataclass(frozen=True)
class _ChainArgs:
    lrad: np.ndarray
    drad: np.ndarray
    dmult: np.ndarray


def _chain_args(s: BattleSetup) -> _ChainArgs:
    """Radices of the side-state codes (layout in odds_kernels' docstring).

    Raises:
        TooBigError: if a state code would not fit in 62 bits (far too big for exact odds anyway).
    """
    n0, n = s.n0, s.n
    dfn = [int(x) for x in s.defense]
    lrad, drad, dmult = [], [], [0] * n
    for lo, hi in ((0, n0), (n0, n)):
        lrad.append((hi - lo + 1) ** (hi - lo))
        m = 1
        for u in range(lo, hi):
            dmult[u] = m
            m *= dfn[u] + 1
        drad.append(m)
    top = (lrad[0] * drad[0] * 2) * (lrad[1] * drad[1] * 2) * 2
    if top >= 2 ** 62:
        raise TooBigError(f"exact odds: a {s.n0} v {s.n1} battle has too many states to encode; use --mc N")
    return _ChainArgs(lrad=np.asarray(lrad, np.int64), drad=np.asarray(drad, np.int64),
                      dmult=np.asarray(dmult, np.int64))


def size_bound(s: BattleSetup) -> float:
    """A quick size estimate of the exact whole-battle chain, computed without building it.

    Per side, the product over units of the sum, over the damage ``d`` a unit can have, of its
    number of outcomes from ``d``, times half the line orders; the two sides multiplied. It grows
    like the real work (:class:`ExactPlan`) but overestimates it (3 v 3 of the 18.2.6 ships: 2e9
    against 1e9 pairings), and only gates whether the side tables are built at all.

    Returns:
        float, ``>= 1``.
    """
    cost = 1.0
    for side, (lo, hi) in enumerate(((0, s.n0), (s.n0, s.n))):
        side_cost = 1.0
        for u in range(lo, hi):
            k = int(s.defense[u]) - int(s.damage[u])
            lead = 2 if (u == lo and s.stars[side] > 0) else 1
            side_cost *= sum(lead * j + 2 for j in range(k + 1)) + 1
        # line orders: ties between damaged units keep their history (ruling B2)
        side_cost *= max(1, math.factorial(hi - lo) // 2)
        cost *= side_cost
    return cost


def _tail_bound(limit: int, qmax: float, lmax: int) -> float:
    """P(a battle lasts more than ``limit`` rounds) is at most this.

    A battle ends after at most ``lmax`` rounds that change its state, and each round changes it
    with probability at least ``1 - qmax``, so the number of changing rounds among the first
    ``limit`` dominates a Binomial(limit, 1 - qmax) variable.
    """
    if lmax <= 0:
        return 0.0
    from scipy.special import bdtr  # the binomial CDF (scipy.stats would cost a second to import)
    return float(bdtr(lmax - 1, limit, 1.0 - qmax))


@dataclass
class ExactPlan:
    """The exact chain of one battle, built and sized but not yet solved (:func:`plan_exact`).

    Attributes:
        tables: the joined side tables (the fields of :class:`~.odds_kernels.ChainTables`).
        s0, s1: side states per side; cells: ``s0 * s1``.
        pairs: upper bound of the outcome pairings of one pass over every state (the work unit:
            about 1-2 ns each on one core).
        rounds: 0 for the whole battle, ``K > 0`` to propagate K rounds one by one, -1 for the
            whole battle if the probability of lasting beyond the limit turns out negligible once
            the largest chance that a round changes nothing is known (units printed with attack 0
            can leave a state where no die is rolled: such a battle runs to the limit).
        work: ``pairs * max(1, rounds)``.
    """

    s: BattleSetup
    limit: int
    speed_mode: int
    tables: tuple
    thr_idx: np.ndarray
    s0: int
    s1: int
    pairs: float
    rounds: int
    work: float

    @property
    def cells(self) -> int:
        return self.s0 * self.s1


def _q_upper(s: BattleSetup) -> float:
    # every unit printed with attack >= 1 rolls at least one die while in line (Rule 8.3.2.3 B), so
    # a round changes nothing with probability at most (4/6) ** (one die per side that must fire)
    fire = [int((s.attack[: s.n0] >= 1).all()), int((s.attack[s.n0:] >= 1).all())]
    return (4.0 / 6.0) ** (fire[0] + fire[1])


def plan_exact(s: BattleSetup, limit: int, speed_mode: int, max_work: float = EXACT_MAX_WORK,
               max_bound: float = EXACT_MAX_BOUND) -> ExactPlan:
    """Build and size the exact chain of a battle with a round limit (``limit >= 2``).

    The whole battle is solved when the probability of lasting beyond ``limit`` rounds is provably
    below :data:`TAIL_TOLERANCE` (see :func:`_tail_bound`, with the largest chance ``q`` that a round
    changes nothing bounded from the units' attack values), else ``limit`` rounds are propagated
    one by one.

    Raises:
        TooBigError: when :func:`size_bound` exceeds ``max_bound``, a side has too many states or
            outcomes, the dense array would be too big, or the work exceeds ``max_work`` (one line,
            naming the figure).
    """
    bound = size_bound(s)
    if bound > max_bound:
        raise TooBigError(f"exact odds of this {s.n0} v {s.n1} battle are out of reach (size estimate {bound:.2g}, "
                          f"the limit is {max_bound:.2g}); use --mc N, or --rounds 1 for the first round")
    ca = _chain_args(s)
    mmax = int(s.movement.max())
    spans = ((0, s.n0), (s.n0, s.n1))
    # the fastest movement each side can show (Rule 8.3.2.3 B: damage slows a unit, never below 2)
    speeds = []
    for lo, ns in spans:
        vals = {_eff_move(int(s.movement[u]), d) for u in range(lo, lo + ns)
                for d in range(int(s.damage[u]), int(s.defense[u]) + 1)}
        speeds.append(np.asarray(sorted(vals), np.int64))
    thr_idx = np.full((2, mmax + 1), -1, np.int64)
    tables = []
    for side, (lo, ns) in enumerate(spans):
        thresholds = speeds[1 - side] if speed_mode == SPEED_WHEN_ABLE else np.zeros(0, np.int64)
        for k, m in enumerate(thresholds):
            thr_idx[side, m] = k
        t = side_table_nb(lo, ns, s.defense, s.movement, s.damage, 1 if s.stars[side] > 0 else 0, lo, thresholds,
                          ca.dmult, ca.drad[side], MAX_SIDE_STATES, MAX_SIDE_ROWS)
        if t[0].shape[0] == 0:
            raise TooBigError(f"exact odds: side {s.sides[side]} of this {s.n0} v {s.n1} battle has too many states "
                              f"(more than {MAX_SIDE_STATES:,}, or {MAX_SIDE_ROWS:,} round outcomes); use --mc N")
        tables.append(t)
    s0, s1 = tables[0][0].shape[0] - 1, tables[1][0].shape[0] - 1
    if s0 * s1 > MAX_CELLS:
        raise TooBigError(f"exact odds: this {s.n0} v {s.n1} battle has {s0 * s1:,} state pairs "
                          f"(the limit is {MAX_CELLS:,}); use --mc N")
    pairs = float(tables[0][3].shape[0]) * float(tables[1][3].shape[0])
    path = int((s.defense + 1 - s.damage).sum()) + 1
    rounds = 0 if _tail_bound(limit, _q_upper(s), path) <= TAIL_TOLERANCE else limit
    if rounds and pairs * rounds > max_work and pairs <= max_work:
        rounds = -1   # solve the whole battle, then check the tail with the largest q it met
    work = pairs * max(1, rounds)
    if work > max_work:
        how = "the whole battle" if rounds == 0 else f"{rounds} rounds one by one"
        raise TooBigError(f"exact odds of this {s.n0} v {s.n1} battle ({how}) need about {work:.2g} outcome "
                          f"pairings (the limit is {max_work:.2g}); use --mc N")
    return ExactPlan(s=s, limit=limit, speed_mode=speed_mode, tables=_join_tables(tables), thr_idx=thr_idx,
                     s0=s0, s1=s1, pairs=pairs, rounds=rounds, work=work)


def solve_plan(plan: ExactPlan) -> BattleOdds:
    """Solve an :class:`ExactPlan` (Rules 4.3 C, 6.2-6.3, 8.3, 10.1-10.2).

    Returns:
        :class:`BattleOdds` with ``detail`` = ``{engine, states, tail_bound, seconds}``.
    """
    t0 = time.perf_counter()
    s = plan.s
    stars = np.asarray(s.stars, np.int64)
    lship = np.asarray([0, s.n0], np.int64)
    tno5, tall = damage_tables(_max_dice(s), int(s.defense.max()))
    # a state where no unit has a die to roll needs a unit printed with attack 0 on each side
    track_t = bool((s.attack[: s.n0] == 0).any() and (s.attack[s.n0:] == 0).any())
    acc = np.zeros((s.n, 4))
    out = np.zeros(NOUT)
    spec = ChainSpec(int(plan.s0), int(s.n0), int(s.n1), s.attack, s.defense, stars, lship, int(plan.speed_mode),
                     plan.thr_idx, tno5, tall)
    nst = chain_nb(ChainTables(*plan.tables), spec, max(0, plan.rounds), track_t, acc, out)
    if plan.rounds <= 0:
        path = int((s.defense + 1 - s.damage).sum()) + 1
        bound = _tail_bound(plan.limit, out[O_QMAX], path)
        if bound > TAIL_TOLERANCE:
            raise TooBigError(f"exact odds: a {plan.limit}-round limit on this battle needs {plan.limit} rounds "
                              f"one by one ({plan.pairs * plan.limit:.2g} outcome pairings); use --mc N")
        # battles that can no longer change (no dice left) run to the limit: count their rounds there
        mean_rounds = out[O_ROUNDS] + out[O_UNFINISHED] * plan.limit - out[O_STUCK_T]
        engine = "whole-battle Markov chain"
    else:
        bound = 0.0
        mean_rounds = out[O_ROUNDS]
        engine = f"Markov chain, round by round for {plan.rounds} rounds"
    return BattleOdds(
        win_gunfire=(out[O_WIN0], out[O_WIN1]), win_speed=(out[O_SPEED0], out[O_SPEED1]), mutual=out[O_MUTUAL],
        unfinished=out[O_UNFINISHED], mean_rounds=float(mean_rounds), p_sunk=acc[:, U_SUNK].copy(),
        p_disabled=acc[:, U_DISABLED].copy(), p_escaped=acc[:, U_ESCAPED].copy(),
        mean_damage=acc[:, U_DAMAGE].copy(), p_leader_killed=(out[O_LK0], out[O_LK1]),
        detail={"engine": engine, ("states" if plan.rounds <= 0 else "state_rounds"): int(nst), "tail_bound": bound,
                "pairings": plan.work, "seconds": time.perf_counter() - t0},
    )


def exact_odds(s: BattleSetup, limit: int, speed_mode: int, max_work: float = EXACT_MAX_WORK) -> BattleOdds:
    """Exact odds of a battle stopped after ``limit`` rounds (Rules 4.3 C, 6.2-6.3, 8.3, 10.1-10.2).

    A squadron leaving before battle (10.2.1) is certain; ``limit == 1`` uses :func:`single_round`
    (any size); otherwise the Markov chain of :mod:`simlab.games.doe.odds_kernels`
    (:func:`plan_exact`, :func:`solve_plan`): the whole battle when the probability of lasting
    beyond ``limit`` rounds is provably below :data:`TAIL_TOLERANCE` (``detail["tail_bound"]``),
    else ``limit`` rounds one by one, which is exact for the limit.

    Args:
        s: the battle; limit: round limit (``>= 1``; ``min(rounds, max_rounds)``);
        speed_mode: index into ``enums.SPEED_MODES``; max_work: refuse above this many pairings.

    Returns:
        :class:`BattleOdds` with ``detail``.

    Raises:
        TooBigError: if the battle is too big for exact odds (one line, naming the estimate).
        SpecError: if ``limit < 1``.
    """
    if limit < 1:
        raise SpecError(f"round limit must be at least 1, got {limit}")
    t0 = time.perf_counter()
    leaver = pre_battle_leaver(s, speed_mode)
    if leaver >= 0:
        return _left_before_battle(s, leaver)
    if limit == 1:
        r = single_round(s, speed_mode)
        return with_detail(r, seconds=time.perf_counter() - t0)
    r = solve_plan(plan_exact(s, limit, speed_mode, max_work=max_work))
    return with_detail(r, seconds=time.perf_counter() - t0)


def _join_tables(tables) -> tuple:
    """Side 1's table appended to side 0's (see :func:`~.odds_kernels.chain_nb`).

    Raises:
        RuntimeError: if "nothing happened" does not lead a side state back to itself (the order
            in which the chain processes states would be wrong: an internal error).
    """
    (t0, l0, d0, o0, x0, m0, e0, k0), (t1, l1, d1, o1, x1, m1, e1, k1) = tables
    for t, x in ((t0, x0), (t1, x1)):
        rows = t[1:-1, T_OFF]
        if rows.size and not np.array_equal(x[rows], np.arange(1, t.shape[0] - 1)):
            raise RuntimeError("exact odds: a side state's first outcome is not itself (a bug)")
    w0 = o0.shape[0]
    t1 = t1.copy()
    t1[:, T_OFF] += w0
    ns = max(l0.shape[1], l1.shape[1])
    kk = max(e0.shape[1], e1.shape[1], 1)

    def pad(a, width, fill=0):
        out = np.full((a.shape[0], width), fill, dtype=a.dtype)
        out[:, : a.shape[1]] = a
        return out

    return (np.ascontiguousarray(np.vstack([t0[:-1], t1])),
            np.vstack([pad(l0, ns), pad(l1, ns)]), np.vstack([pad(d0, ns), pad(d1, ns)]),
            np.vstack([pad(o0, ns), pad(o1, ns)]), np.concatenate([x0, x1]), np.concatenate([m0, m1]),
            np.vstack([pad(e0, kk, -1), pad(e1, kk, -1)]), np.vstack([pad(k0, kk), pad(k1, kk)]))


def with_detail(r: BattleOdds, **extra) -> BattleOdds:
    d = dict(r.detail or {})
    d.update(extra)
    return BattleOdds(**{**r.__dict__, "detail": d})
