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

__all__ = ["end_reason_rates", "length_distribution", "load", "load_table", "preset_figures", "report", "report_rows",
           "side_advantage", "sweep_report"]


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
             exploitability: {side: {policy, gain, ci, source, max_gain, value, reason}}}

        ``side_advantage`` (two-sided games) is the first side's win rate minus the second's,
        with Newcombe's paired interval (one game cannot be won by both), ``favoured`` the side
        ahead when the interval excludes 0 (else None). ``turns`` is the game-length
        distribution in turns (battle rounds for a battle): quantiles, and a histogram
        (``counts[i]`` games with ``edges[i] <= turns < edges[i + 1]``; one bin per value when
        at most 40 values occur). ``end_reasons`` counts the ``end_reason`` column (empty when
        the game writes none). ``status`` is the sweep's (see
        :func:`simlab.sweeps.manifest.sweep_status`: a killed sweep is ``interrupted``, not
        ``running``), the same in every row. ``exploitability`` is each policy's measured
        exploitability (:func:`policy_exploitability`: a lower bound, given only under the conditions
        its solve played, with the side's maximum gain; else ``source = "unmeasured"`` and the
        ``reason``).
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
    """Each cell's policies with their measured exploitability, where a solve measured it under
    exactly the conditions the cell played (issue 29, "Never stale"; :mod:`simlab.measured`).

    A figure comes from a solve's folder: a ``--policies-file``'s (its found presets and its
    ``[exploitability]`` table), a mix's (``@mix:DIR``: the gain of the best response found against
    it), or the game's shipped solved population for the cell's scenario. It is given only where
    that solve's recorded conditions (game version, scenario, options, data pack hash, the
    preset's family and full knob vector) are the cell's; otherwise the policy is unmeasured and
    ``reason`` names the first condition that differs.

    Returns:
        ``{cell: {side: {"policy", "gain", "ci", "source", "max_gain", "value", "reason"}}}``:
        ``gain`` (a lower bound: the largest gain a searched response found, over the game's value
        ``value``) with its interval ``ci`` and ``max_gain``, the most any response could gain
        against a policy of that side (:func:`simlab.measured.max_gain`: ``1 + v`` for the first
        side's, ``1 - v`` for the second's); where unmeasured, ``gain`` is None, ``source``
        ``"unmeasured"`` and ``reason`` the condition that differs (None where no solve measured
        the policy at all).
    """
    from .errors import InputError
    from .games import get_game
    from .games.policy import MIX_PREFIX, using_policies
    from .measured import cell_conditions, difference
    try:
        g = get_game(man["game"])
        files = [f for f in (man.get("spec") or {}).get("policies_files", []) if Path(f).is_file()]
        base = g.policy_book()
        with using_policies(*files):
            g.policy_book()  # the files are readable together, as the sweep read them
    except (InputError, ValueError, OSError):
        return {}
    file_sources = [s for s in (_file_source(f, base, man["sides"]) for f in files) if s is not None]
    own = _book_source(base, None, "the game's policies.toml", man["sides"])
    shipped: dict[str, dict | None] = {}

    def shipped_for(scen: str) -> dict | None:
        if scen not in shipped:
            shipped[scen] = _shipped_source(g, scen)
        return shipped[scen]

    out: dict[int, dict[str, dict]] = {}
    for cell in man.get("cells", []):
        scen = (man.get("scenarios", {}).get(cell.get("scenario")) or {}).get("name", cell.get("scenario"))
        played = cell_conditions(man, cell)
        per = {}
        for side, name in (cell.get("policies") or {}).items():
            if name.startswith(MIX_PREFIX):
                per[side] = _mix_figure(name, side, base, played, man["sides"])
                continue
            found = None
            for src in [*file_sources, shipped_for(scen), own]:
                if src is None:
                    continue
                rec = src["figures"].get((side, name, scen)) or src["figures"].get((side, name, "*"))
                if rec is None:
                    continue
                why = difference(src["stamp"], played, side, name)
                fig = _figure(name, side, rec, src, why)
                if why is None:
                    found = fig
                    break
                found = found or fig  # the first source's reason, where none applies
            per[side] = found or {"policy": name, "gain": None, "ci": None, "source": "unmeasured",
                                  "max_gain": None, "value": None, "reason": None}
        out[int(cell["cell"])] = per
    return out


