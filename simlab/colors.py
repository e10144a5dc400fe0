"""Colours of the figures: one fixed colour per side, and readable text on coloured cells.

Each game declares its sides' colours (:attr:`simlab.games.base.Game.side_colors`, side name to a
``#rrggbb`` string); every figure of :mod:`simlab.plots` takes a side's colour from
:func:`side_colors`, so a side has the same colour in a win-rate curve, a score histogram, a
tune plot and a bar chart. A side a game does not declare (a scenario file's own side) gets a
colour of :data:`PALETTE` chosen from its name, so it too is the same in every figure.

Text on a heat-map cell is black or white, whichever contrasts more with the cell
(:func:`text_color`, WCAG 2 relative luminance): the better of the two always reaches a contrast
ratio of at least 4.58, above WCAG's 4.5 for normal text.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

__all__ = ["DRAW_COLOR", "PALETTE", "contrast_ratio", "relative_luminance", "side_colors", "text_color", "two_side_cmap"]

#: the colour of draws in every figure
DRAW_COLOR = "#8c8c8c"
#: colours for sides a game does not declare (tab10 without its grey)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf")


def _rgb(color) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb
    return to_rgb(color)


def relative_luminance(color) -> float:
    """WCAG 2 relative luminance of a colour (any matplotlib colour: ``"#rrggbb"``, an RGB(A) tuple
    of floats in [0, 1], a name), in [0, 1]: 0 for black, 1 for white."""
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in _rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b) -> float:
    """WCAG 2 contrast ratio of two colours, in [1, 21]."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_color(background) -> str:
    """``"black"`` or ``"white"``: the text colour with the larger contrast ratio on ``background``."""
    return "black" if contrast_ratio(background, "black") >= contrast_ratio(background, "white") else "white"


def side_colors(game: str | None, sides: Sequence[str]) -> dict[str, str]:
    """Each side's colour (``#rrggbb``): the game's declared one, else one of :data:`PALETTE`
    chosen from the side's name (CRC-32), skipping colours already taken where it can.

    Args:
        game: the registered game name (None or an unknown name: no declared colours).
        sides: the side names.

    Returns:
        ``{side: colour}`` in ``sides`` order; the same for the same game and side whatever the
        figure.
    """
    declared: dict[str, str] = {}
    if game:
        try:
            from .games import get_game
            declared = dict(getattr(get_game(game), "side_colors", {}) or {})
        except Exception:  # an unknown or unloadable game: fall back to the palette
            declared = {}
    out = {s: declared[s] for s in sides if s in declared}
    taken = {c.lower() for c in out.values()}
    for s in sides:
        if s in out:
            continue
        start = zlib.crc32(s.encode()) % len(PALETTE)
        pick = PALETTE[start]
        for k in range(len(PALETTE)):
            c = PALETTE[(start + k) % len(PALETTE)]
            if c not in taken:
                pick = c
                break
        out[s] = pick
        taken.add(pick)
    return {s: out[s] for s in sides}


def two_side_cmap(low, high, name: str = "sides"):
    """A diverging colormap from ``low`` (at 0) through white (at 1/2) to ``high`` (at 1): a heat map
    of one side's win rate (or a payoff) in the two sides' colours."""
    from matplotlib.colors import LinearSegmentedColormap
    return LinearSegmentedColormap.from_list(name, [_rgb(low), (1.0, 1.0, 1.0), _rgb(high)])
