"""``simlab tune`` on the synthetic game, whose fair values are known exactly."""

import json
import math

import pytest
from scipy import stats

from simlab.analysis import tune
from simlab.analysis.tune import parse_range
from simlab.errors import InputError, SpecError
from simlab.games.synthetic import FAIR_BIAS, SLOPE

FAST = {"workers": 1, "progress": False, "replicates": 300}


def test_tuner_recovers_the_fair_bias_within_its_interval(tmp_path):
    # a 95% interval misses for 1 seed in 20; the interval's coverage itself is checked over many
    # seeds in test_analysis_stats (bootstrap_roots) and in the slow coverage test below
    r = tune("synthetic", param="bias", range_="-1:2:0.5", games=2000, seed=7, out=tmp_path / "t", **FAST)
    lo, hi = r["ci"]
    assert lo < FAIR_BIAS < hi, r["ci"]
    assert abs(r["fair_value"] - FAIR_BIAS) < 0.08
    assert hi - lo < 0.2
    assert r["method"] == "replay" and r["sweeps"] == ["pass-1", "pass-2"]
    # the refinement added values around the root, all played on the same seeds
    values = [p["value"] for p in r["points"]]
    assert len(values) > 7 and values == sorted(values)
    assert all(p["games"] == 2000 for p in r["points"])
    on_disk = json.loads((tmp_path / "t" / "tune.json").read_text())
    assert on_disk["fair_value"] == r["fair_value"] and on_disk["ci"] == r["ci"]
    assert set(on_disk) >= {"param", "fair_value", "ci", "points"}
    p0 = on_disk["points"][0]
    assert set(p0) >= {"value", "games", "sides", "draws"} and set(p0["sides"]["red"]) >= {"win_rate", "ci"}


def test_isotonic_fit_also_recovers_it(tmp_path):
    r = tune("synthetic", param="bias", range_="-1:2:0.25", games=2000, seed=12, fit="isotonic", refine=False,
             out=tmp_path / "t", **FAST)
    assert r["ci"][0] < FAIR_BIAS < r["ci"][1]


def test_target_win_rate(tmp_path):
    # red wins (1 - d) * sigmoid(SLOPE (bias - FAIR)); with d = 0.1, 60% needs sigmoid = 2/3
    truth = FAIR_BIAS + math.log(2) / SLOPE
    r = tune("synthetic", param="bias", range_="-0.5:2:0.5", target=0.6, side="red", games=2000, seed=13,
             out=tmp_path / "t", **FAST)
    assert r["ci"][0] < truth < r["ci"][1], (truth, r["ci"])
    assert r["side"] == "red" and r["target"] == 0.6


def test_score_shortcut_agrees_with_replaying(tmp_path):
    common = dict(scenario="dice-race", param="handicap", range_="0:8", games=1500, seed=21, **FAST)
    s = tune("synthetic", method="score", out=tmp_path / "s", **common)
    r = tune("synthetic", method="replay", refine=False, out=tmp_path / "r", **common)
    assert s["method"] == "score" and r["method"] == "replay"
    assert "only shifts the final score" in s["method_note"]
    # the same seeds: every value's results are identical game for game, so the tables, the
    # estimate and the bootstrap interval are identical
    assert s["points"] == r["points"]
    assert s["fair_value"] == r["fair_value"] and s["ci"] == r["ci"]
    assert s["ci"][0] < 3.5 < s["ci"][1]
    # auto picks the shortcut when the option is score-only
    a = tune("synthetic", out=tmp_path / "a", **common)
    assert a["method"] == "score" and a["sweeps"] == ["played"]


def test_bid_table_rates_add_up(tmp_path):
    r = tune("synthetic", scenario="dice-race", param="handicap", range_="-2:6", games=800, seed=3,
             out=tmp_path / "t", **FAST)
    assert [p["value"] for p in r["points"]] == list(range(-2, 7))
    for p in r["points"]:
        red, blue = p["sides"]["red"], p["sides"]["blue"]
        assert red["wins"] + blue["wins"] + p["draws"] == p["games"] == 800
        assert red["losses"] == blue["wins"] and red["win_rate"] + p["draw_rate"] + red["loss_rate"] == pytest.approx(1)
        # the interval is the Wilson score interval of red's wins out of 800 (closed form)
        k, n, z = red["wins"], 800, 1.959963984540054
        centre, half = (k + z * z / 2) / (n + z * z), z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
        assert red["ci"] == pytest.approx([centre - half, centre + half], abs=1e-9)


