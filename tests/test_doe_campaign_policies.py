"""Policies: what they may see (hidden information, 13.0 D, 14.6), that every pairing plays legal
campaigns under every optional rule, that their knobs matter, and free deployment (14.11)."""

import numpy as np
import pytest
from test_doe_campaign_random import check_invariants

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe import policy_layout as pk
from simlab.games.doe.campaign import SPAIN_POLICIES, US_POLICIES, run_games
from simlab.games.doe.campaign_orders import B_NODE, MAXSS, PS_NF
from simlab.games.doe.campaign_state import CampaignState
from simlab.games.doe.policies import PlanBuffers, PolicyTables, PolicyView, policy_plan_nb, policy_scratch_nb
from simlab.games.doe.policy_view import VIS_ATT, VIS_N, VIS_NF, observe_nb
from simlab.games.doe.runtime import pack_policies, policy_book
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


def plan(cs, side, policy):
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
    other = "random-legal"
    fam, kn = pack_policies({lay.SIDE_NAMES[side]: policy, lay.SIDE_NAMES[1 - side]: other})
    pw, gmem = policy_scratch_nb(d.ust.shape[0], d.nodes.shape[0])
    k = policy_plan_nb(fam[side], side, 1, kn[side], PolicyTables(d.ust, d.lst, d.nodes, d.adj, d.cost, d.markers, cs.par),
                       PolicyView(UV, LV, vis, cs.ND), PlanBuffers(B, pu, pp, pst, pl, pw, gmem), rng)
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
    # out of Key West next to the Spanish squadron the attack is a Sortie (5.6 B)
    dest_a = {s[1] for s in pa[2] if s[0] in (lay.PATROL, lay.SORTIE)}
    dest_b = {s[1] for s in pb[2] if s[0] in (lay.PATROL, lay.SORTIE)}
    assert fs not in dest_a and fs in dest_b


@pytest.mark.parametrize("opts", [{}, dict(extra_warships=True, germans=True, free_deployment=True, maintenance=True,
                                            restrict_disabled=True, speed_subgroups=True, turns=9,
                                            automatic_victory=True, fog_of_war=True)])
def test_every_pairing_plays_legal_campaigns(opts):
    options = GAME.resolve_options(opts)
    for us in US_POLICIES:
        for sp in SPAIN_POLICIES:
            raw = run_games(DATA, options, {"us": us, "spain": sp}, game_seeds(4, 4, 0, 40), trace=True)
            # legal means the rules' invariants hold turn by turn (places, damage, order sequences,
            # Transit and coaling limits, the VP ledger), not only that the kernel raised no error
            check_invariants(DATA, options, raw)


def test_the_knobs_change_what_the_policies_do():
    seeds = game_seeds(5, 5, 0, 400)
    out = {}
    for k in (0.0, 1.0):
        book = policy_book()
        pols = {"us": book.resolve("us", "blockade", {"aggression": 1.0 - k}),
                "spain": book.resolve("spain", "raider", {"aggression": k})}
        raw = run_games(DATA, GAME.resolve_options({}), pols, seeds)
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


def test_policies_toml_and_the_knob_slots_agree():
    """Every family of policies.toml is a kernel family, every knob has a slot (and every slot a
    knob), knobs of one name mean one thing (same kind), and the presets are the game's policies
    in its order."""
    book = policy_book()
    assert set(book.families) == set(pk.FAMILY_IDS)
    slots = pk.POLICY_PACKING.check(book)["kn"]  # knob -> its K_<NAME> slot, found in the layout
    names = {}
    for fam in book.families.values():
        for k in fam.knobs:
            assert slots[k.name] == getattr(pk, "K_" + k.name.upper()), k.name
            assert names.setdefault(k.name, k.kind) is k.kind
            assert k.kind is int or (k.lo >= 0.0 and k.hi <= 1.0)     # floats are fractions (permille)
    assert set(names) == set(slots)
    assert sorted(slots.values()) == list(range(pk.KN_NF))
    assert US_POLICIES == ("hunter", "blockade", "coastal-defense", "random-legal")
    assert SPAIN_POLICIES == ("raider", "fleet-in-being", "historical", "random-legal")
    assert GAME.default_policies == {"us": "hunter", "spain": "raider"}


