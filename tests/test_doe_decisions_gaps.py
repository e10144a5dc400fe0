"""Dawn of Empire, issue 28: the decision-inventory gaps closed by knobs of both scripted families
(``simlab/games/doe/decisions.toml``): the line order of each stack (4.1.2 B, D), the stack each
leader goes with (4.1.2 C), whether an independent unit joins the friends it meets (7.4 E), the
port a raider goes home to (5.5 D), the units a port repairs first (9.0 B-C) and whose order two
equal combining squadrons keep (7.3 C).

Each test builds a situation where the knob's two bound values give different plays, as the
other DoE tests do: the plan a policy writes (:func:`test_doe_campaign_policies.plan`, from what
its side may see) or, for the choices the engine applies for a side (9.0, 7.3 C), a
:class:`CampaignState` with scripted dice and the side's choice in ``par``.
"""

import pytest
from test_doe_campaign_policies import _stack_of, plan
from test_doe_campaign_policies import position as policy_position
from test_doe_campaign_rules import DATA, legal, position, sq

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.enums import MK_FIRST, MK_LAST, MK_RULE, RO_LEAST, RO_MOST, RO_RANDOM, RO_STRONG
from simlab.games.doe.runtime import build_par, policy_book

GAME = get_game("dawn-of-empire")
BOOK = policy_book()
KEYS = DATA.area_keys + DATA.port_keys


def _line(p, units):
    """The units' line order in plan ``p`` (they share a stack): sorted by the plan's sort key."""
    pu, pp, _, _ = p
    assert len({pu[DATA.unit(u)] for u in units}) == 1
    return sorted(units, key=lambda u: pp[DATA.unit(u)])


# ============================================================================ 4.1.2 B, D: the line order
def test_the_owner_orders_the_units_of_each_stack():  # 4.1.2 B, D; 8.3.1 A
    keep = {"Montgomery": "key-west", "Indiana": "key-west", "Texas": "key-west"}
    units = list(keep)
    p, _, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "hunter"))
    assert _line(p, units) == ["Indiana", "Texas", "Montgomery"]           # attack 6, 3, 1: strongest on top
    p, _, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "hunter", {"line_order": 1}))
    assert _line(p, units) == ["Montgomery", "Texas", "Indiana"]           # the weakest on top


# ============================================================================ 4.1.2 C: the leader's stack
def _sampson_with(knobs):
    # two groups at Key West: the battleships (5 MP) and the monitors (3 MP, slow_mp: grouped apart)
    keep = {"Indiana": "key-west", "Iowa": "key-west", "Terror": "key-west", "Amphitrite": "key-west"}
    cs = policy_position(keep)
    i = DATA.leader("Sampson")
    cs.LD[i, lay.LF_UNIT] = DATA.unit("Indiana")
    cs.LD[i, lay.LF_STATE] = lay.LEADER_IN_PLAY
    p, _, _ = plan(cs, 0, BOOK.resolve("us", "hunter", knobs))
    pu, _, _, pl = p
    assert pu[DATA.unit("Indiana")] == pu[DATA.unit("Iowa")] != pu[DATA.unit("Terror")] == pu[DATA.unit("Amphitrite")]
    return [u for u in keep if pu[DATA.unit(u)] == pl[i]]


def test_the_owner_places_each_leader_with_a_stack():  # 4.1.2 C, 6.2 B
    assert _sampson_with({}) == ["Indiana", "Iowa"]                        # attack 12: the strongest group
    assert _sampson_with({"leader_group": 1}) == ["Terror", "Amphitrite"]   # attack 6: the weakest


# ============================================================================ 7.4 E: an IU joins or not
def test_the_plan_says_whether_independent_units_join():  # 7.4 E
    keep = {"Indiana": "key-west", "Iowa": "key-west"}
    p, _, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "hunter"))
    assert [s[3] for s in p[2]] == [1]
    p, _, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "hunter", {"iu_join": 0}))
    assert [s[3] for s in p[2]] == [0]


def test_a_unit_alone_in_its_group_stays_independent_if_the_side_chooses():  # 7.4 A, E
    # Terror (3 MP, slow_mp) is alone in its group at Key West: by default it joins the battleships
    keep = {"Indiana": "key-west", "Iowa": "key-west", "Terror": "key-west"}
    pu, _, pst, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "hunter"))[0]
    assert pu[DATA.unit("Terror")] == pu[DATA.unit("Indiana")] == pu[DATA.unit("Iowa")]
    pu, _, pst, _ = plan(policy_position(keep), 0, BOOK.resolve("us", "hunter", {"iu_join": 0}))[0]
    assert pu[DATA.unit("Terror")] != pu[DATA.unit("Indiana")] == pu[DATA.unit("Iowa")]
    assert pst[pu[DATA.unit("Terror")]][0] in (lay.TRANSIT, lay.ANCHOR, lay.COAL)   # an IU's orders (7.4 A, C4)


@pytest.mark.parametrize("join, stack", [(True, ["Indiana", "Iowa", "Montgomery"]), (False, ["Montgomery"])])
def test_an_independent_unit_stacks_with_friends_only_if_its_plan_says_so(join, stack):  # 7.4 E
    cs = position({"Indiana": "key-west", "Iowa": "key-west", "Montgomery": "florida-strait"})
    legal(cs, "us", [sq(["Indiana", "Iowa"], "anchor"), sq(["Montgomery"], "transit", "key-west", join=join)])
    cs.movement()
    assert cs.where("Montgomery") == "key-west"
    assert cs.stack("Montgomery") == stack


