"""Dreadnought data pack and gunnery arithmetic: Rules 5.5, 5.6, 5.8, 5.9, 3.21-3.24, 8.6, 9.51."""

from fractions import Fraction

import numpy as np
import pytest
from dreadnought_helpers import rng_with_d6

from simlab.datapack import load_pack
from simlab.games import get_game
from simlab.games.dreadnought import provisional
from simlab.games.dreadnought.enums import RES_NONE
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.kernels.fire import band_nb, clamp_roll_nb, gun_shot_nb, range_strength_nb
from simlab.games.dreadnought.rules import DATA_DIR, SCHEMA
from simlab.games.dreadnought.runtime import rule_tables


@pytest.fixture(scope="module")
def rules():
    return rules_for(get_game("dreadnought").load_data())[0]


def test_every_dpt_band_edge_5_8(rules):
    # Rule 5.8: each DPT column covers the modified strengths its printed heading names ("6-10", "81+"),
    # both ends included: read from the pack's DPT headings, not from the band table the kernel uses
    heads = list(get_game("dreadnought").load_data().tables["dpt"]["2"])
    assert heads[0] == "0-5" and heads[-1] == "81+" and len(heads) == rules.band_low.shape[0]
    for k, h in enumerate(heads):
        lo, _, hi = h.rstrip("+").partition("-")
        assert band_nb(int(lo), rules.band_low) == k, h
        if hi:
            assert band_nb(int(hi), rules.band_low) == k and band_nb(int(hi) + 1, rules.band_low) == k + 1, h
    assert band_nb(500, rules.band_low) == len(heads) - 1


def test_range_effects_example_5_5(rules):
    # Rule 5.5: attack 17 at 2, 4, 7 and 13 hexes -> 51, 34, 17, 8
    assert [range_strength_nb(17, d, rules.range_tab) for d in (2, 4, 7, 13)] == [51, 34, 17, 8]
    assert [range_strength_nb(17, d, rules.range_tab) for d in (1, 3, 5, 12, 20)] == [51, 34, 17, 17, 8]


def test_dpt_cell_of_example_5_6(rules):
    # Rule 5.6: attack 36 is column 31-40; a roll of 8 less 2 (fired upon) is 6 -> 10 damage points
    b = band_nb(36, rules.band_low)
    assert provisional.BANDS[b] == "31-40"
    assert rules.dpt[6, b] == 10


def test_example_5_6_through_the_shot_kernel(rules):
    # dice 3 + 5 = 8 on the DPT; fired upon -> 6 -> 10 damage points; vs defense 11 -> no effect
    rng = rng_with_d6([3, 5])
    out = np.zeros(6, dtype=np.int64)
    res = gun_shot_nb(36, 0, 7, 1, 0, 11, rule_tables(rules), rng, out)
    assert list(out[:4]) == [36, 6, 10, 0]
    assert res == RES_NONE
    # the same dice at 2 hexes (x3 = 108, column 81+) and not fired upon: roll 8
    rng = rng_with_d6([3, 5, 1, 1])
    res = gun_shot_nb(36, 0, 2, 0, 0, 11, rule_tables(rules), rng, out)
    assert out[0] == 108 and out[1] == 8 and out[2] == rules.dpt[8, 10]


def test_modified_rolls_read_as_2_and_12():
    assert [clamp_roll_nb(r) for r in (-3, 0, 1, 2, 7, 12, 13, 15)] == [2, 2, 2, 2, 7, 12, 12, 12]


def test_printed_cells_are_kept():
    # Rule 5.8: row 2 is all 0; row 3 is 0 in the first seven columns (31-40 the last printed)
    dpt, crt = provisional.dpt_cell, provisional.crt_cell
    assert [dpt(2, b) for b in range(11)] == [0] * 11
    assert [dpt(3, b) for b in range(7)] == [0] * 7
    # Rule 5.9 rows 2-5 as printed
    printed = {2: ["", "", "", "", ""], 3: ["", "", "", "", "1G"], 4: ["", "", "", "1G", "1G"],
               5: ["", "", "1G", "1S", "1G,1S"]}
    for r, row in printed.items():
        assert [crt(r, c) for c in range(1, 6)] == row


def test_pack_values_and_provenance_of_printed_cells():
    pack = get_game("dreadnought").load_data()
    t = pack.tables
    assert t["dpt"]["6"]["31-40"].value == 10 and t["dpt"]["6"]["31-40"].provenance == "example:5.6"
    assert t["dpt"]["2"]["81+"].provenance == "rulebook:5.8"
    assert t["dpt"]["3"]["31-40"].provenance == "rulebook:5.8"
    assert t["dpt"]["3"]["41-50"].provenance == "provisional"
    assert t["crt"]["5"]["5-1"].value == "1G,1S" and t["crt"]["5"]["5-1"].provenance == "rulebook:5.9"
    assert t["crt"]["9"]["1-1"].provenance == "provisional"
    # the 5.51 chart prints all four rows, "13 or more: halved" included (the 5.5 example agrees: 17 -> 8 at 13)
    rows = ("1-2", "3-4", "5-12", "13+")
    assert [t["range_effects"][k]["max_hexes"].provenance for k in rows] == ["rulebook:5.51"] * 4
    assert [(t["range_effects"][k]["multiply"].value, t["range_effects"][k]["divide"].value) for k in rows] == [
        (3, 1), (2, 1), (1, 1), (1, 2)]
    assert t["range_effects"]["13+"]["divide"].provenance == "rulebook:5.51"


