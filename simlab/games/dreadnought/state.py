"""A batch of Dreadnought games as one value that can be stopped, copied and played on (issue 27).

:func:`start_games` sets every game of a batch up before Game-Turn One (historical scenarios,
Rules 4.0-10.x); :func:`play_from` plays a *copy* of such a state on, until a given Game-Turn has
been played or to the games' end, with the kernels that play whole batches
(:func:`.kernels.turn.play_on_nb`, :func:`.kernels.turn.score_game_nb`); :meth:`GameState.result`
gives the finished games' raw rows, exactly those of :func:`.runtime.run_games` for the same
seeds. A game's state is everything the rest of the game depends on: its units (``sh``),
formations (``fm``) and wakes (``trail``), its running record ``dy`` (the game loop's counters
among them, layout ``DY_TURN`` .. ``DY_PHASE``), its random stream (``rng``, :mod:`simlab.rng`),
the Smoke Markers on the map, the policy codes in force, its counters row (``out``) and the shots
recorded so far.

Campaigns (Rules 11.0-11.9, 12.6) likewise: :func:`start_campaigns` builds every game's fleets;
:func:`play_campaigns_from` plays a copy on until each game has played a given number of campaign
scenarios, or to its end, with the loop that plays whole batches
(:func:`.kernels.campaign_loop.play_on_nb`); :meth:`CampaignBatch.result` gives the rows of
:func:`.runtime.run_campaigns`. A campaign game's state (:class:`.kernels.campaign_loop.CampaignState`)
is its random stream, each player's units (fleet, damage, losses, construction), the allocation of
the campaign game under way, its clock (phase, turn, next scenario, North, Interception Bonus,
campaign VPs, treasuries) and its rows so far; it stops only between two scenarios.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from ...rng import STATE_WORDS
from . import layout as L
from .kernels.turn import new_games_nb, play_states_nb
from .rules import RuleArrays, with_options
from .runtime import game_options, pack_policies, rule_tables
from .scenario import ScenarioSetup

__all__ = ["CampaignBatch", "GameState", "play_campaigns_from", "play_from", "start_campaigns", "start_games"]

#: names of the per-game state arrays, in the kernels' bundle order (:func:`.kernels.turn.begin_nb`)
STATE_ARRAYS = ("sh", "fm", "trail", "dy", "rng", "smoke", "pcs")


@dataclass(frozen=True)
class GameState:
    """The state of a batch of ``g`` games of one scenario, each after the same Game-Turn or over.

    Attributes:
        setup, rules: the compiled scenario and rules; tb: the rules' bundle with the run's
            optional rules (:func:`.runtime.rule_tables`); pol: ``(pc, kn)`` policy rows
            (:func:`.runtime.pack_policies`); opt: ``int64[4]`` game length, visibility base,
            record shots, check invariants (:func:`.kernels.turn.play_batch_nb`).
        arrays: ``(sh, fm, trail, dy, rng, smoke, pcs)`` with a leading game axis:
            ``int64[g, n, NSH]``, ``int64[g, *fm0.shape]``, ``int64[g, *trail0.shape]``,
            ``int64[g, NDY]``, ``uint64[g, STATE_WORDS]``, ``int64[g, k, 2]``, ``int64[g, 2, NPC]``.
        out: ``int64[g, NOUT]`` the games' counters (their results once scored).
        ev: ``int32[k, NEV]`` the shots recorded so far, game by game in each stretch played.
    """

    setup: ScenarioSetup
    rules: RuleArrays
    tb: tuple
    pol: tuple
    opt: np.ndarray
    arrays: tuple
    out: np.ndarray
    ev: np.ndarray

    @property
    def turn(self) -> np.ndarray:
        """``int64[g]`` the Game-Turns each game has played."""
        return self.arrays[3][:, L.DY_TURN].copy()

    @property
    def over(self) -> np.ndarray:
        """``bool[g]``: which games have ended (and been scored)."""
        return self.arrays[3][:, L.DY_PHASE] == L.PHASE_SCORED

    def copy(self) -> GameState:
        """A deep copy: the games' arrays, counters and shots copied (the tables are shared, read only)."""
        return replace(self, arrays=tuple(a.copy() for a in self.arrays), out=self.out.copy(), ev=self.ev.copy())

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """The finished games' raw rows, as :func:`.runtime.run_games` returns them.

        Returns:
            ``(out, ev)``: ``int64[g, NOUT]`` and ``int32[k, NEV]`` (the shots in game order).

        Raises:
            ValueError: a game is not over yet (play it on with :func:`play_from`).
        """
        if not self.over.all():
            raise ValueError(f"{int((~self.over).sum())} of {self.out.shape[0]} games are not over yet")
        order = np.argsort(self.ev[:, L.E_GAME], kind="stable")
        return self.out.copy(), self.ev[order]


