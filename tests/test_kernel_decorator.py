"""One kernel decorator (simlab.jit.kernel) owns numba's options; pyproject pins the numba it was tested with;
no compiled kernel takes more arguments than tests/kernel_arguments.toml allows (issue 27)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import numba
import pytest

from simlab.jit import TESTED_NUMBA, kernel
from simlab.numba_start import FAST_LOAD_NUMBA

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "simlab"
DEBT = tomllib.loads((Path(__file__).parent / "kernel_arguments.toml").read_text())
MAX_ARGS = 12


def _name(d) -> str:
    f = d.func if isinstance(d, ast.Call) else d
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def compiled_kernels(root: Path = PKG) -> list[tuple[str, str, int]]:
    """(file relative to the repo, function, number of parameters) of every ``@kernel`` function."""
    out = []
    for p in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            if isinstance(node, ast.FunctionDef) and any(_name(d) == "kernel" for d in node.decorator_list):
                a = node.args
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                out.append((str(p.relative_to(ROOT)), node.name, n))
    return out


def test_every_compiled_function_of_simlab_uses_the_one_decorator():
    offenders = []
    for p in sorted(PKG.rglob("*.py")):
        if p.name == "jit.py" and p.parent == PKG:
            continue
        tree = ast.parse(p.read_text(), str(p))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                offenders += [f"{p.relative_to(ROOT)}:{node.name}" for d in node.decorator_list
                              if _name(d) in ("njit", "jit", "vectorize", "guvectorize")]
            if isinstance(node, ast.keyword) and node.arg and node.arg.startswith("_") and not node.arg.startswith("__"):
                offenders.append(f"{p.relative_to(ROOT)}:{node.lineno} passes {node.arg}=")
    assert not offenders, f"numba decorators or private options outside simlab/jit.py: {offenders}"
    assert len(compiled_kernels()) >= 400  # the scan found the kernels (a broken glob would pass vacuously)


def test_the_decorator_maps_its_options_to_numba():
    def f(x):
        return x + 1

    plain = kernel(f)
    counted = kernel(nrt=True, error_model="numpy")(f)
    assert plain.targetoptions["_nrt"] is False and type(plain._cache).__name__ == "FunctionCache"
    assert counted.targetoptions["_nrt"] is True and counted.targetoptions["error_model"] == "numpy"
    assert plain(2) == 3 and counted(2) == 3
    with pytest.raises(TypeError, match="unknown option.*parallel"):
        kernel(parallel=True)


def test_pyproject_pins_the_numba_the_decorator_was_tested_with():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in deps if re.match(r"numba\b", d)]
    lo = re.search(r">=\s*(\d+)\.(\d+)", spec)
    hi = re.search(r"<\s*(\d+)\.(\d+)", spec)
    assert lo and hi, f"numba must be bounded above and below in pyproject: {spec!r}"
    lo, hi = (int(lo[1]), int(lo[2])), (int(hi[1]), int(hi[2]))
    allowed = {(0, m) for m in range(lo[1], hi[1])} if lo[0] == hi[0] == 0 else None
    assert allowed == set(TESTED_NUMBA), f"pyproject allows {spec!r}, simlab.jit was tested with {TESTED_NUMBA}"
    assert FAST_LOAD_NUMBA <= TESTED_NUMBA
    assert tuple(int(x) for x in numba.__version__.split(".")[:2]) in TESTED_NUMBA


def test_no_kernel_takes_more_arguments_than_its_allowance():
    found = {(f, n): c for f, n, c in compiled_kernels()}
    problems = []
    for (f, n), c in sorted(found.items()):
        allowed = DEBT.get(f, {}).get(n, MAX_ARGS)
        if c > allowed:
            problems.append(f"{f}:{n} takes {c} arguments (allowed {allowed})")
    for f, names in DEBT.items():
        for n in names:
            if (f, n) not in found:
                problems.append(f"{f}:{n} is listed in kernel_arguments.toml but is no kernel: delete its line")
            elif found[(f, n)] <= MAX_ARGS:
                problems.append(f"{f}:{n} takes {found[(f, n)]} arguments now: delete its line")
    assert not problems, "\n".join(problems)
