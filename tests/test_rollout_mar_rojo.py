"""The Mar Rojo rollout exploiter (issue 29, simlab/games/mar_rojo/rollout.py): its per-decision
options, its forced sub-turn (the engine's own sub-turn when given the policy's choice), the
resampling of what its side cannot see, a choice that does not depend on that hidden state, replays,
and the ``@rollout:BASE:R`` policy in sweeps."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.errors import SpecError
from simlab.games import get_game
from simlab.games.mar_rojo.bundles import GameState, copy_state
from simlab.games.mar_rojo.deck import conservation_ok_nb
from simlab.games.mar_rojo.enums import (
    AK_SIDE,
    AK_TYPE,
    AT_GENERAL,
    K_DAY_NIGHT,
    K_RETREAT,
    K_THE_END,
    MODE_EFFECT,
    ST_IN_PLAY,
)
from simlab.games.mar_rojo.layout import (
    C_POOL,
    G_DECK_N,
    G_FINAL,
    G_HAND0_N,
    G_NEXT,
    G_RETREAT,
    G_SUBTURN,
    MAXC,
    P_DECK,
    R_HAND_LIMIT,
    S_DMG,
    S_ROW,
    S_STATUS,
    S_UP,
)
from simlab.games.mar_rojo.rollout import (
    MAX_OPTIONS,
    advance_to_decision_nb,
    candidates_nb,
    forced_subturn_nb,
    new_rollout,
    resample_hidden_nb,
    rollout_choice_nb,
    run_rollout_games,
)
from simlab.games.mar_rojo.runtime import batch_bundles, run_games, start_games
from simlab.games.policy import RolloutPolicy
from simlab.rng import game_seeds

GAME = get_game("mar-rojo")
SC = GAME.load_scenario("cabo-de-palos")
OPTS = GAME.resolve_options({})
POLS = GAME.policies_of(SC.sides, {"nationalist": "cautious", "republican": "aggressive"})
REP = 1


def _one(state, i):
    """Game ``i`` of a batch state as a one-game state (its own arrays)."""
    return GameState(*(np.array(a[i], copy=True, order="C") for a in state))


def _decisions(side, n=12, stops=(0, 3, 8, 14)):
    """One-game states just before a sub-turn of ``side`` holding a hand, from several games and sub-turns."""
    T, K = batch_bundles(SC.payload, OPTS, POLS)
    seeds = game_seeds(29, 1, 0, n)
    out = []
    for k in stops:
        b = start_games(SC.payload, OPTS, POLS, seeds, stop=k)
        for i in range(n):
            S = _one(b, i)
            if advance_to_decision_nb(T, K, S, side) and S.g[G_HAND0_N + side] > 0:
                out.append(S)
    return T, K, out


def test_zero_rollouts_replay_the_base_policy_through_the_forced_subturn():
    # R = 0: every decision goes through candidates, the base's choice and forced_subturn_nb; the rows
    # must be exactly the engine's (so the forced sub-turn is the engine's sub-turn given that choice)
    seeds = game_seeds(29, 0, 0, 150)
    want_out, want_sq = run_games(SC.payload, OPTS, POLS, seeds)
    for side in (0, 1):
        out, sq = run_rollout_games(SC.payload, OPTS, POLS, seeds, side, 0)
        np.testing.assert_array_equal(out, want_out)
        np.testing.assert_array_equal(sq, want_sq)


def test_rollout_rows_replay_and_depend_on_the_seed_only():
    seeds = game_seeds(29, 2, 0, 4)
    a, sa = run_rollout_games(SC.payload, OPTS, POLS, seeds, REP, 1)
    b, sb = run_rollout_games(SC.payload, OPTS, POLS, seeds, REP, 1)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(sa, sb)
    c, _ = run_rollout_games(SC.payload, OPTS, POLS, seeds[2:3], REP, 1)
    np.testing.assert_array_equal(c[0], a[2])


def test_candidates_are_every_legal_option_once_per_card_kind():
    T, K, states = _decisions(REP)
    assert len(states) >= 10
    cand = np.zeros((2, MAX_OPTIONS), np.int64)
    for S in states:
        n = candidates_nb(T, S, REP, cand)
        got = [(int(cand[0, j]), int(cand[1, j])) for j in range(n)]
        hn = int(S.g[G_HAND0_N + REP])
        kinds = [int(T.akind[S.hands[REP, i]]) for i in range(hn)]
        want = [(-1, 0)] if S.g[G_FINAL] == 0 and hn < T.rt[R_HAND_LIMIT] else []
        for i, k in enumerate(kinds):
            if k in kinds[:i]:
                continue
            general = T.ak[k, AK_TYPE] == AT_GENERAL
            own = T.ak[k, AK_SIDE] < 0 or T.ak[k, AK_SIDE] == REP
            live = not (k == K_RETREAT and S.g[G_FINAL] == 1)
            for m in range(3):
                if m != MODE_EFFECT or (general and own and live):
                    want.append((i, m))
        assert got == want


def test_forced_subturn_with_the_policys_choice_is_the_engines_subturn():
    # with no rollouts the choice is the base policy's own (hand index, mode): forced, it plays the
    # engine's sub-turn exactly
    from simlab.games.mar_rojo.engine import play_on_nb
    T, K, states = _decisions(REP)
    R = new_rollout(SC.payload.pool.shape[0], REP, 0, 0)
    for S in states:
        a, b = copy_state(S), copy_state(S)
        play_on_nb(T, K, a, a.g[G_SUBTURN] + 1)
        i, m, n, base = rollout_choice_nb(T, K, b, R)
        assert 0 <= base < n
        forced_subturn_nb(T, K, b, REP, i, m)
        a.g[G_NEXT] = b.g[G_NEXT]  # play_on_nb stopped before passing an empty hand on (Rule 6)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


def _hidden_pool(S, side):
    opp = 1 - side
    return sorted(list(S.piles[P_DECK, :S.g[G_DECK_N]]) + list(S.hands[opp, :S.g[G_HAND0_N + opp]]))


def _covered_rows(S, side):
    base = (1 - side) * MAXC
    rows = {0: [], 1: [], 2: []}
    for s in range(base, base + MAXC):
        if S.st[s, S_STATUS] == ST_IN_PLAY and S.st[s, S_UP] == 0 and S.st[s, S_DMG] == 0:
            rows[int(S.st[s, S_ROW])].append(int(S.cs[s, C_POOL]))
    return {r: sorted(v) for r, v in rows.items()}


def test_resampled_states_agree_with_the_sides_view():
    T, K, states = _decisions(REP)
    R = new_rollout(SC.payload.pool.shape[0], REP, 1, 0)
    opp = 1 - REP
    changed_hand = changed_ids = 0
    for S in states:
        for key in range(3):
            W = copy_state(S)
            rng = np.array([np.uint64(1000 + key), 0, 0], np.uint64)
            resample_hidden_nb(T, W, REP, R.buf, R.ids, rng)
            # what the side sees is unchanged: its hand, the discard pile, the table, the cards out,
            # every card's position, damage, stress and cover, its own cards, the enemy's face-up cards
            np.testing.assert_array_equal(W.hands[REP], S.hands[REP])
            np.testing.assert_array_equal(W.piles[1:], S.piles[1:])
            np.testing.assert_array_equal(W.g, S.g)
            np.testing.assert_array_equal(W.st, S.st)
            np.testing.assert_array_equal(W.cs[REP * MAXC:(REP + 1) * MAXC], S.cs[REP * MAXC:(REP + 1) * MAXC])
            up = S.st[opp * MAXC:(opp + 1) * MAXC, S_UP] == 1
            np.testing.assert_array_equal(W.cs[opp * MAXC:(opp + 1) * MAXC][up], S.cs[opp * MAXC:(opp + 1) * MAXC][up])
            # the hidden part is a rearrangement of itself: the same cards, the same covered cards per row
            assert _hidden_pool(W, REP) == _hidden_pool(S, REP)
            assert _covered_rows(W, REP) == _covered_rows(S, REP)
            assert conservation_ok_nb(W.piles, W.hands, W.g, np.zeros(200, np.int64))
            for c in W.hands[opp, :W.g[G_HAND0_N + opp]]:
                assert T.akind[c] not in (K_THE_END, K_DAY_NIGHT)
            assert not W.wk.any() and not W.fw.any()
            nh = W.g[G_HAND0_N + opp]
            changed_hand += not np.array_equal(W.hands[opp, :nh], S.hands[opp, :nh])
            changed_ids += not np.array_equal(W.cs, S.cs)
    assert changed_hand > len(states)  # the samples do move the hidden cards
    assert changed_ids > 0


def _hidden_variant(T, S, side, seed):
    """``S`` with only what ``side`` cannot see changed: the opponent's hand swapped with other
    cards of the draw pile and the pile reordered, the covered undamaged enemy cards permuted within
    their rows, another random stream and scribbled scratch."""
    rng = np.random.default_rng(seed)
    V = copy_state(S)
    opp = 1 - side
    nd, nh = int(V.g[G_DECK_N]), int(V.g[G_HAND0_N + opp])
    pool = list(V.piles[P_DECK, :nd]) + list(V.hands[opp, :nh])
    barred = (K_THE_END, K_DAY_NIGHT) + ((K_RETREAT,) if V.g[G_RETREAT] == 1 else ())
    ok = [c for c in pool if T.akind[c] not in barred]
    hand = list(rng.choice(ok, size=nh, replace=False))
    deck = [c for c in pool if c not in hand]
    rng.shuffle(deck)
    V.hands[opp, :nh] = hand
    V.piles[P_DECK, :nd] = deck
    base = opp * MAXC
    for r in range(3):
        slots = [s for s in range(base, base + MAXC) if V.st[s, S_STATUS] == ST_IN_PLAY and V.st[s, S_UP] == 0
                 and V.st[s, S_ROW] == r and V.st[s, S_DMG] == 0]
        perm = rng.permutation(len(slots))
        V.cs[slots] = S.cs[[slots[p] for p in perm]]
    V.rng[:] = rng.integers(0, 2**63, size=3, dtype=np.uint64)
    V.wk[:] = rng.integers(0, 100, size=V.wk.shape[0])
    V.fw[:] = rng.random(V.fw.shape[0])
    return V


def test_the_choice_does_not_change_when_only_hidden_state_changes():
    T, K, states = _decisions(REP, n=6, stops=(2, 10))
    R = new_rollout(SC.payload.pool.shape[0], REP, 2, 7)
    differs = spread = 0
    for j, S in enumerate(states):
        keep = copy_state(S)
        a = rollout_choice_nb(T, K, S, R)
        va = R.vals.copy()
        for x, y in zip(S, keep, strict=True):  # the real state is left as it was
            np.testing.assert_array_equal(x, y)
        V = _hidden_variant(T, S, REP, j)
        differs += not np.array_equal(V.hands, S.hands) or not np.array_equal(V.cs, S.cs)
        b = rollout_choice_nb(T, K, V, R)
        assert a == b
        np.testing.assert_array_equal(R.vals, va)
        spread += len(set(va[:a[2]].tolist())) > 1
    assert differs == len(states)
    assert spread > 0  # the rollouts do tell the options apart


def test_rollout_policy_spec():
    p = GAME.resolve_policies(SC.sides, {"republican": "@rollout:aggressive"})["republican"]
    assert isinstance(p, RolloutPolicy)
    assert (p.name, p.family, p.rollouts, p.base.name) == ("@rollout:aggressive:4", "rollout", 4, "aggressive")
    assert p.as_dict()["rollouts"] == 4.0 and p.as_dict()["base.draw"] == p.base.value("draw")
    q = GAME.resolve_policies(SC.sides, {"republican": "@rollout:cautious:2"}, {"republican": {"draw": 0.5}})
    assert q["republican"].base.value("draw") == 0.5 and q["republican"].rollouts == 2
    for bad in ("@rollout:", "@rollout:aggressive:x", "@rollout:aggressive:999", "@rollout:nope:2",
                "@rollout:solo-ai:2"):
        with pytest.raises(SpecError):
            GAME.resolve_policies(SC.sides, {"republican": bad})
    with pytest.raises(SpecError, match="only one side"):
        GAME.resolve_policies(SC.sides, {"republican": "@rollout:aggressive:1", "nationalist": "@rollout:cautious:1"})
    with pytest.raises(SpecError, match="no rollout exploiter"):
        get_game("synthetic").resolve_policies(get_game("synthetic").sides, {
            get_game("synthetic").sides[0]: "@rollout:x:1"})


def test_play_batch_plays_the_rollout_side():
    seeds = game_seeds(29, 4, 0, 3)
    pols = GAME.resolve_policies(SC.sides, {"nationalist": "cautious", "republican": "@rollout:aggressive:1"})
    batch = GAME.play_batch(SC, OPTS, pols, seeds)
    out, _ = run_rollout_games(SC.payload, OPTS, POLS, seeds, REP, 1)
    np.testing.assert_array_equal(batch.games["winner"], out[:, 0].astype(np.int8))


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_rollout_does_no_worse_than_its_base():
    # 300 games, 4 rollouts: the rollout exploiter's mean payoff is not below its base's by more than
    # the paired difference's 95% half-width (Bertsekas: rollout improves on its base policy)
    seeds = game_seeds(29, 5, 0, 300)
    base, _ = run_games(SC.payload, OPTS, POLS, seeds)
    ro, _ = run_rollout_games(SC.payload, OPTS, POLS, seeds, REP, 4)

    def pay(w):
        return (w == REP).astype(float) - (w == 1 - REP).astype(float)
    d = pay(ro[:, 0]) - pay(base[:, 0])
    half = 1.96 * d.std(ddof=1) / np.sqrt(d.size)
    assert d.mean() >= -half


@pytest.mark.timeout(900)
def test_a_sweep_replays_the_gain_solve_method_rollout_reported(tmp_path, capsys):
    """``simlab solve mar-rojo --exploit nationalist=cautious --method rollout --json`` reports the
    rollout response's gain over its base (``over_knobs``) on ``N`` fresh games; ``simlab sweep`` of
    the rollout policy and its base replays it exactly on the reported seed, and on a fresh seed
    agrees within 3 standard errors of the difference of the two estimates (issue 29)."""
    import json
    import math

    from simlab.cli import main
    from simlab.results import load
    n = 40
    assert main(["solve", "mar-rojo", "--scenario", "cabo-de-palos", "--exploit", "nationalist=cautious",
                 "--method", "rollout", "--rollouts", "1", "--rollout-games", str(n), "--meta-games", "20",
                 "--search-games", "2", "--confirm-games", "2", "--budget", "2000", "--seed", "7", "--workers", "1",
                 "--no-progress", "--json", "--out", str(tmp_path / "s")]) == 0
    res = json.loads(capsys.readouterr().out)
    r = res["final"]["exploitability"]["rollout_per_side"]["republican"]
    assert r["games"] == n and r["rollouts"] == 1 and r["base"] in res["final"]["mixes"]["republican"]
    o = r["over_knobs"]
    se = (o["ci"][1] - o["ci"][0]) / (2 * 1.959963984540054)
    name = f"@rollout:{r['base']}:1"

    def replay(seed: int, tag: str) -> tuple[float, float]:
        out = tmp_path / tag
        assert main(["sweep", "--game", "mar-rojo", "--scenario", "cabo-de-palos", "--policy",
                     f"republican={name},{r['base']}", "--policy", "nationalist=cautious", "--games", str(n),
                     "--seed", str(seed), "--crn", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
        capsys.readouterr()
        df = load(out, columns=["policy_republican", "game_index", "winner"])
        pay = {}
        for p, g in df.groupby("policy_republican", observed=True):
            w = g.sort_values("game_index")["winner"].astype(str).to_numpy()
            pay[p] = (w == "republican").astype(float) - (w == "nationalist").astype(float)
        d = pay[name] - pay[r["base"]]
        return float(d.mean()), float(d.std(ddof=1)) / math.sqrt(n)

    same, _ = replay(r["seed"], "same")
    assert same == pytest.approx(o["gain"], abs=1e-12)
    fresh, fse = replay(r["seed"] + 1, "fresh")
    assert abs(fresh - o["gain"]) <= 3.0 * math.hypot(se, fse) + 1e-12, (fresh, o["gain"], se, fse)
