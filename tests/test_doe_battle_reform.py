"""Dawn of Empire, issue 28: the battle choices a player makes in one battle, each a knob.

* 8.3.3 A (ruling B11): the order of damaged units with the same damage when the line is reformed
  is the owning side's (``reform_order``, both campaign families and doe-battle's ``line-order``;
  random-legal draws it); the default keeps their previous order (ruling B2), as before.
* doe-battle's ``line-order`` family: the stack order (4.1.2 D / 8.3.1 A, ``line_order``) and the
  disengagement by speed per side (10.2, ``disengage_odds``).

Built from set-up battle lines and scripted dice (:func:`simlab.games.doe.dice.scripted_stream`).
"""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.battle_setup import DISENGAGE_ALWAYS, battle_choices, line_permutation
from simlab.games.doe.dice import script_position, scripted_stream
from simlab.games.doe.enums import (
    FLEE_ALWAYS,
    IN_LINE,
    RF_KEEP,
    RF_RANDOM,
    RF_STRONG,
    RF_WEAK,
    SPEED_NEVER,
    SUNK,
)
from simlab.games.doe.kernels import (
    DEFAULT_CHOICES,
    W_KEY,
    BattleChoices,
    BattleSpec,
    Squadrons,
    battle_nb,
    new_work,
    reform_line_nb,
)
from simlab.rng import game_seeds

BATTLE = get_game("doe-battle")


def _sq(att, dfn, dmg):
    n = len(att)
    return Squadrons(np.asarray(att, np.int64), np.asarray(dfn, np.int64), np.full(n, 4, np.int64),
                     np.asarray(dmg, np.int64), np.zeros(n, np.int8))


def _reform(line, sq, mode, dice=(1,)):
    line = np.asarray(line, np.int64)
    rng = scripted_stream(dice)
    reform_line_nb(line, len(line), sq, mode, rng, new_work(len(sq.att))[W_KEY])
    return line.tolist(), script_position(rng)


# ============================================================================ 8.3.3 A: the reformed line
def test_equally_damaged_units_go_in_the_order_the_owner_picks():  # 8.3.3 A-B, rulings B2, B11
    # units 0..4 in line order: 1 and 3 undamaged; 0, 2 and 4 damaged 2 (a tie); defense 3, 6, 4
    sq = _sq([2, 1, 3, 1, 5], [3, 5, 6, 2, 4], [2, 0, 2, 0, 2])
    line = [0, 1, 2, 3, 4]
    # undamaged first in their order, then the damaged, least damage first (8.3.3 A), no die drawn
    assert _reform(line, sq, RF_KEEP) == ([1, 3, 0, 2, 4], 0)           # ties: the previous order (B2)
    assert _reform(line, sq, RF_STRONG) == ([1, 3, 2, 4, 0], 0)         # defense left 4, 2, 1
    assert _reform(line, sq, RF_WEAK) == ([1, 3, 0, 4, 2], 0)           # defense left 1, 2, 4
    # random-legal: one die of 2**20 per damaged unit sharing its damage, lowest first
    assert _reform(line, sq, RF_RANDOM, (7, 3, 5)) == ([1, 3, 2, 4, 0], 3)
    # least damage still comes first whatever the pick: only ties are reordered
    sq2 = _sq([2, 1, 3], [3, 5, 6], [3, 1, 3])
    assert _reform([0, 1, 2], sq2, RF_KEEP)[0] == [1, 0, 2]
    assert _reform([0, 1, 2], sq2, RF_STRONG)[0] == [1, 2, 0]
    assert _reform([0, 1, 2], sq2, RF_WEAK)[0] == [1, 0, 2]
    # a lone damaged unit has no tie: random-legal draws nothing (script position stays 0)
    assert _reform([0, 1], _sq([1, 1], [3, 3], [0, 2]), RF_RANDOM) == ([0, 1], 0)
    # equal defense left: the more attack first (strong), the less first (weak)
    sq3 = _sq([1, 3], [4, 4], [1, 1])
    assert _reform([0, 1], sq3, RF_STRONG)[0] == [1, 0] and _reform([0, 1], sq3, RF_WEAK)[0] == [0, 1]


def test_the_default_reform_is_the_old_stable_sort_by_damage():  # 8.3.3 A, ruling B2
    # the default (RF_KEEP) is exactly the previous engine: a stable sort on damage
    gen = np.random.default_rng(5)
    for _ in range(300):
        n = int(gen.integers(1, 9))
        dmg = gen.integers(0, 3, n)
        sq = _sq(gen.integers(1, 6, n), gen.integers(3, 7, n), dmg)
        line = gen.permutation(n)
        got, drawn = _reform(line, sq, RF_KEEP)
        assert got == sorted(line.tolist(), key=lambda u: dmg[u]) and drawn == 0


