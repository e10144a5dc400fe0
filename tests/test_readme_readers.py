"""The README's dataframe one-liners, run as written on a sweep that mixes policy families (issue 32):
each reads every column the manifest promises and every row, with the same values as ``simlab.load``.

The lines are taken from README.md itself (the block after "with any dataframe library as the folder
is", and the DuckDB ``GROUP BY`` line), so an edit there that breaks a reader fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pandas
import polars
import pyarrow
import pyarrow.dataset
import pytest

import simlab
from simlab.sweeps.spec import SweepSpec

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def readme_readers() -> list[str]:
    """The one-liners of the README's python block that follows the "any dataframe library" text."""
    i = README.index("with any dataframe library as the folder is")
    block = re.search(r"```python\n(.*?)```", README[i:], re.S)
    return [ln.strip() for ln in block[1].splitlines() if ln.strip()]


def readme_group_by() -> str:
    """The README's DuckDB ``GROUP BY`` query (on ``results/demo``)."""
    m = re.search(r"DuckDB reads the same files:\s*`(SELECT [^`]+)`", README)
    return m[1]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Mar Rojo with the Nationalist playing random-legal (no knobs) in one cell and cautious (the
    greedy family's knobs) in the other: 2 cells x 6 games in 3-game parts."""
    spec = SweepSpec(name="t", game="mar-rojo", scenarios=[], games=6, seed=4, chunk_size=3,
                     policies={"nationalist": ["random-legal", "cautious"]})
    res = simlab.sweep(spec, out=tmp_path_factory.mktemp("readers") / "s", workers=1, progress=False)
    return res.path


def _columns_and_rows(obj) -> tuple[list[str], list[dict]]:
    if isinstance(obj, pandas.DataFrame):
        return list(obj.columns), obj.astype(object).where(obj.notna(), None).to_dict("records")
    if isinstance(obj, pyarrow.Table):
        return obj.column_names, obj.to_pylist()
    if isinstance(obj, duckdb.DuckDBPyRelation):
        return obj.columns, [dict(zip(obj.columns, r, strict=True)) for r in obj.fetchall()]
    if isinstance(obj, polars.DataFrame):
        return obj.columns, obj.to_dicts()
    raise AssertionError(f"a README reader returned {type(obj).__name__}")


def test_the_readme_names_one_reader_per_library():
    lines = readme_readers()
    assert [ln.split(".")[0] for ln in lines] == ["pandas", "pyarrow", "duckdb", "polars"], lines
    assert all("DIR" in ln for ln in lines)


def test_each_readme_one_liner_reads_every_column_and_row_of_a_mixed_family_sweep(mixed):
    man = json.loads((mixed / "manifest.json").read_text())
    promised = [c["column"] for c in man["schema"]["games"]]
    knobs = [c for c in promised if c.startswith("knob_nationalist_")]
    assert knobs, "the cautious preset's knobs: the sweep does not mix families"
    ref = simlab.load(mixed)
    assert list(ref.columns) == promised and len(ref) == 12
    key = ["cell", "game_index"]
    ref_rows = sorted(_columns_and_rows(ref)[1], key=lambda r: (r["cell"], r["game_index"]))
    for line in readme_readers():
        cols, rows = _columns_and_rows(eval(line, {"DIR": str(mixed), "pandas": pandas, "pyarrow": pyarrow,
                                                   "duckdb": duckdb, "polars": polars}))
        assert cols == promised, (line, sorted(set(promised) ^ set(cols)))  # every column, in the manifest's order
        assert len(rows) == 12, line
        rows = sorted(rows, key=lambda r: tuple(r[k] for k in key))
        # the same values: every column, knob columns null in the random-legal cell only
        for a, b in zip(rows, ref_rows, strict=True):
            assert {c: a[c] for c in promised} == b, line
        cells = {r["cell"]: r["policy_nationalist"] for r in rows}
        assert cells == {0: "random-legal", 1: "cautious"}
        for r in rows:
            assert all((r[k] is None) == (r["policy_nationalist"] == "random-legal") for k in knobs), (line, r)


def test_the_readme_group_by_counts_every_game(mixed):
    q = readme_group_by()
    assert "results/demo" in q
    got = dict(duckdb.sql(q.replace("results/demo", str(mixed))).fetchall())
    want = simlab.load(mixed)["winner"].value_counts().to_dict()
    assert got == want and sum(got.values()) == 12