def test_no_crossing_in_range_says_so(tmp_path):
    r = tune("synthetic", param="bias", range_="1:3:0.5", games=500, seed=1, out=tmp_path / "t", **FAST)
    assert r["fair_value"] is None and "do not cross" in r["note"]


def test_precision_target_plays_until_precise(tmp_path):
    r = tune("synthetic", scenario="dice-race", param="handicap", range_="0:6", precision=0.015, max_games=8000,
             seed=4, out=tmp_path / "t", **FAST)
    # the score-only shortcut plays the worst case p = 1/2 needs, n = ceil((z / (2 h))^2), not the ceiling
    need = math.ceil((stats.norm.ppf(0.975) / (2 * 0.015)) ** 2)
    assert need == 4269
    for p in r["points"]:
        assert p["games"] == need
        hw = max((s["ci"][1] - s["ci"][0]) / 2 for s in p["sides"].values())
        assert hw <= 0.015


@pytest.mark.parametrize("kwargs,needle", [
    ({"param": "nope", "range_": "0:1"}, "no option 'nope'"),
    ({"param": "bias", "range_": "2:1"}, "LOW must be below HIGH"),
    ({"param": "bias", "range_": "0:1:0"}, "STEP must be positive"),
    ({"param": "bias", "range_": "a:b"}, "must be numbers"),
    ({"param": "bias", "range_": "0"}, "expected LOW:HIGH"),
    ({"param": "handicap", "range_": "0:1.5"}, "whole numbers"),
    ({"param": "bias", "range_": "0:30"}, "above the maximum"),
    ({"param": "bias", "range_": "0:1", "method": "score"}, "not declared score-only"),
    ({"param": "bias", "range_": "0:1", "target": 1.5}, "--target"),
    ({"param": "bias", "range_": "0:1", "side": "green"}, "unknown side"),
    ({"param": "bias", "range_": "0:1", "fit": "spline"}, "--fit"),
    ({"param": "bias", "range_": "0:1", "set_": ["bias=0.2"]}, "do not also --set"),
    ({"param": "bias", "range_": "0:1", "policy": ["red=rock,paper"]}, "one policy per side"),
    ({"param": "bias", "range_": "0:1", "max_games": 10}, "--max-games"),
    ({"param": "bias", "range_": "0:1", "precision": 0.7}, "--precision"),
])
def test_bad_input_raises_one_line_and_writes_nothing(tmp_path, kwargs, needle):
    out = tmp_path / "t"
    with pytest.raises(InputError) as e:
        tune("synthetic", out=out, **FAST, **kwargs)
    assert needle in str(e.value) and "\n" not in str(e.value)
    assert not out.exists()


def test_non_numeric_option_is_refused():
    with pytest.raises(SpecError, match="numeric"):
        tune("doe-battle", param="speed_disengage", range_="0:1", **FAST)


def test_parse_range():
    assert parse_range("0:4", int) == [0, 1, 2, 3, 4]
    assert parse_range("0:100", int) == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert parse_range("0:1:0.25", float) == [0, 0.25, 0.5, 0.75, 1.0]
    assert parse_range("0:1:0.3", float) == [0, 0.3, 0.6, 0.9, 1.0]
    assert parse_range("-4:4:4", int) == [-4, 0, 4]


def test_existing_output_needs_overwrite(tmp_path):
    out = tmp_path / "t"
    tune("synthetic", scenario="dice-race", param="handicap", range_="2:5", games=200, out=out, **FAST)
    with pytest.raises(InputError, match="--overwrite"):
        tune("synthetic", scenario="dice-race", param="handicap", range_="2:5", games=200, out=out, **FAST)
    r = tune("synthetic", scenario="dice-race", param="handicap", range_="2:5", games=300, out=out, overwrite=True,
             **FAST)
    assert r["points"][0]["games"] == 300


