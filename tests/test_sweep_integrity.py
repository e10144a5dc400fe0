"""A sweep proves its contents (issue 32): verify and load name every deleted, extra, linked or
bit-flipped part and every edited manifest field; a resume or extend refuses a changed definition."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from simlab.cli import main
from simlab.errors import SweepStateError
from simlab.results import load


def _sweep(out: Path, *extra: str, games: int = 400, game: str = "synthetic") -> Path:
    rc = main(["sweep", "--game", game, "--games", str(games), "--chunk-size", "100", "--workers", "1",
               "--no-progress", "--json", "--out", str(out), *extra])
    assert rc == 0
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    return _sweep(tmp_path_factory.mktemp("integrity") / "base", "--grid", "bias=0,0.2")


def _copy(base: Path, tmp_path: Path, name: str = "s") -> Path:
    dst = tmp_path / name
    shutil.copytree(base, dst, symlinks=True)
    (dst / ".lock").unlink(missing_ok=True)
    return dst


def _verify(d: Path, capsys) -> tuple[int, str]:
    capsys.readouterr()
    rc = main(["verify", str(d)])
    cap = capsys.readouterr()
    return rc, cap.err + cap.out


def test_an_intact_sweep_verifies_and_loads(base, capsys):
    rc, text = _verify(base, capsys)
    assert rc == 0 and "0 problem(s)" in text, text
    assert len(load(base)) == 800


def test_a_deleted_part_is_named_by_verify_and_load_refuses(base, tmp_path, capsys):
    d = _copy(base, tmp_path)
    (d / "games" / "cell-1" / "part-000000000100-000000000200.parquet").unlink()
    rc, text = _verify(d, capsys)
    assert rc == 1
    assert "games/cell-1: the manifest says 400 games were written, its parts hold 300 (missing games 100-200)" in text
    with pytest.raises(SweepStateError, match="rows are missing: games/cell-1"):
        load(d)
    # or the games that are there, as loudly
    from simlab.errors import PartialSweepWarning
    with pytest.warns(PartialSweepWarning, match="rows are missing: games/cell-1.*missing games 100-200"):
        df = load(d, allow_partial=True)
    assert len(df) == 700 and sorted(set(df[df.cell == 1].game_index) ^ set(range(400))) == list(range(100, 200))


@pytest.mark.parametrize("what", ["cell folder", "all games"])
def test_a_deleted_cell_folder_or_games_folder_is_named(base, tmp_path, capsys, what):
    d = _copy(base, tmp_path)
    shutil.rmtree(d / "games" / "cell-0" if what == "cell folder" else d / "games")
    rc, text = _verify(d, capsys)
    assert rc == 1
    assert "games/cell-0: the manifest says 400 games were written, its parts hold 0" in text
    assert ("games/cell-1" in text) == (what == "all games")
    with pytest.raises(SweepStateError):
        load(d)


def test_a_cell_folder_linked_to_another_sweep_is_named_and_resume_moves_the_link(base, tmp_path, capsys):
    other = _sweep(tmp_path / "other", "--grid", "bias=0,0.2", "--seed", "7")
    before = sorted(p.name for p in (other / "games" / "cell-0").iterdir())
    d = _copy(base, tmp_path)
    shutil.rmtree(d / "games" / "cell-0")
    (d / "games" / "cell-0").symlink_to(other / "games" / "cell-0", target_is_directory=True)
    rc, text = _verify(d, capsys)
    assert rc == 1 and "reached through a link (games/cell-0 ->" in text, text
    with pytest.raises(SweepStateError):
        load(d)
    assert main(["sweep", "--out", str(d), "--resume", "--no-progress", "--json", "--workers", "1"]) == 0
    assert not (d / "games" / "cell-0").is_symlink() and (d / "quarantine" / "games" / "cell-0").is_symlink()
    assert sorted(p.name for p in (other / "games" / "cell-0").iterdir()) == before  # the other sweep untouched
    assert load(d).equals(load(base))
    assert _verify(d, capsys)[0] == 0


def test_an_extra_part_in_a_complete_sweep_is_named(base, tmp_path, capsys):
    d = _copy(base, tmp_path)
    cell = d / "games" / "cell-0"
    shutil.copy(cell / "part-000000000000-000000000100.parquet", cell / "part-000000000400-000000000500.parquet")
    rc, text = _verify(d, capsys)
    assert rc == 1 and "part-000000000400-000000000500.parquet" in text, text


def test_every_bit_flip_that_changes_rows_is_detected(base, tmp_path, capsys):
    """40 random single-bit flips in one part: every one must be named by verify, those that change
    the rows a plain reader gets (or make the part unreadable: page CRCs) and those in footer
    statistics or padding that change no row (the manifest's sha256 of each part); at this seed 21
    flips change rows."""
    part = "games/cell-0/part-000000000200-000000000300.parquet"
    clean = pq.read_table(base / part)
    size = (base / part).stat().st_size
    rnd = random.Random(2024)
    changed = detected = detected_changed = 0
    for i in range(40):
        d = _copy(base, tmp_path, f"flip{i}")
        raw = bytearray((d / part).read_bytes())
        pos = rnd.randrange(size)
        raw[pos] ^= 1 << rnd.randrange(8)
        (d / part).write_bytes(bytes(raw))
        try:
            moved = not pq.read_table(d / part).equals(clean)
        except Exception:  # noqa: BLE001 - unreadable counts as changed
            moved = True
        rc, _ = _verify(d, capsys)
        changed += moved
        detected += rc == 1
        detected_changed += moved and rc == 1
        shutil.rmtree(d)
    assert detected_changed == changed, f"{changed - detected_changed} of {changed} row-changing flips missed"
    assert detected == 40, f"{40 - detected} of {40 - changed} flips that change no row missed"
    assert 15 <= changed < 40, changed  # the flips did exercise both checks


def test_the_manifest_records_each_parts_digest_and_verify_names_a_rewritten_part(base, tmp_path, capsys):
    import hashlib
    man = json.loads((base / "manifest.json").read_text())
    files = sorted(str(p.relative_to(base)) for p in (base / "games").rglob("*.parquet"))
    assert sorted(man["parts"]) == files and len(files) == 8
    part = files[3]
    assert man["parts"][part] == "sha256:" + hashlib.sha256((base / part).read_bytes()).hexdigest()
    # the same rows written again with other settings: every page reads, only the digest tells
    d = _copy(base, tmp_path)
    t = pq.read_table(d / part)
    pq.write_table(t, d / part, compression="zstd", write_page_checksum=True)
    assert pq.read_table(d / part).equals(t)
    rc, text = _verify(d, capsys)
    assert rc == 1 and f"{part}: altered: its bytes differ from those the sweep wrote" in text, text


@pytest.mark.parametrize("field,value", [
    ("games_written", {"0": 300, "1": 400}), ("sides", ["blue", "red"]), ("crn", True), ("game", "synthetic-duel"),
    ("format", "simlab-sweep/1"), ("schema", {"games": []}), ("simlab_version", "9.9.9"), ("master_seed", 5),
])
def test_an_edited_manifest_field_is_named_and_resume_refuses(base, tmp_path, capsys, field, value):
    d = _copy(base, tmp_path)
    man = json.loads((d / "manifest.json").read_text())
    assert man[field] != value
    man[field] = value
    (d / "manifest.json").write_text(json.dumps(man, indent=2))
    rc, text = _verify(d, capsys)
    assert rc == 1 and "manifest.json: was edited after simlab wrote it" in text, text
    before = {p: p.read_bytes() for p in d.rglob("*") if p.is_file()}
    capsys.readouterr()
    rc = main(["sweep", "--out", str(d), "--resume", "--no-progress", "--workers", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1, err
    assert {p: p.read_bytes() for p in d.rglob("*") if p.is_file()} == before


def test_a_spec_option_edited_in_the_manifest_is_refused_by_extend(base, tmp_path, capsys):
    d = _copy(base, tmp_path)
    man = json.loads((d / "manifest.json").read_text())
    man["spec"]["options"]["threshold"] = 1
    (d / "manifest.json").write_text(json.dumps(man, indent=2))
    capsys.readouterr()
    rc = main(["sweep", "--out", str(d), "--extend", "--games", "600", "--no-progress", "--workers", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "was edited after simlab wrote it" in err, err
    assert sum(1 for _ in (d / "games").rglob("*.parquet")) == 8


def _policies(path: Path, aim: float) -> Path:
    path.write_text(f'[presets.mine]\nfamily = "duel"\nknobs = {{ aim = {aim}, range = 4 }}\n')
    return path


@pytest.mark.parametrize("verb", ["--resume", "--extend"])
def test_a_policies_file_edited_between_runs_is_refused(tmp_path, capsys, verb):
    pf = _policies(tmp_path / "policies.toml", 0.5)
    d = _sweep(tmp_path / "duel", "--policies-file", str(pf), "--policy", "red=mine", game="synthetic-duel")
    (d / "games" / "cell-0" / "part-000000000300-000000000400.parquet").unlink()  # a resume has work to do
    _policies(pf, 0.9)
    before = {p: p.read_bytes() for p in d.rglob("*") if p.is_file()}
    capsys.readouterr()
    extra = ["--games", "600"] if verb == "--extend" else []
    rc = main(["sweep", "--out", str(d), verb, *extra, "--policies-file", str(pf), "--no-progress", "--workers", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "cell 0's knobs differ" in err and '"aim": 0.5' in err and '"aim": 0.9' in err, err
    assert {p: p.read_bytes() for p in d.rglob("*") if p.is_file()} == before
    _policies(pf, 0.5)  # put back: the resume completes with the rows of an uninterrupted sweep
    assert main(["sweep", "--out", str(d), "--resume", "--policies-file", str(pf), "--no-progress",
                 "--workers", "1", "--json"]) == 0
    assert len(load(d)) == 400


def test_an_events_table_loads_on_its_own(tmp_path):
    # check_parts(tables="battles") sees no games parts of its own: it must take them by name, not
    # call every events part "of a chunk whose games part is missing"
    from simlab.results import load_table
    d = _sweep(tmp_path / "campaign", games=40, game="dawn-of-empire")
    battles = load_table(d, "battles")
    assert battles.num_rows > 0 and set(battles.column("cell").to_pylist()) == {0}
    (d / "games" / "cell-0" / "part-000000000000-000000000040.parquet").unlink()
    with pytest.raises(SweepStateError, match="games part is missing"):
        load_table(d, "battles")


@pytest.mark.parametrize("verb", ["--resume", "--extend"])
def test_a_mix_directory_edited_between_runs_is_refused(tmp_path, capsys, verb):
    # a mixed side records no knobs of its own: its components and weights are what its rows depend on
    mix = tmp_path / "mix"
    mix.mkdir()
    (mix / "policies.toml").write_text('[solve]\ngame = "synthetic-duel"\n[mixes.red]\ncautious = 0.5\nbold = 0.5\n')
    d = _sweep(tmp_path / "duel", "--policy", f"red=@mix:{mix}", game="synthetic-duel")
    man = json.loads((d / "manifest.json").read_text())
    assert [m["weight"] for m in man["cells"][0]["mixes"]["red"]] == [0.5, 0.5]
    (d / "games" / "cell-0" / "part-000000000300-000000000400.parquet").unlink()  # a resume has work to do
    (mix / "policies.toml").write_text('[solve]\ngame = "synthetic-duel"\n[mixes.red]\ncautious = 0.9\nbold = 0.1\n')
    before = {p: p.read_bytes() for p in d.rglob("*") if p.is_file()}
    capsys.readouterr()
    extra = ["--games", "600"] if verb == "--extend" else []
    rc = main(["sweep", "--out", str(d), verb, *extra, "--no-progress", "--workers", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "cell 0's mixed policies differ" in err and "a @mix directory was edited" in err, err
    assert err.count("\n") == 1
    assert {p: p.read_bytes() for p in d.rglob("*") if p.is_file()} == before


def test_a_lost_events_part_is_named_by_verify_and_resume_plays_its_chunk_again(tmp_path, capsys):
    from simlab.results import load_table
    d = _sweep(tmp_path / "campaign", games=200, game="dawn-of-empire")
    games, battles = load_table(d), load_table(d, "battles")
    lost = "events/battles/cell-0/part-000000000100-000000000200.parquet"
    assert battles.num_rows > 0 and (d / lost).is_file()
    (d / lost).unlink()
    rc, text = _verify(d, capsys)
    assert rc == 1 and f"{lost}: missing: the sweep wrote this events part" in text, text
    assert main(["sweep", "--out", str(d), "--resume", "--no-progress", "--workers", "1", "--json"]) == 0
    man = json.loads((d / "manifest.json").read_text())
    assert man["last_run"]["games_played"] == 100
    assert [q["reason"] for q in man["quarantined"]] == [f"its chunk's events part {lost} is missing"]
    assert load_table(d).equals(games) and load_table(d, "battles").equals(battles)
    assert _verify(d, capsys)[0] == 0


def test_verify_notes_an_edited_policies_file_and_keeps_its_exit_status(tmp_path, capsys):
    pf = _policies(tmp_path / "policies.toml", 0.5)
    d = _sweep(tmp_path / "duel", "--policies-file", str(pf), "--policy", "red=mine", game="synthetic-duel")
    capsys.readouterr()
    assert main(["verify", str(d), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs_changed"] is None
    _policies(pf, 0.9)
    assert main(["verify", str(d)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "simlab: note: the inputs of" in err and "cell 0's knobs differ" in err, err
    assert '"aim": 0.5' in err and '"aim": 0.9' in err
    assert main(["verify", str(d), "--json"]) == 0
    assert "cell 0's knobs differ" in json.loads(capsys.readouterr().out)["inputs_changed"]
    pf.unlink()
    assert main(["verify", str(d), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs_changed"].startswith("its inputs no longer load (")
