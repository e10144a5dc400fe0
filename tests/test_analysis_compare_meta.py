"""``simlab compare`` (paired differences, SPRT) and ``simlab meta`` on the synthetic game."""

import json
import math

import numpy as np
import pytest

from simlab.analysis import compare, meta
from simlab.analysis.compare import parse_sprt
from simlab.errors import InputError
from simlab.games.synthetic import coin_probabilities

FAST = {"workers": 1, "progress": False}


def test_paired_difference_contains_the_exact_difference(tmp_path):
    r = compare(game="synthetic", set_a=["bias=0.3"], set_b=["bias=0.5"], games=4000, seed=5,
                out=tmp_path / "c", **FAST)
    exact = coin_probabilities(0.5, 0.1)["red"] - coin_probabilities(0.3, 0.1)["red"]
    d = r["difference"]["red"]
    assert d["ci"][0] < exact < d["ci"][1]
    # common random numbers: raising the bias only ever turns blue wins into red wins
    assert d["a_only"] == 0 and d["b_only"] > 0
    assert r["difference"]["blue"]["difference"] == pytest.approx(-d["difference"])
    assert r["draws"]["difference"] == 0
    # the paired interval is much narrower than an unpaired one would be
    n = r["games"]
    unpaired = 1.96 * math.sqrt(2 * 0.5 * 0.5 / n)
    assert (d["ci"][1] - d["ci"][0]) / 2 < unpaired / 2
    saved = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert saved["difference"]["red"]["ci"] == d["ci"]


def test_identical_variants_differ_by_nothing(tmp_path):
    r = compare(game="synthetic", set_a=["bias=0.1"], set_b=["bias=0.1"], games=1000, seed=2,
                out=tmp_path / "c", **FAST)
    d = r["difference"]["red"]
    assert d["difference"] == 0 and d["a_only"] == d["b_only"] == 0 and d["p_value"] == 1.0
    assert r["warnings"] == ["variants A and B are identical (an A/A check): every game will agree"]
    other = compare(game="synthetic", set_a=["bias=0.1"], set_b=["bias=0.2"], games=50, seed=2,
                    out=tmp_path / "d", **FAST)
    assert other["warnings"] == []


def test_sprt_accepts_h1_when_b_is_better_and_h0_when_worse(tmp_path):
    seen = []
    up = compare(game="synthetic", set_a=["bias=0.3"], set_b=["bias=0.45"], sprt="0.5,0.6", stage=500, seed=3,
                 out=tmp_path / "up", on_stage=seen.append, **FAST)
    assert up["sprt"]["decision"] == "H1" and seen[-1]["decision"] == "H1"
    assert [s["stage"] for s in seen] == list(range(len(seen)))
    assert up["games"] == up["sprt"]["games"] == 500 * len(seen)
    down = compare(game="synthetic", set_a=["bias=0.3"], set_b=["bias=0.15"], sprt=(0.5, 0.6), stage=500, seed=3,
                   out=tmp_path / "down", **FAST)
    assert down["sprt"]["decision"] == "H0"


def test_sprt_stops_undecided_at_the_limit(tmp_path):
    r = compare(game="synthetic", set_a=["bias=0.3"], set_b=["bias=0.3"], sprt="0.5,0.6", stage=300,
                max_games=600, seed=1, out=tmp_path / "c", **FAST)
    assert r["sprt"]["decision"] is None and r["games"] == 600 and len(r["sprt"]["stages"]) == 2


def test_sprt_stopping_point_is_reproducible(tmp_path):
    kw = dict(game="synthetic", set_a=["bias=0.3"], set_b=["bias=0.4"], sprt="0.5,0.7", stage=200, seed=8, **FAST)
    a = compare(out=tmp_path / "a", **kw)
    b = compare(out=tmp_path / "b", **kw)
    assert a["sprt"] == b["sprt"]


