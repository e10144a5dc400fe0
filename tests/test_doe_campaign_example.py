"""The example of play (Rule 18.1-18.2) replayed through the campaign kernels with its printed dice.

The orders are the example's (18.1.2-18.1.3, 18.2.2-18.2.3); the dice are the printed ones, in
the order the kernels roll them (Spain's initiative die before the US's; within a battle round the
US fires first, unit by unit down the line, a damage die right after each 6 — the rules make a
round's fire simultaneous, 8.3 B, so the order of the printed dice within a round is free).
Where the example contradicts the rules the test asserts the rules; each case is a ruling
in docs/rulings.md ("the campaign", E1-E6):

* E1 (18.1.4 A): Furor and Pluton (3 MP) cannot make the 4-MP raid, so they get their own
  Anchor orders in Cadiz.
* E2 (18.1.6 C vs 8.4 E): all five raiders fire at Hampton Roads, not only the 1st and 4th, and
  Camara's 3 stars add a die to each of the first three. Only Castilla's and one of Cristina's
  printed dice can be used; the other raiders are given misses (no other dice are printed).
* E3 (18.2.3 B vs 18.1.5 C): Schley's squadron ended turn 1 in the East Coast, but turn 2 starts
  it in the Bahamas; the replay puts it there.
* E4 (18.2.6 D vs 8.3.1 D): Montgomery (7th US unit) faces Oquendo, not Galicia (ruling B1); its
  printed die (a 4) misses either way.
* E5 (18.2.6 B): the US initiative die in the Nares Abyssal is not printed ("without even
  considering its die roll"); any value gives the same result, the replay uses a 1.
* E6 (18.2.7 vs 11 F): Schley's squadron has Transit orders, so it cannot control the Puerto Rico
  Passage: the US ends turn 2 at +1, not +2.
* E7 (18.1.6 B-C vs 8.2.3, 8.2.1): the search roll fails (a 4 on 1-2), which "is treated the same
  as a No Result": "There is no further action", so Camara's raid on Hampton Roads is not made
  (the example resolves it; E2 is then not reached by the replay).
* E8 (18.2.3 vs 5.6 B): Howell's squadron leaves Hampton Roads with Camara's squadron in the East
  Coast, so it "must be given Sortie orders" (the example gives Patrol); the outcome is the same.
"""

import pytest

from simlab.games import get_game
from simlab.games.doe.campaign_state import CampaignState

GAME = get_game("dawn-of-empire")

# ---- turn 1 (18.1.6): East Coast initiative, search, then the raid on Hampton Roads
T1_DICE = [
    4, 2,              # initiative: Spain 5 units + 3 stars + 4 = 12, US 7 + 2 + 2 = 11
    4,                 # search, Raid x Transit 1-2: no engagement, so no raid either (E7)
]
# the raid's printed dice (18.1.6 C), which the replay does not roll (E7): Castilla 2 + Camara's
# die (two 1s and a 5, damage die 2), Cristina's 3 (and 4)
T1_RAID_DICE_NOT_ROLLED = [1, 1, 5, 2, 3, 4]
# ---- turn 2 (18.2.6): Puerto Rico Passage, Gulf of Mexico, Nares Abyssal (map order)
T2_PRP = [
    4, 5,              # initiative: Spain 4 + 2 + 4 = 10, US 7 + 2 + 5 = 14
    2,                 # search, Transit x Patrol 1-3: engagement
    # round 1, US: Massachusetts 6 + Schley (7 dice: 6 6 5 4 4 3 3, damage 3 3)
    6, 3, 6, 3, 5, 4, 4, 3, 3,
    # Brooklyn 3 + Schley (6 5 5 5, damage 2)
    6, 2, 5, 5, 5,
    1, 1, 2,           # Texas: "2 ones and a single two"
    5,                 # New Orleans at Galicia: "a single five"
    1,                 # Columbia at Teresa: the 8th die of group A ("and a one")
    1,                 # Minneapolis at Vizcaya: the 5th die of group B ("and a one")
    4,                 # Montgomery at Oquendo (E4): "a single four"
    # round 1, Spain: Teresa 3 + Cervera, Vizcaya 3 + Cervera, Oquendo, Galicia
    5, 4, 3, 2,
    6, 3, 6, 2, 5, 5,
    1, 1,
    1,
    # round 2, US: all at Oquendo, 7 dice "two sixes, two fours, two twos, and a one", damage 5 6
    6, 5, 6, 6, 4,     # Texas
    4, 2, 2, 1,        # New Orleans, Columbia, Minneapolis, Montgomery
    2, 3,              # round 2, Spain: Oquendo at Texas
]
T2_GULF = [5, 2, 6]    # initiative Spain 2 + 5 = 7, US 9 + 3 + 2 = 14; Coal x Sortie 1-2: a 6
T2_NARES = [2, 1, 5]   # initiative Spain 2 + 2 = 4, US 5 + 2 + (E5) = 8; Patrol x Transit 1-3: a 5

