"""Torpedo Markers on hand-built positions: Rules 8.0 (hits), 8.1 (every unit met), 8.23, 8.31,
8.32 (combing), and the launch bookkeeping of whole games (8.13, 8.21-8.22)."""

import numpy as np
import pytest
from numba import njit

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import NE, NW, PORT, SE, STARBOARD, N, S
from simlab.games.dreadnought.game import rules_for, run_games
from simlab.games.dreadnought.kernels.fire import ShotLog
from simlab.games.dreadnought.kernels.geometry import DXA, DZA
from simlab.games.dreadnought.kernels.torpedo import (
    Markers,
    TorpedoScratch,
    UnitPaths,
    marker_path_nb,
    sweep_nb,
    torpedo_attacks_nb,
)
from simlab.games.dreadnought.runtime import rule_tables
from simlab.rng import game_seeds

MAXMP = L.MAXMP


def _paths(ships):
    """ships: list of (x, z, [directions per MP]); a direction of -1 stays in the hex."""
    n = len(ships)
    px = np.zeros((n, MAXMP + 1), dtype=np.int64)
    pz = np.zeros((n, MAXMP + 1), dtype=np.int64)
    pf = np.zeros((n, MAXMP + 1), dtype=np.int64)
    mp = np.zeros(n, dtype=np.int64)
    for i, (x, z, steps) in enumerate(ships):
        f = steps[0] if steps and steps[0] >= 0 else N
        px[i, 0], pz[i, 0], pf[i, 0] = x, z, f
        for t in range(1, MAXMP + 1):
            if t <= len(steps):
                d = steps[t - 1]
                if d >= 0:
                    x += DXA[d]
                    z += DZA[d]
                    f = d
            px[i, t], pz[i, t], pf[i, t] = x, z, f
        mp[i] = len(steps)
    return px, pz, pf, mp


def _marker(x, z, steps):
    mx = np.zeros((4, L.MAXTRACK + 1), dtype=np.int64)
    mz = np.zeros_like(mx)
    md = np.zeros_like(mx)
    mx[0, 0], mz[0, 0] = x, z
    for t, d in enumerate(steps, start=1):
        x += DXA[d]
        z += DZA[d]
        mx[0, t], mz[0, t], md[0, t] = x, z, d
    return mx, mz, md


def _sweep(marker, ships, ma=None):
    mx, mz, md = _marker(*marker)
    px, pz, pf, mp = _paths(ships)
    n = len(ships)
    hits = np.zeros((4 * n, 4), dtype=np.int64)
    k = sweep_nb(1, ma or len(marker[2]), Markers(mx, mz, md, np.zeros(4, dtype=np.int64)), n,
                 UnitPaths(px, pz, pf, mp, np.ones(n, dtype=np.int64), np.full(n, MAXMP + 1, dtype=np.int64)),
                 np.zeros((4, n), dtype=np.int8), hits)
    return [tuple(int(v) for v in h[1:]) for h in hits[:k]]   # (unit, MP, combing)


def test_same_hex_at_the_same_mp():
    # marker NE, NE from (0,0) -> (2,-2) at MP 2; a ship from (2,0) N, N enters (2,-2) at MP 2
    assert _sweep((0, 0, [NE, NE]), [(2, 0, [N, N])]) == [(0, 2, 0)]
    # one MP later it would miss: the ship is still short of the hex
    assert _sweep((0, 0, [NE, NE]), [(2, 1, [N, N, N])]) == []


def test_crossing_the_same_hexside_in_opposite_directions_is_a_hit_and_combing():
    # marker (0,0) -> (1,0) heading SE; the ship (1,0) -> (0,0) heading NW at the same MP
    assert _sweep((0, 0, [SE]), [(1, 0, [NW])]) == [(0, 1, 1)]


def test_leaving_through_another_hexside_is_no_hit():
    assert _sweep((0, 0, [SE]), [(1, 0, [N])]) == []
    # passing through the marker's hex at another MP is no hit either
    assert _sweep((0, 0, [SE, SE]), [(2, -1, [S, S, S])]) == []
    assert _sweep((0, 0, [SE, SE]), [(2, -2, [S, S, S])]) == [(0, 2, 0)]   # a step earlier it meets it


def test_a_unit_standing_in_the_hex_is_not_met_and_every_unit_of_a_stack_is_attacked():
    # 8.0: the marker hits a ship that enters a hex "at the same instant"; a stack that stays in
    # the hex the marker enters (stopped, or done moving) is not met (ruling DN-T1)
    assert _sweep((0, 0, [SE, SE]), [(2, 0, []), (2, 0, []), (2, 0, [])]) == []
    assert _sweep((0, 0, [NE, NE]), [(2, -1, [N])]) == []          # there after MP 1, the marker at MP 2
    # a stack entering the marker's hex together is attacked unit by unit (8.11)
    stack = [(2, 0, [N, N]), (2, 0, [N, N]), (2, 0, [N, N])]
    assert _sweep((0, 0, [NE, NE]), stack) == [(0, 2, 0), (1, 2, 0), (2, 2, 0)]


def test_combing_when_parallel_or_opposite():
    # same heading, entering together: parallel -> combing
    assert _sweep((0, 0, [N, N]), [(0, 0, [N, N])]) == [(0, 1, 1)]   # attacked once only (8.11)
    # a ship heading SE meeting a marker heading NE is not combing
    assert _sweep((0, 0, [NE]), [(0, -1, [SE])])[0][2] == 0


