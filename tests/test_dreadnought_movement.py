"""Movement and facing on hand-built positions: Rules 5.5 (range), 6.0-6.4, 6.13, 6.2, 6.3, 7.0-7.3."""

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import (
    AFLOAT,
    ARC_BOW,
    ARC_BROADSIDE,
    ARC_STERN,
    CAPITAL,
    COLUMN,
    NE,
    SCREEN,
    SE,
    SW,
    N,
    S,
)
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.geometry import cube_to_offset, offset_to_cube
from simlab.games.dreadnought.kernels.formations import (
    column_member_path_nb,
    commit_column_nb,
    straight_column_nb,
)
from simlab.games.dreadnought.kernels.geometry import DXA, DZA, arc_nb, hex_dist_nb
from simlab.games.dreadnought.kernels.movement import (
    collisions_keyed_nb,
    collisions_nb,
    plot_end_nb,
    plot_mp_nb,
    plot_path_nb,
    speed_bounds_nb,
    stack_ok_nb,
)
from simlab.games.dreadnought.policies.movement import candidates_nb, quick_stack_ok_nb, stack_keys_nb
from simlab.rng import STATE_WORDS, new_state_nb


@pytest.fixture(scope="module")
def rules():
    return rules_for(get_game("dreadnought").load_data())[0]


def _cube(label, rules):
    return offset_to_cube(*rules.layout.to_offset(label))


def _label(x, z, rules):
    return rules.layout.label(*cube_to_offset(x, z))


def test_hex_numbers_of_the_movement_example_6_0(rules):
    # 1108 facing N: NE-1 -> 1207; NE-4 -> 1506; N-1, NE-3 -> 1405
    x, z = _cube("B1108", rules)
    assert _label(*plot_end_nb(x, z, NE, 0, 1, 0, 0)[:2], rules) == "B1207"
    assert _label(*plot_end_nb(x, z, NE, 0, 4, 0, 0)[:2], rules) == "B1506"
    assert _label(*plot_end_nb(x, z, N, 0, 1, 1, 3)[:2], rules) == "B1405"
    assert hex_dist_nb(x, z, *_cube("B1506", rules)) == 4


def test_sections_butt_together(rules):
    # Jutland's German battle line: F0202, F0103, E2003 ... one hex apart along SW
    chain = ["F0202", "F0103", "E2003", "E1904", "E1804", "E1705"]
    for a, b in zip(chain, chain[1:], strict=False):
        xa, za = _cube(a, rules)
        assert _cube(b, rules) == (xa + DXA[SW], za + DZA[SW])
    assert rules.layout.label(*rules.layout.to_offset("C0713")) == "C0713"


def test_arcs_of_fire_7_1():
    # a ship facing N: ahead is the bow arc, astern the stern arc, abeam the broadside
    assert arc_nb(N, 0, -3) == ARC_BOW
    assert arc_nb(N, 0, 3) == ARC_STERN
    assert arc_nb(N, 3, 0) == ARC_BROADSIDE and arc_nb(N, -3, 0) == ARC_BROADSIDE
    assert arc_nb(N, 1, -3) == ARC_BOW                       # inside the bow wedge
    assert arc_nb(N, 1, -2) == ARC_BROADSIDE                 # on the bow/starboard line: broadside
    assert arc_nb(SE, 3, 0) == ARC_BOW and arc_nb(SE, -3, 0) == ARC_STERN


def test_plot_shapes_and_turn_costs_6_12_7_3(rules):
    rl = rules.rl
    assert plot_mp_nb(0, 6, 0, 0, rl) == 6
    assert plot_mp_nb(1, 6, 0, 0, rl) == 6          # one hexside is free
    assert plot_mp_nb(2, 4, 0, 0, rl) == 6          # two hexsides cost 2 MP
    assert plot_mp_nb(3, 3, 0, 0, rl) == 6          # about face costs 3 MP
    assert plot_mp_nb(0, 2, 1, 4, rl) == 6          # dogleg N-2, NE-4
    assert plot_mp_nb(0, 4, 1, 2, rl) == -1         # last leg shorter than the first
    assert plot_mp_nb(0, 3, 1, 0, rl) == -1         # a turn in the last hex entered
    assert plot_mp_nb(1, 0, 0, 0, rl) == -1         # no turn without entering a hex (ruling DN-M1)
    assert plot_mp_nb(0, 0, 0, 0, rl) == 0
    assert plot_mp_nb(0, 2, 2, 2, rl) == 6          # a radical second turn: 2 + 2 + 2
    px = np.zeros((1, L.MAXMP + 1), dtype=np.int64)
    pz, pf = px.copy(), px.copy()
    mp = plot_path_nb(0, 0, N, 2, 2, 0, 0, rl, px, pz, pf, 0)
    assert mp == 4 and list(px[0, :5]) == [0, 0, 0, 1, 2] and list(pf[0, 1:5]) == [SE] * 4


