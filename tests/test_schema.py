"""Every games table states its schema: each game declares its columns (type, unit, meaning) in
the file its Game.columns_file names (in its own folder), a game may not write a column its file does not describe nor
describe one it never writes, the manifest states the schema of what a sweep wrote, `simlab schema
GAME` prints it, and the README's column tables are generated from it."""

import json
from pathlib import Path

import numpy as np
import pytest

from simlab.cli import main
from simlab.games import game_names, game_target, get_game
from simlab.games.schema import FRAMEWORK, game_columns, game_events, match, readme_blocks, render_block
from simlab.rng import game_seeds

README = Path(__file__).resolve().parents[1] / "README.md"


def _arrow(dtype: np.dtype, category: bool) -> str:
    return "string" if category else ("bool" if dtype == np.bool_ else str(dtype))


#: cases beyond the soak cases that switch on a table
EXTRA = {"dreadnought": [("dogger-bank", {"shots": True})]}


def _cases(g):
    """Each scenario with the default options, then the game's soak cases (optional rules on)."""
    return [(s, {}) for s in g.scenarios] + list(g.soak_cases()) + EXTRA.get(g.name, [])


def _check(declared, cols: dict, categories, sides, where: str, scenario: str, prefix: str = "") -> set[str]:
    """Each written column matches a declaration with its Arrow type; each unconditional
    declaration for the scenario is written. Returns the declarations matched."""
    seen = set()
    for col, v in cols.items():
        c = match(declared, col, sides, scenario=scenario)
        assert c is not None, f"{where}: column {col} is not described in its column file"
        ty = _arrow(np.asarray(v).dtype, f"{prefix}{col}" in categories)
        assert ty in c.type, f"{where}: {col} is written as {ty}, described as {' or '.join(c.type)}"
        seen.add(c.name)
    for c in declared:
        if c.applies(scenario) and not c.when:
            assert any(c.pattern(sides).match(k) for k in cols), \
                f"{where}: the column file describes {c.shown}, which the game does not write"
    return seen


#: the games simlab ships (a plug-in another test module registers at collection time has no column file)
SHIPPED = [n for n in game_names() if game_target(n).startswith("simlab.")]


@pytest.mark.parametrize("name", SHIPPED)
def test_a_game_writes_exactly_the_columns_its_schema_describes(name):
    g = get_game(name)
    declared = game_columns(g)
    assert declared, f"{name} has no column file"
    names = {c.name for c in declared}
    assert "turns" in names and "score_{side}" in names, "every game states the unit of turns and scores"
    events = game_events(g)
    seen: set[str] = set()
    seen_ev: dict[str, set[str]] = {t: set() for t in events}
    for scen, opts in _cases(g):
        sc = g.load_scenario(scen, g.load_data())
        b = g.play_batch(sc, g.resolve_options(opts), g.resolve_policies(sc.sides, {}, {}), game_seeds(3, 7, 0, 2))
        seen |= _check(declared, {k: v for k, v in b.games.items() if k != "winner"}, b.categories, sc.sides,
                       f"{name}/{scen}", sc.name)
        for t, ev in b.events.items():
            assert t in events, f"{name}/{scen}: events table {t} is not described in its column file"
            seen_ev[t] |= _check(events[t], {k: v for k, v in ev.items() if k != "game"}, b.categories, sc.sides,
                                 f"{name}/{scen} events {t}", sc.name, prefix=f"{t}.")
        for t, cols in events.items():  # a table declared for this scenario without a condition is written
            if t not in b.events and any(c.applies(sc.name) and not c.when for c in cols):
                raise AssertionError(f"{name}/{scen}: the column file describes events table {t}, not written")
    assert names <= seen, f"{name}: described but never written: {sorted(names - seen)}"
    for t, cols in events.items():
        missing = sorted({c.name for c in cols} - seen_ev[t])
        assert not missing, f"{name}: events table {t}: described but never written: {missing}"


