"""The modules the Dawn of Empire kernels are compiled from (``doe-battle`` and ``dawn-of-empire``).

numba's ``cache=True`` checks only the source file of the function it loads, so a cached kernel
keeps old machine code after a module it embeds changes. Both games declare :data:`KERNEL_MODULES`
(``Game.kernel_modules``) and the framework (:func:`simlab.kernel_cache.ensure_fresh`) drops their
cached kernels before the first batch of a process when any of these sources changed. Keep the list
complete: ``tests/test_layers.py`` checks that every file with ``@njit`` is declared by some game.
"""

from __future__ import annotations

#: modules whose compiled code ends up in the campaign and battle kernels (paths from the repository root)
MODULES = ("simlab/rng.py", "simlab/games/doe/dice.py", "simlab/games/doe/enums.py",
           "simlab/games/doe/kernels.py", "simlab/games/doe/campaign_layout.py",
           "simlab/games/doe/campaign_orders.py", "simlab/games/doe/campaign_movement.py",
           "simlab/games/doe/campaign_combat.py", "simlab/games/doe/campaign_pursuit.py",
           "simlab/games/doe/policy_layout.py",
           "simlab/games/doe/policy_view.py",
           "simlab/games/doe/policy_missions.py", "simlab/games/doe/policy_deploy.py",
           "simlab/games/doe/policy_routes.py",
           "simlab/games/doe/policies.py", "simlab/games/doe/policy_combat.py",
           "simlab/games/doe/campaign_bundles.py", "simlab/games/doe/campaign_loop.py",
           "simlab/games/doe/odds_kernels.py", "simlab/games/doe/rollout.py")

#: the same modules as dotted names (``Game.kernel_modules``)
KERNEL_MODULES = tuple(m.removesuffix(".py").replace("/", ".") for m in MODULES)
