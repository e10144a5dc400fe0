"""Integer constants of Mar Rojo that numba kernels can see (Rules 3-12).

Names follow the rulebook (``004_de35405c1f288ce0.txt``): fleet card types (3.1), armour/save
classes (5.3.1 step 10), the three distances or rows (4), action card kinds (3.2), the modes of
playing an action card (5 step 2), policies and builders.
"""

from __future__ import annotations

# Sides of a game (Rule 1): the Nationalist and the Republican player. ``winner`` indexes this.
NAT, REP = 0, 1
SIDE_NAMES = ("nationalist", "republican")

# The "Side" of a fleet card (Rules 3.1, 11): who may put it in a squadron.
F_NATIONALIST, F_REPUBLICAN, F_NEUTRAL, F_ROYAL_NAVY, F_KRIEGSMARINE, F_REGIA_MARINA = 0, 1, 2, 3, 4, 5
FACTION_NAMES = ("nationalist", "republican", "neutral", "royal-navy", "kriegsmarine", "regia-marina")
#: factions each side may use with the neutral (11) and intervention (11) fleets allowed
FACTION_SIDE = (NAT, REP, -1, REP, NAT, NAT)  # -1: either side (neutral)
INTERVENTION = (F_ROYAL_NAVY, F_KRIEGSMARINE, F_REGIA_MARINA)

# Fleet card types (Rule 3.1). Destroyers and auxiliaries are escorts.
CAPITAL, DESTROYER, AUXILIARY, SUBMARINE, MERCHANT, AIRCRAFT = 0, 1, 2, 3, 4, 5
TYPE_NAMES = ("capital", "destroyer", "auxiliary", "submarine", "merchant", "aircraft")
NTYPES = len(TYPE_NAMES)

# Armour / save classes (Rule 5.3.1 step 10): X none, L 6, H and S 5+, E 4+.
ARM_X, ARM_L, ARM_H, ARM_S, ARM_E = 0, 1, 2, 3, 4
ARMOUR_NAMES = ("X", "L", "H", "S", "E")

# Rows / distances (Rule 4) and the combat-distance table's "Speed" result (5.3.1 step 2).
SHORT, MEDIUM, LONG = 0, 1, 2
SPEED = 3
ROW_NAMES = ("short", "medium", "long")

# Weapons (Rules 3.1.1, 5.3): the combat values of a fleet card.
W_MAIN, W_SECONDARY, W_TORPEDO, W_AA, W_ASW, W_AIR, W_BOMBING = 0, 1, 2, 3, 4, 5, 6
WEAPON_NAMES = ("main", "secondary", "torpedo", "aa", "asw", "air", "bombing")
NWEAPONS = len(WEAPON_NAMES)
# What a weapon may target (Rule 5.3.1 step 1): 0 surface ship, 1 submarine, 2 aircraft.
TGT_SURFACE, TGT_SUB, TGT_AIR = 0, 1, 2
WEAPON_TARGET = (TGT_SURFACE, TGT_SURFACE, TGT_SURFACE, TGT_AIR, TGT_SUB, TGT_AIR, TGT_SURFACE)
# Weapons only aircraft use (1), only ships use (0), either (2) (Rule 5.3: air combat and
# bombardment are aircraft only).
WEAPON_USER = (0, 0, 0, 0, 2, 1, 1)

# Action card types (Rule 3.2); SPECIAL: The End and Day/Night, never played.
AT_GENERAL, AT_SUPPORT, AT_INTERRUPTION, AT_SPECIAL = 0, 1, 2, 3
ACTION_TYPE_NAMES = ("general", "support", "interruption", "special")

