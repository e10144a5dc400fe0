"""Issue 29's cost figure: what one rollout exploit costs in Mar Rojo (play-outs per decision, wall time).

    PYTHONPATH=. python experiments/rollout_cost.py [GAMES] [R] [SCENARIO] [SIDE] [BASE] [OPPONENT]

Defaults: 20 games, R = 4, cabo-de-palos, the Republican exploiter over ``aggressive`` against
``nationalist=cautious``, seed 29. Plays each game decision by decision as ``play_rollout_on_nb`` does
(``advance_to_decision_nb``, ``rollout_choice_nb``, ``forced_subturn_nb``), counting the exploiter's
decisions, its candidates and its play-outs (``n x R``, plus ``4R`` where a challenger is confirmed: the
best total not the base's), then times ``run_rollout_games`` on the same seeds (after a warm-up game
that compiles) and the base policy's ``run_games``. Prints one JSON object.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from simlab.games import get_game
from simlab.rng import game_seeds


def main(games: int = 20, rollouts: int = 4, scenario: str = "cabo-de-palos", side_name: str = "republican",
         base: str = "aggressive", opponent: str = "cautious") -> dict:
    g = get_game("mar-rojo")
    g.ensure_kernels_fresh()
    from simlab.games.mar_rojo.bundles import new_state
    from simlab.games.mar_rojo.engine import init_game_nb, play_on_nb
    from simlab.games.mar_rojo.layout import G_HAND0_N, G_OVER, G_SUBTURN
    from simlab.games.mar_rojo.rollout import (
        DEFAULT_SALT,
        advance_to_decision_nb,
        forced_subturn_nb,
        new_rollout,
        rollout_choice_nb,
        run_rollout_games,
    )
    from simlab.games.mar_rojo.runtime import batch_bundles, run_games
    sc = g.load_scenario(scenario)
    opts = g.resolve_options({})
    other = [s for s in sc.sides if s != side_name][0]
    pols = g.policies_of(sc.sides, {side_name: base, other: opponent})
    side = list(sc.sides).index(side_name)
    T, K = batch_bundles(sc.payload, opts, pols)
    npool = sc.payload.pool.shape[0]
    R = new_rollout(npool, side, rollouts, DEFAULT_SALT)
    seeds = game_seeds(29, 1, 0, games)
    decisions = playouts = confirmed = changed = 0
    cands = []
    t0 = time.perf_counter()
    for sd in seeds:
        S = new_state(npool)
        S.seed[0] = sd
        init_game_nb(T, K, S)
        if S.g[G_OVER] != 0:
            continue
        while advance_to_decision_nb(T, K, S, side):
            if S.g[G_HAND0_N + side] == 0:
                play_on_nb(T, K, S, S.g[G_SUBTURN] + 1)
                continue
            i, m, n, b = rollout_choice_nb(T, K, S, R)
            decisions += 1
            cands.append(int(n))
            if n > 1 and rollouts > 0:
                playouts += n * rollouts
                v = R.vals[:n]
                best = b
                for j in range(n):
                    if v[j] > v[best]:
                        best = j
                if best != b:
                    playouts += 4 * rollouts
                    confirmed += 1
                    changed += int(R.cand[0, best] == i and R.cand[1, best] == m)
            forced_subturn_nb(T, K, S, side, i, m)
    t_loop = time.perf_counter() - t0
    run_rollout_games(sc.payload, opts, {**pols}, seeds[:1], side, rollouts)  # compiled above; warm
    t0 = time.perf_counter()
    run_rollout_games(sc.payload, opts, {**pols}, seeds, side, rollouts)
    t_kernel = time.perf_counter() - t0
    run_games(sc.payload, opts, pols, seeds)
    t0 = time.perf_counter()
    run_games(sc.payload, opts, pols, np.tile(seeds, 50))
    t_base = (time.perf_counter() - t0) / 50
    return {"game": "mar-rojo", "scenario": scenario, "exploiter": f"{side_name}=@rollout:{base}:{rollouts}",
            "opponent": f"{other}={opponent}", "games": games, "decisions": decisions,
            "decisions_per_game": decisions / games, "candidates_mean": float(np.mean(cands)) if cands else 0.0,
            "playouts": playouts, "playouts_per_decision": playouts / max(decisions, 1),
            "playouts_per_game": playouts / games, "challengers_confirmed_run": confirmed,
            "challengers_played": changed, "seconds_per_rollout_game": t_kernel / games,
            "seconds_per_base_game": t_base / games, "python_loop_seconds": t_loop}


if __name__ == "__main__":
    a = sys.argv[1:]
    kw = {}
    if a:
        kw["games"] = int(a[0])
    if len(a) > 1:
        kw["rollouts"] = int(a[1])
    for k, v in zip(("scenario", "side_name", "base", "opponent"), a[2:], strict=False):
        kw[k] = v
    print(json.dumps(main(**kw), indent=1))
