"""Game values as experiment parameters: ``data.<table>.<key>.<field>`` in ``--set``, ``--grid``,
experiment files (``[options]``/``[grid]``) and everything built on them (issue 30).

A *data name* addresses numeric values of the game's data pack:

- ``data.ports.havana.defense``: one value (table ``ports``, row ``havana``, field ``defense``);
  a row key that holds dots is written as it is (``data.units.M. Teresa.attack``: the table is the
  first part, the field the last).
- ``data.ports.*.defense``: a *pattern*; ``*`` in the key or the field matches any text
  (:mod:`fnmatch`), and the pattern addresses every numeric value it matches (a row without the
  field, or with a non-numeric or empty value there, is not addressed).

A *data value* says what to do with the values addressed:

- a number (``20``, ``2.5``, ``-3``): set each to it;
- ``*F`` (``*1.5``): multiply each by ``F``;
- ``+N`` (``+2``, ``+-1``): add ``N`` to each.

An integer field stays an integer: a scaled or shifted value is rounded to the nearest integer,
halves away from zero (a set value must be a whole number there). The edits of a cell are applied
in order (the fixed ``[options]``/``--set`` ones, then the ``[grid]``/``--grid`` axes in their
order), each to the result of the ones before; the resulting pack passes the pack's whole schema and
cross-table check (:func:`simlab.datapack.apply_values`), so a value the rules forbid (a port
defense of 0, Rule 3.4.5 B with 3.4.1) is refused before anything plays. Every value changed takes
the provenance ``user:<data name>`` and counts as a user value.

The games table gets one column per data *axis* (a ``[grid]``/``--grid`` data name, not a fixed
one): :func:`data_column` names it, ``data_<table>_<key>_<field>`` with every ``*`` written ``all``
and every other character that is not a letter or digit written ``_``
(``data.ports.*.defense`` -> ``data_ports_all_defense``). It holds the axis value as given: a number
(``int64``, or ``float64`` when any of the axis' values is a real) when every value of the axis is a
number, else the text of each value (``"*1.5"``, ``"+2"``, ``"20"``).
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Sequence
from typing import Any

from .datapack import DataPack, PackSchema, apply_values
from .errors import DataPackError, SpecError

__all__ = ["DATA_PREFIX", "DataParam", "data_column", "data_param", "data_column_kind", "is_data_name", "parse_data_value",
           "resolve_edits", "split_data_name"]

DATA_PREFIX = "data."


def is_data_name(name: object) -> bool:
    """Whether a setting's name addresses data-pack values (``data.<table>.<key>.<field>``)."""
    return isinstance(name, str) and name.startswith(DATA_PREFIX)


def split_data_name(name: str) -> tuple[str, str, str]:
    """``data.<table>.<key>.<field>`` as ``(table, key, field)`` (the key may hold dots).

    Raises:
        SpecError: a name with fewer than three parts after ``data.`` or an empty part.
    """
    parts = name[len(DATA_PREFIX):].split(".")
    if len(parts) < 3 or not all(p.strip() for p in (parts[0], ".".join(parts[1:-1]), parts[-1])):
        raise SpecError(f"'{name}': a data value is named data.<table>.<key>.<field> "
                        "(e.g. data.ports.havana.defense; '*' matches any key or field)")
    return parts[0], ".".join(parts[1:-1]), parts[-1]


def data_column(name: str) -> str:
    """The games-table column of data axis ``name``: ``data_<table>_<key>_<field>``, every ``*``
    written ``all`` and every other non-alphanumeric character ``_``
    (``data.ports.*.defense`` -> ``data_ports_all_defense``)."""
    body = name[len(DATA_PREFIX):].replace("*", "all")
    return "data_" + re.sub(r"[^A-Za-z0-9]", "_", body)


