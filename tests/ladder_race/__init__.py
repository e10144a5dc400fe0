"""``ladder-race``: the fourth game, a tiny plug-in that lives in one folder outside ``simlab/``.

It exists to prove the plug-in contract (docs/adding-a-game.md): ``tests/test_fourth_game.py``
registers it with one call and plays a sweep, ``report``, ``tune``, ``bench``, ``soak`` and
``odds`` through the public CLI without any file under ``simlab/`` knowing it.
"""
