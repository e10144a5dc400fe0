"""Policies: what they may see (hidden information, 13.0 D, 14.6), that every pairing plays legal
campaigns under every optional rule, that their knobs matter, and free deployment (14.11)."""

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.campaign import SPAIN_POLICIES, US_POLICIES, run_games
from simlab.games.doe.campaign_orders import B_NODE, MAXSS, PS_NF
from simlab.games.doe.campaign_state import CampaignState
from simlab.games.doe.policies import policy_plan_nb
from simlab.games.doe.policy_view import VIS_ATT, VIS_N, VIS_NF, observe_nb
from simlab.rng import game_seeds

GAME = get_game("dawn-of-empire")
DATA = GAME.load_scenario("standard").payload


def position(keep, **opts):
    cs = CampaignState(DATA, GAME.resolve_options(opts), seed=3)
    cs.remove([u for u in DATA.unit_names if u not in keep])
    for name, where in keep.items():
        cs.place([name], where)
        cs.set_history([name], "anchor")
    for lname in DATA.leader_names:
        i = DATA.leader(lname)
        cs.LD[i] = (-1, 2)
    cs.begin_turn()
    return cs


def plan(cs, side, policy, knob=500):
    """The plan ``policy`` writes for ``side`` from what it may see (as the turn loop calls it)."""
    d = DATA
    nu, nl, n = d.ust.shape[0], d.lst.shape[0], d.nodes.shape[0]
    UV = np.zeros((nu, lay.UF_NF), dtype=np.int64)
    LV = np.zeros((nl, lay.LF_NF), dtype=np.int64)
    vis = np.zeros((n, VIS_NF), dtype=np.int64)
    observe_nb(side, cs.U, cs.LD, d.ust, d.lst, cs.par, UV, LV, vis)
    B = np.zeros(B_NODE + n, dtype=np.int64)
    pu, pp = np.zeros(nu, dtype=np.int64), np.zeros(nu, dtype=np.int64)
    pst = np.zeros((MAXSS, PS_NF), dtype=np.int64)
    pl = np.zeros(nl, dtype=np.int64)
    rng = np.zeros(3, dtype=np.uint64)
    k = policy_plan_nb(lay.POLICY_IDS[policy], side, 1, knob, d.ust, d.lst, d.nodes, d.adj, d.cost, d.nh, d.matrix,
                       d.markers, cs.par, UV, LV, vis, cs.ND, B, pu, pp, pst, pl, rng)
    return (tuple(pu), tuple(pp), tuple(map(tuple, pst[:k])), tuple(pl)), UV, vis


KEEP = {"Montgomery": "key-west", "Detroit": "key-west", "Teresa": "florida-strait", "Vizcaya": "florida-strait",
        "Galicia": "cienfuegos", "Mercedes": "santiago", "Isabel II": "san-juan", "Furor": "cadiz"}


def test_a_policy_sees_only_its_own_units_and_the_enemys_face_down_stacks():
    cs = position(KEEP)
    _, UV, vis = plan(cs, 0, "hunter")
    spain = DATA.ust[:, lay.US_SIDE] == 1
    assert (UV[spain, lay.UF_LOC] == -9).all() and (UV[spain, lay.UF_DMG] == 0).all()
    assert (UV[~spain] == cs.U[~spain]).all()
    fs = DATA.node("florida-strait")
    assert vis[fs, VIS_N] == 2
    # without 14.6 the attack seen is the count times the mean printed attack of Spain's units afloat
    att = DATA.ust[spain & (cs.U[:, lay.UF_LOC] >= 0), lay.US_ATT]
    assert vis[fs, VIS_ATT] == (2 * att.sum() * 10) // len(att)


def test_hidden_enemy_details_do_not_change_a_plan():
    a = position(KEEP)
    b = position(KEEP)
    # what the US cannot see: Spanish damage, order history, orders
    for name in ("Teresa", "Vizcaya"):
        b.set_damage(name, 2)
        b.set_history([name], "patrol", streak=1)
    for pol in ("hunter", "blockade", "coastal-defense"):
        assert plan(a, 0, pol)[0] == plan(b, 0, pol)[0]


def test_face_up_counters_let_a_policy_see_damage():  # 14.6
    # two 1-attack US cruisers and two Spanish armored cruisers in the Florida Strait: counted by the
    # public mean (about 1.5 attack each) the hunter keeps away; face up, with both Spanish ships
    # shot down to 1 attack, it goes for them.
    a = position(KEEP, fog_of_war=True)
    b = position(KEEP, fog_of_war=True)
    for name in ("Teresa", "Vizcaya"):
        b.set_damage(name, 2)
    pa, _, va = plan(a, 0, "hunter")
    pb, _, vb = plan(b, 0, "hunter")
    fs = DATA.node("florida-strait")
    assert va[fs, VIS_ATT] == 60 and vb[fs, VIS_ATT] == 20
    dest_a = {s[1] for s in pa[2] if s[0] == lay.PATROL}
    dest_b = {s[1] for s in pb[2] if s[0] == lay.PATROL}
    assert fs not in dest_a and fs in dest_b


