"""Mar Rojo action deck: conservation, the deal and the draws against an exact deck oracle
(icepool's ``Deck``), The End for the three game lengths, Day/Night and Retreat (Rules 4, 6, 10.1)."""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.mar_rojo.deck import (
    conservation_ok_nb,
    deal_nb,
    discard_table_nb,
    draw_nb,
    new_deck_nb,
    play_from_hand_nb,
    retreat_nb,
)
from simlab.games.mar_rojo.enums import (
    ACTION_NAMES,
    AK_TYPE,
    AT_INTERRUPTION,
    END_RETREAT,
    END_THE_END,
    K_DAY_NIGHT,
    K_RETREAT,
    K_THE_END,
)
from simlab.games.mar_rojo.layout import (
    G_DECK_N,
    G_DISC_N,
    G_DRAWN0,
    G_END_REASON,
    G_ENDS_NEEDED,
    G_ENDS_SEEN,
    G_FINAL,
    G_HAND0_N,
    G_NIGHT,
    G_OUT_N,
    G_SPECIAL_PENDING,
    HAND_CAP,
    NG,
    NPILES,
    P_DECK,
    P_DISCARD,
    PILE_CAP,
)
from simlab.games.mar_rojo.rules import compile_tables
from simlab.games.mar_rojo.runtime import action_deck

GAME = get_game("mar-rojo")


@pytest.fixture(scope="module")
def ak():
    return compile_tables(GAME.load_data().view())[1]


def _new(akind, included, seed, ends_needed=1):
    g = np.zeros(NG, np.int64)
    piles = np.zeros((NPILES, PILE_CAP), np.int64)
    hands = np.zeros((2, HAND_CAP), np.int64)
    rng = np.zeros(3, np.uint64)
    rng[0] = np.uint64(seed)
    g[G_ENDS_NEEDED] = ends_needed
    new_deck_nb(piles, hands, g, akind, included, rng)
    return g, piles, hands, rng


def test_deck_composition_is_52_cards(ak):
    akind, inc = action_deck(ak, night=False, optional=False)
    assert len(akind) == 52
    names = [ACTION_NAMES[k] for k in akind]
    assert names.count("The End") == 1 and names.count("Destroyers") == 4
    # without the night rules the Day/Night and Flares cards are out; Faccioso and Cabo Palos are optional
    out = {ACTION_NAMES[k] for k, i in zip(akind, inc, strict=True) if not i}
    assert out == {"Day/Night", "Flares", "Faccioso", "Cabo Palos"}
    akind, inc = action_deck(ak, night=True, optional=True)
    counts = {}
    for k, i in zip(akind, inc, strict=True):
        if i:
            counts[ACTION_NAMES[k]] = counts.get(ACTION_NAMES[k], 0) + 1
    # 10.1: one Scout, one General Quarters and one Optics removed at night
    assert counts["Scout"] == 2 and counts["General Quarters"] == 2 and counts["Optics"] == 3
    assert counts["Day/Night"] == 2 and counts["Flares"] == 2


def test_conservation_helper_must_fail(ak):
    akind, inc = action_deck(ak, False, False)
    g, piles, hands, rng = _new(akind, inc, 1)
    seen = np.zeros(PILE_CAP, np.int64)
    assert conservation_ok_nb(piles, hands, g, seen)
    piles[P_DECK, 0] = piles[P_DECK, 1]  # a duplicated card, another missing
    assert not conservation_ok_nb(piles, hands, g, seen)
    g2, piles2, hands2, _ = _new(akind, inc, 1)
    g2[G_DECK_N] -= 1  # a card lost
    assert not conservation_ok_nb(piles2, hands2, g2, seen)


