"""Each output record declared once (simlab.games.records, issue 27): the slot check, the
conversion to columns on a hand-built row, the schema from the same declaration, and every
registered game's record checked against its layout."""

from __future__ import annotations

import types
from dataclasses import replace

import numpy as np
import pytest

from simlab.games import game_names, get_game
from simlab.games.records import Field, Record
from simlab.games.schema import record_columns

SIDES = ("red", "blue")


def _layout(**slots) -> types.ModuleType:
    m = types.ModuleType("fake_layout")
    for k, v in slots.items():
        setattr(m, k, v)
    return m


LAY = _layout(O_WINNER=0, O_SCORE0=1, O_LOST0=3, O_END=7, O_LUCK0=8, O_FLAG=10)
REC = Record(LAY, 11, (
    Field("winner", "int8", slot="O_WINNER", schema=False),
    Field("score_{side}", "int16", "VP", "points", "O_SCORE0"),
    Field("lost", "int16", "ships", "both sides' losses", "O_LOST0", side_stride=2, sum_sides=True),
    Field("lost_{side}_{kind}", "int8", "ships", "losses by kind", "O_LOST0", side_stride=2,
          values={"kind": ("bb", "dd")}),
    Field("end_reason", "string", "label", "why it ended", "O_END", labels=("time", "sunk")),
    Field("luck_{side}", "float64", "hits", "mean hits", "O_LUCK0", divide=36.0),
    Field("flag", "string", "label", "only when asked", "O_FLAG", labels=("no", "yes"), when="option x = true"),
), "toy", "toy.py")


def test_the_columns_of_a_hand_built_row():
    out = np.array([[1, 5, 7, 1, 2, 3, 4, 1, 18, 72, 1]], dtype=np.int32)
    REC.check(2)
    cols, cats = REC.columns(out, SIDES)
    assert list(cols) == ["winner", "score_red", "score_blue", "lost", "lost_red_bb", "lost_red_dd", "lost_blue_bb",
                          "lost_blue_dd", "end_reason", "luck_red", "luck_blue"]
    assert cols["winner"].dtype == np.int8 and cols["winner"].tolist() == [1]
    assert cols["score_blue"].dtype == np.int16 and cols["score_blue"].tolist() == [7]
    assert cols["lost"].tolist() == [1 + 3] and cols["lost"].dtype == np.int16   # slot 3 + slot 5
    assert (cols["lost_red_dd"].tolist(), cols["lost_blue_bb"].tolist(), cols["lost_blue_dd"].tolist()) == ([2], [3], [4])
    assert cols["end_reason"].dtype == np.int8 and cats == {"end_reason": ("time", "sunk")}
    assert cols["luck_red"].tolist() == [0.5] and cols["luck_blue"].tolist() == [2.0]
    cols, cats = REC.columns(out, SIDES, when=("flag",))
    assert cols["flag"].tolist() == [1] and cats["flag"] == ("no", "yes")


def test_the_schema_comes_from_the_same_declaration():
    cols = record_columns(REC)
    assert [c.name for c in cols] == ["score_{side}", "lost", "lost_{side}_{kind}", "end_reason", "luck_{side}", "flag"]
    assert cols[2].values == {"kind": ("bb", "dd")} and cols[5].when == "option x = true" and cols[0].source == "toy"
    assert cols[3].type == ("string",) and cols[4].unit == "hits"


@pytest.mark.parametrize("fields,width,needle", [
    ((Field("a", "int8", slot="O_A"),), 1, "no int slot constant 'O_A'"),
    ((Field("a_{side}", "int8", slot="O_WINNER"), Field("b", "int8", slot="O_SCORE0")), 2, "share slot 1"),
    ((Field("a", "int8", slot="O_WINNER"),), 2, "slot 1 of the record is no field's"),
    ((Field("a_{side}", "int8", slot="O_WINNER"),), 1, "slot 1 outside"),
])
def test_a_declaration_out_of_step_with_the_slots_is_refused(fields, width, needle):
    with pytest.raises(ValueError, match=needle):
        Record(LAY, width, fields, "toy").check(2)


