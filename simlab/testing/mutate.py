"""A small rule-mutation run: apply one rule change at a time and check that the tests catch it.

``make mutate`` (``python -m simlab.testing.mutate``) reads ``tests/mutations.toml``, where each
mutation names a file, an exact piece of it (which must occur there exactly once), what replaces it,
the rule it breaks and the tests that should fail::

    [[mutation]]
    id = "mar-rojo/reorganise-only-at-equal-stress"
    rule = "5.3.2 / M8"
    file = "simlab/games/mar_rojo/legality.py"
    find = "return st[slot, S_STRESS] > cs[slot, C_HULL]"
    replace = "return st[slot, S_STRESS] >= cs[slot, C_HULL]"
    tests = ["tests/test_mar_rojo_games.py"]

For each mutation the file is changed in place, the tests run (``pytest -x``; numba recompiles the
changed module), and the file is restored byte for byte, also on Ctrl-C or an error. A mutation is
*killed* when the tests fail and *survives* when they pass; the run prints the kill rate and exits
with status 1 when any mutation survives (or a ``find`` no longer matches: the list must follow the
code). It refuses to start on a file with uncommitted changes, so it never mixes a mutation with
work in progress.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Mutation", "load_mutations", "run_mutation"]


@dataclass(frozen=True)
class Mutation:
    """One rule change: replace ``find`` by ``replace`` in ``file``; ``tests`` should then fail."""

    id: str
    rule: str
    file: str
    find: str
    replace: str
    tests: tuple[str, ...]
    why_survives: str = ""


def load_mutations(path: str | Path) -> list[Mutation]:
    """The mutations of a TOML list (see the module docstring).

    Raises:
        ValueError: a mutation lacks a field, or two share an id.
    """
    doc = tomllib.loads(Path(path).read_text())
    out, seen = [], set()
    for m in doc.get("mutation", []):
        missing = [k for k in ("id", "rule", "file", "find", "replace", "tests") if k not in m]
        if missing:
            raise ValueError(f"{path}: mutation {m.get('id', '?')} lacks {', '.join(missing)}")
        if m["id"] in seen:
            raise ValueError(f"{path}: mutation id {m['id']} given twice")
        seen.add(m["id"])
        out.append(Mutation(m["id"], m["rule"], m["file"], m["find"], m["replace"], tuple(m["tests"]),
                            m.get("why_survives", "")))
    return out


def _dirty(root: Path, file: str) -> bool:
    r = subprocess.run(["git", "status", "--porcelain", "--", file], cwd=root, capture_output=True, text=True)
    return r.returncode == 0 and bool(r.stdout.strip())


def run_mutation(m: Mutation, root: Path, timeout: float = 900) -> dict:
    """Apply one mutation, run its tests, restore the file.

    Returns:
        ``{id, rule, status, seconds}`` with ``status`` one of ``killed``, ``survived``,
        ``no-match`` (``find`` does not occur exactly once), ``timeout``.
    """
    path = root / m.file
    original = path.read_bytes()
    text = original.decode()
    if text.count(m.find) != 1:
        return {"id": m.id, "rule": m.rule, "status": "no-match", "seconds": 0.0}
    t0 = time.perf_counter()
    try:
        path.write_text(text.replace(m.find, m.replace))
        try:
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                                "-m", "not slow", *m.tests], cwd=root, capture_output=True, text=True,
                               timeout=timeout)
            status = "survived" if r.returncode == 0 else "killed"
        except subprocess.TimeoutExpired:
            status = "timeout"
    finally:
        path.write_bytes(original)
    return {"id": m.id, "rule": m.rule, "status": status, "seconds": round(time.perf_counter() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="apply rule mutations one at a time and report which the tests catch")
    ap.add_argument("--list", default="tests/mutations.toml", help="the mutation list (TOML)")
    ap.add_argument("--only", action="append", help="run only these mutation ids")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    a = ap.parse_args(argv)
    root = Path.cwd()
    muts = load_mutations(a.list)
    if a.only:
        muts = [m for m in muts if m.id in set(a.only)]
    dirty = sorted({m.file for m in muts if _dirty(root, m.file)})
    if dirty:
        print(f"mutate: error: uncommitted changes in {', '.join(dirty)}; commit or stash them first", file=sys.stderr)
        return 2
    results = []
    for m in muts:
        r = run_mutation(m, root)
        results.append(r)
        if not a.json:
            print(f"{r['status']:>9}  {m.id}  (rule {m.rule}, {r['seconds']:.0f} s)"
                  + (f"  -- {m.why_survives}" if r["status"] == "survived" and m.why_survives else ""), flush=True)
    killed = sum(r["status"] == "killed" for r in results)
    if a.json:
        print(json.dumps({"killed": killed, "total": len(results), "results": results}, indent=2))
    else:
        print(f"kill rate: {killed}/{len(results)}" + (f" ({100 * killed / len(results):.0f}%)" if results else ""))
    bad = [r for r in results if r["status"] in ("survived", "no-match", "timeout")
           and not next(m for m in muts if m.id == r["id"]).why_survives]
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
