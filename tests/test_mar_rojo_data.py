"""Mar Rojo data pack and scenarios: provenance on every value, the known fragments tagged as
rulebook/example, costs that fit the Rule 9 table, scenario files and their errors."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.cli import main
from simlab.errors import DataPackError, ScenarioError
from simlab.games import get_game
from simlab.games.mar_rojo.enums import ACTION_NAMES, LENGTH_NAMES, SIDE_NAMES
from simlab.games.mar_rojo.runtime import build_limits, build_pool_mask, feasible
from simlab.games.mar_rojo.scenario import parse_scenario

GAME = get_game("mar-rojo")


@pytest.fixture(scope="module")
def pack():
    return GAME.load_data()


def test_every_value_has_provenance_and_provisional_ones_a_note(pack):
    recs = pack.records()
    assert len(recs) > 1000
    for r in recs:
        assert r["provenance"].split(":")[0] in ("rulebook", "example", "provisional"), r
        if r["provenance"] == "provisional":
            assert r["note"].strip(), r


@pytest.mark.parametrize("card,field,value,prov", [
    ("Libertad", "hull", 6, "example:5.3.1"),
    ("Libertad", "main", 5, "example:5.3.1"),
    ("Velasco", "hull", 2, "example:5.5"),
    ("Teruel", "armour", "L", "example:5.5"),
    ("Lepanto", "torpedoes", 2, "example:5.5"),
    ("Ciscar", "secondary", 4, "example:5.5"),
    ("Baleares", "date", 1930, "rulebook:3.1"),
    ("Tupolev SB-2", "date", 1936, "rulebook:3.1"),
    ("Canarias", "type", "capital", "rulebook:8.1"),
])
def test_known_fragments_are_tagged(pack, card, field, value, prov):
    v = pack.tables["fleet"][card][field]
    assert v.value == value and v.provenance == prov


def test_ciscar_faster_than_teruel_and_destroyers_card(pack):
    f = pack.tables["fleet"]
    assert f["Ciscar"]["movement"].value > f["Teruel"]["movement"].value
    d = pack.tables["actions"]["Destroyers"]
    assert (d["red"].value, d["blue"].value) == (2, 4)
    assert d["red"].provenance == "example:5"
    assert set(pack.tables["actions"]) == set(ACTION_NAMES)
    assert sum(r["count"].value for r in pack.tables["actions"].values()) == 52


def test_every_scenario_card_has_values(pack):
    for name in ("cabo-de-palos", "strait-of-gibraltar", "mediterranean-campaign"):
        sc = GAME.load_scenario(name, pack)
        setup = sc.payload
        assert setup.pool.shape[0] == len(setup.pool_names)
        kinds = {t.split(":")[0] for t in (pack.tables[a][b][c].provenance for a, b, c in sc.used)}
        assert {"rulebook", "example", "provisional"} <= kinds


@pytest.mark.parametrize("length", LENGTH_NAMES)
def test_costs_fit_the_points_table(pack, length):
    """A legal squadron exists for each side at each length, from its own fleet (Rule 9)."""
    setup = GAME.load_scenario("points-built", pack).payload
    lim = build_limits(setup.rt, LENGTH_NAMES.index(length), (0, 0))
    avail = build_pool_mask(setup, False, False, 0)
    for s in range(2):
        assert feasible(setup.pool, avail[s], lim[s]), (SIDE_NAMES[s], length)
    # and the single dearest capital ship leaves room for the rest of a short squadron
    assert setup.pool[:, 14].max() <= lim[0, 2] - 4


def test_feasibility_helper_must_fail_on_a_tiny_budget(pack):
    setup = GAME.load_scenario("points-built", pack).payload
    lim = build_limits(setup.rt, 0, (3, 3))
    avail = build_pool_mask(setup, False, False, 0)
    assert not feasible(setup.pool, avail[0], lim[0])
    assert not feasible(setup.pool, np.zeros_like(avail[0]), build_limits(setup.rt, 0, (0, 0))[0])


@pytest.mark.parametrize("doc,fragment", [
    ({"length": "short", "first_player": "republican", "victory": "points"}, "missing table [nationalist]"),
    ({"length": "forever", "first_player": "republican", "victory": "points"}, "length"),
    ({"length": "short", "first_player": "republican", "victory": "points", "colour": 1}, "unknown key"),
    ({"length": "short", "first_player": "republican", "victory": "points", "nationalist": {"cards": ["Nope"]},
      "republican": {"cards": ["Lepanto"]}}, "not in the data pack"),
    ({"length": "short", "first_player": "republican", "victory": "points", "nationalist": {"cards": ["Ebro", "Olite"]},
      "republican": {"cards": ["Lepanto"]}}, "long row"),
    ({"length": "short", "first_player": "republican", "victory": "points", "nationalist": {"cards": ["Teruel"]},
      "republican": {"cards": ["Teruel"]}}, "listed twice"),
    ({"length": "short", "first_player": "republican", "victory": "points", "special": ["navarra-arrives"],
      "nationalist": {"cards": ["Teruel"]}, "republican": {"cards": ["Lepanto"]}}, "reinforcement"),
    ({"length": "short", "first_player": "republican", "victory": "points", "build": True,
      "nationalist": {"cards": ["Teruel"]}}, "no side tables"),
])
def test_malformed_scenarios_raise_one_line(pack, doc, fragment):
    with pytest.raises(ScenarioError) as e:
        parse_scenario(doc, pack.view(), "my.toml")
    msg = str(e.value)
    assert fragment in msg and "\n" not in msg


def test_scenario_file_and_override_pack_through_the_cli(tmp_path, capsys):
    sc = tmp_path / "duel.toml"
    sc.write_text('title = "duel"\nlength = "short"\nfirst_player = "escorts"\nvictory = "points"\n'
                  '[nationalist]\ncards = ["Canarias", "Teruel", "Huesca", "Ebro"]\n'
                  '[republican]\ncards = ["Libertad", "Lepanto", "Gravina", "Barcelona"]\n')
    over = tmp_path / "mine.toml"
    over.write_text('[pack]\ngame = "mar-rojo"\n[fleet.Canarias]\nhull = 9\n')
    out = tmp_path / "out"
    rc = main(["sweep", "--game", "mar-rojo", "--scenario", str(sc), "--games", "50", "--workers", "1",
               "--data", str(over), "--out", str(out), "--no-progress", "--json"])
    assert rc == 0
    from simlab.sweeps.runner import load_manifest
    assert load_manifest(out)["data"]["counts"]["user"] == 1
    import simlab
    df = simlab.load(out)
    assert len(df) == 50 and set(df.winner.unique()) <= {"nationalist", "republican", "draw"}


def test_bad_override_pack_is_one_line(tmp_path, capsys):
    over = tmp_path / "bad.toml"
    over.write_text('[pack]\ngame = "mar-rojo"\n[fleet.Canarias]\narmour = "Q"\n')
    rc = main(["sweep", "--game", "mar-rojo", "--games", "5", "--data", str(over), "--out", str(tmp_path / "o")])
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "armour" in err
    assert not (tmp_path / "o").exists()
    with pytest.raises(DataPackError):
        GAME.load_data(over)


def test_card_events_table(tmp_path):
    sc = GAME.load_scenario("cabo-de-palos")
    opts = GAME.resolve_options({"card_events": True})
    from simlab.rng import game_seeds
    b = GAME.play_batch(sc, opts, {"nationalist": "aggressive", "republican": "aggressive"}, game_seeds(1, 1, 0, 20))
    ev = b.events["cards"]
    assert len(ev["game"]) == 20 * 15
    assert set(np.unique(ev["side"])) == {0, 1}
    sunk = ev["status"] == 2
    per_game = np.bincount(ev["game"][sunk], minlength=20)
    total = sum(b.games[f"sunk_{s}_{t}"].astype(int) for s in SIDE_NAMES
                for t in ("capital", "destroyer", "auxiliary", "submarine", "merchant", "aircraft"))
    assert np.array_equal(per_game, total)


@pytest.mark.parametrize("body,needle", [
    ("[constants.hand_limit]\nvalue = 9\n", "hand_limit 9 must be 1..8"),
    ("[constants.hand_limit]\nvalue = 0\n", "hand_limit 0 must be 1..8"),
    ("[constants.opening_hand]\nvalue = 6\n", "opening_hand 6 exceeds hand_limit 5"),
])
def test_hand_sizes_the_kernel_cannot_hold_are_refused(tmp_path, body, needle):
    """A hand limit beyond the kernel's hand array would write past it (found by a breaker
    session: hand_limit 12 gave plausible-looking but corrupt results)."""
    over = tmp_path / "hand.toml"
    over.write_text('[pack]\ngame = "mar-rojo"\n' + body)
    with pytest.raises(DataPackError, match=needle):
        GAME.load_data(over)
