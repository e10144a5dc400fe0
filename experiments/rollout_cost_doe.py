"""Issue 29's cost figure for Dawn of Empire: what one rollout exploit costs (play-outs per decision, wall time).

    PYTHONPATH=. python experiments/rollout_cost_doe.py [GAMES] [R] [SIDE] [BASE] [OPPONENT]

Defaults: 20 games, R = 4, the Spanish exploiter over ``fleet-in-being`` against ``us=blockade``, seed 29.
Plays each game turn by turn as ``play_rollout_on_nb`` does (``begin_turn_nb``, ``rollout_choice_nb``,
``orders_nb``, ``end_turn_nb``), counting the exploiter's decisions (one Orders Phase a turn), its candidates,
its play-outs (``n x R``, plus ``4R`` where a challenger is re-checked: the best total not the base's) and the
plans it installed other than the base's, then times ``run_rollout_games`` on the same seeds (after a warm-up
game) and the base policy's ``run_games``. A play-out is the rest of a game from the decision's turn. Prints
one JSON object.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from simlab.games import get_game
from simlab.rng import game_seeds


def main(games: int = 20, rollouts: int = 4, side_name: str = "spain", base: str = "fleet-in-being",
         opponent: str = "blockade") -> dict:
    g = get_game("dawn-of-empire")
    g.ensure_kernels_fresh()
    from simlab.games.doe import campaign_layout as lay
    from simlab.games.doe.campaign_bundles import new_scratch_nb
    from simlab.games.doe.campaign_loop import setup_game_nb
    from simlab.games.doe.rollout import (
        RP_NPRESET,
        RP_NRANDOM,
        begin_turn_nb,
        end_turn_nb,
        new_rollout,
        one_game_state,
        orders_nb,
        preset_candidates,
        rollout_choice_nb,
        run_rollout_games,
    )
    from simlab.games.doe.runtime import _tables, resolve_policy, run_games
    from simlab.rng import new_state_nb
    sc = g.load_scenario("standard")
    data = sc.payload
    opts = g.resolve_options({})
    other = [s for s in sc.sides if s != side_name][0]
    pols = {side_name: resolve_policy(side_name, base), other: resolve_policy(other, opponent)}
    side = list(sc.sides).index(side_name)
    tb = _tables(data, opts, pols, False)
    R = new_rollout(tb, data, side, rollouts, preset_candidates(side_name, pols[side_name]))
    n = int(R.params[RP_NPRESET] + R.params[RP_NRANDOM])
    sc_, rsc = new_scratch_nb(tb), new_scratch_nb(tb)
    seeds = game_seeds(29, 1, 0, games)
    decisions = playouts = rechecked = changed = 0
    t0 = time.perf_counter()
    for sd in seeds:
        st = one_game_state(data.ust.shape[0], data.lst.shape[0], data.nodes.shape[0])
        R.gseed[0] = sd
        new_state_nb(sd, st.rng)
        setup_game_nb(tb, st, sc_)
        turn = int(st.clock[lay.CK_NEXT])
        while turn <= int(tb.par[lay.P_TURNS]) and st.clock[lay.CK_DONE] == 0:
            begin_turn_nb(tb, st, turn)
            j = rollout_choice_nb(tb, st, rsc, R, turn)
            decisions += 1
            if rollouts > 0 and n > 1:
                playouts += n * rollouts
                if int(np.argmax(R.vals[:n])) != 0:
                    playouts += 4 * rollouts
                    rechecked += 1
            changed += int(j != 0)
            if orders_nb(tb, st, sc_, R, turn, j) != 0 or end_turn_nb(tb, st, sc_, turn):
                break
            turn += 1
    t_loop = time.perf_counter() - t0
    run_rollout_games(data, opts, pols, seeds[:1], side, rollouts)
    t0 = time.perf_counter()
    run_rollout_games(data, opts, pols, seeds, side, rollouts)
    t_kernel = time.perf_counter() - t0
    run_games(data, opts, pols, seeds)
    t0 = time.perf_counter()
    run_games(data, opts, pols, np.tile(seeds, 50))
    t_base = (time.perf_counter() - t0) / 50
    return {"game": "dawn-of-empire", "scenario": "standard", "exploiter": f"{side_name}=@rollout:{base}:{rollouts}",
            "opponent": f"{other}={opponent}", "games": games, "decisions": decisions,
            "decisions_per_game": decisions / games, "candidates": n, "playouts": playouts,
            "playouts_per_decision": playouts / max(decisions, 1), "playouts_per_game": playouts / games,
            "challengers_rechecked": rechecked, "plans_other_than_the_base": changed,
            "seconds_per_rollout_game": t_kernel / games, "seconds_per_base_game": t_base / games,
            "python_loop_seconds": t_loop}


if __name__ == "__main__":
    a = sys.argv[1:]
    kw = {}
    if a:
        kw["games"] = int(a[0])
    if len(a) > 1:
        kw["rollouts"] = int(a[1])
    for k, v in zip(("side_name", "base", "opponent"), a[2:], strict=False):
        kw[k] = v
    print(json.dumps(main(**kw), indent=1))
