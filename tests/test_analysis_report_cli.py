"""Balance metrics in ``report``, the plots, and the analysis commands' CLI (good and bad input)."""

import json
import math

import pytest

import simlab
from simlab.cli import main
from simlab.errors import InputError
from simlab.games.synthetic import MAX_TURNS, coin_probabilities
from simlab.results import end_reason_rates, length_distribution, report_frame, side_advantage

FAST = {"workers": 1, "progress": False}


@pytest.fixture(scope="module")
def coin_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("coin") / "s"
    simlab.sweep(game="synthetic", grid=["bias=0.3,1.0"], set_=["draw_rate=0.2"], games=6000, seed=17, out=out,
                 **FAST)
    return out


def test_report_balance_metrics_match_the_exact_game(coin_sweep):
    rows = simlab.report(coin_sweep)
    old_keys = {"cell", "params", "games", "draws", "draw_rate", "mean_turns", "sides"}
    for r in rows:
        assert old_keys <= set(r) and {"side_advantage", "turns", "end_reasons", "draw_ci"} <= set(r)
        bias = r["params"]["bias"]
        exact = coin_probabilities(bias, 0.2)
        adv = r["side_advantage"]
        assert adv["ci"][0] < exact["red"] - exact["blue"] < adv["ci"][1]
        assert r["draw_ci"][0] < 0.2 < r["draw_ci"][1]
        er = r["end_reasons"]
        assert set(er) == {"decisive", "drawn"} and er["drawn"]["count"] == r["draws"]
        t = r["turns"]
        # turns: d6 rolled until a 6, at most MAX_TURNS; the median of that law is 4
        assert t["median"] == 4 and t["min"] == 1 and t["max"] == MAX_TURNS
        assert sum(t["counts"]) == r["games"] and len(t["edges"]) == len(t["counts"]) + 1
        mean = sum(k * (5 / 6) ** (k - 1) / 6 for k in range(1, MAX_TURNS)) + MAX_TURNS * (5 / 6) ** (MAX_TURNS - 1)
        assert abs(t["mean"] - mean) < 4 * t["sd"] / math.sqrt(r["games"])
    assert rows[0]["side_advantage"]["favoured"] is None or rows[0]["side_advantage"]["ci"][0] > 0
    assert rows[1]["side_advantage"]["favoured"] == "red"
    flat = report_frame(rows)
    assert {"advantage", "advantage_ci_low", "turns_median", "end_drawn"} <= set(flat.columns)


def test_balance_helpers():
    adv = side_advantage(["a", "a", "b", "draw"], ["a", "b"])
    assert adv["difference"] == pytest.approx(0.25) and adv["favoured"] is None
    assert side_advantage(["a"], ["a", "b", "c"]) is None
    lengths = length_distribution([1, 1, 2, 3, 100])
    assert lengths["min"] == 1 and lengths["max"] == 100 and len(lengths["counts"]) == 20
    assert length_distribution([2, 2, 3])["counts"] == [2, 1]
    rates = end_reason_rates(["x", "y", "x"])
    assert list(rates) == ["x", "y"] and rates["x"]["count"] == 2


# --------------------------------------------------------------------------- plots
def test_plots_of_every_kind(tmp_path, coin_sweep):
    t = simlab.tune("synthetic", scenario="dice-race", param="handicap", range_="0:6", games=300,
                    out=tmp_path / "t", replicates=200, **FAST)
    m = simlab.meta("synthetic", policies=["red=rock,paper", "blue=rock,paper"], games=200, out=tmp_path / "m",
                    replicates=200, **FAST)
    made = [simlab.plot(t["path"]), simlab.plot(m["path"]), simlab.plot(coin_sweep, out=tmp_path / "w.svg"),
            simlab.plot(coin_sweep, kind="scores", out=tmp_path / "s.png"),
            simlab.plot(t["path"], kind="winrate", out=tmp_path / "tw.png")]
    assert [p.name for p in made] == ["plot-tune.png", "plot-matrix.png", "w.svg", "s.png", "tw.png"]
    for p in made:
        head = p.read_bytes()[:8]
        assert head.startswith(b"\x89PNG") or b"<?xml" in head or head.startswith(b"<svg")
    with pytest.raises(InputError, match="--kind"):
        simlab.plot(coin_sweep, kind="pie")
    with pytest.raises(InputError, match="png or .svg"):
        simlab.plot(coin_sweep, out=tmp_path / "x.jpg")
    with pytest.raises(InputError, match="meta directory"):
        simlab.plot(coin_sweep, kind="matrix")
    with pytest.raises(InputError, match="not a directory"):
        simlab.plot(tmp_path / "nope")


