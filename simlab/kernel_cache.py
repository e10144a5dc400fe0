"""Keep numba's on-disk kernel cache in step with the sources the kernels are built from.

numba's ``cache=True`` re-validates a cached function only against the modification time of its
own source file. A kernel that calls (and so compiles into itself) functions of other files — every
game's loop embeds :mod:`simlab.rng` and its phase modules — keeps the old machine code after those
files change. :func:`refresh` stamps a cache folder with a digest of every source a package's
kernels are built from, and deletes the package's cached kernels when the digest changes. Each game
calls it once per process before its first kernel call.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numba

__all__ = ["RNG_SOURCE", "cache_path", "digest", "refresh"]

#: the random-stream kernels every game embeds
RNG_SOURCE = Path(__file__).resolve().parent / "rng.py"


def digest(sources: Iterable[Path]) -> str:
    """SHA-256 (16 hex digits) of the numba version and the contents of ``sources`` (missing files skipped)."""
    h = hashlib.sha256(numba.__version__.encode())
    for p in sources:
        with contextlib.suppress(OSError):
            h.update(Path(p).read_bytes())
    return h.hexdigest()[:16]


def cache_path(dispatcher) -> Path | None:
    """The folder numba caches a dispatcher's package in (honours ``NUMBA_CACHE_DIR``), or None."""
    try:
        return Path(dispatcher._cache._cache_path)
    except AttributeError:  # pragma: no cover - numba internals changed, or cache=False
        return None


def refresh(folder: Path | None, stamp_name: str, sources: Sequence[Path], module_stems: Iterable[str],
            want: str | None = None) -> bool:
    """Delete the cached kernels of ``module_stems`` in ``folder`` if ``sources`` changed.

    Args:
        folder: numba's cache folder for the package (:func:`cache_path`); None does nothing.
        stamp_name: file name of the digest stamp in ``folder`` (one per package).
        sources: every file the package's kernels are compiled from.
        module_stems: the modules whose ``<stem>.*.nbi``/``.nbc`` files are dropped.
        want: the digest to expect (default :func:`digest` of ``sources``).

    Returns:
        True if cache files were removed. Never raises: a cache folder it cannot read or write (a
        read-only install) is left alone, and several processes may run it at once (the worst case
        is a kernel compiled twice).
    """
    if folder is None:
        return False
    want = want or digest(sources)
    stamp = folder / stamp_name
    try:
        if stamp.read_text().strip() == want:
            return False
    except OSError:
        pass
    removed = False
    stems = set(module_stems)
    try:
        if folder.is_dir():
            for p in folder.iterdir():
                if p.suffix in (".nbi", ".nbc") and p.name.split(".", 1)[0] in stems:
                    with contextlib.suppress(OSError):
                        p.unlink()
                        removed = True
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{stamp_name}.{os.getpid()}"
        tmp.write_text(want + "\n")
        os.replace(tmp, stamp)
    except OSError:  # pragma: no cover - read-only cache folder
        pass
    return removed
