"""Keep numba's on-disk cache of the Dawn of Empire kernels consistent with their sources.

numba's ``cache=True`` checks only the source file of the function it loads: a cached kernel that
calls kernels of *other* modules keeps their old machine code after those modules change (the
campaign loop would keep playing last week's policies). :func:`ensure_fresh` hashes the sources of
every module the DoE kernels are built from and, when the hash differs from the one recorded beside
the cache, deletes those modules' cache files so they recompile. It runs once per process, before
the first kernel is loaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

import numba

_DONE: set[str] = set()

#: modules whose compiled code ends up in the campaign and battle kernels
MODULES = ("simlab/rng.py", "simlab/games/doe/dice.py", "simlab/games/doe/enums.py",
           "simlab/games/doe/kernels.py", "simlab/games/doe/campaign_layout.py",
           "simlab/games/doe/campaign_kernels.py", "simlab/games/doe/campaign_combat.py",
           "simlab/games/doe/policies.py", "simlab/games/doe/campaign_loop.py",
           "simlab/games/doe/odds_kernels.py")


def _root() -> Path:
    return Path(__file__).resolve().parents[3]


def sources_hash() -> str:
    """SHA-256 (16 hex digits) of the kernel modules' sources and the numba version."""
    h = hashlib.sha256(numba.__version__.encode())
    for m in MODULES:
        with contextlib.suppress(OSError):
            h.update((_root() / m).read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """Where numba caches this package's kernels (asked of numba itself, so ``NUMBA_CACHE_DIR``
    and the user-wide fallback are honoured; every module of the folder shares it)."""
    from .dice import d6_nb

    try:
        return Path(d6_nb._cache._cache_path)
    except AttributeError:  # pragma: no cover - a numba without this attribute
        return Path(__file__).resolve().parent / "__pycache__"


def ensure_fresh() -> bool:
    """Delete stale cache files of the DoE kernels; returns True if it deleted any.

    Safe to call from several processes: the worst case is a kernel compiled twice.
    """
    key = str(cache_dir())
    if key in _DONE:
        return False
    _DONE.add(key)
    d = cache_dir()
    stamp = d / "simlab-doe-kernels.sha256"
    want = sources_hash()
    try:
        if stamp.read_text().strip() == want:
            return False
    except OSError:
        pass
    removed = False
    stems = {Path(m).stem for m in MODULES if m.startswith("simlab/games/doe/")}
    if d.is_dir():
        for p in d.iterdir():
            if p.suffix in (".nbi", ".nbc") and p.name.split(".", 1)[0] in stems:
                with contextlib.suppress(OSError):
                    p.unlink()
                    removed = True
    with contextlib.suppress(OSError):
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{stamp.name}.{os.getpid()}"
        tmp.write_text(want + "\n")
        os.replace(tmp, stamp)
    return removed