# --------------------------------------------------------------------------- CLI
def _run(argv, capsys):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("argv,needle", [
    (["tune", "synthetic", "--param", "nope", "--range", "0:1"], "no option 'nope'"),
    (["tune", "synthetic", "--param", "bias", "--range", "1:0"], "LOW must be below HIGH"),
    (["tune", "synthetic", "--param", "bias", "--range", "0:1", "--games", "abc"], "--games"),
    (["tune", "nope", "--param", "bias", "--range", "0:1"], "unknown game"),
    (["tune", "synthetic", "--param", "bias"], "--range"),
    (["compare", "--game", "synthetic", "--sprt", "0.5"], "expected P0,P1"),
    (["compare", "only-one.toml"], "two experiment files"),
    (["meta", "synthetic", "--policies", "red=rock", "--policies", "blue=rock"], "two policy pairings"),
    (["plot", "NOWHERE"], "not a directory"),
])
def test_cli_bad_input_one_line_exit_2_nothing_written(argv, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if argv[0] in ("tune", "compare", "meta"):
        argv = argv + ["--out", str(tmp_path / "out")]
    code, out, err = _run(argv, capsys)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in err, err
    assert not (tmp_path / "out").exists() and not (tmp_path / "results").exists()


def test_cli_tune_json_and_table(tmp_path, capsys):
    base = ["tune", "synthetic", "--scenario", "dice-race", "--param", "handicap", "--range", "1:6", "--games", "400",
            "--workers", "1", "--no-progress", "--replicates", "200"]
    code, out, _ = _run(base + ["--json", "--out", str(tmp_path / "j")], capsys)
    assert code == 0
    d = json.loads(out)
    assert {"param", "fair_value", "ci", "points"} <= set(d) and d["param"] == "handicap"
    code, out, err = _run(base + ["--out", str(tmp_path / "t")], capsys)
    assert code == 0 and "fair handicap for equal win rates" in out and "red wins" in out
    assert "bidding for" not in out  # bid tables only when asked for
    code, out, err = _run(base + ["--bids", "--out", str(tmp_path / "t"), "--overwrite"], capsys)
    assert code == 0 and "bidding for blue" in out and "break-even bid" in out
    code, out, _ = _run(["plot", str(tmp_path / "t"), "--out", str(tmp_path / "t.png")], capsys)
    assert code == 0 and (tmp_path / "t.png").stat().st_size > 1000


def test_cli_compare_and_meta(tmp_path, capsys):
    code, out, err = _run(["compare", "--game", "synthetic", "--set-a", "bias=0.3", "--set-b", "bias=0.6",
                           "--sprt", "0.5,0.6", "--stage", "300", "--workers", "1", "--out", str(tmp_path / "c")],
                          capsys)
    assert code == 0 and "accept P1" in out and "stage 1:" in err and "LLR" in err
    # the line that decides says which bound the LLR reached, never that it lies "in" the interval
    last = [ln for ln in err.splitlines() if ln.startswith("stage ")][-1]
    assert "at or above the upper bound 2.944 -> accept H1" in last, last
    assert all("between the bounds" in ln for ln in err.splitlines() if ln.startswith("stage ") and ln != last)
    code, out, _ = _run(["meta", "synthetic", "--policies", "red=rock,paper,scissors", "--policies",
                         "blue=rock,paper,scissors", "--games", "300", "--workers", "1", "--no-progress",
                         "--replicates", "100", "--out", str(tmp_path / "m")], capsys)
    assert code == 0 and "equilibrium mix of red" in out and "value" in out
    code, out, _ = _run(["report", str(tmp_path / "m" / "sweep")], capsys)
    assert code == 0 and "balance per cell" in out


def test_the_report_splits_into_narrow_tables_on_a_narrow_terminal(tmp_path, monkeypatch):
    """On an 80-column terminal no column of the win-rate tables is squeezed to nothing: the
    parameters, rates, scores, advantage and length come as separate tables, each within 80
    columns, and every interval is printed whole."""
    import io

    from rich.console import Console

    import simlab
    from simlab import cli
    from simlab.cli import render
    out = tmp_path / "s"
    simlab.sweep(game="dawn-of-empire", policy=["us=blockade,hunter"], games=60, seed=3, out=out,
                 workers=1, progress=False)
    buf = io.StringIO()
    monkeypatch.setattr(render, "out_console", Console(file=buf, width=80, force_terminal=True, color_system=None))
    rows = simlab.report(out)
    cli._print_report(rows, simlab.sweeps.runner.load_manifest(out))
    text = buf.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "policy_us=blockade" in text and "policy_us=hunter" in text
    for r in rows:
        lo, hi = r["sides"]["us"]["ci"]
        assert f"[{100 * lo:.1f}%, {100 * hi:.1f}%]" in text
    assert "…" not in text


@pytest.mark.parametrize("summary,where", [("tune.json", "played"), ("meta.json", "sweep"), ("compare.json", "a and")])
def test_a_report_on_an_analysis_folder_points_to_its_sweep(tmp_path, summary, where):
    from simlab.errors import SweepStateError
    from simlab.sweeps.runner import load_manifest
    (tmp_path / summary).write_text("{}")
    with pytest.raises(SweepStateError, match=f"no manifest.json.*{summary}.*{tmp_path}/{where}"):
        load_manifest(tmp_path)


def test_report_warns_when_parts_are_missing(tmp_path, capsys):
    import simlab
    from simlab.cli import main
    out = tmp_path / "s"
    simlab.sweep(game="doe-battle", games=200, chunk_size=50, seed=1, out=out, workers=1, progress=False)
    sorted((out / "games").rglob("part-*.parquet"))[0].unlink()
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    err = capsys.readouterr().err
    assert "records 200 games written but 150 are there" in " ".join(err.split())
