"""Same-moment A/B of Jutland's compiled batch in two trees (issue 17; the Jutland half of
``ab_play_batch.py`` with CPU time as well): 150 games with ``get_game("dreadnought").play_batch``
(kernels warmed first), three runs, median and range in games/s of process CPU time, and the
median of wall-clock. Run it alternately in the two trees, each with its own numba cache:

    PYTHONPATH=$PWD .venv/bin/python benchmarks/ab_jutland.py new
    (cd OLD_TREE && PYTHONPATH=$PWD /path/to/.venv/bin/python /path/to/benchmarks/ab_jutland.py old)
"""

import sys
import time

from simlab.games import get_game
from simlab.rng import game_seeds

g = get_game("dreadnought")
s = g.load_scenario("jutland", g.load_data())
o, p = g.resolve_options({}), g.resolve_policies(s.sides, {})
g.play_batch(s, o, p, game_seeds(1, 0, 0, 3))
n = int(sys.argv[2]) if len(sys.argv) > 2 else 150
rates = []
for _ in range(3):
    t = time.perf_counter()
    c = time.process_time()
    g.play_batch(s, o, p, game_seeds(7, 0, 0, n))
    rates.append((n / (time.process_time() - c), n / (time.perf_counter() - t)))
rates.sort()
wall = sorted(r[1] for r in rates)[1]
print(sys.argv[1] if len(sys.argv) > 1 else "", f"| CPU median {rates[1][0]:,.0f} games/s ({rates[0][0]:,.0f}-{rates[2][0]:,.0f});"
      f" wall median {wall:,.0f}", flush=True)
