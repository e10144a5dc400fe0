"""Ten rules of the Dawn of Empire campaign read as written (issue 13, rulings C12-C13, C16, C18,
C32, C35-C38 of docs/rulings.md), each played on a hand-built position.

Each test sets up the situation with :class:`CampaignState` (every unit off the map except the
few it places, ``position`` of ``test_doe_campaign_rules``), injects the dice where a result is
exact, and asserts the rule's outcome; each failed on the engine before the rule was fixed.
"""

import numpy as np
import pytest
from test_doe_campaign_rules import DATA, illegal, legal, position, sq

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe import policy_layout as pk
from simlab.games.doe.campaign_combat import sink_unit_nb
from simlab.games.doe.kernels import FLEE_ALWAYS, FLEE_COIN
from simlab.games.doe.policy_combat import CO_MAP, CO_RANDOM, CO_STRONG_FIRST
from simlab.games.doe.runtime import build_par

GAME = get_game("dawn-of-empire")
NO_FLEE = {"us": 0, "spain": 0}


def _state(keep, dice=None, leaders=(), disengage=None, combat_order=0, **opts):
    """``position`` with the scripted players' combat choices (10.2, 4.3 B) set."""
    cs = position(keep, leaders=leaders, dice=dice, **opts)
    for side, flee in (disengage or {}).items():
        cs.par[lay.P_FLEE0 + ("us", "spain").index(side)] = flee
    cs.par[lay.P_CORDER] = combat_order
    return cs


# ============================================================================ 1. 10.2 "may disengage"
CRUISERS = ["Brooklyn", "New York", "New Orleans", "Minneapolis", "Columbia"]   # 6 MP
GUNBOATS = ["Galicia", "Ensenada"]                                              # 4 MP


def _faster_us_meets_gunboats(flee_us):
    # initiative: Spain 2 + 1, US 5 + 1: the US; Patrol x Patrol 1-4: a 1, battle. Every die after
    # is a 6 (each shot hits, each damage die is 6)
    cs = _state({**{u: "bahamas" for u in CRUISERS}, **{u: "bahamas" for u in GUNBOATS}},
                dice=[1, 1, 1] + [6] * 60, disengage={"us": flee_us, "spain": 0})
    legal(cs, "spain", [sq(GUNBOATS, "patrol")])
    legal(cs, "us", [sq(CRUISERS, "patrol")])
    cs.movement()
    cs.combat()
    (b,) = cs.battles()
    return b


def test_a_faster_squadron_may_stay_and_fight():  # 10.2.1 "may disengage", ruling C18
    b = _faster_us_meets_gunboats(1000)    # 9 attack dice against 2: the US chooses to fight
    assert b["rounds"] == 1 and b["sunk_spain"] == 2 and b["winner"] == "us"
    b = _faster_us_meets_gunboats(FLEE_ALWAYS)   # a side that always leaves when able
    assert b["rounds"] == 0 and b["winner"] == "spain"


def test_disengagement_is_each_policys_knob():  # 10.2, option speed_disengage
    opts = GAME.resolve_options({})
    assert opts["speed_disengage"] == "policy"
    par = build_par(DATA, opts, {"us": "hunter", "spain": "random-legal"})
    assert par[lay.P_FLEE0] == 1000 and par[lay.P_FLEE1] == FLEE_COIN
    par = build_par(DATA, GAME.resolve_options({"speed_disengage": "always"}), {"us": "hunter", "spain": "raider"})
    assert par[lay.P_FLEE0] == par[lay.P_FLEE1] == FLEE_ALWAYS
    from simlab.games.doe.runtime import pack_policies
    _, kn = pack_policies({"us": "blockade", "spain": "historical"})
    assert kn[0, pk.K_DISENGAGE_ODDS] == 1000 and kn[1, pk.K_DISENGAGE_ODDS] == 1000


# ============================================================================ 2. 5.1 C anchored units defend
def test_an_anchored_squadron_that_is_raided_defends():  # 5.1 C, Search Matrix Raid x Anchor
    us = ["Texas", "Montgomery"]
    sp = ["Teresa", "Vizcaya", "Oquendo", "Colon"]
    # Spain at sea, the US in port: Spain has the initiative (8.1 B); Raid x Anchor 1-2: a 1
    cs = _state({**{u: "key-west" for u in us}, **{u: "florida-strait" for u in sp}},
                dice=[1] + [6] * 80, disengage=NO_FLEE)
    cs.set_history(sp, "sortie")
    legal(cs, "spain", [sq(sp, "raid", "florida-strait", "key-west")])
    legal(cs, "us", [sq(us, "anchor")])
    cs.movement()
    cs.combat()
    (b,) = cs.battles()
    assert b["initiative"] == "spain" and b["rounds"] >= 1


