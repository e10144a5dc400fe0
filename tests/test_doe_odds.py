"""``simlab odds doe-battle``: exact odds against an independent brute-force oracle and hand-derived
values, Monte Carlo against exact, the pure-Python reference against the kernel, the 18.2.6 facts,
--rounds and speed-disengagement semantics, and bad input.

The oracle (:mod:`simlab.games.doe.oracle`) shares no code with the engine: it enumerates every
die one at a time over full battle states and follows whole battles round by round.
"""

import dataclasses
import json
import random
from fractions import Fraction

import icepool
import numpy as np
import pytest

import simlab
from simlab.cli import main
from simlab.errors import InputError, SpecError
from simlab.games import get_game
from simlab.games.doe import odds as O
from simlab.games.doe.battle import parse_battle, run_battles
from simlab.games.doe.oracle import battle_oracle
from simlab.games.doe.reference import play_reference
from simlab.rng import game_seeds

GAME = get_game("doe-battle")
EXACT_TOL = 1e-10


# --------------------------------------------------------------------------- helpers
def battle(units0, units1, stars=(0, 0)):
    """A BattleSetup from ``(attack, defense, movement, damage)`` tuples (sides 'a' and 'b')."""
    def side(units, tag, st):
        return {"leader_stars": st, "units": [
            {"name": f"{tag}{i}", "type": "CA", "attack": a, "defense": d, "movement": m, "damage": g}
            for i, (a, d, m, g) in enumerate(units)]}
    # a battle file refuses defense 0 (Rule 3.4.1: printed unit values are at least 1), but the kernels
    # and the oracle handle it, and the hand-derived duels below use it for its short arithmetic: such
    # units are parsed with defense 1 and given their defense afterwards
    lift = [[(a, max(d, 1), m, g) for a, d, m, g in units] for units in (units0, units1)]
    s = parse_battle({"a": side(lift[0], "a", stars[0]), "b": side(lift[1], "b", stars[1])}, None)
    want = np.asarray([d for units in (units0, units1) for _a, d, _m, _g in units], dtype=s.defense.dtype)
    return s if np.array_equal(want, s.defense) else dataclasses.replace(s, defense=want)


def assert_matches_oracle(r: O.BattleOdds, o: dict, tol: float = EXACT_TOL) -> None:
    """Every quantity of an engine result equals the oracle's within ``tol``."""
    pairs = [("p_win", r.p_win, o["p_win"]), ("p_win_speed", r.win_speed, o["p_win_speed"]),
             ("p_mutual", [r.mutual], [o["p_mutual"]]), ("p_unfinished", [r.unfinished], [o["p_unfinished"]]),
             ("mean_rounds", [r.mean_rounds], [o["mean_rounds"]]), ("p_sunk", r.p_sunk, o["p_sunk"]),
             ("p_disabled", r.p_disabled, o["p_disabled"]), ("p_escaped", r.p_escaped, o["p_escaped"]),
             ("mean_damage", r.mean_damage, o["mean_damage"]),
             ("p_leader_killed", r.p_leader_killed, o["p_leader_killed"])]
    for name, got, want in pairs:
        got, want = np.asarray(got, float), np.asarray(want, float)
        assert got.shape == want.shape, name
        assert np.all(np.abs(got - want) <= tol), f"{name}: engine {got} oracle {want}"


def exact(units0, units1, stars=(0, 0), rounds=None, speed=False, max_rounds=1000):
    s = battle(units0, units1, stars)
    limit = max_rounds if rounds is None else min(rounds, max_rounds)
    return O.exact_odds(s, limit, int(speed))


def test_assert_matches_oracle_can_fail():
    units0, units1 = [(1, 0, 4, 0)], [(1, 0, 4, 0)]
    r = exact(units0, units1, rounds=1)
    o = battle_oracle(units0, units1, rounds=1)
    assert_matches_oracle(r, o)
    for key, bump in (("p_win", [1e-6, 0.0]), ("p_sunk", [0.0, 1e-6]), ("mean_damage", [1e-6, 0.0]),
                      ("mean_rounds", 1e-6), ("p_leader_killed", [0.0, 1e-6])):
        bad = dict(o)
        bad[key] = (np.asarray(o[key], float) + np.asarray(bump)).tolist() if isinstance(bump, list) else o[key] + bump
        with pytest.raises(AssertionError):
            assert_matches_oracle(r, bad)


