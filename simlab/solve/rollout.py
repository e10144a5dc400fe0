"""The rollout response of ``simlab solve --method rollout|both`` (issue 29): a best response that is
not confined to the policy knobs.

The knob search (:mod:`simlab.solve.loop`) finds the best *knob setting* against a policy; its gain
is a lower bound on the exploitability confined to the families. The rollout exploiter of a game
(a game's ``resolve_rollout``; the policy ``@rollout:BASE:R``) improves a base
policy by Monte Carlo policy improvement at every decision of its side (every legal option tried,
each played on ``R`` times from states whose hidden part is resampled from the side's view), so it
can play plans no knob vector holds. Its gain is a second lower bound; the exploitability reported
is the larger of the two, still a lower bound.

:func:`rollout_response` plays one sweep against the fixed opponent on fresh seeds (``games`` games,
common random numbers): the rollout policy, the knob best response it starts from (its base) and
the side's own mix, so that both gains (over the side's own mix, the knob search's scale) and
their difference are paired on the same games, each with a normal 95% interval.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np

from ..errors import SpecError
from ..games.policy import ROLLOUT_PREFIX, Preset, using_policies, write_policy_file
from ..rng import mix64

__all__ = ["AUTO_GAMES", "METHODS", "has_rollout", "miss_line", "not_available", "rollout_response"]

#: the values of ``--method`` (``auto``, the default: ``both`` where the game has a rollout exploiter)
METHODS = ("auto", "knobs", "rollout", "both")
#: games per opponent pairing of the rollout response that closes a default (``auto``) solve, at most
AUTO_GAMES = 100
#: a rollout gain is called significant when the lower end of its interval over the knob gain is above 0
MISS = "a plan outside the families gains {d:+.3f} [{lo:+.3f}, {hi:+.3f}] over the knob best response; the families miss something"


def has_rollout(game) -> bool:
    """Whether the game plug-in ``game`` has a rollout exploiter (overrides ``Game.resolve_rollout``)."""
    from ..games.base import Game
    return type(game).resolve_rollout is not Game.resolve_rollout


def not_available(game: str) -> str:
    """The line a solve of ``game`` (a game without a rollout exploiter) reports instead of a rollout gain."""
    return f"not available for {game} (the game has no rollout exploiter; the knob search's figure stands alone)"


def _interval(d: np.ndarray) -> tuple[float, float, float]:
    n = d.shape[0]
    m = float(d.mean())
    h = 1.959963984540054 * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    return m, m - h, m + h


def _weights(mix: Mapping[str, float], cut: float = 1e-6) -> dict[str, float]:
    """The mix's support (weights above ``cut``), renormalised (as :mod:`.loop` weighs a mix)."""
    w = {k: float(v) for k, v in mix.items() if v > cut}
    t = sum(w.values())
    return {k: v / t for k, v in w.items()}


def _score(codes: np.ndarray) -> np.ndarray:
    return (codes == 0).astype(np.float64) - (codes == 1).astype(np.float64)


def rollout_response(solver, it: int, side: str, base: Mapping | None, mixes: Mapping[str, Mapping[str, float]],
                     rollouts: int, games: int) -> dict:
    """Play the rollout exploiter of ``side`` against the other side's mix and measure its gain.

    Args:
        solver: the running :class:`simlab.solve.loop._Solver` (its sweeps, files and seed).
        it: the iteration the responses belong to (the sweep goes under ``sweeps/iter-<it>/``).
        side: the responding side.
        base: the knob best response to start from, ``{"family", "knobs", "name"}`` (``name``
            set when it is a preset already), or None: the side's best policy of its own mix.
        mixes: ``{side: {policy: weight}}`` at iteration ``it``.
        rollouts: play-outs per candidate and decision (``R``, >= 1); games: games per pairing.

    Returns:
        ``{"base", "rollouts", "games", "seed", "gain", "ci", "knob_gain", "knob_ci", "over_knobs":
        {"gain", "ci"}, "seconds", "rollout_games_per_second", "significant"}``: gains over the
        side's own mix (win-rate difference, the side's sign), paired on the same games.

    Raises:
        SpecError: the game has no rollout exploiter (raised by the game before anything plays).
    """
    s0, s1 = solver.sides
    first = side == s0
    other = s1 if first else s0
    opp, own = _weights(mixes[other]), _weights(mixes[side])
    files = list(solver._files())
    book = solver.g.policy_book()
    if base is not None and base.get("name"):
        bname = base["name"]
    elif base is not None:
        bname = f"rollout-base-{side}"
        bfile = solver.outdir / "sweeps" / f"iter-{it:02d}" / f"rollout-base-{side}.toml"
        bfile.parent.mkdir(parents=True, exist_ok=True)
        write_policy_file(bfile, [book.families[base["family"]]], [Preset(bname, base["family"], dict(base["knobs"]),
                                                                          (side,))], {}, {"game": solver.game},
                          header=f"the base of {side}'s rollout response at iteration {it} (its knob best response)")
        files.append(bfile)
    else:
        bname = max(own, key=own.get)
    rname = f"{ROLLOUT_PREFIX}{bname}:{int(rollouts)}"
    try:
        with using_policies(*files):
            solver.g.resolve_rollout(side, rname)
    except SpecError as e:
        raise SpecError(f"--method rollout: {e}") from None
    mine = [rname, bname] + [p for p in own if p not in (rname, bname)]
    seed = mix64(solver.meta_seed + 0x526F6C6C * (2 * it + (1 if first else 2)))
    rows, cols = (mine, list(opp)) if first else (list(opp), mine)
    t0 = time.perf_counter()
    res = solver._play(f"iter-{it:02d}/rollout-{side}", rows, cols, games, seed, files, charge=False)
    dt = time.perf_counter() - t0
    sign = 1.0 if first else -1.0

    def val(p):
        return sign * sum(w * _score(res[(p, o) if first else (o, p)]) for o, w in opp.items())

    ref = sum(w * val(p) for p, w in own.items())
    g, lo, hi = _interval(val(rname) - ref)
    kg, klo, khi = _interval(val(bname) - ref)
    d, dlo, dhi = _interval(val(rname) - val(bname))
    n_rollout = games * len(opp)
    return {"base": bname, "rollouts": int(rollouts), "games": games, "seed": int(seed), "gain": g, "ci": [lo, hi],
            "knob_gain": kg, "knob_ci": [klo, khi], "over_knobs": {"gain": d, "ci": [dlo, dhi]},
            "seconds": dt, "rollout_games_per_second": n_rollout / dt if dt > 0 else None,
            "significant": bool(dlo > 0),
            "meaning": "gain of the rollout exploiter over the side's own mix on fresh seeds (a lower bound not "
                       "confined to the knobs); knob_gain: its base on the same games"}


def miss_line(r: Mapping) -> str | None:
    """The line saying the families miss a plan, when the rollout gain over the knob response is
    significant (its interval's lower end above 0); None otherwise."""
    if not r.get("significant"):
        return None
    o = r["over_knobs"]
    return MISS.format(d=o["gain"], lo=o["ci"][0], hi=o["ci"][1])
