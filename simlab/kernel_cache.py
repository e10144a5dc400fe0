"""Keep numba's on-disk kernel cache in step with the sources the kernels are built from.

numba's ``cache=True`` re-validates a cached function only against the modification time of its
own source file. A kernel that calls (and so compiles into itself) functions of other files — every
game's loop embeds :mod:`simlab.rng` and its phase modules — keeps the old machine code after those
files change. :func:`refresh` stamps a cache folder with a digest of every source a package's
kernels are built from, and deletes the package's cached kernels when the digest changes.

A game does not call it, nor list its kernel modules: :func:`find_kernel_modules` finds them in the
game's folder (``Game.kernel_modules``: every file with a kernel and the modules of the folder such a
file imports, the constant modules they read among them), and the framework calls
:func:`ensure_fresh` once per process before the game's first batch
(:meth:`simlab.games.base.Game.ensure_kernels_fresh`). The shared random-stream kernels
(:data:`FRAMEWORK_MODULES`) are part of every game's digest.
"""

from __future__ import annotations

import ast
import contextlib
import graphlib
import hashlib
import importlib
import importlib.util
import os
import re
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["FRAMEWORK_MODULES", "RNG_SOURCE", "cache_path", "digest", "ensure_fresh", "find_kernel_modules",
           "module_source", "refresh"]

#: the random-stream kernels every game embeds
RNG_SOURCE = Path(__file__).resolve().parent / "rng.py"
#: framework modules with kernels that every game's kernels embed (added to every game's digest)
FRAMEWORK_MODULES = ("simlab.rng",)

_DONE: set[tuple[str, ...]] = set()
_LOCK = threading.Lock()


def digest(sources: Iterable[Path]) -> str:
    """SHA-256 (16 hex digits) of the numba version and the contents of ``sources`` (missing files skipped)."""
    import numba  # here, not at import: finding a game's kernel modules must not load numba
    h = hashlib.sha256(numba.__version__.encode())
    for p in sources:
        with contextlib.suppress(OSError):
            h.update(Path(p).read_bytes())
    return h.hexdigest()[:16]


#: a line that makes a compiled kernel: ``@kernel`` (:mod:`simlab.jit`) or numba's own decorators
_KERNEL_LINE = re.compile(r"^\s*@(kernel|njit|numba\.njit|jit|numba\.jit)\b", re.M)