def test_a_preset_packs_its_knobs_by_name():
    fam, kn = pack_policies({"us": "coastal-defense", "spain": "historical"})
    assert list(fam) == [pk.FAM_US, pk.FAM_SPAIN]
    assert kn[0, pk.K_AGGRESSION] == 500 and kn[0, pk.K_ODDS] == 1500          # 0.5 -> permille
    assert kn[0, pk.K_GUARD_COAST] == 1 and kn[0, pk.K_DEPLOY] == 1 and kn[0, pk.K_BLOCKADE] == 0
    assert kn[1, pk.K_CONCENTRATE] == 1 and kn[1, pk.K_BASE_MINES] == 10 and kn[1, pk.K_BASE_REPAIR] == 0
    assert kn[1, pk.K_GUARD_COAST] == 0                                          # not a Spanish knob
    pol = policy_book().resolve("us", "hunter", {"aggression": 0.25, "patrol_choices": 2})
    fam, kn = pack_policies({"us": pol, "spain": "random-legal"})
    assert kn[0, pk.K_AGGRESSION] == 250 and kn[0, pk.K_PATROL_CHOICES] == 2 and kn[0, pk.K_ATTACK_VALUE] == 600
    assert fam[1] == pk.FAM_RANDOM and not kn[1].any()


def _extreme_policies(side, rng):
    """Each scripted family with every knob at lo, at hi, and at random values in [lo, hi]."""
    book = policy_book()
    out = []
    for preset in book.side_presets(side):
        fam = book.families[book.presets[preset].family]
        if not fam.knobs:
            continue
        for pick in ("lo", "hi", "rand"):
            vals = {}
            for k in fam.knobs:
                if pick == "rand":
                    v = rng.uniform(k.lo, k.hi) if k.kind is float else int(rng.integers(k.lo, k.hi + 1))
                else:
                    v = getattr(k, pick)
                vals[k.name] = v
            out.append(book.resolve(side, preset, vals))
        break   # one preset per family: the knobs cover the others
    return out


@pytest.mark.parametrize("opts", [{}, dict(free_deployment=True, fog_of_war=True, maintenance=True, germans=True,
                                            extra_warships=True, restrict_disabled=True)])
def test_every_knob_value_in_bounds_plays_legal_campaigns(opts):
    """install_plan_nb and apply_deployment_nb accept every plan a scripted family writes with its
    knobs at their bounds or anywhere between (no PolicyError, every game runs its turns)."""
    rng = np.random.default_rng(7)
    options = GAME.resolve_options(opts)
    us = _extreme_policies("us", rng) + [policy_book().resolve("us", "blockade")]
    sp = _extreme_policies("spain", rng) + [policy_book().resolve("spain", "fleet-in-being")]
    for i, pu in enumerate(us):
        ps = sp[i % len(sp)]
        raw = run_games(DATA, options, {"us": pu, "spain": ps}, game_seeds(11, i, 0, 12), trace=True)
        check_invariants(DATA, options, raw)
        assert (raw["G"][:, lay.G_TURNS] == options["turns"]).all()


# ---------------------------------------------------------------- plans of issue 13 (knobs screen, cross_in_stages, 5.6 B)
CERVERA = ["Teresa", "Vizcaya", "Oquendo", "Colon", "Pelayo"]


def _stack_of(p, unit):
    """The order, destination, target and join flag of ``unit``'s stack in plan ``p`` (the plan
    row's first four fields; its route and drop-off follow, campaign_orders.PS_RN...)."""
    pu, _, pst, _ = p
    return pst[pu[DATA.unit(unit)]][:4]


def test_cervera_crosses_to_santiago_in_stages():  # 5.7, 4.2 C: Pelayo's 4 MP cannot reach in one move
    keep = {u: "canary-islands" for u in CERVERA}
    book = policy_book()
    p, _, _ = plan(position(keep), 1, book.resolve("spain", "historical"))
    order, dest, _, _ = _stack_of(p, "Teresa")
    assert order == lay.TRANSIT and dest < DATA.n_areas                          # the first stage, at sea
    assert DATA.cost[lay.KMAX, DATA.node("canary-islands"), DATA.node("santiago")] > 4
    p, _, _ = plan(position(keep), 1, book.resolve("spain", "historical", {"cross_in_stages": 0}))
    assert _stack_of(p, "Teresa")[0] == lay.ANCHOR                               # the old plan: never leaves


def test_a_threatened_port_is_screened():  # screen: a search forced on the blockaders (8.2.1)
    keep = {"Venadito": "havana", "Alfonso XII": "havana", "Texas": "key-west", "Iowa": "key-west"}
    book = policy_book()
    p, _, _ = plan(position(keep), 1, book.resolve("spain", "historical", {"raids": 0, "screen_odds": 0}))
    order, dest, _, _ = _stack_of(p, "Venadito")
    assert order == lay.PATROL and dest == DATA.node("gulf-of-mexico")
    p, _, _ = plan(position(keep), 1, book.resolve("spain", "historical", {"raids": 0, "screen": 0, "screen_odds": 0}))
    assert _stack_of(p, "Venadito")[0] == lay.ANCHOR
