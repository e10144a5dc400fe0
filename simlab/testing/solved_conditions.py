"""The conditions stamp (``conditions.json``) of a shipped solved population that predates them.

The populations in ``simlab/games/<game>/solved/<scenario>/`` were solved before ``simlab solve``
recorded its conditions (:mod:`simlab.measured`). Their ``solve.json`` records the options and the
scenario, their ``golden.sha256`` the game version, their ``iterations[*].population`` which
presets were played; what they lack is each preset's full knob vector and the data pack's hash.
This module computes those from the code it runs on, without playing a game:

    python -m simlab.testing.solved_conditions FOLDER [--commit C] [--write]
    python -m simlab.testing.solved_conditions FOLDER --added-knobs


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

__all__ = ["restamp_added_knobs", "shipped_conditions"]


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


def _families_grown(folder: Path, game) -> str | None:
    """Rewrite ``folder/policies.toml``'s ``[families.NAME]`` tables to the game's families where
    these only gained knobs (each old knob's default, bounds and kind unchanged); returns the old
    text (to restore) or None where no table changed.

    Raises:
        ValueError: a family whose old knobs changed, or that lost one.
    """
    import tomllib

    from ..games.policy import family_lines
    path = folder / "policies.toml"
    text = path.read_text()
    doc = tomllib.loads(text)
    fams = game.policy_book().families
    out = text
    for name, f in (doc.get("families") or {}).items():
        cur = fams.get(name)
        if cur is None:
            raise ValueError(f"{folder}: family {name} is no longer the game's")
        have = {k.name: k for k in cur.knobs}
        for kn, k in (f.get("knobs") or {}).items():
            c = have.get(kn)
            if c is None or (c.default, c.lo, c.hi, c.kind.__name__) != (k["default"], k["lo"], k["hi"], k["kind"]):
                raise ValueError(f"{folder}: family {name}'s knob {kn} changed since the solve: re-run the solve")
        if set(have) == set(f.get("knobs") or {}):
            continue
        start = out.index(f"[families.{name}]")
        end = out.find("\n\n[", start)
        end = len(out) if end < 0 else end
        out = out[:start] + "\n".join(family_lines(cur)) + out[end:]
    if out == text:
        return None
    path.write_text(out)
    return text


def restamp_added_knobs(folder: str | Path, when: str) -> list[str]:
    """Re-stamp a shipped solve whose families gained knobs since it was played, where nothing
    else changed: every knob the running code adds to a recorded preset sits at its family's
    default, each default being the play the knob did not exist for (issue 28: a new decision
    knob's default replays the old play, which the unchanged golden rows prove for the presets
    they play), and the game version, scenario, options and data pack are the stamp's. Writes
    the new stamp to ``solve.json``'s ``"conditions"`` (where it has one) and ``conditions.json``,
    its ``recorded`` saying which knobs were added and when; the ``[families.NAME]`` tables of its
    ``policies.toml`` (copies of the game's families) get the added knobs' definitions.

    Args:
        folder: a solved population; when: the date written into ``recorded``.

    Returns:
        ``["side preset: knob=default", ...]``, the knobs added (``[]``: the stamp was current,
        nothing written).

    Raises:
        ValueError: a condition other than added knobs differs, a recorded knob changed value, or
            an added knob is not at its default: the solve must be re-run (one line, nothing written).
    """
    from ..measured import stamp_of
    folder = Path(folder)
    old = stamp_of(folder)
    if old is None:
        raise ValueError(f"{folder}: no conditions stamp to re-stamp")
    before = _families_grown(folder, get_game(old["game"]))
    try:
        return _restamp(folder, when, old)
    except BaseException:
        if before is not None:  # nothing written: the policies file as it was
            (folder / "policies.toml").write_text(before)
        raise


def _restamp(folder: Path, when: str, old: dict) -> list[str]:
    new = shipped_conditions(folder, old["recorded"])
    if new == old:
        return []
    for k in set(old) | set(new):
        if k != "policies" and old.get(k) != new.get(k):
            raise ValueError(f"{folder}: the {k} differs from the solve's ({old.get(k)!r} there, {new.get(k)!r} now): "
                             "re-run the solve")
    g = get_game(old["game"])
    fams = g.policy_book().families
    added = []
    for side in sorted(set(old["policies"]) | set(new["policies"])):
        was, now = old["policies"].get(side, {}), new["policies"].get(side, {})
        if set(was) != set(now):
            raise ValueError(f"{folder}: {side}'s policies differ ({sorted(was)} there, {sorted(now)} now)")
        for name in sorted(now):
            a, b = was[name], now[name]
            if a["family"] != b["family"]:
                raise ValueError(f"{folder}: {side} {name}'s family differs ({a['family']} there, {b['family']} now)")
            for knob, v in a["knobs"].items():
                if b["knobs"].get(knob) != v:
                    raise ValueError(f"{folder}: {side} {name}'s knob {knob} differs ({v} there, "
                                     f"{b['knobs'].get(knob, 'absent')} now): re-run the solve")
            for knob in sorted(set(b["knobs"]) - set(a["knobs"])):
                default = fams[b["family"]].knob(knob).default
                if b["knobs"][knob] != default:
                    raise ValueError(f"{folder}: {side} {name}'s added knob {knob} is {b['knobs'][knob]}, not its "
                                     f"default {default}: re-run the solve")
                added.append(f"{side} {name}: {knob}={default}")
    knobs = sorted({a.split(": ")[1] for a in added})
    new["recorded"] = (f"{old['recorded']}; re-stamped {when} by simlab.testing.solved_conditions --added-knobs: "
                       f"knobs {', '.join(knobs)} were added to the families since, at their defaults, which "
                       "replay the play the solve measured (the game version, its golden rows, is unchanged)")
    import json as _json
    run_path = folder / "solve.json"
    run = _json.loads(run_path.read_text())
    if "conditions" in run:
        run["conditions"] = new
        run_path.write_text(_json.dumps(run, indent=2, default=str) + "\n")
    (folder / STAMP).write_text(_json.dumps(new, indent=1, sort_keys=True) + "\n")
    return added


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simlab.testing.solved_conditions", description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--commit", default="", help="the commit whose code gave the same stamp (recorded)")
    ap.add_argument("--write", action="store_true", help=f"write FOLDER/{STAMP}")
    ap.add_argument("--added-knobs", action="store_true",
                    help="re-stamp a solve whose families only gained knobs at their defaults since")
    a = ap.parse_args(argv)
    if a.added_knobs:
        import datetime
        try:
            added = restamp_added_knobs(a.folder, datetime.date.today().isoformat())
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(f"{a.folder}: " + (f"re-stamped, {len(added)} knob values added" if added else "the stamp is current"))
        return 0
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
