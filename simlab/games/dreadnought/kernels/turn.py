"""The Game-Turn (Rules 4.0-4.2) and the whole historical scenario (Rules 9.5, 10.x).

:func:`tactical_nb` plays a scenario Game-Turn by Game-Turn, each phase one kernel: visibility
and sighting (5.71, 9.42; :mod:`.visibility`), the fire plot (:func:`fire_plot_phase_nb`, the
sides' policies), fire execution (:func:`.fire.fire_execution_nb`), torpedo launch
(:func:`.torpedo.launch_torpedoes_nb`), the movement plot (:func:`movement_plot_phase_nb`),
movement execution with torpedo attacks, exits and collisions (:func:`movement_execution_nb`),
damage control (:func:`.damage.damage_control_nb`) and the end checks
(:func:`.damage.scenario_end_nb`). :func:`play_batch_nb` plays one scenario per seed.
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ....rng import STATE_WORDS, new_state_nb, roll_nb
from .. import layout as L
from ..enums import (
    AFLOAT,
    END_AGREEMENT,
    END_GAME_LENGTH,
    END_LOOP_CAP,
    END_NO_SIGHTING,
    END_OBJECTIVE,
    MOVE_BREAK,
    MOVE_HOLD,
    MOVE_RANDOM,
    MOVE_WITHDRAW,
    SUNK,
)
from ..policies.bundles import MW_KEYS, NMW, MoveBoard, Plots, PlotWork, Sight
from ..policies.fire import (
    bombard_hold_nb,
    fire_scratch_nb,
    fire_values_nb,
    plot_fire_scr_nb,
    preferred_range_nb,
)
from ..policies.formation_plans import maintain_formations_nb
from ..policies.knowledge import predict_nb
from ..policies.movement import (
    MAXC,
    plot_movement_nb,
    plot_smoke_nb,
    withdraw_check_nb,
)
from ..policies.torpedo import Reach, plot_torpedoes_nb
from ..policies.tows import assign_tows_nb, plan_tows_nb
from .contact import enter_delayed_nb, track_off_map_nb
from .damage import damage_control_nb, final_result_nb, scenario_end_nb
from .fire import NCS, NGS, FireScratch, ShotLog, apply_pending_nb, fire_execution_nb
from .movement import commit_moves_nb, resolve_collisions_nb, tow_pair_nb, update_tows_nb
from .torpedo import Markers, TorpedoScratch, UnitPaths, launch_torpedoes_nb, torpedo_attacks_nb
from .visibility import lay_smoke_nb, sighting_nb, sun_roll_nb, visibility_roll_nb


@kernel(error_model="numpy", no_cpython_wrapper=True)
def invariants_nb(st, sh, n, sc, rl):
    """Count broken invariants of a position (a self-check for tests and modified data packs).

    Counts: a side over-stacked in a hex (more than the stack limit, mixed facings, or a screen
    unit sharing a hex; Rules 6.31-6.33), opposing units in one hex (6.13), damage steps outside
    0..2 (5.42), more steps removed than the damage-control limit (5.44), a unit in play outside a
    scenario's confinement (10.5). A towing unit and the ship it tows share a hex (12.41).
    """
    bad = 0
    for i in range(n):
        if sh[i, L.SH_G] < 0 or sh[i, L.SH_G] > 2 or sh[i, L.SH_S] < 0 or sh[i, L.SH_S] > 2:
            bad += 1
        if sh[i, L.SH_DC] > st[i, L.ST_DEF]:
            bad += 1
        if sh[i, L.SH_STATUS] != AFLOAT:
            continue
        if sc[L.SC_CONF]:
            row = sh[i, L.SH_Z] + (sh[i, L.SH_X] - (sh[i, L.SH_X] & 1)) // 2
            if not (sc[L.SC_CONF_C0] <= sh[i, L.SH_X] <= sc[L.SC_CONF_C1] and sc[L.SC_CONF_R0] <= row <= sc[L.SC_CONF_R1]):
                bad += 1
        cnt = 1
        for j in range(i):
            if sh[j, L.SH_STATUS] != AFLOAT or sh[j, L.SH_X] != sh[i, L.SH_X] or sh[j, L.SH_Z] != sh[i, L.SH_Z]:
                continue
            if st[j, L.ST_SIDE] != st[i, L.ST_SIDE]:
                bad += 1
            elif tow_pair_nb(sh, i, j, rl):
                continue
            elif st[j, L.ST_KIND] != st[i, L.ST_KIND] or st[i, L.ST_KIND] == 1:
                bad += 1
            elif sh[j, L.SH_F] != sh[i, L.SH_F]:
                bad += 1
            else:
                cnt += 1
        if cnt > rl[L.RL_STACK]:
            bad += 1
    return bad


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _trace_nb(trace, t, sh, n):
    for i in range(n):
        trace[t, i, L.TR_X] = sh[i, L.SH_X]
        trace[t, i, L.TR_Z] = sh[i, L.SH_Z]
        trace[t, i, L.TR_F] = sh[i, L.SH_F]
        trace[t, i, L.TR_G] = sh[i, L.SH_G]
        trace[t, i, L.TR_S] = sh[i, L.SH_S]
        trace[t, i, L.TR_STATUS] = sh[i, L.SH_STATUS]
        trace[t, i, L.TR_MP] = sh[i, L.SH_SPD]
        trace[t, i, L.TR_FORM] = sh[i, L.SH_FORM]
        trace[t, i, L.TR_DC] = sh[i, L.SH_DC]


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)   # allocates: reference counting kept under a nrt=False caller
def vp_table_nb(rl):
    v = np.zeros(5, dtype=np.int64)
    v[1] = rl[L.RL_VP1]
    v[2] = rl[L.RL_VP2]
    v[3] = rl[L.RL_VP3]
    v[4] = rl[L.RL_VP4]
    return v


@kernel(error_model="numpy")
def harm_nb(sh, n):
    """Damage on the map: damage steps of every unit plus 10 per unit sunk (a Game-Turn in which
    this does not grow inflicted no injury, Rule 9.43)."""
    h = 0
    for i in range(n):
        h += sh[i, L.SH_G] + sh[i, L.SH_S] + (10 if sh[i, L.SH_STATUS] == SUNK else 0)
    return h


@kernel(error_model="numpy")
def agreed_nb(kn, idle, campaign, rng):
    """Do both players agree to conclude the scenario (Rule 9.43: "by mutual agreement of the
    Players at any time", "neither can inflict further injury on the other")? Each side's policy
    agrees after ``kn[side, K_AGREE]`` (a campaign scenario) or ``kn[side, K_AGREE_HIST]`` (a
    historical one) Game-Turns in a row in which no ship of either side took damage (``idle``: no
    damage step from gunfire or torpedoes, no sinking); 0 never agrees; -1 (random-legal) agrees
    on a coin flip from the game's stream ``rng`` at the end of any Game-Turn in which no ship
    took damage. Coins are drawn only when every side with a threshold agrees (side 0's first,
    side 1's only if side 0's came up), so a game against a side that refuses draws nothing
    (rulings DN-C9, DN-E12)."""
    slot = L.K_AGREE if campaign else L.K_AGREE_HIST
    for side in range(2):
        k = kn[side, slot]
        if k == 0.0 or (k > 0.0 and idle < k) or (k < 0.0 and idle < 1):
            return False
    for side in range(2):
        if kn[side, slot] < 0.0 and roll_nb(rng, 2) == 1:
            return False
    return True


@kernel(error_model="numpy")
def reset_dy_nb(dy):
    """A scenario's running state at its start (layout ``DY_*``)."""
    for k in range(L.NDY):
        dy[k] = 0
    dy[L.DY_OFF_TURN0] = L.NEVER
    dy[L.DY_OFF_TURN1] = L.NEVER
    dy[L.DY_OFF_MP0] = L.NEVER
    dy[L.DY_OFF_MP1] = L.NEVER
    dy[L.DY_VIS_CARRY] = -1
    dy[L.DY_HOLD] = -1


@kernel(error_model="numpy", no_cpython_wrapper=True)
def fire_plot_phase_nb(st, sc, tb, pol, gs, scr, vis, turn):
    """The Fire Plot Phase (Rules 4.1, 5.3, 8.3-8.4): each side's policy plots its gunfire and
    secondary targets (``SH_TGT``, ``SH_SB``, ``SH_FMOD``) and its torpedo attacks (``SH_TTRACK``,
    ``SH_TARC``); side 0 first.

    Args:
        st, sc, tb: the scenario's units and record, the compiled rules (:func:`tactical_nb`).
        pol: ``(pc, kn)`` the policies' codes ``int64[2, NPC]`` and knobs ``float64[2, NKN]``.
        gs: the game's state (:func:`begin_nb`); its ``pcs`` are the codes in force this
            Game-Turn (a campaign side's movement code may have turned to ``MOVE_WITHDRAW``, 9.41).
        scr: the work arrays (:func:`scratch_nb`): ``order``; ``mx``, ``mz``, ``md``,
            ``ppx``, ``ppz`` for predicted torpedo tracks; ``pred`` the predicted positions,
            written; ``fs`` the fire plots' (:class:`..policies.bundles.FirePlotScratch`), whose
            ship-state values are brought up to date once for both sides.
        vis: visibility (hexes); turn: the Game-Turn.
    """
    rl = tb.rl
    pc, kn = pol
    sh, dy, rng, smoke, pcs = gs[0], gs[3], gs[4], gs[5], gs[6]
    order = scr[L.SCR_ORDER]
    pred = scr[L.SCR_PRED]
    mx = scr[L.SCR_MX]
    mz = scr[L.SCR_MZ]
    md = scr[L.SCR_MD]
    ppx = scr[L.SCR_PPX]
    ppz = scr[L.SCR_PPZ]
    fs = scr[L.SCR_FS]
    mk = Markers(mx, mz, md, scr[L.SCR_MOWNER])
    reach = Reach(order, ppx, ppz)
    n = st.shape[0]
    predict_nb(sh, n, pred)
    fire_values_nb(st, sh, n, rl, fs)
    bombard_hold_nb(sc, kn, dy, rng)
    sight = Sight(vis, turn, smoke, dy)
    for side in range(2):
        plot_fire_scr_nb(side, st, sh, n, pcs[side, L.PC_FIRE], kn[side], tb, rng, sc, sight, fs)
        plot_torpedoes_nb(side, st, sh, n, pcs[side, L.PC_TORP], kn[side], sc, tb, rng, mk, reach)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def movement_plot_phase_nb(st, sc, tb, pol, gs, scr, vis):
    """The Movement Plot Phase (Rules 4.1, 6.1-6.4, 7.0): each side's policy keeps its formations,
    decides withdrawal (campaign, 9.41), assigns and plans tows (12.4), plots every formation and
    unit, and plots smoke (12.1); side 0 first.

    Args:
        st, sc, tb, pol, gs, vis: as :func:`fire_plot_phase_nb` (``pcs[side, PC_MOVE]`` is set to
            ``MOVE_WITHDRAW`` here when the side withdraws).
        scr: the work arrays (:func:`scratch_nb`): ``px``, ``pz``, ``pf`` (``int64[n, MAXMP + 1]``)
            the plotted paths, written; ``planned``, ``exit_mp``, ``alive`` (``int64[n]``) written
            (plotted, MP of an exit or ``MAXMP + 1``, afloat at the start); ``cand``, ``scores``
            candidate plots (``int64[MAXC, 8]``, ``float64[MAXC]``); ``buf`` ``int64[n, 3]``; the
            torpedo markers a policy avoids (``nmark`` .. ``mw``; the random policy's are empty,
            ``nmark0``).
    """
    rl, _, band_low, _, range_tab, _, eff_gun, _ = tb
    pc, kn = pol
    sh, fm, trail, dy, rng, pcs = gs[0], gs[1], gs[2], gs[3], gs[4], gs[6]
    (px, pz, pf, planned, exit_mp, alive, _, _, _, _, _, pred, buf, cand, scores, mx, mz, md,
     mowner, nmark, nmark0, _, _, _, _, _, _, _, _, _, _, _, mw) = scr
    bd = MoveBoard(st, sh, fm, trail, sc, rl)
    pl = Plots(px, pz, pf, planned, exit_mp)
    tk = PlotWork(nmark, mx, mz, md, mowner, mw, cand, scores)
    tk_none = PlotWork(nmark0, mx, mz, md, mowner, mw, cand, scores)   # random-legal ignores its torpedoes
    n = st.shape[0]
    campaign = sc[L.SC_CAMPAIGN] != 0
    smoking = rl[L.RL_OPT_SMOKE] != 0
    towing = rl[L.RL_OPT_TOWING] != 0
    for i in range(n):
        planned[i] = 0
        exit_mp[i] = L.MAXMP + 1
        sh[i, L.SH_MP] = 0
        alive[i] = 1 if sh[i, L.SH_STATUS] == AFLOAT else 0
    predict_nb(sh, n, pred)
    for side in range(2):
        maintain_formations_nb(side, st, sh, fm, trail, n, rl, pcs[side], buf, rng)
        wd = False
        if campaign:
            wd = withdraw_check_nb(side, st, sh, n, kn[side], dy)
            if wd and pc[side, L.PC_MOVE] != MOVE_BREAK and pc[side, L.PC_MOVE] != MOVE_RANDOM:
                pcs[side, L.PC_MOVE] = MOVE_WITHDRAW
        if towing:
            assign_tows_nb(side, st, sh, n, vis, rl, wd, pcs[side, L.PC_MOVE], kn[side], rng)
            plan_tows_nb(side, bd, n, kn[side], pred, pl, tk)
        rstar = 8
        if pcs[side, L.PC_MOVE] == MOVE_HOLD:
            rstar = preferred_range_nb(side, st, sh, n, vis, eff_gun, range_tab, band_low)
        plot_movement_nb(side, bd, n, pcs[side], kn[side], vis, rstar, pred, pl, rng,
                         tk_none if pcs[side, L.PC_MOVE] == MOVE_RANDOM else tk, dy)
        if smoking:
            plot_smoke_nb(side, st, sh, n, pcs[side], rng)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def movement_execution_nb(st, sc, tb, gs, scr, io, turn, ended_by, g, ev_n, record):
    """The Movement Execution Phase (Rules 4.1, 6.0-6.3, 8.0, 9.15, 12.1, 12.4): units move along
    their plots MP by MP with the Torpedo Markers (:func:`.torpedo.torpedo_attacks_nb`); moves off
    the initial Map Area are tracked (campaign, 11.3-11.4); smoke is laid (12.11); positions,
    wakes, exits and safe zones are committed (:func:`.movement.commit_moves_nb`); collisions and
    stacking are settled (6.13, 6.31-6.33); the phase's results are applied (5.0); tows are kept
    or released (12.4).

    Args:
        st, sc, tb, gs: as :func:`fire_plot_phase_nb` (``gs``'s ``smoke``: ``int64[k, 2]`` Smoke
            Marker hexes); scr: the work arrays (:func:`scratch_nb`): the plotted paths, ``mpu``,
            the markers placed this Game-Turn (``nmark`` .. ``mowner``, and the movement plot's
            work rows ``mw``), the sweep's ``hitmask``, ``hits``, ``smoke_new``, ``displaced``.
        io: ``(out, ev, trace)``; turn: the Game-Turn; ended_by: the side that first reached its
            safe zone so far (-1: none); g, ev_n, record: the game's counters row, the shots so
            far, record shots (0/1).

    Returns:
        ``(ev_n, ended_by)``.
    """
    rl = tb[0]
    sh, fm, trail, dy, rng, smoke = gs[0], gs[1], gs[2], gs[3], gs[4], gs[5]
    out = io[0]
    (px, pz, pf, _, exit_mp, alive, mpu, _, _, _, displaced, _, _, _, _, mx, mz, md,
     mowner, nmark, _, _, _, hitmask, hits, _, crt_out, _, smoke_new, _, _, _, mw) = scr
    n = st.shape[0]
    campaign = sc[L.SC_CAMPAIGN] != 0
    up = UnitPaths(px, pz, pf, mpu, alive, exit_mp)
    ev_n = torpedo_attacks_nb(st, sh, n, nmark[0], sc[L.SC_TORP_MA], Markers(mx, mz, md, mowner), up,
                              TorpedoScratch(hitmask, hits, crt_out, smoke_new), tb, rng, io,
                              ShotLog(g, turn, record, ev_n))
    if campaign:
        track_off_map_nb(st, sh, n, px, pz, alive, exit_mp, sc, dy, turn)
    if rl[L.RL_OPT_SMOKE] != 0:
        # 12.11: the markers of the last Movement Phase go; this phase's are laid
        ns = lay_smoke_nb(st, sh, n, px, pz, alive, exit_mp, smoke_new, 0)
        for k in range(ns):
            smoke[k, 0] = smoke_new[k, 0]
            smoke[k, 1] = smoke_new[k, 1]
        dy[L.DY_NSMOKE] = ns
        dy[L.DY_SMOKE_LAID] += ns
    ended_by = commit_moves_nb(st, sh, fm, trail, n, sc, turn, ended_by, up)
    # the plot's stacking-keys row is free once the plots are made: the collisions' scratch
    resolve_collisions_nb(st, sh, fm, n, rng, rl, sc, (displaced, mw[MW_KEYS], scr[L.SCR_BUF], trail), out, g, gs[6])
    apply_pending_nb(sh, n, rl)
    if rl[L.RL_OPT_TOWING] != 0:
        update_tows_nb(sh, n, rl)
    return ev_n, ended_by


@kernel(error_model="numpy", nrt=True)   # allocates: reference counting kept under a nrt=False caller
def tactical_nb(st, sc, tb, pol, game, io, run):
    """Play one scenario from its present position to its end, Game-Turn by Game-Turn (Rule 4.1).

    Each Game-Turn: visibility (base + one die, 5.71; carried over once after a campaign contact,
    9.32) and, in a campaign, delayed Task Forces entering (9.28); sighting (9.42); fire plot and
    execution (5.0-5.9, 8.4); torpedo markers placed (8.0); movement plot with formations, tows
    (12.4), withdrawal (campaign, 9.41) and smoke (12.1); movement execution with the torpedo
    sweep, exits, safe zones (9.15), moves off the initial Map Area (11.3-11.4), collisions and
    stacking (6.13, 6.31-6.33); damage control (5.43). The scenario ends as
    :func:`.damage.scenario_end_nb` finds, a campaign scenario also when both players agree
    (9.43, :func:`agreed_nb`), or after Game-Turn ``length``: a historical scenario's last turn
    (9.0, ``END_GAME_LENGTH``); in a campaign, whose scenarios persist indefinitely (9.0), a loop
    cap reported as a hang (``END_LOOP_CAP``).

    Args:
        st, sc: the scenario's units ``int64[n, NST]`` and record ``int64[NSC]``.
        tb: the compiled rules ``(rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt)``
            (``rl`` with the run's optional-rule switches).
        pol: ``(pc, kn)``: ``int64[2, NPC]`` policy codes and ``float64[2, NKN]`` knobs.
        game: ``(sh, fm, trail, dy, rng)`` played on: the units, formations and wakes, the
            running state ``int64[NDY]`` (:func:`reset_dy_nb`, sun set) and the game's stream.
        io: ``(out, ev, trace)``: ``int64[*, NOUT]`` (row ``g`` collects the counters: shots,
            torpedo hits, collisions), the shots buffer, ``int64[turns + 2, n, NTR]`` written
            after each Movement Phase if tracing.
        run: ``(g, ev_n, turn0, length, vis_base, record, check, tracing)`` ints: the counters row,
            the shots rows so far, Game-Turns already played (the campaign's approach; contact
            counts as made when > 0), the last Game-Turn, base visibility (hexes), and the 0/1
            switches: write shots to ``ev``, count broken invariants into ``out[g, O_VIOLATIONS]``,
            trace.

    Returns:
        ``(turn, reason, ended_by, contact, contact_at_end, exit_met, ev_n)``.
    """
    scr = scratch_nb(st, tb[0], tb[2])
    g, ev_n, turn0, length, vis_base, record, check, tracing = run
    sh, fm, trail, dy, rng = game
    gs = (sh, fm, trail, dy, rng, scr[L.SCR_SMOKE], scr[L.SCR_PCS])
    begin_nb(sc, pol[0], gs, turn0, vis_base)
    ev_n = play_on_nb(st, sc, tb, pol, gs, scr, io, (g, ev_n, length, length, vis_base, record, check, tracing))
    return (dy[L.DY_TURN], dy[L.DY_REASON], dy[L.DY_ENDED_BY], dy[L.DY_CONTACT], dy[L.DY_CONTACT_END],
            dy[L.DY_EXIT_MET], ev_n)


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)   # allocates: reference counting kept under a nrt=False caller
def scratch_nb(st, rl, band_low):
    """The game loop's work arrays for the scenario's units ``st`` (one set per call of the entry
    kernel, reused game after game; never shared between threads): ``(px, pz, pf, planned,
    exit_mp, alive, mpu, order, cnt, desig, displaced, pred, buf, cand, scores, mx, mz, md, mowner,
    nmark, nmark0, ppx, ppz, hitmask, hits, shot, crt_out, smoke, smoke_new, pcs, nfire, fs, mw)``;
    see :func:`tactical_nb`'s phases for their shapes (``fs``: the fire plots',
    :func:`..policies.fire.fire_scratch_nb`; ``mw``: the movement plot's work rows, ``int64[4, n + 1]``,
    :func:`..policies.movement.plot_movement_nb`)."""
    n = st.shape[0]
    px = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pz = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pf = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    planned = np.zeros(n, dtype=np.int64)
    exit_mp = np.zeros(n, dtype=np.int64)
    alive = np.zeros(n, dtype=np.int64)
    mpu = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    cnt = np.zeros(n, dtype=np.int64)
    desig = np.zeros(n, dtype=np.int64)
    displaced = np.zeros(n, dtype=np.int64)
    pred = np.zeros((n, 2), dtype=np.int64)
    buf = np.zeros((n, 3), dtype=np.int64)
    cand = np.zeros((MAXC, 8), dtype=np.int64)
    scores = np.zeros(MAXC, dtype=np.float64)
    mx = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    mz = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    md = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    mowner = np.zeros(n, dtype=np.int64)
    nmark = np.zeros(1, dtype=np.int64)
    nmark0 = np.zeros(1, dtype=np.int64)
    ppx = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    ppz = np.zeros((n, L.MAXTRACK + 1), dtype=np.int64)
    hitmask = np.zeros((n, n), dtype=np.int8)
    hits = np.zeros((n * n, 4), dtype=np.int64)
    shot = np.zeros(NGS, dtype=np.int64)
    crt_out = np.zeros(NCS, dtype=np.int64)
    smoke = np.zeros((n * (L.MAXMP + 1) + 1, 2), dtype=np.int64)
    smoke_new = np.zeros((n * (L.MAXMP + 1) + 1, 2), dtype=np.int64)
    pcs = np.zeros((2, L.NPC), dtype=np.int64)
    nfire = np.zeros(n, dtype=np.int64)
    mw = np.zeros((NMW, n + 1), dtype=np.int64)
    return (px, pz, pf, planned, exit_mp, alive, mpu, order, cnt, desig, displaced, pred, buf, cand, scores, mx, mz, md,
            mowner, nmark, nmark0, ppx, ppz, hitmask, hits, shot, crt_out, smoke, smoke_new, pcs, nfire,
            fire_scratch_nb(st, n, rl, band_low), mw)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def begin_nb(sc, pc, gs, turn0, vis_base):
    """Set a game's state going before its first Game-Turn ``turn0 + 1`` (Rule 4.1): no smoke
    markers, the policies' codes ``pc`` in force, and the game loop's counters of ``dy`` (layout
    ``DY_TURN`` .. ``DY_PHASE``; contact counts as made at ``turn0`` when ``turn0 > 0``; the first
    visibility ``vis_base`` unless carried over, 9.32).

    Args:
        sc: ``int64[NSC]`` the scenario; pc: ``int64[2, NPC]`` policy codes.
        gs: the game's state ``(sh, fm, trail, dy, rng, smoke, pcs)``; smoke ``int64[k, 2]``,
            pcs ``int64[2, NPC]``, written here with ``dy``'s loop slots.
    """
    dy, smoke, pcs = gs[3], gs[5], gs[6]
    smoke[:, :] = 0
    for a in range(2):
        for b in range(L.NPC):
            pcs[a, b] = pc[a, b]
    dy[L.DY_TURN] = turn0
    dy[L.DY_CONTACT] = turn0
    dy[L.DY_NOSIGHT] = 0
    dy[L.DY_ENDED_BY] = -1
    dy[L.DY_REASON] = END_LOOP_CAP if sc[L.SC_CAMPAIGN] != 0 else END_GAME_LENGTH
    dy[L.DY_EXIT_MET] = 0
    dy[L.DY_IDLE] = 0
    dy[L.DY_VIS] = vis_base if dy[L.DY_VIS_CARRY] < 0 else dy[L.DY_VIS_CARRY]
    dy[L.DY_CONTACT_END] = 0
    dy[L.DY_PHASE] = L.PHASE_PLAYING


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _clear_scratch_nb(scr):
    # the work arrays cleared as fresh ones would be (``hits`` is written before it is read; smoke
    # and the codes in force belong to the game's state), but for the fire plots' ship-state values
    # and present-state gains (fs[1], fs[12], fs[13]), which carry over from game to game: they depend
    # only on a unit's printed values, state and damage control (keys fs[2], and the rows fs[14] set
    # per phase) and on the rules, all fixed for one scenario's ``st`` and one ``rl``
    (px, pz, pf, planned, exit_mp, alive, mpu, order, cnt, desig, displaced, pred, buf, cand, scores, mx, mz, md,
     mowner, nmark, nmark0, ppx, ppz, hitmask, hits, shot, crt_out, smoke, smoke_new, pcs, nfire, fs, mw) = scr
    px[:, :] = 0
    pz[:, :] = 0
    pf[:, :] = 0
    planned[:] = 0
    exit_mp[:] = 0
    alive[:] = 0
    mpu[:] = 0
    order[:] = 0
    cnt[:] = 0
    desig[:] = 0
    displaced[:] = 0
    pred[:, :] = 0
    buf[:, :] = 0
    cand[:, :] = 0
    scores[:] = 0.0
    mx[:, :] = 0
    mz[:, :] = 0
    md[:, :] = 0
    mowner[:] = 0
    nmark[0] = 0
    nmark0[0] = 0
    ppx[:, :] = 0
    ppz[:, :] = 0
    hitmask[:, :] = 0
    shot[:] = 0
    crt_out[:] = 0
    smoke_new[:, :] = 0
    nfire[:] = 0


