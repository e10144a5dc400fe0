"""The campaign approach is the players' (issue 28; Rules 9.21-9.22): the capital ships per stack of
the main Task Force's cruising formation (knob `stack`) and the tour of the lettered hexes with its
entry hex (knob `tour`), set up in a hand-built scenario A and played in whole campaign games."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.campaign import TOURS
from simlab.games.dreadnought.enums import TYPE_CAPITAL
from simlab.games.dreadnought.game import campaign_setup, rules_for
from simlab.games.dreadnought.kernels.campaign import setup_scenario_nb
from simlab.games.dreadnought.kernels.campaign_loop import CampaignTables
from simlab.games.dreadnought.runtime import policy_book, rule_tables, run_campaigns
from simlab.rng import STATE_WORDS, game_seeds, new_state_nb

GAME = get_game("dreadnought")


@pytest.fixture(scope="module")
def rules():
    return rules_for(GAME.load_data())[0]


@pytest.fixture(scope="module")
def setup(rules):
    return campaign_setup(GAME.load_data(), rules, "wwi", "french", "italian")


def _scenario_a(rules, setup, ap, seed=1):
    """Scenario A with every unit of both WWI listings (France North, Italy South) assigned to it,
    the approach choices ``ap`` (by role: delay, capital ships a stack, tour)."""
    P = setup.po.shape[1]
    ps = np.zeros((2, P, L.NPS), dtype=np.int64)
    scen = np.full((2, P), -1, dtype=np.int64)
    for p in range(2):
        ps[p, :setup.npool[p], L.PS_STATUS] = L.PS_FLEET
        scen[p, :setup.npool[p]] = 0
    cp = np.zeros(L.NCP, dtype=np.int64)
    cp[L.CP_DELAY_LAST] = 6
    ct = CampaignTables(setup.po, setup.npool, cp, setup.sc0, setup.geo, rule_tables(rules),
                        np.zeros((2, L.NPC), dtype=np.int64), np.zeros((2, L.NKN), dtype=np.float64))
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    return setup_scenario_nb(0, np.array([0, 1]), ct, ps, scen, np.asarray(ap, dtype=np.int64), rng)


def _column(st, sh, side):
    """Each capital ship's station astern of the column's head (``SH_OZ``), most valuable first."""
    cap = np.nonzero((st[:, L.ST_SIDE] == side) & (st[:, L.ST_TYPE] == TYPE_CAPITAL))[0]
    order = sorted(cap, key=lambda i: (-st[i, L.ST_VAL], i))
    assert (sh[cap, L.SH_OX] == 0).all()
    return [int(sh[i, L.SH_OZ]) for i in order]


def test_stack_sets_the_capital_ships_per_hex_of_the_cruising_column_9_21(rules, setup):
    st, sh, *_ = _scenario_a(rules, setup, [[2, 1, 0], [2, 4, 0]])
    ncap = [len(_column(st, sh, s)) for s in (0, 1)]
    assert min(ncap) >= 5                                   # a column long enough to tell 1, 2 and 4 apart
    assert _column(st, sh, 0) == list(range(ncap[0]))              # one a hex: 0, 1, 2, ...
    assert _column(st, sh, 1) == [k // 4 for k in range(ncap[1])]  # four a hex (6.31's most)
    st2, sh2, *_ = _scenario_a(rules, setup, [[2, 2, 0], [2, 2, 0]])
    assert _column(st2, sh2, 0) == [k // 2 for k in range(ncap[0])]   # the default: two a hex


def test_a_random_stack_is_drawn_from_1_to_4(rules, setup):
    seen = set()
    for seed in range(40):
        st, sh, *_ = _scenario_a(rules, setup, [[2, -1, 0], [2, 2, 0]], seed)
        col = _column(st, sh, 0)
        per_hex = col.count(0)
        assert col == [k // per_hex for k in range(len(col))]
        seen.add(per_hex)
    assert seen == {1, 2, 3, 4}                             # 40 draws miss one of 4 with p < 4 * 0.75**40 = 4e-5


def test_tour_sets_the_route_and_the_entry_hex_9_22(rules, setup):
    centres, tours_n, tours_s, _, _ = setup.geo
    entries = {}
    for tour in range(len(TOURS)):
        st, sh, fm, trail, sc, ta, idx = _scenario_a(rules, setup, [[2, 2, tour], [2, 2, 7 - tour]])
        for side, t, tours in ((0, tour, tours_n), (1, 7 - tour, tours_s)):
            for tf in (2 * side, 2 * side + 1):
                if ta[tf, L.TA_MEMBERS]:
                    assert ta[tf, L.TA_TOUR] == t
                    assert ta[tf, L.TA_EX] == centres[tours[t, 0], 0]    # the first hex's column
        entries[tour] = int(ta[0, L.TA_EX])
    # the North enters in the west column for tours 0, 2, 6, the east for 1, 3, 7, the centre for 4, 5
    west, centre, east = sorted(set(entries.values()))
    assert [entries[t] for t in range(8)] == [west, east, west, east, centre, centre, west, east]


def _campaign_rows(setup, rules, north_knobs, n=60):
    opts = GAME.resolve_options({})
    north = policy_book().resolve("north", "close-and-engage", north_knobs)
    gout, rows, _ = run_campaigns(setup, rules, opts, {"north": north, "south": "close-and-engage"},
                                  game_seeds(28, 921, 0, n), False)
    return gout, rows


@pytest.mark.parametrize("knob,lo,hi", [("stack", 1, 4), ("tour", 0, 7)])
def test_the_approach_knobs_at_their_bounds_give_other_campaign_games(setup, rules, knob, lo, hi):
    # common random numbers: the same seeds; a knob that did nothing would give the same rows. The
    # North sends its main body together (allocation 1, 11.6): spread over A-D (the default) its four
    # capital ships sail one to a scenario and no column has two ships to stack
    ga, ra = _campaign_rows(setup, rules, {knob: lo, "allocation": 1})
    gb, rb = _campaign_rows(setup, rules, {knob: hi, "allocation": 1})
    assert ra.shape == rb.shape == (240, L.NRS)              # 60 games of four scenarios (11.6)
    assert (ra[:, L.RS_CONTACT] > 0).sum() > 60               # many of them fought
    assert (ga[:, L.GO_WINNER] != gb[:, L.GO_WINNER]).sum() > 0   # some campaign's winner changes
