"""Damage control, Victory Points and victory conditions: Rules 5.41-5.44, 9.5, 10.x."""

import numpy as np
import pytest
from dreadnought_helpers import rng_with_d6

from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import (
    AFLOAT,
    EXITED,
    LEVEL_DECISIVE,
    LEVEL_DRAW,
    LEVEL_MARGINAL,
    LEVEL_OBJECTIVE,
    LEVEL_SUBSTANTIAL,
    SUNK,
    VC_EXIT_OR_POINTS,
    VC_POINTS,
    VC_SINK_NAMED,
    VC_SINK_NAMED_AND_POINTS,
    VC_SINK_NAMED_OR_ESCAPE,
)
from simlab.games.dreadnought.kernels.damage import damage_control_nb, final_result_nb, ship_award_nb
from simlab.games.dreadnought.kernels.fire import apply_pending_nb

VP = np.array([0, 20, 40, 60, 80], dtype=np.int64)


def _rl():
    rl = np.zeros(L.NRL, dtype=np.int64)
    rl[L.RL_DC_G] = 3
    rl[L.RL_DC_S] = 2
    rl[L.RL_MAX_G] = 2
    rl[L.RL_MAX_S] = 2
    return rl


def _ship(defense=6, g=0, s=0, dc=0):
    st = np.zeros((1, L.NST), dtype=np.int64)
    sh = np.zeros((1, L.NSH), dtype=np.int64)
    st[0, L.ST_DEF] = defense
    sh[0, L.SH_G] = g
    sh[0, L.SH_S] = s
    sh[0, L.SH_DC] = dc
    sh[0, L.SH_STATUS] = AFLOAT
    return st, sh


def test_damage_control_example_5_43():
    # a ship at 2G, 1S rolls a 2 (G: one step off) and then a 4 (no effect on S)
    st, sh = _ship(g=2, s=1)
    removed = damage_control_nb(st, sh, 1, _rl(), rng_with_d6([2, 4]))
    assert (sh[0, L.SH_G], sh[0, L.SH_S], sh[0, L.SH_DC], removed) == (1, 1, 1, 1)


@pytest.mark.parametrize("g_roll,s_roll,expect", [(3, 2, (0, 0, 2)), (4, 3, (1, 1, 0)), (1, 3, (0, 1, 1))])
def test_damage_control_table(g_roll, s_roll, expect):
    # Rule 5.43 table: G removed on 1-3, S on 1-2
    st, sh = _ship(g=1, s=1)
    damage_control_nb(st, sh, 1, _rl(), rng_with_d6([g_roll, s_roll]))
    assert (sh[0, L.SH_G], sh[0, L.SH_S], sh[0, L.SH_DC]) == expect


def test_damage_control_limit_5_44_and_wrecks():
    st, sh = _ship(defense=3, g=1, s=1, dc=3)       # at its limit: no attempt, no dice drawn
    rng = rng_with_d6([1, 1])
    assert damage_control_nb(st, sh, 1, _rl(), rng) == 0 and (sh[0, L.SH_G], sh[0, L.SH_S]) == (1, 1)
    st, sh = _ship(defense=3, g=1, s=1, dc=2)       # one step left: G goes, S may not
    damage_control_nb(st, sh, 1, _rl(), rng_with_d6([1, 1]))
    assert (sh[0, L.SH_G], sh[0, L.SH_S], sh[0, L.SH_DC]) == (0, 1, 3)
    st, sh = _ship(g=2, s=2)                        # wrecked: cannot be damage-controlled
    assert damage_control_nb(st, sh, 1, _rl(), rng_with_d6([1, 1])) == 0 and sh[0, L.SH_G] == 2


def test_iron_duke_accounts_9_53():
    # value 29 (18 + 6 + 5), defense 6
    assert ship_award_nb(29, 6, AFLOAT, 1, 0, 2, VP) == 3      # 1G left, two removed before: 3 VPs
    assert ship_award_nb(29, 6, AFLOAT, 1, 2, 4, VP) == 11     # 1G, 2S with four removed: 6 + 5 = 11


