"""Flags that contradict each other or cannot take effect are refused; a precision target missed says so."""

import json

from simlab.cli import main


def test_resume_on_a_missing_directory_is_refused_and_creates_nothing(tmp_path, capsys):
    out = tmp_path / "nothing-here"
    rc = main(["sweep", "--game", "doe-battle", "--games", "10", "--resume", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert "holds no sweep to resume (it does not exist)" in err
    assert not out.exists()


def test_resume_refusal_names_the_fields_that_differ(tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["sweep", "--game", "doe-battle", "--games", "20", "--out", str(out), "--no-progress", "--json"]) == 0
    capsys.readouterr()
    rc = main(["sweep", "--game", "doe-battle", "--games", "30", "--seed", "4", "--out", str(out), "--resume",
               "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert "games: 20 there, 30 now" in err and "seed: 0 there, 4 now" in err


def test_a_precision_target_missed_within_max_games_warns_and_exits_3(tmp_path, capsys):
    out = tmp_path / "p"
    rc = main(["sweep", "--game", "doe-battle", "--games", "100", "--precision", "0.0001", "--max-games", "100",
               "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 3
    assert "1 cell(s) stopped at --max-games 100 before the precision target 0.0001" in err
    reached = json.loads((out / "manifest.json").read_text())["precision_reached"]
    assert reached["0"]["games"] == 100 and reached["0"]["reached"] is False
    assert 0.0001 < reached["0"]["half_width"] <= 0.5
    # a target that 100 games meet ends normally and records it
    rc = main(["sweep", "--game", "doe-battle", "--games", "100", "--precision", "0.2", "--max-games", "100",
               "--out", str(tmp_path / "q"), "--no-progress", "--json"])
    capsys.readouterr()
    assert rc == 0
    reached = json.loads((tmp_path / "q" / "manifest.json").read_text())["precision_reached"]
    assert reached["0"]["reached"] is True and reached["0"]["half_width"] <= 0.2
