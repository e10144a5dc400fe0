"""Dreadnought's tactical choices of issue 28 made by the policy, each knob at its bounds in a
set-up where the two bounds play differently: the 6.13 displacement hex and whether a displaced
ship stays in its formation (`displace`, `displaced_stays`), a line's flagship (6.26,
`flagship`), formations merging (6.27, `merge`) and lone ships rejoining (6.28, `rejoin`), the
secondary-battery target (8.41, `sb`), smoke (12.11, `smoke`) and taking a tow (12.41,
`tow_clear`, `tow_capital`)."""

import numpy as np
import pytest
from dreadnought_campaign_helpers import position
from numba import njit

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import (
    COLUMN,
    FIRE_NEAREST,
    LINE,
    MOVE_BREAK,
    MOVE_CLOSE,
    MOVE_RANDOM,
    N,
    S,
)
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.kernels.formations import straight_column_nb
from simlab.games.dreadnought.kernels.movement import resolve_collisions_nb
from simlab.games.dreadnought.policies.fire import plot_fire_nb
from simlab.games.dreadnought.policies.formation_plans import maintain_formations_nb
from simlab.games.dreadnought.policies.movement import plot_smoke_nb
from simlab.games.dreadnought.policies.tows import assign_tows_nb
from simlab.games.dreadnought.rules import with_options
from simlab.games.dreadnought.runtime import pack_policies, policy_book
from simlab.rng import STATE_WORDS, new_state_nb

GAME = get_game("dreadnought")


@pytest.fixture(scope="module")
def rules():
    return rules_for(GAME.load_data())[0]


def _rng(seed=4):
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    return rng


def _pol(preset="close-and-engage", **knobs):
    """``(pc, kn)`` of side 0 playing ``preset`` with ``knobs``, side 1 close-and-engage."""
    return pack_policies({"a": policy_book().resolve("a", preset, knobs), "b": "close-and-engage"}, ("a", "b"))


@njit
def _resolve(st, sh, fm, n, rng, rl, sc, pcs):
    displaced = np.zeros(n, dtype=np.int64)
    out = np.zeros((1, L.NOUT), dtype=np.int64)
    work = (displaced, np.zeros(n + 1, dtype=np.int64), np.zeros((n, 3), dtype=np.int64),
            np.zeros((n, L.TRAIL, 3), dtype=np.int64))
    resolve_collisions_nb(st, sh, fm, n, rng, rl, sc, work, out, 0, pcs)
    return displaced


@njit
def _maintain(side, st, sh, fm, trail, n, rl, pc, rng):
    maintain_formations_nb(side, st, sh, fm, trail, n, rl, pc, np.zeros((n, 3), dtype=np.int64), rng)


@njit
def _smoke(side, st, sh, n, pc, rng):
    plot_smoke_nb(side, st, sh, n, pc, rng)


def _pcs(**codes):
    """Both sides' codes in force: close-and-engage with ``codes`` (knob names) for both."""
    pc, _ = pack_policies({"a": policy_book().resolve("a", "close-and-engage", codes),
                           "b": policy_book().resolve("b", "close-and-engage", codes)}, ("a", "b"))
    return pc


# ---- 6.13: the displacement hex and the formation of a displaced ship

def _collision():
    # capital ships of both sides end in hex (0, 0) facing N; a DD of side 0 holds the hex ahead,
    # which neither may enter (a capital ship does not stack with a screen, 6.31; nor enters an
    # enemy's hex, 6.13): the loser goes ahead-right (1, -1) or ahead-left (-1, 0)
    st, sh, fm, trail, sc = position([
        {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N},
        {"side": 1, "type": "capital", "x": 5, "z": 5, "f": N},
        {"side": 0, "type": "DD", "x": 0, "z": -1, "f": N}])
    sh[1, L.SH_X] = 0
    sh[1, L.SH_Z] = 0
    return st, sh, fm, sc


