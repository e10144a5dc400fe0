"""Dreadnought's ``make-for-objective`` is offered only where the scenario gives the side an
objective (issue 14): an exit of its own (10.4, 10.5), named enemy ships of the victory
conditions (10.1-10.3), the bombardment of campaign scenario B (11.3). Elsewhere (Jutland and
Guam for both sides, 10.6-10.7: "determined by Point count") it would repeat
``close-and-engage`` game for game, so it is folded into it: left out of the scenario's roster
(``meta``, ``solve``, the golden cells) and refused, with one line and exit 2, when asked for.
"""

from __future__ import annotations

import numpy as np
import pytest

from simlab.cli import main
from simlab.games import get_game
from simlab.rng import game_seeds
from simlab.testing.golden import golden_cells

GAME = get_game("dreadnought")
OBJ = "make-for-objective"

#: (scenario, side) pairs that keep the preset: the rule that gives the side its objective
OFFERED = {("dogger-bank", "british"): "10.1 named", ("denmark-strait", "british"): "10.2 named",
           ("north-cape", "british"): "10.3 named", ("singora", "british"): "10.4 exit",
           ("surigao-strait", "japanese"): "10.5 exit", ("campaign", "south"): "11.3",
           ("extended-campaign", "south"): "11.3"}


def _pairs():
    for name in GAME.scenarios:
        for side in GAME.load_scenario(name).sides:
            yield name, side


def test_the_preset_is_offered_exactly_where_the_scenario_gives_the_side_an_objective():
    got = {(n, s) for n, s in _pairs() if OBJ in GAME.scenario_policies(GAME.load_scenario(n), s)}
    assert got == set(OFFERED)
    # the other presets are offered everywhere, in declaration order
    jut = GAME.load_scenario("jutland")
    assert GAME.scenario_policies(jut, "british") == ("close-and-engage", "hold-range", "break-contact",
                                                      "random-legal")
    assert GAME.scenario_policies(GAME.load_scenario("singora"), "british") == GAME.side_policies("british")


def _table(name, side, pol, n, seed):
    sc = GAME.load_scenario(name)
    other = [s for s in sc.sides if s != side][0]
    b = GAME.play_batch(sc, GAME.resolve_options({}), {side: pol, other: "close-and-engage"}, game_seeds(seed, 1, 0, n))
    return {k: np.asarray(v) for k, v in b.games.items() if not k.startswith(("policy_", "knob_"))}


@pytest.mark.parametrize("name,side", [("jutland", "british"), ("jutland", "german"), ("guam", "us"),
                                       ("guam", "japanese"), ("dogger-bank", "german"), ("singora", "japanese"),
                                       ("surigao-strait", "us")])
def test_where_it_is_withheld_it_would_only_repeat_close_and_engage(name, side):
    a, b = _table(name, side, OBJ, 24, 14), _table(name, side, "close-and-engage", 24, 14)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), (name, side, k)


@pytest.mark.parametrize("name,side", [("dogger-bank", "british"), ("singora", "british"),
                                       ("surigao-strait", "japanese")])
def test_where_it_is_offered_it_plays_another_game(name, side):
    a, b = _table(name, side, OBJ, 24, 14), _table(name, side, "close-and-engage", 24, 14)
    scores = [k for k in a if k.startswith("score_")]
    assert len(scores) == 2 and not all(np.array_equal(a[k], b[k]) for k in scores)


def test_asking_for_it_where_it_is_withheld_is_one_line_and_exit_2(tmp_path, capsys):
    rc = main(["sweep", "--game", "dreadnought", "--scenario", "dogger-bank,jutland", "--policy",
               f"british={OBJ}", "--games", "2", "--out", str(tmp_path / "s"), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1
    assert "make-for-objective is not offered to british in jutland" in err and "close-and-engage" in err
    assert not (tmp_path / "s").exists()
    # offered where the scenario names the ships to make for
    assert main(["sweep", "--game", "dreadnought", "--scenario", "dogger-bank", "--policy", f"british={OBJ}",
                 "--games", "2", "--workers", "1", "--out", str(tmp_path / "t"), "--no-progress"]) == 0


def test_rosters_leave_it_out_where_it_is_withheld(tmp_path):
    from simlab.analysis import meta
    r = meta("dreadnought", scenario="guam", policies=["us=close-and-engage,hold-range"], games=2, seed=1,
             out=tmp_path / "m", workers=1, progress=False)
    assert r["policies"]["japanese"] == ["close-and-engage", "hold-range", "break-contact", "random-legal"]
    cells = {(c["scenario"], s, p) for c in golden_cells("dreadnought") for s, p in c["policies"].items()}
    assert {(n, s) for n, s, p in cells if p == OBJ} == set(OFFERED)
