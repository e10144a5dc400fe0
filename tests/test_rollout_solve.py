"""``simlab solve --method knobs|rollout|both`` (issue 29, simlab/solve/rollout.py): bad input is
refused before anything is written, and a small Mar Rojo exploit reports both methods' gains."""

from __future__ import annotations

import pytest

from simlab.errors import SpecError
from simlab.solve import solve


@pytest.mark.parametrize("kw,msg", [
    ({"method": "nope"}, "--method 'nope'"),
    ({"method": "both", "rollouts": 0}, "--rollouts must be an integer of at least 1"),
    ({"method": "rollout", "rollout_games": 1}, "--rollout-games must be an integer of at least 2"),
])
def test_bad_method_settings(tmp_path, kw, msg):
    with pytest.raises(SpecError, match=msg):
        solve("mar-rojo", exploit="nationalist=cautious", out=tmp_path / "s", progress=False, **kw)
    assert not (tmp_path / "s").exists()


def test_a_game_without_a_rollout_exploiter_says_so(tmp_path):
    with pytest.raises(SpecError, match="no rollout exploiter"):
        solve("synthetic-duel", method="rollout", out=tmp_path / "s", progress=False)
    assert not (tmp_path / "s").exists()


def test_rollout_takes_one_option_setting(tmp_path):
    with pytest.raises(SpecError, match="leave out --grid"):
        solve("mar-rojo", grid=["length=short,long"], method="both", out=tmp_path / "s", progress=False)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_exploit_reports_both_methods(tmp_path):
    res = solve("mar-rojo", scenario="cabo-de-palos", exploit="nationalist=cautious", method="both", rollouts=1,
                rollout_games=30, meta_games=60, search_games=30, confirm_games=60, generations=1, popsize=4,
                budget=20_000, seed=3, out=tmp_path / "s", progress=False, workers=1)
    ex = res["final"]["exploitability"]
    r = ex["rollout_per_side"]["republican"]
    assert r["games"] == 30 and r["rollouts"] == 1 and r["ci"][0] <= r["gain"] <= r["ci"][1]
    assert ex["per_method"]["knobs"] == max(0.0, ex["per_side"]["republican"]["gain"])
    assert ex["estimate"] == max(ex["per_method"]["knobs"], ex["per_method"]["rollout"])
    assert res["method"] == "both"


@pytest.mark.timeout(300)
def test_a_default_solve_of_a_game_without_an_exploiter_says_so(tmp_path, capsys):
    """Every solve ends with the rollout response where the game has one (method auto); elsewhere
    solve.json and the printout say "rollout: not available for GAME", and --method knobs says off."""
    import json

    from simlab.cli import main
    kw = dict(budget=20_000, meta_games=100, search_games=50, confirm_games=100, generations=1, iterations=1,
              seed=4, progress=False, workers=1)
    res = solve("synthetic-duel", out=tmp_path / "a", **kw)
    ex = res["final"]["exploitability"]
    assert (res["method"], res["method_requested"], res["rollout_games_played"]) == ("knobs", "auto", 0)
    assert ex["rollout"].startswith("not available for synthetic-duel") and "rollout_per_side" not in ex
    assert ex["estimate"] == max(0.0, *(v["gain"] for v in ex["per_side"].values()))
    off = solve("synthetic-duel", out=tmp_path / "b", method="knobs", **kw)
    assert off["final"]["exploitability"]["rollout"] == "off (--method knobs)"
    assert off["final"]["exploitability"]["estimate"] == ex["estimate"]  # the same knob solve
    assert main(["solve", "synthetic-duel", "--budget", "20000", "--meta-games", "100", "--search-games", "50",
                 "--confirm-games", "100", "--generations", "1", "--iterations", "1", "--seed", "4", "--workers", "1",
                 "--no-progress", "--out", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    assert "rollout: not available for synthetic-duel" in out
    assert json.loads((tmp_path / "c" / "solve.json").read_text())["final"]["exploitability"]["rollout"] == ex["rollout"]
