"""Start numba without importing SciPy's linear algebra (issue 17: start-up).

The first kernel a process compiles or loads from numba's cache makes numba import its NumPy
support, ``numba.np.arraymath``, whose import runs a probe, ``_check_blas()``, that imports
``scipy.linalg`` (about 0.25 s of CPU and 1,000 modules) only to set a flag: whether ``np.dot``
and friends may call BLAS. simlab's kernels use no linear algebra.

:func:`defer_blas_probe` imports ``numba.np.arraymath`` with that probe answered by whether SciPy
is installed (``importlib.util.find_spec``), then puts numba's own ``ensure_blas`` back, so a
kernel that does use ``np.dot`` still imports and checks SciPy's BLAS when it is compiled, as
before; at run time numba's helper library imports ``scipy.linalg.cython_blas`` itself. If numba's
internals are not as expected it does nothing.

:func:`start_numba` (what the framework calls before a process's first kernel) also loads cached
kernels without numba's registry refresh. numba refreshes its CPU target before it loads a
cached kernel: it imports some 30 modules of lowering code (the one that runs the BLAS probe
among them) and installs their implementations, about 0.2 s and the largest part of a short
sweep's start-up, although machine code loaded from the cache uses none of it. The patched load
initialises what that code does use (numba's runtime, NRT, and the hash secrets of
``numba.cpython.hashing``, the symbols those imports add) and loads the kernel; a compile still
refreshes first (numba's compiler does so itself), and a load that fails or misses goes through
numba's own path (refresh, then load). The BLAS probe is deferred as above at the first refresh.

The patched load is used only with the numba releases in :data:`FAST_LOAD_NUMBA` (whose refresh
was read: the symbols it adds are NRT's and the hash secrets'; a symbol it missed would be an
LLVM error at load, not an exception); with any other release a cached kernel loads through
numba's own path and only the BLAS probe is deferred.
"""

from __future__ import annotations

import importlib.util
import sys
import threading

__all__ = ["FAST_LOAD_NUMBA", "defer_blas_probe", "start_numba"]

#: numba releases (major, minor) whose ``CPUContext.load_additional_registries`` was checked to add
#: no symbols but NRT's and ``numba.cpython.hashing``'s (``ll.add_symbol``), as the patched load does.
FAST_LOAD_NUMBA = frozenset({(0, 68)})

_STARTED = False
_LOCK = threading.Lock()


def defer_blas_probe() -> None:
    """Import ``numba.np.arraymath`` without importing ``scipy.linalg`` (see the module docstring).
    Does nothing once that module is imported, or when numba's layout differs."""
    if "numba.np.arraymath" in sys.modules:
        return
    try:
        import numba.np.linalg as nl
    except Exception:  # noqa: BLE001 - numba moved things: leave its start-up alone
        return
    orig = getattr(nl, "ensure_blas", None)
    if orig is None:
        return

    def probe() -> None:
        if importlib.util.find_spec("scipy") is None:
            raise ImportError("scipy 0.16+ is required for linear algebra")

    nl.ensure_blas = probe
    try:
        import numba.np.arraymath as am
    except Exception:  # noqa: BLE001
        return
    finally:
        nl.ensure_blas = orig
    if getattr(am, "ensure_blas", None) is probe:
        am.ensure_blas = orig


def start_numba() -> None:
    """Before the first kernel of a process: cached kernels load without numba's registry
    refresh, and the first refresh (a compile) defers the BLAS probe (:func:`defer_blas_probe`);
    see the module docstring. Once per process; does nothing when numba's layout differs, or when
    numba has already refreshed its target (then it calls :func:`defer_blas_probe`, as before)."""
    global _STARTED
    if _STARTED:
        return
    with _LOCK:  # a dask worker's threads may start their first chunks at once
        if not _STARTED:
            _start()
            _STARTED = True


def _start() -> None:
    if "numba.np.arraymath" in sys.modules:  # numba has refreshed already: nothing left to save
        return
    try:
        import numba
        release = tuple(int(x) for x in numba.__version__.split(".")[:2])
    except (ImportError, ValueError):
        release = None
    if release not in FAST_LOAD_NUMBA:  # a release whose refresh nobody read: numba's own load
        defer_blas_probe()
        return
    try:
        from numba.core import caching, cpu
        from numba.core.runtime import nrt
        cache_cls, ctx_cls = caching.Cache, cpu.CPUContext
        load, registries = cache_cls.load_overload, ctx_cls.load_additional_registries
        cache_cls._load_overload  # noqa: B018 - the method the patched load calls
    except (ImportError, AttributeError):  # numba moved things: the probe's deferral alone
        defer_blas_probe()
        return

    def load_additional_registries(self):
        defer_blas_probe()  # the first refresh imports numba.np.arraymath: without scipy.linalg
        return registries(self)

    def load_overload(self, sig, target_context):
        try:
            nrt.rtsys.initialize(target_context)  # NRT's symbols and functions, as refresh does
            import numba.cpython.hashing  # noqa: F401  (its hash-secret symbols, as refresh does)
            with self._guard_against_spurious_io_errors():
                data = self._load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - anything odd: numba's own path decides
            data = None
        return data if data is not None else load(self, sig, target_context)

    ctx_cls.load_additional_registries = load_additional_registries
    cache_cls.load_overload = load_overload
