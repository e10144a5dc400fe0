"""Dreadnought's Campaign Game (Rules 9.2-9.3, 11.0-11.9): listings, builders, allocation, the
approach and placement, scoring on hand-built positions (the 11.9 sample campaign), and whole
random-legal campaigns with their invariants."""

import numpy as np
import pytest
from dreadnought_campaign_helpers import position
from dreadnought_helpers import rng_with_d6

from simlab.errors import SpecError
from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.campaign import SLOTS_CAPITAL, SLOTS_SCREENS, listing_units
from simlab.games.dreadnought.enums import (
    AFLOAT,
    ALLOC_CONCENTRATE,
    ALLOC_MAIN_BODY,
    ALLOC_RANDOM,
    ALLOC_SPREAD,
    BUILD_BALANCED,
    BUILD_RANDOM,
    BUILD_VALUE_GREEDY,
    END_REASONS,
    LEVEL_NAMES,
    ROLE_NORTH,
    ROLE_SOUTH,
    SCEN_A,
    SCEN_B,
    SCEN_C,
    SCEN_D,
    SUNK,
    WAITING,
    N,
    S,
)
from simlab.games.dreadnought.game import campaign_setup, rules_for
from simlab.games.dreadnought.geometry import offset_to_cube
from simlab.games.dreadnought.kernels.campaign import final_states_nb, score_scenario_nb, score_uncontested_nb
from simlab.games.dreadnought.kernels.contact import (
    approach_nb,
    enter_delayed_nb,
    place_tf_nb,
    step_toward_nb,
)
from simlab.games.dreadnought.kernels.geometry import hex_dist_nb, rotate_nb
from simlab.games.dreadnought.kernels.turn import reset_dy_nb
from simlab.games.dreadnought.policies.campaign import allocate_nb, build_fleet_nb, interception_bonus_nb
from simlab.games.dreadnought.policies.fire import bombard_hold_nb
from simlab.rng import STATE_WORDS, game_seeds, new_state_nb

GAME = get_game("dreadnought")
MARGINAL, SUBSTANTIAL, DECISIVE = (LEVEL_NAMES.index(x) for x in ("marginal", "substantial", "decisive"))


@pytest.fixture(scope="module")
def rules():
    return rules_for(GAME.load_data())[0]


def _rng(seed=1):
    r = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), r)
    return r


def _cp(**kw):
    cp = np.zeros(L.NCP, dtype=np.int64)
    cp[L.CP_BONUS_M], cp[L.CP_BONUS_S], cp[L.CP_BONUS_D] = 10, 20, 30
    cp[L.CP_IB_MIN], cp[L.CP_IB_MAX] = 25, 100
    for k, v in kw.items():
        cp[getattr(L, "CP_" + k.upper())] = v
    return cp


# ------------------------------------------------------------------------------------------ 11.1
def test_the_wwi_french_and_italian_listings(rules):
    view = GAME.load_data().view()
    fr = listing_units(view, "wwi", "french", 1914, rules.rl)
    it = listing_units(view, "wwi", "italian", 1914, rules.rl)
    assert [u["id"] for u in fr] == ["501", "502", "503", "504", "511", "512", "513", "C11", "C12", "C13", "L11",
                                     "L12", "D11", "D12", "D13"]
    assert [u["id"] for u in it] == ["901", "911", "912", "913", "914", "915", "C51", "C52", "L51", "L52", "D51"]
    assert it[5]["name"] == "Leonardo da Vinci" and it[5]["value"] == 26          # 11.9: L. DaVinci 26
    assert fr[1]["name"] == "Jean Bart" and fr[1]["defense"] == 5                 # 11.9: five states removed
    assert it[0]["movement"] >= 6                                                # 11.9: D. Alighieri at six
    for u in fr + it:
        assert u["value"] == u["attack"] + u["defense"] + u["movement"]          # 9.51
        assert u["radar"] == 0 and u["planes"] == 0                              # WWI
    t = GAME.load_data().tables["fleet_listing"]
    assert t["wwi.french"]["capital"].provenance == "rulebook:11.11"
    assert t["inter-war.french"]["D20"].provenance == "provisional" and t["inter-war.french"]["D20"].note
    assert {k.split(".")[0] for k in t} == {"wwi", "inter-war", "wwii"}
    # 11.1: the minor naval powers only in WWI
    assert "wwii.spanish" not in t and "wwi.spanish" in t
    with pytest.raises(SpecError, match="no spanish fleet listing in the wwii period"):
        GAME.resolve_options({"period": "wwii", "north": "spanish"})
    with pytest.raises(SpecError, match="12.61"):
        GAME.resolve_options({"treasury": 650})


def test_radar_and_planes_in_the_later_listings(rules):
    view = GAME.load_data().view()
    us = listing_units(view, "wwii", "us", 1943, rules.rl)
    ja = listing_units(view, "wwii", "japanese", 1943, rules.rl)
    assert all(u["radar"] == 1 for u in us) and all(u["radar"] == 0 for u in ja)           # 12.21
    assert all(u["planes"] == (1 if u["type"] in (0, 1) else 0) for u in us + ja)         # 12.22
    it = listing_units(view, "inter-war", "italian", 1935, rules.rl)
    assert any(u["planes"] for u in it) and not any(u["radar"] for u in it)


