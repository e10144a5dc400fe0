"""The residual departures of the Dawn of Empire campaign from its rulebook found in issue 28
(rulings C40-C45 of docs/rulings.md), each played on a hand-built position.

Each test sets up the situation with :class:`CampaignState` (``position`` of
``test_doe_campaign_rules``: every unit off the map except the few it places), injects the dice
where a result is exact, and asserts the rule's outcome; each failed on the engine before the rule
was fixed.
"""

import pytest
from test_doe_campaign_rules import DATA, illegal, legal, position, sq

from simlab.games.doe import campaign_layout as lay

NO_FLEE = {"us": 0, "spain": 0}


def _state(keep, dice=None, leaders=(), **opts):
    """``position`` with neither side disengaging by speed (10.2) and the areas in pack order (4.3 B)."""
    cs = position(keep, leaders=leaders, dice=dice, **opts)
    cs.par[lay.P_FLEE0] = cs.par[lay.P_FLEE1] = 0
    cs.par[lay.P_CORDER] = 0
    return cs


# ============================================================================ 7.4 C a lone remnant
REMNANT = [
    6, 1, 1,            # initiative Spain 2 + 6, US 2 + 1: Spain; Raid x Patrol 1-3: a 1, battle
    5, 1,               # Annapolis disables Teresa, Vicksburg misses
    5, 1, 1, 5, 1, 1,   # Teresa and Vizcaya disable both gunboats: Spain wins with Vizcaya alone
]
RAID_BY_ONE = [5, 2, 6, 1, 1]   # what Vizcaya alone would roll at Key West (mine 0): destroyed