def test_battle_helper_builds_what_it_is_given():
    s = battle([(2, 3, 4, 1)], [(1, 2, 5, 0), (0, 1, 6, 0)], stars=(1, 0))
    assert (s.n0, s.n1, s.stars) == (1, 2, (1, 0))
    assert s.attack.tolist() == [2, 1, 0] and s.damage.tolist() == [1, 0, 0]
    assert s.defense.tolist() == [3, 2, 1] and s.movement.tolist() == [4, 5, 6]
    assert s.unit_side.tolist() == [0, 1, 1] and s.names == ("a0", "b0", "b1")


# --------------------------------------------------------------------------- hand-derived values
def test_one_die_duel_by_hand():
    # Each side: one unit, attack 1, defense 0: a 6 sinks, a 5 disables (Rule 8.3.2). A round
    # changes nothing with probability (4/6)^2 = 4/9, so a side wins with (2/9) / (5/9) = 2/5, both
    # lines empty together with (1/9) / (5/9) = 1/5, a battle lasts 9/5 rounds, a unit sinks with
    # (1/6) / (5/9) = 3/10 and takes 7/12 damage points a round on average.
    units = [(1, 0, 4, 0)]
    want = {"p_win": [0.4, 0.4], "p_win_speed": [0, 0], "p_mutual": 0.2, "p_unfinished": 0.0,
            "mean_rounds": 1.8, "p_sunk": [0.3, 0.3], "p_disabled": [0.3, 0.3], "p_escaped": [0, 0],
            "mean_damage": [1.8 * 7 / 12] * 2, "p_leader_killed": [0, 0]}
    assert_matches_oracle(exact(units, units), want)
    one = exact(units, units, rounds=1)
    assert one.p_win == pytest.approx((2 / 9, 2 / 9), abs=1e-15)
    assert one.mutual == pytest.approx(1 / 9, abs=1e-15) and one.unfinished == pytest.approx(4 / 9, abs=1e-15)


def test_oracle_agrees_with_hand_values():
    # the oracle itself must reproduce the hand-derived duel (it is a test helper: it can fail)
    o = battle_oracle([(1, 0, 4, 0)], [(1, 0, 4, 0)])
    assert o["p_win"] == pytest.approx([0.4, 0.4], abs=1e-12)
    assert o["mean_rounds"] == pytest.approx(1.8, abs=1e-12)
    o1 = battle_oracle([(1, 0, 4, 0)], [(1, 0, 4, 0)], rounds=1)
    assert o1["p_unfinished"] == pytest.approx(4 / 9, abs=1e-15)
    # a leader on a ship that takes damage but does not sink dies on a 6 (Rule 6.3): defense 6,
    # one die at it: P(damaged) = 1/6, never sunk, so P(killed) = 1/36
    o2 = battle_oracle([(1, 6, 4, 0)], [(1, 6, 4, 0)], stars=(1, 0), rounds=1)
    assert o2["p_leader_killed"][0] == pytest.approx(1 / 36, abs=1e-15)


def test_damage_tables_match_icepool():
    tno5, tall = O.damage_tables(5, 12)
    # one die: 1-4 nothing, 5 disables, 6 then a damage die; an icepool vector (damage, fives)
    die = icepool.Die({icepool.Vector((0, 0)): 24, icepool.Vector((0, 1)): 6,
                       **{icepool.Vector((k, 0)): 1 for k in range(1, 7)}})
    for n in range(6):
        pool = n @ die if n else icepool.Die([icepool.Vector((0, 0))])
        den = Fraction(pool.denominator())
        for x in range(13):
            p_all = sum(Fraction(q) for o, q in pool.items() if o[0] == x) / den
            p_no5 = sum(Fraction(q) for o, q in pool.items() if o[0] == x and o[1] == 0) / den
            assert tall[n, x] == pytest.approx(float(p_all), abs=1e-15), (n, x)
            assert tno5[n, x] == pytest.approx(float(p_no5), abs=1e-15), (n, x)


# --------------------------------------------------------------------------- single rounds vs the oracle
@pytest.mark.parametrize("units0,units1,stars,speed", [
    # 2 v 3 with leaders and overlap; a unit that starts damaged; a 2-star leader
    ([(2, 2, 4, 1), (1, 2, 5, 0)], [(1, 3, 4, 0), (2, 1, 3, 0), (1, 1, 6, 0)], (1, 2), False),
    ([(2, 2, 4, 1), (1, 2, 5, 0)], [(1, 3, 4, 0), (2, 1, 3, 0), (1, 1, 6, 0)], (1, 2), True),
    # 1 v 2 with a leader: the single unit faces both, its stars beyond the line are lost
    ([(2, 3, 4, 0)], [(1, 2, 5, 1), (2, 1, 3, 0)], (3, 0), False),
    # 3 v 1: overlaps repeat on the one opposing unit; attack 0 keeps 0 dice
    ([(1, 1, 4, 0), (0, 2, 4, 0), (2, 1, 4, 1)], [(3, 4, 6, 2)], (0, 1), True),
])
def test_single_round_matches_oracle(units0, units1, stars, speed):
    r = exact(units0, units1, stars, rounds=1, speed=speed)
    assert r.detail["engine"].startswith("single round")
    assert_matches_oracle(r, battle_oracle(units0, units1, stars, rounds=1, speed=speed))


