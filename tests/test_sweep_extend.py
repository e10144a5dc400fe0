"""Sweeps that grow: `simlab sweep DIR --extend --games N` and `--extend --grid K=V` play only the new
games, leave every part already written as it was, and end with the rows of a sweep played at the
larger size from the start."""

import json
import shutil

import pandas as pd
import pytest

import simlab
from simlab.cli import main
from simlab.sweeps.manifest import seal

BASE = ["sweep", "--game", "synthetic", "--seed", "11", "--chunk-size", "40", "--no-progress", "--json",
        "--policy", "red=plain,rock"]


def _sweep(out, games, bias, extra=()):
    assert main(BASE + ["--games", str(games), "--grid", f"bias={bias}", "--grid", "draw_rate=0.1,0.3",
                        "--out", str(out), *extra]) == 0


def _parts(out):
    return {str(p.relative_to(out)): (p.stat().st_mtime_ns, p.read_bytes()) for p in out.rglob("*.parquet")}


def _by_params(df, man):
    """Rows keyed by the cell's parameters instead of its id (a fresh sweep numbers cells in grid order)."""
    key = {c["cell"]: json.dumps(c["params"], sort_keys=True) for c in man["cells"]}
    df = df.assign(cell_params=df["cell"].map(key)).drop(columns=["cell"])
    return df.sort_values(["cell_params", "game_index"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    base = tmp_path_factory.mktemp("extend")
    out = base / "small"
    _sweep(out, 100, "0.1,0.5")  # chunks 0-40, 40-80, 80-100 per cell
    return out


def test_extend_games_plays_only_the_new_games_and_equals_a_fresh_sweep(small, tmp_path, capsys):
    out = tmp_path / "s"
    shutil.copytree(small, out)
    before = _parts(out)
    capsys.readouterr()
    assert main(["sweep", str(out), "--extend", "--games", "170", "--no-progress", "--json"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "complete" and man["games_per_cell"] == 170
    assert man["last_run"]["games_played"] == 8 * 70  # 8 cells, games 100..170 each
    assert all(c["extents"] == [100, 170] for c in man["cells"])
    after = _parts(out)
    assert {k: v for k, v in after.items() if k in before} == before  # untouched, byte for byte
    new = sorted(k for k in after if k not in before and k.startswith("games/cell-0/"))
    assert new == ["games/cell-0/part-000000000100-000000000140.parquet",
                   "games/cell-0/part-000000000140-000000000170.parquet"]
    assert main(["verify", str(out), "--json"]) == 0
    fresh = tmp_path / "fresh"
    _sweep(fresh, 170, "0.1,0.5")
    a, b = simlab.load(out), simlab.load(fresh)
    cols = [c for c in b.columns if c != "experiment"]
    pd.testing.assert_frame_equal(a[cols].sort_values(["cell", "game_index"]).reset_index(drop=True),
                                  b[cols].sort_values(["cell", "game_index"]).reset_index(drop=True))
    assert len(a) == 8 * 170
    # a second extension goes on segment by segment; report and load still accept every part
    assert main(["sweep", str(out), "--extend", "--games", "200", "--no-progress", "--json"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["cells"][0]["extents"] == [100, 170, 200] and len(man["lineage"]) == 2
    assert main(["verify", str(out), "--json"]) == 0
    assert len(simlab.load(out)) == 8 * 200


def test_extend_grid_adds_cells_with_new_ids_and_the_rows_of_a_fresh_sweep(small, tmp_path, capsys):
    out = tmp_path / "s"
    shutil.copytree(small, out)
    before = _parts(out)
    old = json.loads((out / "manifest.json").read_text())
    assert main(["sweep", str(out), "--extend", "--grid", "bias=0.9", "--games", "120", "--no-progress",
                 "--json"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert [c["cell"] for c in man["cells"]] == list(range(12))
    assert [c["params"] for c in man["cells"][:8]] == [c["params"] for c in old["cells"]]  # ids kept
    assert {c["params"]["bias"] for c in man["cells"][8:]} == {0.9}
    assert man["extensions"][-1]["cells_added"] == [8, 9, 10, 11]
    assert man["spec"]["grid"]["bias"] == [0.1, 0.5, 0.9]
    # 8 old cells get games 100..120, 4 new cells all 120
    assert man["last_run"]["games_played"] == 8 * 20 + 4 * 120
    after = _parts(out)
    assert {k: v for k, v in after.items() if k in before} == before
    assert main(["verify", str(out), "--json"]) == 0
    fresh = tmp_path / "fresh"
    _sweep(fresh, 120, "0.1,0.5,0.9")
    fman = json.loads((fresh / "manifest.json").read_text())
    a, b = simlab.load(out), simlab.load(fresh)
    cols = [c for c in b.columns if c != "experiment"]
    pd.testing.assert_frame_equal(_by_params(a[cols], man), _by_params(b[cols], fman))
    # the fresh sweep numbers cells in grid order (policy_red, bias, draw_rate): bias=0.9 comes between
    assert [c["cell"] for c in fman["cells"] if c["params"]["bias"] == 0.9] == [4, 5, 10, 11]


def test_extend_an_inner_axis_keeps_the_old_ids(small, tmp_path):
    out = tmp_path / "s"
    shutil.copytree(small, out)
    assert main(["sweep", str(out), "--extend", "--grid", "draw_rate=0.5", "--no-progress", "--json"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    fresh = tmp_path / "fresh"
    assert main(BASE + ["--games", "100", "--grid", "bias=0.1,0.5", "--grid", "draw_rate=0.1,0.3,0.5",
                        "--out", str(fresh)]) == 0
    fman = json.loads((fresh / "manifest.json").read_text())
    # the fresh sweep numbers draw_rate=0.5 cells between the others; the extension appends them
    assert [c["params"]["draw_rate"] for c in man["cells"]] == [0.1, 0.3] * 4 + [0.5] * 4
    assert [c["params"]["draw_rate"] for c in fman["cells"]] == [0.1, 0.3, 0.5] * 4
    a, b = simlab.load(out), simlab.load(fresh)
    cols = [c for c in b.columns if c != "experiment"]
    pd.testing.assert_frame_equal(_by_params(a[cols], man), _by_params(b[cols], fman))
    assert main(["verify", str(out)]) == 0


@pytest.mark.parametrize("extra, msg", [
    (["--games", "50"], "it has 100 (--games is the new total per cell)"),
    (["--games", "100"], "nothing to extend"),
    (["--seed", "12", "--games", "200"], "its seed is 11"),
    (["--policy", "red=paper", "--games", "200"], "only --games (the new total per cell) and --grid"),
    (["--scenario", "dice-race", "--games", "200"], "only --games"),
    (["--grid", "threshold=3"], "threshold is not a grid axis of it"),
    (["--grid", "bias=0.5"], "lists a value twice"),
    (["--overwrite", "--games", "200"], "contradict"),
    (["--precision", "0.05"], "only --games"),
    (["--chunk-size", "50", "--games", "200"], "cannot extend"),
])
def test_bad_extensions_are_refused_in_one_line_and_nothing_is_lost(small, tmp_path, capsys, extra, msg):
    out = tmp_path / "s"
    shutil.copytree(small, out)
    before = _parts(out)
    manifest = (out / "manifest.json").read_text()
    capsys.readouterr()
    assert main(["sweep", str(out), "--extend", "--no-progress", *extra]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1, err
    assert _parts(out) == before and (out / "manifest.json").read_text() == manifest


def test_extend_without_a_sweep_and_an_unfinished_sweep_are_refused(small, tmp_path, capsys):
    capsys.readouterr()
    assert main(["sweep", "--out", str(tmp_path / "none"), "--extend", "--games", "200"]) == 2
    assert "nothing to extend" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["sweep", str(empty), "--extend", "--games", "200"]) == 2
    assert "nothing to extend" in capsys.readouterr().err
    out = tmp_path / "s"
    shutil.copytree(small, out)
    (out / "games/cell-3/part-000000000040-000000000080.parquet").unlink()
    man = json.loads((out / "manifest.json").read_text())
    man["status"] = "interrupted"
    (out / "manifest.json").write_text(json.dumps(seal(man)))  # as simlab writes it
    assert main(["sweep", str(out), "--extend", "--games", "200", "--no-progress"]) == 2
    assert "it is interrupted; finish it first with" in capsys.readouterr().err
    # --resume needs no experiment file: the spec is the manifest's
    assert main(["sweep", str(out), "--resume", "--no-progress", "--json"]) == 0
    assert json.loads((out / "manifest.json").read_text())["last_run"]["games_played"] == 40
    assert main(["sweep", str(out), "--resume", "--games", "300"]) == 2
    assert "--resume finishes it as it was" in capsys.readouterr().err


def test_an_interrupted_extension_resumes_to_the_same_rows(small, tmp_path):
    out = tmp_path / "s"
    shutil.copytree(small, out)
    assert main(["sweep", str(out), "--extend", "--games", "150", "--no-progress", "--json"]) == 0
    # as if killed during the extension: one new part and one old part are missing
    (out / "games/cell-2/part-000000000100-000000000140.parquet").unlink()
    (out / "games/cell-5/part-000000000000-000000000040.parquet").unlink()
    man = json.loads((out / "manifest.json").read_text())
    man["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(seal(man)))  # as simlab writes it
    assert main(["sweep", str(out), "--extend", "--games", "150", "--no-progress", "--json"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "complete" and man["last_run"]["games_played"] == 80
    assert len(man["extensions"]) == 1 and all(c["extents"] == [100, 150] for c in man["cells"])
    assert main(["verify", str(out)]) == 0
    fresh = tmp_path / "fresh"
    _sweep(fresh, 150, "0.1,0.5")
    cols = [c for c in simlab.load(fresh).columns if c != "experiment"]
    pd.testing.assert_frame_equal(simlab.load(out)[cols], simlab.load(fresh)[cols])


def test_an_experiment_file_that_states_the_grown_spec_extends_the_sweep(tmp_path):
    exp = tmp_path / "grow.toml"
    body = ('[experiment]\nname = "grow"\ngame = "synthetic"\ngames = {games}\nseed = 4\nchunk_size = 30\n'
            '[grid]\nbias = [{bias}]\n')
    exp.write_text(body.format(games=50, bias="0.1"))
    out = tmp_path / "s"
    assert main(["sweep", str(exp), "--out", str(out), "--no-progress", "--json"]) == 0
    exp.write_text(body.format(games=80, bias="0.1, 0.7"))
    assert main(["sweep", str(exp), "--out", str(out), "--extend", "--no-progress", "--json"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["last_run"]["games_played"] == 30 + 80 and [c["extents"] for c in man["cells"]] == [[50, 80], [80]]
    fresh = tmp_path / "fresh"
    assert main(["sweep", str(exp), "--out", str(fresh), "--no-progress", "--json"]) == 0
    pd.testing.assert_frame_equal(simlab.load(out), simlab.load(fresh))
    # the file may not change anything else, nor drop a value
    exp.write_text(body.format(games=90, bias="0.7").replace("seed = 4", "seed = 5"))
    assert main(["sweep", str(exp), "--out", str(out), "--extend", "--no-progress"]) == 2
