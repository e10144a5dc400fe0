"""Named slots of the Dawn of Empire policies' knob vector: numba-visible integer constants.

The families and their knobs (name, default, bounds, unit) are declared in
``simlab/games/doe/policies.toml``; the named policies are its presets. The runtime packs each
side's knobs into one row of ``kn[2, KN_NF]`` (``int64``), knob ``name`` in slot ``K_<NAME>``
(:data:`POLICY_PACKING`, :mod:`simlab.games.packing`), so a kernel reads ``kn[K_ODDS]`` whatever
the order of the knobs in the file:

* an ``int`` knob as it is (scores, MP, units, flags, permille);
* a ``float`` knob (a fraction in ``[0, 1]``) in permille: ``round(1000 * value)``.

Knobs of the same name in two families share a slot and a meaning; a family's kernel path reads
only its own knobs (the others stay 0). The family itself is not a knob: ``par[P_POL0 + side]``
holds its id (``FAM_*``), which picks the kernel path (random, or the side's scripted plan).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..packing import KnobRow, PolicyPacking

# families (ids in par[P_POL0 + side]); FAM_SCRIPT: plans handed in from outside (tests)
FAM_RANDOM, FAM_US, FAM_SPAIN, FAM_SCRIPT = range(4)
FAMILY_IDS = {"random-legal": FAM_RANDOM, "us-fleet": FAM_US, "spain-fleet": FAM_SPAIN}

# ---------------------------------------------------------------- knob slots kn[side, :]
(
    # both scripted families
    K_AGGRESSION,       # permille: share of the fleet given the main mission; lowers the odds wanted
    K_ODDS,             # permille: strength ratio wanted (at aggression 0) before seeking battle
    K_SHARE_SLACK,      # permille of a group's own attack it may take the main mission past its share
    K_REPAIR_AT,        # a damaged group goes home when damage * repair_at >= attack + units
    K_SPLIT_ABOVE,      # a group of more units is split in two of even strength
    K_SLOW_MP,          # MP: a unit of this movement or less is slow (grouped apart, kept home)
    K_DEPLOY,           # 14.11 set-up plan (US 0 forward base, 1 two home ports; Spain 0 printed, 1 base, 2 split)
    K_LANE_VP,          # score per VP of a sea lane patrolled
    # US
    K_BLOCKADE,         # 1: squadrons take Blockade missions
    K_GUARD_COAST,      # 1: the areas off US ports are patrolled first
    K_BLOCKADE_VALUE,   # score of a blockade target port
    K_BLOCKADE_DEF,     # score per defense point of the target port
    K_BLOCKADE_GARRISON,  # score per enemy unit seen in the target port
    K_BLOCKADE_COST,    # score lost per MP to reach the blockade area
    K_LANE_FREE,        # score of a lane no squadron was sent to yet
    K_LANE_TAKEN,       # score lost by a lane a squadron was already sent to
    K_GUARD_BASE,       # score of an area off a US port (guard_coast)
    K_GUARD_VP,         # score per Spanish VP of that area
    K_GUARD_THREAT_DIV,  # the enemy attack that can strike the area counts 1 / guard_threat_div
    K_ATTACK_VALUE,     # score of patrolling into enemy units the group can match
    K_PATROL_CHOICES,   # Patrol candidates listed per group
    K_SEA_SQUADRON,     # 14.11 B: ships set up at sea (the fastest)
    # Spain
    K_RAIDS,            # 1: squadrons take Raid missions
    K_RAID_VALUE,       # score of a raid target
    K_RAID_VP,          # score per Spanish VP of the raided area
    K_RAID_DEF,         # score per defense point of the raided port
    K_RAID_COST,        # score lost per MP to reach the raid area
    K_CONCENTRATE,      # 1: groups gather in the Caribbean base and strike from it
    K_BASE_REPAIR,      # base choice: score per repair point of a Caribbean port
    K_BASE_MINES,       # base choice: score per mine point of a Caribbean port
    K_CROSS_IN_STAGES,  # 1: a group that cannot reach the base in one move crosses in stages
    K_PATROL_HOME,      # 1: groups in the base patrol empty neighbouring areas that pay Spain
    K_HOLD_LANES,       # 1: between raids, groups patrol the sea lanes that pay Spain
    K_LANE_CHOICES,     # Patrol candidates listed per group (hold_lanes)
    K_LANE_COST,        # score lost per MP to reach a lane (hold_lanes)
    # both scripted families: choices inside the Combat Phase (policy_combat)
    K_DISENGAGE_ODDS,   # permille: leave by speed when able and own attack * 1000 < this * enemy's (10.2)
    K_COMBAT_ORDER,     # Spain: order of the areas' combats (4.3 B, policy_combat.CO_*)
    K_SCREEN,           # Spain 1: groups in a threatened port patrol (or sortie into) its area
    K_SCREEN_MP,        # Spain: enemy units within this many MP of the area make it threatened
    K_SCREEN_ODDS,      # Spain permille: own attack * 1000 >= screen_odds * the enemy's nearby
    K_KEEP_HOME,        # Spain 1: with concentrate, the squadron in the home port (Cadiz) stays
    # US plans of issue 13 (7.5 rotation, a home guard sized to the seen threat)
    K_BLOCKADE_ROTATE,  # US 1: blockades rotated within the sea coaling limit (7.5 C-D)
    K_BLOCKADE_RELIEF,  # US: score of a port whose blockaders left it to coal in port (rotate)
    K_GUARD_SIZED,      # US permille: home guard = this * the raid threat seen (0: the aggression share)
    K_GUARD_REACH,      # US MP: enemy units within this many MP of an area off a US port threaten it
    # both scripted families: where disabled units go (8.3.2.1 B, policy_combat.DP_*)
    K_DISABLED_PORT,    # ties among equally near ports: 0 most repair, 1 most defense + mines
    K_DISABLED_NEUTRAL,  # 14.9: 0 never a neutral port, 1 when nearer than any friendly one, 2 only to escape scuttling (14.8)
    # both scripted families: the player choices of issue 28 (garrisons, 5.4 D Coal or Anchor)
    K_GARRISON,         # units: each own port threatened within garrison_mp keeps this many anchored (5.1 A)
    K_GARRISON_MP,      # MP: enemy units seen this near an area off an own port make it threatened (garrison)
    K_AFTER_PATROL,     # 5.4 D after a Patrol: 0 Coal at sea first (within 7.5 C), 1 Anchor in a bordering own port first
    K_GARRISON_SEND,    # 1: a threatened port short of its garrison is filled by the weakest groups that can reach it
    # both scripted families: the gaps of issue 28 closed (stack order, leaders, IUs, 5.5 D, repairs, 7.3 C)
    K_LINE_ORDER,       # 4.1.2 B, D: 0 strongest unit on top of each stack (first in line), 1 weakest on top
    K_LEADER_GROUP,     # 4.1.2 C: the best leader at a place goes with 0 its strongest group, 1 its weakest
    K_IU_JOIN,          # 7.4 E: 1 an IU ending its move with friendly units stacks with them, 0 it stays separate
    K_RAID_HOME,        # 5.5 D after a Raid: 0 the nearest port, 1 most repair in reach, 2 most defense + mines in reach
    K_REPAIR_ORDER,     # 9.0 B-C (par[P_REPORD0 + side]): 0 strongest first, 1 least damage first, 2 most damage first
    K_MERGE_KEEP,       # 7.3 C equal stacks (par[P_MERGE0 + side]): 0 leader, stars, coin; 1 first-planned; 2 last-planned
    K_MAINT_PICK,       # 14.3 A-C (par[P_MAINT0 + side]): 0 in port first, then most defense left; 1 most defense; 2 least
    K_PURSUE,           # 14.9 B-C (par[P_PURSUE0 + side]): 0 all after the slowest subgroup, 1 each after the fastest it catches
    K_REFORM_ORDER,     # 8.3.3 A (par[P_REFORM0 + side]): equally damaged units 0 as before, 1 strongest first, 2 weakest first
    # both scripted families: the orders and movement gaps of issue 28 (policy_routes)
    K_ROUTE,            # 7.1 F: 0 the least-MP route, 1 around areas that may halt it, 2 around any opposing forces seen
    K_PATROL_STOP,      # 5.4 B: 0 go on, 1 stop in the first area entered where enemy units are seen, 2 the shortest patrol
    K_DROP_OFF,         # 7.3 D, units: a Patrol or Transit squadron drops this many in the first area it traverses
    KN_NF,
) = range(64)

#: how a side's policy reaches the kernels (simlab.games.packing): its family's id (FAMILY_IDS;
#: "script", plans handed in from outside, packs FAM_SCRIPT and zeros) and each knob NAME of its
#: family in kn[side, K_NAME], an int knob as it is and a float knob (a fraction) in permille,
#: round(1000 * value). Adding a knob: its line in policies.toml and its K_NAME in the tuple above,
#: before KN_NF (the framework finds the slot by name and checks every knob has one and every slot
#: one knob).
POLICY_PACKING = PolicyPacking(
    Path(__file__).parent / "policies.toml",
    rows=(KnobRow("kn", np.int64, sys.modules[__name__], "K_", KN_NF, float_scale=1000),),
    family_ids=FAMILY_IDS,
    fixed={"script": FAM_SCRIPT},
    sides=("us", "spain"),
)

# ---------------------------------------------------------------- policy scratch pw[PW_NF, PW_W]
# The policies' working arrays, rows of one int64 array allocated once per batch by the entry
# kernel (policies.policy_scratch_nb, called by campaign_loop.play_campaigns_nb) and reused by
# every plan of the batch: no policy kernel allocates inside the game loop, so all of them run
# without numba's reference counting. A row holds what its comment says; its width is at least
# 4N, U + 1, N + 1, MAXSS, MAXPER and MAXC. Each plan writes a row before it reads it, except the
# nearest-port memo PW_NFREP / PW_NFANY (slot side * N + node, -2 until worked out), which
# depends only on the map and lasts the batch (policy_view.nearest_friendly_memo_nb).
(
    # per group (policy_view.group_units_nb, policies.scripted_plan_nb): index < MAXSS
    PW_GN, PW_GAT, PW_GSTR, PW_GDMG,   # members, place, attack dice, damage points
    PW_GKIND,           # the group's kind: allowed orders * 8 + speed tier * 2 + repairing
    PW_GLD,             # the leader given to the group (-1: none)
    PW_GKEY, PW_GORDER,  # sort key (strongest first) and the groups in that order
    PW_SLOT,            # the group's stack slot
    # per node (index < N) or area (< A)
    PW_THREAT, PW_HOME, PW_SCORE,   # policy_view.turn_tables_nb, missions' scores
    PW_NFREP, PW_NFANY,  # nearest friendly port that repairs / of any kind (batch memo, 2N)
    PW_SENT, PW_COAL,   # attack sent (tenths) and units given Coal, per node, this plan
    PW_ENEMY,           # enemy units seen per node (vis[:, VIS_N])
    # candidates and legal options
    PW_ACC,             # policy_missions.missions_nb's accumulators acc[0:4]; acc[4]: the knob after_patrol (read by add_after_patrol_nb)
    PW_CO, PW_CD, PW_CT,  # candidate orders, destinations, targets (MAXC)
    PW_OD, PW_OT,       # legal destinations and targets (campaign_orders.legal_options_nb, 4N)
    PW_CNT,             # legal options per order (random-legal)
    # units (group_units_nb): strength keys, units strongest first, by place (counting sort)
    PW_UKEY, PW_UORDER, PW_START, PW_FILL, PW_BYN,
    # random-legal: per slot its place and order mask, the units at a place, candidate slots,
    # the slot permutation and its inverse, the new slots' places, one slot's members
    PW_SLOT_LOC, PW_SLOT_MASK, PW_UNITS, PW_CAND, PW_PERM, PW_INV, PW_NEW_LOC, PW_MEMBERS,
    # per group (< MAXSS): 1 the group is its port's garrison, 2 it sails to garrison port PW_GDEST
    # (knobs garrison, garrison_send; policies.mark_garrisons_nb), 0 neither
    PW_GGAR, PW_GDEST,
    # routes (policy_routes.route_pick_nb, < RMAX + 1): the path being built, each depth's next
    # node to try and MP spent, the route chosen; per node the penalty of traversing it (< N)
    PW_RPATH, PW_RNEXT, PW_RCOST, PW_RBEST, PW_AVOID,
    PW_NF,
) = range(45)
