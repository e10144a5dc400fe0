"""Checking that every Parquet part of a sweep belongs to it (``simlab verify``, ``report``, ``load``, ``--resume``).

A sweep's rows must prove where they came from. Each part a chunk writes carries, in its Parquet
file metadata (key ``simlab``), the sweep's fingerprint, its cell and game-index range, the master
seed, the first and last per-game seeds and the cell's parameters (see
:func:`simlab.sweeps.chunks.build_games_table`). :func:`check_parts` reads only those footers, never
the rows, and names every part that does not fit the manifest:

- a file whose name is not ``cell-N/part-A-B.parquet`` (a file manager's ``part-… copy.parquet``,
  or a folder of the older ``cell=N`` layout, which :func:`migrate_layout` renames);
- a part that cannot be read as Parquet (truncated, empty, garbage) or has no simlab metadata;
- a part of another sweep (its fingerprint or master seed differs), or one moved or renamed (its
  metadata names another cell or range, or its row count differs from its range);
- a part off the sweep's chunking (a range no chunk of this sweep has), or of a cell the manifest
  does not list (a sweep grown by ``--extend`` is chunked segment by segment: each cell's
  ``extents`` in the manifest are the game counts it has had, and each segment is chunked from
  its own start);
- a cell whose parameters in the manifest differ from those its rows were played with (a hand-edited
  manifest);
- events of a chunk whose games part is missing (a chunk that did not finish).

``--resume`` moves such parts into ``DIR/quarantine/`` and plays their chunks again, so a resumed
sweep always ends with exactly the rows of an uninterrupted one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..rng import game_seeds
from .chunks import part_name
from .store import Store

__all__ = ["QUARANTINE", "SWEEP_FORMAT", "PartProblem", "cell_chunks", "cell_extents", "check_accounting",
           "check_parts", "is_chunk", "lineage", "migrate_layout", "part_range", "quarantine"]

#: folder, inside a sweep directory, that ``--resume`` moves rejected parts into
QUARANTINE = "quarantine"
#: the manifest's ``format``: 2 has ``cell-<id>`` folders, 1 had hive-style ``cell=<id>``
SWEEP_FORMAT = "simlab-sweep/2"


@dataclass(frozen=True)
class PartProblem:
    """One part that does not belong to the sweep as its manifest describes it.

    Attributes:
        rel: the part's path relative to the sweep directory.
        reason: why, in a few words (no newline).
    """

    rel: str
    reason: str

    def line(self) -> str:
        """``games/cell-0/part-…-….parquet: from another sweep (...)``."""
        return f"{self.rel}: {self.reason}"


def part_range(rel: str) -> tuple[str, int, int, int] | None:
    """``(table, cell, start, stop)`` of a part's relative path, or None when the name is not a part's.

    ``games/cell-3/part-000000000000-000000000500.parquet`` gives ``("games", 3, 0, 500)``, and the
    same name under ``events/battles/`` gives ``("battles", 3, 0, 500)``; any other spelling of the
    range (``part-0-500.parquet``) is not a part's name.
    """
    parts = rel.split("/")
    if parts[0] == "games" and len(parts) == 3:
        table, cell_dir, name = "games", parts[1], parts[2]
    elif parts[0] == "events" and len(parts) == 4:
        table, cell_dir, name = parts[1], parts[2], parts[3]
    else:
        return None
    if not cell_dir.startswith("cell-") or not name.startswith("part-") or not name.endswith(".parquet"):
        return None
    try:
        cell = int(cell_dir[5:])
        a, b = name[5:-8].split("-")
        start, stop = int(a), int(b)
    except ValueError:
        return None
    if f"cell-{cell}" != cell_dir or name != part_name(start, stop) or not 0 <= start < stop:
        return None
    return table, cell, start, stop


def _footer(store: Store, rel: str):
    import pyarrow.parquet as pq
    with store.open(rel) as fh:
        return pq.read_metadata(fh)


def _expected_stops(man: dict) -> tuple[int | None, int | None]:
    """``(chunk_size, games per cell or ceiling)`` of the manifest (None where it does not say)."""
    chunk = man.get("chunk_size")
    per_cell = man.get("games_per_cell") or man.get("max_games")
    return (chunk if isinstance(chunk, int) and chunk > 0 else None,
            per_cell if isinstance(per_cell, int) and per_cell > 0 else None)


def cell_extents(cell: dict, per_cell: int) -> list[int]:
    """The game counts a cell has had, in order: ``[per_cell]`` for a sweep never extended, e.g.
    ``[1500, 4000]`` for a cell played to 1,500 games and extended to 4,000 (``--extend``).

    Each extent closes a segment that is chunked from its own start: the segments of ``[1500, 4000]``
    are games 0-1500 and 1500-4000.
    """
    ext = cell.get("extents")
    if isinstance(ext, list) and ext and all(type(x) is int and x > 0 for x in ext):
        return list(ext)
    return [per_cell]


def cell_chunks(extents: list[int], chunk: int) -> list[tuple[int, int]]:
    """Every ``(start, stop)`` chunk of a cell with these extents, in game order."""
    out = []
    lo = 0
    for hi in extents:
        out += [(a, min(a + chunk, hi)) for a in range(lo, hi, chunk)]
        lo = hi
    return out


def is_chunk(extents: list[int], chunk: int, a: int, b: int) -> bool:
    """Whether games ``a``-``b`` are one chunk of a cell with these extents (see :func:`cell_extents`)."""
    lo = 0
    for hi in extents:
        if lo <= a < hi:
            return (a - lo) % chunk == 0 and b == min(a + chunk, hi)
        lo = hi
    return False


def lineage(man: dict) -> list[str]:
    """The fingerprints a sweep's parts may carry: the sweep's own, and those it had before each
    ``--extend`` (an extension changes the spec's games or grid, never a game's rows)."""
    fps = [f for f in man.get("lineage", []) if isinstance(f, str)]
    fp = man.get("fingerprint")
    return fps + ([fp] if fp not in fps else [])


def _link_in(store: Store, rel: str) -> str | None:
    """The first symbolic link on ``rel``'s path inside a local sweep directory (``games/cell-0``), or None."""
    import os
    if not store.local:
        return None
    parts = rel.split("/")
    for i in range(1, len(parts) + 1):
        if os.path.islink(os.path.join(store.root, *parts[:i])):  # raw: a rejected name need not be simlab's
            return "/".join(parts[:i])
    return None


