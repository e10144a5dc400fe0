"""Dreadnought rule text the engine once departed from (issue 14), each on the printed case:
10.7 (Jutland's starting damage), 10.3 / 9.42 (North Cape's no-sighting count, from a sighting on
Game-Turn One, 10.0); and the worked
example of 5.71 (visibility)."""

import numpy as np
import pytest
from numba import njit

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import END_REASONS
from simlab.games.dreadnought.kernels.visibility import visibility_roll_nb
from simlab.games.dreadnought.scenario import starting_award
from simlab.rng import game_seeds


@pytest.fixture(scope="module")
def game():
    return get_game("dreadnought")


def test_jutland_starting_damage_is_not_scored_as_damage_inflicted_10_7(game):
    sc = game.load_scenario("jutland")
    setup, rules = sc.payload
    labels = list(setup.labels)
    st, sh0 = setup.st, setup.sh0
    damaged = {lab: (int(sh0[i, L.SH_G]), int(sh0[i, L.SH_S])) for i, lab in enumerate(labels)
               if sh0[i, L.SH_G] or sh0[i, L.SH_S]}
    assert sorted(damaged.values()) == [(0, 2), (1, 0), (2, 0)]
    # the award of each starting state, were the game to end at once (9.52-9.53): 1, 2 and 2 VP
    awards = {lab: starting_award(int(st[labels.index(lab), L.ST_VAL]), int(st[labels.index(lab), L.ST_DEF]),
                                  g, s, rules.vp_pct) for lab, (g, s) in damaged.items()}
    assert sorted(awards.values()) == [1, 2, 2]
    # ruling DN-S7: the British start at -3 (Lützow, von der Tann), the Germans at 49 - 2 (Warspite)
    assert setup.sides == ("british", "german")
    assert (int(setup.sc[L.SC_START_VP0]), int(setup.sc[L.SC_START_VP1])) == (-3, 47)


def test_iron_duke_example_of_the_award_9_53():
    # Iron Duke (value 29, Defense Strength 6) at 1G, 2S with no step removed: all three removed, 3 VP
    assert starting_award(29, 6, 1, 2, np.array([0, 20, 40, 60, 80])) == 3
    # a wreck: 80% of 29, fractions dropped (9.52)
    assert starting_award(29, 6, 2, 2, np.array([0, 20, 40, 60, 80])) == 23


def test_north_cape_ends_after_three_turns_without_sighting_from_game_turn_one_10_3(game):
    sc = game.load_scenario("north-cape")
    b = game.play_batch(sc, game.resolve_options({}), {"british": "close-and-engage", "german": "break-contact"},
                        game_seeds(103, 1, 0, 60))
    reason = b.games["end_reason"]
    turns = b.games["turns"]
    ns = reason == END_REASONS.index("no_sighting")
    # 10.0: sighted on Game-Turn One (DN-S8); 9.42: Scharnhorst runs, and games end when three
    # consecutive Game-Turns pass without a sighting (DN-E2), so after Game-Turn 4 at the earliest
    assert (b.games["first_contact_turn"] == 1).all()
    assert ns.sum() > 0 and (turns[ns] >= 4).all() and (turns[ns] < 20).any()
    # Scharnhorst neither sunk nor wrecked then: a German win (10.3)
    assert (b.games["winner"][ns & (b.games["sunk_german"] == 0) & (b.games["wrecked_german"] == 0)] == 1).all()


@njit
def _visibility(vis_base, rl, rng, dy):
    return visibility_roll_nb(vis_base, rl, rng, dy)


def test_the_visibility_example_5_71(game):
    # 5.71: basic visibility 6; a die roll of 2 gives 8 hexes, the next turn's 4 gives 10
    from dreadnought_helpers import rng_with_d6

    from simlab.games.dreadnought.kernels.turn import reset_dy_nb
    rules = game.load_scenario("jutland").payload.rules
    dy = np.zeros(L.NDY, dtype=np.int64)
    reset_dy_nb(dy)
    rng = rng_with_d6([2, 4])
    assert [_visibility(6, rules.rl, rng, dy) for _ in range(2)] == [8, 10]
