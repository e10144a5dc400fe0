"""A sweep's rows prove where they came from: `simlab verify`, `report`/`load` refusing foreign parts,
and `--resume` quarantining them and ending with exactly the rows of an uninterrupted sweep."""

import json
import shutil

import pandas as pd
import pytest

import simlab
from simlab.cli import main
from simlab.errors import SweepStateError
from simlab.sweeps.chunks import games_part_rel
from simlab.sweeps.manifest import seal, sweep_status

ARGS = ["sweep", "--game", "doe-battle", "--games", "300", "--chunk-size", "100", "--seed", "5",
        "--grid", "max_rounds=5,6", "--no-progress", "--json"]


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    base = tmp_path_factory.mktemp("verify")
    out = base / "clean"
    assert main(ARGS + ["--out", str(out)]) == 0
    other = base / "campaign"
    assert main(["sweep", "--game", "dawn-of-empire", "--games", "100", "--chunk-size", "100", "--seed", "5",
                 "--no-progress", "--json", "--out", str(other)]) == 0
    return out, other


def _copy(clean, tmp_path):
    out = tmp_path / "s"
    shutil.copytree(clean[0], out)
    return out


def _verify(out, capsys):
    capsys.readouterr()
    rc = main(["verify", str(out), "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_a_clean_sweep_verifies(clean, capsys):
    rc, res = _verify(clean[0], capsys)
    assert rc == 0 and res["problems"] == [] and res["status"] == "complete"
    games_parts = 2 * 3
    assert res["parts_ok"] >= games_parts


def test_each_foreign_part_is_named_and_resume_restores_the_exact_rows(clean, tmp_path, capsys):
    out = _copy(clean, tmp_path)
    g = lambda c, a, b: out / games_part_rel(c, a, b)  # noqa: E731
    # a file manager's copy, another sweep's part, a truncated, an empty and a garbage part, and a
    # part moved into another cell's folder
    shutil.copy(g(0, 0, 100), str(g(0, 0, 100)).replace(".parquet", " copy.parquet"))
    shutil.copy(clean[1] / games_part_rel(0, 0, 100), g(0, 100, 200))
    g(0, 200, 300).write_bytes(g(0, 200, 300).read_bytes()[:300])
    g(1, 0, 100).write_bytes(b"")
    g(1, 100, 200).write_bytes(b"not parquet at all" * 20)
    g(1, 200, 300).unlink()
    shutil.copy(g(0, 0, 100), g(1, 200, 300))
    rc, res = _verify(out, capsys)
    reasons = {p["part"].split("/", 1)[1]: p["reason"] for p in res["problems"] if "/part-" in p["part"]}
    assert rc == 1 and len(reasons) == 6, reasons
    # and the games the manifest says were written that no good part holds, cell by cell
    short = {p["part"]: p["reason"] for p in res["problems"] if "/part-" not in p["part"]}
    assert short == {"games/cell-0": "the manifest says 300 games were written, its parts hold 100 (missing games "
                                     "100-200, games 200-300)",
                     "games/cell-1": "the manifest says 300 games were written, its parts hold 0 (missing games 0-100, "
                                     "games 100-200, games 200-300)"}, short
    assert "a copy or a renamed file" in reasons["cell-0/part-000000000000-000000000100 copy.parquet"]
    assert reasons["cell-0/part-000000000100-000000000200.parquet"].startswith("from another sweep")
    assert reasons["cell-0/part-000000000200-000000000300.parquet"].startswith("unreadable Parquet")
    assert reasons["cell-1/part-000000000000-000000000100.parquet"].startswith("empty file")
    assert reasons["cell-1/part-000000000100-000000000200.parquet"].startswith("unreadable Parquet")
    assert reasons["cell-1/part-000000000200-000000000300.parquet"].startswith("moved or renamed: it holds cell 0")
    # report and load refuse in one line rather than merge them
    rc = main(["report", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "6 part(s) do not belong to this sweep" in err
    with pytest.raises(SweepStateError, match="do not belong to this sweep"):
        simlab.load(out)
    # --resume moves them aside, replays their chunks and ends with the uninterrupted rows
    assert main(ARGS + ["--out", str(out), "--resume"]) == 0
    err = capsys.readouterr().err
    assert err.count("simlab: quarantined ") == 6
    assert len(list((out / "quarantine").rglob("*.parquet"))) == 6
    man = json.loads((out / "manifest.json").read_text())
    assert man["last_run"]["games_played"] == 500 and len(man["quarantined"]) == 6
    pd.testing.assert_frame_equal(simlab.load(out), simlab.load(clean[0]))
    assert _verify(out, capsys)[0] == 0


def test_a_hand_edited_manifest_that_swaps_two_cells_labels_is_caught(clean, tmp_path, capsys):
    out = _copy(clean, tmp_path)
    man = json.loads((out / "manifest.json").read_text())
    a, b = man["cells"][0]["params"], man["cells"][1]["params"]
    assert a != b
    man["cells"][0]["params"], man["cells"][1]["params"] = b, a
    (out / "manifest.json").write_text(json.dumps(man))  # by hand: its seal no longer matches
    rc, res = _verify(out, capsys)
    assert rc == 1 and res["problems"][0]["part"] == "manifest.json" and "was edited" in res["problems"][0]["reason"]
    labels = [p for p in res["problems"] if "/part-" in p["part"]]
    assert labels and all("the manifest labels cell" in p["reason"] for p in labels)
    with pytest.raises(SweepStateError, match="the manifest labels cell 0"):
        simlab.report(out)


def test_a_killed_sweep_is_interrupted_not_running(clean, tmp_path, capsys):
    out = _copy(clean, tmp_path)
    man = json.loads((out / "manifest.json").read_text())
    man["status"] = "running"  # what a SIGKILL leaves: nobody holds the lock
    (out / "manifest.json").write_text(json.dumps(seal(man)))  # as simlab writes it
    assert sweep_status(out) == "interrupted"
    assert {r["status"] for r in simlab.report(out)} == {"interrupted"}
    capsys.readouterr()
    assert main(["report", str(out), "--csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    status_col = csv[0].split(",").index("status")
    assert {line.split(",")[status_col] for line in csv[1:]} == {"interrupted"}
    from simlab.sweeps.store import Store
    with Store(out).lock():  # a live sweep holds the lock
        assert sweep_status(out) == "running"


def test_verify_of_a_directory_that_is_no_sweep_is_bad_input(tmp_path, capsys):
    rc = main(["verify", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "is not a sweep directory" in err


def test_a_full_disk_stops_the_sweep_in_one_line_and_resume_finishes_it(tmp_path, monkeypatch, capsys):
    from simlab.sweeps.store import Store
    real = Store.write_parquet
    calls = {"n": 0}

    def filling(self, rel, table):
        if rel.startswith("games/"):
            calls["n"] += 1
            if calls["n"] > 2:
                raise OSError(28, "No space left on device")
        return real(self, rel, table)

    monkeypatch.setattr(Store, "write_parquet", filling)
    out = tmp_path / "full"
    args = ["sweep", "--game", "doe-battle", "--games", "500", "--chunk-size", "100", "--seed", "5",
            "--workers", "1", "--no-progress", "--json", "--out", str(out)]
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1, err
    assert "is full (No space left on device); 200 games are written" in err and "--resume" in err
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "interrupted" and man["stopped_by"].startswith("disk full")
    assert calls["n"] == 3, "a chunk was retried although the disk was full"
    monkeypatch.setattr(Store, "write_parquet", real)
    assert main(args + ["--resume"]) == 0
    capsys.readouterr()
    fresh = tmp_path / "fresh"
    assert main(args[:-1] + [str(fresh)]) == 0
    pd.testing.assert_frame_equal(simlab.load(out), simlab.load(fresh))


def test_any_dataframe_library_reads_the_games_folder_as_it_is(clean):
    import duckdb
    import pyarrow.dataset as ds
    out = clean[0]
    ref = simlab.load(out)
    keys = ["cell", "game_index"]
    a = pd.read_parquet(out / "games").sort_values(keys).reset_index(drop=True)
    b = ds.dataset(out / "games").to_table().to_pandas().sort_values(keys).reset_index(drop=True)
    c = duckdb.sql(f"select * from read_parquet('{out}/games/*/*.parquet')").df().sort_values(keys).reset_index(drop=True)
    for got in (a, b):
        pd.testing.assert_frame_equal(got, ref)
    assert list(c.columns) == list(ref.columns) and len(c) == len(ref) == 600
    assert (c["cell"].to_numpy() == ref["cell"].to_numpy()).all() and str(a["cell"].dtype) == "int32"


def test_an_older_cell_equals_layout_is_migrated_by_verify_and_by_resume(clean, tmp_path, capsys):
    out = _copy(clean, tmp_path)
    for d in list((out / "games").iterdir()) + [p for t in (out / "events").glob("*") for p in t.iterdir()]:
        d.rename(d.with_name(d.name.replace("cell-", "cell=")))
    rc, res = _verify(out, capsys)
    old_layout = [p for p in res["problems"] if "cell=" in p["part"]]
    assert rc == 1 and old_layout and all("older cell=N layout" in p["reason"] for p in old_layout)
    assert all("its parts hold 0" in p["reason"] for p in res["problems"] if p not in old_layout)
    with pytest.raises(SweepStateError, match="older cell=N layout"):
        simlab.load(out)
    again = tmp_path / "again"
    shutil.copytree(out, again)
    assert main(["verify", str(out), "--migrate", "--json"]) == 0
    capsys.readouterr()
    pd.testing.assert_frame_equal(simlab.load(out), simlab.load(clean[0]))
    assert main(ARGS + ["--out", str(again), "--resume"]) == 0
    capsys.readouterr()
    man = json.loads((again / "manifest.json").read_text())
    assert man["last_run"]["games_played"] == 0 and man["format"] == "simlab-sweep/2"
    pd.testing.assert_frame_equal(simlab.load(again), simlab.load(clean[0]))
