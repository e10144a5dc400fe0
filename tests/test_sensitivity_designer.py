"""Issue 30, the designer's loop: plausible ranges in the packs, sensitivity over them, and
``sensitivity --respond`` (each design point answered by a short solve)."""

from __future__ import annotations

import json
import math
import tomllib

import pytest

from simlab.cli import main
from simlab.errors import DataPackError
from simlab.games import get_game
from simlab.solve.sensitivity import Factor, member_value

pytestmark = pytest.mark.timeout(600)

PACK_GAMES = ("dawn-of-empire", "mar-rojo", "dreadnought")


def _pack(tmp_path, body: str, name: str = "o.toml"):
    p = tmp_path / name
    p.write_text('[pack]\ngame = "dawn-of-empire"\n' + body)
    return get_game("dawn-of-empire").load_data(p)


@pytest.mark.parametrize("game", PACK_GAMES)
def test_every_provisional_numeric_value_has_a_plausible_range_that_holds_it(game):
    pack = get_game(game).load_data()
    prov = [(r["table"], r["key"], r["field"], r["value"]) for r in pack.records()
            if r["provenance"] == "provisional" and isinstance(r["value"], (int, float))
            and not isinstance(r["value"], bool)]
    assert prov
    missing = [f"{t}.{k}.{f}" for t, k, f, _ in prov if (t, k, f) not in pack.ranges]
    assert not missing, missing[:10]
    for t, k, f, v in prov:
        r = pack.ranges[(t, k, f)]
        assert r.lo <= v <= r.hi and r.note.strip(), (t, k, f)
        assert isinstance(r.lo, int) == isinstance(v, int)
    # no printed value gets a range from a rule
    printed = {(r["table"], r["key"], r["field"]) for r in pack.records() if r["provenance"].startswith(("rulebook", "example"))}
    assert not printed & set(pack.ranges)


def test_doe_port_ranges_exact():
    """ports.*.defense: scale [0.5, 2.0] within [1, 20], floor and ceiling: Havana 8 -> [4, 16], Key West 2 ->
    [1, 4]; Hampton Roads's defense is printed (18.1.6 C), so it has none."""
    r = get_game("dawn-of-empire").load_data().ranges
    assert (r[("ports", "havana", "defense")].lo, r[("ports", "havana", "defense")].hi) == (4, 16)
    assert (r[("ports", "key-west", "defense")].lo, r[("ports", "key-west", "defense")].hi) == (1, 4)
    assert ("ports", "hampton-roads", "defense") not in r
    # units.*.movement: offset [0, 1] (the least value that fits the example's moves): Teresa 6 -> [6, 7]
    assert (r[("units", "Teresa", "movement")].lo, r[("units", "Teresa", "movement")].hi) == (6, 7)


def test_override_ranges_later_rule_and_field_win(tmp_path):
    pack = _pack(tmp_path, '''
[[ranges]]
values = "ports.*.defense"
offset = [-1, 1]
note = "general"
[[ranges]]
values = "ports.c*.defense"
scale = [1.0, 1.5]
note = "specific"
[ports.havana]
defense = { value = 10, range = [5, 12], range_note = "a field's own" }
''')
    rg = pack.ranges
    assert (rg[("ports", "santiago", "defense")].lo, rg[("ports", "santiago", "defense")].hi) == (4, 6)  # 5 -1/+1
    assert (rg[("ports", "cadiz", "defense")].lo, rg[("ports", "cadiz", "defense")].hi) == (8, 12)  # 8 x [1, 1.5]
    assert (rg[("ports", "havana", "defense")].lo, rg[("ports", "havana", "defense")].hi) == (5, 12)
    assert rg[("ports", "havana", "defense")].source == "field"
    # a base pack's range is kept for a value the override changes (a user value may leave it)
    assert (rg[("ports", "mobile", "defense")].lo, rg[("ports", "mobile", "defense")].hi) == (2, 4)


@pytest.mark.parametrize("body, message", [
    ('[[ranges]]\nvalues = "ports.*.defense"\nrange = [12, 4]\nnote = "x"\n', "range = [12, 4]: its low end is above its high end"),
    ('[[ranges]]\nvalues = "ports.*.defense"\nrange = [2, 4]\nnote = "x"\n', "ports.cadiz.defense = 8 lies outside its plausible range [2, 4]"),
    ('[[ranges]]\nvalues = "ports.*.defense"\nrange = [0, 12]\nnote = "x"\n', "the bound 0 of its plausible range [0, 12]"),
    ('[[ranges]]\nvalues = "ports.*.defence"\nrange = [1, 12]\nnote = "x"\n', "matches no numeric value"),
    ('[[ranges]]\nvalues = "ports.*.defense"\nrange = [1.5, 12]\nnote = "x"\n', "give whole bounds"),
    ('[[ranges]]\nvalues = "ports.*.defense"\nrange = [1, 12]\n', "note: Field required"),
    ('[[ranges]]\nvalues = "ports.*.defense"\nrange = [1, 12]\nscale = [1, 2]\nnote = "x"\n', "exactly one of range, scale or offset"),
    ('[[ranges]]\nvalues = "ports.*.defense"\nrange = [1, 12]\nwithin = [1, 2]\nnote = "x"\n', "within clips a scale or offset"),
    ('[ports.havana]\ndefense = { value = 20, range = [4, 16], range_note = "r" }\n', "ports.havana.defense = 20 lies outside its plausible range [4, 16]"),
    ('[ports.havana]\ndefense = { value = 8, range = [4] }\n', "plausible range [4]"),
    ('[ports.havana]\ndefense = { value = 8, range = [4, 16] }\n', "needs its reasoning"),
])
def test_bad_ranges_are_refused_in_one_line(tmp_path, body, message):
    with pytest.raises(DataPackError) as e:
        _pack(tmp_path, body)
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_member_value_maps_the_design_coordinate_over_the_range():
    f = Factor("ports.havana.defense", (("ports", "havana", "defense"),), (8.0,), 1, ((4, 16),))
    # Morris with 4 levels plays u = 0, 1/3, 2/3, 1: 4, 8, 12, 16
    assert [member_value(f, 0, u, None, True) for u in (0, 1 / 3, 2 / 3, 1)] == [4, 8, 12, 16]
    assert member_value(f, 0, 0.5, (0.5, 1.5), True) == 4  # --range: a multiplier of the value
    nf = Factor("units.Teresa.attack", (("units", "Teresa", "attack"),), (3.0,), 0, (None,))
    assert [member_value(nf, 0, u, None, True) for u in (0, 1 / 3, 2 / 3, 1)] == [2, 3, 4, 5]  # 3 x (0.5 + u)
    assert math.isclose(member_value(f, 0, 0.25, None, False), 7.0)


