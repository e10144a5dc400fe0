"""Sweeps that survive faults: SIGKILL and --resume, dying workers, a busy or changed output directory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simlab.errors import SweepStateError
from simlab.results import load
from simlab.rng import game_seeds
from simlab.sweeps.runner import run_sweep
from simlab.sweeps.spec import SweepSpec, expand
from simlab.sweeps.store import Store
from simlab.testing.faulty import register_faulty

SIMLAB = [sys.executable, "-m", "simlab"]


def _parts(d: Path) -> list[Path]:
    return sorted((d / "games").rglob("part-*.parquet")) if (d / "games").exists() else []


def _children(pid: int) -> list[int]:
    import psutil
    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _sigint_default() -> None:  # runs in the child between fork and exec
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def python_ctrl_c():
    """Python's own Ctrl-C handler (``signal.default_int_handler``) for the test's duration.

    A test run started in the background of a non-interactive shell (``make test &``, ``nohup``,
    some CI runners) inherits SIGINT *ignored*, and Python then never installs its handler; the
    runner rightly leaves an ignored SIGINT alone (``_CountBeforeCtrlC``), so a Ctrl-C test saw no
    Ctrl-C at all and failed with "DID NOT RAISE" or passed, by how the suite was launched."""
    prev = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, prev)


def _alive(pid: int) -> bool:
    import psutil
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


#: sized so the sweep lasts long enough to be killed mid-run (60 parts of 10,000 battles)
KILL_GAMES, KILL_CHUNK = 300_000, 10_000
KILL_ARGS = ["sweep", "--game", "doe-battle", "--games", str(KILL_GAMES), "--chunk-size", str(KILL_CHUNK),
             "--seed", "77", "--grid", "speed_disengage=never,when-able", "--workers", "2", "--no-progress"]


def test_sigkill_then_resume_gives_exactly_the_uninterrupted_rows(tmp_path, capsys):
    out = tmp_path / "killed"
    # worker processes: the check is that they die with the sweep (threads would, trivially)
    p = subprocess.Popen(SIMLAB + KILL_ARGS + ["--backend", "processes", "--out", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    total = 2 * KILL_GAMES // KILL_CHUNK
    deadline = time.time() + 120
    while len(_parts(out)) < 4:
        assert p.poll() is None, f"sweep ended before it could be killed: {p.stderr.read().decode()[-500:]}"
        assert time.time() < deadline, "no parts written within 120 s"
        time.sleep(0.05)
    kids = _children(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stderr.close()
    assert p.returncode == -signal.SIGKILL
    # the workers die with the sweep (PR_SET_PDEATHSIG): none keeps writing behind the resume's back
    deadline = time.time() + 20
    while any(_alive(k) for k in kids) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(_alive(k) for k in kids), "worker processes outlived the killed sweep"
    n_before = len(_parts(out))
    assert 4 <= n_before < total, f"{n_before} of {total} parts: the kill did not land mid-run"
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"

    # resume in this process with one worker: the rows depend on neither
    from simlab.cli import main
    args = [a if a != "2" or KILL_ARGS[i - 1] != "--workers" else "1" for i, a in enumerate(KILL_ARGS)]
    assert main(args + ["--out", str(out), "--resume", "--json"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "complete"
    assert man["last_run"]["chunks_skipped"] >= n_before
    assert man["last_run"]["games_played"] <= 2 * KILL_GAMES - KILL_CHUNK * n_before
    assert not list(out.rglob(".*.tmp-*")), "temporary files left behind"

    ref = run_sweep(SweepSpec(name="doe-battle", game="doe-battle", scenarios=[], games=KILL_GAMES, seed=77,
                              chunk_size=3 * KILL_CHUNK, grid={"speed_disengage": ["never", "when-able"]}),
                    tmp_path / "ref", workers=1, progress=False)
    a, b = load(out), load(ref.path)
    assert len(a) == 2 * KILL_GAMES
    assert not a.duplicated(["cell", "game_index"]).any()
    assert a.equals(b)


def _faulty_spec(mode: str, tmp_path: Path, at: int = 250, games: int = 400) -> tuple[SweepSpec, int]:
    register_faulty()
    spec = SweepSpec(name="faulty-battle", game="faulty-battle", scenarios=[], games=games, seed=5, chunk_size=100)
    _, cells, _ = expand(spec)
    seed = int(game_seeds(5, cells[0].key, at, at + 1)[0])
    spec.options = {"fault": mode, "fault_seed": seed, "fault_marker": str(tmp_path)}
    return spec, seed


@pytest.mark.parametrize("workers", [2])
def test_a_chunk_that_kills_its_worker_twice_is_reported_and_the_rest_is_written(tmp_path, workers):
    spec, _ = _faulty_spec("kill", tmp_path)
    res = run_sweep(spec, tmp_path / "out", workers=workers, backend="processes", progress=False)
    assert not res.ok
    assert [(f["cell"], f["start"], f["stop"]) for f in res.failures] == [(0, 200, 300)]
    f = res.failures[0]
    assert "SIGKILL" in f["error"]
    seeds = game_seeds(5, expand(spec)[1][0].key, 200, 300)
    assert f["seeds"] == [int(seeds[0]), int(seeds[-1])]
    man = res.manifest
    assert man["status"] == "failed" and man["failed_chunks"] == res.failures
    assert man["games_written"] == {"0": 300}
    rows = load(res.path)
    assert sorted(set(rows["game_index"])) == [i for i in range(400) if not 200 <= i < 300]


def test_a_chunk_whose_worker_dies_once_is_retried_and_the_sweep_completes(tmp_path):
    spec, seed = _faulty_spec("kill-once", tmp_path)
    res = run_sweep(spec, tmp_path / "out", workers=2, backend="processes", progress=False)
    assert res.ok, res.failures
    assert (tmp_path / f"fault-{seed}").exists(), "the fault never fired: the test proves nothing"
    clean = run_sweep(_faulty_spec("none", tmp_path)[0], tmp_path / "clean", workers=1, progress=False)
    a, b = load(res.path), load(clean.path)
    assert len(a) == 400 and a.equals(b)


def test_an_exception_in_a_chunk_is_retried_once_then_reported_in_process(tmp_path):
    spec, seed = _faulty_spec("raise", tmp_path)
    res = run_sweep(spec, tmp_path / "out", workers=1, progress=False)
    assert [(f["start"], f["stop"]) for f in res.failures] == [(200, 300)]
    assert res.failures[0]["error"] == f"RuntimeError: injected fault at seed {seed}"


def test_cli_reports_failed_chunks_and_exits_1_and_resume_finishes_them(tmp_path):
    spec, seed = _faulty_spec("raise", tmp_path)
    from simlab.cli import main
    out = tmp_path / "cli"
    args = ["sweep", "--game", "faulty-battle", "--games", "400", "--seed", "5", "--chunk-size", "100",
            "--workers", "1", "--no-progress", "--out", str(out), "--set", "fault=raise",
            "--set", f"fault_seed={seed}", "--set", f"fault_marker={tmp_path}"]
    import contextlib
    import io
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(args)
    assert rc == 1
    lines = err.getvalue().splitlines()
    assert any(x.startswith("chunk failed twice: cell 0, games 200..299 (seeds ") and
               x.endswith(f"RuntimeError: injected fault at seed {seed}") for x in lines), lines
    assert "Traceback" not in err.getvalue()
    # the failed chunk is missing, so --resume with the same spec plays only it (and fails again here)
    res = run_sweep(spec, out, workers=1, progress=False, resume=True)
    assert res.chunks_skipped == 3 and res.games_played == 0 and len(res.failures) == 1


# --------------------------------------------------------------------------- the output directory
def _spec(**kw) -> SweepSpec:
    d = dict(name="t", game="doe-battle", scenarios=[], games=300, seed=3, chunk_size=100)
    d.update(kw)
    return SweepSpec(**d)


def test_a_second_sweep_on_a_locked_directory_refuses(tmp_path):
    out = tmp_path / "busy"
    out.mkdir()
    with Store(out).lock():
        with pytest.raises(SweepStateError, match=r"another sweep \(process .*\) is writing to .*busy"):
            run_sweep(_spec(), out, workers=1, progress=False)
        with pytest.raises(SweepStateError, match="another sweep"):
            run_sweep(_spec(), out, workers=1, progress=False, resume=True)
    assert not (out / "manifest.json").exists()
    run_sweep(_spec(), out, workers=1, progress=False)  # free again once the holder lets go


def test_a_second_cli_sweep_refuses_while_the_first_runs(tmp_path, capsys):
    out = tmp_path / "busy"
    args = ["sweep", "--game", "doe-battle", "--games", "100000", "--chunk-size", "20", "--workers", "1",
            "--no-progress", "--out", str(out)]
    p = subprocess.Popen(SIMLAB + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while not _parts(out):
            assert p.poll() is None and time.time() < deadline, "first sweep did not start writing"
            time.sleep(0.05)
        run_id = json.loads((out / "manifest.json").read_text())["run_id"]
        from simlab.cli import main
        rc = main(args + ["--resume"])
        err = capsys.readouterr().err
        assert p.poll() is None, "first sweep ended before the second tried: the test proves nothing"
        assert rc == 2
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("simlab: error: another sweep (process ") and "is writing to" in err
        assert json.loads((out / "manifest.json").read_text())["run_id"] == run_id
    finally:
        p.kill()
        p.wait()


@pytest.mark.parametrize("change, what", [
    (dict(seed=4), "experiment spec"),
    (dict(games=400), "experiment spec"),
    (dict(grid={"speed_disengage": ["never", "when-able"]}), "experiment spec"),
])
def test_resume_refuses_a_changed_spec(tmp_path, change, what):
    out = tmp_path / "o"
    run_sweep(_spec(), out, workers=1, progress=False)
    snapshot = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(SweepStateError, match=f"its {what} differs"):
        run_sweep(_spec(**change), out, workers=1, progress=False, resume=True)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == snapshot


def test_resume_refuses_a_changed_data_pack(tmp_path):
    out = tmp_path / "o"
    run_sweep(_spec(), out, workers=1, progress=False)
    pack = tmp_path / "mine.toml"
    pack.write_text('[pack]\ngame = "dawn-of-empire"\n[units.Teresa]\nattack = 4\n')
    with pytest.raises(SweepStateError, match="its experiment spec differs"):
        run_sweep(_spec(data=str(pack)), out, workers=1, progress=False, resume=True)
    # same spec text, but the override file's values changed under the directory
    out2 = tmp_path / "o2"
    run_sweep(_spec(data=str(pack)), out2, workers=1, progress=False)
    pack.write_text('[pack]\ngame = "dawn-of-empire"\n[units.Teresa]\nattack = 5\n')
    with pytest.raises(SweepStateError, match="its data pack hash differs"):
        run_sweep(_spec(data=str(pack)), out2, workers=1, progress=False, resume=True)


def test_resume_refuses_a_changed_battle_file_and_accepts_the_same_spec_typed_differently(tmp_path):
    battle = tmp_path / "b.toml"
    battle.write_text('[us]\nunits = [{ name = "Texas" }]\n[spain]\nunits = [{ name = "Teresa" }]\n')
    out = tmp_path / "o"
    run_sweep(_spec(scenarios=[str(battle)], options={"max_rounds": 50}), out, workers=1, progress=False)
    # `--set max_rounds=50` (a string) is the same spec as `max_rounds = 50` in a file
    same = run_sweep(_spec(scenarios=[str(battle)], options={"max_rounds": "50"}), out, workers=1,
                     progress=False, resume=True)
    assert same.chunks_skipped == 3 and same.games_played == 0
    battle.write_text('[us]\nunits = [{ name = "Brooklyn" }]\n[spain]\nunits = [{ name = "Teresa" }]\n')
    with pytest.raises(SweepStateError, match="its scenario file content differs"):
        run_sweep(_spec(scenarios=[str(battle)], options={"max_rounds": 50}), out, workers=1, progress=False,
                  resume=True)


def test_resume_refuses_another_simlab_version_and_chunk_size(tmp_path):
    out = tmp_path / "o"
    run_sweep(_spec(), out, workers=1, progress=False)
    m = json.loads((out / "manifest.json").read_text())
    with pytest.raises(SweepStateError, match="--chunk-size 50: it was written with 100"):
        run_sweep(_spec(chunk_size=50), out, workers=1, progress=False, resume=True)
    m["simlab_version"] = "0.0.1"
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(SweepStateError, match="its simlab version differs"):
        run_sweep(_spec(), out, workers=1, progress=False, resume=True)


def test_resume_of_a_precision_sweep_with_a_gap_gives_the_uninterrupted_rows(tmp_path):
    # a killed precision sweep can leave parts beyond a missing one; the resumed run must stop at
    # the same chunk as an uninterrupted one and delete parts beyond it
    spec = _spec(games=200, precision=0.03, max_games=3000, chunk_size=200,
                 options={"speed_disengage": "when-able"})
    full = run_sweep(spec, tmp_path / "full", workers=1, progress=False)
    n = full.manifest["games_written"]["0"]
    assert 400 <= n < 3000, n
    part = tmp_path / "part"
    run_sweep(spec, part, workers=1, progress=False)
    files = _parts(part)
    files[1].unlink()  # a gap at chunk 1
    extra = part / "games" / "cell-0" / "part-000000002800-000000003000.parquet"
    import shutil
    shutil.copy(files[0], extra)  # a part far beyond the stopping point (as if played ahead)
    res = run_sweep(spec, part, workers=1, progress=False, resume=True)
    assert res.games_played == 200
    assert not extra.exists()
    assert load(part).equals(load(full.path))


@pytest.mark.parametrize("workers", ["1", "2"])  # in this process; on two threads
def test_ctrl_c_leaves_complete_parts_and_counts_them(tmp_path, workers):
    """Ctrl-C (SIGINT) mid-sweep: exit 130, manifest ``interrupted``, no temporary files, and
    ``last_run.games_played`` equal to the rows in the parts written (not 0), also when threads
    were playing chunks that had to finish."""
    import pyarrow.parquet as pq
    out = tmp_path / "int"
    p = subprocess.Popen(SIMLAB + ["sweep", "--game", "dawn-of-empire", "--games", "200000", "--chunk-size", "500",
                                   "--seed", "5", "--workers", workers, "--no-progress", "--out", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=_sigint_default)  # SIGINT as at a terminal, even if ignored here
    try:
        deadline = time.time() + 600  # a generous bound: the kernels load first on a loaded machine
        while len(_parts(out)) < 3:
            assert p.poll() is None, f"sweep ended before Ctrl-C: {p.stderr.read().decode()[-500:]}"
            assert time.time() < deadline, "no parts written within 600 s"
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=60) == 130
    finally:  # a failed check must not leave a 200,000-game sweep running
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stderr.close()
    man = json.loads((out / "manifest.json").read_text())
    rows = sum(pq.ParquetFile(f).metadata.num_rows for f in _parts(out))
    assert man["status"] == "interrupted" and 1500 <= rows < 200_000
    assert man["last_run"]["games_played"] == sum(man["games_written"].values()) == rows
    assert not list(out.rglob(".*.tmp-*")), "temporary files left behind"


def test_a_script_without_the_main_guard_is_told_so(tmp_path):
    """Spawned workers (``backend="processes"``) import the user's script; one that starts a sweep
    at import time gets one line naming the missing ``if __name__ == "__main__":`` instead of
    tracebacks about a busy output directory."""
    script = tmp_path / "noguard.py"
    script.write_text("import simlab\n"
                      f"simlab.sweep(game='doe-battle', games=2000, chunk_size=500, workers=2, out={str(tmp_path / 'o')!r}, "
                      "backend='processes', progress=False)\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert 'put the sweep under `if __name__ == "__main__":`' in r.stderr
    assert "Traceback" not in r.stderr and "another sweep" not in r.stderr


def test_a_script_without_the_main_guard_sweeps_on_threads(tmp_path):
    """The default local backend runs workers as threads of this process: nothing imports the
    script again, so a script needs no ``if __name__ == "__main__":`` guard."""
    script = tmp_path / "noguard.py"
    script.write_text("import simlab\n"
                      f"r = simlab.sweep(game='doe-battle', games=2000, chunk_size=500, workers=2, out={str(tmp_path / 'o')!r}, "
                      "progress=False)\n"
                      "print(r.ok, r.manifest['last_run']['pool'], len(simlab.load(r.path)))\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "threads", "2000"]


def test_ctrl_c_as_a_chunk_returns_counts_the_chunk_first(python_ctrl_c):
    """The race a Ctrl-C used to lose a chunk's count in: SIGINT arrives while the backend hands
    back a chunk whose parts are written. The runner counts it, then stops (KeyboardInterrupt);
    a second Ctrl-C raises at once; Python's handler is back afterwards.

    Deterministic: ``signal.raise_signal`` delivers SIGINT to this (the main) thread and runs the
    Python-level handler before it returns, where ``os.kill(os.getpid(), ...)`` sends a
    process-wide signal whose handler runs at some later bytecode boundary; and the
    ``python_ctrl_c`` fixture gives the test Python's own handler however the suite was started
    (with SIGINT inherited as ignored, the runner installs nothing and no Ctrl-C arrives)."""
    from types import SimpleNamespace

    from simlab.sweeps.runner import _CountBeforeCtrlC, _execute

    seen = []  # what the runner's handler had done by the time each Ctrl-C returned

    class Backend:  # two chunks in flight; the first wait is interrupted as it returns one
        slots, waits = 2, 0

        def __init__(self):
            self.queue = []

        def pending(self):
            return len(self.queue)

        def submit(self, task, attempt):
            self.queue.append(task)

        def wait(self):
            self.waits += 1
            task = self.queue.pop(0)
            handler = signal.getsignal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)  # lands here, before the runner has counted it
            owner = getattr(handler, "__self__", None)
            seen.append((type(owner).__name__, getattr(owner, "pressed", None)))
            return [SimpleNamespace(task=task, attempt=1, result={"games": 500, "cell": 0}, error=None)]

    tasks = iter([SimpleNamespace(cell=0, start=i * 500) for i in range(10)])
    done = []
    plan = SimpleNamespace(next=lambda: next(tasks, None), done=done.append, failed=None)
    bar = SimpleNamespace(advance=lambda n: None, log=print)
    tally = {"games": 0, "stats": None}
    ex = Backend()
    with pytest.raises(KeyboardInterrupt):
        _execute(plan, ex, bar, None, [], {}, tally)
    # the runner's handler took the Ctrl-C (it did not raise inside wait), counted the chunk, stopped
    assert seen == [("_CountBeforeCtrlC", True)]
    assert ex.waits == 1 and tally["games"] == 500 and len(done) == 1 and ex.pending() == 1
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    reached = []
    with pytest.raises(KeyboardInterrupt), _CountBeforeCtrlC() as c:  # a second Ctrl-C: at once
        assert signal.getsignal(signal.SIGINT) == c._on_sigint
        signal.raise_signal(signal.SIGINT)
        assert c.pressed
        reached.append(1)
        signal.raise_signal(signal.SIGINT)
        reached.append(2)
    assert reached == [1] and c.pressed
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_runner_leaves_an_ignored_ctrl_c_alone():
    """With SIGINT ignored (``nohup``, a background job of a script) the runner installs nothing:
    a Ctrl-C that the user asked to ignore does not stop the sweep."""
    from simlab.sweeps.runner import _CountBeforeCtrlC

    prev = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _CountBeforeCtrlC() as c:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
        assert not c.pressed and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, prev)
