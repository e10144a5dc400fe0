"""The conformance check every registered game must pass.

``check_game(name)`` plays small batches of a game's scenarios and asserts the plug-in contract
(:mod:`simlab.games.base`):

* required columns exist with numeric dtypes and one row per seed;
* ``winner`` is in ``-1..len(sides)-1``, scores are finite, ``turns >= 0``;
* every game ends (``turns`` below the game's declared bound, if any);
* reproducibility: the same seeds give identical columns, and a batch split in two gives the
  same rows as the whole batch (so rows cannot depend on chunking);
* backends: a small sweep through the runner writes identical rows in this process (1 worker),
  on 2 threads and on 2 worker processes, each with another chunk size.

It raises ``AssertionError`` with a message naming the game, scenario and column.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..games import Batch, get_game
from ..games.contract import batch_violation
from ..rng import game_seeds

__all__ = ["check_batch", "check_game", "check_workers"]


def check_batch(game_name: str, scenario, batch: Batch, n: int, max_turns: int | None = None) -> None:
    """Assert that one batch honours the contract (:func:`simlab.games.contract.batch_violation`).

    Raises:
        AssertionError: with the first violation's one-line message.
    """
    bad = batch_violation(game_name, scenario, batch, n, max_turns)
    assert bad is None, bad


def _same(a: Batch, b: Batch, where: str) -> None:
    assert set(a.games) == set(b.games), f"{where}: columns differ between runs"
    for k in a.games:
        assert np.array_equal(np.asarray(a.games[k]), np.asarray(b.games[k])), f"{where}: column {k} is not reproducible"


def _concat(a: Batch, b: Batch, na: int) -> Batch:
    games = {k: np.concatenate([np.asarray(a.games[k]), np.asarray(b.games[k])]) for k in a.games}
    events = {}
    for t in a.events:
        events[t] = {k: np.concatenate([np.asarray(a.events[t][k]),
                                        np.asarray(b.events[t][k]) + (na if k == "game" else 0)])
                     for k in a.events[t]}
    return Batch(games, a.categories, events)


def check_game(name: str, scenarios: list[str] | None = None, n: int = 64, seed: int = 12345,
               options: Mapping[str, Any] | None = None, policies: Mapping[str, str] | None = None,
               max_turns: int | None = None, workers: bool = True) -> None:
    """Run the conformance check on a registered game.

    Args:
        name: registered game name.
        scenarios: scenario names (default: every built-in scenario).
        n: games per batch.
        seed: master seed.
        options, policies: given to the game (defaults otherwise).
        max_turns: bound every game must end within (None: no bound checked).
        workers: also compare sweeps in this process, on threads and on worker processes
            (:func:`check_workers`; spawns processes).

    Raises:
        AssertionError: on the first violation.
    """
    game = get_game(name)
    pack = game.load_data()
    opts = game.resolve_options(options or {})
    for sname in scenarios or list(game.scenarios):
        sc = game.load_scenario(sname, pack)
        pols = game.resolve_policies(sc.sides, policies or {})
        seeds = game_seeds(seed, 1, 0, n)
        b1 = game.play_batch(sc, opts, pols, seeds)
        check_batch(name, sc, b1, n, max_turns)
        b2 = game.play_batch(sc, opts, pols, seeds)
        _same(b1, b2, f"{name}/{sname}")
        k = n // 3
        split = _concat(game.play_batch(sc, opts, pols, seeds[:k]), game.play_batch(sc, opts, pols, seeds[k:]), k)
        _same(b1, split, f"{name}/{sname} (split batch)")
        for k2 in b1.events:
            for c in b1.events[k2]:
                assert np.array_equal(np.asarray(b1.events[k2][c]), np.asarray(split.events[k2][c])), \
                    f"{name}/{sname}: events {k2}.{c} depend on the batch split"
    if workers:
        check_workers(name, (scenarios or list(game.scenarios))[0], options=options, policies=policies)


def check_workers(name: str, scenario: str, games: int = 40, options: Mapping[str, Any] | None = None,
                  policies: Mapping[str, str] | None = None) -> None:
    """A sweep with 1 worker (chunk size 7), on 2 threads (chunk size 3, so the threads play many
    chunks at once) and on 2 worker processes (chunk size 13) writes identical rows."""
    from ..results import load
    from ..sweeps.runner import run_sweep
    from ..sweeps.spec import SweepSpec
    spec = dict(name="conformance", game=name, scenarios=[scenario], games=games, seed=99,
                options=dict(options or {}), policies={k: [v] for k, v in (policies or {}).items()})
    with tempfile.TemporaryDirectory() as d:
        a = run_sweep(SweepSpec(**spec, chunk_size=7), Path(d) / "a", workers=1, progress=False)
        b = run_sweep(SweepSpec(**spec, chunk_size=3), Path(d) / "b", workers=2, progress=False)
        c = run_sweep(SweepSpec(**spec, chunk_size=13), Path(d) / "c", workers=2, backend="processes",
                      progress=False)
        assert b.manifest["last_run"].get("pool") == "threads", b.manifest["last_run"]
        assert c.manifest["last_run"]["backend"] == "processes", c.manifest["last_run"]
        da, db, dc = load(a.path), load(b.path), load(c.path)
        assert len(da) == games, f"{name}: {len(da)} rows for {games} games"
        assert da.equals(db), f"{name}: rows differ between 1 worker/chunk 7 and 2 threads/chunk 3"
        assert da.equals(dc), f"{name}: rows differ between 1 worker/chunk 7 and 2 processes/chunk 13"
