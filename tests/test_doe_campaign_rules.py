"""Rules of the campaign on hand-built positions: order legality (5.x, 7.3 B, 7.5), movement stops
(7.1 F, 7.6), combining (7.3 C), search (8.2), port attacks (8.4, exact dice), control (11),
neutral ports (7.2.3), repair (9), and optional rules 14.2, 14.3, 14.8.

Each test starts from the 13.0 set-up with every unit taken off the map except the few it places
(``position``), so only the rules under test can act. Dice are injected where a result is exact.
"""

import pytest

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.campaign import PolicyError
from simlab.games.doe.campaign_state import CampaignState
from simlab.games.doe.enums import MP_PORT, MP_RANDOM, MP_STRONG, MP_WEAK

GAME = get_game("dawn-of-empire")
DATA = GAME.load_scenario("standard").payload


def position(keep, leaders=(), dice=None, seed=1, **opts):
    """A state with only the units ``keep`` (``{name: place}``) and the ``leaders`` on the map."""
    cs = CampaignState(DATA, GAME.resolve_options(opts), seed=seed, dice=dice)
    cs.remove([u for u in DATA.unit_names if u not in keep])
    for name, where in keep.items():
        cs.place([name], where)
        cs.set_history([name], "anchor")
    for lname in DATA.leader_names:
        if lname not in leaders:
            i = DATA.leader(lname)
            cs.LD[i, 1] = 2   # absent
            cs.LD[i, 0] = -1
    cs.begin_turn()
    return cs


def sq(units, order, dest=None, target=None, leaders=(), join=True):
    d = {"units": list(units), "order": order, "leaders": list(leaders), "join": join}
    if dest:
        d["dest"] = dest
    if target:
        d["target"] = target
    return d


def legal(cs, side, stacks):
    cs.orders(side, stacks)


def illegal(cs, side, stacks, why):
    with pytest.raises(PolicyError, match=why):
        cs.orders(side, stacks)


# ============================================================================ order sequences (5.x)
US3 = ["Brooklyn", "New York", "Columbia"]


def test_blockade_is_followed_by_coal():  # 5.2 D
    cs = position({u: "gulf-of-mexico" for u in US3})
    cs.set_history(US3, "blockade")
    illegal(cs, "us", [sq(US3, "patrol", "gulf-of-mexico")], "order sequence")
    illegal(cs, "us", [sq(US3, "anchor", "mobile")], "order sequence")
    legal(cs, "us", [sq(US3, "coal")])


def test_patrol_is_followed_by_coal_or_anchor():  # 5.4 D
    cs = position({u: "gulf-of-mexico" for u in US3})
    cs.set_history(US3, "patrol")
    illegal(cs, "us", [sq(US3, "transit", "key-west")], "order sequence")
    legal(cs, "us", [sq(US3, "anchor", "mobile")])


def test_raid_is_followed_by_transit_into_a_friendly_or_neutral_port():  # 5.5 D
    sp = ["Teresa", "Vizcaya"]
    cs = position({u: "east-coast" for u in sp})
    cs.set_history(sp, "raid")
    illegal(cs, "spain", [sq(sp, "coal")], "order sequence")
    illegal(cs, "spain", [sq(sp, "transit", "north-atlantic")], "illegal destination")
    illegal(cs, "spain", [sq(sp, "transit", "hampton-roads")], "illegal destination")   # 7.4 D
    legal(cs, "spain", [sq(sp, "transit", "cadiz")])


def test_transit_at_most_two_turns_running():  # 5.7 B
    cs = position({u: "bahamas" for u in US3})
    cs.set_history(US3, "transit", streak=2)
    illegal(cs, "us", [sq(US3, "transit", "key-west")], "order sequence")
    legal(cs, "us", [sq(US3, "coal")])
    cs = position({u: "bahamas" for u in US3})
    cs.set_history(US3, "transit", streak=1)
    legal(cs, "us", [sq(US3, "transit", "key-west")])


def test_sortie_needs_enemies_next_to_the_port_and_goes_one_area():  # 5.6 A-B
    sp = ["Venadito", "Alfonso XII"]
    cs = position({"Venadito": "havana", "Alfonso XII": "havana"})
    illegal(cs, "spain", [sq(sp, "sortie", "gulf-of-mexico")], "illegal destination")
    cs = position({"Venadito": "havana", "Alfonso XII": "havana", "Texas": "gulf-of-mexico"})
    legal(cs, "spain", [sq(sp, "sortie", "gulf-of-mexico")])
    cs = position({"Venadito": "havana", "Alfonso XII": "havana", "Texas": "gulf-of-mexico"})
    illegal(cs, "spain", [sq(sp, "sortie", "yucatan-strait")], "illegal destination")