# ------------------------------------------------------------------------------------------ 11.8
def _pool(values, kinds):
    po = np.zeros((len(values), L.NPO), dtype=np.int64)
    for u, (v, k) in enumerate(zip(values, kinds, strict=True)):
        po[u, L.PO_VAL] = v
        po[u, L.PO_ATT] = v // 2
        po[u, L.PO_KIND] = k
        po[u, L.PO_LABEL] = u
    return po


POOL = _pool([30, 25, 20, 12, 10, 8], [0, 0, 0, 1, 1, 1])


@pytest.mark.parametrize("code,limit,taken", [
    (BUILD_VALUE_GREEDY, 50, [0, 2]),        # 30, then 20 (25 would pass the limit)
    (BUILD_BALANCED, 50, [0, 3, 5]),         # 30 within 2/3 of 50, then screens 12 and 8
    (BUILD_VALUE_GREEDY, 200, [0, 1, 2, 3, 4, 5]),
    (BUILD_BALANCED, 9, [5]),
])
def test_fleet_builders(code, limit, taken):
    ps = np.zeros((6, L.NPS), dtype=np.int64)
    v = build_fleet_nb(POOL, 6, ps, limit, code, _rng(), L.PS_FLEET)
    got = [u for u in range(6) if ps[u, L.PS_STATUS] == L.PS_FLEET]
    assert got == taken and v == sum(POOL[u, L.PO_VAL] for u in taken) <= limit


def test_random_builder_stays_under_the_limit_and_varies():
    seen = set()
    for seed in range(60):
        ps = np.zeros((6, L.NPS), dtype=np.int64)
        v = build_fleet_nb(POOL, 6, ps, 40, BUILD_RANDOM, _rng(seed), L.PS_FLEET)
        assert v <= 40 and v == int(POOL[ps[:, L.PS_STATUS] == L.PS_FLEET, L.PO_VAL].sum())
        seen.add(tuple(ps[:, L.PS_STATUS]))
    assert len(seen) > 3


# ------------------------------------------------------------------------------------- 11.0, 11.6
def _alloc(code, seed=1):
    ps = np.zeros((6, L.NPS), dtype=np.int64)
    ps[:, L.PS_STATUS] = L.PS_FLEET
    scen = np.zeros(6, dtype=np.int64)
    allocate_nb(POOL, 6, ps, code, _rng(seed), scen)
    return scen.tolist(), ps, scen


def test_allocation_policies():
    A, B, C, D = SCEN_A, SCEN_B, SCEN_C, SCEN_D
    assert _alloc(ALLOC_SPREAD)[0] == [A, B, C, D, D, C]
    assert _alloc(ALLOC_MAIN_BODY)[0] == [C, C, A, B, D, D]
    assert _alloc(ALLOC_CONCENTRATE)[0] == [C] * 6
    outcomes = set()
    for seed in range(40):
        outcomes.update(_alloc(ALLOC_RANDOM, seed)[0])
    assert outcomes == {-1, 0, 1, 2, 3}          # a ship may sit out (11.6)
    # units not in the fleet are never assigned
    ps = np.zeros((6, L.NPS), dtype=np.int64)
    ps[:3, L.PS_STATUS] = L.PS_FLEET
    scen = np.zeros(6, dtype=np.int64)
    allocate_nb(POOL, 6, ps, ALLOC_SPREAD, _rng(), scen)
    assert scen.tolist()[3:] == [-1, -1, -1]


def test_interception_bonus_policy():
    _, ps, scen = _alloc(ALLOC_SPREAD)
    share = POOL[scen == SCEN_C, L.PO_VAL].sum() / POOL[:, L.PO_VAL].sum()
    assert interception_bonus_nb(POOL, 6, ps, scen, ALLOC_SPREAD, _rng(), 0, 25, 100) == 25 + int(75 * min(1, 2 * share))
    _, ps, scen = _alloc(ALLOC_CONCENTRATE)
    assert interception_bonus_nb(POOL, 6, ps, scen, ALLOC_CONCENTRATE, _rng(), 0, 25, 100) == 100
    assert interception_bonus_nb(POOL, 6, ps, scen, ALLOC_SPREAD, _rng(), 60, 25, 100) == 60
    assert interception_bonus_nb(POOL, 6, ps, scen, ALLOC_SPREAD, _rng(), 400, 25, 100) == 100
    vals = {interception_bonus_nb(POOL, 6, ps, scen, ALLOC_RANDOM, _rng(s), 0, 25, 100) for s in range(200)}
    assert min(vals) >= 25 and max(vals) <= 100 and len(vals) > 40


# -------------------------------------------------------------------------------------- 9.2-9.3
def test_cruising_formation_slots():
    # screen stations: never on the column astern of the head, distinct, ahead first
    assert tuple(SLOTS_CAPITAL[0]) == (0, -2)
    assert len({tuple(s) for s in SLOTS_CAPITAL}) == len(SLOTS_CAPITAL)
    assert not any(x == 0 and z > 0 for x, z in SLOTS_CAPITAL)
    assert tuple(SLOTS_SCREENS[0]) == (0, 0) and len({tuple(s) for s in SLOTS_SCREENS}) == len(SLOTS_SCREENS)
    # turning the formation keeps distances (60 degrees at a time)
    for x, z in SLOTS_CAPITAL[:12]:
        for f in range(6):
            rx, rz = rotate_nb(x, z, f)
            assert hex_dist_nb(0, 0, rx, rz) == hex_dist_nb(0, 0, x, z)
    assert rotate_nb(0, -1, 1) == (1, -1) and rotate_nb(0, -1, 3) == (0, 1)     # N -> NE, N -> S


