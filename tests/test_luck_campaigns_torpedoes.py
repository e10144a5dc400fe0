"""Dice luck (simlab luck) of the Dreadnought campaigns (every scenario's per-shot record, summed
by player) and of Mar Rojo's torpedo effect rolls (5.3.1 steps 8 and 10): what the kernels record,
against sums and hand-worked fractions computed here, and the command on a campaign sweep.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from simlab import cli
from simlab.games import get_game
from simlab.rng import game_seeds

SIDES = ("north", "south")


# --------------------------------------------------------------------------- Dreadnought campaigns
@pytest.fixture(scope="module", params=["campaign", "extended-campaign"])
def campaign_batch(request):
    game = get_game("dreadnought")
    sc = game.load_scenario(request.param, game.load_data())
    n = 40 if request.param == "campaign" else 8
    b = game.play_batch(sc, game.resolve_options({}), game.resolve_policies(sc.sides, {}), game_seeds(11, 3, 0, n))
    return request.param, n, b


def test_campaign_luck_is_every_scenario_summed_by_player(campaign_batch):
    """Each player's luck_* is the sum over the scenarios it played of the role it held there
    (north_player says who was North; in the extended campaign a coin decides it every turn)."""
    name, n, b = campaign_batch
    ev = b.events["scenarios"]
    game = np.asarray(ev["game"])
    north = np.asarray(ev["north_player"])
    for what in ("dealt", "mean", "var"):
        want = {s: np.zeros(n) for s in SIDES}
        for i in range(game.size):
            for role, rname in enumerate(SIDES):
                player = SIDES[north[i] if role == 0 else 1 - north[i]]
                want[player][game[i]] += float(ev[f"luck_{what}_{rname}"][i])
        for s in SIDES:
            assert np.asarray(b.games[f"luck_{what}_{s}"]) == pytest.approx(want[s], rel=1e-12, abs=1e-9)
    swapped = int((north == 1).sum())
    if name == "extended-campaign":
        assert swapped > 0  # the test covers the South's player holding the North role
    else:
        assert swapped == 0


def test_campaign_scenario_luck_matches_its_own_shots(campaign_batch):
    """A scenario's luck is that of its own shots: nothing in an uncontested scenario, a mean
    where a role fired guns (nearly always: a shot at hopeless odds has none), a variance exactly
    where there is a mean, damage steps whole numbers, and dealt - mean a martingale: |z| < 4 per
    role (it fails by chance once in 15,000 runs)."""
    _, _, b = campaign_batch
    ev = b.events["scenarios"]
    for r in SIDES:
        shots = np.asarray(ev[f"shots_{r}"])
        dealt = np.asarray(ev[f"luck_dealt_{r}"])
        mean = np.asarray(ev[f"luck_mean_{r}"])
        var = np.asarray(ev[f"luck_var_{r}"])
        assert (dealt == np.round(dealt)).all() and (dealt >= 0).all() and (var >= 0).all()
        unc = np.asarray(ev["end_reason"]) == b.categories["scenarios.end_reason"].index("uncontested")
        assert (dealt[unc] == 0).all() and (mean[unc] == 0).all() and (var[unc] == 0).all()
        # an attack that can deal damage can also deal none: a mean without a variance is a slot mix-up
        assert ((mean > 0) == (var > 0)).all()
        assert (mean[shots > 0] > 0).mean() > 0.9
        assert var.sum() > 0
        z = (dealt - mean).sum() / np.sqrt(var.sum())
        assert abs(z) < 4, (r, z)


def test_luck_command_on_a_campaign_sweep(tmp_path, capsys):
    out = tmp_path / "c"
    assert cli.main(["sweep", "--game", "dreadnought", "--scenario", "campaign", "--games", "120", "--workers", "1",
                     "--seed", "2", "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["luck", str(out), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["game"] == "dreadnought" and res["method"] == "normal" and res["sides"] == list(SIDES)
    (c,) = res["cells"]
    assert c["scenario"] == "campaign" and c["games"] == 120
    for s in SIDES:
        assert sum(q["games"] for q in c["sides"][s]["quintiles"]) == 120
        # fair dice over hundreds of shots: the percentiles average about 1/2 (sd of the mean 0.026)
        assert abs(c["sides"][s]["mean_luck"] - 0.5) < 0.12
    assert c["r2_margin"] is not None and 0.0 < c["r2_margin"] < 1.0


# --------------------------------------------------------------------------- Mar Rojo torpedoes
@pytest.fixture(scope="module")
def mr():
    from simlab.games.mar_rojo.rules import compile_tables
    view = get_game("mar-rojo").load_data().view()
    rt, _ = compile_tables(view)
    return view, rt


def _table_moments(view, capital: bool, escort: bool, rem: int) -> tuple[Fraction, Fraction]:
    """Mean and variance of one torpedo hit's damage markers, read from the data pack: an escort's
    save first (5+: no effect), then one die on the effect table, +1 for a capital ship (rows
    above 7 read 7), Sunk (-1) counting as ``rem``."""
    bonus = int(view.value("constants", "torpedo_capital_bonus", "value")) if capital else 0
    save = int(view.value("constants", "escort_torpedo_save", "value"))
    p_on = Fraction(7 - save, 6) if escort else Fraction(0)
    dist: dict[int, Fraction] = {0: p_on}
    for die in range(1, 7):
        e = int(view.value("torpedo_effect", str(min(7, die + bonus)), "hits"))
        v = rem if e < 0 else e
        dist[v] = dist.get(v, Fraction(0)) + (1 - p_on) / 6
    mean = sum(v * p for v, p in dist.items())
    return mean, sum(v * v * p for v, p in dist.items()) - mean * mean


def test_torpedo_effect_table_moments_from_the_data_pack(mr):
    """The kernel's per-hit moments (sums over 36 ways) are the pack's table: by hand, a capital ship
    with 5 hull left reads rows 2-7 = 1, 1, 1, 2, Sunk, Sunk: mean 15/6, mean square 57/6; a
    destroyer (escort) with 3 left saves on 5+ (1/3) and else reads 0, 1, 1, 1, 2, Sunk: 8/9."""
    from simlab.games.mar_rojo.combat import torpedo_hit_moments_nb
    view, rt = mr
    assert _table_moments(view, True, False, 5) == (Fraction(5, 2), Fraction(19, 2) - Fraction(25, 4))
    assert _table_moments(view, False, True, 3)[0] == Fraction(8, 9)
    for capital in (False, True):
        for escort in (False, True):
            for rem in (1, 2, 3, 5, 7):
                m1, m2 = torpedo_hit_moments_nb(rt, capital, escort, rem)
                mean, var = _table_moments(view, capital, escort, rem)
                assert Fraction(int(m1), 36) == mean
                assert Fraction(int(36 * m2 - m1 * m1), 1296) == var


def _duel(view, firer: str, target: str, target_damage: int = 0):
    from simlab.games.mar_rojo import engine
    from simlab.games.mar_rojo.enums import FAM_GREEDY, ST_IN_PLAY
    from simlab.games.mar_rojo.layout import G_POL0, G_RESTRICT, MAXC, S_DMG, S_STATUS
    from simlab.games.mar_rojo.rules import compile_cards
    cs, st, g, *_rest = engine.new_game_arrays(4)
    rng = _rest[4]
    cs[0] = compile_cards(view, [firer])[0]
    cs[MAXC] = compile_cards(view, [target])[0]
    st[0, S_STATUS] = st[MAXC, S_STATUS] = ST_IN_PLAY
    st[MAXC, S_DMG] = target_damage
    g[G_POL0] = g[G_POL0 + 1] = FAM_GREEDY
    g[G_RESTRICT] = -1
    return cs, st, g, rng, MAXC


def _luck(g, side=0):
    from simlab.games.mar_rojo.layout import G_LUCK0
    d, m36, v1296 = (int(v) for v in g[G_LUCK0 + 3 * side:G_LUCK0 + 3 * side + 3])
    return d, Fraction(m36, 36), Fraction(v1296, 1296)


def test_torpedo_attack_counts_its_hit_dice_and_its_effect_rolls(mr):
    """Jose Luis Diez (2 torpedo dice, 5+ at short range) at Canarias (capital, hull 7, 2 damage):
    scripted 6, 5 (2 hits), then effect rolls 2 and 4, +1 capital: rows 3 and 5 = 1 + 2 markers.
    By hand: the hit dice deal 2 of mean 2/3, variance 4/9; the effect rolls turn 2 hits into 3
    markers, each hit of mean 5/2 (Sunk = the 5 hull left) and variance 13/4: luck dealt 3, mean
    2/3 + (5 - 2) = 11/3, variance 4/9 + 13/2 = 125/18."""
    from simlab.games.mar_rojo.combat import fire_nb
    from simlab.games.mar_rojo.dice import script
    from simlab.games.mar_rojo.enums import SHORT, W_TORPEDO
    from simlab.games.mar_rojo.layout import S_DMG
    view, rt = mr
    cs, st, g, rng, y = _duel(view, "Jose Luis Diez", "Canarias", target_damage=2)
    scr = script([6, 5, 2, 4])
    assert not fire_nb(rt, cs, st, g, 0, y, W_TORPEDO, SHORT, 0, 0, rng, scr)
    assert scr[0] == 4 and st[y, S_DMG] == 5
    assert _luck(g) == (3, Fraction(11, 3), Fraction(125, 18))
    assert _luck(g, 1) == (0, 0, 0)


def test_torpedo_sunk_stops_the_rolls_and_counts_the_remaining_hull(mr):
    """Three torpedo hits on an undamaged Canarias (hull 7): 1 (row 2: one marker), then 5 (row 6:
    Sunk), the third hit never rolled. Luck: 1 + 7 markers less the 3 hits = 5; two hits resolved,
    each of mean 19/6 and variance 35/2 - (19/6)^2 = 269/36: mean 19/3 - 3, variance 269/18."""
    from simlab.games.mar_rojo.combat import resolve_hits_nb
    from simlab.games.mar_rojo.dice import script
    from simlab.games.mar_rojo.enums import ST_SUNK, W_TORPEDO
    from simlab.games.mar_rojo.layout import S_STATUS
    view, rt = mr
    cs, st, g, rng, y = _duel(view, "Jose Luis Diez", "Canarias")
    scr = script([1, 5, 6])
    assert resolve_hits_nb(rt, cs, st, g, 0, y, W_TORPEDO, 3, rng, scr)
    assert scr[0] == 2 and st[y, S_STATUS] == ST_SUNK
    assert _luck(g) == (5, Fraction(10, 3), Fraction(269, 18))


def test_torpedo_escort_save_is_part_of_the_hit(mr):
    """A destroyer target (Jose Luis Diez, hull 3) saves on 5+ before any effect die: a saved hit
    deals nothing, -1 against the hit dice's count; mean 8/9 - 1, variance 80/81."""
    from simlab.games.mar_rojo.combat import resolve_hits_nb
    from simlab.games.mar_rojo.dice import script
    from simlab.games.mar_rojo.enums import W_TORPEDO
    view, rt = mr
    cs, st, g, rng, y = _duel(view, "Jose Luis Diez", "Jose Luis Diez")
    scr = script([5, 6])
    assert not resolve_hits_nb(rt, cs, st, g, 0, y, W_TORPEDO, 1, rng, scr)
    assert scr[0] == 1
    assert _luck(g) == (-1, Fraction(-1, 9), Fraction(80, 81))


