"""Mar Rojo: the rulebook's worked examples replayed with the same dice (Rules 5.3.1, 5.5, 5.3.1 step 8).

The dice the examples state are fed to the kernels through a dice script
(``simlab.games.mar_rojo.dice.script``); the fleet card values come from the data pack, whose
example-tagged values these examples are the source of.
"""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.mar_rojo import engine
from simlab.games.mar_rojo.bundles import Board
from simlab.games.mar_rojo.combat import attack_nb, fire_hits_nb
from simlab.games.mar_rojo.dice import d6_nb, lucky_hit_nb, script, torpedo_effect_rolls_nb
from simlab.games.mar_rojo.enums import (
    FAM_GREEDY,
    MEDIUM,
    SHORT,
    ST_IN_PLAY,
    ST_SUNK,
    W_MAIN,
    W_SECONDARY,
    W_TORPEDO,
)
from simlab.games.mar_rojo.fleet import weapon_dice_nb
from simlab.games.mar_rojo.layout import (
    C_ARMOUR,
    C_HULL,
    C_MAIN,
    C_MOVE,
    C_SEC,
    C_TORP,
    G_HAND0_N,
    G_NCARDS,
    G_NIGHT,
    G_POL0,
    G_RESTRICT,
    MAXC,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
)
from simlab.games.mar_rojo.rules import compile_cards, compile_tables
from simlab.games.mar_rojo.runtime import pack_policies

GAME = get_game("mar-rojo")


@pytest.fixture(scope="module")
def tables():
    view = GAME.load_data().view()
    rt, ak = compile_tables(view)
    return rt, ak, view


def _arrays(view, nat: list[str], rep: list[str]):
    cs, st, g, piles, hands, wk, fw, rng, taken, tmp = engine.new_game_arrays(4)
    names = nat + rep
    pool = compile_cards(view, names)
    slots = {}
    for i, n in enumerate(nat):
        cs[i] = pool[i]
        st[i, S_STATUS] = ST_IN_PLAY
        slots[n] = i
    for j, n in enumerate(rep):
        cs[MAXC + j] = pool[len(nat) + j]
        st[MAXC + j, S_STATUS] = ST_IN_PLAY
        slots[n] = MAXC + j
    g[G_POL0] = FAM_GREEDY
    g[G_POL0 + 1] = FAM_GREEDY
    g[G_RESTRICT] = -1
    return cs, st, g, piles, hands, rng, slots


def test_libertad_lucky_hit_arithmetic(tables):
    """5.3.1: Libertad (hull 6, main 5) with 4 hits and 5 stress: 5 - 1 (4 > 6/2) - 4 (5 stress,
    4 beyond the first) = 0 dice; she rolls a 6 then a 5: one hit."""
    rt, ak, view = tables
    cs, st, g, piles, hands, rng, slots = _arrays(view, [], ["Libertad"])
    lib = slots["Libertad"]
    assert cs[lib, C_HULL] == 6 and cs[lib, C_MAIN] == 5
    st[lib, S_DMG] = 4
    st[lib, S_STRESS] = 5
    assert weapon_dice_nb(cs, st, lib, W_MAIN) == 0
    scr = script([6, 5])
    assert fire_hits_nb(rt, cs, st, g, lib, W_MAIN, SHORT, 0, 0, rng, scr) == 1
    assert scr[0] == 2  # both dice of the lucky hit were used
    # a 6 then a 3: no hit; a 5 first: no second die
    assert fire_hits_nb(rt, cs, st, g, lib, W_MAIN, SHORT, 0, 0, rng, script([6, 3])) == 0
    scr = script([5, 6])
    assert fire_hits_nb(rt, cs, st, g, lib, W_MAIN, SHORT, 0, 0, rng, scr) == 0
    assert scr[0] == 1
    # one stress marker fewer: one die
    st[lib, S_STRESS] = 4
    assert weapon_dice_nb(cs, st, lib, W_MAIN) == 1
    # at night there is no lucky hit (10.2) and no die is rolled
    st[lib, S_STRESS] = 5
    g[G_NIGHT] = 1
    scr = script([6, 6])
    assert fire_hits_nb(rt, cs, st, g, lib, W_MAIN, SHORT, 0, 0, rng, scr) == 0
    assert scr[0] == 0


