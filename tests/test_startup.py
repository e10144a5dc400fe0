"""Lazy start-up: the commands that only describe games load no compiled kernels (issue 17).

``simlab --help``, ``simlab games`` and ``simlab data show`` must answer without importing numba
or any module that defines ``@njit`` kernels; a game's kernels load with its first scenario or
batch. Each check runs in a fresh interpreter, so what an earlier test imported cannot hide a
regression. Speed itself is measured by ``simlab bench``, never here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import contextlib, io, json, re, sys
from pathlib import Path
from simlab.cli import main

codes = []
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    for argv in json.loads(sys.argv[1]):
        codes.append(main(argv))
loaded = sorted(sys.modules)
decorator = re.compile(r"^\s*@(numba\.)?(kernel|njit|jit|vectorize|guvectorize)\b", re.M)  # as tests/test_layers.py
kernels = []
for name in loaded:
    f = getattr(sys.modules[name], "__file__", None) or ""
    if name.startswith("simlab") and f.endswith(".py") and decorator.search(Path(f).read_text()):
        kernels.append(name)
heavy = [m for m in ("numba", "scipy", "pandas", "pyarrow", "llvmlite", "pyarrow.dataset", "scipy.linalg",
                     "scipy.stats", "numba.np.arraymath", "fsspec", "pyarrow.compute") if m in sys.modules]
games = sorted(m for m in loaded if m.startswith("simlab.games.") and m.count(".") >= 2)
print(json.dumps({"codes": codes, "kernels": kernels, "heavy": heavy, "games": games}))
"""


def _probe(commands: list[list[str]]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(commands)], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("commands", [
    [["--help"]],
    [["games"], ["games", "--json"]],
    [["data", "show", g] for g in ("doe-battle", "dawn-of-empire", "dreadnought", "mar-rojo")]
    + [["data", "show", "dreadnought", "--json", "--provisional"]],
    [["odds", "--help"], ["version"]],
    [["schema", g, "--json"] for g in ("doe-battle", "dawn-of-empire", "dreadnought", "mar-rojo")],
], ids=["help", "games", "data-show", "odds-help", "schema"])
def test_describing_commands_load_no_kernels(commands):
    res = _probe(commands)
    assert res["codes"] == [0] * len(commands)
    assert res["kernels"] == [], f"{commands} imported kernel modules {res['kernels']}"
    assert res["heavy"] == [], f"{commands} imported {res['heavy']}"


def test_help_loads_no_game():
    res = _probe([["--help"]])
    assert res["games"] == [], res["games"]


def test_probe_sees_kernels_once_a_game_plays(tmp_path):
    """The probe is able to fail: playing one battle does load numba and the DoE kernels."""
    res = _probe([["sweep", "--game", "doe-battle", "--games", "1", "--workers", "1", "--no-progress",
                   "--out", str(tmp_path / "sweep")]])
    assert res["codes"] == [0]
    assert "numba" in res["heavy"]
    assert "simlab.games.doe.kernels" in res["kernels"]


def test_a_sweep_loads_no_pandas_dataset_or_linalg(tmp_path):
    """A sweep prints its report from the chunks' summaries (no pyarrow.dataset, which imports
    pandas), builds its Arrow columns without pa.array (which imports pandas), and numba starts
    without scipy.linalg (simlab.numba_start); `simlab report` reads the parts one by one
    (pyarrow's reader imports pandas, but no dataset or SciPy is loaded)."""
    out = str(tmp_path / "sweep")
    res = _probe([["sweep", "--game", "doe-battle", "--games", "300", "--chunk-size", "100", "--workers", "1",
                   "--no-progress", "--out", out]])
    assert res["codes"] == [0]
    assert "numba" in res["heavy"] and "pyarrow" in res["heavy"]  # it did play and write
    for m in ("pandas", "pyarrow.dataset", "scipy.linalg", "scipy.stats",
              "numba.np.arraymath", "fsspec", "pyarrow.compute"):  # cached kernels load without numba's refresh
        assert m not in res["heavy"], f"a sweep imported {m}"
    for m in ("campaign_loop", "campaign_movement", "campaign_orders", "campaign_combat", "policies"):
        assert f"simlab.games.doe.{m}" not in res["games"], f"a battle sweep imported the campaign's {m}"
    res = _probe([["report", out]])
    assert res["codes"] == [0]
    for m in ("pyarrow.dataset", "scipy.linalg", "scipy.stats"):
        assert m not in res["heavy"], f"simlab report imported {m}"


