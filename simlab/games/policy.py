"""Policies as data: families with knobs, named presets, and the resolved policy a game plays.

A game declares **policy families** (:class:`Family`): a family is one way of playing, implemented
once in the game's kernels, that reads a vector of named **knobs** (:class:`Knob`, each a real or an
integer with a default and bounds ``[lo, hi]``). Its named policies are **presets**
(:class:`Preset`: a family plus knob values) kept in ``simlab/games/<game>/policies.toml``:

.. code-block:: toml

    [families.scripted]
    doc = "..."
    sides = ["us"]                       # omit for any side
    caveat = "..."                       # optional: how a comparison with it must be read
    knobs.share = { default = 0.5, lo = 0.0, hi = 1.0, doc = "share of the fleet sent (fraction)" }
    knobs.ratio = { default = 1500, lo = 0, hi = 5000, kind = "int", doc = "permille" }

    [presets.blockade]
    family = "scripted"
    doc = "..."
    knobs = { share = 0.7 }              # the family's defaults fill the rest

A sweep resolves each side's policy to a :class:`Policy`: the preset's name, its family and the
full knob vector, with the user's knob settings (``--set us.share=0.7``, ``--grid
us.share=0.3,0.5``, ``[options]``/``[grid]`` in an experiment file) applied on top. The games
table gets a column ``knob_<side>_<knob>`` per knob in force and the manifest records each cell's
vectors, so a cell can be replayed from its row alone.

Knob values are checked against ``[lo, hi]`` here; the engine still checks every plan a policy
writes, so no knob value can make a policy play an illegal move or see what its side may not.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SpecError
from ..tomlio import read_toml

__all__ = ["MIX_PREFIX", "Family", "Knob", "Mixture", "Policy", "PolicyBook", "Preset", "active_policy_files",
           "fixed_book", "game_policy_book", "load_policy_book", "mix_draws", "mix_file", "policy_names",
           "split_knob_name", "using_policies", "write_policy_file"]

KNOB_SEP = "."


@dataclass(frozen=True)
class Knob:
    """One number a policy family reads.

    Attributes:
        name: ``snake_case``; set as ``<side>.<name>``.
        default: the value when neither the preset nor the user sets it.
        lo, hi: inclusive bounds (a search explores ``[lo, hi]``; values outside are refused).
        doc: one line with the unit (MP, hexes, VP, fraction, permille...) and what it weighs.
        kind: ``float`` or ``int``.
    """

    name: str
    default: float
    lo: float
    hi: float
    doc: str = ""
    kind: type = float

    def __post_init__(self):
        if self.kind not in (int, float):
            raise ValueError(f"knob {self.name}: kind must be int or float")
        if not self.lo <= self.hi:
            raise ValueError(f"knob {self.name}: lo {self.lo} above hi {self.hi}")
        if not (self.lo <= self.default <= self.hi):
            raise ValueError(f"knob {self.name}: default {self.default} outside [{self.lo}, {self.hi}]")

    def parse(self, raw: Any, where: str = "") -> float | int:
        """A knob value from TOML or a CLI string, checked against the kind and ``[lo, hi]``.

        Raises:
            SpecError: a value of the wrong type, not finite, or outside ``[lo, hi]``.
        """
        label = where or self.name
        v: Any = raw
        try:
            if isinstance(raw, bool):
                raise ValueError
            if isinstance(raw, str):
                s = raw.strip()
                v = int(s) if self.kind is int else float(s)
            elif self.kind is int:
                if isinstance(raw, (int, np.integer)):  # a float (even 3.0) is refused, as for options
                    v = int(raw)
                else:
                    raise ValueError
            else:
                if not isinstance(raw, (int, float, np.integer, np.floating)):
                    raise ValueError
                v = float(raw)
        except (TypeError, ValueError):
            raise SpecError(f"knob {label}: {raw!r} is not a valid {self.kind.__name__}") from None
        if self.kind is float and not math.isfinite(v):
            raise SpecError(f"knob {label}: {raw!r} is not finite")
        if v < self.lo or v > self.hi:
            raise SpecError(f"knob {label}: {v} is outside [{self.lo}, {self.hi}]")
        return v

    def describe(self) -> dict:
        return {"name": self.name, "type": self.kind.__name__, "default": self.default, "lo": self.lo,
                "hi": self.hi, "doc": self.doc}


@dataclass(frozen=True)
class Family:
    """A way of playing: one kernel path, driven by its knobs.

    Attributes:
        name: the family's name.
        knobs: the knobs, in the order of the kernel's knob vector.
        sides: the sides that may play it (empty: any side).
        doc: what the family does, in a sentence or two.
        caveat: what a comparison with it must be read with (e.g. a solo AI that plays by other
            rules); ``simlab games`` and ``meta`` show it. Empty: none.
    """

    name: str
    knobs: tuple[Knob, ...] = ()
    sides: tuple[str, ...] = ()
    doc: str = ""
    caveat: str = ""

    def knob(self, name: str) -> Knob:
        for k in self.knobs:
            if k.name == name:
                return k
        known = ", ".join(k.name for k in self.knobs) or "none"
        raise SpecError(f"policy family {self.name} has no knob '{name}' (knobs: {known})")

    def for_side(self, side: str) -> bool:
        return not self.sides or side in self.sides

    def describe(self) -> dict:
        out = {"name": self.name, "doc": self.doc, "sides": list(self.sides) or "any",
               "knobs": [k.describe() for k in self.knobs]}
        if self.caveat:
            out["caveat"] = self.caveat
        return out


@dataclass(frozen=True)
class Preset:
    """A named policy: a family plus knob values (the family's defaults fill the rest).

    Attributes:
        name: the policy's name (what ``--policy side=NAME`` takes).
        family: the family's name.
        knobs: ``{knob: value}`` the preset sets.
        sides: the sides it is listed for (empty: every side its family allows).
        doc: what it plays.
        exploitability: ``{scenario: {"gain": float, "ci": [lo, hi], "source": str}}`` where a
            best-response search has measured it (empty: unmeasured).
    """

    name: str
    family: str
    knobs: Mapping[str, float] = field(default_factory=dict)
    sides: tuple[str, ...] = ()
    doc: str = ""
    exploitability: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Policy:
    """What a side plays in a cell: the preset's name, its family and the full knob vector.

    Attributes:
        name: the preset's name (the ``policy_<side>`` column).
        family: the family's name.
        knobs: ``((knob, value), ...)`` in the family's knob order, every knob present.
    """

    name: str
    family: str
    knobs: tuple[tuple[str, float], ...] = ()

    def __str__(self) -> str:
        return self.name

    def value(self, knob: str) -> float:
        """One knob's value. Raises KeyError for a knob the family does not have."""
        for k, v in self.knobs:
            if k == knob:
                return v
        raise KeyError(knob)

    def as_dict(self) -> dict[str, float]:
        return dict(self.knobs)

    def vector(self) -> np.ndarray:
        """``ndarray(float64, shape=(n_knobs,))`` in the family's knob order."""
        return np.array([float(v) for _, v in self.knobs], dtype=np.float64)

    def to_json(self) -> dict:
        return {"name": self.name, "family": self.family, "knobs": dict(self.knobs)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Policy:
        """The inverse of :meth:`to_json` and of ``dataclasses.asdict`` (knobs as pairs or a dict)."""
        kn = d.get("knobs") or ()
        pairs = kn.items() if isinstance(kn, Mapping) else kn
        return cls(str(d["name"]), str(d["family"]), tuple((str(k), v) for k, v in pairs))


@dataclass(frozen=True)
class Mixture(Policy):
    """A mixed policy (``--policy side=@mix:DIR``): per game, one preset drawn from ``components``
    by that game's own seed (:func:`mix_draws`), so a row depends only on its seed.

    Attributes:
        name: ``@mix:DIR`` as given (the ``policy_<side>`` column); family is ``"mix"``, knobs empty.
        components: ``((weight, Policy), ...)``, weights > 0 summing to 1.
        salt: the side's index, so two mixed sides draw independently.
    """

    components: tuple = ()
    salt: int = 0

    def to_json(self) -> dict:
        return {"name": self.name, "family": self.family, "knobs": {},
                "mix": [{"weight": w, **p.to_json()} for w, p in self.components]}


@dataclass(frozen=True)
class RolloutPolicy(Policy):
    """A rollout exploiter (``--policy side=@rollout:BASE[:R]``, issue 29): at each of its side's
    decisions the game tries every legal option, plays each on ``R`` times with ``base`` (its own
    later play) against the other side's policy, and takes the best (a game's ``resolve_rollout``).

    Attributes:
        name: ``@rollout:BASE:R`` as given (the ``policy_<side>`` column); family ``"rollout"``;
            knobs: ``(("rollouts", R), ("base.<knob>", value), ...)`` (the base's full vector).
        base: the base policy (a resolved preset, ``--set SIDE.KNOB`` applied to it).
        rollouts: play-outs per candidate and decision (``int >= 0``; 0 plays ``base``).
    """

    base: Policy | None = None
    rollouts: int = 0

    def to_json(self) -> dict:
        return {"name": self.name, "family": self.family, "knobs": dict(self.knobs),
                "base": self.base.to_json() if self.base is not None else None}


#: the policy name prefix of a rollout exploiter: ``@rollout:BASE`` or ``@rollout:BASE:R``
ROLLOUT_PREFIX = "@rollout:"
#: play-outs per candidate of a ``@rollout:BASE`` given without ``:R``
ROLLOUT_DEFAULT = 4


def parse_rollout(name: str) -> tuple[str, int]:
    """``@rollout:BASE[:R]`` as ``(BASE, R)`` (R defaults to :data:`ROLLOUT_DEFAULT`).

    Raises:
        SpecError: no base, or R not an integer in 0..256.
    """
    body = name[len(ROLLOUT_PREFIX):]
    base, _, r = body.partition(":")
    if not base:
        raise SpecError(f"policy {name!r}: give the base preset after {ROLLOUT_PREFIX} (e.g. @rollout:aggressive:4)")
    if not r:
        return base, ROLLOUT_DEFAULT
    if not r.isdigit() or not 0 <= int(r) <= 256:
        raise SpecError(f"policy {name!r}: the rollouts after the base must be an integer in 0..256, not {r!r}")
    return base, int(r)


#: the policy name prefix of a mixed policy: ``@mix:DIR`` (DIR holds a ``policies.toml`` with ``[mixes]``)
MIX_PREFIX = "@mix:"

_M1, _M2, _U64 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), (1 << 64) - 1
_MIX_SALT = 0x6D69786564706F6C  # "mixedpol"


def mix_draws(seeds: np.ndarray, weights: Sequence[float], salt: int = 0) -> np.ndarray:
    """Which component of a mix each game plays, from the game's own seed alone.

    Args:
        seeds: ``ndarray(uint64, shape=(n,))`` per-game stream seeds (the ``seed`` column).
        weights: the mix's weights (positive; normalised here).
        salt: distinguishes the sides of one game (their draws are independent).

    Returns:
        ``ndarray(int64, shape=(n,))`` component indices; game ``i`` plays component ``k`` with
        probability ``weights[k] / sum(weights)``, independently of the chunking.
    """
    z = np.asarray(seeds, dtype=np.uint64) ^ np.uint64((_MIX_SALT + 0x9E3779B97F4A7C15 * (salt + 1)) & _U64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
    z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
    w = np.asarray(weights, dtype=np.float64)
    c = np.cumsum(w / w.sum())
    c[-1] = 1.0
    return np.minimum(np.searchsorted(c, u, side="right"), len(w) - 1).astype(np.int64)


def policy_names(policies: Mapping[str, Policy | str]) -> dict[str, str]:
    """``{side: preset name}`` of resolved policies (plain names pass through)."""
    return {s: (p.name if isinstance(p, Policy) else str(p)) for s, p in policies.items()}


def split_knob_name(name: str) -> tuple[str, str] | None:
    """``"us.share"`` -> ``("us", "share")``; a name without the separator -> None."""
    if KNOB_SEP not in name:
        return None
    side, knob = name.split(KNOB_SEP, 1)
    return side.strip(), knob.strip()


class PolicyBook:
    """A game's families and presets.

    Raises (constructor): ValueError on an inconsistent book (a preset of an unknown family, a
    preset knob the family lacks or out of bounds): a programming error in the game, not user input.
    """

    def __init__(self, families: Iterable[Family], presets: Iterable[Preset],
                 order: Mapping[str, Sequence[str]] | None = None, mixes: Mapping[str, Mapping[str, float]] | None = None,
                 meta: Mapping[str, Any] | None = None, exploits: Mapping[str, Mapping[str, Any]] | None = None):
        #: ``{side: {preset: {gain, ci, source}}}``: measured exploitability of presets of other
        #: files (``[exploitability]`` of a policies file; :meth:`extended` records it on the presets)
        self.exploits = {k: dict(v) for k, v in (exploits or {}).items()}
        #: ``{side: {preset: weight}}``: mixes a solve found (``[mixes]`` of a policies file)
        self.mixes = {k: dict(v) for k, v in (mixes or {}).items()}
        #: the ``[solve]`` table of a policies file a solve wrote (what produced it)
        self.meta = dict(meta or {})
        #: preset names by side (``"*"``: any side) in the order to list them; default: declaration order
        self.order = {k: tuple(v) for k, v in (order or {}).items()}
        self.families: dict[str, Family] = {}
        for f in families:
            if f.name in self.families:
                raise ValueError(f"policy family {f.name} declared twice")
            self.families[f.name] = f
        self.presets: dict[str, Preset] = {}
        for p in presets:
            if p.name in self.presets:
                raise ValueError(f"preset {p.name} declared twice")
            if p.family not in self.families:
                raise ValueError(f"preset {p.name}: unknown family {p.family}")
            fam = self.families[p.family]
            for k, v in p.knobs.items():
                try:
                    fam.knob(k).parse(v)
                except SpecError as e:
                    raise ValueError(f"preset {p.name}: {e}") from None
            self.presets[p.name] = p

    def extended(self, extra: PolicyBook, where: str = "policies file") -> PolicyBook:
        """This book with the presets of ``extra`` added (a ``--policies-file``: presets of this
        book's families). Families declared in ``extra`` must be this book's (same knobs).

        Raises:
            SpecError: a preset name this book already has with other contents, a family this book
                lacks, or a knob value out of bounds (one line naming ``where``).
        """
        for f in extra.families.values():
            if f.name in self.families and self.families[f.name] != f:
                raise SpecError(f"{where}: family {f.name} differs from the game's")
        presets = dict(self.presets)
        for p in extra.presets.values():
            if p.family not in self.families:
                raise SpecError(f"{where}: preset {p.name}: unknown family {p.family} "
                                f"(families: {', '.join(self.families)})")
            if p.name in presets and presets[p.name] != p:
                raise SpecError(f"{where}: preset {p.name} is already a policy of the game")
            presets[p.name] = p
        scen = str(extra.meta.get("scenario", "*"))
        for recs in extra.exploits.values():
            for name, rec in recs.items():
                if name in presets:
                    p = presets[name]
                    presets[name] = dataclasses.replace(p, exploitability={**p.exploitability, scen: dict(rec)})
        order = None
        if self.order:
            order = {k: list(v) for k, v in self.order.items()}
            for p in extra.presets.values():
                if p.name in self.presets:
                    continue
                for k, v in order.items():
                    if (not p.sides or k in p.sides or k == "*") and self.families[p.family].for_side(k):
                        v.append(p.name)
        try:
            return PolicyBook(self.families.values(), presets.values(), order, {**self.mixes, **extra.mixes},
                              {**self.meta, **extra.meta}, {**self.exploits, **extra.exploits})
        except ValueError as e:
            raise SpecError(f"{where}: {e}") from None

    def side_presets(self, side: str) -> tuple[str, ...]:
        """Preset names a side may play, in declaration order."""
        if self.order:
            return self.order.get(side, self.order.get("*", ()))
        out = []
        for p in self.presets.values():
            if p.sides and side not in p.sides:
                continue
            if not self.families[p.family].for_side(side):
                continue
            out.append(p.name)
        return tuple(out)

    def resolve(self, side: str, preset: str, settings: Mapping[str, Any] | None = None) -> Policy:
        """The full policy of ``side`` playing ``preset`` with knob ``settings`` applied.

        Raises:
            SpecError: an unknown preset for the side, an unknown knob, or a bad knob value.
        """
        allowed = self.side_presets(side)
        if preset not in allowed:
            raise SpecError(f"unknown policy '{preset}' for side {side} (policies: {', '.join(allowed)})")
        p = self.presets[preset]
        fam = self.families[p.family]
        vals = {k.name: k.default for k in fam.knobs}
        vals.update({k: fam.knob(k).parse(v) for k, v in p.knobs.items()})
        for k, v in (settings or {}).items():
            kn = fam.knob(k)
            vals[k] = kn.parse(v, where=f"{side}{KNOB_SEP}{k}")
        return Policy(p.name, fam.name, tuple((k.name, vals[k.name]) for k in fam.knobs))

    def describe(self, sides: Sequence[str] | None) -> dict:
        """``{"families": [...], "presets": {side: [{name, family, knobs, doc}]}}`` for ``simlab games``."""
        out_p: dict[str, list] = {}
        for s in (sides or ["*"]):
            rows = []
            for name in (self.side_presets(s) if s != "*" else self.presets):
                pol = self.resolve(s, name) if s != "*" else self._resolve_any(name)
                pre = self.presets[name]
                row = {"name": name, "family": pol.family, "knobs": dict(pol.knobs), "doc": pre.doc}
                row["exploitability"] = dict(pre.exploitability) or "unmeasured"
                if self.families[pol.family].caveat:
                    row["caveat"] = self.families[pol.family].caveat
                rows.append(row)
            out_p[s] = rows
        return {"families": [f.describe() for f in self.families.values()], "presets": out_p}

    def caveat(self, name: str) -> str:
        """The caveat of preset ``name``'s family ('' if none or no such preset)."""
        p = self.presets.get(name)
        return self.families[p.family].caveat if p is not None else ""

    def _resolve_any(self, name: str) -> Policy:
        p = self.presets[name]
        fam = self.families[p.family]
        vals = {k.name: k.default for k in fam.knobs}
        vals.update(p.knobs)
        return Policy(p.name, fam.name, tuple((k.name, vals[k.name]) for k in fam.knobs))


_KNOB_FIELDS = {"default", "lo", "hi", "doc", "kind"}
#: how far a mix's weights may sum from 1 (rounding in a written file); further is refused
MIX_TOLERANCE = 1e-9


def load_policy_book(path: str | Path, base: PolicyBook | None = None) -> PolicyBook:
    """Read a ``policies.toml`` (see the module docstring for its form).

    Args:
        path: the file.
        base: the game's book, when the file adds presets to it (``--policies-file``): families
            the file does not declare are taken from it.

    Raises:
        SpecError: on a malformed file (one line naming the entry); ValueError on an inconsistent
            book (see :class:`PolicyBook`).
    """
    doc = read_toml(path, SpecError, "policies file")
    name = Path(path).name
    unknown = set(doc) - {"families", "presets", "mixes", "solve", "exploitability"}
    if unknown:
        raise SpecError(f"{name}: unknown table '{sorted(unknown)[0]}' "
                        "(tables: families, presets, mixes, solve, exploitability)")
    exploits = doc.get("exploitability") or {}
    if not isinstance(exploits, dict) or not all(isinstance(v, dict) and all(isinstance(r, dict) and "gain" in r
                                                                            for r in v.values())
                                                 for v in exploits.values()):
        raise SpecError(f"{name}: exploitability must be tables [exploitability.SIDE.PRESET] with a gain")
    for side, rows in exploits.items():
        for pname, r in rows.items():
            g = r["gain"]
            if isinstance(g, bool) or not isinstance(g, (int, float)) or not math.isfinite(g) or g < 0:
                raise SpecError(f"{name}: exploitability.{side}.{pname}.gain must be a finite number >= 0 "
                                f"(a best response's gain), got {g!r}")
    mixes = doc.get("mixes") or {}
    for side, mix in mixes.items():
        ok = isinstance(mix, dict) and mix and all(isinstance(w, (int, float)) and not isinstance(w, bool)
                                                   and math.isfinite(w) and w >= 0 for w in mix.values())
        if not ok or sum(mix.values()) <= 0:
            raise SpecError(f"{name}: mixes.{side} must map presets to non-negative weights (not all 0)")
        total = math.fsum(min(w, 2.0) for w in mix.values())  # (a weight above 1 already fails; no overflow)
        if abs(total - 1.0) > MIX_TOLERANCE:
            shown = f"{total!r}" if max(mix.values()) <= 1 else f"more than 1 (a weight of {max(mix.values())!r})"
            raise SpecError(f"{name}: mixes.{side}: the weights sum to {shown}, not 1 (within {MIX_TOLERANCE:g})")
    fams = []
    for fname, f in (doc.get("families") or {}).items():
        if not isinstance(f, dict):
            raise SpecError(f"{name}: families.{fname} must be a table")
        knobs = []
        if not isinstance(f.get("knobs") or {}, dict):
            raise SpecError(f"{name}: families.{fname}.knobs must be a table of knobs")
        for kname, k in (f.get("knobs") or {}).items():
            if not isinstance(k, dict) or not {"default", "lo", "hi"} <= set(k) or set(k) - _KNOB_FIELDS:
                raise SpecError(f"{name}: families.{fname}.knobs.{kname} needs default, lo, hi "
                                f"(and optionally doc, kind)")
            kind = {"int": int, "float": float}.get(k.get("kind", "float"))
            if kind is None:
                raise SpecError(f"{name}: families.{fname}.knobs.{kname}: kind must be 'int' or 'float'")
            bad = [f for f in ("default", "lo", "hi") if isinstance(k[f], bool) or not isinstance(k[f], (int, float))
                   or (kind is int and not isinstance(k[f], int)) or not math.isfinite(k[f])]
            if bad:
                raise SpecError(f"{name}: families.{fname}.knobs.{kname}.{bad[0]}: {k[bad[0]]!r} is not a finite "
                                f"{kind.__name__}")
            try:
                knobs.append(Knob(kname, kind(k["default"]), kind(k["lo"]), kind(k["hi"]), str(k.get("doc", "")),
                                  kind))
            except (TypeError, ValueError) as e:
                raise SpecError(f"{name}: families.{fname}.knobs.{kname}: {e}") from None
        fams.append(Family(fname, tuple(knobs), tuple(f.get("sides", ())), str(f.get("doc", "")),
                           str(f.get("caveat", ""))))
    presets = []
    for pname, p in (doc.get("presets") or {}).items():
        if not isinstance(p, dict) or "family" not in p:
            raise SpecError(f"{name}: presets.{pname} needs a family")
        for key in ("knobs", "exploitability"):
            if not isinstance(p.get(key, {}), dict):
                raise SpecError(f"{name}: presets.{pname}.{key} must be a table")
        presets.append(Preset(pname, str(p["family"]), dict(p.get("knobs", {})), tuple(p.get("sides", ())),
                              str(p.get("doc", "")), dict(p.get("exploitability", {}))))
    if base is not None:
        have = {f.name for f in fams}
        fams += [f for f in base.families.values() if f.name not in have]
    return PolicyBook(fams, presets, mixes=mixes, meta=doc.get("solve") if isinstance(doc.get("solve"), dict) else {},
                      exploits=exploits)


@functools.cache
def game_policy_book(path: Path) -> PolicyBook:
    """A game's own ``policies.toml``, read once per process: the base class
    (:meth:`simlab.games.base.Game.policy_book`) and the game's runtime share this one book.

    Raises:
        SpecError, ValueError: as :func:`load_policy_book`.
    """
    return load_policy_book(path)


def fixed_book(policies: Mapping[str, Sequence[str]]) -> PolicyBook:
    """A book for a game that declares only policy names (``Game.policies``): each name is a preset
    of a knob-less family of the same name, for the sides it is listed for.
    """
    fams: dict[str, set] = {}
    order: list[str] = []
    for side, names in policies.items():
        for n in names:
            if n not in fams:
                fams[n] = set()
                order.append(n)
            fams[n].add(side)
    families = [Family(n, (), () if "*" in fams[n] else tuple(sorted(fams[n])), "") for n in order]
    presets = [Preset(n, n, {}, () if "*" in fams[n] else tuple(sorted(fams[n]))) for n in order]
    return PolicyBook(families, presets, policies)


_FILES: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("simlab_policy_files", default=())


def active_policy_files() -> tuple[str, ...]:
    """The policies files made usable by name by the innermost :func:`using_policies`."""
    return _FILES.get()


@contextlib.contextmanager
def using_policies(*paths: str | Path | None) -> Iterator[None]:
    """Make the presets of ``policies.toml`` files (``--policies-file``: what ``simlab solve``
    wrote) usable by name in every game whose families they use, inside the block.

    A directory stands for its ``policies.toml``. ``None`` entries are skipped.

    Raises:
        SpecError: a file that does not exist or is malformed.
    """
    files = tuple(str(mix_file(p)) for p in paths if p is not None)
    for f in files:
        read_toml(f, SpecError, "policies file")
    token = _FILES.set(tuple(dict.fromkeys(_FILES.get() + files)))
    try:
        yield
    finally:
        _FILES.reset(token)


def mix_file(path: str | Path) -> Path:
    """``path``, or ``path/policies.toml`` when ``path`` is a directory.

    Raises:
        SpecError: when neither exists.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "policies.toml"
    if not p.is_file():
        raise SpecError(f"policies file not found: {p}")
    return p


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _toml_key(k: str) -> str:
    import re
    return k if re.match(r"^[A-Za-z0-9_-]+$", k) else json.dumps(k)


def family_lines(f: Family) -> list[str]:
    """The ``[families.NAME]`` table of a policies file (what :func:`write_policy_file` writes for
    one family), as lines."""
    lines = [f"[families.{_toml_key(f.name)}]", f"doc = {_toml_value(f.doc)}"]
    if f.sides:
        lines.append(f"sides = {_toml_value(list(f.sides))}")
    if f.caveat:
        lines.append(f"caveat = {_toml_value(f.caveat)}")
    for k in f.knobs:
        d = {"default": k.default, "lo": k.lo, "hi": k.hi, "doc": k.doc, "kind": k.kind.__name__}
        lines.append(f"knobs.{_toml_key(k.name)} = {_toml_value(d)}")
    return lines


def write_policy_file(path: str | Path, families: Sequence[Family], presets: Sequence[Preset],
                      mixes: Mapping[str, Mapping[str, float]], meta: Mapping[str, Any], header: str = "",
                      exploits: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None) -> None:
    """Write a self-contained policies file (the families used, copied from the game; presets with
    family and knobs and their exploitability; the mixes; a ``[solve]`` table) that
    :func:`load_policy_book` reads back and ``--policies-file`` takes.

    Raises:
        TypeError: a value that is not a TOML scalar, list or table.
    """
    lines = [f"# {x}" for x in header.splitlines()]
    lines += ["", "[solve]"] + [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in meta.items()]
    for f in families:
        lines += ["", *family_lines(f)]
    for p in presets:
        lines += ["", f"[presets.{_toml_key(p.name)}]", f"family = {_toml_value(p.family)}"]
        if p.sides:
            lines.append(f"sides = {_toml_value(list(p.sides))}")
        if p.doc:
            lines.append(f"doc = {_toml_value(p.doc)}")
        lines.append(f"knobs = {_toml_value(dict(p.knobs))}")
        if p.exploitability:
            lines.append(f"exploitability = {_toml_value(dict(p.exploitability))}")
    for side, recs in (exploits or {}).items():
        for pname, rec in recs.items():
            lines += ["", f"[exploitability.{_toml_key(side)}.{_toml_key(pname)}]"]
            lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in rec.items()]
    for side, mix in mixes.items():
        lines += ["", f"[mixes.{_toml_key(side)}]"] + [f"{_toml_key(k)} = {_toml_value(float(w))}"
                                                       for k, w in mix.items()]
    Path(path).write_text("\n".join(lines).lstrip("\n") + "\n")
