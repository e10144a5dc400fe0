"""The compile progress of a sweep's first run (issue 31): a line that counts simlab's kernels as
numba compiles them, one line when stderr is not a terminal, nothing when they are cached.

Tiny kernels in a temporary module with their own numba cache folder (``NUMBA_CACHE_DIR`` is read
when numba is imported, so the module is written next to its own ``__pycache__`` instead): no
game is compiled here."""

from __future__ import annotations

import importlib.util
import io
import re
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
    assert re.fullmatch(r"simlab: compiled the Tiny kernels \(3 kernels\) once, in \d+ s: numba caches them for "
                        r"later runs\n", out.getvalue()), out.getvalue()


def test_an_error_while_compiling_leaves_stderr_to_the_errors_one_line(tiny):
    # bad input found by the preflight's first game (after or during the compile) must stay one line
    m = _load(tiny)
    out = io.StringIO()
    with pytest.raises(ValueError), CompileProgress("Tiny", [m.entry_nb], tty=False, stream=out):
        m.entry_nb(1)
        raise ValueError("bad input")
    assert out.getvalue() == ""


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


class _Policy:
    def to_json(self):
        return {"name": "p"}


class _Cell:
    def __init__(self, key, options):
        self.key, self.scenario, self.options, self.policies = key, "s", options, {"a": _Policy()}
        self.data = None  # no data axes (simlab.data_axes): the cell plays the sweep's scenario


class _FakeGame:
    """A game for the runner's preflight: its only kernels are the tiny module's."""
    name, kernels_name = "fake", "Tiny"

    def __init__(self, mod):
        self.mod, self.played = mod, []

    def ensure_kernels_fresh(self):
        return False

    def sweep_kernels(self, scenario, options):
        return (self.mod.entry_nb,)

    def play_batch(self, scenario, options, policies, seeds):
        self.played.append((options["n"], int(self.mod.entry_nb(options["n"]))))


def test_preflight_shows_the_compile_once_then_nothing(tiny, capsys):
    from simlab.rng import _game_seeds_nb
    from simlab.sweeps import runner
    _game_seeds_nb(1, 0, 0, 1)  # the framework's seed kernel loaded already: the plan is the tiny module's
    game = _FakeGame(_load(tiny))
    cells = [_Cell(0, {"n": 1}), _Cell(1, {"n": 1}), _Cell(2, {"n": 2})]
    spec = type("Spec", (), {"seed": 5})()
    runner.preflight(game, cells, {"scenarios": {"s": None}}, spec)
    # one game of each distinct cell (the first two are the same cell), compiled once, before any worker
    assert game.played == [(1, 5), (2, 8)]
    assert re.fullmatch(r"simlab: compiled the Tiny kernels \(3 kernels\) once, in \d+ s: numba caches them "
                        r"for later runs\n", capsys.readouterr().err)
    runner.preflight(_FakeGame(_load(tiny)), cells, {"scenarios": {"s": None}}, spec)  # warm: loads from disk
    runner.preflight(_FakeGame(_load(tiny)), cells, {"scenarios": {"s": None}}, spec, progress=False)
    assert capsys.readouterr().err == ""
