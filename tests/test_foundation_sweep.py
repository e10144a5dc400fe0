"""The sweep runner end to end on doe-battle: layout, DuckDB, reproducibility, resume, report."""

import json
import math

import duckdb
import numpy as np
import pandas as pd
import pytest

import simlab
from simlab.errors import SpecError, SweepStateError
from simlab.sweeps.spec import SweepSpec


def _spec(**kw):
    d = dict(name="t", game="doe-battle", scenarios=["puerto-rico-passage"], games=1500, seed=11,
             grid={"speed_disengage": ["never", "when-able"]})
    d.update(kw)
    return SweepSpec(**d)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sw") / "a"
    res = simlab.sweep(_spec(chunk_size=7), out=out, workers=1, progress=False)
    return res


def test_layout_and_manifest(swept):
    out = swept.path
    man = json.loads((out / "manifest.json").read_text())
    for k in ("spec", "cells", "master_seed", "simlab_version", "numpy", "numba", "data", "git_commit",
              "fingerprint", "chunk_size", "status"):
        assert k in man, k
    assert man["status"] == "complete"
    assert [c["params"] for c in man["cells"]] == [{"speed_disengage": "never"}, {"speed_disengage": "when-able"}]
    assert man["data"]["name"] == "doe-core" and man["data"]["counts"]["provisional"] > 0
    assert len(man["data"]["provisional_used"]) == man["data"]["counts"]["provisional"]
    parts = sorted((out / "games").glob("cell-*/*.parquet"))
    assert len(parts) == 2 * -(-1500 // 7)


def test_duckdb_reads_the_parts_one_row_per_game(swept):
    q = f"SELECT cell, count(*) AS n, count(DISTINCT game_index) AS k FROM read_parquet('{swept.path}/games/*/*.parquet') GROUP BY cell ORDER BY cell"
    rows = duckdb.sql(q).fetchall()
    assert rows == [(0, 1500, 1500), (1, 1500, 1500)]
    meta = duckdb.sql(f"SELECT key, value FROM parquet_kv_metadata('{next((swept.path / 'games').rglob('*.parquet'))}')").fetchall()
    facts = json.loads(dict((k.decode(), v.decode()) for k, v in meta)["simlab"])
    assert facts["game"] == "doe-battle" and facts["master_seed"] == 11


def test_tidy_columns(swept):
    df = simlab.load(swept.path)
    assert len(df) == 3000
    for c in ("experiment", "cell", "game_index", "seed", "game", "scenario", "policy_spain", "policy_us",
              "speed_disengage", "winner", "score_spain", "score_us", "turns", "end_reason"):
        assert c in df.columns, c
    assert set(df["winner"]) <= {"spain", "us", "draw"}
    assert (df.groupby("cell")["game_index"].apply(lambda s: list(s) == list(range(1500)))).all()
    # the speed option matters: Spain escapes by speed only under when-able
    esc = df.groupby("speed_disengage")["escaped_spain"].mean()
    assert esc["never"] == 0 and esc["when-able"] > 0


def test_rows_identical_for_workers_and_chunk_sizes(swept, tmp_path):
    b = simlab.sweep(_spec(chunk_size=1000), out=tmp_path / "b", workers=2, progress=False)
    da, db = simlab.load(swept.path), simlab.load(b.path)
    pd.testing.assert_frame_equal(da, db)


def test_seeds_are_keyed_by_cell_and_crn_shares_them(tmp_path):
    a = simlab.load(simlab.sweep(_spec(games=50), out=tmp_path / "a", workers=1, progress=False).path)
    c = simlab.load(simlab.sweep(_spec(games=50, crn=True), out=tmp_path / "c", workers=1, progress=False).path)
    assert not np.array_equal(a[a.cell == 0].seed.values, a[a.cell == 1].seed.values)
    assert np.array_equal(c[c.cell == 0].seed.values, c[c.cell == 1].seed.values)
    # adding a grid value leaves the streams of existing cells unchanged
    d = simlab.load(simlab.sweep(_spec(games=50, grid={"speed_disengage": ["when-able"]}), out=tmp_path / "d",
                                 workers=1, progress=False).path)
    assert np.array_equal(d.seed.values, a[a.cell == 1].seed.values)


def test_resume_plays_only_missing_chunks(swept, tmp_path):
    import shutil
    out = tmp_path / "r"
    shutil.copytree(swept.path, out)
    parts = sorted((out / "games").rglob("*.parquet"))
    for p in parts[::5]:
        p.unlink()
    res = simlab.sweep(_spec(chunk_size=7), out=out, workers=1, progress=False, resume=True)
    assert res.games_played == sum(min(7, 1500 - int(p.name.split("-")[1])) for p in parts[::5])
    pd.testing.assert_frame_equal(simlab.load(out), simlab.load(swept.path))


def test_existing_directory_is_refused_without_resume(swept):
    before = sorted(p.name for p in swept.path.rglob("*"))
    with pytest.raises(SweepStateError, match="already holds a sweep"):
        simlab.sweep(_spec(chunk_size=7), out=swept.path, workers=1, progress=False)
    assert sorted(p.name for p in swept.path.rglob("*")) == before


def test_resume_refuses_another_spec(swept):
    with pytest.raises(SweepStateError, match="experiment spec differs"):
        simlab.sweep(_spec(chunk_size=7, seed=12), out=swept.path, workers=1, progress=False, resume=True)


def test_report_json_shape_and_values(swept):
    rows = simlab.report(swept.path)
    assert [r["cell"] for r in rows] == [0, 1]
    df = simlab.load(swept.path)
    for r in rows:
        sub = df[df.cell == r["cell"]]
        assert r["games"] == len(sub) and r["draws"] == int((sub.winner == "draw").sum())
        for side in ("spain", "us"):
            s = r["sides"][side]
            assert s["wins"] == int((sub.winner == side).sum())
            assert s["win_rate"] == pytest.approx(s["wins"] / len(sub))
            # the report's interval is the Wilson score interval of these counts, computed here
            # from its closed form
            k, n, z = s["wins"], len(sub), 1.959963984540054
            centre = (k + z * z / 2) / (n + z * z)
            half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
            assert s["ci"] == pytest.approx([centre - half, centre + half], abs=1e-12)
            assert s["mean_score"] == pytest.approx(sub[f"score_{side}"].mean(), rel=1e-6)


def test_precision_target_is_reproducible_across_workers(tmp_path):
    kw = dict(games=1, precision=0.02, max_games=20_000, chunk_size=500)
    a = simlab.sweep(_spec(**kw), out=tmp_path / "a", workers=1, progress=False)
    b = simlab.sweep(_spec(**kw), out=tmp_path / "b", workers=2, progress=False)
    pd.testing.assert_frame_equal(simlab.load(a.path), simlab.load(b.path))
    df = simlab.load(a.path)
    z = 1.959963984540054

    def half_width(k, n):   # Wilson score interval's half-width, closed form
        return z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)

    sizes = []
    for r in simlab.report(a.path):
        n = r["games"]
        sizes.append(n)
        hw = max((v["ci"][1] - v["ci"][0]) / 2 for v in r["sides"].values())
        assert hw <= 0.02 and n < 20_000 and n % 500 == 0
        if n > 500:
            # it stopped at the first chunk that met the target: the first n - 500 games of the
            # cell (in game order) miss it for some side
            first = df[(df.cell == r["cell"]) & (df.game_index < n - 500)]
            assert len(first) == n - 500
            assert max(half_width(int((first.winner == s).sum()), n - 500) for s in r["sides"]) > 0.02
    assert max(sizes) > 500        # the stopping rule was exercised beyond the first chunk


def test_bad_spec_values():
    with pytest.raises(SpecError, match="no option 'nope'"):
        simlab.sweep(_spec(options={"nope": 1}), out="/nonexistent/never", progress=False)
    with pytest.raises(SpecError, match="not one of"):
        simlab.sweep(_spec(grid={"speed_disengage": ["sometimes"]}), out="/nonexistent/never", progress=False)
