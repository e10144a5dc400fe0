"""The game registry: name -> plug-in, imported lazily so start-up stays fast.

To add a game, add one line to ``_REGISTRY`` pointing at a module attribute holding a
:class:`simlab.games.base.Game` instance (or, for a game outside this package, call
:func:`register` at run time); docs/adding-a-game.md walks through it. Nothing is imported until a
game is asked for.
"""

from __future__ import annotations

import importlib

from ..errors import SpecError
from .base import Batch, BenchCase, Game, Option, Scenario

__all__ = ["FAULT_HOST", "Batch", "BenchCase", "Game", "Option", "Scenario", "game_names", "game_target", "get_game", "register", "rollout_games",
           "unregister"]

_REGISTRY: dict[str, str] = {
    "doe-battle": "simlab.games.doe.battle:GAME",
    "dawn-of-empire": "simlab.games.doe.campaign:GAME",
    "dreadnought": "simlab.games.dreadnought.game:GAME",
    "mar-rojo": "simlab.games.mar_rojo.game:GAME",
    "synthetic": "simlab.games.synthetic:GAME",  # a test instrument with known answers
    "synthetic-duel": "simlab.games.synthetic_duel:GAME",  # known equilibrium over knobs (simlab solve)
}

#: the registered game :mod:`simlab.testing.faulty` injects faults into (a fast game whose default
#: scenario needs no file); tests of how sweeps survive faults play it
FAULT_HOST = "doe-battle"

_LOADED: dict[str, Game] = {}


def game_names() -> list[str]:
    """Registered game names, sorted."""
    return sorted(_REGISTRY)


def get_game(name: str) -> Game:
    """The plug-in of a registered game.

    Raises:
        SpecError: if no game has that name.
    """
    if name not in _REGISTRY:
        raise SpecError(f"unknown game '{name}' (games: {', '.join(game_names())})")
    if name not in _LOADED:
        mod, attr = _REGISTRY[name].split(":")
        _LOADED[name] = getattr(importlib.import_module(mod), attr)
    return _LOADED[name]


def game_target(name: str) -> str:
    """The ``"module:attribute"`` a registered game is imported from (sweeps hand it to workers, so a
    game registered at run time plays on every backend as long as its module is importable there).

    Raises:
        SpecError: if no game has that name.
    """
    if name not in _REGISTRY:
        raise SpecError(f"unknown game '{name}' (games: {', '.join(game_names())})")
    return _REGISTRY[name]


def register(name: str, target: str) -> None:
    """Register a game plug-in at run time: ``target`` is ``"package.module:ATTRIBUTE"``.

    Sweeps pass the target to their workers with each chunk, so the game plays on every backend
    provided ``package.module`` is importable where the workers run.

    Raises:
        SpecError: if ``target`` is not of the form ``module:attribute``.
    """
    if ":" not in target:
        raise SpecError(f"register {name}: target must be 'module:attribute', got {target!r}")
    _REGISTRY[name] = target
    _LOADED.pop(name, None)


def unregister(name: str) -> None:
    """Forget a game registered at run time (tests that register one clean up with it).

    Raises:
        SpecError: if no game has that name.
    """
    if name not in _REGISTRY:
        raise SpecError(f"unknown game '{name}' (games: {', '.join(game_names())})")
    del _REGISTRY[name]
    _LOADED.pop(name, None)


def rollout_games() -> list[str]:
    """The registered games whose class has a rollout exploiter (overrides ``Game.resolve_rollout``)."""
    return [n for n in game_names() if type(get_game(n)).resolve_rollout is not Game.resolve_rollout]