def test_offset_ratio_derived_and_scenario_scope_on_a_hand_built_row():
    lay = _layout(O_BY=0, O_SHOTS0=1, O_WASTED0=3)
    rec = Record(lay, 5, (
        Field("ended_by", "string", "side", "who", "O_BY", offset=1, labels="by"),
        Field("shots_{side}", "int32", "shots", "fired", "O_SHOTS0", scenarios=("x",)),
        Field("wasted_{side}", "float32", "fraction", "share", "O_WASTED0", ratio_of="O_SHOTS0"),
        Field("period", "string", "label", "set-up", derived=True, labels=("p0", "p1")),
        Field("count_{k}", "int16", "rows", "per k", derived=True, values={"k": ("a", "b")}, scenarios=("y",)),
    ), "toy")
    rec.check(2)
    out = np.array([[-1, 4, 0, 1, 5], [1, 0, 3, 2, 3]], dtype=np.int64)
    derived = {"period": np.array([1, 0]), "count_a": np.array([7, 8]), "count_b": np.array([0, 2])}
    cols, cats = rec.columns(out, SIDES, labels={"by": ("none", *SIDES)}, scenario="y", derived=derived)
    assert list(cols) == ["ended_by", "wasted_red", "wasted_blue", "period", "count_a", "count_b"]  # shots_*: scenario x
    assert cols["ended_by"].tolist() == [0, 2] and cols["ended_by"].dtype == np.int8   # -1 none, 1 blue
    assert cats == {"ended_by": ("none", "red", "blue"), "period": ("p0", "p1")}
    assert cols["wasted_red"].dtype == np.float32
    assert cols["wasted_red"].tolist() == [0.25, 0.0]                  # 1/4 shots; 2 wasted of 0 shots: 0
    assert cols["wasted_blue"].tolist() == [0.0, 1.0]                  # 5 of 0 shots: 0; 3 of 3
    assert cols["period"].dtype == np.int8 and cols["count_b"].dtype == np.int16 and cols["count_a"].tolist() == [7, 8]
    cols, _ = rec.columns(out, SIDES, labels={"by": ("none", *SIDES)}, scenario="x",
                          derived={"period": np.array([0, 0])})
    assert cols["shots_blue"].tolist() == [0, 3] and "count_a" not in cols
    with pytest.raises(ValueError, match="derived column period not given"):
        rec.columns(out, SIDES, labels={"by": ("none", *SIDES)}, scenario="x")
    with pytest.raises(ValueError, match="no field written here declares: stray"):
        rec.columns(out, SIDES, labels={"by": ("none", *SIDES)}, scenario="x",
                    derived={"period": np.array([0, 0]), "stray": np.array([1, 1])})
    with pytest.raises(ValueError, match="no int slot constant 'O_NONE'"):
        Record(lay, 5, rec.fields[:2] + (Field("w", "float32", slot="O_WASTED0", ratio_of="O_NONE"),), "toy").check(1)
    with pytest.raises(ValueError, match="field period: derived, yet read from slot 'O_BY'"):
        Record(lay, 5, (replace(rec.fields[3], slot="O_BY"),), "toy").check(2)


def test_two_records_of_one_table_merge_into_one_schema():
    shared = Field("luck_{side}", "float64", "hits", "mean hits", "O_LUCK0", scenarios=None)
    level = Field("level", "string", "label", "the level", "O_END", labels=("a",), scenarios=("b1", "b2"))
    battle = Record(LAY, 11, (level, Field("score_{side}", "int16", "VP", "points", "O_SCORE0"),
                              Field("v", "int16", "count", "checks", "O_FLAG"), shared), "toy")
    campaign = Record(LAY, 11, (replace(level, scenarios=("c",)),
                                Field("v", "int32", "count", "checks", "O_FLAG"),
                                Field("treasury", "int32", "VP", "money", "O_WINNER", scenarios=("c",)), shared),
                      "toy")
    cols = record_columns((battle, campaign))
    assert [c.name for c in cols] == ["level", "score_{side}", "v", "treasury", "luck_{side}"]
    assert cols[0].scenarios == ("b1", "b2", "c") and cols[2].type == ("int16", "int32")
    assert cols[2].scenarios is None and cols[4].scenarios is None and cols[3].scenarios == ("c",)
    # declared differently (another meaning): two columns
    other = Record(LAY, 11, (Field("v", "int32", "count", "another meaning", "O_FLAG"),), "toy")
    assert [c.type for c in record_columns((battle, other)) if c.name == "v"] == [("int16",), ("int32",)]


def test_every_game_that_declares_a_record_passes_its_check():
    declared = []
    for name in game_names():
        g = get_game(name)
        records = tuple(g.output_records) or ((g.output_record,) if g.output_record is not None else ())
        if not records:
            continue
        declared.append(name)
        sides = g.sides or ("a", "b")
        for r in records + tuple(g.event_records.values()):
            r.check(len(sides))
    assert {"mar-rojo", "dreadnought", "dawn-of-empire", "doe-battle"} <= set(declared)


