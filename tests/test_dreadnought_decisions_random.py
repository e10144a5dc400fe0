"""random-legal samples every choice of Dreadnought's decision inventory (issue 28).

random-legal is a preset of the `scripted` family, so its knob vector is one for every game; what
varies from game to game is what its random codes make the kernels draw. An inventory entry is
sampled when random-legal sets one of its knobs to a value that draws the choice at random
(:data:`RANDOM_VALUES`: movement 4, fire 3, torpedoes 3, delay -1, builder 2, allocation 3, tour,
stack, agree, agree_historical and bombard_hold -1), or
when a probe (:data:`PROBES`) sees the kernel making the choice under random-legal's codes and
knobs take more than one value over many streams. The test fails for an entry with knobs that
neither covers (a knob left constant across games), except the few listed, by name, in
:data:`NOT_SAMPLED`.
"""

import numpy as np
import pytest
from dreadnought_campaign_helpers import position
from test_dreadnought_decisions_tactical import (
    LINES,
    _collision,
    _formations,
    _line,
    _line_collision,
    _maintain,
    _resolve,
    _rng,
    _smoke,
    _tow_position,
)

from simlab.games import get_game
from simlab.games.decisions import load_decisions
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import (
    ALLOC_RANDOM,
    BUILD_RANDOM,
    COLUMN,
    FIRE_RANDOM,
    LINE,
    MOVE_RANDOM,
    TORP_USE_RANDOM,
    N,
)
from simlab.games.dreadnought.game import rules_for
from simlab.games.dreadnought.policies.fire import plot_fire_nb
from simlab.games.dreadnought.policies.tows import assign_tows_nb
from simlab.games.dreadnought.rules import with_options
from simlab.games.dreadnought.runtime import POLICY_FILE, pack_policies, policy_book

GAME = get_game("dreadnought")
RL = policy_book().resolve("a", "random-legal")
#: knobs whose random-legal value makes the kernels draw the choice at random
RANDOM_VALUES = {"movement": MOVE_RANDOM, "fire": FIRE_RANDOM, "torpedoes": TORP_USE_RANDOM, "delay": -1,
                 "builder": BUILD_RANDOM, "allocation": ALLOC_RANDOM, "tour": -1, "stack": -1, "agree": -1,
                 "agree_historical": -1, "bombard_hold": -1}
#: (section, knob) of the entries random-legal plays one way in every game: none (the agreement
#: to conclude, 9.43, and scenario B's bombardment hold, 11.3, are coin flips since issue 28's
#: last random-legal draws; the campaign's stack, 9.21, is drawn 1-4)
NOT_SAMPLED = set()
SEEDS = range(60)


@pytest.fixture(scope="module")
def rules():
    return rules_for(GAME.load_data())[0]


def _random_pcs():
    pc, kn = pack_policies({"a": "random-legal", "b": "random-legal"}, ("a", "b"))
    return pc, kn


def _seen_displace(rules):
    pcs, _ = _random_pcs()
    out = set()
    for seed in SEEDS:
        st, sh, fm, sc = _collision()
        (i,) = np.flatnonzero(_resolve(st, sh, fm, 3, _rng(seed), rules.rl, sc, pcs))
        out.add((int(sh[i, L.SH_X]), int(sh[i, L.SH_Z])))
    return out


def _seen_stays(rules):
    pcs, _ = _random_pcs()
    out = set()
    for seed in SEEDS:
        st, sh, fm, sc = _line_collision()
        if _resolve(st, sh, fm, 4, _rng(seed), rules.rl, sc, pcs)[1]:
            out.add(int(sh[1, L.SH_FORM] == 0))
    return out


def _random_maintain(rules, units, groups, mode, seed):
    st, sh, fm, trail = _line(units, groups, mode)
    pcs, _ = _random_pcs()
    _maintain(0, st, sh, fm, trail, len(units), rules.rl, pcs[0], _rng(seed))
    return st, sh, fm


COLUMN4 = [dict(side=0, type="capital", x=0, z=z, f=N) for z in range(4)] + \
    [dict(side=1, type="capital", x=10, z=-30)]


def _seen_mode(rules):
    out = set()
    for seed in SEEDS:
        st, sh, fm = _random_maintain(rules, COLUMN4, [[0, 1, 2, 3]], LINE, seed)
        f = int(sh[0, L.SH_FORM])
        if fm[f, L.FM_MEMBERS] > 1:
            out.add(int(fm[f, L.FM_MODE]))
    return out


def _seen_flagship(rules):
    units = [dict(side=0, type="capital", x=i, z=0, f=N) for i in range(4)] + [dict(side=1, type="capital", x=0, z=-30)]
    out = set()
    for seed in SEEDS:
        st, sh, fm = _random_maintain(rules, units, [[0, 1, 2, 3]], LINE, seed)
        f = int(sh[0, L.SH_FORM])
        if fm[f, L.FM_MEMBERS] == 4:
            out.add(int(fm[f, L.FM_FLAG]))
    return out


def _seen_divide(rules):
    return {len(_formations(_random_maintain(rules, COLUMN4, [[0, 1, 2, 3]], COLUMN, seed)[1], 4))
            for seed in SEEDS}


def _seen_merge(rules):
    out = set()
    for seed in SEEDS:
        sh = _random_maintain(rules, LINES, [[0, 1], [2, 3]], LINE, seed)[1]
        out.add(any({0, 1, 2, 3} <= set(g) for g in _formations(sh, 6)))
    return out


