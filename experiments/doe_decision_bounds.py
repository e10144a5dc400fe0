"""Dawn of Empire, issue 28: does each decision knob at its bounds change a game's winner?

For every entry of ``simlab/games/doe/decisions.toml`` with knobs, each knob is set to its ``lo`` and
its ``hi`` bound for the side that makes the choice (its default preset, US ``hunter`` / Spain
``raider``, where that preset's family holds the knob; the other side at its default), and 300
games are played at each bound on the same seeds (common random numbers,
:func:`simlab.testing.decision_bounds.knob_bounds_effects`). The 14.11 entries (free deployment)
are played with the ``free_deployment`` option on, as their ``measure`` in decisions.toml says,
since the set-up knobs do nothing without it.

Run: ``python experiments/doe_decision_bounds.py [--games 300] [--seed 20261202] [--out FILE.json]``;
prints one line per (entry, side, knob) and the fraction of entries where some knob changed a winner.
"""

from __future__ import annotations

import argparse
import json
import sys

from simlab.testing.decision_bounds import _summary, knob_bounds_effects

GAME = "dawn-of-empire"


def knob_rows(games: int, seed: int) -> list[dict]:
    """One row per (entry, side, knob) of the inventory
    (:func:`simlab.testing.decision_bounds.knob_bounds_effects`), each entry played where its
    ``measure`` says (the 14.11 entries with ``free_deployment`` on)."""
    return knob_bounds_effects(GAME, games, seed=seed)


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