def test_sortie_is_followed_by_patrol_raid_or_transit():  # 5.6 C
    sp = ["Venadito", "Alfonso XII"]
    cs = position({u: "gulf-of-mexico" for u in sp})
    cs.set_history(sp, "sortie")
    illegal(cs, "spain", [sq(sp, "coal")], "order sequence")
    legal(cs, "spain", [sq(sp, "raid", "gulf-of-mexico", "mobile")])


def test_an_independent_unit_only_transits_anchors_or_coals():  # 7.3 B, 7.4 A, ruling C9
    cs = position({"Texas": "key-west"})
    illegal(cs, "us", [sq(["Texas"], "patrol", "florida-strait")], "independent unit")
    cs = position({"Texas": "key-west"})
    legal(cs, "us", [sq(["Texas"], "transit", "florida-strait")])


def test_an_independent_unit_that_transited_may_not_stay_put():  # 5.4.1 B
    cs = position({"Texas": "bahamas"})
    cs.set_history(["Texas"], "transit", streak=1)
    illegal(cs, "us", [sq(["Texas"], "coal")], "order sequence")
    illegal(cs, "us", [sq(["Texas"], "transit", "bahamas")], "illegal destination")
    legal(cs, "us", [sq(["Texas"], "transit", "nares-abyssal")])


def test_order_markers_limit_the_squadrons():  # 5.0 B: four Patrol markers in the standard pack
    pairs = [("Indiana", "Iowa"), ("Texas", "Brooklyn"), ("New York", "Columbia"), ("Minneapolis", "Montgomery"),
             ("Detroit", "Marblehead")]
    keep = {u: "key-west" for p in pairs for u in p}
    cs = position(keep)
    stacks = [sq(p, "patrol", "florida-strait") for p in pairs]
    illegal(cs, "us", stacks, "too many order markers")
    cs = position(keep)
    legal(cs, "us", stacks[:4] + [sq(pairs[4], "anchor")])


def test_coaling_limits():  # 7.5 C: Spain 8 at sea, US 11, 3 per side in a neutral port, no limit in port
    sp = ["Teresa", "Vizcaya", "Oquendo", "Colon", "Pelayo", "Castilla", "Cristina", "Carlos V", "Asturias"]
    cs = position({u: "north-atlantic" for u in sp})
    illegal(cs, "spain", [sq(sp[:5], "coal"), sq(sp[5:], "coal")], "coaling limit")
    cs = position({u: "north-atlantic" for u in sp})
    legal(cs, "spain", [sq(sp[:5], "coal"), sq(sp[5:8], "coal"), sq(sp[8:], "transit", "cadiz")])
    cs = position({u: "cadiz" for u in sp})
    legal(cs, "spain", [sq(sp, "coal")])
    us = ["Indiana", "Iowa", "Texas", "Brooklyn", "New York", "Columbia", "Minneapolis", "Montgomery",
          "Detroit", "Marblehead", "Cincinnati", "Helena"]
    cs = position({u: "bahamas" for u in us})
    illegal(cs, "us", [sq(us[:6], "coal"), sq(us[6:], "coal")], "coaling limit")
    cs = position({u: "bahamas" for u in us})
    legal(cs, "us", [sq(us[:6], "coal"), sq(us[6:11], "coal"), sq(us[11:], "transit", "key-west")])
    four = ["Teresa", "Vizcaya", "Oquendo", "Colon"]
    cs = position({u: "kingston" for u in four})
    illegal(cs, "spain", [sq(four, "coal")], "coaling limit")
    cs = position({u: "kingston" for u in four})
    legal(cs, "spain", [sq(four[:3], "coal"), sq(four[3:], "transit", "columbia-basin")])


