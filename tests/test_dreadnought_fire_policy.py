"""Dreadnought's scripted fire plot (issue 14): the unhalved firer of Rule 5.31 is the Firing
Player's choice, a target's worth is what a shot can still add (Rules 5.42, 9.52-9.54), and the
games table's ``shots_wasted_<side>`` counts gun shots at wrecks."""

import numpy as np
import pytest
from dreadnought_campaign_helpers import position
from numba import njit

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import FIRE_FOCUS_ODDS, FIRE_NEAREST, FIRE_SPREAD_VALUE, N
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.kernels.fire import (
    FireScratch,
    ShotLog,
    band_nb,
    fire_execution_nb,
    range_strength_nb,
)
from simlab.games.dreadnought.policies.fire import designate_nb, plot_fire_nb
from simlab.games.dreadnought.runtime import rule_tables
from simlab.rng import STATE_WORDS, game_seeds, new_state_nb


@pytest.fixture(scope="module")
def rules():
    return rules_for(get_game("dreadnought").load_data())[0]


def _rng(seed=4):
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    return rng


@njit
def _designate(side, st, sh, n, eff_gun, range_tab, band_low, rl, code, rng):
    designate_nb(side, st, sh, n, eff_gun, range_tab, band_low, rl, code, rng)


@njit
def _execute(st, sh, n, tb, rng, ev, out):
    fs = FireScratch(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(6, dtype=np.int64),
                     np.zeros(2, dtype=np.int64))
    return fire_execution_nb(st, sh, n, tb, rng, fs, (out, ev), ShotLog(0, 1, 1, 0))


def _two_firers():
    # AS 20 (range 20) 10 hexes off and AS 15 2 hexes off, both broadside on to a target that
    # cannot fire back (the example of ruling DN-F1)
    return position([
        {"side": 0, "type": "capital", "x": 10, "z": -5, "f": N, "attack": 20, "range": 20},
        {"side": 0, "type": "capital", "x": 2, "z": -1, "f": N, "attack": 15, "range": 12},
        {"side": 1, "type": "capital", "x": 0, "z": 0, "attack": 0, "defense": 6}])[:2]


