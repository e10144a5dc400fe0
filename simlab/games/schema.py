"""What each column of a games table holds: name, type, unit and meaning (``simlab schema GAME``).

Each game declares its own columns once: beside the kernels that fill them, as the record its
:attr:`simlab.games.base.Game.output_record` names (:mod:`simlab.games.records`: the slots, the
façade's conversion and this schema come from it), or in the file its
:attr:`simlab.games.base.Game.columns_file` names, which lives in the game's own folder (e.g. ``simlab/games/<game>/columns/<name>.toml``), one
``[[column]]`` table each::

    [[column]]
    name = "sunk_{side}_{type}"     # {side}: each of the scenario's sides; {x}: see values
    type = "int16"                  # the Arrow type written (a list when scenarios differ)
    unit = "ships"
    meaning = "ships of that side sunk (or scuttled, 14.8), by type"
    values = { type = ["bb", "ca"] }    # optional: what a placeholder other than {side} takes
    scenarios = ["campaign"]        # optional: only these scenarios write it
    when = "option shots = true"    # optional: written only then (not every game has it)

    [[events.battles]]              # a column of the events table battles (same keys)
    name = "rounds"
    ...

The sweep runner adds the framework's columns (:data:`FRAMEWORK`: the key columns, each side's
policy, the grid options, the knobs in force) and turns the game's small-int category codes into
strings; an events table gets the framework's ``experiment``, ``cell`` and ``game_index``
(:data:`EVENTS_FRAMEWORK`). :func:`describe_table` names every column of a written table for the manifest; a column
no declaration matches is reported, and tests/test_schema.py fails when a game writes a column its
file does not describe, or describes one it never writes (events tables included).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SpecError
from .records import Record

if TYPE_CHECKING:  # pragma: no cover
    from .base import Game

__all__ = ["EVENTS_FRAMEWORK", "FRAMEWORK", "Column", "game_events", "begin_marker", "describe_table", "game_columns", "load_columns",
           "markdown", "match", "readme_blocks", "record_columns", "render_block", "schema_rows"]

#: where the built-in games' column files live
TYPES = ("bool", "int8", "int16", "int32", "int64", "uint64", "float32", "float64", "string")
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Column:
    """One declared column (a template when its name holds ``{placeholders}``).

    Attributes:
        name: the column name; ``{side}`` stands for each side, any other ``{x}`` for ``values[x]``
            (or any lower-case word, digits and ``_`` included, when ``values`` does not list it).
        type: the Arrow types it may have (``int16``, ``float32``, ``string`` ...).
        unit: the unit (``VP``, ``ships``, ``turns``, ``side``, ``label`` for a category ...).
        meaning: one line, with the rule section where there is one.
        values: ``{placeholder: [value, ...]}``.
        scenarios: the scenarios that write it (None: every scenario).
        when: the condition under which it is written ("" when always).
        source: ``framework`` or the game's name.
    """

    name: str
    type: tuple[str, ...]
    unit: str
    meaning: str
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    scenarios: tuple[str, ...] | None = None
    when: str = ""
    source: str = "framework"

    def pattern(self, sides: Sequence[str]) -> re.Pattern:
        """The regular expression of the concrete names (``sides`` fill ``{side}``)."""
        out, pos = "", 0
        for m in _PLACEHOLDER.finditer(self.name):
            out += re.escape(self.name[pos:m.start()])
            key = m.group(1)
            vals = tuple(sides) if key == "side" else self.values.get(key)
            out += f"(?:{'|'.join(map(re.escape, vals))})" if vals else "[a-z0-9_]+"  # a knob may hold "_" (line_order)
            pos = m.end()
        return re.compile(out + re.escape(self.name[pos:]) + r"\Z")

    @property
    def shown(self) -> str:
        """The name as the docs write it: ``sunk_<side>_<type>``."""
        return _PLACEHOLDER.sub(lambda m: f"<{m.group(1)}>", self.name)

    def applies(self, scenario: str | None) -> bool:
        return self.scenarios is None or scenario is None or scenario in self.scenarios

    def as_dict(self) -> dict:
        d = {"column": self.shown, "type": " or ".join(self.type), "unit": self.unit, "meaning": self.meaning}
        for k, v in self.values.items():
            d.setdefault("values", {})[k] = list(v)
        if self.scenarios is not None:
            d["scenarios"] = list(self.scenarios)
        if self.when:
            d["when"] = self.when
        return d


def _fw(name: str, type_: str, unit: str, meaning: str, when: str = "") -> Column:
    return Column(name, (type_,), unit, meaning, when=when)


#: the columns the sweep runner writes in every games table, in table order (the game's own columns
#: come between ``winner`` and the knob columns; ``{option}`` is a grid option's name)
FRAMEWORK: tuple[Column, ...] = (
    _fw("experiment", "string", "name", "the experiment's name (the spec's name, or the game's for an ad hoc sweep)"),
    _fw("cell", "int32", "id", "the grid cell: an index into the manifest's cells, which give its parameters"),
    _fw("game_index", "int64", "index", "the game's index within its cell (0, 1, ...)"),
    _fw("seed", "uint64", "seed", "the game's own seed, from the master seed, the cell's seed key and game_index"),
    _fw("game", "string", "name", "the game's registry name"),
    _fw("scenario", "string", "name", "the scenario's name"),
    _fw("policy_{side}", "string", "name", "the policy (preset) that side played"),
    Column("{option}", ("bool", "int64", "float64", "string"), "option",
           "a grid option's value in this cell (see `simlab games` for its unit)", when="the option is a grid axis"),
    Column("data_{table}_{key}_{field}", ("int64", "float64", "string"), "data value",
           "a data axis' value in this cell (`data.<table>.<key>.<field>`, `*` written `all`, other "
           "non-alphanumerics `_`): a number, or the text of a scale or shift (`*1.5`, `+2`)",
           when="a data-pack value is a grid axis"),
    _fw("winner", "string", "side", "the winning side, or draw"),
    Column("knob_{side}_{knob}", ("int64", "float64"), "knob",
           "a knob of that side's policy family in force (`simlab games` gives its unit)",
           when="the side's family has knobs"),
    _fw("mix_{side}", "string", "name", "the preset a mixed policy drew for this game", when="the side plays a mixed policy"),
)

#: where the game's own columns go in a games table (after ``winner``)
_WINNER = next(i for i, c in enumerate(FRAMEWORK) if c.name == "winner") + 1
_DATA = next(c for c in FRAMEWORK if c.name.startswith("data_"))


#: the columns the runner writes first in every events table
EVENTS_FRAMEWORK: tuple[Column, ...] = (
    _fw("experiment", "string", "name", "the experiment's name"),
    _fw("cell", "int32", "id", "the grid cell of the game the row belongs to"),
    _fw("game_index", "int64", "index", "the index of the game the row belongs to within its cell (game_index of the games table)"),
)


def load_columns(path: str | Path, source: str) -> tuple[Column, ...]:
    """The games-table columns of a game's column file (see the module docstring).

    Raises:
        SpecError: a missing file, a malformed table, an unknown type or key.
    """
    return _load(path, source)[0]


def _load(path: str | Path, source: str) -> tuple[tuple[Column, ...], dict[str, tuple[Column, ...]]]:
    from ..tomlio import read_toml
    doc = read_toml(Path(path), SpecError, "column file")
    rows = doc.get("column")
    events = doc.get("events", {})
    if not isinstance(rows, list) or set(doc) - {"column", "events"} or not isinstance(events, dict) \
            or not all(isinstance(v, list) for v in events.values()):
        raise SpecError(f"{path}: expected [[column]] and [[events.<table>]] tables only")
    return _rows(rows, path, source, "column"), {t: _rows(v, path, source, f"events.{t}") for t, v in events.items()}


def _rows(rows: list, path, source: str, what: str) -> tuple[Column, ...]:
    out = []
    for i, r in enumerate(rows):
        where = f"{path}: {what} {i + 1}"
        if not isinstance(r, dict) or set(r) - {"name", "type", "unit", "meaning", "values", "scenarios", "when"}:
            raise SpecError(f"{where}: unknown key (name, type, unit, meaning, values, scenarios, when)")
        if not all(isinstance(r.get(k), str) and r.get(k) for k in ("name", "unit", "meaning")):
            raise SpecError(f"{where}: name, unit and meaning must be non-empty strings")
        ty = r.get("type")
        ty = (ty,) if isinstance(ty, str) else tuple(ty or ())
        if not ty or any(t not in TYPES for t in ty):
            raise SpecError(f"{where} ({r['name']}): type must be one or a list of {', '.join(TYPES)}")
        scen = r.get("scenarios")
        out.append(Column(r["name"], ty, r["unit"], r["meaning"],
                          {k: tuple(map(str, v)) for k, v in (r.get("values") or {}).items()},
                          tuple(scen) if scen is not None else None, r.get("when", ""), source))
    return tuple(out)


def record_columns(record: Record | Sequence[Record]) -> tuple[Column, ...]:
    """The schema's columns of a :class:`~simlab.games.records.Record` (or of several that fill one
    table, :attr:`simlab.games.base.Game.output_records`): its fields that are columns the game
    declares (not internal slots, not the framework's ``winner``), in declaration order.

    Several records are merged in order: a column a later record declares alike (same name, unit and
    meaning) is one column, at its place in the earlier record, after the later record's columns
    that come before it there; its types and scenarios are the union of both (scenarios ``None``,
    every scenario, when either is)."""
    recs = (record,) if isinstance(record, Record) else tuple(record)
    merged: list[Column] = []
    for r in recs:
        cols = [Column(f.name, (f.type,), f.unit, f.meaning, {k: tuple(v) for k, v in f.values.items()},
                       f.scenarios, f.when, r.source)
                for f in r.fields if f.column and f.schema]
        merged = _merge(merged, cols)
    return tuple(merged)


def _merge(a: list[Column], b: list[Column]) -> list[Column]:
    """``a`` then ``b``'s columns, those declared alike in both once (see :func:`record_columns`)."""
    def key(c: Column) -> tuple:
        return c.name, c.unit, c.meaning

    where = {key(c): i for i, c in enumerate(b)}
    out: list[Column] = []
    j = 0
    for c in a:
        i = where.get(key(c), -1)
        if i < j:
            out.append(c)
            continue
        out.extend(b[j:i])
        d = b[i]
        scen = None if c.scenarios is None or d.scenarios is None else \
            c.scenarios + tuple(x for x in d.scenarios if x not in c.scenarios)
        out.append(Column(c.name, c.type + tuple(t for t in d.type if t not in c.type), c.unit, c.meaning,
                          c.values, scen, c.when, c.source))
        j = i + 1
    return out + b[j:]


def _records(game: Game) -> tuple[Record, ...]:
    """The records that fill a game's games table: ``output_records``, else ``output_record``."""
    if game.output_records:
        return tuple(game.output_records)
    return (game.output_record,) if game.output_record is not None else ()


def _path(game: Game) -> Path | None:
    """The file that declares a game's columns: its output record's module, or its columns file."""
    if _records(game):
        return Path(_records(game)[0].where)
    return Path(game.columns_file) if game.columns_file is not None else None


def game_columns(game: Game) -> tuple[Column, ...]:
    """The games-table columns a game declares (its column file; empty when it has none).

    Raises:
        SpecError: a malformed column file.
    """
    if _records(game):
        return record_columns(_records(game))
    p = _path(game)
    return _load(p, game.name)[0] if p is not None and p.exists() else ()


def game_events(game: Game) -> dict[str, tuple[Column, ...]]:
    """The columns of each events table a game declares (``{table: columns}``, without the framework's).

    Raises:
        SpecError: a malformed column file.
    """
    if _records(game):
        return {t: record_columns(r) for t, r in game.event_records.items()}
    p = _path(game)
    return _load(p, game.name)[1] if p is not None and p.exists() else {}


def match(columns: Sequence[Column], name: str, sides: Sequence[str], grid_options: Sequence[str] = (),
          scenario: str | None = None) -> Column | None:
    """The declaration of a concrete column name (the first that matches), or None.

    ``{option}`` matches only the names in ``grid_options``; game columns are tried before the
    framework's templates, so a game column is never taken for a grid option.
    """
    if name in grid_options:
        return next(c for c in FRAMEWORK if c.name == "{option}")
    if name.startswith("data_") and not any(c.name != "{option}" and c.pattern(sides).match(name) for c in columns
                                             if c is not _DATA):
        return _DATA  # a data axis (simlab.data_axes), whatever its key's characters
    for c in columns:
        if c.name != "{option}" and c.applies(scenario) and c.pattern(sides).match(name):
            return c
    return None


def describe_table(game: Game, fields: Sequence[tuple[str, str]], sides: Sequence[str],
                   grid_options: Sequence[str] = (), scenario: str | None = None, table: str = "games") -> list[dict]:
    """The schema of a written games (or events) table, for the manifest: ``{column, type, unit,
    meaning}`` per column in table order (``type`` is the Arrow type written). A column nothing
    declares gets unit ``?`` and says so in its meaning.

    Args:
        fields: ``(name, arrow type)`` of each column, in order.
        table: ``games`` or the name of an events table.
    """
    if table == "games":
        cols = FRAMEWORK[:_WINNER] + game_columns(game) + FRAMEWORK[_WINNER:]
    else:
        cols, grid_options = EVENTS_FRAMEWORK + game_events(game).get(table, ()), ()
    out = []
    for name, ty in fields:
        c = match(cols, name, sides, grid_options, scenario)
        out.append({"column": name, "type": ty, "unit": c.unit if c else "?",
                    "meaning": c.meaning if c else f"not described by {game.name}'s column schema"})
    return out


def schema_rows(game: Game) -> list[dict]:
    """Every column a game's games table may have, framework columns included, in table order
    (``simlab schema GAME --json``): each :meth:`Column.as_dict` with its ``source``."""
    cols = FRAMEWORK[:_WINNER] + game_columns(game) + FRAMEWORK[_WINNER:]
    return [{**c.as_dict(), "source": c.source} for c in cols]


def events_rows(game: Game) -> dict[str, list[dict]]:
    """``{table: rows}`` for each events table a game declares, framework columns first (as :func:`schema_rows`)."""
    return {t: [{**c.as_dict(), "source": c.source} for c in EVENTS_FRAMEWORK + cols]
            for t, cols in game_events(game).items()}


# --------------------------------------------------------------------------- README blocks
END = "<!-- simlab schema {game}: end -->"


def begin_marker(name: str) -> str:
    """The line that opens a README block (``framework`` or a game's name), saying where to edit it."""
    if name == "framework":
        where = "FRAMEWORK in simlab/games/schema.py"
    else:
        from . import get_game
        where = _repo_relative(_path(get_game(name)))
    return f"<!-- simlab schema {name}: begin (generated by `make readme-schema`; edit {where}) -->"


def _repo_relative(p: Path | None) -> str:
    """A game's column file as the README names it: relative to the folder above ``simlab/``."""
    if p is None:
        return "(the game declares no columns_file)"
    root = Path(__file__).resolve().parents[2]
    try:
        return Path(p).resolve().relative_to(root).as_posix()
    except ValueError:
        return str(p)


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def markdown(game: Game, framework: bool = False) -> str:
    """The README table of a game's own columns (``framework=True``: of the framework's), then one
    table per events table it declares."""
    if framework:
        return _md(FRAMEWORK)
    parts = [_md(game_columns(game))]
    for t, cols in game_events(game).items():
        parts.append(f"The events table `{t}` (`events/{t}/`; each row also has `experiment`, `cell` and "
                     f"`game_index`, the game it belongs to):\n\n" + _md(cols))
    return "\n\n".join(parts)


def _md(cols: Sequence[Column]) -> str:
    lines = ["| column | type | unit | meaning |", "|---|---|---|---|"]
    for c in cols:
        d = c.as_dict()
        extra = "".join(f" ({k}: {', '.join(v)})" for k, v in d.get("values", {}).items())
        if c.scenarios is not None:
            extra += f" (scenarios {', '.join(c.scenarios)})"
        if c.when:
            extra += f" (only when {c.when})"
        lines.append(f"| `{d['column']}` | {d['type']} | {_cell(c.unit)} | {_cell(c.meaning + extra)} |")
    return "\n".join(lines)


def readme_blocks(text: str, render) -> str:
    """``text`` with every marked block (:func:`begin_marker` to ``END``, of a game or of ``framework``) replaced by
    ``render(name)``.

    Raises:
        SpecError: a begin marker without its end marker.
    """
    out, pos = [], 0
    pat = re.compile(r"<!-- simlab schema ([a-z0-9-]+): begin[^>]*-->")
    for m in pat.finditer(text):
        if m.start() < pos:
            continue
        name = m.group(1)
        end = END.format(game=name)
        j = text.find(end, m.end())
        if j < 0:
            raise SpecError(f"README: the schema block of {name} has no end marker")
        out.append(text[pos:m.start()])
        out.append(begin_marker(name) + "\n" + render(name) + "\n" + end)
        pos = j + len(end)
    out.append(text[pos:])
    return "".join(out)


def render_block(name: str) -> str:
    """The content of one README block: ``framework`` or a registered game's name."""
    from . import get_game
    if name == "framework":
        return markdown(None, framework=True)  # type: ignore[arg-type]
    return markdown(get_game(name))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m simlab.games.schema README.md [--check]``: regenerate the README's column tables
    (``--check``: exit 1 when they are out of date, writing nothing)."""
    import sys
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    paths = [a for a in args if a != "--check"] or ["README.md"]
    stale = []
    for p in paths:
        text = Path(p).read_text()
        new = readme_blocks(text, render_block)
        if new != text:
            stale.append(p)
            if not check:
                Path(p).write_text(new)
    if check and stale:
        print(f"simlab: {', '.join(stale)}: column tables out of date; run `make readme-schema`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
