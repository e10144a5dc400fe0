"""Game values as experiment axes (issue 30): ``data.<table>.<key>.<field>`` in --set/--grid and
experiment files, patterns, scale and shift, the pack's own checks, columns, seeding, manifest."""

from __future__ import annotations

import json
import textwrap

import pyarrow.parquet as pq
import pytest

import simlab
from simlab.cli import main
from simlab.data_axes import data_column, parse_data_value, resolve_edits
from simlab.errors import DataPackError, SpecError, SweepStateError
from simlab.games import get_game
from simlab.sweeps.spec import expand, load_spec, spec_from_args

GAME = "dawn-of-empire"
N = 40  # games per cell: the campaign's rows differ within a few games
#: the default US preset (hunter) never blockades, so Havana's defense never plays under it; the
#: blockade preset attacks the Spanish ports (8.4), where the defense decides the port's fate
POLICY = ["us=blockade"]


def _pack():
    g = get_game(GAME)
    return g, g.load_data(), g.data_schema()


def _val(pack, t, k, f):
    return pack.tables[t][k][f].value


# ---------------------------------------------------------------- parsing, naming, applying
@pytest.mark.parametrize("raw, want", [("2", 2), (" 20 ", 20), ("2.5", 2.5), ("-3", -3), (7, 7),
                                       ("*1.5", "*1.5"), ("+2", "+2"), ("+-1", "+-1"), ("* 2", "*2")])
def test_data_values_are_typed(raw, want):
    got = parse_data_value("data.ports.havana.defense", raw)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("raw, msg", [("abc", "not a number"), ("*x", "not a number"), (True, "a number"),
                                      ("nan", "finite"), ([1], "a number"), ("+", "not a number")])
def test_bad_data_values_are_refused(raw, msg):
    with pytest.raises(SpecError, match=msg):
        parse_data_value("data.ports.havana.defense", raw)


def test_data_names_become_columns():
    assert data_column("data.ports.havana.defense") == "data_ports_havana_defense"
    assert data_column("data.ports.*.defense") == "data_ports_all_defense"
    assert data_column("data.ports.canary-islands.defense") == "data_ports_canary_islands_defense"
    assert data_column("data.units.Alfonso XII.attack") == "data_units_Alfonso_XII_attack"


def test_set_scale_and_shift_a_group_of_ports():
    _, pack, schema = _pack()
    spanish = {k: _val(pack, "ports", k, "defense") for k in pack.tables["ports"]
               if isinstance(_val(pack, "ports", k, "defense") if "defense" in pack.tables["ports"][k] else None, int)}
    assert spanish["havana"] == 8 and spanish["canary-islands"] == 4
    scaled = resolve_edits(pack, [("data.ports.*.defense", "*1.5")], schema)
    # 8 * 1.5 = 12; 4 * 1.5 = 6; an odd defense's half rounds away from zero (3 * 1.5 = 4.5 -> 5)
    assert _val(scaled, "ports", "havana", "defense") == 12
    assert _val(scaled, "ports", "canary-islands", "defense") == 6
    for k, v in spanish.items():
        want = int(v * 1.5 + 0.5)
        assert _val(scaled, "ports", k, "defense") == want, k
        assert scaled.tables["ports"][k]["defense"].provenance == "user:data.ports.*.defense"
    shifted = resolve_edits(pack, [("data.ports.*.defense", "+2")], schema)
    assert all(_val(shifted, "ports", k, "defense") == v + 2 for k, v in spanish.items())
    one = resolve_edits(pack, [("data.units.Brooklyn.attack", 4)], schema)
    assert _val(one, "units", "Brooklyn", "attack") == 4 and _val(pack, "units", "Brooklyn", "attack") == 3
    assert one.counts()["user"] == 1 and one.hash != pack.hash
    # edits apply in order: set, then scale the set value
    both = resolve_edits(pack, [("data.ports.havana.defense", 6), ("data.ports.*.defense", "*2")], schema)
    assert _val(both, "ports", "havana", "defense") == 12


