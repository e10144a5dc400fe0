"""The named bundles of Dreadnought's fire and movement plots (issue 27): the policies' kernels take
the position, the rules, this Game-Turn's conditions and their scratch as a few of these
``typing.NamedTuple`` values (numba compiles them as tuples of their fields; a kernel reads a field
by name) instead of long lists of loose arrays.

* fire plot (:mod:`.fire`): :class:`Sight` (visibility, Game-Turn, smoke, running state) and
  :class:`FirePlotScratch` (its work arrays, made by :func:`.fire.fire_scratch_nb`); the compiled
  rules come as :class:`..rules.RuleTables`; a target pick, called for every firer, gets only what
  it reads: :class:`GunTables`, :class:`PickScratch` with its :class:`Gains`;
* movement plot (:mod:`.movement`, :mod:`.tows`): :class:`MoveBoard` (the position and rules a plot
  reads and writes), :class:`Plots` (the paths laid out), :class:`PlotWork` (markers to avoid,
  candidate plots, work rows ``MW_*``) and :class:`Goal` (a formation's goal).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Sight(NamedTuple):
    """What this Game-Turn lets a fire plot see (issue 27 bundle): ``vis`` the visibility (hexes),
    ``turn`` the Game-Turn, ``smoke`` ``int64[k, 2]`` the Smoke Marker hexes (12.1) and ``dy``
    ``int64[NDY]`` the scenario's running state (layout ``DY_*``: ``DY_NSMOKE``, ``DY_HOLD``, the
    sun of 12.52), as :func:`..kernels.visibility.fire_mod_nb` and :func:`.fire._holds_fire_nb`
    read them."""

    vis: int
    turn: int
    smoke: np.ndarray
    dy: np.ndarray


class FirePlotScratch(NamedTuple):
    """The fire plot's work arrays (issue 27 bundle; :func:`.fire.fire_scratch_nb` makes one set per
    call of the entry kernel, never shared between threads). ``n`` units, R the longest main-battery or
    secondary range (hexes), B the DPT columns, C the classes of unit (same Attack Strength,
    Defense Strength and VP value)::

        vp_pct int64[5]       percent of value scored by damage state (9.53-9.54; :func:`.fire.fire_values_nb`)
        sv     float64[n, 10] each unit's VP by state 3 G + S, 9 sunk (:func:`.fire.state_vp_nb`)
        svkey  int64[n]       the SH_DC each ``sv`` row was worked out for (-1: none yet)
        dist   float64[n, 10] each target's expected state after the shots plotted at it
        thr    float64[n, 2]  each target's fire unengaged and fired upon (:func:`.fire.threat_nb`; NaN: not yet)
        loss   float64[1]     the last gain's expected share of Attack Strength lost (:func:`.fire.gain_nb`)
        mg     float64[n, 16 B]  per target and ``column * 16 + penalty``: remembered gain ...
        ml     float64[n, 16 B]  ... and loss ...
        mst    int64[n, 16 B]    ... valid while equal to ``ver[j]`` (:func:`.fire._pick_target_nb`)
        ver    int64[n]       version of each ``dist[j]``; vc int64[1] the last version drawn (counted up)
        bcol   int64[3 (R + 1)]  DPT columns by range: the firer's by range and halving (first two
                              thirds), a threat's by range (last third)
        nd     float64[10]    :func:`.fire._apply_shot_nb` scratch
        firers int64[n], term float64[n, 2], has int64[n, 2]: :func:`.fire.designate_scr_nb` scratch
        pg, pl float64[C * DC_ROWS * 9, 16 B]  remembered present-state gains and losses (NaN: not yet)
        prow   int64[n]       each unit's row of ``pg``/``pl`` (-1: not remembered; :func:`.fire.fire_values_nb`)
        pure   float64[10]    all 0: :func:`.fire.pure_gain_nb` scratch
        lst    int64[2, n + 1]  the enemies and own units afloat (:func:`.fire.unit_lists_nb`)
        cls    int64[n]       each unit's class (0 .. C - 1)
        order  int64[n]       the firers, strongest first (:func:`.fire.plot_fire_scr_nb`)
        cnt    int64[n]       firers plotted at each target so far
    """

    vp_pct: np.ndarray
    sv: np.ndarray
    svkey: np.ndarray
    dist: np.ndarray
    thr: np.ndarray
    loss: np.ndarray
    mg: np.ndarray
    bcol: np.ndarray
    nd: np.ndarray
    firers: np.ndarray
    term: np.ndarray
    has: np.ndarray
    pg: np.ndarray
    pl: np.ndarray
    prow: np.ndarray
    pure: np.ndarray
    ml: np.ndarray
    mst: np.ndarray
    ver: np.ndarray
    vc: np.ndarray
    lst: np.ndarray
    cls: np.ndarray
    order: np.ndarray
    cnt: np.ndarray


class GunTables(NamedTuple):
    """The rule tables a target pick reads (issue 27 bundle; fields of :class:`..rules.RuleTables`,
    passed instead of the whole to keep the fire plot's many calls light): ``rl`` ``int64[NRL]``,
    ``eff_gun`` ``float64[11, 16, DMAX + 1, NEFF]``, ``range_tab`` ``int64[k, 3]``, ``band_low``
    ``int64[11]``."""

    rl: np.ndarray
    eff_gun: np.ndarray
    range_tab: np.ndarray
    band_low: np.ndarray


class Gains(NamedTuple):
    """The remembered present-state gains of a fire plot (issue 27 bundle; arrays of
    :class:`FirePlotScratch` of the same names, :func:`.fire.pure_gain_nb`): ``sv``, ``pg``, ``pl``,
    ``prow``, ``pure``, ``loss``."""

    sv: np.ndarray
    pg: np.ndarray
    pl: np.ndarray
    prow: np.ndarray
    pure: np.ndarray
    loss: np.ndarray


class PickScratch(NamedTuple):
    """The part of :class:`FirePlotScratch` a target pick reads and writes (issue 27 bundle;
    :func:`.fire._pick_target_nb`, arrays of the same names there): ``cnt``, ``dist``, ``thr``,
    ``bcol``, ``mg``, ``ml``, ``mst``, ``ver``, ``lst`` and the :class:`Gains` ``gains``."""

    cnt: np.ndarray
    dist: np.ndarray
    thr: np.ndarray
    bcol: np.ndarray
    mg: np.ndarray
    ml: np.ndarray
    mst: np.ndarray
    ver: np.ndarray
    lst: np.ndarray
    gains: Gains


#: rows of the movement plot's work rows ``PlotWork.mw`` (``int64[NMW, n + 1]``): the live
#: members of the formation being planned (:func:`.movement._try_plan_nb`), the stacking keys
#: (:func:`.movement.stack_keys_nb`), and from MW_LST the side's unit lists, two rows
#: (:func:`.fire.unit_lists_nb`)
MW_MEM, MW_KEYS, MW_LST = 0, 1, 2
NMW = 4


class MoveBoard(NamedTuple):
    """What a movement plot reads and writes of the position (issue 27 bundle): ``st``
    ``int64[n, NST]`` the units' printed values, ``sh`` ``int64[n, NSH]`` their state (plots land in
    ``SH_MP``, ``SH_PX``/``PZ``/``PF``), ``fm`` ``int64[n, NFM]`` the formations, ``trail``
    ``int64[n, NTRAIL, 3]`` the columns' wakes, ``sc`` ``int64[NSC]`` the scenario record, ``rl``
    ``int64[NRL]`` the rule scalars (with the run's optional rules)."""

    st: np.ndarray
    sh: np.ndarray
    fm: np.ndarray
    trail: np.ndarray
    sc: np.ndarray
    rl: np.ndarray


class Plots(NamedTuple):
    """The plotted paths of a Movement Plot Phase (issue 27 bundle): ``px``, ``pz``, ``pf``
    ``int64[n, MAXMP + 1]`` each unit's hex and facing after each MP; ``planned`` ``int64[n]`` 1
    once a unit has its plot; ``exit_mp`` ``int64[n]`` the MP at which its path leaves by its exit
    (``MAXMP + 1``: none)."""

    px: np.ndarray
    pz: np.ndarray
    pf: np.ndarray
    planned: np.ndarray
    exit_mp: np.ndarray


class PlotWork(NamedTuple):
    """A side's movement plot's markers to avoid and work rows (issue 27 bundle): the Torpedo
    Markers placed this Movement Phase (``nmark`` ``int64[1]`` their number, ``mx``, ``mz``, ``md``
    ``int64[n, MAXTRACK + 1]`` their track, ``owner`` ``int64[n]`` the launching unit; the
    random-legal policy's ``nmark`` holds 0); ``mw`` ``int64[NMW, n + 1]`` work rows (``MW_*``);
    ``cand`` ``int64[MAXC, 8]`` candidate plots (t1, l1, t2, l2, MP, end x, z, facing) and
    ``scores`` ``float64[MAXC]`` theirs (:func:`.movement.plan_best_nb`)."""

    nmark: np.ndarray
    mx: np.ndarray
    mz: np.ndarray
    md: np.ndarray
    owner: np.ndarray
    mw: np.ndarray
    cand: np.ndarray
    scores: np.ndarray


class Goal(NamedTuple):
    """A formation's goal (:func:`.movement.goal_nb`): hex ``x``, ``z`` and facing ``f`` (ints), the
    range wanted ``dstar`` (hexes, float) and ``mode`` (0 keep ``dstar``, 1 open the range and run
    for the safe zone, 2 make for the exit, 3 withdraw in the disputed zone, -1 no enemy)."""

    x: int
    z: int
    f: int
    dstar: float
    mode: int
