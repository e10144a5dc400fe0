"""Dawn of Empire, issue 28: the orders and movement choices closed by knobs of both scripted
families (``simlab/games/doe/decisions.toml``): the route of every move (7.1 F, ruling C49), where
a Patrol stops (5.4 B, C50) and drop-offs on the way (7.3 D, C51).

Each test builds a situation: a :class:`CampaignState` with the plan handed in (the engine's
checks and movement), or the plan a policy writes from what its side may see
(:func:`test_doe_campaign_policies.plan`) at the knob's bounds.
"""

import numpy as np
import pytest
from test_doe_campaign_policies import plan
from test_doe_campaign_policies import position as policy_position
from test_doe_campaign_rules import DATA, illegal, legal, position, sq

from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.campaign_bundles import GameState, new_scratch_nb, tables_of
from simlab.games.doe.campaign_movement import enemy_counts_nb, install_plan_nb
from simlab.games.doe.campaign_orders import PS_DROP_I, PS_DROP_N, PS_R0, PS_RN
from simlab.games.doe.policies import PlanBuffers, PolicyTables, PolicyView, policy_plan_nb
from simlab.games.doe.policy_layout import FAM_RANDOM, KN_NF
from simlab.games.doe.policy_view import observe_nb
from simlab.games.doe.runtime import policy_book
from simlab.rng import STATE_WORDS, new_state_nb

BOOK = policy_book()
KEYS = DATA.area_keys + DATA.port_keys
SP = ["Teresa", "Vizcaya"]                       # 6 MP each
SP4 = ["Teresa", "Vizcaya", "Oquendo", "Colon"]  # 6 MP each
US = ["Brooklyn", "New York"]                    # 6 MP each
AROUND = ["windward-passage", "bahamas", "nares-abyssal"]   # 2 + 1 + 1 MP


def _us_patrol_in_the_passage(spain):
    """Spain's ``spain`` units in the Columbia Basin and a US Patrol in the Puerto Rico Passage: the
    least-MP way to the Nares Abyssal (2 + 1 MP) goes through the Patrol, the way round by the
    Windward Passage and the Bahamas costs 4."""
    cs = position({**{u: "columbia-basin" for u in spain}, **{u: "puerto-rico-passage" for u in US}})
    legal(cs, "us", [sq(US, "patrol", "puerto-rico-passage")])
    return cs


def _stack(p, unit):
    pu, _, pst, _ = p
    return pst[pu[DATA.unit(unit)]]


def _route(row):
    return [KEYS[x] for x in row[PS_R0:PS_R0 + row[PS_RN]]]


# ============================================================================ 7.1 F: the route
def test_the_owner_may_route_around_a_halting_patrol():  # 7.1 B, F; 4.2 D-E; rulings C8, C49
    cs = _us_patrol_in_the_passage(SP)
    legal(cs, "spain", [sq(SP, "transit", "nares-abyssal")])      # no route named: the least MP (C8)
    cs.movement()
    assert cs.where("Teresa") == "puerto-rico-passage"             # halted by the Patrol (7.1 F)
    cs = _us_patrol_in_the_passage(SP)
    legal(cs, "spain", [sq(SP, "transit", "nares-abyssal") | {"route": AROUND}])
    cs.movement()
    assert cs.where("Teresa") == cs.where("Vizcaya") == "nares-abyssal"
    # the route is followed node by node: entering the Patrol's area halts it there
    cs = _us_patrol_in_the_passage(SP)
    legal(cs, "spain", [sq(SP, "transit", "nares-abyssal") | {"route": ["puerto-rico-passage", "nares-abyssal"]}])
    cs.movement()
    assert cs.where("Teresa") == "puerto-rico-passage"


@pytest.mark.parametrize("route", [
    ["bahamas", "nares-abyssal"],                                   # the Bahamas do not border the basin (7.1 B)
    ["windward-passage", "bahamas"],                                 # does not end at the destination
    ["kingston", "columbia-basin", "puerto-rico-passage", "nares-abyssal"],   # through a port (7.2.2, C8)
    ["windward-passage", "bahamas", "florida-strait", "bahamas", "nares-abyssal"],   # 7 MP > 6 (7.1 B)
])
def test_the_engine_refuses_an_illegal_route(route):  # 7.1 A-B, 7.2.2 A, ruling C49
    cs = _us_patrol_in_the_passage(SP)
    illegal(cs, "spain", [sq(SP, "transit", "nares-abyssal") | {"route": route}], "illegal route")


