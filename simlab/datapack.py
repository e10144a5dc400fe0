"""Data packs: every game value with its provenance, versioned, hashed and overridable.

A data pack is a folder of TOML files. One file holds the header::

    [pack]
    game = "dawn-of-empire"        # the game family the pack serves
    name = "doe-core"
    version = "1.0.0"

and every file may hold tables, one TOML table per row, one key per field::

    [units.Brooklyn]
    _provenance = "provisional"                # default for the fields of this row
    _note = "scaled from the CA/BB pattern"     # default note
    type = { value = "CA", provenance = "rulebook:13.0" }
    defense = { value = 5, provenance = "example:18.2.6", note = "5 damage, 'equal to ... defense'" }
    attack = 3

A field's value is a TOML scalar or array; its provenance is one of ``rulebook:<section>``,
``example:<section>``, ``provisional`` (which needs a note) or, in override packs only,
``user:<source>``. Nothing else is accepted: a base pack cannot present an invented value as the
game's without saying so.

An *override pack* is a TOML file with ``[pack] game = ...`` and any subset of rows and fields;
every value in it takes the provenance ``user:<file name>``, whatever the file claims (a
``provenance`` other than that tag is refused); ``source = "3.21"`` records the printed section a
user's value comes from, shown as ``user:<file name> (3.21)`` and still counted as a user value. :func:`apply_override` checks it
against the game's schema and lists what it changes.

Values are read through a :class:`PackView`, which records every ``(table, key, field)`` it hands
out, so a run can say how many of the values it relied on were provisional.

**Plausible ranges** (issue 30). An invented value comes with the range a designer would still find
plausible, which ``simlab sensitivity`` sweeps by default. Either on the field itself::

    defense = { value = 8, provenance = "provisional", note = "...", range = [4, 16], range_note = "..." }

or, for many values at once, a rule in a top-level ``[[ranges]]`` array (any file of the pack)::

    [[ranges]]
    values = "ports.*.defense"     # table.key.field, * wildcards (fnmatch)
    range = [2, 16]                # absolute bounds; or scale = [0.5, 1.5] (times the value)
    note = "why this range"        #   or offset = [-1, 2] (added to the value)
    # within = [0, 6]              # clips a scale or offset range

A rule applies to every matched numeric value that is not printed by the rules (provenance
``provisional``, or ``user:`` in an override pack); a later rule overrides an earlier one and a
field's own ``range`` overrides every rule. A ``scale`` or ``offset`` range of an integer value is
widened to whole numbers (floor of the low end, ceiling of the high end). The pack is refused (one
line) when a range has its low end above its high end, a value lies outside its range, a bound
breaks the table's schema (a defense range reaching 0), or a rule matches nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import DataPackError
from .tomlio import read_toml

__all__ = [
    "DataPack",
    "PackSchema",
    "PlausibleRange",
    "RangeRule",
    "PackView",
    "TableSchema",
    "Value",
    "apply_override",
    "apply_values",
    "load_override",
    "load_pack",
    "provenance_kind",
]

_SECTION = r"[0-9]+(?:\.[0-9]+)*(?:\s?[A-Z](?:\.[0-9]+)?)?(?:\s?[-–]\s?[0-9]+(?:\.[0-9]+)*)?"
_PROVENANCE = re.compile(rf"^(?:(rulebook|example):{_SECTION}|provisional|user:\S.*)$")
KINDS = ("rulebook", "example", "provisional", "user")
#: keys an override pack's ``[pack]`` header may hold
OVERRIDE_HEADER_KEYS = frozenset({"game", "name", "version", "description", "author", "source"})


def provenance_kind(tag: str) -> str:
    """The kind of a provenance tag: ``rulebook``, ``example``, ``provisional`` or ``user``.

    Raises:
        DataPackError: if the tag is not one of the accepted forms.
    """
    if not isinstance(tag, str) or not _PROVENANCE.match(tag):
        raise DataPackError(
            f"bad provenance tag {tag!r}: use rulebook:<section>, example:<section> or provisional"
        )
    return tag.split(":", 1)[0]


@dataclass(frozen=True)
class Value:
    """One game value with where it comes from."""

    value: Any
    provenance: str
    note: str = ""
    #: ``(lo, hi, note)`` given on the field itself (``range = [lo, hi]``), or None
    range: tuple | None = None

    @property
    def kind(self) -> str:
        return provenance_kind(self.provenance)


Rows = dict[str, dict[str, dict[str, Value]]]


def _ordered(pair: list[float], what: str) -> None:
    if pair[0] > pair[1]:
        raise ValueError(f"{what} = [{pair[0]:g}, {pair[1]:g}]: its low end is above its high end")


class RangeRule(BaseModel):
    """One ``[[ranges]]`` rule of a pack: the plausible range of every value a pattern matches.

    Attributes:
        values: ``table.key.field`` with ``*`` wildcards (:mod:`fnmatch`).
        range: absolute ``[lo, hi]``; scale: ``[a, b]``, the range ``[a v, b v]`` of each value
            ``v``; offset: ``[a, b]``, the range ``[v + a, v + b]``. Exactly one of the three.
        within: ``[lo, hi]`` that a scale or offset range is clipped to (a count stays >= 0).
        note: the reasoning (required).
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    values: str = Field(pattern=r"^[^.]+\..+\.[^.]+$")
    range: list[float] | None = Field(default=None, min_length=2, max_length=2)
    scale: list[float] | None = Field(default=None, min_length=2, max_length=2)
    offset: list[float] | None = Field(default=None, min_length=2, max_length=2)
    within: list[float] | None = Field(default=None, min_length=2, max_length=2)
    note: str = Field(min_length=1)

    @model_validator(mode="after")
    def _one_kind(self):
        given = [k for k in ("range", "scale", "offset") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of range, scale or offset")
        _ordered(getattr(self, given[0]), given[0])
        if self.scale is not None and self.scale[0] < 0:
            raise ValueError("scale factors must be at least 0")
        if self.within is not None:
            if self.range is not None:
                raise ValueError("within clips a scale or offset range, not an absolute one")
            _ordered(self.within, "within")
        return self


class _FieldRange(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    range: list[float] = Field(min_length=2, max_length=2)

    @model_validator(mode="after")
    def _ordered(self):
        _ordered(self.range, "range")
        return self


@dataclass(frozen=True)
class PlausibleRange:
    """The plausible range of one value: ``lo <= value <= hi`` (ints for an integer value).

    Attributes:
        lo, hi: the bounds, in the value's unit; note: the reasoning; source: ``field`` or the
            rule's ``values`` pattern.
    """

    lo: float | int
    hi: float | int
    note: str
    source: str


@dataclass(frozen=True)
class TableSchema:
    """How one table of a pack is checked.

    Attributes:
        row: pydantic model of one row (``extra="forbid"`` recommended); field names are the
            pack's field names.
        open: whether an override pack may add new rows (it must then give every required field).
        doc: one line shown by ``simlab data show``.
    """

    row: type[BaseModel]
    open: bool = False
    doc: str = ""


@dataclass(frozen=True)
class PackSchema:
    """A game's data-pack schema: its tables and an optional whole-pack check.

    ``check(pack)`` may raise :class:`DataPackError` for cross-table problems (an adjacency to an
    unknown area, a unit at an unknown port...).
    """

    game: str
    tables: Mapping[str, TableSchema]
    check: Any = None


@dataclass
class DataPack:
    """A loaded, validated data pack (treat as immutable; overrides build a new one)."""

    game: str
    name: str
    version: str
    tables: Rows
    sources: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()
    _hash: str | None = field(default=None, repr=False)
    #: the plausible range of each value that has one (:func:`resolve_ranges`)
    ranges: dict[tuple[str, str, str], PlausibleRange] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ reading
    def view(self) -> PackView:
        """A fresh :class:`PackView` that records which values are read."""
        return PackView(self)

    def records(self) -> list[dict]:
        """Flat records ``{table, key, field, value, provenance, note}``, sorted by table, key, field."""
        out = []
        for t in sorted(self.tables):
            for k in sorted(self.tables[t], key=_natural):
                for f in sorted(self.tables[t][k]):
                    v = self.tables[t][k][f]
                    out.append(
                        {"table": t, "key": k, "field": f, "value": v.value, "provenance": v.provenance,
                         "note": v.note}
                    )
        return out

    def counts(self, used: Iterable[tuple[str, str, str]] | None = None) -> dict[str, int]:
        """Number of values of each provenance kind (of all values, or of the ``used`` ones)."""
        c = dict.fromkeys(KINDS, 0)
        keys = used if used is not None else (
            (t, k, f) for t in self.tables for k in self.tables[t] for f in self.tables[t][k]
        )
        for t, k, f in keys:
            c[self.tables[t][k][f].kind] += 1
        return c

    @property
    def hash(self) -> str:
        """SHA-256 (first 16 hex digits) of every value and provenance: changes whenever a value does."""
        if self._hash is None:
            blob = json.dumps(
                [[r["table"], r["key"], r["field"], r["value"], r["provenance"]] for r in self.records()],
                separators=(",", ":"), default=str,
            ).encode()
            self._hash = hashlib.sha256(blob).hexdigest()[:16]
        return self._hash

    def summary(self, used: Iterable[tuple[str, str, str]] | None = None) -> dict:
        """``{game, name, version, hash, counts, overrides}`` (counts over ``used`` when given)."""
        return {"game": self.game, "name": self.name, "version": self.version, "hash": self.hash,
                "counts": self.counts(used), "overrides": list(self.overrides)}


class PackView:
    """Read access to a pack that remembers which values were read (for provenance accounting)."""

    def __init__(self, pack: DataPack):
        self.pack = pack
        self.used: set[tuple[str, str, str]] = set()

    def has(self, table: str, key: str) -> bool:
        return key in self.pack.tables.get(table, {})

    def keys(self, table: str) -> list[str]:
        """Row keys of a table in file order."""
        return list(self.pack.tables.get(table, {}))

    def row(self, table: str, key: str) -> dict[str, Any]:
        """All fields of one row as plain values (each marked as used).

        Raises:
            DataPackError: if the table or row is missing.
        """
        try:
            r = self.pack.tables[table][key]
        except KeyError:
            raise DataPackError(f"data pack {self.pack.name}: no row {table}.{key}") from None
        for f in r:
            self.used.add((table, key, f))
        return {f: v.value for f, v in r.items()}

    def rows(self, table: str) -> dict[str, dict[str, Any]]:
        """Every row of a table as ``{key: {field: value}}`` (all marked as used)."""
        return {k: self.row(table, k) for k in self.keys(table)}

    def value(self, table: str, key: str, field_: str) -> Any:
        """One value (marked as used)."""
        try:
            v = self.pack.tables[table][key][field_]
        except KeyError:
            raise DataPackError(f"data pack {self.pack.name}: no value {table}.{key}.{field_}") from None
        self.used.add((table, key, field_))
        return v.value

    def provisional_used(self) -> list[str]:
        """``table.key.field`` of every provisional value read so far, sorted."""
        t = self.pack.tables
        return sorted(f"{a}.{b}.{c}" for a, b, c in self.used if t[a][b][c].kind == "provisional")

    def summary(self) -> dict:
        """The pack summary with ``counts`` over the values read, plus ``provisional_used``."""
        s = self.pack.summary(self.used)
        s["values_used"] = len(self.used)
        s["provisional_used"] = self.provisional_used()
        return s


def _natural(s: str):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)]


