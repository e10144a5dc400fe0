"""The sweep's progress bar on stderr (rich): games done, games/s, elapsed and ETA."""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """A rich progress bar on stderr: games done, games/s, elapsed and ETA.

    Until the first chunk is written the bar says ``starting`` (workers start, kernels load from
    numba's cache); the rate and the ETA then count only the games and seconds after that first
    chunk, so the start-up does not make the first estimates wildly optimistic or pessimistic.
    """

    def __init__(self, total: int | None, done: int, enabled: bool, label: str):
        self.enabled = enabled
        self.total = total
        self.done = done
        self.label = label
        self.p = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
            from rich.table import Column
            console = Console(stderr=True)
            # games done, games/s, elapsed and ETA always fit: the label and the bar give way
            # (no total under a precision target: the bar is indeterminate and shows games played)
            fixed = 2 * len(f"{self.total or 0:,}") + 46
            room = max(console.width - fixed, 16)
            label_w = max(min(len(self.label), room - 6), 8)
            bar = max(min(40, room - label_w - 1), 5)
            self.p = Progress(
                TextColumn("[bold]{task.description}",
                           table_column=Column(no_wrap=True, overflow="ellipsis", max_width=label_w)),
                BarColumn(bar_width=bar), MofNCompleteColumn(),
                TextColumn("games"), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                TextColumn("{task.fields[eta]}"),
                console=console, transient=False, refresh_per_second=8,
            )
            self.p.__enter__()
            self.task = self.p.add_task(self.label, total=self.total, completed=self.done, rate="starting",
                                        eta="")
            self.n = 0
            self.first: tuple[float, int] | None = None  # (time, games) when the first chunk was written
        return self

    def advance(self, n: int) -> None:
        if self.p is None:
            return
        self.n += n
        now = time.perf_counter()
        if self.first is None:
            self.first = (now, self.n)
            self.p.update(self.task, advance=n, rate="", eta="")
            return
        dt, dn = now - self.first[0], self.n - self.first[1]
        rate = dn / dt if dt > 0 else 0.0
        eta = ""
        if rate > 0 and self.total is not None:
            left = int(max(self.total - self.done - self.n, 0) / rate)
            eta = f"ETA {left // 3600}:{left % 3600 // 60:02d}:{left % 60:02d}"
        self.p.update(self.task, advance=n, rate=f"{rate:,.0f} games/s" if rate > 0 else "", eta=eta)

    def log(self, line: str) -> None:
        """Print a line on stderr above the bar."""
        if self.p is not None:
            self.p.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=sys.stderr)

    def __exit__(self, *exc):
        if self.p is not None:
            self.p.__exit__(*exc)
        return False
