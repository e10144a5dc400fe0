"""Keep numba's on-disk cache of the Dawn of Empire kernels consistent with their sources.

numba's ``cache=True`` checks only the source file of the function it loads: a cached kernel that
calls kernels of *other* modules keeps their old machine code after those modules change (the
campaign loop would keep playing last week's policies). :func:`ensure_fresh` hashes the sources of
every module the DoE kernels are built from and, when the hash differs from the one recorded beside
the cache, deletes those modules' cache files so they recompile. It runs once per process, before
the first kernel is loaded.
"""

from __future__ import annotations

from pathlib import Path

from ... import kernel_cache

_DONE: set[str] = set()

#: modules whose compiled code ends up in the campaign and battle kernels
MODULES = ("simlab/rng.py", "simlab/games/doe/dice.py", "simlab/games/doe/enums.py",
           "simlab/games/doe/kernels.py", "simlab/games/doe/campaign_layout.py",
           "simlab/games/doe/campaign_orders.py", "simlab/games/doe/campaign_movement.py",
           "simlab/games/doe/campaign_combat.py", "simlab/games/doe/policy_layout.py",
           "simlab/games/doe/policy_view.py",
           "simlab/games/doe/policy_missions.py", "simlab/games/doe/policy_deploy.py",
           "simlab/games/doe/policies.py", "simlab/games/doe/campaign_loop.py",
           "simlab/games/doe/odds_kernels.py")


def _root() -> Path:
    return Path(__file__).resolve().parents[3]


def sources_hash() -> str:
    """SHA-256 (16 hex digits) of the kernel modules' sources and the numba version."""
    return kernel_cache.digest(_root() / m for m in MODULES)


def cache_dir() -> Path:
    """Where numba caches this package's kernels (asked of numba itself, so ``NUMBA_CACHE_DIR``
    and the user-wide fallback are honoured; every module of the folder shares it)."""
    from .dice import d6_nb

    return kernel_cache.cache_path(d6_nb) or Path(__file__).resolve().parent / "__pycache__"


def ensure_fresh() -> bool:
    """Delete stale cache files of the DoE kernels; returns True if it deleted any."""
    d = cache_dir()
    if str(d) in _DONE:
        return False
    _DONE.add(str(d))
    stems = [Path(m).stem for m in MODULES if m.startswith("simlab/games/doe/")]
    return kernel_cache.refresh(d, "simlab-doe-kernels.sha256", [_root() / m for m in MODULES], stems)
