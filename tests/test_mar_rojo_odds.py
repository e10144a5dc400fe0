"""Mar Rojo odds: ``simlab odds mar-rojo`` against an independent icepool enumeration, the kernel's
dice against the exact odds, and the command line's errors."""

from __future__ import annotations

import json
from fractions import Fraction

import icepool
import numpy as np
import pytest

from simlab.cli import main
from simlab.games import get_game
from simlab.games.mar_rojo import engine
from simlab.games.mar_rojo.combat import fire_nb
from simlab.games.mar_rojo.enums import ARMOUR_NAMES, TYPE_NAMES, WEAPON_NAMES
from simlab.games.mar_rojo.layout import C_ARMOUR, C_HULL, C_MAIN, C_TORP, C_TYPE, S_DMG, S_STATUS, S_UP
from simlab.games.mar_rojo.odds import odds
from simlab.games.mar_rojo.rules import compile_tables

GAME = get_game("mar-rojo")

# the printed rules, written out independently of the data pack and of odds.py
SAVE_NEED = {"X": None, "L": 6, "H": 5, "S": 5, "E": 4}
TORPEDO_ROW = {1: 0, 2: 1, 3: 1, 4: 1, 5: 2, 6: "sunk", 7: "sunk"}
SUNK = 1000


def _oracle(weapon, dice, distance, target, armour, optics=False, night=False):
    """Exact {hits: p} and p_sunk by enumerating icepool dice, one die per step of 5.3.1."""
    d6 = icepool.d6
    need = 5
    if (weapon in ("secondary", "torpedo") and distance == "medium") or (weapon == "main" and distance == "long"):
        need += 1
    if optics:
        need -= 1
    if night:
        need += 1
    save = SAVE_NEED[armour]

    def one_die(hit, save_roll, effect_roll, save2):
        if hit < need:
            return 0
        if weapon == "torpedo":
            if target in ("destroyer", "auxiliary") and save2 >= 5:
                return 0
            r = effect_roll + (1 if target == "capital" else 0)
            e = TORPEDO_ROW[min(r, 7)]
            return SUNK if e == "sunk" else e
        if save is not None and save_roll >= save:
            return 0
        return 1

    per_die = icepool.map(one_die, d6, d6, d6, d6)
    if dice == 0:
        # lucky hit: a 6, then 4+; the hit then goes through the same save / effect steps
        def lucky(a, b, save_roll, effect_roll, save2):
            if night or a < 6 or b < 4:
                return 0
            if weapon == "torpedo":
                if target in ("destroyer", "auxiliary") and save2 >= 5:
                    return 0
                e = TORPEDO_ROW[min(effect_roll + (1 if target == "capital" else 0), 7)]
                return SUNK if e == "sunk" else e
            if save is not None and save_roll >= save:
                return 0
            return 1
        total = icepool.map(lucky, d6, d6, d6, d6, d6)
    else:
        total = dice @ per_die
    if weapon == "asw":
        total = icepool.map(lambda ev, t: 0 if ev >= 5 else t, d6, total)
    den = total.denominator()
    hits = {}
    p_sunk = Fraction(0)
    for outcome, q in total.items():
        if outcome >= SUNK:
            p_sunk += Fraction(q, den)
        else:
            hits[outcome] = hits.get(outcome, Fraction(0)) + Fraction(q, den)
    return hits, p_sunk


