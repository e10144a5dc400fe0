"""Statistics of the analysis layer: Wilson coverage, SPRT error rates, paired intervals, the
zero-sum solver, curve fits and their bootstrap. Oracles are written independently of the code."""

import math

import numpy as np
import pytest
from scipy import stats

from simlab.stats.intervals import wilson_interval, wilson_scipy
from simlab.stats.metagame import solve_zero_sum
from simlab.stats.paired import PairedTable, paired_difference, paired_table
from simlab.stats.sprt import SPRT, SprtState
from simlab.stats.tuning import (
    MISSING,
    bootstrap_roots,
    fit_curve,
    pattern_counts,
    rates_from_patterns,
)


# --------------------------------------------------------------------------- Wilson coverage
def exact_coverage(p, n, confidence=0.95):
    """P(p in the Wilson interval) under Binomial(n, p): sum of the pmf over covering k."""
    k = np.arange(n + 1)
    lo, hi = wilson_interval(k, n, confidence)
    return float(stats.binom.pmf(k, n, p)[(lo <= p) & (p <= hi)].sum())


@pytest.mark.parametrize("n", [20, 50, 200, 1000])
@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.8])
def test_wilson_exact_coverage_near_nominal(n, p):
    cov = exact_coverage(p, n)
    # Wilson's coverage oscillates around the nominal level; away from p*n < 5 it stays within 3 points
    assert 0.92 <= cov <= 0.985, cov


@pytest.mark.parametrize("n", [30, 100, 1000])
def test_wilson_mean_coverage_over_p_is_nominal(n):
    ps = np.linspace(0.05, 0.95, 181)
    mean = np.mean([exact_coverage(p, n) for p in ps])
    assert abs(mean - 0.95) < 0.01, mean


def test_wilson_simulated_coverage_matches_exact():
    rng = np.random.default_rng(20261130)
    n, p, reps = 60, 0.3, 20000
    k = rng.binomial(n, p, size=reps)
    lo, hi = wilson_interval(k, n)
    sim = float(((lo <= p) & (p <= hi)).mean())
    exact = exact_coverage(p, n)
    se = math.sqrt(exact * (1 - exact) / reps)
    assert abs(sim - exact) < 4 * se


def test_wilson_vectorised_equals_scipy():
    for k, n in [(0, 10), (3, 10), (10, 10), (517, 1000), (1, 3)]:
        lo, hi = wilson_interval(k, n)
        slo, shi = wilson_scipy(k, n)
        assert lo == pytest.approx(slo, abs=1e-12) and hi == pytest.approx(shi, abs=1e-12)


def test_exact_coverage_helper_detects_a_bad_interval():
    # the helper must be able to fail: a point "interval" covers p almost never
    k = np.arange(51)
    cov = float(stats.binom.pmf(k, 50, 0.3)[np.isclose(k / 50, 0.3)].sum())
    assert cov < 0.2
    assert exact_coverage(0.3, 50) > 0.9


# --------------------------------------------------------------------------- SPRT
def sprt_by_loop(xs, p0, p1, alpha, beta):
    """Oracle: Wald's test trial by trial, written from the definition."""
    a = math.log(beta / (1 - alpha))
    b = math.log((1 - beta) / alpha)
    llr = 0.0
    for i, x in enumerate(xs):
        llr += math.log(p1 / p0) if x else math.log((1 - p1) / (1 - p0))
        if llr >= b:
            return 1, i + 1
        if llr <= a:
            return 0, i + 1
    return -1, len(xs)


def test_sprt_matches_loop_oracle_and_staging():
    rng = np.random.default_rng(7)
    t = SPRT(0.5, 0.6)
    x = rng.random((300, 400)) < 0.55
    dec, used = t.decide_many(x)
    for r in range(300):
        assert (int(dec[r]), int(used[r])) == sprt_by_loop(x[r], 0.5, 0.6, 0.05, 0.05)
    # feeding the same trials in stages of any size gives the same stopping point
    for r in range(20):
        st = SprtState(0.0, 0, 0, None)
        for s in range(0, 400, 37):
            st = t.scan(x[r, s:s + 37], st)
        whole = t.scan(x[r])
        assert (st.decision, st.trials, st.successes) == (whole.decision, whole.trials, whole.successes)
        assert st.trials == used[r]


