"""Keep numba's on-disk cache of the Mar Rojo kernels in step with their sources.

numba re-validates a cached function against the modification time of *its own* source file
only; a kernel that calls (and so embeds) functions of other files keeps the old code after
those files change. The Mar Rojo game loop in ``engine.py`` embeds every other kernel module,
so :func:`refresh_cache` stamps the cache folder with a digest of all kernel sources and drops
the package's cached kernels when the digest differs. ``run_games`` calls it once per process
before the first kernel call.
"""

from __future__ import annotations

from pathlib import Path

from ... import kernel_cache

__all__ = ["KERNEL_MODULES", "refresh_cache", "source_digest"]

KERNEL_MODULES = ("actions", "bench", "build", "combat", "deck", "dice", "engine", "enums", "fleet", "layout",
                  "legality", "policy_activation", "policy_cards", "policy_combat", "policy_setup", "policy_value",
                  "solo", "victory")
_STAMP = "mar_rojo-kernels.digest"
_done = False


def source_digest() -> str:
    """SHA-256 (16 hex digits) of the kernel modules' sources (and the shared RNG kernels)."""
    here = Path(__file__).parent
    return kernel_cache.digest([here / f"{m}.py" for m in KERNEL_MODULES] + [kernel_cache.RNG_SOURCE])


def refresh_cache(force: bool = False) -> bool:
    """Drop the cached Mar Rojo kernels if their sources changed since they were cached.

    Returns:
        True if cache files were removed. Never raises (see :func:`simlab.kernel_cache.refresh`).
    """
    global _done
    if _done and not force:
        return False
    _done = True
    try:
        from .engine import play_games_nb
    except ImportError:  # pragma: no cover
        return False
    return kernel_cache.refresh(kernel_cache.cache_path(play_games_nb), _STAMP, (), KERNEL_MODULES,
                                want=source_digest())