def test_single_round_engine_agrees_with_the_chain():
    # the per-unit factorisation and the chain propagated for one round are different code
    s = battle([(2, 2, 4, 1), (1, 2, 5, 0)], [(1, 3, 4, 0), (2, 1, 3, 0), (1, 1, 6, 0)], (1, 2))
    for speed in (0, 1):
        plan = O.plan_exact(s, 1, speed)
        assert plan.rounds == 1
        a, b = O.solve_plan(plan), O.single_round(s, speed)
        assert_matches_oracle(a, {"p_win": b.p_win, "p_win_speed": b.win_speed, "p_mutual": b.mutual,
                                  "p_unfinished": b.unfinished, "mean_rounds": b.mean_rounds, "p_sunk": b.p_sunk,
                                  "p_disabled": b.p_disabled, "p_escaped": b.p_escaped,
                                  "mean_damage": b.mean_damage, "p_leader_killed": b.p_leader_killed})


# --------------------------------------------------------------------------- whole battles vs the oracle
@pytest.mark.parametrize("units0,units1,stars,speed,rounds", [
    ([(2, 2, 4, 0)], [(1, 3, 4, 0)], (1, 0), False, None),                              # 1 v 1, leader
    ([(2, 2, 4, 0), (1, 1, 5, 0)], [(1, 3, 4, 0)], (1, 0), False, None),                # 2 v 1
    ([(2, 2, 4, 0), (1, 2, 5, 0)], [(1, 2, 4, 0), (2, 1, 6, 0)], (1, 1), True, None),   # 2 v 2, speed
    ([(2, 1, 4, 0), (1, 2, 5, 1)], [(1, 2, 4, 0), (2, 1, 3, 0)], (0, 2), False, None),  # 2 v 2, damaged
    ([(2, 2, 4, 0), (1, 2, 5, 0)], [(1, 2, 4, 0), (2, 1, 6, 0)], (1, 1), True, 3),      # --rounds 3
    ([(1, 2, 4, 0), (0, 2, 5, 0)], [(0, 2, 4, 0), (0, 1, 6, 0)], (0, 1), False, 40),    # battles that stick
])
def test_whole_battle_matches_oracle(units0, units1, stars, speed, rounds):
    r = exact(units0, units1, stars, rounds=rounds, speed=speed)
    o = battle_oracle(units0, units1, stars, rounds=rounds, speed=speed, eps=1e-15)
    assert_matches_oracle(r, o, 1e-9)
    total = sum(r.p_win) + r.mutual + r.unfinished
    assert total == pytest.approx(1.0, abs=1e-12)
    assert np.all(r.p_sunk + r.p_disabled + r.p_escaped <= 1 + 1e-12)


def test_random_small_battles_match_oracle():
    rng = random.Random(2026)
    for _ in range(6):
        sizes = rng.choice([(1, 1), (1, 2), (2, 1)])
        sides = [[(rng.randint(0, 2), rng.randint(0, 2), rng.randint(1, 6), 0) for _ in range(k)] for k in sizes]
        sides = [[(a, d, m, rng.randint(0, d)) for a, d, m, _ in side] for side in sides]
        if all(u[0] == 0 for side in sides for u in side):
            continue
        stars = (rng.randint(0, 2), rng.randint(0, 2))
        speed = rng.random() < 0.5
        rounds = rng.choice([None, 1, 2, 4])
        r = exact(sides[0], sides[1], stars, rounds=rounds, speed=speed)
        assert_matches_oracle(r, battle_oracle(sides[0], sides[1], stars, rounds=rounds, speed=speed, eps=1e-15),
                              1e-9)


def test_stuck_battle_runs_to_max_rounds():
    # neither side can ever roll a die: every battle is a draw after max_rounds (ruling B9)
    s = battle([(0, 2, 4, 0)], [(0, 2, 4, 0)])
    res = O.battle_odds(s, method="exact", max_rounds=7)
    assert res["p_neither"] == 1.0 and res["p_unfinished"] == 1.0 and res["mean_rounds"] == pytest.approx(7)
    assert all(u["p_in_line"] == 1.0 for u in res["units"])