def test_compare_two_experiment_files(tmp_path):
    for tag, bias in (("a", 0.3), ("b", 0.6)):
        (tmp_path / f"{tag}.toml").write_text(
            f'[experiment]\ngame = "synthetic"\ngames = 800\nseed = 4\n[options]\nbias = {bias}\n')
    r = compare(tmp_path / "a.toml", tmp_path / "b.toml", out=tmp_path / "c", **FAST)
    assert r["games"] == 800 and r["difference"]["red"]["difference"] > 0
    assert r["variants"]["a"]["options"]["bias"] == 0.3 and r["variants"]["b"]["options"]["bias"] == 0.6


@pytest.mark.parametrize("kwargs,needle", [
    ({"a": "x.toml"}, "two experiment files"),
    ({}, "two experiment files"),
    ({"game": "synthetic", "set_a": ["bias=x"]}, "not a valid float"),
    ({"game": "synthetic", "sprt": "0.5"}, "expected P0,P1"),
    ({"game": "synthetic", "sprt": "0.5,0.5"}, "must differ"),
    ({"game": "synthetic", "sprt": "0,0.5"}, "strictly between"),
    ({"game": "synthetic", "sprt": "0.5,0.6", "alpha": 0.7}, "alpha"),
    ({"game": "synthetic", "max_games": 10}, "--max-games"),
    ({"game": "synthetic", "alpha": 0.01}, "--alpha only applies with --sprt"),
    ({"game": "synthetic", "sprt": "0.6,0.5"}, "P0 must be below P1"),
    ({"game": "synthetic", "sprt": "0.5,0.6", "games": 10}, "--games does not apply with --sprt"),
    ({"game": "synthetic"}, "nothing tells variant A from B"),
    ({"game": "synthetic", "side": "green"}, "unknown side"),
    ({"game": "synthetic", "policy_a": ["red=rock,paper"]}, "one cell per variant"),
])
def test_compare_bad_input(tmp_path, kwargs, needle):
    out = tmp_path / "c"
    with pytest.raises(InputError) as e:
        compare(out=out, **FAST, **kwargs)
    assert needle in str(e.value)
    assert not out.exists()


def test_parse_sprt():
    assert parse_sprt("0.5, 0.55") == (0.5, 0.55)


# --------------------------------------------------------------------------- meta-game
def test_meta_game_of_rock_paper_scissors(tmp_path):
    rps = "rock,paper,scissors"
    r = meta("synthetic", policies=[f"red={rps}", f"blue={rps}"], set_=["bias=0.3", "draw_rate=0"], games=1500,
             seed=9, replicates=200, out=tmp_path / "m", **FAST)
    # the exact game is antisymmetric (bias at its fair value): value 0, uniform mixes
    lo, hi = r["value_ci"]
    assert lo <= r["value"] <= hi and hi - lo < 0.15
    for side in ("red", "blue"):
        assert sum(r["mixes"][side].values()) == pytest.approx(1)
    exact = np.array([[coin_probabilities(0.3, 0, a, b)["red"] - coin_probabilities(0.3, 0, a, b)["blue"]
                       for b in rps.split(",")] for a in rps.split(",")])
    got = np.array(r["payoff"])
    se = 2 * math.sqrt(0.25 / 1500)
    # each cell within 4.5 standard errors (fails for a correct engine with probability < 1e-4 over
    # the nine cells, whatever the seed), and a zero-sum game's value moves at most as far as the
    # largest payoff error moves it: |v(A) - v(B)| <= max |A - B|
    err = np.abs(got - exact)
    assert np.all(err < 4.5 * se)
    assert abs(r["value"] - 0.0) <= err.max() + 1e-12
    cell = r["cells"][0][2]  # rock against scissors: red wins with sigmoid(+1)
    p = 1 / (1 + math.exp(-1))
    assert abs(cell["sides"]["red"]["rate"] - p) < 4.5 * math.sqrt(p * (1 - p) / 1500)
    assert json.loads((tmp_path / "m" / "meta.json").read_text())["value"] == r["value"]


