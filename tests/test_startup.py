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
decorator = re.compile(r"^\s*@(numba\.)?(njit|jit|vectorize|guvectorize)\b", re.M)  # as tests/test_layers.py
kernels = []
for name in loaded:
    f = getattr(sys.modules[name], "__file__", None) or ""
    if name.startswith("simlab") and f.endswith(".py") and decorator.search(Path(f).read_text()):
        kernels.append(name)
heavy = [m for m in ("numba", "scipy", "pandas", "pyarrow", "llvmlite", "pyarrow.dataset", "scipy.linalg",
                     "scipy.stats") if m in sys.modules]
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
    for m in ("pandas", "pyarrow.dataset", "scipy.linalg", "scipy.stats"):
        assert m not in res["heavy"], f"a sweep imported {m}"
    res = _probe([["report", out]])
    assert res["codes"] == [0]
    for m in ("pyarrow.dataset", "scipy.linalg", "scipy.stats"):
        assert m not in res["heavy"], f"simlab report imported {m}"
