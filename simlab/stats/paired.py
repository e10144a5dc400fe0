"""Paired comparisons of two win rates measured on the same games (common random numbers).

Two variants played with the same seeds give, for every game index, a pair of outcomes. The
difference of the two win rates is estimated from the 2×2 table of those pairs, with Newcombe's
hybrid score interval for paired proportions (Newcombe 1998, "Improved confidence intervals for
the difference between binomial proportions based on paired data", method 10), which builds on
the Wilson intervals of the two marginal rates and the correlation of the pairs. The same
interval serves for the difference of two sides' win rates within one cell (a game cannot be
won by both sides: the "both" cell of the table is empty).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .intervals import wilson_interval

__all__ = ["PairedTable", "paired_difference", "paired_table"]


@dataclass(frozen=True)
class PairedTable:
    """Counts of a 2×2 table of paired binary outcomes.

    Attributes:
        both: games where both outcomes are 1; first_only: only the first is 1;
        second_only: only the second is 1; neither: both are 0.
    """

    both: int
    first_only: int
    second_only: int
    neither: int

    @property
    def n(self) -> int:
        return self.both + self.first_only + self.second_only + self.neither

    @property
    def discordant(self) -> int:
        """Games whose two outcomes differ."""
        return self.first_only + self.second_only


def paired_table(first, second) -> PairedTable:
    """The 2×2 table of two paired binary outcome arrays.

    Args:
        first, second: ``array_like(bool)`` of the same shape ``(n,)``: outcome of game ``i`` under
            the first and the second variant.

    Raises:
        ValueError: if the shapes differ.
    """
    a = np.asarray(first, dtype=bool)
    b = np.asarray(second, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"paired outcomes need equal shapes, got {a.shape} and {b.shape}")
    return PairedTable(int((a & b).sum()), int((a & ~b).sum()), int((~a & b).sum()), int((~a & ~b).sum()))


def paired_difference(table: PairedTable, confidence: float = 0.95) -> tuple[float, float, float]:
    """Difference of two paired proportions, ``p_first - p_second``, with Newcombe's interval.

    Args:
        table: the paired counts (``n >= 1``).
        confidence: two-sided level in ``(0, 1)``.

    Returns:
        ``(difference, low, high)`` with ``-1 <= low <= difference <= high <= 1``.

    Raises:
        ValueError: if the table is empty.
    """
    n = table.n
    if n < 1:
        raise ValueError("a paired table needs at least one game")
    a, b, c, d = table.both, table.first_only, table.second_only, table.neither
    p1 = (a + b) / n
    p2 = (a + c) / n
    l1, u1 = (float(x) for x in wilson_interval(a + b, n, confidence))
    l2, u2 = (float(x) for x in wilson_interval(a + c, n, confidence))
    denom = float(a + b) * float(c + d) * float(a + c) * float(b + d)
    phi = (float(a) * d - float(b) * c) / np.sqrt(denom) if denom > 0 else 0.0
    diff = p1 - p2
    dl = np.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    du = np.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return float(diff), float(max(-1.0, diff - dl)), float(min(1.0, diff + du))
