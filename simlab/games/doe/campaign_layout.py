"""Named slots of the Dawn of Empire campaign state: numba-visible integer constants.

A campaign is played on fixed-width ``int64`` arrays, one set per game (reused from game to game),
so the whole turn loop runs compiled. Locations are *nodes*: the ``A`` sea areas are nodes
``0..A-1`` and the ``P`` ports nodes ``A..A+P-1`` (data pack order). Sides: 0 = US, 1 = Spain
(German units, 14.12, play for Spain).

Static arrays (compiled once per scenario from the data pack, :mod:`simlab.games.doe.rules`)::

    ust[U, US_NF]    unit statics      side type attack defense movement start entry german prior
    lst[L, LS_NF]    leader statics    side stars start german
    nodes[N, NS_NF]  node statics      kind mp vp_us vp_spain pside parea1 parea2 repair mine
                                       attack defense repair_germans
    adj[N, N]        1 where a move from node i may enter node j (areas <-> areas, port <-> its areas)
    cost[K+1, N, N]  least MP from i to j entering at most k areas (ports end a move); BIG if none
    nh[K+1, N, N]    the next node on that least-MP route (-1 if none)
    matrix[7, 8]     Search Matrix: [initiative order, other order] -> SM_NA, SM_VP or k (1..k engages);
                     column SM_ANCHOR_SEA: the other squadron anchored at sea (5.1 B-C, ruling C41)
    par[P_NF]        options, rule constants, policy families (their knobs: kn[2, KN_NF], policy_layout)

Dynamic arrays (one game)::

    U[U, UF_NF]      units: loc dmg stack order prev streak neutral out maint startloc moved
    S[NS, SF_NF]     stacks: side loc order dest target n join start halted marker route drop
    SM[NS, MAXPER]   stack members in line order (unit indices)
    L[L, LF_NF]      leaders: unit aboard, state
    ND[N, ND_NF]     nodes: control marker, port damage/hit/destroyed, per-side "cannot control"
    G[G_NF]          game scalars and counters (turn, VP track, ledger length, output columns...)
    ledger[LEDGER_MAX, LG_NF]   every VP award: turn side kind amount (the VP track is their sum)
    bev[BATTLE_MAX, BE_NF]      one row per battle of the game (the ``battles`` events table)

Unit locations ``UF_LOC``: a node ``>= 0`` when in play, else one of the ``LOC_*`` codes below.

Every record's width (``*_NF``) is derived from its slot names, never counted by hand: the last
name of a ``range`` unpacking is the width (``A, B, X_NF = range(3)``; a name added without
widening the range fails at import), and multi-slot fields chain from the slot before them.
"""

from __future__ import annotations

import sys

import numpy as np

from ..records import Field, Record
from .enums import END_REASONS as BATTLE_END_REASONS
from .enums import TYPE_NAMES
from .luck import DIE_MEAN, DIE_VAR

# ---------------------------------------------------------------- sides, orders
US, SPAIN = 0, 1
SIDE_NAMES = ("us", "spain")

# Orders (Rules 5.1-5.7, in the rulebook's numbering). HOLD is simlab's "stranded" order: a stack
# that has no legal order at all stays where it is, without a marker, and counts as Anchored next
# turn (docs/rulings.md C12).
ANCHOR, BLOCKADE, COAL, PATROL, RAID, SORTIE, TRANSIT, HOLD = range(8)
NO_ORDER = -1
ORDER_NAMES = ("anchor", "blockade", "coal", "patrol", "raid", "sortie", "transit", "hold")
N_ORDERS = HOLD            # the seven orders of 5.1-5.7 (HOLD is not one)
N_MARK_SLOTS = HOLD + 1    # order-marker counters per side, HOLD included (G_MARK)
N_TYPES = 6                # unit types BB CA CP CU GB MO (enums.TYPE_NAMES)

