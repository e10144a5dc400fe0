"""Named slots of the fixed-width integer arrays the Dreadnought kernels work on.

One game's state is a handful of ``int64`` arrays; their columns are named here so that every
kernel reads the same layout.

``st``   static unit values, ``int64[n, NST]`` (one row per unit, side 0's units first)::

    side kind attack defense range movement torp value named exit_ok no_about_face
    type radar planes

    (type: TYPE_CAPITAL/CA/CL/DD; radar, planes: 1 where the unit may use fire-control radar
    (Rule 12.21) or spotting planes (12.22) when that optional rule is on.)

``sh``   dynamic unit state, ``int64[n, NSH]``::

    x z facing speed G S dc status formation cursor torp_left safe target sb pending_upon
    pend_G pend_S pend_sunk torp_track torp_arc mp torp_hits exit_turn plan_x plan_z plan_f
    fire_mod fired smoke tow towed_by tow_wait task_force entry_turn off_x off_z unhalved

    (fire_mod: DPT roll modifier of the plotted main-battery shot (radar, planes, sun; Rules
    12.21-12.22, 12.52); fired: the unit fired its guns this scenario (11.3); smoke: it lays smoke
    this Movement Phase (12.11); tow/towed_by: the unit it tows / is towed by, -1 none (12.4);
    tow_wait: Game-Turns the pair has lain motionless together; task_force: campaign Task Force
    (9.21), -1 none; entry_turn: Game-Turn a delayed Task Force enters (9.28); off_x, off_z: the
    unit's place in its Task Force's cruising formation, facing north (9.21, 9.25); unhalved: 1
    where the Fire Plot designates the unit as its target's one unhalved firer, Rule 5.31.)

    (x, z: cube coordinates; facing 0..5 = N..NW; speed: MP expended last Game-Turn (Rule 6.4);
    G, S: damage steps 0..2 (Rule 5.41-5.42); dc: damage steps removed so far (Rule 5.44);
    target/sb: plotted main and secondary-battery targets (-1 none); torp_track/torp_arc: plotted
    torpedo attack (-1 none); mp: MP plotted for this Movement Phase.)

``fm``   formations, ``int64[n, NFM]`` (at most one per unit)::

    mode flagship head members t1 l1 t2 l2 mp leg2c m1

    (leg2c, Rule 6.24: 1 a line abreast formation's policy asks for its second leg in column,
    2 the kept plot makes it so, the first leg ending at path entry m1)

``trail`` the wake of a column's flagship, ``int64[n, TRAIL, 3]`` (x, z, facing per entry; a
    member at cursor c occupies entry c mod TRAIL; Rule 6.22).

``sc``   scenario scalars, ``int64[NSC]``; ``rl`` rule scalars from the data pack, ``int64[NRL]``
    (the optional rules' switches, RL_OPT_*, are set per run); ``dy`` a scenario's running
    state, ``int64[NDY]``;
``out``  one row of results per game, ``int64[g, NOUT]``; ``ev`` one row per shot, ``int32[cap, NEV]``.

The output records (``out``, the campaigns' ``go`` and ``rs``, ``ev``) are declared once at the end, as
:mod:`simlab.games.records` Records of Fields (``BATTLE_RECORD``, ``CAMPAIGN_RECORD``, ``SHOT_RECORD``,
``SCENARIO_RECORD``): the columns, the façades' conversion and the schema come from them.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..packing import KnobRow, PolicyPacking
from ..records import Field, Record
from .enums import (
    ARC_NAMES,
    CAMPAIGN_SCENARIOS,
    END_REASONS,
    LEVEL_NAMES,
    NAVIES,
    PERIODS,
    RESULT_NAMES,
    SHOT_KIND_NAMES,
    SUN_NAMES,
)

#: an upper bound on the slots of any record below: each record unpacks its names from
#: ``range(SLOTS_MAX)``, so its width is its last name + 1 and nobody counts slots by hand
#: (``tests/test_dreadnought_layout.py`` checks every record's names are exactly ``0 .. width - 1``)
SLOTS_MAX = 256

# ---- st: static unit values
(ST_SIDE, ST_KIND, ST_ATT, ST_DEF, ST_RNG, ST_MOV, ST_TORP, ST_VAL, ST_NAMED, ST_EXIT, ST_NOABOUT, ST_TYPE,
 ST_RADAR, ST_PLANES, *_) = range(SLOTS_MAX)
NST = ST_PLANES + 1

# ---- sh: dynamic unit state
(SH_X, SH_Z, SH_F, SH_SPD, SH_G, SH_S, SH_DC, SH_STATUS, SH_FORM, SH_CUR, SH_TLEFT, SH_SAFE, SH_TGT,
 SH_SB, SH_UPON, SH_PG, SH_PS, SH_PSUNK, SH_TTRACK, SH_TARC, SH_MP, SH_TORPHIT, SH_EXIT_TURN,
 SH_PX, SH_PZ, SH_PF, SH_FMOD, SH_FIRED, SH_SMOKE, SH_TOW, SH_TOWED_BY, SH_TOW_WAIT, SH_TF, SH_ENTRY, SH_OX,
 SH_OZ, SH_UNHALVED, *_) = range(SLOTS_MAX)
NSH = SH_UNHALVED + 1
#: columns that start at -1 (no target, no track, no tow, ...)
SH_MINUS_ONE = (SH_TGT, SH_SB, SH_TTRACK, SH_EXIT_TURN, SH_TOW, SH_TOWED_BY, SH_TF, SH_ENTRY)

# ---- fm: formations
FM_MODE, FM_FLAG, FM_HEAD, FM_MEMBERS, FM_T1, FM_L1, FM_T2, FM_L2, FM_MP, FM_LEG2C, FM_M1, *_ = range(SLOTS_MAX)
NFM = FM_M1 + 1
TRAIL = 64          # entries in a column's wake ring (a column may be at most TRAIL - MAXMP - 1 long)
MAXMP = 16          # the most Movement Points any unit may expend in one Game-Turn
MAXTRACK = 8        # the longest torpedo track (Rule 8.6 needs 5)

# ---- sc: scenario scalars
(SC_N, SC_N0, SC_LENGTH, SC_VIS_BASE, SC_TORP_MA, SC_VC, SC_VC_SIDE, SC_START_VP0, SC_START_VP1,
 SC_ROLE0, SC_CONF, SC_CONF_C0, SC_CONF_C1, SC_CONF_R0, SC_CONF_R1, SC_EXIT, SC_EXIT_SIDE, SC_EXIT_C0,
 SC_EXIT_C1, SC_EXIT_R0, SC_EXIT_R1, SC_EXIT_SCORES, SC_EXIT_NEED, SC_EXIT_DEADLINE, SC_SAFE_N_ROW,
 SC_SAFE_S_ROW, SC_NFORM, SC_SHOTS, SC_CAMPAIGN, SC_MAP_C0, SC_MAP_C1, SC_MAP_R0, SC_MAP_R1, SC_NORTH_STAY,
 SC_SCEN, SC_YEAR, *_) = range(SLOTS_MAX)
NSC = SC_YEAR + 1

# ---- rl: rule scalars (from the data pack)
(RL_FIRED_UPON, RL_BOW_STERN, RL_COMBING, RL_SB_RANGE, RL_SB_COL, RL_DC_G, RL_DC_S, RL_STACK,
 RL_TORP_TURN, RL_TORP_SCEN, RL_E_SINK_A, RL_E_SINK_B, RL_VP1, RL_VP2, RL_VP3, RL_VP4, RL_TURN2,
 RL_TURN3, RL_ACCEL_PCT, RL_DECEL_PCT, RL_NO_SIGHT, RL_VIS_DIE, RL_MAX_G, RL_MAX_S, RL_NBANDS,
 RL_NCOLS, RL_NTRACKS, RL_TRACKLEN, RL_HALVE_MULTI,
 # optional rules (12.1-12.5): switches (set per run) and values (optional_rules table)
 RL_OPT_SMOKE, RL_OPT_RADAR, RL_OPT_PLANES, RL_OPT_CREEP, RL_OPT_TOWING, RL_OPT_SUN, RL_RADAR_YEAR, RL_RADAR_MOD,
 RL_PLANES_YEAR, RL_PLANES_MOD, RL_CREEP_MP, RL_TOW_WAIT, RL_TOW_MP, RL_SUN_RISE, RL_SUN_SET, RL_SUN_T0, RL_SUN_T1,
 RL_SUN_TOWARD, RL_SUN_AWAY, *_) = range(SLOTS_MAX)
NRL = RL_SUN_AWAY + 1

# ---- dy: a scenario's running state, int64[NDY] (first Game-Turn and MP a side's unit moved off
#      the initial Map Area (11.3-11.4), sun (12.5), withdrawal, smoke markers, visibility carried
#      over after contact (9.32)), then the game loop's own counters, so that a game stopped after a
#      Game-Turn can be continued from its state (kernels.turn.play_on_nb): the Game-Turns played,
#      the Game-Turn of first contact, consecutive Game-Turns without sighting (9.42), the side that
#      first reached its safe zone (-1: none), the end reason (END_*) and objective met, Game-Turns
#      in a row without damage (9.43), this Game-Turn's visibility, contact at the end, the
#      game's phase (PHASE_PLAYING, PHASE_ENDED: over but not yet scored, PHASE_SCORED), and whether
#      the South's capital ships hold fire in campaign scenario B (11.3; -1 not yet decided: a
#      `bombard_hold` of -1 is drawn at the first Fire Plot Phase)
(DY_OFF_TURN0, DY_OFF_TURN1, DY_OFF_MP0, DY_OFF_MP1, DY_SUN, DY_WITHDRAW0, DY_WITHDRAW1, DY_NSMOKE,
 DY_SMOKE_LAID, DY_VIS_CARRY, DY_TOWS, DY_ENTERED, DY_TURN, DY_CONTACT, DY_NOSIGHT, DY_ENDED_BY, DY_REASON,
 DY_EXIT_MET, DY_IDLE, DY_VIS, DY_CONTACT_END, DY_PHASE, DY_HOLD, *_) = range(SLOTS_MAX)
NDY = DY_HOLD + 1
#: values of ``dy[DY_PHASE]``
PHASE_PLAYING, PHASE_ENDED, PHASE_SCORED = 0, 1, 2
NEVER = 1 << 40

# ---- scr: the game loop's work arrays, a tuple (kernels.turn.scratch_nb); SCR_* are its positions
(SCR_PX, SCR_PZ, SCR_PF, SCR_PLANNED, SCR_EXIT_MP, SCR_ALIVE, SCR_MPU, SCR_ORDER, SCR_CNT, SCR_DESIG,
 SCR_DISPLACED, SCR_PRED, SCR_BUF, SCR_CAND, SCR_SCORES, SCR_MX, SCR_MZ, SCR_MD, SCR_MOWNER, SCR_NMARK,
 SCR_NMARK0, SCR_PPX, SCR_PPZ, SCR_HITMASK, SCR_HITS, SCR_SHOT, SCR_CRT_OUT, SCR_SMOKE, SCR_SMOKE_NEW,
 SCR_PCS, SCR_NFIRE, SCR_FS, SCR_MW) = range(33)
NSCR = SCR_MW + 1

# ---- out: one row per game
(O_WINNER, O_LEVEL, O_SCORE0, O_SCORE1, O_TURNS, O_END, O_ENDED_BY, O_SUNK0, O_SUNK1, O_WRECKED0,
 O_WRECKED1, O_EXITED0, O_EXITED1, O_TORP0, O_TORP1, O_FRIENDLY_TORP, O_SHOTS0, O_SHOTS1, O_DISPLACED,
 O_CONTACT, O_LAUNCH0, O_LAUNCH1, O_VIOLATIONS, O_RESTACKED, O_WASTED0, O_WASTED1, *_) = range(SLOTS_MAX)
# simlab luck: 3 slots per side at O_LUCK_DEALT0 + 3 * side: damage steps its attacks dealt, then
# their expected value times LUCK_SCALE and their variance times LUCK_SCALE**2 (exact integers:
# every probability of an attack is a multiple of 36**-3; kernels.fire.record_luck_nb)
(O_LUCK_DEALT0, O_LUCK_MEAN0, O_LUCK_VAR0, O_LUCK_DEALT1, O_LUCK_MEAN1,
 O_LUCK_VAR1) = range(O_WASTED1 + 1, O_WASTED1 + 7)
LUCK_SCALE = 36 ** 3
NOUT = O_LUCK_VAR1 + 1

# ---- ev: one row per shot
(E_GAME, E_TURN, E_KIND, E_FIRER, E_TARGET, E_RANGE, E_STRENGTH, E_HALVED, E_UPON, E_ARC, E_DPT_ROLL,
 E_DP, E_RATIO, E_CRT_ROLL, E_RESULT, E_COMBING, *_) = range(SLOTS_MAX)
NEV = E_COMBING + 1

# ---- tr: trace of one game, int64[turns + 2, n, NTR] (row 0 set-up, row t after the Movement
#      Phase of Game-Turn t, last row the final state)
TR_X, TR_Z, TR_F, TR_G, TR_S, TR_STATUS, TR_MP, TR_FORM, TR_DC, *_ = range(SLOTS_MAX)
NTR = TR_DC + 1

# ---- eff_gun: the last axis of the policies' gunfire table (rules.RuleArrays.eff_gun): expected
#      share of an undamaged target's value, probability of each result code (RES_*, 11 codes),
#      expected Damage Points
EFF_SHARE = 0
EFF_P0 = 1
EFF_DP = EFF_P0 + 11
NEFF = EFF_DP + 1

# ---- kn: policy knobs, float64[2, NKN]
(K_RANGE, K_BROADSIDE, K_TORP_MIN, K_NEAR, K_SAFE, K_THREAT, K_SCREEN_RANGE, K_PARALLEL, K_TURNCOST,
 K_SUPPORT, K_WITHDRAW, K_SPEED, K_ON_GOAL, K_RUN_SPEED, K_SPREAD, K_DEFENSIVE, K_BOMBARD_HOLD, K_DELAY,
 K_SUPPRESS, K_CONCENTRATE, K_OBJECTIVE, K_WRECKS, K_AGREE, K_AGREE_HIST, K_TOW_BREAK, K_SB, K_TOW_CLEAR,
 K_TOW_CAPITAL, *_) = range(SLOTS_MAX)
NKN = K_TOW_CAPITAL + 1

# ---- pc: policy codes, int64[2, NPC]
# (issue 28's tactical choices: PC_DISPLACE, PC_DISP_STAYS the 6.13 displacement hex and whether the
# displaced ship stays in its formation; PC_FLAGSHIP 6.26; PC_MERGE 6.27; PC_REJOIN 6.28; PC_SMOKE 12.11)
(PC_MOVE, PC_FIRE, PC_TORP, PC_MODE, PC_KEEP_SLOW, PC_KEEP_DAMAGED, PC_DISPLACE, PC_DISP_STAYS, PC_FLAGSHIP,
 PC_MERGE, PC_REJOIN, PC_SMOKE, *_) = range(SLOTS_MAX)
NPC = PC_SMOKE + 1

#: how a side's policy reaches the kernels (simlab.games.packing): knob NAME of the `scripted`
#: family (policies.toml) in pc[side, PC_NAME] (the integer codes) or kn[side, K_NAME] (the
#: weights; an int knob there as a float), or one of host_knobs, which the runtime reads before the
#: kernels run (campaign.campaign_parameters: the fleet builder 11.8, the allocation 11.0/11.6, the
#: cruising formation and tour 9.21/9.22). Adding a knob: its line in policies.toml and its constant
#: K_NAME (or PC_NAME) in the tuple above, before NKN (NPC); the framework checks the rest.
POLICY_PACKING = PolicyPacking(
    Path(__file__).parent / "policies.toml",
    rows=(KnobRow("pc", np.int64, sys.modules[__name__], "PC_", NPC,
                  aliases={"movement": "PC_MOVE", "torpedoes": "PC_TORP", "formation": "PC_MODE",
                           "displaced_stays": "PC_DISP_STAYS"}),
          KnobRow("kn", np.float64, sys.modules[__name__], "K_", NKN, aliases={"agree_historical": "K_AGREE_HIST"})),
    host_knobs=("builder", "allocation", "stack", "tour"),
)

# ==================================================================================================
# the campaign (Rules 9.2-9.3, 11.0-11.9) and the extended campaign (12.6)
# ==================================================================================================
# ---- po: a navy's available units (its national fleet listing, 11.1), int64[2, P, NPO] by player
#      (player 0 the `north` option's navy, player 1 the `south` option's)::
#
#      kind type attack defense range movement torp value radar planes label
(PO_KIND, PO_TYPE, PO_ATT, PO_DEF, PO_RNG, PO_MOV, PO_TORP, PO_VAL, PO_RADAR, PO_PLANES, PO_LABEL, *_) = range(SLOTS_MAX)
NPO = PO_LABEL + 1

# ---- ps: each unit's standing in a player's fleet, int64[2, P, NPS]::
#
#      status G S build_turn    (status PS_*: not owned, in the fleet, permanently damaged, lost,
#                                scheduled for construction; G, S: damage states left, 12.64)
PS_STATUS, PS_G, PS_S, PS_BUILD, *_ = range(SLOTS_MAX)
NPS = PS_BUILD + 1
PS_NONE, PS_FLEET, PS_DAMAGED, PS_LOST, PS_SCHEDULED = 0, 1, 2, 3, 4

# ---- cp: the campaign's parameters, int64[NCP] (options and data-pack values)
(CP_LIMIT0, CP_LIMIT1, CP_BUILD0, CP_BUILD1, CP_ALLOC0, CP_ALLOC1, CP_IBONUS, CP_DELAY, CP_VIS_DICE,
 CP_TURN_LIMIT, CP_BONUS_M, CP_BONUS_S, CP_BONUS_D, CP_IB_MIN, CP_IB_MAX, CP_DELAY_LAST, CP_EXTENDED,
 CP_TREASURY0, CP_TREASURY1, CP_BUILD_LIMIT, CP_LAST_TURN, CP_REPAIR_PCT, CP_DC_COST, CP_PEACE_DICE, CP_CHECK,
 CP_APPROACH_CAP, CP_TORP_SCEN, CP_STACK0, CP_STACK1, CP_TOUR0, CP_TOUR1, *_) = range(SLOTS_MAX)
# CP_STACK0/1, CP_TOUR0/1: each player's approach choices (9.21 capital ships per stack of the cruising
# formation, 9.22 the tour of the lettered hexes; -1 at random), its policy's knobs ``stack``, ``tour``
NCP = CP_TOUR1 + 1

# ---- ck: one campaign game's clock, int64[NCK] (kernels.campaign_loop.play_on_nb; issue 27): its phase
#      (CK_PHASE: PH_*), the Extended Campaign Game-Turn reached (0 in a Campaign Game), the next
#      scenario (0-3 = A-D), the player who is North, the Interception Bonus, the campaign VPs of the
#      campaign game by role, the treasuries by player, the extended campaign's end (EXT_*), the rows
#      written and the first row of the campaign game under way
(CK_PHASE, CK_TURN, CK_SCEN, CK_NORTH, CK_IB, CK_TOT0, CK_TOT1, CK_TREAS0, CK_TREAS1, CK_END, CK_NROW,
 CK_BEFORE, *_) = range(SLOTS_MAX)
NCK = CK_BEFORE + 1
#: the phases of a campaign game: a campaign game to begin (peace roll and coin, allocation), a
#: scenario to play next, a campaign game just played (scoring; repairs and construction), over
PH_GAME, PH_SCEN, PH_AFTER, PH_OVER = 0, 1, 2, 3

# ---- ta: the Task Forces of one campaign scenario, int64[NTF, NTA] (Rules 9.21-9.28); Task Force
#      k of side s is row 2 * s + k (k = 0 the main body, 1 the delayed light forces)
(TA_SIDE, TA_MEMBERS, TA_SPEED, TA_ENTRY, TA_STATE, TA_X, TA_Z, TA_F, TA_TOUR, TA_LEG, TA_TX, TA_TZ, TA_EX,
 TA_EZ, TA_EF, *_) = range(SLOTS_MAX)
NTA = TA_EF + 1
NTF = 4
TF_WAITING, TF_MARKER, TF_PLACED = 0, 1, 2

# ---- rs: one row per campaign scenario (the events table `scenarios`), int64[k, NRS]; per side
#      columns are by role (0 North, 1 South); RS_NORTH says which player was North
(RS_GAME, RS_EXT_TURN, RS_SCEN, RS_NORTH, RS_UNITS0, RS_UNITS1, RS_VALUE0, RS_VALUE1, RS_CAP_ATT1, RS_VIS_BASE,
 RS_CONTACT, RS_TURNS, RS_END, RS_ENDED_BY, RS_OFF_FIRST, RS_DAMAGE0, RS_DAMAGE1, RS_BONUS0, RS_BONUS1,
 RS_BOMBARD, RS_IBONUS, RS_INTERCEPT0, RS_INTERCEPT1, RS_SCORE0, RS_SCORE1, RS_WINNER, RS_LEVEL, RS_SUNK0,
 RS_SUNK1, RS_WRECKED0, RS_WRECKED1, RS_SHOTS0, RS_SHOTS1, RS_TORP0, RS_TORP1, RS_COLLISIONS, RS_SUN,
 RS_DELAYED, RS_TOWED0, RS_TOWED1, RS_SCUTTLED0, RS_SCUTTLED1, RS_CURED0, RS_CURED1, RS_VIOLATIONS,
 RS_WITHDREW0, RS_WITHDREW1, RS_SMOKE, RS_WASTED0, RS_WASTED1, *_) = range(SLOTS_MAX)
# simlab luck, by role: the O_LUCK* slots of the scenario's tactical game (same fixed point, LUCK_SCALE)
(RS_LUCK_DEALT0, RS_LUCK_MEAN0, RS_LUCK_VAR0, RS_LUCK_DEALT1, RS_LUCK_MEAN1,
 RS_LUCK_VAR1) = range(RS_WASTED1 + 1, RS_WASTED1 + 7)
NRS = RS_LUCK_VAR1 + 1

# ---- go: one row per game, int64[g, NGO]; per side columns are by player; GO_TREAS0/1 hold
#      13 values each (the treasury before Extended Campaign Game-Turn 1 and after each of 12)
(GO_WINNER, GO_LEVEL, GO_SCORE0, GO_SCORE1, GO_TURNS, GO_END, GO_FLEET_VALUE0, GO_FLEET_VALUE1,
 GO_FLEET_UNITS0, GO_FLEET_UNITS1, GO_FLEET_CAP0, GO_FLEET_CAP1, GO_ROWS, GO_BUILT0, GO_BUILT1,
 GO_REPAIRED0, GO_REPAIRED1, GO_SCUTTLED0, GO_SCUTTLED1, GO_LOST0, GO_LOST1, GO_NORTH_TURNS0,
 GO_PEACE_TURN, GO_SCHEDULED0, GO_SCHEDULED1, *_) = range(SLOTS_MAX)
GO_TREAS0 = GO_SCHEDULED1 + 1
GO_TREAS1 = GO_TREAS0 + 13
NGO = GO_TREAS1 + 13

# ==================================================================================================
# the output records (simlab.games.records): every slot of out, go, ev and rs declared once, with the
# columns' name, type, unit and meaning; the façades' conversion to columns (game._batch,
# campaign.campaign_batch), the schema (``simlab schema dreadnought``, the README tables) and a slot
# check (Record.check) come from them. Adding a column: its slot above and its Field below.
# ==================================================================================================
#: the historical scenarios (10.1-10.7) and the campaigns (11.0-11.9, 12.6): the scenarios each field is written in
BATTLES = ("dogger-bank", "denmark-strait", "north-cape", "singora", "surigao-strait", "guam", "jutland")
CAMPAIGNS = ("campaign", "extended-campaign")
CAMPAIGN, EXTENDED = CAMPAIGNS[:1], CAMPAIGNS[1:]
#: the campaign scenarios A-D as the games table's columns name them
SCEN = tuple(s.lower() for s in CAMPAIGN_SCENARIOS)
#: the player sides of the campaigns (and the roles of the events table scenarios: 0 North, 1 South)
SIDES = ("north", "south")
#: the condition of the events table shots
SHOTS_WHEN = "option shots = true"

# ---- columns the battles' and the campaigns' games tables share (one declaration each: the schema
#      shows each once, with the union of their types and scenarios)
VICTORY_LEVEL = Field("victory_level", "string", "label",
    "draw, objective, marginal, substantial or decisive (9.55; in the campaign on the totals over "
    "A-D)",
    "O_LEVEL", labels=LEVEL_NAMES, scenarios=BATTLES)
VIOLATIONS = Field("violations", "int16", "count",
    "invariant violations found (0 in a correct game; counted only under the option check_invariants)",
    "O_VIOLATIONS")
#: simlab luck (every scenario; from the odds, no extra draw): damage steps the side's attacks dealt,
#: their mean and variance (fixed point in LUCK_SCALE in the row; kernels.fire.record_luck_nb)
LUCK = (
    Field("luck_dealt_{side}", "float64", "damage steps",
        "damage steps that side's gun, secondary and torpedo attacks dealt the enemy (a sinking counted "
        "as 2G 2S); campaigns: that player's, summed over every scenario it played",
        "O_LUCK_DEALT0", side_stride=3),
    Field("luck_mean_{side}", "float64", "damage steps",
        "expected damage steps of those same attacks over their odds (DPT/CRT, 5.4-5.8)",
        "O_LUCK_MEAN0", side_stride=3, divide=float(LUCK_SCALE)),
    Field("luck_var_{side}", "float64", "damage steps squared",
        "variance of the damage steps of those same attacks",
        "O_LUCK_VAR0", side_stride=3, divide=float(LUCK_SCALE) ** 2),
)

#: the games table of a historical scenario: every slot of ``out`` (layout ``O_*``); labels ``ended_by``:
#: ``("none", *sides)``
BATTLE_RECORD = Record(sys.modules[__name__], NOUT, (
    Field("winner", "int8", slot="O_WINNER", schema=False),  # the framework's column
    VICTORY_LEVEL,
    Field("score_{side}", "int32", "VP",
          "Victory Points of that side (9.5)",
          "O_SCORE0", scenarios=BATTLES),
    Field("turns", "int16", "Game-Turns",
          "Game-Turns played",
          "O_TURNS", scenarios=BATTLES),
    Field("end_reason", "string", "label",
          "game_length, no_sighting (9.42), side_gone or objective",
          "O_END", labels=END_REASONS, scenarios=BATTLES),
    Field("ended_by", "string", "side",
          "the side that first entered its safe zone (9.15), or none",
          "O_ENDED_BY", offset=1, labels="ended_by", scenarios=BATTLES),
    Field("sunk_{side}", "int16", "ships",
          "that side's ships sunk (sunk, wrecked and exited are disjoint)",
          "O_SUNK0", scenarios=BATTLES),
    Field("wrecked_{side}", "int16", "ships",
          "that side's ships wrecked and still on the map at the end",
          "O_WRECKED0", scenarios=BATTLES),
    Field("exited_{side}", "int16", "ships",
          "that side's ships off the map at the end (a wreck that drifted off included)",
          "O_EXITED0", scenarios=BATTLES),
    Field("torpedo_hits_{side}", "int16", "hits",
          "hits on enemy ships by that side's torpedoes",
          "O_TORP0", scenarios=BATTLES),
    Field("torpedo_attacks_{side}", "int16", "attacks",
          "torpedo attacks that side launched",
          "O_LAUNCH0", scenarios=BATTLES),
    Field("shots_{side}", "int32", "shots",
          "gunfire shots that side fired",
          "O_SHOTS0", scenarios=BATTLES),
    Field("shots_wasted_{side}", "float32", "fraction",
          "share of that side's shots fired at a wreck (2G 2S at the start of the phase, which only a "
          "sinking can still score); 0 without shots",
          "O_WASTED0", ratio_of="O_SHOTS0", scenarios=BATTLES),
    Field("friendly_torpedo_hits", "int16", "hits",
          "torpedo hits on a side's own ships",
          "O_FRIENDLY_TORP", scenarios=BATTLES),
    Field("first_contact_turn", "int16", "Game-Turn",
          "the Game-Turn of the first sighting",
          "O_CONTACT", scenarios=BATTLES),
    Field("collisions", "int16", "units",
          "units moved by a collision (6.13)",
          "O_DISPLACED", scenarios=BATTLES),
    Field("restacked", "int16", "units",
          "units moved off an over-stacked hex where no legal plot existed",
          "O_RESTACKED", scenarios=BATTLES),
    VIOLATIONS,
    *LUCK,
), "dreadnought", __file__)

#: the games table of both campaigns: every slot of ``go`` (layout ``GO_*``; per side columns by player),
#: and the columns the façade derives from the scenario rows and the set-up (``derived``); labels ``end``:
#: the campaign's or the extended campaign's end reasons
CAMPAIGN_RECORD = Record(sys.modules[__name__], NGO, (
    Field("winner", "int8", slot="GO_WINNER", schema=False),  # the framework's column
    replace(VICTORY_LEVEL, slot="GO_LEVEL", scenarios=CAMPAIGN),
    replace(VIOLATIONS, type="int32", slot=None, derived=True),
    Field("score_north", "int32", "VP",
          "campaign: the North player's VPs over scenarios A-D; extended-campaign: its final treasury",
          "GO_SCORE0", scenarios=CAMPAIGNS),
    Field("score_south", "int32", "VP",
          "campaign: the South player's VPs over scenarios A-D; extended-campaign: its final treasury",
          "GO_SCORE1", scenarios=CAMPAIGNS),
    Field("turns", "int32", "Game-Turns",
          "campaign: Game-Turns over scenarios A-D; extended-campaign: Extended Campaign Game-Turns",
          "GO_TURNS", scenarios=CAMPAIGNS),
    Field("end_reason", "string", "label",
          "campaign: complete or loop_cap; extended-campaign: peace, turn_limit, bankrupt or loop_cap",
          "GO_END", labels="end", scenarios=CAMPAIGNS),
    Field("scenarios_played", "int16", "scenarios",
          "campaign scenarios played (one row each in the events table scenarios)",
          "GO_ROWS", scenarios=CAMPAIGNS),
    Field("fleet_value_{side}", "int32", "VP",
          "the value of that player's fleet (9.51 values: attack + defense + movement)",
          "GO_FLEET_VALUE0", scenarios=CAMPAIGNS),
    Field("fleet_units_{side}", "int16", "units",
          "units in that player's fleet",
          "GO_FLEET_UNITS0", scenarios=CAMPAIGNS),
    Field("fleet_capital_{side}", "int16", "units",
          "capital ships in that player's fleet",
          "GO_FLEET_CAP0", scenarios=CAMPAIGNS),
    Field("period", "string", "label",
          "the period of 11.1: wwi, inter-war or wwii",
          derived=True, labels=PERIODS, scenarios=CAMPAIGNS),
    Field("navy_{side}", "string", "label",
          "that player's navy (11.8)",
          derived=True, labels=NAVIES, scenarios=CAMPAIGNS),
    Field("limit_{side}", "int64", "VP",
          "that player's fleet value limit (capped at 2**31 - 1 for none)",
          derived=True, scenarios=CAMPAIGNS),
    Field("interception_bonus", "int16", "VP",
          "the convoy's Interception Bonus in scenario C (11.4)",
          derived=True, scenarios=CAMPAIGN),
    Field("vp_{scen}_{side}", "int16", "VP",
          "that player's VPs in campaign scenario A, B, C or D",
          derived=True, values={"scen": SCEN}, scenarios=CAMPAIGN),
    Field("winner_{scen}", "int8", "side index",
          "the winner of campaign scenario A-D: 0 north, 1 south, -1 none",
          derived=True, values={"scen": SCEN}, scenarios=CAMPAIGN),
    Field("level_{scen}", "string", "label",
          "the victory level of campaign scenario A-D (9.55)",
          derived=True, labels=LEVEL_NAMES, values={"scen": SCEN}, scenarios=CAMPAIGN),
    Field("bonus_{side}", "int16", "VP",
          "that player's 9.55 victory bonuses over A-D",
          derived=True, scenarios=CAMPAIGN),
    Field("bombardment_bonus", "int16", "VP",
          "the South's Bombardment Bonus in scenario B",
          derived=True, scenarios=CAMPAIGN),
    Field("interception_{side}", "int16", "VP",
          "interception VPs of that role in scenario C",
          derived=True, scenarios=CAMPAIGN),
    Field("uncontested", "int8", "scenarios",
          "campaign scenarios that were uncontested (11.6)",
          derived=True, scenarios=CAMPAIGN),
    Field("treasury_{side}_t{turn}", "int32", "VP",
          "that player's treasury: t00 after the initial purchase, tNN after Extended Campaign Game-Turn NN"
          " (frozen once the game ends)",
          "GO_TREAS0", side_stride=13, values={"turn": tuple(f"{t:02d}" for t in range(13))},
          scenarios=EXTENDED),
    Field("built_{side}", "int32", "VP",
          "value of the units that player built",
          "GO_BUILT0", scenarios=EXTENDED),
    Field("scheduled_{side}", "int32", "VP",
          "value of that player's construction schedule",
          "GO_SCHEDULED0", scenarios=EXTENDED),
    Field("repaired_{side}", "int32", "VP",
          "treasury that player spent on repairs",
          "GO_REPAIRED0", scenarios=EXTENDED),
    Field("scuttled_{side}", "int16", "units",
          "that player's wrecks scuttled (not under tow at the end of a scenario)",
          "GO_SCUTTLED0", scenarios=EXTENDED),
    Field("lost_{side}", "int16", "units",
          "that player's units lost",
          "GO_LOST0", scenarios=EXTENDED),
    Field("north_turns", "int16", "turns",
          "Extended Campaign Game-Turns in which player north was North",
          "GO_NORTH_TURNS0", scenarios=EXTENDED),
    Field("peace_turn", "int16", "turn",
          "the Extended Campaign Game-Turn of the peace roll that ended the game (0 if none)",
          "GO_PEACE_TURN", scenarios=EXTENDED),
    *(replace(f, slot=None, side_stride=1, divide=None, derived=True) for f in LUCK),
), "dreadnought", __file__)

#: the events table ``shots`` (option shots, historical scenarios): one row per attack, every slot of
#: ``ev`` (layout ``E_*``); labels ``units``: the scenario's unit labels
SHOT_RECORD = Record(sys.modules[__name__], NEV, (
    Field("game", "int64", slot="E_GAME", schema=False),  # the framework's game index
    Field("turn", "int16", "Game-Turn",
          "the Game-Turn of the attack",
          "E_TURN", when=SHOTS_WHEN),
    Field("kind", "string", "label",
          "gun, secondary or torpedo",
          "E_KIND", labels=SHOT_KIND_NAMES, when=SHOTS_WHEN),
    Field("firer", "string", "label",
          "the firing unit (\"ID Name\")",
          "E_FIRER", labels="units", code_type="int16", when=SHOTS_WHEN),
    Field("target", "string", "label",
          "the target unit (\"ID Name\")",
          "E_TARGET", labels="units", code_type="int16", when=SHOTS_WHEN),
    Field("range", "int16", "hexes",
          "the range",
          "E_RANGE", when=SHOTS_WHEN),
    Field("strength", "int16", "strength points",
          "the attack strength after damage, halving and range",
          "E_STRENGTH", when=SHOTS_WHEN),
    Field("halved", "bool", "flag",
          "the firer was not the designated unhalved ship of a multiple attack (5.31)",
          "E_HALVED", when=SHOTS_WHEN),
    Field("fired_upon", "bool", "flag",
          "the firer was fired at in this phase (5.6)",
          "E_UPON", when=SHOTS_WHEN),
    Field("arc", "string", "label",
          "broadside, bow or stern",
          "E_ARC", labels=ARC_NAMES, when=SHOTS_WHEN),
    Field("dpt_roll", "int8", "die roll",
          "the Damage Point Table roll, modified and clamped",
          "E_DPT_ROLL", when=SHOTS_WHEN),
    Field("damage_points", "int16", "damage points",
          "damage points from the DPT",
          "E_DP", when=SHOTS_WHEN),
    Field("ratio", "int16", "ratio",
          "the combat ratio (0 = below 1-1)",
          "E_RATIO", when=SHOTS_WHEN),
    Field("crt_roll", "int8", "die roll",
          "the Combat Results Table roll, modified (0 if none)",
          "E_CRT_ROLL", when=SHOTS_WHEN),
    Field("result", "string", "label",
          "the CRT result: none, 1G, 1S, 1G,1S, 2G, 2S, 2G,1S, 1G,2S, 2G,2S, E:sunk, E:2G,1S",
          "E_RESULT", labels=RESULT_NAMES, when=SHOTS_WHEN),
    Field("combing", "bool", "flag",
          "the target was combing the torpedo wakes (8.32)",
          "E_COMBING", when=SHOTS_WHEN),
), "dreadnought", __file__)

#: the events table ``scenarios`` (both campaigns): one row per campaign scenario played, every slot
#: of ``rs`` (layout ``RS_*``); per-role columns are by role (north, south), north_player says which
#: player was North
SCENARIO_RECORD = Record(sys.modules[__name__], NRS, (
    Field("game", "int64", slot="RS_GAME", schema=False),  # the framework's game index
    Field("scenario", "string", "label",
          "the campaign scenario: A, B, C or D",
          "RS_SCEN", labels=CAMPAIGN_SCENARIOS, scenarios=CAMPAIGNS),
    Field("north_player", "string", "side",
          "the player who was North in it",
          "RS_NORTH", labels=SIDES, scenarios=CAMPAIGNS),
    Field("ext_turn", "int8", "turn",
          "the Extended Campaign Game-Turn it belongs to",
          "RS_EXT_TURN", scenarios=EXTENDED),
    Field("base_visibility", "int8", "hexes",
          "the base visibility rolled on 2d6 (11.7)",
          "RS_VIS_BASE", scenarios=CAMPAIGNS),
    Field("contact_turn", "int16", "Game-Turn",
          "the Game-Turn of first contact (0 without contact)",
          "RS_CONTACT", scenarios=CAMPAIGNS),
    Field("turns", "int16", "Game-Turns",
          "Game-Turns played",
          "RS_TURNS", scenarios=CAMPAIGNS),
    Field("end_reason", "string", "label",
          "no_sighting, side_gone, agreement, exhausted, side_wrecked, uncontested or loop_cap",
          "RS_END", labels=END_REASONS, scenarios=CAMPAIGNS),
    Field("ended_by", "string", "role",
          "the role that first entered its safe zone (9.15), or none",
          "RS_ENDED_BY", offset=1, labels=("none",) + SIDES, scenarios=CAMPAIGNS),
    Field("first_off_map", "string", "role",
          "the role that first left the map, or none",
          "RS_OFF_FIRST", offset=1, labels=("none",) + SIDES, scenarios=CAMPAIGNS),
    Field("winner", "int8", "role index",
          "the winning role: 0 North, 1 South, -1 none",
          "RS_WINNER", scenarios=CAMPAIGNS),
    Field("victory_level", "string", "label",
          "the victory level (9.55)",
          "RS_LEVEL", labels=LEVEL_NAMES, scenarios=CAMPAIGNS),
    Field("bombardment_bonus", "int16", "VP",
          "the South's Bombardment Bonus (scenario B)",
          "RS_BOMBARD", scenarios=CAMPAIGNS),
    Field("interception_bonus", "int16", "VP",
          "the convoy's Interception Bonus (scenario C, 11.4; 0 elsewhere)",
          "RS_IBONUS", scenarios=CAMPAIGNS),
    Field("sun", "string", "label",
          "the sun (optional rule): none, rising-east or setting-west",
          "RS_SUN", labels=SUN_NAMES, scenarios=CAMPAIGNS),
    Field("delayed_entries", "int8", "Task Forces",
          "delayed Task Forces that entered (9.28)",
          "RS_DELAYED", scenarios=CAMPAIGNS),
    Field("collisions", "int16", "units",
          "units moved by a collision (6.13)",
          "RS_COLLISIONS", scenarios=CAMPAIGNS),
    Field("smoke_markers", "int32", "markers",
          "smoke markers laid (12.11-12.12)",
          "RS_SMOKE", scenarios=CAMPAIGNS),
    Field("violations", "int16", "count",
          "invariant violations found (0 in a correct game; counted only under the option check_invariants)",
          "RS_VIOLATIONS", scenarios=CAMPAIGNS),
    Field("south_capital_attack", "int16", "strength points",
          "the Attack Strength of the South's capital ships at the start of the scenario",
          "RS_CAP_ATT1", scenarios=CAMPAIGNS),
    Field("units_{role}", "int16", "units",
          "units of that role in the scenario",
          "RS_UNITS0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("value_{role}", "int16", "VP",
          "the value of that role's units in the scenario (9.51)",
          "RS_VALUE0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("damage_vp_{role}", "int16", "VP",
          "damage VPs that role scored (9.5)",
          "RS_DAMAGE0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("bonus_{role}", "int16", "VP",
          "that role's 9.55 victory bonus",
          "RS_BONUS0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("interception_{role}", "int16", "VP",
          "that role's interception VPs (scenario C)",
          "RS_INTERCEPT0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("score_{role}", "int16", "VP",
          "that role's VPs in the scenario",
          "RS_SCORE0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("sunk_{role}", "int16", "ships",
          "that role's ships sunk",
          "RS_SUNK0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("wrecked_{role}", "int16", "ships",
          "that role's ships wrecked",
          "RS_WRECKED0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("shots_{role}", "int32", "shots",
          "gunfire shots that role fired",
          "RS_SHOTS0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("shots_wasted_{role}", "float32", "fraction",
          "share of that role's gunfire shots fired at a wreck (2G 2S at the start of the phase); 0 without"
          " shots",
          "RS_WASTED0", ratio_of="RS_SHOTS0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("torpedo_hits_{role}", "int16", "hits",
          "hits by that role's torpedoes",
          "RS_TORP0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("withdrew_{role}", "bool", "flag",
          "that role withdrew",
          "RS_WITHDREW0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("towed_{role}", "int16", "ships",
          "that role's wrecks under tow at the end",
          "RS_TOWED0", values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("scuttled_{role}", "int16", "ships",
          "that role's wrecks scuttled at the end (not under tow, 12.64)",
          "RS_SCUTTLED0", values={"role": ("north", "south")}, scenarios=EXTENDED),
    Field("cured_{role}", "int16", "damage states",
          "damage states of that role's ships cured (12.64, a point each)",
          "RS_CURED0", values={"role": ("north", "south")}, scenarios=EXTENDED),
    Field("luck_dealt_{role}", "float64", "damage steps",
          "damage steps that role's attacks dealt the enemy in the scenario (simlab luck; a sinking counted"
          " as 2G 2S)",
          "RS_LUCK_DEALT0", value_stride=3, values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("luck_mean_{role}", "float64", "damage steps",
          "expected damage steps of those same attacks over their odds",
          "RS_LUCK_MEAN0", value_stride=3, divide=float(LUCK_SCALE), values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
    Field("luck_var_{role}", "float64", "damage steps squared",
          "variance of the damage steps of those same attacks",
          "RS_LUCK_VAR0", value_stride=3, divide=float(LUCK_SCALE) ** 2, values={"role": ("north", "south")}, scenarios=CAMPAIGNS),
), "dreadnought", __file__)

del _
