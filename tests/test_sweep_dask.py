"""The Dask backend on a LocalCluster: the same rows as the local backend, workers writing their own parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

# a Dask teardown that hangs (seen once under -n 2 on a loaded machine) fails the test with every
# thread's stack instead of stalling the run: the thread method ends the worker process
pytestmark = pytest.mark.timeout(600, method="thread")

from simlab.errors import SpecError  # noqa: E402
from simlab.results import load  # noqa: E402
from simlab.sweeps.backends import check_backend, dask_client  # noqa: E402
from simlab.sweeps.runner import run_sweep  # noqa: E402
from simlab.sweeps.spec import SweepSpec  # noqa: E402


def _spec(**kw) -> SweepSpec:
    d = dict(name="dask", game="doe-battle", scenarios=[], games=1500, seed=2024, chunk_size=250,
             grid={"speed_disengage": ["never", "when-able"]})
    d.update(kw)
    return SweepSpec(**d)


@pytest.fixture(scope="module")
def client():
    with dask_client(workers=2) as c:
        yield c


def test_dask_rows_equal_local_rows_whatever_the_chunking(tmp_path, client):
    local = run_sweep(_spec(chunk_size=1500), tmp_path / "local", workers=1, progress=False)
    summaries = []
    d = run_sweep(_spec(), tmp_path / "dask", backend="dask", scheduler=client, progress=False,
                  on_chunk=summaries.append)
    a, b = load(local.path), load(d.path)
    assert len(a) == 3000
    assert a.equals(b)
    man = d.manifest
    assert man["status"] == "complete" and man["last_run"]["backend"] == "dask"
    assert man["last_run"]["workers"] == 2
    # only chunk summaries came back to the client; the parts were written by the workers
    assert len(summaries) == 12
    assert all(set(s) == {"cell", "start", "stop", "games", "wins", "stats"} for s in summaries)
    assert sum(s["stats"]["games"] for s in summaries) == 3000  # the cell statistics of its games
    assert len(list((tmp_path / "dask" / "games").rglob("part-*.parquet"))) == 12


def test_dask_progress_bar_counts_every_game(tmp_path, client, capsys):
    run_sweep(_spec(games=500), tmp_path / "p", backend="dask", scheduler=client, progress=True)
    err = capsys.readouterr().err
    assert "dask: 2 cell(s)" in err and "1000/1000" in err


def test_dask_worker_death_is_retried_once_then_reported(tmp_path, client):
    from simlab.rng import game_seeds
    from simlab.sweeps.spec import expand
    from simlab.testing.faulty import register_faulty
    register_faulty()
    spec = SweepSpec(name="f", game="faulty-battle", scenarios=[], games=400, seed=5, chunk_size=100)
    seed = int(game_seeds(5, expand(spec)[1][0].key, 250, 251)[0])
    spec.options = {"fault": "kill", "fault_seed": seed}
    res = run_sweep(spec, tmp_path / "out", backend="dask", scheduler=client, progress=False)
    assert [(f["start"], f["stop"]) for f in res.failures] == [(200, 300)]
    assert "SIGKILL" in res.failures[0]["error"]
    assert sorted(set(load(res.path)["game_index"])) == [i for i in range(400) if not 200 <= i < 300]
    client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker


def test_dask_scheduler_address_and_resume(tmp_path, client):
    addr = client.scheduler.address
    out = tmp_path / "o"
    first = run_sweep(_spec(games=500), out, backend="dask", scheduler=addr, progress=False)
    assert first.manifest["last_run"]["scheduler"] == addr
    parts = sorted((out / "games").rglob("part-*.parquet"))
    parts[1].unlink()
    again = run_sweep(_spec(games=500), out, scheduler=addr, progress=False, resume=True)
    assert again.chunks_skipped == len(parts) - 1 and again.games_played == 250
    ref = run_sweep(_spec(games=500), tmp_path / "ref", workers=1, progress=False)
    assert load(out).equals(load(ref.path))


def test_dask_with_a_local_cluster_started_and_stopped_by_the_sweep(tmp_path):
    res = run_sweep(_spec(games=500, grid={}), str(tmp_path / "lc"), backend="dask", workers=1, progress=False)
    assert res.manifest["last_run"]["scheduler"] == "LocalCluster"
    assert len(load(res.path)) == 500


def test_dask_to_a_file_url_and_to_a_memory_filesystem(tmp_path):
    ref = run_sweep(_spec(games=500), tmp_path / "ref", workers=1, progress=False)
    url = f"file://{tmp_path}/viaurl"
    run_sweep(_spec(games=500), url, workers=1, progress=False)
    assert load(url).equals(load(ref.path))
    assert json.loads((tmp_path / "viaurl" / "manifest.json").read_text())["status"] == "complete"
    # workers in threads share this process's memory:// filesystem, as remote workers share an object store
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                 dashboard_address="127.0.0.1:0") as lc, \
            distributed.Client(lc) as c:
        m = run_sweep(_spec(games=500), "memory://simlab-test/sweep", backend="dask", scheduler=c, progress=False)
        assert m.path == "memory://simlab-test/sweep"
        assert load("memory://simlab-test/sweep").equals(load(ref.path))
        from simlab.results import report
        assert report("memory://simlab-test/sweep")[0]["games"] == 500
        import fsspec
        fsspec.filesystem("memory").rm("/simlab-test", recursive=True)


def test_workers_that_cannot_see_the_output_directory_are_refused(tmp_path, client):
    # memory:// in the client process is not the workers' memory:// (separate processes)
    from simlab.errors import SweepStateError
    with pytest.raises(SweepStateError, match=r"dask worker .*: cannot read memory://nowhere/x/manifest.json .*shared filesystem"):
        run_sweep(_spec(games=250), "memory://nowhere/x", backend="dask", scheduler=client, progress=False)
    import fsspec
    fsspec.filesystem("memory").rm("/nowhere", recursive=True)


@pytest.mark.parametrize("backend, scheduler, workers, message", [
    ("spark", None, None, "unknown backend 'spark'"),
    ("local", "tcp://127.0.0.1:8786", None, "--scheduler needs --backend dask"),
    ("dask", "not an address!", None, "expected an address like tcp://"),
    ("dask", None, 0, "--workers must be at least 1"),
])
def test_bad_backend_arguments(backend, scheduler, workers, message):
    with pytest.raises(SpecError, match=message):
        check_backend(backend, scheduler, workers)


def test_an_unreachable_scheduler_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("simlab.sweeps.backends.CONNECT_TIMEOUT", "1s")
    out = tmp_path / "never"
    with pytest.raises(SpecError, match="cannot reach the dask scheduler at tcp://127.0.0.1:9"):
        run_sweep(_spec(games=10), out, scheduler="tcp://127.0.0.1:9", progress=False)
    assert not out.exists()


def test_dask_with_a_battle_file_and_a_data_override_relative_to_the_client(tmp_path, client, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("b.toml").write_text('[us]\nunits = [{ name = "Texas" }, { name = "Brooklyn" }]\n'
                              '[spain]\nunits = [{ name = "Teresa" }]\n')
    Path("mine.toml").write_text('[pack]\ngame = "dawn-of-empire"\n[units.Teresa]\nattack = 5\n')
    spec = _spec(games=500, scenarios=["b.toml"], data="mine.toml")
    d = run_sweep(spec, "d", backend="dask", scheduler=client, progress=False)
    ref = run_sweep(spec, "ref", workers=1, progress=False)
    assert load(d.path).equals(load(ref.path))
    assert set(load(d.path)["scenario"]) == {"b"}


def test_a_worker_that_cannot_read_an_input_file_is_named():
    from simlab.sweeps.backends import _worker_sees
    msg = _worker_sees("memory://x", "r", ["/no/such/battle.toml"])
    assert msg.startswith("cannot read /no/such/battle.toml: scenario and data files must be at the same path")


def test_compare_and_tune_run_their_sweeps_on_the_backend_of_the_context(tmp_path, client):
    import simlab
    from simlab.sweeps.backends import current_backend, sweep_backend
    kw = dict(game="doe-battle", set_a=["speed_disengage=never"], set_b=["speed_disengage=when-able"],
              games=600, seed=3, progress=False)
    local = simlab.compare(out=tmp_path / "local", workers=1, **kw)
    seen = []
    with sweep_backend("dask", client):
        assert current_backend() == ("dask", client)
        d = simlab.compare(out=tmp_path / "dask", **kw)
        seen = [json.loads(p.read_text())["last_run"]["backend"] for p in (tmp_path / "dask").rglob("manifest.json")]
    assert current_backend() == (None, None)
    assert seen and set(seen) == {"dask"}
    assert d["difference"] == local["difference"]


def test_cli_compare_with_a_scheduler_address(tmp_path, client, capsys):
    from simlab.cli import main
    args = ["compare", "--game", "doe-battle", "--set-a", "speed_disengage=never", "--set-b",
            "speed_disengage=when-able", "--games", "400", "--seed", "3", "--json"]
    assert main(args + ["--out", str(tmp_path / "a"), "--workers", "1"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(args + ["--out", str(tmp_path / "b"), "--scheduler", client.scheduler.address]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["difference"] == b["difference"]
    backends = {json.loads(p.read_text())["last_run"]["backend"] for p in (tmp_path / "b").rglob("manifest.json")}
    assert backends == {"dask"}


def test_a_cluster_that_loses_its_last_worker_stops_after_the_timeout_and_resume_completes(tmp_path):
    import time

    from simlab.errors import SweepStopped
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address="127.0.0.1:0")
    client = distributed.Client(cluster)
    spec = _spec(game="dawn-of-empire", grid={}, games=4000, chunk_size=100)
    seen = []

    def first_chunk_then_no_workers(summary):
        seen.append(summary)
        if len(seen) == 1:
            cluster.scale(0)

    t0 = time.monotonic()
    try:
        with pytest.raises(SweepStopped, match="has had no workers for 3 s"):
            run_sweep(spec, tmp_path / "lost", scheduler=client, progress=False, dask_timeout=3,
                      on_chunk=first_chunk_then_no_workers)
    finally:
        client.close(timeout=30)
        cluster.close(timeout=30)
    assert time.monotonic() - t0 < 120
    man = json.loads((tmp_path / "lost" / "manifest.json").read_text())
    assert man["status"] == "interrupted" and "no workers" in man["stopped_by"]
    written = sum(man["games_written"].values())
    assert written == 100 * len(seen) and 0 < written < 4000
    again = run_sweep(spec, tmp_path / "lost", workers=1, progress=False, resume=True)
    # a chunk the lost worker finished writing but never reported is kept too
    assert again.chunks_skipped >= len(seen)
    assert again.manifest["status"] == "complete" and again.games_played == 4000 - 100 * again.chunks_skipped
    rows = load(again.path)
    assert len(rows) == 4000 and rows.game_index.is_unique


def test_dask_timeout_is_checked(tmp_path):
    import simlab
    with pytest.raises(SpecError, match="--dask-timeout only applies with --backend dask"):
        simlab.sweep(game="doe-battle", games=10, out=tmp_path / "x", dask_timeout=5, progress=False)
    with pytest.raises(SpecError, match="--dask-timeout must be a number of seconds"):
        simlab.sweep(game="doe-battle", games=10, out=tmp_path / "x", dask_timeout=0, backend="dask",
                     progress=False)
    assert not (tmp_path / "x").exists()