@kernel(error_model="numpy", no_cpython_wrapper=True)
def play_on_nb(st, sc, tb, pol, gs, scr, io, run):
    """Play a game on from its state, Game-Turn by Game-Turn (Rule 4.1), to its end or until
    Game-Turn ``stop`` is played; see :func:`tactical_nb` for the Game-Turn. Whole games and games
    continued from a copied state take this one path.

    Args:
        st, sc: the scenario's units and record; tb: the compiled rules (:func:`tactical_nb`).
        pol: ``(pc, kn)`` policy codes and knobs.
        gs: the game's state ``(sh, fm, trail, dy, rng, smoke, pcs)`` (:func:`begin_nb`), played on:
            ``dy[DY_PHASE]`` becomes ``PHASE_ENDED`` when the game is over (a game no longer
            ``PHASE_PLAYING`` is left as it is).
        scr: the work arrays (:func:`scratch_nb`), cleared here (:func:`_clear_scratch_nb`).
        io: ``(out, ev, trace)``: the counters rows, the shots buffer and the trace (:func:`tactical_nb`).
        run: ``(g, ev_n, stop, length, vis_base, record, check, tracing)`` ints: the game's row, the
            shots so far, the last Game-Turn to play now, the scenario's last Game-Turn, base
            visibility (hexes) and the 0/1 switches.

    Returns:
        ``ev_n``: the shots rows so far (past ``ev``'s end when the buffer filled up).
    """
    rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt = tb
    pc, kn = pol
    sh, fm, trail, dy, rng, smoke, pcs = gs
    out, ev, trace = io
    g, ev_n, stop, length, vis_base, record, check, tracing = run
    if dy[L.DY_PHASE] != L.PHASE_PLAYING:
        return ev_n
    n = st.shape[0]
    desig = scr[L.SCR_DESIG]
    displaced = scr[L.SCR_DISPLACED]
    buf = scr[L.SCR_BUF]
    mx = scr[L.SCR_MX]
    mz = scr[L.SCR_MZ]
    md = scr[L.SCR_MD]
    mowner = scr[L.SCR_MOWNER]
    nmark = scr[L.SCR_NMARK]
    fscr = FireScratch(desig, scr[L.SCR_NFIRE], scr[L.SCR_SHOT], scr[L.SCR_CRT_OUT])
    _clear_scratch_nb(scr)
    campaign = sc[L.SC_CAMPAIGN] != 0
    turn = dy[L.DY_TURN]
    contact = dy[L.DY_CONTACT]
    nosight = dy[L.DY_NOSIGHT]
    ended_by = dy[L.DY_ENDED_BY]
    reason = dy[L.DY_REASON]
    exit_met = dy[L.DY_EXIT_MET]
    idle = dy[L.DY_IDLE]
    vis = dy[L.DY_VIS]
    last = min(length, stop)
    over = False
    while turn < last:
        turn += 1
        # ---- 1. visibility (5.71; carried over for one turn after contact, 9.32) and sighting (9.42)
        vis = visibility_roll_nb(vis_base, rl, rng, dy)
        if campaign:
            dy[L.DY_ENTERED] += enter_delayed_nb(st, sh, fm, trail, n, turn, vis, rl, sc, rng, buf, displaced)
        if sighting_nb(st, sh, n, vis):
            nosight = 0
            if contact == 0:
                contact = turn
        elif contact > 0 or not campaign:
            # 9.42: three consecutive Game-Turns with no sighting end a scenario, counted from
            # Game-Turn One in a historical scenario (ruling DN-E2)
            nosight += 1
        # ---- 2. fire plot
        fire_plot_phase_nb(st, sc, tb, pol, gs, scr, vis, turn)
        # ---- 3. fire execution
        harm = harm_nb(sh, n)
        ev_n = fire_execution_nb(st, sh, n, tb, rng, fscr, io, ShotLog(g, turn, record, ev_n))
        # torpedo attacks: markers are placed when movement starts (8.0, 8.51-8.52); each side
        # knows where its own will run when it plots its movement
        nmark[0] = launch_torpedoes_nb(st, sh, n, sc[L.SC_TORP_MA], tracks, mx, mz, md, mowner, out, g)
        # ---- 4. movement plot
        movement_plot_phase_nb(st, sc, tb, pol, gs, scr, vis)
        # ---- 5. movement execution with the Torpedo Markers (8.0)
        ev_n, ended_by = movement_execution_nb(st, sc, tb, gs, scr, io, turn, ended_by, g, ev_n, record)
        # 9.43: a Game-Turn in which no ship took damage from gunfire or torpedoes
        idle = idle + 1 if harm_nb(sh, n) == harm else 0
        if check:
            out[g, L.O_VIOLATIONS] += invariants_nb(st, sh, n, sc, rl)
        if tracing and turn < trace.shape[0] - 1:
            _trace_nb(trace, turn, sh, n)
        # ---- 6. damage control
        damage_control_nb(st, sh, n, rl, rng)
        # ---- end of the Game-Turn
        r = scenario_end_nb(st, sh, n, sc, rl, turn, nosight)
        if r < 0 and agreed_nb(kn, idle, campaign, rng):
            r = END_AGREEMENT
        if r >= 0:
            reason = r
            if r == END_OBJECTIVE:
                exit_met = 1
            over = True
            break
    dy[L.DY_TURN] = turn
    dy[L.DY_CONTACT] = contact
    dy[L.DY_NOSIGHT] = nosight
    dy[L.DY_ENDED_BY] = ended_by
    dy[L.DY_REASON] = reason
    dy[L.DY_EXIT_MET] = exit_met
    dy[L.DY_IDLE] = idle
    dy[L.DY_VIS] = vis
    if over or turn >= length:
        dy[L.DY_CONTACT_END] = 0 if reason == END_NO_SIGHTING else (1 if sighting_nb(st, sh, n, vis) else 0)
        dy[L.DY_PHASE] = L.PHASE_ENDED
    return ev_n


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)   # allocates: reference counting kept under a nrt=False caller
def game_state_nb(sh0, fm0, trail0):
    """A game's state arrays for a scenario's set-up (shapes of ``sh0``, ``fm0``, ``trail0``):
    ``(sh, fm, trail, dy, rng, smoke, pcs)``, see :func:`begin_nb`; ``rng`` ``uint64[STATE_WORDS]``."""
    n = sh0.shape[0]
    return (np.zeros_like(sh0), np.zeros_like(fm0), np.zeros_like(trail0), np.zeros(L.NDY, dtype=np.int64),
            np.zeros(STATE_WORDS, dtype=np.uint64), np.zeros((n * (L.MAXMP + 1) + 1, 2), dtype=np.int64),
            np.zeros((2, L.NPC), dtype=np.int64))


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)   # array copies: reference counting kept
def new_game_nb(seed, setup, sc, pc, rl, gs, vis_base, out, g):
    """A historical scenario's state before Game-Turn One (Rules 4.0, 10.x): the game's stream
    from ``seed``, the set-up ``setup = (sh0, fm0, trail0)`` copied in, ``out[g]`` cleared, the
    sun rolled (12.5, optional) and :func:`begin_nb`."""
    sh0, fm0, trail0 = setup
    sh, fm, trail, dy, rng = gs[0], gs[1], gs[2], gs[3], gs[4]
    new_state_nb(seed, rng)
    sh[:, :] = sh0
    fm[:, :] = fm0
    trail[:, :, :] = trail0
    for k in range(L.NOUT):
        out[g, k] = 0
    reset_dy_nb(dy)
    if rl[L.RL_OPT_SUN]:
        dy[L.DY_SUN] = sun_roll_nb(rng, rl)
    begin_nb(sc, pc, gs, 0, vis_base)


