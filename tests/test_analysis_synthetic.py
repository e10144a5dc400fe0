"""The synthetic test instrument plays the distributions its docstring promises (exact oracles
from icepool and closed forms), and its score-only shortcut equals replaying."""

import math

import icepool
import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.synthetic import BLUE_DICE, MAX_TURNS, RED_DICE, coin_probabilities
from simlab.rng import game_seeds

N = 40_000


def play(scenario, seed=1, n=N, policies=None, **opts):
    g = get_game("synthetic")
    sc = g.load_scenario(scenario)
    o = g.resolve_options(opts)
    pols = g.resolve_policies(sc.sides, policies or {})
    return g, sc, o, g.play_batch(sc, o, pols, game_seeds(seed, 0, 0, n))


def within(freq, p, n, z=4.0):
    return abs(freq - p) <= z * math.sqrt(max(p * (1 - p), 1e-12) / n)


def test_within_helper_can_fail():
    assert within(0.5, 0.5, 1000) and not within(0.58, 0.5, 1000)


@pytest.mark.parametrize("bias,draw,red,blue", [(0.3, 0.1, "plain", "plain"), (-0.5, 0.0, "plain", "plain"),
                                                (0.3, 0.2, "rock", "scissors"), (1.0, 0.0, "paper", "scissors")])
def test_coin_frequencies_match_closed_form(bias, draw, red, blue):
    _, _, _, b = play("coin", bias=bias, draw_rate=draw, policies={"red": red, "blue": blue})
    w = b.games["winner"]
    exact = coin_probabilities(bias, draw, red, blue)
    for code, key in ((0, "red"), (1, "blue"), (-1, "draw")):
        assert within((w == code).mean(), exact[key], N), (key, (w == code).mean(), exact[key])


def test_coin_length_distribution_is_capped_geometric():
    _, _, _, b = play("coin")
    t = b.games["turns"]
    for k in (1, 2, 5, 10):
        assert within((t == k).mean(), (5 / 6) ** (k - 1) / 6, N)
    assert within((t == MAX_TURNS).mean(), (5 / 6) ** (MAX_TURNS - 1), N)
    assert t.min() >= 1 and t.max() <= MAX_TURNS


def dice_race_exact(handicap, threshold):
    net = RED_DICE @ icepool.d6 - BLUE_DICE @ icepool.d6 + handicap
    red = net.probability(">=", threshold)
    blue = net.probability("<=", -threshold)
    return float(red), float(blue)


@pytest.mark.parametrize("handicap,threshold", [(0, 2), (3, 1), (4, 2), (-2, 3)])
def test_dice_race_matches_icepool(handicap, threshold):
    _, _, _, b = play("dice-race", seed=3, handicap=handicap, threshold=threshold)
    w = b.games["winner"]
    red, blue = dice_race_exact(handicap, threshold)
    assert within((w == 0).mean(), red, N) and within((w == 1).mean(), blue, N)


def test_dice_race_fair_handicap_is_three_and_a_half():
    # the net score of 3d6 - 4d6 is symmetric about -3.5: at +3 red is behind, at +4 ahead, by the same
    for t in (1, 2, 5):
        r3, b3 = dice_race_exact(3, t)
        r4, b4 = dice_race_exact(4, t)
        assert r3 < b3 and r4 > b4
        assert r3 == pytest.approx(b4) and b3 == pytest.approx(r4)


def test_rescore_equals_replay_game_by_game():
    g, sc, o, played = play("dice-race", seed=9, n=5000, handicap=0, threshold=2)
    cols = dict(played.games)
    for h in (-3, 0, 2, 4, 7):
        _, _, _, replay = play("dice-race", seed=9, n=5000, handicap=h, threshold=2)
        again = g.rescore(sc, cols, o, {"handicap": h})
        np.testing.assert_array_equal(again, replay.games["winner"])
    # the shortcut is refused where it does not hold
    coin = g.load_scenario("coin")
    assert g.rescore(coin, cols, o, {"handicap": 2}) is None
    assert g.rescore(sc, cols, o, {"threshold": 3}) is None


def test_unknown_scenario_is_a_scenario_error():
    from simlab.errors import ScenarioError
    with pytest.raises(ScenarioError):
        get_game("synthetic").load_scenario("nope")


def test_dice_race_oracle_against_brute_force():
    import itertools
    faces = range(1, 7)
    reds = np.array([sum(r) for r in itertools.product(faces, repeat=RED_DICE)])
    blues = np.array([sum(b) for b in itertools.product(faces, repeat=BLUE_DICE)])
    net = reds[:, None] - blues[None, :]
    for h, t in ((0, 2), (4, 1)):
        red, blue = dice_race_exact(h, t)
        assert red == pytest.approx(((net + h) >= t).mean()) and blue == pytest.approx(((net + h) <= -t).mean())
    assert dice_race_exact(0, 2) != dice_race_exact(1, 2)
