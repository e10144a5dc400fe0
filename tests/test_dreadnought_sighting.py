"""Rule 10.0 (and the 9.3 outline): the historical set-ups "force a battle beginning with Game-Turn
One, in that the opposing forces are placed close enough together that sighting between at least
some opposing units is guaranteed" (ruling DN-S8: North Cape's and Guam's set-ups adjusted on the
provisional map)."""

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought.scenario import BUILTIN
from simlab.rng import game_seeds

GAME = get_game("dreadnought")


def _nearest_pair(setup):
    """Least hex distance between opposing units at set-up (cube coordinates, Rule 5.5)."""
    xz = setup.sh0[:, [L.SH_X, L.SH_Z]]
    side = setup.st[:, L.ST_SIDE]
    a, b = xz[side == 0], xz[side == 1]
    dx = a[:, None, 0] - b[None, :, 0]
    dz = a[:, None, 1] - b[None, :, 1]
    return int(np.max(np.abs(np.stack([dx, dz, dx + dz])), axis=0).min())


# least opposing distance at set-up: base visibility + the least die (1) must reach it (5.71)
NEAREST = {"dogger-bank": 9, "denmark-strait": 10, "north-cape": 6, "singora": 8, "surigao-strait": 3,
           "guam": 11, "jutland": 1}


@pytest.mark.parametrize("name", BUILTIN)
def test_set_up_is_within_the_least_visibility(name):
    s = GAME.load_scenario(name).payload[0]
    d = _nearest_pair(s)
    assert d == NEAREST[name]
    assert d <= s.sc[L.SC_VIS_BASE] + 1


def test_north_cape_and_guam_hexes_are_the_provisional_ones():
    from simlab.games.dreadnought.geometry import cube_to_offset
    for name, uid, label in (("north-cape", "732", "B1108"), ("guam", "C21", "B1114")):
        s, r = GAME.load_scenario(name).payload
        i = s.ids.index(uid)
        assert r.layout.label(*cube_to_offset(int(s.sh0[i, L.SH_X]), int(s.sh0[i, L.SH_Z]))) == label
        assert [(v, prov) for _, v, prov, _ in s.notes if v == label] == [(label, "provisional")]


@pytest.mark.parametrize("name", BUILTIN)
def test_every_game_sights_on_game_turn_one(name):
    # 200 games per scenario, split over four pairs of presets (the sighting of Game-Turn One comes
    # before any plot, so no policy can prevent it)
    sc = GAME.load_scenario(name)
    a, b = sc.sides
    offered = {s: GAME.scenario_policies(sc, s) for s in sc.sides}
    pairs = [{}, {a: "break-contact", b: "break-contact"}, {a: "random-legal", b: "random-legal"},
             {a: "hold-range", b: offered[b][-1]}]
    first = []
    for k, given in enumerate(pairs):
        pol = GAME.resolve_policies(sc.sides, given)
        bt = GAME.play_batch(sc, GAME.resolve_options({}), pol, game_seeds(1000 + k, 1, 0, 50))
        first.append(bt.games["first_contact_turn"])
    first = np.concatenate(first)
    assert first.shape == (200,) and (first == 1).all()