@pytest.mark.parametrize("pref, hexes", [(0, (1, -1)), (1, (-1, 0))])
def test_the_loser_of_a_collision_takes_the_side_of_its_course_its_policy_prefers_6_13(rules, pref, hexes):
    losers = set()
    for seed in range(8):
        st, sh, fm, sc = _collision()
        disp = _resolve(st, sh, fm, 3, _rng(seed), rules.rl, sc, _pcs(displace=pref))
        (i,) = np.flatnonzero(disp)
        losers.add(int(i))
        assert (int(sh[i, L.SH_X]), int(sh[i, L.SH_Z])) == hexes
        other = 1 - i
        assert (int(sh[other, L.SH_X]), int(sh[other, L.SH_Z])) == (0, 0)
    assert losers == {0, 1}                 # the die roll decides who moves; the policy where to


def test_random_legal_displaces_to_either_side(rules):
    pcs = _pcs()
    pcs[:, L.PC_MOVE] = MOVE_RANDOM
    seen = set()
    for seed in range(40):
        st, sh, fm, sc = _collision()
        disp = _resolve(st, sh, fm, 3, _rng(seed), rules.rl, sc, pcs)
        (i,) = np.flatnonzero(disp)
        seen.add((int(sh[i, L.SH_X]), int(sh[i, L.SH_Z])))
    assert seen == {(1, -1), (-1, 0)}


def _line_collision():
    # side 0's line abreast formation of two (flagship 0 at (0, 0), unit 1 at (1, -1), both N);
    # side 1's capital ship ends in unit 1's hex; side 0's DD holds the hex ahead of it: side 0's
    # unit 1, displaced ahead-left (displace 1), lands at (0, -1), next to its flagship
    st, sh, fm, trail, sc = position([
        {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N},
        {"side": 0, "type": "capital", "x": 1, "z": -1, "f": N},
        {"side": 1, "type": "capital", "x": 5, "z": 5, "f": N},
        {"side": 0, "type": "DD", "x": 1, "z": -2, "f": N}])
    sh[2, L.SH_X] = 1
    sh[2, L.SH_Z] = -1
    sh[1, L.SH_FORM] = 0
    fm[1, L.FM_MEMBERS] = 0
    fm[1, L.FM_FLAG] = -1
    fm[0, L.FM_MEMBERS] = 2
    return st, sh, fm, sc


@pytest.mark.parametrize("stays", [0, 1])
def test_a_displaced_ship_stays_in_its_line_only_if_its_policy_keeps_it_6_13(rules, stays):
    played = 0
    for seed in range(12):
        st, sh, fm, sc = _line_collision()
        disp = _resolve(st, sh, fm, 4, _rng(seed), rules.rl, sc, _pcs(displace=1, displaced_stays=stays))
        if not disp[1]:
            continue                        # side 1 lost the roll
        played += 1
        assert (int(sh[1, L.SH_X]), int(sh[1, L.SH_Z])) == (0, -1)
        assert int(sh[1, L.SH_FORM] == 0) == stays
        assert int(fm[0, L.FM_MEMBERS]) == (2 if stays else 1)
    assert played >= 3


def test_a_displaced_ship_leaves_a_column_it_no_longer_stands_in_line_with(rules):
    # _line_collision's unit 1 displaced ahead-right, to (2, -2), stands in no straight column
    # with its flagship at (0, 0) (ahead-left, to (0, -1), it would: straight ahead of it)
    played = 0
    for seed in range(12):
        st, sh, fm, sc = _line_collision()
        fm[0, L.FM_MODE] = COLUMN
        disp = _resolve(st, sh, fm, 4, _rng(seed), rules.rl, sc, _pcs(displace=0, displaced_stays=1))
        if disp[1]:
            played += 1
            assert (int(sh[1, L.SH_X]), int(sh[1, L.SH_Z])) == (2, -2) and sh[1, L.SH_FORM] != 0
    assert played >= 3


