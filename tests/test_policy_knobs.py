"""Policies as data: families, knobs and presets (simlab.games.policy) through the sweep runner.

The test plug-in tests/knob_plugin has a family ``aim`` (knobs ``accuracy`` in [0, 1] and the
integer ``shots`` in [1, 5]) and a blue-only knob-less family ``idle``.
"""

from __future__ import annotations

import json
import math

import pytest

import simlab
from simlab.cli import main
from simlab.errors import SpecError
from simlab.games import get_game, register
from simlab.games.policy import Family, Knob, Policy, PolicyBook, Preset, fixed_book, load_policy_book
from simlab.sweeps.spec import expand, spec_from_args

register("knob-duel", "knob_plugin.game:GAME")


def _sweep(tmp_path, name="s", **kw):
    kw.setdefault("games", 400)
    return simlab.sweep(game="knob-duel", workers=1, progress=False, out=tmp_path / name, **kw)


def test_presets_resolve_to_full_knob_vectors():
    g = get_game("knob-duel")
    assert g.side_policies("red") == ("steady", "sharp")
    assert g.side_policies("blue") == ("steady", "sharp", "idle")
    p = g.resolve_policies(g.sides, {"red": "sharp"}, {"blue": {"shots": "3"}})
    assert p["red"] == Policy("sharp", "aim", (("accuracy", 0.8), ("shots", 2)))
    assert p["blue"] == Policy("steady", "aim", (("accuracy", 0.5), ("shots", 3)))
    assert isinstance(p["blue"].value("shots"), int)
    assert p["red"].vector().tolist() == [0.8, 2.0]


@pytest.mark.parametrize("settings,needle", [
    ({"red": {"accuracy": 1.5}}, "knob red.accuracy: 1.5 is outside [0.0, 1.0]"),
    ({"red": {"shots": 2.5}}, "knob red.shots: 2.5 is not a valid int"),
    ({"red": {"shots": True}}, "not a valid int"),
    ({"red": {"accuracy": "nan"}}, "not finite"),
    ({"red": {"aim": 1}}, "policy family aim has no knob 'aim' (knobs: accuracy, shots)"),
    ({"green": {"aim": 1}}, "unknown side 'green'"),
])
def test_bad_knob_settings_are_refused(settings, needle):
    g = get_game("knob-duel")
    with pytest.raises(SpecError, match=None) as e:
        g.resolve_policies(g.sides, {}, settings)
    assert needle in str(e.value)


def test_red_only_preset_and_blue_only_family():
    g = get_game("knob-duel")
    with pytest.raises(SpecError, match="unknown policy 'idle' for side red"):
        g.resolve_policies(g.sides, {"red": "idle"})
    assert g.resolve_policies(g.sides, {"blue": "idle"})["blue"] == Policy("idle", "idle", ())


def test_sweep_writes_knob_columns_and_the_manifest_records_the_vectors(tmp_path):
    res = _sweep(tmp_path, set_=["red.accuracy=0.9", "blue.shots=1"], policy=["blue=steady"])
    df = simlab.load(res.path)
    assert df["knob_red_accuracy"].unique().tolist() == [0.9]
    assert df["knob_red_shots"].unique().tolist() == [1]
    assert str(df["knob_red_shots"].dtype) == "int64"
    assert df["knob_blue_accuracy"].unique().tolist() == [0.5]
    cell = res.manifest["cells"][0]
    assert cell["policies"] == {"red": "steady", "blue": "steady"}
    assert cell["knobs"] == {"red": {"accuracy": 0.9, "shots": 1}, "blue": {"accuracy": 0.5, "shots": 1}}
    assert cell["policy_families"] == {"red": "aim", "blue": "aim"}
    # one shot each: red wins when it hits and blue misses, P = 0.9 * 0.5 = 0.45
    n = len(df)
    p = (df["winner"] == "red").mean()
    assert abs(p - 0.45) <= 4 * math.sqrt(0.45 * 0.55 / n)


def test_knob_grid_makes_cells_and_changes_play(tmp_path):
    res = _sweep(tmp_path, grid=["red.accuracy=0.1,0.9"], games=600)
    df = simlab.load(res.path)
    assert sorted(df["knob_red_accuracy"].unique().tolist()) == [0.1, 0.9]
    assert [c["params"] for c in res.manifest["cells"]] == [{"red.accuracy": 0.1}, {"red.accuracy": 0.9}]
    rate = df.groupby("knob_red_accuracy")["winner"].apply(lambda w: (w == "red").mean())
    n = 600
    for acc, want in ((0.1, 0.1 * 0.5), (0.9, 0.9 * 0.5)):
        assert abs(rate[acc] - want) <= 4 * math.sqrt(want * (1 - want) / n)


def test_seed_keys_a_knob_axis_but_not_a_fixed_knob():
    def keys(**kw):
        _, cells, _ = expand(spec_from_args("knob-duel", games=1, **kw))
        return [c.key for c in cells]
    base = keys()
    assert keys(set_=["red.accuracy=0.9"]) == base        # fixed settings leave the streams alone
    ax = keys(grid=["red.accuracy=0.5,0.9"])
    assert len(set(ax)) == 2 and base[0] not in ax
    # adding a value to the axis leaves the other cells' keys as they were
    assert keys(grid=["red.accuracy=0.5,0.9,0.7"])[:2] == ax