def test_policy_value_of_a_torpedo_hit_is_the_luck_mean(mr):
    """The fire policy's expected damage of one torpedo hit and the luck's per-hit mean agree
    (both count a Sunk as the remaining hull)."""
    from simlab.games.mar_rojo.combat import torpedo_hit_moments_nb
    from simlab.games.mar_rojo.enums import CAPITAL
    from simlab.games.mar_rojo.fleet import is_escort_nb
    from simlab.games.mar_rojo.layout import C_HULL, C_TYPE, S_DMG
    from simlab.games.mar_rojo.policy_stakes import torpedo_hit_value_nb
    view, rt = mr
    for name, dmg in (("Canarias", 0), ("Canarias", 4), ("Jose Luis Diez", 1)):
        cs, st, g, rng, y = _duel(view, "Jose Luis Diez", name, dmg)
        m1, _ = torpedo_hit_moments_nb(rt, cs[y, C_TYPE] == CAPITAL, is_escort_nb(cs[y, C_TYPE]),
                                       cs[y, C_HULL] - st[y, S_DMG])
        assert torpedo_hit_value_nb(rt, cs, st, y) == pytest.approx(m1 / 36, abs=1e-12)


def _max_error(parts) -> float:
    """Largest gap, over every total, between the exact mid-percentile (convolution) of independent
    rolls and the luck's continuity-corrected normal; ``parts``: per roll ``{value: probability}``."""
    from simlab.analysis.luck import exact_mid_percentile, normal_mid_percentile
    lo = sum(min(p) for p in parts)
    pmfs = []
    m = v = 0.0
    for p in parts:
        a = min(p)
        arr = np.zeros(max(p) - a + 1)
        for val, q in p.items():
            arr[val - a] += float(q)
        pmfs.append(arr)
        mu = sum(float(q) * val for val, q in p.items())
        m += mu
        v += sum(float(q) * val * val for val, q in p.items()) - mu * mu
    xs = np.arange(lo, lo + sum(a.size - 1 for a in pmfs) + 1)
    exact = np.array([exact_mid_percentile(pmfs, x - lo) for x in xs])
    return float(np.abs(exact - normal_mid_percentile(xs, np.full(xs.size, m), np.full(xs.size, v))).max())


