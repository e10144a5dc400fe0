"""Mar Rojo's solo AI (Rule 12), one set-up situation per step and the AI's expected action:
12.2 (manoeuvre roll and who starts, deployment decks), 12.3 (the discovery step and its
exception), 12.4 (merchants), 12.4.1 (damaged cards pull back on a die, discover, move to
within fighting distance, attack), 12.4.2 (the attacker and its weapon), 12.4.3 (the target) and
the 12.5 chart's fallback move. Die-driven branches are checked over many seeded streams with
tolerances from n. Rulings M38-M44, M52 in docs/rulings.md."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.mar_rojo import engine
from simlab.games.mar_rojo.bundles import Board
from simlab.games.mar_rojo.enums import (
    CAPITAL,
    DESTROYER,
    FAM_GREEDY,
    FAM_SOLO,
    LONG,
    MEDIUM,
    MERCHANT,
    SHORT,
    ST_IN_PLAY,
    SUBMARINE,
    W_SECONDARY,
    W_TORPEDO,
)
from simlab.games.mar_rojo.layout import (
    C_COST,
    C_MOVE,
    C_TYPE,
    G_AI_CAPFOUND0,
    G_ATTACKS0,
    G_POL0,
    G_RESTRICT,
    MAXC,
    S_ACTS,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_UP,
)
from simlab.games.mar_rojo.policy_combat import choose_weapon_nb
from simlab.games.mar_rojo.rules import compile_cards, compile_tables
from simlab.games.mar_rojo.runtime import pack_policies
from simlab.games.mar_rojo.solo import _target_nb, ai_action_nb, ai_discovery_step_nb
from simlab.rng import game_seeds, new_state_nb

GAME = get_game("mar-rojo")
AI = 0  # the Nationalist plays the AI in these set-ups
NONE = np.int64(-1)


@pytest.fixture(scope="module")
def tables():
    view = GAME.load_data().view()
    rt, ak = compile_tables(view)
    _, pp = pack_policies({"nationalist": "solo-ai", "republican": "aggressive"})
    return rt, ak, view, pp


def _setup(view, ai, player, seed=1):
    """``ai``/``player``: {card name: (row, face up, damage)}; the AI is the Nationalist."""
    cs, st, g, piles, hands, wk, fw, rng, taken, tmp = engine.new_game_arrays(4)
    pool = compile_cards(view, list(ai) + list(player))
    slots = {}
    for k, (n, spec) in enumerate(list(ai.items()) + list(player.items())):
        s = k if k < len(ai) else MAXC + k - len(ai)
        cs[s] = pool[k]
        st[s, S_STATUS] = ST_IN_PLAY
        st[s, S_ROW], st[s, S_UP], st[s, S_DMG] = spec
        slots[n] = s
    g[G_POL0 + AI] = FAM_SOLO
    g[G_POL0 + 1 - AI] = FAM_GREEDY
    g[G_RESTRICT] = -1
    new_state_nb(np.uint64(seed), rng)
    return cs, st, g, piles, hands, rng, slots


def _act(tables, cs, st, g, piles, hands, rng, merchants=False, only=NONE):
    rt, ak, view, pp = tables
    akind = np.zeros(1, np.int64)
    scr = np.zeros(2, np.int64)
    return ai_action_nb(Board(rt, cs, st, g, piles, hands, akind, ak, pp), np.int64(AI), only, np.bool_(merchants), rng, scr)


def _tol(p, n):
    return 4.0 * (p * (1 - p) / n) ** 0.5


# -- 12.2 -------------------------------------------------------------------------------------------

def test_12_2_manoeuvre_roll_and_first_sub_turn():
    """1-3 aggressive, 4-6 passive; an aggressive AI starts (12.2), a passive one lets the player."""
    sc = GAME.load_scenario("strait-of-gibraltar")
    n = 800
    b = GAME.play_batch(sc, GAME.resolve_options({}), {"nationalist": "aggressive", "republican": "solo-ai"},
                        game_seeds(21, 0, 0, n)).games
    aggressive = b["ai_republican"] == 1
    assert abs(aggressive.mean() - 0.5) < _tol(0.5, n)
    assert ((b["first_player"] == 1) == aggressive).all()
    assert (b["ai_nationalist"] == 0).all()


def test_12_2_deployment_decks(tables):
    """Deck 1: half the escorts, submarines and aircraft rounded up; deck 2: the rest of them, one
    capital ship and one merchant; deck 3: the other capital ships and merchants; dealt in that
    order into the short, medium and long rows (ruling M39). Strait of Gibraltar's Nationalist
    (9 cards: 5 escorts, aircraft and submarines; 2 capital ships; 2 merchants) in rows of 3:
    the short row is 3 of the five, the long row holds a capital ship and a merchant (deck 3)."""
    from simlab.games.mar_rojo.build import solo_deploy_nb
    rt, ak, view, pp = tables
    names = ["Canarias", "Almirante Cervera", "Canovas", "Dato", "T-19", "SM-79", "Sanjurjo", "Ebro", "Palma"]
    for seed in range(1, 60):
        cs, st, g, piles, hands, rng, slots = _setup(view, {n: (0, 1, 0) for n in names}, {}, seed=seed)
        solo_deploy_nb(rt, cs, st, np.int64(AI), np.int64(1), rng, np.zeros(MAXC, np.int64))
        rows = {r: [cs[slots[n], C_TYPE] for n in names if st[slots[n], S_ROW] == r] for r in (SHORT, MEDIUM, LONG)}
        assert [len(rows[r]) for r in (SHORT, MEDIUM, LONG)] == [3, 3, 3]
        assert not any(t in (CAPITAL, MERCHANT) for t in rows[SHORT])
        assert CAPITAL in rows[LONG] and MERCHANT in rows[LONG]
        assert all(st[slots[n], S_UP] == 0 for n in names)


# -- 12.3 -------------------------------------------------------------------------------------------

def _discovery(tables, ai, player, capfound=0, seed=1):
    rt, ak, view, pp = tables
    cs, st, g, piles, hands, rng, slots = _setup(view, ai, player, seed)
    g[G_AI_CAPFOUND0 + AI] = capfound
    ai_discovery_step_nb(rt, cs, st, g, np.int64(AI), rng)
    return st, slots


AI4 = {"Canarias": (LONG, 1, 0), "Teruel": (SHORT, 1, 0), "Huesca": (SHORT, 0, 0), "Ebro": (MEDIUM, 0, 0)}


def test_12_3_half_face_up_no_discovery(tables):
    st, slots = _discovery(tables, AI4, {"Libertad": (LONG, 0, 0)})
    assert st[slots["Huesca"], S_UP] == 0 and st[slots["Ebro"], S_UP] == 0
    assert st[slots["Libertad"], S_UP] == 0


def test_12_3_the_exception_comes_before_the_count(tables):
    """The player turned up the AI's capital ship last sub-turn: the AI discovers a card of the
    player's long row, even with half of its cards face up (ruling M41)."""
    st, slots = _discovery(tables, AI4, {"Libertad": (LONG, 0, 0), "Lepanto": (SHORT, 0, 0)}, capfound=1)
    assert st[slots["Libertad"], S_UP] == 1 and st[slots["Lepanto"], S_UP] == 0
    assert st[slots["Huesca"], S_UP] == 0 and st[slots["Ebro"], S_UP] == 0