@pytest.mark.parametrize("opts", [{}, dict(extra_warships=True, germans=True, free_deployment=True, maintenance=True,
                                            restrict_disabled=True, speed_subgroups=True, turns=9,
                                            automatic_victory=True, fog_of_war=True)])
def test_every_pairing_plays_legal_campaigns(opts):
    options = GAME.resolve_options(opts)
    for us in US_POLICIES:
        for sp in SPAIN_POLICIES:
            raw = run_games(DATA, options, {"us": us, "spain": sp}, game_seeds(4, 4, 0, 40))
            assert (raw["G"][:, lay.G_ERR] == 0).all()
            assert (raw["G"][:, lay.G_TURNS] >= 1).all()


def test_the_knobs_change_what_the_policies_do():
    seeds = game_seeds(5, 5, 0, 400)
    out = {}
    for k in (0.0, 1.0):
        opts = GAME.resolve_options({"spain_aggression": k, "us_aggression": 1.0 - k})
        raw = run_games(DATA, opts, {"us": "blockade", "spain": "raider"}, seeds)
        out[k] = (raw["G"][:, lay.G_PATTACKS].mean(), raw["G"][:, lay.G_VPK + 6 + lay.VK_PORT].mean())
    assert out[0.0] != out[1.0]
    assert out[1.0][1] > out[0.0][1]           # a bolder raider earns more from destroyed ports


@pytest.mark.parametrize("pols", [("blockade", "raider"), ("coastal-defense", "fleet-in-being"),
                                  ("hunter", "historical"), ("random-legal", "random-legal")])
def test_free_deployment_stays_within_its_limits(pols):  # 14.11
    opts = GAME.resolve_options({"free_deployment": True, "turns": 1})
    raw = run_games(DATA, opts, {"us": pols[0], "spain": pols[1]}, game_seeds(6, 6, 0, 30), trace=True)
    na = DATA.n_areas
    side = DATA.ust[:, lay.US_SIDE]
    pside = DATA.nodes[:, lay.NS_PSIDE]
    for g in range(30):
        loc = raw["trace"][g, 0, :, lay.TR_LOC]
        prev = raw["trace"][g, 0, :, lay.TR_PREV]
        live = loc >= 0
        sp = live & (side == 1) & ((DATA.ust[:, lay.US_GERMAN] & 1) == 0)
        assert (loc[sp] >= na).all() and (pside[loc[sp]] == 1).all()      # 14.11 C: Spanish ports only
        us = live & (side == 0)
        at_sea = us & (loc < na)
        assert at_sea.sum() <= 6 and len(set(loc[at_sea])) <= 1            # 14.11 B
        assert (pside[loc[us & ~at_sea]] == 0).all()
        assert (prev[at_sea] == lay.PATROL).all()


def test_the_handicap_only_shifts_the_score():
    """``handicap`` is score-only: no policy reads the VP track, so replaying with another handicap
    gives the same games, and ``rescore`` gives the replayed winners (ruling C26, A3)."""
    sc = GAME.load_scenario("standard")
    seeds = game_seeds(8, 8, 0, 300)
    pols = {"us": "hunter", "spain": "raider"}
    base = GAME.play_batch(sc, GAME.resolve_options({"handicap": 0}), pols, seeds)
    for h in (-7, 4):
        opts = GAME.resolve_options({"handicap": h})
        replay = GAME.play_batch(sc, opts, pols, seeds)
        for c in ("score_us", "score_spain", "battles", "dice"):
            assert (replay.games[c] == base.games[c]).all()
        assert (replay.games["vp_net"] == base.games["vp_net"] + h).all()
        got = GAME.rescore(sc, base.games, GAME.resolve_options({"handicap": 0}), {"handicap": h})
        assert (got == replay.games["winner"]).all()
    assert GAME.rescore(sc, base.games, GAME.resolve_options({"automatic_victory": True}), {"handicap": 3}) is None


def test_the_soak_invariants_catch_a_tampered_batch():
    sc = GAME.load_scenario("standard")
    opts = GAME.resolve_options({})
    b = GAME.play_batch(sc, opts, {"us": "blockade", "spain": "raider"}, game_seeds(9, 9, 0, 100))
    assert GAME.invariant_violations(sc, b, opts) == []
    assert not GAME.capped(sc, b, opts).any()
    b.games["vp_net"] = b.games["vp_net"].copy()
    b.games["vp_net"][3] += 1
    b.games["battles"] = b.games["battles"].copy()
    b.games["battles"][5] += 1
    bad = GAME.invariant_violations(sc, b, opts)
    assert any("vp_net" in m for m in bad) and any("battles" in m for m in bad)
    b.events["battles"]["end_reason"] = np.full_like(b.events["battles"]["end_reason"], 3)
    assert GAME.capped(sc, b, opts).sum() == len(np.unique(b.events["battles"]["game"])) > 0
