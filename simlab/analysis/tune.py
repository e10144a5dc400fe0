"""``simlab tune``: the fair value of a numeric option (a handicap, a bid) with a 95% interval.

Two ways to get the win-rate curve:

* **replay** (always valid): one sweep over the option's values with common random numbers (game
  ``i`` of every value uses the same stream), then a second, finer sweep around the first root
  ("refine");
* **score** (the shortcut): when the option is declared ``score_only`` (it only shifts the final
  score and no policy looks at the score) and the game's :meth:`~simlab.games.base.Game.rescore`
  accepts the options in force, one sweep at the option's default is played and every value's
  winners are recomputed from the final scores. Each game then has exactly the result it would
  have had if replayed with that value and the same seed, so the curve equals the replayed curve
  under common random numbers, at the cost of one sweep.

The curve is fitted (:mod:`simlab.stats.tuning`) and inverted; the interval is a percentile
bootstrap over game indices (each index keeps its outcomes at every value, which is what common
random numbers correlate).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..data_axes import data_param, is_data_name
from ..errors import SpecError
from ..games import Game, get_game
from ..games.policy import policy_names
from ..stats.tuning import (
    FITS,
    MISSING,
    bootstrap_roots,
    estimate_root,
    fit_curve,
    pattern_counts,
    rates_from_patterns,
)
from ..sweeps.runner import DEFAULT_MAX_GAMES, run_sweep
from ..sweeps.spec import SweepSpec, cell_scenario, check_precision, expand, spec_from_args
from .common import (
    clear_out,
    outcome_matrix,
    preflight,
    prepare_out,
    rate,
    read_outcomes,
    winner_codes,
    write_json,
)

__all__ = ["METHODS", "bid_table", "parse_range", "suggest_range", "tune", "unit_of"]

METHODS = ("auto", "replay", "score")
MAX_POINTS = 2001
SUMMARY = "tune.json"


def parse_range(text: str, kind: type) -> list[float] | list[int]:
    """Option values of ``LOW:HIGH[:STEP]``, both ends included.

    Without STEP: every integer for an ``int`` option when there are at most 21, otherwise 11
    evenly spaced values (rounded to integers for an ``int`` option).

    Raises:
        SpecError: on a malformed range, ``LOW >= HIGH``, a non-positive STEP, a fractional value
            for an ``int`` option, or more than 2,001 values.
    """
    parts = [p.strip() for p in str(text).split(":")]
    if len(parts) not in (2, 3) or any(p == "" for p in parts):
        raise SpecError(f"--range {text!r}: expected LOW:HIGH or LOW:HIGH:STEP")
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        raise SpecError(f"--range {text!r}: LOW, HIGH and STEP must be numbers") from None
    if not all(math.isfinite(v) for v in nums):
        raise SpecError(f"--range {text!r}: values must be finite")
    lo, hi = nums[0], nums[1]
    if lo >= hi:
        raise SpecError(f"--range {text!r}: LOW must be below HIGH")
    if kind is int and not (lo.is_integer() and hi.is_integer()):
        raise SpecError(f"--range {text!r}: this option takes whole numbers")
    if len(nums) == 3:
        step = nums[2]
        if step <= 0:
            raise SpecError(f"--range {text!r}: STEP must be positive")
        if kind is int and not step.is_integer():
            raise SpecError(f"--range {text!r}: this option takes whole-number steps")
        count = int(math.floor((hi - lo) / step + 1e-9)) + 1
        if count > MAX_POINTS:
            raise SpecError(f"--range {text!r}: {count} values; the limit is {MAX_POINTS}")
        vals = [lo + i * step for i in range(count)]
        if vals[-1] < hi - 1e-9 * max(1.0, abs(hi)):
            vals.append(hi)
    elif kind is int and hi - lo <= 20:
        vals = [float(v) for v in range(int(lo), int(hi) + 1)]
    else:
        vals = list(np.linspace(lo, hi, 11))
    if kind is int:
        return sorted({int(round(v)) for v in vals})
    return [round(float(v), 12) for v in vals]


def _has_rescore(game: Game) -> bool:
    return type(game).rescore is not Game.rescore


def _empty_columns(sides: Sequence[str]) -> dict[str, np.ndarray]:
    cols = {"winner": np.zeros(0, np.int8), "turns": np.zeros(0, np.int32)}
    for s in sides:
        cols[f"score_{s}"] = np.zeros(0, np.float64)
    return cols


def tuned_param(g: Game, param: str, data: str | Path | None = None):
    """The numeric parameter ``--param`` names: an option of ``g``, or a data-pack value
    ``data.<table>.<key>.<field>`` (:mod:`simlab.data_axes`; read from the pack with ``data`` applied).

    Returns:
        an object with ``kind`` (``int`` or ``float``) and ``parse(value)`` (an :class:`Option`).

    Raises:
        SpecError: an unknown option or data value, or one that is not numeric.
    """
    om = g.option_map()
    if is_data_name(param):  # a data-pack value (simlab.data_axes): replayed at every value
        opt = data_param(g.load_data(str(data) if data else None), param)
    elif param not in om:
        raise SpecError(f"game {g.name} has no option '{param}' (options: {', '.join(om) or 'none'}; "
                        "a data-pack value is data.<table>.<key>.<field>)")
    else:
        opt = om[param]
    if opt.kind not in (int, float):
        raise SpecError(f"option {param} is a {opt.kind.__name__}; --param needs a numeric (int or float) option")
    return opt


def tune(game: str, *, param: str, range_: str, scenario: str | None = None, policy: Sequence[str] = (),
         set_: Sequence[str] = (), data: str | Path | None = None, target: float | None = None,
         side: str | None = None, games: int | None = None, precision: float | None = None,
         max_games: int | None = None, seed: int = 0, out: str | Path | None = None, overwrite: bool = False,
         workers: int | None = None, fit: str = "logistic", method: str = "auto", refine: bool = True,
         confidence: float = 0.95, replicates: int = 1000, progress: bool = True,
         from_sweep: str | Path | None = None, cell: int | None = None,
         log: Callable[[str], None] | None = None) -> dict:
    """Find the fair value of a numeric option: equal win rates, or one side's win rate = ``target``.

    Args:
        game: registered game name.
        param: the numeric (``int`` or ``float``) option to tune, or a data-pack value
            ``data.<table>.<key>.<field>`` (a pattern sets every value it addresses;
            :mod:`simlab.data_axes`), replayed at every value.
        range_: ``LOW:HIGH[:STEP]`` values to play (:func:`parse_range`).
        scenario, policy, set_, data: as for ``simlab sweep`` (one scenario, one policy per side).
        target: a win rate in ``(0, 1)``; None for equal win rates (two-sided games only).
        side: the side whose win rate meets ``target`` (default: the first side).
        games: games per value (default 2,000; the minimum per value under ``precision``).
        precision: play each value until the larger 95% Wilson half-width of the sides' win
            rates is at most this (``simlab sweep --precision``); max_games: its ceiling.
        seed: master seed; every value (and the refinement) uses the same streams.
        out: output directory (default ``results/tune-<game>-<param>-<time>``); overwrite:
            replace a previous tune there.
        workers: worker processes for the sweeps.
        fit: ``logistic`` or ``isotonic`` (:mod:`simlab.stats.tuning`).
        method: ``replay``, ``score`` (the score-only shortcut) or ``auto`` (the shortcut where
            it is valid, replaying otherwise).
        refine: replay a finer set of values around the first root (replay only).
        confidence: level of the intervals; replicates: bootstrap replicates.
        progress: progress bars on stderr; log: receives one-line notes.
        from_sweep: rescore the games of this existing sweep instead of playing (the score-only
            shortcut; the sweep gives the scenario, policies, options, games and seed);
            cell: which of its cells (needed when it has more than one).

    Returns:
        The summary written to ``<out>/tune.json``::

            {param, fair_value, ci: [low, high], bracket: [below, above], points: [{value, games, draws, draw_rate,
             draw_ci, sides: {side: {wins, win_rate, ci, losses, loss_rate, loss_ci}}}],
             game, scenario, sides, policies, options, target, side, method, method_note, fit,
             confidence, replicates, seed, curve: {x, fair: [...], sides: {side: [...]}},
             bootstrap: {replicates, below, above, failed}, note, sweeps: [dirs]}

        ``fair_value`` is None (with ``note`` saying why, and ``suggested_range`` a
        ``LOW:HIGH[:STEP]`` to try, from :func:`suggest_range`) when the curve does not reach the
        target within the range; an interval end is None when the bootstrap reaches past the range.
        ``bracket`` gives the played values on either side of ``fair_value`` (for a whole-number
        option such as a VP handicap, the two values a table can actually use).

    Raises:
        SpecError, ScenarioError, DataPackError: bad input, before anything is played; when
            some values of the range cannot be played (no legal set-up), the message names them
            and the ``--range`` of the values that can.
        SweepStateError: ``out`` is not usable.
    """
    say = log or (lambda m: None)
    g = get_game(game)
    opt = tuned_param(g, param, data)
    if fit not in FITS:
        raise SpecError(f"--fit {fit!r}: choose one of {', '.join(FITS)}")
    if method not in METHODS:
        raise SpecError(f"--method {method!r}: choose one of {', '.join(METHODS)}")
    if not 0.5 <= confidence < 1:
        raise SpecError(f"--confidence must be in [0.5, 1) (got {confidence})")
    if replicates < 100:
        raise SpecError(f"--replicates must be at least 100 (got {replicates})")
    if target is not None and not 0 < target < 1:
        raise SpecError(f"--target must be strictly between 0 and 1 (got {target})")
    if scenario is not None and "," in scenario:
        raise SpecError("tune plays one scenario; give a single --scenario")
    values = parse_range(range_, opt.kind)
    for v in values:
        opt.parse(v)
    if precision is not None and not 0 < precision < 0.5:
        raise SpecError(f"--precision must be strictly between 0 and 0.5 (got {precision})")
    if max_games is not None and precision is None:
        raise SpecError("--max-games only applies with --precision")
    source = None
    if from_sweep is not None:
        spec = None
        source, cell_rec, sides, sc, options, seed = _played_sweep(g, from_sweep, cell, param, scenario, policy,
                                                                  set_, data, games, precision, max_games, method)
    else:
        if cell is not None:
            raise SpecError("--cell only applies with --from-sweep")
        spec = spec_from_args(game, scenario=scenario, policy=policy, set_=set_, games=2000 if games is None else games, seed=seed,
                              crn=True, data=str(data) if data else None, name=f"tune-{param}",
                              precision=precision, max_games=max_games)
        check_precision(spec)
        if param in spec.options:
            raise SpecError(f"option {param} is tuned; do not also --set it")
        for s, lst in spec.policies.items():
            if len(lst) > 1:
                raise SpecError(f"tune plays one policy per side; --policy {s}={','.join(lst)} lists several")
        _, cells, info = expand(spec)
        sides = list(info["sides"])
        sc = cell_scenario(info, cells[0])  # compiled from the cell's data values, if any
        options = dict(cells[0].options)
        cell_rec = {"policies": policy_names(cells[0].policies),
                    "knobs": {s: p.as_dict() for s, p in cells[0].policies.items()}}
    if target is None and len(sides) != 2:
        raise SpecError(f"{game} has {len(sides)} sides; give --target to tune one side's win rate")
    if side is not None and side not in sides:
        raise SpecError(f"unknown side '{side}' (sides: {', '.join(sides)})")
    side_i = sides.index(side) if side is not None else 0

    # which method
    shortcut_ok = False
    why = ""
    if not opt.score_only:
        why = f"option {param} is not declared score-only (it may change play), so every value is replayed"
    elif not _has_rescore(g):
        why = f"game {game} cannot recompute winners from scores, so every value is replayed"
    else:
        probe = g.rescore(sc, _empty_columns(sides), options, {param: values[0]})
        if probe is None:
            why = (f"game {game} says the score-only shortcut does not hold under these options "
                   "(e.g. a rule ends the game on the running score), so every value is replayed")
        else:
            shortcut_ok = True
    if (method == "score" or source is not None) and not shortcut_ok:
        flag = "--from-sweep" if source is not None else "--method score"
        raise SpecError(f"{flag} is not valid here: {why.split(', so')[0]}")
    use_score = method == "score" or source is not None or (method == "auto" and shortcut_ok)
    if use_score:
        method_note = (f"curve from one sweep's final scores: {param} only shifts the final score and no "
                       f"policy looks at the score, so each game's result at every value equals a replay "
                       f"with the same seed")
        if opt.kind is int:
            values = list(range(int(values[0]), int(values[-1]) + 1))
            if len(values) > MAX_POINTS:
                raise SpecError(f"--range: {len(values)} values; the limit is {MAX_POINTS}")
    else:
        method_note = "every value replayed with the same seeds (common random numbers)" + (
            f"; {why}" if why and method == "auto" else "")

    outdir = prepare_out(out, "tune", f"{game}-{param}", SUMMARY, overwrite)
    if source is None:
        first_base = opt.default if values[0] <= opt.default <= values[-1] else values[0]
        if use_score:
            preflight(dataclasses.replace(spec, options={**spec.options, param: first_base}))
        else:
            _preflight_values(spec, param, values, range_)
    if overwrite:
        if outdir.exists():
            clear_out(outdir, SUMMARY)
    outdir.mkdir(parents=True, exist_ok=True)
    say(method_note)

    sweeps: list[str] = []
    if source is not None:
        sweeps.append(str(source.resolve()))
        vals, pats, counts = _rescored(g, source, sc, sides, options, param, values, cell=cell_rec["cell"])
    elif use_score:
        base = opt.default if values[0] <= opt.default <= values[-1] else values[0]
        s1 = dataclasses.replace(spec, options={**spec.options, param: base})
        if precision is not None:
            # the one played value is rescored to every other value, whose win rates may lie
            # nearer 1/2: play enough games for the worst case p = 1/2 (Wilson ~ z/(2 sqrt(n)))
            z = 1.959963984540054
            need = math.ceil((z / (2 * precision)) ** 2)
            cap = DEFAULT_MAX_GAMES if max_games is None else max_games
            s1 = dataclasses.replace(s1, games=max(spec.games, min(need, cap)), precision=None, max_games=None)
            say(f"score-only shortcut with --precision {precision:g}: playing {s1.games:,} games, enough for "
                "every value's win rates whatever they are")
        res = run_sweep(s1, outdir / "played", workers=workers, progress=progress)
        sweeps.append("played")
        vals, pats, counts = _rescored(g, res.path, sc, sides, options | {param: opt.parse(base)}, param, values)
    else:
        vals, y = _replayed(spec, param, values, outdir / "pass-1", workers, progress, sides)
        sweeps.append("pass-1")
        pats, counts = pattern_counts(y)

    x = np.asarray(vals, dtype=np.float64)
    lo_x, hi_x = float(x.min()), float(x.max())
    root = _root(pats, counts, x, side_i, target, fit)
    if refine and not use_score and root is not None:
        extra = _refinement(root, values, opt.kind, lo_x, hi_x)
        if extra:
            say(f"refining near {root:.4g}: {', '.join(map(str, extra))}")
            v2, y2 = _replayed(spec, param, extra, outdir / "pass-2", workers, progress, sides)
            sweeps.append("pass-2")
            vals, y = _merge(vals, y, v2, y2)
            pats, counts = pattern_counts(y)
            x = np.asarray(vals, dtype=np.float64)
            root = _root(pats, counts, x, side_i, target, fit)

    decided_only = target is None
    t = 0.5 if target is None else float(target)
    k, n = rates_from_patterns(pats, counts, side_i, decided_only)
    root, c0 = estimate_root(x, k, n, t, fit)
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(seed) >> 32, 0x74756E65])
    boots = bootstrap_roots(pats, counts, x, side_i, t, decided_only, fit, replicates, rng)
    ok = boots[~np.isnan(boots)]
    alpha = 1 - confidence
    ci: list[float | None] = [None, None]
    below = int((ok < lo_x).sum())
    above = int((ok > hi_x).sum())
    if root is not None and ok.size >= 0.9 * replicates:
        with np.errstate(invalid="ignore"):  # roots beyond the range are +-inf: their quantile may be NaN
            qlo, qhi = np.quantile(ok, [alpha / 2, 1 - alpha / 2])
        ci = [float(qlo) if lo_x <= qlo <= hi_x else None, float(qhi) if lo_x <= qhi <= hi_x else None]
        if qlo > hi_x or qhi < lo_x:
            ci = [None, None]
    note = ""
    suggested = None
    if root is None:
        who = sides[side_i]
        if target is None:
            note = f"the two sides' win rates do not cross between {lo_x:g} and {hi_x:g}"
        else:
            note = f"{who}'s win rate does not reach {t:g} between {lo_x:g} and {hi_x:g}"
        suggested, why_range = suggest_range(x, k, n, t, opt)
        note += f"; {why_range}"
    elif ci[0] is None or ci[1] is None:
        note = "the interval reaches beyond the range played; widen --range or play more games"

    bracket = None
    if root is not None:
        xs = np.unique(x)
        below_v, above_v = xs[xs <= root], xs[xs >= root]
        bracket = [float(below_v[-1]) if below_v.size else None, float(above_v[0]) if above_v.size else None]
    points = _points(vals, pats, counts, sides, confidence)
    curve = _curves(x, pats, counts, sides, c0, decided_only)
    summary = {
        "param": param, "fair_value": root, "ci": ci, "points": points, "bracket": bracket,
        "game": game, "scenario": sc.name, "sides": sides, "policies": cell_rec["policies"],
        "options": {k2: v2 for k2, v2 in options.items() if k2 != param},
        "target": target, "side": sides[side_i] if target is not None else None,
        "method": "score" if use_score else "replay", "method_note": method_note, "fit": fit,
        "confidence": confidence, "replicates": replicates, "seed": seed,
        "unit": unit_of(opt.doc), "kind": opt.kind.__name__,
        "curve": curve,
        "bootstrap": {"replicates": replicates, "below": below, "above": above,
                      "failed": int(np.isnan(boots).sum())},
        "note": note, "suggested_range": suggested, "sweeps": sweeps,
    }
    write_json(outdir / SUMMARY, summary)
    summary["path"] = str(outdir)
    return summary


def _preflight_values(spec: SweepSpec, param: str, values, range_: str) -> None:
    """Play one game at every value (:func:`simlab.analysis.common.preflight`); when some values
    cannot be played, say which, and the range of the values that can.

    Raises:
        InputError: the game's own error for a single unplayable value set, extended with the
            values that fail and the ``--range`` to use instead.
    """
    from ..errors import InputError
    try:
        preflight(dataclasses.replace(spec, grid={param: [str(v) for v in values]}))
        return
    except InputError as first:
        err = first
    ok, bad = [], []
    for v in values:
        try:
            preflight(dataclasses.replace(spec, options={**spec.options, param: v}))
            ok.append(v)
        except InputError:
            bad.append(v)
    if not bad:  # the grid failed for another reason (a combination, not a value)
        raise err
    msg = f"{err}; {param} = {', '.join(f'{v:g}' for v in bad)} cannot be played"
    run = _longest_run(values, ok)
    if len(run) >= 2:
        step = _step_of(range_, run)
        msg += f"; the values from {run[0]:g} to {run[-1]:g} can: try --range {run[0]:g}:{run[-1]:g}{step}"
    elif ok:
        msg += f"; only {param} = {', '.join(f'{v:g}' for v in ok)} can be played in this range"
    else:
        msg += "; no value of the range can be played"
    raise type(err)(msg) from None


def _longest_run(values, ok) -> list:
    """The longest run of consecutive ``values`` that are all in ``ok``."""
    best: list = []
    cur: list = []
    good = set(ok)
    for v in values:
        if v in good:
            cur.append(v)
            if len(cur) > len(best):
                best = list(cur)
        else:
            cur = []
    return best


def _step_of(range_: str, run) -> str:
    parts = str(range_).split(":")
    return f":{parts[2].strip()}" if len(parts) == 3 else ""


def suggest_range(x, successes, trials, target: float, opt) -> tuple[str | None, str]:
    """A ``--range`` that should contain the root when the curve does not reach ``target`` in the
    values played, from a logistic fit over all of them extrapolated to the root.

    Args:
        x: ``float64[v]`` the values played; successes, trials: per value (decided games for
            equal win rates, as :func:`simlab.stats.tuning.rates_from_patterns` gives them).
        target: the probability the root meets.
        opt: the tuned :class:`simlab.games.base.Option` (its kind and its min/max bound the range).

    Returns:
        ``(range, sentence)``: None and a sentence saying so when the two values played nearest
        the root give exactly the same results (the option stops changing play there); else
        ``"LOW:HIGH"`` from the end of the range played nearer the
        extrapolated root to beyond it by the larger of the range's width and the distance from
        that end, clipped to the option's bounds (None when the fit is
        flat, points away from the range, or the root lies beyond the option's bounds or more
        than ten widths away), and a sentence saying so.
    """
    xv = np.asarray(x, dtype=np.float64)
    lo, hi = float(xv.min()), float(xv.max())
    width = hi - lo
    try:
        c = fit_curve(xv, successes, trials, "logistic")
    except ValueError:
        return None, "widen --range"
    a, b = c.params
    if not np.isfinite(b) or abs(b) * width < 1e-3:
        return None, "the win rates barely change across the range; widen --range a lot or tune another option"
    order = np.argsort(xv, kind="stable")
    ks, ns, xs = np.asarray(successes, float)[order], np.asarray(trials, float)[order], xv[order]
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = ks / ns
    top = rates[-1] < target if b > 0 else rates[-1] > target  # the root lies above the range
    end = slice(-2, None) if top else slice(0, 2)
    if xs.size >= 3 and np.all(ks[end] == ks[end][0]) and np.all(ns[end] == ns[end][0]):
        edge = xs[end]
        return None, (f"the games come out the same at {opt.name} = {edge[0]:g} and {edge[1]:g} (the option stops "
                      "changing play there), so a wider range will not reach it either")
    r = float((math.log(target / (1 - target)) - a) / b)
    if not math.isfinite(r) or abs(r - (lo + hi) / 2) > 10 * width:
        return None, "widen --range"
    coarse = lo <= r <= hi
    if coarse:  # one logistic curve over the whole range is too coarse to place it: a width further on
        r = hi + width / 2 if top else lo - width / 2
    reach = max(width, abs(r - (lo if r < lo else hi)))
    new_lo, new_hi = (r - reach, lo) if r < lo else (hi, r + reach)
    if opt.min is not None:
        new_lo = max(new_lo, float(opt.min))
    if opt.max is not None:
        new_hi = min(new_hi, float(opt.max))
    if (opt.min is not None and r < float(opt.min)) or (opt.max is not None and r > float(opt.max)):
        return None, (f"a logistic fit over the range reaches it only at about {r:.3g}, beyond the option's "
                      f"bounds [{opt.min}, {opt.max}]: no value of {opt.name} balances these sides")
    if opt.kind is int:
        new_lo, new_hi = math.floor(new_lo), math.ceil(new_hi)
        text = f"{new_lo:d}:{new_hi:d}"
    else:
        q = 10.0 ** math.floor(math.log10(max(width, 1e-12)) - 1)
        new_lo, new_hi = math.floor(new_lo / q) * q, math.ceil(new_hi / q) * q
        text = f"{new_lo:.6g}:{new_hi:.6g}"
    side = "above" if r > hi else "below"
    if coarse:
        return text, f"the results approach it toward the {'top' if top else 'bottom'} of the range: try --range {text}"
    return text, (f"a logistic fit over the range reaches it at about {r:.3g}, {side} the range: "
                  f"try --range {text}")


def _played_sweep(g: Game, path, cell, param, scenario, policy, set_, data, games, precision, max_games, method):
    """The cell of an existing sweep that ``--from-sweep`` rescores (see :func:`tune`)."""
    from ..sweeps.manifest import load_manifest
    if scenario or policy or set_ or data or games or precision is not None or max_games is not None:
        raise SpecError("--from-sweep takes the scenario, policies, options and games of that sweep; "
                        "do not also give --scenario, --policy, --set, --data, --games or --precision")
    if method == "replay":
        raise SpecError("--from-sweep rescores a played sweep; it cannot be combined with --method replay")
    p = Path(path)
    man = load_manifest(p)
    if man.get("game") != g.name:
        raise SpecError(f"{p} is a sweep of {man.get('game')}, not {g.name}")
    cells = man.get("cells", [])
    if cell is None:
        if len(cells) != 1:
            raise SpecError(f"{p} has {len(cells)} cells; choose one with --cell")
        cell = cells[0]["cell"]
    rec = next((c for c in cells if c["cell"] == cell), None)
    if rec is None:
        raise SpecError(f"{p} has no cell {cell} (cells 0..{len(cells) - 1})")
    pack = g.load_data((man.get("spec") or {}).get("data"))
    sc = g.load_scenario(rec["scenario"], pack)
    options = g.resolve_options(rec["options"])
    return p, rec, list(man["sides"]), sc, options, int(man.get("master_seed", 0))


def _replayed(spec: SweepSpec, param: str, values, path: Path, workers, progress, sides):
    s = dataclasses.replace(spec, grid={param: [str(v) for v in values]},
                            name=f"{spec.name}-{path.name}")
    res = run_sweep(s, path, workers=workers, progress=progress)
    cells, index, codes = read_outcomes(res.path, sides)
    cell_value = {c["cell"]: (c["params"] if is_data_name(param) else c["options"])[param]
                  for c in res.manifest["cells"]}
    y = outcome_matrix(cells, index, codes, len(cell_value))
    vals = [cell_value[i] for i in range(len(cell_value))]
    return vals, y


def _rescored(g: Game, path: Path, sc, sides, options: dict, param: str, values, cell: int | None = None,
              chunk: int = 200_000):
    """Winner patterns of a played sweep rescored at every value, counted chunk by chunk so that
    memory stays at ``len(values) * chunk`` bytes whatever the number of games."""
    import pyarrow.compute as pc

    from ..results import load_table
    t = load_table(path)
    if cell is not None:
        t = t.filter(pc.equal(t["cell"], cell))
    cols: dict[str, Any] = {}
    for name in t.column_names:
        if name == "winner":
            cols[name] = winner_codes(t[name].to_numpy(zero_copy_only=False), sides)
        else:
            arr = t[name].to_numpy(zero_copy_only=False)
            if arr.dtype.kind in "iufb":
                cols[name] = arr
    total = int(t.num_rows)
    acc: dict[bytes, int] = {}
    width = len(values)
    for start in range(0, total, chunk):
        part = {k: v[start:start + chunk] for k, v in cols.items()}
        m = part["winner"].shape[0]
        rows = np.empty((width, m), dtype=np.int8)
        for i, v in enumerate(values):
            w = g.rescore(sc, part, options, {param: v})
            if w is None:
                raise SpecError(f"game {g.name} refused to rescore {param}={v}")
            w = np.asarray(w, dtype=np.int8)
            if w.shape != (m,):
                raise ValueError(f"game {g.name}: rescore returned shape {w.shape} for {m} games")
            rows[i] = w
        pats, counts = pattern_counts(rows)
        for j in range(pats.shape[1]):
            key = pats[:, j].tobytes()
            acc[key] = acc.get(key, 0) + int(counts[j])
    if not acc:
        raise SpecError(f"{path}: no games to rescore")
    keys = list(acc)
    pats = np.stack([np.frombuffer(k, dtype=np.int8) for k in keys], axis=1)
    return list(values), pats, np.array([acc[k] for k in keys], dtype=np.int64)


def _merge(v1, y1, v2, y2):
    width = max(y1.shape[1], y2.shape[1])

    def pad(y):
        if y.shape[1] == width:
            return y
        return np.hstack([y, np.full((y.shape[0], width - y.shape[1]), MISSING, dtype=np.int8)])

    vals = list(v1) + list(v2)
    y = np.vstack([pad(y1), pad(y2)])
    order = np.argsort(np.asarray(vals, dtype=np.float64), kind="stable")
    return [vals[i] for i in order], y[order]


def _root(pats, counts, x, side_i, target, fit):
    k, n = rates_from_patterns(pats, counts, side_i, target is None)
    return estimate_root(x, k, n, 0.5 if target is None else target, fit)[0]


def _refinement(root: float, values, kind: type, lo: float, hi: float) -> list:
    played = {float(v) for v in values}
    vs = sorted(float(v) for v in values)
    step = min(b - a for a, b in zip(vs, vs[1:], strict=False)) if len(vs) > 1 else 1.0
    if kind is int:
        # every integer near the root when the grid is fine; five spread values when it is coarse
        # (a fleet value limit stepped by 100 must not replay 200 integers)
        lo_i, hi_i = int(math.floor(root - step)), int(math.ceil(root + step))
        cand = range(lo_i, hi_i + 1) if hi_i - lo_i <= 6 else np.unique(np.round(np.linspace(root - step, root + step, 5)))
        new = [int(v) for v in cand if lo <= v <= hi and float(v) not in played]
    else:
        quantum = 10.0 ** math.floor(math.log10(step / 10))
        cand = np.round(np.linspace(root - step, root + step, 5) / quantum) * quantum
        new = [round(float(v), 12) for v in cand if lo <= v <= hi and not any(abs(v - p) < 1e-9 for p in played)]
    return sorted(set(new))


def _points(vals, pats, counts, sides, confidence) -> list[dict]:
    w = counts.astype(np.int64)
    pts = []
    for i, v in enumerate(vals):
        row = pats[i]
        n = int(w[row != MISSING].sum())
        draws = int(w[row == -1].sum())
        d = rate(draws, n, confidence)
        p = {"value": v, "games": n, "draws": draws, "draw_rate": d["rate"], "draw_ci": d["ci"], "sides": {}}
        for si, s in enumerate(sides):
            won = int(w[row == si].sum())
            lost = n - won - draws
            rw = rate(won, n, confidence)
            rl = rate(lost, n, confidence)
            p["sides"][s] = {"wins": won, "win_rate": rw["rate"], "ci": rw["ci"], "losses": lost,
                             "loss_rate": rl["rate"], "loss_ci": rl["ci"]}
        pts.append(p)
    return pts


def _curves(x, pats, counts, sides, c_fair, decided_only) -> dict:
    """Display curves on 101 points: each side's win rate as the monotone (isotonic) fit, linearly
    interpolated, and the curve the root came from over the values it was fitted to."""
    grid = np.linspace(float(x.min()), float(x.max()), 101)
    out: dict[str, Any] = {"x": grid.tolist(), "sides": {}}
    for si, s in enumerate(sides):
        k, n = rates_from_patterns(pats, counts, si, False)
        try:
            out["sides"][s] = fit_curve(x, k, n, "isotonic")(grid).tolist()
        except ValueError:
            out["sides"][s] = None
    out["fair"] = None
    if c_fair is not None:
        fx = np.linspace(float(c_fair.x.min()), float(c_fair.x.max()), 41)
        out["fair"] = {"x": fx.tolist(), "y": c_fair(fx).tolist(), "fit": c_fair.fit}
    out["fair_label"] = ("share of decided games won by the first side" if decided_only
                         else "win rate of the target side")
    return out


_UNITS = ("VP", "MP", "hexes", "turns", "points", "dice", "rounds", "games")


def unit_of(doc: str) -> str:
    """The unit an option's ``doc`` names (``"VP"``, ``"hexes"`` ...), or ``""`` when it names none."""
    for u in _UNITS:
        if f"({u})" in doc or f" {u} " in f" {doc} " or f" {u};" in doc or f" {u}," in doc:
            return u
    return ""


