"""Integer constants of Dreadnought that numba kernels can see (Rules 4.0-9.5).

Directions follow the compass rose of the map (Rule 7.0): hexes are flat-topped in north-south
columns, so the six hexsides face N, NE, SE, S, SW and NW. Cube coordinates ``(x, z)`` (with
``y = -x - z``) make distances and directions integer arithmetic; see :mod:`.geometry`.
"""

from __future__ import annotations

# ---- directions (Rule 7.0), clockwise from north
FACING_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
N, NE, SE, S, SW, NW = range(len(FACING_NAMES))
# cube steps (dx, dz) of each direction; dy = -dx - dz
DX = (0, 1, 1, 0, -1, -1)
DZ = (-1, -1, 0, 1, 1, 0)

# ---- unit kinds (Rules 3.21-3.22, 8.0)
KIND_NAMES = ("capital", "screen")
CAPITAL, SCREEN = range(len(KIND_NAMES))

# ---- status of a unit (WAITING: a delayed Task Force not yet on the map, Rule 9.28)
STATUS_NAMES = ("afloat", "sunk", "exited", "waiting")
AFLOAT, SUNK, EXITED, WAITING = range(len(STATUS_NAMES))

# ---- unit types (Rules 3.21-3.23): capital ship, screen units of CAs, CLs, DDs
TYPE_NAMES = ("capital", "CA", "CL", "DD")
TYPE_CAPITAL, TYPE_CA, TYPE_CL, TYPE_DD = range(len(TYPE_NAMES))

# ---- formations (Rule 6.2)
MODE_NAMES = ("column", "line")
COLUMN, LINE = range(len(MODE_NAMES))

# ---- arcs of fire (Rule 7.1)
ARC_NAMES = ("broadside", "bow", "stern")
ARC_BROADSIDE, ARC_BOW, ARC_STERN = range(len(ARC_NAMES))

# ---- torpedo launch arcs (Rule 8.31)
STARBOARD, PORT = 0, 1

# ---- torpedo ratings printed on screen units (Rule 8.0): none, 1:1T, 2:1T
TORP_NAMES = ("", "1:1", "2:1")
TORP_NONE, TORP_1_1, TORP_2_1 = range(len(TORP_NAMES))

# ---- kinds of attack in the shots table
SHOT_KIND_NAMES = ("gun", "secondary", "torpedo")
SHOT_GUN, SHOT_SECONDARY, SHOT_TORPEDO = range(len(SHOT_KIND_NAMES))

# ---- shot results (Rule 5.41, 5.9): index into RESULT_NAMES
RESULT_NAMES = ("none", "1G", "1S", "1G,1S", "2G", "2S", "2G,1S", "1G,2S", "2G,2S", "E:sunk", "E:2G,1S")
(RES_NONE, RES_1G, RES_1S, RES_1G1S, RES_2G, RES_2S, RES_2G1S, RES_1G2S, RES_2G2S, RES_E_SUNK,
 RES_E_2G1S) = range(len(RESULT_NAMES))
# (G steps, S steps) of each plain result code
RESULT_G = (0, 1, 0, 1, 2, 0, 2, 1, 2, 0, 2)
RESULT_S = (0, 0, 1, 1, 0, 2, 1, 2, 2, 0, 1)
# CRT cell strings as printed (Rule 5.9) and their codes; "E" is handled apart
CRT_CELLS = {"": RES_NONE, "1G": RES_1G, "1S": RES_1S, "1G,1S": RES_1G1S, "2G": RES_2G, "2S": RES_2S,
             "2G,1S": RES_2G1S, "1G,2S": RES_1G2S, "2G,2S": RES_2G2S, "E": -1}
CRT_E = 15  # code of an E cell in the compiled CRT

# ---- what ended a scenario (Rule 9.4 and the scenario's victory conditions)
END_GAME_LENGTH = 0   # the scenario's last Game-Turn was played (Rule 9.0, 10.0)
END_NO_SIGHTING = 1   # three consecutive Game-Turns without sighting (Rule 9.42)
END_SIDE_GONE = 2     # one side has no unit left on the map (all sunk or exited)
END_OBJECTIVE = 3     # a scenario objective that decides the game was met (e.g. Singora's exit)
END_AGREEMENT = 4     # both players agreed to conclude (Rule 9.43; the policies' `agree` knob, `agree_historical` in 10.x)
END_EXHAUSTED = 5     # campaign: neither side can inflict further injury (Rule 9.43)
END_WRECKED = 6       # no longer produced (issue 28, 9.41-9.42: a side left with wrecks only does not end a scenario); kept for old rows
END_UNCONTESTED = 7   # campaign: one side assigned no ships (Rule 11.6)
END_LOOP_CAP = 8      # campaign: no contact within the approach's cap, or still going at the scenario's loop cap (a hang)
END_REASONS = ("game_length", "no_sighting", "side_gone", "objective", "agreement", "exhausted", "side_wrecked",
               "uncontested", "loop_cap")

