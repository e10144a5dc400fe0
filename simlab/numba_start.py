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
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["defer_blas_probe"]


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
