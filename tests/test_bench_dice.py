"""The dice-floor ratio of every game (issue 17): each game's ``bench_dice`` hook counts the dice
its games rolled, checked against an independent count (the rule, the events table, the stream)."""

import numpy as np
import pytest

from simlab.bench import _dice_floor
from simlab.games import get_game
from simlab.games.base import Batch, DiceCount, Game
from simlab.rng import GAMMA, STATE_WORDS, game_seeds, new_state_nb, roll_nb, uniform_nb


def _setup(name, scen, seeds=64, **opts):
    g = get_game(name)
    sc = g.load_scenario(scen)
    o = g.resolve_options(opts)
    p = g.resolve_policies(sc.sides, {})
    s = game_seeds(11, 0, 0, seeds)
    return g, sc, o, p, s, g.play_batch(sc, o, p, s)


def test_default_hook_reads_the_dice_column_or_says_why_not():
    g = Game()
    b = Batch(games={"winner": np.zeros(3, np.int8), "dice": np.array([4, 0, 7], np.int32)})
    c = g.bench_dice(None, {}, {}, np.zeros(3, np.uint64), b)
    assert c.complete and c.per_game.dtype == np.int64 and c.per_game.tolist() == [4, 0, 7]
    c = g.bench_dice(None, {}, {}, np.zeros(3, np.uint64), Batch(games={"winner": np.zeros(3, np.int8)}))
    assert c.per_game is None and not c.complete and "no `dice` column" in c.what


# ---------------------------------------------------------------- doe-battle: gunfire dice (8.3.2)
def test_doe_battle_counts_the_gunfire_dice_of_a_one_round_battle(tmp_path):
    # one round (max_rounds = 1): every unit rolls attack less damage (at least 1) dice, plus one
    # per leader star down the line from the leader's ship (8.3.2 B, 8.3.2.3 B, 6.2 E-F):
    # us 3 + (2 - 1) + 1 (a one-star leader on the first unit) = 5; spain 4 + 1 = 5 -> 10 a game
    f = tmp_path / "tiny.toml"
    f.write_text('[us]\nleader_stars = 1\nunits = [\n'
                 '  { name = "A", type = "BB", attack = 3, defense = 9, movement = 4 },\n'
                 '  { name = "B", type = "CA", attack = 2, defense = 9, movement = 4, damage = 1 },\n]\n'
                 '[spain]\nunits = [\n'
                 '  { name = "C", type = "BB", attack = 4, defense = 9, movement = 4 },\n'
                 '  { name = "D", type = "CU", attack = 1, defense = 9, movement = 4 },\n]\n')
    g = get_game("doe-battle")
    sc = g.load_scenario(str(f))
    o = g.resolve_options({"max_rounds": 1})
    p = g.resolve_policies(sc.sides, {})
    s = game_seeds(3, 0, 0, 40)
    c = g.bench_dice(sc, o, p, s, g.play_batch(sc, o, p, s))
    assert c.per_game.tolist() == [10] * 40
    assert not c.complete and "gunfire dice only" in c.what and "6.3 D" in c.what


def test_doe_battle_count_is_both_sides_luck_dice_and_the_first_round_by_rule():
    g, sc, o, p, s, b = _setup("doe-battle", "puerto-rico-passage", 400)
    c = g.bench_dice(sc, o, p, s, b)
    want = b.games["luck_dice_us"].astype(np.int64) + b.games["luck_dice_spain"]
    assert np.array_equal(c.per_game, want)
    # the first round's dice from the scenario by rule (no unit damaged yet, leaders aboard the
    # first unit): battles that ended after one round rolled exactly that many
    st = sc.payload
    eff = np.maximum(st.attack - st.damage, np.minimum(st.attack, 1))
    first = sum(int(eff[st.unit_side == k].sum()) + min(st.stars[k], int((st.unit_side == k).sum()))
                for k in range(2))
    one = b.games["turns"] == 1
    assert one.sum() > 20 and (c.per_game[one] == first).all()
    assert (c.per_game[~one] > first).all()


def test_doe_battle_count_is_a_true_lower_bound_of_the_streams_draws():
    # replay each battle through the kernel with its own stream and count every draw the battle
    # took from it (gunfire, damage and leader dice): the hook's count never exceeds it, and falls
    # short where a 6 was rolled (8.3.2.2 A)
    from simlab.games.doe.kernels import DEFAULT_CHOICES, BattleSpec, Squadrons, battle_nb, new_work
    g, sc, o, p, s, b = _setup("doe-battle", "puerto-rico-passage", 300)
    c = g.bench_dice(sc, o, p, s, b)
    st = sc.payload
    rng = np.zeros(STATE_WORDS, np.uint64)
    work = new_work(st.n)
    status = np.zeros(st.n, np.int8)
    inv = pow(int(GAMMA), -1, 1 << 64)
    exact = []
    for i, seed in enumerate(s):
        new_state_nb(seed, rng)
        w, r, *_ = battle_nb(Squadrons(st.attack, st.defense, st.movement, st.damage.copy(), status),
                             BattleSpec(st.n0, st.n1, st.stars[0], st.stars[1], o["max_rounds"], 0), DEFAULT_CHOICES,
                             rng, work)
        assert (w, r) == (b.games["winner"][i], b.games["turns"][i])  # the same battle
        exact.append(((int(rng[0]) - int(seed)) * inv % (1 << 64)) * 2 - int(rng[2]))
    exact = np.asarray(exact)
    assert (c.per_game <= exact).all() and (c.per_game < exact).mean() > 0.9
    # about one damage die per six gunfire dice (sd ~0.004 over these ~12,000 dice) and a few
    # leader-casualty rolls (~0.02): the count is short by a sixth and a little more
    short = (exact - c.per_game).sum() / c.per_game.sum()
    assert 1 / 6 - 0.02 < short < 1 / 6 + 0.05


