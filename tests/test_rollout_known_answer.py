"""The rollout exploiter on a synthetic game with a known answer (issue 29): ``signal-rounds``
(tests/signal_rounds), whose best response lies outside its knob families.

Red sees a signal each round that its knob family (``habit``: aim at target 1 with probability
``aim``) ignores; the best response aims at the signal. :mod:`signal_rounds.oracle` enumerates all
256 pure strategies of red, so the best response's payoff is exact, and so is every knob setting's.
The tests check the oracle, that the framework's generic rollout path (``Game.resolve_rollout``,
``@rollout:BASE:R``, ``simlab solve --method both``) reaches the exact best-response gain within an
interval derived from the games played while the knob search cannot, that the rollout policy never
does worse than its base against a fixed opponent beyond the interval, and that a fresh ``simlab
sweep`` of the rollout policy replays the gain ``simlab solve --method rollout --json`` reported.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from simlab.cli import main
from simlab.games import get_game, register, unregister
from simlab.games.policy import RolloutPolicy
from simlab.results import load
from simlab.rng import game_seeds
from simlab.testing import check_game

NAME = "signal-rounds"
Z = 3.0  # the tolerance of a statistical check, in standard errors


@pytest.fixture(scope="module")
def game():
    register(NAME, "signal_rounds.game:GAME")
    try:
        g = get_game(NAME)
        g.ensure_kernels_fresh()
        yield g
    finally:
        unregister(NAME)


def _oracle():
    from signal_rounds import oracle
    return oracle


def _best_of_three(q: float) -> float:
    """Payoff (2 P(win) - 1) of a side winning each round with probability ``q`` (first to two)."""
    return 2.0 * q * q * (3.0 - 2.0 * q) - 1.0


def _miss_slack(rollouts: int) -> float:
    """An upper bound on what the rollout exploiter (``R`` rollouts) can lose to the exact best
    response in this game, in payoff units. With any signal-blind base red wins a round with chance
    ``q`` in [0.35, 0.6]; at every decision the candidates share each rollout's world, and aiming at
    the signal wins the round whenever the other aim does, so the other aim never totals more. The
    signal is left only when, in none of the R rollouts, the world is one where the two aims differ
    in the round (die between their chances: at least 0.5 apart) and the round decides the game (with
    chance at least min(q, 1 - q, 2 q (1 - q)) >= 0.35): each decision misses with chance at most
    (1 - 0.175)^R; three decisions a game, and a miss costs at most 2."""
    return 2.0 * 3.0 * (1.0 - 0.5 * 0.35) ** rollouts


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of the paired difference of two payoff arrays (+1/-1 per game)."""
    d = a - b
    return float(d.mean()), float(d.std(ddof=1)) / math.sqrt(d.shape[0])


def _payoff(game, pols: dict, seeds: np.ndarray) -> np.ndarray:
    w = game.play_rows(game.resolve_policies(game.sides, pols), seeds)[:, 0]
    return (w == 0).astype(np.float64) - (w == 1).astype(np.float64)


@pytest.mark.timeout(120)
def test_the_oracle_knows_the_best_response_and_that_the_family_misses_it():
    o = _oracle()
    value, plan = o.best_response(0.8)
    # aiming at the signal wins a round with 0.5 (0.8 x 0.6 + 0.2 x 0.9) + 0.5 (0.2 x 0.6 + 0.8 x 0.9) = 0.75
    assert value == pytest.approx(_best_of_three(0.75), abs=1e-12) == pytest.approx(0.6875)
    assert plan == {k: k[2] for k in plan}  # every information set: aim at the signal
    # the family: red wins a round with 0.6 - 0.25 P(guarded); best aim 0 is guarded with 0.2
    fam, aim = o.family_best(0.8)
    assert aim == 0.0 and fam == pytest.approx(_best_of_three(0.55), abs=1e-12) == pytest.approx(0.1495)
    assert o.habit_value(0.5, 0.8) == pytest.approx(_best_of_three(0.475), abs=1e-12)
    # against any blue knob: the best response wins a round with 0.75, the family's best with
    # 0.6 - 0.25 min(press, 1 - press); no knob setting reaches it
    for press in (0.0, 0.3, 0.5, 0.8, 1.0):
        br, fam = o.best_response(press)[0], o.family_best(press, 1001)[0]
        assert br == pytest.approx(_best_of_three(0.75), abs=1e-12)
        assert fam == pytest.approx(_best_of_three(0.6 - 0.25 * min(press, 1 - press)), abs=1e-12)
        assert br - fam > 0.39


