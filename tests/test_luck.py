"""Dice luck (simlab luck, :mod:`simlab.analysis.luck`): what the kernels record per shot, per
battle and per attack, the percentiles (exact and approximated, against an exact enumeration),
and the command.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from simlab import cli
from simlab.analysis.luck import (
    exact_mid_percentile,
    iid_mid_percentiles,
    luck_games,
    luck_summary,
    normal_mid_percentile,
)
from simlab.games import get_game
from simlab.games.doe.dice import scripted_stream
from simlab.games.doe.enums import DISABLED, SPEED_NEVER, SUNK
from simlab.games.doe.kernels import (
    DEFAULT_CHOICES,
    W_DICE,
    W_DMG,
    BattleSpec,
    Squadrons,
    battle_nb,
    new_work,
)
from simlab.games.doe.luck import DIE_DAMAGE_PMF, DIE_MEAN, DIE_VAR, luck_columns
from simlab.rng import game_seeds

STEPS = {"none": 0, "1G": 1, "1S": 1, "1G1S": 2, "2G": 2, "2S": 2, "2G1S": 3, "1G2S": 3, "2G2S": 4, "sunk": 4}


def _battle(att, dfn, dice, n0=1):
    """One scripted Dawn of Empire battle of single-unit lines; the kernel's luck record."""
    att = np.asarray(att, dtype=np.int64)
    n = att.size
    dmg = np.zeros(n, dtype=np.int64)
    status = np.zeros(n, dtype=np.int8)
    work = new_work(n)
    rng = scripted_stream(dice)
    res = battle_nb(Squadrons(att, np.asarray(dfn, dtype=np.int64), np.full(n, 4, dtype=np.int64), dmg, status),
                    BattleSpec(n0, n - n0, 0, 0, 1000, SPEED_NEVER), DEFAULT_CHOICES, rng, work)
    return res, status, dmg, work[W_DICE, :2].copy(), work[W_DMG, :2].copy()


# --------------------------------------------------------------------------- Dawn of Empire, by hand
def test_one_die_of_dawn_of_empire_gunfire_rule_8_3_2():
    # a 6 hits and rolls the damage die: 0 with 30/36, k = 1..6 with 1/36 each
    assert DIE_DAMAGE_PMF == pytest.approx([30 / 36] + [1 / 36] * 6, abs=0)
    assert DIE_MEAN == pytest.approx(7 / 12)
    assert DIE_VAR == pytest.approx(91 / 36 - 49 / 144)


def test_hand_built_battle_records_its_dice_and_damage():
    # the US (attack 2) rolls 6 (damage die 4) and 3; Spain (attack 1) rolls a 5: the US unit is
    # disabled (8.3.2), Spain's takes 4 of its 5 and stays in line; Spain wins by gunfire (10.1)
    (w, rounds, *_), status, dmg, dice, dealt = _battle([2, 1], [5, 5], [6, 4, 3, 5])
    assert (w, rounds) == (1, 1) and status[0] == DISABLED and dmg[1] == 4
    assert dice.tolist() == [2, 1] and dealt.tolist() == [4, 0]
    # expected damage by hand: 7/12 a die (a 6, then 3.5 on average), variance 91/36 - (7/12)^2
    cols = luck_columns(("us", "spain"), dice[None, :], dealt[None, :])
    assert cols["luck_mean_us"][0] == pytest.approx(7 / 6) and cols["luck_mean_spain"][0] == pytest.approx(7 / 12)
    assert cols["luck_var_us"][0] == pytest.approx(2 * 315 / 144) and cols["luck_dealt_us"][0] == 4
    # the US's 4 damage points from 2 dice: by hand, P(S < 4) = (900 + 60 + 61 + 62) / 1296 and
    # P(S = 4) = 63 / 1296, so its luck is (1083 + 31.5) / 1296
    assert iid_mid_percentiles(DIE_DAMAGE_PMF, [2], [4])[0] == pytest.approx(1114.5 / 1296, abs=1e-12)
    # Spain's 0 from 1 die: half the 30/36 of a miss
    assert iid_mid_percentiles(DIE_DAMAGE_PMF, [1], [0])[0] == pytest.approx(15 / 36, abs=1e-12)
    # the same by brute force over the 36 x 36 outcomes of two dice (roll, damage die)
    one = [h if r == 6 else 0 for r in range(1, 7) for h in range(1, 7)]
    totals = [a + b for a, b in itertools.product(one, one)]
    ref = Fraction(sum(t < 4 for t in totals), len(totals)) + Fraction(sum(t == 4 for t in totals), 2 * len(totals))
    assert float(ref) == pytest.approx(1114.5 / 1296, abs=1e-12)