# --------------------------------------------------------------------------- --rounds semantics
def test_rounds_limit_counts_battles_still_going_as_neither():
    units0, units1, stars = [(2, 3, 4, 0), (1, 2, 5, 0)], [(2, 2, 4, 0), (1, 3, 3, 0)], (1, 0)
    prev_unfinished = 1.0
    for k in (1, 2, 3):
        r = exact(units0, units1, stars, rounds=k)
        assert r.unfinished > 0 and r.unfinished < prev_unfinished
        assert r.mean_rounds <= k
        prev_unfinished = r.unfinished
    whole = exact(units0, units1, stars)
    assert whole.unfinished == 0.0 and whole.detail["tail_bound"] < 1e-12
    # a limit far beyond any plausible length gives the whole-battle answer
    far = exact(units0, units1, stars, rounds=200)
    assert far.p_win == pytest.approx(whole.p_win, abs=1e-12)
    # max_rounds is the same limit as --rounds: the smaller one applies
    s = battle(units0, units1, stars)
    a = O.battle_odds(s, rounds=5, max_rounds=2, method="exact")
    b = O.battle_odds(s, rounds=2, method="exact")
    assert a["sides"]["a"]["p_win"] == b["sides"]["a"]["p_win"] and a["p_unfinished"] == b["p_unfinished"]


# --------------------------------------------------------------------------- speed disengagement
def test_faster_squadron_leaves_before_battle():
    # Rule 10.2.1, ruling B8: every unit of side a is faster than every unit of side b
    s = battle([(3, 3, 6, 0), (2, 2, 5, 0)], [(3, 3, 4, 0), (1, 1, 3, 0)], stars=(2, 0))
    for method in ("auto", "exact"):
        res = O.battle_odds(s, method=method, speed_mode=1)
        assert res["method"] == "exact"
        assert res["sides"]["b"]["p_win"] == 1.0 and res["sides"]["b"]["p_win_speed"] == 1.0
        assert res["sides"]["a"]["p_win"] == 0.0 and res["mean_rounds"] == 0.0
        assert [u["p_escaped"] for u in res["units"]] == [1.0, 1.0, 0.0, 0.0]
        assert res["sides"]["a"]["p_leader_killed"] == 0.0
    mc = O.battle_odds(s, method="monte_carlo", games=500, speed_mode=1)
    assert mc["sides"]["b"]["p_win"] == 1.0 and mc["mean_rounds"] == 0.0
    # without the option nobody leaves
    assert O.battle_odds(s, method="exact")["sides"]["a"]["p_win_speed"] == 0.0


def test_damage_slows_a_unit_below_the_opposing_speed():
    # Rule 8.3.2.3 B: movement less damage. Undamaged, a (5 MP) is faster than b (4 MP) and leaves
    # before battle; with 1 damage point it is not (4 = 4) and the battle is fought, after which
    # whichever side is faster than every opposing unit in line leaves (Rule 10.2.2).
    fresh = exact([(1, 3, 5, 0)], [(1, 3, 4, 0)], rounds=1, speed=True)
    assert fresh.win_speed == (0.0, 1.0) and fresh.mean_rounds == 0.0
    units0, units1 = [(1, 3, 5, 1)], [(1, 3, 4, 0)]
    r = exact(units0, units1, rounds=1, speed=True)
    assert r.mean_rounds == 1.0 and r.win_speed[0] > 0 and r.win_speed[1] > 0
    assert_matches_oracle(r, battle_oracle(units0, units1, rounds=1, speed=True))
    r2 = exact([(1, 3, 5, 0), (1, 3, 5, 0)], [(1, 3, 4, 0), (1, 3, 6, 1)], rounds=1, speed=True)
    assert r2.p_escaped[0] > 0 and r2.win_speed[1] > 0


# --------------------------------------------------------------------------- the 18.2.6 battle
def _icepool_unit(dice: int, room: int):
    die = icepool.Die({icepool.Vector((0, 0)): 24, icepool.Vector((0, 1)): 6,
                       **{icepool.Vector((k, 0)): 1 for k in range(1, 7)}})
    pool = dice @ die
    den = pool.denominator()
    sunk = sum(q for o, q in pool.items() if o[0] > room) / den
    disabled = sum(q for o, q in pool.items() if o[0] <= room and o[1] > 0) / den
    return sunk, disabled


def test_icepool_unit_helper():
    # one die at a unit that sinks on any damage: a 6 sinks (1/6), a 5 disables (1/6)
    assert _icepool_unit(1, 0) == pytest.approx((1 / 6, 1 / 6))
    # two dice, room 6: a single 6 cannot sink it; two 6s sink it when their damage dice total 7+
    # (21 of the 36 damage pairs total 7 or more); disabled: a 5 with a miss, a 6 or another 5
    sunk, disabled = _icepool_unit(2, 6)
    assert sunk == pytest.approx((1 / 36) * (21 / 36), abs=1e-15)
    assert disabled == pytest.approx(2 * (1 / 6) * (4 / 6) + 2 * (1 / 6) * (1 / 6) + (1 / 6) ** 2, abs=1e-15)