def _pages_ok(store: Store, rel: str) -> str | None:
    """None when every page of the part reads and passes its CRC (written with page checksums), else why."""
    import pyarrow.parquet as pq
    try:
        with store.open(rel) as fh:
            pq.read_table(fh, page_checksum_verification=True)
    except Exception as e:  # noqa: BLE001 - any reader error: the bytes are not those simlab wrote
        msg = " ".join(str(e).split())
        return "altered: " + (msg if len(msg) <= 120 else msg[:117] + "...")
    return None


def part_digest(store: Store, rel: str) -> str:
    """``"sha256:<hex>"`` of a part's bytes, as the manifest's ``parts`` records it."""
    import hashlib
    h = hashlib.sha256()
    with store.open(rel) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


def part_digests(store: Store, known: dict | None = None) -> dict[str, str]:
    """The digest of every part of a sweep (games and events, not ``quarantine/``), by relative path.

    Args:
        store: the sweep directory.
        known: digests already recorded (a resumed sweep's manifest), reused for the parts they name
            (a resume has checked them) instead of reading those parts again.

    Returns:
        ``{rel: "sha256:<hex>"}`` sorted by path: what the manifest's ``parts`` holds, so that
        :func:`check_parts` names a part whose bytes changed even where its rows read the same.
    """
    known = known if isinstance(known, dict) else {}
    files = store.find("games") + store.find("events")
    return {rel: (known[rel] if isinstance(known.get(rel), str) else part_digest(store, rel)) for rel in sorted(files)}


