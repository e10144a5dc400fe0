"""Dawn of Empire (1898): the battle line (``doe-battle``) and the campaign (``dawn-of-empire``).

Both games declare the kernel modules of :mod:`._cache`; the framework keeps numba's on-disk cache
of them fresh before their first batch. Importing the package has no side effect.
"""
