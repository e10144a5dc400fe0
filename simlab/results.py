"""Reading a sweep's output and summarising it per cell.

``load(DIR)`` returns the games table as a pandas DataFrame (one row per game, sorted by cell and
game index); ``report(DIR)`` returns per-cell win rates with Wilson intervals, mean scores with
standard errors and mean turns.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from .errors import SweepStateError
from .stats import cellstats
from .sweeps.manifest import load_manifest, sweep_status
from .sweeps.store import Store
from .sweeps.verify import check_accounting, check_parts

if TYPE_CHECKING:  # pragma: no cover - pandas is imported where a DataFrame is made (~1 s of start-up)
    import pandas as pd  # pyarrow.dataset imports pandas too: it is imported where a dataset is made
    import pyarrow.dataset as ds

__all__ = ["end_reason_rates", "length_distribution", "load", "load_table", "report", "report_rows", "side_advantage",
           "sweep_report"]


def _checked_files(store: Store, table: str, man: dict | None = None, partial: bool | str = False) -> list[str]:
    """The parts of a table (relative names), checked to belong to the sweep when ``man`` is given.

    ``partial=True`` (``report``, which prints its own warning) accepts fewer games than the
    manifest says were written; ``partial="warn"`` accepts them with a :class:`PartialSweepWarning`
    naming what is missing; otherwise that raises.

    Raises:
        SweepStateError: no rows written yet, a part that does not belong, or (unless ``partial``)
            games the manifest says were written that no part holds (a deleted part or cell folder).
    """
    try:
        files = store.find("games" if table == "games" else f"events/{table}")
    except ValueError:  # not a plain table name
        files = []
    if not files:
        raise SweepStateError(f"{store.display}: no '{table}' rows written yet")
    if man is not None:
        files, problems = check_parts(store, man, table)
        if problems:
            raise SweepStateError(
                f"{store.display}: {len(problems)} part(s) do not belong to this sweep, first "
                f"{problems[0].line()}; `simlab verify {store.display}` lists them and `simlab sweep ... --resume` "
                "quarantines and replays them")
        if table == "games" and partial is not True:
            from .sweeps.manifest import sweep_status
            short = check_accounting(man, files, sweep_status(store, man) == "complete")
            if short and partial == "warn":
                import warnings

                from .errors import PartialSweepWarning
                more = f" (and {len(short) - 1} more cell(s))" if len(short) > 1 else ""
                warnings.warn(f"{store.display}: rows are missing: {short[0]}{more}; these are the games "
                              "that are there", PartialSweepWarning, stacklevel=4)
            elif short:
                more = f" (and {len(short) - 1} more cell(s))" if len(short) > 1 else ""
                raise SweepStateError(f"{store.display}: rows are missing: {short[0]}{more}; `simlab verify "
                                      f"{store.display}` lists them and `simlab sweep ... --resume` plays them again")
        if not files:
            raise SweepStateError(f"{store.display}: no '{table}' rows written yet")
    return files


def _dataset(store: Store, table: str, man: dict | None = None, partial: bool | str = False) -> ds.Dataset:
    files = _checked_files(store, table, man, partial)
    try:
        return store.dataset(files)
    except (pa.ArrowInvalid, OSError) as e:
        raise SweepStateError(f"{store.display}: unreadable Parquet part ({_first_line(e)})") from None


def _first_line(e: BaseException) -> str:
    msg = " ".join(str(e).split())
    return msg if len(msg) <= 200 else msg[:197] + "..."


def load_table(path: str | Path, table: str = "games", columns: list[str] | None = None,
               allow_partial: bool = False) -> pa.Table:
    """A sweep's table as a pyarrow Table, sorted by ``cell`` then ``game_index``.

    Args:
        path: the sweep directory (a local path or an fsspec URL such as ``s3://bucket/sweep``).
        table: ``"games"`` or an events table name.
        columns: columns to read (default: all).
        allow_partial: return the games that are there when the manifest says more were written
            (a deleted part, a running sweep), with a :class:`simlab.errors.PartialSweepWarning`
            naming the missing cells and ranges; False (the default) raises instead.

    Raises:
        SweepStateError: if ``path`` is not a sweep directory, holds no such rows, holds a part
            that does not belong to it (see :func:`simlab.sweeps.verify.check_parts`), or (unless
            ``allow_partial``) lacks games the manifest says were written.
        KeyError: if a requested column does not exist.
    """
    store = Store(path)
    return _read_table(store, _dataset(store, table, load_manifest(store), "warn" if allow_partial else False),
                       table, columns)


def _read_table(store: Store, dset: ds.Dataset, table: str, columns: list[str] | None) -> pa.Table:
    """The rows of a checked dataset (:func:`_dataset`), sorted by ``cell`` then ``game_index``."""
    cols = None if columns is None else list(dict.fromkeys(list(columns)))
    missing = [c for c in (cols or []) if c not in dset.schema.names]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in {table} (columns: {', '.join(dset.schema.names)})")
    try:
        t = dset.to_table(columns=cols)
    except (pa.ArrowInvalid, OSError) as e:
        raise SweepStateError(f"{store.display}: unreadable Parquet part ({_first_line(e)})") from None
    keys = [k for k in ("cell", "game_index") if k in t.column_names]
    if keys:
        t = t.sort_by([(k, "ascending") for k in keys])
    return t


def load(path: str | Path, table: str = "games", columns: list[str] | None = None,
         allow_partial: bool = False) -> pd.DataFrame:
    """A sweep's games table (or an events table) as a pandas DataFrame.

    One row per game, sorted by ``cell`` then ``game_index``; columns as described in README
    ("Output"). See :func:`load_table` for the arguments (``allow_partial``: the games that are
    there, with a warning, rather than an error) and errors.
    """
    return load_table(path, table, columns, allow_partial).to_pandas()


def report(path: str | Path, confidence: float = 0.95) -> list[dict]:
    """Per-cell summary of a sweep.

    Args:
        path: the sweep directory.
        confidence: level of the Wilson intervals.

    Returns:
        One dict per cell (in cell order)::

            {cell, params, status, games, draws, draw_rate, draw_ci, mean_turns,
             sides: {side: {wins, win_rate, ci: [low, high], mean_score, score_se}},
             side_advantage: {sides: [a, b], favoured, difference, ci: [low, high]} | None,
             turns: {mean, sd, min, p10, p25, median, p75, p90, max, edges, counts},
             end_reasons: {label: {count, rate, ci}},
             exploitability: {side: {policy, gain, ci, source}}}

        ``side_advantage`` (two-sided games) is the first side's win rate minus the second's,
        with Newcombe's paired interval (one game cannot be won by both), ``favoured`` the side
        ahead when the interval excludes 0 (else None). ``turns`` is the game-length
        distribution in turns (battle rounds for a battle): quantiles, and a histogram
        (``counts[i]`` games with ``edges[i] <= turns < edges[i + 1]``; one bin per value when
        at most 40 values occur). ``end_reasons`` counts the ``end_reason`` column (empty when
        the game writes none). ``status`` is the sweep's (see
        :func:`simlab.sweeps.manifest.sweep_status`: a killed sweep is ``interrupted``, not
        ``running``), the same in every row. ``exploitability`` is each policy's measured
        exploitability (:func:`policy_exploitability`: a lower bound, or ``source = "unmeasured"``).
        Cells with no games written yet are left out.

    Raises:
        SweepStateError: if ``path`` is not a sweep directory or holds no games.
    """
    man = load_manifest(path)
    status = sweep_status(path, man)
    store = Store(path)
    files = _checked_files(store, "games", man, partial=True)  # checked once, here; the CLI warns of gaps
    stats = cell_stats_of_parts(store, files, man["sides"])
    return report_rows(man, status, stats, confidence)


def sweep_report(result) -> list[dict]:
    """:func:`report` of the sweep a :func:`simlab.sweeps.runner.run_sweep` call just finished: from
    its chunks' summaries (``result.cell_stats``) when that call played every game, else read back."""
    if result.cell_stats is not None:
        return report_rows(result.manifest, sweep_status(result.path, result.manifest), result.cell_stats)
    return report(result.path)