def check_parts(store: Store, man: dict, tables: str | None = None,
                content: bool = False) -> tuple[list[str], list[PartProblem]]:
    """Check every Parquet part of a sweep against its manifest.

    Args:
        store: the sweep directory.
        man: its manifest (as :func:`simlab.sweeps.manifest.load_manifest` returns it).
        tables: ``"games"`` or an events table name to check only that table; None checks all.
        content: also read every page of every part and check its CRC (parts are written with
            Parquet page checksums), so a flipped bit is found, and compare each part's sha256 with
            the manifest's ``parts`` (where it records one: a flip that leaves every page readable,
            in the footer's statistics say, is found too); otherwise only footers are read.

    Returns:
        ``(good, problems)``: the relative paths of the parts that pass, and one
        :class:`PartProblem` per part that does not (sorted by path). Parts in ``quarantine/`` are
        not looked at.
    """
    cells = {c["cell"]: c for c in man.get("cells", []) if isinstance(c, dict)}
    chunk, per_cell = _expected_stops(man)
    fingerprint, master = man.get("fingerprint"), man.get("master_seed")
    fingerprints = lineage(man)
    files = []
    if tables in (None, "games"):
        files += store.find("games")
    if tables != "games":
        files += store.find("events" if tables is None else f"events/{tables}")
    good: list[str] = []
    problems: list[PartProblem] = []
    games_ranges: set[tuple[int, int, int]] = set()
    events: list[tuple[str, tuple[int, int, int]]] = []
    seed_cache: dict[tuple[int, int], int] = {}

    def seed_of(key: int, index: int) -> int:
        if (key, index) not in seed_cache:
            if not seed_cache:
                from ..numba_start import start_numba
                start_numba()  # the first kernel of `simlab report`/`verify`: numba started cheaply
            seed_cache[(key, index)] = int(game_seeds(master, key, index, index + 1)[0])
        return seed_cache[(key, index)]

    for rel in files:
        where = part_range(rel)
        if where is None:
            old = "/cell=" in f"/{rel}"
            problems.append(PartProblem(rel, "a folder of the older cell=N layout: `simlab verify DIR --migrate` "
                                             "(or --resume) renames it" if old else
                                        "not a part name of this layout (a copy or a renamed file?)"))
            continue
        table, cell, a, b = where
        link = _link_in(store, rel)
        if link is not None:
            import os
            problems.append(PartProblem(rel, f"reached through a link ({link} -> {os.readlink(os.path.join(store.root, link))}): "
                                             "a sweep's parts must be its own files"))
            continue
        if cell not in cells:
            problems.append(PartProblem(rel, f"cell {cell} is not in the manifest"))
            continue
        ext = cell_extents(cells[cell], per_cell) if per_cell is not None else None
        if chunk is not None and ext is not None and not is_chunk(ext, chunk, a, b):
            problems.append(PartProblem(rel, f"games {a}-{b} are not a chunk of this sweep "
                                             f"(chunks of {chunk:,} up to {per_cell:,}"
                                             + (f", segments ending at {', '.join(f'{x:,}' for x in ext)})"
                                                if len(ext) > 1 else ")")))
            continue
        try:
            md = _footer(store, rel)
        except Exception as e:  # noqa: BLE001 - any reader error means the same: not a readable part
            kind = "empty file" if "size is 0" in str(e) or "zero" in str(e).lower() else "unreadable Parquet"
            problems.append(PartProblem(rel, f"{kind} (truncated or not Parquet)"))
            continue
        raw = (md.metadata or {}).get(b"simlab")
        try:
            meta = json.loads(raw) if raw is not None else None
        except ValueError:
            meta = None
        if not isinstance(meta, dict):
            problems.append(PartProblem(rel, "no simlab metadata (not written by a simlab sweep)"))
            continue
        if meta.get("fingerprint") not in fingerprints or meta.get("master_seed") != master:
            problems.append(PartProblem(rel, f"from another sweep (fingerprint {meta.get('fingerprint')}, "
                                             f"master seed {meta.get('master_seed')}; this sweep's are "
                                             f"{fingerprint}, {master})"))
            continue
        if meta.get("cell") != cell or meta.get("game_index_range") != [a, b]:
            problems.append(PartProblem(rel, f"moved or renamed: it holds cell {meta.get('cell')} games "
                                             f"{'-'.join(map(str, meta.get('game_index_range') or []))}"))
            continue
        if table == "games" and md.num_rows != b - a:
            problems.append(PartProblem(rel, f"holds {md.num_rows:,} rows where games {a}-{b} need {b - a:,}"))
            continue
        c = cells[cell]
        if "params" in meta and json.dumps(meta["params"], sort_keys=True, default=str) != \
                json.dumps(c.get("params"), sort_keys=True, default=str):
            problems.append(PartProblem(rel, f"the manifest labels cell {cell} {c.get('params')} but its rows "
                                             f"were played as {meta['params']}"))
            continue
        seeds = meta.get("seeds")
        key = c.get("seed_key")
        if (seeds is not None and isinstance(key, int) and isinstance(master, int)
                and list(seeds) != [seed_of(key, a), seed_of(key, b - 1)]):
            problems.append(PartProblem(rel, "its games' seeds are not this cell's streams"))
            continue
        if content:
            bad = _pages_ok(store, rel)
            if bad is None:
                want = (man.get("parts") or {}).get(rel) if isinstance(man.get("parts"), dict) else None
                if isinstance(want, str) and part_digest(store, rel) != want:
                    bad = "altered: its bytes differ from those the sweep wrote (the manifest's sha256)"
            if bad is not None:
                problems.append(PartProblem(rel, bad))
                continue
        good.append(rel)
        if table == "games":
            games_ranges.add((cell, a, b))
        else:
            events.append((rel, (cell, a, b)))
    if tables not in (None, "games"):  # an events table alone: its chunks' games parts, by name
        games_ranges |= {w[1:] for w in map(part_range, store.find("games")) if w is not None and w[0] == "games"}
    for rel, rng in events:
        if rng not in games_ranges:
            good.remove(rel)
            problems.append(PartProblem(rel, "events of a chunk whose games part is missing (it did not finish)"))
    problems.sort(key=lambda p: p.rel)
    return good, problems


