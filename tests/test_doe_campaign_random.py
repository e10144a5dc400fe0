"""Random-legal campaigns checked against invariants written from the rules, not from the engine.

The kernels record each unit's place, damage, order, previous order, Transit streak, neutral-port
count and stack after every orders phase, plus each game's VP ledger; the checker below tests:
a unit is in one place and sunk/interned units never return; damage stays in 0..defense; every
order obeys the order sequences (5.1-5.7, 7.2.3 D, 7.3 B, 7.5 D) and the Transit limit (5.7 B); coaling
at sea and in neutral ports stays within 7.5 C; order markers within 5.0 B; the VP track equals
the handicap plus the sum of the ledger, kind by kind; losses VPs equal the half-points of the
ships that went down that turn, fractions dropped (12.1.2); every game ends.
"""

import numpy as np
import pandas as pd
import pytest

from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.runtime import run_games
from simlab.rng import game_seeds

GAME = get_game("dawn-of-empire")
A, B, C, P, R, S, T, H = range(8)   # anchor blockade coal patrol raid sortie transit hold
BIT = {o: 1 << o for o in range(8)}
# 5.2 D, 5.4 D, 5.5 D, 5.6 C, 5.4.2 C; anything after Anchor, Coal (and hold, ruling C12)
FOLLOW = {A: 0x7F, B: BIT[C], C: 0x7F, P: BIT[C] | BIT[A], R: BIT[T], S: BIT[P] | BIT[R] | BIT[T],
          T: BIT[A] | BIT[C] | BIT[T], H: 0x7F}
LOSS_HALF = np.array([4, 2, 1, 1, 1, 2])   # 12.1.2 A in half points: BB CA CP CU GB MO
GONE = (lay.LOC_SUNK, lay.LOC_SCUTTLED, lay.LOC_INTERNED)


