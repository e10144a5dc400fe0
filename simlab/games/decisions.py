"""A game's decision inventory: every choice its rulebook gives a player, and the knobs that make it.

Each game keeps the inventory as data in its own folder (``decisions.toml``, the game's
:attr:`simlab.games.base.Game.decisions_file`)::

    [[decisions]]
    section = "7.2.3"                       # the rulebook's section number
    decision = "Give a squadron a Blockade order against an enemy port"
    side = "spain"                          # one of the game's sides, or "*" for every side
    knobs = ["blockade", "blockade_value"]  # knobs of a (non random-legal) family of that side
    doc = "what the knob means, with its unit"
    gap = "why no knob yet"                 # only where knobs = []: the engine or a fixed rule decides
    measure = { scenario = "...", preset = "...", opponent = "...", options = { ... } }  # optional

``measure`` says where the choice arises, for :mod:`simlab.testing.decision_bounds` (a choice
that only a scenario, an optional rule or a preset's plan ever reaches): ``scenario`` the
scenario to play, ``preset`` the side's preset (its family must hold the knobs), ``opponent``
the other side's preset, ``options`` the rules options. Every key is optional.

An entry with ``knobs = []`` is a choice the rules give a player that no policy can play yet: it
must say why in ``gap`` (an honest gap, never a hidden one). ``simlab games`` prints the inventory
and ``simlab games --json`` gives it as ``decisions``: a list of
``{section, decision, side, knobs, doc[, gap]}``.

The checks (:func:`check_decisions`) are those of issue 28: every knob an entry names exists in a
policy family of that side (each side, for ``"*"``), other than random-legal.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SpecError
from ..tomlio import read_toml

__all__ = ["Decision", "load_decisions", "check_decisions", "decision_sides"]

_FIELDS = {"section", "decision", "side", "knobs", "doc", "gap", "measure"}
_MEASURE = {"scenario", "preset", "opponent", "options"}


@dataclass(frozen=True)
class Decision:
    """One choice the rulebook gives a player.

    Attributes:
        section: the rule section that gives the choice, as the rulebook numbers it ("7.2.3 D").
        decision: the choice, in the rulebook's terms.
        side: the side that makes it, one of the game's sides, or ``"*"`` for every side.
        knobs: the knob names, of a family of that side, that make the choice; empty: none yet.
        doc: what the knobs mean, with their units.
        gap: why no knob makes the choice yet (only where ``knobs`` is empty).
        measure: where the choice arises (``(key, value)`` pairs of ``scenario``, ``preset``,
            ``opponent`` and ``options``, the last a tuple of ``(option, value)`` pairs); empty:
            the game's default scenario, options and presets.
    """

    section: str
    decision: str
    side: str
    knobs: tuple[str, ...]
    doc: str = ""
    gap: str = ""
    measure: tuple = ()

    def measured_under(self) -> dict:
        """``measure`` as a dict (``options`` as a dict): ``{}`` where the entry gives none."""
        m = dict(self.measure)
        if "options" in m:
            m["options"] = dict(m["options"])
        return m

    def to_json(self) -> dict:
        """``{section, decision, side, knobs, doc}`` plus ``gap`` and ``measure`` where there are."""
        d = {"section": self.section, "decision": self.decision, "side": self.side,
             "knobs": list(self.knobs), "doc": self.doc}
        if self.gap:
            d["gap"] = self.gap
        if self.measure:
            d["measure"] = self.measured_under()
        return d


def load_decisions(path: str | Path) -> tuple[Decision, ...]:
    """Read a ``decisions.toml`` (format: this module's docstring).

    Returns:
        the entries in file order.

    Raises:
        SpecError: a missing file, a malformed entry (an unknown or missing field, a field of the
            wrong type, an entry with no knobs and no ``gap``, or knobs and a ``gap``).
    """
    p = Path(path)
    if not p.is_file():
        raise SpecError(f"decision inventory not found: {p}")
    raw = read_toml(p, SpecError, "decision inventory")
    rows = raw.get("decisions", [])
    if not isinstance(rows, list) or set(raw) - {"decisions"}:
        raise SpecError(f"{p.name}: a decision inventory holds only [[decisions]] entries")
    out = []
    for i, r in enumerate(rows):
        where = f"{p.name}: decision {i + 1}"
        if not isinstance(r, dict):
            raise SpecError(f"{where}: not a table")
        extra = set(r) - _FIELDS
        if extra:
            raise SpecError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        for f in ("section", "decision", "side"):
            if not isinstance(r.get(f), str) or not r[f].strip():
                raise SpecError(f"{where}: '{f}' must be a non-empty string")
        knobs = r.get("knobs")
        if not isinstance(knobs, list) or not all(isinstance(k, str) and k for k in knobs):
            raise SpecError(f"{where} ({r['section']}): 'knobs' must be a list of knob names")
        for f in ("doc", "gap"):
            if f in r and not isinstance(r[f], str):
                raise SpecError(f"{where} ({r['section']}): '{f}' must be a string")
        gap = r.get("gap", "").strip()
        if not knobs and not gap:
            raise SpecError(f"{where} ({r['section']}): no knobs and no 'gap' saying why")
        if knobs and gap:
            raise SpecError(f"{where} ({r['section']}): knobs and a 'gap' (a gap is for a choice no knob makes)")
        m = r.get("measure", {})
        if not isinstance(m, dict) or set(m) - _MEASURE:
            raise SpecError(f"{where} ({r['section']}): 'measure' must be a table of {', '.join(sorted(_MEASURE))}")
        for f in ("scenario", "preset", "opponent"):
            if f in m and (not isinstance(m[f], str) or not m[f]):
                raise SpecError(f"{where} ({r['section']}): measure.{f} must be a non-empty string")
        if "options" in m and not isinstance(m["options"], dict):
            raise SpecError(f"{where} ({r['section']}): measure.options must be a table of option values")
        measure = tuple(sorted((k, tuple(sorted(v.items())) if k == "options" else v) for k, v in m.items()))
        out.append(Decision(r["section"].strip(), r["decision"].strip(), r["side"].strip(), tuple(knobs),
                            r.get("doc", "").strip(), gap, measure))
    return tuple(out)


def decision_sides(game: Any) -> tuple[str, ...]:
    """The sides an inventory of ``game`` (a :class:`simlab.games.base.Game`) may name: the game's fixed sides, or (for a game whose
    scenarios define their sides) every side its policy families name (none: any side)."""
    if game.sides:
        return tuple(game.sides)
    names: set[str] = set()
    for fam in game.policy_book().families.values():
        names.update(fam.sides)
    return tuple(sorted(names))


def check_decisions(game: Any, decisions: tuple[Decision, ...]) -> list[str]:
    """Problems of an inventory against the game's policy book; empty when it is sound.

    An entry's side must be one of :func:`decision_sides` (or ``"*"``; a game whose sides come
    from its scenarios accepts any side when none can be listed), and each knob it names must be a
    knob of some family other than random-legal that plays that side (every listed side for ``"*"``).

    Returns:
        one line per problem, naming the section and the knob or side.
    """
    book = game.policy_book()
    fams = [f for f in book.families.values() if f.name != "random-legal"]
    sides = decision_sides(game)
    problems = []
    for d in decisions:
        if d.side != "*" and sides and d.side not in sides:
            problems.append(f"{d.section}: side {d.side!r} is not a side of {game.name} ({', '.join(sides)})")
            continue
        check = list(sides) if d.side == "*" and sides else [d.side]
        for k in d.knobs:
            for s in check:
                if not any(f.for_side(s) and any(kn.name == k for kn in f.knobs) for f in fams):
                    problems.append(f"{d.section}: knob {k!r} is not a knob of any family of side {s!r}")
        m = d.measured_under()
        if "scenario" in m and m["scenario"] not in game.scenarios:
            problems.append(f"{d.section}: measure.scenario {m['scenario']!r} is not a scenario of {game.name}")
        if "preset" in m:
            p = book.presets.get(m["preset"])
            held = {kn.name for kn in book.families[p.family].knobs} if p is not None else set()
            if p is None or not set(d.knobs) <= held:
                problems.append(f"{d.section}: measure.preset {m['preset']!r} is not a preset whose family holds "
                                f"{', '.join(d.knobs)}")
        if "opponent" in m and m["opponent"] not in book.presets:
            problems.append(f"{d.section}: measure.opponent {m['opponent']!r} is not a preset of {game.name}")
        for o in m.get("options", {}):
            if o not in {opt.name for opt in game.options}:
                problems.append(f"{d.section}: measure.options names {o!r}, not an option of {game.name}")
    return problems