def test_a_slow_squadron_may_not_take_the_longer_way():  # 7.1 B, 7.3 B
    slow = ["Furor", "Pluton"]    # 3 MP: the Passage and the Nares Abyssal, not the way round (4)
    cs = _us_patrol_in_the_passage(slow)
    illegal(cs, "spain", [sq(slow, "transit", "nares-abyssal") | {"route": AROUND}], "illegal route")
    cs = _us_patrol_in_the_passage(slow)
    legal(cs, "spain", [sq(slow, "transit", "nares-abyssal") | {"route": ["puerto-rico-passage", "nares-abyssal"]}])


def test_patrol_routes_enter_sea_areas_only_and_a_stack_that_stays_names_none():  # 5.4 A-B, ruling C49
    cs = position({u: "key-west" for u in US})
    legal(cs, "us", [sq(US, "patrol", "bahamas") | {"route": ["florida-strait", "bahamas"]}])
    cs = position({u: "bahamas" for u in US})
    # from sea two areas at most: the Florida Strait, the East Coast, the Sargasso Sea is three
    illegal(cs, "us", [sq(US, "patrol", "sargasso-sea") | {"route": ["florida-strait", "east-coast", "sargasso-sea"]}],
            "illegal")
    cs = position({u: "key-west" for u in US})
    illegal(cs, "us", [sq(US, "anchor") | {"route": ["florida-strait", "key-west"]}], "illegal route")


def _historical(knobs):
    """Spain's pair in the Columbia Basin sails for Santiago (``historical`` without raids: the most
    mines) with two US units seen in the Windward Passage, on its least-MP way (2 + 1 + 1 MP)."""
    cs = policy_position({**{u: "columbia-basin" for u in SP}, **{u: "windward-passage" for u in US}})
    p, _, _ = plan(cs, 1, BOOK.resolve("spain", "historical", {"raids": 0} | knobs))
    return _stack(p, "Teresa")


def test_the_route_knob_avoids_the_areas_that_may_halt_the_squadron():  # 7.1 F, ruling C49
    row = _historical({})
    assert lay.ORDER_NAMES[row[0]] == "transit" and KEYS[row[1]] == "santiago"
    assert row[PS_RN] == 0                                          # the least-MP route (C8)
    row = _historical({"patrol_stop": 1})                          # (the same, named: least MP)
    assert _route(row) == ["windward-passage", "bahamas", "santiago"]
    for how in (1, 2):                                              # round by the Puerto Rico Passage: 5 MP
        row = _historical({"route": how})
        assert KEYS[row[1]] == "santiago"
        assert _route(row) == ["puerto-rico-passage", "nares-abyssal", "bahamas", "santiago"]
    # played: by the least-MP way the US Patrol halts it; round it, it reaches Santiago
    for route, where in (([], "windward-passage"), (_route(row), "santiago")):
        cs = position({**{u: "columbia-basin" for u in SP}, **{u: "windward-passage" for u in US}})
        legal(cs, "us", [sq(US, "patrol", "windward-passage")])
        legal(cs, "spain", [sq(SP, "transit", "santiago") | {"route": route}])
        cs.movement()
        assert cs.where("Teresa") == where


def test_the_route_knob_ignores_lone_units_only_at_its_first_setting():  # 7.1 F: 1 halting squadrons, 2 any forces
    cs = policy_position({**{u: "columbia-basin" for u in SP}, "Brooklyn": "windward-passage"})
    p1, _, _ = plan(cs, 1, BOOK.resolve("spain", "historical", {"raids": 0, "route": 1}))
    p2, _, _ = plan(cs, 1, BOOK.resolve("spain", "historical", {"raids": 0, "route": 2}))
    assert _route(_stack(p1, "Teresa")) == ["windward-passage", "bahamas", "santiago"]   # one unit cannot halt it
    assert _route(_stack(p2, "Teresa")) == ["puerto-rico-passage", "nares-abyssal", "bahamas", "santiago"]


