"""The conditions stamp (``conditions.json``) of a shipped solved population that predates them.

The populations in ``simlab/games/<game>/solved/<scenario>/`` were solved before ``simlab solve``
recorded its conditions (:mod:`simlab.measured`). Their ``solve.json`` records the options and the
scenario, their ``golden.sha256`` the game version, their ``iterations[*].population`` which
presets were played; what they lack is each preset's full knob vector and the data pack's hash.
This module computes those from the code it runs on, without playing a game:

    python -m simlab.testing.solved_conditions FOLDER [--commit C] [--write]

prints (or writes, with ``--write``) the stamp. It is valid only when run on code whose presets
and data pack are the solve's: ``--commit C`` names the commit whose code it was checked against
(the commit that shipped the solve, read with ``git archive C`` and this module run on it: the
stamp must come out the same there, apart from ``recorded``), and ``recorded`` says so. The stamps
shipped were made this way (issue 29); a solve run since writes its own (``solve.json``'s
``"conditions"``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..games import get_game
from ..games.policy import MIX_PREFIX, using_policies
from ..measured import STAMP, solve_conditions

__all__ = ["shipped_conditions"]


def shipped_conditions(folder: str | Path, recorded: str = "") -> dict:
    """The conditions stamp of the solve in ``folder`` as the running code gives them.

    Args:
        folder: a solved population (``policies.toml``, ``solve.json``, ``golden.sha256``).
        recorded: how the stamp was checked (stored as its ``recorded``).

    Returns:
        The stamp (:func:`simlab.measured.solve_conditions`): every policy of every iteration's
        population with the family and full knob vector the running code resolves for it (the
        found presets from ``folder/policies.toml``), the data pack hash of the game's own pack,
        the scenario ``builtin:NAME``, ``solve.json``'s options and ``golden.sha256``'s digest as
        the game version.

    Raises:
        OSError, ValueError: unreadable files; simlab.errors.InputError: a preset the running code
        does not know (it is not the solve's code).
    """
    folder = Path(folder)
    run = json.loads((folder / "solve.json").read_text())
    g = get_game(run["game"])
    sc = g.load_scenario(run["scenario"])
    pack = g.load_data()
    policies: dict[str, dict] = {}
    with using_policies(folder / "policies.toml"):
        for it in run["iterations"]:
            for side, names in it["population"].items():
                for n in names:
                    if n.startswith(MIX_PREFIX) or n in policies.get(side, {}):
                        continue
                    p = g.resolve_policies(run["sides"], {side: n}, {})[side]
                    policies.setdefault(side, {})[n] = {"family": p.family, "knobs": dict(p.knobs)}
    stamp = solve_conditions(g, {"name": sc.name, "source": str(sc.source)}, run["options"],
                             {"hash": pack.hash} if pack is not None else None, policies, recorded)
    digest, _name = (folder / "golden.sha256").read_text().split()
    stamp["game_version"] = digest  # the golden rows the solve was played on (tests/test_solved.py)
    return stamp


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simlab.testing.solved_conditions", description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--commit", default="", help="the commit whose code gave the same stamp (recorded)")
    ap.add_argument("--write", action="store_true", help=f"write FOLDER/{STAMP}")
    a = ap.parse_args(argv)
    how = ("added after the solve (issue 29) without re-running it: computed by simlab.testing.solved_conditions "
           "from the code of the commit that shipped the solve"
           + (f" ({a.commit}, read with git archive)" if a.commit else "")
           + " and found the same on the code it was written with; the options and the scenario are solve.json's, "
           "the game version golden.sha256's")
    try:
        stamp = shipped_conditions(a.folder, how)
    except (OSError, ValueError) as e:
        print(f"error: {a.folder}: {e}", file=sys.stderr)
        return 2
    text = json.dumps(stamp, indent=1, sort_keys=True) + "\n"
    if a.write:
        (Path(a.folder) / STAMP).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
