"""Named slots of the fixed-width integer arrays that hold one game of Mar Rojo.

One game is played by one numba kernel on these arrays (nothing else is allocated per game)::

    cs     int64[NSLOT, NC]   fleet card values per squadron slot (copied from the card pool)
    st     int64[NSLOT, NS]   fleet card state per slot (status, row, face up, damage, stress...)
    g      int64[NG]          game globals (active side, period, deck counts, flags...)
    piles  int64[NPILES, PILE_CAP]  action card ids: draw pile (top = last), discard, table, out
    hands  int64[2, HAND_CAP] action card ids in each player's hand (counts in g)
    akind  int64[n_action_cards]    kind (enums.K_*) of each action card id

Squadron slots: side ``s`` owns slots ``s * MAXC .. s * MAXC + MAXC - 1`` (Nationalist 0-15,
Republican 16-31). A slot with status ST_ABSENT holds no card.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..packing import KnobRow, PolicyPacking
from ..records import Field, Record
from .enums import AI_MODE_NAMES, END_REASONS, FAMILY_NAMES, NTYPES, SIDE_NAMES, STATUS_NAMES, TYPE_NAMES

MAXC = 16           # fleet cards per side (Rule 1: 5-15, plus a reinforcement)
NSLOT = 2 * MAXC
HAND_CAP = 8        # hand limit is 5 (Rule 3.2); room for the checks
PILE_CAP = 128      # action cards in one game (52 printed, Rule 2)

# cs columns: fleet card values (Rule 3.1.1); ``pool`` is the card's index in the batch's pool
CARD_COLUMNS = ("pool", "faction", "type", "hull", "main", "secondary", "torpedoes", "movement", "armour",
                "aa_heavy", "aa_light", "asw", "air", "bombing", "cost", "seaplane", "date")
(C_POOL, C_FACTION, C_TYPE, C_HULL, C_MAIN, C_SEC, C_TORP, C_MOVE, C_ARMOUR,
 C_AAH, C_AAL, C_ASW, C_AIR, C_BOMB, C_COST, C_SEAPLANE, C_DATE) = range(len(CARD_COLUMNS))
NC = len(CARD_COLUMNS)
#: cs column of each weapon (enums.W_*); AA rolls heavy + light (column C_AAH, see fleet.weapon_value_nb)
WEAPON_COL = (C_MAIN, C_SEC, C_TORP, C_AAH, C_ASW, C_AIR, C_BOMB)

# st columns: fleet card state
#   status  enums.ST_*                      row     enums.SHORT / MEDIUM / LONG
#   up      1 = uncovered (face up)         damage  damage markers (red cubes)
#   stress  stress markers (green cubes)    acts    activations this sub-turn
#   bonus   1 when this sub-turn's first action uncovered the card (Rule 5.1)
#   reorg   stress removed this sub-turn (at most 2, Rule 5.5)
#   mask    actions left from an effect activation this sub-turn
#   upped   uncovered during the current / last sub-turn (solo AI exception, Rule 12.3)
STATE_COLUMNS = ("status", "row", "up", "damage", "stress", "acts", "bonus", "reorg", "mask", "upped")
S_STATUS, S_ROW, S_UP, S_DMG, S_STRESS, S_ACTS, S_BONUS, S_REORG, S_MASK, S_UPPED = range(len(STATE_COLUMNS))
NS = len(STATE_COLUMNS)

# piles
P_DECK, P_DISCARD, P_TABLE, P_OUT = 0, 1, 2, 3
NPILES = 4

# g slots
G_ACTIVE = 0          # side whose sub-turn it is
G_NIGHT = 1           # 1 at night (Rule 10)
G_FINAL = 2           # 1: no more draws (The End / Retreat reached, Rule 6)
G_ENDS_SEEN = 3       # The End appearances so far
G_ENDS_NEEDED = 4     # appearances that end the drawing: short 1, average 2, long 3
G_RETREAT = 5         # 1 after Retreat was played as an effect (Rule 6)
G_SUBTURN = 6         # sub-turns played
G_DRAWN0 = 7          # action cards drawn by each side (G_DRAWN0 + side)
G_DRAWN1 = 8
G_SUPPORT_USED = 9    # a support card was played this sub-turn
G_INTERRUPT_USED = 10  # an interruption card was played this sub-turn
G_CABO = 11           # Cabo Palos in force this sub-turn
G_END_REASON = 12
G_FIRST = 13          # side with the first sub-turn
G_AI0 = 14            # solo AI manoeuvre of each side (enums.AI_*), G_AI0 + side
G_AI1 = 15
G_POL0 = 16           # policy of each side, G_POL0 + side
G_POL1 = 17
G_VICTORY = 18        # enums.V_*
G_MPTS0 = 19          # 1 when the side scores its merchants at short (G_MPTS0 + side)
G_MPTS1 = 20
G_SPECIAL = 21        # enums.SP_* bits
G_LENGTH = 22
G_SPECIAL_DONE = 23   # 1 once the first The End triggered the special rules
G_DECK_N = 24         # pile sizes: G_DECK_N + pile index
G_DISC_N = 25
G_TABLE_N = 26
G_OUT_N = 27
G_HAND0_N = 28        # hand sizes: G_HAND0_N + side
G_HAND1_N = 29
G_PENDING = 30        # Mines or Fog declared this sub-turn (kind, -1 none)
G_REMOVED = 31        # Republican ships removed by the Transfer (8.2)
G_ENDED = 32
G_LIMIT = 33          # sub-turn limit (safety)
G_DEBUG = 34          # 1: check invariants after every change
G_VIOLATION = 35      # first invariant violation code (0 none)
G_RESTRICT = 36       # weapon an effect activation is restricted to (-1 none)
G_AI_CAPFOUND0 = 37   # the opponent uncovered this AI side's capital ship last sub-turn (+ side)
G_AI_CAPFOUND1 = 38
G_NCARDS = 39         # action cards in the game (conservation)
G_TURN_LIMIT = 40
G_LAST_ACTIONS = 41   # actions performed this sub-turn (diagnostics)
G_NIGHT_SUBTURNS = 42
G_FINAL_SUBTURN = 43  # sub-turn at which drawing stopped
G_DEALING = 44        # 1 while the opening hands are dealt (Day/Night cards do not turn, 10.1)
G_HITS0 = 45          # hits taken by each side (G_HITS0 + side)
G_HITS1 = 46
G_ATTACKS0 = 47       # combat actions by each side
G_ATTACKS1 = 48
G_SPECIAL_PENDING = 49  # the first The End has just appeared: special rules to apply (8.2, 8.3)
G_PREV_ACTIVE = 50    # side of the previous sub-turn
G_CB_OK = 51          # 1: the card_best results in fw (FW_CB) describe the state now
G_ILLEGAL = 52        # 5: the first illegal activation a policy chose (slot, act, p1, p2, effect_mode)
G_RULES = 57          # RU_* bits: the readings of the rules the options choose (game.py)
G_LUCK0 = 58          # simlab luck, 3 per side (G_LUCK0 + 3 * side): hits its dice dealt, mean * 36, variance * 1296 (combat.luck_nb)
G_NEXT = G_LUCK0 + 6  # side that plays the next sub-turn (engine.play_on_nb resumes from it)
G_OVER = G_NEXT + 1   # 1 once the game has ended and its out row is final (or its squadron could not be built)
NG = G_OVER + 1

# G_RULES bits (options of game.py; 0 = the rulings' default reading)
RU_CABO_EITHER = 1    # 8.1 read as "(a capital ship or a merchant) and an escort" (option cabo_victory)
RU_RETREAT_KEEP_HANDS = 2  # Rule 6 Retreat: the hands are kept out of the reshuffle (option retreat_hands)
RU_FREE_ROWS = 4      # 5.2: only the row counts of 4 limit moves, not its short-row card types (option row_limits)

# rt: the rule tables and constants, one int64 array (rules.compile_tables)
#: data-pack constant names in R_* order
CONSTANT_NAMES = ("hand_limit", "opening_hand", "hit", "torpedo_capital_bonus", "escort_torpedo_save",
                  "submarine_evasion", "aa_defence_hit", "lucky_first", "lucky_second", "reorganise_per_card",
                  "aircraft_activations", "main_extra_stress", "night_hit_modifier", "ai_aggressive_max",
                  "transfer_ships", "optics_bonus", "smoke_penalty", "mines_hit", "fog_cover", "scout_discover",
                  "subturn_limit")
(R_HAND_LIMIT, R_OPENING_HAND, R_HIT, R_TORP_CAPITAL, R_ESCORT_TORP_SAVE, R_SUB_EVASION,
 R_AA_DEFENCE, R_LUCKY_FIRST, R_LUCKY_SECOND, R_REORG_PER_CARD, R_AIR_ACTS, R_MAIN_EXTRA,
 R_NIGHT_MOD, R_AI_AGGR_MAX, R_TRANSFER, R_OPTICS, R_SMOKE, R_MINES_HIT,
 R_FOG_COVER, R_SCOUT, R_SUBTURN_LIMIT) = range(len(CONSTANT_NAMES))
NCONST = 32       # room for the constants before the tables (at least len(CONSTANT_NAMES))
RT_TORP = NCONST  # rt[RT_TORP + roll], roll 1..7: hits of the torpedo effect table, -1 = Sunk
RT_SAVE = 40      # rt[RT_SAVE + armour]: least die that saves (7 = none)
RT_DIST = 48      # rt[RT_DIST + 3 * active_row + target_row]: SHORT, MEDIUM, LONG or SPEED
RT_POINTS = 64    # rt[RT_POINTS + 8 * length + PT_*]: the Rule 9 table
POINTS_FIELDS = ("cards_min", "cards_max", "points", "capital_min", "capital_max", "merchants", "air_sub_min",
                 "air_sub_max")
(PT_CARDS_MIN, PT_CARDS_MAX, PT_POINTS, PT_CAP_MIN, PT_CAP_MAX, PT_MERCHANTS, PT_AIRSUB_MIN,
 PT_AIRSUB_MAX) = range(len(POINTS_FIELDS))
NPT = len(POINTS_FIELDS)  # the stride of RT_POINTS (8 fields per length)
RT_SOLO = 96      # rt[RT_SOLO + 3 * length + row]: the 12.2 deployment table
NRT = 112

# invariant violation codes (G_VIOLATION), in VIOLATION_NAMES order:
#   ok; deck: an action card is not in exactly one place; hand: a hand above the limit; layout: a
#   move left the layout worse than allowed (Rule 5.2); row: a card in play without a row; damage:
#   a card in play with damage >= hull; stress: negative stress, or stress on a solo-AI card;
#   activations: a card activated more often than Rule 5.1 allows; reorganisation: more than 2
#   stress removed from one card in a sub-turn; covered fire: a covered card fired; illegal
#   action: a policy chose an illegal action
VIOLATION_NAMES = ("ok", "deck", "hand", "layout", "row", "damage", "stress", "activations", "reorganisation",
                   "covered fire", "illegal action")
(V_OK, V_DECK, V_HAND, V_LAYOUT, V_ROW, V_DAMAGE, V_STRESS, V_ACTS, V_REORG, V_COVERED_FIRE,
 V_ILLEGAL) = range(len(VIOLATION_NAMES))

# pp: the greedy family's knob vector, float64[2, NPP] (one row per side): knob ``name`` of
# [families.greedy] in policies.toml sits in slot PP_<NAME> (or the constant POLICY_PACKING's
# aliases name); simlab.games.packing packs it and proves every knob has one slot and every slot one
# knob. Adding a knob: its line in policies.toml and its PP_<NAME> here, before NPP.
(
    PP_DRAW, PP_HOLD, PP_HOLD_VALUE, PP_FORWARD, PP_RETREAT, PP_REORG_AT, PP_TORP, PP_MERCH, PP_COVER,
    PP_STRESS_COST, PP_UNCOVER, PP_MIN_ACT, PP_SUPPORT_MIN, PP_INTERRUPT_MIN, PP_RETREAT_CARD, PP_DAMAGE_WEIGHT,
    PP_STAKE, PP_STAKE_CABO_CAPITAL, PP_STAKE_CABO_MERCHANT, PP_STAKE_CABO_ESCORT, PP_SCENARIO_STAKES,
    PP_REORG_BLOCKED, PP_REORG_BASE, PP_REORG_STEP, PP_UNCOVER_SEEN, PP_UNCOVER_BLIND, PP_MERCHANT_FORWARD,
    PP_MERCHANT_BACK, PP_MERCHANT_COVER, PP_RETREAT_MOVE, PP_DAMAGED_COVER, PP_CLOSE_SHARE, PP_ADVANCE,
    PP_ADVANCE_TORPEDO, PP_ADVANCE_SHORT_RANGE, PP_DISCOVER_SEEN, PP_DISCOVER_BLIND, PP_REORG_MARKER, PP_REORG_OVER,
    PP_REORG_UNBLOCK, PP_PLANES_WEIGHT, PP_SCOUT_SEEN, PP_SCOUT_BLIND, PP_RETREAT_CARD_VALUE, PP_SUPPORT_HOLD_SHARE,
    PP_HOLD_CABO, PP_CABO_HOLD_VALUE, PP_SMALL_HAND, PP_SMALL_HAND_DRAW, PP_FLARES_MIN_DICE, PP_REVEAL_BEST,
    PP_REINFORCE_BACK, PP_DEPLOY_CHEAP_FIRST, PP_DEPLOY_BACK, PP_DEPLOY_SUBS_SHORT, PP_DEPLOY_CAPITAL_BACK,
    PP_DEPLOY_TORPEDO_FRONT, PP_ATTACK_WEIGHT, PP_DECISIVE, PP_OWN_LOSS, PP_OWN_STAKE, PP_COVER_WEIGHT,
    PP_BACK_WEIGHT, PP_EXPOSE_WEIGHT, PP_HIDDEN_THREAT, PP_COVERED_SHARE, PP_THREAT_KILL, PP_RETREAT_DANGER,
    PP_DISCOVER_ORDER, PP_MAIN_DISCOVERY, PP_REORG_PICK, PP_ESCORT_ATTACK_SUB, PP_DIVE, PP_REVEAL_ROW, PP_MINES_PLAY,
    PP_FOG_PLAY, PP_FACCIOSO_PLAY, PP_COLLATERAL_FIRST, PP_TRANSFER_COVERED, PP_DEPLOY_AIR_SHORT,
    PP_DEPLOY_ESCORTS_BACK, PP_FOG_PICK, PP_MINES_TARGET, PP_EXCHANGE, PP_SPEED_DISTANCE, PP_COLLATERAL_PICK, NPP,
) = range(87)
#: discover_order: the order in which a discovery (5.4) and Scout look at the enemy rows
DISCOVER_ORDERS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))

# wk: int64 scratch for one game (kernels index it by these offsets)
WK_SEEN = 0                  # conservation check: PILE_CAP counters
WK_LIST = WK_SEEN + PILE_CAP  # slot lists (64)
WK_LIST2 = WK_LIST + 64      # second slot list (64)
WK_CAND = WK_LIST2 + 64      # candidate actions for random-legal: 4 ints each, up to MAX_CAND
MAX_CAND = 512
NWK = WK_CAND + 4 * MAX_CAND

# out: one row of int32 per game (engine.play_games_nb); game.py turns them into columns
O_WINNER, O_SCORE0, O_SCORE1, O_TURNS, O_SUBTURNS, O_DRAWN0, O_DRAWN1, O_END_REASON = 0, 1, 2, 3, 4, 5, 6, 7
O_MSHORT0, O_MSHORT1 = 8, 9
O_SUNK0 = 10          # O_SUNK0 + NTYPES (6) * side + type: cards of ``side`` sunk, by type (enums.TYPE_NAMES)
O_REMOVED = 22
O_FIRST, O_AI0, O_AI1 = 23, 24, 25
O_POINTS0, O_POINTS1, O_CARDS0, O_CARDS1 = 26, 27, 28, 29
O_HITS0, O_HITS1, O_ATTACKS0, O_ATTACKS1 = 30, 31, 32, 33
O_NIGHT_SUBTURNS, O_VIOLATION, O_FINAL_SUBTURN, O_BUILD_FAIL, O_SHIPS_SUNK0, O_SHIPS_SUNK1 = 34, 35, 36, 37, 38, 39
# simlab luck: G_LUCK0's 6 slots (dealt, mean * 36, variance * 1296; side 0 then 1), copied at the end
O_LUCK_DEALT0, O_LUCK_MEAN0, O_LUCK_VAR0, O_LUCK_DEALT1, O_LUCK_MEAN1, O_LUCK_VAR1 = 40, 41, 42, 43, 44, 45
# 32-bit random draws the game used from its stream (dice, shuffles, random choices; ``simlab bench``)
O_DRAWS = 46
NOUT = O_DRAWS + 1

#: the games table: every slot of ``out`` declared once (simlab.games.records): the façade's columns,
#: their dtypes and category labels, and the schema (``simlab schema mar-rojo``, the README) come from
#: it; Record.check proves every slot 0..NOUT-1 is exactly one field's. Adding a column: its O_ slot
#: above and its Field here.
OUTPUT_RECORD = Record(sys.modules[__name__], NOUT, (
    Field("winner", "int8", slot="O_WINNER", schema=False),  # the framework's column
    Field("score_{side}", "int16", "VP",
          "victory points: in 8.2/8.3 capital ships and merchants sunk plus merchants at short; in 8.1 "
          "and points-built (Rule 7, for information in 8.1) capital ships and merchants sunk plus one "
          "per four other cards",
          "O_SCORE0"),
    Field("turns", "int16", "turns",
          "game turns played (two sub-turns each)",
          "O_TURNS"),
    Field("subturns", "int16", "sub-turns",
          "sub-turns played",
          "O_SUBTURNS"),
    Field("cards_drawn", "int16", "cards",
          "action cards both sides drew after the deal (replacements of The End and Day/Night included)",
          "O_DRAWN0", sum_sides=True),
    Field("cards_drawn_{side}", "int16", "cards",
          "action cards that side drew after the deal",
          "O_DRAWN0"),
    Field("end_reason", "string", "label",
          "the_end (The End card), retreat, or limit (the sub-turn safety stop: a hang)",
          "O_END_REASON", labels=END_REASONS),
    Field("draw_stop_subturn", "int16", "sub-turn",
          "the sub-turn at which drawing stopped",
          "O_FINAL_SUBTURN"),
    Field("first_player", "string", "side",
          "the side that played first",
          "O_FIRST", labels=SIDE_NAMES),
    Field("removed_republican", "int8", "cards",
          "Republican cards removed by the 8.2 Transfer",
          "O_REMOVED"),
    Field("night_subturns", "int16", "sub-turns",
          "sub-turns played at night (Rule 10)",
          "O_NIGHT_SUBTURNS"),
    Field("merchants_short_{side}", "int8", "cards",
          "that side's merchants at short range at the end (8.2, 8.3)",
          "O_MSHORT0"),
    Field("ships_sunk_by_{side}", "int8", "cards",
          "enemy ships that side sank (the Rule 7 tie-break count)",
          "O_SHIPS_SUNK0"),
    Field("sunk_{side}_{type}", "int8", "cards",
          "that side's cards of that type sunk",
          "O_SUNK0", side_stride=NTYPES, values={"type": TYPE_NAMES}),
    Field("ai_{side}", "string", "label",
          "the solo AI's manoeuvre for that side (Rule 12): none, aggressive or passive",
          "O_AI0", labels=AI_MODE_NAMES),
    Field("squadron_points_{side}", "int16", "points",
          "the points of that side's squadron (Rule 9)",
          "O_POINTS0"),
    Field("squadron_cards_{side}", "int8", "cards",
          "fleet cards in that side's squadron",
          "O_CARDS0"),
    Field("hits_{side}", "int16", "damage markers",
          "damage markers that side's cards took",
          "O_HITS0"),
    Field("attacks_{side}", "int16", "actions",
          "combat actions that side made",
          "O_ATTACKS0"),
    Field("invariant_violation", "string", "label",
          "the first rule invariant the kernel found broken, or ok",
          "O_VIOLATION", labels=VIOLATION_NAMES, when="option check_invariants = true"),
    # simlab luck: the damage markers the side's dice dealt, their mean (x 36 in the row) and variance
    # (x 1296), from the odds (combat.luck_nb), per attack
    Field("luck_dealt_{side}", "float64", "damage markers",
          "damage markers that side's dice dealt: hits scored less hits saved, torpedo hits as the "
          "effect table turned them (a Sunk counted as the target's remaining hull)",
          "O_LUCK_DEALT0", side_stride=3),
    Field("luck_mean_{side}", "float64", "damage markers",
          "expected damage markers of those same rolls (hit, save and torpedo effect dice)",
          "O_LUCK_MEAN0", side_stride=3, divide=36.0),
    Field("luck_var_{side}", "float64", "damage markers squared",
          "variance of the damage markers of those same rolls",
          "O_LUCK_VAR0", side_stride=3, divide=1296.0),
    Field("build_fail", "int64", "flag", "1: a points-built squadron could not meet the Rule 9 table", "O_BUILD_FAIL",
          column=False),
    Field("draws", "int64", "draws", "32-bit random draws the game used from its stream (simlab bench)", "O_DRAWS",
          column=False),
), "mar-rojo", __file__)

#: the events table ``cards`` (option card_events): one row per squadron card, built by the façade from
#: ``(side, sq[game, slot, 0:3])``: the side, the card's pool index, its status and its damage
CARD_RECORD = Record(sys.modules[__name__], 4, (
    Field("side", "string", "side", "the side whose squadron the card is in",
          0, labels=SIDE_NAMES, when="option card_events = true"),
    Field("card", "string", "label", "the fleet card",
          1, labels="pool", code_type="int16", when="option card_events = true"),
    Field("status", "string", "label", "the card's status at the end: absent, in_play, sunk, removed or reserve",
          2, labels=STATUS_NAMES, when="option card_events = true"),
    Field("damage", "int8", "damage markers", "damage markers on the card at the end",
          3, when="option card_events = true"),
), "mar-rojo", __file__)

# setup: int64 game parameters common to a batch (game.py fills them)
SETUP_FIELDS = ("victory", "merchant_points0", "merchant_points1", "special", "length", "first", "first_override",
                "reveal", "build", "rules")
(Q_VICTORY, Q_MPTS0, Q_MPTS1, Q_SPECIAL, Q_LENGTH, Q_FIRST, Q_FIRST_OVERRIDE, Q_REVEAL, Q_BUILD,
 Q_RULES) = range(len(SETUP_FIELDS))
NQ = len(SETUP_FIELDS)
FIRST_BY_ESCORTS = -2  # Rule 9: the player with more escort cards; ties: the Nationalist

# fw: float64 scratch of the greedy policies' evaluation (policy_value.prep_eval_nb fills it)
FW_VALS = 0                   # MAXC: each own card's best action value (choose_play)
FW_TMP = FW_VALS + MAXC       # MAXC: scratch
FW_DICE = FW_TMP + MAXC       # MAXC x 7: own cards' dice per weapon now (-100: printed 0, cannot fire)
FW_TLIST = FW_DICE + 7 * MAXC  # MAXC: the enemy cards that can be targeted now (in play, face up), as slots
FW_NT = FW_TLIST + MAXC       # how many
FW_COV = FW_NT + 1            # 3: covered enemy cards per row
FW_TV = FW_COV + 3            # MAXC: value of sinking each enemy card (policy_value.target_value_nb)
FW_REM = FW_TV + MAXC         # MAXC: each enemy card's remaining hull
FW_SAVEF = FW_REM + MAXC      # MAXC: share of hits on each enemy card that stand after saves
FW_TORPF = FW_SAVEF + MAXC    # MAXC: expected damage of one torpedo hit on each enemy card (a Sunk counts its hull)
FW_PNEED = FW_TORPF + MAXC    # 12: P(d6 >= need) for need 0..11
FW_LUCKY = FW_PNEED + 12      # P(lucky hit) now (0 at night)
FW_CB = FW_LUCKY + 1          # MAXC x 4: each own card's card_best result (value, act, p1, p2) from choose_play
FW_OWNV = FW_CB + 4 * MAXC    # MAXC: what losing each own card costs this side (policy_stakes.own_loss_value_nb)
FW_DANGER = FW_OWNV + MAXC    # MAXC x 3: each own card's danger if face up in row 0, 1, 2 (value units)
FW_EPROF = FW_DANGER + 3 * MAXC  # MAXC x 6: each enemy card's expected gun / torpedo hits at S, M, L
FW_POOL = FW_EPROF + 6 * MAXC  # 3 x 6: the average covered enemy card's profile, standing in row 0, 1, 2
FW_OWNSF = FW_POOL + 18       # MAXC: each own card's save factor (policy_stakes.save_factor_nb)
FW_OWNTF = FW_OWNSF + MAXC    # MAXC: each own card's expected damage per torpedo hit
NFW = FW_OWNTF + MAXC


#: how a side's policy reaches the kernels (simlab.games.packing): its family's code ``pols[side]``
#: (enums.FAM_*, in enums.FAMILY_NAMES order) and the greedy knobs in ``pp[side, PP_*]``. A side of a
#: family without knobs (random-legal, solo-ai) gets the greedy defaults with torpedo_weight 1 and
#: stress_cost 0 (the solo AI takes no stress, 12.1): no kernel values a shot with them any more (a
#: Speed distance for such an attacker is chosen by the expected damage of the weapon it fires,
#: ``policy_combat.unscripted_shot_nb``, the solo AI's 12.4.2 weapon), so a future reader finds
#: neutral values rather than zeros.
POLICY_PACKING = PolicyPacking(
    Path(__file__).parent / "policies.toml",
    rows=(KnobRow("pp", np.float64, sys.modules[__name__], "PP_", NPP,
                  aliases={"torpedo_weight": "PP_TORP", "merchants": "PP_MERCH"},
                  fill_family="greedy", fill={"torpedo_weight": 1.0, "stress_cost": 0.0}),),
    family_ids={name: code for code, name in enumerate(FAMILY_NAMES)},
    sides=SIDE_NAMES,
)