def check_invariants(data, options, raw):
    """Assert the invariants of the module docstring on ``run_games(..., trace=True)`` output."""
    G, tr, led = raw["G"], raw["trace"], raw["ledger"]
    ng, nsnap, nu, _ = tr.shape
    NT = options["turns"]
    assert nsnap == NT + 2
    na = data.n_areas
    nn = data.nodes.shape[0]
    side = data.ust[:, lay.US_SIDE]
    types = data.ust[:, lay.US_TYPE]
    played = G[:, lay.G_TURNS]
    assert ((played == NT) | (G[:, lay.G_END] == lay.END_AUTOMATIC)).all(), "a game did not end"
    assert (G[:, lay.G_ERR] == 0).all()
    # snapshots that exist: the set-up, each turn played, the end
    snap_ok = np.zeros((ng, nsnap), dtype=bool)
    snap_ok[:, 0] = snap_ok[:, NT + 1] = True
    snap_ok[:, 1:NT + 1] = np.arange(1, NT + 1)[None, :] <= played[:, None]
    loc = tr[..., lay.TR_LOC]
    # ---- places: a node or a fate; fates are final
    assert ((loc >= lay.LOC_ABSENT) & (loc < nn))[snap_ok].all(), "a unit in no valid place"
    gone = np.isin(loc, GONE) & snap_ok[..., None]
    first_gone = np.where(gone.any(axis=1), gone.argmax(axis=1), nsnap)           # [g, u]
    fate = np.take_along_axis(loc, first_gone.clip(max=nsnap - 1)[:, None, :], axis=1)[:, 0, :]
    later = (np.arange(nsnap)[None, :, None] >= first_gone[:, None, :]) & snap_ok[..., None]
    assert (loc == fate[:, None, :])[later].all(), "a sunk or interned unit came back"
    # ---- damage
    dmg = tr[..., lay.TR_DMG]
    assert (dmg >= 0)[snap_ok].all(), "negative damage"
    live_all = (loc >= 0) & snap_ok[..., None]
    assert (dmg <= data.ust[:, lay.US_DEF][None, None, :])[live_all].all(), "a unit afloat over its defense"
    # ---- orders phase snapshots as one long table
    gi, ti, ui = np.nonzero(live_all[:, 1:NT + 1, :])
    ti = ti + 1
    df = pd.DataFrame({"g": gi, "t": ti, "u": ui, "side": side[ui], "loc": loc[gi, ti, ui],
                       "order": tr[gi, ti, ui, lay.TR_ORDER], "prev": tr[gi, ti, ui, lay.TR_PREV],
                       "streak": tr[gi, ti, ui, lay.TR_STREAK], "neutral": tr[gi, ti, ui, lay.TR_NEUTRAL],
                       "stk": tr[gi, ti, ui, lay.TR_STACK]})
    assert (df.stk >= 0).all() and (df.order >= 0).all(), "a unit with no stack or order"
    st = df.groupby(["g", "t", "side", "stk"]).agg(nloc=("loc", "nunique"), norder=("order", "nunique"),
                                                      n=("u", "size"), order=("order", "first"),
                                                      loc=("loc", "first"))
    assert (st.nloc == 1).all(), "a stack in two places"
    assert (st.norder == 1).all(), "a stack with two orders"
    iu = st[(st.n == 1) & (st.order != H)]
    assert iu.order.isin([A, C, T]).all(), "an independent unit with a squadron order (7.3 B)"
    df = df.join(st.n.rename("stack_n"), on=["g", "t", "side", "stk"])
    # ---- order sequences (5.1-5.7, 5.4.1, 7.2.3 D)
    follow = np.array([FOLLOW[o] for o in range(8)])
    allowed = follow[df.prev.to_numpy()]
    allowed = np.where(df.streak >= 2, allowed & ~BIT[T], allowed)
    allowed = np.where(df.neutral == 1, allowed & (BIT[A] | BIT[C]), allowed)
    # 7.5 D (ruling C36): units that must coal at sea beyond the side's limit may Anchor or Transit
    # instead; the limit is spent when the side's units coaling at sea plus the stack exceed it
    coal_sea = df[(df.order == C) & (df["loc"] < na)].groupby(["g", "t", "side"]).size().rename("coal_sea")
    df = df.join(coal_sea, on=["g", "t", "side"])
    lim_side = np.where(df.side == 0, data.rules["coal_at_sea_us"], data.rules["coal_at_sea_spain"])
    over = ((allowed & BIT[C]) != 0) & (df["loc"] < na) & (df.coal_sea.fillna(0) + df.stack_n > lim_side)
    allowed = np.where(over, allowed | BIT[A] | BIT[T], allowed)
    bits = 1 << df.order.to_numpy()
    bad = ((allowed & bits) == 0) & (df.order != H)
    assert not bad.any(), f"order sequence broken: {df[bad].head(3).to_dict('records')}"
    # ---- Transit streak (5.7 B): counted from the previous order
    nxt = df[["g", "t", "u", "prev", "streak"]].copy()
    nxt["t"] -= 1
    both = df[["g", "t", "u", "streak"]].merge(nxt, on=["g", "t", "u"], suffixes=("", "_next"))
    want = np.where(both.prev == T, both.streak + 1, 0)
    assert (both.streak_next == want).all(), "Transit streak miscounted"
    # ---- coaling (7.5 C) and markers (5.0 B)
    coal = df[(df.order == C)]
    sea = coal[coal["loc"] < na].groupby(["g", "t", "side"]).size()
    lim = np.where(sea.index.get_level_values("side") == 0, data.rules["coal_at_sea_us"],
                   data.rules["coal_at_sea_spain"])
    assert (sea.to_numpy() <= lim).all(), "coaling at sea over the limit"
    neutral = np.nonzero(data.nodes[:, lay.NS_PSIDE] == lay.PSIDE_NEUTRAL)[0]
    neutral = neutral[neutral >= na]
    # German units treat Caracas as their own port (14.12 B, ruling C23)
    german_home = data.nodes[coal["loc"].to_numpy(), lay.NS_REPAIR_GER] > 0
    german = (data.ust[coal.u.to_numpy(), lay.US_GERMAN] & 1) == 1
    coal = coal[~(german & german_home & bool(options["germans"]))]
    npc = coal[coal["loc"].isin(neutral)].groupby(["g", "t", "side", "loc"]).size()
    assert (npc <= data.rules["coal_neutral_port"]).all(), "coaling in a neutral port over the limit"
    sq = st[(st.n >= 2) & (st.order < H)].groupby(["g", "t", "side", "order"]).size()
    cap = data.markers[sq.index.get_level_values("side"), sq.index.get_level_values("order")]
    assert (sq.to_numpy() <= cap).all(), "more order markers than the side has"
    # ---- the VP ledger
    kinds = led[..., lay.LG_KIND]
    amount = led[..., lay.LG_AMOUNT]
    lside = led[..., lay.LG_SIDE]
    for k in range(2):
        assert (G[:, lay.G_SCORE0 + k] == (amount * (lside == k)).sum(axis=1)).all(), "score != ledger"
        for v in range(6):
            assert (G[:, lay.G_VPK + k * 6 + v] == (amount * ((lside == k) & (kinds == v))).sum(axis=1)).all()
    assert (G[:, lay.G_VP_NET] == options["handicap"] + G[:, lay.G_SCORE0] - G[:, lay.G_SCORE1]).all()
    # ---- losses VPs per turn (12.1.2: half points per type, fractions dropped per turn)
    down = np.isin(loc, (lay.LOC_SUNK, lay.LOC_SCUTTLED))
    for t in range(1, NT + 1):
        after = np.where((played >= t + 1)[:, None], down[:, min(t + 1, NT + 1)], down[:, NT + 1])
        went = after & ~down[:, t]                                    # [g, u]
        active = played >= t
        for k in range(2):
            half = (went * LOSS_HALF[types][None, :] * (side != k)[None, :]).sum(axis=1)
            got = (amount * ((led[..., lay.LG_TURN] == t) & (lside == k) & (kinds == lay.VK_LOSSES))).sum(axis=1)
            assert (got[active] == (half // 2)[active]).all(), f"turn {t}: losses VPs do not match the sinkings"
    fin = down[:, NT + 1]
    for k in range(2):
        for ty in range(6):
            n = (fin & (side == k)[None, :] & (types == ty)[None, :]).sum(axis=1)
            assert (G[:, lay.G_SUNK + k * 6 + ty] == n).all(), "sunk columns do not match the units lost"
    # ---- battles table
    b = raw["battles"]
    assert (np.bincount(b[:, 0], minlength=ng) == G[:, lay.G_BATTLES]).all()


def options_limit(data, side):
    return data.rules["coal_at_sea_us"] if side == 0 else data.rules["coal_at_sea_spain"]


def _play(n, seed, **opts):
    sc = GAME.load_scenario("standard")
    options = GAME.resolve_options(opts)
    pols = {"us": "random-legal", "spain": "random-legal"}
    return sc.payload, options, run_games(sc.payload, options, pols, game_seeds(seed, 3, 0, n), trace=True)


def test_random_legal_campaigns_keep_the_invariants():
    data, options, raw = _play(3000, 1)
    check_invariants(data, options, raw)
    # the random policy does reach the interesting situations
    G = raw["G"]
    assert G[:, lay.G_BATTLES].sum() > 1500 and G[:, lay.G_PATTACKS].sum() > 5000
    assert G[:, lay.G_INTERNED0:lay.G_INTERNED1 + 1].sum() > 0
    assert G[:, lay.G_VPK + lay.VK_BLOCKADE].sum() + G[:, lay.G_VPK + 6 + lay.VK_BLOCKADE].sum() > 0


@pytest.mark.parametrize("opts", [
    dict(turns=9, handicap=-4, extra_warships=True, germans=True, restrict_disabled=True, speed_subgroups=True,
         automatic_victory=True, fog_of_war=True, port_vp_initiative=True),
    dict(maintenance=True, free_deployment=True, speed_disengage="never"),
    dict(delayed_repair=True, turns=3, handicap=7),
])
def test_random_legal_campaigns_with_optional_rules(opts):
    data, options, raw = _play(300, 2, **opts)
    check_invariants(data, options, raw)


@pytest.mark.timeout(3600)  # slow: above the suite's default limit (tests/test_suite_config.py)
@pytest.mark.slow
def test_100000_random_legal_campaigns():
    for chunk in range(20):
        data, options, raw = _play(5000, 100 + chunk)
        check_invariants(data, options, raw)


# ---------------------------------------------------------------- the checker must fail on bad data
@pytest.fixture(scope="module")
def small():
    return _play(20, 5)


def _copy(raw):
    return {k: v.copy() for k, v in raw.items()}


def test_checker_catches_an_illegal_order_sequence(small):
    data, options, raw = small
    bad = _copy(raw)
    # find a unit that patrolled and make it patrol again next turn (5.4 D forbids it)
    tr = bad["trace"]
    g, t, u = np.argwhere((tr[:, 1:-2, :, lay.TR_ORDER] == P) & (tr[:, 2:-1, :, lay.TR_LOC] >= 0))[0]
    tr[g, t + 2, u, lay.TR_PREV] = P
    tr[g, t + 2, u, lay.TR_ORDER] = P
    with pytest.raises(AssertionError):
        check_invariants(data, options, bad)


def test_checker_catches_a_ledger_that_does_not_add_up(small):
    data, options, raw = small
    bad = _copy(raw)
    bad["G"][0, lay.G_SCORE0] += 1
    with pytest.raises(AssertionError):
        check_invariants(data, options, bad)


def test_checker_catches_a_sunk_unit_coming_back(small):
    data, options, raw = small
    bad = _copy(raw)
    tr = bad["trace"]
    g, t, u = np.argwhere(tr[:, 1:-1, :, lay.TR_LOC] >= 0)[0]
    tr[g, t + 1, u, lay.TR_LOC] = lay.LOC_SUNK
    with pytest.raises(AssertionError):
        check_invariants(data, options, bad)


def test_checker_catches_coaling_over_the_limit(small):
    data, options, raw = small
    bad = _copy(raw)
    tr = bad["trace"]
    g = 0
    t = 1
    spain = np.nonzero((data.ust[:, lay.US_SIDE] == 1) & (tr[g, t, :, lay.TR_LOC] >= 0))[0][:9]
    tr[g, t, spain, lay.TR_LOC] = data.node("north-atlantic")
    tr[g, t, spain, lay.TR_ORDER] = C
    tr[g, t, spain, lay.TR_PREV] = A
    tr[g, t, spain, lay.TR_STACK] = 99
    with pytest.raises(AssertionError):
        check_invariants(data, options, bad)
