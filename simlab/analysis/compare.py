"""``simlab compare``: two variants of one game on the same seeds, with a paired interval and SPRT.

Both variants are played with common random numbers and the same master seed, so game ``i`` of
variant A and game ``i`` of variant B roll the same dice until the variants' rules make them
diverge. The difference of a side's win rates (B minus A) then has a paired interval
(:func:`simlab.stats.paired.paired_difference`) much narrower than two independent samples give.

With ``sprt=(p0, p1)`` the games are played in stages and Wald's SPRT
(:class:`simlab.stats.sprt.SPRT`) runs over the *discordant* games — those the side wins under
one variant and not under the other, in game-index order. Its probability is
``P(the side wins under B | the variants disagree)``: 0.5 means the variants are equally good
for the side, 0.6 that B wins three of every five games the two disagree on. Conditional on
disagreeing, those games are independent Bernoulli trials, so Wald's error rates apply exactly.
Stage ``k`` plays ``stage`` games of each variant with the master seed
``simlab.rng.stream_seed(seed, STAGE_KEY, k)``, so the stopping point depends only on the seed and
the stage size.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from scipy import stats

from ..errors import SpecError
from ..games.policy import policy_names
from ..rng import stream_seed
from ..stats.paired import paired_difference, paired_table
from ..stats.sprt import SPRT, SprtState
from ..sweeps.runner import run_sweep
from ..sweeps.spec import expand, load_spec, spec_from_args
from .common import clear_out, preflight, prepare_out, rate, read_outcomes, write_json

__all__ = ["STAGE_KEY", "compare", "parse_sprt"]

SUMMARY = "compare.json"
STAGE_KEY = 0x5B27
DEFAULT_MAX_GAMES = 1_000_000


def parse_sprt(text: str) -> tuple[float, float]:
    """``P0,P1`` as two probabilities.

    Raises:
        SpecError: unless two distinct numbers strictly between 0 and 1 are given.
    """
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2:
        raise SpecError(f"--sprt {text!r}: expected P0,P1")
    try:
        p0, p1 = float(parts[0]), float(parts[1])
    except ValueError:
        raise SpecError(f"--sprt {text!r}: P0 and P1 must be numbers") from None
    if not (0 < p0 < 1 and 0 < p1 < 1):
        raise SpecError(f"--sprt {text!r}: P0 and P1 must be strictly between 0 and 1")
    if p0 == p1:
        raise SpecError(f"--sprt {text!r}: P0 and P1 must differ")
    if p0 > p1:
        raise SpecError(f"--sprt {text!r}: P0 must be below P1 (the test asks whether B raises the side's share "
                        "of the discordant games; to test a decrease, swap A and B)")
    return p0, p1


def _variant_specs(a, b, game, scenario, policy_a, policy_b, set_a, set_b, data_a, data_b, games, seed):
    if (a is None) != (b is None):
        raise SpecError("give two experiment files (A.toml B.toml), or --game with --set-a/--set-b etc.")
    if a is not None:
        if game or scenario or policy_a or policy_b or set_a or set_b or data_a or data_b:
            raise SpecError("give either two experiment files or --game with per-variant options, not both")
        over = {"games": games, "seed": seed}
        sa = load_spec(a, over)
        sb = load_spec(b, over)
        if sa.game != sb.game:
            raise SpecError(f"the two variants play different games ({sa.game} and {sb.game})")
        # one seed and one game count for both: refuse files that disagree unless --seed/--games settle it
        if seed is None and sa.seed != sb.seed:
            raise SpecError(f"{a} has seed {sa.seed} and {b} has seed {sb.seed}; a paired comparison plays both "
                            "on one seed: pass --seed N")
        if games is None and sa.games != sb.games:
            raise SpecError(f"{a} has games = {sa.games} and {b} has games = {sb.games}; pass --games N")
        return sa, sb
    if game is None:
        raise SpecError("give two experiment files (A.toml B.toml), or --game with --set-a/--set-b etc.")
    common = {"scenario": scenario, "games": 10_000 if games is None else games, "seed": 0 if seed is None else seed}
    sa = spec_from_args(game, policy=policy_a, set_=set_a, data=str(data_a) if data_a else None,
                        name="variant-a", **common)
    sb = spec_from_args(game, policy=policy_b, set_=set_b, data=str(data_b) if data_b else None,
                        name="variant-b", **common)
    return sa, sb


def compare(a: str | Path | None = None, b: str | Path | None = None, *, game: str | None = None,
            scenario: str | None = None, policy_a: Sequence[str] = (), policy_b: Sequence[str] = (),
            set_a: Sequence[str] = (), set_b: Sequence[str] = (), data_a: str | Path | None = None,
            data_b: str | Path | None = None, games: int | None = None, seed: int | None = None,
            side: str | None = None, sprt: tuple[float, float] | str | None = None, alpha: float | None = None,
            beta: float | None = None, stage: int | None = None, max_games: int | None = None, out: str | Path | None = None,
            overwrite: bool = False, workers: int | None = None, confidence: float = 0.95,
            progress: bool = True, on_stage: Callable[[dict], None] | None = None) -> dict:
    """Compare two variants of a game on the same seeds.

    Args:
        a, b: experiment files of the two variants (one cell each); or None with ``game``.
        game, scenario: the game (and scenario) of an ad hoc comparison.
        policy_a, policy_b, set_a, set_b, data_a, data_b: each variant's ``--policy SIDE=NAME``,
            ``--set OPTION=VALUE`` items and override pack.
        games: games per variant (default: A's file, or 10,000); without ``sprt`` all are played.
        seed: master seed of both variants (default: A's file, or 0).
        side: the side whose win rate is compared (default: the first side).
        sprt: ``(p0, p1)`` or ``"P0,P1"`` with ``p0 < p1``: run the SPRT on the discordant games (see
            the module docstring); alpha, beta: its error rates (default 0.05 each).
        stage: games per variant per stage under ``sprt`` (default 1,000); max_games: the most games
            per variant under ``sprt`` (default 1,000,000), after which the test stops undecided.
            ``alpha``, ``beta``, ``stage`` and ``max_games`` are refused without ``sprt``, and
            ``games`` is refused with it (the SPRT's stages and ``max_games`` govern).
        out: output directory (default ``results/compare-<game>-<time>``); overwrite: replace a
            previous comparison there.
        workers: worker processes; confidence: level of the intervals.
        progress: progress bars; on_stage: called after each SPRT stage with
            ``{stage, games, discordant, b_better, llr, lower, upper, decision, decided_at}``
            (``decided_at``: the game, counted from 1 over all stages, at which the LLR crossed a
            bound; the discordant counts and LLR are those up to it; ``games`` counts every game
            played, which the paired table covers).

    Returns:
        The summary written to ``<out>/compare.json``::

            {game, scenario, sides, side, games, variants: {a: {file, policies, knobs, options, data,
             sides, draws}, b: {...}},
             difference: {side: {a_rate, b_rate, difference, ci, a_only, b_only, p_value}},
             draws: {a_rate, b_rate, difference, ci}, sprt: null | {p0, p1, alpha, beta, lower,
             upper, llr, discordant, b_better, decision, games, decided_at, stages: [...]}}

        ``variants.x.file`` is the experiment file of that variant (None for an ad hoc
        comparison, whose ``options``, ``policies`` and ``data`` say what it is). ``difference`` is B minus A. ``p_value`` is the exact two-sided McNemar (sign) test of no
        difference on the discordant games.

    Raises:
        SpecError, ScenarioError, DataPackError: bad input, including an ad hoc comparison with
            no variant argument at all, two files whose seeds or game counts differ (without
            ``seed``/``games``), a reversed ``sprt`` and SPRT settings without ``sprt``
            (nothing played or written).
        SweepStateError: ``out`` is not usable.
    """
    if sprt is None:
        given = [f for f, v in (("--alpha", alpha), ("--beta", beta), ("--stage", stage), ("--max-games", max_games))
                 if v is not None]
        if given:
            raise SpecError(f"{', '.join(given)} only appl{'ies' if len(given) == 1 else 'y'} with --sprt")
    elif games is not None:
        raise SpecError("--games does not apply with --sprt: the test plays stages of --stage games until it "
                        "decides or reaches --max-games")
    alpha = 0.05 if alpha is None else alpha
    beta = 0.05 if beta is None else beta
    stage = 1000 if stage is None else stage
    sa, sb = _variant_specs(a, b, game, scenario, policy_a, policy_b, set_a, set_b, data_a, data_b, games, seed)
    if not 0.5 <= confidence < 1:
        raise SpecError(f"--confidence must be in [0.5, 1) (got {confidence})")
    test = None
    if sprt is not None:
        p0, p1 = parse_sprt(sprt) if isinstance(sprt, str) else (float(sprt[0]), float(sprt[1]))
        try:
            test = SPRT(p0, p1, alpha, beta)
        except ValueError as e:
            raise SpecError(f"--sprt: {e}") from None
        if stage < 1:
            raise SpecError(f"--stage must be at least 1 (got {stage})")
        if max_games is not None and max_games < 1:
            raise SpecError(f"--max-games must be at least 1 (got {max_games})")
    sa = dataclasses.replace(sa, crn=True, grid={}, name="variant-a")
    sb = dataclasses.replace(sb, crn=True, grid={}, name="variant-b")
    infos = []
    for tag, s in (("A", sa), ("B", sb)):
        _, cells, info = expand(s)
        if len(cells) != 1:
            raise SpecError(f"variant {tag} has {len(cells)} cells; compare needs one cell per variant (no grid or lists)")
        infos.append((cells[0], info))
    sides = list(infos[0][1]["sides"])
    if list(infos[1][1]["sides"]) != sides:
        raise SpecError("the two variants have different sides: " + "/".join(sides) + " vs " + "/".join(infos[1][1]["sides"]))
    if side is not None and side not in sides:
        raise SpecError(f"unknown side '{side}' (sides: {', '.join(sides)})")
    side = side or sides[0]
    warnings = []
    ca0, cb0 = infos[0][0], infos[1][0]
    if (ca0.scenario, ca0.options, {k: v.to_json() for k, v in ca0.policies.items()}, sa.data, ca0.data_hash) == \
            (cb0.scenario, cb0.options, {k: v.to_json() for k, v in cb0.policies.items()}, sb.data, cb0.data_hash):
        warnings.append("variants A and B are identical (an A/A check): every game will agree")
    if a is None and b is None and not any((policy_a, policy_b, set_a, set_b, data_a, data_b)):
        raise SpecError("nothing tells variant A from B; give --set-a/--set-b, --policy-a/--policy-b, "
                        "--data-a/--data-b or two experiment files (an A/A check needs e.g. --set-a X=1 --set-b X=1)")
    cap = DEFAULT_MAX_GAMES if max_games is None else max_games
    outdir = prepare_out(out, "compare", sa.game, SUMMARY, overwrite)
    preflight(sa, sb)
    if overwrite and outdir.exists():
        clear_out(outdir, SUMMARY)
    outdir.mkdir(parents=True, exist_ok=True)

    wa: list[np.ndarray] = []
    wb: list[np.ndarray] = []
    sweeps = {"a": [], "b": []}
    sprt_info = None
    if test is None:
        for tag, s, acc in (("a", sa, wa), ("b", sb, wb)):
            res = run_sweep(s, outdir / tag, workers=workers, progress=progress)
            acc.append(_codes(res.path, sides))
            sweeps[tag].append(tag)
    else:
        state = SprtState(0.0, 0, 0, None)
        stages = []
        k = 0
        played = 0
        si = sides.index(side)
        while played < cap:
            n = min(stage, cap - played)
            st_seed = stream_seed(sa.seed, STAGE_KEY, k)
            codes = []
            for tag, s in (("a", sa), ("b", sb)):
                sk = dataclasses.replace(s, seed=st_seed, games=n, name=f"variant-{tag}-stage-{k:04d}")
                res = run_sweep(sk, outdir / tag / f"stage-{k:04d}", workers=workers, progress=progress)
                codes.append(_codes(res.path, sides))
                sweeps[tag].append(f"{tag}/stage-{k:04d}")
            wa.append(codes[0])
            wb.append(codes[1])
            ya, yb = codes[0] == si, codes[1] == si
            disc = ya != yb
            before = state.trials
            state = test.scan(yb[disc], state)
            decided_at = None
            if state.decision is not None:
                # the game (1-based, over all stages) whose discordant result crossed a bound
                decided_at = played + int(np.flatnonzero(disc)[state.trials - before - 1]) + 1
            played += n
            rec = {"stage": k, "games": played, "discordant": state.trials, "b_better": state.successes,
                   "llr": state.llr, "lower": test.lower, "upper": test.upper, "decision": state.decision,
                   "decided_at": decided_at}
            stages.append(rec)
            if on_stage:
                on_stage(rec)
            k += 1
            if state.decision is not None:
                break
        sprt_info = {"p0": test.p0, "p1": test.p1, "alpha": test.alpha, "beta": test.beta,
                     "lower": test.lower, "upper": test.upper, "llr": state.llr, "discordant": state.trials,
                     "b_better": state.successes, "decision": state.decision, "games": played,
                     "decided_at": stages[-1]["decided_at"] if stages else None,
                     "stage": stage, "stages": stages,
                     "meaning": f"p = P({side} wins under B | the variants' results for {side} differ)"}
    ca = np.concatenate(wa)
    cb = np.concatenate(wb)
    n = int(ca.size)
    summary = {
        "game": sa.game, "scenario": infos[0][0].scenario, "sides": sides, "side": side, "games": n,
        "seed": sa.seed, "confidence": confidence, "warnings": warnings,
        "variants": {t: {"file": None if fname is None else str(fname), "policies": policy_names(c.policies),
                         "knobs": {x: p.as_dict() for x, p in c.policies.items()}, "options": c.options, "data": s.data,
                         **({"data_edits": dict(c.data)} if c.data else {}),
                         "sides": {x: rate(int((codes == i).sum()), n, confidence) for i, x in enumerate(sides)},
                         "draws": rate(int((codes == -1).sum()), n, confidence)}
                     for t, (c, _), s, codes, fname in (("a", infos[0], sa, ca, a), ("b", infos[1], sb, cb, b))},
        "difference": {},
        "sprt": sprt_info, "sweeps": sweeps,
    }
    for i, x in enumerate(sides):
        summary["difference"][x] = _diff(ca == i, cb == i, confidence)
    summary["draws"] = _diff(ca == -1, cb == -1, confidence)
    if sprt_info is not None:
        summary["note"] = ("the interval is computed after sequential stopping, so it is only approximately "
                           f"{confidence:.0%}")
    write_json(outdir / SUMMARY, summary)
    summary["path"] = str(outdir)
    return summary


def _codes(path: Path, sides) -> np.ndarray:
    _, index, codes = read_outcomes(path, sides)
    return codes[np.argsort(index, kind="stable")]


def _diff(in_a: np.ndarray, in_b: np.ndarray, confidence: float) -> dict:
    t = paired_table(in_b, in_a)
    d, lo, hi = paired_difference(t, confidence)
    disc = t.discordant
    p = float(stats.binomtest(t.first_only, disc).pvalue) if disc else 1.0
    n = t.n
    return {"a_rate": float(in_a.mean()) if n else None, "b_rate": float(in_b.mean()) if n else None,
            "difference": d, "ci": [lo, hi], "b_only": t.first_only, "a_only": t.second_only, "p_value": p}
