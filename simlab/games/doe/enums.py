"""Integer constants of Dawn of Empire that numba kernels can see (Rule 3.4.1.1, 8.3)."""

from __future__ import annotations

# Ship types (Rule 3.4.1.1), in the order of the rulebook's table.
BB, CA, CP, CU, GB, MO = 0, 1, 2, 3, 4, 5
TYPE_NAMES = ("BB", "CA", "CP", "CU", "GB", "MO")
TYPE_CODE = {n: i for i, n in enumerate(TYPE_NAMES)}

# Losses VPs per sunk unit of each type, in half points (Rule 12.1.2: BB 2, CA 1, CP/CU/GB 1/2, MO 1).
LOSS_HALF_VP = (4, 2, 1, 1, 1, 2)

# Where a unit is at the end of a battle.
IN_LINE, SUNK, DISABLED, ESCAPED = 0, 1, 2, 3
STATUS_NAMES = ("in_line", "sunk", "disabled", "escaped")

# What ended a battle.
END_GUNFIRE = 0     # one side's line emptied by sinking/disabling (Rule 10.1)
END_SPEED = 1       # one side's last units disengaged by speed (Rule 10.2)
END_MUTUAL = 2      # both lines emptied in the same round: neither side wins
END_MAX_ROUNDS = 3  # the round limit was reached with both lines standing: a draw
END_REASONS = ("gunfire", "speed", "mutual", "max_rounds")

# Leader fate at the end of a battle (Rule 6.3).
LEADER_NONE, LEADER_ACTIVE, LEADER_KILLED, LEADER_LEFT = 0, 1, 2, 3
LEADER_NAMES = ("none", "active", "killed", "left")

# Speed disengagement option (Rule 10.2).
SPEED_NEVER, SPEED_WHEN_ABLE = 0, 1
SPEED_MODES = ("never", "when-able")
# Kernel-only mode for optional rule 14.9 (speed defined subgroups, used by the campaign): as
# when-able, but the battle stops after the first round in which units disengage by speed, so the
# caller can play the pursuit round.
SPEED_STOP = 2

#: a side's disengagement choice (``battle_nb``, Rule 10.2): always leave when able, or toss a coin
FLEE_ALWAYS = 1 << 40
FLEE_COIN = -1

#: the order of a side's units with the same damage when its battle line is reformed (8.3.3 A,
#: ``reform_order``, ruling B11): their previous order (the default), the most defense left first
#: (then the most attack), the least defense left first; a uniformly random order (random-legal)
RF_KEEP, RF_STRONG, RF_WEAK, RF_RANDOM = 0, 1, 2, 3

#: ``combat_order`` modes (4.3 B): the pack's area order, Spain's largest squadrons at sea first,
#: its smallest first, a uniformly random order (random-legal)
CO_MAP, CO_STRONG_FIRST, CO_WEAK_FIRST, CO_RANDOM = 0, 1, 2, 3

#: where disabled units go (8.3.2.1 B): among equally near ports, the most repair or the most
#: defense + mines (``disabled_port``); a uniform draw among the legal ports (random-legal)
DP_REPAIR, DP_SAFE, DP_RANDOM = 0, 1, 2
#: under 14.9, the nearest neutral port (``disabled_neutral``): never, when nearer than every
#: friendly port, only when the unit would be scuttled on the way to a friendly one (14.8 A)
DN_NEVER, DN_NEARER, DN_ESCAPE = 0, 1, 2

#: which damaged units a port repairs first (9.0 B-C, ``repair_order``): the strongest (ruling C20),
#: the least damaged (most units made whole), the most damaged; a uniformly random order (random-legal)
RO_STRONG, RO_LEAST, RO_MOST, RO_RANDOM = 0, 1, 2, 3
#: whose order two combining squadrons of the same size keep (7.3 C, ``merge_keep``): the rule's
#: default (the one with a leader, then the most stars, then a coin), the one planned first (lower
#: stack slot: the scripted families plan their strongest group first), the one planned last
MK_RULE, MK_FIRST, MK_LAST = 0, 1, 2
#: which eligible units take a maintenance damage point (14.3 A-C, ``maint_pick``): one in a friendly
#: port first, then the most defense left (ruling C30's reading, the default); the most defense left
#: wherever it is; the least defense left that survives the point (damage kept on units already hurt);
#: a uniform draw among the eligible (random-legal)
MP_PORT, MP_STRONG, MP_WEAK, MP_RANDOM = 0, 1, 2, 3
#: where the pursuer sends its units after a disengagement by speed under 14.9 (B-C, ``pursue``):
#: all that can after the slowest subgroup (the default); each after the fastest subgroup it can
#: catch (the forces split); each after one it can catch, drawn (random-legal)
PU_SLOWEST, PU_SPLIT, PU_RANDOM = 0, 1, 2