def test_sensitivity_plays_each_value_over_its_pack_range(tmp_path, capsys):
    """doe-battle (Puerto Rico Passage): Indiana's attack is provisional (6, range [5, 7]); Teresa's is printed
    (18.2.6: 3, no range, so x0.5-1.5 and the note says so). Indiana is not in the battle: mu* exactly 0."""
    out = tmp_path / "s"
    rc = main(["sensitivity", "doe-battle", "--values", "units.Indiana.attack", "--values", "units.Teresa.attack",
               "--trajectories", "4", "--games", "200", "--workers", "1", "--no-progress", "--json", "--out", str(out)])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    assert res["range"] == "pack" and "units.Teresa.attack" in res["range_note"] and res["policies"] == "fixed"
    by = {f["name"]: f for f in res["factors"]}
    assert by["units.Indiana.attack"]["ranges"] == [[5, 7]] and by["units.Teresa.attack"]["ranges"] == [None]
    assert by["units.Indiana.attack"]["mu_star"] == 0.0 and not by["units.Indiana.attack"]["responded"]
    packs = [tomllib.loads(p.read_text())["units"] for p in sorted((out / "points").glob("*.toml"))]
    indiana = {u["Indiana"]["attack"] for u in packs}
    teresa = {u["Teresa"]["attack"] for u in packs}
    # Morris's 4 levels u = 0, 1/3, 2/3, 1: Indiana 5 + 2u rounded; Teresa 3 (0.5 + u) rounded, halves up
    assert indiana <= {5, 6, 7} and len(indiana) >= 2 and teresa <= {2, 3, 4, 5} and len(teresa) >= 2
    assert res["games_played"] == res["points"] * 200


def test_respond_answers_each_point_with_a_solve_and_plays_its_mixes(tmp_path, capsys):
    """--respond on Dawn of Empire with a tiny budget: every point's sweep plays both sides' @mix of that
    point's solve, the response is that sweep's figure, and every figure is marked responded."""
    import simlab
    out = tmp_path / "r"
    rc = main(["sensitivity", "dawn-of-empire", "--values", "ports.havana.defense", "--trajectories", "2",
               "--games", "60", "--output", "score", "--side", "us", "--workers", "1", "--no-progress", "--json",
               "--respond", "--respond-budget", "5000", "--respond-meta-games", "10", "--respond-search-games", "5",
               "--respond-confirm-games", "20", "--respond-generations", "1", "--respond-iterations", "1",
               "--out", str(out)])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    assert res["policies"] == "responded" and all(f["responded"] for f in res["factors"])
    assert res["respond"]["settings"]["budget"] == 5000 and len(res["respond"]["points"]) == res["points"] == 4
    solved = 0
    keys = set()
    for i, y in enumerate(res["responses"]):
        man = json.loads((out / "points" / f"{i:04d}" / "manifest.json").read_text())
        keys.add((man["master_seed"], man["cells"][0]["seed_key"]))
        assert all(p.startswith("@mix:") and p.endswith(f"{i:04d}-respond") for p in man["cells"][0]["policies"].values())
        df = simlab.load(out / "points" / f"{i:04d}")
        assert len(df) == 60 and y == pytest.approx(float(df["score_us"].mean()), abs=1e-12)
        pt = res["respond"]["points"][i]
        s = json.loads((out / "points" / f"{i:04d}-respond" / "solve.json").read_text())
        assert s["games_played"] == pt["games_played"] <= 5000 and s["final"]["value"] == pt["value"]
        solved += pt["games_played"]
    assert res["games_played"] == solved + 4 * 60
    assert len(keys) == 1  # common random numbers: every point's games roll the same dice


def test_respond_budget_too_small_is_one_line_and_writes_nothing(tmp_path, capsys):
    rc = main(["sensitivity", "dawn-of-empire", "--values", "ports.havana.defense", "--trajectories", "2",
               "--respond", "--respond-budget", "10", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc == 2 and "--budget 10 is too small" in err and err.count("\n") == 1, err
    assert not (tmp_path / "x").exists()


def test_data_show_lists_each_plausible_range():
    import simlab
    d = simlab.data_show("dawn-of-empire")
    havana = next(r for r in d["ranges"] if (r["table"], r["key"], r["field"]) == ("ports", "havana", "defense"))
    assert (havana["lo"], havana["hi"], havana["source"]) == (4, 16, "ports.*.defense")
    assert len(d["ranges"]) == len(get_game("dawn-of-empire").load_data().ranges)