def _read_toml(path: Path) -> dict:
    return read_toml(path, DataPackError, "data pack file")


def _parse_rows(doc: dict, where: str, default_provenance: str | None) -> Rows:
    """Rows of one TOML document.

    ``default_provenance`` is None for a base pack. For an override pack it is ``user:<file>``, and
    every value is tagged with it: a ``provenance`` there is refused unless it is that very tag, and
    ``source = "<section>"`` (or ``_source`` for a row) says which printed section a user's value
    comes from, shown as ``user:<file> (<section>)``, still counted as a user value.
    """
    override = default_provenance is not None
    allowed = {"value", "note", "range", "range_note"} | ({"source", "provenance"} if override else {"provenance"})
    meta = ("_provenance", "_note", "_source") if override else ("_provenance", "_note")
    rows: Rows = {}
    for table, body in doc.items():
        if table in ("pack", "ranges"):
            continue
        if not isinstance(body, dict):
            raise DataPackError(f"{where}: '{table}' must be a table of rows ([{table}.<key>])")
        rows[table] = {}
        for key, fields in body.items():
            if not isinstance(fields, dict):
                raise DataPackError(f"{where}: row {table}.{key} must be a table of fields")
            row_prov = fields.get("_provenance", default_provenance)
            row_note = fields.get("_note", "")
            row_source = fields.get("_source")
            out: dict[str, Value] = {}
            for fname, raw in fields.items():
                if fname in meta:
                    continue
                if isinstance(raw, dict):
                    extra = set(raw) - allowed
                    if "value" not in raw or extra:
                        raise DataPackError(
                            f"{where}: {table}.{key}.{fname} must be a value or "
                            f"{{ {', '.join(f'{k} = ...' for k in sorted(allowed))} }}"
                        )
                    prov, note, val = raw.get("provenance", row_prov), raw.get("note", row_note), raw["value"]
                    source = raw.get("source", row_source)
                    rng = _field_range(where, f"{table}.{key}.{fname}", raw)
                else:
                    prov, note, val, source, rng = row_prov, row_note, raw, row_source, None
                if prov is None:
                    raise DataPackError(f"{where}: {table}.{key}.{fname} has no provenance")
                kind = provenance_kind(prov)
                if not isinstance(note, str):
                    raise DataPackError(f"{where}: {table}.{key}.{fname}: its note must be a string "
                                        f"(got {type(note).__name__} {note!r})")
                if kind == "provisional" and not str(note).strip():
                    raise DataPackError(f"{where}: {table}.{key}.{fname} is provisional but has no note")
                if kind == "user" and not override:
                    raise DataPackError(f"{where}: {table}.{key}.{fname}: 'user:' provenance is for override packs")
                if override:
                    if prov != default_provenance:
                        raise DataPackError(
                            f"{where}: {table}.{key}.{fname}: an override pack's values are {default_provenance} "
                            f"(not {prov!r}); say which printed section a value comes from with source = \"<section>\"")
                    if source is not None:
                        if not isinstance(source, str) or not re.fullmatch(_SECTION, source.strip()):
                            raise DataPackError(f"{where}: {table}.{key}.{fname}: source {source!r} is not a rule "
                                                "section (e.g. \"3.21\" or \"18.1.6 A\")")
                        prov = f"{default_provenance} ({source.strip()})"
                out[fname] = Value(val, prov, str(note), rng)
            rows[table][str(key)] = out
    return rows


