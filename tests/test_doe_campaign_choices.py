"""Dawn of Empire campaign, issue 13 (second part): the US plans (blockades rotated within the
7.5 C coaling limit, a home guard sized to the raid threat the US can see), where disabled units
go as the owner's choice (8.3.2.1 B, ruling C39), and what Optional Rules 14.9 (its stop mode:
one pursuit round, then every survivor disengages) and 14.12 (the Germans) do.

Each test sets up the situation with :class:`CampaignState` (every unit off the map except the
few it places), injects the dice where a result is exact, and asserts the outcome. (12.1.3 A,
the ``port_vp_initiative`` option, is played both ways by
``test_doe_campaign_rules_text.test_only_the_side_with_the_initiative_scores_a_destroyed_port``.)
"""

import numpy as np
from test_doe_campaign_policies import _stack_of, plan
from test_doe_campaign_policies import position as policy_position
from test_doe_campaign_rules import DATA, illegal, legal, position, sq

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.campaign_combat import disabled_ports_nb
from simlab.games.doe.campaign_state import CampaignState
from simlab.games.doe.enums import DN_ESCAPE, DN_NEARER, DN_NEVER, DP_RANDOM, DP_REPAIR, DP_SAFE
from simlab.games.doe.runtime import build_par, policy_book

GAME = get_game("dawn-of-empire")
BOOK = policy_book()


def _blockaders(p):
    """(order, destination, target) of every US stack of plan ``p`` that blockades."""
    _, _, pst, _ = p
    return [tuple(s[:3]) for s in pst if s[0] == lay.BLOCKADE]


def _units_given(p, order):
    pu, _, pst, _ = p
    return sum(1 for u in range(DATA.ust.shape[0]) if pu[u] >= 0 and pst[pu[u]][0] == order)


# ============================================================================ US: rotated blockades (7.5 C-D)
FAST7 = ["Brooklyn", "New York", "New Orleans", "Minneapolis", "Columbia", "San Francisco", "Harvard"]
HEAVY7 = ["Indiana", "Iowa", "Massachusetts", "Oregon", "Kearsarge", "Texas", "Montgomery"]


def test_no_more_units_blockade_than_may_coal_at_sea_next_turn():  # 7.5 C: the US coals 11 at sea
    keep = {u: "key-west" for u in FAST7} | {u: "hampton-roads" for u in HEAVY7}
    knobs = {"aggression": 1.0}
    p, _, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "blockade", knobs | {"blockade_rotate": 0}))
    assert _units_given(p, lay.BLOCKADE) == 14            # both squadrons blockade: 14 must coal next turn
    p, _, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "blockade", knobs))
    assert _units_given(p, lay.BLOCKADE) == 7             # one squadron: the other waits its turn
    assert DATA.rules["coal_at_sea_us"] == 11


def test_blockaders_that_cannot_coal_are_relieved():  # 7.5 D, 5.2 D, 7.3 C
    # Havana's blockaders (6) coal off it; Santiago's (6) would make 12 > 11: they sail for a port
    # to coal, and the fresh squadron from Key West relieves Santiago, not Havana (it would merge
    # with the coaling squadron there, 7.3 C)
    havana = ["Indiana", "Iowa", "Massachusetts", "Oregon", "Kearsarge", "Texas"]
    santiago = ["Brooklyn", "New York", "New Orleans", "Minneapolis", "Columbia", "San Francisco"]
    fresh = ["Harvard", "Yale", "Chicago", "Montgomery"]
    keep = {u: "gulf-of-mexico" for u in havana} | {u: "bahamas" for u in santiago} | {u: "key-west" for u in fresh}

    def us_plan(knobs):
        cs = policy_position(keep)
        cs.set_history(havana + santiago, "blockade")
        p, _, _ = plan(cs, 0, BOOK.resolve("us", "blockade", knobs))
        return p

    p = us_plan({})                                     # the preset rotates
    assert _stack_of(p, "Indiana")[:2] == (lay.COAL, DATA.node("gulf-of-mexico"))
    order, dest, _, _ = _stack_of(p, "Brooklyn")
    assert order == lay.TRANSIT and DATA.nodes[dest, lay.NS_PSIDE] == lay.US       # to coal in port
    assert _stack_of(p, "Harvard")[:3] == (lay.BLOCKADE, DATA.node("bahamas"), DATA.node("santiago"))
    p = us_plan({"blockade_rotate": 0})                 # without rotation: Havana, where Indiana coals
    assert _stack_of(p, "Harvard")[:3] == (lay.BLOCKADE, DATA.node("gulf-of-mexico"), DATA.node("havana"))


