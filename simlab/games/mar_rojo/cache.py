"""Keep numba's on-disk cache of the Mar Rojo kernels in step with their sources.

numba re-validates a cached function against the modification time of *its own* source file
only; a kernel that calls (and so embeds) functions of other files keeps the old code after
those files change. The Mar Rojo game loop in ``engine.py`` embeds every other kernel module,
so :func:`refresh_cache` stamps the cache folder with a digest of all kernel sources and drops
the package's cached kernels when the digest differs. ``run_games`` calls it once per process
before the first kernel call.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

__all__ = ["KERNEL_MODULES", "refresh_cache", "source_digest"]

KERNEL_MODULES = ("actions", "bench", "build", "combat", "deck", "dice", "engine", "enums", "fleet", "layout",
                  "policies", "solo", "victory")
_STAMP = "mar_rojo-kernels.digest"
_done = False


def source_digest() -> str:
    """SHA-256 (16 hex digits) of the kernel modules' sources (and the shared RNG kernels)."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for m in KERNEL_MODULES:
        h.update((here / f"{m}.py").read_bytes())
    h.update((here.parent.parent / "rng.py").read_bytes())
    return h.hexdigest()[:16]


def refresh_cache(force: bool = False) -> bool:
    """Drop the cached Mar Rojo kernels if their sources changed since they were cached.

    Returns:
        True if cache files were removed. Never raises: a cache it cannot inspect or write (a
        read-only install, a numba without the attribute used) is left alone.
    """
    global _done
    if _done and not force:
        return False
    _done = True
    try:
        from .engine import play_games_nb
        path = Path(play_games_nb._cache._cache_path)  # numba's cache folder for this package
    except (AttributeError, ImportError):  # pragma: no cover - numba internals changed
        return False
    stamp = path / _STAMP
    digest = source_digest()
    try:
        if stamp.exists() and stamp.read_text().strip() == digest:
            return False
        removed = False
        for m in KERNEL_MODULES:
            for f in list(path.glob(f"{m}.*.nbi")) + list(path.glob(f"{m}.*.nbc")):
                with contextlib.suppress(FileNotFoundError):
                    f.unlink()
                    removed = True
        path.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest + "\n")
        return removed
    except OSError:  # pragma: no cover - read-only cache folder
        return False