def _two_rounds(reform0):
    """Side 0: A (defense 5), B (defense 6), C; side 1: X, Y, Z; all attack 1. Round 1: X and Y
    hit A and B for 2 each; the lines reform (C first, then A and B tied at 2); round 2: Y, at
    position 1, hits for 6 (8.3.1 C), sinking whoever side 0 put second."""
    dice = [1, 1, 1, 6, 2, 6, 2, 1]          # round 1: side 0 misses; X and Y hit for 2; Z misses
    if reform0 == RF_RANDOM:
        dice += [9, 4]                        # the reform keys of A and B: B first
    dice += [1, 1, 1, 1, 6, 6, 1]             # round 2: side 0 misses; Y's 6 deals 6 at position 1
    sq = _sq([1] * 6, [5, 6, 5, 6, 6, 6], [0] * 6)
    rng = scripted_stream(dice)
    res = battle_nb(sq, BattleSpec(3, 3, 0, 0, 2, SPEED_NEVER),
                    BattleChoices(FLEE_ALWAYS, FLEE_ALWAYS, reform0, RF_KEEP), rng, new_work(6))
    assert script_position(rng) == len(dice)
    return res, sq.status.tolist(), sq.dmg.tolist()


@pytest.mark.parametrize("mode,sunk", [(RF_KEEP, 0), (RF_WEAK, 0), (RF_STRONG, 1), (RF_RANDOM, 1)])
def test_the_side_choice_decides_which_tied_unit_faces_the_hit(mode, sunk):  # 8.3.3 A-D, 8.3.1 C
    (winner, rounds, *_), status, dmg = _two_rounds(mode)
    assert (winner, rounds) == (-1, 2)                    # stopped at max_rounds (B9)
    assert status[sunk] == SUNK and status[1 - sunk] == IN_LINE and status[2] == IN_LINE
    assert dmg[sunk] == 8 and dmg[1 - sunk] == 2


def test_default_choices_are_always_flee_and_keep_the_order():
    assert DEFAULT_CHOICES == (FLEE_ALWAYS, FLEE_ALWAYS, RF_KEEP, RF_KEEP)


# ============================================================================ doe-battle's line-order family
def _policies(us=None, spain=None):
    return BATTLE.resolve_policies(["spain", "us"], {}, {k: v for k, v in (("us", us), ("spain", spain)) if v})


def test_the_default_policy_is_the_old_line_order():  # 4.1.2 D, 10.2, 8.3.3 A
    s = BATTLE.load_scenario("puerto-rico-passage").payload
    got, choices = battle_choices(s, _policies())
    assert got is s and choices == DEFAULT_CHOICES


def test_each_side_orders_its_stack():  # 4.1.2 D, 8.3.1 A, 6.2 A
    s = BATTLE.load_scenario("puerto-rico-passage").payload
    names = lambda perm: [s.names[i] for i in perm]   # noqa: E731
    assert names(line_permutation(s, (1, 0)))[:4] == ["Teresa", "Vizcaya", "Oquendo", "Galicia"]
    assert names(line_permutation(s, (2, 0)))[:4] == ["Galicia", "Oquendo", "Teresa", "Vizcaya"]
    assert names(line_permutation(s, (0, 2)))[4:] == ["Montgomery", "New Orleans", "Columbia", "Minneapolis",
                                                      "Texas", "Brooklyn", "Massachusetts"]
    got, _ = battle_choices(s, _policies(spain={"line_order": 2}))
    assert got.names[0] == "Galicia" and got.stars == s.stars      # Cervera now aboard Galicia (6.2 A)
    assert sorted(got.names) == sorted(s.names) and got.n0 == s.n0


def test_each_side_decides_its_disengagement_by_speed():  # 10.2.1, 10.2.2 B
    sc = BATTLE.load_scenario("puerto-rico-passage")
    seeds = game_seeds(4, 0, 0, 400)
    opts = BATTLE.resolve_options({"speed_disengage": "when-able"})
    always = BATTLE.play_batch(sc, opts, _policies(), seeds).games
    never = BATTLE.play_batch(sc, opts, _policies(us={"disengage_odds": 0}, spain={"disengage_odds": 0}), seeds).games
    assert (always["escaped_us"] + always["escaped_spain"]).sum() > 20
    assert (never["escaped_us"] + never["escaped_spain"]).sum() == 0
    # one side's choice only: Spain never leaves, the US as before
    one = BATTLE.play_batch(sc, opts, _policies(spain={"disengage_odds": 0}), seeds).games
    assert one["escaped_spain"].sum() == 0 and one["escaped_us"].sum() > 0
    _, ch = battle_choices(sc.payload, _policies(us={"disengage_odds": DISENGAGE_ALWAYS - 1}))
    assert ch[:2] == (FLEE_ALWAYS, DISENGAGE_ALWAYS - 1)   # sides in file order: spain, us


# ============================================================================ the campaign's families
def test_the_campaign_policies_pack_the_reform_order():  # 8.3.3 A, ruling B11
    from simlab.games.doe.runtime import build_par
    game = get_game("dawn-of-empire")
    data = game.load_scenario("standard").payload
    opts = game.resolve_options({})
    us = game.resolve_policies(["us", "spain"], {}, {"us": {"reform_order": 2}})
    par = build_par(data, opts, us)
    assert (par[lay.P_REFORM0], par[lay.P_REFORM1]) == (RF_WEAK, RF_KEEP)
    rl = game.resolve_policies(["us", "spain"], {"us": "random-legal", "spain": "random-legal"})
    par = build_par(data, opts, rl)
    assert (par[lay.P_REFORM0], par[lay.P_REFORM1]) == (RF_RANDOM, RF_RANDOM)
    # a scripted test side (CampaignState) keeps the previous order
    par = build_par(data, opts, {"us": "script", "spain": "script"})
    assert (par[lay.P_REFORM0], par[lay.P_REFORM1]) == (RF_KEEP, RF_KEEP)