def test_forced_dice_all_hit_for_six_is_the_top_percentile():
    # every US die a 6 with a 6 on the damage die: 18 points from 3 dice, the most they can deal
    (w, *_), status, _, dice, dealt = _battle([3, 1], [5, 5], [6, 6, 6, 6, 6, 6, 1])
    assert w == 0 and status[1] == SUNK and dice.tolist() == [3, 1] and dealt.tolist() == [18, 0]
    top = iid_mid_percentiles(DIE_DAMAGE_PMF, [3], [18])[0]
    assert top == pytest.approx(1 - 0.5 / 36 ** 3, abs=1e-12) and top > 0.9999
    # Spain's die missed: at the bottom, but not 0 (a miss is the commonest result)
    assert iid_mid_percentiles(DIE_DAMAGE_PMF, [1], [0])[0] < 0.5


def test_iid_percentiles_match_a_brute_force_convolution():
    rng = np.random.default_rng(3)
    n = rng.integers(0, 25, size=40)
    x = np.array([int(rng.integers(0, 6 * k + 1)) for k in n])
    got = iid_mid_percentiles(DIE_DAMAGE_PMF, n, x)
    want = [exact_mid_percentile([DIE_DAMAGE_PMF] * int(k), int(v)) for k, v in zip(n, x, strict=True)]
    assert np.allclose(got, want, atol=1e-12)
    assert iid_mid_percentiles(DIE_DAMAGE_PMF, [0], [0])[0] == 0.5  # no dice: neither lucky nor not


def test_doe_luck_is_icepools_exact_enumeration_of_rule_8_3_2_dice():
    """The luck percentiles of Dawn of Empire against an independent enumerator: icepool builds one
    gunfire die from Rule 8.3.2 (a d6; a 6 hits and rolls a d6 for the damage points, else 0) and
    sums n of them exactly; the game's declared luck_die_pmf and every mid-percentile agree."""
    import icepool
    die = icepool.d6.map(lambda r: icepool.d6 if r == 6 else 0)
    assert get_game("dawn-of-empire").luck_die_pmf == pytest.approx(
        [float(die.probability(k)) for k in range(7)], abs=1e-15)
    for n in (1, 2, 3, 5, 8, 13):
        total = n @ die
        xs = np.arange(0, 6 * n + 1)
        want = [float(Fraction(total.probability("<", int(x))) + Fraction(total.probability(int(x))) / 2) for x in xs]
        got = iid_mid_percentiles(DIE_DAMAGE_PMF, np.full(xs.size, n), xs)
        assert np.abs(got - np.asarray(want)).max() < 1e-12, n


# --------------------------------------------------------------------------- Dreadnought per shot
@pytest.fixture(scope="module")
def dn_rules():
    from simlab.games.dreadnought.game import rules_for
    return rules_for(get_game("dreadnought").load_data())[0]


DN_CASES = [
    dict(attack=36, defense=10, hexes=7), dict(attack=36, defense=10, hexes=7, fired_upon=True),
    dict(attack=61, defense=20, hexes=14, arc="bow"), dict(attack=18, defense=6, hexes=2, fired_upon=True, halved=True),
    dict(attack=16, defense=6, hexes=4), dict(attack=80, defense=2, hexes=1), dict(attack=1, defense=4, hexes=5),
    dict(torpedo="1:1", defense=9), dict(torpedo="2:1", defense=9, combing=True),
]


def _dn_pmf(rules, case) -> np.ndarray:
    from simlab.games.dreadnought.odds import shot_distribution
    d = shot_distribution(rules, **case)
    p = np.zeros(5, dtype=object)
    for k, v in d["outcomes"].items():
        p[STEPS[k]] += v
    return p, d


