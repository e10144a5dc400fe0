"""The one kernel decorator: every compiled function of simlab is ``@kernel`` or ``@kernel(...)``.

This module alone spells numba's options. Every kernel is cached on disk (``cache=True``; the
framework keeps that cache in step with the sources, :mod:`simlab.kernel_cache`). The options a
kernel may choose:

- ``nrt`` (default ``False``): whether numba's reference-counting runtime is compiled in. A kernel
  that allocates (``np.empty`` and friends) needs ``nrt=True``; one that only reads and writes
  arrays it is given runs without it, which saves the increments and decrements of every array
  argument and is the form nearly all of simlab's hot kernels take. This maps to numba's private
  ``_nrt`` flag, read from numba's own source for the releases in :data:`TESTED_NUMBA`; pyproject
  pins numba to that range.
- ``inline``: ``"always"`` inlines the function into each caller at numba's IR level.
- ``error_model``: ``"numpy"`` makes division by zero give inf/nan instead of raising (no checks).
- ``no_cpython_wrapper``: ``True`` for kernels called only from other kernels (no Python entry).
- ``nogil``: ``True`` releases the GIL, so threads of a sweep can play chunks in parallel.

Raises:
    TypeError: at decoration, for an option not listed above.
"""

from __future__ import annotations

import numba

__all__ = ["TESTED_NUMBA", "kernel"]

#: numba releases (major, minor) whose private ``_nrt`` option this module was tested with;
#: pyproject.toml bounds numba to this range (tests/test_kernel_decorator.py checks both agree)
TESTED_NUMBA = frozenset({(0, 68)})

_ALLOWED = frozenset({"inline", "error_model", "no_cpython_wrapper", "nogil"})


def kernel(fn=None, /, *, nrt: bool = False, **options):
    """Compile ``fn`` with numba in nopython mode, cached on disk (``@njit(cache=True, ...)``).

    Use as ``@kernel`` or ``@kernel(error_model="numpy", nrt=True, ...)``; see the module's text for
    the options. Returns numba's dispatcher (``fn.py_func`` is the pure-Python function).

    Raises:
        TypeError: for an option other than ``nrt``, ``inline``, ``error_model``,
            ``no_cpython_wrapper`` and ``nogil``.
    """
    bad = sorted(set(options) - _ALLOWED)
    if bad:
        raise TypeError(f"kernel: unknown option(s) {', '.join(bad)}; allowed: nrt, {', '.join(sorted(_ALLOWED))}")
    jit = numba.njit(cache=True, _nrt=bool(nrt), **options)

    def mark(f):
        d = jit(f)
        d._simlab_kernel = True  # simlab.compile_progress counts these, not numba's own helpers
        return d

    return mark if fn is None else mark(fn)
