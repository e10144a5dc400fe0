"""Formations on hand-built columns and lines: Rule 6.24's second leg in column and the 6.2
Formation Movement Example, Game-Turn by Game-Turn.

The expected hexes are worked out here by adding hex steps (cube coordinates, x east, z rows to
the south-south-east: N = (0, -1), NE = (1, -1), SE = (1, 0), S = (0, 1), SW = (-1, 1), NW = (-1, 0)),
not read from the kernels' direction tables.
"""

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import AFLOAT, COLUMN, LINE, NW, SE, SW, N, S
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.kernels.formations import (
    column_member_path_nb,
    commit_column_nb,
    leg2_column_ok_nb,
    leg2_commit_nb,
    leg2_member_path_nb,
    straight_column_nb,
)
from simlab.games.dreadnought.kernels.movement import plot_path_nb

STEP = {N: (0, -1), SE: (1, 0), S: (0, 1), SW: (-1, 1), NW: (-1, 0)}


def _go(h, *legs):
    x, z = h
    for facing, k in legs:
        x, z = x + k * STEP[facing][0], z + k * STEP[facing][1]
    return x, z


@pytest.fixture(scope="module")
def rules():
    return rules_for(get_game("dreadnought").load_data())[0]


def _formation(hexes, facing, mode):
    """One formation of ``len(hexes)`` ships, the flagship first; a column's wake is the line of
    its hexes (the flagship's entry at the head)."""
    n = len(hexes)
    sh = np.zeros((n, L.NSH), dtype=np.int64)
    fm = np.zeros((n, L.NFM), dtype=np.int64)
    trail = np.zeros((n, L.TRAIL, 3), dtype=np.int64)
    for i, (x, z) in enumerate(hexes):
        sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], sh[i, L.SH_STATUS] = x, z, facing, AFLOAT
        sh[i, L.SH_CUR] = n - 1 - i
        trail[0, n - 1 - i] = (x, z, facing)
    fm[0, L.FM_MODE], fm[0, L.FM_FLAG], fm[0, L.FM_HEAD], fm[0, L.FM_MEMBERS] = mode, 0, n - 1, n
    return sh, fm, trail


def _move(sh, fm, trail, plot, rules, leg2_column=False):
    """Execute one Movement Phase of formation 0 with the flagship's plot ``(t1, l1, t2, l2)``:
    column members follow the wake (6.22), line abreast members make the plot from their own hex
    (6.23), and with ``leg2_column`` the members make the second leg in column (6.24)."""
    n = sh.shape[0]
    px = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pz, pf = px.copy(), px.copy()
    mp = plot_path_nb(sh[0, L.SH_X], sh[0, L.SH_Z], sh[0, L.SH_F], *plot, rules.rl, px, pz, pf, 0)
    for i in range(1, n):
        if fm[0, L.FM_MODE] == COLUMN:
            column_member_path_nb(trail, 0, fm[0, L.FM_HEAD], sh[i, L.SH_CUR], mp, px, pz, pf, 0, i)
        else:
            plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], *plot, rules.rl, px, pz, pf, i)
    m1 = plot[1]                                  # the plots here turn one hexside (free, 7.3)
    if leg2_column:
        assert leg2_column_ok_nb(sh, 0, n, 0, m1, px, pz, pf) == n - 1
        for i in range(1, n):
            leg2_member_path_nb(0, m1, mp, px, pz, pf, i)
    if fm[0, L.FM_MODE] == COLUMN:
        commit_column_nb(trail, fm, 0, mp, px, pz, pf, 0)
        sh[:, L.SH_CUR] += mp
    sh[:, L.SH_X], sh[:, L.SH_Z], sh[:, L.SH_F] = px[:, mp], pz[:, mp], pf[:, mp]
    if leg2_column:
        leg2_commit_nb(sh, fm, trail, 0, n, 0, m1, mp, px, pz, pf)
    return [(int(sh[i, L.SH_X]), int(sh[i, L.SH_Z]), int(sh[i, L.SH_F])) for i in range(n)]


