"""Dawn of Empire campaigns paused after turn k and continued from a copy of their state (issue 27).

A batch is stopped after turn ``k`` (``DawnOfEmpire.start_batch``), its state copied, the games
played on by the same kernels (``play_from``, ``finish_batch``): the games table and the battles
events table must be exactly those of the uninterrupted batch (``play_batch``), for every preset
of both sides and random-legal, with and without 14.7 (games that end before ``k``) and 14.11.
"""

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe import runtime as rt
from simlab.rng import game_seeds

GAME = get_game("dawn-of-empire")
SC = GAME.load_scenario("standard", GAME.load_data())
N = 200

#: every preset of each side appears once (random-legal on both sides too)
PAIRINGS = (("hunter", "raider"), ("blockade", "fleet-in-being"), ("coastal-defense", "historical"),
            ("random-legal", "random-legal"))
#: a short standard game, and a long one where 14.7 ends some games early (with 14.11 set-up)
OPTIONS = ({}, {"turns": 9, "automatic_victory": True, "free_deployment": True, "handicap": 12,
                "maintenance": True, "fog_of_war": True, "germans": True, "extra_warships": True})


def _same(a, b):
    assert a.games.keys() == b.games.keys()
    for k in a.games:
        np.testing.assert_array_equal(np.asarray(a.games[k]), np.asarray(b.games[k]), err_msg=k)
    assert a.events.keys() == b.events.keys()
    for name in a.events:
        ea, eb = a.events[name], b.events[name]
        assert ea.keys() == eb.keys()
        for k in ea:
            np.testing.assert_array_equal(np.asarray(ea[k]), np.asarray(eb[k]), err_msg=f"{name}.{k}")


@pytest.mark.parametrize("opts", OPTIONS, ids=("standard", "long-auto-free"))
@pytest.mark.parametrize("pols", PAIRINGS, ids=lambda p: "-".join(p))
def test_a_batch_continued_from_a_copied_state_gives_the_same_rows(pols, opts):
    o = GAME.resolve_options(opts)
    p = GAME.resolve_policies(SC.sides, {"us": pols[0], "spain": pols[1]})
    seeds = game_seeds(27, 0, 0, N)
    whole = GAME.play_batch(SC, o, p, seeds)
    T = o["turns"]
    turns = np.asarray(whole.games["turns"])
    assert len(np.asarray(whole.events["battles"]["turn"])) > 0
    if o["automatic_victory"]:
        assert (turns < T - 1).any() and (turns == T).any()   # some games end early (14.7), before k = T - 1
    for k in (0, 1, 3, T - 1, T, T + 2):
        paused = GAME.start_batch(SC, o, p, seeds, k)
        clock = paused.state.clock
        assert np.all(clock[:, lay.CK_NEXT] == np.minimum(k, turns) + 1)
        assert np.array_equal(clock[:, lay.CK_DONE] != 0, k >= turns)   # over once its last turn is played
        _same(GAME.finish_batch(SC, paused.copy()), whole)
    # two pauses in a row: set-up, on to turn 2, on to turn 4, then the end
    st = GAME.play_from(SC, GAME.play_from(SC, GAME.start_batch(SC, o, p, seeds, 0), 2), 4)
    assert np.all(st.state.clock[:, lay.CK_NEXT] == np.minimum(4, turns) + 1)
    _same(GAME.finish_batch(SC, st), whole)


def test_the_copy_is_deep_and_play_from_leaves_its_argument_alone():
    o = GAME.resolve_options({})
    p = GAME.policies_of(SC.sides, GAME.resolve_policies(SC.sides, {}))
    seeds = game_seeds(5, 1, 0, 100)
    whole = GAME.play_batch(SC, o, p, seeds)
    paused = GAME.start_batch(SC, o, p, seeds, 2)
    before = [a.copy() for a in paused.state]
    later = GAME.play_from(SC, paused, 4)
    assert all(np.array_equal(a, b) for a, b in zip(paused.state, before, strict=True))   # the argument is unchanged
    assert not np.array_equal(later.state.clock, paused.state.clock)
    c = paused.copy()
    for a, b in zip(c.state, paused.state, strict=True):
        assert not np.shares_memory(a, b)
    c.state.G[:, lay.G_VP_NET] += 7          # the copy's VP track moved, and its random streams
    c.state.rng[:, 0] ^= np.uint64(0x9E3779B97F4A7C15)
    changed = GAME.finish_batch(SC, c)
    _same(GAME.finish_batch(SC, paused), whole)   # the original still continues as the whole batch
    assert not np.array_equal(np.asarray(changed.games["vp_net"]), np.asarray(whole.games["vp_net"]))
    assert not np.array_equal(np.asarray(changed.games["dice"]), np.asarray(whole.games["dice"]))


def test_traces_and_ledgers_continue_too():
    o = GAME.resolve_options({"turns": 7})
    p = GAME.policies_of(SC.sides, GAME.resolve_policies(SC.sides, {"us": "blockade", "spain": "raider"}))
    seeds = game_seeds(9, 0, 0, 60)
    whole = rt.run_games(SC.payload, o, p, seeds, trace=True)
    for k in (0, 4):
        out = rt.finish_games(SC.payload, rt.start_games(SC.payload, o, p, seeds, k, trace=True))
        for key in ("G", "battles", "trace", "ledger"):
            assert np.array_equal(out[key], whole[key]), (k, key)
