"""The decision inventory (issue 28): every game's decisions.toml loads, names only knobs of a family
of that side, and reaches ``simlab games`` and ``simlab games --json``."""

from __future__ import annotations

import json

import pytest

from simlab.errors import SpecError
from simlab.games import game_names, get_game
from simlab.games.decisions import Decision, check_decisions, load_decisions

pytestmark = pytest.mark.timeout(300)

def _inventory_games():
    return [n for n in game_names() if get_game(n).decisions_file is not None]


@pytest.mark.parametrize("name", _inventory_games())
def test_every_knob_is_a_knob_of_that_sides_family(name):
    g = get_game(name)
    ds = g.decisions()
    assert ds, f"{name}: empty decision inventory"
    assert check_decisions(g, ds) == []
    for d in ds:
        assert d.section[0].isdigit(), d
        assert bool(d.knobs) != bool(d.gap), d


def test_check_names_an_unknown_knob_and_a_foreign_side():
    g = get_game("dawn-of-empire")
    bad = (Decision("7.2.3", "x", "us", ("no_such_knob",)),
           Decision("5.5 D", "y", "germany", ("aggression",)),
           Decision("10.2", "z", "*", ("disengage_odds",)))
    got = check_decisions(g, bad)
    assert got == ["7.2.3: knob 'no_such_knob' is not a knob of any family of side 'us'",
                   "5.5 D: side 'germany' is not a side of dawn-of-empire (us, spain)"]


