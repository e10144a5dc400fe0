"""Dreadnought campaign games (Rules 11.0-11.9) and extended campaigns (12.6) stopped after k campaign
scenarios and played on from a copy of their state give exactly the rows of the uninterrupted games
(issue 27: a game's state is one value; simlab.games.dreadnought.state.start_campaigns and
play_campaigns_from)."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.campaign import campaign_batch
from simlab.games.dreadnought.runtime import campaign_setup, run_campaigns
from simlab.games.dreadnought.state import play_campaigns_from, start_campaigns
from simlab.rng import game_seeds

GAME = get_game("dreadnought")


def _campaign(name, **options):
    sc = GAME.load_scenario(name, GAME.load_data())
    opts = GAME.resolve_options(options)
    pack, rules = sc.payload
    return sc, opts, rules, campaign_setup(pack, rules, opts["period"], opts["north"], opts["south"])


def _same_batches(setup, a, b, extended):
    ta, tb = campaign_batch(setup, *a, extended), campaign_batch(setup, *b, extended)
    assert ta.games.keys() == tb.games.keys()
    for k in ta.games:
        np.testing.assert_array_equal(ta.games[k], tb.games[k], err_msg=k)
    for k in ta.events["scenarios"]:
        np.testing.assert_array_equal(ta.events["scenarios"][k], tb.events["scenarios"][k], err_msg=k)


def _assert_rows(got, whole):
    for x, y in zip(got, whole, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("north,south", [("close-and-engage", "close-and-engage"), ("random-legal", "hold-range"),
                                         ("break-contact", "random-legal")])
def test_campaign_games_continued_from_a_copied_state_give_the_uninterrupted_rows(north, south):
    sc, opts, rules, setup = _campaign("campaign")
    pols = GAME.policies_of(sc.sides, {"north": north, "south": south})
    for seed in (1, 2, 3):
        seeds = game_seeds(27, 100 + seed, 0, 12)
        whole = run_campaigns(setup, rules, opts, pols, seeds, False)
        s0 = start_campaigns(setup, rules, opts, pols, seeds, False)
        assert (s0.played == 0).all() and not s0.over.any()
        for k in (0, 1, 2, 3, 4, 9):
            mid = play_campaigns_from(s0, k)
            assert (mid.played == min(k, 4)).all()              # 11.6: four scenarios a campaign game
            assert (mid.over == (k >= 4)).all()
            got = play_campaigns_from(mid.copy()).result()
            _assert_rows(got, whole)
        # two stops in a row, then to the end
        got = play_campaigns_from(play_campaigns_from(play_campaigns_from(s0, 1), 3)).result()
        _assert_rows(got, whole)
        _same_batches(setup, got, whole, False)


def test_extended_campaigns_continued_from_a_copied_state_give_the_uninterrupted_rows():
    sc, opts, rules, setup = _campaign("extended-campaign", period="wwii", north="us", south="japanese")
    pols = GAME.policies_of(sc.sides, {"north": "close-and-engage", "south": "random-legal"})
    seeds = game_seeds(27, 200, 0, 6)
    whole = run_campaigns(setup, rules, opts, pols, seeds, True)
    per_game = whole[0][:, L.GO_ROWS]
    assert per_game.max() > 4                     # several campaign games (12.63) in some of them
    s0 = start_campaigns(setup, rules, opts, pols, seeds, True)
    for k in (0, 3, 4, 5, 11, int(per_game.max()) - 1):
        mid = play_campaigns_from(s0, k)
        assert (mid.played == np.minimum(k, per_game)).all()
        assert (mid.over == (per_game <= k)).all()
        _assert_rows(play_campaigns_from(mid.copy()).result(), whole)
    _same_batches(setup, play_campaigns_from(play_campaigns_from(s0, 6)).result(), whole, True)


def test_the_campaign_copy_is_deep_and_the_state_is_what_the_rest_depends_on():
    sc, opts, rules, setup = _campaign("campaign")
    pols = GAME.policies_of(sc.sides, {"north": "close-and-engage", "south": "close-and-engage"})
    seeds = game_seeds(27, 300, 0, 10)
    whole = run_campaigns(setup, rules, opts, pols, seeds, False)
    mid = play_campaigns_from(start_campaigns(setup, rules, opts, pols, seeds, False), 2)
    before = [a.copy() for a in mid.state]
    other = mid.copy()
    for a in other.state:                          # every part of the copy's state changed
        a[...] = 7
    _assert_rows(play_campaigns_from(mid).result(), whole)
    for x, y in zip(before, mid.state, strict=True):
        np.testing.assert_array_equal(x, y)
    # new random streams for scenarios C and D: other rows (the stream is part of the state)
    other = mid.copy()
    other.state.rng[:] = np.uint64(99)
    assert not np.array_equal(play_campaigns_from(other).result()[1], whole[1])


def test_unfinished_campaigns_and_a_negative_stop_are_refused():
    sc, opts, rules, setup = _campaign("campaign")
    pols = GAME.policies_of(sc.sides, {"north": "close-and-engage", "south": "close-and-engage"})
    mid = play_campaigns_from(start_campaigns(setup, rules, opts, pols, game_seeds(27, 301, 0, 3), False), 2)
    with pytest.raises(ValueError, match="3 of 3 campaign games are not over yet"):
        mid.result()
    with pytest.raises(ValueError, match="until must be >= 0"):
        play_campaigns_from(mid, -1)