def test_placement_after_contact_puts_the_nearest_ship_in_the_marker_hex():
    # 9.25: a column of two stacks with a screen ahead, marker at (10, 0) steaming S; the enemy
    # marker lies south: the screen ahead is nearest and goes into the marker's hex
    st, sh, fm, trail, sc = position([
        {"side": 0, "type": "capital", "x": 0, "z": 0}, {"side": 0, "type": "capital", "x": 0, "z": 0},
        {"side": 0, "type": "capital", "x": 0, "z": 0}, {"side": 0, "type": "CA", "x": 0, "z": 0}])
    sh[:, L.SH_TF] = 0
    for i, (ox, oz) in enumerate([(0, 0), (0, 0), (0, 1), (0, -2)]):
        sh[i, L.SH_OX] = ox
        sh[i, L.SH_OZ] = oz
    sh[:, L.SH_STATUS] = WAITING
    assert place_tf_nb(sh, 4, 0, 10, 0, S, 10, 12, _rng()) == 4
    pos = [(int(sh[i, L.SH_X]), int(sh[i, L.SH_Z])) for i in range(4)]
    assert pos[3] == (10, 0)                    # the screen ahead (now south of the column)
    assert pos[0] == pos[1] == (10, -2) and pos[2] == (10, -3)
    assert all(sh[i, L.SH_F] == S and sh[i, L.SH_STATUS] == AFLOAT for i in range(4))
    # with the enemy north instead, the rear stack is nearest
    sh[:, L.SH_STATUS] = WAITING
    place_tf_nb(sh, 4, 0, 10, 0, S, 10, -12, _rng())
    assert (sh[2, L.SH_X], sh[2, L.SH_Z]) == (10, 0) and (sh[0, L.SH_X], sh[0, L.SH_Z]) == (10, 1)


def test_the_approach_of_the_sample_campaign_11_9(rules):
    # 11.9 Scenario A: at the end of Game-Turn Five the Italian marker is in F0102 and the French in
    # C0308; the visibility die shows 4 on a base of 6: ten hexes; on the first MP of Game-Turn Six
    # the markers come within ten hexes: contact
    lay = rules.layout
    fr = offset_to_cube(*lay.to_offset("C0308"))
    it = offset_to_cube(*lay.to_offset("F0102"))
    assert hex_dist_nb(*fr, *it) == 12
    setup = campaign_setup(GAME.load_data(), rules, "wwi", "french", "italian")
    centres, tours_n, tours_s, _, _ = setup.geo
    ta = np.zeros((L.NTF, L.NTA), dtype=np.int64)
    for k, (side, (x, z)) in enumerate([(0, fr), (1, it)]):
        r = 2 * k
        ta[r, L.TA_SIDE] = side
        ta[r, L.TA_MEMBERS] = 3
        ta[r, L.TA_SPEED] = 5
        ta[r, L.TA_STATE] = L.TF_MARKER
        ta[r, L.TA_X], ta[r, L.TA_Z] = x, z
        ta[r, L.TA_LEG] = 7                      # heading for each other
    t, m, vis = approach_nb(ta, centres, tours_n, tours_s, setup.sc0, 6, rules.rl, rng_with_d6([4]), 10)
    assert (t, m, vis) == (1, 1, 10)
    assert hex_dist_nb(ta[0, L.TA_X], ta[0, L.TA_Z], ta[2, L.TA_X], ta[2, L.TA_Z]) == 10


def test_approach_always_finds_contact_and_delayed_forces_wait(rules):
    setup = campaign_setup(GAME.load_data(), rules, "wwi", "french", "italian")
    centres, tours_n, tours_s, _, _ = setup.geo
    turns = []
    for seed in range(200):
        rng = _rng(seed)
        ta = np.zeros((L.NTF, L.NTA), dtype=np.int64)
        for r in range(2):
            tours = tours_n if r == 0 else tours_s
            tour = (seed + 3 * r) % 8
            x = centres[tours[tour, 0], 0]
            row = setup.sc0[L.SC_MAP_R0] if r == 0 else setup.sc0[L.SC_MAP_R1]
            for k, entry in enumerate((1, 1 + seed % 6)):
                tf = 2 * r + k
                ta[tf, L.TA_SIDE] = r
                ta[tf, L.TA_MEMBERS] = 1
                ta[tf, L.TA_SPEED] = 4 + seed % 4
                ta[tf, L.TA_ENTRY] = entry
                ta[tf, L.TA_TOUR] = tour
                ta[tf, L.TA_EX], ta[tf, L.TA_EZ], ta[tf, L.TA_EF] = x, row - (x - (x & 1)) // 2, S if r == 0 else N
        t, m, vis = approach_nb(ta, centres, tours_n, tours_s, setup.sc0, 2, rules.rl, rng, 60)
        assert t > 0, seed
        turns.append(t)
        on = [k for k in range(4) if ta[k, L.TA_STATE] == L.TF_MARKER]
        assert any(hex_dist_nb(ta[a, L.TA_X], ta[a, L.TA_Z], ta[b, L.TA_X], ta[b, L.TA_Z]) <= vis
                   for a in on for b in on if ta[a, L.TA_SIDE] == 0 and ta[b, L.TA_SIDE] == 1)
        for k in range(4):
            assert (ta[k, L.TA_STATE] == L.TF_WAITING) == (ta[k, L.TA_ENTRY] > t)
    assert max(turns) < 60