def test_vp_schedule_9_52_and_cap_9_54():
    assert ship_award_nb(29, 6, SUNK, 0, 0, 5, VP) == 29          # sunk: 100%, never more
    assert ship_award_nb(29, 6, AFLOAT, 2, 2, 0, VP) == 23        # wrecked: 80% of 29 = 23.2 -> 23
    assert ship_award_nb(29, 6, AFLOAT, 2, 2, 6, VP) == 29        # 6 + 23 = 29, capped at value
    assert ship_award_nb(29, 6, AFLOAT, 2, 1, 6, VP) == 6 + 17    # limit reached: 3 states = 60% -> 17
    assert ship_award_nb(29, 6, AFLOAT, 0, 0, 4, VP) == 4
    assert ship_award_nb(29, 6, EXITED, 1, 0, 0, VP) == 1         # an exited ship recovers too


def test_cumulative_damage_caps_at_2g_2s():
    st, sh = _ship(g=1, s=2)
    sh[0, L.SH_PG] = 2
    sh[0, L.SH_PS] = 1
    apply_pending_nb(sh, 1, _rl())
    assert (sh[0, L.SH_G], sh[0, L.SH_S], sh[0, L.SH_STATUS]) == (2, 2, AFLOAT)
    sh[0, L.SH_PSUNK] = 1
    apply_pending_nb(sh, 1, _rl())
    assert sh[0, L.SH_STATUS] == SUNK


def _game(units, vc=VC_POINTS, vc_side=-1, start=(0, 0), exit_scores=0):
    """units: (side, value, defense, status, G, S, dc, named)."""
    n = len(units)
    st = np.zeros((n, L.NST), dtype=np.int64)
    sh = np.zeros((n, L.NSH), dtype=np.int64)
    for i, (side, val, dfn, status, g, s, dc, named) in enumerate(units):
        st[i, L.ST_SIDE], st[i, L.ST_VAL], st[i, L.ST_DEF], st[i, L.ST_NAMED] = side, val, dfn, named
        sh[i, L.SH_STATUS], sh[i, L.SH_G], sh[i, L.SH_S], sh[i, L.SH_DC] = status, g, s, dc
    sc = np.zeros(L.NSC, dtype=np.int64)
    sc[L.SC_VC], sc[L.SC_VC_SIDE] = vc, vc_side
    sc[L.SC_START_VP0], sc[L.SC_START_VP1] = start
    sc[L.SC_EXIT_SCORES] = exit_scores
    return st, sh, sc


def _result(st, sh, sc, ended_by=-1, contact=1, exit_met=0):
    out = np.zeros((1, L.NOUT), dtype=np.int64)
    final_result_nb(st, sh, st.shape[0], sc, VP, out, 0, ended_by, contact, exit_met)
    return out[0]


def test_points_victory_and_levels_9_55():
    # side 0 sinks a 30-VP ship; side 1 damages a ship for 2 VPs (removed)
    st, sh, sc = _game([(0, 40, 8, AFLOAT, 0, 0, 2, 0), (1, 30, 6, SUNK, 0, 0, 0, 0), (1, 20, 5, AFLOAT, 0, 0, 0, 0)])
    o = _result(st, sh, sc)
    assert (o[L.O_SCORE0], o[L.O_SCORE1], o[L.O_WINNER], o[L.O_LEVEL]) == (30, 2, 0, LEVEL_SUBSTANTIAL)
    o = _result(st, sh, sc, ended_by=1)           # the loser caused the end: decisive (9.55)
    assert o[L.O_LEVEL] == LEVEL_DECISIVE
    st, sh, sc = _game([(0, 40, 8, AFLOAT, 0, 0, 20, 0), (1, 30, 6, AFLOAT, 0, 0, 25, 0)])
    o = _result(st, sh, sc)                       # 25 v 20: marginal
    assert (o[L.O_WINNER], o[L.O_LEVEL]) == (0, LEVEL_MARGINAL)
    st, sh, sc = _game([(0, 40, 8, AFLOAT, 0, 0, 3, 0), (1, 30, 6, AFLOAT, 0, 0, 3, 0)])
    assert tuple(_result(st, sh, sc)[[L.O_WINNER, L.O_LEVEL]]) == (-1, LEVEL_DRAW)


