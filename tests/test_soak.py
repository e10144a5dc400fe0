"""The soak harness: every registered game plays clean, and crashes, violations and hangs are caught."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.cli import main
from simlab.games import game_names, get_game
from simlab.rng import game_seeds
from simlab.testing.faulty import register_faulty
from simlab.testing.soak import play_soak_batch, soak, soak_cases


def test_small_soak_of_every_registered_game_is_clean():
    # CI's small version of `make soak` (100,000 games per case)
    rows = soak(3000, batch=1500, workers=2)
    assert {r.game for r in rows} == set(game_names())
    for r in rows:
        assert r.games == 3000, r.to_dict()
        assert r.ok, r.to_dict()


@pytest.mark.timeout(3600)  # slow: above the suite's default limit (tests/test_suite_config.py)
@pytest.mark.slow
def test_full_soak_of_every_registered_game_is_clean():
    for r in soak(100_000):
        assert r.games == 100_000 and r.ok, r.to_dict()


def _fault(mode: str, at: int = 1234, **extra):
    name = register_faulty()
    opts = {"fault": mode, **extra}
    case = soak_cases([name], opts)[0]
    opts["fault_seed"] = int(game_seeds(77, case.key, at, at + 1)[0])
    assert soak_cases([name], opts)[0].key == case.key  # the fault options do not move the streams
    return name, opts


@pytest.mark.parametrize("mode, field", [("kill", "crashes"), ("raise", "crashes"), ("corrupt", "violations")])
def test_soak_catches_crashes_and_violations_in_the_right_batch(mode, field):
    name, opts = _fault(mode)
    # two workers where a worker dies: the batch beside the killer is replayed, not blamed
    rows = soak(4000, [name], options=opts, seed=77, batch=1000, workers=2 if mode == "kill" else 1)
    first = rows[0]  # speed_disengage=never: its key is the one the fault seed was taken from
    played = 4000 if field == "violations" else 3000  # a crashed batch plays nothing
    assert first.games == played and getattr(first, field) == 1, first.to_dict()
    assert sum((first.crashes, first.violations, first.hangs)) == 1
    assert first.problems[0].startswith(("crash in games 1000..1999", "violation in games 1000..1999"))
    if mode == "corrupt":
        assert "winner outside -1..1" in first.problems[0]
    assert rows[1].ok and rows[1].games == 4000  # the other case never meets that seed


def test_soak_catches_a_hang_and_finishes_the_rest():
    name, opts = _fault("hang", at=10)
    rows = soak(60, [name], options=opts, seed=77, batch=20, workers=2, timeout=3)
    first = rows[0]
    assert first.hangs == 1 and first.games == 40, first.to_dict()
    assert "hang: games 0..19" in first.problems[0] and "within 3 s" in first.problems[0]
    assert rows[1].ok and rows[1].games == 60


def test_games_stopped_at_a_loop_cap_are_hangs():
    # max_rounds = 1 stops most battles at the round limit: the cap is reported, never silent
    rows = soak(500, ["doe-battle"], options={"max_rounds": 1}, batch=500, workers=1)
    for r in rows:
        assert r.hangs > 100 and "stopped at a loop cap" in r.problems[0]


def test_doe_battle_invariants_catch_a_tampered_batch():
    g = get_game("doe-battle")
    sc = g.load_scenario("puerto-rico-passage", g.load_data())
    opts = g.resolve_options({})
    b = g.play_batch(sc, opts, {"us": "line-order", "spain": "line-order"}, game_seeds(1, 2, 0, 200))
    assert g.invariant_violations(sc, b, opts) == []
    for col, value, message in [("sunk_us", 99, "more units sunk"), ("score_spain", 0.25, "half VPs"),
                                ("damage_us", -1, "negative damage"), ("turns", 5000, "max_rounds")]:
        bad = type(b)({k: np.array(v, copy=True) for k, v in b.games.items()}, b.categories, b.events)
        bad.games[col][0] = value
        assert any(message in m for m in g.invariant_violations(sc, bad, opts)), col
    lost = type(b)({k: np.array(v, copy=True) for k, v in b.games.items()}, b.categories, b.events)
    i = int(np.flatnonzero(lost.games["winner"] == sc.sides.index("us"))[0])
    lost.games["winner"][i] = sc.sides.index("spain")
    assert g.invariant_violations(sc, lost, opts), "a winner whose opponent still has ships in line"


def test_play_soak_batch_reports_the_cap_count():
    r = play_soak_batch("doe-battle", None, "puerto-rico-passage", {"max_rounds": 1}, {"us": "line-order",
                        "spain": "line-order"}, 5, 9, 0, 300)
    assert r["games"] == 300 and r["violations"] == [] and 0 < r["capped"] <= 300


def test_cli_soak_exits_1_on_problems_and_0_when_clean(capsys):
    assert main(["soak", "--games", "200", "--batch", "200", "--workers", "1", "--game", "doe-battle"]) == 0
    out = capsys.readouterr().out
    assert "doe-battle" in out and "crashes" in out
    assert main(["soak", "--games", "200", "--workers", "1", "--game", "doe-battle", "--set", "max_rounds=1",
                 "--json"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == "simlab soak: problems in 2 of 2 case(s)"
