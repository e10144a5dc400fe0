"""How a campaign scenario ends (Rules 9.0, 9.41-9.43): no Game-Turn limit; three Game-Turns
without sighting, a side sunk or gone, or both players' agreement (9.43, the policies' ``agree``
knob; ``agree_historical`` in a historical scenario); a side left with wrecks only does not end it
(issue 28); a scenario still going at the loop cap is reported as a hang, not as a rule."""

import numpy as np
import pytest
from dreadnought_campaign_helpers import play_turns, position

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import AFLOAT, END_REASONS, SUNK
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.kernels.turn import agreed_nb
from simlab.games.dreadnought.runtime import policy_book
from simlab.rng import STATE_WORDS, game_seeds, new_state_nb

GAME = get_game("dreadnought")
AGREEMENT, LOOP_CAP = END_REASONS.index("agreement"), END_REASONS.index("loop_cap")
SIDE_GONE, GAME_LENGTH = END_REASONS.index("side_gone"), END_REASONS.index("game_length")


@pytest.fixture(scope="module")
def rules():
    return rules_for(GAME.load_data())[0]


def _standoff():
    """Two wrecks three hexes apart keep the sides in contact (9.42); each side's other ship has
    lost all speed (2S) a hundred hexes away, out of anyone's range: nobody can fire or move, and
    no damage control is left to anyone (5.44)."""
    units = [dict(side=0, type="capital", x=0, z=0, G=2, S=2), dict(side=1, type="capital", x=3, z=0, G=2, S=2),
             dict(side=0, type="capital", x=100, z=0, S=2, range=5),
             dict(side=1, type="capital", x=-100, z=0, S=2, range=5)]
    st, sh, fm, trail, sc = position(units)
    sh[:, L.SH_DC] = st[:, L.ST_DEF]
    sc[L.SC_CAMPAIGN] = 1
    return st, sh, fm, trail, sc


def _policy(side, **knobs):
    return policy_book().resolve(side, "close-and-engage", knobs)


def _stream(seed):
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    return rng


def test_agreement_is_both_policies_choice_9_43():
    kn = np.zeros((2, L.NKN))
    kn[:, L.K_AGREE] = (4, 6)
    rng = _stream(1)
    before = rng.copy()
    assert [agreed_nb(kn, idle, True, rng) for idle in (3, 4, 5, 6, 7)] == [False, False, False, True, True]
    assert not agreed_nb(kn, 1000, False, rng)                 # a historical scenario reads agree_historical
    kn[:, L.K_AGREE_HIST] = (2, 3)
    assert [agreed_nb(kn, idle, False, rng) for idle in (1, 2, 3)] == [False, False, True]
    kn[1, L.K_AGREE] = 0                                       # a side that never agrees
    assert not agreed_nb(kn, 1000, True, rng)
    assert (rng == before).all()                               # a threshold draws nothing from the stream


@pytest.mark.parametrize("campaign,slot", [(True, L.K_AGREE), (False, L.K_AGREE_HIST)])
def test_random_legal_agrees_on_a_coin_flip_after_a_turn_without_damage_9_43(campaign, slot):
    kn = np.zeros((2, L.NKN))
    kn[:, slot] = -1                                           # random-legal's value
    rng = _stream(7)
    before = rng.copy()
    assert not agreed_nb(kn, 0, campaign, rng)                 # damage this Game-Turn: no agreement,
    assert (rng == before).all()                               # and no coin drawn
    n = 4000
    hits = sum(agreed_nb(kn, 1, campaign, rng) for _ in range(n))
    # both coins must come up: p = 1/4; 4 standard errors of a binomial proportion at n = 4000
    assert abs(hits / n - 0.25) < 4 * (0.25 * 0.75 / n) ** 0.5
    kn[1, slot] = 5                                            # against a threshold: side 1 still waits,
    before = rng.copy()
    assert not any(agreed_nb(kn, 4, campaign, rng) for _ in range(200))
    assert (rng == before).all()                               # so side 0 is not asked: no coin drawn
    kn[1, slot] = 0
    assert not any(agreed_nb(kn, 50, campaign, rng) for _ in range(200)) and (rng == before).all()
    kn[1, slot] = 5
    hits = sum(agreed_nb(kn, 5, campaign, rng) for _ in range(n))
    assert abs(hits / n - 0.5) < 4 * (0.5 * 0.5 / n) ** 0.5   # side 0's coin alone decides


