"""Dawn of Empire, issue 28: does each decision knob at its bounds change a game's winner?

For every entry of ``simlab/games/doe/decisions.toml`` with knobs, each knob is set to its ``lo`` and
its ``hi`` bound for the side that makes the choice (its default preset, US ``hunter`` / Spain
``raider``, where that preset's family holds the knob; the other side at its default), and 300
games are played at each bound on the same seeds (common random numbers,
:func:`simlab.testing.decision_bounds.knob_bounds_effects`). The 14.11 entries (free deployment)
are played with the ``free_deployment`` option on, since the set-up knobs do nothing without it.

Run: ``python experiments/doe_decision_bounds.py [--games 300] [--seed 20261202] [--out FILE.json]``;
prints one line per (entry, side, knob) and the fraction of entries where some knob changed a winner.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from simlab.games import get_game
from simlab.rng import game_seeds
from simlab.testing.decision_bounds import _preset_for, _summary

GAME = "dawn-of-empire"


def knob_rows(games: int, seed: int) -> list[dict]:
    """One row per (entry, side, knob) of the inventory: ``{section, decision, side, knob, preset, lo,
    hi, changed, options}``, ``changed`` the games (of ``games``) whose winner differs between the
    knob's ``lo`` and ``hi`` bounds on the same seeds. (The rows of
    :func:`simlab.testing.decision_bounds.knob_bounds_effects`, played with resolved options: that
    function hands the game ``{}``, which the DoE runtime refuses, KeyError 'turns'.)"""
    g = get_game(GAME)
    scen = g.load_scenario(None)
    sides = list(scen.sides)
    seeds = game_seeds(seed, 0, 0, games)
    book = g.policy_book()
    out = []
    for d in g.decisions():
        for side in (sides if d.side == "*" else [d.side]):
            for knob in d.knobs:
                preset = _preset_for(g, side, knob)
                row = {"section": d.section, "decision": d.decision, "side": side, "knob": knob, "preset": preset}
                if preset is None:
                    row.update(changed=None, why="no preset of this side's families holds the knob")
                    out.append(row)
                    continue
                given = {"free_deployment": True} if d.section.startswith("14.11") else {}
                options = g.resolve_options(given)
                k = book.families[book.resolve(side, preset).family].knob(knob)
                winners = []
                for v in (k.lo, k.hi):
                    pols = g.resolve_policies(sides, {side: preset}, {side: {knob: v}})
                    b = g.play_batch(scen, options, pols, seeds)
                    winners.append(np.asarray(b.games["winner"]))
                row.update(lo=k.lo, hi=k.hi, options=given, changed=int(np.count_nonzero(winners[0] != winners[1])))
                out.append(row)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    rows = knob_rows(a.games, a.seed)
    hit, n = _summary(rows)
    for r in rows:
        what = r.get("why") if r["changed"] is None else f"{r['changed']}/{a.games} winners changed"
        print(f"{r['section']:>10} {r['side']:>6} {r['knob']:<18} {what}")
    print(f"{hit} of {n} entries with knobs change a winner at their bounds ({100 * hit / max(n, 1):.0f}%)")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"games": a.games, "seed": a.seed, "rows": rows, "entries_that_matter": hit,
                       "entries_with_knobs": n}, f, indent=1)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
