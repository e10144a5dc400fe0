"""``simlab sensitivity``: which game values decide an answer (Morris elementary effects, Sobol indices).

Every balance answer rests on the data pack, and most of a pack is provisional (DATA-NOTES). A
designer who owns the game needs to know which of those values to look up first. Here each *factor*
is one data-pack value, or a group of them moved together. By default each value moves over its
*plausible range*, declared in the pack with its reasoning (:mod:`simlab.datapack`, "Plausible
ranges"; every provisional value has one): the design's coordinate ``u`` in ``[0, 1]`` sets each
member to ``lo + u (hi - lo)``, so a group's members move together, each across its own range. A
value without a range (a printed value named with ``--values``) is scaled by ``0.5 + u``
(±50%) and the output names it. ``--range LO:HI`` replaces the pack's ranges: every value is then
scaled by a multiplier in ``[LO, HI]``. SALib (Herman & Usher 2017) designs the points: Morris's
one-at-a-time trajectories (Morris 1991, with Campolongo et al. 2007's μ*) by default, Saltelli's design for Sobol indices on request.
Each design point is an ordinary override pack (``DIR/points/NNNN.toml``) played as an ordinary sweep
(``DIR/points/NNNN/``, readable with ``simlab report`` and ``simlab.load``) on the same seed, so every
point rolls the same dice (common random numbers) and an effect is the effect of the value, not of
the dice. Every point's pack passes the game's own checks before anything plays.

Factors:

* ``--values PATTERN`` (repeatable): ``table.key.field`` with ``*`` wildcards in any part
  (``ports.*.defense``); each numeric value it matches is one factor (``--group``: each pattern is
  one factor, its values scaled together).
* no ``--values``: every provisional numeric value, grouped by table and field (``units.*.attack``
  is one factor).

An integer value is rounded (halves away from zero); under a multiplier a value of at least 1 stays
at least 1 (a defense of 0 breaks Rule 3.4.1's assumptions; the packs refuse it).

Policies: by default every point plays the same fixed policies (``--policy``, else the game's
defaults), so an effect says how the answer moves *if nobody changes how they play*. With
``--respond`` each design point is first *answered*: the sides re-respond to the changed values by a
short ``simlab solve`` on that point's pack (:func:`simlab.solve.loop.solve`: a meta-game over the
presets, a CMA-ES best-response search over each side's knobs, confirmation, a second meta-game with
what was found; a small budget, :data:`RESPOND`), written to ``DIR/points/NNNN-respond/``, and the
point's sweep then plays each side's final mix (``SIDE=@mix:DIR/points/NNNN-respond``) on the same
seed with ``--crn`` (a cell's seed key holds its policies' names, and each point's mix is named by its
own folder). The effect is then how the answer moves *when players adapt*; every such figure is marked
``responded`` (the summary's ``policies``, each factor's ``responded``, the table's title). Each
point's solve has the same seed, so the points still share their dice; a short search finds a
response, not the best one (each point's exploitability, a lower bound, is in ``respond.points``).
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..analysis.common import clear_out, prepare_out, write_json
from ..errors import SpecError
from ..games import get_game

__all__ = ["RESPOND", "SENSITIVITY_SUMMARY", "Factor", "member_value", "select_factors", "sensitivity", "with_ranges"]

SENSITIVITY_SUMMARY = "sensitivity.json"
METHODS = ("morris", "sobol")
#: the most design points a sensitivity plays (each is a sweep)
MAX_POINTS = 5000
#: ``--respond``'s solve per design point (arguments of :func:`simlab.solve.loop.solve`): a short search,
#: sized so that the issue's Dawn of Empire case (9 port defenses, 10 trajectories: 100 points) fits in
#: 30 minutes on 2 cores (BENCHMARKS.md)
RESPOND = {"budget": 30_000, "meta_games": 100, "search_games": 50, "confirm_games": 200, "generations": 2,
           "iterations": 2, "epsilon": 0.01}


@dataclass(frozen=True)
class Factor:
    """One input of the design: data-pack values scaled together.

    Attributes:
        name: ``table.key.field`` (one value) or the pattern (a group).
        members: the ``(table, key, field)`` of each value it scales.
        base: each member's value in the pack.
        provisional: how many members are tagged provisional.
        ranges: each member's plausible ``(lo, hi)`` from the pack, or None (none declared, or
            ``--range`` given); set by :func:`with_ranges`.
    """

    name: str
    members: tuple[tuple[str, str, str], ...]
    base: tuple[float, ...]
    provisional: int
    ranges: tuple[tuple[float, float] | None, ...] = ()


def _numeric(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _split(pattern: str) -> tuple[str, str, str]:
    """``table.key.field``: the table before the first dot, the field after the last (keys may hold dots)."""
    parts = pattern.split(".")
    if len(parts) < 3 or not all(parts):
        raise SpecError(f"--values {pattern!r}: expected TABLE.KEY.FIELD (wildcards * allowed), e.g. ports.*.defense")
    return parts[0], ".".join(parts[1:-1]), parts[-1]


def select_factors(records: Sequence[dict], patterns: Sequence[str] = (), group: bool = False) -> list[Factor]:
    """The factors of a design from a pack's records (:meth:`simlab.datapack.DataPack.records`).

    Args:
        records: ``{table, key, field, value, provenance}`` per value.
        patterns: ``table.key.field`` patterns with ``*``; empty: every provisional numeric value,
            grouped by table and field.
        group: each pattern is one factor (its values scaled together) rather than one per value.

    Returns:
        the factors, in pattern order (values in the pack's order within a pattern).

    Raises:
        SpecError: a malformed pattern, a pattern that matches no numeric value, or a value matched
            by two patterns.
    """
    out: list[Factor] = []
    if not patterns:
        groups: dict[tuple[str, str], list[dict]] = {}
        for r in records:
            if r["provenance"] == "provisional" and _numeric(r["value"]):
                groups.setdefault((r["table"], r["field"]), []).append(r)
        for (t, f), rs in groups.items():
            out.append(Factor(f"{t}.*.{f}", tuple((r["table"], r["key"], r["field"]) for r in rs),
                              tuple(float(r["value"]) for r in rs), len(rs)))
        if not out:
            raise SpecError("the pack has no provisional numeric value: name the values with --values")
        return out
    seen: dict[tuple[str, str, str], str] = {}
    for pat in patterns:
        pt, pk, pf = _split(pat)
        hit = [r for r in records if fnmatch.fnmatchcase(r["table"], pt) and fnmatch.fnmatchcase(r["key"], pk)
               and fnmatch.fnmatchcase(r["field"], pf) and _numeric(r["value"])]
        if not hit:
            raise SpecError(f"--values {pat!r}: matches no numeric value of the pack (`simlab data show GAME` lists them)")
        for r in hit:
            m = (r["table"], r["key"], r["field"])
            if m in seen:
                raise SpecError(f"--values {pat!r}: {'.'.join(m)} is also matched by {seen[m]!r}")
            seen[m] = pat
        prov = [r["provenance"] == "provisional" for r in hit]
        if group:
            out.append(Factor(pat, tuple((r["table"], r["key"], r["field"]) for r in hit),
                              tuple(float(r["value"]) for r in hit), sum(prov)))
        else:
            out += [Factor(f"{r['table']}.{r['key']}.{r['field']}", ((r["table"], r["key"], r["field"]),),
                           (float(r["value"]),), int(p)) for r, p in zip(hit, prov, strict=True)]
    return out


def with_ranges(factors: Sequence[Factor], ranges: dict) -> list[Factor]:
    """The factors with each member's plausible range from ``ranges``
    (:attr:`simlab.datapack.DataPack.ranges`; a member without one gets None)."""
    from dataclasses import replace
    return [replace(f, ranges=tuple((ranges[m].lo, ranges[m].hi) if m in ranges else None for m in f.members))
            for f in factors]


def _round_half_away(x: float) -> int:
    """Halves away from zero; a design grid's 3 x 7/6 (3.4999999999999996 in floating point) is a half."""
    return int(math.floor(abs(x) + 0.5 + 1e-9)) * (1 if x >= 0 else -1)


def _scaled(base: float, s: float, integer: bool) -> float | int:
    v = base * s
    if integer:
        iv = _round_half_away(v)
        return max(iv, 1) if base >= 1 else iv
    return float(v)


def member_value(f: Factor, j: int, x: float, multipliers: tuple[float, float] | None, integer: bool) -> float | int:
    """Member ``j`` of factor ``f`` at design value ``x``.

    Args:
        x: a multiplier in ``multipliers`` when given (``--range``); else the coordinate ``u`` in
            ``[0, 1]`` of the member's plausible range (``lo + u (hi - lo)``), or of ``0.5 + u``
            times its value when it has none.
        integer: the pack's value is an integer (the result is rounded, halves away from zero).
    """
    if multipliers is not None:
        return _scaled(f.base[j], x, integer)
    r = f.ranges[j] if f.ranges else None
    if r is None:
        return _scaled(f.base[j], 0.5 + x, integer)
    v = r[0] + x * (r[1] - r[0])
    return min(max(_round_half_away(v), int(r[0])), int(r[1])) if integer else float(v)


def _toml_key(k: str) -> str:
    return json.dumps(k)  # a JSON string is a TOML basic string


def _point_pack(game: str, factors: Sequence[Factor], scales: np.ndarray, ints: dict,
                multipliers: tuple[float, float] | None) -> str:
    """The override pack of one design point (TOML text)."""
    rows: dict[tuple[str, str], dict[str, float | int]] = {}
    for f, s in zip(factors, scales, strict=True):
        for j, m in enumerate(f.members):
            rows.setdefault((m[0], m[1]), {})[m[2]] = member_value(f, j, float(s), multipliers, ints[m])
    lines = ["[pack]", f"game = {json.dumps(game)}", ""]
    for (t, k), fields in rows.items():
        lines.append(f"[{_toml_key(t)}.{_toml_key(k)}]")
        lines += [f"{_toml_key(fn)} = {v!r}" for fn, v in fields.items()]
        lines.append("")
    return "\n".join(lines)


def _response(path: Path, output: str, side: str, sides: Sequence[str]) -> float:
    """The output of one point's sweep: ``win-rate`` (of ``side``), ``score`` (its mean score), or the
    mean of a numeric games-table column."""
    from ..results import load
    if output == "win-rate":
        w = load(path, columns=["winner"])["winner"]
        return float((w.astype(str) == side).mean())
    col = f"score_{side}" if output == "score" else output
    df = load(path, columns=[col])
    return float(df[col].astype(float).mean())


def sensitivity(game: str, *, values: Sequence[str] = (), group: bool = False, range_: str | None = None,
                method: str = "morris", trajectories: int = 10, levels: int = 4, games: int = 400,
                output: str = "win-rate", side: str | None = None, scenario: str | None = None,
                policy: Sequence[str] = (), set_: Sequence[str] = (), seed: int = 0,
                out: str | Path | None = None, overwrite: bool = False, workers: int | None = None,
                progress: bool = True, replicates: int = 1000, respond: bool = False,
                respond_settings: dict | None = None,
                log: Callable[[str], None] | None = None) -> dict:
    """Rank the data-pack values by how much they move an output (see the module docstring).

    Args:
        game: a registered game with a data pack.
        values, group: the factors (:func:`select_factors`).
        range_: None (default): each value over its plausible range from the pack (±50% for a
            value without one); ``LO:HI``: every value scaled by a multiplier in this range.
        method: ``morris`` (elementary effects: μ*, σ) or ``sobol`` (first-order and total indices).
        trajectories: Morris trajectories (r), or Sobol's base sample N (a power of 2 is best);
            levels: Morris grid levels.
        games: games per design point (the same seeds at every point).
        output: ``win-rate`` (of ``side``, default the first side), ``score`` (its mean final score)
            or a numeric games-table column (its mean).
        scenario, policy, set_: as for ``simlab sweep`` (one scenario, one policy per side).
        seed: the seed of every point's sweep and of the design.
        out: the directory (default ``results/sensitivity-<game>-<time>``); overwrite: replace one.
        workers, progress: as for ``simlab sweep``; replicates: bootstrap resamples of the intervals.
        respond: answer each design point with a short solve and play its final mixes (module
            docstring); ``policy`` must then be empty. respond_settings: arguments of
            :func:`simlab.solve.loop.solve` that replace :data:`RESPOND`'s (``budget``,
            ``meta_games``, ``search_games``, ``confirm_games``, ``generations``, ``popsize``,
            ``iterations``, ``epsilon``).
        log: receives one-line notes.

    Returns:
        The summary written to ``DIR/sensitivity.json``: ``{game, scenario, sides, method, output,
        side, range, range_note, games_per_point, seed, points, factors: [{name, members, base,
        provisional, mu_star, mu_star_ci, sigma, mu} (morris) | {name, ..., S1, S1_ci, ST, ST_ci}
        (sobol)] ranked by mu_star (or ST), responses, policies ("fixed" or "responded"),
        games_played, seconds}`` (with ``respond: {settings, points: [{value, value_ci,
        exploitability, stop, games_played}]}`` when responded), plus ``path``. ``mu_star`` is in
        the output's units per unit of the scaled range (Morris's normalised grid).

    Raises:
        SpecError: a bad pattern, range, method, output or side; too many points; ``--respond``
            with ``--policy``, bad respond settings, or a point whose solve ends before its first
            iteration (raise the budget); DataPackError: a point whose values the game's checks
            refuse (named; nothing played).
        SweepStateError: ``out`` is not usable.
    """
    from SALib.analyze import morris as morris_analyze
    from SALib.analyze import sobol as sobol_analyze
    from SALib.sample import morris as morris_sample
    from SALib.sample import sobol as sobol_sample

    from ..sweeps.runner import run_sweep
    from ..sweeps.spec import spec_from_args
    say = log or (lambda m: None)
    g = get_game(game)
    if method not in METHODS:
        raise SpecError(f"--method {method!r}: choose one of {', '.join(METHODS)}")
    multipliers = None
    if range_ is not None:
        try:
            lo, hi = (float(x) for x in range_.split(":"))
        except ValueError:
            raise SpecError(f"--range {range_!r}: expected LO:HI multipliers, e.g. 0.5:1.5") from None
        if not (0 <= lo < hi) or not math.isfinite(hi):
            raise SpecError(f"--range {range_!r}: need 0 <= LO < HI")
        multipliers = (lo, hi)
    else:
        lo, hi = 0.0, 1.0
    if trajectories < 2:
        raise SpecError(f"--trajectories must be at least 2 (got {trajectories})")
    if games < 10:
        raise SpecError(f"--games must be at least 10 (got {games})")
    if levels < 2 or levels % 2:
        raise SpecError(f"--levels must be an even number of at least 2 (got {levels})")
    pack = g.load_data()
    if pack is None:
        raise SpecError(f"game {game} has no data pack")
    records = pack.records()
    factors = select_factors(records, values, group)
    if multipliers is None:
        factors = with_ranges(factors, pack.ranges)
    unranged = [".".join(m) for f in factors for m, r in zip(f.members, f.ranges, strict=True) if r is None] \
        if multipliers is None else []
    ints = {(r["table"], r["key"], r["field"]): isinstance(r["value"], int) for r in records}
    sc = g.load_scenario(scenario)
    sides = list(sc.sides)
    side = side or sides[0]
    if side not in sides:
        raise SpecError(f"--side {side!r}: not a side of {game} ({', '.join(sides)})")
    if output not in ("win-rate", "score") and not _numeric_column(g, output, sides):
        raise SpecError(f"--output {output!r}: win-rate, score, or a numeric games-table column "
                        f"(`simlab schema {game}`)")
    problem = {"num_vars": len(factors), "names": [f.name for f in factors], "bounds": [[lo, hi]] * len(factors)}
    if method == "morris":
        X = morris_sample.sample(problem, N=trajectories, num_levels=levels, seed=seed)
    else:
        X = sobol_sample.sample(problem, N=trajectories, calc_second_order=False, seed=seed)
    if len(X) > MAX_POINTS:
        raise SpecError(f"{len(X):,} design points (limit {MAX_POINTS:,}): fewer factors (--group) or trajectories")
    rs = _respond_settings(respond, respond_settings, policy)
    parent = prepare_out(out, "sensitivity", game, SENSITIVITY_SUMMARY, overwrite)
    # every point's pack is checked by the game before anything plays
    import tempfile
    texts = [_point_pack(g.data_schema().game, factors, x, ints, multipliers) for x in X]
    with tempfile.TemporaryDirectory() as tmp:
        for i, t in enumerate(texts):
            p = Path(tmp) / f"{i:04d}.toml"
            p.write_text(t)
            try:
                g.load_data(p)
            except Exception as e:
                at = "x" if multipliers else "at u="
                raise type(e)(f"design point {i} ({', '.join(f'{f.name} {at}{s:g}' for f, s in zip(factors, X[i], strict=True))}): {e}") from None
        if rs is not None:  # the solve's own checks (budget against the first meta-game, settings) on point 0
            from .loop import _Solver
            p0 = Path(tmp) / "0000.toml"
            _Solver(game, scenario, set_, p0, rs["budget"], rs["epsilon"], seed, Path(tmp) / "respond-check", False,
                    workers, False, rs["meta_games"], rs["search_games"], rs["confirm_games"], rs["generations"],
                    rs.get("popsize"), rs["iterations"], 200)
    if overwrite and parent.exists():
        clear_out(parent, SENSITIVITY_SUMMARY)
    (parent / "points").mkdir(parents=True, exist_ok=True)
    write_json(parent / SENSITIVITY_SUMMARY, {"game": game, "status": "running"})
    Y = np.empty(len(X))
    say(f"sensitivity: {len(factors)} factor(s), {len(X):,} design points x {games:,} games ({method}"
        f"{', each point responded' if rs else ''})")
    import time
    t0 = time.perf_counter()
    played = 0
    answered = []
    for i, t in enumerate(texts):
        pf = parent / "points" / f"{i:04d}.toml"
        pf.write_text(t)
        pols = list(policy)
        if rs is not None:
            rec = _respond(game, scenario, set_, pf, seed, parent / "points" / f"{i:04d}-respond", workers, rs, i)
            answered.append(rec)
            played += rec["games_played"]
            pols = [f"{s}=@mix:{parent / 'points' / f'{i:04d}-respond'}" for s in sides]
        # a point's @mix names its own folder, and a cell's seed key holds its policies' names: --crn
        # keeps every responded point on the same dice (key 0); fixed policies give every point one key
        spec = spec_from_args(game, scenario=scenario, policy=pols, set_=list(set_), games=games, seed=seed,
                              data=str(pf), name=f"sensitivity-{i:04d}", crn=rs is not None)
        run_sweep(spec, parent / "points" / f"{i:04d}", workers=workers, progress=False)
        played += games
        Y[i] = _response(parent / "points" / f"{i:04d}", output, side, sides)
        if progress and (i + 1) % max(1, len(X) // 10) == 0:
            say(f"  point {i + 1:,}/{len(X):,} ({time.perf_counter() - t0:,.0f} s)")
    rows = []
    if method == "morris":
        si = morris_analyze.analyze(problem, X, Y, conf_level=0.95, num_resamples=replicates, num_levels=levels,
                                    seed=seed)
        for j, f in enumerate(factors):
            ms, conf = float(si["mu_star"][j]), float(si["mu_star_conf"][j])
            rows.append({**_factor_json(f), "mu_star": ms, "mu_star_ci": [max(0.0, ms - conf), ms + conf],
                         "sigma": float(si["sigma"][j]), "mu": float(si["mu"][j]), "responded": rs is not None})
        rows.sort(key=lambda r: -r["mu_star"])
    else:
        si = sobol_analyze.analyze(problem, Y, calc_second_order=False, conf_level=0.95, num_resamples=replicates,
                                   seed=seed)
        for j, f in enumerate(factors):
            s1, st = float(si["S1"][j]), float(si["ST"][j])
            rows.append({**_factor_json(f), "S1": s1, "S1_ci": [s1 - float(si["S1_conf"][j]), s1 + float(si["S1_conf"][j])],
                         "ST": st, "ST_ci": [st - float(si["ST_conf"][j]), st + float(si["ST_conf"][j])],
                         "responded": rs is not None})
        rows.sort(key=lambda r: -r["ST"])
    summary = {"game": game, "scenario": sc.name, "sides": sides, "method": method, "output": output, "side": side,
               "range": [lo, hi] if multipliers else "pack",
               "range_note": ("each factor's values scaled by a multiplier in this range (--range)" if multipliers else
                              "each value over its plausible range from the pack (factors[].ranges)"
                              + (f"; {len(unranged)} value(s) without one scaled by 0.5-1.5: {', '.join(unranged[:5])}"
                                 + (" ..." if len(unranged) > 5 else "") if unranged else "")),
               "games_per_point": games, "seed": seed, "points": len(X), "factors": rows,
               "responses": [float(y) for y in Y],
               "policies": "responded" if rs is not None else "fixed",
               "policies_meaning": ("each point's sides re-solved on its pack (a short simlab solve) and its final mixes "
                                    "played: the effects hold when players adapt" if rs is not None else
                                    "every point plays the same policies: the effects hold if nobody adapts"),
               "games_played": played, "seconds": round(time.perf_counter() - t0, 1),
               "meaning": ("mu_star: mean absolute elementary effect (Campolongo et al. 2007), in the output's units "
                           "per unit of the normalised range; sigma: their spread (interactions, non-linearity)"
                           if method == "morris" else "S1: first-order Sobol index; ST: total index")}
    if rs is not None:
        summary["respond"] = {"settings": rs, "points": answered}
    write_json(parent / SENSITIVITY_SUMMARY, summary)
    return {**summary, "path": str(parent)}


def _respond_settings(respond: bool, settings: dict | None, policy: Sequence[str]) -> dict | None:
    """The solve settings of ``--respond`` (:data:`RESPOND` with ``settings`` over it), or None.

    Raises:
        SpecError: settings without ``respond``, an unknown setting, or ``respond`` with ``--policy``.
    """
    if not respond:
        if settings:
            raise SpecError(f"--respond-{next(iter(settings)).replace('_', '-')} is a setting of --respond: add --respond")
        return None
    if policy:
        raise SpecError("--respond plays each point's solved mixes: drop --policy (the solve starts from every preset)")
    out = dict(RESPOND)
    for k, v in (settings or {}).items():
        if k not in RESPOND and k != "popsize":
            raise SpecError(f"unknown --respond setting {k!r} (settings: {', '.join([*RESPOND, 'popsize'])})")
        if v is not None:
            out[k] = v
    return out


def _respond(game: str, scenario, set_, pack: Path, seed: int, out: Path, workers, rs: dict, i: int) -> dict:
    """Answer one design point: a short solve on its pack (``rs``: :func:`simlab.solve.loop.solve`'s
    arguments) in ``out``; returns ``{value, value_ci, exploitability, stop, games_played, mixes}``.

    Raises:
        SpecError: the solve ended before its first iteration was complete (no mix to play).
    """
    from .loop import solve
    res = solve(game, scenario=scenario, set_=list(set_), data=pack, seed=seed, out=out, workers=workers,
                progress=False, replicates=200, **{"method": "knobs", **rs})  # a short knob solve: no rollout
    fin = res.get("final")
    if fin is None:
        raise SpecError(f"design point {i}: its --respond solve spent its budget ({rs['budget']:,} games) before "
                        "finishing one iteration: raise --respond-budget or lower --respond-meta-games")
    return {"value": fin["value"], "value_ci": fin["value_ci"], "exploitability": fin["exploitability"]["estimate"],
            "stop": res["stop"]["reason"], "games_played": res["games_played"], "mixes": fin["mixes"]}


def _factor_json(f: Factor) -> dict:
    out = {"name": f.name, "members": [".".join(m) for m in f.members], "base": list(f.base),
           "provisional": f.provisional}
    if f.ranges:
        out["ranges"] = [list(r) if r is not None else None for r in f.ranges]
    return out


def _numeric_column(g, name: str, sides: Sequence[str]) -> bool:
    """Whether ``name`` is a games-table column the game declares with a numeric Arrow type."""
    from ..games.schema import game_columns, match
    c = match(game_columns(g), name, sides)
    return c is not None and any(t.startswith(("int", "uint", "float", "double")) for t in c.type)