def test_a_column_no_declaration_matches_is_named_in_the_manifest_schema():
    from simlab.games.schema import describe_table
    g = get_game("doe-battle")
    rows = describe_table(g, [("sunk_us", "int16"), ("knob_us_odds", "float64"), ("max_rounds", "int64"),
                              ("sunk_martians", "int16")], ["us", "spain"], ["max_rounds"])
    assert [r["unit"] for r in rows] == ["units", "knob", "option", "?"]
    assert rows[3]["meaning"] == "not described by doe-battle's column schema"


def test_the_manifest_states_the_schema_of_the_columns_written(tmp_path):
    out = tmp_path / "s"
    assert main(["sweep", "--game", "doe-battle", "--games", "20", "--grid", "max_rounds=5,6",
                 "--grid", "speed_disengage=never,when-able", "--no-progress", "--json", "--out", str(out)]) == 0
    man = json.loads((out / "manifest.json").read_text())
    schema = man["schema"]["games"]
    import pyarrow.parquet as pq
    written = pq.read_schema(next((out / "games" / "cell-0").glob("*.parquet")))
    assert [r["column"] for r in schema] == written.names
    by = {r["column"]: r for r in schema}
    assert all(r["unit"] != "?" for r in schema), [r for r in schema if r["unit"] == "?"]
    assert (by["score_us"]["type"], by["score_us"]["unit"]) == ("float32", "VP")
    assert by["score_us"]["meaning"].startswith("loss VPs that side earned (Rule 12.1.2")
    assert by["damage_spain"]["type"] == "int32" and by["damage_spain"]["unit"] == "damage points"
    assert by["max_rounds"]["type"] == "int64" and by["speed_disengage"]["type"] == "string"
    assert by["winner"]["type"] == "string" and by["seed"]["type"] == "uint64" and by["cell"]["type"] == "int32"
    assert "events" not in man["schema"]  # doe-battle writes none


def test_the_manifest_states_the_schema_of_each_events_table(tmp_path):
    out = tmp_path / "s"
    assert main(["sweep", "--game", "dawn-of-empire", "--games", "3", "--no-progress", "--json",
                 "--out", str(out)]) == 0
    man = json.loads((out / "manifest.json").read_text())
    import pyarrow.parquet as pq
    written = pq.read_schema(next((out / "events" / "battles" / "cell-0").glob("*.parquet")))
    ev = man["schema"]["events"]["battles"]
    assert [r["column"] for r in ev] == written.names and all(r["unit"] != "?" for r in ev)
    by = {r["column"]: r for r in ev}
    assert (by["area"]["type"], by["rounds"]["unit"], by["game_index"]["type"]) == ("string", "rounds", "int64")


def test_simlab_schema_prints_the_columns_and_refuses_an_unknown_game(capsys):
    assert main(["schema", "dawn-of-empire", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    cols = {r["column"]: r for r in res["columns"]}
    assert res["sides"] == ["us", "spain"]
    assert cols["vp_<kind>_<side>"]["values"] == {"kind": ["area", "losses", "leaders", "port", "blockade"]}
    assert cols["vp_net"]["unit"] == "VP" and cols["experiment"]["source"] == "framework"
    assert [r["column"] for r in res["columns"][:6]] == [c.name for c in FRAMEWORK[:6]]
    assert main(["schema", "mar-rojo"]) == 0
    assert "score_<side>" in capsys.readouterr().out
    assert main(["schema", "no-such-game"]) == 2
    err = capsys.readouterr().err
    assert "unknown game 'no-such-game'" in err and err.count("\n") == 1


def test_the_readme_column_tables_are_generated_from_the_schemas():
    text = README.read_text()
    for name in ("framework", "doe-battle", "dawn-of-empire", "dreadnought", "mar-rojo"):
        assert f"<!-- simlab schema {name}: begin" in text, f"README has no column table for {name}"
    assert readme_blocks(text, render_block) == text, "README column tables are stale: run `make readme-schema`"
