"""``simlab solve``: best-response search over the policy knobs (PSRO) and exploitability estimates.

See :mod:`simlab.solve.loop` for the algorithm and docs/solve.md for the files it writes.
"""

from .grid import GRID_SUMMARY, solve
from .loop import SUMMARY

__all__ = ["GRID_SUMMARY", "SUMMARY", "solve"]