def test_jutland_start_points_10_7():
    st, sh, sc = _game([(0, 30, 6, AFLOAT, 0, 0, 0, 0), (1, 30, 6, SUNK, 0, 0, 0, 0)], start=(0, 49))
    o = _result(st, sh, sc)
    assert (o[L.O_SCORE0], o[L.O_SCORE1], o[L.O_WINNER]) == (30, 49, 1)


def test_dogger_bank_condition_10_1():
    # British (0) must sink or wreck a named German ship AND score more, or they lose
    units = [(0, 30, 6, AFLOAT, 0, 0, 0, 0), (1, 12, 3, AFLOAT, 2, 2, 0, 1), (1, 22, 6, AFLOAT, 0, 0, 0, 1)]
    st, sh, sc = _game(units, VC_SINK_NAMED_AND_POINTS, 0)
    o = _result(st, sh, sc)                       # Blucher wrecked: 9 VPs v 0
    assert (o[L.O_WINNER], o[L.O_SCORE0]) == (0, 12 * 80 // 100)
    sh[0, L.SH_STATUS] = SUNK                     # but the Germans sank a 30-VP ship: more VPs
    assert _result(st, sh, sc)[L.O_WINNER] == 1
    sh[0, L.SH_STATUS] = AFLOAT
    sh[1, L.SH_G], sh[1, L.SH_S] = 1, 0           # named ships only damaged: British lose
    o = _result(st, sh, sc)
    assert o[L.O_WINNER] == 1 and o[L.O_LEVEL] == LEVEL_OBJECTIVE


def test_denmark_strait_condition_10_2():
    units = [(0, 48, 12, AFLOAT, 0, 0, 0, 0), (1, 88, 20, AFLOAT, 0, 0, 0, 1)]
    st, sh, sc = _game(units, VC_SINK_NAMED_OR_ESCAPE, 0)
    assert _result(st, sh, sc, contact=0)[L.O_WINNER] == 1      # preserved and out of sight
    assert _result(st, sh, sc, contact=1)[L.O_WINNER] == -1     # preserved but in contact: draw
    sh[1, L.SH_STATUS] = SUNK
    assert _result(st, sh, sc, contact=0)[L.O_WINNER] == 0


def test_north_cape_and_singora_conditions():
    st, sh, sc = _game([(0, 88, 19, AFLOAT, 0, 0, 0, 0), (1, 49, 16, AFLOAT, 1, 1, 0, 1)], VC_SINK_NAMED, 0)
    assert _result(st, sh, sc)[L.O_WINNER] == 1
    sh[1, L.SH_G], sh[1, L.SH_S] = 2, 2
    assert _result(st, sh, sc)[L.O_WINNER] == 0
    st, sh, sc = _game([(0, 88, 19, EXITED, 0, 0, 0, 0), (1, 65, 12, AFLOAT, 0, 0, 4, 0)], VC_EXIT_OR_POINTS, 0)
    o = _result(st, sh, sc, exit_met=1)
    assert (o[L.O_WINNER], o[L.O_LEVEL]) == (0, LEVEL_DECISIVE)
    assert _result(st, sh, sc, exit_met=0)[L.O_WINNER] == 0      # otherwise on points: 4 v 0


def test_surigao_exit_scores_full_value_10_5():
    st, sh, sc = _game([(0, 100, 17, AFLOAT, 0, 0, 0, 0), (1, 86, 15, EXITED, 1, 1, 0, 0)], exit_scores=1)
    o = _result(st, sh, sc)
    assert (o[L.O_SCORE0], o[L.O_SCORE1], o[L.O_EXITED1]) == (2, 86, 1)