# ---- victory levels (Rule 9.55); "objective": won on the scenario's condition, not on points
LEVEL_NAMES = ("draw", "objective", "marginal", "substantial", "decisive")
LEVEL_DRAW, LEVEL_OBJECTIVE, LEVEL_MARGINAL, LEVEL_SUBSTANTIAL, LEVEL_DECISIVE = range(len(LEVEL_NAMES))

# ---- victory conditions of the historical scenarios (Rule 10.1-10.7)
VC_POINTS = 0                 # more Victory Points wins; equal is a draw (10.5-10.7)
VC_SINK_NAMED_AND_POINTS = 1  # side must sink or wreck a named ship AND score more, or lose (10.1)
VC_SINK_NAMED_OR_ESCAPE = 2   # side must sink or wreck a named ship; the other must keep it and break contact; else draw (10.2)
VC_SINK_NAMED = 3             # side must sink or wreck a named ship, or lose (10.3)
VC_EXIT_OR_POINTS = 4         # side wins decisively by exiting its objective ships by a deadline, else points (10.4)
VC_NAMES = ("points", "sink-named-and-points", "sink-named-or-escape", "sink-named", "exit-or-points")

# ---- safe-zone roles (Rule 9.13)
ROLE_NAMES = ("north", "south")
ROLE_NORTH, ROLE_SOUTH = range(len(ROLE_NAMES))

# ---- policies: movement behaviour codes
MOVE_CLOSE, MOVE_HOLD, MOVE_BREAK, MOVE_OBJECTIVE, MOVE_RANDOM, MOVE_WITHDRAW = 0, 1, 2, 3, 4, 5
# fire allocation codes
FIRE_FOCUS_ODDS, FIRE_SPREAD_VALUE, FIRE_NEAREST, FIRE_RANDOM = 0, 1, 2, 3
# torpedo use codes
TORP_USE_AGGRESSIVE, TORP_USE_SELECTIVE, TORP_USE_DEFENSIVE, TORP_USE_RANDOM = 0, 1, 2, 3

# ---- sun position (Rule 12.5)
SUN_NAMES = ("none", "rising-east", "setting-west")
SUN_NONE, SUN_RISING_EAST, SUN_SETTING_WEST = range(len(SUN_NAMES))

# ---- the campaign (Rules 11.0-11.9): periods, scenarios, policies
PERIODS = ("wwi", "inter-war", "wwii")
CAMPAIGN_SCENARIOS = ("A", "B", "C", "D")
SCEN_A, SCEN_B, SCEN_C, SCEN_D = range(len(CAMPAIGN_SCENARIOS))
NAVIES = ("british", "us", "french", "austro-hungarian", "russian-baltic", "russian-black-sea", "brazilian",
          "german", "japanese", "spanish", "italian", "argentine")
# fleet builders (11.8) and force allocation (11.0, 11.6)
BUILDER_NAMES = ("value-greedy", "balanced", "random")
BUILD_VALUE_GREEDY, BUILD_BALANCED, BUILD_RANDOM = range(len(BUILDER_NAMES))
ALLOCATION_NAMES = ("spread", "main-body", "concentrate", "random")
ALLOC_SPREAD, ALLOC_MAIN_BODY, ALLOC_CONCENTRATE, ALLOC_RANDOM = range(len(ALLOCATION_NAMES))
# what ended a campaign game, and an extended campaign (12.66)
CAMPAIGN_END_NAMES = ("complete", "loop_cap")
CAMP_COMPLETE, CAMP_LOOP_CAP = range(len(CAMPAIGN_END_NAMES))
EXTENDED_END_NAMES = ("peace", "turn_limit", "bankrupt", "loop_cap")
EXT_PEACE, EXT_TURN_LIMIT, EXT_BANKRUPT, EXT_LOOP_CAP = range(len(EXTENDED_END_NAMES))
