"""Dawn of Empire (1898): the battle line (``doe-battle``) and the campaign (``dawn-of-empire``).

Importing the package first makes sure numba's on-disk cache of its kernels matches their sources
(:mod:`._cache`: numba does not notice when a kernel's callee in another module changes).
"""

from ._cache import ensure_fresh as _ensure_fresh

_ensure_fresh()
