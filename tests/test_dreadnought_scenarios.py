"""The seven historical scenarios (Rules 10.1-10.7) as compiled, and bad scenario files."""

import textwrap

import numpy as np
import pytest

from simlab import cli
from simlab.errors import ScenarioError
from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.enums import CAPITAL, FACING_NAMES, SCREEN, VC_NAMES
from simlab.games.dreadnought.geometry import cube_to_offset

GAME = get_game("dreadnought")

# units per side as printed (capital ships, screen units)
PRINTED = {
    "dogger-bank": (("british", 5, 7), ("german", 4, 4)),
    "denmark-strait": (("british", 2, 1), ("german", 1, 1)),
    "north-cape": (("british", 1, 4), ("german", 1, 0)),
    "singora": (("british", 2, 1), ("japanese", 2, 3)),
    "surigao-strait": (("us", 6, 7), ("japanese", 2, 5)),
    "guam": (("us", 8, 9), ("japanese", 8, 10)),
    "jutland": (("british", 35, 12), ("german", 27, 9)),
}
LENGTH = {"dogger-bank": 12, "denmark-strait": 20, "north-cape": 20, "singora": 15, "surigao-strait": 10,
          "guam": 10, "jutland": 12}
VIS = {"dogger-bank": 9, "denmark-strait": 10, "north-cape": 6, "singora": 9, "surigao-strait": 7, "guam": 10,
       "jutland": 7}


def _setup(name):
    sc = GAME.load_scenario(name)
    return sc, sc.payload[0], sc.payload[1]


@pytest.mark.parametrize("name", list(PRINTED))
def test_orders_of_battle_as_printed(name):
    sc, s, _ = _setup(name)
    assert sc.sides == tuple(p[0] for p in PRINTED[name])
    for k, (_, caps, screens) in enumerate(PRINTED[name]):
        mine = s.st[:, L.ST_SIDE] == k
        assert (mine & (s.st[:, L.ST_KIND] == CAPITAL)).sum() == caps
        assert (mine & (s.st[:, L.ST_KIND] == SCREEN)).sum() == screens
    assert s.sc[L.SC_LENGTH] == LENGTH[name] and s.sc[L.SC_VIS_BASE] == VIS[name]
    assert sc.used, "the scenario must count the data-pack values it read"


def _where(s, rules, uid):
    i = s.ids.index(uid)
    x, z = s.sh0[i, L.SH_X], s.sh0[i, L.SH_Z]
    return rules.layout.label(*cube_to_offset(int(x), int(z))), FACING_NAMES[s.sh0[i, L.SH_F]], int(s.sh0[i, L.SH_SPD])


def test_deployments_hexes_facings_speeds():
    _, s, r = _setup("dogger-bank")
    assert _where(s, r, "211") == ("B0207", "SE", 6) and _where(s, r, "681") == ("B1108", "SE", 6)
    assert _where(s, r, "D12")[0] == "A1009"                  # 'Map A': the centre hex, then behind
    assert _where(s, r, "D13")[0] == "A0909"
    _, s, r = _setup("jutland")
    assert _where(s, r, "114") == ("E1802", "NW", 0)
    i = s.ids.index
    assert (s.sh0[i("712"), L.SH_G], s.sh0[i("661"), L.SH_G], s.sh0[i("114"), L.SH_S]) == (1, 2, 2)
    # 49 printed VP (10.7) less the award of Warspite's starting 2S; the British lose Lutzow's and von der Tann's (DN-S7)
    assert (s.sc[L.SC_START_VP0], s.sc[L.SC_START_VP1]) == (-3, 47)
    assert all(s.st[i(u), L.ST_NOABOUT] == 1 for u in ("081", "114", "211"))
    assert s.st[i("C11"), L.ST_NOABOUT] == 0 and s.st[i("712"), L.ST_NOABOUT] == 0
    _, s, r = _setup("guam")
    assert {"C21", "C22", "C24", "C25"} <= set(s.ids)