def test_dpt_and_crt_rise_with_roll_and_strength():
    severity = {"": 0, "1G": 1, "1S": 1, "1G,1S": 2, "2G": 2, "2G,1S": 3, "E": 4}
    for r in range(2, 13):
        row = [provisional.dpt_cell(r, b) for b in range(11)]
        assert row == sorted(row)
        crow = [severity[provisional.crt_cell(r, c)] for c in range(1, 6)]
        assert crow == sorted(crow)
    for b in range(11):
        col = [provisional.dpt_cell(r, b) for r in range(2, 13)]
        assert col == sorted(col)
    for c in range(1, 6):
        col = [severity[provisional.crt_cell(r, c)] for r in range(2, 13)]
        assert col == sorted(col)


def test_generated_pack_files_match_the_method():
    # dpt_crt.toml and classes.toml are generated from provisional.py; they must not drift
    assert (DATA_DIR / "dpt_crt.toml").read_text() == provisional.render_dpt_crt_toml()
    assert (DATA_DIR / "classes.toml").read_text() == provisional.render_classes_toml()


def test_known_counters_and_the_method_calibration():
    pack = load_pack(DATA_DIR, SCHEMA)
    c = pack.tables["classes"]

    def vals(k):
        return tuple(c[k][f].value for f in ("attack", "defense", "range", "movement"))

    assert vals("740") == (61, 20, 20, 7)            # Bismarck, 3.21
    assert vals("740") == tuple(provisional.derive_class(provisional.load_inputs()["740"])[f]
                                for f in ("attack", "defense", "range", "movement"))
    a, d, _, m = vals("080")
    assert (a, d, m) == (18, 6, 5) and a + d + m == 29  # Iron Duke, 9.51
    assert vals("C30") == (16, 6, 12, 8)             # C33, 3.22
    assert c["D70"]["torpedo"].value == "1:1"         # D72 is marked 1:1T, 3.23
    checks = provisional.calibration_checks()
    assert checks["cavour_sum"] == (26, 26)           # Leonardo da Vinci, 11.9
    # the publicly reported US ranges are reproduced
    for cls in ("350", "370", "400"):
        got, want = checks["ranges"][cls]
        assert str(got) == want
    # every provisional class value says how it was derived
    for key, row in c.items():
        for f, v in row.items():
            if v.provenance == "provisional":
                assert v.note, f"classes.{key}.{f} has no note"


def test_torpedo_range_by_period(rules):
    # Rule 8.6: 1906-20 two hexes, 1921-40 three, 1941-45 five
    assert [rules.torpedo_mp(y) for y in (1906, 1915, 1920, 1921, 1935, 1940, 1941, 1944)] == [2, 2, 2, 3, 3, 3, 5, 5]


def test_e_sinks_on_7_or_11(rules):
    # Rule 5.41: after an E a 7 or 11 sinks: 8/36
    from simlab.games.dreadnought.odds import _crt_outcomes
    out = _crt_outcomes(rules, 5, 0)
    p_e = sum(1 for r in range(2, 13) for a in range(1, 7) for b in range(1, 7)
              if a + b == r and provisional.crt_cell(r, 5) == "E") / 36
    assert out["sunk"] == Fraction(8, 36) * Fraction(p_e).limit_denominator(36)


def test_data_show_json_tables(capsys):
    import json

    from simlab import cli
    assert cli.main(["data", "show", "dreadnought", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    dpt = {(r["key"], r["field"]): r["value"] for r in d["records"] if r["table"] == "dpt"}
    crt = {(r["key"], r["field"]): r["value"] for r in d["records"] if r["table"] == "crt"}
    assert {k for k, _ in dpt} == {str(r) for r in range(2, 13)}
    assert {f for _, f in dpt} == set(provisional.BANDS) and ("6", "31-40") in dpt
    assert dpt[("6", "31-40")] == 10
    assert {f for _, f in crt} == {"1-1", "2-1", "3-1", "4-1", "5-1"}
    assert crt[("5", "5-1")] == "1G,1S" and crt[("2", "1-1")] == "" and crt[("12", "1-1")] == "E"
    provs = {r["provenance"] for r in d["records"]}
    assert provs <= {"provisional"} | {p for p in provs if p.startswith(("rulebook:", "example:"))}


def test_override_pack_changes_a_run(tmp_path):
    # a user who owns the game replaces Bismarck's class values and a CRT cell; the run says so
    f = tmp_path / "mine.toml"
    f.write_text('[pack]\ngame = "dreadnought"\n[classes."280"]\nattack = 40\n[crt."7"]\n"1-1" = ""\n')
    g = get_game("dreadnought")
    pack = g.load_data(f)
    sc = g.load_scenario("denmark-strait", pack)
    setup, rules = sc.payload
    assert setup.st[setup.ids.index("281"), 2] == 40
    assert rules.crt[7, 1] == 0
    assert pack.counts(sc.used)["user"] == 2
    with pytest.raises(Exception, match="unknown field"):
        bad = tmp_path / "bad.toml"
        bad.write_text('[pack]\ngame = "dreadnought"\n[classes."280"]\nspeed = 9\n')
        g.load_data(bad)
