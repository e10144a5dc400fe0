"""``simlab tune --equilibrium`` (issue 30): the fair value of an option under solved play."""

from __future__ import annotations

import json
import math

import pytest

from simlab.cli import main
from simlab.solve.equilibrium import fair_value_at_equilibrium

pytestmark = pytest.mark.timeout(600)


def test_the_crossing_and_the_inverted_band():
    # value -0.4, 0.2 at x = 0, 1: the line crosses 0 at 2/3; the band holds 0 where
    # hi(x) = -0.3 + 0.6 x >= 0 (x >= 0.5) and lo(x) = -0.5 + 0.6 x <= 0 (x <= 5/6)
    got = fair_value_at_equilibrium([0, 1], [-0.4, 0.2], [-0.5, 0.1], [-0.3, 0.3], steps=60001)
    assert got["fair_value"] == pytest.approx(2 / 3)
    assert got["ci"][0] == pytest.approx(0.5, abs=1e-4) and got["ci"][1] == pytest.approx(5 / 6, abs=1e-4)
    assert got["bracket"] == [0.0, 1.0]
    # a band that reaches the range's edge: that end is past the range
    wide = fair_value_at_equilibrium([0, 1, 2], [-0.1, 0.05, 0.2], [-0.3, -0.2, -0.1], [0.1, 0.3, 0.5])
    assert wide["fair_value"] == pytest.approx(1 / 1.5) and wide["ci"] == [None, None]
    none = fair_value_at_equilibrium([0, 1], [0.1, 0.2], [0.0, 0.1], [0.2, 0.3])
    assert none["fair_value"] is None and "above 0 at every played value" in none["note"]
    with pytest.raises(ValueError):
        fair_value_at_equilibrium([1, 0], [0, 0], [0, 0], [0, 0])


def test_synthetic_duel_fair_v0_is_zero(tmp_path, capsys):
    """The duel's value under solved play is 2 sigmoid(v0) - 1 (synthetic_duel's closed form), so the fair
    v0 is 0: the estimate must be within 0.15 of it, its interval must hold it, and each solved value must
    be within its own interval's reach of the exact one."""
    rc = main(["tune", "synthetic-duel", "--param", "v0", "--range=-1:1:1", "--equilibrium", "--budget", "150000",
               "--seed", "3", "--workers", "1", "--no-progress", "--json", "--out", str(tmp_path / "eq")])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    assert abs(res["fair_value"]) <= 0.15, res["fair_value"]
    lo, hi = res["ci"]
    assert lo is not None and hi is not None and lo <= 0 <= hi
    for p in res["points"]:
        exact = 2 / (1 + math.exp(-p["value"])) - 1
        a, b = p["value_ci"]
        assert a - 0.03 <= exact <= b + 0.03, (p, exact)
    assert (tmp_path / "eq" / "equilibrium.json").is_file() and (tmp_path / "eq" / "solve-grid.json").is_file()


@pytest.mark.parametrize("args, message", [
    (["--equilibrium", "--policy", "red=bold"], "--policy does not apply with --equilibrium"),
    (["--budget", "5000"], "--budget only applies with --equilibrium"),
    (["--equilibrium", "--budget", "10"], "--budget must be at least 1000"),
    (["--equilibrium", "--fit", "isotonic"], "--fit does not apply with --equilibrium"),
])
def test_bad_equilibrium_arguments_exit_2_with_one_line(tmp_path, capsys, args, message):
    rc = main(["tune", "synthetic-duel", "--param", "v0", "--range=-1:1", *args, "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "x").exists()