def _seen_rejoin(rules):
    out = set()
    for seed in SEEDS:
        sh = _random_maintain(rules, LINES[2:], [[0, 1]], LINE, seed)[1]
        if sh[1, L.SH_FORM] == sh[0, L.SH_FORM]:          # the line held together
            out.add(bool(sh[2, L.SH_FORM] == sh[0, L.SH_FORM]))
    return out


def _fire_plot(rules, st, sh, seed):
    n = st.shape[0]
    _, kn = _random_pcs()
    plot_fire_nb(0, st, sh, n, 12, RL.value("fire"), kn[0], rules.rl, rules.eff_gun, rules.eff_crt, rules.range_tab,
                 rules.band_low, _rng(seed), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                 np.zeros((4, 2), dtype=np.int64), np.zeros(L.NDY, dtype=np.int64), 3, np.zeros(L.NSC, dtype=np.int64))


def _seen_sb(rules):
    out = set()
    for seed in SEEDS:
        st, sh = position([
            {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N, "attack": 30},
            {"side": 1, "type": "DD", "x": 2, "z": -1}, {"side": 1, "type": "CA", "x": 4, "z": -2}])[:2]
        _fire_plot(rules, st, sh, seed)
        out.add(int(sh[0, L.SH_SB]))
    return out


def _seen_wrecks(rules):
    out = set()
    for seed in SEEDS:
        st, sh = position([
            {"side": 0, "type": "capital", "x": 0, "z": 0, "f": N, "attack": 30},
            {"side": 1, "type": "capital", "x": -4, "z": 2, "G": 2, "S": 2},
            {"side": 1, "type": "capital", "x": 5, "z": -2}])[:2]
        _fire_plot(rules, st, sh, seed)
        out.add(int(sh[0, L.SH_TGT]))
    return out


def _seen_smoke(rules):
    pcs, _ = _random_pcs()
    out = set()
    for seed in SEEDS:
        st, sh = position([{"side": 0, "type": "DD", "x": 0, "z": 0}, {"side": 1, "type": "capital", "x": 0, "z": -20}])[:2]
        _smoke(0, st, sh, 2, pcs[0], _rng(seed))
        out.add(int(sh[0, L.SH_SMOKE]))
    return out


def _seen_tow_take(rules):
    _, kn = _random_pcs()
    rl = with_options(rules.rl, {"towing": True})
    out = set()
    for seed in SEEDS:
        st, sh = _tow_position(-3)                 # the enemy 3 hexes off: the scripted policy waits
        assign_tows_nb(0, st, sh, 4, 10, rl, False, MOVE_RANDOM, kn[0], _rng(seed))
        out.add(int(sh[0, L.SH_TOWED_BY]))
    return out


def _seen_tow_break(rules):
    _, kn = _random_pcs()
    rl = with_options(rules.rl, {"towing": True})
    out = set()
    for seed in SEEDS:
        st, sh = _tow_position(-30)
        sh[1, L.SH_TOW] = 0                        # the cruiser has the wreck in tow
        sh[0, L.SH_TOWED_BY] = 1
        assign_tows_nb(0, st, sh, 4, 10, rl, False, MOVE_RANDOM, kn[0], _rng(seed))
        out.add(int(sh[0, L.SH_TOWED_BY]))
    return out


#: knob -> a probe returning the distinct choices random-legal made over :data:`SEEDS`
PROBES = {
    "displace": _seen_displace, "displaced_stays": _seen_stays, "formation": _seen_mode,
    "flagship": _seen_flagship, "keep_slow": _seen_divide, "keep_damaged": _seen_divide, "merge": _seen_merge,
    "rejoin": _seen_rejoin, "sb": _seen_sb, "wrecks": _seen_wrecks, "smoke": _seen_smoke,
    "tow_clear": _seen_tow_take, "tow_capital": _seen_tow_take, "tow_break": _seen_tow_break,
}


def test_random_legal_sets_the_random_codes():
    for k, v in RANDOM_VALUES.items():
        assert RL.value(k) == v, k


def test_random_legal_samples_every_decision_of_the_inventory(rules):
    cache = {}
    unsampled = set()
    for d in load_decisions(POLICY_FILE.parent / "decisions.toml"):
        if not d.knobs:
            continue
        if any(k in RANDOM_VALUES for k in d.knobs):
            continue
        ok = False
        for k in d.knobs:
            if k in PROBES:
                if PROBES[k] not in cache:
                    cache[PROBES[k]] = PROBES[k](rules)
                ok = ok or len(cache[PROBES[k]]) >= 2
        if not ok:
            unsampled |= {(d.section, k) for k in d.knobs}
    assert unsampled == NOT_SAMPLED
    # what the probes saw, exactly (both sides of a collision, both formation modes, ...)
    assert cache[_seen_displace] == {(1, -1), (-1, 0)}
    assert cache[_seen_stays] == {0, 1}
    assert cache[_seen_mode] == {COLUMN, LINE}
    assert cache[_seen_flagship] == {0, 1, 2, 3}
    assert cache[_seen_divide] == {1, 2, 3}        # (four alone is rare: lone ships side by side rejoin)
    assert cache[_seen_merge] == cache[_seen_rejoin] == {False, True}
    assert cache[_seen_sb] == {-1, 1, 2}
    assert cache[_seen_wrecks] == {-1, 1, 2}
    assert cache[_seen_smoke] == {0, 1}
    assert cache[_seen_tow_take] == {-1, 1}        # the cruiser 4 hexes off, or no tow this time
    assert cache[_seen_tow_break] == {-1, 1}
