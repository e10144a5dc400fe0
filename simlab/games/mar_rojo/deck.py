"""The action deck, compiled: shuffles, the deal, draws, The End and Retreat (Rules 3.2, 4, 6, 10.1).

Piles are rows of ``piles`` (``int64[NPILES, PILE_CAP]``): the draw pile (its top is the last
card), the discard pile, the table (cards played this sub-turn, discarded at its end, Rule 5
step 5) and the cards out of the game (excluded by options, or The End before it is shuffled
in). Hands are rows of ``hands`` (``int64[2, HAND_CAP]``). Counts live in ``g``. ``akind[id]`` is
the kind (enums.K_*) of action card ``id``.

Game length (Rule 6): drawing The End shows it and draws a replacement; the drawing stops at the
``G_ENDS_NEEDED``-th appearance (short 1, average 2, long 3), and before that the discard pile
and The End are shuffled back into the deck after the replacement is drawn. Retreat played as an
effect ends the game early (Rule 6): "all action cards, including those that have been discarded"
are shuffled into the deck, the hands included (ruling M27; the option ``retreat_hands = kept``
leaves them out); the drawing then stops when Retreat or The End reappears. The first appearance of The End sets ``G_SPECIAL_PENDING`` for the scenario
rules of 8.2 and 8.3.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import roll_nb
from .enums import END_RETREAT, END_THE_END, K_DAY_NIGHT, K_RETREAT, K_THE_END
from .layout import (
    G_DEALING,
    G_DECK_N,
    G_DISC_N,
    G_DRAWN0,
    G_END_REASON,
    G_ENDS_NEEDED,
    G_ENDS_SEEN,
    G_FINAL,
    G_FINAL_SUBTURN,
    G_HAND0_N,
    G_NCARDS,
    G_NIGHT,
    G_OUT_N,
    G_RETREAT,
    G_RULES,
    G_SPECIAL_PENDING,
    G_SUBTURN,
    G_TABLE_N,
    P_DECK,
    P_DISCARD,
    P_OUT,
    P_TABLE,
    RU_RETREAT_KEEP_HANDS,
)

__all__ = ["conservation_ok_nb", "deal_nb", "discard_table_nb", "draw_nb", "new_deck_nb", "pile_push_nb",
           "play_from_hand_nb", "retreat_nb", "shuffle_nb"]


@kernel
def shuffle_nb(arr, n, rng):
    """Fisher-Yates shuffle of ``arr[:n]`` in place with the game's stream."""
    for i in range(n - 1, 0, -1):
        j = roll_nb(rng, i + 1) - 1
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@kernel(inline="always")
def pile_push_nb(piles, g, p, card):
    piles[p, g[G_DECK_N + p]] = card
    g[G_DECK_N + p] += 1


@kernel
def _pile_remove_nb(piles, g, p, card):
    n = g[G_DECK_N + p]
    for i in range(n):
        if piles[p, i] == card:
            for j in range(i, n - 1):
                piles[p, j] = piles[p, j + 1]
            g[G_DECK_N + p] = n - 1
            return True
    return False


@kernel
def new_deck_nb(piles, hands, g, akind, included, rng):
    """Set up the piles before the deal (Rule 4): every included card but The End in the draw
    pile, shuffled; The End and the excluded cards out of the game.

    Args:
        akind: ``int64[n]`` kind of each card id; included: ``int8[n]`` 1 if the card is used
            (options: night cards, Faccioso / Cabo Palos).
    """
    n = akind.shape[0]
    for p in range(4):
        g[G_DECK_N + p] = 0
    g[G_HAND0_N] = 0
    g[G_HAND0_N + 1] = 0
    g[G_NCARDS] = n
    for c in range(n):
        if included[c] == 0 or akind[c] == K_THE_END:
            pile_push_nb(piles, g, np.int64(P_OUT), c)
        else:
            pile_push_nb(piles, g, np.int64(P_DECK), c)
    shuffle_nb(piles[P_DECK], g[G_DECK_N], rng)


@kernel
def _reshuffle_discards_nb(piles, g, rng):
    # Rule 6, average and long: the discard pile (The End included) goes back into the deck.
    nd = g[G_DISC_N]
    for i in range(nd):
        pile_push_nb(piles, g, np.int64(P_DECK), piles[P_DISCARD, i])
    g[G_DISC_N] = 0
    shuffle_nb(piles[P_DECK], g[G_DECK_N], rng)


