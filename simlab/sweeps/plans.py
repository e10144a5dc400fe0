"""Which chunks of a sweep to play, and when a cell is done (used by :mod:`simlab.sweeps.runner`).

:class:`FixedPlan` plays every chunk of every cell; :class:`PrecisionPlan` plays each cell's chunks
in index order until its win rates are precise enough (``--precision``).
"""

from __future__ import annotations

from .chunks import ChunkTask, cell_dir, games_part_rel, part_name
from .spec import SweepSpec
from .store import Store
from .verify import cell_chunks, part_range

#: games a cell may be given at most under a precision target when the spec sets no max_games
DEFAULT_MAX_GAMES = 1_000_000


def _parse_part(rel: str) -> tuple[int, int, int] | None:
    """``(cell, start, stop)`` of a games part's relative path (see :func:`~simlab.sweeps.verify.part_range`)."""
    where = part_range(rel)
    return where[1:] if where is not None and where[0] == "games" else None


class Plan:
    """Which chunks to play. ``next()`` gives a task to start (or None for now); ``done(r)`` takes a
    finished chunk's summary, ``failed(task)`` a chunk given up on; ``finished()`` says when
    nothing is left."""

    total: int | None
    done_before: int
    skipped: int

    def peek(self) -> ChunkTask | None:
        raise NotImplementedError

    def next(self) -> ChunkTask | None:
        raise NotImplementedError

    def done(self, r: dict) -> None:
        raise NotImplementedError

    def failed(self, task: ChunkTask) -> None:
        raise NotImplementedError

    def finished(self) -> bool:
        raise NotImplementedError

    def discard_extra(self) -> None:
        """Delete the parts of chunks played beyond where the plan stopped (precision only)."""

    def games_written(self) -> dict[str, int]:
        raise NotImplementedError


class FixedPlan(Plan):
    """Every chunk of every cell: ``games`` per cell (chunks already ``written`` are skipped).

    ``extents`` (an extended sweep's, :func:`simlab.sweeps.verify.cell_extents`) chunk each cell
    segment by segment. Tasks are made as they are needed, so memory does not grow with the number
    of chunks.
    """

    def __init__(self, cells, games, chunk, make, written: set, extents: dict[int, list[int]] | None = None):
        self.skipped = 0
        self.per_cell = {c.id: 0 for c in cells}

        def chunks(c):
            if extents is None:
                return ((start, min(games, start + chunk)) for start in range(0, games, chunk))
            return iter(cell_chunks(extents[c.id], chunk))

        for c in cells:
            for a, b in chunks(c):
                if (c.id, a, b) in written:
                    self.skipped += 1
                    self.per_cell[c.id] += b - a
        self.total = games * len(cells)
        self.done_before = sum(self.per_cell.values())
        self._gen = ((c, a, b) for c in cells for a, b in chunks(c) if (c.id, a, b) not in written)
        self._ahead = None
        self._advance()
        self.make = make
        self.outstanding = 0

    def _advance(self) -> None:
        self._ahead = next(self._gen, None)

    def peek(self):
        return None if self._ahead is None else self.make(*self._ahead)

    def next(self):
        if self._ahead is None:
            return None
        t = self.make(*self._ahead)
        self._advance()
        self.outstanding += 1
        return t

    def done(self, r):
        self.outstanding -= 1
        self.per_cell[r["cell"]] += r["games"]

    def failed(self, task):
        self.outstanding -= 1

    def finished(self):
        return self._ahead is None and self.outstanding == 0

    def games_written(self):
        return {str(k): v for k, v in self.per_cell.items()}


