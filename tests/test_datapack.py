"""Data packs: provenance is mandatory and checked, overrides are validated and accounted for."""

import json
import textwrap

import pytest
from pydantic import BaseModel, ConfigDict, Field

from simlab import data_check, data_show
from simlab.cli import main
from simlab.datapack import PackSchema, TableSchema, apply_override, load_pack, provenance_kind
from simlab.errors import DataPackError


class Row(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attack: int = Field(ge=0)
    kind: str = "x"


SCHEMA = PackSchema(game="toy", tables={"units": TableSchema(Row, open=False)})

HEADER = '[pack]\ngame = "toy"\nname = "toy-core"\nversion = "1.0"\n'


def _pack(tmp_path, body):
    d = tmp_path / "pack"
    d.mkdir(exist_ok=True)
    (d / "pack.toml").write_text(HEADER + textwrap.dedent(body))
    return d


@pytest.mark.parametrize("tag,kind", [("rulebook:8.3.1", "rulebook"), ("rulebook:8.3.1 D", "rulebook"),
                                      ("example:18.2.6", "example"), ("provisional", "provisional"),
                                      ("user:mine.toml", "user"), ("rulebook:10.1-10.7", "rulebook")])
def test_provenance_tags_accepted(tag, kind):
    assert provenance_kind(tag) == kind


@pytest.mark.parametrize("tag", ["rulebook", "rulebook:", "guess", "example:abc", "Provisional", "", "rulebook:8.3.1;"])
def test_bad_provenance_tags_rejected(tag):
    with pytest.raises(DataPackError, match="bad provenance"):
        provenance_kind(tag)


def test_load_counts_hash_and_records(tmp_path):
    d = _pack(tmp_path, """
        [units.A]
        attack = { value = 3, provenance = "rulebook:3.4" }
        [units.B]
        _provenance = "provisional"
        _note = "a guess with a reason"
        attack = 2
        kind = { value = "y", provenance = "example:18.1" }
    """)
    p = load_pack(d, SCHEMA)
    assert p.counts() == {"rulebook": 1, "example": 1, "provisional": 1, "user": 0}
    recs = p.records()
    assert [(r["key"], r["field"], r["value"], r["provenance"]) for r in recs] == [
        ("A", "attack", 3, "rulebook:3.4"), ("B", "attack", 2, "provisional"), ("B", "kind", "y", "example:18.1")]
    assert recs[1]["note"] == "a guess with a reason"
    v = p.view()
    assert v.value("units", "B", "attack") == 2
    assert v.provisional_used() == ["units.B.attack"]
    assert v.summary()["counts"] == {"rulebook": 0, "example": 0, "provisional": 1, "user": 0}
    assert len(p.hash) == 16


@pytest.mark.parametrize("body,msg", [
    ("[units.A]\nattack = 3\n", "has no provenance"),
    ('[units.A]\nattack = { value = 3, provenance = "provisional" }\n', "provisional but has no note"),
    ('[units.A]\nattack = { value = -3, provenance = "rulebook:1" }\n', "greater than or equal to 0"),
    ('[units.A]\nattack = { value = 3, provenance = "rulebook:1" }\nspeed = { value = 3, provenance = "rulebook:1" }\n', "Extra inputs"),
    ('[units.A]\nattack = { value = 3, provenance = "guess" }\n', "bad provenance"),
    ('[units.A]\nattack = { value = 3, provenance = "user:x" }\n', "override packs"),
    ('[ships.A]\nattack = { value = 3, provenance = "rulebook:1" }\n', "unknown table 'ships'"),
    ('[units.A]\nattack = { val = 3, provenance = "rulebook:1" }\n', "must be a value"),
])
def test_malformed_base_packs(tmp_path, body, msg):
    with pytest.raises(DataPackError, match=msg):
        load_pack(_pack(tmp_path, body), SCHEMA)


def test_override_changes_hash_and_is_listed(tmp_path):
    base = load_pack(_pack(tmp_path, '[units.A]\nattack = { value = 3, provenance = "rulebook:3.4" }\n'), SCHEMA)
    o = tmp_path / "mine.toml"
    o.write_text('[pack]\ngame = "toy"\n[units.A]\nattack = 5\n')
    p, changes = apply_override(base, o, SCHEMA)
    assert changes == [{"table": "units", "key": "A", "field": "attack", "old": 3, "new": 5,
                        "old_provenance": "rulebook:3.4"}]
    assert p.tables["units"]["A"]["attack"].provenance == "user:mine.toml"
    assert p.hash != base.hash and p.version == "1.0+user"
    assert base.tables["units"]["A"]["attack"].value == 3  # base untouched


def test_an_override_cannot_claim_the_rulebook_and_may_name_its_section(tmp_path):
    base = load_pack(_pack(tmp_path, '[units.A]\nattack = { value = 3, provenance = "rulebook:3.4" }\n'), SCHEMA)
    o = tmp_path / "mine.toml"
    for claim in ('"rulebook:99.99 Z"', '"example:3.4"', '"provisional"', '"user:someone-else.toml"'):
        o.write_text(f'[pack]\ngame = "toy"\n[units.A]\nattack = {{ value = 4, provenance = {claim}, note = "x" }}\n')
        with pytest.raises(DataPackError, match="an override pack's values are user:mine.toml"):
            apply_override(base, o, SCHEMA)
        o.write_text(f'[pack]\ngame = "toy"\n[units.A]\n_provenance = {claim}\n_note = "x"\nattack = 4\n')
        with pytest.raises(DataPackError, match="an override pack's values are user:mine.toml"):
            apply_override(base, o, SCHEMA)
    o.write_text('[pack]\ngame = "toy"\n[units.A]\nattack = { value = 4, source = "3.4" }\n')
    p, _ = apply_override(base, o, SCHEMA)
    v = p.tables["units"]["A"]["attack"]
    assert v.provenance == "user:mine.toml (3.4)" and v.kind == "user"
    assert p.counts() == {"rulebook": 0, "example": 0, "provisional": 0, "user": 1}
    o.write_text('[pack]\ngame = "toy"\n[units.A]\n_source = "18.1.6 A"\nattack = 4\n')
    assert apply_override(base, o, SCHEMA)[0].tables["units"]["A"]["attack"].provenance == "user:mine.toml (18.1.6 A)"
    o.write_text('[pack]\ngame = "toy"\n[units.A]\nattack = { value = 4, source = "the box" }\n')
    with pytest.raises(DataPackError, match="source 'the box' is not a rule section"):
        apply_override(base, o, SCHEMA)
    # the tag it would get anyway is accepted
    o.write_text('[pack]\ngame = "toy"\n[units.A]\nattack = { value = 4, provenance = "user:mine.toml" }\n')
    assert apply_override(base, o, SCHEMA)[0].tables["units"]["A"]["attack"].provenance == "user:mine.toml"


@pytest.mark.parametrize("body,msg", [
    ('[pack]\ngame = "other"\n', "needs \\[pack\\] game"),
    ('[pack]\ngame = "toy"\n[units.Z]\nattack = 1\n', "unknown row units.Z"),
    ('[pack]\ngame = "toy"\n[units.A]\nspeed = 1\n', "unknown field 'speed'"),
    ('[pack]\ngame = "toy"\n[units.A]\nattack = -1\n', "greater than or equal to 0"),
    ('[pack]\ngame = "toy"\n[units.A\n', "TOML syntax error"),
])
def test_bad_overrides(tmp_path, body, msg):
    base = load_pack(_pack(tmp_path, '[units.A]\nattack = { value = 3, provenance = "rulebook:3.4" }\n'), SCHEMA)
    o = tmp_path / "o.toml"
    o.write_text(body)
    with pytest.raises(DataPackError, match=msg):
        apply_override(base, o, SCHEMA)


def test_doe_pack_show_and_check(tmp_path, capsys):
    d = data_show("doe-battle")
    assert d["game"] == "dawn-of-empire" and d["counts"]["provisional"] > 0
    rec = {(r["table"], r["key"], r["field"]): r for r in d["records"]}
    assert rec[("units", "Teresa", "attack")]["value"] == 3
    assert rec[("units", "Teresa", "attack")]["provenance"] == "example:18.2.6"
    assert all(r["note"] for r in d["records"] if r["provenance"] == "provisional")
    o = tmp_path / "mine.toml"
    o.write_text('[pack]\ngame = "dawn-of-empire"\n[units.Brooklyn]\nattack = 4\n')
    res = data_check(o)
    assert res["changes"][0]["old"] == 3 and res["changes"][0]["new"] == 4
    assert main(["data", "show", "doe-battle", "--json", "--data", str(o)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["counts"]["user"] == 1 and shown["hash"] == res["hash"]


def test_a_misspelt_unit_in_an_override_is_named_as_a_new_row_with_a_suggestion(tmp_path):
    o = tmp_path / "typo.toml"
    o.write_text('[pack]\ngame = "dawn-of-empire"\n[units.Brooklin]\nattack = 4\n')
    with pytest.raises(DataPackError, match=r"units\.Brooklin is not in the pack, and as a new row it lacks side.*"
                                            r"did you mean 'Brooklyn'\?"):
        data_check(o)


def test_override_flows_into_a_sweep_manifest(tmp_path):
    import simlab
    o = tmp_path / "mine.toml"
    o.write_text('[pack]\ngame = "dawn-of-empire"\n[units.Brooklyn]\nattack = 4\n')
    res = simlab.sweep(game="doe-battle", games=20, out=tmp_path / "s", data=o, workers=1, progress=False)
    d = res.manifest["data"]
    assert d["counts"]["user"] == 1 and d["version"].endswith("+user")
    assert "units.Brooklyn.attack" not in d["provisional_used"]