def test_patrol_range():  # 5.4 A-B: from port the first area and two more; at sea two areas
    us = ["Brooklyn", "New York"]
    cs = position({u: "key-west" for u in us})
    legal(cs, "us", [sq(us, "patrol", "nares-abyssal")])           # Florida Strait, Bahamas, Nares
    cs = position({u: "key-west" for u in us})
    illegal(cs, "us", [sq(us, "patrol", "puerto-rico-passage")], "illegal destination")
    cs = position({u: "bahamas" for u in us})
    legal(cs, "us", [sq(us, "patrol", "puerto-rico-passage")])     # Nares, Puerto Rico Passage
    cs = position({u: "bahamas" for u in us})
    illegal(cs, "us", [sq(us, "patrol", "venezuela-basin")], "illegal destination")
    # MP: monitors (3 MP) reach the Bahamas from Key West (2 + 1) but not the Nares Abyssal (4)
    mo = ["Terror", "Amphitrite"]
    cs = position({u: "key-west" for u in mo})
    illegal(cs, "us", [sq(mo, "patrol", "nares-abyssal")], "illegal destination")
    cs = position({u: "key-west" for u in mo})
    legal(cs, "us", [sq(mo, "patrol", "bahamas")])


def test_slowest_unit_sets_the_squadron_allowance():  # 7.3 B, 18.1.4 A
    sp = ["Castilla", "Furor"]
    cs = position({u: "cadiz" for u in sp})
    illegal(cs, "spain", [sq(sp, "raid", "east-coast", "hampton-roads")], "illegal destination")
    cs = position({u: "cadiz" for u in sp})
    legal(cs, "spain", [sq(["Castilla"], "transit", "east-coast"), sq(["Furor"], "anchor")])


def test_anchor_at_sea_needs_a_friendly_or_neutral_port_or_no_port():  # 5.1 B
    sp = ["Teresa", "Vizcaya"]
    cs = position({u: "east-coast" for u in sp})
    illegal(cs, "spain", [sq(sp, "anchor", "east-coast")], "illegal destination")
    illegal(cs, "spain", [sq(sp, "anchor", "hampton-roads")], "illegal destination")
    cs = position({u: "sargasso-sea" for u in sp})
    legal(cs, "spain", [sq(sp, "anchor")])
    cs = position({u: "columbia-basin" for u in sp})
    legal(cs, "spain", [sq(sp, "anchor", "kingston")])


def test_hold_only_when_no_order_is_legal():  # ruling C12
    sp8 = ["Castilla", "Cristina", "Carlos V", "Asturias", "Patriota", "Rapido", "Buenos Aires", "Colon"]
    sp = ["Teresa", "Vizcaya"]
    keep = {u: "north-atlantic" for u in sp8} | {u: "east-coast" for u in sp}
    cs = position(keep)
    cs.set_history(sp, "patrol")
    cs.set_damage("Teresa", 5)
    # after a Patrol the pair must Coal or Anchor: the coal is spent elsewhere, East Coast has no
    # friendly port, and at 2 MP (damage) no port is in reach for 7.5 D's Transit: it holds
    legal(cs, "spain", [sq(sp8, "coal"), sq(sp, "hold")])
    cs = position(keep)
    cs.set_history(sp, "patrol")
    cs.set_damage("Teresa", 5)
    illegal(cs, "spain", [sq(sp8[:4], "coal"), sq(sp8[4:], "transit", "cadiz"), sq(sp, "hold")], "hold with a legal")


def test_every_unit_in_a_stack_and_leaders_with_their_units():
    cs = position({"Texas": "key-west", "Iowa": "key-west"}, leaders=("Sampson",))
    illegal(cs, "us", [sq(["Texas"], "anchor")], "unit not in any stack")
    cs = position({"Texas": "key-west", "Iowa": "hampton-roads"}, leaders=("Sampson",))
    illegal(cs, "us", [sq(["Texas", "Iowa"], "anchor")], "stack units in different places")
    cs = position({"Texas": "key-west", "Iowa": "hampton-roads"})
    cs.LD[DATA.leader("Sampson")] = (DATA.unit("Texas"), 0)
    illegal(cs, "us", [sq(["Texas"], "anchor"), sq(["Iowa"], "anchor", leaders=["Sampson"])], "leader")