def test_shortest_path_steps():
    assert step_toward_nb(0, 0, N, 0, -5) == N
    assert step_toward_nb(0, 0, N, 3, 0) == 2            # straight SE
    assert step_toward_nb(0, 0, 1, 3, -1) == 1           # NE and SE both shortest: the one nearest the course
    assert step_toward_nb(0, 0, 2, 3, -1) == 2
    assert step_toward_nb(4, 4, N, 4, 4) == -1


def test_a_delayed_task_force_entering_in_sight_is_put_back_to_the_limit_of_visibility(rules):
    # 9.28: North's delayed TF enters at (0, 0) steaming S; an enemy ship 4 hexes south; visibility 9
    st, sh, fm, trail, sc = position([
        {"side": 0, "type": "DD", "x": 0, "z": 0}, {"side": 0, "type": "DD", "x": 0, "z": 0},
        {"side": 1, "type": "capital", "x": 0, "z": 4}])
    for i in (0, 1):
        sh[i, L.SH_STATUS] = WAITING
        sh[i, L.SH_TF] = 1
        sh[i, L.SH_ENTRY] = 3
        sh[i, L.SH_F] = S
        sh[i, L.SH_FORM] = -1
    sh[1, L.SH_OX] = 1
    fm[0] = fm[1] = 0                             # waiting units belong to no formation yet
    buf = np.zeros((3, 3), dtype=np.int64)
    disp = np.zeros(3, dtype=np.int64)
    assert enter_delayed_nb(st, sh, fm, trail, 3, 2, 9, rules.rl, sc, _rng(), buf, disp) == 0   # not yet
    assert sh[0, L.SH_STATUS] == WAITING
    assert enter_delayed_nb(st, sh, fm, trail, 3, 3, 9, rules.rl, sc, _rng(), buf, disp) == 1
    assert sh[0, L.SH_STATUS] == AFLOAT and sh[1, L.SH_STATUS] == AFLOAT
    near = min(hex_dist_nb(sh[i, L.SH_X], sh[i, L.SH_Z], 0, 4) for i in (0, 1))
    assert near == 9                              # at the limit of visibility, still in sight
    assert sh[0, L.SH_FORM] != sh[1, L.SH_FORM]   # screens move alone


# -------------------------------------------------------------------------------- 9.5, 11.2-11.5
def _final(units, **sc_kw):
    """A scenario's final position: units with side, attack, defense, movement, status, G, S, dc."""
    st = np.zeros((len(units), L.NST), dtype=np.int64)
    sh = np.zeros((len(units), L.NSH), dtype=np.int64)
    for i, u in enumerate(units):
        st[i, L.ST_SIDE] = u["side"]
        st[i, L.ST_KIND] = u.get("kind", 0)
        st[i, L.ST_ATT], st[i, L.ST_DEF], st[i, L.ST_MOV] = u["adm"]
        st[i, L.ST_VAL] = sum(u["adm"])
        sh[i, L.SH_STATUS] = u.get("status", AFLOAT)
        sh[i, L.SH_G], sh[i, L.SH_S], sh[i, L.SH_DC] = u.get("G", 0), u.get("S", 0), u.get("dc", 0)
        sh[i, L.SH_FIRED] = u.get("fired", 1)
    sc = np.zeros(L.NSC, dtype=np.int64)
    dy = np.zeros(L.NDY, dtype=np.int64)
    reset_dy_nb(dy)
    for k, v in sc_kw.items():
        dy[getattr(L, "DY_" + k.upper())] = v
    return st, sh, sc, dy


def _score(rules, units, s, ended_by=-1, ibonus=0, **kw):
    st, sh, sc, dy = _final(units, **kw)
    row = np.zeros(L.NRS, dtype=np.int64)
    row[L.RS_IBONUS] = ibonus
    score_scenario_nb(st, sh, len(units), sc, s, ended_by, 0, ibonus, _cp(), rules.vp_pct, dy, row)
    return row


def _pack_adm(rules, navy, name):
    """(attack, defense, movement) of a unit of the WWI listing (11.11) as the data pack gives them."""
    units = listing_units(GAME.load_data().view(), "wwi", navy, 1914, rules.rl)
    u = next(u for u in units if name in (u["id"], u["name"]))
    return u["attack"], u["defense"], u["movement"]


