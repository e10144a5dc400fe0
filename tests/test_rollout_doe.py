"""The Dawn of Empire rollout exploiter (issue 29, simlab/games/doe/rollout.py): with no rollouts it
plays its base exactly, its candidates are the same plans in every sampled world, the resampling
keeps what the side sees, its choice does not depend on what the side cannot see, it is not worse
than its base, and ``@rollout:BASE:R`` plays in sweeps and replays what ``simlab solve`` reported."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.errors import SpecError
from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe.campaign_bundles import GameState, new_scratch_nb
from simlab.games.doe.policy_view import observe_own_nb
from simlab.games.doe.rollout import (
    MAX_CANDIDATES,
    RP_NPRESET,
    RP_NRANDOM,
    begin_turn_nb,
    new_rollout,
    preset_candidates,
    resample_hidden_nb,
    rollout_choice_nb,
    run_rollout_games,
    side_plan_nb,
    world_nb,
)
from simlab.games.doe.runtime import _tables, resolve_policy, run_games, start_games
from simlab.games.policy import RolloutPolicy
from simlab.rng import game_seeds

GAME = get_game("dawn-of-empire")
GAME.ensure_kernels_fresh()
SC = GAME.load_scenario("standard")
DATA = SC.payload
OPTS = GAME.resolve_options({})
US, SPAIN = lay.US, lay.SPAIN


def _pols(us, spain):
    return {"us": resolve_policy("us", us), "spain": resolve_policy("spain", spain)}


def _one(batch, i):
    """Game ``i`` of a batch state as a one-game state (its own arrays)."""
    return GameState(*(np.array(a[i], copy=True, order="C") for a in batch))


def _copy(S):
    return GameState(*(a.copy() for a in S))


def _rollout(tb, pols, side, rollouts, n_random=3, n_knobs=2, salt=11):
    sname = lay.SIDE_NAMES[side]
    return new_rollout(tb, DATA, side, rollouts, preset_candidates(sname, pols[sname], n_knobs, salt), n_random, salt)


def _decisions(pols, side, n=6, turns=(1, 3, 5)):
    """One-game states at the start of the Orders Phase of ``turns`` (New Forces done), with the
    tables of ``pols``; the rollout bundle's game seed set for each."""
    tb = _tables(DATA, OPTS, pols, False)
    seeds = game_seeds(29, 3, 0, n)
    out = []
    for t in turns:
        b = start_games(DATA, OPTS, pols, seeds, stop=t - 1)
        for i in range(n):
            S = _one(b.state, i)
            if S.clock[lay.CK_DONE] != 0:
                continue
            begin_turn_nb(tb, S, t)
            out.append((seeds[i], t, S))
    return tb, out


@pytest.mark.timeout(1200)  # the first call compiles the exploiter's kernels (~7 min cold on a loaded 2-core machine)
@pytest.mark.parametrize("us,spain", [("blockade", "fleet-in-being"), ("hunter", "random-legal"),
                                      ("random-legal", "raider")])
def test_zero_rollouts_replay_the_base_rows(us, spain):
    # R = 0: every Orders Phase goes through the exploiter's own orders and turn kernels with the
    # base's plan; the rows must be exactly run_games' (the split turn is the engine's turn)
    pols = _pols(us, spain)
    seeds = game_seeds(29, 0, 0, 120)
    want = run_games(DATA, OPTS, pols, seeds)
    for side in (US, SPAIN):
        got = run_rollout_games(DATA, OPTS, pols, seeds, side, 0)
        np.testing.assert_array_equal(got["G"], want["G"])
        np.testing.assert_array_equal(got["battles"], want["battles"])