def report_rows(man: dict, status: str, stats: dict, confidence: float = 0.95) -> list[dict]:
    """:func:`report`'s rows from per-cell stats (``{cell: stats}``, :mod:`simlab.stats.cellstats`):
    those of the parts read back, or those a sweep's chunks returned as they were played
    (:attr:`simlab.sweeps.runner.SweepResult.cell_stats`), which give the same rows."""
    params = {c["cell"]: c["params"] for c in man["cells"]}
    expl = policy_exploitability(man)
    return [cellstats.cell_record(int(c), params.get(int(c), {}), status, stats[c], man["sides"], confidence, expl)
            for c in sorted(stats) if stats[c]["games"]]


def cell_stats_of_parts(store: Store, files: list[str], sides) -> dict[int, dict]:
    """Per-cell stats of games parts, read one part at a time (memory holds one part's columns).

    Raises:
        SweepStateError: a part that cannot be read.
    """
    import pyarrow.compute as pc  # imported here: a sweep's own report needs none of it
    import pyarrow.parquet as pq
    out: dict[int, dict] = {}
    has_reason = None
    want = ["cell", "winner", "turns"] + [f"score_{s}" for s in sides]
    for rel in files:
        try:
            with store.open(rel) as fh:
                pf = pq.ParquetFile(fh)
                names = pf.schema_arrow.names
                if has_reason is None:  # as a dataset over the parts: the first part's schema decides
                    has_reason = "end_reason" in names
                t = pf.read(columns=want + (["end_reason"] if "end_reason" in names and has_reason else []))
        except (pa.ArrowInvalid, OSError) as e:
            raise SweepStateError(f"{store.display}: unreadable Parquet part ({_first_line(e)})") from None
        cells = pc.unique(t["cell"]).to_pylist()
        for c in cells:  # a part holds one cell's games
            sub = t if len(cells) == 1 else t.filter(pc.equal(t["cell"], c))
            out[int(c)] = cellstats.merge(out.get(int(c)), table_stats(sub, sides, has_reason))
    return out


