"""Activations, card effects and scenario special rules of Mar Rojo, compiled (Rules 5.1-5.5,
6, 8.2, 8.3 and the provisional action-card effects listed in docs/rulings.md).

``perform_action_nb`` carries out one activation chosen by a policy (or by the solo AI) and
keeps the Rule 5.1 bookkeeping: one action per card and sub-turn, two for aircraft, one more
when the first action uncovered the card; under an effect, the actions the effect gave.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from .combat import apply_damage_nb, attack_nb, uncover_nb
from .deck import play_from_hand_nb
from .dice import d6_nb, save_hits_nb
from .enums import (
    ACT_ATTACK,
    ACT_COVER,
    ACT_DISCOVER,
    ACT_EXCHANGE,
    ACT_MOVE,
    ACT_REORG,
    ACT_UNCOVER,
    AIRCRAFT,
    FAM_SOLO,
    K_MINES,
    LONG,
    SP_NAVARRA,
    SP_TRANSFER,
    ST_IN_PLAY,
    ST_REMOVED,
    ST_RESERVE,
)
from .fleet import layout_spread_nb
from .layout import (
    C_ARMOUR,
    C_SEAPLANE,
    C_TYPE,
    G_CB_OK,
    G_DEBUG,
    G_INTERRUPT_USED,
    G_LAST_ACTIONS,
    G_PENDING,
    G_POL0,
    G_REMOVED,
    G_SPECIAL,
    G_SPECIAL_PENDING,
    G_VIOLATION,
    MAXC,
    R_FOG_COVER,
    R_MINES_HIT,
    R_REORG_PER_CARD,
    R_TRANSFER,
    S_ACTS,
    S_BONUS,
    S_MASK,
    S_REORG,
    S_ROW,
    S_STATUS,
    S_STRESS,
    S_UP,
    V_LAYOUT,
)
from .policy_cards import choose_fog_card_nb, choose_mines_target_nb, choose_reorg_slot_nb
from .policy_combat import choose_discover_card_nb, choose_pending_nb
from .policy_setup import choose_reinforcement_row_nb, choose_transfer_victim_nb

__all__ = ["apply_specials_nb", "declare_pending_nb", "discover_nb", "fog_nb", "general_quarters_nb", "mines_nb",
           "perform_action_nb", "reorganise_nb", "resolve_pending_nb"]


@kernel
def discover_nb(cs, st, g, side, r1, r2, rng):
    """Turn up to two covered enemy cards: one in row ``r1``, then one in ``r2`` (-1: none).
    Which covered card of a row is unknown to the player, so it is drawn at random (Rule 5.4)."""
    enemy = 1 - side
    for r in (r1, r2):
        if r < 0:
            continue
        c = choose_discover_card_nb(st, enemy, r, rng)
        if c >= 0:
            uncover_nb(cs, st, g, c, side)


@kernel
def reorganise_nb(rt, cs, st, g, pp, side, amount, rng):
    """Remove up to ``amount`` stress markers from the side's cards, at most 2 per card per
    sub-turn (Rule 5.5), each from the card the side's policy picks
    (``policy_cards.choose_reorg_slot_nb``). Returns how many were removed."""
    done = np.int64(0)
    while done < amount:
        s = choose_reorg_slot_nb(rt, cs, st, g, pp, side, rng)
        if s < 0:
            break
        st[s, S_STRESS] -= 1
        st[s, S_REORG] += 1
        done += 1
    return done


@kernel
def general_quarters_nb(rt, cs, st, g, side):
    """General Quarters as an effect (provisional): every card loses up to 2 stress markers
    (the Rule 5.5 limit per card and sub-turn)."""
    base = side * MAXC
    for s in range(base, base + MAXC):
        if st[s, S_STATUS] != ST_IN_PLAY:
            continue
        while st[s, S_STRESS] > 0 and st[s, S_REORG] < rt[R_REORG_PER_CARD]:
            st[s, S_STRESS] -= 1
            st[s, S_REORG] += 1


@kernel
def mines_nb(rt, cs, st, g, pp, side_passive, rng, scr):
    """Mines (provisional effect, resolved after the action card): one of the active player's
    ships in his short row, the one the passive side's policy picks
    (``policy_cards.choose_mines_target_nb``), takes one die, a hit on 5+, saves by armour."""
    s = choose_mines_target_nb(cs, st, g, pp, side_passive, rng)
    if s < 0:
        return
    if d6_nb(rng, scr) >= rt[R_MINES_HIT]:
        stand = save_hits_nb(rt, np.int64(1), cs[s, C_ARMOUR], rng, scr)
        apply_damage_nb(cs, st, g, s, stand, np.int64(0))


@kernel
def fog_nb(rt, cs, st, g, pp, side_passive, rng):
    """Fog (provisional effect, resolved after the action card): the passive player covers up
    to two of his uncovered cards, those his policy picks (``policy_cards.choose_fog_card_nb``)."""
    for _ in range(rt[R_FOG_COVER]):
        s = choose_fog_card_nb(cs, st, g, pp, side_passive, rng)
        if s < 0:
            break
        st[s, S_UP] = 0


@kernel
def declare_pending_nb(cs, st, g, piles, hands, akind, ak, pp, side_passive, mode, rng):
    """Rule 5 step 4: the passive player may declare Mines or Fog, resolved after the action card."""
    if g[G_POL0 + side_passive] == FAM_SOLO:
        return
    j = choose_pending_nb(cs, st, g, hands, akind, ak, pp, side_passive, mode, rng)
    if j >= 0:
        g[G_PENDING] = akind[play_from_hand_nb(piles, hands, g, side_passive, j)]
        g[G_INTERRUPT_USED] = 1


@kernel
def resolve_pending_nb(rt, cs, st, g, pp, side_passive, rng, scr):
    """The declared Mines or Fog, once the action card has been resolved (Rule 5 step 4)."""
    if g[G_PENDING] < 0:
        return
    if g[G_PENDING] == K_MINES:
        mines_nb(rt, cs, st, g, pp, side_passive, rng, scr)
    else:
        fog_nb(rt, cs, st, g, pp, side_passive, rng)
    g[G_PENDING] = -1


@kernel
def perform_action_nb(B, slot, act, p1, p2, effect_mode, rng, scr):
    """Carry out one activation of fleet card ``slot`` (Rules 5.1-5.5); the caller has checked it
    with ``legality.action_legal_nb``.

    Args:
        B: the :class:`~.bundles.Board` (rt, cs, st, g, piles, hands, akind, ak, pp).
        act: enums.ACT_*; p1, p2: its arguments (attack: target slot; move: destination row;
            exchange: the other card's slot; discover: the rows of the first and second card).
        effect_mode: the card acts on actions given by an effect (counts down ``S_MASK``).
    """
    rt, cs, st, g, piles, hands, akind, ak, pp = B
    side = slot // MAXC
    g[G_CB_OK] = 0
    first = st[slot, S_ACTS] == 0
    st[slot, S_ACTS] += 1
    g[G_LAST_ACTIONS] += 1
    if effect_mode:
        st[slot, S_MASK] -= 1
    if act == ACT_UNCOVER:
        uncover_nb(cs, st, g, slot, side)
        if first and cs[slot, C_TYPE] != AIRCRAFT:
            # 5.2: "the only action that allows a ship or submarine fleet card to perform another
            # action" (aircraft already act twice, 5.1; ruling M4)
            st[slot, S_BONUS] = 1
            if effect_mode:
                st[slot, S_MASK] += 1
    elif act == ACT_ATTACK:
        attack_nb(B, slot, p1, rng, scr)
    elif act == ACT_COVER:
        st[slot, S_UP] = 0
    elif act == ACT_MOVE:
        before = layout_spread_nb(st, side)
        st[slot, S_ROW] = p1
        if g[G_DEBUG] == 1 and g[G_VIOLATION] == 0:
            after = layout_spread_nb(st, side)
            if after > (before if before > 1 else 1):
                g[G_VIOLATION] = V_LAYOUT
    elif act == ACT_EXCHANGE:
        r = st[slot, S_ROW]
        st[slot, S_ROW] = st[p1, S_ROW]
        st[p1, S_ROW] = r
    elif act == ACT_DISCOVER:
        r2 = p2
        if cs[slot, C_SEAPLANE] == 0 and (p1 == LONG):
            r2 = np.int64(-1)
        discover_nb(cs, st, g, side, p1, r2, rng)
    elif act == ACT_REORG:
        if st[slot, S_STRESS] > 0:
            st[slot, S_STRESS] -= 1
            st[slot, S_REORG] += 1


@kernel
def apply_specials_nb(rt, cs, st, g, pp, rng):
    """The first appearance of The End (8.2, 8.3): the Transfer to the Cantabrian Sea removes two
    Republican ships (not sunk); the Navarra joins the Nationalist squadron face down."""
    if g[G_SPECIAL_PENDING] == 0:
        return
    g[G_SPECIAL_PENDING] = 0
    if g[G_SPECIAL] & SP_TRANSFER:
        for _ in range(rt[R_TRANSFER]):
            s = choose_transfer_victim_nb(cs, st, g, pp, rng)
            if s < 0:
                break
            st[s, S_STATUS] = ST_REMOVED
            st[s, S_UP] = 0
            g[G_REMOVED] += 1
    if g[G_SPECIAL] & SP_NAVARRA:
        for s in range(MAXC):
            if st[s, S_STATUS] == ST_RESERVE:
                r = choose_reinforcement_row_nb(cs, st, g, pp, np.int64(0), s, rng)
                st[s, S_STATUS] = ST_IN_PLAY
                st[s, S_ROW] = r
                st[s, S_UP] = 0