KW_SAMPSON = ["Indiana", "Iowa", "Wilmington", "Helena", "Nashville", "Detroit"]
KW_WATSON = ["New York", "Cincinnati", "Machias", "Castine", "Marblehead"]
KW_SMALL = ["Annapolis", "Vicksburg", "Newport"]
MONITORS = ["Terror", "Amphitrite", "Puritan"]
SCHLEY_T1 = ["Massachusetts", "Brooklyn", "New Orleans", "Minneapolis", "Columbia"]
SCHLEY_T2 = ["Massachusetts", "Brooklyn", "Texas", "New Orleans", "Columbia", "Minneapolis", "Montgomery"]
CAMARA = ["Castilla", "Patriota", "Rapido", "Cristina", "Buenos Aires"]
LEPANTO = ["Lepanto", "Alfonso XIII", "Asturias", "Carlos V"]
CERVERA = ["Teresa", "Vizcaya", "Oquendo", "Colon", "Pelayo"]


def _new(dice):
    sc = GAME.load_scenario("standard")
    opts = GAME.resolve_options({"extra_warships": True})  # 18.1.1 A: 14.10 is in play
    return CampaignState(sc.payload, opts, dice=dice)


def _turn1(cs):
    assert cs.begin_turn() == 1
    cs.orders("spain", [
        {"units": CAMARA, "leaders": ["Camara"], "order": "raid", "dest": "east-coast", "target": "hampton-roads"},
        {"units": ["Furor", "Pluton"], "order": "anchor"},                                     # E1
        {"units": LEPANTO, "order": "transit", "dest": "canary-islands"},
        {"units": CERVERA, "leaders": ["Cervera"], "order": "anchor"},
        {"units": ["Ensenada", "Infanta Isabel"], "leaders": ["Manterola"], "order": "transit",
         "dest": "north-yucatan-basin"},
        {"units": ["Venadito", "Alfonso XII"], "order": "anchor"},
        {"units": ["Galicia"], "order": "anchor"},
        {"units": ["Mercedes"], "order": "anchor"},
        {"units": ["Isabel II"], "order": "anchor"},
    ])
    cs.orders("us", [
        {"units": SCHLEY_T1, "leaders": ["Schley"], "order": "transit", "dest": "east-coast"},
        {"units": ["Texas", "Montgomery"], "order": "transit", "dest": "east-coast"},
        {"units": ["Miantonomoh"], "order": "anchor"},
        {"units": ["San Francisco", "Chicago"], "leaders": ["Howell"], "order": "anchor", "dest": "hampton-roads"},
        {"units": KW_SAMPSON, "leaders": ["Sampson"], "order": "patrol", "dest": "gulf-of-mexico"},
        {"units": KW_WATSON, "leaders": ["Watson"], "order": "anchor"},
        {"units": KW_SMALL, "order": "transit", "dest": "bahamas"},
        {"units": MONITORS, "order": "anchor"},
    ])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    cs.repair()