def bid_table(summary: dict, side: str) -> dict:
    """A tuned handicap read as bids for one side (Dawn of Empire Rule 14.4).

    Under 14.4 a player bids ``b`` VPs to play ``side``; if he wins the bidding the other side
    starts with ``b`` VPs. With a tuned handicap whose larger values favour one side (as a net
    starting-VP handicap does), a bid of ``b`` for that side is the handicap value ``-b``, and
    for the other side ``+b``. The side a value favours is read from the points (whose win rate
    rises with the value).

    Args:
        summary: a :func:`tune` result over a range that includes 0 (and negative values for
            the favoured side's bids).
        side: the side bid for.

    Returns:
        ``{side, favoured_by_larger_values, break_even_bid, rows: [{bid, value, games, win:
        {rate, ci}, draw: {rate, ci}, loss: {rate, ci}}]}``; ``break_even_bid`` (VP) is the bid
        at which the two sides' win rates are equal — bidding less still favours ``side`` — or
        None when ``side`` is behind even at a bid of 0 or the tune found no fair value.

    Raises:
        ValueError: if ``side`` is not one of the summary's sides or the game has not two sides.
    """
    sides = summary["sides"]
    if side not in sides or len(sides) != 2:
        raise ValueError(f"bid tables need a two-sided tune and one of its sides (got {side!r})")
    pts = sorted(summary["points"], key=lambda p: p["value"])
    first, last = pts[0]["sides"], pts[-1]["sides"]
    rises = {s: (last[s]["win_rate"] or 0) - (first[s]["win_rate"] or 0) for s in sides}
    up = max(sides, key=lambda s: rises[s])
    sign = -1 if side == up else 1
    rows = []
    for p in pts:
        b = sign * p["value"]
        if b < 0:
            continue
        me = p["sides"][side]
        rows.append({"bid": b, "value": p["value"], "games": p["games"],
                     "win": {"rate": me["win_rate"], "ci": me["ci"]},
                     "draw": {"rate": p["draw_rate"], "ci": p["draw_ci"]},
                     "loss": {"rate": me["loss_rate"], "ci": me["loss_ci"]}})
    rows.sort(key=lambda r: r["bid"])
    fair = summary.get("fair_value") if summary.get("target") is None else None
    even = None if fair is None else sign * fair
    if even is not None and even < 0:
        even = None
    return {"side": side, "favoured_by_larger_values": up, "break_even_bid": even, "rows": rows}
