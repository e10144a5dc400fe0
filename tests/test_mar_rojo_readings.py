"""Mar Rojo: the readings of the rule text that issue 15 corrected, each in a set-up situation
(8.1's victory condition and its option, 5.2's uncovering bonus, 5.2 "See Section 4" for moves,
5.3.2 / M8 for ships only, Rule 6's Retreat reshuffle, the Speed choice of an attacker without
knobs). Rulings M1, M4, M8, M27, M51-M53 in docs/rulings.md."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.mar_rojo import engine
from simlab.games.mar_rojo.actions import perform_action_nb
from simlab.games.mar_rojo.bundles import Board
from simlab.games.mar_rojo.deck import deal_nb, new_deck_nb, retreat_nb
from simlab.games.mar_rojo.enums import (
    ACT_ATTACK,
    ACT_REORG,
    ACT_UNCOVER,
    FAM_GREEDY,
    FAM_RANDOM,
    FAM_SOLO,
    LONG,
    MEDIUM,
    SHORT,
    ST_IN_PLAY,
    ST_SUNK,
    V_CABO_DE_PALOS,
)
from simlab.games.mar_rojo.layout import (
    C_MOVE,
    G_DECK_N,
    G_DISC_N,
    G_HAND0_N,
    G_POL0,
    G_RESTRICT,
    G_RULES,
    G_TABLE_N,
    G_VICTORY,
    MAXC,
    RU_CABO_EITHER,
    RU_FREE_ROWS,
    RU_RETREAT_KEEP_HANDS,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
)
from simlab.games.mar_rojo.legality import action_legal_nb, can_activate_nb, exchange_legal_nb, move_legal_nb
from simlab.games.mar_rojo.policy_combat import choose_distance_nb
from simlab.games.mar_rojo.rules import compile_cards, compile_tables
from simlab.games.mar_rojo.runtime import action_deck, pack_policies, rules_bits
from simlab.games.mar_rojo.victory import winner_nb
from simlab.rng import game_seeds, new_state_nb

GAME = get_game("mar-rojo")


@pytest.fixture(scope="module")
def tables():
    view = GAME.load_data().view()
    rt, ak = compile_tables(view)
    return rt, ak, view


def _arrays(view, nat, rep, pol=(FAM_GREEDY, FAM_GREEDY)):
    cs, st, g, piles, hands, wk, fw, rng, taken, tmp = engine.new_game_arrays(4)
    pool = compile_cards(view, list(nat) + list(rep))
    slots = {}
    for i, (n, (row, up)) in enumerate(nat.items()):
        cs[i] = pool[i]
        st[i, S_STATUS] = ST_IN_PLAY
        st[i, S_ROW] = row
        st[i, S_UP] = up
        slots[n] = i
    for j, (n, (row, up)) in enumerate(rep.items()):
        cs[MAXC + j] = pool[len(nat) + j]
        st[MAXC + j, S_STATUS] = ST_IN_PLAY
        st[MAXC + j, S_ROW] = row
        st[MAXC + j, S_UP] = up
        slots[n] = MAXC + j
    g[G_POL0] = pol[0]
    g[G_POL0 + 1] = pol[1]
    g[G_RESTRICT] = -1
    return cs, st, g, piles, hands, fw, rng, slots


NONE = np.int64(-1)

# -- 8.1 -------------------------------------------------------------------------------------------

CABO_NAT = {"Canarias": (LONG, 0), "Teruel": (SHORT, 0), "Ebro": (LONG, 0)}


@pytest.mark.parametrize("sunk, default, either", [
    ((), 0, 0),
    (("Canarias",), 1, 0),             # a capital ship alone: only the first reading
    (("Ebro",), 0, 0),
    (("Teruel",), 0, 0),
    (("Ebro", "Teruel"), 1, 1),
    (("Canarias", "Teruel"), 1, 1),
])
def test_8_1_the_two_readings(tables, sunk, default, either):
    """8.1 "sinks a capital ship or a merchant and an escort": ruling M51 reads it as
    cap or (mer and esc); the option cabo_victory = either-and-escort as (cap or mer) and esc."""
    rt, ak, view = tables
    cs, st, g, piles, hands, fw, rng, slots = _arrays(view, CABO_NAT, {"Libertad": (LONG, 0)})
    g[G_VICTORY] = V_CABO_DE_PALOS
    for n in sunk:
        st[slots[n], S_STATUS] = ST_SUNK
    assert winner_nb(cs, st, g) == default
    g[G_RULES] = RU_CABO_EITHER
    assert winner_nb(cs, st, g) == either


def test_8_1_option_reaches_the_kernel():
    assert rules_bits({"cabo_victory": "either-and-escort"}) == RU_CABO_EITHER
    assert rules_bits({}) == 0 and rules_bits(GAME.resolve_options({})) == 0
    sc = GAME.load_scenario("cabo-de-palos")
    seeds = game_seeds(5, 0, 0, 300)
    pols = {"nationalist": "aggressive", "republican": "aggressive"}
    a = GAME.play_batch(sc, GAME.resolve_options({}), pols, seeds).games
    b = GAME.play_batch(sc, GAME.resolve_options({"cabo_victory": "either-and-escort"}), pols, seeds).games
    # each batch's winner column follows its own reading of the cards it sank
    for games, either in ((a, False), (b, True)):
        cap = games["sunk_nationalist_capital"] > 0
        mer = games["sunk_nationalist_merchant"] > 0
        esc = games["sunk_nationalist_destroyer"] + games["sunk_nationalist_auxiliary"] > 0
        rep = ((cap | mer) & esc) if either else (cap | (mer & esc))
        assert ((games["winner"] == 1) == rep).all()
    # and the games where only the readings differ exist (a capital ship sunk, no escort)
    assert ((a["sunk_nationalist_capital"] > 0)
            & (a["sunk_nationalist_destroyer"] + a["sunk_nationalist_auxiliary"] == 0)).any()


# -- 5.2: the uncovering bonus is for ships and submarines -----------------------------------------

def test_5_2_uncovering_gives_no_extra_action_to_aircraft(tables):
    rt, ak, view = tables
    cs, st, g, piles, hands, fw, rng, slots = _arrays(view, {"SM-79": (MEDIUM, 0), "Teruel": (SHORT, 0)}, {})
    akind = np.zeros(1, np.int64)
    _, pp = pack_policies({"nationalist": "aggressive", "republican": "aggressive"})
    scr = np.zeros(2, np.int64)
    for name, total in (("SM-79", 2), ("Teruel", 2)):
        s = slots[name]
        perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), s, np.int64(ACT_UNCOVER), NONE, NONE,
                          np.bool_(False), rng, scr)
        n = 1
        while can_activate_nb(rt, cs, st, s, np.bool_(False)):
            perform_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), s, np.int64(ACT_REORG), NONE, NONE,
                              np.bool_(False), rng, scr)
            n += 1
        # the aircraft's two actions (5.1) include the uncovering; a ship's one action is followed by one more
        assert n == total, name


# -- M8: only ships are limited to reorganising ----------------------------------------------------

def test_m8_stress_above_hull_blocks_ships_not_aircraft(tables):
    rt, ak, view = tables
    cs, st, g, piles, hands, fw, rng, slots = _arrays(view, {"SM-79": (MEDIUM, 1), "Teruel": (SHORT, 1)},
                                                      {"Lepanto": (SHORT, 1)})
    for n in ("SM-79", "Teruel"):
        st[slots[n], S_STRESS] = 5  # above both hulls
    lep = slots["Lepanto"]
    f = np.bool_(False)
    assert action_legal_nb(rt, cs, st, g, slots["SM-79"], np.int64(ACT_ATTACK), np.int64(lep), NONE, f)
    assert not action_legal_nb(rt, cs, st, g, slots["Teruel"], np.int64(ACT_ATTACK), np.int64(lep), NONE, f)
    assert action_legal_nb(rt, cs, st, g, slots["Teruel"], np.int64(ACT_REORG), NONE, NONE, f)


# -- 5.2 "See Section 4": the short-row card types limit moves -------------------------------------

def test_5_2_moves_keep_the_short_row_rule(tables):
    rt, ak, view = tables
    nat = {"SM-79": (SHORT, 0), "Canarias": (MEDIUM, 0), "Ebro": (MEDIUM, 0), "Teruel": (LONG, 0), "Huesca": (LONG, 0)}
    cs, st, g, piles, hands, fw, rng, slots = _arrays(view, nat, {})
    assert cs[slots["Canarias"], C_MOVE] >= 1 and cs[slots["Ebro"], C_MOVE] >= 1
    can, ebro, ter, sm = slots["Canarias"], slots["Ebro"], slots["Teruel"], slots["SM-79"]
    # rows 1-2-2: a capital ship may not enter the short row while an escort (Teruel) is outside it
    assert not move_legal_nb(cs, st, g, can, np.int64(SHORT))
    # nor by an exchange with the aircraft (movement 3)
    assert not exchange_legal_nb(cs, st, g, sm, can)
    # merchants are exempt (8.2, 8.3 score them at the short distance)
    assert move_legal_nb(cs, st, g, ebro, np.int64(SHORT))
    # the escort itself may go forward (two rows: movement 2)
    assert move_legal_nb(cs, st, g, ter, np.int64(SHORT))
    # with the row counts only (option row_limits = counts), the capital ship may
    g[G_RULES] = RU_FREE_ROWS
    assert move_legal_nb(cs, st, g, can, np.int64(SHORT))
    assert exchange_legal_nb(cs, st, g, sm, can)
    assert rules_bits({"row_limits": "counts"}) == RU_FREE_ROWS


def test_5_2_once_every_escort_is_short_a_capital_ship_may_join(tables):
    rt, ak, view = tables
    nat = {"Huesca": (SHORT, 0), "Canarias": (MEDIUM, 0), "Ebro": (MEDIUM, 0), "Velasco": (LONG, 0)}
    cs, st, g, piles, hands, fw, rng, slots = _arrays(view, nat, {})
    assert not move_legal_nb(cs, st, g, slots["Canarias"], np.int64(SHORT))  # Velasco is outside
    st[slots["Velasco"], S_STATUS] = ST_SUNK
    assert move_legal_nb(cs, st, g, slots["Canarias"], np.int64(SHORT))


# -- Rule 6: Retreat reshuffles all action cards, hands included -----------------------------------

def test_6_retreat_shuffles_the_hands_in(tables):
    rt, ak, view = tables
    akind, included = action_deck(ak, False, False)
    for keep in (False, True):
        cs, st, g, piles, hands, fw, rng, slots = _arrays(view, {}, {})
        new_state_nb(np.uint64(99), rng)
        g[G_RULES] = RU_RETREAT_KEEP_HANDS if keep else 0
        new_deck_nb(piles, hands, g, akind, included, rng)
        deal = np.ones(2, np.int64)
        deal_nb(piles, hands, g, akind, np.int64(5), deal, rng)
        n_in = int(g[G_DECK_N] + g[G_DISC_N] + g[G_TABLE_N] + g[G_HAND0_N] + g[G_HAND0_N + 1])
        retreat_nb(piles, hands, g, rng)
        hands_after = int(g[G_HAND0_N] + g[G_HAND0_N + 1])
        assert hands_after == (10 if keep else 0)
        assert int(g[G_DECK_N]) == n_in - hands_after
    assert rules_bits({"retreat_hands": "kept"}) == RU_RETREAT_KEEP_HANDS


# -- 5.3.1 step 2: the Speed choice of an attacker without knobs -----------------------------------

@pytest.mark.parametrize("fam", [FAM_SOLO, FAM_RANDOM])
def test_speed_choice_values_the_torpedoes_such_an_attacker_fires(tables, fam):
    """A Nationalist submarine (torpedoes only) in the short row attacks a faster Republican
    destroyer in the medium row: Speed, and the Republican chooses. Torpedoes lose one at Medium,
    so he must choose Medium. With the old row of zero knobs the shot was worth 0 at both
    distances and the tie gave the attacker's row (Short)."""
    rt, ak, view = tables
    cs, st, g, piles, hands, fw, rng, slots = _arrays(view, {"Sanjurjo": (SHORT, 1)}, {"Lepanto": (MEDIUM, 1)},
                                                      pol=(fam, FAM_GREEDY))
    sub, lep = slots["Sanjurjo"], slots["Lepanto"]
    assert cs[lep, C_MOVE] > cs[sub, C_MOVE]
    _, pp = pack_policies({"nationalist": "solo-ai" if fam == FAM_SOLO else "random-legal", "republican": "aggressive"})
    d = choose_distance_nb(rt, cs, st, g, pp, np.int64(1), np.int64(0), np.int64(sub), np.int64(lep), rng)
    assert d == MEDIUM
    # and the solo AI, choosing for its own torpedo attack on a slower capital ship, takes Short
    cs, st, g, piles, hands, fw, rng, slots = _arrays(view, {"Teruel": (MEDIUM, 1)}, {"Libertad": (SHORT, 1)},
                                                      pol=(FAM_SOLO, FAM_GREEDY))
    ter, lib = slots["Teruel"], slots["Libertad"]
    assert cs[ter, C_MOVE] >= cs[lib, C_MOVE]  # equal speeds: the active player chooses
    d = choose_distance_nb(rt, cs, st, g, pp, np.int64(0), np.int64(0), np.int64(ter), np.int64(lib), rng)
    assert d == SHORT



