"""Command-line polish: --version, completion, defaults and flags in --help, one spelling of --policy,
data show filters and data diff."""

import json
import subprocess
import sys

from simlab._version import __version__
from simlab.cli import main


def _help(args, capsys):
    assert main(args + ["--help"]) == 0
    return capsys.readouterr().out


def test_version_and_completion(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"simlab {__version__}"
    out = _help([], capsys)
    assert "--install-completion" in out and "--version" in out


def test_help_shows_defaults_and_renders_flags_as_flags(capsys):
    out = subprocess.run([sys.executable, "-m", "simlab", "sweep", "--help"], capture_output=True, text=True,
                         env={"COLUMNS": "200", "PATH": ""}).stdout
    line = {w: next(x for x in out.splitlines() if f"--{w} " in x) for w in ("games", "seed", "workers", "resume", "policy")}
    assert "[default: (1,000)]" in line["games"] and "[default: (0)]" in line["seed"]
    assert "[default: (all cores)]" in line["workers"]
    assert "<bool>" not in out and "list[" not in out
    assert "<str>..." in line["policy"]


def test_meta_takes_policy_like_every_other_command(tmp_path, capsys):
    args = ["meta", "synthetic", "--set", "bias=0.3", "--games", "200", "--replicates", "100", "--workers", "1",
            "--no-progress", "--json"]
    assert main(args + ["--policy", "red=rock,paper", "--policy", "blue=rock,paper", "--out", str(tmp_path / "a")]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(args + ["--policies", "red=rock,paper", "--policies", "blue=rock,paper", "--out", str(tmp_path / "b")]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["payoff"] == b["payoff"] and len(a["payoff"]) == 2


def test_data_show_filters_and_data_diff(tmp_path, capsys):
    assert main(["data", "show", "dawn-of-empire", "--table", "units", "--key", "Teresa", "--json"]) == 0
    recs = json.loads(capsys.readouterr().out)["records"]
    assert {r["field"] for r in recs} >= {"attack", "defense", "movement"}
    assert {(r["table"], r["key"]) for r in recs} == {("units", "Teresa")}
    assert main(["data", "show", "dawn-of-empire", "--key", "Teresaa"]) == 2
    assert "did you mean 'Teresa'?" in capsys.readouterr().err
    mine = tmp_path / "mine.toml"
    mine.write_text('[pack]\ngame = "dawn-of-empire"\n[units.Teresa]\nattack = { value = 4, source = "18.2.6" }\n')
    assert main(["data", "diff", "dawn-of-empire", str(mine), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["differences"]
    assert d == [{"table": "units", "key": "Teresa", "field": "attack", "a": 3, "b": 4,
                  "a_provenance": "example:18.2.6", "b_provenance": "user:mine.toml (18.2.6)"}]
    assert main(["data", "diff", str(mine), str(mine), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["differences"] == []
    assert main(["data", "diff", "dawn-of-empire", "mar-rojo"]) == 2
    assert "packs of different games" in capsys.readouterr().err


def test_progress_says_starting_and_rates_exclude_the_start_up(monkeypatch):
    from simlab.sweeps import runner
    clock = iter([10.0, 11.0, 12.0])  # first chunk after 10 s of start-up, then one chunk a second
    monkeypatch.setattr(runner.time, "perf_counter", lambda: next(clock))
    with runner._Progress(total=500, done=0, enabled=True, label="x") as bar:
        fields = lambda: bar.p.tasks[0].fields  # noqa: E731
        assert fields()["rate"] == "starting" and fields()["eta"] == ""
        bar.advance(100)  # t = 10: the first chunk only ends the start-up
        assert fields()["rate"] == "" and fields()["eta"] == ""
        bar.advance(100)  # t = 11: 100 games in 1 s since the first chunk; 300 left
        assert fields()["rate"] == "100 games/s" and fields()["eta"] == "ETA 0:00:03"
        bar.advance(100)  # t = 12
        assert fields()["eta"] == "ETA 0:00:02"
