"""Parquet parts: string columns built as dictionary arrays are written byte for byte as the plain
string columns were, so every reader (pyarrow, pandas, DuckDB, simlab.results) sees the same types,
values and file metadata."""

import json

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simlab.games import get_game
from simlab.rng import game_seeds
from simlab.sweeps import chunks
from simlab.sweeps.chunks import ChunkTask, build_games_table, play_chunk_tables
from simlab.sweeps.store import PLAIN_COLUMNS, Store


def _plain(t: pa.Table) -> pa.Table:
    """The table as the old builder made it: every dictionary column as its values' type."""
    fields = [f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in t.schema]
    return t.cast(pa.schema(fields, metadata=t.schema.metadata))


def _old_write(t: pa.Table, path) -> None:
    """The old ``Store.write_parquet``: ``pq.write_table`` of plain columns."""
    plain = [c for c in t.column_names if c in PLAIN_COLUMNS]
    pq.write_table(_plain(t), path, compression="lz4", write_page_checksum=True,
                   use_dictionary=[c for c in t.column_names if c not in PLAIN_COLUMNS] if plain else True)


def _task(tmp_path, game, scenario, n, options=None, grid_options=()):
    g = get_game(game)
    sc = g.load_scenario(scenario, g.load_data())
    opts = g.resolve_options(options or {})
    pols = g.resolve_policies(sc.sides, {})
    return ChunkTask(out=str(tmp_path / "o"), experiment="w", game=game, scenario=scenario, data=None, cell=3,
                     cell_key=5, params={}, policies=pols, options=opts, grid_options=grid_options,
                     master_seed=9, start=100, stop=100 + n, meta={"simlab_version": "t", "fingerprint": "f"})


def _check_same_file(tmp_path, rel, t):
    store = Store(tmp_path / "o")
    store.write_parquet(rel, t)
    new = tmp_path / "o" / rel
    old = tmp_path / "old.parquet"
    _old_write(t, old)
    assert new.read_bytes() == old.read_bytes()  # the whole file: data, statistics, schema, metadata
    back = pq.read_table(new)
    assert back.schema == _plain(t).schema and not any(pa.types.is_dictionary(f.type) for f in back.schema)
    assert back.equals(_plain(t)) and back.schema.metadata[b"simlab"] == t.schema.metadata[b"simlab"]
    assert list(pq.read_metadata(new).metadata) == [b"ARROW:schema", b"simlab"]
    return new