def test_sprt_error_rates_at_alpha_beta_005():
    rng = np.random.default_rng(20261130)
    t = SPRT(0.5, 0.6, 0.05, 0.05)
    runs, k = 4000, 2000
    # Wald: actual errors are at most alpha / (1 - beta) (and a little less from overshoot)
    bound = t.alpha / (1 - t.beta)
    tol = 3 * math.sqrt(bound * (1 - bound) / runs)
    under_h0, _ = t.decide_many(rng.random((runs, k)) < t.p0)
    under_h1, _ = t.decide_many(rng.random((runs, k)) < t.p1)
    assert (under_h0 == -1).mean() < 0.001 and (under_h1 == -1).mean() < 0.001
    type1 = (under_h0 == 1).mean()
    type2 = (under_h1 == 0).mean()
    assert type1 <= bound + tol and type2 <= bound + tol
    # and the test is not trivially conservative: errors occur at a rate of the order of alpha
    assert type1 > 0.02 and type2 > 0.02


def test_sprt_bounds_and_bad_parameters():
    t = SPRT(0.5, 0.6)
    assert t.upper == pytest.approx(math.log(19)) and t.lower == pytest.approx(-math.log(19))
    assert t.llr(3, 2) == pytest.approx(3 * math.log(1.2) + 2 * math.log(0.8))
    for args in [(0.0, 0.6), (0.5, 1.0), (0.5, 0.5), (0.5, 0.6, 0.6), (0.5, 0.6, 0.05, 0.0)]:
        with pytest.raises(ValueError):
            SPRT(*args)


# --------------------------------------------------------------------------- paired intervals
def test_paired_difference_coverage_by_simulation():
    rng = np.random.default_rng(11)
    # joint distribution of (first, second): P(1,1), P(1,0), P(0,1), P(0,0)
    probs = np.array([0.30, 0.12, 0.06, 0.52])
    true = probs[1] - probs[2]
    reps, n = 3000, 150
    tabs = rng.multinomial(n, probs, size=reps)
    hits = 0
    for a, b, c, d in tabs:
        _, lo, hi = paired_difference(PairedTable(int(a), int(b), int(c), int(d)))
        hits += lo <= true <= hi
    cov = hits / reps
    assert abs(cov - 0.95) < 3 * math.sqrt(0.95 * 0.05 / reps) + 0.01, cov


def test_paired_difference_values():
    t = paired_table([1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 1, 0])
    assert (t.both, t.first_only, t.second_only, t.neither) == (2, 1, 1, 2)
    d, lo, hi = paired_difference(t)
    assert d == 0 and lo < 0 < hi
    # no discordant games: the difference is 0, and the interval shrinks with n
    d1, lo1, hi1 = paired_difference(PairedTable(40, 0, 0, 60))
    d2, lo2, hi2 = paired_difference(PairedTable(4000, 0, 0, 6000))
    assert d1 == d2 == 0 and hi2 - lo2 < hi1 - lo1
    # a strong one-sided difference excludes 0
    d, lo, hi = paired_difference(PairedTable(100, 60, 5, 835))
    assert d == pytest.approx(55 / 1000) and lo > 0
    with pytest.raises(ValueError):
        paired_difference(PairedTable(0, 0, 0, 0))
    with pytest.raises(ValueError):
        paired_table([1, 0], [1])


# --------------------------------------------------------------------------- zero-sum solver
def test_rock_paper_scissors_value_zero_uniform_mix():
    eq = solve_zero_sum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    assert eq.value == pytest.approx(0, abs=1e-9)
    np.testing.assert_allclose(eq.row_mix, [1 / 3] * 3, atol=1e-9)
    np.testing.assert_allclose(eq.col_mix, [1 / 3] * 3, atol=1e-9)


def test_completely_mixed_3x3_matches_closed_form():
    # a game with no saddle point and an invertible matrix: value = 1 / (1^T A^-1 1),
    # x = v 1^T A^-1, y = v A^-1 1 (the classical formula for completely mixed games)
    a = np.array([[0.0, 2.0, -1.0], [-1.0, 0.0, 3.0], [1.0, -2.0, 0.0]])
    inv = np.linalg.inv(a)
    one = np.ones(3)
    v = 1 / (one @ inv @ one)
    x = v * (one @ inv)
    y = v * (inv @ one)
    assert (x > 0).all() and (y > 0).all()  # completely mixed, so the formula applies
    eq = solve_zero_sum(a)
    assert eq.value == pytest.approx(v, abs=1e-9)
    np.testing.assert_allclose(eq.row_mix, x, atol=1e-8)
    np.testing.assert_allclose(eq.col_mix, y, atol=1e-8)
    assert v == pytest.approx(4 / 25)
    np.testing.assert_allclose(eq.row_mix, [0.44, 0.2, 0.36], atol=1e-8)