@pytest.mark.parametrize("length", [1, 2, 3])
def test_every_card_in_one_place_through_a_whole_game_of_draws(ak, length):
    """Deal, draw and play (to the table, then the discard pile) until the drawing stops; check
    conservation after every step, for the short, average and long lengths (Rule 6)."""
    akind, inc = action_deck(ak, night=True, optional=True)
    seen = np.zeros(PILE_CAP, np.int64)
    for seed in range(30):
        g, piles, hands, rng = _new(akind, inc, 1000 + seed, ends_needed=length)
        deal_nb(piles, hands, g, akind, 5, np.ones(2, np.int64), rng)
        assert g[G_HAND0_N] == 5 and g[G_HAND0_N + 1] == 5
        assert conservation_ok_nb(piles, hands, g, seen)
        side = 0
        steps = 0
        while g[G_FINAL] == 0:
            steps += 1
            assert steps < 1000
            if g[G_HAND0_N + side] >= 5 or (steps % 3 == 0 and g[G_HAND0_N + side] > 0):
                play_from_hand_nb(piles, hands, g, side, 0)
                discard_table_nb(piles, g)
            else:
                draw_nb(piles, hands, g, akind, side, True, rng)
            assert conservation_ok_nb(piles, hands, g, seen)
            assert g[G_HAND0_N + side] <= 5
            side = 1 - side
        assert g[G_ENDS_SEEN] == length
        assert g[G_END_REASON] == END_THE_END


def test_opening_hand_matches_exact_deck_oracle(ak):
    """The number of interruption cards in the Nationalist's opening hand: 5 cards from the deck
    without The End (Rule 4), hypergeometric; compared with icepool's Deck over n = 20,000 deals
    by a chi-square test (fixed seeds, critical value for 5 df at p = 0.001)."""
    akind, inc = action_deck(ak, night=False, optional=False)
    kinds = [int(k) for k, i in zip(akind, inc, strict=True) if i and k != K_THE_END]
    is_int = {k: int(ak[k, AK_TYPE] == AT_INTERRUPTION) for k in set(kinds)}
    deck = icepool.Deck([is_int[k] for k in kinds])
    exact = deck.deal(5).sum()
    den = exact.denominator()
    p = {o: Fraction(q, den) for o, q in exact.items()}
    n = 20_000
    counts = np.zeros(6)
    for seed in range(n):
        g, piles, hands, rng = _new(akind, inc, 7919 * seed + 1)
        deal_nb(piles, hands, g, akind, 5, np.ones(2, np.int64), rng)
        counts[sum(is_int[int(akind[hands[0, i]])] for i in range(5))] += 1
    chi2 = sum((counts[k] - n * float(p.get(k, 0))) ** 2 / (n * float(p[k])) for k in p if p[k] > 0)
    assert chi2 < 20.5, (chi2, counts, p)


def test_day_night_cards_dealt_are_replaced_without_turning(ak):
    """10.1: the game begins by day; a Day/Night card dealt is discarded and replaced. Hands then
    never hold Day/Night; the number of Day/Night cards discarded during the deal follows the
    negative hypergeometric law (n = 4,000, chi-square)."""
    akind, inc = action_deck(ak, night=True, optional=False)
    kinds = [int(k) for k, i in zip(akind, inc, strict=True) if i and k != K_THE_END]
    n_dn = kinds.count(K_DAY_NIGHT)
    n = 4000
    disc = np.zeros(n_dn + 1)
    for seed in range(n):
        g, piles, hands, rng = _new(akind, inc, 31 * seed + 5)
        deal_nb(piles, hands, g, akind, 5, np.ones(2, np.int64), rng)
        assert g[G_NIGHT] == 0
        for s in range(2):
            assert all(akind[hands[s, i]] != K_DAY_NIGHT for i in range(5))
        disc[g[G_DISC_N]] += 1
    # exact (negative hypergeometric): the deal stops at the 10th other card; k Day/Night cards lie
    # among the 9 + k cards before it, the other n_dn - k after it
    from math import comb
    total = len(kinds)
    exact = [Fraction(comb(9 + k, k) * comb(total - 10 - k, n_dn - k), comb(total, n_dn)) for k in range(n_dn + 1)]
    assert sum(exact) == 1
    chi2 = sum((disc[k] - n * float(exact[k])) ** 2 / (n * float(exact[k])) for k in range(n_dn + 1))
    assert chi2 < 13.8, (chi2, disc, exact)