@kernel(error_model="numpy", no_cpython_wrapper=True)
def score_game_nb(st, sc, vp, gs, out, g):
    """The accounting of a game that is over (Rules 9.5, 10.x): ``out[g]``'s Game-Turns, end,
    contact and result (:func:`.damage.final_result_nb`); the state becomes ``PHASE_SCORED``."""
    sh, dy = gs[0], gs[3]
    out[g, L.O_TURNS] = dy[L.DY_TURN]
    out[g, L.O_END] = dy[L.DY_REASON]
    out[g, L.O_CONTACT] = dy[L.DY_CONTACT]
    final_result_nb(st, sh, st.shape[0], sc, vp, out, g, dy[L.DY_ENDED_BY], dy[L.DY_CONTACT_END], dy[L.DY_EXIT_MET])
    dy[L.DY_PHASE] = L.PHASE_SCORED


@kernel(error_model="numpy", nogil=True, nrt=True)   # allocates: reference counting kept under a nrt=False caller
def play_batch_nb(seeds, start, st, setup, sc, tb, pol, opt, out, ev, trace):
    """Play games ``start..len(seeds)-1``, one per seed (Rules 4.0-9.5): each game's initial state
    (:func:`new_game_nb`), played on to its end (:func:`play_on_nb`), then the accounting of 9.5
    and 10.x (:func:`score_game_nb`).

    Args:
        seeds: ``uint64[g]``; start: first game to play.
        st, sc: the compiled scenario (:mod:`.scenario`); setup: its ``(sh0, fm0, trail0)``.
        tb: the compiled rules ``(rl, dpt, band_low, crt, range_tab, tracks, eff_gun, eff_crt)``
            (``rl`` with the run's optional-rule switches).
        pol: ``(pc, kn)``: ``int64[2, NPC]`` policy codes, ``float64[2, NKN]`` policy knobs.
        opt: ``int64[4]``: game length (Game-Turns), visibility base (hexes), record shots (0/1),
            check invariants after every Movement Phase (0/1; counted in ``O_VIOLATIONS``).
        out: ``int64[g, NOUT]`` results, written; ev: ``int32[cap, NEV]`` shots, written.
        trace: ``int64[turns + 2, n, NTR]``: game 0's units after set-up (row 0), after the
            Movement Phase of each Game-Turn t (row t) and at the end (last row); a zero-length
            array for none.

    Returns:
        ``(next_game, ev_rows)``: ``next_game < len(seeds)`` when the shots buffer filled up
        during that game (call again from it with a bigger buffer); ``ev_rows`` rows written.
    """
    n = st.shape[0]
    rl = tb[0]
    length = opt[0]
    vis_base = opt[1]
    record = opt[2]
    check = opt[3]
    vp = vp_table_nb(rl)
    gs = game_state_nb(setup[0], setup[1], setup[2])
    scr = scratch_nb(st, rl, tb[2])     # this call's work arrays (thread-safe: one set per call)
    io = (out, ev, trace)
    ev_n = 0
    for g in range(start, seeds.shape[0]):
        ev_start = ev_n
        new_game_nb(seeds[g], setup, sc, pol[0], rl, gs, vis_base, out, g)
        tracing = 1 if g == 0 and trace.shape[0] > 0 else 0
        if tracing:
            _trace_nb(trace, 0, gs[0], n)
        ev_n = play_on_nb(st, sc, tb, pol, gs, scr, io, (g, ev_n, length, length, vis_base, record, check, tracing))
        if tracing:
            _trace_nb(trace, trace.shape[0] - 1, gs[0], n)
        if ev_n > ev.shape[0]:
            return g, ev_start
        score_game_nb(st, sc, vp, gs, out, g)
    return seeds.shape[0], ev_n


