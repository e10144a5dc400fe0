"""The helpers of dreadnought_campaign_helpers.py catch what they check (each has a case that must fail)."""

import numpy as np
import pytest
from dreadnought_campaign_helpers import play_turns, position, smoke_blocked_oracle

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.game import rules_for


def test_position_builds_the_arrays_and_refuses_bad_units():
    st, sh, fm, trail, sc = position([{"side": 0, "type": "capital", "x": 1, "z": 2, "attack": 30, "G": 1},
                                      {"side": 1, "type": "DD", "x": 0, "z": -3, "torp": 1}])
    assert st[0, L.ST_ATT] == 30 and st[0, L.ST_VAL] == 30 + 6 + 6 and sh[0, L.SH_G] == 1
    assert (sh[0, L.SH_X], sh[0, L.SH_Z]) == (1, 2) and st[1, L.ST_KIND] == 1 and sh[1, L.SH_TLEFT] == 2
    assert sc[L.SC_N] == 2 and sc[L.SC_N0] == 1 and sh[0, L.SH_TOW] == -1 and fm[1, L.FM_FLAG] == 1
    with pytest.raises(ValueError, match="unknown unit type"):
        position([{"side": 0, "type": "BB", "x": 0, "z": 0}])
    with pytest.raises(ValueError, match="side must be"):
        position([{"side": 2, "type": "DD", "x": 0, "z": 0}])
    with pytest.raises(ValueError, match="both sides"):
        position([{"side": 0, "type": "DD", "x": 0, "z": 0}, {"side": 1, "type": "DD", "x": 0, "z": 0}])


def test_the_smoke_oracle_says_blocked_and_open():
    assert smoke_blocked_oracle(0, 0, 0, -4, [(0, -2)])                 # on the line
    assert not smoke_blocked_oracle(0, 0, 0, -4, [(2, -2)])             # off it
    assert not smoke_blocked_oracle(0, 0, 0, -4, [(0, 0), (0, -4)])     # in the ships' own hexes
    assert not smoke_blocked_oracle(0, 0, 2, -1, [(1, -1)])             # one side of a hexside
    assert smoke_blocked_oracle(0, 0, 2, -1, [(1, -1), (1, 0)])         # both sides
    assert not smoke_blocked_oracle(3, 3, 3, 3, [(3, 3)])               # no line at all


def test_play_turns_counts_a_broken_position():
    rules = rules_for(get_game("dreadnought").load_data())[0]
    ok = [{"side": 0, "type": "capital", "x": 0, "z": 0, "movement": 0},
          {"side": 1, "type": "capital", "x": 0, "z": -30, "movement": 0}]
    st, sh, fm, trail, sc = position(ok)
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 2)
    assert res[0] == 2 and out[L.O_VIOLATIONS] == 0
    # five ships that cannot move in one hex: over-stacked (6.31), and the count says so
    bad = [{"side": 0, "type": "capital", "x": 0, "z": 0, "movement": 0} for _ in range(5)] + ok[1:]
    st, sh, fm, trail, sc = position(bad)
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 1)
    assert out[L.O_VIOLATIONS] > 0 or out[L.O_RESTACKED] > 0
    assert isinstance(dy, np.ndarray) and dy.shape == (L.NDY,)