# ---------------------------------------------------------------- dreadnought: combat 2d6 from `shots`
def test_dreadnought_counts_every_combat_2d6_of_the_shots_table():
    from simlab.games.dreadnought.enums import RES_E_2G1S, RES_E_SUNK
    g, sc, o, p, s, b = _setup("dreadnought", "dogger-bank", 12)
    c = g.bench_dice(sc, o, p, s, b)
    assert not c.complete and "combat 2d6 only" in c.what
    on = g.play_batch(sc, g.resolve_options({"shots": True}), p, s)
    for col in b.games:  # the events option leaves the rows as they were
        assert np.array_equal(on.games[col], b.games[col]), col
    sh = on.events["shots"]
    gun = sh["kind"] == 0
    # the table is complete: one gun row per shot of the games table, one torpedo row per hit
    shots = np.bincount(sh["game"][gun], minlength=len(s))
    assert np.array_equal(shots, sum(b.games[f"shots_{x}"].astype(np.int64) for x in sc.sides))
    torp = np.bincount(sh["game"][sh["kind"] == 2], minlength=len(s))
    assert np.array_equal(torp, sum(b.games[f"torpedo_hits_{x}"].astype(np.int64) for x in sc.sides)
                          + b.games["friendly_torpedo_hits"])
    # by rule, from other columns: a gun shot of strength > 0 rolls the DPT (5.8) and, at 1-1 or
    # better, the CRT (5.9); a secondary or torpedo attack rolls the CRT (8.41, 8.0); an E one more (5.41)
    rolls = (np.where(gun, (sh["strength"] > 0).astype(np.int64) + (sh["ratio"] >= 1), 1)
             + np.isin(sh["result"], (RES_E_SUNK, RES_E_2G1S)))
    want = 2 * np.bincount(sh["game"], weights=rolls, minlength=len(s)).astype(np.int64)
    assert np.array_equal(c.per_game, want) and want.min() > 0


def test_dreadnought_campaign_is_not_measured_and_says_why():
    g = get_game("dreadnought")
    sc = g.load_scenario("campaign")
    c = g.bench_dice(sc, g.resolve_options({}), {}, np.zeros(1, np.uint64),
                     Batch(games={"winner": np.zeros(1, np.int8)}))
    assert c.per_game is None and "no `shots` table" in c.what


# ---------------------------------------------------------------- mar-rojo: every draw of the stream
def test_stream_draw_count_of_a_known_sequence():
    from simlab.rng import stream_draws_nb
    seed = np.uint64(123456789)
    rng = np.zeros(STATE_WORDS, np.uint64)
    new_state_nb(seed, rng)
    assert stream_draws_nb(seed, rng) == 0
    for k in range(1, 8):  # a d6 is one 32-bit draw (two from each 64-bit step)
        roll_nb(rng, 6)
        assert stream_draws_nb(seed, rng) == k
    uniform_nb(rng)  # a uniform float takes a whole 64-bit step: two draws
    assert stream_draws_nb(seed, rng) == 7 + 2
    roll_nb(rng, 6)  # the next die takes the spare half of step 4, still pending
    assert stream_draws_nb(seed, rng) == 10 and rng[2] == 0


def test_mar_rojo_counts_every_draw_and_at_least_the_two_opening_shuffles():
    from simlab.games.mar_rojo.enums import K_THE_END
    from simlab.games.mar_rojo.runtime import action_deck
    g, sc, o, p, s, b = _setup("mar-rojo", "cabo-de-palos", 64)
    c = g.bench_dice(sc, o, p, s, b)
    assert c.complete and "every random draw" in c.what
    # Rule 4: the M action cards but The End are shuffled (M - 1 draws, Fisher-Yates), 5 cards
    # dealt to each side, then The End is shuffled into the M - 10 left (M - 10 draws)
    akind, included = action_deck(sc.payload.ak, o["night_combat"], o["faccioso_cabo_palos"])
    m = int(((included != 0) & (akind != K_THE_END)).sum())
    assert m > 20 and c.per_game.shape == (64,) and (c.per_game >= 2 * m - 11).all()
    assert len(set(c.per_game.tolist())) > 10  # combat dice vary from game to game
    assert np.array_equal(c.per_game, g.bench_dice(sc, o, p, s, b).per_game)  # the same seeds, the same count


# ---------------------------------------------------------------- the bench row
@pytest.mark.parametrize("name,scen,bound", [("doe-battle", "puerto-rico-passage", True),
                                              ("mar-rojo", "cabo-de-palos", False)])
def test_bench_row_is_measured_and_says_what_it_counts(name, scen, bound):
    g, sc, o, p, s, b = _setup(name, scen, 200)
    (row,) = _dice_floor(g, scen, sc, o, p, s, 1)
    assert row["name"] == f"{name}/{scen} dice-floor ratio (time per game / time to draw its dice)"
    assert row["n"] == 1 and row["median"] > 0 and row["unit"] == "x"
    per = float(np.mean(g.bench_dice(sc, o, p, s, b).per_game))
    assert row["detail"].startswith(f"{per:.0f} dice a game, 200 games; counted: ")
    assert ("a lower bound, so the ratio is an upper bound" in row["detail"]) == bound
    assert isinstance(g.bench_dice(sc, o, p, s, b), DiceCount)