@pytest.mark.parametrize("name, value, msg", [
    ("data.portz.havana.defense", 3, "no table 'portz'"),
    ("data.ports.havanna.defense", 3, "no row 'havanna' .did you mean 'havana'"),
    ("data.ports.havana.defence", 3, "no field 'defence'"),
    ("data.ports.havana.name", 3, "is not numeric"),
    ("data.ports.havana.defense", -1, "greater than or equal to 1"),
    ("data.ports.havana.defense", 0, "greater than or equal to 1"),   # Rule 3.4.5 B with 3.4.1 (C40)
    ("data.ports.havana.defense", 2.5, "valid integer"),
    ("data.ports.*.defense", "+-9", "greater than or equal to 1"),
    ("data.ports.*.nothing", "*2", "matches no numeric value"),
])
def test_forbidden_data_values_are_refused(name, value, msg):
    _, pack, schema = _pack()
    with pytest.raises(DataPackError, match=msg):
        resolve_edits(pack, [(name, parse_data_value(name, value))], schema)


def test_each_cell_resolves_its_own_pack_and_seeds_like_an_option_axis():
    spec = spec_from_args(GAME, grid=["data.ports.havana.defense=2,20"], games=N)
    _, cells, info = expand(spec)
    assert [c.params for c in cells] == [{"data.ports.havana.defense": 2}, {"data.ports.havana.defense": 20}]
    assert [_val(info["data_packs"][c.data], "ports", "havana", "defense") for c in cells] == [2, 20]
    assert cells[0].key != cells[1].key and len({c.data_hash for c in cells}) == 2
    assert info["data"]["counts"]["user"] == 1 and info["data"]["user_values_used"] == ["ports.havana.defense"]
    crn = expand(spec_from_args(GAME, grid=["data.ports.havana.defense=2,20"], games=N, crn=True))[1]
    assert [c.key for c in crn] == [0, 0]