@pytest.mark.parametrize("case", DN_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_dreadnought_shot_moments_are_the_exact_odds(dn_rules, case):
    """The kernel's per-shot mean and variance (fixed point over 36**3) equal those of the
    odds module's exact enumeration of the same attack (Rules 5.8, 5.9, 5.41, 8.0, 8.32)."""
    from simlab.games.dreadnought import layout as L
    from simlab.games.dreadnought.kernels.fire import crt_moments_nb, gun_moments_nb
    p, d = _dn_pmf(dn_rules, case)
    r = dn_rules
    if "torpedo" in case:
        col = {"1:1": 1, "2:1": 2}[case["torpedo"]]
        s1, s2 = crt_moments_nb(r.crt, col, -r.rl[L.RL_COMBING] if case.get("combing") else 0, r.rl)
        s1, s2 = 36 * s1, 36 * s2
    else:
        s1, s2 = gun_moments_nb(d["strength"], d["dpt_modifier"], case["defense"], r.dpt, r.band_low, r.crt, r.rl)
    mean = sum(k * p[k] for k in range(5))
    m2 = sum(k * k * p[k] for k in range(5))
    assert Fraction(int(s1), L.LUCK_SCALE) == mean
    assert Fraction(int(L.LUCK_SCALE * s2 - s1 * s1), L.LUCK_SCALE ** 2) == m2 - mean * mean


def test_normal_approximation_error_against_an_exact_enumeration(dn_rules):
    """The error the luck module's docstring claims: 12 Dreadnought gun shots of six kinds, every
    total from 0 to 48, exact (convolution) against the continuity-corrected normal: <= 0.02;
    12 rare-hit shots (1.6% each) are worse (about 0.1), as stated there."""
    pmfs = [np.array(_dn_pmf(dn_rules, c)[0], dtype=float) for c in DN_CASES[:6]]

    def max_error(shots):
        k = np.arange(5)
        m = sum(float((p * k).sum()) for p in shots)
        v = sum(float((p * k * k).sum() - (p * k).sum() ** 2) for p in shots)
        xs = np.arange(0, 4 * len(shots) + 1)
        exact = np.array([exact_mid_percentile(shots, x) for x in xs])
        approx = normal_mid_percentile(xs, np.full(xs.size, m), np.full(xs.size, v))
        return float(np.abs(exact - approx).max())

    mixed = max_error([pmfs[i % 6] for i in range(12)])
    assert 0.005 < mixed <= 0.02
    rare = max_error([pmfs[2]] * 12)
    assert 0.05 < rare <= 0.11


def test_normal_percentile_of_a_certain_result():
    assert normal_mid_percentile([3.0, 2.0, 4.0], [3.0] * 3, [0.0] * 3).tolist() == [0.5, 0.0, 1.0]


# --------------------------------------------------------------------------- Mar Rojo per attack
def test_mar_rojo_forced_hits_are_the_top_percentile():
    """Libertad's 5 main-armament dice hit on 5+ at short range (5.3.1 step 8): scripted all 6,
    5 hits, with mean 5/3 and variance 10/9 recorded for her side."""
    from simlab.games.mar_rojo import engine
    from simlab.games.mar_rojo.combat import fire_hits_nb
    from simlab.games.mar_rojo.dice import script
    from simlab.games.mar_rojo.enums import FAM_GREEDY, SHORT, ST_IN_PLAY, W_MAIN
    from simlab.games.mar_rojo.layout import G_LUCK0, G_POL0, G_RESTRICT, MAXC, S_STATUS
    from simlab.games.mar_rojo.rules import compile_cards, compile_tables
    view = get_game("mar-rojo").load_data().view()
    rt, _ = compile_tables(view)
    cs, st, g, piles, hands, wk, fw, rng, taken, tmp = engine.new_game_arrays(4)
    cs[MAXC] = compile_cards(view, ["Libertad"])[0]
    st[MAXC, S_STATUS] = ST_IN_PLAY
    g[G_POL0] = g[G_POL0 + 1] = FAM_GREEDY
    g[G_RESTRICT] = -1
    assert fire_hits_nb(rt, cs, st, g, MAXC, W_MAIN, SHORT, 0, 0, rng, script([6] * 5)) == 5
    dealt, mean36, var1296 = (int(v) for v in g[G_LUCK0 + 3:G_LUCK0 + 6])
    assert (dealt, Fraction(mean36, 36), Fraction(var1296, 1296)) == (5, Fraction(5, 3), Fraction(10, 9))
    assert g[G_LUCK0:G_LUCK0 + 3].tolist() == [0, 0, 0]  # the other side fired nothing
    approx = normal_mid_percentile([5.0], [5 / 3], [10 / 9])[0]
    exact = exact_mid_percentile([[2 / 3, 1 / 3]] * 5, 5)  # Bin(5, 1/3): 1 - 1/486
    assert exact == pytest.approx(1 - 1 / 486, abs=1e-12)
    assert approx > 0.99 and abs(approx - exact) < 0.002


# --------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("game_name,scenario,n", [("doe-battle", None, 3000), ("dawn-of-empire", None, 300),
                                                  ("dreadnought", "dogger-bank", 300), ("mar-rojo", None, 600)])
