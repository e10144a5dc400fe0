"""The Dreadnought test helpers do what they say, and fail when they should."""

import pytest
from dreadnought_helpers import oracle_shot, rng_with_d6

from simlab.rng import roll_nb


def test_rng_with_d6_gives_the_rolls_asked_for():
    st = rng_with_d6([2, 4, 6])
    assert [roll_nb(st, 6) for _ in range(3)] == [2, 4, 6]


def test_rng_with_d6_refuses_impossible_rolls():
    with pytest.raises(ValueError):
        rng_with_d6([7])
    with pytest.raises(ValueError):
        rng_with_d6([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6], limit=100)


def test_oracle_shot_sums_to_one_and_matches_a_hand_count():
    d = oracle_shot(attack=36, defense=10, hexes=7, fired_upon=True)
    assert sum(d.values()) == 1
    # hand count, not fired upon: column 31-40 gives DP 0,0,3,7 on rolls 2-5 (ratio 0), 10,13,17 on
    # 6-8 (1-1), 20,23,27 on 9-11 (2-1), 30 on 12 (3-1); the CRT has no effect on rolls up to 6 at
    # 1-1, 5 at 2-1, 4 at 3-1: (10*36 + 16*15 + 9*10 + 1*6) / 1296
    from fractions import Fraction
    assert oracle_shot(attack=36, defense=10, hexes=7)["none"] == Fraction(696, 1296)
    assert oracle_shot(attack=5, defense=999, hexes=7) == {"none": 1}
    assert oracle_shot(attack=5, defense=999, hexes=7) != oracle_shot(attack=80, defense=1, hexes=1)