def test_normal_approximation_error_with_torpedo_effect_rolls(mr):
    """The error the luck module states for Mar Rojo, against an exact enumeration: 30 hit dice
    (1/3 each) and 8 saving rolls are close to normal (<= 0.005); three torpedo hits on a capital
    ship with 6 hull left (the hit already counted: effect - 1, a Sunk 6 - 1) make the total
    lumpier (<= 0.02); 12 hit dice and 2 torpedo hits with 7 hull left are the worst measured
    (up to about 0.07)."""
    view, _ = mr
    hit = {1: Fraction(1, 3), 0: Fraction(2, 3)}
    save = {-1: Fraction(1, 3), 0: Fraction(2, 3)}

    def torpedo(rem):
        out: dict[int, Fraction] = {}
        for die in range(1, 7):
            e = int(view.value("torpedo_effect", str(min(7, die + 1)), "hits"))
            out[(rem if e < 0 else e) - 1] = out.get((rem if e < 0 else e) - 1, Fraction(0)) + Fraction(1, 6)
        return out

    assert _max_error([hit] * 30 + [save] * 8) <= 0.005
    assert 0.005 < _max_error([hit] * 30 + [save] * 8 + [torpedo(6)] * 3) <= 0.02
    assert 0.03 < _max_error([hit] * 12 + [torpedo(7)] * 2) <= 0.07