@kernel(error_model="numpy", nogil=True, nrt=True)   # allocates: reference counting kept under a nrt=False caller
def new_games_nb(seeds, st, setup, sc, tb, pol, opt, states, out):
    """Every game's state before Game-Turn One (:func:`new_game_nb`), one per seed, into
    ``states = (sh, fm, trail, dy, rng, smoke, pcs)`` with a leading game axis (``sh[g]`` is game
    g's ``sh``); ``out[g]`` cleared. Arguments as :func:`play_batch_nb`."""
    for g in range(seeds.shape[0]):
        gs = (states[0][g], states[1][g], states[2][g], states[3][g], states[4][g], states[5][g], states[6][g])
        new_game_nb(seeds[g], setup, sc, pol[0], tb[0], gs, opt[1], out, g)


@kernel(error_model="numpy", nogil=True, nrt=True)   # allocates: reference counting kept under a nrt=False caller
def play_states_nb(start, stop, st, setup, sc, tb, pol, opt, states, out, ev):
    """Play games ``start..`` on from their states ``states`` (:func:`new_games_nb`'s layout) until
    Game-Turn ``stop`` is played or they end (:func:`play_on_nb`), scoring the games that end
    (:func:`score_game_nb`); arguments as :func:`play_batch_nb`. Each game is played on a copy of
    its state, written back only when its shots fitted in ``ev``.

    Returns:
        ``(next_game, ev_rows)`` as :func:`play_batch_nb` (game ``next_game``'s state and
        ``out`` row are as they were when the buffer filled up).
    """
    rl = tb[0]
    vp = vp_table_nb(rl)
    gs = game_state_nb(setup[0], setup[1], setup[2])
    scr = scratch_nb(st, rl, tb[2])
    row = np.zeros(L.NOUT, dtype=np.int64)
    io = (out, ev, np.zeros((0, st.shape[0], L.NTR), dtype=np.int64))
    ev_n = 0
    for g in range(start, out.shape[0]):
        if states[3][g, L.DY_PHASE] == L.PHASE_SCORED:
            continue
        _copy_state_nb(states, g, gs, True)
        row[:] = out[g]
        ev_start = ev_n
        ev_n = play_on_nb(st, sc, tb, pol, gs, scr, io, (g, ev_n, stop, opt[0], opt[1], opt[2], opt[3], 0))
        if ev_n > ev.shape[0]:
            out[g] = row
            return g, ev_start
        if gs[3][L.DY_PHASE] == L.PHASE_ENDED:
            score_game_nb(st, sc, vp, gs, out, g)
        _copy_state_nb(states, g, gs, False)
    return out.shape[0], ev_n


@kernel(error_model="numpy", no_cpython_wrapper=True, nrt=True)   # array copies: reference counting kept
def _copy_state_nb(states, g, gs, into):
    # game g's state into the single-game state gs (into) or back
    if into:
        gs[0][:, :] = states[0][g]
        gs[1][:, :] = states[1][g]
        gs[2][:, :, :] = states[2][g]
        gs[3][:] = states[3][g]
        gs[4][:] = states[4][g]
        gs[5][:, :] = states[5][g]
        gs[6][:, :] = states[6][g]
    else:
        states[0][g] = gs[0]
        states[1][g] = gs[1]
        states[2][g] = gs[2]
        states[3][g] = gs[3]
        states[4][g] = gs[4]
        states[5][g] = gs[5]
        states[6][g] = gs[6]
