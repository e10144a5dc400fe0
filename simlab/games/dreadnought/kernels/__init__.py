"""Dreadnought's rules as numba kernels, one module per phase of the Game-Turn (Rules 4.0-12.6).

Only ``@njit(cache=True)`` functions (suffix ``_nb``) and the constant arrays they read live in
these modules; the array layouts are in :mod:`..layout`, the integer constants in :mod:`..enums`.
The scripted policies' choices are apart, in :mod:`..policies`.

* :mod:`.geometry` - hexes, range, bearing, arcs of fire (5.5, 7.0-7.1);
* :mod:`.visibility` - visibility roll, sighting, smoke, radar, spotting planes, sun (5.71, 9.42, 12.1-12.5);
* :mod:`.fire` - dice, Range Effects, DPT, CRT, secondaries, Fire Execution (5.0-5.9, 8.41);
* :mod:`.movement` - plots, paths, safe zones, stacking, collisions, tows, Movement Execution (6-7, 9.13-9.15, 12.3-12.4);
* :mod:`.formations` - columns, lines and wakes (6.2);
* :mod:`.torpedo` - markers, launch, sweep and attacks (8.0-8.6);
* :mod:`.damage` - damage steps, damage control, awards, victory and the end checks (5.41-5.44, 9.5, 10.x);
* :mod:`.contact` - the campaign's approach, deployment, delayed entry and off-map moves (9.2-9.3, 9.41, 11.3-11.4);
* :mod:`.turn` - the Game-Turn and the historical scenario (4.0-4.2);
* :mod:`.campaign` - the Campaign Game and the Extended Campaign (11.0-11.9, 12.6).

A kernel compiled here embeds the kernels it calls from the other modules; numba's cache does not
notice when those change, so the framework refreshes the cache over every module the game's
kernels are built from (``Game.kernel_modules``, found in the folder) before its first kernel call.
"""