@pytest.mark.parametrize("stays", [0, 1])
def test_a_ship_displaced_ahead_along_its_column_stays_in_it_if_its_policy_keeps_it_6_13(rules, stays):
    # side 0's column: flagship 0 at (0, -1), unit 1 astern at (0, 0), both N; side 1's capital
    # ship ends in (0, 0): side 0's unit 1, displaced ahead, stacks with its flagship (6.31), the
    # column still straight; it stays (its wake rebuilt) or leaves as its policy says
    played = 0
    for seed in range(12):
        st, sh, fm, trail, sc = position([
            {"side": 0, "type": "capital", "x": 0, "z": -1, "f": N},
            {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N},
            {"side": 1, "type": "capital", "x": 5, "z": 5, "f": S}])
        sh[2, L.SH_X] = 0
        sh[2, L.SH_Z] = 0
        sh[1, L.SH_FORM] = 0
        fm[1, L.FM_MEMBERS] = 0
        fm[1, L.FM_FLAG] = -1
        fm[0, L.FM_MEMBERS] = 2
        fm[0, L.FM_MODE] = COLUMN
        disp = _resolve(st, sh, fm, 3, _rng(seed), rules.rl, sc, _pcs(displaced_stays=stays))
        if not disp[1]:
            continue
        played += 1
        assert (int(sh[1, L.SH_X]), int(sh[1, L.SH_Z])) == (0, -1)
        assert int(sh[1, L.SH_FORM] == 0) == stays
        if stays:
            assert int(fm[0, L.FM_MODE]) == COLUMN and int(fm[0, L.FM_MEMBERS]) == 2
            assert int(sh[0, L.SH_CUR]) == int(sh[1, L.SH_CUR]) == int(fm[0, L.FM_HEAD])
    assert played >= 3


# ---- 6.26-6.28: flagship, merging, rejoining

def _line(units, groups, mode=LINE):
    """A position whose side-0 units form the formations ``groups`` (lists of unit indices, the
    first each formation's flagship)."""
    st, sh, fm, trail, sc = position(units)
    for g in groups:
        f = g[0]
        for i in g:
            sh[i, L.SH_FORM] = f
            if i != f:
                fm[i, L.FM_MEMBERS] = 0
                fm[i, L.FM_FLAG] = -1
        fm[f, L.FM_MEMBERS] = len(g)
        fm[f, L.FM_MODE] = mode
    return st, sh, fm, trail


def _formations(sh, n):
    return sorted(sorted(int(i) for i in np.flatnonzero(sh[:n, L.SH_FORM] == f)) for f in set(sh[:n, L.SH_FORM]))


def test_a_line_takes_the_member_nearest_the_enemy_as_flagship_when_the_policy_says_so_6_26(rules):
    units = [dict(side=0, type="capital", x=0, z=0, f=S), dict(side=0, type="capital", x=1, z=0, f=S),
             dict(side=1, type="capital", x=1, z=8)]
    for flagship, want in ((0, 0), (1, 1)):
        st, sh, fm, trail = _line(units, [[0, 1]])
        pc, _ = _pol(formation=-1, flagship=flagship)
        _maintain(0, st, sh, fm, trail, 3, rules.rl, pc[0], _rng())
        assert int(fm[0, L.FM_FLAG]) == want and int(fm[0, L.FM_MEMBERS]) == 2


LINES = [dict(side=0, type="capital", x=0, z=0, f=N), dict(side=0, type="capital", x=1, z=0, f=N),
         dict(side=0, type="capital", x=2, z=0, f=N), dict(side=0, type="capital", x=3, z=0, f=N),
         dict(side=0, type="capital", x=4, z=0, f=N), dict(side=1, type="capital", x=0, z=-30)]


@pytest.mark.parametrize("knobs, want", [
    ({}, [[0, 1], [2, 3], [4], [5]]),
    ({"merge": 1}, [[0, 1, 2, 3], [4], [5]]),                    # 6.27: the lone ship stays alone
    ({"rejoin": 1}, [[0, 1], [2, 3, 4], [5]]),                   # 6.28: it joins the line it touches
    ({"merge": 1, "rejoin": 1}, [[0, 1, 2, 3, 4], [5]]),
])
def test_lines_that_stand_together_merge_and_lone_ships_rejoin_as_the_policy_chooses_6_27_6_28(rules, knobs, want):
    st, sh, fm, trail = _line(LINES, [[0, 1], [2, 3]])
    pc, _ = _pol(formation=-1, **knobs)
    _maintain(0, st, sh, fm, trail, 6, rules.rl, pc[0], _rng())
    assert _formations(sh, 6) == want
    for f in set(int(v) for v in sh[:5, L.SH_FORM]):
        assert int(fm[f, L.FM_MEMBERS]) == int(np.count_nonzero(sh[:6, L.SH_FORM] == f))


