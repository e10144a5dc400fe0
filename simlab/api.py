"""The public Python API: every CLI command is one of these functions.

``import simlab`` exposes them lazily (``simlab.sweep``, ``simlab.report``, ``simlab.load``,
``simlab.odds``, ``simlab.games``, ``simlab.data_show``, ``simlab.data_check``, and the balance
analyses ``simlab.tune``, ``simlab.compare``, ``simlab.meta``, ``simlab.solve``, ``simlab.plot``;
``with simlab.using_policies("DIR/policies.toml"):`` is ``--policies-file``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import DataPackError, SpecError
from .games import game_names, get_game
from .tomlio import read_toml

if TYPE_CHECKING:  # pragma: no cover
    from .sweeps.runner import SweepResult
    from .sweeps.spec import SweepSpec

__all__ = ["compare", "data_check", "data_show", "list_games", "load", "meta", "odds", "plot", "report",  # noqa: F822
           "solve", "sweep", "tune", "using_policies"]  # compare, meta, plot, tune: loaded by __getattr__ below


def __getattr__(name: str):
    # the analyses and plots import scipy.optimize and matplotlib, the results pandas and
    # scipy.stats: load them when first asked for, so that `simlab sweep` starts without the
    # analyses and `simlab games` or `simlab data show` without any of them (nor numba)
    if name in ("load", "report"):
        from . import results
        return getattr(results, name)
    if name in ("compare", "meta", "tune"):
        from . import analysis
        return getattr(analysis, name)
    if name == "plot":
        from .plots import plot
        return plot
    if name == "solve":  # imports cma and scipy.optimize
        from .solve import solve
        return solve
    if name == "using_policies":
        from .games.policy import using_policies
        return using_policies
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sweep(experiment: str | Path | SweepSpec | None = None, *, game: str | None = None,
          scenario: str | None = None, policy: Sequence[str] = (), set_: Sequence[str] = (),
          grid: Sequence[str] = (), games: int | None = None, seed: int | None = None,
          workers: int | None = None, chunk_size: int | None = None, out: str | Path | None = None,
          resume: bool = False, overwrite: bool = False, data: str | Path | None = None, crn: bool = False,
          name: str | None = None, progress: bool = True, precision: float | None = None,
          max_games: int | None = None, backend: str | None = None, scheduler: Any = None,
          dask_timeout: float | None = None, extend: bool = False) -> SweepResult:
    """Run a sweep from an experiment file, a :class:`SweepSpec`, or ad hoc arguments.

    Args:
        experiment: a TOML file or a SweepSpec; with a file, ``games``, ``seed``, ``chunk_size``,
            ``data`` and ``crn`` given here replace the file's values. A sweep directory instead
            (or ``out`` with no experiment and no ``game``) with ``resume`` or ``extend``: the
            spec is the one in its manifest.
        game, scenario, policy, set_, grid: the ad hoc form (see ``simlab sweep --help``); not
            allowed together with ``experiment``. ``set_``/``grid`` items may name data-pack values,
            ``data.<table>.<key>.<field>=V`` (``*F`` scales, ``+N`` shifts, ``*`` in the key or field
            addresses a group: :mod:`simlab.data_axes`).
        games: games per cell (ad hoc default 1,000); seed: master seed (default 0).
        workers: worker threads (or processes with ``backend="processes"``; default all cores; 1 = in this process).
        chunk_size: games per chunk; out: output directory (a path or an fsspec URL); resume,
            overwrite: see :func:`simlab.sweeps.runner.run_sweep`.
        progress: show a progress bar on stderr.
        precision: keep playing each cell until the larger Wilson half-width (95%) of its sides'
            win rates is at most this; ``games`` is then the minimum per cell.
        max_games: the ceiling of games per cell under ``precision`` (default 1,000,000).
        backend: ``"local"`` (default: threads in this process), ``"processes"`` (spawned worker
            processes, for fault isolation) or ``"dask"``; scheduler: a dask scheduler address or a
            ``distributed.Client`` (default with dask: a LocalCluster on 127.0.0.1). See
            docs/cluster.md. dask_timeout: seconds a dask cluster may have no worker while chunks
            wait before the sweep stops with SweepStopped (default 60).
        extend: grow the complete sweep in ``out``: ``games`` is the new total per cell, and
            ``grid`` items ``K=V1,V2`` append values to its axes; only the new games are played and
            the result equals a sweep played at that size from the start
            (:mod:`simlab.sweeps.extend`).

    Returns:
        A :class:`SweepResult` (``.path``, ``.manifest``, ``.failures``, ...);
        ``simlab.load(result.path)`` gives the rows.

    Raises:
        SpecError, ScenarioError, DataPackError, SweepStateError: bad input; nothing is written.
        SweepStopped: the dask cluster lost every worker (complete chunks kept; ``resume``).
    """
    from .sweeps.runner import run_sweep
    from .sweeps.spec import SweepSpec, load_spec, spec_from_args
    _check_argument_types(games=games, seed=seed, workers=workers, chunk_size=chunk_size, max_games=max_games,
                          precision=precision, resume=resume, overwrite=overwrite, crn=crn, progress=progress,
                          extend=extend, policy=policy, set_=set_, grid=grid, game=game, scenario=scenario, name=name)
    if dask_timeout is not None and not (isinstance(dask_timeout, (int, float)) and 0 < dask_timeout <= 86400):
        raise SpecError(f"--dask-timeout must be a number of seconds in (0, 86400] (got {dask_timeout})")
    if dask_timeout is not None and (backend or ("dask" if scheduler is not None else "local")) != "dask":
        raise SpecError("--dask-timeout only applies with --backend dask")
    if (resume or extend) and experiment is not None and not isinstance(experiment, SweepSpec) \
            and Path(experiment).is_dir():  # `simlab sweep DIR --resume/--extend`: the sweep in DIR
        if out is not None and Path(out).resolve() != Path(experiment).resolve():
            raise SpecError(f"{experiment} is a directory and --out is {out}: give the sweep directory once")
        experiment, out = None, experiment
    if isinstance(experiment, SweepSpec):
        spec = experiment
    elif experiment is None and game is None and (resume or extend) and out is not None:
        spec = _spec_of_sweep(out, extend, scenario=scenario, policy=policy, set_=set_, grid=grid, games=games,
                              seed=seed, data=data, crn=crn, name=name, precision=precision, max_games=max_games)
        if chunk_size is not None:  # run_sweep refuses one that differs from the sweep's
            import dataclasses
            spec = dataclasses.replace(spec, chunk_size=chunk_size)
    elif experiment is not None:
        if game or scenario or policy or set_ or grid or name:
            raise SpecError("give either an experiment file or --game/--scenario/--policy/--set/--grid, not both")
        over: dict[str, Any] = {"games": games, "seed": seed, "chunk_size": chunk_size,
                                "data": str(Path(data).resolve()) if data else None, "crn": True if crn else None,
                                "precision": precision, "max_games": max_games}
        spec = load_spec(experiment, over)
    else:
        if game is None:
            raise SpecError("give an experiment file or --game")
        spec = spec_from_args(game, scenario=scenario, policy=policy, set_=set_, grid=grid,
                              games=1000 if games is None else games, seed=0 if seed is None else seed,
                              chunk_size=chunk_size, crn=crn, data=str(data) if data else None, name=name,
                              precision=precision, max_games=max_games)
    return run_sweep(spec, out, workers=workers, resume=resume, overwrite=overwrite, progress=progress,
                     backend=backend, scheduler=scheduler, dask_timeout=dask_timeout, extend=extend)


_INTS = ("games", "seed", "workers", "chunk_size", "max_games")
_BOOLS = ("resume", "overwrite", "crn", "progress", "extend")
_LISTS = ("policy", "set_", "grid")
_STRS = ("game", "scenario", "name")


def _check_argument_types(**given) -> None:
    """Refuse a Python argument of the wrong type before it is coerced (``games=True`` would play
    one game, ``games="10"`` fail deep inside, ``policy="us=hunter"`` be read letter by letter).

    Raises:
        SpecError: naming the argument, the type wanted and the value given.
    """
    import numbers
    for k, v in given.items():
        if v is None:
            continue
        if k in _INTS:
            ok = isinstance(v, numbers.Integral) and not isinstance(v, bool)
            want = "an int"
        elif k == "precision":
            ok = isinstance(v, numbers.Real) and not isinstance(v, bool)
            want = "a number"
        elif k in _BOOLS:
            ok = isinstance(v, bool)
            want = "True or False"
        elif k in _LISTS:
            ok = not isinstance(v, (str, bytes)) and isinstance(v, Sequence) and all(isinstance(x, str) for x in v)
            want = "a list of 'KEY=VALUE' strings"
        else:
            ok = isinstance(v, str)
            want = "a str"
        if not ok:
            raise SpecError(f"sweep(): {k} must be {want}, got {v!r} ({type(v).__name__})")


def _spec_of_sweep(out, extend: bool, *, games, grid, seed, **fixed) -> Any:
    """The spec of the sweep in ``out`` (``--resume``/``--extend`` without an experiment file), with an
    extension's ``games`` and ``grid``.

    Raises:
        SweepStateError: ``out`` holds no sweep.
        SpecError: an argument that would change what the sweep plays (only ``--games`` and
            ``--grid`` may, and only with ``--extend``).
    """
    from .errors import SweepStateError
    from .sweeps.extend import spec_from_manifest, spec_to_extend
    from .sweeps.manifest import load_manifest
    verb = "extend" if extend else "resume"
    try:
        man = load_manifest(out)
    except SweepStateError as e:
        raise SweepStateError(f"nothing to {verb}: {e}") from None
    if seed is not None and seed != man.get("master_seed"):
        raise SpecError(f"cannot {verb} {out} with --seed {seed}: its seed is {man.get('master_seed')} "
                        "(a different seed is a new sweep)")
    given = [f"--{k.rstrip('_').replace('_', '-')}" for k, v in fixed.items() if v]
    if not extend and (games is not None or grid):
        given += ["--games"] * (games is not None) + ["--grid"] * bool(grid)
    if given:
        allowed = "only --games (the new total per cell) and --grid (values to add) may be given" if extend \
            else "--resume finishes it as it was (--extend grows it)"
        raise SpecError(f"cannot {verb} {out} with {', '.join(given)}: the spec is the one in its manifest; {allowed}")
    return spec_to_extend(man, str(out), games, grid) if extend else spec_from_manifest(man, str(out))


def list_games() -> list[dict]:
    """Every registered game's sides, scenarios, policies and options (``simlab games --json``).

    Each preset's ``exploitability`` is its own recorded figures or ``"unmeasured"``; the shipped
    populations' figures, checked against a default sweep's conditions, are
    :func:`simlab.results.preset_figures` (not called here: it expands sweeps, which loads the game
    kernels, and describing a game loads none).
    """
    return [get_game(n).describe() for n in game_names()]


def odds(game: str, *args, **kwargs) -> dict:
    """Odds of one combat of a game: dispatches to the game's ``odds`` function.

    ``simlab.odds("doe-battle", "battle.toml", rounds=None, method="auto")`` — see each game's
    ``odds`` for its arguments and the JSON shape it returns.

    Raises:
        SpecError: if the game has no odds function; the game's own errors otherwise.
    """
    from .games import Game
    g = get_game(game)
    if type(g).odds is Game.odds:
        raise SpecError(f"game {game} has no odds calculator")
    g.ensure_kernels_fresh()
    return g.odds(*args, **kwargs)


def _game_for_pack(name: str):
    try:
        return get_game(name)
    except SpecError:
        for n in game_names():
            g = get_game(n)
            sch = g.data_schema()
            if sch is not None and sch.game == name:
                return g
        raise


def data_show(game: str, data: str | Path | None = None) -> dict:
    """A game's data pack as ``{game, name, version, hash, counts, overrides, records, ranges}``.

    ``records`` is the flat list ``{table, key, field, value, provenance, note}``; ``ranges`` the
    plausible range of each value that has one, ``{table, key, field, lo, hi, note, source}``
    (:mod:`simlab.datapack`, "Plausible ranges").

    Raises:
        SpecError: unknown game or a game without a pack; DataPackError: a bad override.
    """
    g = _game_for_pack(game)
    if data is not None and not Path(data).is_file():
        raise DataPackError(f"data pack override not found: {data}")
    pack = g.load_data(data)
    if pack is None:
        raise SpecError(f"game {game} has no data pack")
    ranges = [{"table": t, "key": k, "field": f, "lo": r.lo, "hi": r.hi, "note": r.note, "source": r.source}
              for (t, k, f), r in pack.ranges.items()]
    return {**pack.summary(), "records": pack.records(), "ranges": ranges}


def _pack_of(what: str | Path) -> tuple[str, object]:
    """``(game, DataPack)`` of a game name (its base pack) or an override pack file (applied to its
    game's base pack)."""
    p = Path(what)
    if p.is_file():
        head = read_toml(p, DataPackError, "data pack file").get("pack", {})
        game = head.get("game") if isinstance(head, dict) else None
        if not isinstance(game, str):
            raise DataPackError(f"{p.name}: an override pack needs [pack] game = \"...\"")
        g = _game_for_pack(game)
        return game, g.load_data(p)
    g = _game_for_pack(str(what))
    pack = g.load_data()
    if pack is None:
        raise SpecError(f"game {what} has no data pack")
    return str(what), pack


def data_diff(a: str | Path, b: str | Path) -> dict:
    """The values two data packs disagree on.

    Args:
        a, b: each a game name (its built-in pack) or an override pack file (applied to the base
            pack of the game its ``[pack]`` header names).

    Returns:
        ``{a: {name, version, hash}, b: {...}, differences: [{table, key, field, a, b,
        a_provenance, b_provenance}]}``, sorted by table, key and field; a value missing from one
        pack is ``None`` there. A difference in provenance alone counts.

    Raises:
        SpecError: an unknown game; DataPackError: a malformed pack, or packs of different games.
    """
    (_, pa_), (_, pb) = _pack_of(a), _pack_of(b)
    if pa_.game != pb.game:
        raise DataPackError(f"{a} and {b} are packs of different games ({pa_.game}, {pb.game})")
    ra = {(r["table"], r["key"], r["field"]): r for r in pa_.records()}
    rb = {(r["table"], r["key"], r["field"]): r for r in pb.records()}
    diffs = []
    for k in sorted(set(ra) | set(rb), key=lambda t: (t[0], t[1], t[2])):
        x, y = ra.get(k), rb.get(k)
        if x is not None and y is not None and x["value"] == y["value"] and x["provenance"] == y["provenance"]:
            continue
        diffs.append({"table": k[0], "key": k[1], "field": k[2],
                      "a": None if x is None else x["value"], "b": None if y is None else y["value"],
                      "a_provenance": None if x is None else x["provenance"],
                      "b_provenance": None if y is None else y["provenance"]})
    return {"a": {"name": pa_.name, "version": pa_.version, "hash": pa_.hash},
            "b": {"name": pb.name, "version": pb.version, "hash": pb.hash}, "differences": diffs}


def data_check(path: str | Path, game: str | None = None) -> dict:
    """Validate an override pack against its game's pack and list what it changes.

    Returns:
        ``{game, base: {name, version, hash}, hash, changes: [{table, key, field, old, new,
        old_provenance}], counts}``.

    Raises:
        DataPackError: a missing or malformed file, or values the game's schema rejects.
    """
    from .datapack import apply_override
    p = Path(path)
    if game is None:
        head = read_toml(p, DataPackError, "data pack file").get("pack", {})
        game = head.get("game") if isinstance(head, dict) else None
        if not isinstance(game, str):
            raise DataPackError(f"{p.name}: an override pack needs [pack] game = \"...\"")
    g = _game_for_pack(game)
    base = g.load_data()
    if base is None:
        raise SpecError(f"game {game} has no data pack")
    pack, changes = apply_override(base, p, g.data_schema())
    return {"game": pack.game, "base": {"name": base.name, "version": base.version, "hash": base.hash},
            "hash": pack.hash, "changes": changes, "counts": pack.counts()}
