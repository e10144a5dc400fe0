"""One way to pack a policy for a game's kernels (issue 27).

A policy family's knobs are declared once, in the game's ``policies.toml`` (name, kind ``int`` or
``float``, default, bounds, unit: :mod:`simlab.games.policy`). The kernels read a side's knobs from
rows of arrays by slot, and a slot is a plain module-level ``int`` of the game's layout module (so
numba folds it into the machine code). The game declares, beside those constants, how the rows
are built (:class:`KnobRow`: the array's name, dtype and width, the layout module and the prefix of
its slot constants, the scale of a ``float`` knob packed into an integer row) and which kernel code
each family plays (:class:`PolicyPacking`). The slot of knob ``name`` in a row is the row's constant
``PREFIX + NAME.upper()`` (``K_RANGE`` for ``range``), or the one ``aliases`` names; the framework
finds it, and :meth:`PolicyPacking.check` proves, once per process and book, that every knob of
every family has exactly one slot (or is read by the runtime in Python: ``host_knobs``), that no
two knobs share a slot and that every slot of every row is some knob's.

Adding a knob is then one edit per place the rules force: its declaration in ``policies.toml`` and
its slot constant in the row's ``(K_..., NKN) = range(...)`` tuple of the layout (the constant the
kernel reads it by). Nothing else lists it; :func:`pack_policies` packs it.

Packing (:meth:`PolicyPacking.pack`), per side: the family's code (``int64``); then each row
starts at its fill (:attr:`KnobRow.fill_family`'s defaults and :attr:`KnobRow.fill`, else 0) and
every knob of the side's family is written to its slot: an ``int`` knob as ``int``, a ``float``
knob as ``float`` in a float row or ``round(float_scale * value)`` in an integer row (permille for
``float_scale = 1000``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from .policy import Policy, PolicyBook, game_policy_book

__all__ = ["KnobRow", "PackedPolicies", "PolicyPacking", "pack_policies"]


@dataclass(frozen=True, eq=False)
class KnobRow:
    """One array of the kernels' policy arguments: ``dtype[n_sides, width]``, a row per side.

    Attributes:
        name: the kernels' name for the array (``"kn"``, ``"pp"``); the key in
            :attr:`PackedPolicies.rows`.
        dtype: ``np.float64`` or ``np.int64``.
        layout: the module that holds the slot constants (plain ``int``s numba sees).
        prefix: the slot constants' prefix (``"K_"``): knob ``name`` sits in ``PREFIX + NAME.upper()``.
        width: the row's length (the layout's ``NKN``); every slot ``0..width-1`` is some knob's.
        aliases: ``{knob: constant name}`` for knobs whose constant does not follow the prefix rule.
        float_scale: the factor a ``float`` knob is multiplied by (and rounded) in an integer row;
            ``None``: no ``float`` knob may go into this row if it is an integer row.
        fill_family: a family whose knob defaults fill the slots a side's own family does not set
            (``None``: those slots are 0).
        fill: ``{knob: value}`` overriding the fill of those slots.
    """

    name: str
    dtype: Any
    layout: ModuleType
    prefix: str
    width: int
    aliases: Mapping[str, str] = field(default_factory=dict)
    float_scale: float | None = None
    fill_family: str | None = None
    fill: Mapping[str, float] = field(default_factory=dict)

    def slot(self, knob: str) -> int | None:
        """The slot of ``knob`` in this row (its layout constant), or None when the row has none.

        Raises:
            ValueError: an alias naming a constant the layout lacks, or a constant that is not an ``int``.
        """
        const = self.aliases.get(knob, self.prefix + knob.upper())
        v = getattr(self.layout, const, None)
        if v is None:
            if knob in self.aliases:
                raise ValueError(f"{self.layout.__name__}: no constant {const} (alias of knob {knob})")
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{self.layout.__name__}.{const} is not an int slot")
        return v

    def packs(self, value: float | int, kind: type) -> float | int:
        """The value a knob of ``kind`` is stored as in this row."""
        if np.issubdtype(np.dtype(self.dtype), np.integer):
            if kind is float:
                return int(round(self.float_scale * value))
            return int(value)
        return float(value)


class PackedPolicies(NamedTuple):
    """Both sides' policies as the kernels read them.

    Attributes:
        families: ``int64[n_sides]``, each side's family code (:attr:`PolicyPacking.family_ids`;
            0 where the game declares none).
        rows: ``{row name: dtype[n_sides, width]}``, one array per :class:`KnobRow`.
    """

    families: np.ndarray
    rows: dict[str, np.ndarray]


@dataclass(frozen=True, eq=False)
class PolicyPacking:
    """How a game's kernels read its policies: the one declaration :func:`pack_policies` follows.

    Attributes:
        policy_file: the game's ``policies.toml`` (families, knobs, presets).
        rows: the kernels' knob arrays (:class:`KnobRow`).
        family_ids: ``{family: code}`` the kernels branch on (empty: the kernels read no family
            code; every family of the book packs as 0). When given, it names every family of the book.
        host_knobs: knobs the runtime reads in Python before the kernels run (packed nowhere).
        fixed: ``{policy name: code}`` of policies that are no preset (plans handed in from
            outside: every row at its fill).
        sides: the sides in the kernels' order, where the game fixes them (empty: each call
            names them, e.g. per scenario).
    """

    policy_file: Path
    rows: tuple[KnobRow, ...] = ()
    family_ids: Mapping[str, int] = field(default_factory=dict)
    host_knobs: tuple[str, ...] = ()
    fixed: Mapping[str, int] = field(default_factory=dict)
    sides: tuple[str, ...] = ()

    # ------------------------------------------------------------------ the book
    def book(self) -> PolicyBook:
        """The game's policy book (:func:`simlab.games.policy.game_policy_book`, the one cache of
        it), checked against this packing the first time.

        Raises:
            SpecError: a malformed ``policies.toml``; ValueError: a book out of step with the
                kernels' layout (:meth:`check`).
        """
        book = game_policy_book(Path(self.policy_file))
        self._checked(book)
        return book

    def resolve(self, side: str, policy: str | Policy) -> Policy:
        """A side's policy as a :class:`Policy`: as given, or a preset name resolved with its defaults.

        Raises:
            SpecError: an unknown preset for the side.
        """
        if isinstance(policy, Policy):
            return policy
        return self.book().resolve(side, str(policy))

    # ------------------------------------------------------------------ the check
    def _checked(self, book: PolicyBook) -> dict[str, dict[str, int]]:
        memo = self.__dict__.setdefault("_memo", {})
        if id(book) not in memo:
            memo[id(book)] = (book, self.check(book))
        return memo[id(book)][1]

    def check(self, book: PolicyBook) -> dict[str, dict[str, int]]:
        """Prove the book and the kernels' layout agree; returns ``{row: {knob: slot}}``.

        Raises:
            ValueError: (one line naming the family, knob, row or slot) a family the kernels have
                no code for, a knob with no slot or with slots in two rows, a float knob in an
                integer row without ``float_scale``, two knobs in one slot, a slot outside the row,
                or a slot of a row that no knob fills.
        """
        where = Path(self.policy_file).name
        if self.family_ids and set(book.families) != set(self.family_ids):
            raise ValueError(f"{where}: families {sorted(book.families)}, the kernels know {sorted(self.family_ids)}")
        slots: dict[str, dict[str, int]] = {r.name: {} for r in self.rows}
        for fam in book.families.values():
            for k in fam.knobs:
                found = [(r, s) for r in self.rows if (s := r.slot(k.name)) is not None]
                if k.name in self.host_knobs:
                    if found:
                        raise ValueError(f"{where}: knob {k.name} is read by the runtime and has slot "
                                         f"{found[0][1]} of {found[0][0].name} too")
                    continue
                if len(found) != 1:
                    rows = ", ".join(f"{r.prefix}* ({r.name})" for r in self.rows)
                    raise ValueError(f"{where}: knob {k.name} of family {fam.name} has "
                                     f"{'no' if not found else 'more than one'} slot among {rows}")
                r, s = found[0]
                if not 0 <= s < r.width:
                    raise ValueError(f"{where}: knob {k.name}: slot {s} outside {r.name}[0:{r.width}]")
                if (k.kind is float and np.issubdtype(np.dtype(r.dtype), np.integer) and r.float_scale is None):
                    raise ValueError(f"{where}: float knob {k.name} in the integer row {r.name}, which has "
                                     "no float_scale")
                slots[r.name][k.name] = s
        for r in self.rows:
            by_slot: dict[int, str] = {}
            for name, s in slots[r.name].items():
                if s in by_slot:
                    raise ValueError(f"{where}: knobs {by_slot[s]} and {name} share slot {s} of {r.name}")
                by_slot[s] = name
            missing = sorted(set(range(r.width)) - set(by_slot))
            if missing:
                raise ValueError(f"{where}: slot {missing[0]} of {r.name} is no knob's "
                                 f"(a layout constant without a knob in policies.toml?)")
            if r.fill_family is not None:
                fam = book.families.get(r.fill_family)
                if fam is None:
                    raise ValueError(f"{where}: row {r.name} fills from unknown family {r.fill_family}")
            for name in r.fill:
                if name not in slots[r.name]:
                    raise ValueError(f"{where}: row {r.name} fills knob {name}, which has no slot in it")
        return slots

    @functools.cached_property
    def _fills(self) -> dict[str, np.ndarray]:
        book = self.book()
        slots = self._checked(book)
        out = {}
        for r in self.rows:
            row = np.zeros(r.width, dtype=r.dtype)
            if r.fill_family is not None:
                for k in book.families[r.fill_family].knobs:
                    if k.name in slots[r.name]:
                        row[slots[r.name][k.name]] = r.packs(k.default, k.kind)
            for name, v in r.fill.items():
                kind = next((k.kind for f in book.families.values() for k in f.knobs if k.name == name), float)
                row[slots[r.name][name]] = r.packs(v, kind)
            row.setflags(write=False)
            out[r.name] = row
        return out

    def fill_row(self, row: str) -> np.ndarray:
        """``dtype[width]`` (read-only): row ``row`` of a side whose family sets none of its slots."""
        return self._fills[row]

    # ------------------------------------------------------------------ packing
    def _plan(self, book: PolicyBook, family: str) -> tuple[tuple[str, ...], list]:
        """``(knob names, [(row, knob positions, slots, scale or None, integer row), ...])`` of a
        family (cached): where each of its knobs goes, so that a side packs with one assignment per row."""
        plans = self.__dict__.setdefault("_plans", {})
        if family not in plans:
            slots = self._checked(book)
            knobs = book.families[family].knobs
            plan = []
            for r in self.rows:
                pos = [i for i, k in enumerate(knobs) if k.name in slots[r.name]]
                scale = None
                if _is_int(r.dtype) and any(knobs[i].kind is float for i in pos):
                    scale = np.array([r.float_scale if knobs[i].kind is float else 1.0 for i in pos])
                plan.append((r.name, np.array(pos, dtype=np.int64),
                             np.array([slots[r.name][knobs[i].name] for i in pos], dtype=np.int64), scale,
                             _is_int(r.dtype)))
            plans[family] = (tuple(k.name for k in knobs), plan)
        return plans[family]

    def _ordered(self, pol: Policy, names: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
        """A policy's knobs in its family's order (the host knobs may be left out of it).

        Raises:
            ValueError: a knob the family lacks, or one it has that the policy leaves out.
        """
        have = dict(pol.knobs)
        extra = set(have) - set(names)
        if extra:
            raise ValueError(f"{Path(self.policy_file).name}: policy {pol.name}: family {pol.family} has no knob "
                             f"{sorted(extra)[0]}")
        missing = [n for n in names if n not in have and n not in self.host_knobs]
        if missing:
            raise ValueError(f"{Path(self.policy_file).name}: policy {pol.name} lacks knob {missing[0]}")
        return tuple((n, have.get(n, 0)) for n in names)

    def kernel_arrays(self, policies: Mapping[str, Any], sides: Sequence[str] | None = None) -> tuple[np.ndarray, ...]:
        """The packed policies as the kernels take them: the family codes ``int64[n_sides]``
        (when the game declares ``family_ids`` or ``fixed``), then each row's array in the order
        of :attr:`rows`. A game's runtime uses this as its ``pack_policies`` (e.g. Mar Rojo's
        ``(pols, pp)``, Dreadnought's ``(pc, kn)``).

        Args and raises: as :func:`pack_policies` (``sides`` defaults to :attr:`sides`).
        """
        p = self.pack(policies, self.sides if sides is None else sides)
        head = (p.families,) if (self.family_ids or self.fixed) else ()
        return head + tuple(p.rows[r.name] for r in self.rows)

    def pack(self, policies: Mapping[str, Any], sides: Sequence[str] | None = None) -> PackedPolicies:
        """See :func:`pack_policies` (``sides`` defaults to :attr:`sides`)."""
        sides = self.sides if sides is None else sides
        if not sides:
            raise ValueError(f"{Path(self.policy_file).name}: name the sides to pack")
        book = self.book()
        self._checked(book)
        n = len(sides)
        fam = np.zeros(n, dtype=np.int64)
        rows = {r.name: np.tile(self._fills[r.name], (n, 1)) for r in self.rows}
        for s, side in enumerate(sides):
            p = policies[side]
            if isinstance(p, str) and p in self.fixed:
                fam[s] = self.fixed[p]
                continue
            if isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str):
                f = book.families[p[0]]
                p = Policy("", f.name, tuple((k.name, k.parse(v)) for k, v in zip(f.knobs, p[1], strict=True)))
            pol = self.resolve(side, p)
            if pol.family not in book.families:
                raise ValueError(f"{Path(self.policy_file).name}: unknown policy family {pol.family!r} "
                                 f"(families: {', '.join(book.families)})")
            if self.family_ids:
                fam[s] = self.family_ids[pol.family]
            names, plan = self._plan(book, pol.family)
            if tuple(k for k, _ in pol.knobs) != names:  # knobs out of the family's order: by name
                pol = Policy(pol.name, pol.family, self._ordered(pol, names))
            vals = np.array([v for _, v in pol.knobs], dtype=np.float64)
            for r, src, dst, scale, is_int in plan:
                x = vals[src] if scale is None else vals[src] * scale
                rows[r][s, dst] = np.round(x) if (is_int and scale is not None) else x
        return PackedPolicies(fam, rows)


def _is_int(dtype: Any) -> bool:
    return bool(np.issubdtype(np.dtype(dtype), np.integer))


def pack_policies(packing: PolicyPacking, policies: Mapping[str, Any], sides: Sequence[str]) -> PackedPolicies:
    """Every side's policy as the kernels of a game read it (the one packing of every game).

    Args:
        packing: the game's declaration (:class:`PolicyPacking`).
        policies: ``{side: p}`` where ``p`` is a preset name (resolved with its family's
            defaults), a :class:`~simlab.games.policy.Policy` (a preset with ``--set`` knobs, a
            search's candidate), a ``(family, knob vector)`` pair (values in the family's knob
            order, checked against the bounds), or a name of :attr:`PolicyPacking.fixed`.
        sides: the sides in the kernels' order.

    Returns:
        :class:`PackedPolicies`: ``families`` ``int64[n_sides]`` and ``rows``
        ``{name: dtype[n_sides, width]}``.

    Raises:
        SpecError: an unknown preset or a knob value outside its bounds; ValueError: a policy
            of a family the book lacks, or a book out of step with the layout
            (:meth:`PolicyPacking.check`).
    """
    return packing.pack(policies, sides)