# Search Matrix cells
SM_NA = -2
SM_VP = -1
SM_ANCHOR_SEA = 7   # matrix column of a squadron anchored at sea, in an area with no port (5.1 B-C, C41)

# ---------------------------------------------------------------- unit statics ust[U, :]
US_SIDE, US_TYPE, US_ATT, US_DEF, US_MOV, US_START, US_ENTRY, US_GERMAN, US_PRIOR, US_NF = range(10)

# unit dynamic U[U, :]
UF_LOC = 0       # node, or LOC_* below
UF_DMG = 1       # damage points
UF_STACK = 2     # stack index (-1: none)
UF_ORDER = 3     # this turn's order (NO_ORDER before the orders phase)
UF_PREV = 4      # last turn's order (sequence rules 5.x)
UF_STREAK = 5    # consecutive turns of Transit, this one included (5.7 B)
UF_NEUTRAL = 6   # 0, or 1/2: in a neutral port since 1/2 movement phases (7.2.3 D)
UF_OUT = 7       # out of combat this turn: 1 disabled, 2 disengaged by speed
UF_MAINT = 8     # last turn the unit took maintenance damage (14.3 E), 0 = never
UF_STARTLOC = 9  # location at the start of the turn's movement (5.4.1 B, 14.2 A)
UF_MOVED = 10    # 1 once the unit has left its start location this turn
UF_NF = UF_MOVED + 1

LOC_NOT_ENTERED = -1  # a reinforcement not yet arrived
LOC_SUNK = -2
LOC_INTERNED = -3     # 7.2.3 D
LOC_SCUTTLED = -4     # 14.8 A
LOC_ABSENT = -5       # not in this game (an optional rule that is off)

OUT_DISABLED = 1
OUT_ESCAPED = 2

# ---------------------------------------------------------------- leaders
LS_SIDE, LS_STARS, LS_START, LS_GERMAN, LS_NF = range(5)
LF_UNIT, LF_STATE, LF_NF = range(3)
LEADER_IN_PLAY, LEADER_DEAD, LEADER_ABSENT = 0, 1, 2

# ---------------------------------------------------------------- stacks
SF_SIDE, SF_LOC, SF_ORDER, SF_DEST, SF_TARGET, SF_N, SF_JOIN, SF_START, SF_HALTED, SF_MARKER = range(10)
# the plan's route (7.1 F; 0 nodes: the least-MP route, ruling C8) and its 7.3 D drop-off: after
# entering route node SF_DROP_I the last SF_DROP_N units of the line stay there (ruling C51)
RMAX = 12            # most nodes a route names (every node costs at least 1 MP)
SF_RN, SF_DROP_I, SF_DROP_N, SF_R0 = range(10, 14)
SF_NF = SF_R0 + RMAX
MAXPER = 48          # most units one stack can hold
MAX_UNITS = 96       # most units a scenario may have
MAX_LEADERS = 16

# ---------------------------------------------------------------- nodes
(NS_KIND, NS_MP, NS_VP_US, NS_VP_SPAIN, NS_PSIDE, NS_PAREA1, NS_PAREA2,
 NS_REPAIR, NS_MINE, NS_ATT, NS_DEF, NS_REPAIR_GER, NS_NF) = range(13)
KIND_AREA, KIND_PORT = 0, 1
PSIDE_US, PSIDE_SPAIN, PSIDE_NEUTRAL = 0, 1, 2
BIG = 1 << 20        # "unreachable" cost
KMAX = 12            # area-count index of the unlimited route tables

ND_CONTROL = 0       # control marker: -1 none, 0 US, 1 Spain (11.0, 7.6)
ND_PDMG = 1          # damage points on the port marker (8.4)
ND_PHIT = 2          # 1 if the port took damage this turn: no repair this turn (9 E, 8.4 I)
ND_PDESTROYED = 3    # times destroyed this turn
ND_NOCTRL0 = 4       # 1: the US cannot control this area this turn (11 D)
ND_NOCTRL1 = 5       # 1: Spain cannot control this area this turn
ND_BLKVP = 6         # 1 once 12.1.3 B was scored here this turn
ND_INIT = 7          # the side with the initiative here this turn (8.1), -1 if none was found
ND_NF = ND_INIT + 1