def _figure(name: str, side: str, rec: dict, src: dict, why: str | None) -> dict:
    from .measured import max_gain
    if why is not None:
        return {"policy": name, "gain": None, "ci": None, "source": "unmeasured", "max_gain": None,
                "value": None, "reason": why}
    return {"policy": name, "gain": float(rec["gain"]), "ci": rec.get("ci"),
            "source": rec.get("source") or src["where"], "max_gain": max_gain(side, src["sides"], src["value"]),
            "value": src["value"], "reason": None}


def _book_source(book, folder: Path | None, where: str, sides) -> dict:
    """A figure source (``{"figures": {(side, preset, scenario): rec}, "stamp", "value", "sides", "where"}``)
    of a policy book: its presets' own figures and its ``[exploitability]`` table (of the scenario
    its ``[solve]`` table names, else of every scenario), with the stamp of the solve in ``folder``."""
    import json

    from .measured import stamp_of
    scen = str(book.meta.get("scenario", "*"))
    figures: dict[tuple, dict] = {}
    for side, recs in book.exploits.items():
        for name, rec in recs.items():
            figures[(side, name, scen)] = dict(rec)
    for p in book.presets.values():
        for sc, rec in (p.exploitability or {}).items():
            for side in (p.sides or sides):
                figures.setdefault((side, p.name, sc), dict(rec))
    run = {}
    if folder is not None:
        try:
            run = json.loads((folder / "solve.json").read_text())
        except (OSError, ValueError):
            run = {}
    value = book.meta.get("value", ((run.get("final") or {}).get("value")))
    return {"figures": figures, "stamp": stamp_of(folder) if folder is not None else None,
            "value": None if value is None else float(value), "sides": run.get("sides") or list(sides),
            "where": where, "run": run}


def _file_source(path: str, base, sides) -> dict | None:
    """The figure source of a ``--policies-file`` (None when it cannot be read)."""
    from .errors import InputError
    from .games.policy import load_policy_book
    try:
        book = load_policy_book(path, base=base)
    except (InputError, ValueError, OSError):
        return None
    return _book_source(book, Path(path).parent, f"simlab solve ({path})", sides)


def _shipped_source(game, scenario: str) -> dict | None:
    """The figure source of the game's shipped solved population for ``scenario`` (None if none)."""
    from .errors import InputError
    from .games.policy import load_policy_book
    pf = getattr(game, "policy_file", None)
    if pf is None:
        return None
    folder = Path(pf).parent / "solved" / scenario
    if not (folder / "policies.toml").is_file():
        return None
    try:
        book = load_policy_book(folder / "policies.toml", base=game.policy_book())
    except (InputError, ValueError, OSError):
        return None
    if book.meta.get("game") != game.name:
        return None
    where = f"simlab/games/{folder.parent.parent.name}/solved/{scenario}"
    src = _book_source(book, folder, where, game.sides)
    src["figures"] = {k: {**r, "source": f"{r.get('source', 'simlab solve')} ({where})"}
                      for k, r in src["figures"].items()}
    return src