def missing_events(store: Store, man: dict) -> list[PartProblem]:
    """The events parts the manifest's ``parts`` records that are no longer in the directory.

    A games part that is missing is :func:`check_accounting`'s to name (the games the manifest
    says were written); an events part has no such count, so its recorded digest is what tells.

    Returns:
        one :class:`PartProblem` per missing events part, sorted by path.
    """
    recorded = man.get("parts") if isinstance(man.get("parts"), dict) else {}
    present = set(store.find("events"))
    return [PartProblem(rel, "missing: the sweep wrote this events part (the manifest records its digest)")
            for rel in sorted(recorded) if rel.startswith("events/") and rel not in present]


def check_accounting(man: dict, good: list[str], complete: bool) -> list[str]:
    """Lines naming every cell whose good games parts do not hold the games the manifest says were
    written (``games_written``): a part, a cell folder or all of ``games/`` deleted; for a complete
    sweep also parts beyond what it wrote. Empty when every game is accounted for.

    Args:
        man: the manifest.
        good: the games parts :func:`check_parts` passed (relative paths).
        complete: whether the sweep says it is complete (then every written chunk must be there).
    """
    written = man.get("games_written") or {}
    chunk, per_cell = _expected_stops(man)
    have: dict[int, list[tuple[int, int]]] = {}
    for rel in good:
        where = part_range(rel)
        if where is not None and where[0] == "games":
            have.setdefault(where[1], []).append((where[2], where[3]))
    out = []
    for c in man.get("cells", []):
        if not isinstance(c, dict) or type(c.get("cell")) is not int:
            continue
        cid = c["cell"]
        want = written.get(str(cid), 0) if isinstance(written, dict) else 0
        got = sum(b - a for a, b in have.get(cid, []))
        if not isinstance(want, int) or got == want or (got > want and not complete):
            continue
        line = f"games/cell-{cid}: the manifest says {want:,} games were written, its parts hold {got:,}"
        if got < want and complete and chunk is not None and per_cell is not None and man.get("precision") is None:
            missing = [r for r in cell_chunks(cell_extents(c, per_cell), chunk) if r not in set(have.get(cid, []))]
            if missing:
                line += " (missing " + ", ".join(f"games {a}-{b}" for a, b in missing[:3]) + \
                        (f" and {len(missing) - 3} more chunk(s)" if len(missing) > 3 else "") + ")"
        out.append(line)
    return out