@pytest.mark.timeout(300)
def test_it_follows_the_plug_in_contract_and_zero_rollouts_play_the_base(game):
    check_game(NAME, n=48, policies={"red": "@rollout:coin:4"}, workers=False)
    check_game(NAME, n=48, policies={"blue": "@rollout:even:2"}, workers=False)
    p = game.resolve_policies(game.sides, {"red": "@rollout:right"})["red"]
    assert isinstance(p, RolloutPolicy) and (p.name, p.rollouts, p.base.name) == ("@rollout:right:4", 4, "right")
    seeds = game_seeds(3, 1, 0, 500)
    base = game.play_rows(game.resolve_policies(game.sides, {"red": "right", "blue": "high"}), seeds)
    zero = game.play_rows(game.resolve_policies(game.sides, {"red": "@rollout:right:0", "blue": "high"}), seeds)
    assert np.array_equal(base[:, :4], zero[:, :4]) and zero[:, 4:].sum() == 0


@pytest.mark.timeout(300)
def test_the_rollout_policy_reaches_the_exact_best_response(game):
    """Against blue ``high`` (press 0.8) red's best response (+0.6875) is outside its family (best
    +0.1495); the rollout policy played on 20,000 paired games is within Z standard errors of it."""
    o = _oracle()
    seeds = game_seeds(29, 1, 0, 20_000)
    r = _payoff(game, {"red": "@rollout:coin:32", "blue": "high"}, seeds)
    m, se = float(r.mean()), float(r.std(ddof=1)) / math.sqrt(r.shape[0])
    exact = o.best_response(0.8)[0]
    assert exact - _miss_slack(32) - Z * se <= m <= exact + Z * se, (m, se, exact)
    assert se < 0.006


@pytest.mark.timeout(300)
@pytest.mark.parametrize("base,opponent,rollouts", [
    ("coin", "high", 1), ("right", "high", 2), ("coin", "even", 4), ("right", "even", 1)])
def test_never_worse_than_its_base(game, base, opponent, rollouts):
    """Against a fixed opponent, on the same 4,000 seeds, the rollout policy's payoff minus its base's
    is not below 0 beyond Z standard errors; and since a signal-blind base always leaves a pivotal
    round to gain, it gains by more than Z standard errors (R = 1 included)."""
    seeds = game_seeds(41, 1, 0, 4000)
    ro = _payoff(game, {"red": f"@rollout:{base}:{rollouts}", "blue": opponent}, seeds)
    b = _payoff(game, {"red": base, "blue": opponent}, seeds)
    d, se = _paired(ro, b)
    assert d >= -Z * se, (d, se)
    assert d > Z * se  # a signal-blind base always leaves something to gain here


