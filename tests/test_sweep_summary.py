"""The end-of-sweep report from the chunks' summaries (issue 17): per-cell statistics that add up
chunk by chunk, exactly, and give the rows `simlab report` reads back from the parts."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from simlab.results import length_distribution, report, report_rows, sweep_report
from simlab.stats import cellstats
from simlab.sweeps.runner import run_sweep
from simlab.sweeps.spec import SweepSpec


@pytest.mark.parametrize("seed", range(6))
def test_quantiles_from_counts_equal_numpy(seed):
    rng = np.random.default_rng(seed)
    for n in (1, 2, 3, 7, 10, 101, 1000):
        x = rng.integers(1, 9 + seed, size=n).astype(np.float64)
        if seed % 2:
            x = x * 0.37 - 1.5  # non-integer values
        v, c = np.unique(x, return_counts=True)
        qs = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
        assert cellstats.quantiles_from_counts(v, c, qs) == [float(q) for q in np.quantile(x, qs)]


def test_exact_sums_are_exact_and_order_free():
    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 3.0, size=5000)
    s1, s2, k = cellstats.exact_sums(x)
    assert Fraction(s1, 2 ** k) == sum(Fraction(float(v)) for v in x)
    assert Fraction(s2, 2 ** (2 * k)) == sum(Fraction(float(v)) ** 2 for v in x)
    parts = [cellstats.exact_sums(p) for p in np.array_split(x, 7)]
    tot = parts[0]
    for p in parts[1:]:
        tot = cellstats._add_sums(tot, p)
    assert Fraction(tot[0], 2 ** tot[2]) == Fraction(s1, 2 ** k)
    mean, sd = cellstats._mean_sd(tot, x.size)
    assert mean == pytest.approx(float(x.mean()), rel=1e-14)
    assert sd == pytest.approx(float(x.std(ddof=1)), rel=1e-12)
    assert cellstats.exact_sums(np.array([1, -3, 4], dtype=np.int16)) == [2, 26, 0]
    assert cellstats.exact_sums(np.array([0.5, 0.25], dtype=np.float32)) == [3, 5, 2]  # 3/4 and 5/16
    assert cellstats.exact_sums(np.array([1.0, math.nan])) is None


def test_length_distribution_matches_numpy_quantiles_and_histogram():
    t = np.random.default_rng(5).integers(1, 60, size=999)
    d = length_distribution(t)
    assert [d["p10"], d["p25"], d["median"], d["p75"], d["p90"]] == [float(q) for q in
                                                                     np.quantile(t.astype(float), [.1, .25, .5, .75, .9])]
    edges = np.linspace(1, int(t.max()) + 1, 21)  # 59 values span the range: 20 equal bins
    assert d["counts"] == [int(c) for c in np.histogram(t, bins=edges)[0]]
    assert d["mean"] == float(t.mean()) and d["sd"] == pytest.approx(float(t.std(ddof=1)), rel=1e-13)


def _spec(games: int, chunk: int) -> SweepSpec:
    return SweepSpec(name="sumtest", game="doe-battle", scenarios=["puerto-rico-passage"], games=games, seed=11,
                     grid={"max_rounds": [3, 12]}, chunk_size=chunk)


@pytest.mark.parametrize("workers", [1, 2])
def test_sweep_end_rows_equal_the_rows_read_back(tmp_path, workers):
    res = run_sweep(_spec(2300, 600), tmp_path / "s", workers=workers, progress=False)
    assert res.cell_stats is not None and sorted(res.cell_stats) == [0, 1]
    assert sum(s["games"] for s in res.cell_stats.values()) == 4600
    fast = sweep_report(res)
    back = report(res.path)
    assert json.dumps(fast) == json.dumps(back)
    # another chunking of the same games gives the same figures (exact sums, counts)
    other = run_sweep(_spec(2300, 1000), tmp_path / "t", workers=1, progress=False)
    assert json.dumps(report(other.path)) == json.dumps(back)


def test_resumed_or_extended_sweep_reads_the_report_back(tmp_path):
    out = tmp_path / "s"
    run_sweep(_spec(1200, 500), out, workers=1, progress=False)
    ext = run_sweep(_spec(2300, None), out, workers=1, progress=False, extend=True)
    assert ext.cell_stats is None  # only the new games were played here
    rows = sweep_report(ext)
    assert [r["games"] for r in rows] == [2300, 2300]
    assert json.dumps(rows) == json.dumps(report(out))


def test_report_rows_of_merged_chunk_stats(tmp_path):
    """Stats that crossed JSON (a retried chunk's summary) merge like the others."""
    res = run_sweep(_spec(900, 300), tmp_path / "s", workers=1, progress=False)
    via_json = {c: cellstats.merge(None, json.loads(json.dumps(s))) for c, s in res.cell_stats.items()}
    status = res.manifest["status"]
    assert json.dumps(report_rows(res.manifest, status, via_json)) == json.dumps(report(res.path))