def test_puerto_rico_passage_round_one_facts():
    sc = GAME.load_scenario("puerto-rico-passage")
    s = sc.payload
    res = O.battle_odds(s, rounds=1)
    assert res["method"] == "exact" and res["chosen_automatically"]
    units = {u["name"]: u for u in res["units"]}
    # 18.2.6 A (ruling D1): Massachusetts 6 + Schley's star + Columbia's overlap die = 8 dice at Teresa
    # 18.2.6 B (D2): Brooklyn 3 + star + Minneapolis 1 = 5 at Vizcaya; Texas 3 + Montgomery 1 = 4 at
    # Oquendo (ruling B1: the 7th US unit faces the 3rd Spanish); New Orleans 1 at Galicia;
    # Teresa 3 + Cervera's star at Massachusetts, Vizcaya 3 + star at Brooklyn, Oquendo 2, Galicia 1
    dice = {"Teresa": 8, "Vizcaya": 5, "Oquendo": 4, "Galicia": 1, "Massachusetts": 4, "Brooklyn": 4,
            "Texas": 2, "New Orleans": 1, "Columbia": 0, "Minneapolis": 0, "Montgomery": 0}
    for name, n in dice.items():
        assert units[name]["mean_damage"] == pytest.approx(n * 7 / 12, abs=1e-12), name
    for name in ("Teresa", "Vizcaya", "Oquendo", "Massachusetts"):
        k = int(s.names.index(name))
        sunk, disabled = _icepool_unit(dice[name], int(s.defense[k]) - int(s.damage[k]))
        assert units[name]["p_sunk"] == pytest.approx(sunk, abs=1e-12), name
        assert units[name]["p_disabled"] == pytest.approx(disabled, abs=1e-12), name
    for name in ("Columbia", "Minneapolis", "Montgomery"):
        assert units[name]["p_in_line"] == 1.0
    # Spain's line empties only if all four leave it; the US's cannot (three units get no dice)
    assert res["sides"]["spain"]["p_win"] == 0.0 and res["p_mutual"] == 0.0
    assert res["sides"]["us"]["p_win"] == pytest.approx(
        np.prod([units[n]["p_sunk"] + units[n]["p_disabled"] for n in ("Teresa", "Vizcaya", "Oquendo", "Galicia")]),
        abs=1e-12)


def test_puerto_rico_passage_whole_battle_is_monte_carlo_when_automatic():
    res = GAME.odds("puerto-rico-passage", games=20_000, seed=3)
    assert res["method"] == "monte_carlo" and res["games"] == 20_000
    us = res["sides"]["us"]
    k, n, z = round(us["p_win"] * 20_000), 20_000, 1.959963984540054
    assert us["p_win"] * n == pytest.approx(k, abs=1e-6)
    # the interval is the Wilson score interval of the count (closed form)
    centre, half = (k + z * z / 2) / (n + z * z), z * np.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    assert us["ci"] == pytest.approx([centre - half, centre + half], abs=1e-9)
    # and the estimate agrees with the pure-Python reference resolver's, within 4 standard errors
    s = GAME.load_scenario("puerto-rico-passage").payload
    units = list(zip(s.attack.tolist(), s.defense.tolist(), s.movement.tolist(), s.damage.tolist(), strict=True))
    ref = play_reference(units, s.n0, s.stars, range(50_000, 54_000))
    p_ref = np.mean([r.winner == s.sides.index("us") for r in ref])
    p = (p_ref * 4000 + us["p_win"] * n) / (4000 + n)
    assert abs(p_ref - us["p_win"]) < 4 * np.sqrt(max(p * (1 - p), 1 / 4000) * (1 / 4000 + 1 / n))
    assert res["data"]["values_used"] > 0 and res["data"]["counts"]["provisional"] > 0
    with pytest.raises(O.TooBigError, match="out of reach"):
        GAME.odds("puerto-rico-passage", method="exact")