def test_recorded_luck_is_unbiased_in_whole_games(game_name, scenario, n):
    """Over whole games, what the dice dealt less its recorded mean sums to about 0 in units of
    the recorded standard deviation (each shot's mean and variance are its own, so the sum is a
    martingale: |z| < 4 fails by chance once in 15,000 runs, and a kernel that misreads a
    modifier is off by far more)."""
    game = get_game(game_name)
    sc = game.load_scenario(scenario, game.load_data())
    opts = game.resolve_options({})
    pols = {s: p for s, p in game.resolve_policies(sc.sides, {}).items()}
    b = game.play_batch(sc, opts, pols, game_seeds(5, 7, 0, n))
    for s in sc.sides:
        dealt = np.asarray(b.games[f"luck_dealt_{s}"])
        mean = np.asarray(b.games[f"luck_mean_{s}"])
        var = np.asarray(b.games[f"luck_var_{s}"])
        assert var.sum() > 0 and (var >= 0).all() and (dealt >= 0).all()
        z = (dealt - mean).sum() / np.sqrt(var.sum())
        assert abs(z) < 4, (s, z)


def test_luck_columns_do_not_move_rows_and_golden_skips_them():
    from simlab.testing.golden import EXCLUDED_PREFIXES
    assert "luck_" in EXCLUDED_PREFIXES


# --------------------------------------------------------------------------- the command
@pytest.fixture(scope="module")
def doe_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("luck") / "s"
    assert cli.main(["sweep", "--game", "doe-battle", "--games", "1500", "--workers", "1", "--seed", "4",
                     "--out", str(out)]) == 0
    return out


def test_luck_command_on_a_doe_battle_sweep(doe_sweep, tmp_path, capsys):
    capsys.readouterr()
    png = tmp_path / "luck.png"
    csv = tmp_path / "luck.csv"
    assert cli.main(["luck", str(doe_sweep), "--json", "--plot", str(png), "--games-out", str(csv)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["game"] == "doe-battle" and res["method"] == "exact" and set(res["sides"]) == {"us", "spain"}
    (c,) = res["cells"]
    assert c["games"] == 1500
    for s in ("us", "spain"):
        q = c["sides"][s]["quintiles"]
        assert sum(r["games"] for r in q) == 1500
        # fair dice: the luck percentiles average about 1/2 (sd of the mean 0.29 / sqrt(1500) = 0.0075)
        assert abs(c["sides"][s]["mean_luck"] - 0.5) < 0.04
    # luck matters: the US wins more often with its luckiest dice than with its unluckiest
    us = c["sides"]["us"]["quintiles"]
    assert us[4]["win_rate"] > us[0]["win_rate"]
    assert 0.05 < c["r2_margin"] < 1
    assert png.stat().st_size > 1000
    df = luck_games(doe_sweep)
    assert len(df) == 1500 and df["luck_us"].between(0, 1).all()
    assert len(csv.read_text().splitlines()) == 1501
    assert luck_summary(doe_sweep, cell=0)["cells"][0]["r2_margin"] == pytest.approx(c["r2_margin"])


@pytest.mark.parametrize("game_name,method", [("dawn-of-empire", "exact"), ("dreadnought", "normal"),
                                              ("mar-rojo", "normal")])
def test_luck_reads_a_sweep_of_every_luck_recording_game(game_name, method, tmp_path, capsys):
    out = tmp_path / "s"
    assert cli.main(["sweep", "--game", game_name, "--games", "60", "--workers", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["luck", str(out), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["method"] == method and len(res["sides"]) == 2
    (c,) = res["cells"]
    for s in res["sides"]:
        assert sum(q["games"] for q in c["sides"][s]["quintiles"]) == 60
        assert 0.2 < c["sides"][s]["mean_luck"] < 0.8


def test_luck_command_bad_input_is_one_line_and_exit_2(doe_sweep, tmp_path, capsys):
    out = tmp_path / "syn"
    assert cli.main(["sweep", "--game", "synthetic", "--games", "50", "--workers", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["luck", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "record no dice luck" in err
    assert cli.main(["luck", str(doe_sweep), "--cell", "7"]) == 2
    assert "no such cell" in capsys.readouterr().err
    assert cli.main(["luck", str(doe_sweep), "--plot", str(tmp_path / "x.pdf")]) == 2
    assert cli.main(["luck", str(tmp_path / "nothing")]) == 2


def test_luck_rates_print_their_interval_with_the_estimates_digits():
    # a 0-digit interval read "99.7% [100, 100]": an interval that seems not to hold its estimate
    from simlab.cli.luck_cmd import _rate
    assert _rate({"games": 300, "win_rate": 0.997, "ci": [0.98146, 0.99946]}) == "99.7% [98.1, 99.9] n=300"
    assert _rate({"games": 0, "win_rate": 0.0, "ci": [0.0, 0.0]}) == "-"