def test_the_unhalved_firer_is_the_choice_with_the_greater_expected_result(rules):
    st, sh = _two_firers()
    assert [int(v) for v in (np.abs(sh[:2, L.SH_X]) + np.abs(sh[:2, L.SH_Z]) + np.abs(sh[:2, L.SH_X] + sh[:2, L.SH_Z]))
            // 2] == [10, 2]
    # expected Damage Points (5.8) of the two choices: the strongest unhalved (AS 20 -> 20, AS 15
    # halved to 7 -> 21 at 2 hexes) or the near one unhalved (AS 20 halved -> 10, AS 15 -> 45)
    def edp(a, d):
        return rules.eff_gun[band_nb(range_strength_nb(a, d, rules.range_tab), rules.band_low), 0, 6, L.EFF_DP]
    assert round(edp(20, 10) + edp(7, 2), 2) == 15.36
    assert round(edp(10, 10) + edp(15, 2), 2) == 19.92
    sh[:2, L.SH_TGT] = 2
    _designate(0, st, sh, 3, rules.eff_gun, rules.range_tab, rules.band_low, rules.rl, FIRE_FOCUS_ODDS, _rng())
    assert list(sh[:2, L.SH_UNHALVED]) == [0, 1]


def test_the_engine_halves_all_but_the_designated_firer(rules):
    st, sh = _two_firers()
    sh[:2, L.SH_TGT] = 2
    sh[1, L.SH_UNHALVED] = 1
    ev = np.zeros((8, L.NEV), dtype=np.int32)
    out = np.zeros((1, L.NOUT), dtype=np.int64)
    k = _execute(st, sh, 3, rule_tables(rules), _rng(), ev, out)
    assert k == 2
    # 5.31: the AS 20 ship fires halved (10 at 10 hexes), the designated AS 15 ship whole (45)
    assert [(int(e[L.E_FIRER]), int(e[L.E_HALVED]), int(e[L.E_STRENGTH])) for e in ev[:2]] == [(0, 1, 10), (1, 0, 45)]
    # a lone firer is never halved, designated or not
    st, sh = _two_firers()
    sh[0, L.SH_TGT] = 2
    k = _execute(st, sh, 3, rule_tables(rules), _rng(), ev, out)
    assert (int(ev[0, L.E_HALVED]), int(ev[0, L.E_STRENGTH])) == (0, 20)


def _plot(rules, st, sh, code, kn=None):
    n = st.shape[0]
    sc = np.zeros(L.NSC, dtype=np.int64)
    dy = np.zeros(L.NDY, dtype=np.int64)
    kn = np.zeros(L.NKN, dtype=np.float64) if kn is None else kn
    plot_fire_nb(0, st, sh, n, 12, code, kn, rules.rl, rules.eff_gun, rules.eff_crt, rules.range_tab,
                 rules.band_low, _rng(), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                 np.zeros((4, 2), dtype=np.int64), dy, 3, sc)
    return [int(v) for v in sh[st[:, L.ST_SIDE] == 0, L.SH_TGT]]


@pytest.mark.parametrize("code", [FIRE_FOCUS_ODDS, FIRE_SPREAD_VALUE, FIRE_NEAREST])
def test_a_wreck_is_no_target_while_a_ship_that_can_still_be_hurt_is_in_reach(rules, code):
    # one firer; a wreck (2G, 2S: only a sinking can still score) 4 hexes off, an undamaged ship
    # of the same class 5 hexes off. The 0.x scorer weighed the wreck 3x (1 + 0.5 (G + S)).
    st, sh = position([
        {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N, "attack": 30},
        {"side": 1, "type": "capital", "x": -4, "z": 2, "G": 2, "S": 2},
        {"side": 1, "type": "capital", "x": 5, "z": -2}])[:2]
    assert _plot(rules, st, sh, code) == [2]


def test_focus_puts_the_next_firer_where_a_wreck_is_worth_most(rules):
    # a ship at 2G, 1S is one S step from a wreck (80% of its value, 9.52) while a step on a
    # fresh ship is repaired for 1 VP (9.53): the strongest firer takes the damaged ship
    st, sh = position([
        {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N, "attack": 30},
        {"side": 1, "type": "capital", "x": -4, "z": 2, "G": 2, "S": 1},
        {"side": 1, "type": "capital", "x": 4, "z": -2}])[:2]
    assert _plot(rules, st, sh, FIRE_FOCUS_ODDS) == [1]


def test_shots_wasted_is_the_share_of_gun_shots_at_wrecks():
    g = get_game("dreadnought")
    sc = g.load_scenario("dogger-bank")
    b = g.play_batch(sc, g.resolve_options({}), {"british": "close-and-engage", "german": "close-and-engage"},
                     game_seeds(14, 1, 0, 64))
    for s in sc.sides:
        w = b.games[f"shots_wasted_{s}"]
        assert w.dtype == np.float32 and ((w >= 0) & (w <= 1)).all()
        shots = b.games[f"shots_{s}"]
        assert (w[shots == 0] == 0).all()
        # the scripted fire plot keeps its gun shots off wrecks (issue 14: under 15%)
        assert float((w * shots).sum() / max(1, shots.sum())) < 0.15


def test_a_secondary_battery_attack_is_not_fire_under_5_6(rules):
    # a screen unit attacked only by a battleship's secondary batteries (8.41) fires its own guns
    # without the -2 of 5.6 (ruling DN-F3); fired at by a main battery, it takes it
    st, sh = position([
        {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N},
        {"side": 1, "type": "CA", "x": 3, "z": -1, "f": N}])[:2]
    sh[1, L.SH_TGT] = 0
    sh[0, L.SH_SB] = 1
    ev = np.zeros((8, L.NEV), dtype=np.int32)
    out = np.zeros((1, L.NOUT), dtype=np.int64)
    k = _execute(st, sh, 2, rule_tables(rules), _rng(), ev, out)
    gun = [e for e in ev[:k] if e[L.E_FIRER] == 1]
    assert len(gun) == 1 and int(gun[0][L.E_UPON]) == 0
    st, sh = position([
        {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N},
        {"side": 1, "type": "CA", "x": 3, "z": -1, "f": N}])[:2]
    sh[1, L.SH_TGT] = 0
    sh[0, L.SH_TGT] = 1
    k = _execute(st, sh, 2, rule_tables(rules), _rng(), ev, out)
    assert [int(e[L.E_UPON]) for e in ev[:k]] == [1, 1]