# VP kinds (12.1), the ledger's LG_KIND and the G_VPK slots
VK_AREA, VK_LOSSES, VK_LEADERS, VK_PORT, VK_BLOCKADE, VK_OTHER, VK_NF = range(7)
VP_KINDS = ("area", "losses", "leaders", "port", "blockade", "other")

# ---------------------------------------------------------------- game scalars G[:]
G_TURN = 0
G_VP_NET = 1          # the VP track: US minus Spain, handicap included
G_SCORE0 = 2          # VPs earned by the US
G_SCORE1 = 3          # VPs earned by Spain
G_END = 4             # END_* below
G_TURNS = 5           # turns played
G_BATTLES = 6
G_ERR = 7             # ERR_* (0: none)
G_ERR_SIDE = 8
G_ERR_STACK = 9
G_NLEDGER = 10
G_NBEV = 11
G_COALSEA0 = 12       # units coaling at sea this turn, per side (7.5 C)
G_COALSEA1 = 13
G_LOSSHALF0 = 14      # half-VPs the US earns for Spanish units sunk this turn (12.1.2)
G_LOSSHALF1 = 15
G_SUNK = 16           # 2 * N_TYPES slots: [side * N_TYPES + type] units of that side sunk (scuttled included)
G_LKILLED0 = G_SUNK + 2 * N_TYPES   # leaders of the US killed
G_LKILLED1 = G_LKILLED0 + 1
G_PDEST0 = G_LKILLED1 + 1           # ports of the US destroyed
G_PDEST1 = G_PDEST0 + 1
G_PATTACKS = G_PDEST1 + 1           # port attacks made
G_INTERNED0 = G_PATTACKS + 1
G_INTERNED1 = G_INTERNED0 + 1
G_SCUTTLED0 = G_INTERNED1 + 1
G_SCUTTLED1 = G_SCUTTLED0 + 1
G_VPK = G_SCUTTLED1 + 1             # 2 * VK_NF slots: [side * VK_NF + kind] VPs earned by kind (VK_*)
G_DRAWS = G_VPK + 2 * VK_NF         # random draws used (filled at the end of a game)
G_MARK = G_DRAWS + 1                # 2 * N_MARK_SLOTS slots: [side * N_MARK_SLOTS + order] order markers in use now
G_LUCK = G_MARK + 2 * N_MARK_SLOTS   # 4 slots (simlab luck): gunfire dice of the US, of Spain, then the damage points they dealt, over every battle
G_NF = G_LUCK + 4

END_TURNS, END_AUTOMATIC = 0, 1
END_REASONS = ("turns", "automatic_victory")

# VP ledger
LG_TURN, LG_SIDE, LG_KIND, LG_AMOUNT, LG_WHERE, LG_NF = range(6)
LEDGER_MAX = 512

# battles events
(BE_TURN, BE_AREA, BE_INIT, BE_ORDER0, BE_ORDER1, BE_N0, BE_N1, BE_ROUNDS, BE_REASON, BE_WINNER,
 BE_SUNK0, BE_SUNK1, BE_DIS0, BE_DIS1, BE_ESC0, BE_ESC1, BE_LK0, BE_LK1, BE_DMG0, BE_DMG1, BE_NF) = range(21)
BATTLE_MAX = 192

