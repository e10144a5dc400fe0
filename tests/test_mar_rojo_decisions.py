"""Mar Rojo's decision inventory (issue 28): every choice the rules give a player is in
``decisions.toml`` with the greedy knobs that make it; the choices that were fixed before issue 28
are knobs whose bounds change games (300 games on common random numbers, measured figures), whose
defaults play as before (the golden cells and tests/test_mar_rojo_state.py), and which random-legal
samples. The discovery order (5.4), the reorganisation (5.5), the Collateral target (5.3.1 step 6)
are also checked in set-up situations."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.decisions import check_decisions
from simlab.games.mar_rojo import engine
from simlab.games.mar_rojo.enums import FAM_GREEDY, FAM_RANDOM, LONG, MEDIUM, SHORT, ST_IN_PLAY, W_SECONDARY
from simlab.games.mar_rojo.layout import (
    DISCOVER_ORDERS,
    G_POL0,
    G_RESTRICT,
    MAXC,
    PP_REORG_PICK,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
)
from simlab.games.mar_rojo.legality import order_row_nb
from simlab.games.mar_rojo.policy_activation import discovery_rows_nb
from simlab.games.mar_rojo.policy_cards import choose_reorg_slot_nb
from simlab.games.mar_rojo.policy_combat import random_collateral_target_nb
from simlab.games.mar_rojo.rules import compile_cards, compile_tables
from simlab.games.mar_rojo.runtime import pack_policies
from simlab.rng import game_seeds, new_state_nb

GAME = get_game("mar-rojo")
#: the greedy knobs issue 28 added (the choices that were fixed before)
NEW_KNOBS = ("discover_order", "main_discovery", "reorg_pick", "escort_attack_sub", "dive", "reveal_row",
             "mines_play", "fog_play", "faccioso_play", "collateral_first", "transfer_covered", "deploy_air_short",
             "deploy_escorts_back")


def test_inventory_is_sound_and_names_every_greedy_knob():
    d = GAME.decisions()
    assert check_decisions(GAME, d) == []
    assert len(d) == 35 and sum(1 for x in d if x.knobs) == 32
    fam = GAME.policy_book().families["greedy"]
    named = {k for x in d for k in x.knobs}
    assert named == {k.name for k in fam.knobs}
    assert set(NEW_KNOBS) <= named
    for x in d:
        assert x.section and (x.gap if not x.knobs else x.doc)


def test_new_knobs_default_to_the_old_behaviour_in_every_preset():
    """The presets do not set the new knobs: they play the old fixed choices (their defaults)."""
    book = GAME.policy_book()
    fam = book.families["greedy"]
    defaults = {"discover_order": 0, "main_discovery": 0, "reorg_pick": 0, "escort_attack_sub": 1, "dive": 1,
                "reveal_row": 0, "mines_play": 1, "fog_play": 1, "faccioso_play": 1, "collateral_first": 1,
                "transfer_covered": 0, "deploy_air_short": 1, "deploy_escorts_back": 0}
    assert {k: fam.knob(k).default for k in NEW_KNOBS} == defaults
    for name in ("aggressive", "cautious", "torpedo-first", "convoy"):
        pol = book.resolve("nationalist", name)
        for k in NEW_KNOBS:
            assert pol.value(k) == defaults[k], (name, k)


# -- 5.4: the discovery order ----------------------------------------------------------------------

def test_order_row_spells_out_the_six_orders():
    got = tuple(tuple(int(order_row_nb(np.int64(o), np.int64(i))) for i in range(3)) for o in range(6))
    assert got == DISCOVER_ORDERS
    assert sorted(got) == sorted({(a, b, c) for a in range(3) for b in range(3) for c in range(3)
                                  if len({a, b, c}) == 3})


@pytest.mark.parametrize("covered, order, want", [
    # the old fixed order (0: short, medium, long)
    ((2, 1, 1), 0, (SHORT, SHORT, 2)),
    ((1, 1, 1), 0, (SHORT, MEDIUM, 2)),
    ((1, 0, 3), 0, (SHORT, -1, 1)),     # the long row is never paired (5.4: one card at long distance)
    ((0, 1, 3), 0, (MEDIUM, -1, 1)),
    ((0, 0, 3), 0, (LONG, -1, 1)),
    ((0, 0, 0), 0, (-1, -1, 0)),
    # the long row first (5): one card there
    ((2, 2, 1), 5, (LONG, -1, 1)),
    ((2, 2, 0), 5, (MEDIUM, MEDIUM, 2)),
    ((2, 1, 0), 5, (MEDIUM, SHORT, 2)),
    # medium, long, short (3): medium then short, long skipped as a second card
    ((1, 1, 2), 3, (MEDIUM, SHORT, 2)),
    ((0, 1, 2), 3, (MEDIUM, -1, 1)),
])
def test_discovery_rows_follow_the_order(covered, order, want):
    got = discovery_rows_nb(np.int64(covered[0]), np.int64(covered[1]), np.int64(covered[2]), np.int64(order))
    assert tuple(int(x) for x in got) == want


# -- set-ups for the reorganisation and the Collateral target --------------------------------------

@pytest.fixture(scope="module")
def tables():
    view = GAME.load_data().view()
    rt, ak = compile_tables(view)
    return rt, ak, view


def _arrays(view, nat, rep, pol):
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
    return cs, st, g, rng, slots


def test_5_5_reorganisation_takes_stress_off_the_card_the_knob_picks(tables):
    """Canarias (cost 5) with 1 stress marker, Teruel (cost 2) with 3: a card played to
    reorganise takes its first marker off the Teruel (reorg_pick 0, the most stressed, as before
    issue 28) or the Canarias (1, the dearest); random-legal either, about half the time each."""
    rt, ak, view = tables
    cs, st, g, rng, slots = _arrays(view, {"Canarias": (LONG, 1), "Teruel": (SHORT, 1)}, {}, (FAM_GREEDY, FAM_GREEDY))
    st[slots["Canarias"], S_STRESS] = 1
    st[slots["Teruel"], S_STRESS] = 3
    _, pp = pack_policies({"nationalist": "aggressive", "republican": "aggressive"})
    pp = pp.copy()
    for pick, name in ((0, "Teruel"), (1, "Canarias")):
        pp[0, PP_REORG_PICK] = pick
        assert choose_reorg_slot_nb(rt, cs, st, g, pp, np.int64(0), rng) == slots[name]
    g[G_POL0] = FAM_RANDOM
    n = 2000
    seeds = game_seeds(28, 1, 0, n)
    hits = 0
    for sd in seeds:
        new_state_nb(np.uint64(sd), rng)
        hits += choose_reorg_slot_nb(rt, cs, st, g, pp, np.int64(0), rng) == slots["Canarias"]
    assert abs(hits / n - 0.5) <= 4 * (0.25 / n) ** 0.5


def test_collateral_target_random_legal_samples_every_card_the_weapon_can_hit(tables):
    """The Republican Lepanto attacks the Teruel in the Nationalist short row, where the Huesca
    and the Velasco also stand face up: Collateral may turn the attack on either of them;
    random-legal picks each about half the time (before issue 28 always the cheapest)."""
    rt, ak, view = tables
    nat = {"Teruel": (SHORT, 1), "Huesca": (SHORT, 1), "Velasco": (SHORT, 1)}
    cs, st, g, rng, slots = _arrays(view, nat, {"Lepanto": (SHORT, 1)}, (FAM_RANDOM, FAM_GREEDY))
    n = 2000
    seeds = game_seeds(28, 2, 0, n)
    got = []
    for sd in seeds:
        new_state_nb(np.uint64(sd), rng)
        got.append(int(random_collateral_target_nb(rt, cs, st, g, np.int64(0), np.int64(slots["Lepanto"]),
                                                   np.int64(slots["Teruel"]), np.int64(W_SECONDARY), rng)))
    got = np.asarray(got)
    assert set(got.tolist()) == {slots["Huesca"], slots["Velasco"]}
    assert abs((got == slots["Huesca"]).mean() - 0.5) <= 4 * (0.25 / n) ** 0.5


# -- each new knob at its bounds changes games (300 games, common random numbers) -------------------

#: (knob, scenario, side playing aggressive with the knob set, options, winners changed between the
#: lo and hi bound, that side's wins at lo, at hi): measured on game_seeds(20261202, 0, 0, 300), the
#: other side aggressive. Each knob's bounds change some games (issue 28: knobs must matter).
BOUNDS = [
    ("discover_order", "cabo-de-palos", "republican", {}, 65, 244, 271),
    ("main_discovery", "cabo-de-palos", "nationalist", {}, 44, 56, 56),
    ("reorg_pick", "points-built", "nationalist", {}, 2, 102, 100),
    ("escort_attack_sub", "mediterranean-campaign", "republican", {}, 104, 149, 130),
    ("dive", "mediterranean-campaign", "nationalist", {}, 99, 167, 165),
    ("reveal_row", "cabo-de-palos", "republican", {"initial_reveal": True}, 48, 259, 279),
    ("mines_play", "cabo-de-palos", "nationalist", {}, 14, 54, 56),
    ("fog_play", "cabo-de-palos", "nationalist", {}, 15, 56, 57),
    ("faccioso_play", "cabo-de-palos", "nationalist", {"faccioso_cabo_palos": True}, 3, 53, 52),
    ("collateral_first", "cabo-de-palos", "nationalist", {}, 1, 57, 56),
    ("transfer_covered", "strait-of-gibraltar", "nationalist", {}, 23, 63, 62),
    ("deploy_air_short", "mediterranean-campaign", "nationalist", {}, 81, 163, 165),
    ("deploy_escorts_back", "cabo-de-palos", "republican", {}, 5, 244, 243),
]


def test_bounds_table_covers_the_new_knobs():
    assert [b[0] for b in BOUNDS] == list(NEW_KNOBS)


@pytest.mark.parametrize("knob, scenario, side, opts, changed, won_lo, won_hi", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_new_knob_at_its_bounds_changes_winners(knob, scenario, side, opts, changed, won_lo, won_hi):
    sc = GAME.load_scenario(scenario)
    o = GAME.resolve_options(opts)
    k = GAME.policy_book().families["greedy"].knob(knob)
    seeds = game_seeds(20261202, 0, 0, 300)
    w = []
    for v in (k.lo, k.hi):
        pols = GAME.resolve_policies(sc.sides, {side: "aggressive"}, {side: {knob: v}})
        w.append(np.asarray(GAME.play_batch(sc, o, pols, seeds).games["winner"]))
    i = list(sc.sides).index(side)
    assert changed > 0
    assert (int(np.count_nonzero(w[0] != w[1])), int((w[0] == i).sum()), int((w[1] == i).sum())) == (
        changed, won_lo, won_hi)