# ============================================================================ US: a home guard sized to the threat
GUARD = {"Massachusetts": "hampton-roads", "Texas": "hampton-roads",
         "Brooklyn": "key-west", "New York": "key-west", "Columbia": "key-west"}
HOME_AREAS = ("east-coast", "florida-strait", "gulf-of-mexico")


def _patrols(spanish, knobs):
    """Where coastal-defense (with ``knobs``) sends the Massachusetts and the Brooklyn squadrons
    (Patrol), with the Spanish units ``spanish`` ({name: place}) on the map, face down."""
    p, _, _ = plan(policy_position(GUARD | spanish), 0, BOOK.resolve("us", "coastal-defense", knobs))
    keys = DATA.area_keys + DATA.port_keys
    out = []
    for u in ("Massachusetts", "Brooklyn"):
        order, dest, _, _ = _stack_of(p, u)
        assert order == lay.PATROL
        out.append(keys[dest])
    return tuple(out)


def test_the_home_guard_is_sized_to_the_raid_threat_seen():  # 15.0 ("must be on guard"), 13.0 D view
    sized = {"guard_reach": 4}                          # the preset: guard_sized = 1500
    # nothing Spanish within 4 MP of the US coast (the Canary Islands are 5 away): no guard, the
    # strongest squadron takes the North Atlantic lane (US VPs)
    assert min(DATA.cost[lay.KMAX, DATA.node("canary-islands"), DATA.node(a)] for a in HOME_AREAS) == 5
    assert _patrols({"Teresa": "canary-islands", "Vizcaya": "canary-islands"}, sized) == (
        "north-atlantic", "florida-strait")
    # two Spanish units in Havana: the strongest squadron guards the Gulf, and it is enough
    assert _patrols({"Teresa": "havana", "Vizcaya": "havana"}, sized) == ("gulf-of-mexico", "north-atlantic")
    # five: 1.5 times their estimated attack needs the second squadron too (the East Coast)
    five = {u: "havana" for u in ("Teresa", "Vizcaya", "Oquendo", "Colon", "Pelayo")}
    assert _patrols(five, sized) == ("gulf-of-mexico", "east-coast")
    # the old plan guards with the aggression share of the fleet, whatever it sees
    assert _patrols(five, {"guard_sized": 0}) == ("gulf-of-mexico", "north-atlantic")
    assert _patrols({"Teresa": "canary-islands", "Vizcaya": "canary-islands"}, {"guard_sized": 0}) == (
        "east-coast", "north-atlantic")


# ============================================================================ 8.3.2.1 B: where disabled units go
def test_the_ports_a_disabled_unit_may_go_to():  # 8.3.2.1 B (ties, 14.9 neutral ports), ruling C39
    out = np.zeros(DATA.nodes.shape[0], dtype=np.int64)
    oc = np.zeros_like(out)

    def ports(area, side, neutral):
        k = disabled_ports_nb(DATA.node(area), side, False, neutral, DATA.nodes, DATA.cost, CS.par, out, oc)
        return [(DATA.port_keys[p - DATA.n_areas], int(c)) for p, c in zip(out[:k], oc[:k], strict=True)]

    CS = position({})
    assert ports("east-coast", lay.SPAIN, False) == [("cadiz", 4), ("havana", 4), ("santiago", 4)]
    assert ports("puerto-rico-passage", lay.US, False) == [("key-west", 5)]
    assert ports("puerto-rico-passage", lay.US, True) == [("key-west", 5), ("kingston", 2), ("cartagena", 2),
                                                          ("curacao", 2), ("caracas", 2), ("martinique", 2)]