# ---------------------------------------------------------------- errors (illegal plans)
ERR_NONE = 0
ERR_UNIT = 1           # a unit of the plan is not the side's, not in play, or in no stack
ERR_STACK_LOC = 2      # a stack's units are not in one place
ERR_LEADER = 3         # a leader is not with a stack at his location
ERR_IU_ORDER = 4       # a single unit given an order only squadrons may have (7.3 B)
ERR_MARKERS = 5        # more order markers of a type than the side has (5.0 B)
ERR_SEQUENCE = 6       # the order breaks a unit's order sequence (5.1-5.7, 7.2.3 D)
ERR_DEST = 7           # the destination is not legal for the order (5.x, 7.x)
ERR_COAL_LIMIT = 8     # coaling limits (7.5 C)
ERR_HOLD = 9           # "hold" given to a stack that has a legal order
ERR_TARGET = 10        # a Raid/Blockade target port that is not an opposing port by the destination
ERR_NO_PLAN = 11       # a stack slot out of range, or an empty stack
ERR_DEPLOY = 12        # free deployment (14.11) breaks its limits
ERR_DISABLED_PORT = 13  # a disabled unit sent to a port 8.3.2.1 B does not allow
ERR_ROUTE = 14         # a route that is not a legal move to the destination (7.1, 7.2.2, 5.4 A-B, ruling C49)
ERR_DROP = 15          # a 7.3 D drop-off the rules do not allow (ruling C51)
ERR_NAMES = ("", "unit not in any stack", "stack units in different places", "leader not with a stack",
             "independent unit given a squadron order", "too many order markers", "order sequence",
             "illegal destination", "coaling limit", "hold with a legal order available",
             "bad raid/blockade target", "bad stack", "free deployment", "disabled unit's port",
             "illegal route", "illegal drop-off")

# ---------------------------------------------------------------- parameters par[:]
P_TURNS = 0
P_HANDICAP = 1
P_SPEED = 2            # 0 never, 1 when able and willing (10.2; willing: P_FLEE0 + side)
P_DELAYED = 3          # 14.2
P_MAINT = 4            # 14.3
P_FACEUP = 5           # 14.6
P_AUTO = 6             # 14.7
P_RESTRICT = 7         # 14.8
P_SUBGROUPS = 8        # 14.9
P_EXTRA = 9            # 14.10
P_FREE = 10            # 14.11
P_GERMANS = 11         # 14.12
P_POL0 = 12            # policy family of the US (policy_layout.FAM_*; its knobs are in kn[0])
P_POL1 = 13            # policy family of Spain (knobs in kn[1])
P_COALSEA0 = 14
P_COALSEA1 = 15
P_COALNEUTRAL = 16
P_VICTORY = 17
P_AUTOVP = 18
P_PORTVP = 19
P_BLKVP = 20
P_PATROL_PORT = 21
P_PATROL_SEA = 22
P_TRANSIT_MAX = 23
P_MINMOV = 24
P_MINMOV_R = 25
P_MAX_ROUNDS = 26
P_LOSSHALF = 27        # N_TYPES slots: half-VPs per type (12.1.2)
P_MARKERS = P_LOSSHALF + N_TYPES     # 2 * N_ORDERS slots: [side * N_ORDERS + order]
(P_MAINT_BBMO, P_MAINT_CRUISERS, P_MAINT_BB_OTHER, P_MAINT_CPGB_OTHER, P_MAINT_SPAIN,
 P_TRACE,               # 1: record per-turn snapshots
 P_NAREAS, P_NPORTS, P_NUNITS, P_NLEADERS,
 P_PORTVP_INIT,         # 1: port destruction VPs only for a side with the initiative (12.1.3 A)
 P_FLEE0, P_FLEE1,      # each side's 10.2 disengagement threshold (kernels.battle_nb flee0/flee1)
 P_CORDER,              # Spain's combat order mode (4.3 B, policy_combat.CO_*)
 P_DISPORT0, P_DISPORT1,  # each side's choice among equally near ports for disabled units (8.3.2.1 B, DP_*)
 P_DISNEU0, P_DISNEU1,    # each side's use of neutral ports for disabled units under 14.9 (DN_*)
 P_REPORD0, P_REPORD1,    # each side's choice of the units its ports repair first (9.0 B-C, enums.RO_*)
 P_MERGE0, P_MERGE1,      # each side's choice of the order kept when equal squadrons combine (7.3 C, enums.MK_*)
 P_MAINT0, P_MAINT1,      # each side's choice of the units that take maintenance damage (14.3 A-C, enums.MP_*)
 P_PURSUE0, P_PURSUE1,    # each side's pursuit of speed subgroups under 14.9 (B-C, enums.PU_*)
 P_REFORM0, P_REFORM1,    # each side's order of equally damaged units when its line reforms (8.3.3 A, enums.RF_*)
 P_NF) = range(P_MARKERS + 2 * N_ORDERS, P_MARKERS + 2 * N_ORDERS + 29)