def test_nothing_joins_across_facings_kinds_or_the_drops_of_keep_damaged(rules):
    units = [dict(u) for u in LINES]
    units[2]["f"] = S                         # the second line faces the other way
    units[3]["f"] = S
    units[4].update(type="DD")                # a screen does not join capital ships
    st, sh, fm, trail = _line(units, [[0, 1], [2, 3]])
    pc, _ = _pol(formation=-1, merge=1, rejoin=1)
    _maintain(0, st, sh, fm, trail, 6, rules.rl, pc[0], _rng())
    assert _formations(sh, 6) == [[0, 1], [2, 3], [4], [5]]
    units = [dict(u) for u in LINES]
    units[4].update(G=2, S=1)                 # three steps: dropped at once by keep_damaged 0
    st, sh, fm, trail = _line(units, [[0, 1], [2, 3]])
    _maintain(0, st, sh, fm, trail, 6, rules.rl, pc[0], _rng())
    assert _formations(sh, 6) == [[0, 1, 2, 3], [4], [5]]


def test_two_columns_one_behind_the_other_merge_into_one_column_with_its_wake_6_27(rules):
    # a column of two at (0, 0), (0, 1) and another at (0, 2), (0, 3), all facing N
    units = [dict(side=0, type="capital", x=0, z=z, f=N) for z in range(4)] + \
        [dict(side=1, type="capital", x=10, z=-30)]
    st, sh, fm, trail = _line(units, [[0, 1], [2, 3]])
    for f in (0, 2):
        fm[f, L.FM_MODE] = COLUMN
    pc, _ = _pol(formation=0, merge=1)
    _maintain(0, st, sh, fm, trail, 5, rules.rl, pc[0], _rng())
    assert _formations(sh, 5) == [[0, 1, 2, 3], [4]]
    f = int(sh[0, L.SH_FORM])
    assert int(fm[f, L.FM_MODE]) == COLUMN and int(fm[f, L.FM_FLAG]) == 0
    assert straight_column_nb(sh, f, 5, np.zeros((5, 3), dtype=np.int64)) == 4
    head = int(fm[f, L.FM_HEAD])
    for i in range(4):                        # each member stands on the wake at its cursor
        e = int(sh[i, L.SH_CUR]) % L.TRAIL
        assert (int(trail[f, e, 0]), int(trail[f, e, 1])) == (0, i) and head - int(sh[i, L.SH_CUR]) == i
    # side by side, two columns make no straight column: nothing merges
    units = [dict(side=0, type="capital", x=0, z=0, f=N), dict(side=0, type="capital", x=0, z=1, f=N),
             dict(side=0, type="capital", x=1, z=0, f=N), dict(side=0, type="capital", x=1, z=1, f=N),
             dict(side=1, type="capital", x=10, z=-30)]
    st, sh, fm, trail = _line(units, [[0, 1], [2, 3]])
    for f in (0, 2):
        fm[f, L.FM_MODE] = COLUMN
    _maintain(0, st, sh, fm, trail, 5, rules.rl, pc[0], _rng())
    assert _formations(sh, 5) == [[0, 1], [2, 3], [4]]


# ---- 8.41: the secondary-battery target

