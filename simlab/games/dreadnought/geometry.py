"""Hex geometry of the Dreadnought map (Rules 3.1, 5.5, 7.0-7.1, 9.1-9.15).

Hexes are flat-topped and stand in north-south columns; a unit faces one of six hexsides
N, NE, SE, S, SW, NW (Rule 7.0). Printed hex numbers ``CCRR`` give the column and row within a
map section (``B1108``: section B, column 11, row 8). Moving NE from an odd printed column
decreases the row (1108 -> 1207); from an even one it keeps it (1207 -> 1307): the example of
Rule 6.0 (1108 -> 1506 is NE-4, 1108 -> 1405 is N-1, NE-3) fixes this.

Three coordinate systems are used:

* printed labels (``"B1108"``) in scenario files;
* global offset coordinates ``(col, row)``: ``col = section_col * COLS + column - 1``,
  ``row = section_row * ROWS + row - 1`` (the map sections' layout is data: ``map`` table);
* cube coordinates ``(x, z)`` (``y = -x - z``) inside kernels: ``x = col``,
  ``z = row - (col - (col & 1)) // 2``. The distance of Rule 5.5 ("counting the shortest path
  ... firing ship exclusive, target inclusive") is ``max(|dx|, |dy|, |dz|)``.

The map is endless (Rule 9.11): coordinates may leave the initial six sections in any direction.
The numba helpers on cube coordinates (distance, arcs of fire) are in :mod:`.kernels.geometry`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import ScenarioError

_LABEL = re.compile(r"^([A-Za-z])(\d{2})(\d{2})$")


@dataclass(frozen=True)
class MapLayout:
    """The initial map area (Rule 9.1): where each section lies and how big it is.

    Attributes:
        sections: ``{letter: (section_col, section_row)}``; section row 0 is tier Zero North.
        cols, rows: hex columns and rows per section.
        center: the printed ``(column, row)`` of a section's centre (lettered) hex (Rule 9.22).
    """

    sections: dict
    cols: int
    rows: int
    center: tuple[int, int]

    def to_offset(self, label: str, where: str = "scenario") -> tuple[int, int]:
        """Global offset ``(col, row)`` of a printed hex label such as ``"B1108"``.

        Raises:
            ScenarioError: if the label is malformed, names an unknown section or a column/row
                outside the section.
        """
        m = _LABEL.match(label.strip()) if isinstance(label, str) else None
        if not m:
            raise ScenarioError(f"{where}: bad hex '{label}' (use a section letter and four digits, e.g. B1108)")
        sec, c, r = m.group(1).upper(), int(m.group(2)), int(m.group(3))
        if sec not in self.sections:
            raise ScenarioError(f"{where}: hex '{label}': unknown map section {sec} (sections: {''.join(sorted(self.sections))})")
        if not (1 <= c <= self.cols and 1 <= r <= self.rows):
            raise ScenarioError(f"{where}: hex '{label}' is outside a section ({self.cols} columns x {self.rows} rows)")
        sc, sr = self.sections[sec]
        return sc * self.cols + c - 1, sr * self.rows + r - 1

    def center_offset(self, section: str, where: str = "scenario") -> tuple[int, int]:
        """Global offset of the centre hex of a section (Rule 9.22's lettered hex).

        Raises:
            ScenarioError: on an unknown section.
        """
        sec = section.strip().upper()
        if sec not in self.sections:
            raise ScenarioError(f"{where}: unknown map section '{section}' (sections: {''.join(sorted(self.sections))})")
        sc, sr = self.sections[sec]
        return sc * self.cols + self.center[0] - 1, sr * self.rows + self.center[1] - 1

    def label(self, col: int, row: int) -> str:
        """The printed label of a global offset hex, or ``"(col,row)"`` off the initial map area."""
        sc, c = divmod(col, self.cols)
        sr, r = divmod(row, self.rows)
        for k, v in self.sections.items():
            if v == (sc, sr):
                return f"{k}{c + 1:02d}{r + 1:02d}"
        return f"({col},{row})"

    def section_rect(self, letters: str) -> tuple[int, int, int, int]:
        """Bounding rectangle ``(col0, col1, row0, row1)`` (inclusive) of some sections.

        Raises:
            ScenarioError: on an unknown section or sections that do not fill their rectangle.
        """
        cells = []
        for ch in letters:
            if ch.upper() not in self.sections:
                raise ScenarioError(f"unknown map section '{ch}'")
            cells.append(self.sections[ch.upper()])
        c0, c1 = min(c for c, _ in cells), max(c for c, _ in cells)
        r0, r1 = min(r for _, r in cells), max(r for _, r in cells)
        if (c1 - c0 + 1) * (r1 - r0 + 1) != len(set(cells)):
            raise ScenarioError(f"sections {letters} do not form a rectangle")
        return c0 * self.cols, (c1 + 1) * self.cols - 1, r0 * self.rows, (r1 + 1) * self.rows - 1


def offset_to_cube(col: int, row: int) -> tuple[int, int]:
    """Cube ``(x, z)`` of a global offset hex (odd global columns are shifted half a hex south)."""
    return col, row - (col - (col & 1)) // 2


def cube_to_offset(x: int, z: int) -> tuple[int, int]:
    """Global offset ``(col, row)`` of a cube hex (inverse of :func:`offset_to_cube`)."""
    return x, z + (x - (x & 1)) // 2
