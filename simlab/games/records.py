"""Each output record declared once (issue 27): the columns a kernel's output rows become.

A game's kernels fill fixed-width integer rows (``out[game, O_*]``), each slot a plain module-level
``int`` of the game's layout (numba folds it into the machine code). Beside those constants the game
declares the record once, as a :class:`Record` of :class:`Field` s: each column's name, type, unit
and meaning, and the slot it is read from (the layout constant's name) or how it is derived. From
that one declaration come:

* the check that the slots and the declaration agree (:meth:`Record.check`: every named constant
  exists, every slot ``0..width-1`` is exactly one field's, internal slots included);
* the façade's conversion of the rows to the games table (:meth:`Record.columns`: the dtype casts
  and the category labels of ``string`` columns);
* the schema (:func:`simlab.games.schema.record_columns`: the columns ``simlab schema``, the
  manifest and the README tables show), so a game that declares ``Game.output_record`` needs no
  columns TOML.

A field's name is a template (:mod:`simlab.games.schema`): ``{side}`` is each side, in the kernels'
side order, at ``slot + side_stride * s``; one other placeholder ``{x}`` takes ``values[x]`` at
``+ value_stride * v``.

A games table several kernel records fill (Dreadnought's battles and campaigns) is declared as one
record per kernel record, each field with the scenarios that write it
(:attr:`simlab.games.base.Game.output_records`); a column two records declare alike (name, unit,
meaning) is one column of the schema (:func:`simlab.games.schema.record_columns`). A field the
façade computes from more than the row (a count over the events, a set-up value) is ``derived``:
declared here, its values handed to :meth:`Record.columns`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

__all__ = ["Field", "Record"]

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Field:
    """One column of a record (or, with ``column=False``, an internal slot the façade reads).

    Attributes:
        name: the column's name or template (``score_{side}``, ``sunk_{side}_{type}``).
        type: the written type: a numpy integer/float dtype name, or ``"string"`` for a category
            (the kernels' small int code cast to ``code_type``, its labels from ``labels``).
        unit, meaning: as the schema shows them (``meaning``: one line, with the rule section).
        slot: the layout constant of the (first) slot it is read from (or the slot itself, for a
            small record with no layout constants).
        side_stride, value_stride: slots between consecutive sides / values of the template.
        width: slots the field holds (default: sides * values, as strided); for the check.
        values: ``{placeholder: (value, ...)}`` for a placeholder other than ``{side}``.
        labels: a string column's labels (a tuple), or the key of ``labels=`` given to
            :meth:`Record.columns` (labels known only per scenario).
        code_type: the dtype of a string column's codes.
        divide: a float column is the slot's value divided by this (``None``: the value, cast).
        offset: added to the slot's value before the cast (a side index ``-1..`` as a category ``0..``).
        ratio_of: the layout constant of a denominator slot (strided as the field): the column is
            ``value / denominator``, 0 where the denominator is 0 (a share of shots).
        derived: the façade computes the column (no slot): :meth:`Record.columns` takes it from
            ``derived=`` by its concrete name.
        sum_sides: the column (no ``{side}``) is the sum of the sides' slots (it reads slots
            other fields declare, and owns none).
        scenarios, when: as in the schema (``when``: written only when the façade asks for it).
        schema: False for a column the framework declares (``winner``).
        column: False for an internal slot (read by the façade, no column).
        derive: how the column is derived from its slot's values (``int64[n] -> ndarray[n]``, applied
            before the ``type`` cast), e.g. a code remapped or a count times a per-die mean.
        owns: False for a column derived from slots other fields declare (it owns none, for the check).
    """

    name: str
    type: str
    unit: str = ""
    meaning: str = ""
    slot: str | int | None = None
    side_stride: int = 1
    value_stride: int = 1
    width: int | None = None
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    labels: tuple[str, ...] | str | None = None
    code_type: str = "int8"
    divide: float | None = None
    offset: int = 0
    ratio_of: str | None = None
    derived: bool = False
    sum_sides: bool = False
    scenarios: tuple[str, ...] | None = None
    when: str = ""
    schema: bool = True
    column: bool = True
    derive: Callable[[np.ndarray], np.ndarray] | None = None
    owns: bool = True

    def _other(self) -> tuple[str, tuple[str, ...]] | None:
        keys = [k for k in _PLACEHOLDER.findall(self.name) if k != "side"]
        if not keys:
            return None
        return keys[0], tuple(self.values[keys[0]])

    def slots(self, n_sides: int) -> list[int]:
        """The slot offsets (from :attr:`slot`) the field reads, for the check."""
        if self.width is not None:
            return list(range(self.width))
        sides = range(n_sides) if ("{side}" in self.name or self.sum_sides) else range(1)
        other = self._other()
        vals = range(len(other[1])) if other else range(1)
        return [self.side_stride * s + self.value_stride * v for s in sides for v in vals]

    def applies(self, scenario: str | None) -> bool:
        """Whether the field is written in ``scenario`` (None: any)."""
        return self.scenarios is None or scenario is None or scenario in self.scenarios


@dataclass(frozen=True, eq=False)
class Record:
    """A kernel's output row, declared once: its fields, the layout that holds the slot constants
    and the row's width.

    Attributes:
        layout: the module of the slot constants (``O_*``).
        width: the row's width (the layout's ``NOUT``).
        fields: the fields, in the schema's order.
        source: the game's name (the schema's ``source``).
        where: the file that declares the record (what the README says to edit).
    """

    layout: ModuleType
    width: int
    fields: tuple[Field, ...]
    source: str
    where: str = ""

    def slot(self, f: Field) -> int:
        """The first slot of field ``f``.

        Raises:
            ValueError: a constant the layout lacks, or one that is not an ``int``.
        """
        return self._constant(f, f.slot)

    def _constant(self, f: Field, const: str | int | None) -> int:
        """The slot a layout constant (``f``'s slot or its ``ratio_of``) names; ValueError as :meth:`slot`."""
        v = const if isinstance(const, int) else getattr(self.layout, const or "", None)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{self.layout.__name__}: field {f.name}: no int slot constant {const!r}")
        return v

    def check(self, n_sides: int = 2) -> None:
        """Prove the declaration and the layout agree.

        Raises:
            ValueError: (one line) a field without a slot constant (or ``ratio_of`` constant), a
                derived field with a slot, a slot outside ``0..width-1``, two fields on one slot, or a
                slot no field declares.
        """
        owner: dict[int, str] = {}
        for f in self.fields:
            if f.derived:
                if f.slot is not None:
                    raise ValueError(f"{self.source}: field {f.name}: derived, yet read from slot {f.slot!r}")
                continue
            if f.ratio_of is not None:
                self._constant(f, f.ratio_of)
            base = self.slot(f)
            for off in f.slots(n_sides):
                s = base + off
                if not 0 <= s < self.width:
                    raise ValueError(f"{self.source}: field {f.name}: slot {s} outside 0..{self.width - 1}")
                if f.sum_sides or not f.owns:
                    continue
                if s in owner:
                    raise ValueError(f"{self.source}: fields {owner[s]} and {f.name} share slot {s}")
                owner[s] = f.name
        missing = sorted(set(range(self.width)) - set(owner))
        if missing:
            raise ValueError(f"{self.source}: slot {missing[0]} of the record is no field's")

    def columns(self, out: np.ndarray, sides: Sequence[str], when: Sequence[str] | None = (),
                labels: Mapping[str, Sequence[str]] | None = None, scenario: str | None = None,
                derived: Mapping[str, np.ndarray] | None = None) -> tuple[dict[str, np.ndarray], dict[str, tuple]]:
        """The games-table columns of rows ``out`` and the labels of their categories.

        Args:
            out: ``int[n, width]`` the kernels' rows.
            sides: the sides in the kernels' order.
            when: names of the ``when`` fields to write (the others are left out); None: all.
            labels: ``{key: labels}`` for fields whose ``labels`` is a key.
            scenario: write only the fields whose ``scenarios`` hold it (None: every field).
            derived: ``{concrete name: ndarray[n]}`` the values of the ``derived`` fields written.

        Returns:
            ``(columns, categories)``: ``{name: ndarray[n]}`` in declaration order (``type`` cast; a
            string column as its codes) and ``{name: labels}`` of the string columns.

        Raises:
            ValueError: a derived column written but not given, or one given that no field written declares.
        """
        cols: dict[str, np.ndarray] = {}
        cats: dict[str, tuple] = {}
        given = dict(derived or {})
        for f in self.fields:
            if not f.column or (f.when and when is not None and f.name not in when) or not f.applies(scenario):
                continue
            base = 0 if f.derived else self.slot(f)
            den = 0 if f.ratio_of is None else self._constant(f, f.ratio_of)
            other = f._other()
            sidev = list(enumerate(sides)) if "{side}" in f.name else [(0, None)]
            for s, side in sidev:
                for v, val in (list(enumerate(other[1])) if other else [(0, None)]):
                    name = f.name
                    if side is not None:
                        name = name.replace("{side}", side)
                    if other is not None:
                        name = name.replace("{" + other[0] + "}", val)
                    i = base + f.side_stride * s + f.value_stride * v
                    if f.derived:
                        if name not in given:
                            raise ValueError(f"{self.source}: derived column {name} not given")
                        raw = np.asarray(given.pop(name))
                    elif f.sum_sides:
                        raw = out[:, i]
                        for k in range(1, len(sides)):
                            raw = raw + out[:, i + f.side_stride * k]
                    else:
                        raw = out[:, i]
                    if f.derive is not None:
                        raw = f.derive(raw)
                    if f.offset:
                        raw = raw + f.offset
                    if f.ratio_of is not None:
                        d = out[:, den + i - base]
                        cols[name] = np.where(d > 0, raw / np.maximum(d, 1), 0.0).astype(f.type)
                    elif f.type == "string":
                        cols[name] = raw.astype(f.code_type)
                        lab = f.labels
                        cats[name] = tuple((labels or {})[lab] if isinstance(lab, str) else lab)
                    elif f.divide is not None:
                        cols[name] = raw / f.divide
                    else:
                        cols[name] = raw.astype(f.type)
        if given:
            raise ValueError(f"{self.source}: derived columns no field written here declares: "
                             f"{', '.join(sorted(given))}")
        return cols, cats