def test_12_3_discovery_die_by_row(tables):
    """Fewer than half face up: one own card is turned up, short on 1-3, medium 4-5, long 6."""
    ai = {"Teruel": (SHORT, 0, 0), "Huesca": (MEDIUM, 0, 0), "Canarias": (LONG, 0, 0), "Velasco": (SHORT, 1, 0)}
    n = 600
    hits = {SHORT: 0, MEDIUM: 0, LONG: 0}
    for seed in range(n):
        st, slots = _discovery(tables, ai, {"Libertad": (LONG, 0, 0)}, seed=seed + 1)
        up = [r for name, r in (("Teruel", SHORT), ("Huesca", MEDIUM), ("Canarias", LONG)) if st[slots[name], S_UP]]
        assert len(up) == 1
        hits[up[0]] += 1
    for r, p in ((SHORT, 0.5), (MEDIUM, 1 / 3), (LONG, 1 / 6)):
        assert abs(hits[r] / n - p) < _tol(p, n), hits
    # a row with no covered card passes the discovery on (medium -> long -> short): only the
    # short row has covered cards, so whatever the die one of them is turned up
    for seed in range(1, 40):
        st, slots = _discovery(tables, {"Teruel": (SHORT, 0, 0), "Velasco": (SHORT, 0, 0), "Huesca": (SHORT, 0, 0),
                                        "Canarias": (MEDIUM, 1, 0), "Ebro": (LONG, 1, 0)}, {"Libertad": (LONG, 0, 0)},
                               seed=seed)
        assert sum(st[slots[n], S_UP] for n in ("Teruel", "Velasco", "Huesca")) == 1


