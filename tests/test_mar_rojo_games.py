"""Mar Rojo: whole games played by every policy with the kernel's invariant checks on (deck
conservation, hand limit, legal layouts after every move, activation and reorganisation limits),
plus checks of each game's row against the rules (scores, winners, merchants, sunk counts)."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.mar_rojo import engine
from simlab.games.mar_rojo.enums import (
    AIRCRAFT,
    CAPITAL,
    DESTROYER,
    LONG,
    MEDIUM,
    MERCHANT,
    SHORT,
    ST_IN_PLAY,
    ST_REMOVED,
    ST_SUNK,
    TYPE_NAMES,
    V_CABO_DE_PALOS,
)
from simlab.games.mar_rojo.layout import (
    C_TYPE,
    G_VICTORY,
    MAXC,
    NG,
    O_CARDS0,
    O_VIOLATION,
    S_ROW,
    S_STATUS,
)
from simlab.games.mar_rojo.runtime import preset_names, run_games
from simlab.games.mar_rojo.victory import winner_nb
from simlab.rng import game_seeds

GAME = get_game("mar-rojo")
SCENARIOS = list(GAME.scenarios)


ON = {"check_invariants": True, "card_events": True}


def _play(scenario, opts, pols, seeds):
    """Play a batch with the kernel's invariant checks and the cards table on; assert that no
    invariant and no rule check fails; return the batch."""
    sc = GAME.load_scenario(scenario)
    o = GAME.resolve_options({**ON, **opts})
    batch = GAME.play_batch(sc, o, pols, seeds)
    problems = GAME.invariant_violations(sc, batch, o)
    assert problems == [], problems
    assert (batch.games["invariant_violation"] == 0).all()
    if scenario == "strait-of-gibraltar":
        assert (batch.games["removed_republican"] == 2).mean() > 0.5  # the first The End nearly always comes
    return sc, batch


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("policy", preset_names())
def test_games_keep_every_invariant(scenario, policy):
    _play(scenario, {}, {"nationalist": policy, "republican": policy}, game_seeds(2024, 7, 0, 60))


@pytest.mark.parametrize("opts", [
    {"night_combat": True},
    {"faccioso_cabo_palos": True, "initial_reveal": True},
    {"length": "long", "first_player": "nationalist"},
    {"night_combat": True, "faccioso_cabo_palos": True, "length": "short"},
])
@pytest.mark.parametrize("pair", [("random-legal", "random-legal"), ("aggressive", "cautious"),
                                  ("torpedo-first", "solo-ai"), ("solo-ai", "random-legal")])
def test_options_keep_every_invariant(opts, pair):
    for scenario in ("cabo-de-palos", "mediterranean-campaign"):
        _play(scenario, opts, {"nationalist": pair[0], "republican": pair[1]}, game_seeds(77, 3, 0, 40))


def test_night_rules_change_the_game():
    sc = GAME.load_scenario("strait-of-gibraltar")
    pols = {"nationalist": "aggressive", "republican": "aggressive"}
    day, _ = run_games(sc.payload, GAME.resolve_options({}), pols, game_seeds(5, 1, 0, 300))
    night, _ = run_games(sc.payload, GAME.resolve_options({"night_combat": True}), pols, game_seeds(5, 1, 0, 300))
    from simlab.games.mar_rojo.layout import O_NIGHT_SUBTURNS
    assert (day[:, O_NIGHT_SUBTURNS] == 0).all()
    assert (night[:, O_NIGHT_SUBTURNS] > 0).mean() > 0.5


def test_points_built_squadrons_meet_rule_9():
    for length, row in (("short", (5, 8, 10, 1, 1, 1, 0, 1)), ("average", (6, 12, 15, 1, 2, 2, 0, 2)),
                        ("long", (8, 15, 20, 2, 3, 3, 1, 3))):
        for b in ("balanced", "value-greedy", "random"):
            opts = {"length": length, "builder_nationalist": b, "builder_republican": b,
                    "intervention_fleets": True, "neutral_fleets": True}
            sc, batch = _play("points-built", opts, {"nationalist": "aggressive", "republican": "cautious"},
                              game_seeds(11, 2, 0, 40))
            pool = sc.payload.pool
            ev = batch.events["cards"]
            for i in range(40):
                for side in range(2):
                    idx = ev["card"][(ev["game"] == i) & (ev["side"] == side)].astype(int)
                    types = pool[idx, C_TYPE]
                    assert row[0] <= len(idx) <= row[1], (length, b, len(idx))
                    assert pool[idx, 14].sum() <= row[2]
                    assert row[3] <= np.sum(types == CAPITAL) <= row[4]
                    assert np.sum(types == MERCHANT) == row[5]
                    assert row[6] <= np.sum((types == AIRCRAFT) | (types == 3)) <= row[7]
                    allowed = {0: {0, 2, 4, 5}, 1: {1, 2, 3}}[side]
                    assert set(pool[idx, 1].tolist()) <= allowed


def test_row_checks_must_fail_on_a_broken_row():
    sc, batch = _play("strait-of-gibraltar", {}, {"nationalist": "aggressive", "republican": "aggressive"},
                      game_seeds(4, 4, 0, 30))
    from simlab.games.mar_rojo.checks import row_violations
    for col, delta in (("winner", 1), ("score_nationalist", 1), ("sunk_republican_merchant", 5),
                       ("ships_sunk_by_nationalist", 1), ("turns", 1), ("removed_republican", 3),
                       ("invariant_violation", 3)):
        g = dict(batch.games)
        g[col] = np.asarray(g[col]).copy()
        g[col][0] = (g[col][0] + delta) if col != "winner" else (1 if g[col][0] != 1 else 0)
        assert row_violations(sc.payload, g, batch.events), col
    ev = {"cards": {k: np.asarray(v).copy() for k, v in batch.events["cards"].items()}}
    ev["cards"]["status"][:] = 2
    assert row_violations(sc.payload, batch.games, ev)
    cabo, cb = _play("cabo-de-palos", {}, {"nationalist": "aggressive", "republican": "aggressive"},
                     game_seeds(4, 5, 0, 30))
    g = dict(cb.games)
    g["winner"] = 1 - np.asarray(g["winner"])
    assert row_violations(cabo.payload, g, None)


@pytest.mark.parametrize("length", ["short", "average", "long"])
def test_random_builder_never_paints_itself_into_a_corner(length):
    """With a large budget the random builder can fill up on escorts; it must still keep room for
    the capital ships and merchants the table requires (every game builds a legal squadron)."""
    sc = GAME.load_scenario("points-built")
    opts = GAME.resolve_options({"length": length, "builder_nationalist": "random", "builder_republican": "random",
                                 "points_nationalist": 40, "points_republican": 25})
    out, sq = run_games(sc.payload, opts, {"nationalist": "cautious", "republican": "cautious"},
                        game_seeds(8, 8, 0, 300))
    from simlab.games.mar_rojo.layout import O_BUILD_FAIL
    assert (out[:, O_BUILD_FAIL] == 0).all()


def test_builders_differ_and_year_limit_applies():
    sc = GAME.load_scenario("points-built")
    setup = sc.payload
    costs = {}
    for b in ("balanced", "value-greedy"):
        opts = GAME.resolve_options({"builder_nationalist": b, "builder_republican": b})
        out, sq = run_games(setup, opts, {"nationalist": "aggressive", "republican": "aggressive"},
                            game_seeds(3, 3, 0, 30))
        costs[b] = out[:, O_CARDS0].mean()
    assert costs["balanced"] > costs["value-greedy"]  # many cheap escorts vs few dear ships
    opts = GAME.resolve_options({"build_year": 1936, "builder_nationalist": "random", "builder_republican": "random"})
    out, sq = run_games(setup, opts, {"nationalist": "aggressive", "republican": "aggressive"}, game_seeds(3, 4, 0, 30))
    idx = sq[:, :, 0]
    assert (setup.pool[idx[idx >= 0], 16] <= 1936).all()


def test_layout_checker_must_fail_on_illegal_layouts():
    cs, st, g, *_ = engine.new_game_arrays(1)
    # side 0: 4 cards: merchant in long, destroyer short, capital medium, capital long -> legal
    types = [MERCHANT, DESTROYER, CAPITAL, CAPITAL]
    rows = [LONG, SHORT, MEDIUM, LONG]
    for i, (t, r) in enumerate(zip(types, rows, strict=True)):
        cs[i, C_TYPE] = t
        st[i, S_STATUS] = ST_IN_PLAY
        st[i, S_ROW] = r
    assert engine.deployment_legal_nb(cs, st, 0)
    st[0, S_ROW] = MEDIUM  # a merchant out of the long row
    assert not engine.deployment_legal_nb(cs, st, 0)
    st[0, S_ROW] = LONG
    st[2, S_ROW] = SHORT  # a capital ship in the short row while the destroyer could be there... it is
    st[1, S_ROW] = MEDIUM  # ... and the destroyer is not
    assert not engine.deployment_legal_nb(cs, st, 0)
    st[1, S_ROW] = SHORT
    st[2, S_ROW] = SHORT  # 2-0-2: spread 2
    assert not engine.deployment_legal_nb(cs, st, 0)


def test_invariant_checker_must_fail_on_broken_state():
    from simlab.games.mar_rojo.bundles import new_state
    from simlab.games.mar_rojo.runtime import batch_bundles
    sc = GAME.load_scenario("cabo-de-palos")
    setup = sc.payload
    opts = GAME.resolve_options({"length": "short", "first_player": "republican"})
    tables, knobs = batch_bundles(setup, opts, {"nationalist": "aggressive", "republican": "aggressive"}, debug=True)
    state = new_state(setup.pool.shape[0])
    state.seed[0] = 5
    engine.play_game_nb(tables, knobs, state)
    cs, st, g, piles, hands, wk, out = state.cs, state.st, state.g, state.piles, state.hands, state.wk, state.out
    assert out[O_VIOLATION] == 0
    assert engine.check_invariants_nb(setup.rt, cs, st, g, piles, hands, wk) == 0
    hands[0, 0] = piles[0, 0]
    g[engine.G_HAND0_N] += 1
    assert engine.check_invariants_nb(setup.rt, cs, st, g, piles, hands, wk) != 0
    g[engine.G_HAND0_N] -= 1
    s = int(np.nonzero(st[:, S_STATUS] == ST_IN_PLAY)[0][0])
    st[s, S_ROW] = 7
    assert engine.check_invariants_nb(setup.rt, cs, st, g, piles, hands, wk) != 0


def test_victory_of_cabo_de_palos_by_hand():
    cs = np.zeros((2 * MAXC, 17), np.int64)
    st = np.zeros((2 * MAXC, 10), np.int64)
    g = np.zeros(NG, np.int64)
    g[G_VICTORY] = V_CABO_DE_PALOS
    for i, t in enumerate([CAPITAL, MERCHANT, DESTROYER]):
        cs[i, C_TYPE] = t
        st[i, S_STATUS] = ST_IN_PLAY
    assert winner_nb(cs, st, g) == 0
    st[1, S_STATUS] = ST_SUNK  # a merchant alone is not enough
    assert winner_nb(cs, st, g) == 0
    st[2, S_STATUS] = ST_SUNK  # a merchant and an escort
    assert winner_nb(cs, st, g) == 1
    st[1, S_STATUS] = st[2, S_STATUS] = ST_IN_PLAY
    st[0, S_STATUS] = ST_REMOVED  # removed is not sunk
    assert winner_nb(cs, st, g) == 0
    st[0, S_STATUS] = ST_SUNK
    assert winner_nb(cs, st, g) == 1


def test_reproducible_and_split_independent():
    sc = GAME.load_scenario("mediterranean-campaign")
    opts = GAME.resolve_options({"night_combat": True, "faccioso_cabo_palos": True})
    pols = {"nationalist": "random-legal", "republican": "solo-ai"}
    seeds = game_seeds(9, 9, 0, 50)
    a, _ = run_games(sc.payload, opts, pols, seeds)
    b, _ = run_games(sc.payload, opts, pols, seeds[::-1].copy())
    assert np.array_equal(a, b[::-1])


def test_names_follow_the_rulebook():
    # the type codes the kernels use are the pack's card types, every one used by some fleet card,
    # each in the enum's position (the games and events tables label codes by this tuple)
    pack = GAME.load_data()
    types = {r["type"].value for r in pack.tables["fleet"].values()}
    assert types == set(TYPE_NAMES) and len(TYPE_NAMES) == 6
    from simlab.games.mar_rojo import enums
    assert [TYPE_NAMES[getattr(enums, n.upper())] for n in TYPE_NAMES] == list(TYPE_NAMES)


@pytest.mark.timeout(2400)  # slow: above the suite's default limit (tests/test_suite_config.py)
@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_100k_random_legal_games_per_scenario(scenario):
    """100,000 random-legal games per scenario with every invariant checked throughout."""
    sc = GAME.load_scenario(scenario)
    opts = GAME.resolve_options({**ON, "faccioso_cabo_palos": True})
    pols = {"nationalist": "random-legal", "republican": "random-legal"}
    for chunk in range(10):
        batch = GAME.play_batch(sc, opts, pols, game_seeds(100, 1, chunk * 10_000, (chunk + 1) * 10_000))
        assert GAME.invariant_violations(sc, batch, opts) == []