def _turn2(cs):
    assert cs.begin_turn() == 2
    cs.place(SCHLEY_T2, "bahamas")                                                              # E3
    cs.orders("spain", [
        {"units": CAMARA, "leaders": ["Camara"], "order": "transit", "dest": "cadiz"},
        {"units": ["Furor", "Pluton"], "order": "anchor"},
        {"units": ["Ensenada", "Infanta Isabel"], "leaders": ["Manterola"], "order": "coal"},
        {"units": LEPANTO, "order": "anchor"},
        {"units": ["Teresa", "Vizcaya", "Oquendo"], "leaders": ["Cervera"], "order": "patrol",
         "dest": "puerto-rico-passage"},
        {"units": ["Colon", "Pelayo"], "order": "patrol", "dest": "south-atlantic"},
        {"units": ["Venadito", "Alfonso XII"], "order": "sortie", "dest": "gulf-of-mexico"},
        {"units": ["Galicia"], "order": "transit", "dest": "puerto-rico-passage"},
        {"units": ["Mercedes"], "order": "transit", "dest": "nares-abyssal"},
        {"units": ["Isabel II"], "order": "transit", "dest": "nares-abyssal"},
    ])
    cs.orders("us", [
        {"units": ["San Francisco", "Chicago", "Miantonomoh"], "leaders": ["Howell"], "order": "sortie",
         "dest": "east-coast"},                                                                  # E8
        {"units": SCHLEY_T2, "leaders": ["Schley"], "order": "transit", "dest": "puerto-rico-passage"},
        {"units": KW_SMALL, "order": "coal"},
        {"units": KW_SAMPSON, "leaders": ["Sampson"], "order": "coal"},
        {"units": KW_WATSON, "leaders": ["Watson"], "order": "patrol", "dest": "nares-abyssal"},
        {"units": MONITORS, "order": "blockade", "dest": "gulf-of-mexico", "target": "havana"},
    ])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    cs.repair()


@pytest.fixture(scope="module")
def after_turn1():
    cs = _new(T1_DICE + T2_PRP + T2_GULF + T2_NARES)
    _turn1(cs)
    return cs


def test_turn1_moves(after_turn1):
    cs = after_turn1
    # 18.1.4-18.1.5
    assert all(cs.where(u) == "east-coast" for u in CAMARA)
    assert cs.where("Furor") == cs.where("Pluton") == "cadiz"
    assert all(cs.where(u) == "canary-islands" for u in LEPANTO)
    assert cs.where("Ensenada") == "north-yucatan-basin"
    assert cs.where("San Francisco") == "hampton-roads"
    assert all(cs.where(u) == "gulf-of-mexico" for u in KW_SAMPSON)
    assert all(cs.where(u) == "bahamas" for u in KW_SMALL)
    # 18.1.5 C: the two US squadrons in the East Coast combine under Schley with Transit orders
    assert sorted(cs.stack("Texas")) == sorted(SCHLEY_T1 + ["Texas", "Montgomery"])
    assert cs.order("Texas") == "" and cs.prev_order("Texas") == "transit"
    assert cs.leader("Schley") == cs.stack("Texas")[0] == "Massachusetts"


def test_turn1_no_raid_after_the_failed_search(after_turn1):
    cs = after_turn1
    # 18.1.6 B: no battle; E7 (8.2.3, 8.2.1): the failed roll is a No Result, so no raid either
    assert cs.battles() == []
    assert cs.counts()["port_attacks"] == 0
    assert not any(r["kind"] == "port" for r in cs.ledger())
    assert cs.dice_used() == len(T1_DICE)


def test_turn1_vps(after_turn1):
    cs = after_turn1
    # 18.1.7: US +1 for the Gulf of Mexico, Spain +4 for the East Coast: Spain +3
    assert cs.control("gulf-of-mexico") == "us"
    assert cs.control("east-coast") == "spain"
    assert cs.control("bahamas") == "" and cs.control("north-yucatan-basin") == ""   # Transit (11 F)
    assert cs.vp_net == -3
    assert sorted((r["side"], r["where"], r["amount"]) for r in cs.ledger()) == [
        ("spain", "east-coast", 4), ("us", "gulf-of-mexico", 1)]


def test_turn1_hampton_roads_undamaged():
    cs = _new(T1_DICE + T2_PRP + T2_GULF + T2_NARES)
    _turn1(cs)
    # E7: the example's two damage points (18.1.6 C) are not inflicted
    assert cs.port_damage("hampton-roads") == 0


@pytest.fixture(scope="module")
def after_turn2():
    cs = _new(T1_DICE + T2_PRP + T2_GULF + T2_NARES)
    _turn1(cs)
    _turn2(cs)
    return cs


def test_turn2_moves(after_turn2):
    cs = after_turn2
    # 18.2.4-18.2.5
    assert all(cs.where(u) == "cadiz" for u in CAMARA)
    assert cs.where("Colon") == cs.where("Pelayo") == "south-atlantic"
    assert cs.where("Mercedes") == cs.where("Isabel II") == "nares-abyssal"
    assert cs.stack("Mercedes") == ["Mercedes", "Isabel II"] or cs.stack("Mercedes") == ["Isabel II", "Mercedes"]
    assert cs.where("Venadito") == "gulf-of-mexico"
    # 18.2.5 F: the blockading monitors join Sampson's larger Coal squadron, which keeps Coal
    assert sorted(cs.stack("Terror")) == sorted(KW_SAMPSON + MONITORS)
    assert cs.prev_order("Terror") == "coal"
    assert all(cs.where(u) == "nares-abyssal" for u in KW_WATSON)
    assert cs.where("Chicago") == "east-coast"


