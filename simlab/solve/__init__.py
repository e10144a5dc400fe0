"""``simlab solve``: best-response search over the policy knobs (PSRO) and exploitability estimates.

See :mod:`simlab.solve.loop` for the algorithm and docs/solve.md for the files it writes.
"""

from .loop import SUMMARY, solve

__all__ = ["SUMMARY", "solve"]
