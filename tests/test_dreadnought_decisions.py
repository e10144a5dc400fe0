"""Dreadnought's decision inventory (issue 28: decisions.toml) and the formation choices of Rules
6.27-6.28 made by the policy (`keep_slow`, `keep_damaged`)."""

import numpy as np
import pytest
from dreadnought_campaign_helpers import position
from numba import njit

from simlab.games import get_game
from simlab.games.decisions import check_decisions, load_decisions
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.policies.formation_plans import maintain_formations_nb
from simlab.games.dreadnought.runtime import POLICY_FILE, pack_policies, policy_book

GAME = get_game("dreadnought")
DECISIONS = POLICY_FILE.parent / "decisions.toml"


def test_inventory_loads_and_names_only_knobs_of_the_family():
    ds = load_decisions(DECISIONS)
    knobs = {k.name for k in policy_book().families["scripted"].knobs}
    named = {k for d in ds for k in d.knobs}
    assert named <= knobs, named - knobs
    for k in ("keep_slow", "keep_damaged", "tow_break", "agree_historical", "agree", "wrecks"):
        assert k in named
    assert all(d.gap for d in ds if not d.knobs) and all(not d.gap for d in ds if d.knobs)
    sections = {d.section for d in ds}
    assert {"5.31", "6.13", "6.26", "6.27", "9.21", "9.22", "9.43", "12.41"} <= sections
    assert check_decisions(GAME, ds) == []
    assert GAME.decisions() == ds


@njit
def _maintain(side, st, sh, fm, trail, n, rl, pc, buf):
    maintain_formations_nb(side, st, sh, fm, trail, n, rl, pc, buf, np.zeros(4, dtype=np.uint64))


def _formation(units, knobs):
    st, sh, fm, trail, sc = position(units)
    n = len(units)
    for i in range(1, n):                       # one formation, unit 0 its flagship, in line abreast
        sh[i, L.SH_FORM] = 0
        fm[i, L.FM_MEMBERS] = 0
        fm[i, L.FM_FLAG] = -1
    fm[0, L.FM_MEMBERS] = n
    pc, kn = pack_policies({"a": policy_book().resolve("a", "close-and-engage", dict(formation=-1, **knobs)),
                            "b": "close-and-engage"}, ("a", "b"))
    rl = rules_for(GAME.load_data())[0].rl
    _maintain(0, st, sh, fm, trail, n, rl, pc[0], np.zeros((n, 3), dtype=np.int64))
    return [int(sh[i, L.SH_FORM]) for i in range(n - 1)]


UNITS = [dict(side=0, type="capital", x=0, z=0, speed=4), dict(side=0, type="capital", x=1, z=0, speed=4),
         dict(side=0, type="capital", x=2, z=0, speed=4, G=2, S=1),    # three damage steps (and slow: 1S)
         dict(side=1, type="capital", x=0, z=-30)]


def test_damaged_and_slow_ships_leave_their_formation_unless_the_policy_keeps_them_6_27():
    # today's play: a ship with 1S (Movement Allowance below the formation's best) leaves (6.27-6.28)
    slow = [dict(u) for u in UNITS]
    slow[2].update(G=0, S=1)                     # one step: slow only
    assert _formation(slow, {})[2] != 0
    assert _formation(slow, {"keep_slow": 1}) == [0, 0, 0]
    hurt = [dict(u) for u in UNITS]
    hurt[2].update(G=2, S=0)                     # two steps of G, not slow
    assert _formation(hurt, {}) == [0, 0, 0]     # two steps: stays
    both = [dict(u) for u in UNITS]              # 2G 1S: three steps and slow
    assert _formation(both, {"keep_slow": 1})[2] != 0             # three steps: leaves (keep_damaged 0)
    assert _formation(both, {"keep_slow": 1, "keep_damaged": 1}) == [0, 0, 0]


@pytest.mark.timeout(900)
def test_every_entry_but_merge_changes_a_winner_at_its_bounds_where_it_arises():
    """Issue 28's measure: each inventory entry's knobs at their bounds, 300 games on common random
    numbers, played where the entry's ``measure`` says its choice arises (the campaign, an optional
    rule, a preset that plays line abreast, an opponent that agrees). 27 of 28 entries change at
    least one winner (96%; the issue asks 90%). The one that does not is 6.27's ``merge``: in none
    of the 21 settings tried (the seven historical scenarios and both campaigns, under
    ``break-contact``, ``hold-range`` or ``close-and-engage``, at 100 games) did merging change a
    winner, though it does merge formations (tests/test_dreadnought_decisions_tactical.py)."""
    from simlab.testing.decision_bounds import _summary, knob_bounds_effects
    rows = knob_bounds_effects("dreadnought", games=300)
    assert _summary(rows) == (27, 28)
    idle = {(r["section"], r["knob"]) for r in rows if not r["changed"]}
    assert ("6.27", "merge") in idle
    by = {}
    for r in rows:
        by[(r["section"], r["decision"])] = by.get((r["section"], r["decision"]), 0) + (r["changed"] or 0)
    assert [k for k, v in by.items() if v == 0] == [("6.27", next(d.decision for d in GAME.decisions()
                                                                  if d.knobs == ("merge",)))]