def test_meta_game_with_a_dominant_policy(tmp_path):
    # plain against RPS: blue's 'plain' concedes nothing at bias 0.3 while any RPS policy can be exploited
    r = meta("synthetic", policies=["red=rock,paper,scissors", "blue=plain,rock"], set_=["bias=0.3", "draw_rate=0"],
             games=1000, seed=2, replicates=200, out=tmp_path / "m", **FAST)
    assert r["mixes"]["blue"]["plain"] == pytest.approx(1, abs=0.05)
    assert r["value_ci"][0] < 0 < r["value_ci"][1] + 0.05


@pytest.mark.parametrize("kwargs,needle", [
    ({"policies": ["red=rock", "blue=rock"]}, "at least two policy pairings"),
    ({"policies": ["green=rock"]}, "unknown side"),
    ({"policies": ["red=stone"]}, "unknown policy"),
    ({"scenario": "coin,dice-race"}, "one scenario"),
    ({"replicates": 5}, "--replicates"),
])
def test_meta_bad_input(tmp_path, kwargs, needle):
    out = tmp_path / "m"
    with pytest.raises(InputError) as e:
        meta("synthetic", out=out, **FAST, **kwargs)
    assert needle in str(e.value)
    assert not out.exists()


def test_compare_a_data_pack_override_on_a_real_game(tmp_path):
    pack = tmp_path / "oquendo.toml"
    pack.write_text('[pack]\ngame = "dawn-of-empire"\n[units.Oquendo]\nattack = 4\n')
    r = compare(game="doe-battle", data_b=pack, games=3000, seed=1, side="spain", out=tmp_path / "c", **FAST)
    d = r["difference"]["spain"]
    # a stronger Spanish cruiser on the same dice: Spain wins more often, gaining more games than it loses
    assert d["ci"][0] > 0 and d["b_only"] > d["a_only"]
    assert r["variants"]["b"]["data"] == str(pack) and r["variants"]["a"]["data"] is None


def test_an_ad_hoc_comparison_needs_something_to_tell_the_variants_apart(tmp_path):
    with pytest.raises(InputError, match="nothing tells variant A from B"):
        compare(game="synthetic", games=10, out=tmp_path / "c", **FAST)
    assert not (tmp_path / "c").exists()


def test_the_sprt_reports_the_game_at_which_it_stopped(tmp_path):
    """The stopping game is where the discordant count reached the one reported: between it and
    the end of the stage no further discordant game is counted."""
    r = compare(game="synthetic", set_a=["bias=0.1"], set_b=["bias=0.5"], sprt="0.5,0.6", stage=400, seed=3,
                out=tmp_path / "c", **FAST)
    sp = r["sprt"]
    assert sp["decision"] == "H1" and 1 <= sp["decided_at"] <= sp["games"] == r["games"]
    d = r["difference"]["red"]
    assert sp["discordant"] < d["a_only"] + d["b_only"]


def test_bad_input_found_only_by_play_leaves_earlier_analyses_untouched(tmp_path):
    """A budget no squadron can meet is found by playing; tune, compare and meta report it before
    they replace (--overwrite) or create their folder (found by a breaker session)."""
    from simlab.analysis import tune
    t0 = tmp_path / "t0"
    tune("synthetic", param="handicap", range_="-2:2", games=50, out=t0, **FAST)
    before = sorted(p.name for p in t0.iterdir())
    with pytest.raises(InputError, match="no nationalist squadron"):
        tune("mar-rojo", param="points_nationalist", range_="0:2", scenario="points-built", games=20, out=t0,
             overwrite=True, **FAST)
    assert sorted(p.name for p in t0.iterdir()) == before
    with pytest.raises(InputError, match="no nationalist squadron"):
        compare(game="mar-rojo", scenario="points-built", set_a=["points_nationalist=1"],
                set_b=["points_nationalist=15"], games=20, out=tmp_path / "c0", **FAST)
    with pytest.raises(InputError, match="no nationalist squadron"):
        meta("mar-rojo", scenario="points-built", set_=["points_nationalist=1"], games=20, out=tmp_path / "m0",
             **FAST)
    assert not (tmp_path / "c0").exists() and not (tmp_path / "m0").exists()
