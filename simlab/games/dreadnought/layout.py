"""Named slots of the fixed-width integer arrays the Dreadnought kernels work on.

One game's state is a handful of ``int64`` arrays; their columns are named here so that every
kernel reads the same layout.

``st``   static unit values, ``int64[n, NST]`` (one row per unit, side 0's units first)::

    side kind attack defense range movement torp value named exit_ok no_about_face

``sh``   dynamic unit state, ``int64[n, NSH]``::

    x z facing speed G S dc status formation cursor torp_left safe target sb pending_upon
    pend_G pend_S pend_sunk torp_track torp_arc mp torp_hits exit_turn plan_x plan_z plan_f

    (x, z: cube coordinates; facing 0..5 = N..NW; speed: MP expended last Game-Turn (Rule 6.4);
    G, S: damage steps 0..2 (Rule 5.41-5.42); dc: damage steps removed so far (Rule 5.44);
    target/sb: plotted main and secondary-battery targets (-1 none); torp_track/torp_arc: plotted
    torpedo attack (-1 none); mp: MP plotted for this Movement Phase.)

``fm``   formations, ``int64[n, NFM]`` (at most one per unit)::

    mode flagship head members t1 l1 t2 l2 mp

``trail`` the wake of a column's flagship, ``int64[n, TRAIL, 3]`` (x, z, facing per entry; a
    member at cursor c occupies entry c mod TRAIL; Rule 6.22).

``sc``   scenario scalars, ``int64[NSC]``; ``rl`` rule scalars from the data pack, ``int64[NRL]``;
``out``  one row of results per game, ``int64[g, NOUT]``; ``ev`` one row per shot, ``int32[cap, NEV]``.
"""

from __future__ import annotations

# ---- st: static unit values
ST_SIDE, ST_KIND, ST_ATT, ST_DEF, ST_RNG, ST_MOV, ST_TORP, ST_VAL, ST_NAMED, ST_EXIT, ST_NOABOUT = range(11)
NST = 11

# ---- sh: dynamic unit state
(SH_X, SH_Z, SH_F, SH_SPD, SH_G, SH_S, SH_DC, SH_STATUS, SH_FORM, SH_CUR, SH_TLEFT, SH_SAFE, SH_TGT,
 SH_SB, SH_UPON, SH_PG, SH_PS, SH_PSUNK, SH_TTRACK, SH_TARC, SH_MP, SH_TORPHIT, SH_EXIT_TURN,
 SH_PX, SH_PZ, SH_PF) = range(26)
NSH = 26

# ---- fm: formations
FM_MODE, FM_FLAG, FM_HEAD, FM_MEMBERS, FM_T1, FM_L1, FM_T2, FM_L2, FM_MP = range(9)
NFM = 9
TRAIL = 64          # entries in a column's wake ring (a column may be at most TRAIL - MAXMP - 1 long)
MAXMP = 16          # the most Movement Points any unit may expend in one Game-Turn
MAXTRACK = 8        # the longest torpedo track (Rule 8.6 needs 5)

# ---- sc: scenario scalars
(SC_N, SC_N0, SC_LENGTH, SC_VIS_BASE, SC_TORP_MA, SC_VC, SC_VC_SIDE, SC_START_VP0, SC_START_VP1,
 SC_ROLE0, SC_CONF, SC_CONF_C0, SC_CONF_C1, SC_CONF_R0, SC_CONF_R1, SC_EXIT, SC_EXIT_SIDE, SC_EXIT_C0,
 SC_EXIT_C1, SC_EXIT_R0, SC_EXIT_R1, SC_EXIT_SCORES, SC_EXIT_NEED, SC_EXIT_DEADLINE, SC_SAFE_N_ROW,
 SC_SAFE_S_ROW, SC_NFORM, SC_SHOTS) = range(28)
NSC = 28

# ---- rl: rule scalars (from the data pack)
(RL_FIRED_UPON, RL_BOW_STERN, RL_COMBING, RL_SB_RANGE, RL_SB_COL, RL_DC_G, RL_DC_S, RL_STACK,
 RL_TORP_TURN, RL_TORP_SCEN, RL_E_SINK_A, RL_E_SINK_B, RL_VP1, RL_VP2, RL_VP3, RL_VP4, RL_TURN2,
 RL_TURN3, RL_ACCEL_PCT, RL_DECEL_PCT, RL_NO_SIGHT, RL_VIS_DIE, RL_MAX_G, RL_MAX_S, RL_NBANDS,
 RL_NCOLS, RL_NTRACKS, RL_TRACKLEN, RL_HALVE_MULTI) = range(29)
NRL = 29

# ---- out: one row per game
(O_WINNER, O_LEVEL, O_SCORE0, O_SCORE1, O_TURNS, O_END, O_ENDED_BY, O_SUNK0, O_SUNK1, O_WRECKED0,
 O_WRECKED1, O_EXITED0, O_EXITED1, O_TORP0, O_TORP1, O_FRIENDLY_TORP, O_SHOTS0, O_SHOTS1, O_DISPLACED,
 O_CONTACT, O_LAUNCH0, O_LAUNCH1, O_VIOLATIONS, O_RESTACKED) = range(24)
NOUT = 24

# ---- ev: one row per shot
(E_GAME, E_TURN, E_KIND, E_FIRER, E_TARGET, E_RANGE, E_STRENGTH, E_HALVED, E_UPON, E_ARC, E_DPT_ROLL,
 E_DP, E_RATIO, E_CRT_ROLL, E_RESULT, E_COMBING) = range(16)
NEV = 16

# ---- tr: trace of one game, int64[turns + 2, n, NTR] (row 0 set-up, row t after the Movement
#      Phase of Game-Turn t, last row the final state)
TR_X, TR_Z, TR_F, TR_G, TR_S, TR_STATUS, TR_MP, TR_FORM, TR_DC = range(9)
NTR = 9

# ---- kn: policy knobs, float64[2, NKN]
(K_RANGE, K_BROADSIDE, K_TORP_MIN, K_NEAR, K_SAFE, K_FOCUS, K_SCREEN_RANGE, K_PARALLEL, K_TURNCOST,
 K_SUPPORT) = range(10)
NKN = 10

# ---- pc: policy codes, int64[2, NPC]
PC_MOVE, PC_FIRE, PC_TORP, PC_MODE = range(4)
NPC = 4
