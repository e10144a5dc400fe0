"""``simlab sensitivity``: which game values decide an answer (Morris elementary effects, Sobol indices).

Every balance answer rests on the data pack, and most of a pack is provisional (DATA-NOTES). A
designer who owns the game needs to know which of those values to look up first. Here each *factor*
is one data-pack value, or a group of them moved together, scaled by a multiplier drawn from its range
(default ``0.5:1.5``, i.e. the value ±50%: the packs declare no plausible ranges yet, and the output
says so). SALib (Herman & Usher 2017) designs the points: Morris's one-at-a-time trajectories (Morris
1991, with Campolongo et al. 2007's μ*) by default, Saltelli's design for Sobol indices on request.
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

An integer value is rounded after scaling and a value of at least 1 stays at least 1 (a defense of 0
breaks Rule 3.4.1's assumptions; the packs refuse it).
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import SpecError
from ..games import get_game
from .common import clear_out, prepare_out, write_json

__all__ = ["SENSITIVITY_SUMMARY", "Factor", "sensitivity", "select_factors"]

SENSITIVITY_SUMMARY = "sensitivity.json"
METHODS = ("morris", "sobol")
#: the most design points a sensitivity plays (each is a sweep)
MAX_POINTS = 5000


@dataclass(frozen=True)
class Factor:
    """One input of the design: data-pack values scaled together.

    Attributes:
        name: ``table.key.field`` (one value) or the pattern (a group).
        members: the ``(table, key, field)`` of each value it scales.
        base: each member's value in the pack.
        provisional: how many members are tagged provisional.
    """

    name: str
    members: tuple[tuple[str, str, str], ...]
    base: tuple[float, ...]
    provisional: int


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


def _scaled(base: float, s: float, integer: bool) -> float | int:
    v = base * s
    if integer:
        iv = int(round(v))
        return max(iv, 1) if base >= 1 else iv
    return float(v)


def _toml_key(k: str) -> str:
    return json.dumps(k)  # a JSON string is a TOML basic string


def _point_pack(game: str, factors: Sequence[Factor], scales: np.ndarray, ints: dict) -> str:
    """The override pack of one design point (TOML text)."""
    rows: dict[tuple[str, str], dict[str, float | int]] = {}
    for f, s in zip(factors, scales, strict=True):
        for m, b in zip(f.members, f.base, strict=True):
            rows.setdefault((m[0], m[1]), {})[m[2]] = _scaled(b, float(s), ints[m])
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


def sensitivity(game: str, *, values: Sequence[str] = (), group: bool = False, range_: str = "0.5:1.5",
                method: str = "morris", trajectories: int = 10, levels: int = 4, games: int = 400,
                output: str = "win-rate", side: str | None = None, scenario: str | None = None,
                policy: Sequence[str] = (), set_: Sequence[str] = (), seed: int = 0,
                out: str | Path | None = None, overwrite: bool = False, workers: int | None = None,
                progress: bool = True, replicates: int = 1000,
                log: Callable[[str], None] | None = None) -> dict:
    """Rank the data-pack values by how much they move an output (see the module docstring).

    Args:
        game: a registered game with a data pack.
        values, group: the factors (:func:`select_factors`).
        range_: ``LO:HI``, the multipliers each factor's values are scaled by (default ±50%).
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
        log: receives one-line notes.

    Returns:
        The summary written to ``DIR/sensitivity.json``: ``{game, scenario, sides, method, output,
        side, range, range_note, games_per_point, seed, points, factors: [{name, members, base,
        provisional, mu_star, mu_star_ci, sigma, mu} (morris) | {name, ..., S1, S1_ci, ST, ST_ci}
        (sobol)] ranked by mu_star (or ST), responses}``, plus ``path``. ``mu_star`` is in the
        output's units per unit of the scaled range (Morris's normalised grid).

    Raises:
        SpecError: a bad pattern, range, method, output or side; too many points; DataPackError: a
            point whose values the game's checks refuse (named; nothing played).
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
    try:
        lo, hi = (float(x) for x in range_.split(":"))
    except ValueError:
        raise SpecError(f"--range {range_!r}: expected LO:HI multipliers, e.g. 0.5:1.5") from None
    if not (0 <= lo < hi) or not math.isfinite(hi):
        raise SpecError(f"--range {range_!r}: need 0 <= LO < HI")
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
    parent = prepare_out(out, "sensitivity", game, SENSITIVITY_SUMMARY, overwrite)
    # every point's pack is checked by the game before anything plays
    import tempfile
    texts = [_point_pack(g.data_schema().game, factors, x, ints) for x in X]
    with tempfile.TemporaryDirectory() as tmp:
        for i, t in enumerate(texts):
            p = Path(tmp) / f"{i:04d}.toml"
            p.write_text(t)
            try:
                g.load_data(p)
            except Exception as e:
                raise type(e)(f"design point {i} ({', '.join(f'{f.name} x{s:g}' for f, s in zip(factors, X[i], strict=True))}): {e}") from None
    if overwrite and parent.exists():
        clear_out(parent, SENSITIVITY_SUMMARY)
    (parent / "points").mkdir(parents=True, exist_ok=True)
    write_json(parent / SENSITIVITY_SUMMARY, {"game": game, "status": "running"})
    Y = np.empty(len(X))
    say(f"sensitivity: {len(factors)} factor(s), {len(X):,} design points x {games:,} games ({method})")
    for i, t in enumerate(texts):
        pf = parent / "points" / f"{i:04d}.toml"
        pf.write_text(t)
        spec = spec_from_args(game, scenario=scenario, policy=list(policy), set_=list(set_), games=games, seed=seed,
                              data=str(pf), name=f"sensitivity-{i:04d}")
        run_sweep(spec, parent / "points" / f"{i:04d}", workers=workers, progress=False)
        Y[i] = _response(parent / "points" / f"{i:04d}", output, side, sides)
        if progress and (i + 1) % max(1, len(X) // 10) == 0:
            say(f"  point {i + 1:,}/{len(X):,}")
    rows = []
    if method == "morris":
        si = morris_analyze.analyze(problem, X, Y, conf_level=0.95, num_resamples=replicates, num_levels=levels,
                                    seed=seed)
        for j, f in enumerate(factors):
            ms, conf = float(si["mu_star"][j]), float(si["mu_star_conf"][j])
            rows.append({**_factor_json(f), "mu_star": ms, "mu_star_ci": [max(0.0, ms - conf), ms + conf],
                         "sigma": float(si["sigma"][j]), "mu": float(si["mu"][j])})
        rows.sort(key=lambda r: -r["mu_star"])
    else:
        si = sobol_analyze.analyze(problem, Y, calc_second_order=False, conf_level=0.95, num_resamples=replicates,
                                   seed=seed)
        for j, f in enumerate(factors):
            s1, st = float(si["S1"][j]), float(si["ST"][j])
            rows.append({**_factor_json(f), "S1": s1, "S1_ci": [s1 - float(si["S1_conf"][j]), s1 + float(si["S1_conf"][j])],
                         "ST": st, "ST_ci": [st - float(si["ST_conf"][j]), st + float(si["ST_conf"][j])]})
        rows.sort(key=lambda r: -r["ST"])
    summary = {"game": game, "scenario": sc.name, "sides": sides, "method": method, "output": output, "side": side,
               "range": [lo, hi],
               "range_note": ("each factor's values scaled by a multiplier in this range; the pack declares no "
                              "plausible ranges, so the default is +-50%"),
               "games_per_point": games, "seed": seed, "points": len(X), "factors": rows,
               "responses": [float(y) for y in Y],
               "meaning": ("mu_star: mean absolute elementary effect (Campolongo et al. 2007), in the output's units "
                           "per unit of the normalised range; sigma: their spread (interactions, non-linearity)"
                           if method == "morris" else "S1: first-order Sobol index; ST: total index")}
    write_json(parent / SENSITIVITY_SUMMARY, summary)
    return {**summary, "path": str(parent)}


def _factor_json(f: Factor) -> dict:
    return {"name": f.name, "members": [".".join(m) for m in f.members], "base": list(f.base),
            "provisional": f.provisional}


def _numeric_column(g, name: str, sides: Sequence[str]) -> bool:
    """Whether ``name`` is a games-table column the game declares with a numeric Arrow type."""
    from ..games.schema import game_columns, match
    c = match(game_columns(g), name, sides)
    return c is not None and any(t.startswith(("int", "uint", "float", "double")) for t in c.type)
