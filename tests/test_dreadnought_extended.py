"""Dreadnought's Extended Campaign (Rule 12.6): treasuries, construction, repairs, scuttling, the
peace roll, and treasury scoring."""

from fractions import Fraction

import icepool
import numpy as np
import pytest

from simlab.errors import SpecError
from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import (
    BUILD_BALANCED,
    BUILD_RANDOM,
    BUILD_VALUE_GREEDY,
    EXTENDED_END_NAMES,
)
from simlab.games.dreadnought.policies.campaign import repair_nb, schedule_nb
from simlab.rng import STATE_WORDS, game_seeds, new_state_nb

GAME = get_game("dreadnought")


def _extended(n, seed=3, policy="close-and-engage", **options):
    sc = GAME.load_scenario("extended-campaign")
    opts = GAME.resolve_options(dict(options, check_invariants=True))
    b = GAME.play_batch(sc, opts, {"north": policy, "south": policy}, game_seeds(seed, 1, 0, n))
    return sc, opts, b


def _rng(seed=1):
    r = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), r)
    return r


def _pool(values):
    po = np.zeros((len(values), L.NPO), dtype=np.int64)
    po[:, L.PO_VAL] = values
    return po


def test_repairs_cost_twenty_percent_per_state_12_64():
    po = _pool([26, 40, 12])
    ps = np.zeros((3, L.NPS), dtype=np.int64)
    ps[:, L.PS_STATUS] = L.PS_DAMAGED
    ps[0, L.PS_G], ps[0, L.PS_S] = 2, 2          # a towed wreck: 4 states, 80% of 26 = 20 (20.8)
    ps[1, L.PS_G] = 1                             # 20% of 40 = 8
    ps[2, L.PS_S] = 1                             # 2.4 -> 2
    spent = repair_nb(po, 3, ps, 100, BUILD_BALANCED, _rng(), 20, 0)
    assert spent == 20 + 8 + 2 and (ps[:, L.PS_STATUS] == L.PS_FLEET).all() and ps[:, 1:3].sum() == 0
    # a reserve the treasury must keep: most valuable first, then what still fits
    ps[:, L.PS_STATUS] = L.PS_DAMAGED
    ps[0, L.PS_G], ps[0, L.PS_S], ps[1, L.PS_G], ps[2, L.PS_S] = 2, 2, 1, 1
    assert repair_nb(po, 3, ps, 40, BUILD_VALUE_GREEDY, _rng(), 20, 25) == 8 + 2
    assert ps[0, L.PS_STATUS] == L.PS_DAMAGED


def test_construction_schedule_12_61():
    po = _pool([60, 50, 40, 30, 20, 10])
    ps = np.zeros((6, L.NPS), dtype=np.int64)
    total = schedule_nb(po, 6, ps, BUILD_VALUE_GREEDY, _rng(), 150, 100, 12)
    # at most 100 a turn, 150 in all, most valuable first: 60 (turn 1), 50 (turn 1 would pass 100: turn 2),
    # 40 (turn 1: 100) -> turn 1: 60 + 40, turn 2: 50
    assert total == 150
    assert {u: int(ps[u, L.PS_BUILD]) for u in range(6) if ps[u, L.PS_STATUS] == L.PS_SCHEDULED} == {0: 1, 2: 1, 1: 2}
    for seed in range(20):
        ps = np.zeros((6, L.NPS), dtype=np.int64)
        total = schedule_nb(po, 6, ps, BUILD_RANDOM, _rng(seed), 180, 100, 12)
        per = np.bincount(ps[ps[:, L.PS_STATUS] == L.PS_SCHEDULED, L.PS_BUILD], po[ps[:, L.PS_STATUS] == L.PS_SCHEDULED, L.PO_VAL], minlength=13)
        assert total <= 180 and per.max() <= 100


def test_extended_campaigns_keep_every_invariant():
    for pol, opts in (("close-and-engage", {}), ("random-legal", {"smoke": True, "sun": True}),
                      ("hold-range", {"period": "wwii", "north": "us", "south": "japanese", "treasury": 900})):
        sc, o, b = _extended(25, seed=4, policy=pol, **opts)
        assert GAME.invariant_violations(sc, b, o) == [], (pol, opts)
        assert not GAME.capped(sc, b, o).any()


