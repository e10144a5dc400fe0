"""Issue 32 item 1: a sweep mixing policy families writes every knob column in every part, so the
README's readers (simlab.load, pandas, pyarrow.dataset, DuckDB, Polars) all see every column and row."""

import json

import duckdb
import pandas
import polars
import pyarrow.dataset
import pyarrow.parquet as pq
import pytest

import simlab
from simlab.sweeps.spec import SweepSpec


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    spec = SweepSpec(name="t", game="dawn-of-empire", scenarios=["standard"], games=6, seed=1, chunk_size=3,
                     policies={"us": ["random-legal", "hunter"]})
    res = simlab.sweep(spec, out=tmp_path_factory.mktemp("mixed") / "s", workers=1, progress=False)
    return res.path


def test_every_part_has_the_same_schema(mixed):
    parts = sorted((mixed / "games").glob("*/*.parquet"))
    assert len(parts) == 4
    schemas = [pq.read_schema(p).remove_metadata() for p in parts]
    assert all(s.equals(schemas[0]) for s in schemas)
    knobs = [n for n in schemas[0].names if n.startswith("knob_us_")]
    assert knobs  # the hunter's knobs, null in the random-legal cell
    t = pq.read_table(parts[0])
    assert t.num_rows == 3


def test_readme_readers_see_every_column_and_row(mixed):
    man = json.loads((mixed / "manifest.json").read_text())
    promised = [c["column"] for c in man["schema"]["games"]]
    d = str(mixed)
    loaded = simlab.load(d)
    assert list(loaded.columns) == promised and len(loaded) == 12
    assert sorted(pandas.read_parquet(d + "/games").columns) == sorted(promised)
    assert len(pandas.read_parquet(d + "/games")) == 12
    t = pyarrow.dataset.dataset(d + "/games").to_table()
    assert t.column_names == promised and t.num_rows == 12
    r = duckdb.sql(f"select * from read_parquet('{d}/games/*/*.parquet')")
    assert r.columns == promised and len(r.fetchall()) == 12
    p = polars.read_parquet(d + "/games/*/*.parquet")
    assert p.columns == promised and p.height == 12
    knob = next(c for c in promised if c.startswith("knob_us_"))
    by_policy = loaded.groupby("policy_us")[knob]
    assert by_policy.apply(lambda s: s.isna().all())["random-legal"]
    assert by_policy.apply(lambda s: s.notna().all())["hunter"]
