"""The plug-in contract: a fourth game in one folder (tests/ladder_race), registered by one call,
plays a sweep, ``report``, ``tune``, ``bench``, ``soak`` and ``odds`` through the public CLI.

Nothing under ``simlab/`` names the game: the framework refreshes its kernel cache, reports its
speed target and builds its odds command from what ``tests/ladder_race/game.py`` declares.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simlab.cli import main
from simlab.games import game_names, get_game, register, unregister

NAME = "ladder-race"
HERE = Path(__file__).resolve().parent


@pytest.fixture
def fourth():
    register(NAME, "ladder_race.game:GAME")
    try:
        yield get_game(NAME)
    finally:
        unregister(NAME)


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_nothing_in_simlab_names_the_fourth_game():
    src = "\n".join(p.read_text() for p in (HERE.parent / "simlab").rglob("*.py"))
    assert "ladder" not in src and NAME not in game_names()


def test_the_fourth_game_declares_its_columns_luck_and_golden_cells_in_its_folder(fourth):
    from simlab.games.schema import game_columns
    from simlab.testing import golden
    assert Path(fourth.columns_file).resolve().parent == HERE / "ladder_race" / "columns"
    assert [c.name for c in game_columns(fourth)] == ["score_{side}", "turns", "end_reason"]
    assert fourth.luck_die_pmf.sum() == pytest.approx(1.0) and fourth.luck_die_pmf[0] == 0.0
    # the golden cells come from the registry and the game's declarations alone
    cells = golden.golden_cells(NAME)
    assert [(c["scenario"], c["policies"]["red"], c["policies"]["blue"]) for c in cells] == [
        (sc, r, b) for sc in ("short", "long") for r, b in (("steady", "steady"), ("bold", "steady"), ("steady", "bold"))]
    assert all(c["options"] == {} for c in cells)  # no golden_extra_cells declared


def test_sweep_report_tune_bench_soak_and_odds(fourth, tmp_path, capsys):
    out = tmp_path / "sweep"
    code, _, err = _run(["sweep", "--game", NAME, "--games", "400", "--workers", "1", "--no-progress",
                         "--grid", "head_start=0,6", "--out", str(out), "--json"], capsys)
    assert code == 0, err
    code, text, err = _run(["report", str(out), "--json"], capsys)
    assert code == 0, err
    rows = json.loads(text)
    assert [r["params"]["head_start"] for r in rows] == [0, 6] and all(r["games"] == 400 for r in rows)
    # a head start of 6 rungs on a 12-rung ladder helps red a lot
    assert rows[1]["sides"]["red"]["win_rate"] > rows[0]["sides"]["red"]["win_rate"] + 0.2

    code, text, err = _run(["tune", NAME, "--param", "head_start", "--range", "0:4", "--games", "300",
                            "--workers", "1", "--no-refine", "--replicates", "100", "--no-progress",
                            "--out", str(tmp_path / "tune"), "--json"], capsys)
    assert code == 0, err
    tuned = json.loads(text)
    assert [p["value"] for p in tuned["points"]] == [0, 1, 2, 3, 4]

    code, text, err = _run(["bench", "--quick", "--only", NAME, "--json"], capsys)
    assert code == 0, err
    res = {r["name"]: r for r in json.loads(text)["results"]}
    first = res[f"{NAME}/short play_batch 1 core"]
    assert first["target"] == ">= 1" and first["met"] is True  # the game's own target, from bench_targets
    assert f"{NAME}/short sweep 2 workers" in res
    # the scaling ratio is the median of per-pair ratios of alternately run sweeps, here one pair
    pair = res[f"{NAME}/short sweep 2 workers"]["median"] / res[f"{NAME}/short sweep 1 worker"]["median"]
    scaling = res[f"{NAME}/short sweep scaling (2 workers over 1)"]
    assert scaling["n"] == 1 and scaling["median"] == pytest.approx(pair) and "per-pair" in scaling["detail"]
    # the local sweeps' CPU use: cores busy of the 1-worker sweep, utilisation of the 2-worker one
    busy = res[f"{NAME}/short sweep 1 worker CPU (cores busy)"]
    util = res[f"{NAME}/short sweep 2 workers CPU utilisation"]
    assert busy["unit"] == "cores" and 0 < busy["median"] <= 2.05 and busy["n"] == 1
    assert util["unit"] == "%" and 0 < util["median"] <= 100.5 and "cores busy" in util["detail"]
    # at least two of the game's smallest automatic chunks (1,000 games), so two workers can split it
    assert int(res[f"{NAME}/short sweep 1 worker"]["detail"].split()[0].replace(",", "")) >= 2_000

    code, text, err = _run(["soak", "--games", "300", "--batch", "300", "--workers", "1", "--game", NAME,
                            "--json"], capsys)
    assert code == 0, err
    soaked = json.loads(text)
    assert {r["scenario"] for r in soaked} == {"short", "long"} and all(r["games"] == 300 for r in soaked)

    code, text, err = _run(["odds", NAME, "--dice", "2", "--need", "11", "--json"], capsys)
    assert code == 0, err
    assert json.loads(text)["exact"] == "1/12"
    code, text, err = _run(["odds", NAME, "--dice", "2", "--need", "11"], capsys)
    assert code == 0 and "1/12" in text
    code, text, err = _run(["odds", NAME, "--dice", "9", "--need", "11"], capsys)
    assert code == 2 and err.count("\n") == 1 and "--dice must be 1..6" in err


def test_the_framework_keeps_the_fourth_games_kernel_cache_fresh(fourth, tmp_path, monkeypatch):
    from simlab import kernel_cache
    monkeypatch.setattr(kernel_cache, "_DONE", set())
    import ladder_race.kernels as k
    folder = kernel_cache.cache_path(k.play_races_nb)
    folder.mkdir(parents=True, exist_ok=True)
    stale = folder / "kernels.zz_stale-1.py311.nbi"
    stale.write_text("stale")
    for p in folder.glob("simlab-kernels-*.digest"):
        p.write_text("an older digest\n")
    try:
        assert fourth.ensure_kernels_fresh() is True and not stale.exists()
        stale.write_text("stale")
        monkeypatch.setattr(kernel_cache, "_DONE", set())
        assert fourth.ensure_kernels_fresh() is False and stale.exists()  # sources unchanged: kept
    finally:
        stale.unlink(missing_ok=True)
