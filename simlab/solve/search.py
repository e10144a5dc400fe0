"""The knob space of a side and the CMA-ES search over it (``simlab solve``'s best-response step).

A side's knob space is the union of its policy families: each family's knobs, real and integer,
bounded by ``[lo, hi]``. The search runs one CMA-ES (Hansen's ``cma`` package) per family with knobs
in coordinates scaled to ``[0, 1]`` (an integer knob is rounded after scaling back, a real one to
:data:`DIGITS` decimals of its range), and a knob-less family is one candidate. Every family's
generation is asked for at once, so one sweep plays a whole generation of every family.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..games.policy import Family

__all__ = ["Candidate", "FamilySearch", "decode", "encode"]

#: a real knob is rounded to this many decimals of its range (a finer step than any game reads)
DIGITS = 4
SIGMA0 = 0.3


@dataclass(frozen=True)
class Candidate:
    """A point of the knob space: a family and its full knob vector.

    Attributes:
        family: the family's name.
        knobs: ``((knob, value), ...)`` in the family's order (ints for integer knobs).
    """

    family: str
    knobs: tuple[tuple[str, float | int], ...]

    def key(self) -> tuple:
        return (self.family, self.knobs)


def decode(fam: Family, u: Sequence[float]) -> Candidate:
    """Scaled coordinates ``u`` (``float[d]`` in ``[0, 1]``) to a candidate of ``fam``."""
    out = []
    for k, x in zip(fam.knobs, np.clip(np.asarray(u, dtype=np.float64), 0.0, 1.0), strict=True):
        v = k.lo + float(x) * (k.hi - k.lo)
        if k.kind is int:
            out.append((k.name, int(min(max(round(v), k.lo), k.hi))))
        else:
            step = (k.hi - k.lo) * 10.0 ** -DIGITS if k.hi > k.lo else 1.0
            out.append((k.name, round(float(min(max(round(v / step) * step, k.lo), k.hi)), 12)))
    return Candidate(fam.name, tuple(out))


def encode(fam: Family, knobs: dict) -> np.ndarray:
    """A knob dict of ``fam`` (missing knobs at their defaults) to scaled coordinates ``float[d]``."""
    return np.array([(float(knobs.get(k.name, k.default)) - k.lo) / (k.hi - k.lo) if k.hi > k.lo else 0.5
                     for k in fam.knobs], dtype=np.float64)


class FamilySearch:
    """CMA-ES over one family's knobs (or the single point of a knob-less family).

    Args:
        fam: the family.
        start: knob values to start from (the best member of the family so far, or its defaults).
        seed: the optimiser's seed (``1 <= seed < 2**32``).
        popsize: candidates per generation (None: CMA-ES's default ``4 + 3 ln d``).
    """

    def __init__(self, fam: Family, start: dict, seed: int, popsize: int | None = None):
        self.fam = fam
        self.es = None
        self.fixed = not fam.knobs
        self.asked: list[np.ndarray] = []
        if not self.fixed:
            import cma
            opts = {"bounds": [0.0, 1.0], "seed": int(seed), "verbose": -9, "verb_log": 0, "verb_disp": 0}
            if popsize:
                opts["popsize"] = int(popsize)
            x0 = np.clip(encode(fam, start), 0.02, 0.98)
            if x0.shape[0] == 1:  # cma does not search one dimension: a second coordinate, never read
                x0 = np.append(x0, 0.5)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.es = cma.CMAEvolutionStrategy(list(x0), SIGMA0, opts)
        self.done = False

    def ask(self) -> list[Candidate]:
        """The next generation's candidates (empty once a knob-less family has been asked)."""
        if self.fixed:
            if self.done:
                return []
            self.done = True
            return [Candidate(self.fam.name, ())]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.asked = [np.asarray(x, dtype=np.float64) for x in self.es.ask()]
        return [decode(self.fam, x[:len(self.fam.knobs)]) for x in self.asked]

    def tell(self, gains: Sequence[float]) -> None:
        """The objective (higher is better) of the candidates of the last :meth:`ask`, in order."""
        if self.fixed or not self.asked:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.es.tell(self.asked, [-float(g) for g in gains])
        self.asked = []