# ============================================================================ 5.4 B: where a Patrol stops
def test_a_patrol_may_stop_in_its_starting_area_or_the_first_area_entered():  # 5.4 B, ruling C50
    cs = position({u: "bahamas" for u in US})
    legal(cs, "us", [sq(US, "patrol", "bahamas")])                  # remain in the starting area
    cs = position({u: "key-west" for u in US})
    illegal(cs, "us", [sq(US, "patrol", "key-west")], "illegal destination")   # from a port it must go out (5.4 A)
    mon = ["Terror", "Amphitrite"]                                  # 3 MP, damaged: 2 (never below, 8.3.2.3 B)
    cs = position({u: "east-coast" for u in mon})
    for u in mon:
        cs.set_damage(u, 1)
    illegal(cs, "us", [sq(mon, "transit", "north-atlantic")], "illegal destination")   # 3 MP to enter
    cs = position({u: "east-coast" for u in mon})
    for u in mon:
        cs.set_damage(u, 1)
    legal(cs, "us", [sq(mon, "patrol", "north-atlantic") | {"route": ["north-atlantic"]}])   # the first area, whatever the MP


def _hunter(knobs, at="east-coast"):
    keep = {**{u: at for u in US + ["Columbia", "Minneapolis"]}, "Teresa": "bahamas", "Vizcaya": "bahamas",
            "Oquendo": "florida-strait"}
    p, _, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "hunter", knobs))
    return _stack(p, "Brooklyn")


def test_the_patrol_stop_knob():  # 5.4 B, ruling C50
    row = _hunter({})
    assert lay.ORDER_NAMES[row[0]] == "patrol" and KEYS[row[1]] == "bahamas" and row[PS_RN] == 0
    row = _hunter({"patrol_stop": 1})                               # one Spanish unit seen in the Strait
    assert KEYS[row[1]] == "florida-strait" and _route(row) == ["florida-strait"]
    row = _hunter({"patrol_stop": 2})                               # at sea: it remains where it is
    assert KEYS[row[1]] == "east-coast" and _route(row) == []
    row = _hunter({"patrol_stop": 1}, at="hampton-roads")           # nothing seen off the port: it goes on
    assert KEYS[row[1]] == "bahamas" and _route(row) == ["east-coast", "florida-strait", "bahamas"]
    row = _hunter({"patrol_stop": 2}, at="hampton-roads")           # out of port: the first area entered
    assert lay.ORDER_NAMES[row[0]] == "patrol" and KEYS[row[1]] == "east-coast" and _route(row) == ["east-coast"]


# ============================================================================ 7.3 D: drop-offs
def test_a_moving_squadron_may_drop_off_units_in_an_area_it_traverses():  # 7.3 D, ruling C51
    cs = _us_patrol_in_the_passage(SP4)
    legal(cs, "spain", [sq(SP4, "transit", "nares-abyssal") | {"route": AROUND, "drop": ("bahamas", 2)}])
    marks = cs.G[lay.G_MARK + lay.SPAIN * lay.N_MARK_SLOTS + lay.TRANSIT]
    assert marks == 2                                               # the squadron's marker and the dropped one's
    cs.movement()
    assert [cs.where(u) for u in SP4] == ["nares-abyssal", "nares-abyssal", "bahamas", "bahamas"]
    assert cs.stack("Teresa") == ["Teresa", "Vizcaya"] and cs.stack("Oquendo") == ["Oquendo", "Colon"]
    assert cs.order("Oquendo") == "transit"                         # the same orders as its original
    # one unit dropped is an independent unit with Transit orders
    cs = _us_patrol_in_the_passage(SP4[:3])
    legal(cs, "spain", [sq(SP4[:3], "patrol", "bahamas") | {"route": ["windward-passage", "bahamas"],
                                                           "drop": ("windward-passage", 1)}])
    assert cs.G[lay.G_MARK + lay.SPAIN * lay.N_MARK_SLOTS + lay.PATROL] == 1
    cs.movement()
    assert [cs.where(u) for u in SP4[:3]] == ["bahamas", "bahamas", "windward-passage"]
    assert cs.stack("Oquendo") == ["Oquendo"] and cs.order("Oquendo") == "transit" and cs.order("Teresa") == "patrol"


def test_a_squadron_halted_before_its_drop_off_keeps_its_units():  # 7.1 F, 7.3 D
    cs = _us_patrol_in_the_passage(SP4)
    legal(cs, "spain", [sq(SP4, "transit", "bahamas") | {
        "route": ["puerto-rico-passage", "nares-abyssal", "bahamas"], "drop": ("nares-abyssal", 2)}])
    cs.movement()
    assert [cs.where(u) for u in SP4] == ["puerto-rico-passage"] * 4
    assert cs.G[lay.G_MARK + lay.SPAIN * lay.N_MARK_SLOTS + lay.TRANSIT] == 1   # the reserved marker freed