# --------------------------------------------------------------------------- Monte Carlo vs exact
@pytest.mark.parametrize("speed,rounds", [(0, None), (1, None), (0, 2)])
def test_monte_carlo_agrees_with_exact(speed, rounds):
    s = battle([(2, 3, 4, 0), (1, 2, 6, 0)], [(2, 2, 5, 0), (1, 3, 4, 1)], stars=(1, 1))
    n = 200_000
    ex = O.battle_odds(s, method="exact", rounds=rounds, speed_mode=speed)
    mc = O.battle_odds(s, method="monte_carlo", games=n, seed=11, rounds=rounds, speed_mode=speed)
    assert mc["method"] == "monte_carlo" and mc["games"] == n

    def close(p_hat, p, what):
        tol = 4 * np.sqrt(max(p * (1 - p), 1 / n) / n)
        assert abs(p_hat - p) < tol, f"{what}: MC {p_hat} exact {p} (tolerance {tol:.2g})"

    for side in ("a", "b"):
        close(mc["sides"][side]["p_win"], ex["sides"][side]["p_win"], f"p_win {side}")
        close(mc["sides"][side]["p_win_speed"], ex["sides"][side]["p_win_speed"], f"p_win_speed {side}")
        close(mc["sides"][side]["p_leader_killed"], ex["sides"][side]["p_leader_killed"], f"leader {side}")
    close(mc["p_neither"], ex["p_neither"], "p_neither")
    for u_mc, u_ex in zip(mc["units"], ex["units"], strict=True):
        for k in ("p_sunk", "p_disabled", "p_escaped"):
            close(u_mc[k], u_ex[k], f"{u_ex['name']} {k}")
    # means: tolerance from the sample standard deviation of the same battles
    raw = run_battles(s, game_seeds(11, 0, 0, n), rounds or 1000, speed)
    taken = raw["damage"].astype(float) - s.damage[None, :]
    for i, u_ex in enumerate(ex["units"]):
        tol = 4 * taken[:, i].std() / np.sqrt(n) + 1e-12
        assert abs(mc["units"][i]["mean_damage"] - u_ex["mean_damage"]) < tol, u_ex["name"]
    tol = 4 * raw["rounds"].std() / np.sqrt(n)
    assert abs(mc["mean_rounds"] - ex["mean_rounds"]) < tol
    assert mc["mean_rounds"] == pytest.approx(raw["rounds"].mean())


@pytest.mark.parametrize("speed", [0, 1])
def test_whole_3v3_chain_agrees_with_the_kernel(speed):
    # the largest chain of the suite (tens of thousands of states) against 200,000 kernel battles
    s = parse_battle(O.BENCH_3V3, GAME.load_data().view())
    ex = O.battle_odds(s, speed_mode=speed)
    assert ex["method"] == "exact" and ex["states"] > 10_000 and ex["tail_bound"] < 1e-12
    n = 200_000
    mc = O.battle_odds(s, method="monte_carlo", games=n, seed=5, speed_mode=speed)
    checks = [(mc["sides"][k]["p_win"], ex["sides"][k]["p_win"]) for k in ("spain", "us")]
    checks += [(mc["sides"][k]["p_leader_killed"], ex["sides"][k]["p_leader_killed"]) for k in ("spain", "us")]
    checks += [(mc["p_neither"], ex["p_neither"])]
    checks += [(a[k], b[k]) for a, b in zip(mc["units"], ex["units"], strict=True)
               for k in ("p_sunk", "p_disabled", "p_escaped")]
    for p_hat, p in checks:
        assert abs(p_hat - p) < 4 * np.sqrt(max(p * (1 - p), 1 / n) / n), (p_hat, p)
    assert sum(v["p_win"] for v in ex["sides"].values()) + ex["p_neither"] == pytest.approx(1.0, abs=1e-12)


def test_monte_carlo_does_not_depend_on_chunk_size():
    s = battle([(2, 3, 4, 0)], [(2, 2, 5, 0)], stars=(1, 0))
    a = O.monte_carlo_odds(s, 1000, 5, 1000, 0, chunk=1000)
    b = O.monte_carlo_odds(s, 1000, 5, 1000, 0, chunk=7)
    assert a.p_win == b.p_win and np.array_equal(a.mean_damage, b.mean_damage)
    c = O.monte_carlo_odds(s, 1000, 6, 1000, 0)
    assert c.p_win != a.p_win