# trace (tests): per game and turn, per unit: loc dmg order prev streak neutral
TR_LOC, TR_DMG, TR_ORDER, TR_PREV, TR_STREAK, TR_NEUTRAL, TR_STACK, TR_NF = range(8)

# the game's clock (issue 27, ``GameState.clock``): the next turn to play (1 after the set-up) and 1 once the
# game is over (its last turn, an automatic victory, 14.7, or an illegal plan); a paused game has CK_DONE 0
CK_NEXT, CK_DONE, CK_NF = range(3)

# ---------------------------------------------------------------- output records (simlab.games.records)
#: the games table of ``dawn-of-empire``: every slot of the final game scalars ``G`` declared once
#: (the façade's columns and category labels, ``simlab schema dawn-of-empire`` and the README come from
#: it; Record.check proves every slot 0..G_NF-1 is exactly one field's). ``winner`` is the framework's
#: column, derived by the façade from ``vp_net`` and the scenario's victory margin (12.2).
GAMES_RECORD = Record(sys.modules[__name__], G_NF, (
    Field("vp_net", "int32", "VP",
          "the VP track at the end: US minus Spain, the handicap included (12.2)",
          "G_VP_NET"),
    Field("score_{side}", "int32", "VP",
          "VPs that side earned (12.1), the handicap excluded",
          "G_SCORE0"),
    Field("turns", "int16", "turns",
          "game turns played",
          "G_TURNS"),
    Field("end_reason", "string", "label",
          "turns (the last turn was played) or automatic_victory (14.7)",
          "G_END", labels=END_REASONS),
    Field("sunk_{side}_{type}", "int16", "units",
          "that side's units of that type sunk (scuttled ones included, 14.8)",
          "G_SUNK", side_stride=N_TYPES, values={"type": tuple(t.lower() for t in TYPE_NAMES)}),
    Field("leaders_killed_{side}", "int16", "leaders",
          "that side's leaders killed",
          "G_LKILLED0"),
    Field("ports_destroyed_{side}", "int16", "ports",
          "that side's ports destroyed",
          "G_PDEST0"),
    Field("interned_{side}", "int16", "units",
          "that side's units interned in a neutral port (7.2.3 D-E, ruling C6)",
          "G_INTERNED0"),
    Field("scuttled_{side}", "int16", "units",
          "that side's units scuttled (14.8)",
          "G_SCUTTLED0"),
    Field("battles", "int16", "battles",
          "battles fought (one row each in the events table battles)",
          "G_BATTLES"),
    Field("port_attacks", "int16", "attacks",
          "port attacks made",
          "G_PATTACKS"),
    Field("vp_{kind}_{side}", "int32", "VP",
          "VPs that side earned by kind (12.1): area control, enemy losses, enemy leaders, ports, blockade; "
          "they sum to score_<side>",
          "G_VPK", side_stride=VK_NF, values={"kind": VP_KINDS[:VK_OTHER]}),
    Field("dice", "int32", "draws",
          "random draws the game used from its stream",
          "G_DRAWS"),
    # dice luck (simlab luck, simlab.games.doe.luck; computed from the odds, no extra draw): the gunfire
    # dice of every battle (pursuit rounds included) and the damage points they dealt
    Field("luck_dice_{side}", "int32", "dice",
          "gunfire dice that side rolled at the enemy (8.3), all battles of the game",
          "G_LUCK"),
    Field("luck_dealt_{side}", "float64", "damage points",
          "damage those dice dealt (a 6 scores its damage die, 8.3)",
          G_LUCK + 2),
    Field("luck_mean_{side}", "float64", "damage points",
          "expected damage of those same dice (7/12 a die)",
          "G_LUCK", derive=lambda n: n * DIE_MEAN, owns=False),
    Field("luck_var_{side}", "float64", "damage points squared",
          "variance of the damage of those same dice",
          "G_LUCK", derive=lambda n: n * DIE_VAR, owns=False),
    # the game's state, no column (the façade reads G_ERR*; the kernels the rest)
    Field("turn", "int64", slot="G_TURN", column=False),
    Field("error", "int64", slot="G_ERR", width=3, column=False),            # G_ERR, G_ERR_SIDE, G_ERR_STACK
    Field("ledger_rows", "int64", slot="G_NLEDGER", column=False),
    Field("battle_rows", "int64", slot="G_NBEV", column=False),
    Field("coal_sea_{side}", "int64", slot="G_COALSEA0", column=False),
    Field("loss_half_{side}", "int64", slot="G_LOSSHALF0", column=False),
    Field("vp_other_{side}", "int64", slot=G_VPK + VK_OTHER, side_stride=VK_NF, column=False),
    Field("markers", "int64", slot="G_MARK", width=2 * N_MARK_SLOTS, column=False),
), "dawn-of-empire", __file__)