def test_extended_campaign_output():
    sc, o, b = _extended(20, seed=5, period="wwii", north="british", south="german")
    g = b.games
    ext = b.events["scenarios"]["ext_turn"]
    assert ext.min() >= 1 and ext.max() <= 12
    for t in range(13):
        assert f"treasury_north_t{t:02d}" in g and f"treasury_south_t{t:02d}" in g
    assert (g["treasury_north_t00"] == 800 - g["fleet_value_north"]).all()         # 12.61
    assert (g["fleet_value_north"] <= 300).all() and (g["limit_north"] == 300).all()
    # treasuries stay as they ended once the game is over
    for i in range(20):
        t = int(g["turns"][i])
        assert all(g[f"treasury_north_t{k:02d}"][i] == g["score_north"][i] for k in range(t, 13))
    assert (g["built_north"] > 0).any() and (g["scheduled_north"] >= g["built_north"]).all()
    # 12.64: towing is on in the extended campaign; untowed wrecks are scuttled
    ev = b.events["scenarios"]
    assert ev["scuttled_north"].sum() + ev["scuttled_south"].sum() > 0
    assert ev["towed_north"].sum() + ev["towed_south"].sum() > 0
    assert (g["winner"] == np.where(g["score_north"] > g["score_south"], 0,
                                    np.where(g["score_south"] > g["score_north"], 1, -1))).all()   # 12.66


def test_treasury_options():
    sc, o, b = _extended(4, seed=6, treasury=700, south_extra_treasury=100)
    g = b.games
    assert (g["treasury_north_t00"] == 700 - g["fleet_value_north"]).all()
    assert (g["treasury_south_t00"] == 800 - g["fleet_value_south"]).all()
    with pytest.raises(SpecError):
        GAME.resolve_options({"treasury": 950})


def test_the_invariant_check_catches_a_treasury_that_does_not_add_up():
    sc, o, b = _extended(10, seed=7)
    assert GAME.invariant_violations(sc, b, o) == []
    b.games["repaired_south"][3] += 4
    msgs = GAME.invariant_violations(sc, b, o)
    assert len(msgs) == 1 and "does not add up" in msgs[0]


def test_the_peace_roll_12_62():
    # two small navies so that no treasury runs dry: the game ends by peace on Game-Turn t with
    # probability prod(1 - p_u, u < t) p_t, p_t = P(2d6 = t), else after Turn Twelve
    n = 3000
    sc, o, b = _extended(n, seed=8, north="spanish", south="argentine")
    g = b.games
    assert not (g["end_reason"] == EXTENDED_END_NAMES.index("bankrupt")).any()
    two = icepool.d6 + icepool.d6
    p = {t: Fraction(two.probability(t)) for t in range(1, 13)}
    expect = {}
    alive = Fraction(1)
    for t in range(1, 13):
        expect[t] = alive * p[t]
        alive *= 1 - p[t]
    expect[13] = alive
    got = np.bincount(np.where(g["end_reason"] == EXTENDED_END_NAMES.index("peace"), g["peace_turn"], 13),
                      minlength=14)
    assert got[1] == 0
    for t in range(2, 14):
        q = float(expect[t])
        sd = (n * q * (1 - q)) ** 0.5
        assert abs(got[t] - n * q) <= 4 * sd + 1, (t, got[t], n * q)
    assert (g["turns"][g["end_reason"] == EXTENDED_END_NAMES.index("peace")]
            == g["peace_turn"][g["end_reason"] == EXTENDED_END_NAMES.index("peace")] - 1).all()


@pytest.mark.timeout(1800)  # slow: above the suite's default limit (tests/test_suite_config.py)
@pytest.mark.slow
def test_many_random_legal_extended_campaigns_keep_every_invariant():
    for opts in ({}, {"period": "inter-war", "north": "japanese", "south": "british", "smoke": True, "radar": True,
                      "spotting_planes": True, "creep": True, "sun": True}):
        sc, o, b = _extended(2000, seed=9, policy="random-legal", **opts)
        assert GAME.invariant_violations(sc, b, o) == [], opts
        assert not GAME.capped(sc, b, o).any()