def _one(movement, speed, s=0):
    st = np.zeros((1, L.NST), dtype=np.int64)
    sh = np.zeros((1, L.NSH), dtype=np.int64)
    st[0, L.ST_MOV] = movement
    sh[0, L.SH_SPD] = speed
    sh[0, L.SH_S] = s
    return st, sh


@pytest.mark.parametrize("movement,speed,s,bounds", [
    (8, 3, 0, (1, 6)),    # 6.4: from 3 no more than 6; down by at most 50% rounded up -> 1
    (8, 6, 0, (3, 8)),    # from 6 no less than 3
    (8, 1, 0, (0, 2)),    # from 1 it may stop
    (8, 0, 0, (0, 1)),    # a stopped ship gets under way at 1 MP (ruling DN-M2)
    (8, 6, 1, (3, 4)),    # 1S halves the allowance: 4
    (8, 6, 2, (3, 3)),    # 2S: no steam, but it must still make 3 MP (6.4)
    (8, 3, 2, (1, 1)),
    (7, 7, 0, (3, 7)),
])
def test_speed_limits_6_4(rules, movement, speed, s, bounds):
    st, sh = _one(movement, speed, s)
    assert speed_bounds_nb(st, sh, 0, rules.rl) == bounds


def _stack_state(units):
    """units: (side, kind, x, z, facing, planned)."""
    n = len(units)
    st = np.zeros((n, L.NST), dtype=np.int64)
    sh = np.zeros((n, L.NSH), dtype=np.int64)
    planned = np.zeros(n, dtype=np.int64)
    for i, (side, kind, x, z, f, p) in enumerate(units):
        st[i, L.ST_SIDE], st[i, L.ST_KIND] = side, kind
        sh[i, L.SH_STATUS] = AFLOAT
        sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F] = x + 100, z, f     # current hexes elsewhere
        sh[i, L.SH_PX], sh[i, L.SH_PZ], sh[i, L.SH_PF] = x, z, f
        planned[i] = p
    return st, sh, planned


def test_stacking_6_31_6_33(rules):
    rl = rules.rl
    four = [(0, CAPITAL, 0, 0, N, 1)] * 4 + [(0, CAPITAL, 0, 0, N, 0)]
    st, sh, planned = _stack_state(four)
    assert not stack_ok_nb(st, sh, 4, 0, 0, N, planned, 5, rl)     # a fifth ship
    planned[3] = 0
    assert stack_ok_nb(st, sh, 4, 0, 0, N, planned, 5, rl)         # the fourth
    assert not stack_ok_nb(st, sh, 4, 0, 0, NE, planned, 5, rl)    # facing another way
    st, sh, planned = _stack_state([(0, SCREEN, 0, 0, N, 1), (0, CAPITAL, 0, 0, N, 0), (0, SCREEN, 1, 0, N, 0)])
    assert not stack_ok_nb(st, sh, 1, 0, 0, N, planned, 3, rl)     # a screen never stacks
    assert stack_ok_nb(st, sh, 2, 1, 0, N, planned, 3, rl)
    st, sh, planned = _stack_state([(1, CAPITAL, 0, 0, N, 0), (0, CAPITAL, 0, 0, N, 0)])
    sh[0, L.SH_X] = 0                                              # an enemy stands in the hex
    assert not stack_ok_nb(st, sh, 1, 0, 0, N, planned, 2, rl)     # 6.13