def test_dawn_of_empire_records_derive_winner_codes_and_luck_from_their_slots():
    from simlab.games.doe import campaign_layout as lay
    from simlab.games.doe.campaign import battles_columns, games_columns
    from simlab.games.doe.luck import DIE_MEAN, DIE_VAR

    G = np.zeros((2, lay.G_NF), dtype=np.int64)
    G[:, lay.G_VP_NET] = (6, -5)
    G[1, lay.G_SUNK + lay.N_TYPES + 4] = 3            # Spain's GBs sunk
    G[0, lay.G_VPK + lay.VK_NF + lay.VK_BLOCKADE] = 2  # Spain's blockade VPs
    G[0, lay.G_VPK + lay.VK_OTHER] = 9                 # "other" VPs: internal, no column
    G[:, lay.G_LUCK + 1] = (12, 24)                    # Spain's gunfire dice
    G[:, lay.G_LUCK + 3] = (7, 15)                     # the damage they dealt
    cols = games_columns(G, 6)
    assert cols["winner"].tolist() == [0, -1] and cols["vp_net"].dtype == np.int32
    assert cols["sunk_spain_gb"].tolist() == [0, 3] and cols["sunk_spain_gb"].dtype == np.int16
    assert cols["vp_blockade_spain"].tolist() == [2, 0] and not any("other" in c for c in cols)
    assert cols["luck_dice_spain"].tolist() == [12, 24] and cols["luck_dealt_spain"].tolist() == [7.0, 15.0]
    assert cols["luck_mean_spain"].tolist() == [12 * DIE_MEAN, 24 * DIE_MEAN] == [7.0, 14.0]
    assert cols["luck_var_spain"].tolist() == [12 * DIE_VAR, 24 * DIE_VAR] and cols["luck_mean_us"].tolist() == [0, 0]
    bev = np.zeros((2, 1 + lay.BE_NF), dtype=np.int64)
    bev[:, 0] = (0, 1)
    bev[:, 1 + lay.BE_WINNER] = (-1, 1)                # no winner, Spain
    bev[:, 1 + lay.BE_AREA] = (2, 0)
    ev, cats = battles_columns(bev, ("a0", "a1", "a2"))
    assert ev["winner"].tolist() == [2, 1] and cats["winner"] == ("us", "spain", "none")
    assert ev["area"].dtype == np.int16 and cats["area"] == ("a0", "a1", "a2") and ev["game"].tolist() == [0, 1]


def test_doe_battle_rows_total_each_sides_units():
    from types import SimpleNamespace

    from simlab.games.doe import battle_setup as bs
    from simlab.games.doe.enums import LEADER_ACTIVE, LEADER_KILLED

    # units 0-1 side 0 (a BB and a GB), units 2-4 side 1 (CA, CU, MO); side 1's leader has 3 stars
    setup = SimpleNamespace(unit_side=np.array([0, 0, 1, 1, 1], np.int8), type=np.array([0, 4, 1, 3, 5], np.int8),
                            damage=np.array([1, 0, 0, 2, 0]), stars=(2, 3))
    raw = {"winner": np.array([0], np.int8), "rounds": np.array([4], np.int32), "reason": np.array([0], np.int8),
           "status": np.array([[2, 3, 1, 1, 0]], np.int8), "damage": np.array([[3, 1, 5, 4, 1]], np.int16),
           "leader": np.array([[LEADER_ACTIVE, LEADER_KILLED]], np.int8), "luck": np.array([[24, 6, 13, 2]], np.int32)}
    cols, cats = bs.BATTLE_RECORD.columns(bs.battle_rows(setup, raw), ("us", "spain"))
    # 12.1.2: side 0 sank the CA (2 half-VPs) and the CU (1), and killed the 3-star leader: 1.5 + 3
    assert cols["score_us"].dtype == np.float32 and cols["score_us"].tolist() == [4.5] and cols["score_spain"].tolist() == [0.0]
    assert (cols["sunk_spain"].tolist(), cols["disabled_us"].tolist(), cols["escaped_us"].tolist()) == ([2], [1], [1])
    assert cols["damage_us"].tolist() == [2 + 1] and cols["damage_spain"].tolist() == [5 + 2 + 1]
    assert cols["leader_spain"].tolist() == [LEADER_KILLED] and cats["leader_spain"][LEADER_KILLED] == "killed"
    assert cols["luck_dice_us"].tolist() == [24] and cols["luck_dealt_spain"].tolist() == [2.0]
    assert cols["luck_mean_us"].tolist() == [14.0] and cols["turns"].dtype == np.int32
