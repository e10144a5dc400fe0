"""One way to pack a policy (simlab.games.packing, issue 27): a layout of slot constants checked
against a policies file, exact packed values, and every registered game's declaration checked.

The policies file is the test plug-in's (tests/knob_plugin/policies.toml): family ``aim`` with a
float knob ``accuracy`` (default 0.5, in [0, 1]) and an int knob ``shots`` (default 1, in [1, 5]),
presets ``steady`` (the defaults) and ``sharp`` (0.8, 2), and the knob-less blue-only ``idle``.
"""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

from simlab.errors import SpecError
from simlab.games import game_names, get_game
from simlab.games.packing import KnobRow, PolicyPacking, pack_policies
from simlab.games.policy import Policy, game_policy_book

FILE = Path(__file__).parent / "knob_plugin" / "policies.toml"
SIDES = ("red", "blue")


def _layout(**slots) -> types.ModuleType:
    m = types.ModuleType("fake_layout")
    for k, v in slots.items():
        setattr(m, k, v)
    return m


def _packing(dtype=np.float64, scale=None, **kw) -> PolicyPacking:
    lay = _layout(K_ACCURACY=1, K_SHOTS=0)
    return PolicyPacking(FILE, rows=(KnobRow("kn", dtype, lay, "K_", 2, float_scale=scale, **kw),),
                         family_ids={"aim": 3, "idle": 7}, fixed={"script": 9})


def test_a_float_row_holds_the_values_and_the_family_codes():
    p = pack_policies(_packing(), {"red": "sharp", "blue": "idle"}, SIDES)
    assert p.families.dtype == np.int64 and p.families.tolist() == [3, 7]
    kn = p.rows["kn"]
    assert kn.dtype == np.float64 and kn.shape == (2, 2)
    assert kn[0].tolist() == [2.0, 0.8]     # shots in K_SHOTS = 0, accuracy in K_ACCURACY = 1
    assert kn[1].tolist() == [0.0, 0.0]     # idle sets no slot; no fill: zeros


def test_an_integer_row_packs_a_float_knob_by_its_scale():
    pol = Policy("x", "aim", (("accuracy", 0.1236), ("shots", 4)))
    p = pack_policies(_packing(np.int64, 1000), {"red": pol, "blue": "script"}, SIDES)
    assert p.rows["kn"].dtype == np.int64
    assert p.rows["kn"][0].tolist() == [4, 124]   # round(1000 * 0.1236): permille
    assert p.families.tolist() == [3, 9] and p.rows["kn"][1].tolist() == [0, 0]


def test_a_knob_vector_and_a_fill_family():
    pk = _packing(fill_family="aim", fill={"shots": 5})
    p = pk.pack({"red": ("aim", [0.25, 3]), "blue": "idle"}, SIDES)
    assert p.rows["kn"][0].tolist() == [3.0, 0.25]
    assert p.rows["kn"][1].tolist() == [5.0, 0.5]   # idle: aim's defaults, shots overridden
    assert pk.fill_row("kn").tolist() == [5.0, 0.5]
    with pytest.raises(SpecError, match="outside"):
        pk.pack({"red": ("aim", [1.5, 3]), "blue": "idle"}, SIDES)


def test_a_setting_reaches_its_slot_and_bad_names_are_refused():
    pk = _packing()
    pol = pk.book().resolve("red", "steady", {"shots": "5"})
    assert pk.pack({"red": pol, "blue": "steady"}, SIDES).rows["kn"].tolist() == [[5.0, 0.5], [1.0, 0.5]]
    with pytest.raises(SpecError, match="unknown policy"):
        pk.pack({"red": "idle", "blue": "steady"}, SIDES)   # idle is blue's only


@pytest.mark.parametrize("slots,width,kw,needle", [
    ({"K_ACCURACY": 0}, 1, {}, "knob shots of family aim has no slot"),
    ({"K_ACCURACY": 0, "K_SHOTS": 0}, 1, {}, "share slot 0"),
    ({"K_ACCURACY": 0, "K_SHOTS": 1}, 3, {}, "slot 2 of kn is no knob's"),
    ({"K_ACCURACY": 0, "K_SHOTS": 2}, 2, {}, "slot 2 outside"),
    ({"K_ACCURACY": 0, "K_SHOTS": 1}, 2, {"aliases": {"shots": "K_NSHOTS"}}, "no constant K_NSHOTS"),
    ({"K_ACCURACY": 0, "K_SHOTS": 1}, 2, {"dtype": np.int64}, "no float_scale"),
])
def test_a_layout_out_of_step_with_the_file_is_refused(slots, width, kw, needle):
    dtype = kw.pop("dtype", np.float64)
    pk = PolicyPacking(FILE, rows=(KnobRow("kn", dtype, _layout(**slots), "K_", width, **kw),))
    with pytest.raises(ValueError, match=needle):
        pk.book()


def test_families_the_kernels_do_not_know_and_host_knobs():
    lay = _layout(K_ACCURACY=0)
    pk = PolicyPacking(FILE, rows=(KnobRow("kn", np.float64, lay, "K_", 1),), family_ids={"aim": 0})
    with pytest.raises(ValueError, match="the kernels know"):
        pk.check(game_policy_book(FILE))
    host = PolicyPacking(FILE, rows=(KnobRow("kn", np.float64, lay, "K_", 1),), host_knobs=("shots",))
    p = host.pack({"red": "sharp", "blue": "sharp"}, SIDES)
    assert p.rows["kn"].tolist() == [[0.8], [0.8]] and p.families.tolist() == [0, 0]


def test_every_game_that_declares_a_packing_passes_its_check():
    declared = []
    for name in game_names():
        g = get_game(name)
        pk = g.policy_packing
        if pk is None:
            continue
        declared.append(name)
        assert Path(pk.policy_file) == Path(g.policy_file), name
        assert not pk.sides or tuple(pk.sides) == tuple(g.sides), name
        slots = pk.check(g.policy_book())
        for r in pk.rows:
            assert sorted(slots[r.name].values()) == list(range(r.width)), (name, r.name)
            for knob, s in slots[r.name].items():   # the slot is the layout constant the kernels read
                assert getattr(r.layout, r.aliases.get(knob, r.prefix + knob.upper())) == s
    assert {"dawn-of-empire", "dreadnought", "mar-rojo"} <= set(declared)


def test_a_policy_with_its_knobs_out_of_order_packs_by_name():
    pk = _packing()
    pol = Policy.from_json({"name": "x", "family": "aim", "knobs": {"shots": 3, "accuracy": 0.25}})
    assert pk.pack({"red": pol, "blue": "steady"}, SIDES).rows["kn"][0].tolist() == [3.0, 0.25]
    with pytest.raises(ValueError, match="lacks knob shots"):
        pk.pack({"red": Policy("y", "aim", (("accuracy", 0.25),)), "blue": "steady"}, SIDES)
    with pytest.raises(ValueError, match="has no knob range"):
        pk.pack({"red": Policy("z", "aim", (("accuracy", 0.2), ("shots", 1), ("range", 2.0))), "blue": "steady"},
                SIDES)
