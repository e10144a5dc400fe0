"""CLI: bad input gives one line on stderr and exit 2 with nothing written; good input works."""

import json
import subprocess
import sys
import textwrap

import pytest

from simlab.cli import main

GOOD_SIDE = '{ name = "A1", type = "BB", attack = 3, defense = 3, movement = 4 }'

BAD_BATTLES = {
    "syntax": "[us\nleader_stars = 1",
    "one_side": f"[us]\nunits = [{GOOD_SIDE}]\n",
    "three_sides": f"[a]\nunits = [{GOOD_SIDE}]\n[b]\nunits = []\n[c]\nunits = []\n",
    "empty_line": f"[us]\nunits = []\n[spain]\nunits = [{GOOD_SIDE}]\n",
    "negative": '[us]\nunits = [{ name = "X", type = "BB", attack = -1, defense = 3, movement = 4 }]\n'
                f"[spain]\nunits = [{GOOD_SIDE}]\n",
    "non_integer": '[us]\nunits = [{ name = "X", type = "BB", attack = 2.5, defense = 3, movement = 4 }]\n'
                   f"[spain]\nunits = [{GOOD_SIDE}]\n",
    "unknown_type": '[us]\nunits = [{ name = "X", type = "DD", attack = 2, defense = 3, movement = 4 }]\n'
                    f"[spain]\nunits = [{GOOD_SIDE}]\n",
    "duplicate_name": f"[us]\nunits = [{GOOD_SIDE}]\n[spain]\nunits = [{GOOD_SIDE}]\n",
    "extra_key": '[us]\nunits = [{ name = "X", type = "BB", attack = 2, defense = 3, movement = 4, armour = 2 }]\n'
                 f"[spain]\nunits = [{GOOD_SIDE}]\n",
    "missing_values_not_in_pack": '[us]\nunits = [{ name = "Nonesuch" }]\n'
                                  f"[spain]\nunits = [{GOOD_SIDE}]\n",
    "damage_over_defense": '[us]\nunits = [{ name = "X", type = "BB", attack = 2, defense = 3, movement = 4, damage = 4 }]\n'
                           f"[spain]\nunits = [{GOOD_SIDE}]\n",
    "bad_side_name": f'["U S"]\nunits = [{GOOD_SIDE}]\n[spain]\nunits = [{{ name = "B", type = "CA", attack = 1, defense = 1, movement = 1 }}]\n',
    "leader_stars_bool": f"[us]\nleader_stars = true\nunits = [{GOOD_SIDE}]\n[spain]\n"
                         'units = [{ name = "B", type = "CA", attack = 1, defense = 1, movement = 1 }]\n',
}


