"""Kernel benchmarks of Dreadnought for ``simlab bench`` (see :meth:`Game.bench_cases`).

* ``dreadnought shot resolution``: DPT + CRT gunfire shots per second (:func:`.kernels.fire.gun_shot_nb`);
* ``dreadnought torpedo sweep``: Torpedo Marker sweeps per second, 10 markers against 40 moving
  units over 5 MP (:func:`.kernels.torpedo.sweep_nb`);
* ``dreadnought campaign``: whole Campaign Games per second (fleet building, allocation and the
  four scenarios A-D; WWI France against Italy at the 200 limit, close-and-engage both sides);
* ``dreadnought extended campaign``: whole Extended Campaigns per second (up to twelve campaign
  games each; WWII US against Japan).
"""

from __future__ import annotations

import numpy as np

from simlab.jit import kernel

from ...rng import STATE_WORDS, new_state_nb, roll_nb
from . import layout as L
from .kernels.fire import NGS, gun_shot_nb
from .kernels.torpedo import Markers, UnitPaths, marker_path_nb, sweep_nb


@kernel(nrt=True)
def shots_loop_nb(k, tb, seed):
    """Resolve ``k`` gunfire shots with varied strength, range and defense (``tb``: the compiled
    rules, :class:`.rules.RuleTables`); returns a checksum."""
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    out = np.zeros(NGS, dtype=np.int64)
    tot = 0
    for i in range(k):
        a = 10 + (i % 50)
        d = 1 + (i % 14)
        res = gun_shot_nb(a, i % 3 == 0, d, i % 2, i % 4 == 0, 4 + (i % 12), tb, rng, out)
        tot += res
    return tot


@kernel(nrt=True)
def sweeps_loop_nb(k, tracks, seed):
    """Run ``k`` torpedo sweeps of 10 markers against 40 units; returns the total hits."""
    n = 40
    nm = 10
    rng = np.zeros(STATE_WORDS, dtype=np.uint64)
    new_state_nb(np.uint64(seed), rng)
    px = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pz = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    pf = np.zeros((n, L.MAXMP + 1), dtype=np.int64)
    mp = np.zeros(n, dtype=np.int64)
    alive = np.ones(n, dtype=np.int64)
    exit_mp = np.full(n, L.MAXMP + 1, dtype=np.int64)
    mx = np.zeros((nm, L.MAXTRACK + 1), dtype=np.int64)
    mz = np.zeros((nm, L.MAXTRACK + 1), dtype=np.int64)
    md = np.zeros((nm, L.MAXTRACK + 1), dtype=np.int64)
    hitmask = np.zeros((nm, n), dtype=np.int8)
    hits = np.zeros((nm * n, 4), dtype=np.int64)
    mk = Markers(mx, mz, md, np.zeros(nm, dtype=np.int64))
    up = UnitPaths(px, pz, pf, mp, alive, exit_mp)
    total = 0
    for _ in range(k):
        for s in range(n):
            x = roll_nb(rng, 12)
            z = roll_nb(rng, 12) - 6
            f = roll_nb(rng, 6) - 1
            mp[s] = roll_nb(rng, 8)
            for t in range(L.MAXMP + 1):
                tt = t if t < mp[s] else mp[s]
                px[s, t] = x + (1 if f == 1 or f == 2 else (-1 if f >= 4 else 0)) * tt
                pz[s, t] = z + (-1 if f <= 1 else (1 if f == 3 or f == 4 else 0)) * tt
                pf[s, t] = f
        for m in range(nm):
            marker_path_nb(roll_nb(rng, 12), roll_nb(rng, 12) - 6, roll_nb(rng, 6) - 1, roll_nb(rng, tracks.shape[0]) - 1,
                           roll_nb(rng, 2) - 1, 5, tracks, mx, mz, md, m)
        total += sweep_nb(nm, 5, mk, n, up, hitmask, hits)
    return total


def bench_cases(game, quick: bool = False) -> list[dict]:
    """Benchmarks beyond the generic per-scenario ones (see :meth:`Game.bench_cases`).

    Args:
        game: the Dreadnought game (its data pack and options).
        quick: a few items per case instead of a timed run's worth.
    """
    from .runtime import rule_tables, rules_for
    rules, _ = rules_for(game.load_data())
    tb = rule_tables(rules)
    k_shots = 20_000 if quick else 1_000_000
    k_sweeps = 200 if quick else 20_000

    def shots():
        shots_loop_nb(k_shots, tb, 7)

    def sweeps():
        sweeps_loop_nb(k_sweeps, rules.tracks, 7)

    from ...rng import game_seeds
    from .runtime import campaign_setup, run_campaigns
    pack = game.load_data()
    k_camp = 40 if quick else 4000
    k_ext = 4 if quick else 300
    pols = {"north": "close-and-engage", "south": "close-and-engage"}
    wwi = game.resolve_options({})
    wwii = game.resolve_options({"period": "wwii", "north": "us", "south": "japanese"})

    def campaigns():
        run_campaigns(campaign_setup(pack, rules, "wwi", "french", "italian"), rules, wwi, pols,
                      game_seeds(11, 1, 0, k_camp), False)

    def extended():
        run_campaigns(campaign_setup(pack, rules, "wwii", "us", "japanese"), rules, wwii, pols,
                      game_seeds(12, 1, 0, k_ext), True)

    return [
        {"name": "dreadnought campaign (WWI France v Italy, scenarios A-D)", "unit": "campaigns", "items": k_camp,
         "fn": campaigns},
        {"name": "dreadnought extended campaign (WWII US v Japan, up to 12 campaigns)", "unit": "games",
         "items": k_ext, "fn": extended},
        {"name": "dreadnought shot resolution (DPT + CRT)", "unit": "shots", "items": k_shots, "fn": shots},
        {"name": "dreadnought torpedo-track sweep (10 markers x 40 units x 5 MP)", "unit": "sweeps",
         "items": k_sweeps, "fn": sweeps},
    ]
