"""Exact and Monte Carlo odds of one Dawn of Empire battle (``simlab odds doe-battle``; Rules 6.2-6.3,
8.3, 10.1-10.2, rulings B1-B10 and O1-O7).

The odds have exactly the semantics of the battle kernel :func:`simlab.games.doe.kernels.battle_nb`
(Rules 6.2-6.3, 8.3, 10.1-10.2 with the rulings B1-B10 and O1-O7 of docs/rulings.md):

* **One round** (``rounds=1``, any line lengths, leaders, damaged units, speed disengagement):
  every unit's fate depends only on the dice aimed at it, and those are independent across target
  units, so per-unit results come from the dice table, a side's line empties with the product of
  its units' chances to leave it, and disengagement by speed after the round (10.2.2) conditions
  on the distribution of the opposing side's fastest remaining unit (:func:`single_round`).
* **Whole battles** and ``rounds >= 2``: a Markov chain over battle states, solved in order of
  increasing damage (:mod:`simlab.games.doe.odds_kernels`). Without a round limit a battle ends with
  probability 1 unless no unit has a die to roll; the limit ``min(rounds, max_rounds)`` is honoured
  exactly: when the chain shows that the probability of a battle lasting longer than the limit is
  below :data:`TAIL_TOLERANCE` (a binomial bound, see :func:`plan_exact`) the unlimited solution is
  reported with that bound, else the chain is propagated round by round up to the limit.
* **Monte Carlo**: the battle kernel itself (:func:`simlab.games.doe.battle_setup.run_battles`), in
  chunks so memory stays flat, with 95% Wilson intervals.

The result is a JSON-ready dict; its shape is documented in :func:`battle_odds`. The exact
machinery lives in :mod:`.odds_exact` (re-exported here), the command's typed options and its
human-readable report in :mod:`.odds_options`; nothing here knows the command line.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import DataPackError, SpecError
from ...rng import game_seeds
from ..base import BenchCase
from .battle_setup import BattleSetup, parse_battle, run_battles
from .enums import DISABLED, END_MAX_ROUNDS, END_MUTUAL, END_SPEED, ESCAPED, LEADER_KILLED, SPEED_MODES, SUNK
from .odds_exact import (
    AUTO_MAX_BOUND,
    AUTO_MAX_WORK,
    EXACT_MAX_WORK,
    TAIL_TOLERANCE,
    BattleOdds,
    ExactPlan,
    TooBigError,
    damage_tables,
    exact_odds,
    plan_exact,
    pre_battle_leaver,
    single_round,
    size_bound,
    solve_plan,
    with_detail,
)

__all__ = [
    "AUTO_MAX_WORK",
    "DEFAULT_GAMES",
    "EXACT_MAX_WORK",
    "TAIL_TOLERANCE",
    "BattleOdds",
    "ExactPlan",
    "TooBigError",
    "battle_odds",
    "bench_cases",
    "damage_tables",
    "exact_odds",
    "game_odds",
    "monte_carlo_odds",
    "plan_exact",
    "single_round",
    "size_bound",
]

#: Monte Carlo battles when none are asked for.
DEFAULT_GAMES = 200_000
#: Battles per kernel call under Monte Carlo (memory stays flat).
MC_CHUNK = 50_000
METHODS = ("auto", "exact", "monte_carlo")


# --------------------------------------------------------------------------- Monte Carlo
def monte_carlo_odds(s: BattleSetup, games: int, seed: int, limit: int, speed_mode: int,
                     chunk: int = MC_CHUNK) -> BattleOdds:
    """Odds from ``games`` battles played by the battle kernel (:func:`run_battles`).

    Battle ``i`` uses the stream ``game_seeds(seed, 0, i, i + 1)``, so the result depends only on
    ``seed`` and ``games`` (not on ``chunk``); memory stays flat (``chunk`` battles at a time).

    Args:
        s: the battle; games: ``>= 1``; seed: master seed; limit: round limit (``>= 1``);
        speed_mode: index into ``enums.SPEED_MODES``; chunk: battles per kernel call.

    Returns:
        :class:`BattleOdds` with ``games`` set and ``detail["wins"]`` the win counts per side.

    Raises:
        SpecError: if ``games < 1``.
    """
    if games < 1:
        raise SpecError(f"Monte Carlo needs at least 1 battle, got {games}")
    t0 = time.perf_counter()
    n = s.n
    wins = np.zeros(2, np.int64)
    speed_wins = np.zeros(2, np.int64)
    mutual = unfinished = 0
    rounds = 0
    sunk = np.zeros(n, np.int64)
    dis = np.zeros(n, np.int64)
    esc = np.zeros(n, np.int64)
    dmg = np.zeros(n, np.int64)
    lk = np.zeros(2, np.int64)
    base = s.damage.astype(np.int64)
    for start in range(0, games, chunk):
        stop = min(games, start + chunk)
        raw = run_battles(s, game_seeds(seed, 0, start, stop), limit, speed_mode)
        w, why = raw["winner"], raw["reason"]
        for t in (0, 1):
            wins[t] += int(np.count_nonzero(w == t))
            speed_wins[t] += int(np.count_nonzero((w == t) & (why == END_SPEED)))
            lk[t] += int(np.count_nonzero(raw["leader"][:, t] == LEADER_KILLED))
        mutual += int(np.count_nonzero(why == END_MUTUAL))
        unfinished += int(np.count_nonzero(why == END_MAX_ROUNDS))
        rounds += int(raw["rounds"].sum(dtype=np.int64))
        st = raw["status"]
        sunk += np.count_nonzero(st == SUNK, axis=0)
        dis += np.count_nonzero(st == DISABLED, axis=0)
        esc += np.count_nonzero(st == ESCAPED, axis=0)
        dmg += raw["damage"].sum(axis=0, dtype=np.int64) - base * (stop - start)
    g = float(games)
    return BattleOdds(
        win_gunfire=((wins[0] - speed_wins[0]) / g, (wins[1] - speed_wins[1]) / g),
        win_speed=(speed_wins[0] / g, speed_wins[1] / g), mutual=mutual / g, unfinished=unfinished / g,
        mean_rounds=rounds / g, p_sunk=sunk / g, p_disabled=dis / g, p_escaped=esc / g, mean_damage=dmg / g,
        p_leader_killed=(lk[0] / g, lk[1] / g), games=games,
        detail={"wins": [int(wins[0]), int(wins[1])], "neither": int(mutual + unfinished),
                "sunk": sunk.tolist(), "seconds": time.perf_counter() - t0},
    )


# --------------------------------------------------------------------------- the public entry
def _limit(rounds: int | None, max_rounds: int) -> int:
    if rounds is None:
        return int(max_rounds)
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise SpecError(f"--rounds must be a whole number of rounds >= 1, got {rounds!r}")
    return int(min(int(rounds), int(max_rounds)))


def battle_odds(s: BattleSetup, *, rounds: int | None = None, method: str = "auto", games: int | None = None,
                seed: int = 0, max_rounds: int = 1000, speed_mode: int = 0) -> dict[str, Any]:
    """Odds of one battle, as the JSON ``simlab odds doe-battle`` prints.

    Args:
        s: the battle (:func:`simlab.games.doe.battle_setup.parse_battle`).
        rounds: stop after this many rounds (``>= 1``; None: the whole battle); a battle still
            going then counts as neither side winning.
        method: ``"auto"`` (exact when it takes about a second or less: always for one round or
            a squadron leaving before battle, whole battles up to about 3 v 3; else Monte Carlo),
            ``"exact"`` or ``"monte_carlo"``.
        games: Monte Carlo battles (default :data:`DEFAULT_GAMES`); giving it with ``"auto"``
            selects Monte Carlo.
        seed: Monte Carlo master seed.
        max_rounds: the game option (Rule 4.3 C, ruling B9): the battle stops as a draw after it.
        speed_mode: index into ``enums.SPEED_MODES`` (Rule 10.2, ruling B8).

    Returns:
        ``{method, games (Monte Carlo only), seed (Monte Carlo only), sides: {side: {p_win, ci,
        p_win_gunfire, p_win_speed, leader, leader_stars, p_leader_killed}}, p_neither, p_mutual,
        p_unfinished, mean_rounds, units: [{side, name, p_sunk, p_disabled, p_escaped, p_in_line,
        mean_damage}], rounds, max_rounds, speed_disengage, chosen_automatically, engine, ...}``.
        ``ci`` is the 95% Wilson interval under Monte Carlo and ``[p, p]`` when exact;
        ``p_neither = p_mutual + p_unfinished``; ``p_disabled`` counts units that end disabled and
        not sunk; ``mean_damage`` is damage points taken in this battle (beyond sinking included).

    Raises:
        SpecError: on a bad method, round limit, game count or seed; TooBigError when
            ``method="exact"`` is asked of a battle too big for it (one line).
    """
    if method in ("mc", "monte-carlo"):
        method = "monte_carlo"
    if method not in METHODS:
        raise SpecError(f"unknown odds method '{method}' (methods: {', '.join(METHODS)})")
    if games is not None and (isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1):
        raise SpecError(f"Monte Carlo battles must be a whole number >= 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SpecError(f"seed must be a whole number >= 0, got {seed!r}")
    limit = _limit(rounds, max_rounds)
    result = None
    chosen = method
    if method == "exact":
        result = exact_odds(s, limit, speed_mode)
    elif method == "auto" and games is None:
        t0 = time.perf_counter()
        if limit == 1 or pre_battle_leaver(s, speed_mode) >= 0:
            result = exact_odds(s, limit, speed_mode)
        elif size_bound(s) <= AUTO_MAX_BOUND:
            try:
                plan = plan_exact(s, limit, speed_mode, max_work=AUTO_MAX_WORK, max_bound=AUTO_MAX_BOUND)
            except TooBigError:
                plan = None
            if plan is not None:
                result = with_detail(solve_plan(plan), seconds=time.perf_counter() - t0)
        chosen = "exact" if result is not None else "monte_carlo"
    if result is None:
        chosen = "monte_carlo"
        result = monte_carlo_odds(s, int(games or DEFAULT_GAMES), int(seed), limit, speed_mode)
    return odds_dict(s, result, method=chosen, auto=method == "auto", rounds=rounds, max_rounds=max_rounds,
                     speed_mode=speed_mode, seed=seed)


def odds_dict(s: BattleSetup, r: BattleOdds, *, method: str, auto: bool, rounds: int | None, max_rounds: int,
              speed_mode: int, seed: int) -> dict[str, Any]:
    """The JSON-ready dict of :func:`battle_odds` from raw :class:`BattleOdds`."""
    from ...stats.intervals import wilson_interval
    exact = method == "exact"
    out: dict[str, Any] = {"method": "exact" if exact else "monte_carlo"}
    if not exact:
        out["games"] = int(r.games)
        out["seed"] = int(seed)
    sides: dict[str, Any] = {}
    for t, name in enumerate(s.sides):
        p = float(r.p_win[t])
        if exact:
            ci = [p, p]
        else:
            lo, hi = wilson_interval(r.detail["wins"][t], r.games)
            ci = [float(lo), float(hi)]
        sides[name] = {"p_win": p, "ci": ci, "p_win_gunfire": float(r.win_gunfire[t]),
                       "p_win_speed": float(r.win_speed[t]), "leader": s.leaders[t] or None,
                       "leader_stars": int(s.stars[t]), "p_leader_killed": float(r.p_leader_killed[t])}
    out["sides"] = sides
    out["p_neither"] = float(r.mutual + r.unfinished)
    if not exact:
        lo, hi = wilson_interval(r.detail["neither"], r.games)
        out["p_neither_ci"] = [float(lo), float(hi)]
    out["p_mutual"] = float(r.mutual)
    out["p_unfinished"] = float(r.unfinished)
    out["mean_rounds"] = float(r.mean_rounds)
    units = []
    for u in range(s.n):
        t = int(s.unit_side[u])
        ps, pd, pe = float(r.p_sunk[u]), float(r.p_disabled[u]), float(r.p_escaped[u])
        row = {"side": s.sides[t], "name": s.names[u], "p_sunk": ps, "p_disabled": pd, "p_escaped": pe,
               "p_in_line": max(0.0, 1.0 - ps - pd - pe), "mean_damage": float(r.mean_damage[u])}
        if not exact:
            lo, hi = wilson_interval(r.detail["sunk"][u], r.games)
            row["p_sunk_ci"] = [float(lo), float(hi)]
        units.append(row)
    out["units"] = units
    out["rounds"] = None if rounds is None else int(rounds)
    out["max_rounds"] = int(max_rounds)
    out["speed_disengage"] = SPEED_MODES[speed_mode]
    out["chosen_automatically"] = bool(auto)
    d = r.detail or {}
    if exact:
        out["engine"] = d.get("engine", "")
        for k in ("states", "state_rounds"):
            if k in d:
                out[k] = d[k]
        if "tail_bound" in d:
            out["tail_bound"] = d["tail_bound"]
    else:
        out["engine"] = "battle kernel (Monte Carlo)"
    return out


# --------------------------------------------------------------------------- the game's odds
#: the most Monte Carlo battles one ``odds`` call plays (about three hours at a million a second)
MAX_MC_BATTLES = 10**10


def game_odds(game, battle: str | Path | None = None, *, rounds: int | None = None, method: str = "auto",
              games: int | None = None, seed: int = 0, data: str | Path | None = None,
              options: dict | None = None) -> dict[str, Any]:
    """``simlab.odds("doe-battle", battle, ...)``: load the battle, resolve options, compute odds.

    Args:
        game: the :class:`~simlab.games.doe.battle.DoeBattle` plug-in.
        battle: a battle file (TOML) or a built-in scenario name (default ``puerto-rico-passage``).
        rounds, method, games, seed: see :func:`battle_odds`.
        data: a data-pack override file (``--data``).
        options: game options (``max_rounds``, ``speed_disengage``), values as in ``--set``.

    Returns:
        :func:`battle_odds`'s dict plus ``scenario``, ``title``, ``source`` and ``data`` (the pack's
        name, version and hash, the values this battle read counted by provenance, and the
        provisional ones among them: ``provisional_used``).

    Raises:
        ScenarioError, DataPackError, SpecError: bad input (one line), including a seed outside
            0..2**64-1 or more than MAX_MC_BATTLES battles.
    """
    if not 0 <= seed < 2**64:
        raise SpecError(f"--seed must be in 0..2**64-1 (got {seed})")
    if games is not None and not 1 <= games <= MAX_MC_BATTLES:
        raise SpecError(f"--mc must be 1..{MAX_MC_BATTLES:,} battles (got {games})")
    if data is not None and not Path(data).is_file():
        raise DataPackError(f"data pack override not found: {data}")
    pack = game.load_data(data)
    opts = game.resolve_options(dict(options or {}))
    sc = game.load_scenario(str(battle) if battle is not None else None, pack)
    speed = SPEED_MODES.index(opts["speed_disengage"])
    res = battle_odds(sc.payload, rounds=rounds, method=method, games=games, seed=seed,
                      max_rounds=opts["max_rounds"], speed_mode=speed)
    view = pack.view()
    view.used |= set(sc.used)
    head = {"scenario": sc.name, "title": sc.title, "source": sc.source}
    return {**head, **res, "data": view.summary()}


# --------------------------------------------------------------------------- benchmarks
#: The 3 v 3 battle the benchmark solves exactly: the first three ships of each side of 18.2.6.
BENCH_3V3 = {
    "title": "18.2.6 ships, 3 v 3",
    "spain": {"leader": "Cervera", "units": [{"name": "Teresa"}, {"name": "Vizcaya"}, {"name": "Oquendo"}]},
    "us": {"leader": "Schley", "units": [{"name": "Massachusetts"}, {"name": "Brooklyn"}, {"name": "Texas"}]},
}


def bench_cases(game, quick: bool = False) -> list[BenchCase]:
    """``DoeBattle.bench_cases``: what issue 2 asks the benchmark to show for doe-battle.

    * the battle kernel on the 18.2.6 battle, battles/s on one core (target >= 1,000,000/s);
    * the pure-Python reference (:mod:`simlab.games.doe.reference`) on the same battle in the same
      run, and the ratio of the two ("kernel vs pure Python"; the kernel must be >= 50 times faster);
    * seconds for exact odds of round 1 of the 18.2.6 battle (4 v 7; target <= 0.1 s with a warm
      cache) and of a whole 3 v 3 battle of the 18.2.6 ships.
    """
    from .reference import play_reference

    pack = game.load_data()
    setup = game.load_scenario("puerto-rico-passage", pack).payload
    three = parse_battle(BENCH_3V3, pack.view(), "bench 3 v 3")
    n_kernel = 50_000 if quick else 1_000_000
    n_ref = 500 if quick else 5_000
    seeds = game_seeds(0, 0, 0, n_kernel)
    units = [(int(a), int(d), int(m), int(g)) for a, d, m, g in
             zip(setup.attack, setup.defense, setup.movement, setup.damage, strict=True)]
    return [
        BenchCase("kernel puerto-rico-passage", "battles", n_kernel, lambda: run_battles(setup, seeds, 1000, 0),
                  ratio_to="pure Python puerto-rico-passage", ratio_name="kernel vs pure Python"),
        BenchCase("pure Python puerto-rico-passage", "battles", n_ref,
                  lambda: play_reference(units, setup.n0, setup.stars, range(n_ref))),
        BenchCase("exact single round 4 v 7", "s", 1, lambda: exact_odds(setup, 1, 0),
                  detail="exact odds of round 1 of the 18.2.6 battle, warm cache"),
        BenchCase("exact whole battle 3 v 3", "s", 1, lambda: exact_odds(three, 1000, 0),
                  detail="exact odds of a whole battle of the first three ships of each side of 18.2.6"),
    ]