def test_lucky_hit_roll_itself(tables):
    rt, _, _ = tables
    rng = np.zeros(3, np.uint64)
    assert lucky_hit_nb(rt, rng, script([6, 4])) == 1
    assert lucky_hit_nb(rt, rng, script([6, 3])) == 0
    assert lucky_hit_nb(rt, rng, script([1, 6])) == 0


def test_torpedo_table_capital_plus_one_reaches_seven(tables):
    """5.3.1 step 8: 1 none, 2-4 one hit, 5 two hits, 6-7 Sunk; capital ships add 1, so a
    capital ship rolling 6 reads 7 (Sunk) and rolling 5 reads 6 (Sunk)."""
    rt, _, view = tables
    rows = {r: view.value("torpedo_effect", str(r), "hits") for r in range(1, 8)}
    assert rows == {1: 0, 2: 1, 3: 1, 4: 1, 5: 2, 6: -1, 7: -1}
    rng = np.zeros(3, np.uint64)
    expect_plain = {1: (0, 0), 2: (1, 0), 3: (1, 0), 4: (1, 0), 5: (2, 0), 6: (0, 1)}
    expect_capital = {1: (1, 0), 2: (1, 0), 3: (1, 0), 4: (2, 0), 5: (0, 1), 6: (0, 1)}
    for roll in range(1, 7):
        assert torpedo_effect_rolls_nb(rt, 1, False, False, rng, script([roll]))[:2] == expect_plain[roll]
        assert torpedo_effect_rolls_nb(rt, 1, True, False, rng, script([roll]))[:2] == expect_capital[roll]
    # an escort saves on 5+ before the effect roll: a saved hit rolls no effect die
    scr = script([5, 6])
    assert torpedo_effect_rolls_nb(rt, 1, False, True, rng, scr)[:2] == (0, 0)
    assert scr[0] == 1
    # rolling stops at the first Sunk
    scr = script([3, 6, 2])
    assert torpedo_effect_rolls_nb(rt, 3, False, False, rng, scr)[:2] == (1, 1)
    assert scr[0] == 2


def _place(st, slot, row, up=1, stress=0):
    st[slot, S_ROW] = row
    st[slot, S_UP] = up
    st[slot, S_STRESS] = stress


def test_example_5_5_lepanto_torpedo_sinks_velasco(tables):
    """5.5: Lepanto (short, 2 stress: torpedoes 2 - 1 = 1 die) torpedoes Velasco (short): a 5 hits;
    Velasco's destroyer save rolls 4 and fails; the effect roll 5 gives two hits; hull 2: sunk."""
    rt, ak, view = tables
    cs, st, g, piles, hands, rng, slots = _arrays(view, ["Velasco", "Teruel"], ["Lepanto", "Ciscar"])
    lep, vel = slots["Lepanto"], slots["Velasco"]
    assert cs[lep, C_TORP] == 2 and cs[vel, C_HULL] == 2
    _place(st, lep, SHORT, stress=2)
    _place(st, vel, SHORT)
    assert weapon_dice_nb(cs, st, lep, W_TORPEDO) == 1
    g[G_RESTRICT] = W_TORPEDO  # the example's player chose a torpedo attack
    akind = np.zeros(1, np.int64)
    _, pp = pack_policies({"nationalist": "aggressive", "republican": "aggressive"})
    scr = script([5, 4, 5])
    w = attack_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), lep, vel, rng, scr)
    assert w == W_TORPEDO
    assert scr[0] == 3
    assert st[vel, S_STATUS] == ST_SUNK
    assert st[vel, S_DMG] == 2
    assert st[lep, S_STRESS] == 3  # one more stress marker for firing


def _ciscar_setup(view):
    from simlab.games.mar_rojo.enums import K_OPTICS
    cs, st, g, piles, hands, rng, slots = _arrays(view, ["Velasco", "Teruel"], ["Lepanto", "Ciscar"])
    cis, ter = slots["Ciscar"], slots["Teruel"]
    _place(st, cis, MEDIUM)
    _place(st, ter, SHORT)
    # the Republican holds Optics (card id 0 of kind Optics)
    akind = np.asarray([K_OPTICS], np.int64)
    hands[1, 0] = 0
    g[G_HAND0_N + 1] = 1
    g[G_NCARDS] = 1
    return cs, st, g, piles, hands, rng, cis, ter, akind