@pytest.mark.parametrize("argv,needle", [
    (["--set", "red.accuracy=2"], "knob red.accuracy: 2.0 is outside [0.0, 1.0]"),
    (["--grid", "red.shots=1,9"], "knob red.shots: 9 is outside [1, 5]"),
    (["--set", "purple.accuracy=0.5"], "unknown side 'purple'"),
    (["--set", "red.=0.5"], "no knob name"),
    (["--set", "red.speed=1"], "has no knob 'speed'"),
    (["--policy", "blue=idle", "--set", "blue.accuracy=0.5"], "policy family idle has no knob 'accuracy'"),
])
def test_cli_refuses_bad_knobs_with_one_line_and_exit_2(argv, needle, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["sweep", "--game", "knob-duel", "--games", "10", "--workers", "1", "--no-progress",
                 "--out", str(out)] + argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err
    assert not out.exists()


def test_experiment_file_takes_knobs_in_options_and_grid(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text('[experiment]\nname = "k"\ngame = "knob-duel"\ngames = 50\n'
                 '[options]\n"red.shots" = 3\n[grid]\n"blue.accuracy" = [0.0, 1.0]\n')
    res = simlab.sweep(f, workers=1, progress=False, out=tmp_path / "o")
    df = simlab.load(res.path)
    assert df["knob_red_shots"].unique().tolist() == [3]
    assert sorted(df["knob_blue_accuracy"].unique().tolist()) == [0.0, 1.0]
    # blue never hits at accuracy 0, so it never wins there
    assert not ((df["knob_blue_accuracy"] == 0.0) & (df["winner"] == "blue")).any()
    # TOML's dotted keys (red.shots = 3, a nested table) mean the same
    g = tmp_path / "g.toml"
    g.write_text('[experiment]\nname = "k"\ngame = "knob-duel"\ngames = 50\n'
                 '[options]\nred.shots = 3\n[grid]\nblue.accuracy = [0.0, 1.0]\n')
    res2 = simlab.sweep(g, workers=1, progress=False, out=tmp_path / "o2")
    assert simlab.load(res2.path).drop(columns="experiment").equals(df.drop(columns="experiment"))
    g.write_text('[experiment]\ngame = "knob-duel"\ngames = 5\n[options]\n"red.shots" = 3\nred.shots = 2\n')
    with pytest.raises(SpecError, match="'red.shots' is given twice"):
        simlab.sweep(g, workers=1, progress=False, out=tmp_path / "o3")


def test_games_json_lists_families_knobs_and_presets(capsys):
    assert main(["games", "--json"]) == 0
    info = {g["name"]: g for g in json.loads(capsys.readouterr().out)}
    g = info["knob-duel"]
    fam = {f["name"]: f for f in g["policy_families"]}
    assert fam["aim"]["knobs"] == [
        {"name": "accuracy", "type": "float", "default": 0.5, "lo": 0.0, "hi": 1.0,
         "doc": "probability that one shot hits (fraction)"},
        {"name": "shots", "type": "int", "default": 1, "lo": 1, "hi": 5, "doc": "shots fired per game"}]
    blue = {p["name"]: p for p in g["presets"]["blue"]}
    assert blue["sharp"] == {"name": "sharp", "family": "aim", "knobs": {"accuracy": 0.8, "shots": 2},
                             "doc": "a better shot", "exploitability": "unmeasured"}
    assert "idle" not in {p["name"] for p in g["presets"]["red"]}
    # a game with plain policy names gets knob-less families of the same names
    doe = info["dawn-of-empire"]
    assert {p["name"]: p["family"] for p in doe["presets"]["us"]}["hunter"] in {f["name"] for f in
                                                                               doe["policy_families"]}


def test_book_rejects_inconsistent_presets_and_malformed_files(tmp_path):
    fam = Family("f", (Knob("x", 0.5, 0.0, 1.0),))
    with pytest.raises(ValueError, match="unknown family g"):
        PolicyBook([fam], [Preset("p", "g")])
    with pytest.raises(ValueError, match="outside"):
        PolicyBook([fam], [Preset("p", "f", {"x": 2.0})])
    with pytest.raises(ValueError, match="default 3 outside"):
        Knob("y", 3, 0, 1, kind=int)
    bad = tmp_path / "policies.toml"
    bad.write_text("[families.f]\nknobs.x = { default = 1 }\n")
    with pytest.raises(SpecError, match="families.f.knobs.x needs default, lo, hi"):
        load_policy_book(bad)
    bad.write_text("[family.f]\n")
    with pytest.raises(SpecError, match="unknown table 'family'"):
        load_policy_book(bad)


def test_fixed_book_keeps_the_names_and_their_sides():
    b = fixed_book({"us": ["a", "r"], "spain": ["b", "r"]})
    assert b.side_presets("us") == ("a", "r")
    assert b.side_presets("spain") == ("b", "r")
    assert b.resolve("us", "r") == Policy("r", "r", ())
    with pytest.raises(SpecError, match="unknown policy 'b' for side us"):
        b.resolve("us", "b")


def test_a_policies_file_keeps_a_family_caveat_so_the_game_accepts_it(tmp_path):
    # simlab solve writes the families it used; Mar Rojo's solo-ai carries a caveat (12.1), which the
    # file must keep or --policies-file refuses it as "differs from the game's"
    from simlab.games import get_game
    from simlab.games.policy import load_policy_book, write_policy_file
    book = get_game("mar-rojo").policy_book()
    fam = book.families["solo-ai"]
    assert fam.caveat
    preset = next(p for p in book.presets.values() if p.family == "solo-ai")
    f = tmp_path / "policies.toml"
    write_policy_file(f, [fam], [preset], {}, {"game": "mar-rojo"})
    back = load_policy_book(f, book)
    assert back.families["solo-ai"] == fam
    assert book.extended(back).families["solo-ai"] == fam