# -- 12.4 merchants ---------------------------------------------------------------------------------

def test_12_4_merchant_swaps_to_the_long_row_then_covers(tables):
    rt, ak, view, pp = tables
    cs, st, g, piles, hands, rng, slots = _setup(view, {"Ebro": (MEDIUM, 1, 0), "Canarias": (LONG, 0, 0)},
                                                 {"Libertad": (LONG, 0, 0)})
    assert _act(tables, cs, st, g, piles, hands, rng, merchants=True)
    assert st[slots["Ebro"], S_ROW] == LONG and st[slots["Canarias"], S_ROW] == MEDIUM
    st[slots["Ebro"], S_ACTS] = 0
    assert _act(tables, cs, st, g, piles, hands, rng, merchants=True)
    assert st[slots["Ebro"], S_UP] == 0


# -- 12.4.1 ----------------------------------------------------------------------------------------

def test_12_4_1_no_player_card_face_up_discovers(tables):
    """No player card face up: the AI's most valuable escort or aircraft at short or medium
    distance discovers (Teruel, cost 2, over Velasco, cost 1)."""
    rt, ak, view, pp = tables
    cs, st, g, piles, hands, rng, slots = _setup(
        view, {"Teruel": (MEDIUM, 0, 0), "Velasco": (SHORT, 0, 0), "Canarias": (LONG, 1, 0)},
        {"Libertad": (SHORT, 0, 0), "Lepanto": (SHORT, 0, 0), "Ciscar": (MEDIUM, 0, 0)})
    assert cs[slots["Teruel"], C_COST] > cs[slots["Velasco"], C_COST]
    assert _act(tables, cs, st, g, piles, hands, rng)
    assert st[slots["Teruel"], S_ACTS] == 1 and st[slots["Velasco"], S_ACTS] == 0
    assert sum(st[slots[n], S_UP] for n in ("Libertad", "Lepanto", "Ciscar")) >= 1


def test_12_4_1_moves_to_within_fighting_distance(tables):
    """A face-up player destroyer in the short row, out of reach of every face-up AI card: the
    submarine in the long row (which cannot fight from there) moves to the medium row, from
    which its torpedoes reach. Before issue 15 the fastest card moved one row closer whatever it
    could do from there (here the cruiser, which its Medium-distance guns already had in range
    and, being covered, could not use)."""
    rt, ak, view, pp = tables
    ai = {"Huesca": (SHORT, 0, 0), "Teruel": (MEDIUM, 0, 0), "Canarias": (LONG, 0, 0), "Sanjurjo": (LONG, 1, 0)}
    cs, st, g, piles, hands, rng, slots = _setup(view, ai, {"Lepanto": (SHORT, 1, 0)})
    assert _act(tables, cs, st, g, piles, hands, rng)
    assert st[slots["Sanjurjo"], S_ROW] == MEDIUM
    assert st[slots["Canarias"], S_ROW] == LONG and st[slots["Teruel"], S_ROW] == MEDIUM