def test_experiment_files_take_data_values(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text(textwrap.dedent("""
        [experiment]
        game = "dawn-of-empire"
        games = 10
        [options]
        data.units.Brooklyn.attack = 4
        [grid]
        "data.ports.*.defense" = ["*1", "+2"]
    """))
    spec = load_spec(f)
    assert spec.options == {"data.units.Brooklyn.attack": 4} and spec.grid == {"data.ports.*.defense": ["*1", "+2"]}
    _, cells, info = expand(spec)
    packs = [info["data_packs"][c.data] for c in cells]
    assert [_val(p, "ports", "havana", "defense") for p in packs] == [8, 10]
    assert all(_val(p, "units", "Brooklyn", "attack") == 4 for p in packs)


@pytest.mark.parametrize("grid", [
    "data.ports.havana.defense=0,20", "data.ports.havana.defense=-2", "data.ports.havana.defense=x",
    "data.nope.havana.defense=2", "data.ports.nope.defense=2", "data.ports.havana.nope=2",
    "data.ports.havana=2", "data.ports.havana.name=2",
])
def test_bad_data_axes_exit_2_with_one_line_and_write_nothing(grid, tmp_path, capsys):
    out = tmp_path / "x"
    assert main(["sweep", "--game", GAME, "--grid", grid, "--games", "5", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("simlab: error: ") and "data." in err, err
    assert not out.exists()


# ---------------------------------------------------------------- a played sweep
@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("da") / "s"
    res = simlab.sweep(game=GAME, grid=["data.ports.havana.defense=2,20,8,+0"], set_=["data.ports.cadiz.defense=9"],
                       games=N, crn=True, out=out, workers=1, progress=False, policy=POLICY)
    return out, res


def test_a_data_axis_sweep_has_its_column_counts_and_differs(swept):
    out, res = swept
    t = pq.read_table(out / "games").to_pandas()
    assert sorted(t["data_ports_havana_defense"].unique()) == ["+0", "2", "20", "8"]  # mixed values: text
    m = json.loads((out / "manifest.json").read_text())
    assert m["data"]["counts"]["user"] == 2  # the axis and the fixed cadiz value
    assert m["data"]["data_axes"] == {"data.ports.havana.defense": "data_ports_havana_defense"}
    assert [c["data"]["edits"] for c in m["cells"]] == [
        {"data.ports.cadiz.defense": 9, "data.ports.havana.defense": v} for v in (2, 20, 8, "+0")]
    cols = ["winner", "score_us", "score_spain", "turns"]
    by = {v: g.sort_values("game_index")[cols].reset_index(drop=True) for v, g in t.groupby("data_ports_havana_defense")}
    assert not by["2"].equals(by["20"])  # the value plays: same seeds (CRN), other games
    assert by["8"].equals(by["+0"])  # the same value in two cells (8 set, 8 + 0): the same games under CRN


def test_numeric_axes_give_numeric_columns(swept, tmp_path):
    res = simlab.sweep(game=GAME, grid=["data.ports.havana.defense=2,20"], games=5, crn=True,
                       out=tmp_path / "n", workers=1, progress=False)
    t = pq.read_table(tmp_path / "n" / "games")
    assert str(t.schema.field("data_ports_havana_defense").type) == "int64"
    assert sorted(set(t.column("data_ports_havana_defense").to_pylist())) == [2, 20]
    assert res.manifest["data"]["counts"]["user"] == 1
    with pytest.raises(SweepStateError, match="from int64 to string"):  # one column type per sweep
        simlab.sweep(out=tmp_path / "n", grid=["data.ports.havana.defense=*2"], extend=True, workers=1, progress=False)


def test_resume_or_extend_refuses_a_changed_data_axis(swept):
    out, _ = swept
    with pytest.raises(SweepStateError, match="differs"):
        simlab.sweep(game=GAME, grid=["data.ports.havana.defense=2,19,8,+0"], set_=["data.ports.cadiz.defense=9"],
                     games=N, crn=True, out=out, workers=1, progress=False, resume=True, policy=POLICY)
    with pytest.raises(SweepStateError, match="differs"):
        simlab.sweep(game=GAME, grid=["data.ports.havana.defense=2,20,8,+0"], set_=["data.ports.cadiz.defense=7"],
                     games=N, crn=True, out=out, workers=1, progress=False, resume=True, policy=POLICY)
    with pytest.raises(SweepStateError, match="an extension may only"):
        simlab.sweep(game=GAME, grid=["data.ports.havana.defense=2,20,8,+0,12"], set_=["data.ports.cadiz.defense=7"],
                     games=N, crn=True, out=out, workers=1, progress=False, extend=True, policy=POLICY)
    # appending a value to the data axis plays only the new cell, with its own column value and pack
    res = simlab.sweep(out=out, grid=["data.ports.havana.defense=12"], extend=True, workers=1, progress=False)
    assert res.games_played == N
    cells = res.manifest["cells"]
    assert [c["params"]["data.ports.havana.defense"] for c in cells] == [2, 20, 8, "+0", 12]
    assert len({c["data"]["hash"] for c in cells}) == 4  # 8 and +0 resolve to the same pack
    t = pq.read_table(out / "games").to_pandas()
    assert (t["data_ports_havana_defense"] == "12").sum() == N


# ---------------------------------------------------------------- tune and compare
def test_tune_replays_a_data_value(tmp_path):
    from simlab.analysis.tune import tune
    r = tune(GAME, param="data.ports.havana.defense", range_="2:20:9", games=20, policy=POLICY, out=tmp_path / "t",
             progress=False, workers=1, refine=False, replicates=100)
    assert r["kind"] == "int" and r["method"] == "replay" and [p["value"] for p in r["points"]] == [2, 11, 20]
    with pytest.raises(DataPackError, match="no field 'defence'"):
        tune(GAME, param="data.ports.havana.defence", range_="2:20:9", games=20, out=tmp_path / "u", progress=False)
    with pytest.raises(SpecError, match="whole-number steps"):
        tune(GAME, param="data.ports.havana.defense", range_="2:3:0.5", games=20, out=tmp_path / "v", progress=False)


def test_compare_takes_data_values_and_sees_an_a_a_check(tmp_path):
    from simlab.analysis.compare import compare
    r = compare(game=GAME, set_a=["data.ports.havana.defense=2"], set_b=["data.ports.havana.defense=20"], games=20,
                policy_a=POLICY, policy_b=POLICY, out=tmp_path / "c", progress=False, workers=1)
    assert r["variants"]["a"]["data_edits"] == {"data.ports.havana.defense": 2}
    assert r["variants"]["b"]["data_edits"] == {"data.ports.havana.defense": 20}
    assert not any("identical" in w for w in r["warnings"])
    same = compare(game=GAME, set_a=["data.ports.havana.defense=8"], set_b=["data.ports.havana.defense=+0"], games=10,
                   policy_a=POLICY, policy_b=POLICY, out=tmp_path / "d", progress=False, workers=1)
    assert any("identical" in w for w in same["warnings"])  # 8 is Havana's value: the same pack