def start_games(setup: ScenarioSetup, rules: RuleArrays, policies: Mapping[str, str], seeds: np.ndarray,
                options: Mapping | None = None, check: bool = False) -> GameState:
    """Every game's state before Game-Turn One, one game per seed (arguments as
    :func:`.runtime.run_games`; the same options give the same games)."""
    opts = dict(options or {})
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    g = int(seeds.shape[0])
    pc, kn = pack_policies(policies, setup.sides)
    opt = game_options(setup, opts, check)
    tb = rule_tables(rules, with_options(rules.rl, opts))
    n = setup.n
    arrays = (np.zeros((g, *setup.sh0.shape), dtype=np.int64), np.zeros((g, *setup.fm0.shape), dtype=np.int64),
              np.zeros((g, *setup.trail0.shape), dtype=np.int64), np.zeros((g, L.NDY), dtype=np.int64),
              np.zeros((g, STATE_WORDS), dtype=np.uint64), np.zeros((g, n * (L.MAXMP + 1) + 1, 2), dtype=np.int64),
              np.zeros((g, 2, L.NPC), dtype=np.int64))
    out = np.zeros((g, L.NOUT), dtype=np.int64)
    state_setup = (setup.sh0, setup.fm0, setup.trail0)
    new_games_nb(seeds, setup.st, state_setup, setup.sc, tb, (pc, kn), opt, arrays, out)
    return GameState(setup, rules, tb, (pc, kn), opt, arrays, out, np.zeros((0, L.NEV), dtype=np.int32))


def play_from(state: GameState, until: int | None = None) -> GameState:
    """Play a copy of ``state`` on until Game-Turn ``until`` has been played (``None``: to the
    games' end), with the kernels of whole batches; ``state`` itself is left as it was.

    Returns:
        the new state (games already past ``until`` or over are unchanged).

    Raises:
        ValueError: ``until`` is negative.
    """
    if until is not None and until < 0:
        raise ValueError(f"play_from: until must be >= 0, got {until}")
    s = state.copy()
    stop = int(s.opt[0]) if until is None else int(until)
    g = s.out.shape[0]
    cap = max(16, g * s.setup.n * 2) if s.opt[2] else 0
    chunks = [s.ev]
    start = 0
    while True:
        ev = np.zeros((cap, L.NEV), dtype=np.int32)
        nxt, rows = play_states_nb(start, stop, s.setup.st, (s.setup.sh0, s.setup.fm0, s.setup.trail0), s.setup.sc,
                                   s.tb, s.pol, s.opt, s.arrays, s.out, ev)
        chunks.append(ev[:rows].copy())
        if nxt >= g:
            break
        start = int(nxt)
        cap = max(cap, 16) * 2
    return replace(s, ev=np.concatenate(chunks))