KERNEL = """
import numpy as np
from numba import njit


@njit(cache=True)
def squares(n):
    out = np.empty(n, dtype=np.int64)  # an allocation: numba's runtime (NRT) must be up
    for i in range(n):
        out[i] = i * i
    return out
"""

LOAD = r"""
import json, sys
import numpy as np
from simlab.numba_start import start_numba
if sys.argv[1] == "other-release":  # a numba release whose refresh was not read: numba's own load
    import numba
    numba.__version__ = "0.99.0"
start_numba()
if sys.argv[1] == "fail-once":  # the patched load fails: numba's own path (refresh, load) takes over
    from numba.core import caching
    real = caching.Cache._load_overload
    calls = []
    def broken(self, sig, ctx):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("x")
        return real(self, sig, ctx)
    caching.Cache._load_overload = broken
import kmod
first = kmod.squares(5).tolist()
hits = sum(kmod.squares.stats.cache_hits.values())
refreshed = "numba.np.arraymath" in sys.modules
from numba import njit
@njit
def total(a):  # a fresh compile after the cached load: numba refreshes for it
    return np.sum(a) + len(a)
print(json.dumps({"first": first, "hits": hits, "refreshed_before": refreshed, "total": int(total(kmod.squares(4))),
                  "arraymath_after": "numba.np.arraymath" in sys.modules, "linalg": "scipy.linalg" in sys.modules}))
"""


@pytest.mark.parametrize("mode", ["plain", "fail-once", "other-release"])
def test_cached_kernels_load_without_numbas_refresh(tmp_path, mode):
    """simlab.numba_start: a kernel loaded from numba's cache runs (allocating arrays) without
    the registry refresh; a later compile in the same process refreshes and works; a failing
    fast load falls back to numba's own path, and so does a numba release not in FAST_LOAD_NUMBA."""
    (tmp_path / "kmod.py").write_text(KERNEL)
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    runs = []
    for _ in range(2):  # the first run compiles and caches, the second loads from the cache
        out = subprocess.run([sys.executable, "-c", LOAD, mode], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=300)
        assert out.returncode == 0, out.stderr
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    compiled, loaded = runs
    assert compiled["hits"] == 0 and compiled["refreshed_before"] is True  # compiling refreshed
    assert loaded["hits"] == 1 and loaded["first"] == [0, 1, 4, 9, 16]
    assert loaded["refreshed_before"] is (mode != "plain")  # only numba's own path refreshes
    assert loaded["total"] == 0 + 1 + 4 + 9 + 4 and loaded["arraymath_after"] is True
    assert loaded["linalg"] is False  # the BLAS probe stayed deferred at the compile's refresh


def test_the_manifests_commit_is_found_on_a_thread_while_a_sweep_starts():
    import re

    from simlab import _version
    _version._git_commit.cache_clear()
    _version._PREFETCH = None
    try:
        _version.prefetch_git_commit()
        thread = _version._PREFETCH
        assert thread is not None and thread.name == "simlab-git-commit"
        got = _version.git_commit()  # waits for the thread
        assert not thread.is_alive()
        _version._git_commit.cache_clear()
        assert got == _version._git_commit()  # what the two git calls give in this thread
        assert got is None or re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", got)
    finally:
        _version._PREFETCH = None