#: the events table ``battles`` (one row per battle, ``bev[:, 1:]``; ``bev[:, 0]`` is the game index).
#: ``area``'s labels are the scenario's sea areas (``labels={"areas": ...}``).
BATTLE_RECORD = Record(sys.modules[__name__], BE_NF, (
    Field("turn", "int16", "turn",
          "the game turn of the battle",
          "BE_TURN"),
    Field("area", "string", "label",
          "the sea area where it was fought",
          "BE_AREA", labels="areas", code_type="int16"),
    Field("initiative", "string", "side",
          "the side with the initiative",
          "BE_INIT", labels=SIDE_NAMES),
    Field("order_{side}", "string", "label",
          "the order of that side's squadron: anchor, blockade, coal, patrol, raid, sortie, transit or hold",
          "BE_ORDER0", labels=ORDER_NAMES),
    Field("units_{side}", "int16", "units",
          "that side's units in the battle",
          "BE_N0"),
    Field("rounds", "int16", "rounds",
          "battle rounds fought (8.3)",
          "BE_ROUNDS"),
    Field("end_reason", "string", "label",
          "gunfire (10.1), speed (10.2), mutual or max_rounds, as in doe-battle",
          "BE_REASON", labels=BATTLE_END_REASONS),
    Field("winner", "string", "side",
          "the side that won the battle, or none",
          "BE_WINNER", labels=SIDE_NAMES + ("none",), derive=lambda w: np.where(w < 0, 2, w)),
    Field("sunk_{side}", "int16", "units",
          "that side's units sunk in the battle",
          "BE_SUNK0"),
    Field("disabled_{side}", "int16", "units",
          "that side's units disabled in the battle",
          "BE_DIS0"),
    Field("escaped_{side}", "int16", "units",
          "that side's units that disengaged by speed (10.2)",
          "BE_ESC0"),
    Field("leader_killed_{side}", "int8", "leaders",
          "that side's leaders killed in the battle",
          "BE_LK0"),
    Field("damage_{side}", "int16", "damage points",
          "damage points that side's units took in the battle",
          "BE_DMG0"),
), "dawn-of-empire", __file__)