def test_marker_is_gone_after_its_movement_points():
    # a 2-MP marker (1906-20) stops at (0,-2); a ship entering that hex at MP 3 is not hit
    assert _sweep((0, 0, [N, N]), [(0, -5, [S, S, S])], ma=2) == []


def test_tracks_leave_through_starboard_or_port_and_mirror():
    rules = rules_for(get_game("dreadnought").load_data())[0]
    mx = np.zeros((2, L.MAXTRACK + 1), dtype=np.int64)
    mz = np.zeros_like(mx)
    md = np.zeros_like(mx)
    a = rules.track_names.index("A")
    marker_path_nb(0, 0, N, a, STARBOARD, 5, rules.tracks, mx, mz, md, 0)
    marker_path_nb(0, 0, N, a, PORT, 5, rules.tracks, mx, mz, md, 1)
    assert list(md[0, 1:6]) == [NE, N, NE, N, NE]
    assert list(md[1, 1:6]) == [NW, N, NW, N, NW]
    assert list(mx[0, 1:6]) == [-v for v in mx[1, 1:6]]


@pytest.mark.parametrize("scenario", ["dogger-bank", "surigao-strait"])
def test_whole_games_count_torpedo_attacks_and_hits_consistently(scenario):
    g = get_game("dreadnought")
    sc = g.load_scenario(scenario)
    setup, rules = sc.payload
    pols = {s: "random-legal" for s in sc.sides}
    out, ev = run_games(setup, rules, pols, game_seeds(5, 1, 0, 40), {"shots": True})
    torp = ev[ev[:, L.E_KIND] == 2]
    side = setup.st[:, L.ST_SIDE]
    friendly = side[torp[:, L.E_FIRER]] == side[torp[:, L.E_TARGET]]
    # every hit is a shots row; friend and foe are both attacked (8.13)
    assert out[:, L.O_TORP0].sum() + out[:, L.O_TORP1].sum() == (~friendly).sum()
    assert out[:, L.O_FRIENDLY_TORP].sum() == friendly.sum()
    # 8.22: at most two attacks per screen unit per scenario
    launchers = (setup.st[:, L.ST_TORP] > 0)
    for k in range(2):
        assert (out[:, L.O_LAUNCH0 + k] <= 2 * (launchers & (side == k)).sum()).all()
    assert out[:, L.O_LAUNCH0].sum() + out[:, L.O_LAUNCH1].sum() > 0


def test_markers_know_no_sides_friend_and_foe_alike_8_13():
    # two units on the track, whatever their side: both are attacked, in the order met
    assert _sweep((0, 0, [SE, SE, SE]), [(3, 3, [N, N, N]), (1, 1, [N])]) == [(1, 1, 0), (0, 3, 0)]


@njit
def _torpedo_attacks(st, sh, n, nm, ma, mk, up, ts, tb, rng, io, log):
    # torpedo_attacks_nb has no CPython wrapper: called from a kernel
    return torpedo_attacks_nb(st, sh, n, nm, ma, mk, up, ts, tb, rng, io, log)


def _torpedo_phase(smoking_dd: bool):
    """A launcher at (0,0) fires a marker N, N; the target enters (0,-2) at MP 2 with it. A
    smoking DD vacates (0,-1), between them, at MP 1 (Rules 12.11-12.12)."""
    from dreadnought_campaign_helpers import position

    from simlab.games.dreadnought.rules import with_options
    from simlab.rng import STATE_WORDS, new_state_nb
    rules = rules_for(get_game("dreadnought").load_data())[0]
    st, sh, _, _, _ = position([
        {"side": 0, "type": "DD", "x": 0, "z": 0, "torp": 1},
        {"side": 1, "type": "capital", "x": 0, "z": -4, "f": S},
        {"side": 1, "type": "DD", "x": 0, "z": -1, "f": NE}])
    sh[:, L.SH_MP] = [0, 2, 1]
    sh[2, L.SH_SMOKE] = 1 if smoking_dd else 0
    px, pz, pf, _ = _paths([(0, 0, []), (0, -4, [S, S]), (0, -1, [NE])])
    mx, mz, md = _marker(0, 0, [N, N])
    n = 3
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(3), rng)
    out = np.zeros((1, L.NOUT), dtype=np.int64)
    _torpedo_attacks(st, sh, n, 1, 2, Markers(mx, mz, md, np.zeros(4, dtype=np.int64)),
                     UnitPaths(px, pz, pf, np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64),
                               np.full(n, MAXMP + 1, dtype=np.int64)),
                     TorpedoScratch(np.zeros((4, n), dtype=np.int8), np.zeros((4 * n, 4), dtype=np.int64),
                                    np.zeros(2, dtype=np.int64), np.zeros((40, 2), dtype=np.int64)),
                     rule_tables(rules, with_options(rules.rl, {"smoke": True})), rng,
                     (out, np.zeros((4, L.NEV), dtype=np.int32)), ShotLog(0, 1, 0, 0))
    return int(sh[1, L.SH_TORPHIT]), int(sh[2, L.SH_TORPHIT])


def test_smoke_laid_this_movement_phase_blocks_the_torpedo_attack():
    # 12.11: the DD's Smoke Marker in (0,-1) is on the map from MP 1 of this phase; the hit at
    # MP 2 is then between two ships with smoke between them (12.12); the DD itself is not met
    assert _torpedo_phase(smoking_dd=False) == (1, 0)
    assert _torpedo_phase(smoking_dd=True) == (0, 0)
