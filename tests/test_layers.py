"""The layers of simlab, enforced on the source (every import, including those inside functions).

errors, rng, tomlio, stats (a leaf: statistics of no game) -> datapack -> games -> sweeps ->
results -> analysis -> plots -> api -> cli. Nothing imports upward; no circle of imports crosses
a folder other than a single game's; nothing under ``simlab/games/`` imports typer, rich or
``simlab.cli``; every file with ``@njit`` is a declared kernel module of some game.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "simlab"

#: each module's layer, by longest matching dotted prefix; a module may import its own layer and below
LAYERS = [
    ("simlab.errors", 0), ("simlab.jit", 0), ("simlab.rng", 0), ("simlab.tomlio", 0), ("simlab.stats", 0), ("simlab._version", 0),
    ("simlab.kernel_cache", 0), ("simlab.numba_start", 0),  # numba's start-up (imports numba only)
    ("simlab.compile_progress", 0),  # numba's compile events shown as progress (numba and rich only)
    ("simlab.datapack", 1), ("simlab.data_axes", 1),
    ("simlab.measured", 1),  # the conditions an exploitability figure was measured under (plain data)
    ("simlab.games", 2),
    ("simlab.sweeps", 3),
    ("simlab.results", 4), ("simlab.views", 4),  # views: filtering, sorting and the matrix of report rows
    ("simlab.colors", 4),  # figure colours: the games' declared side colours
    ("simlab.testing", 5), ("simlab.bench", 5),  # tools over sweeps and results, used by the CLI
    ("simlab.analysis", 6),
    ("simlab.solve", 7),  # the best-response search: sweeps and the meta-game solver, below the api
    ("simlab.plots", 7), ("simlab.plot_kinds", 7),
    ("simlab.api", 8), ("simlab", 8),  # the package itself re-exports the api
    ("simlab.cli", 9), ("simlab.__main__", 9),
]


def _modules(root: Path = PKG) -> dict[str, tuple[Path, bool]]:
    out = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        pkg = parts[-1] == "__init__"
        if pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (p, pkg)
    return out


def import_graph(root: Path = PKG) -> dict[str, set[str]]:
    """``{module: {simlab modules it imports}}`` from the source: every ``import``/``from`` statement,
    at module level or inside a function, relative imports resolved."""
    mods = _modules(root)
    top = root.name
    edges: dict[str, set[str]] = defaultdict(set)
    for m, (p, pkg) in mods.items():
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = m.split(".") if pkg else m.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    b = ".".join(base + ([node.module] if node.module else []))
                else:
                    b = node.module or ""
                targets = [f"{b}.{a.name}" if f"{b}.{a.name}" in mods else b for a in node.names]
            for t in targets:
                if t.split(".")[0] != top:
                    continue
                while t not in mods and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t != m:
                    edges[m].add(t)
    for m in mods:
        edges.setdefault(m, set())
    return dict(edges)


def external_imports(path: Path) -> set[str]:
    """Top-level names of every module a file imports (``typer``, ``rich``, ``numpy`` ...)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module)
    return out


def compiles_kernels(path: Path) -> bool:
    """Whether a file defines a numba-compiled function (a ``@njit``/``@jit``/``@vectorize`` decorator)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in ("kernel", "njit", "jit", "vectorize", "guvectorize"):
                    return True
    return False


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def layer(module: str) -> int:
    best = max((p for p, _ in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return dict(LAYERS)[best]


def _game_folder(module: str) -> str | None:
    parts = module.split(".")
    return ".".join(parts[:3]) if len(parts) >= 4 and parts[1] == "games" else None


# --------------------------------------------------------------------------- the helpers can fail
def test_the_graph_helpers_see_upward_imports_and_circles(tmp_path):
    pkg = tmp_path / "simlab"
    (pkg / "games").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("def f():\n    from .cli import main\n")  # upward, inside a function
    (pkg / "cli.py").write_text("from . import errors\n")
    (pkg / "games" / "__init__.py").write_text("from ..errors import f\n")
    g = import_graph(pkg)
    assert g["simlab.errors"] == {"simlab.cli"} and g["simlab.games"] == {"simlab.errors"}
    assert cycles(g) == [["simlab.cli", "simlab.errors"]]
    assert layer("simlab.cli") > layer("simlab.errors")
    assert external_imports(pkg / "errors.py") == set()
    (pkg / "k.py").write_text("import numba\n\n\n@numba.njit(cache=True)\ndef f_nb():\n    return 1\n")
    (pkg / "doc.py").write_text('"""mentions @njit but compiles nothing"""\n')
    assert compiles_kernels(pkg / "k.py") and not compiles_kernels(pkg / "doc.py")


# --------------------------------------------------------------------------- the rules
def test_nothing_imports_upward():
    bad = [f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)})"
           for m, ts in import_graph().items() for t in sorted(ts) if layer(t) > layer(m)]
    assert not bad, "\n".join(bad)


def test_no_circle_of_imports_outside_one_game_folder():
    bad = [c for c in cycles(import_graph()) if len({_game_folder(m) for m in c}) != 1 or _game_folder(c[0]) is None]
    assert not bad, bad


def test_games_know_nothing_of_the_command_line():
    bad = []
    for p in (PKG / "games").rglob("*.py"):
        for name in external_imports(p):
            if name.split(".")[0] in ("typer", "rich", "click"):
                bad.append(f"{p.relative_to(ROOT)} imports {name}")
    graph = import_graph()
    bad += [f"{m} imports {t}" for m, ts in graph.items() if m.startswith("simlab.games")
            for t in ts if t in ("simlab.cli", "simlab.api") or layer(t) > layer("simlab.games")]
    assert not bad, bad


def test_every_njit_file_is_a_declared_kernel_module():
    from simlab import kernel_cache
    from simlab.games import game_names, get_game
    declared = set(kernel_cache.FRAMEWORK_MODULES)
    for name in game_names():
        declared |= set(get_game(name).kernel_modules)
    files = {kernel_cache.module_source(m) for m in declared}
    njit = {p.resolve() for p in PKG.rglob("*.py") if compiles_kernels(p)}
    missing = sorted(str(p.relative_to(ROOT)) for p in njit - files)
    assert not missing, f"@njit files no game declares in kernel_modules: {missing}"
    assert len(njit) >= 20  # the scan found the kernels (a broken glob would pass vacuously)


def test_importing_the_cli_loads_no_game_and_no_numba():
    code = ("import sys, simlab.cli\n"
            "bad = sorted(m for m in sys.modules if m.startswith('simlab.games.') or m == 'numba')\n"
            "print(','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("pkg", ["simlab.games.doe", "simlab.games.dreadnought", "simlab.games.mar_rojo"])
def test_importing_a_game_package_has_no_side_effect(pkg, tmp_path):
    code = (f"import os, sys\nos.environ['NUMBA_CACHE_DIR'] = {str(tmp_path)!r}\nimport {pkg}\n"
            "print(','.join(sorted(m for m in sys.modules if m.startswith('numba'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "" and list(tmp_path.iterdir()) == []
