"""Dreadnought's scripted policies as numba kernels, apart from the rules (:mod:`..kernels`).

A side's policy reaches the kernels as four integer codes (``pc[side]``, layout ``PC_*``:
movement, fire allocation, torpedo use, preferred formation) and a knob vector (``kn[side]``,
layout ``K_*``); the named policies are presets of ``policies.toml``. Every plot a policy writes
is checked by the rules before it is kept.

* :mod:`.knowledge` - what a policy sees (4.2, 9.42);
* :mod:`.fire` - fire plots and the hold-range preferred range (5.3, 8.41);
* :mod:`.torpedo` - torpedo plots (8.0-8.6);
* :mod:`.movement` - formations, movement plots, withdrawal, smoke (6-7, 9.41, 12.1);
* :mod:`.tows` - towing (12.4);
* :mod:`.campaign` - fleet builders, allocation, Interception Bonus, schedule, repairs (11.0-11.8, 12.6).
"""