def test_victory_conditions_and_special_rules():
    _, s, _ = _setup("denmark-strait")
    assert VC_NAMES[s.sc[L.SC_VC]] == "sink-named-or-escape" and s.st[s.ids.index("741"), L.ST_NAMED] == 1
    _, s, _ = _setup("singora")
    assert VC_NAMES[s.sc[L.SC_VC]] == "exit-or-points"
    assert (s.sc[L.SC_EXIT_NEED], s.sc[L.SC_EXIT_DEADLINE]) == (2, 7)
    assert [s.ids[i] for i in np.flatnonzero(s.st[:, L.ST_EXIT])] == ["173", "252"]
    _, s, _ = _setup("surigao-strait")
    assert s.sc[L.SC_CONF] == 1 and s.sc[L.SC_EXIT_SCORES] == 1
    assert (s.sc[L.SC_CONF_C0], s.sc[L.SC_CONF_C1], s.sc[L.SC_CONF_R0], s.sc[L.SC_CONF_R1]) == (20, 39, 0, 33)
    _, s, r = _setup("north-cape")
    assert r.torpedo_mp(1943) == s.sc[L.SC_TORP_MA] == 5


BASE = textwrap.dedent('''
    title = "test"
    year = 1916
    game_length = 5
    visibility_base = 8
    [sides.red]
    role = "north"
    [sides.blue]
    role = "south"
    [victory]
    kind = "points"
    [[units]]
    side = "red"
    ships = ["081 Iron Duke"]
    hex = "B0505"
    facing = "S"
    speed = 5
    [[units]]
    side = "blue"
    ships = ["631 Konig", "632 Markgraf"]
    hex = "B0510"
    facing = "N"
    speed = 5
''')


def test_a_scenario_file_plays(tmp_path):
    f = tmp_path / "duel.toml"
    f.write_text(BASE)
    sc = GAME.load_scenario(str(f))
    assert sc.name == "duel" and sc.sides == ("red", "blue")
    b = GAME.play_batch(sc, GAME.resolve_options({}), GAME.resolve_policies(sc.sides, {}),
                        np.arange(20, dtype=np.uint64))
    assert b.games["turns"].max() <= 5


@pytest.mark.parametrize("old,new,msg", [
    ('side = "blue"', 'side = "green"', "unknown side"),
    ('hex = "B0510"', 'hex = "Q0510"', "unknown map section"),
    ('hex = "B0510"', 'hex = "B2510"', "outside a section"),
    ('hex = "B0510"', 'hex = "B0505"', "both sides"),
    ('"632 Markgraf"', '"631 Konig"', "appears twice"),
    ('"632 Markgraf"', '"999 Nemo"', "class 990"),
    ('"632 Markgraf"', '"X99"', "bad unit ID"),
    ('speed = 5\n[[units]]\nside = "blue"', 'speed = 9\n[[units]]\nside = "blue"', "above its movement"),
    ('kind = "points"', 'kind = "sink-named"\nside = "red"', "needs named units"),
    ('kind = "points"', 'kind = "sink-named"', "needs a side"),
    ('kind = "points"', 'kind = "sink-named"\nside = "red"\nnamed = ["081"]', "belongs to the side"),
    ('kind = "points"', 'kind = "victory"', "victory.kind"),
    ('role = "south"', 'role = "north"', "role north and the other south"),
    ('year = 1916', 'year = "1916"', "year"),
    ('game_length = 5', 'game_length = 5\nbogus = 1', "unknown key"),
])
def test_bad_scenario_files_one_line(tmp_path, old, new, msg):
    f = tmp_path / "bad.toml"
    assert old in BASE
    f.write_text(BASE.replace(old, new, 1))
    with pytest.raises(ScenarioError) as e:
        GAME.load_scenario(str(f))
    assert msg in str(e.value) and "\n" not in str(e.value)


def test_bad_column_and_cli_exit_2(tmp_path, capsys):
    col = BASE.replace('ships = ["631 Konig", "632 Markgraf"]\nhex = "B0510"',
                       'ships = ["631 Konig"]\nhex = "B0510"\nformation = "HSF"') + textwrap.dedent('''
        [[units]]
        side = "blue"
        ships = ["632 Markgraf"]
        hex = "B0612"
        facing = "N"
        speed = 5
        formation = "HSF"
        [formations.HSF]
        mode = "column"
    ''')
    f = tmp_path / "col.toml"
    f.write_text(col)
    with pytest.raises(ScenarioError, match="directly behind"):
        GAME.load_scenario(str(f))
    assert cli.main(["sweep", "--game", "dreadnought", "--scenario", str(f), "--games", "2",
                     "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "directly behind" in err
    assert not (tmp_path / "o").exists()
    with pytest.raises(ScenarioError, match="unknown dreadnought scenario"):
        GAME.load_scenario("trafalgar")
