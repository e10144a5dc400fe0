"""The suite's own guarantees (issue 32): every test has a time limit, so a hang fails instead of
stalling CI; slow tests carry a larger limit of their own; CI installs the numba that pyproject pins."""

from __future__ import annotations

import ast
import re
import shlex
import tomllib
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
INI = PYPROJECT["tool"]["pytest"]["ini_options"]


def test_every_test_has_a_time_limit_that_stops_any_hang(request):
    # pytest-timeout is installed with the dev extra CI installs, and loaded in this run
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    assert any(re.match(r"pytest-timeout\s*>=", d) for d in dev), dev
    assert request.config.pluginmanager.hasplugin("timeout"), "pytest-timeout is not loaded"
    # a limit for every test (seconds), read by the plugin from pyproject's ini options
    assert isinstance(INI["timeout"], int) and 0 < INI["timeout"] <= 900, INI.get("timeout")
    assert float(request.config.getini("timeout")) == INI["timeout"]
    # the thread method: a SIGALRM handler (the signal method) never runs while a numba kernel loops
    # in the main thread or a C call blocks, so only a watchdog thread stops every kind of hang
    assert INI["timeout_method"] == "thread" and request.config.getini("timeout_method") == "thread"
    # nothing switches it off: no `--timeout 0` / `-p no:timeout` in addopts or the Makefile's test targets
    make = (ROOT / "Makefile").read_text()
    for text in (INI.get("addopts", ""), make):
        assert not re.search(r"--timeout[= ]+0\b|no:timeout|timeout_disable", text), text


def _marks(decorators) -> dict[str, ast.Call | ast.Attribute]:
    """``{mark name: its node}`` of ``pytest.mark.NAME`` / ``pytest.mark.NAME(...)`` decorators."""
    out = {}
    for d in decorators:
        node = d.func if isinstance(d, ast.Call) else d
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"):
            out[node.attr] = d
    return out


def _limit(call) -> float | None:
    if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Constant):
        return float(call.args[0].value)
    return None


def _module_marks(tree: ast.Module) -> dict:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                for t in node.targets):
            v = node.value
            return _marks(v.elts if isinstance(v, (ast.List, ast.Tuple)) else [v])
    return {}


def slow_tests_and_limits() -> list[tuple[str, float | None]]:
    """Every test marked ``slow`` (on the function, its class or the module) with its explicit
    ``pytest.mark.timeout`` (seconds; None where it has none)."""
    found = []
    for f in sorted((ROOT / "tests").glob("test_*.py")):
        tree = ast.parse(f.read_text())
        module = _module_marks(tree)

        def visit(body, inherited, prefix, f=f):
            for node in body:
                if isinstance(node, ast.ClassDef):
                    visit(node.body, {**inherited, **_marks(node.decorator_list)}, f"{prefix}{node.name}::", f)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                    marks = {**inherited, **_marks(node.decorator_list)}
                    if "slow" in marks:
                        found.append((f"{f.name}::{prefix}{node.name}", _limit(marks.get("timeout"))))

        visit(tree.body, module, "")
    return found


def test_slow_tests_carry_an_explicit_larger_time_limit():
    found = slow_tests_and_limits()
    # the scan sees the suite's slow tests (a scan that found none would pass vacuously)
    assert len(found) >= 8 and "test_soak.py::test_full_soak_of_every_registered_game_is_clean" in dict(found)
    short = [f"{name}: {limit}" for name, limit in found if limit is None or limit <= INI["timeout"]]
    assert not short, (f"slow tests need @pytest.mark.timeout(N) with N > the default {INI['timeout']} s:\n"
                       + "\n".join(short))


def test_the_slow_test_scan_finds_marks_on_functions_classes_and_modules(tmp_path, monkeypatch):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import pytest\npytestmark = [pytest.mark.slow]\n\n@pytest.mark.timeout(2000)\ndef test_x():\n    pass\n"
        "def test_y():\n    pass\n")
    (tmp_path / "tests" / "test_b.py").write_text(
        "import pytest\n@pytest.mark.slow\nclass TestC:\n    def test_z(self):\n        pass\n"
        "@pytest.mark.timeout(5)\n@pytest.mark.parametrize('n', [1])\n@pytest.mark.slow\ndef test_w(n):\n    pass\n"
        "def test_fast():\n    pass\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert slow_tests_and_limits() == [("test_a.py::test_x", 2000.0), ("test_a.py::test_y", None),
                                       ("test_b.py::TestC::test_z", None), ("test_b.py::test_w", 5.0)]


def test_ci_installs_the_numba_pyproject_pins_and_the_venv_has_it():
    """.ci/run runs `make test`; its `setup` installs the project from pyproject (`-e '.[dev]'`), so
    pyproject's numba range is the one CI tests: no CI or Makefile line installs numba (or anything
    else) from a spec of its own that could disagree. The venv's numba is inside the range."""
    ci = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()
          if ln.strip() and not ln.strip().startswith("#")]
    assert ci[-1] == "make test", ci
    make = (ROOT / "Makefile").read_text()
    assert re.search(r"^test: setup$", make, re.M)
    installs = [shlex.split(ln.strip()) for ln in make.splitlines() if "pip install" in ln]
    installed = [a for cmd in installs for a in cmd[cmd.index("install") + 1:] if not a.startswith("-")
                 or a == "-e"]
    assert installed == ["pip", "-e", ".[dev]"], installed
    for text in ("\n".join(ci), make):
        assert "numba" not in text.lower(), "a numba spec outside pyproject: keep the one pin in pyproject"
    (spec,) = [d for d in PYPROJECT["project"]["dependencies"] if re.match(r"numba\b", d)]
    req = spec.split("#")[0].replace(" ", "")
    assert req == "numba>=0.68,<0.69", req
    from packaging.specifiers import SpecifierSet
    assert numba.__version__ in SpecifierSet(req.removeprefix("numba")), (numba.__version__, req)
