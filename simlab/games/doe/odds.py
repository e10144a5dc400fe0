"""Exact and Monte Carlo odds of one Dawn of Empire battle (``simlab odds doe-battle``).

The odds have exactly the semantics of the battle kernel :func:`simlab.games.doe.kernels.battle_nb`
(Rules 6.2-6.3, 8.3, 10.1-10.2 with the rulings B1-B10 and O1-O7 of docs/rulings.md):

* **One round** (``rounds=1``, any line lengths, leaders, damaged units, speed disengagement):
  every unit's fate depends only on the dice aimed at it, and those are independent across target
  units, so per-unit results come from the dice table, a side's line empties with the product of
  its units' chances to leave it, and disengagement by speed after the round (10.2.2) conditions
  on the distribution of the opposing side's fastest remaining unit (:func:`single_round`).
* **Whole battles** and ``rounds >= 2``: a Markov chain over battle states, solved in order of
  increasing damage (:mod:`simlab.games.doe.odds_kernels`). Without a round limit a battle ends with
  probability 1 unless no unit has a die to roll; the limit ``min(rounds, max_rounds)`` is honoured
  exactly: when the chain shows that the probability of a battle lasting longer than the limit is
  below :data:`TAIL_TOLERANCE` (a binomial bound, see :func:`plan_exact`) the unlimited solution is
  reported with that bound, else the chain is propagated round by round up to the limit.
* **Monte Carlo**: the battle kernel itself (:func:`simlab.games.doe.battle.run_battles`), in
  chunks so memory stays flat, with 95% Wilson intervals.

The result is a JSON-ready dict; its shape is documented in :func:`battle_odds`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ...errors import DataPackError, SpecError
from ...rng import game_seeds
from .battle import BattleSetup, run_battles
from .enums import (
    DISABLED,
    END_MAX_ROUNDS,
    END_MUTUAL,
    END_SPEED,
    ESCAPED,
    LEADER_KILLED,
    SPEED_MODES,
    SPEED_WHEN_ABLE,
    SUNK,
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
    chain_nb,
    side_table_nb,
)

__all__ = [
    "AUTO_MAX_WORK",
    "DEFAULT_GAMES",
    "EXACT_MAX_WORK",
    "TAIL_TOLERANCE",
    "BattleOdds",
    "ExactPlan",
    "TooBigError",
    "battle_odds",
    "damage_tables",
    "exact_odds",
    "monte_carlo_odds",
    "plan_exact",
    "single_round",
    "size_bound",
]

#: Monte Carlo battles when none are asked for.
DEFAULT_GAMES = 200_000
#: Battles per kernel call under Monte Carlo (memory stays flat).
MC_CHUNK = 50_000
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
METHODS = ("auto", "exact", "monte_carlo")


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


def _pre_battle_leaver(s: BattleSetup, speed_mode: int) -> int:
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
    leaver = _pre_battle_leaver(s, speed_mode)
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
        tables: the joined side tables (:func:`~.odds_kernels.chain_nb`'s first eight arguments).
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
    nst = chain_nb(*plan.tables, plan.s0, s.n0, s.n1, s.attack, s.defense, stars, lship, plan.speed_mode,
                   plan.thr_idx, tno5, tall, max(0, plan.rounds), track_t, acc, out)
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
    leaver = _pre_battle_leaver(s, speed_mode)
    if leaver >= 0:
        return _left_before_battle(s, leaver)
    if limit == 1:
        r = single_round(s, speed_mode)
        return _with_detail(r, seconds=time.perf_counter() - t0)
    r = solve_plan(plan_exact(s, limit, speed_mode, max_work=max_work))
    return _with_detail(r, seconds=time.perf_counter() - t0)


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


def _with_detail(r: BattleOdds, **extra) -> BattleOdds:
    d = dict(r.detail or {})
    d.update(extra)
    return BattleOdds(**{**r.__dict__, "detail": d})


# --------------------------------------------------------------------------- Monte Carlo
def monte_carlo_odds(s: BattleSetup, games: int, seed: int, limit: int, speed_mode: int,
                     chunk: int = MC_CHUNK) -> BattleOdds:
    """Odds from ``games`` battles played by the battle kernel (:func:`run_battles`).

    Battle ``i`` uses the stream ``game_seeds(seed, 0, i, i + 1)``, so the result depends only on
    ``seed`` and ``games`` (not on ``chunk``); memory stays flat (``chunk`` battles at a time).

    Args:
        s: the battle; games: ``>= 1``; seed: master seed; limit: round limit (``>= 1``);
        speed_mode: index into ``enums.SPEED_MODES``; chunk: battles per kernel call.

    Returns:
        :class:`BattleOdds` with ``games`` set and ``detail["wins"]`` the win counts per side.

    Raises:
        SpecError: if ``games < 1``.
    """
    if games < 1:
        raise SpecError(f"Monte Carlo needs at least 1 battle, got {games}")
    t0 = time.perf_counter()
    n = s.n
    wins = np.zeros(2, np.int64)
    speed_wins = np.zeros(2, np.int64)
    mutual = unfinished = 0
    rounds = 0
    sunk = np.zeros(n, np.int64)
    dis = np.zeros(n, np.int64)
    esc = np.zeros(n, np.int64)
    dmg = np.zeros(n, np.int64)
    lk = np.zeros(2, np.int64)
    base = s.damage.astype(np.int64)
    for start in range(0, games, chunk):
        stop = min(games, start + chunk)
        raw = run_battles(s, game_seeds(seed, 0, start, stop), limit, speed_mode)
        w, why = raw["winner"], raw["reason"]
        for t in (0, 1):
            wins[t] += int(np.count_nonzero(w == t))
            speed_wins[t] += int(np.count_nonzero((w == t) & (why == END_SPEED)))
            lk[t] += int(np.count_nonzero(raw["leader"][:, t] == LEADER_KILLED))
        mutual += int(np.count_nonzero(why == END_MUTUAL))
        unfinished += int(np.count_nonzero(why == END_MAX_ROUNDS))
        rounds += int(raw["rounds"].sum(dtype=np.int64))
        st = raw["status"]
        sunk += np.count_nonzero(st == SUNK, axis=0)
        dis += np.count_nonzero(st == DISABLED, axis=0)
        esc += np.count_nonzero(st == ESCAPED, axis=0)
        dmg += raw["damage"].sum(axis=0, dtype=np.int64) - base * (stop - start)
    g = float(games)
    return BattleOdds(
        win_gunfire=((wins[0] - speed_wins[0]) / g, (wins[1] - speed_wins[1]) / g),
        win_speed=(speed_wins[0] / g, speed_wins[1] / g), mutual=mutual / g, unfinished=unfinished / g,
        mean_rounds=rounds / g, p_sunk=sunk / g, p_disabled=dis / g, p_escaped=esc / g, mean_damage=dmg / g,
        p_leader_killed=(lk[0] / g, lk[1] / g), games=games,
        detail={"wins": [int(wins[0]), int(wins[1])], "neither": int(mutual + unfinished),
                "sunk": sunk.tolist(), "seconds": time.perf_counter() - t0},
    )


# --------------------------------------------------------------------------- the public entry
def _limit(rounds: int | None, max_rounds: int) -> int:
    if rounds is None:
        return int(max_rounds)
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise SpecError(f"--rounds must be a whole number of rounds >= 1, got {rounds!r}")
    return int(min(int(rounds), int(max_rounds)))


def battle_odds(s: BattleSetup, *, rounds: int | None = None, method: str = "auto", games: int | None = None,
                seed: int = 0, max_rounds: int = 1000, speed_mode: int = 0) -> dict[str, Any]:
    """Odds of one battle, as the JSON ``simlab odds doe-battle`` prints.

    Args:
        s: the battle (:func:`simlab.games.doe.battle.parse_battle`).
        rounds: stop after this many rounds (``>= 1``; None: the whole battle); a battle still
            going then counts as neither side winning.
        method: ``"auto"`` (exact when it takes about a second or less: always for one round or
            a squadron leaving before battle, whole battles up to about 3 v 3; else Monte Carlo),
            ``"exact"`` or ``"monte_carlo"``.
        games: Monte Carlo battles (default :data:`DEFAULT_GAMES`); giving it with ``"auto"``
            selects Monte Carlo.
        seed: Monte Carlo master seed.
        max_rounds: the game option (Rule 4.3 C, ruling B9): the battle stops as a draw after it.
        speed_mode: index into ``enums.SPEED_MODES`` (Rule 10.2, ruling B8).

    Returns:
        ``{method, games (Monte Carlo only), seed (Monte Carlo only), sides: {side: {p_win, ci,
        p_win_gunfire, p_win_speed, leader, leader_stars, p_leader_killed}}, p_neither, p_mutual,
        p_unfinished, mean_rounds, units: [{side, name, p_sunk, p_disabled, p_escaped, p_in_line,
        mean_damage}], rounds, max_rounds, speed_disengage, chosen_automatically, engine, ...}``.
        ``ci`` is the 95% Wilson interval under Monte Carlo and ``[p, p]`` when exact;
        ``p_neither = p_mutual + p_unfinished``; ``p_disabled`` counts units that end disabled and
        not sunk; ``mean_damage`` is damage points taken in this battle (beyond sinking included).

    Raises:
        SpecError: on a bad method, round limit, game count or seed; TooBigError when
            ``method="exact"`` is asked of a battle too big for it (one line).
    """
    if method in ("mc", "monte-carlo"):
        method = "monte_carlo"
    if method not in METHODS:
        raise SpecError(f"unknown odds method '{method}' (methods: {', '.join(METHODS)})")
    if games is not None and (isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1):
        raise SpecError(f"Monte Carlo battles must be a whole number >= 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SpecError(f"seed must be a whole number >= 0, got {seed!r}")
    limit = _limit(rounds, max_rounds)
    result = None
    chosen = method
    if method == "exact":
        result = exact_odds(s, limit, speed_mode)
    elif method == "auto" and games is None:
        t0 = time.perf_counter()
        if limit == 1 or _pre_battle_leaver(s, speed_mode) >= 0:
            result = exact_odds(s, limit, speed_mode)
        elif size_bound(s) <= AUTO_MAX_BOUND:
            try:
                plan = plan_exact(s, limit, speed_mode, max_work=AUTO_MAX_WORK, max_bound=AUTO_MAX_BOUND)
            except TooBigError:
                plan = None
            if plan is not None:
                result = _with_detail(solve_plan(plan), seconds=time.perf_counter() - t0)
        chosen = "exact" if result is not None else "monte_carlo"
    if result is None:
        chosen = "monte_carlo"
        result = monte_carlo_odds(s, int(games or DEFAULT_GAMES), int(seed), limit, speed_mode)
    return odds_dict(s, result, method=chosen, auto=method == "auto", rounds=rounds, max_rounds=max_rounds,
                     speed_mode=speed_mode, seed=seed)


def odds_dict(s: BattleSetup, r: BattleOdds, *, method: str, auto: bool, rounds: int | None, max_rounds: int,
              speed_mode: int, seed: int) -> dict[str, Any]:
    """The JSON-ready dict of :func:`battle_odds` from raw :class:`BattleOdds`."""
    from ...stats.intervals import wilson_interval
    exact = method == "exact"
    out: dict[str, Any] = {"method": "exact" if exact else "monte_carlo"}
    if not exact:
        out["games"] = int(r.games)
        out["seed"] = int(seed)
    sides: dict[str, Any] = {}
    for t, name in enumerate(s.sides):
        p = float(r.p_win[t])
        if exact:
            ci = [p, p]
        else:
            lo, hi = wilson_interval(r.detail["wins"][t], r.games)
            ci = [float(lo), float(hi)]
        sides[name] = {"p_win": p, "ci": ci, "p_win_gunfire": float(r.win_gunfire[t]),
                       "p_win_speed": float(r.win_speed[t]), "leader": s.leaders[t] or None,
                       "leader_stars": int(s.stars[t]), "p_leader_killed": float(r.p_leader_killed[t])}
    out["sides"] = sides
    out["p_neither"] = float(r.mutual + r.unfinished)
    if not exact:
        lo, hi = wilson_interval(r.detail["neither"], r.games)
        out["p_neither_ci"] = [float(lo), float(hi)]
    out["p_mutual"] = float(r.mutual)
    out["p_unfinished"] = float(r.unfinished)
    out["mean_rounds"] = float(r.mean_rounds)
    units = []
    for u in range(s.n):
        t = int(s.unit_side[u])
        ps, pd, pe = float(r.p_sunk[u]), float(r.p_disabled[u]), float(r.p_escaped[u])
        row = {"side": s.sides[t], "name": s.names[u], "p_sunk": ps, "p_disabled": pd, "p_escaped": pe,
               "p_in_line": max(0.0, 1.0 - ps - pd - pe), "mean_damage": float(r.mean_damage[u])}
        if not exact:
            lo, hi = wilson_interval(r.detail["sunk"][u], r.games)
            row["p_sunk_ci"] = [float(lo), float(hi)]
        units.append(row)
    out["units"] = units
    out["rounds"] = None if rounds is None else int(rounds)
    out["max_rounds"] = int(max_rounds)
    out["speed_disengage"] = SPEED_MODES[speed_mode]
    out["chosen_automatically"] = bool(auto)
    d = r.detail or {}
    if exact:
        out["engine"] = d.get("engine", "")
        for k in ("states", "state_rounds"):
            if k in d:
                out[k] = d[k]
        if "tail_bound" in d:
            out["tail_bound"] = d["tail_bound"]
    else:
        out["engine"] = "battle kernel (Monte Carlo)"
    return out


# --------------------------------------------------------------------------- façade and CLI
#: the most Monte Carlo battles one ``odds`` call plays (about three hours at a million a second)
MAX_MC_BATTLES = 10**10


def game_odds(game, battle: str | Path | None = None, *, rounds: int | None = None, method: str = "auto",
              games: int | None = None, seed: int = 0, data: str | Path | None = None,
              options: dict | None = None) -> dict[str, Any]:
    """``simlab.odds("doe-battle", battle, ...)``: load the battle, resolve options, compute odds.

    Args:
        game: the :class:`~simlab.games.doe.battle.DoeBattle` plug-in.
        battle: a battle file (TOML) or a built-in scenario name (default ``puerto-rico-passage``).
        rounds, method, games, seed: see :func:`battle_odds`.
        data: a data-pack override file (``--data``).
        options: game options (``max_rounds``, ``speed_disengage``), values as in ``--set``.

    Returns:
        :func:`battle_odds`'s dict plus ``scenario``, ``title``, ``source`` and ``data`` (the pack's
        name, version and hash, the values this battle read counted by provenance, and the
        provisional ones among them: ``provisional_used``).

    Raises:
        ScenarioError, DataPackError, SpecError: bad input (one line), including a seed outside
            0..2**64-1 or more than MAX_MC_BATTLES battles.
    """
    if not 0 <= seed < 2**64:
        raise SpecError(f"--seed must be in 0..2**64-1 (got {seed})")
    if games is not None and not 1 <= games <= MAX_MC_BATTLES:
        raise SpecError(f"--mc must be 1..{MAX_MC_BATTLES:,} battles (got {games})")
    if data is not None and not Path(data).is_file():
        raise DataPackError(f"data pack override not found: {data}")
    pack = game.load_data(data)
    opts = game.resolve_options(dict(options or {}))
    sc = game.load_scenario(str(battle) if battle is not None else None, pack)
    speed = SPEED_MODES.index(opts["speed_disengage"])
    res = battle_odds(sc.payload, rounds=rounds, method=method, games=games, seed=seed,
                      max_rounds=opts["max_rounds"], speed_mode=speed)
    view = pack.view()
    view.used |= set(sc.used)
    head = {"scenario": sc.name, "title": sc.title, "source": sc.source}
    return {**head, **res, "data": view.summary()}


def _parse_sets(items: list[str] | None) -> dict[str, str]:
    out = {}
    for it in items or []:
        if "=" not in it:
            raise SpecError(f"--set wants OPTION=VALUE, got '{it}'")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def render_odds(res: dict[str, Any]):
    """A rich renderable of :func:`game_odds`'s dict: the sides, a summary line, the units."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    def pct(x: float) -> str:
        return f"{100 * x:.2f}%"

    exact = res["method"] == "exact"
    if exact:
        how = f"exact: {res.get('engine', '')}" + (f", {res['states']:,} states" if "states" in res else "")
        if "state_rounds" in res:
            how += f", {res['state_rounds']:,} state-rounds"
    else:
        how = f"Monte Carlo: {res['games']:,} battles, seed {res['seed']}, 95% Wilson intervals"
    if res.get("chosen_automatically"):
        how += " (chosen automatically)"
    lim = f"stops after {res['rounds']} round(s)" if res["rounds"] is not None else "whole battle"
    title = (f"{res.get('title') or res.get('scenario', 'battle')} — {lim}, "
             f"speed_disengage={res['speed_disengage']}, max_rounds={res['max_rounds']}")
    t = Table(title=title, caption=how)
    t.add_column("side")
    t.add_column("wins", justify="right")
    if not exact:
        t.add_column("95% CI", justify="right")
    t.add_column("by gunfire", justify="right")
    t.add_column("by speed", justify="right")
    t.add_column("leader", justify="left")
    t.add_column("leader killed", justify="right")
    for name, v in res["sides"].items():
        row = [name, pct(v["p_win"])]
        if not exact:
            row.append(f"{100 * v['ci'][0]:.2f}–{pct(v['ci'][1])}")
        lead = f"{v['leader'] or 'leader'} ({v['leader_stars']}★)" if v["leader_stars"] else "-"
        row += [pct(v["p_win_gunfire"]), pct(v["p_win_speed"]), lead,
                pct(v["p_leader_killed"]) if v["leader_stars"] else "-"]
        t.add_row(*row)
    summary = Text(
        f"neither side wins: {pct(res['p_neither'])} (both lines emptied in the same round {pct(res['p_mutual'])}, "
        f"still fighting at the round limit {pct(res['p_unfinished'])}); mean rounds {res['mean_rounds']:.3f}")
    if res.get("tail_bound"):
        summary.append(f"; P(longer than {res['max_rounds'] if res['rounds'] is None else res['rounds']} rounds) "
                       f"<= {res['tail_bound']:.1e}")
    u = Table()
    for c in ("side", "unit", "sunk", "disabled", "escaped", "in line", "mean damage"):
        u.add_column(c, justify="left" if c in ("side", "unit") else "right")
    for r in res["units"]:
        u.add_row(r["side"], r["name"], pct(r["p_sunk"]), pct(r["p_disabled"]), pct(r["p_escaped"]),
                  pct(r["p_in_line"]), f"{r['mean_damage']:.3f}")
    parts = [t, summary, u]
    d = res.get("data")
    if d:
        c = d["counts"]
        parts.append(Text(f"data pack {d['name']} {d['version']} ({d['hash']}): {d['values_used']} values used — "
                          f"{c['rulebook']} rulebook, {c['example']} example, {c['provisional']} provisional, "
                          f"{c['user']} user (`simlab data show dawn-of-empire`)", style="dim"))
    return Group(*parts)