def test_a_standoff_ends_when_both_sides_agree_not_at_a_turn_limit(rules):
    # the default `agree` is 8: after eight Game-Turns in which no ship took damage, both agree (9.43)
    st, sh, fm, trail, sc = _standoff()
    pols = (_policy("side0"), _policy("side1"))
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 60, policies=pols)
    assert (res[0], res[1]) == (8, AGREEMENT)
    st, sh, fm, trail, sc = _standoff()
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 60, policies=(_policy("side0", agree=11), pols[1]))
    assert (res[0], res[1]) == (11, AGREEMENT)


def test_a_scenario_nobody_concludes_runs_to_the_loop_cap_and_is_a_hang_9_0(rules):
    st, sh, fm, trail, sc = _standoff()
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 60, policies=(_policy("side0", agree=0),
                                                                          _policy("side1")))
    assert (res[0], res[1]) == (60, LOOP_CAP)                # not "agreement" at the limit
    # in whole campaigns: with a loop cap of 6 Game-Turns every scenario still going is a hang,
    # and the game is reported capped (soak and sweeps count it as a problem)
    sc_ = GAME.load_scenario("campaign")
    opts = GAME.resolve_options({"game_length": 6, "check_invariants": True})
    b = GAME.play_batch(sc_, opts, {"north": "close-and-engage", "south": "close-and-engage"},
                        game_seeds(2, 1, 0, 12))
    ev = b.events["scenarios"]
    at_cap = ev["turns"] == 6
    assert at_cap.any() and (ev["end_reason"][at_cap] == LOOP_CAP).all()
    capped = GAME.capped(sc_, b, opts)
    assert (capped == np.isin(np.arange(12), ev["game"][ev["end_reason"] == LOOP_CAP])).all()


def test_campaign_scenarios_run_past_48_turns_and_keep_the_shots_wasted_columns():
    sc_ = GAME.load_scenario("campaign")
    opts = GAME.resolve_options({"check_invariants": True})
    b = GAME.play_batch(sc_, opts, {"north": "close-and-engage", "south": "close-and-engage"},
                        game_seeds(3, 1, 0, 40))
    assert GAME.invariant_violations(sc_, b, opts) == []
    ev = b.events["scenarios"]
    played = ev["end_reason"] != END_REASONS.index("uncontested")
    assert not (ev["end_reason"][played] == LOOP_CAP).any()
    for side in ("north", "south"):
        w = ev[f"shots_wasted_{side}"]
        assert w.dtype == np.float32 and ((w >= 0) & (w <= 1)).all()
        assert (w[ev[f"shots_{side}"] == 0] == 0).all()


def _wrecks_left():
    """A healthy capital ship three hexes from an enemy wreck (2G, 2S) with no damage control left
    (5.44): the enemy side has nothing but a wreck."""
    st, sh, fm, trail, sc = position([dict(side=0, type="capital", x=0, z=0, range=12),
                                      dict(side=1, type="capital", x=3, z=0, G=2, S=2)])
    sh[:, L.SH_DC] = st[:, L.ST_DEF]
    sc[L.SC_CAMPAIGN] = 1
    return st, sh, fm, trail, sc


def test_a_side_left_with_wrecks_does_not_end_a_campaign_scenario_9_42(rules):
    # 9.41-9.42: no Player is required to end a scenario; the winner may go on firing to sink the
    # wreck (`wrecks` 1, and it does not agree to end: `agree` 0), and the scenario ends when the
    # wreck is gone (before: `side_wrecked` at once)
    st, sh, fm, trail, sc = _wrecks_left()
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 60,
                              policies=(_policy("side0", wrecks=1, agree=0), _policy("side1")))
    assert (res[0], res[1]) == (45, SIDE_GONE) and sh[1, L.SH_STATUS] == SUNK
    assert out[L.O_SHOTS0] > 0
    # holding fire at wrecks (the default), nobody takes damage: both agree after 8 Game-Turns (9.43)
    st, sh, fm, trail, sc = _wrecks_left()
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 60, policies=(_policy("side0"), _policy("side1")))
    assert (res[0], res[1]) == (8, AGREEMENT) and sh[1, L.SH_STATUS] == AFLOAT and out[L.O_SHOTS0] == 0


def test_a_historical_scenario_ends_by_agreement_only_when_both_policies_agree_9_43(rules):
    st, sh, fm, trail, sc = _standoff()
    sc[L.SC_CAMPAIGN] = 0
    pols = (_policy("side0", agree_historical=5), _policy("side1", agree_historical=7))
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 12, policies=pols)
    assert (res[0], res[1]) == (7, AGREEMENT)
    st, sh, fm, trail, sc = _standoff()
    sc[L.SC_CAMPAIGN] = 0
    res, out, dy = play_turns(rules, st, sh, fm, trail, sc, 12, policies=(pols[0], _policy("side1")))
    assert (res[0], res[1]) == (12, GAME_LENGTH)             # the default never agrees
