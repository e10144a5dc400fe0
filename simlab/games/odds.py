"""The typed odds contract: how a game declares ``simlab odds <game>`` without knowing the CLI.

A game with a combat odds calculator sets ``Game.odds_options`` (a tuple of :class:`OddsOption`)
and implements ``Game.odds(**kwargs) -> dict`` (plain JSON-ready values) and, for the human
output, ``Game.odds_report(result) -> list[str | Table]`` (lines and :class:`Table` s of plain
strings). The command line builds the sub-command from the declared options, calls ``odds``,
prints the dict for ``--json`` and renders the report otherwise; it loads a game only when its
odds sub-command runs (icepool's objects are pure computation; OpenSpiel's games never print).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OddsOption", "Table"]

_KINDS = (int, float, bool, str)


@dataclass(frozen=True)
class OddsOption:
    """One option (or positional argument) of a game's ``simlab odds <game>`` command.

    Attributes:
        name: the keyword of ``Game.odds`` that receives the value.
        kind: ``int``, ``float``, ``bool`` (a flag) or ``str``.
        default: the value when not given (``None``: not passed, ``Game.odds``'s own default applies).
        doc: one line of help, with units and the rule section.
        flag: the command-line spelling (default ``--`` + ``name`` with ``-`` for ``_``).
        argument: a positional argument instead of an option.
        required: the command refuses to run without it.
        const: for a ``bool`` flag: the value passed when the flag is given (``--exact`` passes
            ``method="exact"``); without it a flag passes ``True``.
        dest: the keyword of ``Game.odds`` that receives the value, when not ``name``.
        also: more keywords passed when the option is given (``--mc N`` passes ``games=N`` and
            ``method="monte_carlo"``). Two given options that pass one keyword different values
            are refused ("choose one of ...").
        pairs: a repeatable ``KEY=VALUE`` option collected into a ``{key: value}`` dict (``--set``).

    Raises:
        ValueError: on construction, for a kind outside int, float, bool, str or a ``const`` on a
            non-flag.
    """

    name: str
    kind: type = str
    default: Any = None
    doc: str = ""
    flag: str = ""
    argument: bool = False
    required: bool = False
    const: Any = None
    dest: str = ""
    also: Mapping[str, Any] = field(default_factory=dict)
    pairs: bool = False

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"odds option {self.name}: kind must be int, float, bool or str, not {self.kind!r}")
        if self.const is not None and self.kind is not bool:
            raise ValueError(f"odds option {self.name}: const applies to bool flags only")

    @property
    def keyword(self) -> str:
        """The keyword of ``Game.odds`` this option's value goes to."""
        return self.dest or self.name

    def passes(self, value: Any) -> dict[str, Any]:
        """The keywords this option passes to ``Game.odds`` when given ``value`` (already parsed)."""
        v = self.const if (self.kind is bool and self.const is not None) else value
        return {self.keyword: v, **self.also}

    @property
    def cli_flag(self) -> str:
        """The option's spelling on the command line, e.g. ``--fired-upon``."""
        return self.flag or "--" + self.name.replace("_", "-")

    def describe(self) -> dict:
        """The option as plain values (``simlab games --json``)."""
        d = {"name": self.name, "type": self.kind.__name__, "flag": self.cli_flag, "doc": self.doc}
        if self.default is not None:
            d["default"] = self.default
        for k in ("argument", "required", "pairs"):
            if getattr(self, k):
                d[k] = True
        if self.const is not None:
            d["const"] = self.const
        if self.dest:
            d["dest"] = self.dest
        if self.also:
            d["also"] = dict(self.also)
        return d


@dataclass
class Table:
    """A table of plain strings for a game's human-readable output (the CLI draws it).

    Attributes:
        columns: column headings.
        rows: one tuple of cell strings per row, as many as ``columns``.
        title: printed above; caption: printed below.
        right: the headings of the columns to right-justify (numbers).
    """

    columns: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    title: str = ""
    caption: str = ""
    right: tuple[str, ...] = ()

    def add_row(self, *cells: str) -> None:
        """Append one row.

        Raises:
            ValueError: if the row has another number of cells than ``columns``.
        """
        if len(cells) != len(self.columns):
            raise ValueError(f"table row has {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(tuple(str(c) for c in cells))
