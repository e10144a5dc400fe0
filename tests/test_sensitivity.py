"""``simlab sensitivity`` (issue 30): which data-pack values decide an answer."""

from __future__ import annotations

import json
import tomllib

import pytest

from simlab.cli import main
from simlab.errors import SpecError
from simlab.games import get_game
from simlab.solve.sensitivity import select_factors

pytestmark = pytest.mark.timeout(600)

RECORDS = [
    {"table": "ports", "key": "havana", "field": "defense", "value": 8, "provenance": "provisional"},
    {"table": "ports", "key": "key-west", "field": "defense", "value": 2, "provenance": "rulebook:3.5"},
    {"table": "ports", "key": "havana", "field": "side", "value": "spain", "provenance": "rulebook:3.5"},
    {"table": "units", "key": "Texas", "field": "attack", "value": 3, "provenance": "provisional"},
    {"table": "units", "key": "Texas", "field": "fast", "value": True, "provenance": "provisional"},
]


def test_factors_from_patterns_groups_and_the_provisional_default():
    assert [f.name for f in select_factors(RECORDS, ["ports.*.defense"])] == ["ports.havana.defense",
                                                                             "ports.key-west.defense"]
    (g,) = select_factors(RECORDS, ["ports.*.defense"], group=True)
    assert g.members == (("ports", "havana", "defense"), ("ports", "key-west", "defense")) and g.base == (8.0, 2.0)
    assert g.provisional == 1
    # no pattern: every provisional numeric value, by table and field (a bool is not numeric)
    assert [(f.name, f.base) for f in select_factors(RECORDS)] == [("ports.*.defense", (8.0,)),
                                                                  ("units.*.attack", (3.0,))]
    with pytest.raises(SpecError, match="matches no numeric value"):
        select_factors(RECORDS, ["ports.*.side"])
    with pytest.raises(SpecError, match="also matched by"):
        select_factors(RECORDS, ["ports.*.defense", "ports.havana.*"])
    with pytest.raises(SpecError, match="expected TABLE.KEY.FIELD"):
        select_factors(RECORDS, ["ports.defense"])


def test_a_value_the_battle_never_reads_has_no_effect_and_one_it_reads_has(tmp_path, capsys):
    """Puerto Rico Passage (18.2.6): Indiana is not in the battle, so on common random numbers every point
    plays the same battles whatever its attack: mu* is exactly 0. Teresa fires in every battle: her attack's
    mu* is above 0 with an interval that excludes 0."""
    out = tmp_path / "s"
    rc = main(["sensitivity", "doe-battle", "--values", "units.Teresa.attack", "--values", "units.Indiana.attack",
               "--trajectories", "6", "--games", "3000", "--output", "score", "--side", "us", "--workers", "1",
               "--no-progress", "--json", "--out", str(out)])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    by = {f["name"]: f for f in res["factors"]}
    assert by["units.Indiana.attack"]["mu_star"] == 0.0 and by["units.Indiana.attack"]["sigma"] == 0.0
    assert by["units.Teresa.attack"]["mu_star_ci"][0] > 0
    assert [f["name"] for f in res["factors"]][0] == "units.Teresa.attack"
    assert res["points"] == 6 * 3 and len(res["responses"]) == 18
    # each design point is an ordinary override pack and an ordinary sweep
    pack = tomllib.loads((out / "points" / "0000.toml").read_text())
    assert pack["pack"]["game"] == get_game("doe-battle").data_schema().game
    teresa = pack["units"]["Teresa"]["attack"]
    assert isinstance(teresa, int) and 1 <= teresa <= 5  # 3 x [0.5, 1.5], rounded
    man = json.loads((out / "points" / "0000" / "manifest.json").read_text())
    assert man["status"] == "complete" and man["data"]["counts"]["user"] >= 1
    assert main(["plot", str(out)]) == 0 and (out / "plot-sensitivity.png").stat().st_size > 5000


@pytest.mark.parametrize("args, message", [
    (["--values", "units.Nobody.attack"], "matches no numeric value"),
    (["--values", "units.Teresa.attack", "--range", "2:1"], "need 0 <= LO < HI"),
    (["--values", "units.Teresa.attack", "--output", "no_such_column"], "--output 'no_such_column'"),
    (["--values", "units.Teresa.attack", "--method", "fast"], "--method 'fast'"),
    (["--values", "units.Teresa.attack", "--side", "germany"], "--side 'germany'"),
])
def test_bad_sensitivity_arguments_exit_2_with_one_line(tmp_path, capsys, args, message):
    rc = main(["sensitivity", "doe-battle", *args, "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "x").exists()


@pytest.mark.timeout(1800)  # slow: above the suite's default limit (tests/test_suite_config.py)
@pytest.mark.slow
def test_dawn_of_empire_port_defenses_ranked_and_confirmed_one_at_a_time(tmp_path, capsys):
    """Issue 30's check: rank every port's defense, then a one-at-a-time sweep of the top-ranked and the
    last-ranked port over their plausible ranges confirms the order (the top one moves the US score more).
    The US plays blockade: under the default hunter no port's defense is ever read (every mu* 0)."""
    rc = main(["sensitivity", "dawn-of-empire", "--values", "ports.*.defense", "--policy", "us=blockade",
               "--trajectories", "6",
               "--games", "400", "--output", "score", "--side", "us", "--no-progress", "--json",
               "--out", str(tmp_path / "s")])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    names = [f["name"] for f in res["factors"]]
    assert len(names) == len({r["key"] for r in get_game("dawn-of-empire").load_data().records()
                              if r["table"] == "ports" and r["field"] == "defense"})
    import simlab
    moved = {}
    for name in (names[0], names[-1]):
        _, key, _ = name.split(".")
        f = next(f for f in res["factors"] if f["name"] == name)
        base = f["base"][0]
        rng = (f.get("ranges") or [None])[0] or (max(1, round(base * 0.5)), round(base * 1.5))
        scores = []
        for v in rng:
            p = tmp_path / f"{key}-{v}.toml"
            p.write_text(f'[pack]\ngame = "dawn-of-empire"\n[ports."{key}"]\ndefense = {v}\n')
            r = simlab.sweep(game="dawn-of-empire", games=2000, seed=0, data=p, out=tmp_path / f"oat-{key}-{v}",
                             policy=["us=blockade"], progress=False)
            scores.append(float(simlab.load(r.path)["score_us"].mean()))
        moved[name] = abs(scores[1] - scores[0])
    assert moved[names[0]] > moved[names[-1]], moved