def test_turn2_puerto_rico_passage_battle(after_turn2):
    cs = after_turn2
    b = [x for x in cs.battles() if x["area"] == "puerto-rico-passage"]
    assert len(b) == 1 and b[0]["rounds"] == 2 and b[0]["winner"] == "us" and b[0]["initiative"] == "us"
    # Teresa sunk, Cervera killed; Oquendo sunk in round 2
    assert cs.where("Teresa") == "sunk" and cs.where("Oquendo") == "sunk"
    assert cs.leader("Cervera") == "killed"
    # Vizcaya 2 damage and disabled to San Juan (repaired to 1 in 18.2.8); Galicia disabled there
    assert cs.where("Vizcaya") == "san-juan" and cs.where("Galicia") == "san-juan"
    # Massachusetts disabled (no damage, Schley with her), Brooklyn 5 damage and afloat, to Key West
    assert cs.where("Massachusetts") == "key-west" and cs.damage("Massachusetts") == 0
    assert cs.leader("Schley") == "Massachusetts"
    assert cs.where("Brooklyn") == "key-west"
    assert b[0]["sunk_spain"] == 2 and b[0]["disabled_spain"] == 2
    assert b[0]["sunk_us"] == 0 and b[0]["disabled_us"] == 2
    # disabled units count as Anchored for next turn's orders (8.3.2.1 C)
    assert cs.prev_order("Brooklyn") == "anchor" and cs.prev_order("Vizcaya") == "anchor"


def test_turn2_no_other_battles_and_every_printed_die_used(after_turn2):
    cs = after_turn2
    assert [x["area"] for x in cs.battles()] == ["puerto-rico-passage"]
    assert cs.dice_used() == len(T1_DICE + T2_PRP + T2_GULF + T2_NARES)


def test_turn2_vps_and_control(after_turn2):
    cs = after_turn2
    # 18.2.7: Spain holds the South Atlantic (+1); the US the East Coast (0) and the Bahamas (+1);
    # Spain lost two CAs (+2 US) and Cervera (+2 US).
    assert cs.control("south-atlantic") == "spain"
    assert cs.control("east-coast") == "us"
    assert cs.control("bahamas") == "us"
    assert cs.control("gulf-of-mexico") == ""        # both sides there, no engagement (11 B)
    # E6: a Transit squadron never controls (11 F), so the Passage is uncontrolled
    assert cs.control("puerto-rico-passage") == ""
    t2 = [r for r in cs.ledger() if r["turn"] == 2]
    assert sum(r["amount"] for r in t2 if r["side"] == "us") == 5
    assert sum(r["amount"] for r in t2 if r["side"] == "spain") == 1
    assert {(r["kind"], r["amount"]) for r in t2 if r["side"] == "us" and r["kind"] != "area"} == {
        ("losses", 2), ("leaders", 2)}
    assert cs.vp_net == 1    # the example's +2 counts the Passage (E6)


def test_turn2_repairs(after_turn2):
    cs = after_turn2
    # 18.2.8: Vizcaya 2 -> 1 in San Juan, Brooklyn 5 -> 4 in Key West
    assert cs.damage("Vizcaya") == 1
    assert cs.damage("Brooklyn") == 4
    assert cs.out_of_combat("Brooklyn") == ""   # Disabled markers removed (4.5 A)


def _outcome(cs):
    return (cs.where("Teresa"), cs.leader("Cervera"), cs.damage("Vizcaya"), cs.damage("Brooklyn"), cs.vp_net)


def test_replay_is_driven_by_the_injected_dice(after_turn2):
    # Massachusetts's first 6 becomes a 1 (and its damage die goes): Teresa survives round 1
    d = list(T1_DICE + T2_PRP + T2_GULF + T2_NARES)
    i = len(T1_DICE) + 3
    assert d[i] == 6 and d[i + 1] == 3
    d[i] = 1
    del d[i + 1]
    cs = _new(d + [1] * 40)
    _turn1(cs)
    _turn2(cs)
    assert _outcome(after_turn2) == ("sunk", "killed", 1, 4, 1)
    assert _outcome(cs) != _outcome(after_turn2)