def test_example_5_5_ciscar_optics_saved_by_teruel(tables):
    """5.5: Ciscar (medium) at Teruel (short): Speed; Ciscar is faster, so the Republican chooses
    the distance: Short. Optics is played: +1 to the dice. 4 secondary dice roll 2, 3, 3, 5: one
    hit. Teruel's L armour saves on the 6 it rolls. Ciscar gains one stress marker. The distance,
    the weapon and Optics are the policy's choices (nothing is forced)."""
    from simlab.games.mar_rojo.enums import ACTION_NAMES, K_OPTICS
    from simlab.games.mar_rojo.policy_combat import choose_distance_nb
    rt, ak, view = tables
    cs, st, g, piles, hands, rng, cis, ter, akind = _ciscar_setup(view)
    assert cs[cis, C_SEC] == 4 and cs[cis, C_MOVE] > cs[ter, C_MOVE]
    assert view.pack.tables["fleet"]["Teruel"]["armour"].value == "L"
    assert cs[ter, C_ARMOUR] == 1
    assert g[G_RESTRICT] == -1  # no weapon imposed
    _, pp = pack_policies({"nationalist": "aggressive", "republican": "aggressive"})
    # the Speed choice itself: Short (the secondary armament loses one at Medium)
    assert choose_distance_nb(rt, cs, st, g, pp, 1, 1, cis, ter, rng) == SHORT
    scr = script([2, 3, 3, 5, 6])
    w = attack_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), cis, ter, rng, scr)
    assert ACTION_NAMES[K_OPTICS] == "Optics"
    assert w == W_SECONDARY
    assert g[G_HAND0_N + 1] == 0  # Optics was played
    assert scr[0] == 5  # 4 hit dice and one save
    assert st[ter, S_DMG] == 0 and st[ter, S_STATUS] == ST_IN_PLAY
    assert st[cis, S_STRESS] == 1


def test_example_5_5_ciscar_dice_that_tell_the_distance(tables):
    """The example's dice give one hit at Short and at Medium alike (with Optics); 2, 3, 4, 5 give
    two at Short (3, 4, 5, 6 after Optics) and one at Medium: the replay sees two hits, so the
    Short the rules and the policy choose is the distance used. Teruel fails both saves (1, 1)."""
    rt, ak, view = tables
    cs, st, g, piles, hands, rng, cis, ter, akind = _ciscar_setup(view)
    assert fire_hits_nb(rt, cs, st, g, cis, W_SECONDARY, MEDIUM, 1, 0, rng, script([2, 3, 4, 5])) == 1
    assert fire_hits_nb(rt, cs, st, g, cis, W_SECONDARY, SHORT, 1, 0, rng, script([2, 3, 4, 5])) == 2
    _, pp = pack_policies({"nationalist": "aggressive", "republican": "aggressive"})
    scr = script([2, 3, 4, 5, 1, 1])
    w = attack_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), cis, ter, rng, scr)
    assert w == W_SECONDARY and scr[0] == 6
    assert min(st[ter, S_DMG], cs[ter, C_HULL]) == 2