@pytest.mark.parametrize("order, route, drop", [
    ("transit", AROUND, ("bahamas", 3)),                            # one unit would go on: not a squadron
    ("transit", AROUND, ("nares-abyssal", 2)),                      # the destination is not traversed
    ("transit", [], ("bahamas", 2)),                                # no route named
])
def test_the_engine_refuses_an_illegal_drop_off(order, route, drop):  # 7.3 D, ruling C51
    cs = _us_patrol_in_the_passage(SP4)
    illegal(cs, "spain", [sq(SP4, order, "nares-abyssal") | {"route": route, "drop": drop}], "illegal drop-off")


def test_a_raid_drops_off_nothing():  # 7.3 D: the dropped units keep the order; a Raid ends in its area
    cs = position({**{u: "florida-strait" for u in SP4}})
    illegal(cs, "spain", [sq(SP4, "raid", "east-coast", "hampton-roads") | {
        "route": ["east-coast"], "drop": ("east-coast", 2)}], "illegal drop-off")


def test_the_drop_off_knob():  # 7.3 D, ruling C51
    assert _hunter({})[PS_DROP_N] == 0
    row = _hunter({"drop_off": 2})                                  # four units: two go on
    assert _route(row) == ["florida-strait", "bahamas"] and row[PS_DROP_I] == 0 and row[PS_DROP_N] == 2
    assert _hunter({"drop_off": 3})[PS_DROP_N] == 0                 # would leave one unit going on


# ============================================================================ random-legal samples them
def _random_plans(cs, side, seeds):
    """random-legal's plans for ``side`` from what it sees in ``cs``, one per seed, each installed
    by the engine on a copy of the position (it must accept every one); their plan rows."""
    d = DATA
    tb = tables_of(d, cs.par, np.zeros((2, KN_NF), dtype=np.int64))
    sc = new_scratch_nb(tb)
    UV, LV, vis = sc.UV[side], sc.LV[side], sc.vis
    observe_nb(side, cs.U, cs.LD, d.ust, d.lst, cs.par, UV, LV, vis)
    out = []
    for seed in seeds:
        rng = np.zeros(STATE_WORDS, dtype=np.uint64)
        new_state_nb(np.uint64(seed), rng)
        k = policy_plan_nb(FAM_RANDOM, side, 1, tb.kn[side],
                           PolicyTables(d.ust, d.lst, d.nodes, d.adj, d.cost, d.markers, cs.par),
                           PolicyView(UV, LV, vis, cs.ND),
                           PlanBuffers(sc.B, sc.pu, sc.pp, sc.pst, sc.pl, sc.pw, sc.gmem), rng)
        enemy_counts_nb(side, cs.U, d.ust, sc.enemy_n)
        st = GameState(*(a.copy() for a in cs.state))
        err, _ = install_plan_nb(side, k, tb, st, sc)
        assert err == lay.ERR_NONE, lay.ERR_NAMES[err]
        out.extend(sc.pst[:k].copy())
    return out


@pytest.mark.timeout(600)
def test_random_legal_samples_routes_stops_and_drop_offs():  # 7.1 F, 5.4 B, 7.3 D
    cs = policy_position({**{u: "columbia-basin" for u in SP4}, **{u: "puerto-rico-passage" for u in US}})
    rows = _random_plans(cs, 1, range(400))
    moved = [r for r in rows if r[PS_RN] > 0]
    routes = {tuple(_route(r)) for r in moved}
    # to one destination, more than one route
    by_dest = {}
    for r in moved:
        by_dest.setdefault(KEYS[r[1]], set()).add(tuple(_route(r)))
    assert max(len(v) for v in by_dest.values()) >= 2, by_dest
    assert len(routes) >= 10
    patrols = [r for r in rows if lay.ORDER_NAMES[r[0]] == "patrol"]
    assert any(KEYS[r[1]] == "columbia-basin" for r in patrols)      # 5.4 B: remains in the starting area
    drops = [r for r in rows if r[PS_DROP_N] > 0]
    assert drops and all(r[PS_DROP_I] < r[PS_RN] - 1 for r in drops)
