"""Balance analysis on top of the sweep runner: tuning handicaps and bids, paired comparisons of
variants with sequential stopping, and the policy meta-game.

Each analysis plays one or more ordinary sweeps (Parquet under its output directory, readable
with ``simlab.load`` and ``simlab report``) and writes a JSON summary beside them
(``tune.json``, ``compare.json``, ``meta.json``) that ``simlab plot`` draws.
"""

from .compare import compare
from .meta import meta
from .tune import bid_table, tune

__all__ = ["bid_table", "compare", "meta", "tune"]