# ============================================================================ 5.5 D: the raider's way home
def _raiders_home(area, knobs):
    cs = policy_position({"Teresa": area, "Vizcaya": area})
    cs.set_history(["Teresa", "Vizcaya"], "raid")
    p, _, _ = plan(cs, 1, BOOK.resolve("spain", "raider", knobs))
    order, dest, _, _ = _stack_of(p, "Teresa")
    assert order == lay.TRANSIT
    return KEYS[dest]


def test_the_owner_picks_the_port_a_raider_goes_home_to():  # 5.5 D
    # from the East Coast Cadiz, Havana and Santiago are 4 MP away (Teresa and Vizcaya move 6):
    # the nearest first in map order, Cadiz (repair 4); Havana has most defense + mines (8 + 3)
    assert _raiders_home("east-coast", {}) == "cadiz"
    assert _raiders_home("east-coast", {"raid_home": 1}) == "cadiz"
    assert _raiders_home("east-coast", {"raid_home": 2}) == "havana"
    # from the Florida Strait Havana is 2 MP away, Cadiz 5: the most repair within the move is Cadiz
    assert DATA.cost[lay.KMAX, DATA.node("florida-strait"), DATA.node("cadiz")] == 5
    assert _raiders_home("florida-strait", {}) == "havana"
    assert _raiders_home("florida-strait", {"raid_home": 1}) == "cadiz"
    assert _raiders_home("florida-strait", {"raid_home": 2}) == "havana"


# ============================================================================ 9.0 B-C: repair order
def _repaired(mode, dice=None):
    """Damage left on Teresa (3-3, damage 2), Vizcaya (3-3, 1) and Pelayo (4-5, 1) after the Canary
    Islands (repair 2) repair them with Spain's choice ``mode`` (``RO_*``)."""
    cs = position({u: "canary-islands" for u in ("Teresa", "Vizcaya", "Pelayo")}, dice=dice)
    assert DATA.nodes[DATA.node("canary-islands"), lay.NS_REPAIR] == 2
    for u, d in (("Teresa", 2), ("Vizcaya", 1), ("Pelayo", 1)):
        cs.set_damage(u, d)
    cs.par[lay.P_REPORD1] = mode
    cs.repair()
    if dice is not None:
        assert cs.dice_used() == len(dice)
    return cs.damage("Teresa"), cs.damage("Vizcaya"), cs.damage("Pelayo")


def test_the_owner_chooses_which_units_a_port_repairs():  # 9.0 B-C (and its example), ruling C20
    assert _repaired(RO_STRONG) == (1, 1, 0)      # Pelayo, then one point of Teresa's two (9.0 C)
    assert _repaired(RO_LEAST) == (2, 0, 0)       # Pelayo and Vizcaya made whole
    assert _repaired(RO_MOST) == (0, 1, 1)        # Teresa's two points
    assert _repaired(RO_RANDOM, dice=[3, 1, 2]) == (2, 0, 0)   # one die each: Vizcaya, Pelayo, Teresa
    assert _repaired(RO_RANDOM, dice=[1, 3, 2]) == (0, 1, 1)   # Teresa first


def test_each_family_makes_its_repair_and_merge_choices():  # 9.0 B, 7.3 C: knobs to par
    opts = GAME.resolve_options({})
    par = build_par(DATA, opts, {"us": "random-legal", "spain": "raider"})
    assert (par[lay.P_REPORD0], par[lay.P_REPORD1]) == (RO_RANDOM, RO_STRONG)
    assert (par[lay.P_MERGE0], par[lay.P_MERGE1]) == (MK_RULE, MK_RULE)
    par = build_par(DATA, opts, {"us": BOOK.resolve("us", "hunter", {"repair_order": 2, "merge_keep": 1}),
                                 "spain": BOOK.resolve("spain", "raider", {"repair_order": 1, "merge_keep": 2})})
    assert (par[lay.P_REPORD0], par[lay.P_REPORD1]) == (RO_MOST, RO_LEAST)
    assert (par[lay.P_MERGE0], par[lay.P_MERGE1]) == (MK_FIRST, MK_LAST)


# ============================================================================ 7.3 C: equal squadrons combine
def _kept_order(mode, dice):
    """The order kept when Teresa and Vizcaya (Patrol from Havana into the Gulf, planned first)
    meet Oquendo and Colon (Coal in the Gulf, planned second): two squadrons of two, no leaders."""
    cs = position({"Teresa": "havana", "Vizcaya": "havana", "Oquendo": "gulf-of-mexico", "Colon": "gulf-of-mexico"},
                  dice=dice)
    cs.par[lay.P_MERGE1] = mode
    legal(cs, "spain", [sq(["Teresa", "Vizcaya"], "patrol", "gulf-of-mexico"), sq(["Oquendo", "Colon"], "coal")])
    cs.movement()
    assert cs.dice_used() == len(dice)
    assert sorted(cs.stack("Teresa")) == ["Colon", "Oquendo", "Teresa", "Vizcaya"]
    return cs.order("Oquendo"), cs.order("Teresa")


def test_the_owner_decides_which_order_equal_squadrons_keep():  # 7.3 C
    assert _kept_order(MK_FIRST, []) == ("patrol", "patrol")
    assert _kept_order(MK_LAST, []) == ("coal", "coal")
    assert _kept_order(MK_RULE, [1]) == ("patrol", "patrol")    # no leaders: a coin
    assert _kept_order(MK_RULE, [2]) == ("coal", "coal")