def data_column_kind(values: Sequence[Any]) -> str:
    """The column type of an axis with these (parsed) values: ``int64``, ``float64`` or ``string``."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int64"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "float64"
    return "string"


def _number(text: str, name: str, raw: object) -> int | float:
    t = text.strip()
    try:
        v: int | float = int(t)
    except ValueError:
        try:
            v = float(t)
        except ValueError:
            raise SpecError(f"{name}={raw}: not a number (give a number, *FACTOR or +SHIFT)") from None
    if isinstance(v, float) and not math.isfinite(v):
        raise SpecError(f"{name}={raw}: not a finite number")
    return v


def parse_data_value(name: str, raw: object) -> int | float | str:
    """A data value as given on the command line or in a TOML file, checked and typed.

    Returns:
        an ``int`` or ``float`` to set; or the text ``"*F"`` (scale) or ``"+N"`` (shift), stripped.

    Raises:
        SpecError: a boolean, a list, a non-numeric text or a non-finite number (one line).
    """
    split_data_name(name)
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise SpecError(f"{name}={raw!r}: a data value is a number, *FACTOR or +SHIFT")
    if isinstance(raw, (int, float)):
        if isinstance(raw, float) and not math.isfinite(raw):
            raise SpecError(f"{name}={raw}: not a finite number")
        return raw
    t = raw.strip()
    if t[:1] in ("*", "+"):
        _number(t[1:], name, raw)
        return t[0] + t[1:].strip()
    return _number(t, name, raw)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _targets(pack: DataPack, name: str) -> list[tuple[str, str, str]]:
    """The ``(table, key, field)`` a data name addresses in ``pack``.

    Raises:
        DataPackError: an unknown table, key or field, a non-numeric value, or a pattern that
            matches no numeric value.
    """
    table, key, fld = split_data_name(name)
    tables = pack.tables
    if table not in tables:
        raise DataPackError(f"{name}: the {pack.game} data pack has no table '{table}' "
                            f"(tables: {', '.join(sorted(tables))})")
    rows = tables[table]
    if "*" in key or "*" in fld:
        out = [(table, k, f) for k in rows if fnmatch.fnmatchcase(k, key)
               for f in rows[k] if fnmatch.fnmatchcase(f, fld) and _is_number(rows[k][f].value)]
        if not out:
            raise DataPackError(f"{name}: the pattern matches no numeric value in table '{table}'")
        return out
    if key not in rows:
        import difflib
        near = difflib.get_close_matches(key, list(rows), n=1)
        hint = f"did you mean '{near[0]}'?" if near else f"keys: {', '.join(list(rows)[:10])}..."
        raise DataPackError(f"{name}: table '{table}' has no row '{key}' ({hint})")
    row = rows[key]
    numeric = sorted(f for f, v in row.items() if _is_number(v.value))
    if fld not in row:
        raise DataPackError(f"{name}: row {table}.{key} has no field '{fld}' "
                            f"(numeric fields: {', '.join(numeric) or 'none'})")
    v = row[fld].value
    if not _is_number(v):
        raise DataPackError(f"{name}: {table}.{key}.{fld} is not numeric (it is {v!r}; "
                            f"numeric fields: {', '.join(numeric) or 'none'})")
    return [(table, key, fld)]


def _round_half_away(x: float) -> int:
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def _new_value(old: int | float, value: int | float | str) -> int | float:
    if isinstance(value, str):
        n = float(value[1:]) if "." in value[1:] or "e" in value[1:].lower() else int(value[1:])
        new = old * n if value[0] == "*" else old + n
        if isinstance(old, int):
            return _round_half_away(new) if isinstance(new, float) else new
        return float(new)
    if isinstance(old, int) and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(old, float) and isinstance(value, int):
        return float(value)
    return value


def resolve_edits(pack: DataPack, edits: Sequence[tuple[str, Any]], schema: PackSchema) -> DataPack:
    """The pack with data edits applied, checked whole (schema and cross-table check).

    Args:
        pack: the base pack (with its override, if any); left untouched.
        edits: ``[(data name, parsed value)]`` (:func:`parse_data_value`), applied in order.
        schema: the game's :class:`~simlab.datapack.PackSchema`.

    Returns:
        A new :class:`~simlab.datapack.DataPack`; each changed value has provenance
        ``user:<data name>``.

    Raises:
        DataPackError: an unknown table, key or field, a non-numeric value, or a resulting pack
            the schema or the game's check refuses (named with the edit, one line).
    """
    if not edits:
        return pack
    values: dict[tuple[str, str, str], tuple[Any, str, str]] = {}
    current = {}
    for name, value in edits:
        for t, k, f in _targets(pack, name):
            old = current.get((t, k, f), pack.tables[t][k][f].value)
            new = _new_value(old, value)
            current[(t, k, f)] = new
            values[(t, k, f)] = (new, f"user:{name}", f"{name}={value} (was {pack.tables[t][k][f].value})")
    label = ", ".join(f"{n}={v}" for n, v in edits)
    return apply_values(pack, values, schema, label)


class DataParam:
    """A data name seen as a numeric option (``simlab tune --param data.ports.havana.defense``).

    Attributes:
        name: the data name; kind: ``int`` when every value it addresses is an integer, else
        ``float``; default: the value in the pack (the first one, for a pattern); doc: a line for
        reports; min, max: None (the pack's schema checks each value played); score_only: False
        (a data value may change play).
    """

    score_only = False
    min = None
    max = None

    def __init__(self, name: str, kind: type, default: int | float, doc: str):
        self.name, self.kind, self.default, self.doc = name, kind, default, doc

    def parse(self, v: object) -> int | float:
        """A value to set, of :attr:`kind`.

        Raises:
            SpecError: a non-number, or a non-whole number for an integer value.
        """
        x = parse_data_value(self.name, v)
        if isinstance(x, str):
            raise SpecError(f"{self.name}: a tuned data value is a number, not {x!r}")
        if self.kind is int:
            if isinstance(x, float) and not x.is_integer():
                raise SpecError(f"{self.name}={v}: the pack's value is a whole number")
            return int(x)
        return float(x)


def data_param(pack: DataPack | None, name: str) -> DataParam:
    """The :class:`DataParam` of data name ``name`` in ``pack``.

    Raises:
        SpecError: no pack; DataPackError: an unknown table, key or field or a non-numeric value.
    """
    if pack is None:
        raise SpecError(f"'{name}': this game has no data pack")
    targets = _targets(pack, name)
    vals = [pack.tables[t][k][f].value for t, k, f in targets]
    kind = int if all(isinstance(v, int) for v in vals) else float
    t, k, f = targets[0]
    doc = pack.tables[t][k][f].note or f"data-pack value {t}.{k}.{f}"
    return DataParam(name, kind, vals[0], doc)
