"""Test-session set-up: numba's on-disk kernel cache is made fresh before any test runs.

The framework refreshes a game's cached kernels before its first ``play_batch`` (and odds and
benchmarks); tests also call kernels directly (``run_games``, ``*_nb``), so every registered game's
declared kernel modules are checked once per test process here, before the first of them loads.
"""

from __future__ import annotations


def pytest_sessionstart(session) -> None:
    from simlab.games import game_names, get_game
    for name in game_names():
        get_game(name).ensure_kernels_fresh()