class PrecisionPlan(Plan):
    """Chunks of each cell in index order until the cell's win rates are precise enough.

    The stopping rule is evaluated on chunks 0..k in index order, whatever order they finish in,
    so the rows written depend only on the seed, the spec and the chunk size — not on the number
    of workers, nor on where an earlier run was killed. Parts beyond the stopping point (started
    ahead, or left by a killed run) are deleted at the end. A cell with a failed chunk stops
    there: its stopping point cannot be known until that chunk is played (``--resume``).
    """

    def __init__(self, cells, spec: SweepSpec, chunk, make, store: Store, written: set, sides, ahead):
        self.cells = {c.id: c for c in cells}
        self.make = make
        self.store = store
        self.chunk = chunk
        self.h = spec.precision
        self.min_games = spec.games
        self.max_games = spec.max_games or DEFAULT_MAX_GAMES
        self.sides = list(sides)
        self.ahead = ahead
        self.results: dict[int, dict[int, dict]] = {c.id: {} for c in cells}
        self.next_start = {c.id: 0 for c in cells}
        self.stop_at: dict[int, int | None] = {c.id: None for c in cells}
        self.half_width: dict[int, float] = {}
        self.inflight = {c.id: 0 for c in cells}
        self.blocked: set[int] = set()
        self.skipped = 0
        self.total = None
        done_before = 0
        for (cid, a, b) in sorted(written):
            # every part of the current chunking counts, also one beyond a gap left by a killed run
            if cid in self.cells and a % chunk == 0 and b == min(self.max_games, a + chunk):
                wins = _wins_in_part(store, games_part_rel(cid, a, b), self.sides)
                self.results[cid][a] = {"games": b - a, "wins": wins}
                self.skipped += 1
                done_before += b - a
        for c in cells:
            self._decide(c.id)
            self.next_start[c.id] = self._free(c.id, 0)
        self.done_before = done_before
        self.rr = 0

    def _decide(self, cid: int) -> None:
        from ..stats.intervals import wilson_half_width
        if self.stop_at[cid] is not None:
            return
        n = 0
        wins = dict.fromkeys(self.sides, 0)
        start = 0
        res = self.results[cid]
        while start in res:
            r = res[start]
            n += r["games"]
            for s in self.sides:
                wins[s] += r["wins"][s]
            start += r["games"]
            if n >= self.min_games or n >= self.max_games:
                hw = max(float(wilson_half_width(wins[s], n)) for s in self.sides)
                if hw <= self.h or n >= self.max_games:
                    self.stop_at[cid] = n
                    self.half_width[cid] = hw
                    return

    def precision_reached(self) -> dict[str, dict]:
        """Per cell (keyed by its id as a string): games played, the widest Wilson half-width of the
        side win rates reached, and whether it met the target (cells stopped by ``max_games`` did not)."""
        return {str(cid): {"games": self.stop_at[cid], "half_width": round(hw, 6), "reached": hw <= self.h}
                for cid, hw in sorted(self.half_width.items())}

    def _free(self, cid: int, start: int) -> int:
        """The first chunk start at or after ``start`` not yet played."""
        while start in self.results[cid]:
            start += self.results[cid][start]["games"]
        return start

    def _candidates(self):
        ids = list(self.cells)
        k = len(ids)
        for j in range(k):
            cid = ids[(self.rr + j) % k]
            if (self.stop_at[cid] is None and cid not in self.blocked and self.next_start[cid] < self.max_games
                    and self.inflight[cid] < self.ahead):
                yield cid

    def peek(self):
        for cid in self._candidates():
            s = self.next_start[cid]
            return self.make(self.cells[cid], s, min(self.max_games, s + self.chunk))
        return None

    def next(self):
        for cid in self._candidates():
            s = self.next_start[cid]
            e = min(self.max_games, s + self.chunk)
            self.next_start[cid] = self._free(cid, e)
            self.inflight[cid] += 1
            self.rr += 1
            return self.make(self.cells[cid], s, e)
        return None

    def done(self, r):
        cid = r["cell"]
        self.inflight[cid] -= 1
        self.results[cid][r["start"]] = {"games": r["games"], "wins": r["wins"]}
        self._decide(cid)

    def failed(self, task):
        self.inflight[task.cell] -= 1
        self.blocked.add(task.cell)

    def finished(self):
        return all(v == 0 for v in self.inflight.values()) and next(self._candidates(), None) is None

    def discard_extra(self):
        events = None
        for cid, limit in self.stop_at.items():
            if limit is None:
                continue
            for rel in self.store.find(f"games/{cell_dir(cid)}"):
                parsed = _parse_part(rel)
                if parsed is None or parsed[1] < limit:
                    continue
                self.store.remove(rel)
                events = self.store.find("events") if events is None else events
                for ev in events:
                    if ev.endswith(f"/{cell_dir(cid)}/{part_name(parsed[1], parsed[2])}"):
                        self.store.remove(ev)
                self.results[cid].pop(parsed[1], None)

    def games_written(self):
        return {str(cid): sum(r["games"] for r in res.values()) for cid, res in self.results.items()}


def _wins_in_part(store: Store, rel: str, sides) -> dict[str, int]:
    import pyarrow.compute as pc
    w = store.read_parquet(rel, columns=["winner"])["winner"]
    counts = {d["values"]: d["counts"] for d in pc.value_counts(w).to_pylist()}
    return {s: int(counts.get(s, 0)) for s in sides}


