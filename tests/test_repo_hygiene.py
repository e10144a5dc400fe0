"""The repository holds no leftovers of a merge (conflict markers) in any tracked text file."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKERS = ("<<<<<<< ", ">>>>>>> ")


def _tracked() -> list[Path]:
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True)
    if out.returncode != 0:  # not a git checkout (e.g. an sdist): check the source tree instead
        return [p for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]
    return [ROOT / f for f in out.stdout.splitlines()]


def find_conflict_markers(paths) -> list[str]:
    bad = []
    for p in paths:
        if p.suffix not in (".py", ".md", ".toml", ".ipynb", ".txt", ".csv", ".json", ".cfg", "") or not p.is_file():
            continue
        try:
            lines = p.read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        for i, line in enumerate(lines, 1):
            if line.startswith(MARKERS) or line == "=======":
                bad.append(f"{p.relative_to(ROOT)}:{i}")
    return bad


def test_no_conflict_markers():
    assert find_conflict_markers(_tracked()) == []


def test_the_checker_finds_markers(tmp_path):
    f = ROOT / "tests" / "_tmp_conflict_probe.md"
    try:
        f.write_text("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> main\n")
        assert len(find_conflict_markers([f])) == 3
    finally:
        f.unlink()
