"""The solved populations each game ships (``simlab/games/<game>/solved/<scenario>/``, issue 16).

Their figures (value at equilibrium, each scripted preset's exploitability) were measured on the
rules and policies as they stood when the solve ran. ``golden.sha256`` records the game's golden
file at that time: when a change moves the game's rows on purpose (and regenerates the golden
file), the solve must be run again with the command in its README.md and the stamp renewed, or the
figures ``simlab report`` prints would describe a game that no longer exists.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import pytest

import simlab
from simlab.games import game_names, game_target, get_game
from simlab.games.policy import load_policy_book
from simlab.results import policy_exploitability, shipped_exploitability
from simlab.sweeps.spec import SweepSpec

ROOT = Path(__file__).resolve().parent.parent


def _meta(folder: Path) -> dict:
    return tomllib.loads((folder / "policies.toml").read_text())["solve"]


def _registry_solved() -> list[Path]:
    """Every solved population found through the registry: each game simlab ships, its
    ``solved/<scenario>/`` beside its ``policy_file`` (where :func:`simlab.results.solved_population`
    reads it), of that game."""
    out = set()
    for name in game_names():
        if not game_target(name).startswith("simlab."):
            continue
        pf = get_game(name).policy_file
        if pf is None:
            continue
        for p in (Path(pf).parent / "solved").glob("*/policies.toml"):
            if _meta(p.parent)["game"] == name:
                out.add(p.parent.resolve())
    return sorted(out)


SOLVED = _registry_solved()


def test_every_game_ships_a_solved_population():
    # no population lies where the registry's games cannot find it, and the shipped games have them
    on_disk = {p.parent.resolve() for p in (ROOT / "simlab" / "games").rglob("solved/*/policies.toml")}
    assert set(SOLVED) == on_disk
    assert len({_meta(f)["game"] for f in SOLVED}) >= 3


def test_a_game_that_ships_populations_ships_one_for_every_scenario_it_lists():
    """Issue 29: every scenario `simlab games` lists for a game with solved populations has one
    (each checked against its golden stamp by the tests above)."""
    have: dict[str, set[str]] = {}
    for f in SOLVED:
        have.setdefault(_meta(f)["game"], set()).add(_meta(f)["scenario"])
    for name, scenarios in have.items():
        assert set(get_game(name).scenarios) == scenarios, name


@pytest.mark.parametrize("folder", SOLVED, ids=lambda p: p.name)
def test_solved_population_is_of_the_game_as_it_plays_now(folder):
    meta = _meta(folder)
    game = get_game(meta["game"])
    assert folder.name == meta["scenario"] and game.load_scenario(meta["scenario"]).name == meta["scenario"]
    run = json.loads((folder / "solve.json").read_text())
    # solved under the game's default options: its figures apply to a default sweep
    assert run["options"] == dict(game.resolve_options({}))
    book = load_policy_book(folder / "policies.toml", base=game.policy_book())
    assert book.mixes and all(abs(sum(m.values()) - 1) < 1e-9 for m in book.mixes.values())
    digest, name = (folder / "golden.sha256").read_text().split()
    golden = ROOT / name
    assert hashlib.sha256(golden.read_bytes()).hexdigest() == digest, (
        f"{meta['game']}'s rows changed since {folder.relative_to(ROOT)} was solved: re-run the command in its "
        f"README.md and renew golden.sha256 (sha256sum {name} > {(folder / 'golden.sha256').relative_to(ROOT)})")


def test_dreadnought_ships_dogger_bank_and_jutland():
    assert {_meta(f)["scenario"] for f in SOLVED if _meta(f)["game"] == "dreadnought"} >= {"dogger-bank", "jutland"}
    game = get_game("dreadnought")
    jutland = game.load_scenario("jutland")
    shipped = shipped_exploitability(game, "jutland", dict(game.resolve_options({})))
    # every scripted preset Jutland offers has its figure; make-for-objective is not offered there
    assert {s: sorted(v) for s, v in shipped.items()} == {
        s: sorted(game.scenario_policies(jutland, s)) for s in jutland.sides}


@pytest.mark.parametrize("folder", SOLVED, ids=lambda p: p.name)
def test_solved_population_started_from_the_presets_the_scenario_offers(folder):
    """The first population and the exploitability table are the scenario's roster
    (:meth:`Game.scenario_policies`, less the caveat families): a preset the scenario withholds
    (Dreadnought's ``make-for-objective`` at Jutland) is neither played nor given a figure."""
    meta = _meta(folder)
    game = get_game(meta["game"])
    sc = game.load_scenario(meta["scenario"])
    run = json.loads((folder / "solve.json").read_text())
    recorded = tomllib.loads((folder / "policies.toml").read_text())["exploitability"]
    for side in sc.sides:
        roster = [p for p in game.scenario_policies(sc, side) if p not in run["excluded"].get(side, {})]
        assert run["iterations"][0]["population"][side] == roster
        assert sorted(recorded[side]) == sorted(roster)


def test_report_gives_a_scripted_preset_the_shipped_figure_under_default_options_only(tmp_path):
    folder = next(f for f in SOLVED if _meta(f)["game"] == "dawn-of-empire")
    recorded = tomllib.loads((folder / "policies.toml").read_text())["exploitability"]
    game = get_game("dawn-of-empire")
    shipped = shipped_exploitability(game, "standard", dict(game.resolve_options({})))
    assert shipped["us"]["hunter"]["gain"] == recorded["us"]["hunter"]["gain"]
    assert shipped_exploitability(game, "standard", dict(game.resolve_options({"turns": 9}))) == {}
    assert shipped_exploitability(game, "no-such-scenario", dict(game.resolve_options({}))) == {}
    spec = SweepSpec(name="t", game="dawn-of-empire", scenarios=["standard"], games=4, seed=1,
                     policies={"us": ["hunter"], "spain": ["raider"]}, grid={"turns": [6, 9]})
    res = simlab.sweep(spec, out=tmp_path / "s", workers=1, progress=False)
    ex = policy_exploitability(json.loads((res.path / "manifest.json").read_text()))
    by_turns = {c["options"]["turns"]: ex[c["cell"]]
                for c in json.loads((res.path / "manifest.json").read_text())["cells"]}
    assert by_turns[6]["us"]["gain"] == recorded["us"]["hunter"]["gain"]
    assert by_turns[6]["spain"]["gain"] == recorded["spain"]["raider"]["gain"]
    assert "solved/standard" in by_turns[6]["us"]["source"]
    assert by_turns[9]["us"]["source"] == by_turns[9]["spain"]["source"] == "unmeasured"


def test_meta_says_how_strong_its_policies_are(tmp_path, capsys):
    from simlab.analysis import meta
    from simlab.cli import main
    folder = next(f for f in SOLVED if _meta(f)["game"] == "mar-rojo")
    recorded = tomllib.loads((folder / "policies.toml").read_text())["exploitability"]
    run = json.loads((folder / "solve.json").read_text())
    r = meta("mar-rojo", scenario="cabo-de-palos", policies=["nationalist=cautious,convoy", "republican=aggressive"],
             games=20, seed=1, out=tmp_path / "m", workers=1, progress=False)
    sol = r["solved"]
    assert sol["value"] == run["final"]["value"] and sol["stop"] == run["stop"]["reason"]
    # only the policies played, with the figures the population recorded
    assert sol["presets"] == {
        "nationalist": {p: {**{k: recorded["nationalist"][p][k] for k in ("gain", "ci")},
                            "source": sol["presets"]["nationalist"][p]["source"]} for p in ("cautious", "convoy")},
        "republican": {"aggressive": {**{k: recorded["republican"]["aggressive"][k] for k in ("gain", "ci")},
                                      "source": sol["presets"]["republican"]["aggressive"]["source"]}}}
    # under other options the population says nothing
    assert meta("mar-rojo", scenario="cabo-de-palos", policies=["nationalist=cautious,convoy", "republican=aggressive"],
                set_=["initial_reveal=true"], games=4, seed=1, out=tmp_path / "m2", workers=1,
                progress=False)["solved"] is None
    assert main(["meta", "mar-rojo", "--scenario", "cabo-de-palos", "--policy", "nationalist=cautious,convoy",
                 "--policy", "republican=aggressive", "--games", "20", "--seed", "1", "--workers", "1",
                 "--out", str(tmp_path / "m3"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"cautious {recorded['nationalist']['cautious']['gain']:.3f}" in out and "under searched play" in out