# ============================================================================ movement (7.1 F, 7.6)
def test_a_squadron_halts_at_an_enemy_patrol_an_independent_unit_does_not():
    us = ["Brooklyn", "New York"]
    sp = ["Teresa", "Vizcaya"]
    # (at sea: leaving Cadiz next to the Patrol would take a Sortie, 5.6 B)
    cs = position({**{u: "north-atlantic" for u in us}, **{u: "middle-atlantic" for u in sp}, "Oquendo": "middle-atlantic"})
    legal(cs, "us", [sq(us, "patrol", "north-atlantic")])
    legal(cs, "spain", [sq(sp, "transit", "east-coast"), sq(["Oquendo"], "transit", "east-coast")])
    cs.movement()
    assert cs.where("Teresa") == "north-atlantic"      # halted by the Patrol (7.1 F)
    assert cs.where("Oquendo") == "east-coast"         # an IU goes on (7.4 B)


def test_a_squadron_halts_at_an_enemy_control_marker():  # 7.6 A-B
    sp = ["Teresa", "Vizcaya"]
    cs = position({**{u: "cadiz" for u in sp}, "Oquendo": "cadiz"})
    cs.set_control("north-atlantic", "us")
    legal(cs, "spain", [sq(sp, "transit", "east-coast"), sq(["Oquendo"], "transit", "east-coast")])
    cs.movement()
    assert cs.where("Teresa") == "north-atlantic" and cs.where("Oquendo") == "east-coast"


def test_combining_keeps_the_larger_squadrons_order():  # 7.3 C
    a = ["Brooklyn", "New York", "Columbia"]
    b = ["Texas", "Montgomery"]
    cs = position({**{u: "key-west" for u in a}, **{u: "hampton-roads" for u in b}})
    legal(cs, "us", [sq(a, "patrol", "florida-strait"), sq(b, "transit", "florida-strait")])
    cs.movement()
    assert sorted(cs.stack("Texas")) == sorted(a + b)
    assert cs.order("Texas") == "patrol"


def test_combining_equal_squadrons_keeps_the_order_of_the_one_with_a_leader():  # 7.3 C
    a = ["Brooklyn", "New York"]
    b = ["Texas", "Montgomery"]
    cs = position({**{u: "key-west" for u in a}, **{u: "hampton-roads" for u in b}}, leaders=("Schley",))
    cs.LD[DATA.leader("Schley")] = (DATA.unit("Texas"), 0)
    legal(cs, "us", [sq(a, "patrol", "florida-strait"), sq(b, "transit", "florida-strait", leaders=["Schley"])])
    cs.movement()
    assert cs.order("Brooklyn") == "transit"
    assert cs.leader("Schley") == cs.stack("Brooklyn")[0]   # aboard the first ship (6.2 A)


# ============================================================================ search, port attacks (8.2, 8.4)
def test_patrol_against_an_anchored_squadron_is_no_result():  # Search Matrix, ruling from 18.1.6 A
    us = ["Brooklyn", "New York"]
    sp = ["Venadito", "Alfonso XII"]
    cs = position({**{u: "key-west" for u in us}, **{u: "havana" for u in sp}}, dice=[])
    legal(cs, "spain", [sq(sp, "anchor")])
    legal(cs, "us", [sq(us, "patrol", "gulf-of-mexico")])
    cs.movement()
    cs.combat()      # no die may be rolled: an empty script would raise
    assert cs.battles() == [] and cs.dice_used() == 0


def test_blockade_against_coal_scores_two_vps_and_attacks_the_port():  # 12.1.3 B, 8.2.2, 8.4
    us = ["Texas", "Brooklyn"]
    sp = ["Venadito", "Alfonso XII"]
    # the port (Havana: attack 5, defense 8) fires at the 1st unit only (8.4 E), simultaneously
    dice = [1, 1, 1, 1,                  # Texas 3 attack + a die from Sampson (3 stars): no hit
            1, 1, 1, 1, 1,               # Havana's 5 dice at Texas: nothing
            6, 4, 6, 5, 1, 1]            # Brooklyn 3 + Sampson: hits of 4 and 5 -> 9 > 8: destroyed
    cs = position({**{u: "key-west" for u in us}, **{u: "havana" for u in sp}}, leaders=("Sampson",), dice=dice)
    cs.LD[DATA.leader("Sampson")] = (DATA.unit("Texas"), 0)
    legal(cs, "spain", [sq(sp, "coal")])
    legal(cs, "us", [sq(us, "blockade", "gulf-of-mexico", "havana", leaders=["Sampson"])])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    got = {(r["kind"], r["amount"]) for r in cs.ledger()}
    assert got == {("blockade", 2), ("port", 3 + 8)}
    assert cs.battles() == []                  # the VP event: no ship combat (8.2.2)
    assert cs.port_damage("havana") == 9


