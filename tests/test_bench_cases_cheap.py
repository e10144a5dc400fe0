"""Building a game's bench cases compiles and plays nothing (:meth:`Game.bench_cases`).

``simlab bench --only NAME`` builds every game's cases to check the names it was given before it
runs one. Dawn of Empire's cases used to play a 2,000-campaign probe while being built, so a
misspelled ``--only`` waited for the whole campaign kernel to compile (8-13 min from an empty numba
cache) before it was refused. The check runs in a fresh process with an empty cache, where any
kernel call is a compile and shows as a ``numba:compile`` event. Drawing the games' seeds
(``simlab.rng.game_seeds``, a one-second compile) is the one kernel allowed.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CODE = """
import numba.core.event as ev
compiled = []
class L(ev.Listener):
    def on_start(self, event):
        name = event.data["dispatcher"].py_func.__qualname__
        if name != "_game_seeds_nb" and not name.startswith(("ol_", "_ol_")):  # numba's own array helpers
            compiled.append(name)
    def on_end(self, event):
        pass
ev.register("numba:compile", L())
from simlab.games import game_names, get_game
for g in game_names():
    game = get_game(g)
    n = len(game.bench_cases(quick=True)) + len(game.bench_cases(quick=False))
    print(g, n, sorted(set(compiled)))
"""


def _empty_cache_env(tmp_path: Path) -> dict[str, str]:
    """A child process's environment whose numba cache starts empty (``tmp_path/numba-cache``)."""
    return {"PATH": "/usr/bin:/bin", "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "HOME": str(tmp_path)}


@pytest.mark.timeout(300)
def test_building_every_games_bench_cases_compiles_no_kernel(tmp_path):
    env = _empty_cache_env(tmp_path)
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=280)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.strip().splitlines()
    assert {ln.split()[0] for ln in lines} >= {"dawn-of-empire", "doe-battle", "dreadnought", "mar-rojo"}
    for ln in lines:
        assert ln.endswith("[]"), f"building bench cases compiled kernels: {ln}"


@pytest.mark.timeout(300)
def test_bench_only_refuses_an_unknown_name_without_compiling(tmp_path):
    env = _empty_cache_env(tmp_path)
    r = subprocess.run([sys.executable, "-m", "simlab", "bench", "--only", "no-such-benchmark"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=280)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("simlab: error: --only 'no-such-benchmark' matches no benchmark")
    assert len(r.stderr.strip().splitlines()) == 1
    cached = sorted(p.name for p in (tmp_path / "numba-cache").rglob("*.nbi"))
    assert all(n.startswith("rng._game_seeds_nb") for n in cached), f"kernels compiled: {cached}"