def test_the_end_position_is_uniform_after_the_deal(ak):
    """Rule 4: The End is shuffled into the deck once both hands are dealt, so the number of cards
    drawn before it is uniform on 0..m (m = the deck left after the deal); n = 30,000, chi-square."""
    akind, inc = action_deck(ak, night=False, optional=False)
    n = 30_000
    first = None
    counts = None
    for seed in range(n):
        g, piles, hands, rng = _new(akind, inc, 104729 * seed + 3)
        deal_nb(piles, hands, g, akind, 5, np.ones(2, np.int64), rng)
        m = int(g[G_DECK_N]) - 1
        if counts is None:
            counts = np.zeros(m + 1)
            first = m
        assert m == first
        k = 0
        while True:
            top = piles[P_DECK, g[G_DECK_N] - 1 - k]
            if akind[top] == K_THE_END:
                break
            k += 1
        counts[k] += 1
    e = n / (first + 1)
    chi2 = ((counts - e) ** 2 / e).sum()
    # critical value for m = 35 df at p = 0.001 is 66.6
    assert chi2 < 66.6, chi2


def test_short_average_long_reshuffles(ak):
    """Rule 6: with average and long lengths the discard pile (and The End) return to the deck
    at each appearance but the last; the replacement card is drawn first."""
    akind, inc = action_deck(ak, night=False, optional=False)
    for length in (1, 2, 3):
        g, piles, hands, rng = _new(akind, inc, 99, ends_needed=length)
        deal_nb(piles, hands, g, akind, 5, np.ones(2, np.int64), rng)
        g[G_HAND0_N] = 0  # empty both hands into the discard pile (bookkeeping by hand)
        seen_reshuffles = 0
        while g[G_FINAL] == 0:
            before = g[G_ENDS_SEEN]
            c = draw_nb(piles, hands, g, akind, 0, False, rng)
            if g[G_ENDS_SEEN] > before and g[G_FINAL] == 0:
                seen_reshuffles += 1
                assert g[G_DISC_N] == 0  # everything went back into the deck
            discard_table_nb(piles, g)
            assert c >= 0 or g[G_FINAL] == 1
        assert seen_reshuffles == length - 1
        assert g[G_SPECIAL_PENDING] == 1


def test_retreat_played_then_drawing_stops_at_retreat_or_the_end(ak):
    """Rule 6: Retreat as an effect shuffles every action card, the hands included (ruling M27),
    into the deck; drawing stops when Retreat or The End appears next (end reason retreat)."""
    akind, inc = action_deck(ak, night=False, optional=False)
    stops = {K_RETREAT: 0, K_THE_END: 0}
    for seed in range(300):
        g, piles, hands, rng = _new(akind, inc, 5000 + seed, ends_needed=3)
        deal_nb(piles, hands, g, akind, 5, np.ones(2, np.int64), rng)
        # find the Retreat card and put it in hand 0 in place of card 0 (swap positions)
        rid = int(np.nonzero(akind == K_RETREAT)[0][0])
        where = None
        for p in range(NPILES):
            for i in range(g[G_DECK_N + p]):
                if piles[p, i] == rid:
                    where = (p, i)
        if where is None:
            continue  # Retreat is already in a hand
        p, i = where
        piles[p, i], hands[0, 0] = hands[0, 0], rid
        play_from_hand_nb(piles, hands, g, 0, 0)
        retreat_nb(piles, hands, g, rng)
        assert g[G_OUT_N] == sum(1 for x in inc if not x)
        assert g[G_HAND0_N] == 0 and g[G_HAND0_N + 1] == 0
        while g[G_FINAL] == 0:
            before = int(g[G_DISC_N])
            draw_nb(piles, hands, g, akind, 1, False, rng)
            if g[G_FINAL] == 1:
                stops[int(akind[piles[P_DISCARD, before]])] += 1
            discard_table_nb(piles, g)
        assert g[G_END_REASON] == END_RETREAT
    assert stops[K_RETREAT] > 50 and stops[K_THE_END] > 50
    # both cards are equally likely to come up first
    assert abs(stops[K_RETREAT] - stops[K_THE_END]) < 4 * (sum(stops.values()) ** 0.5)


def test_draws_are_counted(ak):
    akind, inc = action_deck(ak, False, False)
    g, piles, hands, rng = _new(akind, inc, 3)
    deal_nb(piles, hands, g, akind, 5, np.ones(2, np.int64), rng)
    assert g[G_DRAWN0] == 0 and g[G_DRAWN0 + 1] == 0
    g[G_HAND0_N] = 0
    draw_nb(piles, hands, g, akind, 0, True, rng)
    assert g[G_DRAWN0] >= 1