@kernel
def draw_nb(piles, hands, g, akind, side, to_hand, rng):
    """Draw the top action card for ``side`` (Rules 5 step 1, 6, 10.1).

    Day/Night cards are discarded and replaced (turning day to night or back, except while the
    opening hands are dealt); The End is shown, discarded and replaced (and may stop the drawing
    or reshuffle the discards, Rule 6); after Retreat was played, Retreat is treated the same way.

    Args:
        to_hand: True to put the card in the side's hand; False to put it on the table (the
            solo AI resolves the card it draws at once, Rule 12.3).

    Returns:
        The card id drawn, or -1 if the deck was empty.
    """
    reshuffle = False
    card = np.int64(-1)
    while True:
        if g[G_DECK_N] == 0:
            break
        g[G_DECK_N] -= 1
        c = piles[P_DECK, g[G_DECK_N]]
        k = akind[c]
        g[G_DRAWN0 + side] += 1
        if k == K_DAY_NIGHT:
            pile_push_nb(piles, g, np.int64(P_DISCARD), c)
            if g[G_DEALING] == 0:
                g[G_NIGHT] = 1 - g[G_NIGHT]
            continue
        if k == K_THE_END or (k == K_RETREAT and g[G_RETREAT] == 1 and g[G_FINAL] == 0):
            pile_push_nb(piles, g, np.int64(P_DISCARD), c)
            if k == K_THE_END:
                g[G_ENDS_SEEN] += 1
                if g[G_ENDS_SEEN] == 1:
                    g[G_SPECIAL_PENDING] = 1
            if g[G_FINAL] == 0:
                if g[G_RETREAT] == 1 or g[G_ENDS_SEEN] >= g[G_ENDS_NEEDED]:
                    g[G_FINAL] = 1
                    g[G_FINAL_SUBTURN] = g[G_SUBTURN]
                    g[G_END_REASON] = END_RETREAT if g[G_RETREAT] == 1 else END_THE_END
                else:
                    reshuffle = True
            continue
        card = c
        break
    if card >= 0:
        if to_hand:
            hands[side, g[G_HAND0_N + side]] = card
            g[G_HAND0_N + side] += 1
        else:
            pile_push_nb(piles, g, np.int64(P_TABLE), card)
    if reshuffle:
        _reshuffle_discards_nb(piles, g, rng)
    return card


@kernel
def deal_nb(piles, hands, g, akind, opening, deal_to, rng):
    """Deal the opening hands (Rule 4) to the sides with ``deal_to[side] == 1`` (the solo AI gets
    none, 12.2), then shuffle The End into the deck ("when each player has drawn 5 cards")."""
    g[G_DEALING] = 1
    for side in range(2):
        if deal_to[side]:
            for _ in range(opening):
                draw_nb(piles, hands, g, akind, side, np.bool_(True), rng)
    g[G_DEALING] = 0
    g[G_DRAWN0] = 0
    g[G_DRAWN0 + 1] = 0
    n = g[G_OUT_N]
    for i in range(n):
        c = piles[P_OUT, i]
        if akind[c] == K_THE_END:
            _pile_remove_nb(piles, g, np.int64(P_OUT), c)
            pile_push_nb(piles, g, np.int64(P_DECK), c)
            break
    shuffle_nb(piles[P_DECK], g[G_DECK_N], rng)


@kernel
def play_from_hand_nb(piles, hands, g, side, idx):
    """Move the card at ``hands[side, idx]`` to the table; returns its id."""
    n = g[G_HAND0_N + side]
    c = hands[side, idx]
    for j in range(idx, n - 1):
        hands[side, j] = hands[side, j + 1]
    g[G_HAND0_N + side] = n - 1
    pile_push_nb(piles, g, np.int64(P_TABLE), c)
    return c


@kernel
def discard_table_nb(piles, g):
    """End of a sub-turn (Rule 5 step 5): the cards played go to the discard pile."""
    n = g[G_TABLE_N]
    for i in range(n):
        pile_push_nb(piles, g, np.int64(P_DISCARD), piles[P_TABLE, i])
    g[G_TABLE_N] = 0


@kernel
def retreat_nb(piles, hands, g, rng):
    """Retreat played as an effect (Rule 6): "all action cards, including those that have been
    discarded, are shuffled again": the deck, the discard pile, the table (the Retreat card
    itself included) and both hands (ruling M27; option ``retreat_hands = kept`` leaves the hands
    out, bit ``RU_RETREAT_KEEP_HANDS``) are shuffled together into the deck; drawing stops when
    Retreat or The End next appears."""
    nd = g[G_DISC_N]
    for i in range(nd):
        pile_push_nb(piles, g, np.int64(P_DECK), piles[P_DISCARD, i])
    g[G_DISC_N] = 0
    nt = g[G_TABLE_N]
    for i in range(nt):
        pile_push_nb(piles, g, np.int64(P_DECK), piles[P_TABLE, i])
    g[G_TABLE_N] = 0
    if (g[G_RULES] & RU_RETREAT_KEEP_HANDS) == 0:
        for side in range(2):
            for i in range(g[G_HAND0_N + side]):
                pile_push_nb(piles, g, np.int64(P_DECK), hands[side, i])
            g[G_HAND0_N + side] = 0
    shuffle_nb(piles[P_DECK], g[G_DECK_N], rng)
    g[G_RETREAT] = 1


@kernel
def conservation_ok_nb(piles, hands, g, seen):
    """Every action card is in exactly one place: the four piles and the two hands hold each id
    ``0..G_NCARDS-1`` exactly once. ``seen`` is scratch ``int64[>= G_NCARDS]``."""
    n = g[G_NCARDS]
    for i in range(n):
        seen[i] = 0
    total = np.int64(0)
    for p in range(4):
        for i in range(g[G_DECK_N + p]):
            c = piles[p, i]
            if c < 0 or c >= n:
                return False
            seen[c] += 1
            total += 1
    for s in range(2):
        for i in range(g[G_HAND0_N + s]):
            c = hands[s, i]
            if c < 0 or c >= n:
                return False
            seen[c] += 1
            total += 1
    if total != n:
        return False
    for i in range(n):
        if seen[i] != 1:
            return False
    return True
