"""The residual departures of the Dawn of Empire campaign from its rulebook found in issue 28
(rulings C40-C45 of docs/rulings.md), each played on a hand-built position.

Each test sets up the situation with :class:`CampaignState` (``position`` of
``test_doe_campaign_rules``: every unit off the map except the few it places), injects the dice
where a result is exact, and asserts the rule's outcome; each failed on the engine before the rule
was fixed.
"""

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
