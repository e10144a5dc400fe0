"""Dawn of Empire decision inventory (issue 28): the player choices added as knobs — a port's garrison
(5.1 A, 8.2), Spanish Blockade orders (5.2), US Raid orders (5.5), Coal or Anchor after a Patrol
(5.4 D, 7.5 C) — each change the games at their bounds, the engine accepts every plan they write,
and random-legal samples them too.

Every measurement plays the same seeds at both bounds (common random numbers) and reads each game's
per-turn trace (``TR_ORDER``, ``TR_LOC`` after the orders of each turn) and VP ledger.
"""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.runtime import run_games
from simlab.rng import game_seeds

pytestmark = pytest.mark.timeout(900)

GAME = get_game("dawn-of-empire")
SCEN = GAME.load_scenario("standard")
DATA = SCEN.payload
OPTS = GAME.resolve_options({})
SIDES = list(SCEN.sides)
N_GAMES = 300
SEEDS = game_seeds(20261202, 0, 0, N_GAMES)
A = DATA.n_areas


def _play(us="hunter", spain="raider", us_knobs=None, spain_knobs=None, n=N_GAMES):
    pols = GAME.resolve_policies(SIDES, {"us": us, "spain": spain},
                                 {"us": dict(us_knobs or {}), "spain": dict(spain_knobs or {})})
    return run_games(DATA, OPTS, pols, SEEDS[:n], trace=True)


def _unit_turns(raw, side, order, at_sea=None):
    """Unit-turns (over all games) of ``side``'s units given ``order`` (snapshots 1..T: each turn
    after its orders); ``at_sea`` True/False: only units in a sea area / a port."""
    tr = raw["trace"][:, 1:-1]
    mine = DATA.ust[:, lay.US_SIDE] == lay.SIDE_NAMES.index(side)
    hit = (tr[..., lay.TR_ORDER] == order) & mine[None, None, :] & (tr[..., lay.TR_LOC] >= 0)
    if at_sea is not None:
        hit &= (tr[..., lay.TR_LOC] < A) == at_sea
    return int(hit.sum())


def _port_awards(raw, side):
    """``side``'s port awards (12.1.3 A), each as (awards at a port where the defender had fewer
    than 2 units anchored that turn, awards at a port with 2 or more)."""
    led, tr = raw["ledger"], raw["trace"]
    bare = held = 0
    defender = DATA.ust[:, lay.US_SIDE] == 1 - lay.SIDE_NAMES.index(side)
    for g in range(led.shape[0]):
        for r in led[g]:
            if r[lay.LG_AMOUNT] == 0 or r[lay.LG_KIND] != lay.VK_PORT or r[lay.LG_SIDE] != lay.SIDE_NAMES.index(side):
                continue
            t, p = int(r[lay.LG_TURN]), int(r[lay.LG_WHERE])
            snap = tr[g, t]
            k = int(np.count_nonzero(defender & (snap[:, lay.TR_LOC] == p) & (snap[:, lay.TR_ORDER] == lay.ANCHOR)))
            if k >= 2:
                held += 1
            else:
                bare += 1
    return bare, held


def _winners(raw):
    """+1 US win, -1 Spanish win, 0 draw (12.2: at least six VPs on the track)."""
    net = raw["G"][:, lay.G_VP_NET]
    v = int(DATA.rules["victory_vp"])
    return np.where(net >= v, 1, np.where(net <= -v, -1, 0))


@pytest.fixture(scope="module")
def base():
    return _play()


def test_spain_garrison_turns_bare_port_awards_into_searched_ones():
    # 5.1 A / 8.2: anchored Spanish squadrons in a threatened port make the US search before it may
    # attack the port. Against the US blockade plan, at garrison = 0 (today) more than 90% of the
    # US port awards hit a port with fewer than 2 Spanish units anchored (the issue: 91-93%)
    lo = _play(us="blockade")
    lo_bare, lo_held = _port_awards(lo, "us")
    assert lo_bare > 0.9 * (lo_bare + lo_held)
    # garrison 2 alone holds only the ports Spain already has squadrons in
    mid_bare, mid_held = _port_awards(_play(us="blockade", spain_knobs={"garrison": 2}), "us")
    assert mid_held > lo_held and mid_bare < lo_bare
    # garrison_send fills the short ports, most defense first: the bare-port awards fall by more
    # than half and the US port VPs by more than 10 a game (about 58 -> 30 in these seeds)
    hi = _play(us="blockade", spain_knobs={"garrison": 2, "garrison_send": 1})
    hi_bare, hi_held = _port_awards(hi, "us")
    assert hi_bare < lo_bare / 2
    port_vp = lay.G_VPK + lay.VK_PORT
    assert hi["G"][:, port_vp].mean() < lo["G"][:, port_vp].mean() - 10
    assert _unit_turns(hi, "spain", lay.ANCHOR, at_sea=False) > _unit_turns(lo, "spain", lay.ANCHOR, at_sea=False)


