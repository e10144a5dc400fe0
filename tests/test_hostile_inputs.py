"""Hostile inputs that do not fit the bad-input corpus' form (issue 32, second round): the Python
API's argument types, a full disk, endless or odd files, a closed stdout."""

from __future__ import annotations

import json

import pytest

import simlab
from simlab.errors import SpecError


@pytest.mark.parametrize("kw, message", [
    ({"games": True}, "games must be an int, got True (bool)"),
    ({"games": "10"}, "games must be an int, got '10' (str)"),
    ({"games": 10.0}, "games must be an int, got 10.0 (float)"),
    ({"seed": 1.5}, "seed must be an int, got 1.5"),
    ({"chunk_size": "5"}, "chunk_size must be an int"),
    ({"precision": "0.01"}, "precision must be a number, got '0.01'"),
    ({"precision": True}, "precision must be a number, got True"),
    ({"resume": 1}, "resume must be True or False, got 1"),
    ({"policy": "us=hunter"}, "policy must be a list of 'KEY=VALUE' strings, got 'us=hunter'"),
    ({"grid": ["max_rounds=2", 3]}, "grid must be a list of 'KEY=VALUE' strings"),
    ({"scenario": 3}, "scenario must be a str, got 3"),
])
def test_sweep_refuses_a_python_argument_of_the_wrong_type_and_writes_nothing(kw, message, tmp_path):
    out = tmp_path / "s"
    with pytest.raises(SpecError) as e:
        simlab.sweep(game="doe-battle", out=out, progress=False, workers=1, **{"games": 5, **kw})
    assert message in str(e.value) and "sweep(): " in str(e.value)
    assert not out.exists()


def test_sweep_takes_a_numpy_integer_for_games(tmp_path):
    import numpy as np
    r = simlab.sweep(game="doe-battle", games=np.int64(7), out=tmp_path / "s", progress=False, workers=1)
    assert r.manifest["spec"]["games"] == 7


# --------------------------------------------------------------------------- item 3: a full disk
def test_a_full_disk_while_the_manifest_is_written_leaves_a_directory_a_rerun_can_use(tmp_path, monkeypatch, capsys):
    import builtins
    import errno

    from simlab.cli import main
    real_open = builtins.open

    class HalfWritten:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[: len(data) // 2])
            self.fh.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

    def full_open(f, mode="r", *a, **k):
        fh = real_open(f, mode, *a, **k)
        return HalfWritten(fh) if ".manifest.json.tmp" in str(f) and "w" in mode else fh

    from simlab.sweeps.store import Store
    for i, extra in enumerate((["--overwrite"], ["--resume"], [])):
        out = tmp_path / f"s{i}"
        args = ["sweep", "--game", "doe-battle", "--games", "20", "--workers", "1", "--no-progress", "--out", str(out)]
        monkeypatch.setattr(builtins, "open", full_open)
        assert main(args) == 2
        monkeypatch.setattr(builtins, "open", real_open)
        err = capsys.readouterr().err
        assert err == "simlab: error: No space left on device\n"
        assert not [p.name for p in out.iterdir() if ".tmp-" in p.name], "the temporary manifest was left behind"
        Store(out).check_free()  # the lock is released
        rerun = extra if extra != ["--resume"] else ["--overwrite"]  # nothing to resume: no manifest was written
        assert main(args + ["--json"] + rerun) == 0, capsys.readouterr().err
        assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


def test_a_directory_that_holds_no_sweep_is_not_called_a_sweep(tmp_path, capsys):
    from simlab.cli import main
    out = tmp_path / "s"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    base = ["sweep", "--game", "doe-battle", "--games", "20", "--no-progress", "--out", str(out)]
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "is not empty and holds no sweep" in err and "--resume" not in err and "already holds" not in err
    assert main(base + ["--overwrite"]) == 2
    assert "not a simlab sweep directory" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "mine"


# --------------------------------------------------------------------------- item 3: endless files
@pytest.mark.parametrize("command", ["verify", "report", "luck"])
def test_a_manifest_that_is_a_symlink_to_an_endless_file_is_refused_at_once(command, tmp_path, capsys):
    import os
    import time

    from simlab.cli import main
    d = tmp_path / "s"
    d.mkdir()
    os.symlink("/dev/zero", d / "manifest.json")
    t0 = time.monotonic()
    assert main([command, str(d)]) == 2
    assert time.monotonic() - t0 < 30
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "manifest.json is not a regular file" in err


def test_a_manifest_over_the_read_limit_is_refused(tmp_path, monkeypatch, capsys):
    from simlab.cli import main
    from simlab.sweeps import store
    d = tmp_path / "s"
    d.mkdir()
    (d / "manifest.json").write_text('{"sides": ["a"], "cells": [], "pad": "' + "x" * 5000 + '"}')
    monkeypatch.setattr(store.Store.read_text, "__defaults__", (4096,))
    assert main(["verify", str(d)]) == 2
    assert "manifest.json is larger than" in capsys.readouterr().err


# --------------------------------------------------------------------------- item 3: a closed stdout
@pytest.mark.parametrize("how", ["closed", "reader-gone"])
def test_a_closed_or_broken_stdout_ends_the_sweep_quietly_with_its_rows_written(how, tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    out = tmp_path / "s"
    cmd = [sys.executable, "-m", "simlab", "sweep", "--game", "doe-battle", "--games", "10", "--workers", "1",
           "--no-progress", "--json", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    if how == "closed":
        r = subprocess.run(cmd, stdout=None, stderr=subprocess.PIPE, text=True, timeout=300, env=env,
                           preexec_fn=lambda: os.close(1))
    else:
        rfd, wfd = os.pipe()
        os.close(rfd)  # the reader is gone before anything is written (`| head -0`)
        r = subprocess.run(cmd, stdout=wfd, stderr=subprocess.PIPE, text=True, timeout=300, env=env)
        os.close(wfd)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
