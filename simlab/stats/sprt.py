"""Wald's sequential probability ratio test (SPRT) for a Bernoulli probability.

H0: ``p = p0`` against H1: ``p = p1``. After each trial the log-likelihood ratio
``LLR = s * log(p1 / p0) + f * log((1 - p1) / (1 - p0))`` (``s`` successes, ``f`` failures) is
compared with Wald's bounds ``log(beta / (1 - alpha))`` (accept H0 at or below it) and
``log((1 - beta) / alpha)`` (accept H1 at or above it). The test stops at the first trial whose
LLR crosses a bound, so its decision depends only on the order of the trials, never on how they
were batched. Wald's bounds keep the error rates near ``alpha`` and ``beta`` (at most
``alpha / (1 - beta)`` and ``beta / (1 - alpha)``); ``simlab compare --sprt`` applies it to the
games whose results differ between two variants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["SPRT", "SprtState"]


@dataclass(frozen=True)
class SprtState:
    """Where a sequential test stands.

    Attributes:
        llr: the log-likelihood ratio after ``trials`` trials.
        trials: trials taken into account (up to the crossing, if any).
        successes: successes among them.
        decision: ``"H0"``, ``"H1"`` or ``None`` (still undecided).
    """

    llr: float
    trials: int
    successes: int
    decision: str | None


@dataclass(frozen=True)
class SPRT:
    """A Bernoulli SPRT.

    Attributes:
        p0, p1: the two hypotheses, ``0 < p0, p1 < 1``, ``p0 != p1``.
        alpha: probability of accepting H1 when H0 holds; beta: of accepting H0 when H1 holds.

    Raises:
        ValueError: on probabilities outside ``(0, 1)``, ``p0 == p1``, or error rates outside
            ``(0, 0.5)``.
    """

    p0: float
    p1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self):
        for name in ("p0", "p1"):
            v = getattr(self, name)
            if not 0.0 < v < 1.0:
                raise ValueError(f"{name} must be strictly between 0 and 1 (got {v})")
        if self.p0 == self.p1:
            raise ValueError("p0 and p1 must differ")
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0.0 < v < 0.5:
                raise ValueError(f"{name} must be strictly between 0 and 0.5 (got {v})")

    @property
    def lower(self) -> float:
        """Wald's lower bound ``log(beta / (1 - alpha))``: accept H0 at or below it."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound ``log((1 - beta) / alpha)``: accept H1 at or above it."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def step_success(self) -> float:
        return math.log(self.p1 / self.p0)

    @property
    def step_failure(self) -> float:
        return math.log((1 - self.p1) / (1 - self.p0))

    def llr(self, successes, failures):
        """Log-likelihood ratio of ``successes`` and ``failures`` (array_like, broadcast)."""
        return np.asarray(successes) * self.step_success + np.asarray(failures) * self.step_failure

    def scan(self, outcomes, start: SprtState | None = None) -> SprtState:
        """Feed trials in order and stop at the first crossing.

        Args:
            outcomes: ``array_like(bool)`` of shape ``(k,)``: the next trials in order.
            start: the state before these trials (default: nothing seen); a decided state is
                returned unchanged.

        Returns:
            The :class:`SprtState` after the crossing trial, or after all ``k`` trials.
        """
        st = start or SprtState(0.0, 0, 0, None)
        if st.decision is not None:
            return st
        x = np.asarray(outcomes, dtype=bool)
        if x.size == 0:
            return st
        path = st.llr + np.cumsum(np.where(x, self.step_success, self.step_failure))
        hit = np.flatnonzero((path >= self.upper) | (path <= self.lower))
        k = int(hit[0]) + 1 if hit.size else x.size
        llr = float(path[k - 1])
        dec = None
        if hit.size:
            dec = "H1" if llr >= self.upper else "H0"
        return SprtState(llr, st.trials + k, st.successes + int(x[:k].sum()), dec)

    def decide_many(self, outcomes) -> tuple[np.ndarray, np.ndarray]:
        """Run the test on many independent sequences at once (vectorised).

        Args:
            outcomes: ``ndarray(bool, shape=(runs, k))``, one sequence of trials per row.

        Returns:
            ``(decision, trials)``: ``int8[runs]`` with 1 for H1, 0 for H0, -1 undecided after
            ``k`` trials; ``int64[runs]`` trials used (``k`` when undecided).
        """
        x = np.asarray(outcomes, dtype=bool)
        path = np.cumsum(np.where(x, self.step_success, self.step_failure), axis=1)
        crossed = (path >= self.upper) | (path <= self.lower)
        any_cross = crossed.any(axis=1)
        first = np.where(any_cross, crossed.argmax(axis=1), x.shape[1] - 1)
        at = path[np.arange(x.shape[0]), first]
        dec = np.where(~any_cross, -1, np.where(at >= self.upper, 1, 0)).astype(np.int8)
        return dec, (first + 1).astype(np.int64)