def test_bid_table_reads_the_handicap_as_rule_14_4_bids(tmp_path):
    from simlab.analysis import bid_table
    r = tune("synthetic", scenario="dice-race", param="handicap", range_="-6:6", games=1000, seed=5,
             out=tmp_path / "t", **FAST)
    blue = bid_table(r, "blue")   # blue is ahead at handicap 0 (4d6 against 3d6)
    red = bid_table(r, "red")
    assert blue["favoured_by_larger_values"] == "red" == red["favoured_by_larger_values"]
    # a bid of b for blue gives red b VPs: the handicap value +b
    by_value = {p["value"]: p for p in r["points"]}
    for row in blue["rows"]:
        assert row["value"] == row["bid"]
        assert row["win"]["rate"] == by_value[row["bid"]]["sides"]["blue"]["win_rate"]
    for row in red["rows"]:
        assert row["value"] == -row["bid"]
        assert row["loss"]["rate"] == by_value[-row["bid"]]["sides"]["blue"]["win_rate"]
    assert [x["bid"] for x in blue["rows"]] == list(range(0, 7))
    assert blue["break_even_bid"] == pytest.approx(r["fair_value"]) and red["break_even_bid"] is None
    with pytest.raises(ValueError):
        bid_table(r, "green")


def test_precision_target_when_replaying(tmp_path):
    r = tune("synthetic", param="bias", range_="-1:1.5:1.25", precision=0.02, max_games=6000, refine=False, seed=6,
             out=tmp_path / "t", **FAST)
    games = [p["games"] for p in r["points"]]
    assert min(games) >= 2000 and max(games) > 2000  # the runner played on where a rate was near 1/2
    for p in r["points"]:
        hw = max((s["ci"][1] - s["ci"][0]) / 2 for s in p["sides"].values())
        # every value reaches the target before the ceiling (a runner that ignores it plays 6000)
        assert hw <= 0.02 and p["games"] < 6000 and p["games"] % 2000 == 0


def test_rescoring_an_existing_sweep(tmp_path):
    import simlab
    sw = simlab.sweep(game="synthetic", scenario="dice-race", grid=["handicap=0,2"], games=700, seed=31,
                      out=tmp_path / "sweep", **{k: FAST[k] for k in ("workers", "progress")})
    rows = simlab.report(sw.path)
    r = tune("synthetic", param="handicap", range_="-2:8", from_sweep=sw.path, cell=1, out=tmp_path / "t", **FAST)
    assert r["method"] == "score" and r["sweeps"] == [str(sw.path.resolve())]
    # at the handicap the cell was played with, the rescored results are the played ones
    at2 = next(p for p in r["points"] if p["value"] == 2)
    assert at2["games"] == 700
    for s in ("red", "blue"):
        assert at2["sides"][s]["wins"] == rows[1]["sides"][s]["wins"]
    assert abs(r["fair_value"] - 3.5) < 0.6
    with pytest.raises(InputError, match="choose one with --cell"):
        tune("synthetic", param="handicap", range_="0:4", from_sweep=sw.path, out=tmp_path / "x", **FAST)
    with pytest.raises(InputError, match="do not also give"):
        tune("synthetic", param="handicap", range_="0:4", from_sweep=sw.path, cell=0, games=10, out=tmp_path / "x",
             **FAST)
    with pytest.raises(InputError, match="not valid here"):
        tune("synthetic", param="bias", range_="0:1", from_sweep=sw.path, cell=0, out=tmp_path / "x", **FAST)
    with pytest.raises(InputError, match="--cell only applies"):
        tune("synthetic", param="handicap", range_="0:4", cell=0, out=tmp_path / "x", **FAST)
    assert not (tmp_path / "x").exists()


def test_rescoring_in_chunks_counts_the_same_patterns(tmp_path):
    import simlab
    from simlab.analysis.tune import _rescored
    from simlab.games import get_game
    sw = simlab.sweep(game="synthetic", scenario="dice-race", games=500, seed=2, out=tmp_path / "s", workers=1,
                      progress=False)
    g = get_game("synthetic")
    sc = g.load_scenario("dice-race")
    opts = g.resolve_options({})

    def as_dict(res):
        _, pats, counts = res
        return {pats[:, j].tobytes(): int(counts[j]) for j in range(pats.shape[1])}

    whole = as_dict(_rescored(g, sw.path, sc, ["red", "blue"], opts, "handicap", list(range(-3, 9))))
    bits = as_dict(_rescored(g, sw.path, sc, ["red", "blue"], opts, "handicap", list(range(-3, 9)), chunk=37))
    assert whole == bits and sum(whole.values()) == 500
