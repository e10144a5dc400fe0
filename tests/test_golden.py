"""Golden outputs: every golden cell (tests/golden/<game>.json) replayed through the sweep runner
must give the recorded sha256 of its games table and the recorded trace of game 0.

A refactor must keep them. A change that moves rows on purpose regenerates them with `make golden`
in a commit of its own that names the rule or policy (see simlab/testing/golden.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from simlab.games import game_names, game_target
from simlab.testing import golden

FOLDER = Path(__file__).parent / "golden"
FILES = sorted(FOLDER.glob("*.json"))


def _cells():
    for f in FILES:
        data = json.loads(f.read_text())
        for c in data["cells"]:
            yield pytest.param(data, c, id=c["id"])


def test_every_registered_game_has_golden_cells():
    assert len(FILES) >= 5
    have = {json.loads(f.read_text())["game"] for f in FILES}
    # every game simlab ships (plug-ins registered by other tests at run time are not golden)
    assert have == {g for g in game_names() if game_target(g).startswith("simlab.")}
    for f in FILES:
        data = json.loads(f.read_text())
        ids = [c["id"] for c in data["cells"]]
        # the cells are exactly the ones golden_cells lists today (no pairing dropped or added)
        want = [golden.cell_id(data["game"], c["scenario"], c["policies"], c["options"])
                for c in golden.golden_cells(data["game"])]
        assert ids == want


@pytest.mark.parametrize("data,cell", list(_cells()))
def test_golden_cell(data, cell, tmp_path):
    t = golden.play_cell(data["game"], cell["scenario"], cell["policies"], cell["options"],
                         games=data["games_per_cell"], seed=data["seed"], tmp=tmp_path)
    assert t.num_rows == data["games_per_cell"]
    row0 = {k: v[0] for k, v in t.slice(0, 1).to_pydict().items()}
    trace = golden.trace_game0(data["game"], cell["scenario"], cell["policies"], cell["options"], row0,
                               int(row0["seed"]))
    msg = golden.difference(data["game"], cell, t, trace)
    assert msg is None, msg
    assert json.loads(json.dumps(trace)) == cell["trace_game0"]
    assert golden.table_digest(t) == cell["sha256"]


def test_digest_sees_one_changed_value_and_ignores_knob_and_luck_columns():
    t = pa.table({"game_index": [0, 1], "winner": ["us", "spain"], "score_us": [3.0, 1.0]})
    d = golden.table_digest(t)
    assert golden.table_digest(t.set_column(2, "score_us", pa.array([3.0, 1.5]))) != d
    assert golden.table_digest(t.set_column(1, "winner", pa.array(["us", "us"]))) != d
    # a type change is a change
    assert golden.table_digest(t.set_column(2, "score_us", pa.array([3.0, 1.0], pa.float32()))) != d
    # column order, the experiment name and knob columns are not
    assert golden.table_digest(t.select(["score_us", "winner", "game_index"])) == d
    assert golden.table_digest(t.append_column("knob_us_share", pa.array([0.5, 0.5]))) == d
    assert golden.table_digest(t.append_column("experiment", pa.array(["a", "a"]))) == d
    # the luck record (simlab luck) is not a result: adding it leaves every golden file valid
    assert golden.table_digest(t.append_column("luck_mean_us", pa.array([1.5, 0.25]))) == d
    assert golden.table_digest(t.append_column("luck_dice_us", pa.array([3, 1], pa.int32()))) == d
    # ... but only under its prefix: a column merely named like it is still digested
    assert golden.table_digest(t.append_column("lucky_us", pa.array([1, 0]))) != d


def test_a_failing_cell_names_the_game_the_cell_the_first_column_and_game_index():
    t = pa.table({"game_index": [0, 1, 2], "winner": ["us", "spain", "us"], "score_us": [3.0, 1.0, 2.0],
                  "turns": [4, 5, 6]})
    row0 = {"game_index": 0, "winner": "us", "score_us": 3.0, "turns": 4}
    cell = {"id": "g/s/us=a", "sha256": golden.table_digest(t), "columns": golden.column_digests(t),
            "games": golden.game_digests(t), "trace_game0": {"row": row0}}
    assert golden.difference("g", cell, t, {"row": row0}) is None
    moved = t.set_column(2, "score_us", pa.array([3.0, 1.0, 2.5])).set_column(3, "turns", pa.array([4, 5, 7]))
    msg = golden.difference("g", cell, moved, {"row": row0})
    assert msg.startswith("golden g cell g/s/us=a: first differing column score_us")
    assert "2 column(s) moved: score_us, turns" in msg and "first differing game index 2" in msg
    # a file that stores only the sha256 (as written before) is localised by game 0's trace
    old = {k: v for k, v in cell.items() if k not in ("columns", "games")}
    msg0 = golden.difference("g", old, t.set_column(1, "winner", pa.array(["spain", "spain", "us"])),
                             {"row": {**row0, "winner": "spain"}})
    assert "game index 0 differs, first in column winner ('us' -> 'spain')" in msg0
    later = golden.difference("g", old, moved, {"row": row0})
    assert "a later game differs" in later and "sha256" in later
