"""The bad-input corpus (tests/bad_inputs/): one line on stderr, exit 2, no traceback, nothing written."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from simlab.cli import main

BAD = Path(__file__).parent / "bad_inputs"
CASES = tomllib.loads((BAD / "cases.toml").read_text())["case"]


def _args(case: dict, out: Path) -> list[str]:
    return [a.replace("{bad}", str(BAD)).replace("{out}", str(out)) for a in case["args"]]


def tree(root: Path) -> dict[str, str]:
    """Every file and folder under ``root`` with a hash of its bytes and its mtime ("" for folders)."""
    snap = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_dir():
            snap[rel] = ""
        else:
            st = p.stat()
            snap[rel] = f"{hashlib.sha256(p.read_bytes()).hexdigest()}:{st.st_mtime_ns}"
    return snap


def check_one_line_error(rc: int, out: str, err: str, expected: str | None) -> None:
    """Assert the bad-input contract on one CLI run's status and output."""
    assert rc == 2, f"exit status {rc}, stderr: {err!r}"
    assert "Traceback" not in err and "Traceback" not in out, err
    assert err.endswith("\n") and err.count("\n") == 1, f"not exactly one line on stderr: {err!r}"
    assert err.startswith("simlab") and ": error: " in err, err
    if expected is not None:
        assert expected in err, f"expected {expected!r} in {err!r}"


def test_the_corpus_is_large_and_every_file_in_it_is_used():
    assert len(CASES) >= 30
    ids = [c["id"] for c in CASES]
    assert len(set(ids)) == len(ids), "duplicate case ids"
    files = {str(p.relative_to(BAD)) for p in BAD.rglob("*.toml") if p.name != "cases.toml"}
    assert len(files) >= 30
    used = {a.replace("{bad}/", "") for c in CASES for a in c["args"] if a.startswith("{bad}/")}
    assert files <= used, f"files no case uses: {sorted(files - used)}"
    for kind in ("experiment/", "pack/", "battle/", "cli/"):
        assert sum(c["id"].startswith(kind) for c in CASES) >= 10, kind


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_bad_input_gives_one_line_exit_2_and_writes_nothing(case, tmp_path, monkeypatch, capsys):
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)  # a default output folder (results/...) would appear here
    out = tmp_path / "out"
    corpus_before = tree(BAD)
    rc = main(_args(case, out))
    cap = capsys.readouterr()
    check_one_line_error(rc, cap.out, cap.err, case.get("error"))
    assert not out.exists(), "an output directory was created"
    assert tree(work) == {}, "something was written in the working directory"
    assert tree(BAD) == corpus_before


def _existing_sweep(tmp_path: Path) -> Path:
    out = tmp_path / "existing"
    assert main(["sweep", "--game", "doe-battle", "--games", "20", "--workers", "1", "--no-progress",
                 "--out", str(out), "--json"]) == 0
    return out


SWEEP_CASES = [c for c in CASES if "{out}" in c["args"]]


def test_bad_input_leaves_an_existing_sweep_untouched(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    out = _existing_sweep(tmp_path)
    capsys.readouterr()
    before = tree(out)
    assert "manifest.json" in before and len(before) >= 3
    for case in SWEEP_CASES:
        for extra in ([], ["--resume"], ["--overwrite"]):
            if case["id"] == "cli/nothing-to-play" and extra == ["--resume"]:
                continue  # `simlab sweep --out DIR --resume` resumes DIR's sweep from its manifest (valid input)
            args = _args(case, out)
            if args and args[0] == "sweep":
                args = args + extra
            rc = main(args)
            cap = capsys.readouterr()
            check_one_line_error(rc, cap.out, cap.err, None)
            assert tree(out) == before, f"{case['id']} {extra} changed the existing sweep"


@pytest.mark.parametrize("case_id", ["experiment/syntax-error", "cli/unknown-flag"])
def test_the_console_script_itself(case_id, tmp_path):
    case = next(c for c in CASES if c["id"] == case_id)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "simlab", *_args(case, out)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120, env={**os.environ, "COLUMNS": "80"})
    check_one_line_error(r.returncode, r.stdout, r.stderr, case.get("error"))
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- the helpers must fail
def test_check_one_line_error_rejects_what_it_must():
    good = "simlab: error: bad thing\n"
    check_one_line_error(2, "", good, "bad thing")
    for rc, err, exp in [(1, good, None), (2, "simlab: error: a\nb\n", None), (2, "Traceback (most recent\n", None),
                         (2, good, "other thing"), (2, "error without prefix\n", None), (2, "simlab: error: x", None)]:
        with pytest.raises(AssertionError):
            check_one_line_error(rc, "", err, exp)


def test_tree_sees_a_new_file_a_changed_file_and_a_new_folder(tmp_path):
    (tmp_path / "a").write_text("1")
    t0 = tree(tmp_path)
    (tmp_path / "d").mkdir()
    assert tree(tmp_path) != t0
    (tmp_path / "d").rmdir()
    (tmp_path / "a").write_text("2")
    assert tree(tmp_path) != t0