# ---------------------------------------------------------------- campaigns (Rules 11.0-11.9, 12.6)
@dataclass(frozen=True)
class CampaignBatch:
    """A batch of ``g`` campaign games (or extended campaigns) of one campaign set-up, each stopped
    between two campaign scenarios or over (issue 27): a copy played on by :func:`play_campaigns_from`
    gives exactly the rows of :func:`.runtime.run_campaigns` for the same seeds.

    Attributes:
        tables: the :class:`.kernels.campaign_loop.CampaignTables` (never written; shared by copies).
        state: the :class:`.kernels.campaign_loop.CampaignState` of the batch, each array with a leading
            game axis ``g``: ``rng`` ``uint64[g, STATE_WORDS]``, ``ps`` ``int64[g, 2, P, NPS]``,
            ``scen`` ``int64[g, 2, P]``, ``ck`` ``int64[g, NCK]``, ``gout`` ``int64[g, NGO]``,
            ``rows`` ``int64[g, R, NRS]``.
    """

    tables: object
    state: object

    @property
    def played(self) -> np.ndarray:
        """``int64[g]`` the campaign scenarios each game has played (its rows so far)."""
        return self.state.ck[:, L.CK_NROW].copy()

    @property
    def over(self) -> np.ndarray:
        """``bool[g]``: which games are over (and scored)."""
        return self.state.ck[:, L.CK_PHASE] == L.PH_OVER

    def copy(self) -> CampaignBatch:
        """A deep copy: the state's arrays copied (the tables are shared, read only)."""
        return replace(self, state=type(self.state)(*(a.copy() for a in self.state)))

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The finished games' raw rows, as :func:`.runtime.run_campaigns` returns them.

        Returns:
            ``(gout, rows, cp)``: ``int64[g, NGO]``, ``int64[k, NRS]`` (game by game) and the parameters.

        Raises:
            ValueError: a game is not over yet (play it on with :func:`play_campaigns_from`).
        """
        if not self.over.all():
            raise ValueError(f"{int((~self.over).sum())} of {self.over.shape[0]} campaign games are not over yet")
        st = self.state
        rows = [st.rows[i, :st.ck[i, L.CK_NROW]] for i in range(st.ck.shape[0])]
        cat = np.concatenate(rows) if rows else np.zeros((0, L.NRS), dtype=np.int64)
        return st.gout.copy(), cat, self.tables.cp.copy()


def start_campaigns(setup, rules: RuleArrays, options: Mapping, policies: Mapping[str, str], seeds: np.ndarray,
                    extended: bool) -> CampaignBatch:
    """Every campaign game's state before its first campaign game begins (fleets built, 11.8, 12.61),
    one game per seed (arguments as :func:`.runtime.run_campaigns`)."""
    from .kernels.campaign_loop import CampaignState, rows_per_game_nb, start_campaigns_nb
    from .runtime import campaign_tables

    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    g = int(seeds.shape[0])
    ct = campaign_tables(setup, rules, options, policies, extended)
    P = ct.po.shape[1]
    st = CampaignState(np.zeros((g, STATE_WORDS), dtype=np.uint64), np.zeros((g, 2, P, L.NPS), dtype=np.int64),
                       np.full((g, 2, P), -1, dtype=np.int64), np.zeros((g, L.NCK), dtype=np.int64),
                       np.zeros((g, L.NGO), dtype=np.int64),
                       np.zeros((g, int(rows_per_game_nb(ct.cp)), L.NRS), dtype=np.int64))
    start_campaigns_nb(seeds, ct, st)
    return CampaignBatch(ct, st)


def play_campaigns_from(batch: CampaignBatch, until: int | None = None) -> CampaignBatch:
    """Play a copy of ``batch`` on until each game has played ``until`` campaign scenarios
    (``None``: to its end; 4 a campaign game, 11.6), with the kernels of whole batches
    (:func:`.kernels.campaign_loop.play_on_nb`); ``batch`` itself is left as it was.

    Raises:
        ValueError: ``until`` is negative.
    """
    from .kernels.campaign_loop import play_campaigns_on_nb

    if until is not None and until < 0:
        raise ValueError(f"play_campaigns_from: until must be >= 0, got {until}")
    b = batch.copy()
    play_campaigns_on_nb(b.tables, b.state, (1 << 40) if until is None else int(until))
    return b
