"""Hostile inputs that do not fit the bad-input corpus' form (issue 32, second round): the Python
API's argument types, a full disk, endless or odd files, a closed stdout."""

from __future__ import annotations

import pytest

import simlab
from simlab.errors import SpecError


@pytest.mark.parametrize("kw, message", [
    ({"games": True}, "games must be an int, got True (bool)"),
    ({"games": "10"}, "games must be an int, got '10' (str)"),
    ({"games": 10.0}, "games must be an int, got 10.0 (float)"),
    ({"seed": 1.5}, "seed must be an int, got 1.5"),
    ({"chunk_size": "5"}, "chunk_size must be an int"),
    ({"precision": "0.01"}, "precision must be a number, got '0.01'"),
    ({"precision": True}, "precision must be a number, got True"),
    ({"resume": 1}, "resume must be True or False, got 1"),
    ({"policy": "us=hunter"}, "policy must be a list of 'KEY=VALUE' strings, got 'us=hunter'"),
    ({"grid": ["max_rounds=2", 3]}, "grid must be a list of 'KEY=VALUE' strings"),
    ({"scenario": 3}, "scenario must be a str, got 3"),
])
def test_sweep_refuses_a_python_argument_of_the_wrong_type_and_writes_nothing(kw, message, tmp_path):
    out = tmp_path / "s"
    with pytest.raises(SpecError) as e:
        simlab.sweep(game="doe-battle", out=out, progress=False, workers=1, **{"games": 5, **kw})
    assert message in str(e.value) and "sweep(): " in str(e.value)
    assert not out.exists()


def test_sweep_takes_a_numpy_integer_for_games(tmp_path):
    import numpy as np
    r = simlab.sweep(game="doe-battle", games=np.int64(7), out=tmp_path / "s", progress=False, workers=1)
    assert r.manifest["spec"]["games"] == 7