@pytest.mark.timeout(300)
@pytest.mark.parametrize("red", ["coin", "right"])
def test_blues_rollout_never_worse_than_its_base(game, red):
    """Blue's exploiter sees nothing of the round (signal and aim resampled from red's policy)."""
    seeds = game_seeds(43, 1, 0, 4000)
    ro = _payoff(game, {"red": red, "blue": "@rollout:even:4"}, seeds)
    b = _payoff(game, {"red": red, "blue": "even"}, seeds)
    d, se = _paired(-ro, -b)  # blue's payoff
    assert d >= -Z * se, (d, se)
    o = _oracle()
    if red == "right":  # red aims at 1 nine times in ten: guarding 1 gains (exactly: press 1 v press 0.5)
        assert d > Z * se and o.habit_value(0.9, 0.5) - o.habit_value(0.9, 1.0) > 0.1
    else:  # a coin-flipping red makes every guard equal
        assert o.habit_value(0.5, 0.0) == pytest.approx(o.habit_value(0.5, 1.0), abs=1e-12)


@pytest.mark.timeout(600)
def test_solve_both_finds_the_plan_the_knob_search_cannot(game, tmp_path):
    """``simlab solve --exploit blue=high --method both``: the knob search's gain stays at the
    family's exact best (short of the best response), the rollout gain agrees with the exact best
    response's gain over red's mix within Z standard errors of its games, and the summary says the
    families miss something."""
    from simlab.solve import solve
    o = _oracle()
    res = solve(NAME, exploit="blue=high", method="both", rollouts=32, rollout_games=1500, meta_games=400,
                search_games=200, confirm_games=1500, generations=4, budget=50_000, seed=29,
                out=tmp_path / "s", progress=False, workers=1)
    f = res["final"]
    aims = {"coin": 0.5, "right": 0.9}
    v_mix = sum(w * o.habit_value(aims[p], 0.8) for p, w in f["mixes"]["red"].items())
    exact_br = o.best_response(0.8)[0] - v_mix
    exact_fam = o.family_best(0.8)[0] - v_mix
    ex = f["exploitability"]
    k = ex["per_side"]["red"]
    k_se = (k["ci"][1] - k["ci"][0]) / (2 * 1.959963984540054)
    assert k["gain"] <= exact_fam + Z * k_se  # no knob setting beats the family's exact best ...
    assert k["ci"][1] < exact_br - 0.4        # ... and the search is far short of the best response
    r = ex["rollout_per_side"]["red"]
    r_se = (r["ci"][1] - r["ci"][0]) / (2 * 1.959963984540054)
    assert r["games"] == 1500 and r["rollouts"] == 32
    assert exact_br - _miss_slack(32) - Z * r_se <= r["gain"] <= exact_br + Z * r_se, (r["gain"], exact_br)
    assert ex["estimate"] == r["gain"] and ex["per_method"] == {"knobs": max(0.0, k["gain"]), "rollout": r["gain"]}
    assert r["significant"] and len(ex["misses"]) == 1 and "the families miss something" in ex["misses"][0]
    assert res["rollout_games_played"] == sum(s["games"] for s in res["sweeps"] if s.get("rollout"))
    assert res["games_played"] <= res["budget"]