def test_raid_port_fire_every_third_unit_and_the_attack_stops_when_the_port_falls():  # 8.4 C, E, I
    sp = ["Teresa", "Vizcaya", "Oquendo", "Colon"]
    # Key West: mine 0 in the standard pack: no fire back. Teresa misses, Vizcaya destroys it
    # (2 + 1 > 2), Oquendo and Colon do not fire.
    dice = [1, 2, 3,   5, 2, 6, 1, 1]
    cs = position({u: "florida-strait" for u in sp}, dice=dice)
    cs.set_history(sp, "sortie")
    legal(cs, "spain", [sq(sp, "raid", "florida-strait", "key-west")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    assert cs.port_damage("key-west") == 3
    assert [(r["kind"], r["amount"]) for r in cs.ledger()] == [("port", 3 + 2)]


def test_blockaders_take_port_fire_hits_and_disablements():  # 8.4 H, 8.3.2.1
    us = ["Texas", "Brooklyn", "Columbia"]
    # Havana fires 5 dice at the 1st and 3rd units. Texas: 6 (damage 3) and a 5: damaged and
    # disabled; Columbia: 6 (damage 3): 3 > 2, sunk. No unit hits the port.
    dice = [1, 1, 1,   6, 3, 5, 1, 1, 1,   1, 1, 1,   1,   6, 3, 1, 1, 1, 1]
    cs = position({u: "gulf-of-mexico" for u in us}, dice=dice)
    legal(cs, "us", [sq(us, "blockade", "gulf-of-mexico", "havana")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    assert cs.damage("Texas") == 3 and cs.out_of_combat("Texas") == "disabled"
    assert cs.where("Texas") == "mobile"                 # nearest friendly port, 1 MP (8.3.2.1 B)
    assert cs.where("Columbia") == "sunk"
    cs.control_and_vp()
    assert cs.score("spain") == 0                        # a CP sunk is half a VP, dropped (12.1.2 A)
    assert cs.control("gulf-of-mexico") == ""            # one unit left: no control (11 A)


def test_initiative_ties_go_to_the_us_and_search_decides_the_battle():  # 8.1 B, 8.2.3
    us = ["Brooklyn", "New York"]
    sp = ["Teresa", "Vizcaya"]
    # equal counts, no leaders, both roll 3: the US has the initiative; Patrol x Patrol 1-4: a 4;
    # then Brooklyn and New York sink Teresa and Vizcaya in round 1
    dice = [3, 3, 4,   6, 4, 1, 1,   6, 4, 1, 1,   1, 1, 1,   1, 1, 1]
    cs = position({**{u: "bahamas" for u in us}, **{u: "nares-abyssal" for u in sp}}, dice=dice)
    legal(cs, "spain", [sq(sp, "patrol", "bahamas")])
    legal(cs, "us", [sq(us, "patrol", "bahamas")])
    cs.movement()
    cs.combat()
    b = cs.battles()
    assert len(b) == 1 and b[0]["initiative"] == "us" and b[0]["sunk_spain"] == 2 and b[0]["rounds"] == 1
    assert cs.dice_used() == len(dice)


# ============================================================================ control (11)
def test_transit_squadrons_and_single_units_never_control():  # 11 A, C, F
    cs = position({"Texas": "key-west", "Montgomery": "key-west", "Brooklyn": "key-west"})
    legal(cs, "us", [sq(["Texas", "Montgomery"], "transit", "bahamas"), sq(["Brooklyn"], "transit", "florida-strait")])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    assert cs.control("bahamas") == "" and cs.control("florida-strait") == ""
    assert cs.ledger() == []


def test_opposing_squadrons_that_do_not_meet_leave_the_area_uncontrolled():  # 11 B
    us = ["Brooklyn", "New York"]
    sp = ["Teresa", "Vizcaya"]
    dice = [1, 6, 6]          # Spain 1, US 6: US initiative; Patrol x Patrol 1-4: a 6, no battle
    cs = position({**{u: "bahamas" for u in us}, **{u: "nares-abyssal" for u in sp}}, dice=dice)
    legal(cs, "spain", [sq(sp, "patrol", "bahamas")])
    legal(cs, "us", [sq(us, "coal")])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    assert cs.control("bahamas") == ""


# ============================================================================ neutral ports, repair
def test_units_that_stay_a_second_turn_in_a_neutral_port_are_interned():  # 7.2.3 D
    sp = ["Teresa", "Vizcaya"]
    cs = position({u: "kingston" for u in sp})
    cs.set_history(sp, "anchor", neutral=2)
    legal(cs, "spain", [sq(sp, "anchor")])
    cs.movement()
    assert cs.where("Teresa") == "interned"
    cs = position({u: "kingston" for u in sp})
    cs.set_history(sp, "anchor", neutral=1)
    illegal(cs, "spain", [sq(sp, "transit", "columbia-basin")], "order sequence")   # must Anchor first


def test_repair_up_to_the_port_value_and_none_in_a_port_hit_this_turn():  # 9.0, 9 E
    cs = position({"Brooklyn": "hampton-roads", "Texas": "hampton-roads", "Iowa": "key-west"})
    cs.set_damage("Brooklyn", 3)
    cs.set_damage("Texas", 3)
    cs.set_damage("Iowa", 2)
    cs.ND[DATA.node("key-west"), 2] = 1     # Key West's marker was damaged this turn
    legal(cs, "us", [sq(["Brooklyn", "Texas"], "anchor"), sq(["Iowa"], "anchor")])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    cs.repair()
    assert cs.damage("Brooklyn") + cs.damage("Texas") == 6 - 4     # Hampton Roads repairs 4
    assert cs.damage("Iowa") == 2


def test_delayed_repair_only_for_units_in_port_all_turn():  # 14.2 A
    cs = position({"Brooklyn": "east-coast", "Texas": "hampton-roads"}, delayed_repair=True)
    cs.set_damage("Brooklyn", 2)
    cs.set_damage("Texas", 2)
    legal(cs, "us", [sq(["Brooklyn"], "anchor", "hampton-roads"), sq(["Texas"], "anchor")])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    cs.repair()
    assert cs.damage("Brooklyn") == 2 and cs.damage("Texas") == 0


def test_maintenance_damage_after_repairs():  # 14.3
    keep = {"Iowa": "key-west", "Brooklyn": "key-west", "New York": "key-west", "Teresa": "cadiz",
            "Vizcaya": "cadiz", "Oquendo": "cadiz", "Colon": "cadiz"}
    cs = position(keep, maintenance=True)
    legal(cs, "us", [sq(["Iowa", "Brooklyn", "New York"], "anchor")])
    legal(cs, "spain", [sq(["Teresa", "Vizcaya", "Oquendo", "Colon"], "anchor")])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    cs.repair()      # turn 1: US 1 point to a BB and 1 to CP/GB (none here); Spain 4 points
    assert cs.damage("Iowa") == 1
    assert sum(cs.damage(u) for u in ("Teresa", "Vizcaya", "Oquendo", "Colon")) == 4


SPAIN_MAINT = {"Teresa": "cadiz", "Vizcaya": "cadiz", "Castilla": "cadiz",           # defense 3, 3, 2
               "Pelayo": "north-atlantic", "Carlos V": "north-atlantic", "Buenos Aires": "north-atlantic"}  # 5, 4, 1


def _maintained(mode, seed=1):
    cs = position({**SPAIN_MAINT, "Iowa": "key-west"}, seed=seed, maintenance=True)
    cs.par[lay.P_MAINT0 + lay.SPAIN] = mode
    legal(cs, "us", [sq(["Iowa"], "anchor")])
    legal(cs, "spain", [sq(["Teresa", "Vizcaya", "Castilla"], "anchor"),
                        sq(["Pelayo", "Carlos V", "Buenos Aires"], "coal")])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    cs.repair()      # turn 1: Spain's 4 points go to 4 of its 6 BB/CA/CP/CU units, one each (ruling C30)
    hit = {u for u in SPAIN_MAINT if cs.damage(u)}
    assert sum(cs.damage(u) for u in SPAIN_MAINT) == 4 and len(hit) == 4
    return hit


@pytest.mark.parametrize("mode,want", [
    (MP_PORT, {"Teresa", "Vizcaya", "Castilla", "Pelayo"}),           # the three in port, then most defense
    (MP_STRONG, {"Pelayo", "Carlos V", "Teresa", "Vizcaya"}),         # the most defense left, anywhere
    (MP_WEAK, {"Buenos Aires", "Castilla", "Teresa", "Vizcaya"}),     # the least defense left
])
def test_the_player_chooses_which_units_take_maintenance_damage(mode, want):  # 14.3 A-C
    assert _maintained(mode) == want


def test_random_legal_draws_the_units_that_take_maintenance_damage():  # 14.3 A-C
    seen = {frozenset(_maintained(MP_RANDOM, seed)) for seed in range(1, 25)}
    assert len(seen) >= 5          # 15 sets of 4 from 6 are possible; a fixed pick would give one


def test_restricted_disabled_units_reach_a_neutral_port_or_are_scuttled():  # 14.8 A-B, 8.3.2.1 B
    # in the Puerto Rico Passage: Kingston (neutral, open to disabled units under 14.9, ruling C37)
    # is 2 MP away, Key West 5. Terror has 2 damage: 3 - 2 = 1 MP under 14.8 B, too slow:
    # scuttled. Amphitrite (3 MP) reaches Kingston.
    us = ["Terror", "Amphitrite"]
    sp = ["Teresa", "Vizcaya"]
    dice = [1, 6, 2,                         # Spain 2 + 1 < US 2 + 6: US initiative; Patrol x Patrol: a 2
            1,   1, 1, 1,                    # round 1: Terror (1 die), Amphitrite miss
            5, 1, 1,   1, 1, 1,              # Teresa disables Terror
            1, 1, 1,                         # round 2: Amphitrite misses
            5, 1, 1,   1, 1, 1]              # Teresa disables Amphitrite
    cs = position({**{u: "puerto-rico-passage" for u in us}, **{u: "puerto-rico-passage" for u in sp}},
                  dice=dice, restrict_disabled=True, speed_subgroups=True)
    cs.par[lay.P_FLEE0] = cs.par[lay.P_FLEE1] = 0      # neither side chooses to disengage (10.2)
    cs.set_damage("Terror", 2)
    legal(cs, "spain", [sq(sp, "patrol")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    assert cs.where("Terror") == "scuttled"
    assert cs.where("Amphitrite") == "kingston"
    cs.control_and_vp()
    assert ("losses", 1) in {(r["kind"], r["amount"]) for r in cs.ledger() if r["side"] == "spain"}   # a MO (12.1.2)


# ============================================================================ engaged squadrons (8.1 A)
def test_engaged_table_matches_engaged_stack_on_random_stacks():  # 8.1 A, ruling C14
    """The combat phase's per-side tables (one pass over the slots) give, for every area, the
    squadron :func:`engaged_stack_nb` picks (at sea first, else the largest in a friendly port
    bordering it, ties to the first slot), on 300 random stack layouts of the standard map."""
    import numpy as np

    from simlab.games.doe.campaign_combat import (
        CW_PORT0,
        CW_SEA0,
        combat_scratch_nb,
        engaged_stack_nb,
        engaged_table_nb,
    )
    from simlab.games.doe.campaign_orders import MAXSS

    par = np.zeros(lay.P_NF, dtype=np.int64)
    par[lay.P_NAREAS] = DATA.nodes[:, lay.NS_KIND].tolist().count(lay.KIND_AREA)
    A, N = int(par[lay.P_NAREAS]), DATA.nodes.shape[0]
    cw = combat_scratch_nb(DATA.ust.shape[0], N)
    gen = np.random.default_rng(17)
    seen_sea = seen_port = 0
    for _ in range(300):
        S = np.zeros((2 * MAXSS, lay.SF_NF), dtype=np.int64)
        S[:, lay.SF_SIDE] = -1
        for side in range(2):
            nslots = int(gen.integers(0, 20))
            for k in range(nslots):
                s = side * MAXSS + k
                if gen.random() < 0.2:
                    continue   # an emptied slot
                S[s, lay.SF_SIDE] = side
                S[s, lay.SF_LOC] = gen.integers(0, N)
                S[s, lay.SF_N] = gen.integers(1, 5)
            engaged_table_nb(side, DATA.nodes, par, S, nslots, cw)
            for a in range(A):
                want, at_sea = engaged_stack_nb(side, a, DATA.nodes, par, S, nslots)
                sea, port = cw[CW_SEA0 + side, a], cw[CW_PORT0 + side, a]
                got = sea if sea >= 0 else port
                assert (got, sea >= 0) == (want, bool(at_sea) if want >= 0 else False)
                seen_sea += sea >= 0
                seen_port += sea < 0 and port >= 0
    assert seen_sea > 100 and seen_port > 100   # both branches exercised
