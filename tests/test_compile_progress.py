"""The compile progress of a sweep's first run (issue 31): a line that counts simlab's kernels as
numba compiles them, one line when stderr is not a terminal, nothing when they are cached.

Tiny kernels in a temporary module with their own numba cache folder (``NUMBA_CACHE_DIR`` is read
when numba is imported, so the module is written next to its own ``__pycache__`` instead): no
game is compiled here."""

from __future__ import annotations

import importlib.util
import io
import sys

import pytest

from simlab.compile_progress import CompileProgress, is_cached, kernels_to_compile, reachable_kernels

SOURCE = '''
from simlab.jit import kernel


@kernel
def leaf_nb(x):
    return x + 1


@kernel(inline="always")
def inlined_nb(x):
    return leaf_nb(x) * 2


@kernel
def middle_nb(x):
    return inlined_nb(x) - 1


@kernel
def entry_nb(x):
    return middle_nb(x) + leaf_nb(x)


@kernel
def unused_nb(x):
    return x - 7
'''


def _load(folder, name="ck_tiny"):
    """Import the tiny kernel module from ``folder`` afresh (new dispatchers, same disk cache)."""
    sys.modules.pop(name, None)
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def tiny(tmp_path):
    (tmp_path / "ck_tiny.py").write_text(SOURCE)
    yield tmp_path
    sys.modules.pop("ck_tiny", None)


def test_plan_is_what_the_entry_reaches(tiny):
    m = _load(tiny)
    # the inline kernel is looked through (its callee counts) but never compiled on its own;
    # a kernel of the module that the entry does not call is not in the plan
    assert [d.py_func.__name__ for d in reachable_kernels([m.entry_nb])] == ["entry_nb", "middle_nb", "leaf_nb"]
    assert [d.py_func.__name__ for d in kernels_to_compile([m.entry_nb])] == ["entry_nb", "middle_nb", "leaf_nb"]
    assert not is_cached(m.entry_nb)


def test_terminal_line_counts_to_the_total(tiny):
    m = _load(tiny)
    out = io.StringIO()
    with CompileProgress("Tiny", [m.entry_nb], tty=True, stream=out) as cp:
        assert cp.total == 3
        assert m.entry_nb(1) == (2 * 2 - 1) + 2
    assert cp.compiled == ["ck_tiny.leaf_nb", "ck_tiny.middle_nb", "ck_tiny.entry_nb"]
    assert cp.text() == "compiling the Tiny kernels, once: 3/3"
    assert "compiling the Tiny kernels, once: 3/3" in out.getvalue()
    assert cp.seconds > 0


def test_not_a_terminal_gives_one_line(tiny):
    m = _load(tiny)
    out = io.StringIO()
    with CompileProgress("Tiny", [m.entry_nb], tty=False, stream=out):
        m.entry_nb(1)
    assert out.getvalue() == "simlab: compiling the Tiny kernels (3 kernels), once: numba caches them for later runs\n"


def test_warm_cache_prints_nothing(tiny):
    m = _load(tiny)
    with CompileProgress("Tiny", [m.entry_nb], tty=False, stream=io.StringIO()):
        m.entry_nb(1)  # compiled and written to the module's __pycache__
    m = _load(tiny)  # fresh dispatchers: they load from the disk cache
    assert is_cached(m.entry_nb)
    assert kernels_to_compile([m.entry_nb]) == []
    for tty in (True, False):
        out = io.StringIO()
        with CompileProgress("Tiny", [m.entry_nb], tty=tty, stream=out) as cp:
            assert m.entry_nb(3) == ((3 + 1) * 2 - 1) + (3 + 1)
        assert out.getvalue() == "" and cp.compiled == [] and cp.total == 0


def test_compile_outside_the_plan_raises_the_total(tiny):
    m = _load(tiny)
    out = io.StringIO()
    with CompileProgress("Tiny", [m.leaf_nb], tty=True, stream=out) as cp:
        m.leaf_nb(1)
        m.unused_nb(1)
    assert cp.compiled == ["ck_tiny.leaf_nb", "ck_tiny.unused_nb"]
    assert cp.text() == "compiling the Tiny kernels, once: 2/2"


def test_without_entries_a_count_and_disabled_silent(tiny):
    m = _load(tiny)
    out = io.StringIO()
    with CompileProgress("Tiny", (), tty=True, stream=out) as cp:
        m.leaf_nb(1)
    assert cp.text() == "compiling the Tiny kernels, once: 1"
    m = _load(tiny, "ck_tiny")
    out = io.StringIO()
    with CompileProgress("Tiny", [m.unused_nb], enabled=False, tty=True, stream=out) as cp:
        m.unused_nb(1)
    assert out.getvalue() == "" and cp.compiled == []
