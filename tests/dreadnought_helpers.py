"""Test helpers for the Dreadnought tests (each has a test that must fail: test_dreadnought_helpers.py)."""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path

import icepool
import numpy as np

from simlab.rng import STATE_WORDS, new_state_nb, roll_nb

DATA = Path(__file__).resolve().parents[1] / "simlab" / "games" / "dreadnought" / "data"
BANDS = ("0-5", "6-10", "11-15", "16-20", "21-25", "26-30", "31-40", "41-50", "51-60", "61-80", "81+")
BAND_LOW = (0, 6, 11, 16, 21, 26, 31, 41, 51, 61, 81)


def rng_with_d6(rolls: list[int], limit: int = 2_000_000) -> np.ndarray:
    """A fresh stream whose first ``len(rolls)`` d6 draws are ``rolls`` (found by search).

    Raises:
        ValueError: if a roll is not 1..6 or no seed below ``limit`` gives the sequence.
    """
    if any(r < 1 or r > 6 for r in rolls):
        raise ValueError(f"d6 rolls must be 1..6: {rolls}")
    st = np.zeros(STATE_WORDS, dtype=np.uint64)
    for seed in range(limit):
        new_state_nb(np.uint64(seed), st)
        if all(roll_nb(st, 6) == r for r in rolls):
            out = np.zeros(STATE_WORDS, dtype=np.uint64)
            new_state_nb(np.uint64(seed), out)
            return out
    raise ValueError(f"no seed below {limit} gives {rolls}")


def raw_tables() -> tuple[dict, dict, dict]:
    """The DPT, CRT and rules tables read straight from the pack's TOML (not through simlab)."""
    with open(DATA / "dpt_crt.toml", "rb") as fh:
        doc = tomllib.load(fh)
    with open(DATA / "pack.toml", "rb") as fh:
        pack = tomllib.load(fh)
    dpt = {int(r): {b: v["value"] for b, v in row.items()} for r, row in doc["dpt"].items()}
    crt = {int(r): {c: v["value"] for c, v in row.items()} for r, row in doc["crt"].items()}
    rules = {k: (v["value"]["value"] if isinstance(v["value"], dict) else v["value"]) for k, v in pack["rules"].items()}
    return dpt, crt, rules


def oracle_shot(attack: int, defense: int, hexes: int, fired_upon: bool = False, bow_or_stern: bool = False,
                halved: bool = False, torpedo: int = 0, combing: bool = False) -> dict[str, Fraction]:
    """Exact outcome distribution of one attack, by icepool, from the raw tables (an oracle
    independent of simlab's code): keys none, 1G, 1S, 1G1S, 2G, 2S, 2G1S, 1G2S, 2G2S, sunk."""
    dpt, crt, rules = raw_tables()
    two = icepool.d6 + icepool.d6

    def clamp(r):
        return min(12, max(2, r))

    def cell(roll, col):
        s = crt[roll][f"{min(col, 5)}-1"]
        if s == "E":
            return two.map(lambda e: "sunk" if e in (rules["e_sink_roll_a"], rules["e_sink_roll_b"]) else "2G1S")
        return s.replace(",", "") or "none"

    if torpedo:
        pen = 3 if combing else 0
        die = two.map(lambda r: cell(clamp(r - pen), torpedo))
    else:
        a = attack // 2 if halved else attack
        if hexes <= 2:
            a *= 3
        elif hexes <= 4:
            a *= 2
        elif hexes >= 13:
            a //= 2
        if a <= 0:
            return {"none": Fraction(1)}
        band = max(i for i, lo in enumerate(BAND_LOW) if a >= lo)
        mod = (-2 if fired_upon else 0) + (-1 if bow_or_stern else 0)

        def after_dpt(r):
            dp = dpt[clamp(r + mod)][BANDS[band]]
            ratio = dp // defense
            if ratio < 1:
                return "none"
            return two.map(lambda c: cell(c, ratio))

        die = two.map(after_dpt)
    return {o: Fraction(die.quantity(o), die.denominator()) for o in die.outcomes()}