# -- 5.3.2: a ship with more stress than hull does not fire back under Surprise ---------------------

@pytest.mark.parametrize("stress, fires", [(3, True), (4, False)])
def test_5_3_2_overstressed_ship_cannot_fire_back_under_surprise(tables, stress, fires):
    """The Nationalist Teruel (short row) fires its secondary armament at the Republican Lepanto
    (short row, hull 3). Surprise lets the target fire first; but a ship with more stress markers
    than its hull may "ONLY ... reorganise" (5.3.2, ruling M8): with 4 markers it cannot fire back,
    so Surprise is not playable and a greedy Republican holding only Surprise plays nothing. At 3
    markers (equal to the hull) it still may. Before issue 28 it fired back at any stress."""
    from simlab.games.mar_rojo.enums import K_SURPRISE, W_SECONDARY
    from simlab.games.mar_rojo.layout import PP_INTERRUPT_MIN
    from simlab.games.mar_rojo.legality import can_return_fire_nb
    from simlab.games.mar_rojo.policy_combat import choose_interruption_nb

    rt, ak, view = tables
    cs, st, g, piles, hands, fw, rng, slots = _arrays(view, {"Teruel": (SHORT, 1)}, {"Lepanto": (SHORT, 1)})
    ter, lep = slots["Teruel"], slots["Lepanto"]
    st[lep, S_STRESS] = stress
    assert bool(can_return_fire_nb(rt, cs, st, g, np.int64(lep), np.int64(ter), np.int64(SHORT))) is fires
    _, pp = pack_policies({"nationalist": "aggressive", "republican": "aggressive"})
    pp = pp.copy()
    pp[1, PP_INTERRUPT_MIN] = 0.0  # any threat is worth an interruption
    akind = np.array([K_SURPRISE], np.int64)
    hands[1, 0] = 0
    g[G_HAND0_N + 1] = 1
    i = choose_interruption_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), np.int64(1), np.int64(ter), np.int64(lep),
                               np.int64(W_SECONDARY), np.int64(SHORT), rng)
    assert i == (0 if fires else -1)
