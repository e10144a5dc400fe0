"""Mar Rojo: the naval card game of the Spanish Civil War (rulebook ``004_de35405c1f288ce0.txt``).

The game plug-in is :data:`simlab.games.mar_rojo.game.GAME` (registered as ``mar-rojo``).
"""