def test_preset_candidates_are_the_sides_scripted_presets_base_first_then_knob_vectors():
    from simlab.games.doe import policy_layout as pk
    from simlab.games.doe.runtime import pack_policies, policy_book
    pols = _pols("blockade", "raider")
    c = preset_candidates("spain", pols["spain"], 0)
    assert len(c) == 3 and {f for f, _ in c} == {pk.FAM_SPAIN}  # raider, then fleet-in-being and historical
    for name, (f, k) in zip(("raider", "fleet-in-being", "historical"), c, strict=True):
        fam, kn = pack_policies({"us": "blockade", "spain": name})
        assert f == fam[SPAIN]
        np.testing.assert_array_equal(k, kn[SPAIN])
    # knob vectors: within the family's bounds (packed), drawn from the salt alone, all different
    k5 = preset_candidates("spain", pols["spain"], 5, salt=3)
    assert len(k5) == 8 and all(np.array_equal(a[1], b[1]) for a, b in zip(k5[:3], c, strict=True))
    again = preset_candidates("spain", pols["spain"], 5, salt=3)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(k5, again, strict=True))
    other = preset_candidates("spain", pols["spain"], 5, salt=4)
    assert not np.array_equal(k5[3][1], other[3][1])
    for knob in policy_book().families["spain-fleet"].knobs:
        scale = 1000 if knob.kind is float else 1
        v = np.array([k[pk.KNOB_SLOTS[knob.name]] for _, k in k5[3:]])
        assert (v >= round(scale * knob.lo)).all() and (v <= round(scale * knob.hi)).all(), knob.name
    # a random-legal base keeps its own plan first, and every scripted preset follows
    r = preset_candidates("us", resolve_policy("us", "random-legal"), 2)
    assert len(r) == 6 and r[0][0] == pk.FAM_RANDOM and all(f == pk.FAM_US for f, _ in r[1:])
    tb = _tables(DATA, OPTS, pols, False)
    with pytest.raises(ValueError):
        new_rollout(tb, DATA, SPAIN, 1, c, MAX_CANDIDATES)
    with pytest.raises(ValueError):
        new_rollout(tb, DATA, 2, 1, c, 1)


def _view(S, tb, side):
    sc = new_scratch_nb(tb)
    observe_own_nb(side, S.U, S.LD, tb.ust, tb.lst, tb.par, sc.UV[side], sc.LV[side], sc.vis)
    return sc.UV[side].copy(), sc.LV[side].copy(), sc.vis.copy()


def test_resampled_worlds_keep_what_the_side_sees():
    pols = _pols("blockade", "fleet-in-being")
    moved = 0
    for side in (US, SPAIN):
        tb, states = _decisions(pols, side, n=4)
        R = _rollout(tb, pols, side, 1)
        enemy = 1 - side
        mine = tb.ust[:, lay.US_SIDE] == side
        theirs = ~mine
        for seed, t, S in states:
            R.gseed[0] = seed
            uv, lv, vis = _view(S, tb, side)
            for r in range(3):
                world_nb(tb, S, R, t, r)
                W = R.world
                wuv, wlv, wvis = _view(W, tb, side)
                # the side's view is the same: its units and leaders, every node's enemy count
                np.testing.assert_array_equal(wuv, uv)
                np.testing.assert_array_equal(wlv, lv)
                np.testing.assert_array_equal(wvis, vis)
                np.testing.assert_array_equal(W.U[mine], S.U[mine])
                np.testing.assert_array_equal(W.ND, S.ND)
                np.testing.assert_array_equal(W.G, S.G)
                # the enemy units afloat are the same units, in the same places as a multiset
                afloat = theirs & (S.U[:, lay.UF_LOC] >= 0)
                np.testing.assert_array_equal(W.U[theirs & (W.U[:, lay.UF_LOC] >= 0)], W.U[afloat])
                np.testing.assert_array_equal(W.U[theirs & ~afloat], S.U[theirs & ~afloat])
                assert sorted(W.U[afloat, lay.UF_LOC]) == sorted(S.U[afloat, lay.UF_LOC])
                assert (W.U[afloat, lay.UF_DMG] <= tb.ust[afloat, lay.US_DEF]).all()
                # enemy leaders in play stay aboard enemy units afloat; the rest are untouched
                su = S.LD[:, lay.LF_UNIT]
                el = ((tb.lst[:, lay.LS_SIDE] == enemy) & (S.LD[:, lay.LF_STATE] == lay.LEADER_IN_PLAY) & (su >= 0)
                      & afloat[np.maximum(su, 0)])
                np.testing.assert_array_equal(W.LD[~el], S.LD[~el])
                aboard = W.LD[el, lay.LF_UNIT]
                assert (aboard >= 0).all() and afloat[aboard].all()
                moved += not np.array_equal(W.U[afloat], S.U[afloat])
    assert moved > 0  # the samples do move the hidden units


