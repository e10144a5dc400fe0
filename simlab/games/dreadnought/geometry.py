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
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...errors import ScenarioError
from .enums import DX, DZ

DXA = np.array(DX, dtype=np.int64)
DZA = np.array(DZ, dtype=np.int64)

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


@njit(cache=True, inline="always")
def row_of_nb(x, z):
    """Global offset row of cube hex ``(x, z)``."""
    return z + (x - (x & 1)) // 2


@njit(cache=True, inline="always")
def hex_dist_nb(x1, z1, x2, z2):
    """Range in hexes between two cube hexes (Rule 5.5: firer exclusive, target inclusive)."""
    dx = x1 - x2
    dz = z1 - z2
    dy = -dx - dz
    a = dx if dx >= 0 else -dx
    b = dz if dz >= 0 else -dz
    c = dy if dy >= 0 else -dy
    m = a if a > b else b
    return m if m > c else c


@njit(cache=True)
def bearing_nb(dx, dz):
    """Sextant of a cube vector: ``(k, tie)`` where ``k`` (0..5) is the hexside direction whose
    60-degree wedge holds the vector and ``tie`` is 1 when it lies exactly on the boundary line
    between wedges ``k`` and ``k + 1`` (a line through hex vertices). ``(0, 0)`` gives ``(-1, 0)``.
    """
    if dx == 0 and dz == 0:
        return -1, 0
    dy = -dx - dz
    best = -(1 << 60)
    k = 0
    tie = 0
    for d in range(6):
        ex = DXA[d]
        ez = DZA[d]
        ey = -ex - ez
        v = dx * ex + dy * ey + dz * ez
        if v > best:
            best = v
            k = d
            tie = 0
        elif v == best:
            # only adjacent wedges can tie; d > k here, so the pair is (k, d)
            if d == k + 1:
                tie = 1
            else:  # k == 0 and d == 5: the boundary between wedges 5 and 0
                k = 5
                tie = 1
    return k, tie


@njit(cache=True)
def arc_nb(facing, dx, dz):
    """Arc of fire (Rule 7.1) in which a target at cube offset ``(dx, dz)`` lies from a unit facing
    ``facing``: 0 broadside, 1 bow, 2 stern (enums ARC_*).

    The bow and stern arcs are the 60-degree wedges through the bow and stern hexsides; the
    starboard and port arcs the two 120-degree wedges between them. A target exactly on the line
    between the bow (or stern) wedge and a broadside wedge is in the broadside arc (ruling DN-F4).
    """
    k, tie = bearing_nb(dx, dz)
    if k < 0:
        return 0
    rel = (k - facing) % 6
    if tie == 1:
        return 0
    if rel == 0:
        return 1
    if rel == 3:
        return 2
    return 0


@njit(cache=True)
def side_arc_nb(facing, dx, dz):
    """Which broadside arc holds a cube offset: 0 starboard, 1 port, -1 bow/stern or same hex."""
    k, tie = bearing_nb(dx, dz)
    if k < 0:
        return -1
    rel = (k - facing) % 6
    if tie == 1:
        # boundary between rel and rel + 1
        if rel == 0 or rel == 1 or rel == 2:
            return 0
        return 1
    if rel == 1 or rel == 2:
        return 0
    if rel == 4 or rel == 5:
        return 1
    return -1