def quarantine(store: Store, problems: list[PartProblem]) -> list[str]:
    """Move the parts named in ``problems`` into ``DIR/quarantine/`` (same relative path; a name
    already there gets ``.1``, ``.2``... appended).

    Returns:
        The quarantined relative paths (inside ``quarantine/``).
    """
    moved = []
    links_moved: set[str] = set()
    for p in problems:
        # a part reached through a linked folder: move the link itself (never the other sweep's file)
        done = next((x for x in links_moved if p.rel.startswith(x + "/")), None)
        if done is not None:  # its linked folder was moved already
            moved.append(f"{QUARANTINE}/{done}")
            continue
        link = _link_in(store, p.rel)
        if link is not None:
            links_moved.add(link)
            p = PartProblem(link, p.reason)
        # raw paths: a rejected file's name need not be one simlab would write ("part-0-10 copy.parquet")
        dest = f"{QUARANTINE}/{p.rel}"
        k = 0
        while store.fs.exists(f"{store.root}/{dest}"):
            k += 1
            dest = f"{QUARANTINE}/{p.rel}.{k}"
        dest_path = f"{store.root}/{dest}"
        store.fs.makedirs(dest_path.rsplit("/", 1)[0], exist_ok=True)
        if link is not None:
            import os
            os.replace(os.path.join(store.root, p.rel), dest_path)  # the link, not what it points to
        else:
            store.fs.mv(f"{store.root}/{p.rel}", dest_path)
        moved.append(dest)
    return moved


def migrate_layout(store: Store) -> list[str]:
    """Rename the ``cell=<id>`` folders of a sweep written by an older simlab to ``cell-<id>``.

    Returns:
        The renamed folders (relative paths before the rename); empty when there were none.

    Raises:
        SweepStateError: when both ``cell=<id>`` and ``cell-<id>`` exist for one cell (a sweep
            resumed by two simlab versions): nothing is renamed.
    """
    from ..errors import SweepStateError
    roots = ["games"] + [f"events/{t}" for t in _subdirs(store, "events")]
    todo = []
    for r in roots:
        for d in _subdirs(store, r):
            if d.startswith("cell=") and d[5:].isdigit():
                new = f"cell-{int(d[5:])}"
                if store.fs.exists(f"{store.root}/{r}/{new}"):
                    raise SweepStateError(f"{store.display}/{r} holds both {d} and {new}; move one aside by hand")
                todo.append((f"{r}/{d}", f"{r}/{new}"))
    for a, b in todo:
        store.fs.mv(f"{store.root}/{a}", f"{store.root}/{b}", recursive=True)
    if todo and store.exists("manifest.json"):
        man = store.read_json("manifest.json")
        if isinstance(man, dict):
            from .seal import check_seal, seal
            sealed = check_seal(man) is None  # an edited manifest stays detectably edited
            man["format"] = SWEEP_FORMAT
            store.write_json("manifest.json", seal(man) if sealed else man)
    return [a for a, _ in todo]


def _subdirs(store: Store, rel: str) -> list[str]:
    base = f"{store.root}/{rel}"
    if not store.fs.exists(base):
        return []
    return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in store.fs.ls(base, detail=False) if store.fs.isdir(p))