def table_stats(t: pa.Table, sides, has_reason: bool) -> dict:
    """The stats (:func:`simlab.stats.cellstats.part_stats`) of games rows of one cell."""
    wins = _value_counts(t["winner"])
    reasons = None
    if has_reason:
        reasons = _value_counts(t["end_reason"]) if "end_reason" in t.column_names else {"None": t.num_rows}
    return cellstats.part_stats(wins, t["turns"].to_numpy(), {s: t[f"score_{s}"].to_numpy() for s in sides}, reasons)


def _value_counts(col) -> dict:
    import pyarrow.compute as pc
    return {("None" if d["values"] is None else str(d["values"])): int(d["counts"])
            for d in pc.value_counts(col).to_pylist()}


def policy_exploitability(man: dict) -> dict[int, dict[str, dict]]:
    """Each cell's policies with their measured exploitability, from the ``policies.toml`` files
    that record it (the game's own, the sweep's ``--policies-file``, a mix's solve directory).

    Returns:
        ``{cell: {side: {"policy", "gain", "ci", "source"}}}``; ``gain`` is None and ``source``
        ``"unmeasured"`` where no file records one. A gain is a lower bound (the largest gain a
        searched response found).
    """
    import json

    from .errors import InputError
    from .games import get_game
    from .games.policy import MIX_PREFIX, load_policy_book, mix_file, using_policies
    try:
        g = get_game(man["game"])
        files = [f for f in (man.get("spec") or {}).get("policies_files", []) if Path(f).is_file()]
        with using_policies(*files):
            book = g.policy_book()
    except (InputError, ValueError, OSError):
        return {}
    out: dict[int, dict[str, dict]] = {}
    shipped: dict[str, dict] = {}   # the shipped population's figures, read once per (scenario, options)

    def shipped_for(scen: str, options: dict) -> dict:
        key = json.dumps([scen, options], sort_keys=True, default=str)
        if key not in shipped:
            shipped[key] = shipped_exploitability(g, scen, options)
        return shipped[key]

    for cell in man.get("cells", []):
        scen = (man.get("scenarios", {}).get(cell.get("scenario")) or {}).get("name", cell.get("scenario"))
        per = {}
        for side, name in (cell.get("policies") or {}).items():
            rec = None
            if name.startswith(MIX_PREFIX):
                try:
                    meta = load_policy_book(mix_file(name[len(MIX_PREFIX):]), base=book).meta
                except (InputError, ValueError, OSError):
                    meta = {}
                if "exploitability" in meta:
                    rec = {"gain": float(meta["exploitability"]), "ci": None,
                           "source": "simlab solve: the mix's exploitability estimate (a lower bound)"}
            elif name in book.presets:
                ex = book.presets[name].exploitability
                rec = ex.get(scen) or ex.get("*")
                if rec is None and not files:
                    rec = shipped_for(scen, cell.get("options") or {}).get(side, {}).get(name)
            per[side] = {"policy": name, **(dict(rec) if rec else {"gain": None, "ci": None, "source": "unmeasured"})}
        out[int(cell["cell"])] = per
    return out


