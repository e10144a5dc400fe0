"""simlab's version and build facts recorded in every manifest."""

from __future__ import annotations

import subprocess
import threading
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("simlab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0+unknown"


_PREFETCH: threading.Thread | None = None


def prefetch_git_commit() -> None:
    """Start :func:`git_commit` on a background thread, so that its two ``git`` calls (20-40 ms)
    overlap what the caller does next (a sweep loading its kernels); :func:`git_commit` waits for it."""
    global _PREFETCH
    if _PREFETCH is None and _git_commit.cache_info().currsize == 0:
        _PREFETCH = threading.Thread(target=_git_commit, name="simlab-git-commit", daemon=True)
        _PREFETCH.start()


def git_commit() -> str | None:
    """The git commit of the source tree simlab runs from (with ``+dirty`` if modified), or None."""
    t = _PREFETCH
    if t is not None and t is not threading.current_thread():
        t.join()
    return _git_commit()


@lru_cache(maxsize=1)
def _git_commit() -> str | None:
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return sha + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None