# --------------------------------------------------------------------------- the pure-Python reference
@pytest.mark.parametrize("scenario,speed", [("puerto-rico-passage", False), ("small", True)])
def test_reference_resolver_agrees_with_kernel(scenario, speed):
    if scenario == "small":
        s = battle([(2, 3, 6, 0), (1, 2, 4, 0)], [(2, 2, 5, 0), (1, 3, 4, 1)], stars=(1, 1))
    else:
        s = GAME.load_scenario(scenario).payload
    units = list(zip(s.attack.tolist(), s.defense.tolist(), s.movement.tolist(), s.damage.tolist(), strict=True))
    n_ref, n_k = 6_000, 200_000
    ref = play_reference(units, s.n0, s.stars, range(n_ref), speed=speed)
    raw = run_battles(s, game_seeds(1, 0, 0, n_k), 1000, int(speed))

    def same(p_ref, p_k, what):
        p = (p_ref * n_ref + p_k * n_k) / (n_ref + n_k)
        tol = 4 * np.sqrt(max(p * (1 - p), 1 / n_ref) * (1 / n_ref + 1 / n_k))
        assert abs(p_ref - p_k) < tol, f"{what}: reference {p_ref} kernel {p_k}"

    for w in (-1, 0, 1):
        same(np.mean([r.winner == w for r in ref]), np.mean(raw["winner"] == w), f"winner {w}")
    for reason in range(4):
        same(np.mean([r.reason == reason for r in ref]), np.mean(raw["reason"] == reason), f"reason {reason}")
    for u in range(s.n):
        for status in range(4):
            same(np.mean([r.status[u] == status for r in ref]), np.mean(raw["status"][:, u] == status),
                 f"unit {u} status {status}")
    for t in range(2):
        for fate in range(4):
            same(np.mean([r.leader[t] == fate for r in ref]), np.mean(raw["leader"][:, t] == fate),
                 f"leader {t} fate {fate}")
    rr = np.array([r.rounds for r in ref], float)
    assert abs(rr.mean() - raw["rounds"].mean()) < 4 * rr.std() * np.sqrt(1 / n_ref + 1 / n_k)


def test_reference_resolver_matches_exact_on_a_small_battle():
    s = battle([(2, 2, 4, 0)], [(1, 3, 4, 0)], stars=(1, 0))
    ex = O.exact_odds(s, 1000, 0)
    n = 8_000
    ref = play_reference([(2, 2, 4, 0), (1, 3, 4, 0)], 1, (1, 0), range(10_000, 10_000 + n))
    for t in (0, 1):
        p = ex.p_win[t]
        assert abs(np.mean([r.winner == t for r in ref]) - p) < 4 * np.sqrt(p * (1 - p) / n)


# --------------------------------------------------------------------------- API, CLI, bad input
def test_api_dispatch_and_json_shape():
    res = simlab.odds("doe-battle", "puerto-rico-passage", rounds=1, options={"speed_disengage": "when-able"})
    assert res["method"] == "exact" and "games" not in res and res["rounds"] == 1
    assert res["speed_disengage"] == "when-able" and res["scenario"] == "puerto-rico-passage"
    assert set(res["sides"]) == {"spain", "us"}
    for v in res["sides"].values():
        assert v["ci"] == [v["p_win"], v["p_win"]]
        assert v["p_win"] == pytest.approx(v["p_win_gunfire"] + v["p_win_speed"])
    assert res["p_neither"] == pytest.approx(1 - sum(v["p_win"] for v in res["sides"].values()))
    assert [u["name"] for u in res["units"]][:2] == ["Teresa", "Vizcaya"]
    for u in res["units"]:
        assert set(u) >= {"side", "name", "p_sunk", "p_disabled", "mean_damage"}
        assert u["p_sunk"] + u["p_disabled"] + u["p_escaped"] + u["p_in_line"] == pytest.approx(1.0)
    json.dumps(res)


def _run(argv, capsys):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _small_file(tmp_path, name="small.toml"):
    f = tmp_path / name
    f.write_text('title = "two v two"\n'
                 '[red]\nleader_stars = 1\nunits = [\n'
                 '  { name = "R1", type = "CA", attack = 2, defense = 2, movement = 4 },\n'
                 '  { name = "R2", type = "CU", attack = 1, defense = 2, movement = 5, damage = 1 },\n]\n'
                 '[blue]\nunits = [\n'
                 '  { name = "B1", type = "BB", attack = 2, defense = 3, movement = 4 },\n'
                 '  { name = "B2", type = "GB", attack = 1, defense = 1, movement = 6 },\n]\n')
    return f


def test_cli_auto_exact_json_and_table(tmp_path, capsys):
    f = _small_file(tmp_path)
    code, out, err = _run(["odds", "doe-battle", str(f), "--json"], capsys)
    assert code == 0, err
    res = json.loads(out)
    assert res["method"] == "exact" and res["chosen_automatically"] and res["title"] == "two v two"
    assert set(res["sides"]) == {"red", "blue"} and len(res["units"]) == 4
    code, out, err = _run(["odds", "doe-battle", str(f)], capsys)
    assert code == 0 and "exact" in out and "R2" in out and "neither side wins" in out
    code, out, err = _run(["odds", "doe-battle", str(f), "--mc", "3000", "--seed", "4", "--json",
                           "--set", "speed_disengage=when-able", "--set", "max_rounds=50"], capsys)
    res = json.loads(out)
    assert code == 0 and res["method"] == "monte_carlo" and res["games"] == 3000 and res["seed"] == 4
    assert res["max_rounds"] == 50 and res["speed_disengage"] == "when-able"
    lo, hi = res["sides"]["red"]["ci"]
    assert lo < res["sides"]["red"]["p_win"] < hi
    code, out, err = _run(["odds", "doe-battle", str(f), "--mc", "3000"], capsys)
    assert code == 0 and "Monte Carlo" in out and "3,000 battles" in out