def _field_range(where: str, name: str, raw: dict) -> tuple | None:
    """A field's own ``range = [lo, hi]`` (and ``range_note``) as ``(lo, hi, note)``, checked."""
    if "range" not in raw:
        if "range_note" in raw:
            raise DataPackError(f"{where}: {name}: range_note without a range")
        return None
    try:
        _FieldRange.model_validate({"range": raw["range"]})
    except ValidationError as e:
        raise DataPackError(f"{where}: {name}: plausible range {raw['range']!r}: {_pydantic_msg(e)}") from None
    note = raw.get("range_note", raw.get("note", ""))
    if not isinstance(note, str) or not note.strip():
        raise DataPackError(f"{where}: {name}: a plausible range needs its reasoning (range_note, or the field's note)")
    return (raw["range"][0], raw["range"][1], note)


def _pydantic_msg(e: ValidationError) -> str:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    return f"{loc}: {msg}" if loc else msg


def _range_rules(doc: dict, where: str) -> list[RangeRule]:
    """The ``[[ranges]]`` rules of one TOML document, checked (one line on a problem)."""
    raw = doc.get("ranges")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise DataPackError(f"{where}: 'ranges' must be an array of tables ([[ranges]] values = ..., range = [lo, hi], note = ...)")
    out = []
    for i, r in enumerate(raw):
        try:
            out.append(RangeRule.model_validate(r))
        except ValidationError as e:
            what = r.get("values", f"#{i + 1}") if isinstance(r, dict) else f"#{i + 1}"
            raise DataPackError(f"{where}: [[ranges]] {what}: {_pydantic_msg(e)}") from None
    return out


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def resolve_ranges(rows: Rows, rules: list[tuple[str, RangeRule]], schema: PackSchema,
                   inherited: Mapping[tuple[str, str, str], PlausibleRange] | None = None,
                   fields: Iterable[tuple[str, str, str]] | None = None) -> dict[tuple[str, str, str], PlausibleRange]:
    """The plausible range of each value of ``rows``, checked.

    Args:
        rows: the (merged) pack's rows.
        rules: ``(file name, rule)`` in order; a later rule overrides an earlier one.
        schema: each bound must pass its table's row model with the row's other values.
        inherited: ranges kept from a base pack (an override's rules and fields override them).
        fields: the values whose own ``range`` applies (default: every value of ``rows``).

    Returns:
        ``{(table, key, field): PlausibleRange}``.

    Raises:
        DataPackError: a rule that matches no value, a value outside its range, or a bound the
            schema refuses (one line, named with the file).
    """
    import fnmatch
    import math
    out: dict[tuple[str, str, str], PlausibleRange] = dict(inherited or {})
    where_of: dict[tuple[str, str, str], str] = {}
    for where, rule in rules:
        pt, rest = rule.values.split(".", 1)
        pk, pf = rest.rsplit(".", 1)
        hit = 0
        for t in rows:
            if not fnmatch.fnmatchcase(t, pt):
                continue
            for k, row in rows[t].items():
                if not fnmatch.fnmatchcase(k, pk):
                    continue
                for f, v in row.items():
                    if not fnmatch.fnmatchcase(f, pf) or not _is_number(v.value) or v.kind in ("rulebook", "example"):
                        continue
                    hit += 1
                    x = v.value
                    if rule.range is not None:
                        lo, hi = rule.range
                    elif rule.scale is not None:
                        lo, hi = x * rule.scale[0], x * rule.scale[1]
                        lo, hi = min(lo, hi), max(lo, hi)
                    else:
                        lo, hi = x + rule.offset[0], x + rule.offset[1]
                    if rule.within is not None:
                        lo, hi = max(lo, rule.within[0]), min(hi, rule.within[1])
                    if isinstance(x, int):
                        lo, hi = (math.floor(lo), math.ceil(hi)) if rule.range is None else (lo, hi)
                        if rule.range is not None and not (float(lo).is_integer() and float(hi).is_integer()):
                            raise DataPackError(f"{where}: [[ranges]] {rule.values}: {t}.{k}.{f} is a whole number; "
                                                f"give whole bounds (not [{lo:g}, {hi:g}])")
                        lo, hi = int(lo), int(hi)
                    out[(t, k, f)] = PlausibleRange(lo, hi, rule.note, rule.values)
                    where_of[(t, k, f)] = where
        if not hit:
            raise DataPackError(f"{where}: [[ranges]] {rule.values}: matches no numeric value that is not printed "
                                "by the rules")
    for t, body in rows.items():
        for k, row in body.items():
            for f, v in row.items():
                if v.range is not None and (fields is None or (t, k, f) in fields):
                    lo, hi, note = v.range
                    if not _is_number(v.value):
                        raise DataPackError(f"{t}.{k}.{f}: a plausible range is for a numeric value (it is {v.value!r})")
                    if isinstance(v.value, int):
                        if not (float(lo).is_integer() and float(hi).is_integer()):
                            raise DataPackError(f"{t}.{k}.{f}: a whole number's range needs whole bounds "
                                                f"(not [{lo:g}, {hi:g}])")
                        lo, hi = int(lo), int(hi)
                    out[(t, k, f)] = PlausibleRange(lo, hi, note, "field")
                    where_of[(t, k, f)] = "field"
    for (t, k, f), r in out.items():
        if t not in rows or k not in rows[t] or f not in rows[t][k]:
            continue
        v = rows[t][k][f].value
        src = "its own range" if r.source == "field" else f"[[ranges]] {r.source}"
        if not (r.lo <= v <= r.hi) and (t, k, f) in where_of:
            pre = "" if r.source == "field" else f"{where_of[(t, k, f)]}: "
            raise DataPackError(f"{pre}{t}.{k}.{f} = {v} lies outside its plausible range [{r.lo:g}, {r.hi:g}] ({src})")
        ts = schema.tables.get(t)
        if ts is None or (t, k, f) not in where_of:
            continue
        vals = {fn: x.value for fn, x in rows[t][k].items()}
        for bound in (r.lo, r.hi):
            try:
                ts.row.model_validate({**vals, f: bound}, strict=True)
            except ValidationError as e:
                pre = "" if r.source == "field" else f"{where_of[(t, k, f)]}: "
                raise DataPackError(f"{pre}{t}.{k}.{f}: the bound {bound:g} of its plausible range [{r.lo:g}, {r.hi:g}] "
                                    f"({src}) breaks the schema: {_pydantic_msg(e)}") from None
    return out