CASES = [
    ("main", 5, "short", "capital", "H", False, False),
    ("main", 3, "long", "destroyer", "L", False, False),
    ("main", 0, "short", "capital", "L", False, False),
    ("main", 0, "long", "capital", "E", False, True),
    ("secondary", 4, "medium", "destroyer", "L", True, False),
    ("secondary", 2, "short", "merchant", "X", False, True),
    ("torpedo", 1, "short", "destroyer", "L", False, False),
    ("torpedo", 2, "medium", "capital", "H", False, False),
    ("torpedo", 3, "short", "merchant", "X", True, False),
    ("torpedo", 0, "short", "capital", "X", False, False),
    ("torpedo", 2, "short", "auxiliary", "X", False, True),
    ("aa", 3, "short", "aircraft", "L", False, False),
    ("asw", 2, "medium", "submarine", "S", False, False),
    ("air", 3, "medium", "aircraft", "X", True, False),
    ("bombing", 3, "medium", "destroyer", "E", False, False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_odds_match_independent_enumeration(case):
    weapon, dice, distance, target, armour, optics, night = case
    res = odds(weapon, dice, distance, target, armour, optics=optics, night=night)
    hits, p_sunk = _oracle(weapon, dice, distance, target, armour, optics, night)
    got = {int(k): Fraction(v) for k, v in res["hits_exact"].items()}
    want = {k: v for k, v in hits.items() if v}
    got = {k: v for k, v in got.items() if v}
    assert got == want
    assert Fraction(res["p_sunk_exact"]) == p_sunk
    assert sum(got.values()) + p_sunk == 1


def test_oracle_helper_must_fail_on_a_wrong_rule():
    """The oracle is sensitive: one more pip needed changes the answer."""
    a, _ = _oracle("main", 3, "short", "capital", "X")
    b, _ = _oracle("main", 3, "long", "capital", "X")
    assert a != b
    res = odds("main", 3, "long", "capital", "X")
    assert {int(k): Fraction(v) for k, v in res["hits_exact"].items()} != a


def test_dice_zero_is_a_lucky_hit():
    res = odds("main", 0, "short", "capital", "X")
    assert res["hits_exact"] == {0: "11/12", 1: "1/12"}
    res = odds("main", 0, "short", "capital", "X", night=True)
    assert res["hits_exact"] == {0: "1"}


def test_capital_torpedo_sinks_on_five_or_six():
    # one torpedo die hitting on 5+ (1/3), then Sunk on 5-6 for a capital ship (1/3)
    res = odds("torpedo", 1, "short", "capital", "X")
    assert Fraction(res["p_sunk_exact"]) == Fraction(1, 9)
    res = odds("torpedo", 1, "short", "merchant", "X")
    assert Fraction(res["p_sunk_exact"]) == Fraction(1, 18)


@pytest.mark.parametrize("weapon,dice,target,armour,distance", [
    ("main", 5, "capital", "H", "short"),
    ("torpedo", 2, "destroyer", "L", "short"),
    ("torpedo", 2, "capital", "X", "medium"),
])
def test_kernel_dice_match_exact_odds(weapon, dice, target, armour, distance):
    """The compiled fire (steps 8-11) samples the exact distribution: n = 40,000 fires with a fixed
    seed; each probability within 4.5 standard errors (sqrt(p(1-p)/n))."""
    rt, _ = compile_tables(GAME.load_data().view())
    cs, st, g, piles, hands, wk, fw, rng, taken, tmp = engine.new_game_arrays(2)
    rng[0] = np.uint64(987654321)
    a, t = 0, 16
    w = WEAPON_NAMES.index(weapon)
    cs[a, C_MAIN] = dice
    cs[a, C_TORP] = dice
    cs[a, C_HULL] = 9
    cs[t, C_TYPE] = TYPE_NAMES.index(target)
    cs[t, C_ARMOUR] = ARMOUR_NAMES.index(armour)
    cs[t, C_HULL] = 20
    st[a, S_STATUS] = st[t, S_STATUS] = 1
    st[a, S_UP] = st[t, S_UP] = 1
    n = 40_000
    counts: dict = {}
    scr = np.zeros(2, np.int64)
    d = {"short": 0, "medium": 1, "long": 2}[distance]
    for _ in range(n):
        st[t, S_STATUS] = 1
        st[t, S_DMG] = 0
        gone = fire_nb(rt, cs, st, g, a, t, w, d, 0, 0, rng, scr)
        k = "sunk" if gone and st[t, S_DMG] < 20 else int(st[t, S_DMG])
        counts[k] = counts.get(k, 0) + 1
    res = odds(weapon, dice, distance, target, armour)
    want = {int(k): v for k, v in res["hits"].items()}
    want["sunk"] = res["p_sunk"]
    for k, p in want.items():
        got = counts.get(k, 0) / n
        se = max((p * (1 - p) / n) ** 0.5, 1 / n)
        assert abs(got - p) <= 4.5 * se, (k, got, p)


def test_cli_json_and_table(capsys):
    assert main(["odds", "mar-rojo", "--weapon", "torpedo", "--dice", "2", "--distance", "short", "--target",
                 "capital", "--armour", "H", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "exact"
    assert abs(sum(out["hits"].values()) + out["p_sunk"] - 1) < 1e-12
    assert main(["odds", "mar-rojo", "--weapon", "main", "--dice", "0", "--target", "destroyer", "--armour", "L",
                 "--optics", "--night"]) == 0
    assert "hits that stand" in capsys.readouterr().out


@pytest.mark.parametrize("argv,fragment", [
    (["--weapon", "laser", "--dice", "2", "--target", "capital"], "--weapon"),
    (["--weapon", "aa", "--dice", "2", "--target", "capital"], "cannot target"),
    (["--weapon", "secondary", "--dice", "2", "--target", "capital", "--distance", "long"], "Long"),
    (["--weapon", "bombing", "--dice", "2", "--target", "capital", "--distance", "short"], "Medium"),
    (["--weapon", "main", "--dice", "-1", "--target", "capital"], "--dice"),
    (["--weapon", "main", "--dice", "2", "--target", "capital", "--armour", "Z"], "--armour"),
    (["--weapon", "main", "--dice", "2", "--target", "capital", "--data", "/no/such.toml"], "not found"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, fragment, capsys):
    assert main(["odds", "mar-rojo", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_data_override_changes_the_odds(tmp_path, capsys):
    f = tmp_path / "mine.toml"
    f.write_text('[pack]\ngame = "mar-rojo"\n[constants.hit]\nvalue = 4\n')
    base = odds("main", 2, "short", "capital", "X")
    mine = odds("main", 2, "short", "capital", "X", data=f)
    assert mine["need"] == 4 and base["need"] == 5
    assert mine["p_die"] == pytest.approx(0.5)
