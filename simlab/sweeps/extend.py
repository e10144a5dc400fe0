"""Growing a finished sweep: ``simlab sweep DIR --extend --games N`` and ``--extend --grid K=V``.

The seeding makes this possible: a game's stream depends only on the master seed, its cell's seed
key (a hash of the cell's parameters, not of its position in the grid) and its game index. So
raising the games per cell, or appending values to a grid axis, leaves every game already played
unchanged, and an extension plays only the games that are new:

- ``--games N`` is the new **total** per cell (as ``--games`` is everywhere), not a number to add.
  Cell ``c`` plays games ``old..N``, chunked from ``old`` (``cells[c].extents`` in the manifest
  records ``[old, N]``, see :func:`simlab.sweeps.verify.cell_extents`).
- ``--grid K=V1,V2`` appends values to the existing axis ``K``; the new cells get the next free cell
  ids (the existing cells keep theirs, so no part is rewritten) and play all their games.

The parts already written are left as they are (they keep the fingerprint they were written
with; the manifest's ``lineage`` lists the earlier fingerprints, which ``simlab verify`` accepts).
The rows then equal those of a sweep played at the larger size from the start, game for game;
only the ``cell`` ids of added cells can differ (a fresh sweep numbers cells in grid order).

Everything else must stay as it was (seed, scenario, policies, options, data pack, CRN, name,
chunk size, simlab version); the sweep must be complete (``--resume`` first) and not played to a
precision target. Each refusal is one line, raised before anything is written.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from ..data_axes import data_column, data_column_kind, is_data_name
from ..errors import SpecError, SweepStateError
from .spec import Cell, SweepSpec, split_kv
from .verify import cell_extents, lineage

__all__ = ["check_extension", "extents_for", "renumber", "spec_from_manifest", "spec_to_extend"]

#: spec fields an extension may change
GROWS = ("games", "grid")
#: spec fields that never decide rows (not compared)
_FREE = ("description", "chunk_size")


def _js(x: Any) -> str:
    return json.dumps(x, sort_keys=True, default=str)


def spec_from_manifest(man: dict, where: str) -> SweepSpec:
    """The spec a sweep was played with, from its manifest (``--resume``/``--extend`` without a file).

    Raises:
        SweepStateError: the manifest holds no usable spec.
    """
    d = man.get("spec")
    try:
        return SweepSpec(**{k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
                            for k, v in d.items()})
    except (TypeError, AttributeError):
        raise SweepStateError(f"{where}/manifest.json holds no usable spec; give the experiment file") from None


def spec_to_extend(man: dict, where: str, games: int | None, grid: Sequence[str]) -> SweepSpec:
    """The sweep's spec with ``games`` as the new total per cell and ``grid`` items
    (``K=V1,V2``) appended to the existing axes.

    Raises:
        SpecError: a malformed item, an axis the sweep does not have, or games below 1.
        SweepStateError: the manifest holds no usable spec.
    """
    spec = spec_from_manifest(man, where)
    if games is not None:
        if games < 1:
            raise SpecError(f"--games must be at least 1 (got {games})")
        spec.games = int(games)
    g = {k: list(v) for k, v in spec.grid.items()}
    seen = set()
    for k, v in split_kv(grid, "--grid"):
        if k in seen:
            raise SpecError(f"--grid {k} given twice")
        seen.add(k)
        if k not in g:
            axes = ", ".join(g) or "none"
            raise SpecError(f"cannot extend {where}: {k} is not a grid axis of it (its axes: {axes}); "
                            "--extend --grid appends values to an existing axis")
        vals = [x.strip() for x in v.split(",")]
        if any(x == "" for x in vals):
            raise SpecError(f"--grid {k}: empty value in {v!r}")
        g[k] = g[k] + vals
    return dataclasses.replace(spec, grid=g)


def check_extension(where: str, old: dict, spec: SweepSpec, status: str) -> bool:
    """Check that ``spec`` (typed, as :func:`simlab.sweeps.spec.expand` gives it) grows the sweep
    whose manifest is ``old``.

    Returns:
        False when ``spec`` is a real extension; True when it is the sweep's own spec (an extension
        that was interrupted and is run again, which then resumes).

    Raises:
        SweepStateError: a precision sweep, a spec that changes more than games and grid values,
            fewer games, a removed or reordered grid value, nothing to add, or a sweep that is not
            complete.
    """
    if old.get("precision") is not None:
        raise SweepStateError(f"cannot extend {where}: it was played to a precision target (--precision), "
                              "where the games per cell follow the results; play a new sweep")
    theirs = old.get("spec")
    if not isinstance(theirs, dict):
        raise SweepStateError(f"cannot extend {where}: its manifest holds no spec")
    mine = spec.to_dict()
    diff = [f"{k}: {_js(theirs.get(k))} there, {_js(mine.get(k))} now"
            for k in sorted(set(theirs) | set(mine))
            if k not in GROWS + _FREE and _js(theirs.get(k)) != _js(mine.get(k))]
    if diff:
        raise SweepStateError(f"cannot extend {where}: {'; '.join(diff)} (an extension may only raise --games "
                              "or add --grid values; anything else is a new sweep)")
    had = old.get("games_per_cell")
    if not isinstance(had, int):
        raise SweepStateError(f"cannot extend {where}: its manifest has no games_per_cell")
    if spec.games < had:
        raise SweepStateError(f"cannot extend {where} to {spec.games:,} games per cell: it has {had:,} "
                              "(--games is the new total per cell)")
    og, ng = theirs.get("grid") or {}, mine["grid"]
    if list(og) != list(ng):
        raise SweepStateError(f"cannot extend {where}: its grid axes are {', '.join(og) or 'none'}, now "
                              f"{', '.join(ng) or 'none'} (an extension appends values to existing axes)")
    for k, vals in ng.items():
        before = og[k]
        if [_js(v) for v in vals[:len(before)]] != [_js(v) for v in before]:
            raise SweepStateError(f"cannot extend {where}: grid axis {k} had {_js(before)}, now {_js(vals)} "
                                  "(an extension keeps the values there, in order, and appends new ones)")
        if is_data_name(k):
            was, now = data_column_kind(before), data_column_kind(vals)
            if was != now:  # every part of a sweep has the same columns with the same types
                raise SweepStateError(f"cannot extend {where}: data axis {k} would change its column "
                                      f"{data_column(k)} from {was} to {now} (all numbers, or none)")
    same = spec.games == had and all(len(ng[k]) == len(og[k]) for k in ng)
    if same:
        if status == "complete":
            raise SweepStateError(f"nothing to extend: {where} already has {had:,} games per cell and these "
                                  "grid values (give a larger --games or new --grid values)")
        return True
    if status != "complete":
        raise SweepStateError(f"cannot extend {where}: it is {status}; finish it first with "
                              f"`simlab sweep {where} --resume`")
    return False


def renumber(cells: list[Cell], old: dict) -> list[Cell]:
    """The cells with the ids the sweep in ``old`` gave them (matched by their parameters); cells it
    does not have get the next free ids, in grid order. Sorted by id.
    """
    by_params = {_js(c.get("params")): c["cell"] for c in old.get("cells", []) if isinstance(c, dict)}
    if all(by_params.get(_js(c.params)) == c.id for c in cells):
        return cells
    nxt = max(by_params.values(), default=-1) + 1
    out = []
    for c in cells:
        cid = by_params.get(_js(c.params))
        if cid is None:
            cid, nxt = nxt, nxt + 1
        out.append(dataclasses.replace(c, id=cid))
    return sorted(out, key=lambda c: c.id)


def extents_for(cells: list[Cell], old: dict | None, games: int, extending: bool) -> dict[int, list[int]] | None:
    """Each cell's extents (see :func:`simlab.sweeps.verify.cell_extents`) after this run, or None for a
    sweep that was never extended (its cells are chunked from 0 to ``games``)."""
    if old is None or (not extending and not old.get("lineage")):
        return None
    had = old.get("games_per_cell") or games
    olds = {c["cell"]: c for c in old.get("cells", []) if isinstance(c, dict)}
    out = {}
    for c in cells:
        if c.id in olds:
            ext = cell_extents(olds[c.id], had)
            out[c.id] = ext + ([games] if games > ext[-1] else [])
        else:
            out[c.id] = [games]
    return out


def grown(old: dict, spec: SweepSpec, cells: list[Cell], at: str) -> dict:
    """The manifest fields an extension adds: ``lineage`` (the earlier fingerprints) and
    ``extensions`` (one entry per extension: when, games per cell before and after, cells added)."""
    olds = {c["cell"] for c in old.get("cells", []) if isinstance(c, dict)}
    ext = list(old.get("extensions", []))
    ext.append({"at": at, "games_per_cell": [old.get("games_per_cell"), spec.games],
                "cells_added": sorted(c.id for c in cells if c.id not in olds),
                "fingerprint": [old.get("fingerprint"), spec.fingerprint()]})
    return {"lineage": [f for f in lineage(old) if f != spec.fingerprint()], "extensions": ext}
