"""Show numba's first compile of a game's kernels as progress (issue 31).

A fresh clone has no numba cache: the first sweep of a game compiles its kernels (about half a
minute for a battle, minutes for a campaign) before the first chunk plays. :class:`CompileProgress`
wraps the code that compiles them (the runner's preflight, :func:`simlab.sweeps.runner.preflight`)
and shows what happens on stderr:

- on a terminal, a rich progress line ``compiling the Dawn of Empire kernels, once: 3/9`` that
  advances as each simlab kernel finishes compiling (numba's ``numba:compile`` events; numba's own
  helpers compiled along the way are not counted);
- when stderr is not a terminal, one line when the first compile starts, nothing else;
- nothing at all when every kernel loads from numba's on-disk cache (no compile event fires).

The total is :func:`kernels_to_compile` of the kernels the sweep calls from Python (the game's
:meth:`simlab.games.base.Game.sweep_kernels` and the framework's seed kernel): every ``@kernel``
they reach through their globals and closures, stopping at one numba has cached, so a campaign
sweep counts the campaign's kernels and not the odds kernels. It is an estimate: a kernel numba
compiles for two argument types counts once, and one in a branch numba prunes is never compiled
(the line then ends at its count: ``9/9``); a compile outside the estimate raises the total.
"""

from __future__ import annotations

import sys
import time
import types
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

__all__ = ["CompileProgress", "is_cached", "kernels_to_compile", "reachable_kernels"]


def _is_dispatcher(v: Any) -> bool:
    return hasattr(v, "py_func") and hasattr(v, "targetoptions") and hasattr(v, "overloads")


def _is_inline(d: Any) -> bool:
    """``inline="always"`` kernels are inlined into their callers as IR: never compiled on their own."""
    return d.targetoptions.get("inline") == "always"