def test_the_search_matrix_follows_5_1_c():  # 5.1 C, 18.1.6 A (ruling D4)
    m = DATA.matrix
    A, B, C, P, R, S, T = range(7)
    assert all(m[A, o] == lay.SM_NA for o in range(7))      # anchored units may not attack
    assert m[P, A] == lay.SM_NA                             # 18.1.6 A
    assert m[R, A] > 0 and m[B, A] > 0 and m[S, A] > 0       # attacked, they defend


# ============================================================================ 3. 8.2.1 / 8.2.3 no further action
def test_a_failed_search_stops_the_raid():  # 8.2.3 ("treated the same as a No Result"), 8.2.1
    us = ["Brooklyn", "New York"]
    sp = ["Teresa", "Vizcaya"]
    # initiative: Spain 2 + 1, US 2 + 6: the US; Patrol x Raid 1-3: a 6, no engagement. No other die.
    cs = _state({**{u: "florida-strait" for u in us}, **{u: "florida-strait" for u in sp}}, dice=[1, 6, 6])
    cs.set_history(sp, "sortie")
    legal(cs, "spain", [sq(sp, "raid", "florida-strait", "key-west")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == 3
    assert cs.counts() == {"battles": 0, "port_attacks": 0}
    assert cs.port_damage("key-west") == 0


# ============================================================================ 4. 12.1.3 A initiative
RAID_WON_WITHOUT_INITIATIVE = [
    1, 6, 1,            # initiative Spain 2 + 1, US 2 + 6: the US; Patrol x Raid 1-3: a 1, battle
    1, 1,               # Annapolis, Vicksburg: one die each, misses
    5, 1, 1, 5, 1, 1,   # Teresa and Vizcaya disable both gunboats: Spain wins
    1, 2, 3,            # the raid on Key West (mine 0): Teresa misses
    5, 2, 6, 1, 1,      # Vizcaya: 2 + 1 damage > 2, the port is destroyed
]


@pytest.mark.parametrize("literal", [True, False])
def test_only_the_side_with_the_initiative_scores_a_destroyed_port(literal):  # 12.1.3 A vs 8.4 L
    us = ["Annapolis", "Vicksburg"]
    sp = ["Teresa", "Vizcaya"]
    opts = {} if literal else {"port_vp_initiative": False}
    cs = _state({**{u: "florida-strait" for u in us}, **{u: "florida-strait" for u in sp}},
                dice=RAID_WON_WITHOUT_INITIATIVE, disengage=NO_FLEE, **opts)
    cs.set_history(sp, "sortie")
    legal(cs, "spain", [sq(sp, "raid", "florida-strait", "key-west")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(RAID_WON_WITHOUT_INITIATIVE)
    assert cs.battles()[0]["initiative"] == "us" and cs.battles()[0]["winner"] == "spain"
    assert cs.port_damage("key-west") == 3
    ports = [(r["side"], r["amount"]) for r in cs.ledger() if r["kind"] == "port"]
    assert ports == ([] if literal else [("spain", 3 + 2)])


def test_a_raider_alone_in_the_area_holds_the_initiative():  # 12.1.3 A, ruling C16
    sp = ["Teresa", "Vizcaya"]
    cs = _state({u: "florida-strait" for u in sp}, dice=[1, 2, 3, 5, 2, 6, 1, 1])
    cs.set_history(sp, "sortie")
    legal(cs, "spain", [sq(sp, "raid", "florida-strait", "key-west")])
    cs.movement()
    cs.combat()
    assert [(r["kind"], r["amount"]) for r in cs.ledger()] == [("port", 3 + 2)]


# ============================================================================ 5. 7.5 D over the coaling limit
SP8 = ["Castilla", "Cristina", "Carlos V", "Asturias", "Patriota", "Rapido", "Buenos Aires", "Colon"]


def test_units_over_the_coaling_limit_get_other_orders():  # 7.5 D, ruling C36
    sp = ["Teresa", "Vizcaya"]
    keep = {u: "north-atlantic" for u in SP8} | {u: "east-coast" for u in sp}
    cs = position(keep)
    cs.set_history(sp, "patrol")
    # the eight coal at sea (7.5 C: Spain's limit), so the pair may not: it sails for a port
    legal(cs, "spain", [sq(SP8, "coal"), sq(sp, "transit", "cadiz")])
    cs = position(keep)
    cs.set_history(sp, "patrol")
    illegal(cs, "spain", [sq(SP8, "coal"), sq(sp, "transit", "north-atlantic")], "illegal destination")
    cs = position(keep)
    cs.set_history(sp, "patrol")
    illegal(cs, "spain", [sq(SP8, "coal"), sq(sp, "hold")], "hold with a legal")
    # within the limit the old sequence holds (5.4 D: Coal or Anchor)
    cs = position({u: "east-coast" for u in sp})
    cs.set_history(sp, "patrol")
    illegal(cs, "spain", [sq(sp, "transit", "cadiz")], "order sequence")


def test_blockaders_over_the_limit_may_anchor():  # 7.5 D ("such as Anchor"), 5.2 D
    us11 = ["Indiana", "Iowa", "Wilmington", "Helena", "Nashville", "Detroit", "New York", "Cincinnati",
            "Machias", "Castine", "Marblehead"]
    blk = ["Texas", "Brooklyn"]
    cs = position({u: "bahamas" for u in us11} | {u: "gulf-of-mexico" for u in blk})
    cs.set_history(us11 + blk, "blockade")
    legal(cs, "us", [sq(us11, "coal"), sq(blk, "anchor", "mobile")])
    cs = position({u: "bahamas" for u in us11[:9]} | {u: "gulf-of-mexico" for u in blk})
    cs.set_history(us11[:9] + blk, "blockade")
    illegal(cs, "us", [sq(us11[:9], "coal"), sq(blk, "anchor", "mobile")], "order sequence")


# ============================================================================ 6. 5.6 B Sortie to leave
def test_leaving_a_port_next_to_the_enemy_takes_a_sortie():  # 5.6 B
    sp = ["Venadito", "Alfonso XII"]
    keep = {"Venadito": "havana", "Alfonso XII": "havana", "Texas": "gulf-of-mexico"}
    for order in ("patrol", "transit"):
        cs = position(keep)
        illegal(cs, "spain", [sq(sp, order, "gulf-of-mexico")], "illegal destination")
    cs = position(keep)
    illegal(cs, "spain", [sq(sp, "raid", "gulf-of-mexico", "mobile")], "illegal destination")
    cs = position(keep)
    legal(cs, "spain", [sq(sp, "sortie", "gulf-of-mexico")])
    cs = position(keep)
    legal(cs, "spain", [sq(sp, "anchor")])
    cs = position({"Venadito": "havana", "Alfonso XII": "havana"})   # no enemy: any order
    legal(cs, "spain", [sq(sp, "patrol", "gulf-of-mexico")])


# ============================================================================ 7. 6.2 D / 6.3 C leaders
def test_only_the_active_leader_rides_the_flagship():  # 6.2 A-D, 6.3 C, ruling C32
    sp = ["Teresa", "Vizcaya", "Oquendo"]
    cs = position({u: "cadiz" for u in sp}, leaders=("Cervera", "Manterola"))
    for name in ("Cervera", "Manterola"):
        cs.LD[DATA.leader(name)] = (DATA.unit("Vizcaya"), 0)
    legal(cs, "spain", [sq(sp, "anchor", leaders=["Manterola", "Cervera"])])
    assert cs.leader("Cervera") == "Teresa"       # two stars: the active leader, aboard the first ship
    assert cs.leader("Manterola") == "Oquendo"    # no effect (6.2 D), aboard the last
    d = DATA
    sink_unit_nb(d.unit("Teresa"), np.bool_(False), d.ust, d.lst, cs.par, cs.U, cs.S, cs.SM, cs.LD, cs.G,
                 cs.ledger_arr)
    assert cs.leader("Cervera") == "killed" and cs.leader("Manterola") == "Oquendo"


def test_combining_squadrons_keeps_one_active_leader_aboard_the_flagship():  # 7.3 C, 6.2 B
    a = ["Brooklyn", "New York"]
    b = ["Texas", "Montgomery"]
    cs = position({**{u: "key-west" for u in a}, **{u: "hampton-roads" for u in b}}, leaders=("Schley", "Howell"))
    cs.LD[DATA.leader("Schley")] = (DATA.unit("Brooklyn"), 0)
    cs.LD[DATA.leader("Howell")] = (DATA.unit("Texas"), 0)
    legal(cs, "us", [sq(a, "patrol", "florida-strait", leaders=["Schley"]),
                     sq(b, "transit", "florida-strait", leaders=["Howell"])])
    cs.movement()
    line = cs.stack("Brooklyn")
    assert cs.leader("Schley") == line[0] and cs.leader("Howell") == line[-1]


# ============================================================================ 8. 5.1 A Anchor in port
def test_a_squadron_staying_in_port_must_anchor():  # 5.1 A
    us = ["Texas", "Iowa"]
    cs = position({u: "key-west" for u in us})
    illegal(cs, "us", [sq(us, "transit", "key-west")], "illegal destination")
    cs = position({u: "key-west" for u in us})
    legal(cs, "us", [sq(us, "anchor")])
    cs = position({"Texas": "key-west"})            # an independent unit is not a squadron (7.4 A, G)
    legal(cs, "us", [sq(["Texas"], "transit", "key-west")])


# ============================================================================ 9. 4.3 B Spain's combat order
def _two_blockades(mode):
    keep = {"Texas": "gulf-of-mexico", "Brooklyn": "gulf-of-mexico", "Iowa": "nares-abyssal",
            "Indiana": "nares-abyssal", "Venadito": "havana", "Alfonso XII": "havana",
            "Mercedes": "san-juan", "Isabel II": "san-juan", "Galicia": "san-juan", "Ensenada": "san-juan"}
    cs = _state(keep, dice=[1] * 200, combat_order=mode)
    legal(cs, "spain", [sq(["Venadito", "Alfonso XII"], "coal"),
                        sq(["Mercedes", "Isabel II", "Galicia", "Ensenada"], "coal")])
    legal(cs, "us", [sq(["Texas", "Brooklyn"], "blockade", "gulf-of-mexico", "havana"),
                     sq(["Iowa", "Indiana"], "blockade", "nares-abyssal", "san-juan")])
    cs.movement()
    cs.combat()
    return [r["where"] for r in cs.ledger() if r["kind"] == "blockade"]


def test_spain_chooses_the_order_of_the_combats():  # 4.3 B, 8.3 C, ruling C13
    assert _two_blockades(CO_MAP) == ["gulf-of-mexico", "nares-abyssal"]
    assert _two_blockades(CO_STRONG_FIRST) == ["nares-abyssal", "gulf-of-mexico"]   # 4 Spanish units first
    par = build_par(DATA, GAME.resolve_options({}), {"us": "hunter", "spain": "random-legal"})
    assert par[lay.P_CORDER] == CO_RANDOM


# ============================================================================ 10. 8.3.2.1 B neutral ports (14.9)
def _monitors_disabled(**opts):
    us = ["Terror", "Amphitrite"]
    sp = ["Teresa", "Vizcaya"]
    dice = [1, 6, 2,                  # US initiative (2 + 6 against 2 + 1); Patrol x Patrol 1-4: a 2
            1, 1, 1, 1, 1, 1,         # Terror and Amphitrite (3 dice each) miss
            5, 1, 1, 5, 1, 1]         # Teresa and Vizcaya disable both
    cs = _state({u: "puerto-rico-passage" for u in us + sp}, dice=dice, disengage=NO_FLEE, **opts)
    legal(cs, "spain", [sq(sp, "patrol")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    return cs.where("Terror"), cs.where("Amphitrite")


def test_disabled_units_may_use_a_neutral_port_under_14_9():  # 8.3.2.1 B, ruling C37
    assert _monitors_disabled(speed_subgroups=True) == ("kingston", "kingston")    # 2 MP
    assert _monitors_disabled() == ("key-west", "key-west")                        # 5 MP, friendly
    # 14.8 alone opens no neutral port: Key West is out of the monitors' 3 MP, they are scuttled
    assert _monitors_disabled(restrict_disabled=True) == ("scuttled", "scuttled")