def test_cli_data_override_changes_the_odds(tmp_path, capsys):
    over = tmp_path / "over.toml"
    over.write_text('[pack]\ngame = "dawn-of-empire"\n[units.Teresa]\ndefense = 6\n')
    _, out0, _ = _run(["odds", "doe-battle", "puerto-rico-passage", "--rounds", "1", "--json"], capsys)
    code, out1, err = _run(["odds", "doe-battle", "puerto-rico-passage", "--rounds", "1", "--json",
                            "--data", str(over)], capsys)
    assert code == 0, err
    a, b = json.loads(out0), json.loads(out1)
    assert b["units"][0]["p_sunk"] < a["units"][0]["p_sunk"]
    assert b["data"]["counts"]["user"] == 1 and a["data"]["counts"]["user"] == 0


@pytest.mark.parametrize("argv,needle", [
    (["--exact", "--mc", "10"], "one of --exact and --mc"),
    (["--mc", "0"], "--mc"),
    (["--rounds", "0"], "--rounds"),
    (["--seed", "-1"], "--seed"),
    (["--set", "nope=1"], "no option 'nope'"),
    (["--set", "speed_disengage=sometimes"], "not one of"),
    (["--set", "max_rounds"], "OPTION=VALUE"),
    (["--data", "/no/such/pack.toml"], "not found"),
    (["--exact"], "out of reach"),
    (["--rounds", "two"], "Invalid value"),
])
def test_cli_bad_input_one_line_exit_2(argv, needle, capsys):
    code, out, err = _run(["odds", "doe-battle", "puerto-rico-passage"] + argv, capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err
    assert out == "" and "Traceback" not in err


@pytest.mark.parametrize("content,needle", [
    ("[a\nunits = 1", "TOML syntax error"),
    ('[a]\nunits = []\n[b]\nunits = [{ name = "X", type = "BB", attack = 1, defense = 1, movement = 1 }]\n', "units"),
    ('[a]\nunits = [{ name = "X", type = "ZZ", attack = 1, defense = 1, movement = 1 }]\n'
     '[b]\nunits = [{ name = "Y", type = "BB", attack = 1, defense = 1, movement = 1 }]\n', "unknown type"),
])
def test_cli_bad_battle_file(content, needle, tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text(content)
    code, out, err = _run(["odds", "doe-battle", str(f)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and needle in err and out == ""
    code, out, err = _run(["odds", "doe-battle", str(tmp_path / "missing.toml")], capsys)
    assert code == 2 and "not found" in err


def test_api_bad_arguments():
    s = battle([(1, 1, 4, 0)], [(1, 1, 4, 0)])
    for kwargs, needle in (({"method": "guess"}, "unknown odds method"), ({"games": 0}, ">= 1"),
                           ({"games": 2.5}, "whole number"), ({"rounds": 0}, "rounds"),
                           ({"seed": -3}, "seed"), ({"rounds": True}, "rounds")):
        with pytest.raises(SpecError, match=needle):
            O.battle_odds(s, **kwargs)
    with pytest.raises(InputError):
        GAME.odds("atlantis")


def test_bench_cases_name_the_issue_targets():
    from simlab.bench import all_targets
    cases = {c.name: c for c in GAME.bench_cases(quick=True)}
    assert {"kernel puerto-rico-passage", "pure Python puerto-rico-passage", "exact single round 4 v 7",
            "exact whole battle 3 v 3"} <= set(cases)
    targets = all_targets([GAME])
    assert targets["doe-battle/exact single round 4 v 7"] == ("<=", 0.1)
    assert targets["doe-battle/kernel vs pure Python"] == (">=", 50.0)
    assert cases["kernel puerto-rico-passage"].ratio_to == "pure Python puerto-rico-passage"
    assert cases["kernel puerto-rico-passage"].ratio_name == "kernel vs pure Python"
    r = cases["exact single round 4 v 7"].fn()
    assert r.mean_rounds == 1.0 and r.detail["engine"].startswith("single round")
    out = cases["pure Python puerto-rico-passage"].fn()
    assert len(out) == cases["pure Python puerto-rico-passage"].items
