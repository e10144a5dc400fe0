"""The named bundles the Mar Rojo game loop takes (issue 27): one game's state is one value.

:class:`GameState` is everything the rest of a game depends on, so that a game can be stopped
between two sub-turns, its state copied, and the game continued from the copy by the same kernels
that play a whole game (``engine.init_game_nb`` then ``engine.play_on_nb``). :class:`Tables`
holds what is fixed for a batch (the scenario, the deck, the rule tables) and :class:`Knobs` the
players' choices of policy. All three are ``collections.namedtuple`` types, which numba compiles as
tuples of their fields (a kernel unpacks what it needs by name).

Shapes (one game; a *batch* state stacks ``n`` games on a leading axis of every field)::

    GameState.cs     int64[NSLOT, NC]       fleet card values per squadron slot (layout C_*)
    GameState.st     int64[NSLOT, NS]       fleet card state per slot (layout S_*)
    GameState.g      int64[NG]              game globals (layout G_*, G_NEXT / G_OVER included)
    GameState.piles  int64[NPILES, PILE_CAP]  action card ids in the draw pile, discard, table, out
    GameState.hands  int64[2, HAND_CAP]     action card ids in each hand
    GameState.wk     int64[NWK]             integer scratch (layout WK_*)
    GameState.fw     float64[NFW]           the greedy policies' evaluation scratch (layout FW_*)
    GameState.rng    uint64[STATE_WORDS]    the game's random stream (simlab.rng)
    GameState.seed   uint64[1]              the seed the stream started from (for O_DRAWS)
    GameState.taken  int8[max(npool, 1)]    squadron builder scratch (Rule 9)
    GameState.tmp    int64[max(npool, 1) + 8]  squadron builder scratch
    GameState.scr    int64[2]               combat scratch (actions.perform_action_nb)
    GameState.out    int32[NOUT]            the game's result row (layout O_*), final once G_OVER is 1
    GameState.sq     int16[NSLOT, 3]        pool index, final status, damage of every slot

    Tables: pool int64[npool, NC]; squads int64[2, MAXC]; reinf int64[2]; avail int8[2, npool];
        lim int64[2, NPT]; builders int64[2]; akind int64[ncards]; included int8[ncards];
        ak int64[nkinds, NAK]; rt int64[NRT]; setup int64[NQ] (layout Q_*)
    Knobs: pp float64[2, NPP] (layout PP_*); pols int64[2] (enums.FAM_*); debug int (1: check invariants)
    Board: rt, cs, st, g, piles, hands, akind, ak, pp as above (one game's: what a move reads and
        writes; kernels build it from the other three, tests from loose arrays)
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...rng import STATE_WORDS
from .layout import HAND_CAP, NC, NFW, NG, NOUT, NPILES, NS, NSLOT, NWK, PILE_CAP

__all__ = ["Board", "GameState", "Knobs", "Tables", "copy_state", "new_state"]

GameState = namedtuple("GameState", ["cs", "st", "g", "piles", "hands", "wk", "fw", "rng", "seed", "taken", "tmp",
                                     "scr", "out", "sq"])
Tables = namedtuple("Tables", ["pool", "squads", "reinf", "avail", "lim", "builders", "akind", "included", "ak", "rt",
                               "setup"])
Knobs = namedtuple("Knobs", ["pp", "pols", "debug"])
#: the arrays one move reads and writes (issue 27: the activation, combat and card-choice kernels
#: take it instead of nine loose arrays): Tables.rt, the state's cs, st, g, piles, hands, the
#: Tables' akind and ak, and Knobs.pp
Board = namedtuple("Board", ["rt", "cs", "st", "g", "piles", "hands", "akind", "ak", "pp"])


def new_state(n_pool: int, n: int | None = None) -> GameState:
    """A zeroed :class:`GameState` for one game (``n`` None) or a batch of ``n`` games (every field
    with a leading axis of length ``n``); ``n_pool`` is the batch's card-pool size."""
    lead = () if n is None else (int(n),)
    m = max(int(n_pool), 1)
    return GameState(
        np.zeros(lead + (NSLOT, NC), np.int64), np.zeros(lead + (NSLOT, NS), np.int64), np.zeros(lead + (NG,), np.int64),
        np.zeros(lead + (NPILES, PILE_CAP), np.int64), np.zeros(lead + (2, HAND_CAP), np.int64),
        np.zeros(lead + (NWK,), np.int64), np.zeros(lead + (NFW,), np.float64),
        np.zeros(lead + (STATE_WORDS,), np.uint64), np.zeros(lead + (1,), np.uint64), np.zeros(lead + (m,), np.int8),
        np.zeros(lead + (m + 8,), np.int64), np.zeros(lead + (2,), np.int64), np.zeros(lead + (NOUT,), np.int32),
        np.zeros(lead + (NSLOT, 3), np.int16))


def copy_state(state: GameState) -> GameState:
    """A deep copy of ``state`` (every array copied, C-contiguous): the copy and the original can
    be played on independently."""
    return GameState(*(np.array(a, copy=True, order="C") for a in state))