def test_saddle_point_3x3():
    eq = solve_zero_sum([[3, 1, 4], [2, 0, 1], [5, 1, 2]])
    assert eq.value == pytest.approx(1.0)
    assert eq.col_mix[1] == pytest.approx(1.0)


def test_solver_rejects_bad_matrices():
    for bad in ([], [[1, np.nan]], [1, 2, 3]):
        with pytest.raises(ValueError):
            solve_zero_sum(bad)


# --------------------------------------------------------------------------- curve fits
def test_logistic_fit_recovers_exact_parameters():
    x = np.linspace(-2, 3, 9)
    n = np.full(9, 1e6)
    k = n / (1 + np.exp(-(0.7 + 1.9 * x)))
    c = fit_curve(x, k, n, "logistic")
    assert c.params[0] == pytest.approx(0.7, abs=1e-4) and c.params[1] == pytest.approx(1.9, abs=1e-4)
    assert c.root(0.5) == pytest.approx(-0.7 / 1.9, abs=1e-4)
    assert c.root(0.5, lo=0, hi=1) is None
    assert c.root(0.999, bounded=False) > 3


def test_isotonic_fit_is_monotone_and_interpolates():
    x = np.array([0.0, 1.0, 2.0, 3.0])
    n = np.array([100, 100, 100, 100])
    k = np.array([20, 45, 40, 80])  # a dip that the monotone fit pools
    c = fit_curve(x, k, n, "isotonic")
    assert np.all(np.diff(c.fitted) >= 0)
    np.testing.assert_allclose(c.fitted, [0.2, 0.425, 0.425, 0.8])
    assert c.root(0.5) == pytest.approx(2 + 0.075 / 0.375)
    assert c.root(0.9) is None and c.root(0.9, bounded=False) == np.inf
    assert fit_curve(x, n - k, n, "isotonic").root(0.9, bounded=False) == -np.inf
    with pytest.raises(ValueError):
        fit_curve(x, k, n, "cubic")
    with pytest.raises(ValueError):
        fit_curve([1.0], [1], [2])


def test_patterns_and_rates():
    y = np.array([[0, 1, -1, 0, MISSING], [0, 0, -1, 0, 1]], dtype=np.int8)
    pats, counts = pattern_counts(y)
    assert counts.sum() == 5 and pats.shape[1] == 4
    k, n = rates_from_patterns(pats, counts, 0, decided_only=False)
    np.testing.assert_allclose(k, [2, 3])
    np.testing.assert_allclose(n, [4, 5])
    k, n = rates_from_patterns(pats, counts, 0, decided_only=True)
    np.testing.assert_allclose(n, [3, 4])


def test_bootstrap_roots_cover_the_truth_with_crn_structure():
    # common random numbers: game j wins at value x when u_j < p(x), one u per game
    rng = np.random.default_rng(5)
    x = np.linspace(-1, 1.6, 7)
    truth = 0.3
    p = 1 / (1 + np.exp(-2 * (x - truth)))
    u = rng.random(3000)
    y = np.where(u[None, :] < p[:, None], 0, 1).astype(np.int8)
    pats, counts = pattern_counts(y)
    roots = bootstrap_roots(pats, counts, x, 0, 0.5, True, "logistic", 400, np.random.default_rng(1))
    lo, hi = np.quantile(roots, [0.025, 0.975])
    assert lo < truth < hi and hi - lo < 0.2


@pytest.mark.timeout(1800)  # slow: above the suite's default limit (tests/test_suite_config.py)
@pytest.mark.slow
def test_bootstrap_interval_coverage_under_crn():
    """The tuner's percentile bootstrap covers the fair value ~95% of the time (CRN structure)."""
    rng = np.random.default_rng(20261130)
    x = np.arange(-1, 2.01, 0.5)
    truth = 0.3
    p = 1 / (1 + np.exp(-2 * (x - truth)))
    reps = 200
    hits = 0
    for r in range(reps):
        draw = rng.random(2000) < 0.1
        u = rng.random(2000)
        y = np.where(draw[None, :], -1, np.where(u[None, :] < p[:, None], 0, 1)).astype(np.int8)
        pats, counts = pattern_counts(y)
        roots = bootstrap_roots(pats, counts, x, 0, 0.5, True, "logistic", 200, np.random.default_rng(r))
        lo, hi = np.quantile(roots, [0.025, 0.975])
        hits += lo < truth < hi
    cov = hits / reps
    assert abs(cov - 0.95) < 3 * math.sqrt(0.95 * 0.05 / reps), cov


