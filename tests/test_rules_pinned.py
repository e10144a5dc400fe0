"""Rule thresholds that a one-character change would break, each played, not restated
(issue 18's mutations: `make mutate` checks that these tests catch them)."""

import numpy as np

from simlab.games import get_game
from simlab.rng import STATE_WORDS, game_seeds, new_state_nb


# ------------------------------------------------------------------ Dawn of Empire 12.2 and 14.7
def test_doe_victory_needs_six_vp_rule_12_2():
    from simlab.games.doe import campaign_layout as lay
    from simlab.games.doe.campaign import games_columns
    game = get_game("dawn-of-empire")
    sc = game.load_scenario(None)
    victory = int(sc.payload.rules["victory_vp"])  # "A side wins by having at least six VPs"
    G = np.zeros((6, lay.G_NF), dtype=np.int64)
    G[:, lay.G_VP_NET] = [5, 6, 7, -5, -6, 0]
    assert list(games_columns(G, victory)["winner"]) == [-1, 0, 0, -1, 1, -1]
    # and the played games follow it: the rescored winners at handicap 0 are the winners
    pols = game.resolve_policies(sc.sides, {})
    b = game.play_batch(sc, game.resolve_options({}), pols, game_seeds(3, 1, 0, 300))
    v = np.asarray(b.games["vp_net"])
    assert ((v >= 6) == (np.asarray(b.games["winner"]) == 0)).all()
    assert ((np.abs(v) < 6) == (np.asarray(b.games["winner"]) == -1)).all()


def test_doe_automatic_victory_at_29_not_28_rule_14_7():
    game = get_game("dawn-of-empire")
    sc = game.load_scenario(None)
    pols = game.resolve_policies(sc.sides, {})
    b = game.play_batch(sc, game.resolve_options({"automatic_victory": True, "handicap": 20}), pols,
                        game_seeds(7, 1, 0, 600))
    v = np.abs(np.asarray(b.games["vp_net"]))
    auto = np.asarray(b.games["end_reason"]) == 1
    assert auto.any() and (v[auto] >= 29).all()
    # a game that ends its last turn at 28 is not an automatic victory
    assert (v[~auto] <= 28).all() and (v[~auto] == 28).any()


# ------------------------------------------------------------------ Dawn of Empire 14.9 C pursuit
def test_doe_pursuit_sends_units_as_fast_as_the_slowest_group_rule_14_9_c():
    from simlab.games.doe.campaign_pursuit import pursuit_round_nb
    from simlab.games.doe.enums import ESCAPED, IN_LINE, PU_SLOWEST

    def pursue(us_speed, spain_speed):
        # the US (side 0, one unit) won; Spain's one unit disengaged by speed and is pursued
        att = np.array([4, 3], dtype=np.int64)
        dfn = np.array([5, 4], dtype=np.int64)
        mov = np.array([us_speed, spain_speed], dtype=np.int64)
        dmg = np.zeros(2, dtype=np.int64)
        status = np.full(2, IN_LINE, dtype=np.int8)
        rng = np.zeros(STATE_WORDS, dtype=np.uint64)
        new_state_nb(np.uint64(11), rng)
        return pursuit_round_nb(0, 1, 2, att, dfn, mov, dmg, status, PU_SLOWEST, rng), status

    fought, status = pursue(4, 4)  # at least as fast: the pursuit round is fought
    assert fought == 1
    fought, status = pursue(3, 4)  # slower than the slowest group: no pursuit
    assert fought == 0 and status[1] == ESCAPED


def test_doe_pursuer_chooses_which_speed_subgroups_to_pursue_rule_14_9_b_c():
    from simlab.games.doe.campaign_pursuit import pursuit_round_nb
    from simlab.games.doe.enums import IN_LINE, PU_RANDOM, PU_SLOWEST, PU_SPLIT

    def pursue(mode, seed=5):
        # the US (units 0, 1: speeds 4 and 6) won; Spain's units 2 and 3 (speeds 3 and 5: two
        # subgroups, 14.9 A) disengaged; luck counts each side's gunfire dice (attack dice fired)
        att = np.array([4, 4, 3, 2], dtype=np.int64)
        dfn = np.array([9, 9, 9, 9], dtype=np.int64)
        mov = np.array([4, 6, 3, 5], dtype=np.int64)
        dmg = np.zeros(4, dtype=np.int64)
        status = np.full(4, IN_LINE, dtype=np.int8)
        rng = np.zeros(STATE_WORDS, dtype=np.uint64)
        new_state_nb(np.uint64(seed), rng)
        luck = np.zeros(4, dtype=np.int64)
        fought = pursuit_round_nb(0, 2, 4, att, dfn, mov, dmg, status, mode, rng, luck)
        assert fought == 1 and IN_LINE not in status[2:]            # 14.9 D: the survivors disengage
        return int(luck[1])                                         # Spain's dice: which subgroups fought

    assert pursue(PU_SLOWEST) == 3              # both pursue the slowest subgroup; the fast one escapes
    assert pursue(PU_SPLIT) == 3 + 2            # the speed-6 unit goes after the speed-5 subgroup
    # random-legal: the speed-6 unit draws between the two subgroups it can catch
    assert {pursue(PU_RANDOM, seed) for seed in range(40)} == {3, 5}


# ------------------------------------------------------------------ Mar Rojo 5.3.2 / M8
def test_mar_rojo_only_reorganise_above_hull_not_at_it_rule_5_3_2():
    from simlab.games.mar_rojo.enums import AIRCRAFT, DESTROYER
    from simlab.games.mar_rojo.layout import C_HULL, C_TYPE, NC, NS, S_STRESS
    from simlab.games.mar_rojo.legality import only_reorganise_nb
    cs = np.zeros((2, NC), dtype=np.int64)
    st = np.zeros((2, NS), dtype=np.int64)
    cs[:, C_HULL] = 3
    cs[0, C_TYPE], cs[1, C_TYPE] = DESTROYER, AIRCRAFT
    st[:, S_STRESS] = 3  # as many stress markers as hull: not "more"
    assert not only_reorganise_nb(cs, st, 0)
    st[:, S_STRESS] = 4  # more than hull: a ship may only reorganise, an aircraft is not bound (M8)
    assert only_reorganise_nb(cs, st, 0) and not only_reorganise_nb(cs, st, 1)