def test_a_candidate_is_the_same_plan_in_every_sampled_world():
    # the candidates other than the base are written from the side's view and a stream of their
    # own: the plan installed after the rollouts is the plan the rollouts played
    pols = _pols("blockade", "fleet-in-being")
    tb, states = _decisions(pols, SPAIN, n=3)
    R = _rollout(tb, pols, SPAIN, 1, n_random=3)
    n = int(R.params[RP_NPRESET] + R.params[RP_NRANDOM])
    sc, wsc = new_scratch_nb(tb), new_scratch_nb(tb)
    random_differs = 0
    for seed, t, S in states:
        R.gseed[0] = seed
        plans = []
        for j in range(1, n):
            k = side_plan_nb(tb, _copy(S), sc, R, SPAIN, t, j)
            plans.append((k, sc.pu.copy(), sc.pp.copy(), sc.pst[:k].copy(), sc.pl.copy()))
        for r in range(2):
            world_nb(tb, S, R, t, r)
            for j in range(1, n):
                k = side_plan_nb(tb, _copy(R.world), wsc, R, SPAIN, t, j)
                got = (k, wsc.pu.copy(), wsc.pp.copy(), wsc.pst[:k].copy(), wsc.pl.copy())
                for a, b in zip(plans[j - 1], got, strict=True):
                    np.testing.assert_array_equal(a, b)
        a, b = plans[-1], plans[-2]
        random_differs += a[0] != b[0] or not np.array_equal(a[3], b[3])
    assert random_differs > 0  # two random-legal candidates are two plans