def test_12_5_no_card_can_reach_moves_the_fastest_closer(tables):
    """No AI card can get within range in one move (the player's only face-up card is an aircraft
    in his long row, where it cannot be attacked): the chart's "the fastest non-merchant ship
    moves to a shorter distance", here the only legal one, the cruiser (rows 1-1-2)."""
    rt, ak, view, pp = tables
    ai = {"Teruel": (SHORT, 0, 0), "Huesca": (MEDIUM, 0, 0), "Canarias": (LONG, 1, 0), "Ebro": (LONG, 0, 0)}
    cs, st, g, piles, hands, rng, slots = _setup(view, ai, {"Tupolev SB-2": (LONG, 1, 0)})
    assert _act(tables, cs, st, g, piles, hands, rng)
    assert st[slots["Canarias"], S_ROW] == MEDIUM
    assert st[slots["Ebro"], S_ROW] == LONG and st[slots["Huesca"], S_ROW] == MEDIUM


def test_12_4_1_damaged_card_pulls_back_on_1_to_3(tables):
    """With a player card in range, the most valuable damaged AI card that can go farther rolls:
    1-3 it swaps with a farther card (one of the two has movement 3) or moves back; 4-6 the AI
    fights."""
    rt, ak, view, pp = tables
    n = 400
    back = 0
    for seed in range(n):
        cs, st, g, piles, hands, rng, slots = _setup(
            view, {"Teruel": (SHORT, 1, 1), "Velasco": (SHORT, 1, 0), "Huesca": (MEDIUM, 1, 0), "Canarias": (LONG, 0, 0)},
            {"Lepanto": (SHORT, 1, 0)}, seed=seed + 1)
        assert _act(tables, cs, st, g, piles, hands, rng)
        if st[slots["Teruel"], S_ROW] != SHORT:
            back += 1
            assert int(g[G_ATTACKS0 + AI]) == 0
        else:
            assert int(g[G_ATTACKS0 + AI]) == 1
    assert abs(back / n - 0.5) < _tol(0.5, n)


# -- 12.4.2 ----------------------------------------------------------------------------------------

def test_12_4_2_the_most_valuable_card_attacks_but_three_hits_go_last(tables):
    rt, ak, view, pp = tables
    ai = {"Canarias": (LONG, 1, 0), "Teruel": (MEDIUM, 1, 0), "Ebro": (LONG, 0, 0)}
    player = {"Libertad": (LONG, 1, 0)}
    cs, st, g, piles, hands, rng, slots = _setup(view, ai, player)
    assert _act(tables, cs, st, g, piles, hands, rng)
    assert st[slots["Canarias"], S_ACTS] == 1 and st[slots["Teruel"], S_ACTS] == 0
    # three hits on Canarias (in the long row: it cannot pull back): Teruel attacks first
    cs, st, g, piles, hands, rng, slots = _setup(view, {"Canarias": (LONG, 1, 3), "Teruel": (MEDIUM, 1, 0),
                                                        "Ebro": (LONG, 0, 0)}, player)
    assert _act(tables, cs, st, g, piles, hands, rng)
    assert st[slots["Teruel"], S_ACTS] == 1 and st[slots["Canarias"], S_ACTS] == 0


def test_12_4_2_weapon_most_dice_torpedoes_for_escorts_at_capital_ships(tables):
    rt, ak, view, pp = tables
    cs, st, g, piles, hands, rng, slots = _setup(view, {"Teruel": (SHORT, 1, 0)},
                                                 {"Libertad": (SHORT, 1, 0), "Lepanto": (SHORT, 1, 0)})
    ter = slots["Teruel"]
    assert cs[slots["Libertad"], C_TYPE] == CAPITAL and cs[slots["Lepanto"], C_TYPE] == DESTROYER
    w = choose_weapon_nb(rt, cs, st, g, pp, np.int64(AI), np.int64(ter), np.int64(slots["Libertad"]),
                         np.int64(SHORT), NONE, rng)
    assert w == W_TORPEDO
    w = choose_weapon_nb(rt, cs, st, g, pp, np.int64(AI), np.int64(ter), np.int64(slots["Lepanto"]),
                         np.int64(SHORT), NONE, rng)
    assert w == W_SECONDARY  # 3 secondary dice against 2 torpedo dice