def test_the_pack_agrees_with_the_values_11_9_prints():
    # 11.9 D: the French CA sunk scores 12, the wrecked Italian CA 9 (80%, fractions dropped); 11.9 C:
    # Jean Bart's permanent state 5 (20%) after five states removed (defense 5); L. DaVinci 26
    rules = rules_for(GAME.load_data())[0]
    fr_ca, it_ca = _pack_adm(rules, "french", "C11"), _pack_adm(rules, "italian", "C51")
    jb, dv = _pack_adm(rules, "french", "Jean Bart"), _pack_adm(rules, "italian", "Leonardo da Vinci")
    assert (sum(fr_ca), sum(it_ca) * 80 // 100, sum(jb) * 20 // 100, jb[1], sum(dv)) == (12, 9, 5, 5, 26)
    c = GAME.load_data().tables["classes"]
    for cls in ("C10", "C50", "500"):
        assert c[cls]["attack"].provenance == "provisional" and "example:11.9" in c[cls]["attack"].note


def _sample_campaign(rules):
    """The 11.9 sample campaign's four scenarios as final positions; France North, Italy South.
    The French and Italian CAs, Jean Bart and L. DaVinci have the data pack's values."""
    FR_CA, IT_CA = _pack_adm(rules, "french", "C11"), _pack_adm(rules, "italian", "C51")
    JEAN_BART, DAVINCI = _pack_adm(rules, "french", "Jean Bart"), _pack_adm(rules, "italian", "Leonardo da Vinci")
    rows = {}
    # A: the D. Alighieri hits the C12 (1S, 1G); both states removed; no other damage
    rows["A"] = _score(rules, [{"side": 0, "adm": FR_CA, "kind": 1, "dc": 2}, {"side": 0, "adm": FR_CA, "kind": 1},
                               {"side": 0, "adm": (1, 1, 8), "kind": 1},
                               {"side": 1, "adm": (15, 4, 6)}, {"side": 1, "adm": (1, 2, 6), "kind": 1}], SCEN_A)
    # B: the Italian does not contest (11.6)
    row = np.zeros(L.NRS, dtype=np.int64)
    score_uncontested_nb(SCEN_B, 0, 40, 0, 3, 0, 0, _cp(), row)
    rows["B"] = row
    # C: Jean Bart six hits, five removed (its limit), one left; three hits removed on the others;
    # L. DaVinci wrecked without removing any; five hits removed among the other Italians
    rows["C"] = _score(rules, [
        {"side": 0, "adm": JEAN_BART, "G": 1, "dc": 5}, {"side": 0, "adm": (13, 5, 5), "dc": 1},
        {"side": 0, "adm": (13, 5, 5), "dc": 1}, {"side": 0, "adm": (13, 5, 5), "dc": 1},
        {"side": 1, "adm": DAVINCI, "G": 2, "S": 2}, {"side": 1, "adm": (16, 5, 5), "dc": 2},
        {"side": 1, "adm": (16, 5, 5), "dc": 2}, {"side": 1, "adm": (16, 5, 5), "dc": 1},
        {"side": 1, "adm": (16, 5, 5)}], SCEN_C, ibonus=100)
    # D: the French CA wrecks one Italian CA and is sunk (conceded as sunk)
    rows["D"] = _score(rules, [{"side": 0, "adm": FR_CA, "kind": 1, "status": SUNK},
                               {"side": 1, "adm": IT_CA, "kind": 1, "G": 2, "S": 2}, {"side": 1, "adm": IT_CA, "kind": 1}],
                       SCEN_D)
    return rows


def test_the_sample_campaign_11_9(rules):
    rows = _sample_campaign(rules)
    score = {k: (int(r[L.RS_SCORE0]), int(r[L.RS_SCORE1])) for k, r in rows.items()}
    assert score["A"] == (0, 22)                 # 2 + 20 (Substantial)
    assert rows["A"][L.RS_LEVEL] == SUBSTANTIAL
    assert score["B"] == (20, 0)                 # uncontested: an automatic 20
    c = rows["C"]
    assert (c[L.RS_DAMAGE0], c[L.RS_BONUS0], c[L.RS_INTERCEPT0]) == (25, 10, 39)
    assert (c[L.RS_DAMAGE1], c[L.RS_INTERCEPT1]) == (13, 61) and c[L.RS_LEVEL] == MARGINAL
    assert score["C"] == (74, 74)
    assert score["D"] == (9, 22) and rows["D"][L.RS_LEVEL] == MARGINAL
    # the printed accounts: French 0 + 20 + 72 + 9 = 101, Italian 22 + 0 + 74 + 22 = 118. The French
    # 72 counts 18 for the wrecked L. DaVinci, "80% of 26"; Rule 9.52 gives 20 (ruling DN-C1), so
    # the rules give the French 103 - the whole difference is that one line
    printed = {"A": (0, 22), "B": (20, 0), "C": (5 + 18 + 10 + 39, 5 + 5 + 3 + 61), "D": (9, 12 + 10)}
    assert tuple(map(sum, zip(*printed.values(), strict=True))) == (101, 118)
    assert 26 * 80 // 100 == 20
    ours = tuple(map(sum, zip(*score.values(), strict=True)))
    assert ours == (103, 118) and ours[0] - 101 == 26 * 80 // 100 - 18


def test_bombardment_bonus_conditions_11_3(rules):
    north = [{"side": 0, "adm": (10, 4, 5), "G": 2, "S": 1, "dc": 4}]      # 3 states beyond its limit
    south = [{"side": 1, "adm": (20, 6, 5), "fired": 0}, {"side": 1, "adm": (18, 6, 5), "fired": 1},
             {"side": 1, "adm": (16, 2, 5), "fired": 0, "G": 1, "dc": 2}]   # never fired, 1G left
    r = _score(rules, north + south, SCEN_B)
    assert r[L.RS_WINNER] == 1 and r[L.RS_LEVEL] >= SUBSTANTIAL
    assert r[L.RS_BOMBARD] == 20 + 16 // 2                 # the two that never fired, G states halve
    assert r[L.RS_SCORE1] == r[L.RS_DAMAGE1] + r[L.RS_BONUS1] + r[L.RS_BOMBARD]
    assert _score(rules, north + south, SCEN_B, ended_by=1)[L.RS_BOMBARD] == 0          # fled first
    assert _score(rules, north + south, SCEN_A)[L.RS_BOMBARD] == 0                      # only in B
    # the North wins, but moved a ship off the initial Map Area first: the bonus is conceded
    strong = [{"side": 0, "adm": (30, 8, 5)}, {"side": 1, "adm": (20, 6, 5), "fired": 0, "G": 1, "S": 1, "dc": 6}]
    r = _score(rules, strong, SCEN_B, off_turn0=3, off_mp0=2, off_turn1=3, off_mp1=4)
    assert r[L.RS_WINNER] == 0 and r[L.RS_OFF_FIRST] == 0 and r[L.RS_BOMBARD] == 10
    # the South left first: no concession
    assert _score(rules, strong, SCEN_B, off_turn0=4, off_mp0=1, off_turn1=3, off_mp1=4)[L.RS_BOMBARD] == 0
    # every North ship sunk or wrecked: the bonus whatever the points
    wrecked = [{"side": 0, "adm": (30, 8, 5), "G": 2, "S": 2}, {"side": 1, "adm": (18, 6, 5), "fired": 0},
               {"side": 1, "adm": (20, 6, 5), "fired": 0, "G": 2, "S": 2}, {"side": 1, "adm": (22, 6, 5)}]
    assert _score(rules, wrecked, SCEN_B)[L.RS_BOMBARD] == 18                # a wreck has no attack left


def test_interception_bonus_11_4(rules):
    units = [{"side": 0, "adm": (20, 6, 5)}, {"side": 0, "adm": (15, 5, 5), "G": 1, "dc": 5},
             {"side": 0, "adm": (12, 4, 5), "S": 1, "dc": 0},                 # removed at the end (9.53)
             {"side": 1, "adm": (10, 4, 5), "G": 1, "dc": 0}]
    r = _score(rules, units, SCEN_C, ibonus=60)
    assert (r[L.RS_INTERCEPT0], r[L.RS_INTERCEPT1]) == (32, 28)              # 20 + 12 undamaged after 9.53
    r = _score(rules, units, SCEN_C, ibonus=25)
    assert (r[L.RS_INTERCEPT0], r[L.RS_INTERCEPT1]) == (25, 0)
    r = _score(rules, units, SCEN_C, ended_by=0, ibonus=60)                  # North fled to its safe zone
    assert (r[L.RS_INTERCEPT0], r[L.RS_INTERCEPT1]) == (0, 60)
    r = _score(rules, units, SCEN_C, ibonus=60, off_turn0=2, off_mp0=1)      # North left the map first
    assert (r[L.RS_INTERCEPT0], r[L.RS_INTERCEPT1]) == (0, 60)
    r = _score(rules, units, SCEN_C, ibonus=60, off_turn0=2, off_mp0=1, off_turn1=2, off_mp1=1)
    assert r[L.RS_INTERCEPT0] == 32                                          # together: neither first


def test_victory_levels_and_bonuses_9_55(rules):
    # South >= twice and the North caused the end: Decisive, 30
    units = [{"side": 0, "adm": (10, 4, 5), "G": 1, "S": 1, "dc": 4}, {"side": 1, "adm": (20, 6, 5), "G": 1, "dc": 0}]
    r = _score(rules, units, SCEN_A, ended_by=0)
    assert r[L.RS_LEVEL] == DECISIVE and r[L.RS_BONUS1] == 30 and r[L.RS_BONUS0] == 0
    r = _score(rules, units, SCEN_A)
    assert r[L.RS_LEVEL] == SUBSTANTIAL and r[L.RS_BONUS1] == 20
    # equal points: a draw, no bonus
    r = _score(rules, [{"side": 0, "adm": (10, 4, 5)}, {"side": 1, "adm": (10, 4, 5)}], SCEN_D)
    assert r[L.RS_WINNER] == -1 and r[L.RS_BONUS0] == r[L.RS_BONUS1] == 0


def test_exactly_twice_the_loser_is_a_substantial_victory_9_55(rules):
    # 9.55: "at least twice that of his opponent". The South sinks a North ship worth 10 (4+3+3) and
    # loses one worth 5, then 6; each side keeps a ship afloat (so no Decisive Victory)
    afloat = [{"side": 0, "adm": (2, 2, 2), "fired": 1}, {"side": 1, "adm": (2, 2, 2)}]
    north10 = {"side": 0, "adm": (4, 3, 3), "status": SUNK}
    r = _score(rules, [north10, {"side": 1, "adm": (2, 2, 1), "status": SUNK}, *afloat], SCEN_A)
    assert (r[L.RS_SCORE0], r[L.RS_SCORE1]) == (5, 10 + 20)
    assert r[L.RS_WINNER] == 1 and r[L.RS_LEVEL] == SUBSTANTIAL and r[L.RS_BONUS1] == 20
    r = _score(rules, [north10, {"side": 1, "adm": (2, 2, 2), "status": SUNK}, *afloat], SCEN_A)
    assert r[L.RS_WINNER] == 1 and r[L.RS_LEVEL] == MARGINAL and r[L.RS_BONUS1] == 10


def test_uncontested_scenarios_11_6():
    # 11.6's example: three South capital ships in B, no North ships: 20 + their Attack Strength
    row = np.zeros(L.NRS, dtype=np.int64)
    score_uncontested_nb(SCEN_B, 0, 0, 18 + 16 + 16, 0, 3, 0, _cp(), row)
    assert (row[L.RS_SCORE0], row[L.RS_SCORE1], row[L.RS_WINNER], row[L.RS_LEVEL]) == (0, 70, 1, SUBSTANTIAL)
    # C with only North ships: 20 + their attack up to the bonus; the South keeps the balance
    score_uncontested_nb(SCEN_C, 0, 45, 0, 2, 0, 60, _cp(), row)
    assert (row[L.RS_SCORE0], row[L.RS_SCORE1]) == (20 + 45, 15)
    # C with only South ships: the whole bonus
    score_uncontested_nb(SCEN_C, 0, 0, 0, 0, 2, 60, _cp(), row)
    assert (row[L.RS_SCORE0], row[L.RS_SCORE1]) == (0, 20 + 60)
    # nobody anywhere: nothing but the convoy's bonus (ruling DN-C4)
    score_uncontested_nb(SCEN_A, 0, 0, 0, 0, 0, 0, _cp(), row)
    assert (row[L.RS_SCORE0], row[L.RS_SCORE1], row[L.RS_WINNER]) == (0, 0, -1)
    score_uncontested_nb(SCEN_C, 0, 0, 0, 0, 0, 40, _cp(), row)
    assert (row[L.RS_SCORE0], row[L.RS_SCORE1]) == (0, 40)


@pytest.mark.parametrize("g,s,dc,d,left", [(1, 2, 4, 6, (0, 1, 2)), (2, 2, 0, 6, (2, 2, 0)), (1, 1, 0, 6, (0, 0, 2)),
                                          (2, 1, 5, 6, (1, 1, 1)), (0, 0, 3, 6, (0, 0, 0))])
def test_final_recovery_9_53(g, s, dc, d, left):
    assert final_states_nb(g, s, dc, d) == left


# --------------------------------------------------------------------------------- whole games
def _campaigns(n, seed=3, policy="random-legal", **options):
    sc = GAME.load_scenario("campaign")
    opts = GAME.resolve_options(dict(options, check_invariants=True))
    b = GAME.play_batch(sc, opts, {"north": policy, "south": policy}, game_seeds(seed, 1, 0, n))
    return sc, opts, b


@pytest.mark.parametrize("role0", [ROLE_NORTH, ROLE_SOUTH])
def test_the_bombardment_hold_is_the_souths_choice_once_a_scenario_11_3(role0):
    """``bombard_hold_nb`` decides at the first Fire Plot Phase whether the South's capital ships
    hold fire for the whole of scenario B: the South's knob (1 hold, 0 fight), -1 a coin flip
    (random-legal), drawn only then; the North's knob and every other scenario never hold."""
    south = 1 if role0 == ROLE_NORTH else 0
    sc = np.zeros(L.NSC, dtype=np.int64)
    sc[L.SC_CAMPAIGN], sc[L.SC_SCEN], sc[L.SC_ROLE0] = 1, SCEN_B, role0

    def decide(k_south, k_north=0.0, scen=SCEN_B, seed=3):
        kn = np.zeros((2, L.NKN))
        kn[south, L.K_BOMBARD_HOLD], kn[1 - south, L.K_BOMBARD_HOLD] = k_south, k_north
        sc[L.SC_SCEN] = scen
        dy = np.zeros(L.NDY, dtype=np.int64)
        reset_dy_nb(dy)
        rng = np.zeros(STATE_WORDS, dtype=np.uint64)
        new_state_nb(np.uint64(seed), rng)
        before = rng.copy()
        bombard_hold_nb(sc, kn, dy, rng)
        drew = not (rng == before).all()
        first = int(dy[L.DY_HOLD])
        bombard_hold_nb(sc, kn, dy, rng)                       # decided once: the next phase keeps it
        assert dy[L.DY_HOLD] == first
        return first, drew

    assert decide(1.0) == (1, False) and decide(0.0) == (0, False)
    assert decide(0.0, k_north=1.0) == (0, False)              # the North has no bombardment force
    assert decide(1.0, scen=SCEN_A) == (0, False) and decide(-1.0, scen=SCEN_C) == (0, False)
    draws = [decide(-1.0, seed=s) for s in range(400)]
    assert all(drew for _, drew in draws)
    held = sum(h for h, _ in draws)
    assert abs(held / 400 - 0.5) < 4 * (0.25 / 400) ** 0.5     # a fair coin, 4 standard errors at n = 400



@pytest.mark.parametrize("options", [
    {},
    {"period": "inter-war", "north": "british", "south": "japanese", "fleet_value_limit": 250},
    {"period": "wwii", "north": "german", "south": "us", "smoke": True, "radar": True, "spotting_planes": True,
     "creep": True, "towing": True, "sun": True},
])
def test_random_legal_campaigns_keep_every_invariant(options):
    sc, opts, b = _campaigns(40, **options)
    assert GAME.invariant_violations(sc, b, opts) == []
    assert not GAME.capped(sc, b, opts).any()
    ev = b.events["scenarios"]
    assert len(ev["game"]) == 4 * 40


def test_scripted_campaigns_keep_every_invariant_and_use_every_rule():
    for pol in ("close-and-engage", "hold-range", "make-for-objective", "break-contact"):
        sc, opts, b = _campaigns(30, seed=4, policy=pol, allocation_north="main-body", allocation_south="concentrate")
        assert GAME.invariant_violations(sc, b, opts) == []
        ev = b.events["scenarios"]
        assert (ev["end_reason"] == END_REASONS.index("uncontested")).sum() >= 3 * 30    # the South concedes A, B, D
    # the South's capital ships hold fire in B (make-for-objective); against a North that does not
    # close in (random-legal) the South wins B often enough for the Bombardment Bonus to count (11.3);
    # since issue 14's fire policy a scripted North wins every B, so that pairing never scores it
    sc = GAME.load_scenario("campaign")
    opts = GAME.resolve_options({"check_invariants": True})
    b = GAME.play_batch(sc, opts, {"north": "random-legal", "south": "make-for-objective"}, game_seeds(5, 1, 0, 60))
    assert GAME.invariant_violations(sc, b, opts) == []
    ev = b.events["scenarios"]
    bomb = ev["scenario"] == 1
    assert ev["bombardment_bonus"][bomb].max() > 0 and (ev["bombardment_bonus"][~bomb] == 0).all()
    sc, opts, b = _campaigns(60, seed=5, policy="make-for-objective")
    ev = b.events["scenarios"]
    assert ((ev["scenario"] == 2) & (ev["interception_north"] > 0)).any()


def test_the_invariant_check_catches_broken_campaigns():
    sc, opts, b = _campaigns(20, seed=6, policy="close-and-engage")
    assert GAME.invariant_violations(sc, b, opts) == []
    b.games["score_north"][2] += 5
    b.events["scenarios"]["bonus_south"][1] = 7
    b.games["fleet_value_south"][4] = 999
    b.events["scenarios"]["interception_north"][0] = 3
    msgs = GAME.invariant_violations(sc, b, opts)
    assert any("sum of the scenarios" in m for m in msgs)
    assert any("9.55" in m for m in msgs)
    assert any("11.8" in m for m in msgs)
    assert any("outside scenario C" in m for m in msgs)


def test_campaign_output_columns():
    sc, opts, b = _campaigns(8, seed=7, policy="close-and-engage")
    g = b.games
    for col in ("winner", "victory_level", "score_north", "score_south", "turns", "end_reason", "period",
                "navy_north", "navy_south", "limit_north", "limit_south", "fleet_value_north", "interception_bonus",
                "bombardment_bonus", "interception_north", "interception_south", "bonus_north", "bonus_south"):
        assert col in g, col
    for x in "abcd":
        for col in (f"vp_{x}_north", f"vp_{x}_south", f"winner_{x}", f"level_{x}"):
            assert col in g, col
    assert (g["score_north"] == sum(g[f"vp_{x}_north"] for x in "abcd")).all()
    assert (g["limit_north"] == 200).all() and (g["fleet_value_north"] <= 200).all()
    ev = b.events["scenarios"]
    assert set(ev["scenario"].tolist()) == {0, 1, 2, 3}
    assert b.categories["scenarios.scenario"] == ("A", "B", "C", "D")
    assert b.categories["navy_north"][g["navy_north"][0]] == "french"


def test_limits_and_handicap_options():
    sc, opts, b = _campaigns(5, seed=8, policy="close-and-engage", fleet_value_limit=120, south_extra_value=30,
                             builder_north="value-greedy")
    assert (b.games["limit_north"] == 120).all() and (b.games["limit_south"] == 150).all()
    assert (b.games["fleet_value_north"] <= 120).all() and (b.games["fleet_value_south"] <= 150).all()
    sc, opts, b = _campaigns(3, seed=8, policy="close-and-engage", fleet_value_limit=-1)
    assert (b.games["fleet_units_north"] == 15).all() and (b.games["fleet_units_south"] == 11).all()  # all of 11.11


@pytest.mark.timeout(1800)  # slow: above the suite's default limit (tests/test_suite_config.py)
@pytest.mark.slow
def test_many_random_legal_campaigns_keep_every_invariant():
    for options in ({}, {"period": "wwii", "north": "british", "south": "italian", "smoke": True, "towing": True,
                         "sun": True, "radar": True, "spotting_planes": True, "creep": True},
                    {"period": "inter-war", "north": "us", "south": "german"}):
        sc, opts, b = _campaigns(5000, seed=9, **options)
        assert GAME.invariant_violations(sc, b, opts) == [], options
        assert not GAME.capped(sc, b, opts).any()