def test_collisions_6_13_leave_no_hex_shared(rules):
    units = [(0, CAPITAL, 0, 0, N, 0), (0, CAPITAL, 0, 0, N, 0), (1, CAPITAL, 0, 0, S, 0), (1, SCREEN, 0, 0, S, 0)]
    st, sh, _ = _stack_state(units)
    sh[:, L.SH_X] = 0
    sc = np.zeros(L.NSC, dtype=np.int64)
    sc[L.SC_SAFE_N_ROW], sc[L.SC_SAFE_S_ROW] = -1000, 1000
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(3), rng)
    displaced = np.zeros(4, dtype=np.int64)
    moved, fixed = collisions_nb(st, sh, 4, rng, rules.rl, sc, displaced)
    pos = {}
    for i in range(4):
        pos.setdefault((sh[i, L.SH_X], sh[i, L.SH_Z]), []).append(i)
    for members in pos.values():
        sides = {st[i, L.ST_SIDE] for i in members}
        assert len(sides) == 1
        kinds = [st[i, L.ST_KIND] for i in members]
        assert SCREEN not in kinds or len(members) == 1
    assert moved + fixed >= 2 and all(max(abs(sh[i, L.SH_X]), abs(sh[i, L.SH_Z])) <= 2 for i in range(4))


def test_no_about_face_plots_for_jutland_british_battleships(rules):
    cand = np.zeros((256, 8), dtype=np.int64)
    for noabout in (0, 1):
        k = candidates_nb(3, 6, 6, rules.rl, noabout, cand, True)
        about = ((cand[:k, 0] == 3) | (cand[:k, 2] == 3)).any()
        assert bool(about) == (noabout == 0)
        for t1, l1, t2, l2, mp in cand[:k, :5]:
            assert plot_mp_nb(t1, l1, t2, l2, rules.rl) == mp and 3 <= mp <= 6


def test_column_members_follow_the_flagship_6_22(rules):
    # a column of three stacks facing N at (0,0), (0,1), (0,2); the flagship turns NE after 1 hex
    n = 3
    sh = np.zeros((n, L.NSH), dtype=np.int64)
    fm = np.zeros((n, L.NFM), dtype=np.int64)
    trail = np.zeros((n, L.TRAIL, 3), dtype=np.int64)
    for i in range(n):
        sh[i, L.SH_X], sh[i, L.SH_Z], sh[i, L.SH_F], sh[i, L.SH_CUR] = 0, i, N, 2 - i
        sh[i, L.SH_STATUS] = AFLOAT
        trail[0, 2 - i] = (0, i, N)
    fm[0, L.FM_MODE], fm[0, L.FM_FLAG], fm[0, L.FM_HEAD], fm[0, L.FM_MEMBERS] = COLUMN, 0, 2, 3
    buf = np.zeros((n, 3), dtype=np.int64)
    assert straight_column_nb(sh, 0, n, buf) == 3
    px = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pz, pf = px.copy(), px.copy()
    mp = plot_path_nb(0, 0, N, 0, 1, 1, 2, rules.rl, px, pz, pf, 0)
    for i in (1, 2):
        column_member_path_nb(trail, 0, 2, sh[i, L.SH_CUR], mp, px, pz, pf, 0, i)
    # the second ship takes the flagship's hexes one step behind, turning where it turned
    assert [(px[1, t], pz[1, t]) for t in range(mp + 1)] == [(0, 1), (0, 0), (0, -1), (1, -2)]
    assert (px[2, mp], pz[2, mp], pf[2, mp]) == (0, -1, N)       # the rear has not made the turn yet
    commit_column_nb(trail, fm, 0, mp, px, pz, pf, 0)
    assert fm[0, L.FM_HEAD] == 5
    sh[:, L.SH_X], sh[:, L.SH_Z], sh[:, L.SH_F] = px[:, mp], pz[:, mp], pf[:, mp]
    assert straight_column_nb(sh, 0, n, buf) == 0                 # bent: no change to line abreast