def _sb_plot(rules, sb):
    # a capital ship with a DD 2 hexes off and a CA (worth more) 4 hexes off, both in SB reach
    st, sh = position([
        {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N, "attack": 30},
        {"side": 1, "type": "DD", "x": 2, "z": -1, "attack": 2, "defense": 2, "movement": 8},
        {"side": 1, "type": "CA", "x": 4, "z": -2, "attack": 6, "defense": 4, "movement": 8}])[:2]
    assert st[2, L.ST_VAL] > st[1, L.ST_VAL]
    _, kn = _pol(sb=sb)
    n = 3
    plot_fire_nb(0, st, sh, n, 12, FIRE_NEAREST, kn[0], rules.rl, rules.eff_gun, rules.eff_crt, rules.range_tab,
                 rules.band_low, _rng(), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                 np.zeros((4, 2), dtype=np.int64), np.zeros(L.NDY, dtype=np.int64), 3, np.zeros(L.NSC, dtype=np.int64))
    return int(sh[0, L.SH_SB])


def test_the_secondary_battery_target_is_the_policys_8_41(rules):
    assert rules.rl[L.RL_SB_RANGE] == 5
    assert [_sb_plot(rules, sb) for sb in (0, 1, 2)] == [1, 2, -1]


# ---- 12.11: smoke

def test_which_destroyers_make_smoke_is_the_policys_12_11(rules):
    st, sh = position([
        {"side": 0, "type": "DD", "x": 0, "z": 0}, {"side": 0, "type": "capital", "x": 10, "z": 0},
        {"side": 1, "type": "capital", "x": 0, "z": -20}])[:2]
    made = {}
    for move in (MOVE_CLOSE, MOVE_BREAK):
        for smoke in (0, 1, 2):
            pc, _ = _pol(smoke=smoke)
            pc[0, L.PC_MOVE] = move
            _smoke(0, st, sh, 3, pc[0], _rng())
            made[move, smoke] = int(sh[0, L.SH_SMOKE])
    # 0: only a side breaking off (or a DD near a damaged capital ship); 1 never; 2 always
    assert made == {(MOVE_CLOSE, 0): 0, (MOVE_CLOSE, 1): 0, (MOVE_CLOSE, 2): 1,
                    (MOVE_BREAK, 0): 1, (MOVE_BREAK, 1): 0, (MOVE_BREAK, 2): 1}


# ---- 12.41: taking a tow

def _tow_position(enemy_z):
    return position([
        {"side": 0, "type": "capital", "x": 0, "z": 0, "G": 2, "S": 2},      # 0 a wreck at rest
        {"side": 0, "type": "CA", "x": 4, "z": 0},                           # 1 a cruiser 4 hexes off
        {"side": 0, "type": "capital", "x": 1, "z": 0},                      # 2 a capital ship next to it
        {"side": 1, "type": "CA", "x": 0, "z": enemy_z}])[:2]                # 3 the enemy


@pytest.mark.parametrize("enemy_z, clear, towed", [
    (-12, 1.0, True),      # beyond the visibility (10): the default takes the tow
    (-12, 3.0, False),     # within 3 x 10 hexes: wait
    (-5, 1.0, False),      # within the visibility: wait
    (-5, 0.0, True),       # 0: at once
])
def test_a_tow_is_taken_once_the_enemy_is_as_far_as_the_policy_wants_12_41(rules, enemy_z, clear, towed):
    st, sh = _tow_position(enemy_z)
    _, kn = _pol(tow_clear=clear)
    assign_tows_nb(0, st, sh, 4, 10, with_options(rules.rl, {"towing": True}), False, MOVE_CLOSE, kn[0], _rng())
    assert (int(sh[0, L.SH_TOWED_BY]) >= 0) == towed


@pytest.mark.parametrize("capital, tower", [(8.0, 1), (16.0, 1), (2.0, 2), (0.0, 2)])
def test_the_towing_ship_is_the_policys_choice_12_41(rules, capital, tower):
    st, sh = _tow_position(-30)
    _, kn = _pol(tow_capital=capital)
    assign_tows_nb(0, st, sh, 4, 10, with_options(rules.rl, {"towing": True}), False, MOVE_CLOSE, kn[0], _rng())
    assert int(sh[0, L.SH_TOWED_BY]) == tower and int(sh[tower, L.SH_TOW]) == 0
