"""The automatic chunk size: several chunks a worker for expensive games, rows independent of it."""

import json

import pandas as pd
import pytest

import simlab
from simlab.games import get_game
from simlab.sweeps.manifest import seal
from simlab.sweeps.runner import auto_chunk_size
from simlab.sweeps.spec import SweepSpec


def test_auto_chunk_size_floors():
    # a cheap game keeps the 1,000-game floor; four chunks a worker above it; 50,000 at most
    assert auto_chunk_size(400, 2) == 1_000
    assert auto_chunk_size(80_000, 2) == 10_000
    assert auto_chunk_size(10**9, 2) == 50_000
    # an expensive game's floor: 400 games on 2 workers -> 50-game chunks (8 of them)
    assert auto_chunk_size(400, 2, 25) == 50
    assert auto_chunk_size(400, 1, 25) == 100
    assert auto_chunk_size(30, 2, 25) == 25
    # the floor is clipped to 1..50,000
    assert auto_chunk_size(3, 4, 0) == 1
    assert auto_chunk_size(10, 1, 10**6) == 50_000


def test_games_declare_their_floor():
    assert get_game("doe-battle").min_chunk == 1_000
    assert get_game("dreadnought").min_chunk == 25
    assert get_game("mar-rojo").min_chunk == 100


def _parts(path):
    return sorted(p.name for p in (path / "games").rglob("*.parquet"))


@pytest.fixture(scope="module")
def dogger(tmp_path_factory):
    d = tmp_path_factory.mktemp("chunks")
    spec = SweepSpec(name="c", game="dreadnought", scenarios=["dogger-bank"], games=400, seed=5)
    one = simlab.sweep(spec, out=d / "one", workers=1, progress=False)
    two = simlab.sweep(spec, out=d / "two", workers=2, progress=False)
    return spec, one, two


def test_short_dreadnought_sweep_gives_every_worker_several_chunks(dogger):
    _, one, two = dogger
    # old floor: one 1,000-game chunk, i.e. one worker busy; now 4 chunks a worker
    assert two.manifest["chunk_size"] == 50 and len(_parts(two.path)) == 8
    assert one.manifest["chunk_size"] == 100 and len(_parts(one.path)) == 4
    assert json.loads((two.path / "manifest.json").read_text())["chunk_size"] == 50
    pd.testing.assert_frame_equal(simlab.load(one.path), simlab.load(two.path))


def test_resume_keeps_the_recorded_chunk_size(dogger, tmp_path):
    import shutil
    spec, one, two = dogger
    out = tmp_path / "r"
    shutil.copytree(two.path, out)
    man = json.loads((out / "manifest.json").read_text())
    man["status"] = "interrupted"
    (out / "manifest.json").write_text(json.dumps(seal(man)))  # as simlab writes it
    gone = sorted((out / "games").rglob("*.parquet"))[3:5]
    for p in gone:
        p.unlink()
    # 1 worker would choose 100-game chunks; the resumed sweep plays the missing 50-game ones
    res = simlab.sweep(spec, out=out, workers=1, resume=True, progress=False)
    assert res.chunks_skipped == 6 and res.games_played == 100
    assert res.manifest["chunk_size"] == 50 and _parts(out) == _parts(two.path)
    pd.testing.assert_frame_equal(simlab.load(out), simlab.load(one.path))


def test_bench_runs_the_two_sweeps_alternately_and_takes_the_median_pair_ratio():
    from simlab.bench import interleaved, pair_ratios
    order = []
    # the machine slows down from run to run: 1 worker at 100, 80, 60 games/s; 2 workers at 1.9x
    # its pair's 1-worker rate, then 1.5x, then 1.8x
    speed = [(100.0, 190.0), (80.0, 120.0), (60.0, 108.0)]

    def run(which):
        def f(r):
            order.append((which, r))
            return speed[r][which]
        return f

    one, two = interleaved(3, run(0), run(1))
    assert order == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
    assert one == [100.0, 80.0, 60.0] and two == [190.0, 120.0, 108.0]
    r = pair_ratios(one, two)
    assert r == pytest.approx([1.9, 1.5, 1.8])
    # the median of the pairs' ratios (1.8); the medians' ratio would say 120 / 80 = 1.5
    import statistics
    assert statistics.median(r) == pytest.approx(1.8)
    with pytest.raises(ValueError):
        pair_ratios([1.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        pair_ratios([0.0], [1.0])



def test_bench_reports_the_local_sweeps_cpu_use():
    from simlab.bench import _cpu_use, to_markdown
    # 1-worker sweeps that kept 1.4-1.6 cores busy (play and its writer thread); 2-worker sweeps at 1.8-2.0
    rows = _cpu_use("g/s", {1: [1.4, 1.6, 1.5], 2: [1.9, 1.8, 2.0]}, cores=2)
    one, two = rows
    assert one["name"] == "g/s sweep 1 worker CPU (cores busy)" and one["unit"] == "cores"
    assert one["median"] == pytest.approx(1.5) and one["n"] == 3
    assert two["name"] == "g/s sweep 2 workers CPU utilisation" and two["unit"] == "%"
    assert (two["median"], two["min"], two["max"]) == pytest.approx((95.0, 90.0, 100.0))
    assert "1.50 cores busy (75%)" in two["detail"]
    md = to_markdown({"machine": {"cores": 2, "platform": "p", "python": "3", "numpy": "n", "numba": "b",
                                  "date": "d"}, "command": "simlab bench", "results": rows})
    assert "| g/s sweep 1 worker CPU (cores busy) | 1.50 cores | 1.40 – 1.60 | 3 |" in md
    assert "| g/s sweep 2 workers CPU utilisation | 95 % | 90 – 100 | 3 |" in md