@pytest.mark.timeout(600)
def test_a_fresh_sweep_replays_the_gain_solve_reported(game, tmp_path, capsys):
    """``simlab solve --method rollout --json`` reports the rollout gain against blue ``high``; the
    same rollout policy and base in ``simlab sweep`` (on the reported seed: identical; on a fresh
    seed: within Z standard errors of the difference of the two estimates)."""
    n = 1000
    assert main(["solve", NAME, "--exploit", "blue=high", "--method", "rollout", "--rollouts", "8",
                 "--rollout-games", str(n), "--meta-games", "200", "--search-games", "100", "--confirm-games", "200",
                 "--budget", "20000", "--seed", "7", "--workers", "1", "--no-progress", "--json",
                 "--out", str(tmp_path / "s")]) == 0
    res = json.loads(capsys.readouterr().out)
    r = res["final"]["exploitability"]["rollout_per_side"]["red"]
    assert r["base"] == "coin" and res["final"]["mixes"]["red"] == {"coin": 1.0}
    se = (r["ci"][1] - r["ci"][0]) / (2 * 1.959963984540054)

    def replay(seed: int, name: str) -> tuple[float, float]:
        out = tmp_path / name
        assert main(["sweep", "--game", NAME, "--policy", "red=@rollout:coin:8,coin", "--policy", "blue=high",
                     "--games", str(n), "--seed", str(seed), "--crn", "--workers", "1", "--no-progress",
                     "--out", str(out)]) == 0
        capsys.readouterr()
        df = load(out, columns=["policy_red", "game_index", "winner"])
        pay = {p: np.where(g.sort_values("game_index")["winner"].to_numpy() == "red", 1.0, -1.0)
               for p, g in df.groupby("policy_red", observed=True)}
        return _paired(pay["@rollout:coin:8"], pay["coin"])

    same, _ = replay(r["seed"], "same")
    assert same == pytest.approx(r["gain"], abs=1e-12)
    fresh, fse = replay(r["seed"] + 1, "fresh")
    assert abs(fresh - r["gain"]) <= Z * math.hypot(se, fse), (fresh, r["gain"])
    # both agree with the exact gain of R = 8 rollouts over coin (less the slack of 8 rollouts)
    o = _oracle()
    exact = o.best_response(0.8)[0] - o.habit_value(0.5, 0.8)
    assert exact - _miss_slack(8) - Z * fse <= fresh <= exact + Z * fse


@pytest.mark.timeout(600)
def test_every_solve_ends_with_the_rollout_response(game, tmp_path, capsys, monkeypatch):
    """A default solve (method auto) of a game with an exploiter runs the knob loop, then a rollout
    response of each side against the final mix on min(100, --confirm-games) games per opponent, not
    charged to the budget; the printout gives both methods' figures and the families-miss line, and
    a sweep of the mix reports the rollout gain where it is the larger."""
    # a plug-in has no golden file, hence no game version, and its figures would read "unmeasured"
    golden = tmp_path / "golden"
    golden.mkdir()
    (golden / f"{NAME}.json").write_text("{}")
    monkeypatch.setattr("simlab.measured.GOLDEN_DIR", golden)
    assert main(["solve", NAME, "--budget", "30000", "--meta-games", "200", "--search-games", "100",
                 "--confirm-games", "60", "--generations", "2", "--iterations", "2", "--seed", "3", "--workers", "1",
                 "--no-progress", "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    res = json.loads((tmp_path / "s" / "solve.json").read_text())
    assert (res["method"], res["method_requested"]) == ("both", "auto")
    ex = res["final"]["exploitability"]
    ro = ex["rollout_per_side"]
    assert set(ro) == {"red", "blue"} and all(r["games"] == 60 and r["rollouts"] == 4 for r in ro.values())
    opp = {"red": "blue", "blue": "red"}
    assert res["rollout_games_played"] == sum(
        60 * len(res["final"]["mixes"][opp[s]]) * (2 + len([p for p in res["final"]["mixes"][s] if p != r["base"]]))
        for s, r in ro.items())
    assert res["games_played"] <= res["budget"]
    assert ex["estimate"] == max(ex["per_method"]["knobs"], ex["per_method"]["rollout"])
    # red's rollout reads the signal: far above anything its family can reach against blue's mix
    assert ro["red"]["significant"] and ro["red"]["gain"] > ex["per_method"]["knobs"] + 0.2
    assert "exploitability by method: knobs" in out and "the families miss something" in out
    assert f"rollout response of red (4 rollouts from {ro['red']['base']}" in out
    # a sweep of the mixes reports, for blue's mix, red's rollout gain (the larger lower bound)
    d = tmp_path / "s"
    assert main(["sweep", "--game", NAME, "--policy", f"red=@mix:{d}", "--policy", f"blue=@mix:{d}", "--games", "50",
                 "--workers", "1", "--no-progress", "--out", str(tmp_path / "mx"), "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)[0]["exploitability"]["blue"]
    assert fig["gain"] == pytest.approx(ro["red"]["gain"]) and "rollout response" in fig["source"]
