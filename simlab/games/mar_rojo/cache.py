"""The modules the Mar Rojo kernels are compiled from.

numba re-validates a cached function against the modification time of *its own* source file only;
the game loop in ``engine.py`` embeds every other kernel module, so a change to any of them must
drop the cached kernels. The game declares :data:`MODULE_NAMES` (``Game.kernel_modules``) and the
framework (:func:`simlab.kernel_cache.ensure_fresh`) does that before the first batch of a process.
Keep the list complete: ``tests/test_layers.py`` checks that every file with ``@njit`` is declared.
"""

from __future__ import annotations

__all__ = ["KERNEL_MODULES", "MODULE_NAMES"]

KERNEL_MODULES = ("actions", "bench", "build", "bundles", "combat", "deck", "dice", "engine", "enums", "fleet", "layout",
                  "legality", "policy_activation", "policy_cards", "policy_combat", "policy_setup", "policy_stakes",
                  "policy_value", "rollout", "solo", "victory")

#: :data:`KERNEL_MODULES` as dotted names
MODULE_NAMES = tuple(f"{__package__}.{m}" for m in KERNEL_MODULES)