def test_spain_garrison_changes_winners_against_the_hunter(base):
    hi = _play(spain_knobs={"garrison": 2, "garrison_send": 1})
    assert np.count_nonzero(_winners(hi) != _winners(base)) > N_GAMES // 10


def test_spain_blockade_orders_are_given_at_the_upper_bound(base):
    # 5.2: Spain may blockade; at the default (0) it never does
    assert _unit_turns(base, "spain", lay.BLOCKADE) == 0
    hi = _play(spain_knobs={"blockade": 1})
    assert _unit_turns(hi, "spain", lay.BLOCKADE) > N_GAMES // 10
    # 5.2 D: every Spanish blockader coals the next turn (the engine refuses any other order)
    assert _unit_turns(hi, "spain", lay.COAL) > _unit_turns(base, "spain", lay.COAL)


def test_us_raids_at_the_upper_bound(base):
    # 5.5: the US may raid; at the default (0) it never does
    assert _unit_turns(base, "us", lay.RAID) == 0
    hi = _play(us_knobs={"raids": 1})
    assert _unit_turns(hi, "us", lay.RAID) > N_GAMES // 10
    assert np.count_nonzero(_winners(hi) != _winners(base)) > 0


def test_after_patrol_anchor_first_leaves_the_sea_coaling_limit(base):
    # 5.4 D: after a Patrol, Coal (at sea, within 7.5 C) or Anchor: anchor_first coals less at sea
    lo = _unit_turns(base, "us", lay.COAL, at_sea=True)
    hi = _play(us_knobs={"after_patrol": 1})
    assert _unit_turns(hi, "us", lay.COAL, at_sea=True) < lo / 2
    assert _unit_turns(hi, "us", lay.ANCHOR) > _unit_turns(base, "us", lay.ANCHOR)


def test_us_garrison_against_the_raider():
    # the garrison knob is both families': US ports threatened by Spanish raiders keep squadrons
    lo = _play(n=100)
    hi = _play(us_knobs={"garrison": 8}, n=100)
    assert _unit_turns(hi, "us", lay.ANCHOR, at_sea=False) > _unit_turns(lo, "us", lay.ANCHOR, at_sea=False)


def test_every_new_knob_at_its_upper_bound_plays_legal_games():
    # the engine checks every plan (campaign_movement.install_plan_nb raises PolicyError on an
    # illegal one) and the invariants hold with all the new choices on at once
    us = {"raids": 1, "garrison": 8, "garrison_mp": 12, "after_patrol": 1, "blockade": 1}
    sp = {"blockade": 1, "blockade_rotate": 1, "garrison": 8, "garrison_mp": 12, "after_patrol": 1}
    for spain in ("raider", "fleet-in-being", "historical"):
        pols = GAME.resolve_policies(SIDES, {"us": "blockade", "spain": spain}, {"us": us, "spain": sp})
        b = GAME.play_batch(SCEN, OPTS, pols, SEEDS[:60])
        assert GAME.invariant_violations(SCEN, b, OPTS) == []


def test_random_legal_samples_blockade_raid_and_garrison_for_both_sides():
    raw = _play(us="random-legal", spain="random-legal", n=100)
    for side in ("us", "spain"):
        assert _unit_turns(raw, side, lay.BLOCKADE) > 0
        assert _unit_turns(raw, side, lay.RAID) > 0
        assert _unit_turns(raw, side, lay.ANCHOR, at_sea=False) > 0
        assert _unit_turns(raw, side, lay.COAL, at_sea=True) > 0
