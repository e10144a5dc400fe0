"""Same-moment A/B of the compiled batch of two trees (issue 17; BENCHMARKS.md, quiet-machine run).

Plays 8,000 Dawn of Empire campaigns and 150 Jutland games with ``get_game(G).play_batch`` (kernels
warmed first), three runs each, and prints the median and range in games/s. Run it alternately in
the two trees, each with its own numba cache:

    .venv/bin/python benchmarks/ab_play_batch.py new
    (cd OLD_TREE && PYTHONPATH=$PWD /path/to/.venv/bin/python /path/to/benchmarks/ab_play_batch.py old)

A third argument names the one game to time (``dawn-of-empire`` or ``dreadnought``), e.g. when only
one game's kernels changed and the other's are not compiled in a tree.
"""

import sys
import time

from simlab.games import get_game
from simlab.rng import game_seeds

out = []
only = sys.argv[2] if len(sys.argv) > 2 else None
for name, sc, n, warm in (("dawn-of-empire", "standard", 8000, 50), ("dreadnought", "jutland", 150, 3)):
    if only is not None and name != only:
        continue
    g = get_game(name)
    s = g.load_scenario(sc, g.load_data())
    o, p = g.resolve_options({}), g.resolve_policies(s.sides, {})
    g.play_batch(s, o, p, game_seeds(1, 0, 0, warm))
    rates = []
    for _ in range(3):
        t = time.perf_counter()
        g.play_batch(s, o, p, game_seeds(7, 0, 0, n))
        rates.append(n / (time.perf_counter() - t))
    rates.sort()
    out.append(f"{name}/{sc}: median {rates[1]:,.0f} games/s ({rates[0]:,.0f}-{rates[2]:,.0f})")
print(sys.argv[1] if len(sys.argv) > 1 else "", "|", "; ".join(out))