def _run(argv, capsys):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("case", sorted(BAD_BATTLES))
def test_bad_battle_file_one_line_exit_2_nothing_written(case, tmp_path, capsys):
    f = tmp_path / f"{case}.toml"
    f.write_text(BAD_BATTLES[case])
    out = tmp_path / "out"
    code, _, err = _run(["sweep", "--game", "doe-battle", "--scenario", str(f), "--games", "10", "--out", str(out),
                         "--no-progress"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simlab: error:"), err
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("argv,needle", [
    (["sweep", "--game", "nope", "--games", "10"], "unknown game"),
    (["sweep", "--game", "doe-battle", "--games", "-5"], "--games must be at least 1"),
    (["sweep", "--game", "doe-battle", "--games", "0"], "--games must be at least 1"),
    (["sweep", "--game", "doe-battle", "--set", "max_rounds=many"], "not a valid int"),
    (["sweep", "--game", "doe-battle", "--set", "nope=1"], "no option 'nope'"),
    (["sweep", "--game", "doe-battle", "--grid", "speed_disengage="], "empty value"),
    (["sweep", "--game", "doe-battle", "--policy", "us=genius"], "unknown policy"),
    (["sweep", "--game", "doe-battle", "--policy", "martians=line-order"], "unknown side"),
    (["sweep", "--game", "doe-battle", "--scenario", "atlantis"], "unknown doe-battle scenario"),
    (["sweep", "--game", "doe-battle", "--scenario", "/no/such/file.toml"], "not found"),
    (["sweep", "/no/such/experiment.toml"], "experiment file not found"),
    (["sweep", "--game", "doe-battle", "--games", "ten"], "Invalid value for '--games'"),
    (["sweep", "--game", "doe-battle", "--frobnicate"], "No such option"),
    (["report", "/no/such/dir"], "not a sweep directory"),
    (["data", "show", "nope"], "unknown game"),
    (["data", "check", "/no/such/pack.toml"], "not found"),
])
def test_bad_cli_arguments(argv, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(argv + (["--no-progress"] if argv[0] == "sweep" and "--frobnicate" not in argv else []), capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert needle in lines[0]
    assert not (tmp_path / "results").exists()


BAD_SPECS = {
    "syntax": "[experiment\ngame = 'doe-battle'",
    "duplicate_key": "[experiment]\ngame = 'doe-battle'\ngames = 10\ngames = 20\n",
    "unknown_key": "[experiment]\ngame = 'doe-battle'\ngames = 10\ncolour = 'red'\n",
    "missing_game": "[experiment]\ngames = 10\n",
    "negative_games": "[experiment]\ngame = 'doe-battle'\ngames = -1\n",
    "string_games": "[experiment]\ngame = 'doe-battle'\ngames = '10'\n",
    "empty_grid": "[experiment]\ngame = 'doe-battle'\ngames = 10\n[grid]\nspeed_disengage = []\n",
    "unknown_option": "[experiment]\ngame = 'doe-battle'\ngames = 10\n[options]\nfoo = 1\n",
    "bad_option_type": "[experiment]\ngame = 'doe-battle'\ngames = 10\n[options]\nmax_rounds = 'x'\n",
    "fixed_and_grid": "[experiment]\ngame = 'doe-battle'\ngames = 10\n[options]\nmax_rounds = 5\n[grid]\nmax_rounds = [1, 2]\n",
}


@pytest.mark.parametrize("case", sorted(BAD_SPECS))
def test_bad_experiment_files(case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "exp.toml"
    f.write_text(BAD_SPECS[case])
    code, _, err = _run(["sweep", str(f), "--no-progress"], capsys)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "results").exists()


def test_sweep_report_and_json(tmp_path, capsys):
    out = tmp_path / "s"
    code, stdout, err = _run(["sweep", "--game", "doe-battle", "--games", "300", "--seed", "5", "--out", str(out),
                              "--workers", "1", "--no-progress"], capsys)
    assert code == 0, err
    assert "win rate [95% CI]" in stdout and "wrote" in err
    code, stdout, _ = _run(["report", str(out), "--json"], capsys)
    rows = json.loads(stdout)
    assert rows[0]["games"] == 300 and set(rows[0]["sides"]) == {"spain", "us"}
    assert set(rows[0]["sides"]["us"]) >= {"wins", "win_rate", "ci"}
    code, stdout, _ = _run(["report", str(out), "--csv"], capsys)
    assert stdout.splitlines()[0].startswith("cell,status,games,draws")
    assert stdout.splitlines()[1].split(",")[1] == "complete"


def test_games_json_lists_doe_battle(capsys):
    code, stdout, _ = _run(["games", "--json"], capsys)
    info = {g["name"]: g for g in json.loads(stdout)}
    assert {o["name"] for o in info["doe-battle"]["options"]} >= {"max_rounds", "speed_disengage"}


def test_real_console_script_exit_code(tmp_path):
    bad = tmp_path / "b.toml"
    bad.write_text(textwrap.dedent(BAD_BATTLES["empty_line"]))
    p = subprocess.run([sys.executable, "-m", "simlab", "sweep", "--game", "doe-battle", "--scenario", str(bad)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