def test_arcs_agree_with_angles_everywhere():
    # an independent definition by angles: bow if the bearing is within 30 degrees of the facing,
    # stern if within 30 degrees of the opposite, broadside otherwise (boundaries included)
    import math

    from simlab.games.dreadnought.kernels.geometry import bearing_nb

    def angle(dx, dz):       # flat-topped hexes: x to the east, z rows to the south-south-east
        px, py = 1.5 * dx, math.sqrt(3) * (dz + dx / 2)
        return math.degrees(math.atan2(px, -py)) % 360      # clockwise from north

    for facing in range(6):
        for dx in range(-6, 7):
            for dz in range(-6, 7):
                if dx == 0 and dz == 0:
                    continue
                off = (angle(dx, dz) - 60 * facing + 540) % 360 - 180
                want = ARC_BOW if abs(off) < 30 - 1e-9 else ARC_STERN if abs(off) > 150 + 1e-9 else ARC_BROADSIDE
                assert arc_nb(facing, dx, dz) == want, (facing, dx, dz, off)
                k, tie = bearing_nb(dx, dz)
                assert tie or abs((angle(dx, dz) - 60 * k + 540) % 360 - 180) < 30 + 1e-9


def _crowd(seed, n=24):
    """n units of both sides, capital and screen, crowded on a 4 x 4 patch of hexes around (0, 0)
    (negative coordinates too), some out of play, some planned."""
    r = np.random.default_rng(seed)
    st = np.zeros((n, L.NST), dtype=np.int64)
    sh = np.zeros((n, L.NSH), dtype=np.int64)
    st[:, L.ST_SIDE] = r.integers(0, 2, n)
    st[:, L.ST_KIND] = np.where(r.random(n) < 0.3, SCREEN, CAPITAL)
    sh[:, L.SH_STATUS] = np.where(r.random(n) < 0.9, AFLOAT, AFLOAT + 1)
    sh[:, L.SH_X] = r.integers(-2, 2, n)
    sh[:, L.SH_Z] = r.integers(-2, 2, n)
    sh[:, L.SH_F] = r.integers(0, 2, n)
    sh[:, L.SH_PX] = r.integers(-2, 2, n)
    sh[:, L.SH_PZ] = r.integers(-2, 2, n)
    sh[:, L.SH_PF] = r.integers(0, 2, n)
    sh[:, L.SH_TOW] = -1
    sh[:, L.SH_TOWED_BY] = -1
    planned = (r.random(n) < 0.5).astype(np.int64)
    return st, sh, planned


def test_keyed_collisions_and_quick_stacking_match_the_scans(rules):
    # collisions_keyed_nb must displace the same units, roll the same dice and leave the same
    # position as collisions_nb; quick_stack_ok_nb must answer as stack_ok_nb (6.13, 6.31-6.33)
    sc = np.zeros(L.NSC, dtype=np.int64)
    sc[L.SC_SAFE_N_ROW], sc[L.SC_SAFE_S_ROW] = -1000, 1000
    moved_any = 0
    for seed in range(40):
        st, sh, planned = _crowd(seed)
        n = st.shape[0]
        out = []
        for keyed in (False, True):
            s2 = sh.copy()
            rng = np.zeros(STATE_WORDS, dtype=np.uint64)
            new_state_nb(np.uint64(seed), rng)
            disp = np.zeros(n, dtype=np.int64)
            if keyed:
                res = collisions_keyed_nb(st, s2, n, rng, rules.rl, sc, disp, np.zeros(n, dtype=np.int64),
                                          np.zeros((0, 1), dtype=np.int64))
            else:
                res = collisions_nb(st, s2, n, rng, rules.rl, sc, disp)
            out.append((res, s2, disp, rng.copy()))
        assert out[0][0] == out[1][0]
        assert np.array_equal(out[0][1], out[1][1]) and np.array_equal(out[0][2], out[1][2])
        assert np.array_equal(out[0][3], out[1][3])
        moved_any += out[0][0][0] + out[0][0][1]
        for i in range(n):
            keys = np.zeros(n, dtype=np.int64)
            stack_keys_nb(st, sh, st[i, L.ST_SIDE], n, planned, keys)
            for x in range(-2, 2):
                for z in range(-2, 2):
                    for f in range(2):
                        want = stack_ok_nb(st, sh, i, x, z, f, planned, n, rules.rl)
                        assert quick_stack_ok_nb(st, sh, i, x, z, f, planned, n, rules.rl, keys, True) == want
    assert moved_any > 40      # the crowds did collide and over-stack
