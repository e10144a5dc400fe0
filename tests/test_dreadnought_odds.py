"""Exact shot odds (Rules 5.3-5.9, 7.1, 8.0, 8.32) against an independent enumeration, the
kernel against the exact odds, and the ``simlab odds dreadnought`` command."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from dreadnought_helpers import oracle_shot
from numba import njit

from simlab import cli
from simlab.games import get_game
from simlab.games.dreadnought.enums import RESULT_NAMES
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.kernels.fire import crt_shot_nb, gun_shot_nb
from simlab.games.dreadnought.odds import OUTCOMES, odds, shot_distribution
from simlab.games.dreadnought.runtime import rule_tables
from simlab.rng import STATE_WORDS, new_state_nb

CASES = [
    dict(attack=36, defense=10, hexes=7),
    dict(attack=36, defense=10, hexes=7, fired_upon=True),
    dict(attack=61, defense=20, hexes=14, bow_or_stern=True),
    dict(attack=18, defense=6, hexes=2, fired_upon=True, halved=True),
    dict(attack=16, defense=6, hexes=4),
    dict(attack=80, defense=2, hexes=1),
    dict(attack=3, defense=1, hexes=9),
    dict(attack=1, defense=4, hexes=5, halved=True),
    dict(torpedo=1, defense=9, attack=0, hexes=1),
    dict(torpedo=2, defense=9, attack=0, hexes=1, combing=True),
]


@pytest.fixture(scope="module")
def rules():
    return rules_for(get_game("dreadnought").load_data())[0]


def _engine(rules, c):
    d = shot_distribution(rules, c["attack"], c["defense"], c["hexes"], c.get("fired_upon", False),
                          "bow" if c.get("bow_or_stern") else "broadside", c.get("halved", False),
                          {1: "1:1", 2: "2:1"}.get(c.get("torpedo", 0)), c.get("combing", False))
    return {k: v for k, v in d["outcomes"].items() if v}


@pytest.mark.parametrize("case", CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_exact_odds_match_an_independent_enumeration(rules, case):
    assert _engine(rules, case) == oracle_shot(**case)


@njit(cache=True)
def _sample_guns(k, attack, halved, hexes, upon, arc, defense, tb, seed):
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    out = np.zeros(6, dtype=np.int64)
    counts = np.zeros(11, dtype=np.int64)
    for _ in range(k):
        counts[gun_shot_nb(attack, halved, hexes, upon, arc, defense, tb, rng, out)] += 1
    return counts


@njit(cache=True)
def _sample_crt(k, col, pen, crt, rl, seed):
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    out = np.zeros(2, dtype=np.int64)
    counts = np.zeros(11, dtype=np.int64)
    for _ in range(k):
        counts[crt_shot_nb(col, pen, crt, rl, rng, out)] += 1
    return counts


def _as_outcomes(counts):
    names = {"none": "none", "1G": "1G", "1S": "1S", "1G,1S": "1G1S", "2G": "2G", "2S": "2S", "2G,1S": "2G1S",
             "1G,2S": "1G2S", "2G,2S": "2G2S", "E:sunk": "sunk", "E:2G,1S": "2G1S"}
    out = dict.fromkeys(OUTCOMES, 0)
    for code, c in enumerate(counts):
        out[names[RESULT_NAMES[code]]] += int(c)
    return out


@pytest.mark.parametrize("case", [CASES[1], CASES[3], CASES[5], CASES[9]], ids=str)
def test_kernel_frequencies_match_the_exact_odds(rules, case):
    n = 200_000
    if case.get("torpedo"):
        counts = _sample_crt(n, case["torpedo"], 3 if case.get("combing") else 0, rules.crt, rules.rl, 11)
    else:
        counts = _sample_guns(n, case["attack"], 1 if case.get("halved") else 0, case["hexes"],
                              1 if case.get("fired_upon") else 0, 1 if case.get("bow_or_stern") else 0,
                              case["defense"], rule_tables(rules), 11)
    got = _as_outcomes(counts)
    exact = oracle_shot(**case)
    for k in OUTCOMES:
        p = float(exact.get(k, 0))
        # 5 standard errors, and exactly zero where the exact probability is zero
        tol = 5 * math.sqrt(p * (1 - p) / n) + 1e-12
        assert abs(got[k] / n - p) <= tol, (k, got[k] / n, p)


def test_odds_api_shape_and_values():
    res = odds(attack=36, defense=10, range=7, fired_upon=True)
    assert res["method"] == "exact" and res["strength"] == 36 and res["band"] == "31-40"
    assert res["dpt_modifier"] == -2
    assert set(res["outcomes"]) == set(OUTCOMES)
    assert math.isclose(sum(res["outcomes"].values()), 1.0)
    assert Fraction(res["outcomes_exact"]["none"]) == oracle_shot(attack=36, defense=10, hexes=7, fired_upon=True)["none"]
    assert math.isclose(sum(res["damage_points"].values()), 1.0)
    assert res["damage_points"]["10"] == pytest.approx(5 / 36)  # roll 8 (5 ways) - 2 = 6 -> 10 DP
    t = odds(torpedo="2:1", defense=5, combing=True)
    assert t["column"] == "2-1" and t["strength"] is None


def test_odds_cli_json_and_table(capsys):
    assert cli.main(["odds", "dreadnought", "--attack", "17", "--defense", "6", "--range", "2", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["strength"] == 51 and res["band"] == "51-60"
    assert cli.main(["odds", "dreadnought", "--attack", "17", "--defense", "6", "--range", "13", "--arc", "stern"]) == 0
    text = capsys.readouterr().out
    assert "strength 8" in text and "sunk" in text


@pytest.mark.parametrize("args", [
    ["--attack", "17", "--range", "2"],
    ["--attack", "17", "--defense", "0", "--range", "2"],
    ["--attack", "17", "--defense", "6"],
    ["--attack", "17", "--defense", "6", "--range", "0"],
    ["--defense", "6", "--torpedo", "3:1"],
    ["--defense", "6", "--torpedo", "1:1", "--fired-upon"],
    ["--attack", "17", "--defense", "6", "--range", "3", "--combing"],
    ["--attack", "17", "--defense", "6", "--range", "3", "--arc", "sideways"],
    ["--attack", "17", "--defense", "6", "--range", "3", "--data", "no-such-file.toml"],
    ["--attack", "x", "--defense", "6", "--range", "3"],
])
def test_odds_cli_bad_input_is_one_line_and_exit_2(capsys, args):
    assert cli.main(["odds", "dreadnought", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err and "Traceback" not in err


def test_odds_read_the_data_override(tmp_path):
    f = tmp_path / "hard.toml"
    f.write_text('[pack]\ngame = "dreadnought"\n[crt."12"]\n"1-1" = "1G"\n')
    base = odds(attack=36, defense=10, range=7)
    new = odds(attack=36, defense=10, range=7, data=f)
    assert new["outcomes"]["sunk"] < base["outcomes"]["sunk"]
    assert new["data"]["counts"]["user"] == 1