# Action card kinds. The order is fixed: effects are coded by kind (the data pack gives values).
K_DESTROYERS, K_CRUISERS, K_PLANES, K_TORPEDOES, K_DEPTH_CHARGES, K_AIR_DEFENCE = 0, 1, 2, 3, 4, 5
K_MERCHANT_SHIPS, K_GENERAL_QUARTERS, K_SCOUT, K_RETREAT, K_THE_END, K_DAY_NIGHT = 6, 7, 8, 9, 10, 11
K_OPTICS, K_CABO_PALOS, K_FLARES = 12, 13, 14
K_SMOKE, K_SURPRISE, K_COLLATERAL, K_MINES, K_FOG, K_FACCIOSO = 15, 16, 17, 18, 19, 20
ACTION_NAMES = (
    "Destroyers", "Cruisers", "Planes", "Torpedoes", "Depth Charges", "Air Defence",
    "Merchant Ships", "General Quarters", "Scout", "Retreat", "The End", "Day/Night",
    "Optics", "Cabo Palos", "Flares",
    "Smoke", "Surprise", "Collateral", "Mines", "Fog", "Faccioso",
)
NKINDS = len(ACTION_NAMES)

# Columns of the compiled action-kind table (rules.ActionKinds.table, int64[NKINDS, NAK]).
ACTION_KIND_COLUMNS = ("type", "red", "blue", "count", "night_only", "night_remove", "optional", "side", "solo_effect")
(AK_TYPE, AK_RED, AK_BLUE, AK_COUNT, AK_NIGHT_ONLY, AK_NIGHT_REMOVE, AK_OPTIONAL, AK_SIDE,
 AK_SOLO_EFFECT) = range(len(ACTION_KIND_COLUMNS))
NAK = len(ACTION_KIND_COLUMNS)

# How an action card is played (Rule 5 step 2).
MODE_EFFECT, MODE_REORG, MODE_ACTIONS = 0, 1, 2
MODE_NAMES = ("effect", "reorganisation", "actions")

# Actions of one activated fleet card (Rules 5.1-5.5).
ACT_ATTACK, ACT_UNCOVER, ACT_COVER, ACT_MOVE, ACT_EXCHANGE, ACT_DISCOVER, ACT_REORG = 0, 1, 2, 3, 4, 5, 6
ACT_NAMES = ("attack", "uncover", "cover", "move", "exchange", "discover", "reorganise")

# Where a fleet card of a squadron is (per game).
ST_ABSENT, ST_IN_PLAY, ST_SUNK, ST_REMOVED, ST_RESERVE = 0, 1, 2, 3, 4
STATUS_NAMES = ("absent", "in_play", "sunk", "removed", "reserve")

# Game lengths (Rule 6).
LEN_SHORT, LEN_AVERAGE, LEN_LONG = 0, 1, 2
LENGTH_NAMES = ("short", "average", "long")

# Victory conditions (Rules 7, 8.1-8.3).
V_CABO_DE_PALOS = 0     # 8.1: the Republican wins by sinking a capital ship, or a merchant and an escort
V_CAPITAL_MERCHANT = 1  # 8.2, 8.3: 1 point per enemy capital or merchant sunk (+ merchants at short)
V_POINTS = 2            # 7: 1 per capital or merchant sunk, +1 per 4 other cards destroyed
VICTORY_NAMES = ("cabo-de-palos", "capital-merchant", "points")

# Scenario special rules (bit flags): 8.2 Transfer to the Cantabrian Sea, 8.3 the Navarra arrives.
SP_TRANSFER, SP_NAVARRA = 1, 2
SPECIAL_NAMES = {"transfer-to-cantabrian-sea": SP_TRANSFER, "navarra-arrives": SP_NAVARRA}

# Why a game ended (Rule 6).
END_THE_END, END_RETREAT, END_LIMIT = 0, 1, 2
END_REASONS = ("the_end", "retreat", "limit")

# Policy families (policies.toml): the kernel path a side's policy takes, held in g[G_POL0 + side].
# The named policies (aggressive, cautious, torpedo-first...) are presets of these, with knob values.
FAM_RANDOM, FAM_GREEDY, FAM_SOLO = 0, 1, 2
FAMILY_NAMES = ("random-legal", "greedy", "solo-ai")

# Squadron builders (Rule 9).
B_BALANCED, B_GREEDY, B_RANDOM = 0, 1, 2
BUILDER_NAMES = ("balanced", "value-greedy", "random")

# The solo AI's manoeuvre (Rule 12.2): 1-3 aggressive, 4-6 passive.
AI_NONE, AI_AGGRESSIVE, AI_PASSIVE = 0, 1, 2
AI_MODE_NAMES = ("none", "aggressive", "passive")

# First player choice (option first_player).
FIRST_SCENARIO = -1
