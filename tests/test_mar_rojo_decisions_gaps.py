"""Mar Rojo's decision-inventory gaps closed (issue 28): the Fog cards (Rule 5 step 4), the Mines
target (5 step 4), the Exchange (5.2), the Speed distance (5.3.1 step 2) and the Collateral target
(5.3.1 step 6) are greedy knobs. Each is checked in a set-up situation where its bounds give
different plays (the default the play of before), and at its bounds over 300 games on common
random numbers (measured figures). The gaps left (Rule 9 building, the 5.3.1 step 4 evasion roll,
the game options) say why in decisions.toml."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.mar_rojo import engine
from simlab.games.mar_rojo.actions import fog_nb
from simlab.games.mar_rojo.enums import (
    ACT_ATTACK,
    ACT_EXCHANGE,
    FAM_GREEDY,
    LONG,
    MEDIUM,
    SHORT,
    ST_IN_PLAY,
    W_SECONDARY,
)
from simlab.games.mar_rojo.layout import (
    G_POL0,
    G_RESTRICT,
    MAXC,
    PP_COLLATERAL_PICK,
    PP_EXCHANGE,
    PP_FOG_PICK,
    PP_MINES_TARGET,
    PP_SPEED_DISTANCE,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_UP,
)
from simlab.games.mar_rojo.policy_activation import card_best_nb
from simlab.games.mar_rojo.policy_cards import choose_mines_target_nb
from simlab.games.mar_rojo.policy_combat import choose_distance_nb, collateral_target_nb
from simlab.games.mar_rojo.policy_value import prep_eval_nb
from simlab.games.mar_rojo.rules import compile_cards, compile_tables
from simlab.games.mar_rojo.runtime import pack_policies
from simlab.rng import game_seeds, new_state_nb

GAME = get_game("mar-rojo")
#: the knobs that closed the gaps, with the default (the play of before)
GAP_KNOBS = {"fog_pick": 0, "mines_target": 0, "exchange": 0.0, "speed_distance": 0, "collateral_pick": 0}
#: the entries that stay gaps, by section
HONEST_GAPS = {"4, 10, 11", "9", "5.3.1 step 4"}


def test_only_the_honest_gaps_are_left():
    d = GAME.decisions()
    assert {x.section for x in d if not x.knobs} == HONEST_GAPS
    assert all(x.gap for x in d if not x.knobs) and not any(x.gap for x in d if x.knobs)
    named = {k: x.section for x in d for k in x.knobs}
    assert {k: named[k] for k in GAP_KNOBS} == {
        "fog_pick": "5 step 4 (Fog, provisional effect)", "mines_target": "5 step 4 (Mines, provisional effect)",
        "exchange": "5.2", "speed_distance": "5.3.1 step 2", "collateral_pick": "5.3.1 step 6 (Collateral, provisional effect)"}


def test_gap_knobs_default_to_the_old_play_in_every_preset():
    book = GAME.policy_book()
    fam = book.families["greedy"]
    assert {k: fam.knob(k).default for k in GAP_KNOBS} == GAP_KNOBS
    for name in ("aggressive", "cautious", "torpedo-first", "convoy"):
        pol = book.resolve("republican", name)
        assert {k: pol.value(k) for k in GAP_KNOBS} == GAP_KNOBS, name


@pytest.fixture(scope="module")
def tables():
    view = GAME.load_data().view()
    rt, ak = compile_tables(view)
    return rt, ak, view


def _arrays(view, nat, rep, pol):
    """A set-up: ``{name: (row, face up)}`` per side in slot order; returns the arrays and the
    slots by name."""
    cs, st, g, piles, hands, wk, fw, rng, taken, tmp = engine.new_game_arrays(4)
    pool = compile_cards(view, list(nat) + list(rep))
    slots = {}
    for k, (n, (row, up)) in enumerate(list(nat.items()) + list(rep.items())):
        s = k if k < len(nat) else MAXC + k - len(nat)
        cs[s] = pool[k]
        st[s, S_STATUS] = ST_IN_PLAY
        st[s, S_ROW] = row
        st[s, S_UP] = up
        slots[n] = s
    g[G_POL0], g[G_POL0 + 1] = pol
    g[G_RESTRICT] = -1
    return cs, st, g, fw, rng, slots


def _pp():
    _, pp = pack_policies({"nationalist": "aggressive", "republican": "aggressive"})
    return pp.copy()


# -- Fog (Rule 5 step 4): which own cards it covers --------------------------------------------------

@pytest.mark.parametrize("pick, covered", [
    (0, ("Teruel", "Canarias")),        # badly damaged first, then the dearest (before: fixed)
    (1, ("Canarias", "Almirante Cervera")),  # the two dearest, the damaged Teruel left face up
    (2, ("Teruel",)),                   # only the badly damaged card
])
def test_fog_covers_the_cards_fog_pick_names(tables, pick, covered):
    """Nationalist face up: Canarias (cost 5), Almirante Cervera (4), Teruel (2, 2 damage markers
    of hull 3: badly damaged), Melilla (1). Fog covers up to two (R_FOG_COVER)."""
    rt, ak, view = tables
    nat = {"Canarias": (LONG, 1), "Almirante Cervera": (MEDIUM, 1), "Teruel": (SHORT, 1), "Melilla": (SHORT, 1)}
    cs, st, g, fw, rng, slots = _arrays(view, nat, {"Lepanto": (SHORT, 1)}, (FAM_GREEDY, FAM_GREEDY))
    st[slots["Teruel"], S_DMG] = 2
    pp = _pp()
    pp[0, PP_FOG_PICK] = pick
    fog_nb(rt, cs, st, g, pp, np.int64(0), rng)
    assert {n for n in nat if st[slots[n], S_UP] == 0} == set(covered)


# -- Mines (Rule 5 step 4): the enemy ship the mine attacks -----------------------------------------

def test_mines_target_follows_mines_target(tables):
    """Republican short row: Lepanto (cost 2) and Alsedo (1) face up, Ciscar and Gravina covered,
    the Polikarpov (an aircraft, never a Mine's target) face up. The Nationalist's mine takes the
    Lepanto (0, the dearest uncovered ship, as before), the Alsedo (1, the cheapest) or a covered
    ship (2: Ciscar or Gravina, each about half the time, since he does not know them)."""
    rt, ak, view = tables
    rep = {"Lepanto": (SHORT, 1), "Alsedo": (SHORT, 1), "Ciscar": (SHORT, 0), "Gravina": (SHORT, 0),
           "Polikarpov I-15": (SHORT, 1)}
    cs, st, g, fw, rng, slots = _arrays(view, {"Canarias": (LONG, 1)}, rep, (FAM_GREEDY, FAM_GREEDY))
    pp = _pp()
    for how, name in ((0, "Lepanto"), (1, "Alsedo")):
        pp[0, PP_MINES_TARGET] = how
        assert choose_mines_target_nb(cs, st, g, pp, np.int64(0), rng) == slots[name]
    pp[0, PP_MINES_TARGET] = 2
    n = 2000
    got = []
    for sd in game_seeds(28, 3, 0, n):
        new_state_nb(np.uint64(sd), rng)
        got.append(int(choose_mines_target_nb(cs, st, g, pp, np.int64(0), rng)))
    got = np.asarray(got)
    assert set(got.tolist()) == {slots["Ciscar"], slots["Gravina"]}
    assert abs((got == slots["Ciscar"]).mean() - 0.5) <= 4 * (0.25 / n) ** 0.5
    # without a covered ship, 2 takes the dearest uncovered one
    st[slots["Ciscar"], S_STATUS] = st[slots["Gravina"], S_STATUS] = 0
    assert choose_mines_target_nb(cs, st, g, pp, np.int64(0), rng) == slots["Lepanto"]


# -- 5.3.1 step 2: the Speed distance --------------------------------------------------------------

@pytest.mark.parametrize("how, want", [(0, SHORT), (1, SHORT), (2, MEDIUM)])
def test_speed_distance_follows_speed_distance(tables, how, want):
    """The 5.5 example: the Ciscar (medium row, movement 3) attacks the Teruel (short row,
    movement 2): Speed, and the faster Republican chooses. By the shot (0, as before) Short, where
    the secondary armament loses nothing; 1 the shorter row (Short); 2 the longer (Medium)."""
    rt, ak, view = tables
    cs, st, g, fw, rng, slots = _arrays(view, {"Teruel": (SHORT, 1)}, {"Ciscar": (MEDIUM, 1)},
                                        (FAM_GREEDY, FAM_GREEDY))
    pp = _pp()
    pp[1, PP_SPEED_DISTANCE] = how
    cis, ter = np.int64(slots["Ciscar"]), np.int64(slots["Teruel"])
    assert choose_distance_nb(rt, cs, st, g, pp, np.int64(1), np.int64(1), cis, ter, rng) == want


def test_speed_distance_is_the_choosers_knob(tables):
    """The passive chooser's knob decides, not the attacker's: the Teruel (short) attacks the
    faster Ciscar (medium); the Republican chooses, by the shot the worse row for the Teruel."""
    rt, ak, view = tables
    cs, st, g, fw, rng, slots = _arrays(view, {"Teruel": (SHORT, 1)}, {"Ciscar": (MEDIUM, 1)},
                                        (FAM_GREEDY, FAM_GREEDY))
    pp = _pp()
    ter, cis = np.int64(slots["Teruel"]), np.int64(slots["Ciscar"])
    got = []
    for how in (0, 1, 2):
        pp[0, PP_SPEED_DISTANCE] = 2 - how   # the attacker's knob must not matter
        pp[1, PP_SPEED_DISTANCE] = how
        got.append(int(choose_distance_nb(rt, cs, st, g, pp, np.int64(1), np.int64(0), ter, cis, rng)))
    assert got == [MEDIUM, SHORT, MEDIUM]


# -- 5.3.1 step 6: the Collateral target -----------------------------------------------------------

@pytest.mark.parametrize("pick, want", [(0, "Melilla"), (1, "Huesca"), (2, "Canarias")])
def test_collateral_target_follows_collateral_pick(tables, pick, want):
    """The Lepanto's secondary armament attacks the Teruel in the Nationalist short row, where the
    Canarias (capital, hull 7), the Huesca (hull 3, cost 2) and the Melilla (hull 2, cost 1) stand
    face up: Collateral turns the attack on the Melilla (0, the cheapest, as before), the Huesca
    (1, most hull left of the escorts) or the Canarias (2, most hull left of all)."""
    rt, ak, view = tables
    nat = {"Teruel": (SHORT, 1), "Canarias": (SHORT, 1), "Huesca": (SHORT, 1), "Melilla": (SHORT, 1)}
    cs, st, g, fw, rng, slots = _arrays(view, nat, {"Lepanto": (SHORT, 1)}, (FAM_GREEDY, FAM_GREEDY))
    pp = _pp()
    pp[0, PP_COLLATERAL_PICK] = pick
    o = collateral_target_nb(rt, cs, st, g, pp, np.int64(0), np.int64(slots["Lepanto"]), np.int64(slots["Teruel"]),
                             np.int64(W_SECONDARY))
    assert o == slots[want]


# -- 5.2: the Exchange -----------------------------------------------------------------------------

def test_exchange_is_played_only_with_the_knob(tables):
    """The Republican Lepanto (movement 3) stands face up in the long row, the Libertad in the
    short row; the Nationalist Teruel (short) and Canarias (long). With exchange = 0 (as before)
    the Lepanto's best action is its attack on the Teruel; at 1 and at the upper bound 2 it is
    to swap rows with the Libertad (both cards' better shots and shed danger), worth twice as
    much at 2 as at 1 (the knob is a factor). The Libertad's own best action does not change."""
    rt, ak, view = tables
    rep = {"Lepanto": (LONG, 1), "Libertad": (SHORT, 1)}
    cs, st, g, fw, rng, slots = _arrays(view, {"Teruel": (SHORT, 1), "Canarias": (LONG, 1)}, rep,
                                        (FAM_GREEDY, FAM_GREEDY))
    pp = _pp()
    got = {}
    for v in (0.0, 1.0, GAME.policy_book().families["greedy"].knob("exchange").hi):
        pp[1, PP_EXCHANGE] = v
        prep_eval_nb(rt, cs, st, g, pp, np.int64(1), fw)
        got[v] = {n: card_best_nb(rt, cs, st, g, pp, fw, np.int64(1), np.int64(slots[n]), np.bool_(False))
                  for n in rep}
    lo, one, hi = (got[v]["Lepanto"] for v in (0.0, 1.0, 2.0))
    assert (int(lo[1]), int(lo[2])) == (ACT_ATTACK, slots["Teruel"])
    assert (int(one[1]), int(one[2])) == (int(hi[1]), int(hi[2])) == (ACT_EXCHANGE, slots["Libertad"])
    assert hi[0] == pytest.approx(2 * one[0]) and one[0] > lo[0] > 0
    assert got[0.0]["Libertad"] == got[2.0]["Libertad"] and int(got[2.0]["Libertad"][1]) != ACT_EXCHANGE


# -- each gap knob at its bounds changes games (300 games, common random numbers) -------------------

#: (knob, scenario, side playing the preset with the knob set, preset, winners changed between the lo
#: and hi bound, that side's wins at lo, at hi): measured on game_seeds(20261202, 0, 0, 300), the
#: other side aggressive. fog_pick acts only where Fog is played: a preset with cover = 1 (cautious;
#: aggressive's cover = 0 never plays it at fog_play = 1, so under simlab.testing.decision_bounds's
#: aggressive default it changes no game).
BOUNDS = [
    ("fog_pick", "cabo-de-palos", "nationalist", "cautious", 3, 173, 176),
    ("mines_target", "cabo-de-palos", "nationalist", "aggressive", 9, 56, 55),
    ("exchange", "cabo-de-palos", "republican", "aggressive", 38, 244, 234),
    ("speed_distance", "cabo-de-palos", "republican", "aggressive", 86, 244, 168),
    ("collateral_pick", "mediterranean-campaign", "republican", "aggressive", 5, 130, 131),
]


def test_bounds_table_covers_the_gap_knobs():
    assert [b[0] for b in BOUNDS] == list(GAP_KNOBS)


@pytest.mark.parametrize("knob, scenario, side, preset, changed, won_lo, won_hi", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_gap_knob_at_its_bounds_changes_winners(knob, scenario, side, preset, changed, won_lo, won_hi):
    sc = GAME.load_scenario(scenario)
    o = GAME.resolve_options({})
    k = GAME.policy_book().families["greedy"].knob(knob)
    seeds = game_seeds(20261202, 0, 0, 300)
    w = []
    for v in (k.lo, k.hi):
        pols = GAME.resolve_policies(sc.sides, {side: preset}, {side: {knob: v}})
        w.append(np.asarray(GAME.play_batch(sc, o, pols, seeds).games["winner"]))
    i = list(sc.sides).index(side)
    assert changed > 0
    assert (int(np.count_nonzero(w[0] != w[1])), int((w[0] == i).sum()), int((w[1] == i).sum())) == (
        changed, won_lo, won_hi)