def _callees(d: Any) -> list[Any]:
    """The numba dispatchers kernel ``d``'s code names: its globals (``f``, ``mod.f``) and closure cells."""
    fn = d.py_func
    names: dict[str, None] = {}  # in the order the code names them (the plan's order is stable)
    codes = [fn.__code__]
    while codes:
        co = codes.pop(0)
        names.update(dict.fromkeys(co.co_names))
        codes.extend(c for c in co.co_consts if isinstance(c, types.CodeType))
    g = fn.__globals__
    vals = [g[n] for n in names if n in g]
    for cell in fn.__closure__ or ():
        try:
            vals.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    for m in [v for v in vals if isinstance(v, types.ModuleType)]:
        vals.extend(getattr(m, n) for n in names if hasattr(m, n))
    out, seen = [], set()
    for v in vals:
        if _is_dispatcher(v) and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def is_cached(d: Any) -> bool:
    """Whether numba holds kernel ``d`` compiled: in this process, or in a fresh on-disk cache index
    (its source unchanged since). False when numba's cache internals are not as expected."""
    if d.overloads:
        return True
    try:
        return bool(d._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - no cache (cache=False), an unreadable index, numba moved things
        return False


def reachable_kernels(entries: Iterable[Any], *, stop_at_cached: bool = False) -> list[Any]:
    """Every dispatcher reachable from ``entries`` through the kernels' code, ``entries`` first.

    Args:
        entries: numba dispatchers (``@kernel`` functions) called from Python.
        stop_at_cached: do not look inside a kernel numba has cached (:func:`is_cached`): loading
            it compiles none of its callees.

    Returns:
        The dispatchers, each once, in the order found; ``inline="always"`` ones are looked
        through but not listed (numba never compiles them on their own).
    """
    out, seen = [], set()
    stack = list(entries)[::-1]
    while stack:
        d = stack.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        inline = _is_inline(d)
        if not inline:
            if stop_at_cached and is_cached(d):
                continue
            out.append(d)
        stack.extend(_callees(d)[::-1])
    return out


def kernels_to_compile(entries: Iterable[Any]) -> list[Any]:
    """The kernels numba will compile when ``entries`` are first called: the reachable ones that
    are not cached (:func:`reachable_kernels` with ``stop_at_cached``)."""
    return reachable_kernels(entries, stop_at_cached=True)


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (OSError, ValueError):
        return False


class CompileProgress:
    """While active, show numba compiling simlab's kernels (see the module docstring).

    Args:
        what: the kernels' owner for the line, e.g. ``"Dawn of Empire"``.
        entries: the dispatchers the wrapped code calls from Python (for the total); empty: the
            line counts kernels without a total.
        enabled: False shows nothing (``--no-progress``).
        tty: whether stderr is a terminal (default: asked); not one gives the single line.
        stream: where the lines go (default ``sys.stderr``).

    Attributes:
        planned: the kernels expected to compile (:func:`kernels_to_compile`).
        compiled: qualified names of the simlab kernels compiled while active, in order.
        seconds: from the first compile event to the exit (0.0 when nothing compiled).
    """

    def __init__(self, what: str, entries: Sequence[Any] = (), *, enabled: bool = True, tty: bool | None = None,
                 stream: TextIO | None = None):
        self.what = what
        self.enabled = enabled
        self.tty = _stderr_is_tty() if tty is None else tty
        self.stream = stream
        self.planned: list[Any] = []
        self.compiled: list[str] = []
        self.seconds = 0.0
        self._entries = list(entries)
        self._done: set[int] = set()
        self._planned_ids: set[int] = set()
        self._extra = 0
        self._t0: float | None = None
        self._bar = None
        self._listener = None

    # ------------------------------------------------------------------ the line
    @property
    def total(self) -> int | None:
        """The kernels expected (planned ones plus any compiled outside the plan); None without a plan."""
        return len(self.planned) + self._extra if self._entries else None

    def text(self) -> str:
        """The progress line, e.g. ``compiling the Dawn of Empire kernels, once: 3/9``."""
        n = len(self._done)
        return (f"compiling the {self.what} kernels, once: {n}/{max(self.total, n)}" if self.total is not None
                else f"compiling the {self.what} kernels, once: {n}")

    def _start_display(self) -> None:
        self._t0 = time.perf_counter()
        if not self.tty:
            return  # one line at the end, once the compile has worked (__exit__): an error stays one line
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        console = Console(file=self.stream or sys.stderr, force_terminal=True) if self.stream else Console(stderr=True)
        self._bar = Progress(TextColumn("{task.description}"), BarColumn(bar_width=20), TimeElapsedColumn(),
                             console=console, transient=False, refresh_per_second=4)
        self._bar.__enter__()
        self._task = self._bar.add_task(self.text(), total=self.total)

    def _update(self) -> None:
        if self._bar is not None:
            total = self.total
            self._bar.update(self._task, description=self.text(), completed=len(self._done),
                             total=max(total, len(self._done)) if total is not None else None)

    # ------------------------------------------------------------------ numba's events
    def _on_start(self, d: Any) -> None:
        if self._t0 is None and _is_simlab(d):
            self._start_display()

    def _on_end(self, d: Any) -> None:
        if not _is_simlab(d) or id(d) in self._done:
            return
        if self._t0 is None:
            self._start_display()
        self._done.add(id(d))
        if id(d) not in self._planned_ids:
            self._extra += 1
        self.compiled.append(f"{d.py_func.__module__}.{d.py_func.__qualname__}")
        self._update()

    def __enter__(self) -> CompileProgress:
        if not self.enabled:
            return self
        try:
            from numba.core import event
        except ImportError:  # pragma: no cover - numba moved its events: no progress, as before
            return self
        self.planned = kernels_to_compile(self._entries)
        self._planned_ids = {id(d) for d in self.planned}
        outer = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                outer._on_start(ev.data["dispatcher"])

            def on_end(self, ev):
                outer._on_end(ev.data["dispatcher"])

        self._listener = _Listener()
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc) -> bool:
        if self._listener is not None:
            from numba.core import event
            event.unregister("numba:compile", self._listener)
            self._listener = None
        if self._t0 is not None:
            self.seconds = time.perf_counter() - self._t0
            if not self.tty and exc[0] is None:
                n = len(self._done)
                print(f"simlab: compiled the {self.what} kernels ({n} kernel{'s' if n != 1 else ''}) once, in "
                      f"{self.seconds:.0f} s: numba caches them for later runs", file=self.stream or sys.stderr, flush=True)
        if self._bar is not None:
            if exc[0] is not None:  # bad input found while compiling: its one line replaces the bar
                self._bar.live.transient = True
            if exc[0] is None:  # a plan's kernel numba never compiled (a pruned branch): the line ends full
                self._extra -= max((self.total or 0) - len(self._done), 0)
            self._update()
            self._bar.__exit__(*exc)
            self._bar = None
        return False


def _is_simlab(d: Any) -> bool:
    """Whether dispatcher ``d`` is a ``@kernel`` of :mod:`simlab.jit` (not a numba helper such as ``np.empty``'s)."""
    return getattr(d, "_simlab_kernel", False)