def _raiders_disabled(tie, extra=()):
    """Teresa and Vizcaya, disabled in the East Coast area: 4 MP from Cadiz, Havana and Santiago."""
    dice = [1, 6, 2,            # Spain 2 + 1, US 2 + 6: US initiative; Patrol x Patrol 1-4: a 2
            5, 1, 1,            # Texas disables Teresa
            5,                  # Montgomery disables Vizcaya
            1, 1, 1, 1, 1, 1] + list(extra)   # Teresa and Vizcaya miss
    cs = position({u: "east-coast" for u in ("Texas", "Montgomery", "Teresa", "Vizcaya")}, dice=dice)
    cs.par[lay.P_FLEE0] = cs.par[lay.P_FLEE1] = 0
    cs.par[lay.P_DISPORT1] = tie
    legal(cs, "spain", [sq(["Teresa", "Vizcaya"], "patrol")])
    legal(cs, "us", [sq(["Texas", "Montgomery"], "patrol")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    return cs.where("Teresa"), cs.where("Vizcaya")


def test_the_owner_picks_among_equally_near_ports():  # 8.3.2.1 B "at the option of the owning side"
    assert _raiders_disabled(DP_REPAIR) == ("cadiz", "cadiz")         # repair 4
    assert _raiders_disabled(DP_SAFE) == ("havana", "havana")         # defense 8 + mines 3
    assert _raiders_disabled(DP_RANDOM, extra=[3, 1]) == ("santiago", "cadiz")   # one die each of 3
    par = build_par(DATA, GAME.resolve_options({}), {"us": "random-legal", "spain": "historical"})
    assert par[lay.P_DISPORT0] == DP_RANDOM and par[lay.P_DISPORT1] == DP_REPAIR
    par = build_par(DATA, GAME.resolve_options({}),
                    {"us": "hunter", "spain": BOOK.resolve("spain", "raider", {"disabled_port": 1})})
    assert par[lay.P_DISPORT1] == DP_SAFE and par[lay.P_DISNEU1] == DN_NEARER


def _monitors_disabled(neutral, **opts):
    us = ["Terror", "Amphitrite"]
    sp = ["Teresa", "Vizcaya"]
    dice = [1, 6, 2, 1, 1, 1, 1, 1, 1, 5, 1, 1, 5, 1, 1]   # the monitors miss, both are disabled
    cs = position({u: "puerto-rico-passage" for u in us + sp}, dice=dice, **opts)
    cs.par[lay.P_FLEE0] = cs.par[lay.P_FLEE1] = 0
    cs.par[lay.P_DISNEU0] = neutral
    legal(cs, "spain", [sq(sp, "patrol")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    assert cs.dice_used() == len(dice)
    return cs.where("Terror"), cs.where("Amphitrite")


def test_a_neutral_port_is_the_owners_choice_under_14_9():  # 8.3.2.1 B "may", 14.9, 14.8 A
    both = dict(speed_subgroups=True)
    assert _monitors_disabled(DN_NEARER, **both) == ("kingston", "kingston")       # 2 MP, not 5
    assert _monitors_disabled(DN_NEVER, **both) == ("key-west", "key-west")
    assert _monitors_disabled(DN_ESCAPE, **both) == ("key-west", "key-west")       # Key West is reachable
    # under 14.8 the monitors' 3 MP do not reach Key West: escape to Kingston or be scuttled
    both["restrict_disabled"] = True
    assert _monitors_disabled(DN_ESCAPE, **both) == ("kingston", "kingston")
    assert _monitors_disabled(DN_NEVER, **both) == ("scuttled", "scuttled")


# ============================================================================ 14.9: one pursuit round, then all disengage
def _teresa_leaves_galicia(**opts):
    """Teresa (6 MP) outruns Texas and Montgomery (5 MP) after round 1; Galicia (4 MP) stays."""
    dice = ([1, 6, 2]                       # US initiative; Patrol x Patrol: a 2, battle
            + [1, 1, 1, 1] + [1, 1, 1, 1]   # round 1: everybody misses; then Teresa disengages
            + [1, 1, 1, 1] + [1]            # round 2 (14.9: the pursuit of Galicia): misses
            + [6, 2, 1, 1, 1] + [1])        # round 3: Texas sinks Galicia (2 > 1)
    sp, us = ["Teresa", "Galicia"], ["Texas", "Montgomery"]
    cs = position({u: "sargasso-sea" for u in sp + us}, dice=dice, **opts)
    cs.par[lay.P_FLEE0] = 0                 # the US stays; Spain leaves whenever able
    legal(cs, "spain", [sq(sp, "patrol")])
    legal(cs, "us", [sq(us, "patrol")])
    cs.movement()
    cs.combat()
    cs.control_and_vp()
    (b,) = cs.battles()
    return cs, b


def test_speed_subgroups_fight_one_pursuit_round_then_disengage():  # 14.9 A-E
    cs, b = _teresa_leaves_galicia(speed_subgroups=True)
    assert cs.dice_used() == 3 + 8 + 5                  # round 3 is never fought
    assert b["rounds"] == 2 and b["winner"] == "us" and b["sunk_spain"] == 0
    assert cs.out_of_combat("Teresa") == cs.out_of_combat("Galicia") == "escaped"     # 14.9 D
    assert cs.where("Galicia") in DATA.port_keys
    assert cs.control("sargasso-sea") == "us"                                          # 14.9 E
    cs, b = _teresa_leaves_galicia()                    # standard 10.2: Galicia fights on
    assert cs.dice_used() == 3 + 8 + 5 + 6
    assert b["rounds"] == 3 and b["sunk_spain"] == 1 and cs.where("Galicia") == "sunk"


# ============================================================================ 14.12: the Germans
GERMANS = ["Geier", "Charlotte", "Stein", "Gneisenau"]


def test_the_germans_start_in_caracas_as_spanish_units():  # 14.12 A-B
    cs = CampaignState(DATA, GAME.resolve_options({"germans": True}))
    cs.begin_turn()
    assert [cs.where(u) for u in GERMANS] == ["caracas"] * 4
    assert all(DATA.ust[DATA.unit(u), lay.US_SIDE] == lay.SPAIN for u in GERMANS)
    cs = CampaignState(DATA, GAME.resolve_options({}))
    cs.begin_turn()
    assert all(int(cs.U[DATA.unit(u), lay.UF_LOC]) < 0 for u in GERMANS)


def test_caracas_repairs_only_the_germans():  # 14.12 B, 7.2.3 C-D, rulings C23, C44
    cs = position({"Charlotte": "caracas", "Stein": "caracas", "Teresa": "caracas", "Vizcaya": "caracas"},
                  germans=True)
    cs.set_history(["Charlotte", "Stein"], "anchor", neutral=1)
    cs.set_history(["Teresa", "Vizcaya"], "anchor", neutral=2)
    cs.set_damage("Charlotte", 1)
    cs.set_damage("Teresa", 1)
    legal(cs, "spain", [sq(["Charlotte", "Stein"], "anchor"), sq(["Teresa", "Vizcaya"], "anchor")])
    cs.movement()
    assert cs.where("Teresa") == "interned" and cs.where("Charlotte") == "caracas"    # 7.2.3 D (C44: Germans too)
    cs.combat()
    cs.control_and_vp()
    cs.repair()
    assert cs.damage("Charlotte") == 0                                                  # repair 1, Germans only
    # Caracas "may not be blockaded or raided"
    cs = position({"Texas": "venezuela-basin", "Iowa": "venezuela-basin"}, germans=True)
    illegal(cs, "us", [sq(["Texas", "Iowa"], "blockade", "venezuela-basin", "caracas")], "bad raid/blockade target")