def test_sprt_loop_oracle_can_fail():
    # all successes cross the upper bound at the first n with n log(1.2) >= log(19)
    n = math.ceil(math.log(19) / math.log(1.2))
    assert sprt_by_loop([True] * 50, 0.5, 0.6, 0.05, 0.05) == (1, n)
    assert sprt_by_loop([False] * 50, 0.5, 0.6, 0.05, 0.05)[0] == 0
    assert sprt_by_loop([True, False] * 3, 0.5, 0.6, 0.05, 0.05) == (-1, 6)


@pytest.mark.parametrize("p_a,p_b", [(0.45, 0.35), (0.7, 0.05), (0.3, 0.3)])
def test_side_advantage_interval_coverage(p_a, p_b):
    # one game cannot be won by both sides: the "both" cell is empty, the rest is a trinomial
    rng = np.random.default_rng(int(100 * p_a + 10 * p_b))
    probs = np.array([0.0, p_a, p_b, 1 - p_a - p_b])
    reps, n = 2000, 200
    tabs = rng.multinomial(n, probs, size=reps)
    hits = sum(lo <= p_a - p_b <= hi for _, lo, hi in
               (paired_difference(PairedTable(*map(int, t))) for t in tabs))
    cov = hits / reps
    # two-sided: an interval too wide (coverage near 1) fails as one too narrow does
    assert abs(cov - 0.95) < 3 * math.sqrt(0.95 * 0.05 / reps), cov


def test_sprt_bounds_with_alpha_not_beta_follow_wald():
    # Wald: accept H1 when the likelihood ratio reaches A = (1 - beta) / alpha, H0 at B = beta / (1 - alpha);
    # with alpha != beta a swap of the two error rates moves both bounds
    alpha, beta = 0.01, 0.2
    t = SPRT(0.5, 0.6, alpha, beta)
    assert t.upper == pytest.approx(math.log((1 - beta) / alpha), abs=1e-12)
    assert t.lower == pytest.approx(math.log(beta / (1 - alpha)), abs=1e-12)
    rng = np.random.default_rng(3)
    x = rng.random((200, 600)) < 0.55
    dec, used = t.decide_many(x)
    for r in range(200):
        assert (int(dec[r]), int(used[r])) == sprt_by_loop(x[r], 0.5, 0.6, alpha, beta)


def test_bootstrap_spread_matches_the_sampling_spread():
    # the bootstrap resamples as many games as were played: its roots spread as the roots of fresh
    # samples of the same size do (a bootstrap on half the games spreads sqrt(2) times wider)
    from simlab.stats.tuning import estimate_root
    x = np.linspace(-1, 1.6, 7)
    p = 1 / (1 + np.exp(-2 * (x - 0.3)))
    games, fresh, reps = 3000, 200, 400

    def sample(rng):
        u = rng.random(games)
        return pattern_counts(np.where(u[None, :] < p[:, None], 0, 1).astype(np.int8))

    rng = np.random.default_rng(20261202)
    roots = []
    for _ in range(fresh):
        pats, counts = sample(rng)
        k, n = rates_from_patterns(pats, counts, 0, True)
        roots.append(estimate_root(x, k, n, 0.5, "logistic", bounded=False)[0])
    true_sd = float(np.std(roots, ddof=1))
    pats, counts = sample(rng)
    boot = bootstrap_roots(pats, counts, x, 0, 0.5, True, "logistic", reps, np.random.default_rng(1))
    ratio = float(np.std(boot, ddof=1)) / true_sd
    # the SD of m normal draws has relative SE 1 / sqrt(2 (m - 1)); four of the two combined
    tol = 4 * math.sqrt(1 / (2 * (fresh - 1)) + 1 / (2 * (reps - 1)))
    assert abs(ratio - 1) < tol, (ratio, tol)
