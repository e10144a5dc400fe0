"""The game registry: name -> plug-in, imported lazily so start-up stays fast.

To add a game, add one line to ``_REGISTRY`` pointing at a module attribute holding a
:class:`simlab.games.base.Game` instance.
"""

from __future__ import annotations

import importlib

from ..errors import SpecError
from .base import Batch, Game, Option, Scenario

__all__ = ["Batch", "Game", "Option", "Scenario", "game_names", "get_game", "register"]

_REGISTRY: dict[str, str] = {
    "doe-battle": "simlab.games.doe.battle:GAME",
    "dawn-of-empire": "simlab.games.doe.campaign:GAME",
}

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


def register(name: str, target: str) -> None:
    """Register a game plug-in at run time: ``target`` is ``"package.module:ATTRIBUTE"``.

    Worker processes import the registry afresh, so a game registered this way is only visible
    to sweeps with ``workers=1`` unless the registering module is imported by the workers too.

    Raises:
        SpecError: if ``target`` is not of the form ``module:attribute``.
    """
    if ":" not in target:
        raise SpecError(f"register {name}: target must be 'module:attribute', got {target!r}")
    _REGISTRY[name] = target
    _LOADED.pop(name, None)
