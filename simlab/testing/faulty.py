"""``faulty-battle``: the registry's fault host (:data:`simlab.games.FAULT_HOST`) with faults on
purpose, to test how sweeps survive them.

Not registered by default: call :func:`register_faulty` (tests do). Sweeps hand the registry
target to their workers, so the game plays on every backend.

Options (beside the host game's):

* ``fault``: ``none``; ``kill`` (the process SIGKILLs itself whenever its batch holds the seed
  ``fault_seed``); ``kill-once`` (the same, only the first time: a marker file named after the seed
  in ``fault_marker`` remembers it); ``raise`` (raises ``RuntimeError`` instead); ``hang`` (sleeps
  for an hour); ``corrupt`` (returns the batch with that game's winner out of range);
  ``evil-events`` (adds an events table named ``../../escaped``, a path out of the output folder).
* ``fault_seed``: the per-game seed (:func:`simlab.rng.game_seeds`) that triggers the fault.
* ``fault_marker``: a folder for ``kill-once`` markers.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np

from ..games import FAULT_HOST, get_game, register
from ..games.base import Option

__all__ = ["GAME", "FaultyBattle", "register_faulty"]

_HOST = type(get_game(FAULT_HOST))

NAME = "faulty-battle"
TARGET = "simlab.testing.faulty:GAME"


class FaultyBattle(_HOST):  # type: ignore[misc, valid-type]
    """The fault host game whose ``play_batch`` dies, or raises, on one chosen seed."""

    name = NAME
    title = f"{FAULT_HOST} with injected faults (tests only)"
    options = _HOST.options + (
        Option("fault", str, "none", choices=("none", "kill", "kill-once", "raise", "hang", "corrupt",
                                                     "evil-events"),
               doc="what happens to a batch holding fault_seed"),
        Option("fault_seed", int, 0, min=0, max=2**64 - 1, doc="the per-game seed that triggers the fault"),
        Option("fault_marker", str, "", doc="folder of kill-once markers"),
    )

    def play_batch(self, scenario, options, policies, seeds):
        """The host game's batch, unless ``seeds`` holds ``fault_seed`` (see the module docstring)."""
        mode = options["fault"]
        if mode != "none" and np.any(np.asarray(seeds, dtype=np.uint64) == np.uint64(options["fault_seed"])):
            if mode == "raise":
                raise RuntimeError(f"injected fault at seed {options['fault_seed']}")
            if mode == "hang":
                time.sleep(3600)
            if mode in ("corrupt", "evil-events"):
                b = super().play_batch(scenario, options, policies, seeds)
                if mode == "corrupt":
                    b.games["winner"][np.asarray(seeds, dtype=np.uint64) == np.uint64(options["fault_seed"])] = 7
                else:
                    b.events["../../escaped"] = {"game": np.zeros(1, dtype=np.int64), "x": np.ones(1)}
                return b
            marker = Path(options["fault_marker"] or ".") / f"fault-{options['fault_seed']}"
            if mode == "kill" or not marker.exists():
                if mode == "kill-once":
                    marker.touch()
                os.kill(os.getpid(), signal.SIGKILL)
        return super().play_batch(scenario, options, policies, seeds)


GAME = FaultyBattle()


def register_faulty() -> str:
    """Register ``faulty-battle`` in this process; returns its name."""
    register(NAME, TARGET)
    return NAME
