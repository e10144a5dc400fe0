"""The conditions an exploitability figure was measured under, and whether a sweep played under them.

A best-response gain (``simlab solve``'s figure for a preset or a mix) describes one game: the game
version, the rules options, the data pack, the scenario and the policy's full knob vector that the
solve played. A sweep that changes any of them plays another game, about which the figure says
nothing; :func:`difference` names the first condition that differs, so that ``simlab report``
prints "unmeasured (knob raids 1→0 differs from the solve's)" instead of a figure that no longer
applies (issue 29, "Never stale").

A solve records its conditions in ``solve.json`` (``"conditions"``, written by
:func:`solve_conditions`); the populations shipped before that was recorded carry them in a
``conditions.json`` beside it (``stamp_of``). Both have the form::

    {"format": "simlab-conditions/1", "game": NAME, "game_version": SHA256 | None,
     "scenario": {"name": NAME, "source": "builtin:NAME" | PATH}, "options": {option: value},
     "data_hash": HASH | None, "policies": {side: {preset: {"family": NAME, "knobs": {knob: value}}}},
     "recorded": "how these were recorded"}

The game version is the SHA-256 of the game's golden file (``tests/golden/<game>.json``, the rows
a fixed set of games plays; it changes exactly when a change moves rows on purpose, see
``tests/test_golden.py``); None where the game has none (a plugin), and then no figure applies.

Gains are on one scale per side: the payoff is the first side's win rate minus the second's, in
``[-1, 1]``, and a figure is the gain of the best response found against the policy over the
game's value ``v``. Against a first-side policy the second side can gain at most ``1 + v``;
against a second-side policy the first side at most ``1 - v`` (:func:`max_gain`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["FORMAT", "cell_conditions", "difference", "game_version", "max_gain", "solve_conditions", "stamp_of"]

FORMAT = "simlab-conditions/1"
#: the golden files of the games simlab ships (the game version, see the module docstring)
GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "golden"
STAMP = "conditions.json"


def game_version(game) -> str | None:
    """The game version: SHA-256 (hex, 64 digits) of ``tests/golden/<game.name>.json``, or None
    where that file does not exist (a plugin game, an installed simlab without its tests)."""
    f = GOLDEN_DIR / f"{game.name}.json"
    try:
        return hashlib.sha256(f.read_bytes()).hexdigest()
    except OSError:
        return None


def max_gain(side: str, sides, value: float | None) -> float | None:
    """The largest gain any response can make against a policy of ``side`` over the value.

    Args:
        side: the policy's side; sides: the solve's two sides (payoff = first's win rate minus
            the second's); value: the game's value ``v`` in ``[-1, 1]`` where the gain was measured.

    Returns:
        ``1 + v`` for a first-side policy (its opponent can push the payoff down to -1),
        ``1 - v`` for a second-side policy, None when ``value`` is None or ``side`` is not one of
        ``sides``.
    """
    if value is None or side not in list(sides)[:2]:
        return None
    return 1.0 + float(value) if side == list(sides)[0] else 1.0 - float(value)


def solve_conditions(game, scenario: Mapping[str, Any], options: Mapping[str, Any], data: Mapping[str, Any] | None,
                     policies: Mapping[str, Mapping[str, Any]], recorded: str) -> dict:
    """The conditions stamp of a solve (the module docstring's form).

    Args:
        game: the :class:`~simlab.games.base.Game`; scenario: ``{"name", "source"}`` of the scenario
            played; options: the resolved options; data: the sweep manifest's ``data`` summary (its
            ``hash``) or None; policies: ``{side: {preset: {"family", "knobs"}}}`` every policy the
            solve played, with its full knob vector; recorded: how the stamp was made (free text).
    """
    return {"format": FORMAT, "game": game.name, "game_version": game_version(game),
            "scenario": {"name": str(scenario["name"]), "source": str(scenario["source"])},
            "options": _plain(dict(options)), "data_hash": (data or {}).get("hash"),
            "policies": {s: {n: {"family": str(p["family"]), "knobs": _plain(dict(p["knobs"]))} for n, p in ps.items()}
                         for s, ps in policies.items()},
            "recorded": recorded}


def stamp_of(folder: str | Path) -> dict | None:
    """The conditions a solve in ``folder`` recorded: ``solve.json``'s ``"conditions"``, else a
    ``conditions.json`` beside it; None when neither holds a stamp of :data:`FORMAT`."""
    folder = Path(folder)
    for f, key in ((folder / "solve.json", "conditions"), (folder / STAMP, None)):
        try:
            doc = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        doc = doc.get(key) if key and isinstance(doc, dict) else doc
        if isinstance(doc, dict) and doc.get("format") == FORMAT:
            return doc
    return None


def cell_conditions(man: Mapping[str, Any], cell: Mapping[str, Any]) -> dict:
    """What one cell of a sweep played under, from its manifest: ``{"game_version", "scenario":
    {name, source}, "options", "data_hash", "families": {side: name}, "knobs": {side: {knob: value}}}``
    (``game_version`` None when the sweep did not record it)."""
    sc = (man.get("scenarios") or {}).get(cell.get("scenario")) or {}
    return {"game_version": man.get("game_version"),
            "scenario": {"name": sc.get("name", cell.get("scenario")), "source": sc.get("source")},
            "options": dict(cell.get("options") or {}), "data_hash": (man.get("data") or {}).get("hash"),
            "families": dict(cell.get("policy_families") or {}), "knobs": dict(cell.get("knobs") or {})}


def difference(stamp: Mapping[str, Any] | None, played: Mapping[str, Any], side: str, policy: str,
               knobs: bool = True) -> str | None:
    """The first condition under which a sweep's cell differs from the solve's, as text, or None
    when every condition is the same (the figure applies).

    Args:
        stamp: the solve's conditions (:func:`stamp_of`), or None when it recorded none.
        played: the cell's (:func:`cell_conditions`).
        side, policy: whose figure is asked for.
        knobs: also compare the policy's family and full knob vector (False for a mix, whose
            components are the solve's own presets).

    Returns:
        e.g. ``"knob raids 1→0 differs from the solve's"``, ``"option turns 6→9 differs from the
        solve's"``, ``"the data pack c48afabdccedb5c7→0123456789abcdef differs from the solve's"``,
        ``"scenario file my.toml differs from the solve's built-in standard"``, ``"the solve did
        not record its conditions (game version, options, data pack, knob vectors)"``.
    """
    if stamp is None:
        return "the solve did not record its conditions (game version, options, data pack, knob vectors)"
    if stamp.get("game_version") is None:
        return "the solve did not record the game version"
    if played.get("game_version") is None:
        return "the sweep did not record the game version"
    if stamp["game_version"] != played["game_version"]:
        return (f"the game version (golden rows {played['game_version'][:12]}) differs from the solve's "
                f"({stamp['game_version'][:12]})")
    ss, ps = stamp.get("scenario") or {}, played.get("scenario") or {}
    if (ss.get("name"), ss.get("source")) != (ps.get("name"), ps.get("source")):
        return f"scenario {_scenario(ps)} differs from the solve's {_scenario(ss)}"
    diff = _changes(stamp.get("options") or {}, played.get("options") or {})
    if diff:
        return f"option{'s' if len(diff) > 1 else ''} {', '.join(diff)} differ{'' if len(diff) > 1 else 's'} from the solve's"
    if stamp.get("data_hash") != played.get("data_hash"):
        return (f"the data pack {_h(stamp.get('data_hash'))}→{_h(played.get('data_hash'))} differs from the solve's"
                + (" (a --data pack)" if played.get("data_hash") is not None else ""))
    if not knobs:
        return None
    rec = ((stamp.get("policies") or {}).get(side) or {}).get(policy)
    if rec is None:
        return f"the solve did not record {policy}'s knob vector"
    fam = (played.get("families") or {}).get(side)
    if fam != rec.get("family"):
        return f"family {fam} differs from the solve's {rec.get('family')}"
    diff = _changes(rec.get("knobs") or {}, (played.get("knobs") or {}).get(side) or {})
    if diff:
        return f"knob{'s' if len(diff) > 1 else ''} {', '.join(diff)} differ{'' if len(diff) > 1 else 's'} from the solve's"
    return None


def _changes(solved: Mapping[str, Any], played: Mapping[str, Any]) -> list[str]:
    """``["raids 1→0", ...]`` for each key whose value differs (``absent`` where one side lacks it)."""
    out = []
    for k in sorted(set(solved) | set(played)):
        a, b = solved.get(k, _ABSENT), played.get(k, _ABSENT)
        if not _same(a, b):
            out.append(f"{k} {_v(a)}→{_v(b)}")
    return out


class _Absent:
    def __repr__(self) -> str:
        return "absent"


_ABSENT = _Absent()


def _same(a, b) -> bool:
    if a is _ABSENT or b is _ABSENT:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool) or not all(isinstance(x, (int, float)) for x in (a, b)):
        return a == b
    return float(a) == float(b)


def _v(x) -> str:
    if x is _ABSENT:
        return "absent"
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


def _h(x) -> str:
    return "none" if x is None else str(x)


def _scenario(s: Mapping[str, Any]) -> str:
    src = str(s.get("source") or "")
    if src.startswith("builtin:") or not src:
        return f"built-in {s.get('name')}"
    return f"file {Path(src).name}"


def _plain(d: dict) -> dict:
    """JSON-plain values (numpy scalars as Python numbers)."""
    return json.loads(json.dumps(d, default=lambda x: x.item() if hasattr(x, "item") else str(x)))
