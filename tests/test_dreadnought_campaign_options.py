"""What the campaign options `delayed_entry` (Rule 9.28) and `builder_south` (11.8) do, on
hand-set situations with exact outcomes (issue 18: an option's test shows its effect, not only
that it runs)."""

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.campaign import campaign_parameters, listing_units
from simlab.games.dreadnought.enums import TYPE_NAMES
from simlab.games.dreadnought.game import campaign_setup, rules_for
from simlab.games.dreadnought.kernels.campaign import setup_scenario_nb
from simlab.games.dreadnought.kernels.campaign_loop import CampaignTables
from simlab.games.dreadnought.runtime import as_policy, rule_tables
from simlab.rng import STATE_WORDS, game_seeds, new_state_nb

GAME = get_game("dreadnought")


@pytest.fixture(scope="module")
def rules():
    return rules_for(GAME.load_data())[0]


def _cp(rules, setup, **options):
    opts = GAME.resolve_options(options)
    pols = {side: as_policy(options.get("policy", "close-and-engage"), side) for side in ("north", "south")}
    return campaign_parameters(setup, rules, opts, pols, False)


def _task_forces(rules, delay):
    """Scenario A with the whole WWI French (North) and Italian (South) listings assigned to it;
    both sides' light Task Force delayed by ``delay`` Game-Turns (the kernel's ``delays``)."""
    setup = campaign_setup(GAME.load_data(), rules, "wwi", "french", "italian")
    cp = _cp(rules, setup)
    P = setup.po.shape[1]
    ps = np.zeros((2, P, L.NPS), dtype=np.int64)
    scen = np.full((2, P), -1, dtype=np.int64)
    for p in range(2):
        ps[p, :setup.npool[p], L.PS_STATUS] = L.PS_FLEET
        scen[p, :setup.npool[p]] = 0
    ct = CampaignTables(setup.po, setup.npool, cp, setup.sc0, setup.geo, rule_tables(rules),
                        np.zeros((2, L.NPC), dtype=np.int64), np.zeros((2, L.NKN), dtype=np.float64))
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(1), rng)
    ap = np.array([[delay, 2, -1], [delay, 2, -1]], dtype=np.int64)   # delay, capital ships a stack, tour at random
    st, sh, fm, trail, sc, ta, idx = setup_scenario_nb(0, np.array([0, 1]), ct, ps, scen, ap, rng)
    return st, sh, ta


@pytest.mark.parametrize("delay,entry", [(0, None), (2, 3), (5, 6), (9, 6)])
def test_delayed_entry_sets_the_light_task_force_s_game_turn_9_28(rules, delay, entry):
    st, sh, ta = _task_forces(rules, delay)
    cl_dd = np.isin(st[:, L.ST_TYPE], [TYPE_NAMES.index("CL"), TYPE_NAMES.index("DD")])
    for side in (0, 1):
        main, light = 2 * side, 2 * side + 1
        mine = st[:, L.ST_SIDE] == side
        assert ta[main, L.TA_ENTRY] == 1                          # TF1 enters on Game-Turn One
        if entry is None:                                         # no delay: one Task Force
            assert ta[light, L.TA_MEMBERS] == 0 and (sh[mine, L.SH_TF] == main).all()
        else:                                                     # the CL and DD units, at most Turn Six
            assert ta[light, L.TA_ENTRY] == entry
            assert ((sh[:, L.SH_TF] == light) == (mine & cl_dd)).all()
            assert ta[light, L.TA_MEMBERS] == (mine & cl_dd).sum() > 0


def test_delayed_entry_option_overrides_the_policies_delay(rules):
    setup = campaign_setup(GAME.load_data(), rules, "wwi", "french", "italian")
    assert _cp(rules, setup)[L.CP_DELAY] == -1                    # -1: each policy's `delay` knob
    assert _cp(rules, setup, delayed_entry=4)[L.CP_DELAY] == 4
    # whole campaigns: with no delay no Task Force ever enters late; with 5 some do
    sc = GAME.load_scenario("campaign")
    seeds = game_seeds(4, 1, 0, 20)
    pols = {"north": "close-and-engage", "south": "close-and-engage"}
    ev0 = GAME.play_batch(sc, GAME.resolve_options({"delayed_entry": 0}), pols, seeds).events["scenarios"]
    ev5 = GAME.play_batch(sc, GAME.resolve_options({"delayed_entry": 5}), pols, seeds).events["scenarios"]
    assert (ev0["delayed_entries"] == 0).all() and (ev5["delayed_entries"] > 0).any()


def _greedy(units, limit):
    """Value-greedy by hand: most valuable first (listing order among equals), each unit taken if it fits."""
    total = 0
    for u in sorted(units, key=lambda u: -u["value"]):
        if total + u["value"] <= limit:
            total += u["value"]
    return total


def test_builder_south_builds_the_south_s_fleet_only_11_8(rules):
    sc = GAME.load_scenario("campaign")
    seeds = game_seeds(5, 1, 0, 12)
    pols = {"north": "close-and-engage", "south": "close-and-engage"}
    base = GAME.play_batch(sc, GAME.resolve_options({}), pols, seeds).games
    greedy = GAME.play_batch(sc, GAME.resolve_options({"builder_south": "value-greedy"}), pols, seeds).games
    rnd = GAME.play_batch(sc, GAME.resolve_options({"builder_south": "random"}), pols, seeds).games
    italian = listing_units(GAME.load_data().view(), "wwi", "italian", 1914, rules.rl)
    assert (greedy["fleet_value_south"] == _greedy(italian, 200)).all()
    # the North's fleet is its own builder's (balanced, deterministic) whatever the South's is
    assert (greedy["fleet_value_north"] == base["fleet_value_north"]).all()
    assert (rnd["fleet_value_north"] == base["fleet_value_north"]).all()
    # the South's balanced default is one fleet; random ones vary, all within the limit
    assert len(set(base["fleet_value_south"].tolist())) == 1
    assert len(set(rnd["fleet_value_south"].tolist())) > 1 and (rnd["fleet_value_south"] <= 200).all()