@pytest.mark.parametrize("game,scenario,n,options", [
    ("doe-battle", "puerto-rico-passage", 3000, {"speed_disengage": "when-able"}),
    ("dreadnought", "dogger-bank", 6, {"shots": True}),
    ("mar-rojo", "cabo-de-palos", 300, {}),
])
def test_parts_are_the_files_plain_strings_give(tmp_path, game, scenario, n, options):
    grid = tuple(options)[:1] if game == "doe-battle" else ()
    task = _task(tmp_path, game, scenario, n, options, grid)
    writes, _ = play_chunk_tables(task)
    assert any(pa.types.is_dictionary(f.type) for f in writes[-1][1].schema)  # built as dictionaries
    for rel, t in writes:  # events tables first (dreadnought's shots), the games part last
        path = _check_same_file(tmp_path, rel, t)
    # DuckDB reads strings as VARCHAR and the simlab facts from the key-value metadata
    types = dict(duckdb.sql(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '{path}')").fetchall())
    assert types["winner"] == "VARCHAR" and types["scenario"] == "VARCHAR" and types["cell"] == "INTEGER"
    kv = dict(duckdb.sql(f"SELECT key, value FROM parquet_kv_metadata('{path}')").fetchall())
    assert json.loads(kv[b"simlab"])["game_index_range"] == [100, 100 + n]
    # pandas gets the dtype of a plain string column (not a categorical)
    df = pq.read_table(path).to_pandas()
    assert df["winner"].dtype == pa.table({"x": pa.array(["a"])}).to_pandas()["x"].dtype
    assert set(df["winner"]) <= {"draw", *get_game(game).load_scenario(scenario, get_game(game).load_data()).sides}


def test_labels_keep_the_used_labels_in_order_of_first_use():
    a = chunks._labels(np.array([2, 2, -1, 0, 2]), ["a", "b", "c"], draw="draw")
    assert a.dictionary.to_pylist() == ["c", "draw", "a"] and a.indices.to_pylist() == [0, 0, 1, 2, 0]
    assert a.cast(pa.string()).to_pylist() == ["c", "c", "draw", "a", "c"]
    many = [f"l{i}" for i in range(40)]  # the np.unique branch
    b = chunks._labels(np.array([39, 5, 39, 7]), many)
    assert b.dictionary.to_pylist() == ["l39", "l5", "l7"] and b.indices.to_pylist() == [0, 1, 0, 2]
    assert chunks._labels(np.zeros(0, dtype=np.int8), ["x"]).to_pylist() == []
    with pytest.raises(ValueError, match="out of range"):
        chunks._labels(np.array([3]), ["a", "b"])


def test_empty_and_odd_tables_write_as_before(tmp_path):
    meta = {"simlab": json.dumps({"cell": 0})}
    empty = pa.table({"game_index": pa.array([], pa.int64()), "kind": chunks._labels(np.zeros(0, np.int32), ["x"]),
                      "v": pa.array([], pa.float64())}).replace_schema_metadata(meta)
    _check_same_file(tmp_path, "events/e/cell-0/part-000000000000-000000000001.parquet", empty)
    unused = pa.table({"w": chunks._labels(np.array([1, 1, 1]), ["spain", "us"], draw="draw"),
                       "c": chunks._const("exp", 3, pa.string())}).replace_schema_metadata(meta)
    _check_same_file(tmp_path, "games/cell-0/part-000000000000-000000000003.parquet", unused)


def test_games_table_values_unchanged(tmp_path):
    task = _task(tmp_path, "doe-battle", "puerto-rico-passage", 500)
    g = get_game("doe-battle")
    sc = chunks.worker_scenario(task.game, task.scenario)
    seeds = game_seeds(task.master_seed, task.cell_key, task.start, task.stop)
    batch = g.play_batch(sc, task.options, task.policies, seeds)
    t = _plain(build_games_table(task, sc, batch, seeds))
    sides = list(sc.sides)
    w = np.asarray(batch.games["winner"])
    assert t["winner"].to_pylist() == [sides[i] if i >= 0 else "draw" for i in w]
    cats = batch.categories["end_reason"]
    assert t["end_reason"].to_pylist() == [cats[i] for i in np.asarray(batch.games["end_reason"])]
    assert set(t["experiment"].to_pylist()) == {"w"} and t.schema.field("experiment").type == pa.string()


def test_a_table_of_several_row_groups_writes_as_before(tmp_path):
    from simlab.sweeps.store import ROW_GROUP_ROWS
    n = ROW_GROUP_ROWS + 1000
    rng = np.random.default_rng(1)
    t = pa.table({"game_index": pa.array(np.arange(n)), "kind": chunks._labels(rng.integers(0, 5, n), list("abcde")),
                  "v": pa.array(rng.integers(0, 9, n).astype(np.int16))}).replace_schema_metadata({"simlab": "{}"})
    path = _check_same_file(tmp_path, "events/e/cell-0/part-000000000000-000000000001.parquet", t)
    assert pq.read_metadata(path).num_row_groups == 2


def test_a_part_of_one_writer_batch_is_the_file_the_default_batches_give(tmp_path):
    from simlab.sweeps.store import WRITE_BATCH_ROWS
    # the largest table written as one batch a column: unique 8-byte keys (plain), a double column
    # with a distinct value a row (a 480 KiB dictionary), small ints, labels, a constant string
    n = WRITE_BATCH_ROWS
    rng = np.random.default_rng(4)
    t = pa.table({"experiment": chunks._const("e", n, pa.string()), "cell": pa.array(np.full(n, 3, np.int32)),
                  "game_index": pa.array(np.arange(n, dtype=np.int64) + 7),
                  "seed": pa.array(rng.integers(0, 2**63, n, dtype=np.uint64)),
                  "winner": chunks._labels(rng.integers(-1, 2, n), ["spain", "us"], draw="draw"),
                  "turns": pa.array(rng.integers(1, 30, n).astype(np.int32)),
                  "sunk": pa.array(rng.integers(0, 6, n).astype(np.int16)),
                  "luck": pa.array(rng.normal(size=n)),
                  "score": pa.array(rng.integers(0, 9, n).astype(np.float32))}).replace_schema_metadata(
        {"simlab": "{}"})
    path = _check_same_file(tmp_path, "games/cell-3/part-000000000000-000000065536.parquet", t)
    # the same rows for DuckDB and pandas as the columns in memory
    assert duckdb.sql(f"SELECT count(*), sum(game_index), count(DISTINCT luck) FROM '{path}'").fetchall()[0] == (
        n, int(np.arange(n).sum()) + 7 * n, n)
    assert pq.read_table(path).to_pandas().equals(_plain(t).to_pandas())
