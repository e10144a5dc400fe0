"""Dreadnought games stopped after Game-Turn k and played on from a copy of their state give exactly
the rows of the uninterrupted games (issue 27: a game's state is one value; simlab.games.dreadnought.state)."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.game import _batch
from simlab.games.dreadnought.runtime import run_games
from simlab.games.dreadnought.state import play_from, start_games
from simlab.rng import game_seeds

GAME = get_game("dreadnought")
PRESETS = ("close-and-engage", "hold-range", "break-contact", "make-for-objective", "random-legal")
#: every optional rule on: smoke markers and tows are carried across Game-Turns, the sun is rolled at set-up
ALL_OPTIONAL = {"smoke": True, "radar": True, "spotting_planes": True, "creep": True, "towing": True, "sun": True}


def _scenario(name):
    sc = GAME.load_scenario(name, GAME.load_data())
    return sc, sc.payload[0], sc.payload[1]


def _same_tables(setup, a, b):
    ta, tb = _batch(setup, *a), _batch(setup, *b)
    assert ta.games.keys() == tb.games.keys()
    for k in ta.games:
        np.testing.assert_array_equal(ta.games[k], tb.games[k], err_msg=k)
    for k in ta.events["shots"]:
        np.testing.assert_array_equal(ta.events["shots"][k], tb.events["shots"][k], err_msg=k)


@pytest.mark.parametrize("scenario,options,n", [
    ("jutland", {"shots": True}, 40),
    ("surigao-strait", {"shots": True, **ALL_OPTIONAL}, 40),
])
@pytest.mark.parametrize("preset", PRESETS)
def test_games_continued_from_a_copied_state_give_the_uninterrupted_rows(scenario, options, n, preset):
    sc, setup, rules = _scenario(scenario)
    pols = GAME.policies_of(sc.sides, {s: preset for s in sc.sides})
    seeds = game_seeds(27, PRESETS.index(preset), 0, n)
    whole = run_games(setup, rules, pols, seeds, options)
    assert whole[1].shape[0] > 0 or preset == "break-contact"
    s0 = start_games(setup, rules, pols, seeds, options)
    assert (s0.turn == 0).all() and not s0.over.any()
    length = int(setup.sc[L.SC_LENGTH])
    ended_early = 0
    for k in (0, 1, length // 2, length - 1, length + 5):
        mid = play_from(s0, k)
        assert (mid.turn <= k).all()
        assert ((mid.turn == min(k, length)) | mid.over).all()
        ended_early += int((mid.over & (mid.turn < k)).sum())
        got = play_from(mid.copy()).result()
        np.testing.assert_array_equal(got[0], whole[0])
        np.testing.assert_array_equal(got[1], whole[1])
        _same_tables(setup, got, whole)
    # two stops in a row (state after k1 played on to k2, then to the end) give the same rows too
    got = play_from(play_from(play_from(s0, 2), length // 2 + 1)).result()
    np.testing.assert_array_equal(got[0], whole[0])
    np.testing.assert_array_equal(got[1], whole[1])
    if preset == "break-contact":
        assert ended_early > 0   # some games end before the last k (no sighting, 9.42): a k past their end


def test_the_copy_is_deep_and_play_from_leaves_its_state_alone():
    sc, setup, rules = _scenario("jutland")
    pols = GAME.policies_of(sc.sides, GAME.resolve_policies(sc.sides, {}))
    seeds = game_seeds(27, 9, 0, 30)
    whole = run_games(setup, rules, pols, seeds, {"shots": True})
    mid = play_from(start_games(setup, rules, pols, seeds, {"shots": True}), 4)
    before = [a.copy() for a in mid.arrays] + [mid.out.copy(), mid.ev.copy()]
    other = mid.copy()
    for a in other.arrays:          # every part of the copy's state changed
        a[...] = 0 if a.dtype != np.uint64 else np.uint64(12345)
    other.out[...] = 7
    assert np.array_equal(play_from(mid).result()[0], whole[0])
    after = [a for a in mid.arrays] + [mid.out, mid.ev]
    for x, y in zip(before, after, strict=True):
        np.testing.assert_array_equal(x, y)
    # the mutated copy plays on to other rows: the state is what the rest of the game depends on
    other = mid.copy()
    other.arrays[4][:] = np.uint64(99)   # the random streams
    assert not np.array_equal(play_from(other).result()[0], whole[0])


def test_result_of_unfinished_games_and_a_negative_stop_are_refused():
    sc, setup, rules = _scenario("jutland")
    pols = GAME.policies_of(sc.sides, GAME.resolve_policies(sc.sides, {}))
    mid = play_from(start_games(setup, rules, pols, game_seeds(27, 10, 0, 3)), 2)
    with pytest.raises(ValueError, match="3 of 3 games are not over yet"):
        mid.result()
    with pytest.raises(ValueError, match="until must be >= 0"):
        play_from(mid, -1)