def shipped_solution(game, scenario: str, options: dict) -> dict | None:
    """The solved population the game ships for ``scenario`` (``<game package>/solved/<scenario>/``:
    ``policies.toml`` and ``solve.json``, issue 16), where that solve was played under exactly
    these options.

    Args:
        game: a :class:`~simlab.games.base.Game`; scenario: the scenario's name; options: the
            cell's resolved options.

    Returns:
        ``{"path", "value", "value_ci", "exploitability", "stop", "presets"}`` (value: the first
        side's win rate minus the second's at the final mix; exploitability: the final mix's
        estimate, a lower bound; presets: ``{side: {preset: {"gain", "ci", "source"}}}`` for the
        game's own presets), or None when the game ships no population for the scenario, the
        solve's options differ from ``options`` (its figures then say nothing about these games),
        or its files cannot be read.
    """
    import json
    import tomllib
    pf = getattr(game, "policy_file", None)
    if pf is None:
        return None
    folder = Path(pf).parent / "solved" / scenario
    try:
        doc = tomllib.loads((folder / "policies.toml").read_text())
        run = json.loads((folder / "solve.json").read_text())
    except (OSError, ValueError):
        return None
    if (doc.get("solve") or {}).get("game") != game.name or run.get("options") != dict(options):
        return None
    where = f"simlab/games/{folder.parent.parent.name}/solved/{scenario}"
    presets: dict[str, dict[str, dict]] = {}
    for side, recs in (doc.get("exploitability") or {}).items():
        for preset, r in (recs or {}).items():
            if isinstance(r, dict) and "gain" in r:
                presets.setdefault(side, {})[preset] = {
                    "gain": float(r["gain"]), "ci": r.get("ci"),
                    "source": f"{r.get('source', 'simlab solve')} ({where})"}
    final = run.get("final") or {}
    return {"path": where, "value": final.get("value"), "value_ci": final.get("value_ci"),
            "exploitability": (final.get("exploitability") or {}).get("estimate"),
            "stop": (run.get("stop") or {}).get("reason"), "presets": presets}


def shipped_exploitability(game, scenario: str, options: dict) -> dict[str, dict[str, dict]]:
    """``shipped_solution(...)["presets"]``, or ``{}`` where the game ships none that applies."""
    sol = shipped_solution(game, scenario, options)
    return sol["presets"] if sol else {}


def side_advantage(winner, sides, confidence: float = 0.95) -> dict | None:
    """First side's win rate minus the second's with Newcombe's paired interval (two sides only).

    Args:
        winner: ``array_like(str)`` winner labels of one cell's games (side names or ``draw``).
        sides: the side names.
        confidence: interval level.

    Returns:
        ``{sides: [a, b], favoured, difference, ci: [low, high]}`` or None for other than two
        sides; ``favoured`` is the side ahead when the interval excludes 0, else None.
    """
    w = np.asarray(winner, dtype=object)
    return cellstats.side_advantage_of_counts(cellstats.counts_of(w.astype(str)), len(w), sides, confidence)


def length_distribution(turns) -> dict:
    """Quantiles and histogram of game lengths (turns).

    Args:
        turns: ``array_like(int)`` of one cell's game lengths, non-empty.

    Returns:
        ``{mean, sd, min, p10, p25, median, p75, p90, max, edges, counts}``; one bin per integer
        value when at most 40 values span the range, else 20 equal bins.
    """
    t = np.asarray(turns, dtype=np.float64)
    if t.size == 0:
        raise ValueError("length_distribution needs at least one game")
    return cellstats.length_from_counts(cellstats.counts_of(t))


def end_reason_rates(reasons, confidence: float = 0.95) -> dict:
    """``{label: {count, rate, ci}}`` of one cell's ``end_reason`` labels, most frequent first."""
    r = np.asarray(reasons, dtype=object)
    return cellstats.reason_rates(cellstats.counts_of(r.astype(str)), confidence)


def report_frame(rows: list[dict]) -> pd.DataFrame:
    """Flatten :func:`report` output into one row per cell (the CSV form)."""
    flat = []
    for r in rows:
        d = {"cell": r["cell"]}
        for k, v in r["params"].items():
            d[k] = v
        d.update({"status": r.get("status"), "games": r["games"], "draws": r["draws"], "draw_rate": r["draw_rate"]})
        if "draw_ci" in r:
            d["draw_ci_low"], d["draw_ci_high"] = r["draw_ci"]
        for s, v in r["sides"].items():
            d[f"wins_{s}"] = v["wins"]
            d[f"win_rate_{s}"] = v["win_rate"]
            d[f"ci_low_{s}"] = v["ci"][0]
            d[f"ci_high_{s}"] = v["ci"][1]
            d[f"mean_score_{s}"] = v["mean_score"]
            d[f"score_se_{s}"] = v["score_se"]
        d["mean_turns"] = r["mean_turns"]
        adv = r.get("side_advantage")
        if adv:
            d["advantage"] = adv["difference"]
            d["advantage_ci_low"], d["advantage_ci_high"] = adv["ci"]
        if "turns" in r:
            for k in ("median", "p10", "p90", "max"):
                d[f"turns_{k}"] = r["turns"][k]
        for label, v in r.get("end_reasons", {}).items():
            d[f"end_{label}"] = v["rate"]
        flat.append(d)
    import pandas as pd
    return pd.DataFrame(flat)