def test_example_5_5_the_whole_activation_replayed(tables):
    """5.5: the Republican plays Destroyers as its effect: every destroyer acts once. Ferrandiz
    (two stress) reorganises to one; Alsedo, face up, covers; Lepanto torpedoes Velasco (5 hits,
    save 4 fails, effect 5: two hits, sunk); Ciscar fires its secondary at Teruel with Optics
    (2, 3, 3, 5: one hit, saved on a 6). Each activation is legal under the effect, and a fifth
    is not (every destroyer has acted)."""
    from simlab.games.mar_rojo.actions import perform_action_nb
    from simlab.games.mar_rojo.enums import ACT_ATTACK, ACT_COVER, ACT_REORG, K_OPTICS
    from simlab.games.mar_rojo.layout import S_ACTS, S_MASK
    from simlab.games.mar_rojo.legality import action_legal_nb, can_activate_nb
    rt, ak, view = tables
    cs, st, g, piles, hands, rng, slots = _arrays(view, ["Velasco", "Teruel"],
                                                  ["Lepanto", "Ciscar", "Ferrandiz", "Alsedo"])
    lep, cis, fer, als = (slots[n] for n in ("Lepanto", "Ciscar", "Ferrandiz", "Alsedo"))
    vel, ter = slots["Velasco"], slots["Teruel"]
    _place(st, lep, SHORT, stress=2)
    _place(st, cis, MEDIUM)
    _place(st, fer, MEDIUM, stress=2)
    _place(st, als, SHORT)
    _place(st, vel, SHORT)
    _place(st, ter, SHORT)
    for s in (lep, cis, fer, als):
        st[s, S_MASK] = 1  # the Destroyers effect: one action each
    akind = np.asarray([K_OPTICS], np.int64)
    hands[1, 0] = 0
    g[G_HAND0_N + 1] = 1
    g[G_NCARDS] = 1
    _, pp = pack_policies({"nationalist": "aggressive", "republican": "aggressive"})
    eff = np.bool_(True)
    none = np.int64(-1)
    steps = [(fer, ACT_REORG, none, []), (als, ACT_COVER, none, []),
             (lep, ACT_ATTACK, vel, [5, 4, 5]), (cis, ACT_ATTACK, ter, [2, 3, 3, 5, 6])]
    g[G_RESTRICT] = -1
    for s, act, p1, dice in steps:
        assert action_legal_nb(rt, cs, st, g, s, np.int64(act), p1, none, eff)
        if act == ACT_ATTACK and s == lep:
            g[G_RESTRICT] = W_TORPEDO  # the example's player chose a torpedo attack for Lepanto
        scr = script(dice) if dice else script([1])
        perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), s, np.int64(act), p1, none, eff, rng, scr)
        g[G_RESTRICT] = -1
        if dice:
            assert scr[0] == len(dice)
    assert st[fer, S_STRESS] == 1
    assert st[als, S_UP] == 0
    assert st[vel, S_STATUS] == ST_SUNK and st[lep, S_STRESS] == 3
    assert st[ter, S_DMG] == 0 and st[cis, S_STRESS] == 1 and g[G_HAND0_N + 1] == 0
    assert all(st[s, S_ACTS] == 1 for s in (lep, cis, fer, als))
    assert not any(can_activate_nb(rt, cs, st, s, eff) for s in (lep, cis, fer, als))


def test_example_5_5_without_optics_no_hit(tables):
    """The same dice without Optics (2, 3, 3, 5 need 5+): still one hit; at Medium (-1 for
    secondary armament) none — the choice of Short mattered."""
    rt, _, view = tables
    cs, st, g, piles, hands, rng, slots = _arrays(view, ["Teruel"], ["Ciscar"])
    cis = slots["Ciscar"]
    assert fire_hits_nb(rt, cs, st, g, cis, W_SECONDARY, SHORT, 0, 0, rng, script([2, 3, 3, 5])) == 1
    assert fire_hits_nb(rt, cs, st, g, cis, W_SECONDARY, MEDIUM, 0, 0, rng, script([2, 3, 3, 5])) == 0
    assert fire_hits_nb(rt, cs, st, g, cis, W_SECONDARY, SHORT, 1, 0, rng, script([2, 3, 3, 5])) == 1
    assert fire_hits_nb(rt, cs, st, g, cis, W_SECONDARY, SHORT, 1, 0, rng, script([2, 3, 4, 4])) == 2


def test_dice_script_helper_must_fail_on_bad_values():
    with pytest.raises(ValueError):
        script([0, 3])
    with pytest.raises(ValueError):
        script([7])
    rng = np.zeros(3, np.uint64)
    scr = script([4])
    assert d6_nb(rng, scr) == 4
    # after the script, the stream takes over: values stay in 1..6
    vals = {d6_nb(rng, scr) for _ in range(200)}
    assert vals == {1, 2, 3, 4, 5, 6}
