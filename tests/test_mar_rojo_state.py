"""A Mar Rojo game's state is one value (issue 27): games stopped after sub-turn k and continued
from a copy of their state by the same kernels give exactly the rows of the uninterrupted games."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.mar_rojo.bundles import GameState, copy_state
from simlab.games.mar_rojo.layout import G_OVER, G_SUBTURN
from simlab.games.mar_rojo.runtime import preset_names
from simlab.rng import game_seeds

GAME = get_game("mar-rojo")
PRESETS = preset_names()
#: every preset plays each side once, against the next one (random-legal and solo-ai included)
PAIRS = [(p, PRESETS[(i + 1) % len(PRESETS)]) for i, p in enumerate(PRESETS)]
N = 200


def _pols(pair):
    return {"nationalist": pair[0], "republican": pair[1]}


def _assert_same(a, b):
    assert set(a.games) == set(b.games)
    for c in a.games:
        np.testing.assert_array_equal(a.games[c], b.games[c], err_msg=c)
    assert set(a.events) == set(b.events)
    for t in a.events:
        for c in a.events[t]:
            np.testing.assert_array_equal(a.events[t][c], b.events[t][c], err_msg=f"{t}.{c}")


def test_presets_cover_random_legal_and_solo():
    assert {"random-legal", "solo-ai", "aggressive"} <= set(PRESETS)


@pytest.mark.parametrize("scenario,opts", [
    ("cabo-de-palos", {"card_events": True}),
    ("mediterranean-campaign", {"card_events": True, "night_combat": True, "initial_reveal": True}),
    ("points-built", {"card_events": True, "check_invariants": True, "builder_nationalist": "random"}),
])
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-v-{p[1]}")
def test_continue_from_copied_state_gives_the_uninterrupted_rows(scenario, opts, pair):
    sc = GAME.load_scenario(scenario)
    o = GAME.resolve_options(opts)
    pols = _pols(pair)
    seeds = game_seeds(27, 3, 0, N)
    whole = GAME.play_batch(sc, o, pols, seeds)
    sub = whole.games["subturns"].astype(np.int64)
    med = int(np.median(sub))
    # 0: before the first sub-turn; the median: past the end of about half the games; max + 3: of all
    for k in sorted({0, 1, 4, med, int(sub.max()) + 3}):
        state = GAME.start_games(sc, o, pols, seeds, stop=k)
        over = state.g[:, G_OVER] == 1
        np.testing.assert_array_equal(over, sub < k)  # a game stops before its end check at sub-turn k
        assert (state.g[~over, G_SUBTURN] == k).all()
        assert (state.g[over, G_SUBTURN] == sub[over]).all()
        if k == 0:
            assert not over.any()
        if k > sub.max():
            assert over.all()
        if k == med:
            assert over.any() and not over.all()
        before = copy_state(state)
        done = GAME.play_from(sc, o, pols, state)
        _assert_same(GAME.state_batch(sc, o, done), whole)
        for f, a, b in zip(GameState._fields, state, before, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"play_from changed the state's {f}")


def test_continue_in_steps_and_the_copy_is_deep():
    sc = GAME.load_scenario("strait-of-gibraltar")
    o = GAME.resolve_options({"card_events": True})
    pols = _pols(("aggressive", "random-legal"))
    seeds = game_seeds(27, 4, 0, N)
    whole = GAME.play_batch(sc, o, pols, seeds)
    s3 = GAME.start_games(sc, o, pols, seeds, stop=3)
    s9 = GAME.play_from(sc, o, pols, s3, stop=9)
    assert not (s9.g[:, G_OVER] == 1).all()
    with pytest.raises(ValueError, match="not over"):
        GAME.state_batch(sc, o, s9)
    _assert_same(GAME.state_batch(sc, o, GAME.play_from(sc, o, pols, s9)), whole)
    copy = copy_state(s3)
    for a, b in zip(copy, s3, strict=True):
        assert not np.shares_memory(a, b)
    # wreck the copy: the original's continuation does not change, and the wrecked one does
    copy.rng[:, 0] += np.uint64(12345)
    copy.st[:, :, 3] = 0
    copy.g[:, G_SUBTURN] += 1
    _assert_same(GAME.state_batch(sc, o, GAME.play_from(sc, o, pols, s3)), whole)
    wrecked = GAME.state_batch(sc, o, GAME.play_from(sc, o, pols, copy))
    assert not np.array_equal(wrecked.games["winner"], whole.games["winner"]) or not np.array_equal(
        wrecked.games["hits_nationalist"], whole.games["hits_nationalist"])


def test_stop_must_not_be_negative():
    sc = GAME.load_scenario("cabo-de-palos")
    o = GAME.resolve_options({})
    with pytest.raises(ValueError, match="stop"):
        GAME.start_games(sc, o, _pols(("aggressive", "aggressive")), game_seeds(1, 0, 0, 3), stop=-1)
