"""Jutland's floor (issue 17): games/s of process CPU time under the cheapest legal policy the game
offers (``random-legal`` on both sides) against the scripted presets and single-knob variants of
the default, so that a game's time splits into rules and the scripted policy's thinking. Prints a
Markdown table: CPU games/s (median of 3 runs of N games), Game-Turns a game, CPU us a Game-Turn.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/jutland_floor.py 60
"""

import sys
import time

import numpy as np

from simlab.games import get_game
from simlab.rng import game_seeds

g = get_game("dreadnought")
s = g.load_scenario("jutland", g.load_data())
o = g.resolve_options({})
N = int(sys.argv[1]) if len(sys.argv) > 1 else 100
both = list(s.sides)
cases = [
    ("close-and-engage (default)", {}, None),
    ("hold-range", {x: "hold-range" for x in both}, None),
    ("break-contact", {x: "break-contact" for x in both}, None),
    ("random-legal (the floor)", {x: "random-legal" for x in both}, None),
    ("default, fire nearest (fire 2)", {}, {x: {"fire": 2} for x in both}),
    ("default, fire random (fire 3)", {}, {x: {"fire": 3} for x in both}),
    ("default, fire and torpedoes random", {}, {x: {"fire": 3, "torpedoes": 3} for x in both}),
    ("default, random movement (movement 4)", {}, {x: {"movement": 4, "formation": -1} for x in both}),
]
print("| policy (both sides) | CPU games/s | Game-Turns a game | CPU us a Game-Turn |")
print("|---|---:|---:|---:|")
for name, given, knobs in cases:
    p = g.resolve_policies(s.sides, given, knobs)
    g.play_batch(s, o, p, game_seeds(1, 0, 0, 2))
    rates = []
    for _ in range(3):
        c = time.process_time()
        b = g.play_batch(s, o, p, game_seeds(7, 0, 0, N))
        rates.append(N / (time.process_time() - c))
    rates.sort()
    turns = float(np.mean(np.asarray(b.games["turns"])))
    print(f"| {name} | {rates[1]:,.0f} | {turns:.1f} | {1e6 / rates[1] / turns:,.0f} |", flush=True)