def _hidden_variant(tb, S, side, seed):
    """``S`` with only what ``side`` cannot see changed: the enemy units afloat permuted (each
    takes another's row, its leaders with it), the enemy's stale stacks scribbled, another random
    stream."""
    rng = np.random.default_rng(seed)
    V = _copy(S)
    enemy = 1 - side
    afloat = np.flatnonzero((tb.ust[:, lay.US_SIDE] == enemy) & (S.U[:, lay.UF_LOC] >= 0))
    perm = rng.permutation(afloat)
    V.U[perm] = S.U[afloat]
    to = dict(zip(afloat.tolist(), perm.tolist(), strict=True))
    for i in range(tb.lst.shape[0]):
        u = int(S.LD[i, lay.LF_UNIT])
        if tb.lst[i, lay.LS_SIDE] == enemy and u in to:
            V.LD[i, lay.LF_UNIT] = to[u]
    base = enemy * (V.S.shape[0] // 2)
    V.S[base:base + V.S.shape[0] // 2] = rng.integers(0, 5, size=V.S[base:base + V.S.shape[0] // 2].shape)
    V.SM[base:base + V.S.shape[0] // 2] = rng.integers(0, 5, size=V.SM[base:base + V.S.shape[0] // 2].shape)
    V.rng[:] = rng.integers(0, 2**63, size=V.rng.shape[0], dtype=np.uint64)
    return V, not np.array_equal(V.U, S.U)


@pytest.mark.timeout(600)
def test_the_choice_does_not_change_when_only_hidden_state_changes():
    pols = _pols("blockade", "fleet-in-being")
    differs = spread = 0
    for side in (SPAIN, US):
        tb, states = _decisions(pols, side, n=3, turns=(2, 4))
        R = _rollout(tb, pols, side, 2)
        rsc = new_scratch_nb(tb)
        n = int(R.params[RP_NPRESET] + R.params[RP_NRANDOM])
        for j, (seed, t, S) in enumerate(states):
            R.gseed[0] = seed
            keep = _copy(S)
            a = rollout_choice_nb(tb, S, rsc, R, t)
            va = R.vals[:n].copy()
            for x, y in zip(S, keep, strict=True):  # the real state is left as it was
                np.testing.assert_array_equal(x, y)
            V, moved = _hidden_variant(tb, S, side, j)
            differs += moved
            b = rollout_choice_nb(tb, V, rsc, R, t)
            assert a == b
            np.testing.assert_array_equal(R.vals[:n], va)
            spread += len(set(va.tolist())) > 1
    assert differs >= len(states)  # the variants do change the hidden units
    assert spread > 0  # the rollouts do tell the candidates apart


def test_resampling_needs_only_the_view():
    # the sample of a hidden variant is the sample of the state it came from, field for field
    pols = _pols("hunter", "raider")
    for side in (US, SPAIN):
        tb, states = _decisions(pols, side, n=3, turns=(3,))
        R = _rollout(tb, pols, side, 1)
        for j, (_seed, _t, S) in enumerate(states):
            V, _ = _hidden_variant(tb, S, side, 100 + j)
            a, b = _copy(S), V
            resample_hidden_nb(tb, a, side, R, np.array([7, 0, 0], np.uint64))
            resample_hidden_nb(tb, b, side, R, np.array([7, 0, 0], np.uint64))
            for f in ("U", "LD", "ND", "G"):
                np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
            half = a.S.shape[0] // 2
            e = (1 - side) * half
            np.testing.assert_array_equal(a.S[e:e + half, lay.SF_N], 0)
            np.testing.assert_array_equal(b.S[e:e + half, lay.SF_SIDE], -1)


def test_rollout_rows_replay_and_depend_on_the_seed_only():
    pols = _pols("blockade", "fleet-in-being")
    seeds = game_seeds(29, 4, 0, 4)
    a = run_rollout_games(DATA, OPTS, pols, seeds, SPAIN, 1, n_random=2, n_knobs=2)
    b = run_rollout_games(DATA, OPTS, pols, seeds, SPAIN, 1, n_random=2, n_knobs=2)
    np.testing.assert_array_equal(a["G"], b["G"])
    c = run_rollout_games(DATA, OPTS, pols, seeds[2:3], SPAIN, 1, n_random=2, n_knobs=2)
    np.testing.assert_array_equal(c["G"][0], a["G"][2])


def test_rollout_policy_spec_and_play_batch():
    p = GAME.resolve_policies(SC.sides, {"spain": "@rollout:fleet-in-being"})["spain"]
    assert isinstance(p, RolloutPolicy)
    assert (p.name, p.family, p.rollouts, p.base.name) == ("@rollout:fleet-in-being:4", "rollout", 4, "fleet-in-being")
    assert p.as_dict()["base.concentrate"] == p.base.value("concentrate")
    q = GAME.resolve_policies(SC.sides, {"us": "@rollout:hunter:2"}, {"us": {"aggression": 0.5}})
    assert q["us"].base.value("aggression") == 0.5 and q["us"].rollouts == 2
    for bad in ("@rollout:", "@rollout:raider:x", "@rollout:raider:999", "@rollout:nope:2", "@rollout:hunter:1",
                "@rollout:@mix:x"):
        with pytest.raises(SpecError):
            GAME.resolve_policies(SC.sides, {"spain": bad})
    with pytest.raises(SpecError, match="only one side"):
        GAME.resolve_policies(SC.sides, {"spain": "@rollout:raider:1", "us": "@rollout:hunter:1"})
    seeds = game_seeds(29, 5, 0, 3)
    pols = GAME.resolve_policies(SC.sides, {"us": "blockade", "spain": "@rollout:fleet-in-being:1"})
    batch = GAME.play_batch(SC, OPTS, pols, seeds)
    raw = run_rollout_games(DATA, OPTS, _pols("blockade", "fleet-in-being"), seeds, SPAIN, 1)
    np.testing.assert_array_equal(batch.games["vp_net"], raw["G"][:, lay.G_VP_NET].astype(np.int32))


@pytest.mark.timeout(600)
def test_rollout_is_not_worse_than_its_base():
    # a paired run on the same seeds: the exploiter's mean payoff is not below its base's by more
    # than the paired difference's 95% half-width (Bertsekas: rollout improves on its base)
    pols = _pols("hunter", "raider")
    seeds = game_seeds(29, 6, 0, 120)
    base = run_games(DATA, OPTS, pols, seeds)["G"][:, lay.G_VP_NET]
    for side in (US, SPAIN):
        ro = run_rollout_games(DATA, OPTS, pols, seeds, side, 2, n_random=3)["G"][:, lay.G_VP_NET]

        def pay(v, side=side):
            w = np.where(v >= 6, US, np.where(v <= -6, SPAIN, -1))
            return (w == side).astype(float) - (w == 1 - side).astype(float)
        d = pay(ro) - pay(base)
        half = 1.96 * d.std(ddof=1) / np.sqrt(d.size) if d.std() > 0 else 0.0
        assert d.mean() >= -half, (side, d.mean(), half)


@pytest.mark.timeout(900)
def test_a_sweep_replays_the_gain_solve_method_rollout_reported(tmp_path, capsys):
    """``simlab solve dawn-of-empire --exploit us=blockade --method rollout --json`` reports the
    rollout response's gain over its base (``over_knobs``) on ``N`` fresh games; ``simlab sweep`` of
    the rollout policy and its base replays it exactly on the reported seed, and on a fresh seed
    agrees within 3 standard errors of the difference of the two estimates (issue 29)."""
    import json
    import math

    from simlab.cli import main
    from simlab.results import load
    n = 40
    assert main(["solve", "dawn-of-empire", "--exploit", "us=blockade", "--method", "rollout", "--rollouts", "1",
                 "--rollout-games", str(n), "--meta-games", "20", "--search-games", "2", "--confirm-games", "2",
                 "--budget", "2000", "--seed", "7", "--workers", "1", "--no-progress", "--json",
                 "--out", str(tmp_path / "s")]) == 0
    res = json.loads(capsys.readouterr().out)
    r = res["final"]["exploitability"]["rollout_per_side"]["spain"]
    assert r["games"] == n and r["rollouts"] == 1 and r["base"] in res["final"]["mixes"]["spain"]
    o = r["over_knobs"]
    se = (o["ci"][1] - o["ci"][0]) / (2 * 1.959963984540054)
    name = f"@rollout:{r['base']}:1"

    def replay(seed: int, tag: str) -> tuple[float, float]:
        out = tmp_path / tag
        assert main(["sweep", "--game", "dawn-of-empire", "--policy", f"spain={name},{r['base']}", "--policy",
                     "us=blockade", "--games", str(n), "--seed", str(seed), "--crn", "--workers", "1",
                     "--no-progress", "--out", str(out)]) == 0
        capsys.readouterr()
        df = load(out, columns=["policy_spain", "game_index", "winner"])
        pay = {}
        for p, g in df.groupby("policy_spain", observed=True):
            w = g.sort_values("game_index")["winner"].astype(str).to_numpy()
            pay[p] = (w == "spain").astype(float) - (w == "us").astype(float)
        d = pay[name] - pay[r["base"]]
        return float(d.mean()), float(d.std(ddof=1)) / math.sqrt(n)

    same, _ = replay(r["seed"], "same")
    assert same == pytest.approx(o["gain"], abs=1e-12)
    fresh, fse = replay(r["seed"] + 1, "fresh")
    assert abs(fresh - o["gain"]) <= 3.0 * math.hypot(se, fse) + 1e-12, (fresh, o["gain"], se, fse)