@pytest.mark.parametrize("text, message", [
    ('[[decisions]]\nsection = "1"\ndecision = "d"\nside = "us"\nknobs = []\n', "no knobs and no 'gap'"),
    ('[[decisions]]\nsection = "1"\ndecision = "d"\nside = "us"\nknobs = ["a"]\ngap = "g"\n', "knobs and a 'gap'"),
    ('[[decisions]]\nsection = "1"\ndecision = "d"\nside = "us"\nknobs = "a"\n', "'knobs' must be a list"),
    ('[[decisions]]\nsection = "1"\ndecision = "d"\nside = "us"\nknobs = ["a"]\ncolour = 1\n', "unknown field(s) colour"),
    ('[[decisions]]\nsection = ""\ndecision = "d"\nside = "us"\nknobs = ["a"]\n', "'section' must be a non-empty string"),
    ('title = "x"\n', "holds only [[decisions]] entries"),
])
def test_malformed_inventory_is_refused(tmp_path, text, message):
    p = tmp_path / "decisions.toml"
    p.write_text(text)
    with pytest.raises(SpecError, match=".*" + message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        load_decisions(p)


def test_inventory_round_trips_to_json(tmp_path):
    p = tmp_path / "decisions.toml"
    p.write_text('[[decisions]]\nsection = "7.2.3 D"\ndecision = "Anchor in a neutral port"\nside = "*"\n'
                 'knobs = []\ngap = "the engine orders it"\n'
                 '[[decisions]]\nsection = "10.2"\ndecision = "Disengage"\nside = "us"\n'
                 'knobs = ["disengage_odds"]\ndoc = "permille"\n')
    got = [d.to_json() for d in load_decisions(p)]
    assert got == [{"section": "7.2.3 D", "decision": "Anchor in a neutral port", "side": "*", "knobs": [],
                    "doc": "", "gap": "the engine orders it"},
                   {"section": "10.2", "decision": "Disengage", "side": "us", "knobs": ["disengage_odds"],
                    "doc": "permille"}]


def test_games_json_lists_decisions(capsys):
    from simlab.cli import main
    assert main(["games", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    by = {g["name"]: g for g in info}
    for name, g in by.items():
        assert "decisions" in g
        want = [d.to_json() for d in get_game(name).decisions()]
        assert g["decisions"] == want


def test_knob_bounds_effects_counts_the_winners_a_knob_moves(tmp_path, monkeypatch):
    """On synthetic-duel the winner is ``u < p(knobs)`` on each game's stream, so on common random
    numbers the games whose winner flips between red's aim at 0 and at 1 are a binomial draw of
    ``n |p(0) - p(1)|``: the count must lie within 4 standard deviations of it."""
    import math

    from simlab.games.synthetic_duel import duel_payoff
    from simlab.testing.decision_bounds import _summary, knob_bounds_effects
    p = tmp_path / "decisions.toml"
    p.write_text('[[decisions]]\nsection = "1"\ndecision = "aim"\nside = "red"\nknobs = ["aim"]\n'
                 '[[decisions]]\nsection = "2"\ndecision = "how far"\nside = "*"\nknobs = ["range"]\n')
    g = get_game("synthetic-duel")
    monkeypatch.setattr(g, "decisions_file", p, raising=False)
    g.__dict__.pop("_decisions", None)
    try:
        n = 2000
        rows = knob_bounds_effects("synthetic-duel", games=n, seed=7)
    finally:
        g.__dict__.pop("_decisions", None)
    assert [(r["section"], r["side"], r["knob"]) for r in rows] == [
        ("1", "red", "aim"), ("2", "red", "range"), ("2", "blue", "range")]
    blue = g.policy_book().resolve("blue", g.default_policy("blue")).vector()[:2]
    red = g.policy_book().resolve("red", g.default_policy("red")).vector()[:2]
    d = abs(float(duel_payoff((0.0, red[1]), blue)) - float(duel_payoff((1.0, red[1]), blue))) / 2
    sd = math.sqrt(n * d * (1 - d))
    assert abs(rows[0]["changed"] - n * d) <= 4 * sd + 1, (rows[0], n * d)
    d_range = abs(float(duel_payoff((red[0], 0), blue)) - float(duel_payoff((red[0], 10), blue))) / 2
    assert abs(rows[1]["changed"] - n * d_range) <= 4 * math.sqrt(n * d_range * (1 - d_range)) + 1
    assert _summary(rows) == (2, 2)


def test_measure_names_where_a_choice_arises_and_is_checked(tmp_path):
    p = tmp_path / "decisions.toml"
    p.write_text('[[decisions]]\nsection = "5.3.1"\ndecision = "Speed distance"\nside = "republican"\n'
                 'knobs = ["speed_distance"]\n'
                 'measure = { scenario = "mediterranean-campaign", preset = "cautious", opponent = "aggressive",'
                 ' options = { night_combat = true } }\n')
    (d,) = load_decisions(p)
    assert d.measured_under() == {"scenario": "mediterranean-campaign", "preset": "cautious",
                                  "opponent": "aggressive", "options": {"night_combat": True}}
    assert d.to_json()["measure"]["options"] == {"night_combat": True}
    g = get_game("mar-rojo")
    assert check_decisions(g, (d,)) == []
    bad = Decision("5.3.1", "x", "republican", ("speed_distance",),
                   measure=(("opponent", "nobody"), ("options", (("no_option", 1),)), ("preset", "random-legal"),
                            ("scenario", "atlantis")))
    assert check_decisions(g, (bad,)) == [
        "5.3.1: measure.scenario 'atlantis' is not a scenario of mar-rojo",
        "5.3.1: measure.preset 'random-legal' is not a preset whose family holds speed_distance",
        "5.3.1: measure.opponent 'nobody' is not a preset of mar-rojo",
        "5.3.1: measure.options names 'no_option', not an option of mar-rojo"]
    p.write_text('[[decisions]]\nsection = "1"\ndecision = "d"\nside = "us"\nknobs = ["a"]\nmeasure = { map = 1 }\n')
    with pytest.raises(SpecError, match="'measure' must be a table of"):
        load_decisions(p)


def test_decision_bounds_plays_an_entry_where_its_measure_says(monkeypatch):
    from simlab.testing import decision_bounds as db
    g = get_game("synthetic-duel")
    fam = next(f for f in g.policy_book().families.values() if f.knobs)
    knob = fam.knobs[0].name
    preset = next(p.name for p in g.policy_book().presets.values() if p.family == fam.name)
    other = next(p.name for p in g.policy_book().presets.values() if p.family == fam.name and p.name != preset)
    side = g.sides[0]
    entry = Decision("1", "aim", side, (knob,), measure=(("opponent", other), ("preset", preset)))
    monkeypatch.setattr(type(g), "decisions", lambda self: (entry,))
    (row,) = db.knob_bounds_effects("synthetic-duel", games=50)
    assert (row["preset"], row["opponent"], row["scenario"]) == (preset, {g.sides[1]: other}, g.load_scenario(None).name)
    assert row["changed"] is not None