def test_12_4_2_a_submarine_covers_after_its_attack(tables):
    rt, ak, view, pp = tables
    for seed in range(1, 30):
        cs, st, g, piles, hands, rng, slots = _setup(view, {"Sanjurjo": (MEDIUM, 1, 0)},
                                                     {"Libertad": (MEDIUM, 1, 0)}, seed=seed)
        assert cs[slots["Sanjurjo"], C_TYPE] == SUBMARINE
        assert _act(tables, cs, st, g, piles, hands, rng)
        assert int(g[G_ATTACKS0 + AI]) == 1
        if st[slots["Sanjurjo"], S_STATUS] == ST_IN_PLAY:
            assert st[slots["Sanjurjo"], S_UP] == 0


# -- 12.4.3 ----------------------------------------------------------------------------------------

def test_12_4_3_damaged_first_then_shortest_distance_then_value(tables):
    rt, ak, view, pp = tables
    ai = {"Canarias": (MEDIUM, 1, 0)}
    player = {"Lepanto": (SHORT, 1, 0), "Ciscar": (MEDIUM, 1, 0), "Gravina": (MEDIUM, 1, 1)}
    cs, st, g, piles, hands, rng, slots = _setup(view, ai, player)
    a = np.int64(slots["Canarias"])
    assert _target_nb(rt, cs, st, g, a, rng) == slots["Gravina"]  # the damaged card
    st[slots["Gravina"], S_DMG] = 0
    # Medium-Medium is Medium; Medium-Short is Speed, read as the shorter row (Short): Lepanto
    assert _target_nb(rt, cs, st, g, a, rng) == slots["Lepanto"]
    st[slots["Lepanto"], S_ROW] = MEDIUM
    costs = {n: cs[slots[n], C_COST] for n in player}
    best = max(costs, key=lambda n: (costs[n], -slots[n]))
    assert _target_nb(rt, cs, st, g, a, rng) == slots[best]


def test_12_4_3_die_between_capital_or_merchant_and_another_card(tables):
    """Among the candidates, capital or merchant ships and other cards: 1-3 one of the former."""
    rt, ak, view, pp = tables
    n = 600
    cm = 0
    for seed in range(n):
        cs, st, g, piles, hands, rng, slots = _setup(
            view, {"Canarias": (MEDIUM, 1, 0)}, {"Libertad": (MEDIUM, 1, 0), "Lepanto": (MEDIUM, 1, 0)}, seed=seed + 1)
        t = _target_nb(rt, cs, st, g, np.int64(slots["Canarias"]), rng)
        cm += cs[t, C_TYPE] in (CAPITAL, MERCHANT)
    assert abs(cm / n - 0.5) < _tol(0.5, n)


def test_12_4_1_moves_where_it_can_fight_whatever_distance_the_faster_player_chooses(tables):
    """A face-up player destroyer, the Lepanto (movement 3), in the player's long row; the AI's
    face-up Teruel (movement 2, no main armament) in its long row, its covered Huesca and Canarias
    already able to fight the Lepanto from where they stand. From the medium row the table gives
    Speed against the long row and the faster Lepanto chooses the distance (5.3.1 step 2): he
    takes Long, where only main armament fires, and the Teruel cannot fight. From the short row
    the distance is Medium, where its guns and torpedoes reach. So "within fighting distance"
    (12.4.1) is the short row. Before issue 28 the AI counted the medium row as in range (the
    distance it could have chosen) and moved the Teruel there."""
    rt, ak, view, pp = tables
    ai = {"Huesca": (SHORT, 0, 0), "Canarias": (MEDIUM, 0, 0), "Teruel": (LONG, 1, 0), "Ebro": (LONG, 0, 0)}
    cs, st, g, piles, hands, rng, slots = _setup(view, ai, {"Lepanto": (LONG, 1, 0)})
    assert cs[slots["Lepanto"], C_MOVE] > cs[slots["Teruel"], C_MOVE]
    assert _act(tables, cs, st, g, piles, hands, rng)
    assert st[slots["Teruel"], S_ROW] == SHORT
    assert st[slots["Canarias"], S_ROW] == MEDIUM and st[slots["Huesca"], S_ROW] == SHORT