def _mix_figure(name: str, side: str, base, played: dict, sides) -> dict:
    """A mix's figure (``@mix:DIR``): the gain of the best response the solve in DIR found against
    this side's mix (``solve.json``'s ``final.exploitability.per_side`` of the other side, or its
    ``rollout_per_side`` where the rollout response gained more; the larger of both where only the
    ``[solve]`` table's estimate is there), if DIR's solve played
    under the cell's conditions (a mix's components are that solve's own presets)."""
    from .errors import InputError
    from .games.policy import MIX_PREFIX, load_policy_book, mix_file
    from .measured import difference
    empty = {"policy": name, "gain": None, "ci": None, "source": "unmeasured", "max_gain": None, "value": None,
             "reason": None}
    try:
        f = mix_file(name[len(MIX_PREFIX):])
        book = load_policy_book(f, base=base)
    except (InputError, ValueError, OSError):
        return empty
    src = _book_source(book, Path(f).parent, "", sides)
    s0, s1 = (list(src["sides"]) + [None, None])[:2]
    other = s1 if side == s0 else s0
    ex = (src["run"].get("final") or {}).get("exploitability") or {}
    per = (ex.get("per_side") or {}).get(other)
    # the rollout response that closes a solve (issue 29; absent from a solve.json written before it)
    ro = (ex.get("rollout_per_side") or {}).get(other)
    if ro is not None and ro.get("gain") is not None and (per is None or per.get("gain") is None
                                                         or float(ro["gain"]) > float(per["gain"])):
        rec = {"gain": max(0.0, float(ro["gain"])), "ci": ro.get("ci"),
               "source": f"simlab solve: the gain of {other}'s rollout response against this mix (a lower bound "
                         "not confined to the knobs)"}
    elif per is not None and per.get("gain") is not None:
        rec = {"gain": max(0.0, float(per["gain"])), "ci": per.get("ci"),
               "source": f"simlab solve: the gain of {other}'s best response against this mix (a lower bound)"}
    elif "exploitability" in book.meta:
        rec = {"gain": float(book.meta["exploitability"]), "ci": None,
               "source": "simlab solve: the mix's exploitability estimate (a lower bound)"}
    else:
        return empty
    why = difference(src["stamp"], played, side, name, knobs=False)
    return _figure(name, side, rec, src, why)


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
        game's own presets), or None when the game ships no population for
        the scenario, the solve's options differ from ``options`` (its figures then say nothing
        about these games), or its files cannot be read. The knob vectors and the data pack are
        not checked here: :func:`policy_exploitability` checks every condition of a sweep's cell.
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
    final = run.get("final") or {}
    presets: dict[str, dict[str, dict]] = {}
    for side, recs in (doc.get("exploitability") or {}).items():
        for preset, r in (recs or {}).items():
            if isinstance(r, dict) and "gain" in r:
                presets.setdefault(side, {})[preset] = {
                    "gain": float(r["gain"]), "ci": r.get("ci"),
                    "source": f"{r.get('source', 'simlab solve')} ({where})"}
    return {"path": where, "value": final.get("value"), "value_ci": final.get("value_ci"),
            "exploitability": (final.get("exploitability") or {}).get("estimate"),
            "stop": (run.get("stop") or {}).get("reason"), "presets": presets}


def preset_figures(game) -> dict[str, dict[str, dict[str, dict]]]:
    """Each preset's measured exploitability in every scenario the game ships a solved population
    for (``<game package>/solved/<scenario>/``), checked as a sweep's cells are checked: a figure
    is given only where that solve played under the conditions a default sweep of the preset in
    that scenario plays (game version, built-in scenario, default options, the game's data pack,
    the preset's full knob vector); otherwise the figure is unmeasured and ``reason`` names the
    first condition that differs (issue 29, "Never stale"). What ``simlab games`` prints.

    Args:
        game: a :class:`~simlab.games.base.Game`.

    Returns:
        ``{side: {preset: {scenario: figure}}}``, ``figure`` as in :func:`policy_exploitability`
        (``gain``, ``ci``, ``max_gain``, ``value``, ``source``, ``reason``); ``side`` is each side
        the scenario defines. Scenarios with no shipped population are left out; ``{}`` for a
        game that ships none. A population whose scenario no longer expands is left out too.
    """
    from .errors import InputError
    from .sweeps.runner import planned_manifest
    from .sweeps.spec import SweepSpec
    pf = getattr(game, "policy_file", None)
    if pf is None:
        return {}
    out: dict[str, dict[str, dict[str, dict]]] = {}
    for scen in game.scenarios:
        if not (Path(pf).parent / "solved" / scen / "policies.toml").is_file():
            continue
        try:
            sides = game.load_scenario(scen, game.load_data(None)).sides
        except (InputError, ValueError, OSError):
            continue
        for side in sides:
            for preset in game.side_policies(side):
                try:  # one preset at a time: a scenario may not offer a preset to a side
                    man = planned_manifest(SweepSpec(name="presets", game=game.name, scenarios=[scen],
                                                     policies={side: [preset]}, games=1))
                except (InputError, ValueError, OSError):
                    continue
                for per in policy_exploitability(man).values():
                    out.setdefault(side, {}).setdefault(preset, {})[scen] = per[side]
    return out


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