def odds_command(
    battle: Annotated[str, typer.Argument(help="battle file (TOML) or built-in scenario name, e.g. puerto-rico-passage")],
    rounds: Annotated[int | None, typer.Option("--rounds", help="stop after K rounds (a battle still going counts as neither)")] = None,
    exact: Annotated[bool, typer.Option("--exact", help="exact odds (refused, in one line, when the battle is too big)")] = False,
    mc: Annotated[int | None, typer.Option("--mc", help="Monte Carlo with N battles")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Monte Carlo master seed")] = 0,
    data: Annotated[str | None, typer.Option("--data", help="data pack override (TOML)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="OPTION=VALUE (max_rounds, speed_disengage); repeatable")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Exact or Monte Carlo odds of one Dawn of Empire battle (Rules 6.2-6.3, 8.3, 10).

    Without --exact or --mc the odds are exact when the battle is small enough (always for
    --rounds 1), else Monte Carlo with 200,000 battles; the output says which.
    """
    import json
    import sys

    from .battle import GAME
    if exact and mc is not None:
        raise SpecError("choose one of --exact and --mc N")
    if mc is not None and mc < 1:
        raise SpecError(f"--mc wants a number of battles >= 1, got {mc}")
    if rounds is not None and rounds < 1:
        raise SpecError(f"--rounds wants a number of rounds >= 1, got {rounds}")
    if seed < 0:
        raise SpecError(f"--seed wants a whole number >= 0, got {seed}")
    method = "exact" if exact else ("monte_carlo" if mc is not None else "auto")
    res = game_odds(GAME, battle, rounds=rounds, method=method, games=mc, seed=seed, data=data,
                    options=_parse_sets(set_))
    if json_:
        sys.stdout.write(json.dumps(res, indent=2) + "\n")
        return
    from rich.console import Console
    Console(highlight=False).print(render_odds(res))


# --------------------------------------------------------------------------- benchmarks
#: The 3 v 3 battle the benchmark solves exactly: the first three ships of each side of 18.2.6.
BENCH_3V3 = {
    "title": "18.2.6 ships, 3 v 3",
    "spain": {"leader": "Cervera", "units": [{"name": "Teresa"}, {"name": "Vizcaya"}, {"name": "Oquendo"}]},
    "us": {"leader": "Schley", "units": [{"name": "Massachusetts"}, {"name": "Brooklyn"}, {"name": "Texas"}]},
}


def bench_cases(game, quick: bool = False) -> list[dict]:
    """``DoeBattle.bench_cases``: what issue 2 asks the benchmark to show for doe-battle.

    * the battle kernel on the 18.2.6 battle, battles/s on one core (target >= 1,000,000/s);
    * the pure-Python reference (:mod:`simlab.games.doe.reference`) on the same battle in the same
      run (the harness derives the ratio; the kernel must be >= 50 times faster);
    * seconds for exact odds of round 1 of the 18.2.6 battle (4 v 7; target <= 0.1 s with a warm
      cache) and of a whole 3 v 3 battle of the 18.2.6 ships.
    """
    from .battle import parse_battle
    from .reference import play_reference

    pack = game.load_data()
    setup = game.load_scenario("puerto-rico-passage", pack).payload
    three = parse_battle(BENCH_3V3, pack.view(), "bench 3 v 3")
    n_kernel = 50_000 if quick else 1_000_000
    n_ref = 500 if quick else 5_000
    seeds = game_seeds(0, 0, 0, n_kernel)
    units = [(int(a), int(d), int(m), int(g)) for a, d, m, g in
             zip(setup.attack, setup.defense, setup.movement, setup.damage, strict=True)]
    return [
        {"name": "kernel puerto-rico-passage", "unit": "battles", "items": n_kernel,
         "fn": lambda: run_battles(setup, seeds, 1000, 0)},
        {"name": "pure Python puerto-rico-passage", "unit": "battles", "items": n_ref,
         "fn": lambda: play_reference(units, setup.n0, setup.stars, range(n_ref))},
        {"name": "exact single round 4 v 7", "unit": "s", "items": 1, "fn": lambda: exact_odds(setup, 1, 0),
         "detail": "exact odds of round 1 of the 18.2.6 battle, warm cache"},
        {"name": "exact whole battle 3 v 3", "unit": "s", "items": 1, "fn": lambda: exact_odds(three, 1000, 0),
         "detail": "exact odds of a whole battle of the first three ships of each side of 18.2.6"},
    ]