def test_a_lone_remnant_makes_no_port_attack():  # 7.4 C, 3.5.8, 8.4 A (ruling C40)
    us = ["Annapolis", "Vicksburg"]
    sp = ["Teresa", "Vizcaya"]
    cs = _state({**{u: "florida-strait" for u in us}, **{u: "florida-strait" for u in sp}},
                dice=REMNANT + RAID_BY_ONE)
    cs.set_history(sp, "sortie")
    legal(cs, "spain", [sq(sp, "raid", "florida-strait", "key-west")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    (b,) = cs.battles()
    assert b["initiative"] == "spain" and b["winner"] == "spain" and b["disabled_spain"] == 1
    assert cs.where("Vizcaya") == "florida-strait" and cs.stack("Vizcaya") == ["Vizcaya"]
    # the one ship left is an independent unit: it "may not engage in combat or earn VPs" (7.4 C)
    assert cs.dice_used() == len(REMNANT)
    assert cs.counts()["port_attacks"] == 0
    assert cs.port_damage("key-west") == 0
    assert [r for r in cs.ledger() if r["kind"] == "port"] == []


def test_a_squadron_of_two_left_still_attacks_the_port():  # 8.4 A, the control case of C40
    us = ["Annapolis", "Vicksburg"]
    sp = ["Teresa", "Vizcaya", "Oquendo"]
    dice = [6, 1, 1,            # initiative Spain 3 + 6, US 2 + 1; Raid x Patrol 1-3: a 1
            5, 1,               # Annapolis disables Teresa, Vicksburg misses Vizcaya
            5, 1, 1, 5, 1, 1, 1, 1]   # Teresa, Vizcaya disable both gunboats; Oquendo misses
    cs = _state({**{u: "florida-strait" for u in us}, **{u: "florida-strait" for u in sp}},
                dice=dice + RAID_BY_ONE + [1, 1])
    cs.set_history(sp, "sortie")
    legal(cs, "spain", [sq(sp, "raid", "florida-strait", "key-west")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    assert cs.counts()["port_attacks"] == 1
    assert [(r["side"], r["amount"]) for r in cs.ledger() if r["kind"] == "port"] == [("spain", 3 + 2)]


# ============================================================================ 7.2.3 D Anchor in a neutral port
def test_units_that_entered_a_neutral_port_must_anchor():  # 7.2.3 D (ruling C6, as amended)
    sp = ["Teresa", "Vizcaya"]
    for prev in ("transit", "patrol"):   # both allow Coal at sea or in a friendly port (5.4 D, 5.4.2 C)
        cs = position({u: "kingston" for u in sp})
        cs.set_history(sp, prev, neutral=1)
        illegal(cs, "spain", [sq(sp, "coal")], "order sequence")
        cs = position({u: "kingston" for u in sp})
        cs.set_history(sp, prev, neutral=1)
        legal(cs, "spain", [sq(sp, "anchor")])
        assert cs.order("Teresa") == "anchor"
    cs = position({"Teresa": "kingston"})   # an independent unit too (7.4 A)
    cs.set_history(["Teresa"], "transit", neutral=1)
    illegal(cs, "spain", [sq(["Teresa"], "coal")], "order sequence")
    cs = position({u: "cienfuegos" for u in sp})   # in a friendly port Coal stays legal
    cs.set_history(sp, "patrol")
    legal(cs, "spain", [sq(sp, "coal")])


# ============================================================================ 5.1 C anchored at sea
NO_PORT_AREAS = ["yucatan-strait", "windward-passage", "puerto-rico-passage", "south-yucatan-basin", "sargasso-sea"]


def test_the_areas_without_ports_are_the_five_of_the_issue():  # 5.1 B: where a squadron anchors at sea
    cs = position({})
    ports = [p for p in range(DATA.nodes.shape[0]) if DATA.nodes[p, lay.NS_KIND] == lay.KIND_PORT]
    bordered = {int(DATA.nodes[p, f]) for p in ports for f in (lay.NS_PAREA1, lay.NS_PAREA2)}
    no_port = [cs.node_key(a) for a in range(DATA.nodes.shape[0])
               if DATA.nodes[a, lay.NS_KIND] != lay.KIND_PORT and a not in bordered]
    assert sorted(no_port) == sorted(NO_PORT_AREAS)


def _anchored_at_sea(area, us, sp, us_order, dice):
    cs = _state({**{u: area for u in us}, **{u: area for u in sp}}, dice=dice)
    legal(cs, "spain", [sq(sp, "anchor", area)])
    legal(cs, "us", [sq(us, us_order, area)] if us_order != "coal" else [sq(us, "coal")])
    cs.movement()
    cs.combat()
    return cs


SP4 = ["Teresa", "Vizcaya", "Oquendo", "Colon"]
US2 = ["Brooklyn", "New York"]


@pytest.mark.parametrize("order, roll", [("patrol", 3), ("transit", 2), ("coal", 1)])
def test_a_squadron_anchored_at_sea_is_found_and_defends(order, roll):  # 5.1 B-C (ruling C41)
    # Spain's four ships anchor in the Yucatan Strait (no port, 5.1 B); the US pair ends there. The
    # anchored squadron "may not attack" (5.1 C): like a squadron in port it has no initiative
    # (8.1 B), so the US searches without a roll: <order> x Anchor at sea 1-<roll>, a <roll>.
    # Then every gunfire die is a 5: the 6 US dice disable Teresa and Vizcaya (the ships they
    # face), the 10 Spanish dice both US ships.
    cs = _anchored_at_sea("yucatan-strait", US2, SP4, order, [roll] + [5] * 16)
    assert cs.dice_used() == 17
    (b,) = cs.battles()
    assert b["initiative"] == "us" and b["rounds"] == 1
    assert b["disabled_spain"] == 2 and b["disabled_us"] == 2   # it defends normally (5.1 C)
    assert b["winner"] == "spain"


def test_the_search_matrix_finds_a_squadron_anchored_at_sea():  # 5.1 C, ruling C41
    m = DATA.matrix
    A, B, C, P, R, S, T = range(7)
    assert m.shape == (7, 8)
    AS = lay.SM_ANCHOR_SEA
    assert [m[o, AS] for o in range(7)] == [lay.SM_NA, 2, 1, 3, 2, 3, 2]
    assert m[P, A] == m[C, A] == m[T, A] == lay.SM_NA     # in port: 18.1.6 A, ruling D4 unchanged


# ============================================================================ 6.2 D / 6.3 leaders with no effect
LEADER_BATTLE = [6, 1, 1]   # initiative Spain 3 + 2 (Cervera) + 6, US 3 + 1; Patrol x Patrol 1-4: a 1
SPAIN_DISABLES_ALL = [5, 1, 1, 1, 5, 1, 1, 1, 5, 1]   # Teresa, Vizcaya (3 + 1 dice each), Oquendo (2)


def _leaders_battle(newport):
    """Cervera (active, 2 stars) and Manterola (no effect) lead Teresa, Vizcaya, Oquendo against
    three gunboats; Newport's die against Oquendo, the last ship, is ``newport``."""
    sp = ["Teresa", "Vizcaya", "Oquendo"]
    us = ["Annapolis", "Vicksburg", "Newport"]
    dice = LEADER_BATTLE + [1, 1] + newport + SPAIN_DISABLES_ALL
    cs = _state({**{u: "bahamas" for u in sp}, **{u: "bahamas" for u in us}}, dice=dice,
                leaders=("Cervera", "Manterola"))
    for name in ("Cervera", "Manterola"):
        cs.LD[DATA.leader(name)] = (DATA.unit("Teresa"), 0)
    legal(cs, "spain", [sq(sp, "patrol", leaders=["Cervera", "Manterola"])])
    legal(cs, "us", [sq(us, "patrol")])
    assert cs.leader("Cervera") == "Teresa" and cs.leader("Manterola") == "Oquendo"   # 6.2 A, D (C32)
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    (b,) = cs.battles()
    assert b["winner"] == "spain" and b["disabled_us"] == 3
    return cs


def test_a_leader_with_no_effect_does_not_die_with_the_last_ship():  # 6.2 D, 6.3 A, C (ruling C42)
    cs = _leaders_battle([6, 5])   # Newport hits Oquendo: 5 damage > 4, sunk
    assert cs.where("Oquendo") == "sunk"
    assert cs.leader("Cervera") == "Teresa"
    assert cs.leader("Manterola") == "Vizcaya"   # still with his squadron, aboard its last ship
    assert [r for r in cs.ledger() if r["kind"] == "leaders"] == []
    cs.control_and_vp()
    assert [(r["side"], r["amount"]) for r in cs.ledger() if r["kind"] == "losses"] == [("us", 1)]   # Oquendo, CA


def test_a_leader_with_no_effect_does_not_leave_with_a_disabled_last_ship():  # 6.2 D, 6.3 B (C42)
    cs = _leaders_battle([5])      # Newport disables Oquendo
    assert cs.where("Oquendo") != "bahamas" and cs.where("Vizcaya") == "bahamas"
    assert cs.leader("Manterola") == "Vizcaya"


def test_a_leader_with_no_effect_rides_with_his_last_ships_to_port():  # 6.1 D, C42: no ship left in the area
    # the control case (it passed before the change too): every ship of the squadron disabled
    sp = ["Teresa", "Vizcaya"]
    us = ["Annapolis", "Vicksburg"]
    dice = [6, 1, 1, 5, 5,            # Spain 2 + 2 + 6, US 2 + 1; Patrol x Patrol: a 1; both gunboats disable
            1, 1, 1, 1, 1, 1, 1, 1]    # Teresa, Vizcaya miss (3 + 1 dice each)
    cs = _state({**{u: "bahamas" for u in sp}, **{u: "bahamas" for u in us}}, dice=dice,
                leaders=("Cervera", "Manterola"))
    for name in ("Cervera", "Manterola"):
        cs.LD[DATA.leader(name)] = (DATA.unit("Teresa"), 0)
    legal(cs, "spain", [sq(sp, "patrol", leaders=["Cervera", "Manterola"])])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    assert cs.leader("Cervera") == "Teresa" and cs.leader("Manterola") == "Vizcaya"
    assert cs.where("Vizcaya") not in ("bahamas", "sunk")


# ============================================================================ 4.3 B-C vs 8.4 A: when ports are attacked
def test_the_port_attack_follows_the_whole_battle():  # 8.4 A over 4.3 B's segment list (ruling C43)
    # This test documents ruling C43; the engine already played it so (it passed before).
    us = ["Annapolis", "Vicksburg"]
    sp = ["Teresa", "Vizcaya"]
    dice = [6, 1, 1,                      # Spain 2 + 6, US 2 + 1: Spain; Raid x Patrol 1-3: a 1
            1, 1, 1, 1, 1, 1, 1, 1,       # round 1: every die misses; nobody disengages
            1, 1, 5, 1, 1, 5, 1, 1,       # round 2: Teresa and Vizcaya disable both gunboats
            1, 2, 3, 5, 2, 6, 1, 1]       # then the raid (Key West, mine 0): 2 + 1 damage > 2
    cs = _state({**{u: "florida-strait" for u in us}, **{u: "florida-strait" for u in sp}}, dice=dice)
    cs.set_history(sp, "sortie")
    legal(cs, "spain", [sq(sp, "raid", "florida-strait", "key-west")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    (b,) = cs.battles()
    assert b["rounds"] == 2 and b["winner"] == "spain"
    assert cs.port_damage("key-west") == 3
    assert [(r["side"], r["amount"]) for r in cs.ledger() if r["kind"] == "port"] == [("spain", 3 + 2)]


# ============================================================================ 14.12 B Caracas is neutral for the Germans
GERMANS = ["Geier", "Charlotte", "Stein", "Gneisenau"]


def test_german_units_in_caracas_are_under_the_neutral_port_rules():  # 14.12 B, 7.2.3 D, 7.5 C (ruling C44)
    two = ["Charlotte", "Stein"]
    cs = position({u: "caracas" for u in two}, germans=True)
    cs.set_history(two, "anchor", neutral=2)            # a second Orders Phase there: must leave
    legal(cs, "spain", [sq(two, "anchor")])
    cs.movement()
    assert [cs.where(u) for u in two] == ["interned", "interned"]
    cs = position({u: "caracas" for u in two}, germans=True)
    cs.set_history(two, "transit", neutral=1)           # the Orders Phase after entering: Anchor
    illegal(cs, "spain", [sq(two, "coal")], "order sequence")
    cs = position({u: "caracas" for u in GERMANS}, germans=True)
    illegal(cs, "spain", [sq(GERMANS, "coal")], "coaling limit")    # three units per side (7.5 C)
    cs = position({u: "caracas" for u in GERMANS}, germans=True)
    legal(cs, "spain", [sq(GERMANS[:3], "coal"), sq(GERMANS[3:], "transit", "venezuela-basin")])


def test_caracas_still_repairs_the_german_units():  # 14.12 B: "a repair value of 1 but only ... German units"
    keep = {"Charlotte": "caracas", "Stein": "caracas", "Teresa": "caracas", "Vizcaya": "caracas"}
    cs = position(keep, germans=True)
    cs.set_history(list(keep), "transit", neutral=1)
    cs.set_damage("Charlotte", 1)
    cs.set_damage("Teresa", 1)
    legal(cs, "spain", [sq(["Charlotte", "Stein"], "anchor"), sq(["Teresa", "Vizcaya"], "anchor")])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    cs.repair()
    assert cs.where("Charlotte") == "caracas" and cs.damage("Charlotte") == 0
    assert cs.damage("Teresa") == 1