def test_6_24_line_abreast_completes_its_move_in_column_2SE_L_3S_C(rules):
    # three ships on the NW-SE axis facing S, the flagship at the SE end; plot "2SE-L, 3S-C"
    f0 = (0, 0)
    hexes = [f0, _go(f0, (NW, 1)), _go(f0, (NW, 2))]
    sh, fm, trail = _formation(hexes, S, LINE)
    end = _move(sh, fm, trail, (-1, 2, 1, 3), rules, leg2_column=True)
    flag = _go(f0, (SE, 2), (S, 3))
    # the flagship turns S at its 2nd hex; the others come on to that hex and follow it (6.22)
    assert end == [(*flag, S), (*_go(flag, (S, -1)), S), (*_go(flag, (S, -2)), S)]
    assert fm[0, L.FM_MODE] == COLUMN and fm[0, L.FM_FLAG] == 0
    # the same plot all in line abreast: parallel courses, the line of bearing kept (6.23)
    sh2, fm2, trail2 = _formation(hexes, S, LINE)
    assert _move(sh2, fm2, trail2, (-1, 2, 1, 3), rules) == [(*_go(h, (SE, 2), (S, 3)), S) for h in hexes]
    assert fm2[0, L.FM_MODE] == LINE
    # next Game-Turn the column follows its flagship: "1S, 1SW-C", the rear still on the S line
    nxt = _move(sh, fm, trail, (0, 1, 1, 1), rules)
    turn_hex = _go(flag, (S, 1))
    assert nxt == [(*_go(turn_hex, (SW, 1)), SW), (*turn_hex, S), (*flag, S)]


def test_6_24_second_leg_in_column_needs_the_ships_behind_the_flagship(rules):
    # the line abreast on the N-S axis turning SE: after the first leg they stand abreast, not astern
    f0 = (0, 0)
    sh, fm, trail = _formation([f0, _go(f0, (S, 1))], N, LINE)
    px = np.zeros((2, L.MAXMP + 1), dtype=np.int64)
    pz, pf = px.copy(), px.copy()
    for i in range(2):
        plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], N, 2, 2, 1, 2, rules.rl, px, pz, pf, i)   # 2SE, 2S
    m1 = rules.rl[L.RL_TURN2] + 2
    assert leg2_column_ok_nb(sh, 0, 2, 0, m1, px, pz, pf) == -1
    # a gap in the line is not a column either
    sh, fm, trail = _formation([f0, _go(f0, (S, 2))], N, LINE)
    for i in range(2):
        plot_path_nb(sh[i, L.SH_X], sh[i, L.SH_Z], N, 0, 1, 1, 1, rules.rl, px, pz, pf, i)
    assert leg2_column_ok_nb(sh, 0, 2, 0, 1, px, pz, pf) == -1


def test_formation_movement_example_6_2(rules):
    # Game-Turn 1, "4N-C": a column of four ships, one per hex, the flagship leading north
    h0 = (0, 0)
    sh, fm, trail = _formation([_go(h0, (S, k)) for k in range(4)], N, COLUMN)
    g1 = _move(sh, fm, trail, (0, 4, 0, 0), rules)
    assert g1 == [(*_go(h0, (N, 4 - k)), N) for k in range(4)]
    # Game-Turn 2, "1N, 2NW-C": ships 3 and 4 do not make the turn
    g2 = _move(sh, fm, trail, (0, 1, -1, 2), rules)
    t2 = _go(h0, (N, 5))
    assert g2 == [(*_go(t2, (NW, 2)), NW), (*_go(t2, (NW, 1)), NW), (*t2, N), (*_go(t2, (N, -1)), N)]
    # Game-Turn 3, "6NW-C": ships 3 and 4 make the turn; the column is straight on the NW axis
    g3 = _move(sh, fm, trail, (0, 6, 0, 0), rules)
    assert g3 == [(*_go(t2, (NW, 8 - k)), NW) for k in range(4)]
    buf = np.zeros((4, 3), dtype=np.int64)
    assert straight_column_nb(sh, 0, 4, buf) == 4          # 6.24: it may change to line abreast
    # Game-Turn 4, "5SW-L": decelerating to 5 MP (6.4), every ship turns SW and moves in parallel
    fm[0, L.FM_MODE] = LINE
    g4 = _move(sh, fm, trail, (-1, 5, 0, 0), rules)
    assert g4 == [(*_go(t2, (NW, 8 - k), (SW, 5)), SW) for k in range(4)]
    # Game-Turn 5, "2NW, 2N-C": the line turns NW with the flagship (now astern of one another) and
    # returns to column for the second leg: the flagship turns N, the others follow it
    g5 = _move(sh, fm, trail, (1, 2, 1, 2), rules, leg2_column=True)
    t5 = _go(t2, (NW, 10), (SW, 5))                        # the flagship's turning hex
    assert g5 == [(*_go(t5, (N, 2)), N), (*_go(t5, (N, 1)), N), (*t5, NW), (*_go(t5, (NW, -1)), NW)]
    assert fm[0, L.FM_MODE] == COLUMN