def _validate(rows: Rows, schema: PackSchema, where: str, partial: bool = False) -> None:
    for table, body in rows.items():
        ts = schema.tables.get(table)
        if ts is None:
            raise DataPackError(f"{where}: unknown table '{table}' (known: {', '.join(sorted(schema.tables))})")
        if partial:
            continue
        for key, fields in body.items():
            try:
                # strict: a TOML true is not the number 1, nor 3.0 an integer
                ts.row.model_validate({f: v.value for f, v in fields.items()}, strict=True)
            except ValidationError as e:
                err = e.errors()[0]
                loc = ".".join(str(x) for x in err["loc"]) or "(row)"
                raise DataPackError(f"{where}: {table}.{key}.{loc}: {err['msg']}") from None


def _check_new_row(where: str, table: str, key: str, fields: dict, ts, known: list[str]) -> None:
    """A row an override pack adds must be whole; a near miss of a known key is most likely a typo."""
    try:
        ts.row.model_validate({f: v.value for f, v in fields.items()})
    except ValidationError as e:
        missing = [str(err["loc"][0]) for err in e.errors() if err["type"] == "missing" and err["loc"]]
        if not missing:
            return  # a bad value: reported with its field by the full validation
        import difflib
        near = difflib.get_close_matches(key, known, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        raise DataPackError(f"{where}: {table}.{key} is not in the pack, and as a new row it lacks "
                            f"{', '.join(missing)}{hint}") from None


def load_pack(path: str | Path, schema: PackSchema) -> DataPack:
    """Load and validate a base data pack.

    Args:
        path: a pack folder (all ``*.toml`` in it, one with the ``[pack]`` header) or one file.
        schema: the game's :class:`PackSchema`.

    Returns:
        The validated :class:`DataPack`.

    Raises:
        DataPackError: on a missing header, a syntax error, a value without provenance, a
            provisional value without a note, a duplicated row, or a schema violation.
    """
    p = Path(path)
    files = sorted(p.glob("*.toml")) if p.is_dir() else [p]
    header = None
    tables: Rows = {}
    rules: list[tuple[str, RangeRule]] = []
    for f in files:
        doc = _read_toml(f)
        rules += [(f.name, r) for r in _range_rules(doc, f.name)]
        if "pack" in doc:
            if header is not None:
                raise DataPackError(f"{f.name}: a second [pack] header")
            header = doc["pack"]
        for t, body in _parse_rows(doc, f.name, None).items():
            dest = tables.setdefault(t, {})
            for k, v in body.items():
                if k in dest:
                    raise DataPackError(f"{f.name}: row {t}.{k} is defined twice")
                dest[k] = v
    if header is None:
        raise DataPackError(f"{p}: no [pack] header (game, name, version)")
    for k in ("game", "name", "version"):
        if not isinstance(header.get(k), str):
            raise DataPackError(f"{p}: [pack] needs a string '{k}'")
    if header["game"] != schema.game:
        raise DataPackError(f"{p}: pack is for '{header['game']}', not '{schema.game}'")
    _validate(tables, schema, header["name"])
    pack = DataPack(header["game"], header["name"], header["version"], tables, tuple(str(f) for f in files))
    if schema.check is not None:
        schema.check(pack)
    pack.ranges = resolve_ranges(tables, rules, schema)
    return pack


def load_override(path: str | Path, schema: PackSchema) -> tuple[dict, Rows]:
    """Read an override pack (any subset of rows and fields) without applying it.

    Returns:
        ``(header, rows)``; plain values carry provenance ``user:<file name>``.

    Raises:
        DataPackError: on a missing file, a syntax error, a header for another game, or an
            unknown table.
    """
    p = Path(path)
    doc = _read_toml(p)
    header = doc.get("pack", {})
    if not isinstance(header, dict) or header.get("game") != schema.game:
        got = header.get("game") if isinstance(header, dict) else None
        raise DataPackError(
            f"{p.name}: an override pack needs [pack] game = \"{schema.game}\" (found {got!r})"
        )
    unknown = sorted(set(header) - OVERRIDE_HEADER_KEYS)
    if unknown:
        # most often a value meant for a table, written under [pack] by mistake
        raise DataPackError(f"{p.name}: unknown key '{unknown[0]}' in [pack] (keys: {', '.join(sorted(OVERRIDE_HEADER_KEYS))})")
    rows = _parse_rows(doc, p.name, f"user:{p.name}")
    _validate(rows, schema, p.name, partial=True)
    rules = _range_rules(doc, p.name)
    if rules:
        header = {**header, "_ranges": rules}
    return header, rows


def apply_override(base: DataPack, path: str | Path, schema: PackSchema) -> tuple[DataPack, list[dict]]:
    """Apply an override pack to a base pack.

    Args:
        base: the pack to change (left untouched).
        path: the override pack's TOML file.
        schema: the game's schema; the merged pack must pass it whole.

    Returns:
        ``(pack, changes)``: the new pack (its version gets ``+user`` and its hash changes) and one
        record per changed value ``{table, key, field, old, new, old_provenance}`` (``old`` is
        ``None`` for an added row or field).

    Raises:
        DataPackError: on any problem :func:`load_override` reports, an unknown row in a table
            that is not open to new rows, an unknown field, or a merged pack that fails the schema.
    """
    header, rows = load_override(path, schema)
    p = Path(path)
    merged: Rows = {t: {k: dict(f) for k, f in body.items()} for t, body in base.tables.items()}
    changes = []
    for table, body in rows.items():
        ts = schema.tables[table]
        dest = merged.setdefault(table, {})
        fields_known = set(ts.row.model_fields)
        for key, fields in body.items():
            if key not in dest and not ts.open:
                known = ", ".join(list(dest)[:8])
                raise DataPackError(f"{p.name}: unknown row {table}.{key} (this table takes no new rows; known: {known}...)")
            if key not in dest:
                _check_new_row(p.name, table, key, fields, ts, list(dest))
            row = dest.setdefault(key, {})
            for fname, v in fields.items():
                if fname not in fields_known:
                    raise DataPackError(f"{p.name}: {table}.{key}: unknown field '{fname}' (known: {', '.join(sorted(fields_known))})")
                old = row.get(fname)
                if old is None or old.value != v.value:
                    changes.append({"table": table, "key": key, "field": fname,
                                    "old": None if old is None else old.value, "new": v.value,
                                    "old_provenance": None if old is None else old.provenance})
                row[fname] = v
    _validate(merged, schema, p.name)
    pack = DataPack(base.game, base.name, base.version + "+user", merged, base.sources,
                    base.overrides + (str(p),))
    if schema.check is not None:
        schema.check(pack)
    own = {(t, k, f) for t, body in rows.items() for k, fs in body.items() for f in fs}
    pack.ranges = resolve_ranges(merged, [(p.name, r) for r in header.get("_ranges", [])], schema,
                                 inherited=base.ranges, fields=own)
    return pack, changes


def apply_values(base: DataPack, values: Mapping[tuple[str, str, str], tuple[Any, str, str]],
                 schema: PackSchema, where: str) -> DataPack:
    """A pack with some existing values replaced (data axes, :mod:`simlab.data_axes`), checked whole.

    Args:
        base: the pack to change (left untouched).
        values: ``{(table, key, field): (value, provenance, note)}``; every key must exist in
            ``base``; provenance is a ``user:`` tag.
        schema: the game's schema; the new pack must pass it whole and its cross-table check.
        where: what made the change (starts every error message).

    Returns:
        The new pack (its version gets ``+data`` and its hash changes).

    Raises:
        DataPackError: a value the schema or the game's check refuses (one line).
    """
    merged: Rows = {t: {k: dict(f) for k, f in body.items()} for t, body in base.tables.items()}
    for (t, k, f), (v, prov, note) in values.items():
        if provenance_kind(prov) != "user":
            raise DataPackError(f"{where}: {t}.{k}.{f}: a changed value's provenance must be user:<source>")
        merged[t][k][f] = Value(v, prov, note)
    _validate(merged, schema, where)
    pack = DataPack(base.game, base.name, base.version + "+data", merged, base.sources, base.overrides,
                    ranges=dict(base.ranges))
    if schema.check is not None:
        try:
            schema.check(pack)
        except DataPackError as e:
            raise DataPackError(f"{where}: {e}") from None
    return pack
