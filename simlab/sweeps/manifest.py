"""A sweep directory's ``manifest.json``: its name and the reader every consumer of a sweep uses.

The runner (:mod:`simlab.sweeps.runner`) writes the manifest first (status ``running``) and last
(``complete``, ``failed`` or ``interrupted``); :mod:`simlab.results`, the analyses and the plots read
it with :func:`load_manifest`, without importing the runner.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import SweepStateError
from .seal import SEAL, check_seal, seal
from .store import Store

__all__ = ["MANIFEST", "SEAL", "check_seal", "load_manifest", "seal", "sweep_status"]

#: the manifest's file name inside a sweep directory
MANIFEST = "manifest.json"
def load_manifest(path: str | Path) -> dict:
    """The manifest of a sweep directory (a local path or an fsspec URL).

    Raises:
        SweepStateError: if ``path`` holds no readable manifest.
    """
    store = path if isinstance(path, Store) else Store(path)
    try:
        man = store.read_json(MANIFEST)
    except FileNotFoundError:
        hint = ""
        d = store.display
        for summary, what, where in (("tune.json", "a tune", f"its sweep is {d}/played"),
                                     ("meta.json", "a meta-game", f"its sweep is {d}/sweep"),
                                     ("compare.json", "a comparison", f"its sweeps are {d}/a and {d}/b")):
            try:
                if store.exists(summary):
                    hint = f"; it holds {what} ({summary}): {where}"
                    break
            except OSError:
                break
        raise SweepStateError(f"{store.display} is not a sweep directory (no {MANIFEST}){hint}") from None
    except (OSError, ValueError) as e:
        raise SweepStateError(f"{store.display}/{MANIFEST}: unreadable manifest ({' '.join(str(e).split())})") from None
    if not isinstance(man, dict) or "sides" not in man or "cells" not in man:
        raise SweepStateError(f"{store.display}/{MANIFEST} is not a simlab sweep manifest")
    sides, cells = man["sides"], man["cells"]
    ok = (isinstance(sides, list) and sides and all(isinstance(x, str) for x in sides)
          and isinstance(cells, list)
          and all(isinstance(c, dict) and type(c.get("cell")) is int and isinstance(c.get("params"), dict)
                  for c in cells)
          and isinstance(man.get("grid_options", []), list))
    if not ok:
        raise SweepStateError(f"{store.display}/{MANIFEST} is damaged (sides, cells or grid options malformed)")
    return man


def sweep_status(path: str | Path | Store, man: dict | None = None) -> str:
    """The sweep's status: ``complete``, ``failed``, ``interrupted`` or ``running``.

    A manifest that still says ``running`` while no process holds the directory's lock belongs to a
    sweep that was killed (SIGKILL, a power cut): it is ``interrupted``, and ``--resume`` finishes it.

    Raises:
        SweepStateError: if ``path`` holds no readable manifest (when ``man`` is not given).
    """
    store = path if isinstance(path, Store) else Store(path)
    man = load_manifest(store) if man is None else man
    status = man.get("status")
    if status == "running":
        try:
            store.check_free()
        except SweepStateError:
            return "running"
        return "interrupted"
    return status if status in ("complete", "failed", "interrupted") else "interrupted"


def _arrow_type(t) -> str:
    """An Arrow type as the column schemas name it (``float32`` for Arrow's ``float``)."""
    return {"float": "float32", "double": "float64", "halffloat": "float16"}.get(str(t), str(t))


def sweep_schema(store: Store, man: dict, game) -> dict:
    """The schema of a sweep's tables for its manifest: ``{"games": [...], "events": {table: [...]}}``,
    each a list of ``{column, type, unit, meaning}`` in table order
    (:func:`simlab.games.schema.describe_table`), read from the footer of the first part of each cell
    (columns that only some cells have, such as another family's knobs, included). A table with no
    part written yet is left out.
    """
    import pyarrow.parquet as pq

    from ..games.schema import describe_table
    from .verify import part_range
    first: dict[str, dict[int, str]] = {}
    for rel in store.find("games") + store.find("events"):
        where = part_range(rel)
        if where is not None:
            first.setdefault(where[0], {}).setdefault(where[1], rel)
    scen = {c["cell"]: (man.get("scenarios", {}).get(c.get("scenario"), {}) or {}).get("name")
            for c in man.get("cells", [])}
    tables: dict[str, list[dict]] = {}
    for table, parts in first.items():
        out: dict[str, dict] = {}
        for cell, rel in sorted(parts.items()):
            try:
                with store.open(rel) as fh:
                    schema = pq.read_schema(fh)
            except Exception:  # noqa: BLE001 - an unreadable part is verify's to report, not the schema's
                continue
            fields = [(f.name, _arrow_type(f.type)) for f in schema if f.name not in out]
            for d in describe_table(game, fields, man["sides"], man.get("grid_options", []), scen.get(cell), table):
                out[d["column"]] = d
        tables[table] = list(out.values())
    games = tables.pop("games", [])
    return {"games": games, **({"events": dict(sorted(tables.items()))} if tables else {})}