def find_kernel_modules(package: str) -> tuple[str, ...]:
    """The modules of ``package``'s folder (subfolders included) that its compiled kernels are built
    from, found by reading the sources (nothing is imported or compiled): each file with a kernel
    (a line ``@kernel``, ``@njit``...) and, transitively, every module of the folder such a file
    imports (the ``enums``, ``layout`` and bundle modules whose constants numba compiles in).
    Modules outside the folder are not followed (:data:`FRAMEWORK_MODULES` are always digested).

    Args:
        package: a dotted package name, e.g. ``"simlab.games.<game>"``.

    Returns:
        The dotted module names, each after the modules it imports (so that :func:`ensure_fresh`
        asks the lightest module of a folder first; ties by file name); empty when the folder has
        no kernel.

    Raises:
        ModuleNotFoundError: ``package`` is not a package with a folder.
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"{package!r} is not a package with a folder")
    root = Path(next(iter(spec.submodule_search_locations))).resolve()
    files = {p.resolve() for p in root.rglob("*.py") if "__pycache__" not in p.parts}

    def name_of(p: Path) -> str:
        parts = p.relative_to(root).with_suffix("").parts
        return ".".join((package,) + (parts[:-1] if parts[-1] == "__init__" else parts))

    by_name = {name_of(p): p for p in files}
    todo = [p for p in sorted(files) if _KERNEL_LINE.search(p.read_text(encoding="utf-8"))]
    found: set[Path] = set()
    deps: dict[Path, set[Path]] = {}
    while todo:
        p = todo.pop()
        if p in found:
            continue
        found.add(p)
        deps[p] = set()
        here = name_of(p).split(".")
        pkg = here if p.name == "__init__.py" else here[:-1]
        for node in ast.parse(p.read_text(encoding="utf-8")).body:   # a module's own imports (a kernel imports nothing)
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = pkg[: len(pkg) - node.level + 1] if node.level else []
                mod = ".".join(base + (node.module.split(".") if node.module else []))
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            hit = [by_name[t] for t in targets if t in by_name and by_name[t] != p]
            deps[p].update(hit)
            todo += [q for q in hit if q not in found]
    order = graphlib.TopologicalSorter({p: sorted(deps[p]) for p in sorted(found)}).static_order()
    return tuple(name_of(p) for p in order if p.name != "__init__.py")


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


def module_source(name: str) -> Path:
    """The source file of module ``name`` (dotted), found without importing the module itself.

    Raises:
        ModuleNotFoundError: if no such module can be found.
    """
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise ModuleNotFoundError(f"kernel module {name!r} has no Python source file")
    return Path(spec.origin).resolve()


def _dispatcher_folders(modules: Sequence[str]) -> dict[Path, set[str]]:
    """``{numba cache folder: {module file stems}}`` of the folders that hold ``modules``' cached kernels.

    numba caches every function of one source folder in one cache folder (each of its locators
    derives the folder from the source file's directory), so a source directory is asked once:
    through a module already imported that holds a cached dispatcher, else by importing the
    directory's modules in the order given until one holds one. Modules of a directory already
    answered are not imported (a short sweep need not load a campaign's modules to check a
    battle's cache). Every module of such a directory contributes its stem (one without kernels
    has no cache files to remove)."""
    by_dir: dict[Path, list[str]] = {}
    for name in modules:
        by_dir.setdefault(module_source(name).parent, []).append(name)
    out: dict[Path, set[str]] = {}
    for names in by_dir.values():
        loaded = [n for n in names if n in sys.modules]
        folder = None
        for name in loaded + [n for n in names if n not in loaded]:
            folder = _folder_of(importlib.import_module(name))
            if folder is not None:
                break
        if folder is not None:
            out.setdefault(folder, set()).update(module_source(n).stem for n in names)
    return out


def _folder_of(mod) -> Path | None:
    """The numba cache folder of the first cached dispatcher defined in module ``mod``, or None."""
    for v in vars(mod).values():
        if getattr(v, "__module__", None) == mod.__name__ and hasattr(v, "_cache"):
            folder = cache_path(v)
            if folder is not None:
                return folder
    return None


def ensure_fresh(modules: Sequence[str]) -> bool:
    """Make numba's on-disk cache of the kernels compiled from ``modules`` match their sources.

    Once per process and module set: digest the sources of ``modules`` and of
    :data:`FRAMEWORK_MODULES`; in each cache folder that holds a cached kernel of one of ``modules``
    compare with the stamp left there last time and, when it differs, delete the cached kernels of
    those modules (numba recompiles them on their next call) and write the new stamp. It imports
    one module of each of their source folders (to ask numba where it caches them; one already
    imported if any) but loads no kernel: call it before the first kernel call of the process.

    Args:
        modules: dotted names of every module the kernels are compiled from (``@njit`` files
            and the constant modules they read), e.g. ``("simlab.games.doe.kernels", ...)``.

    Returns:
        True if cache files were removed. Never raises for a cache folder it cannot read or write
        (see :func:`refresh`).

    Raises:
        ModuleNotFoundError: a declared module that does not exist (a stale declaration).
    """
    key = tuple(sorted(set(modules)))
    if not key or key in _DONE:
        return False
    from .numba_start import start_numba
    start_numba()  # before the first kernel loads: numba started cheaply (simlab.numba_start)
    with _LOCK:  # the thread backend's workers share this process: one of them checks, the others wait
        if key in _DONE:
            return False
        return _ensure_fresh_locked(key, tuple(dict.fromkeys(modules)))


def _ensure_fresh_locked(key: tuple[str, ...], order: tuple[str, ...]) -> bool:
    sources = sorted({module_source(m) for m in key + FRAMEWORK_MODULES})
    want = digest(sources)
    stamp = "simlab-kernels-" + hashlib.sha256("\n".join(key).encode()).hexdigest()[:12] + ".digest"
    removed = False
    for folder, stems in sorted(_dispatcher_folders(order).items()):
        removed = refresh(folder, stamp, (), stems, want=want) or removed
    _DONE.add(key)
    return removed
