"""Same-moment A/B of the Mar Rojo batch of two trees (issue 27; BENCHMARKS.md).

Plays 3,000 games of each of three scenarios with ``get_game("mar-rojo").play_batch`` (kernels
warmed first), three runs each, and prints the median and range in games/s. Run it alternately in
the two trees, each with its own numba cache:

    .venv/bin/python benchmarks/ab_mar_rojo.py new
    (cd OLD_TREE && PYTHONPATH=$PWD /path/to/.venv/bin/python /path/to/benchmarks/ab_mar_rojo.py old)
"""

import sys
import time

from simlab.games import get_game
from simlab.rng import game_seeds

g = get_game("mar-rojo")
out = []
for sc, n in (("cabo-de-palos", 3000), ("strait-of-gibraltar", 3000), ("mediterranean-campaign", 3000)):
    s = g.load_scenario(sc, g.load_data())
    o, p = g.resolve_options({}), g.resolve_policies(s.sides, {})
    g.play_batch(s, o, p, game_seeds(1, 0, 0, 20))
    rates = []
    for _ in range(3):
        t = time.perf_counter()
        g.play_batch(s, o, p, game_seeds(7, 0, 0, n))
        rates.append(n / (time.perf_counter() - t))
    rates.sort()
    out.append(f"{sc}: median {rates[1]:,.0f} games/s ({rates[0]:,.0f}-{rates[2]:,.0f})")
print(sys.argv[1] if len(sys.argv) > 1 else "", "|", "; ".join(out))
