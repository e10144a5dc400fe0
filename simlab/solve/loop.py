"""``simlab solve``: a policy population closed under searched best responses (PSRO), with
exploitability estimates.

The loop (Lanctot et al. 2017, "A unified game-theoretic approach to multiagent reinforcement
learning"; the restricted-play view of balance of Jaffe et al., AIIDE 2012):

1. **Meta-game.** Every pairing of the two populations (at first each side's presets) is played
   ``meta_games`` times with common random numbers: game ``k`` of every pairing, in every
   iteration, uses the same stream (master seed ``meta seed``, cell key 0), so only the pairings of
   newly added policies are played. Payoff: the first side's win rate minus the second's (draws
   count 0). The zero-sum game is solved by linear programming
   (:func:`simlab.stats.metagame.solve_zero_sum`); the value's interval is a percentile bootstrap
   over game indices.
2. **Best response.** For each side, CMA-ES searches every family's knob space
   (:mod:`simlab.solve.search`) for the policy with the highest payoff against the other side's
   mix. A candidate plays each opponent in the mix's support on the first ``search_games`` game
   indices of the meta-game, so its gain over the side's own mix is a paired difference on the same
   games (and a deterministic objective for the optimiser).
3. **Confirmation.** The best candidate of each side is replayed against the opponent's support,
   together with the side's own support, on fresh seeds (``confirm_games``); its gain is the mean
   paired difference per game, with a normal 95% interval. It joins the population when the
   interval's lower end is above 0.
4. **Stop** when neither side's confirmed gain is significantly above ``epsilon`` (its interval's
   lower end is at most ``epsilon``), when the next sweep would exceed the game budget, or after
   ``iterations`` iterations; the summary says which.
5. **Closing rollout** (``--method auto``, the default, where the game has a rollout exploiter;
   :mod:`simlab.solve.rollout`): each searching side's rollout exploiter, from its last knob best
   response, plays the other side's final mix on fresh seeds (not charged to the budget); its gain
   is reported beside the knob search's and the exploitability is the larger. A game without one
   says "rollout: not available for GAME".

The **exploitability estimate** of the final mix is the largest confirmed gain any searched
response (knob or rollout) found against it: a *lower bound* on the true figure (a better response may exist that
the search did not find). Every sweep is an ordinary sweep under ``DIR/sweeps/`` (``simlab
report``, ``simlab.load``); the budget counts every game written, and no sweep starts that would
take the total past it. The seed decides everything: the population, values and files do not depend
on the worker count or the backend.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..analysis.common import clear_out, prepare_out, read_outcomes, write_json
from ..analysis.meta import payoff_matrix
from ..errors import SpecError
from ..games import get_game
from ..games.policy import Preset, write_policy_file
from ..rng import mix64
from ..stats.metagame import game_value, solve_zero_sum
from ..stats.tuning import pattern_counts
from ..sweeps.backends import kept_backend
from ..sweeps.runner import run_sweep
from ..sweeps.spec import SweepSpec, expand, spec_from_args, split_kv
from .search import Candidate, FamilySearch

__all__ = ["SUMMARY", "solve"]

SUMMARY = "solve.json"
POLICIES = "policies.toml"
POPULATION = "population.toml"
LOWER_BOUND = ("a lower bound: the largest gain any searched response found against the final mix; "
               "a better response may exist")


class _BudgetOut(Exception):
    """The next sweep would take the games played past the budget."""


def _weights(mix: Mapping[str, float], cut: float = 1e-6) -> dict[str, float]:
    w = {k: float(v) for k, v in mix.items() if v > cut}
    t = sum(w.values())
    return {k: v / t for k, v in w.items()}


def _score(codes: np.ndarray) -> np.ndarray:
    """Winner codes (0 first side, 1 second, -1 draw) as the first side's payoff per game (+1, -1, 0)."""
    return (codes == 0).astype(np.float64) - (codes == 1).astype(np.float64)


def _interval(d: np.ndarray) -> tuple[float, float, float]:
    n = d.shape[0]
    m = float(d.mean())
    h = 1.959963984540054 * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    return m, m - h, m + h


class _Solver:
    def __init__(self, game: str, scenario, set_, data, budget, epsilon, seed, out, overwrite, workers, progress,
                 meta_games, search_games, confirm_games, generations, popsize, iterations, replicates,
                 fixed: Mapping[str, str] | None = None, caveats: bool = False, method: str = "knobs",
                 rollouts: int = 4, rollout_games: int | None = 400):
        self.g = get_game(game)
        from .rollout import AUTO_GAMES, METHODS, has_rollout, not_available
        if method not in METHODS:
            raise SpecError(f"--method {method!r}: one of {', '.join(METHODS)}")
        for name, v, lo in (("--rollouts", rollouts, 1), ("--rollout-games", rollout_games, 2)):
            if v is None and name == "--rollout-games":
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise SpecError(f"{name} must be an integer of at least {lo} (got {v})")
        self.method_requested = method
        #: why no rollout closes this solve (None when one does)
        self.rollout_note: str | None = None
        if method == "auto":  # every solve ends with a rollout response where the game has an exploiter
            method = "both" if has_rollout(self.g) else "knobs"
            if method == "knobs":
                self.rollout_note = not_available(game)
            elif rollout_games is None:  # cheap by default: a confirmation's games, at most AUTO_GAMES
                rollout_games = min(AUTO_GAMES, confirm_games) if isinstance(confirm_games, int) else AUTO_GAMES
        elif method == "knobs":
            self.rollout_note = "off (--method knobs)"
        if rollout_games is None:
            rollout_games = 400
        self.method, self.rollouts, self.rollout_games = method, rollouts, rollout_games
        self.game = game
        if scenario is not None and "," in str(scenario):
            raise SpecError("solve plays one scenario; give a single --scenario")
        for name, v, lo in (("--budget", budget, 1), ("--meta-games", meta_games, 2), ("--search-games", search_games, 2),
                            ("--confirm-games", confirm_games, 2), ("--generations", generations, 1),
                            ("--iterations", iterations, 1), ("--replicates", replicates, 100)):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise SpecError(f"{name} must be an integer of at least {lo} (got {v})")
        if popsize is not None and (not isinstance(popsize, int) or popsize < 2):
            raise SpecError(f"--popsize must be at least 2 (got {popsize})")
        if search_games > meta_games:
            raise SpecError(f"--search-games ({search_games}) cannot exceed --meta-games ({meta_games}): "
                            "the search is paired with the meta-game's first games")
        if not (isinstance(epsilon, (int, float)) and 0 <= epsilon < 2):
            raise SpecError(f"--epsilon must be in [0, 2) (a payoff: win-rate difference), got {epsilon}")
        if not (isinstance(seed, int) and 0 <= seed < 2**64):
            raise SpecError(f"--seed must be in 0..2**64-1 (got {seed})")
        self.set_ = list(set_ or [])
        self.data = str(data) if data else None
        base = spec_from_args(game, scenario=scenario, set_=self.set_, games=1, seed=0, crn=True, data=self.data,
                              name="solve")
        sc = self.g.load_scenario(scenario, self.g.load_data(base.data))
        self.sides = list(sc.sides)
        if len(self.sides) != 2:
            raise SpecError(f"{game} has {len(self.sides)} sides; solve needs two")
        self.scenario, self.scenario_name = scenario, sc.name
        self.fixed = dict(fixed or {})
        for s in self.fixed:
            if s not in self.sides:
                raise SpecError(f"--exploit: unknown side '{s}' (sides: {', '.join(self.sides)})")
        book = self.g.policy_book()
        # presets of a family with a caveat (a solo AI playing by other rules) are left out of the
        # population and the search unless asked for: an equilibrium with them is not a two-player answer
        roster = {s: self.g.scenario_policies(sc, s) for s in self.sides}
        self.excluded = {s: [p for p in roster[s] if not caveats and book.caveat(p)] for s in self.sides}
        self.pop: dict[str, list[str]] = {s: [self.fixed[s]] if s in self.fixed else
                                          [p for p in roster[s] if p not in self.excluded[s]]
                                          for s in self.sides}
        for s in self.sides:
            if not self.pop[s]:
                raise SpecError(f"every policy of {s} has a caveat ({', '.join(self.excluded[s])}): "
                                "pass --include-caveats to solve with them")
        base.policies = {s: [self.pop[s][0]] for s in self.sides}
        _, cells, _ = expand(base)  # bad options, knobs or policies are reported before anything is written
        self.options = cells[0].options
        self.families = {s: [book.families[f] for f in dict.fromkeys(
            book.presets[p].family for p in self.g.side_policies(s) if p not in self.excluded[s])]
            for s in self.sides}
        self.knobs: dict[tuple[str, str], Candidate] = {}
        for s in self.sides:
            for p in self.pop[s]:
                if p in book.presets:
                    pol = book.resolve(s, p)
                    self.knobs[(s, p)] = Candidate(pol.family, pol.knobs)
        first = len(self.pop[self.sides[0]]) * len(self.pop[self.sides[1]]) * meta_games
        if budget < first:  # the first meta-game is the least a solve plays; nothing would be measured
            raise SpecError(f"--budget {budget:,} is too small to play one round: the first meta-game alone is "
                            f"{len(self.pop[self.sides[0]])} x {len(self.pop[self.sides[1]])} policies x "
                            f"{meta_games:,} games = {first:,} (give --budget {first:,} or more, or fewer --meta-games)")
        self.budget, self.epsilon, self.seed = budget, float(epsilon), seed
        self.meta_games, self.search_games, self.confirm_games = meta_games, search_games, confirm_games
        self.generations, self.popsize, self.iterations, self.replicates = generations, popsize, iterations, replicates
        if method == "rollout":
            self.generations = 0  # no knob search: the rollout starts from the side's best policy of its mix
        if method != "knobs":
            from ..games import rollout_games
            if not has_rollout(self.g):  # said before anything is written
                raise SpecError(f"--method {method}: game {game} has no rollout exploiter yet (issue 29; games with "
                                f"one: {', '.join(rollout_games()) or 'none'})")
        self.workers, self.progress = workers, progress
        self.outdir = prepare_out(out, "solve", game, SUMMARY, overwrite)
        self.overwrite = overwrite
        self.meta_seed = mix64(seed ^ 0x50534F52)  # "PSOR"
        self.played = 0
        self.rollout_played = 0  # games of the closing rollout response (not charged to the budget)
        self.sweeps: list[dict] = []
        #: what the sweeps played under (:meth:`_note_conditions`): the solve's conditions stamp
        self.conditions_seen: dict = {"policies": {}}
        self.found: list[Preset] = []
        self.meta: dict[tuple[str, str], np.ndarray] = {}  # (row policy, col policy) -> codes[meta_games]
        self.cache: dict[tuple, np.ndarray] = {}  # (side, candidate key, opponent) -> codes[search_games]
        self.t0 = time.perf_counter()
        self.status = ""

    # ------------------------------------------------------------------ playing
    def _log(self, msg: str) -> None:
        self.status = msg
        if not self.progress:
            return
        dt = time.perf_counter() - self.t0
        rate = self.played / dt if dt > 0 else 0.0
        eta = f"{(self.budget - self.played) / rate:,.0f} s at most" if rate > 0 else "?"
        print(f"solve: {msg} | {self.played:,}/{self.budget:,} games | {rate:,.0f} games/s | ETA {eta}",
              file=sys.stderr, flush=True)

    def _play(self, tag: str, rows: Sequence[str], cols: Sequence[str], games: int, seed: int,
              files: Sequence[str], charge: bool = True) -> dict[tuple[str, str], np.ndarray]:
        """One ordinary sweep of rows x cols (common random numbers) under ``sweeps/<tag>``; with
        ``charge`` False (the closing rollout response) its games are counted apart from ``--budget``."""
        s0, s1 = self.sides
        cost = len(rows) * len(cols) * games
        if charge and self.played + cost > self.budget:
            raise _BudgetOut(tag)
        spec = SweepSpec(name=f"solve-{tag}".replace("/", "-"), game=self.game,
                         scenarios=[self.scenario] if self.scenario else [],
                         policies={s0: list(rows), s1: list(cols)}, options=dict(split_kv(self.set_, "--set")),
                         games=games, seed=int(seed), crn=True, data=self.data,
                         policies_files=[str(f) for f in files])
        path = self.outdir / "sweeps" / tag
        res = run_sweep(spec, path, workers=self.workers, progress=False)
        if not res.ok:
            raise SpecError(f"solve: sweep {path} did not complete ({len(res.failures)} chunk(s) failed)")
        if charge:
            self.played += res.games_played
            self.sweeps.append({"sweep": f"sweeps/{tag}", "games": res.games_played})
        else:
            self.rollout_played += res.games_played
            self.sweeps.append({"sweep": f"sweeps/{tag}", "games": res.games_played, "rollout": True})
        self._note_conditions(res.manifest)
        cell, index, codes = read_outcomes(res.path, self.sides)
        names = {c["cell"]: (c["policies"][s0], c["policies"][s1]) for c in res.manifest["cells"]}
        out = {}
        for cid, pair in names.items():
            m = cell == cid
            order = np.argsort(index[m], kind="stable")
            out[pair] = codes[m][order]
        return out

    def _note_conditions(self, man: dict) -> None:
        """Record what a sweep of the solve played under: its scenario, data pack and game version,
        and each policy's family and full knob vector (the solve's conditions, issue 29)."""
        got = self.conditions_seen
        for c in man.get("cells", []):
            for side, name in c["policies"].items():
                got["policies"].setdefault(side, {})[name] = {"family": c["policy_families"][side],
                                                            "knobs": c["knobs"][side]}
            got["scenario"] = man["scenarios"][c["scenario"]]
        got["data"] = man.get("data")
        got["game_version"] = man.get("game_version")

    def _conditions(self) -> dict | None:
        """The conditions stamp of this solve (:func:`simlab.measured.solve_conditions`), from its
        sweeps' manifests; None before any sweep was played."""
        from ..measured import solve_conditions
        got = self.conditions_seen
        if "scenario" not in got:
            return None
        # the meta-games' policies (the population), not the search sweeps' passing candidates
        pols = {s: {n: v for n, v in ps.items() if n in self.pop.get(s, ())} for s, ps in got["policies"].items()}
        stamp = solve_conditions(self.g, got["scenario"], self.options, got["data"], pols,
                                 "recorded by simlab solve from the manifests of its sweeps")
        stamp["game_version"] = got["game_version"]
        return stamp

    def _files(self) -> list[Path]:
        return [self.outdir / POPULATION] if self.found else []

    def _write_population(self) -> None:
        fams = {p.family for p in self.found}
        book = self.g.policy_book()
        write_policy_file(self.outdir / POPULATION, [book.families[f] for f in sorted(fams)], self.found, {},
                          {"game": self.game}, header="policies found so far by simlab solve (see solve.json)")

    # ------------------------------------------------------------------ the meta-game
    def _meta(self, it: int) -> None:
        s0, s1 = self.sides
        rows, cols = self.pop[s0], self.pop[s1]
        new_rows = [r for r in rows if all((r, c) not in self.meta for c in cols)]
        old_rows = [r for r in rows if r not in new_rows]
        new_cols = [c for c in cols if any((r, c) not in self.meta for r in old_rows)]
        if new_rows:
            self.meta.update(self._play(f"iter-{it:02d}/meta-rows", new_rows, cols, self.meta_games, self.meta_seed,
                                        self._files()))
        if old_rows and new_cols:
            self.meta.update(self._play(f"iter-{it:02d}/meta-cols", old_rows, new_cols, self.meta_games,
                                        self.meta_seed, self._files()))

    def _solve_meta(self) -> dict:
        s0, s1 = self.sides
        rows, cols = self.pop[s0], self.pop[s1]
        m, n = len(rows), len(cols)
        y = np.stack([self.meta[(r, c)] for r in rows for c in cols])
        pats, counts = pattern_counts(y)
        payoff = payoff_matrix(pats, counts, (m, n))
        eq = solve_zero_sum(payoff)
        rng = np.random.default_rng([self.seed & 0xFFFFFFFF, self.seed >> 32, 0x736F6C76, m, n])
        total = int(counts.sum())
        w = rng.multinomial(total, counts / total, size=self.replicates)
        boot = payoff_matrix(pats, w, (m, n))
        vals = np.array([game_value(boot[r]) for r in range(self.replicates)])
        lo, hi = np.quantile(vals, [0.025, 0.975])
        # each policy's exploitability by the population's own responses (a lower bound, with the bootstrap)
        # at least 0 (min_j payoff[i, j] <= payoff(i, col mix) <= value); the LP's rounding can leave -2e-16,
        # which policies.toml's reader refuses (a gain is >= 0), so @mix:DIR of such a solve would not load
        ex_rows = np.maximum(eq.value - payoff.min(axis=1), 0.0)
        ex_cols = np.maximum(payoff.max(axis=0) - eq.value, 0.0)
        b_rows = vals[:, None] - boot.min(axis=2)
        b_cols = boot.max(axis=1) - vals[:, None]
        pe = {s0: {r: {"gain": float(ex_rows[i]), "ci": [float(x) for x in np.quantile(b_rows[:, i], [0.025, 0.975])]}
                   for i, r in enumerate(rows)},
              s1: {c: {"gain": float(ex_cols[j]), "ci": [float(x) for x in np.quantile(b_cols[:, j], [0.025, 0.975])]}
                   for j, c in enumerate(cols)}}
        return {"value": float(eq.value) + 0.0, "value_ci": [float(lo), float(hi)], "payoff": payoff.tolist(),
                "mixes": {s0: dict(zip(rows, map(float, eq.row_mix), strict=True)),
                          s1: dict(zip(cols, map(float, eq.col_mix), strict=True))},
                "population_exploitability": pe}

    # ------------------------------------------------------------------ best responses
    def _search(self, it: int, side: str, mixes: dict) -> dict:
        """CMA-ES over every family of ``side`` against the other side's mix; returns the best found."""
        s0, s1 = self.sides
        first = side == s0
        other = s1 if first else s0
        opp = _weights(mixes[other])
        own = _weights(mixes[side])
        k = self.search_games

        def codes_of(me: str, op: str, n: int) -> np.ndarray:
            return (self.meta[(me, op)] if first else self.meta[(op, me)])[:n]

        def obj(codes_by_opp: Mapping[str, np.ndarray]) -> np.ndarray:
            sign = 1.0 if first else -1.0
            return sign * sum(w * _score(codes_by_opp[o]) for o, w in opp.items())

        inc = sum(wm * obj({o: codes_of(p, o, k) for o in opp}) for p, wm in own.items())
        best = {"gain": -math.inf}
        book = self.g.policy_book()
        searches = []
        for fi, fam in enumerate(self.families[side]):
            members = [p for p in self.pop[side] if (side, p) in self.knobs and self.knobs[(side, p)].family == fam.name]
            start = {}
            if members:
                scores = [float(obj({o: codes_of(p, o, k) for o in opp}).mean()) for p in members]
                start = dict(self.knobs[(side, members[int(np.argmax(scores))])].knobs)
            es_seed = 1 + mix64(self.seed * 1_000_003 + it * 101 + fi * 7 + (0 if first else 3)) % (2**31 - 2)
            searches.append(FamilySearch(fam, start, es_seed, self.popsize))
        for gen in range(self.generations):
            asked = [(fs, fs.ask()) for fs in searches]
            todo = {}
            for _, cands in asked:
                for c in cands:
                    for o in opp:
                        if (side, c.key(), o) not in self.cache:
                            todo.setdefault(c.key(), c)
            if todo:
                names = {key: self._alias(side, c) or f"cand-{side}-{i}" for i, (key, c) in enumerate(todo.items())}
                presets = [Preset(names[key], c.family, dict(c.knobs), (side,)) for key, c in todo.items()
                           if not self._alias(side, c)]
                fams = sorted({c.family for c in todo.values()})
                cfile = self.outdir / "sweeps" / f"iter-{it:02d}" / f"candidates-{side}-{gen:02d}.toml"
                cfile.parent.mkdir(parents=True, exist_ok=True)
                write_policy_file(cfile, [book.families[f] for f in fams], presets, {}, {"game": self.game},
                                  header=f"candidates of generation {gen} of the best-response search for {side}")
                opps = list(opp)
                rows, cols = (list(names.values()), opps) if first else (opps, list(names.values()))
                res = self._play(f"iter-{it:02d}/search-{side}-{gen:02d}", rows, cols, k, self.meta_seed,
                                 self._files() + [cfile])
                for key, nm in names.items():
                    for o in opps:
                        self.cache[(side, key, o)] = res[(nm, o) if first else (o, nm)]
            for fs, cands in asked:
                gains = []
                for c in cands:
                    d = obj({o: self.cache[(side, c.key(), o)] for o in opp}) - inc
                    g = float(d.mean())
                    gains.append(g)
                    if g > best["gain"]:
                        best = {"gain": g, "candidate": c, "generation": gen}
                fs.tell(gains)
            self._log(f"iteration {it}: search {side} generation {gen + 1}/{self.generations}, "
                      f"best gain {best['gain']:+.4f}")
        return best

    def _alias(self, side: str, c: Candidate) -> str | None:
        """The population member or preset that plays exactly ``c`` (a knob-less family's preset:
        games such as ``synthetic`` play a knob-less policy by its name), else None."""
        for (s, p), k in self.knobs.items():
            if s == side and k == c:
                return p
        return None

    def _confirm(self, it: int, side: str, cand: Candidate, mixes: dict) -> dict:
        s0, s1 = self.sides
        first = side == s0
        other = s1 if first else s0
        opp, own = _weights(mixes[other]), _weights(mixes[side])
        name = self._alias(side, cand) or f"confirm-{side}"
        cfile = self.outdir / "sweeps" / f"iter-{it:02d}" / f"confirm-{side}.toml"
        cfile.parent.mkdir(parents=True, exist_ok=True)
        book = self.g.policy_book()
        presets = [] if self._alias(side, cand) else [Preset(name, cand.family, dict(cand.knobs), (side,))]
        write_policy_file(cfile, [book.families[cand.family]], presets,
                          {}, {"game": self.game}, header=f"the best response of {side} at iteration {it}, confirmed")
        mine = [name] + [p for p in own if p != name]
        seed = mix64(self.meta_seed + 0x9E3779B9 * (2 * it + (1 if first else 2)))
        rows, cols = (mine, list(opp)) if first else (list(opp), mine)
        res = self._play(f"iter-{it:02d}/confirm-{side}", rows, cols, self.confirm_games, seed, self._files() + [cfile])
        sign = 1.0 if first else -1.0

        def val(p):
            return sign * sum(w * _score(res[(p, o) if first else (o, p)]) for o, w in opp.items())

        d = val(name) - sum(w * val(p) for p, w in own.items())
        g, lo, hi = _interval(d)
        return {"gain": g, "ci": [lo, hi], "games": self.confirm_games, "seed": int(seed)}

    # ------------------------------------------------------------------ the loop
    def run(self) -> dict:
        if self.overwrite and self.outdir.exists():
            clear_out(self.outdir, SUMMARY)
        self.outdir.mkdir(parents=True, exist_ok=True)
        # a placeholder first, so a solve stopped half-way can be replaced with --overwrite
        write_json(self.outdir / SUMMARY, {"game": self.game, "status": "running"})
        iters: list[dict] = []
        stop = {"reason": "iterations", "detail": f"{self.iterations} iteration(s) done"}
        final = None
        searching = [s for s in self.sides if s not in self.fixed]
        try:
            for it in range(1, self.iterations + 1):
                self._meta(it)
                sol = self._solve_meta()
                rec = {"iteration": it, "population": {s: list(self.pop[s]) for s in self.sides}, **sol,
                       "best_response": {}, "complete": False}
                iters.append(rec)
                self._log(f"iteration {it}: value {sol['value']:+.4f} [{sol['value_ci'][0]:+.4f}, "
                          f"{sol['value_ci'][1]:+.4f}], population {len(self.pop[self.sides[0]])} x "
                          f"{len(self.pop[self.sides[1]])}")
                for side in searching:
                    best = self._search(it, side, sol["mixes"])
                    br = {"search_gain": best["gain"], "search_games": self.search_games}
                    if best["gain"] > 0:
                        c = best["candidate"]
                        br.update({"family": c.family, "knobs": dict(c.knobs), "generation": best["generation"]})
                        br["confirmed"] = self._confirm(it, side, c, sol["mixes"])
                    else:
                        br["confirmed"] = None
                    rec["best_response"][side] = br
                rec["complete"] = True
                rec["games_played"] = self.played
                final = rec
                gains = {s: rec["best_response"][s]["confirmed"] for s in searching}
                if all(g is None or g["ci"][0] <= self.epsilon for g in gains.values()):
                    stop = {"reason": "epsilon", "detail": f"no side's best response gains more than epsilon = "
                            f"{self.epsilon:g} (the lower end of each confirmed gain's 95% interval is at most it)"}
                    break
                if self.fixed:
                    stop = {"reason": "exploit", "detail": "one best-response search against the fixed policy"}
                    break
                added = 0
                for s, g in gains.items():
                    if g is not None and g["ci"][0] > 0:
                        br = rec["best_response"][s]
                        same = self._alias(s, Candidate(br["family"], tuple(br["knobs"].items())))
                        if same is not None:
                            br["added"] = None
                            br["note"] = f"the same policy as {same}, already in the population"
                            continue
                        added += 1
                        name = f"solve-{s}-{it}"
                        self.found.append(Preset(name, br["family"], br["knobs"], (s,),
                                                 f"best response of {s} found by simlab solve at iteration {it}"))
                        self.pop[s].append(name)
                        self.knobs[(s, name)] = Candidate(br["family"], tuple(br["knobs"].items()))
                        br["added"] = name
                self._write_population()
                if not added:
                    stop = {"reason": "epsilon", "detail": "the best responses that gained are already in the "
                            "population (their gain on the search games was sampling noise)"}
                    break
        except _BudgetOut as e:
            stop = {"reason": "budget", "detail": f"the next sweep ({e}) would take the games played past the "
                    f"budget of {self.budget:,}"}
        self.rollout = self._rollout(final) if self.method != "knobs" and final is not None else {}
        return self._summary(iters, final, stop)

    def _rollout(self, final: dict) -> dict:
        """The rollout response of each searching side against the final mix (:mod:`.rollout`),
        from its knob best response (or, without one, its best policy of its mix)."""
        from .rollout import rollout_response
        out = {}
        for side in [s for s in self.sides if s not in self.fixed]:
            br = final["best_response"][side]
            base = None
            if br.get("confirmed") is not None and br.get("family"):
                cand = Candidate(br["family"], tuple(br["knobs"].items()))
                base = {"family": br["family"], "knobs": br["knobs"], "name": self._alias(side, cand)}
            self._log(f"rollout response of {side}: {self.rollout_games:,} games per pairing, {self.rollouts} rollouts")
            try:
                out[side] = rollout_response(self, final["iteration"], side, base, final["mixes"], self.rollouts,
                                             self.rollout_games)
            except SpecError as e:  # e.g. no exploiter for this side's base: the knob figures stand
                out[side] = {"gain": None, "note": f"not played: {e}"}
        return out

    def _summary(self, iters, final, stop) -> dict:
        searching = [s for s in self.sides if s not in self.fixed]
        summary = {"game": self.game, "scenario": self.scenario_name, "sides": self.sides, "options": self.options,
                   "seed": self.seed, "budget": self.budget, "epsilon": self.epsilon, "games_played": self.played,
                   "method": self.method, "method_requested": self.method_requested,
                   "rollout_games_played": self.rollout_played,
                   "settings": {"meta_games": self.meta_games, "search_games": self.search_games,
                                "rollouts": self.rollouts, "rollout_games": self.rollout_games,
                                "confirm_games": self.confirm_games, "generations": self.generations,
                                "popsize": self.popsize, "iterations": self.iterations, "replicates": self.replicates},
                   "payoff_meaning": f"{self.sides[0]} win rate minus {self.sides[1]} win rate (draws count 0)",
                   "stop": stop, "iterations": iters, "sweeps": self.sweeps, "fixed": self.fixed,
                   "excluded": {x: {p: self.g.policy_book().caveat(p) for p in ps}
                                for x, ps in self.excluded.items() if ps}}
        if final is not None:
            per = {}
            for s in searching:
                c = final["best_response"][s]["confirmed"]
                per[s] = c if c is not None else {"gain": 0.0, "ci": None, "games": 0,
                                                  "note": "no searched response beat the mix on the search games"}
            est = max(max(0.0, v["gain"]) for v in per.values()) if per else None
            ex = {"estimate": est, "per_side": per, "meaning": LOWER_BOUND}
            ro = getattr(self, "rollout", {})
            if ro:
                from .rollout import miss_line
                rg = [r["gain"] for r in ro.values() if r.get("gain") is not None]
                r_est = max(max(0.0, g) for g in rg) if rg else None
                ex["per_method"] = {"knobs": est, "rollout": r_est}
                ex["estimate"] = max(x for x in (est, r_est) if x is not None) if (est, r_est) != (None, None) else None
                ex["rollout_per_side"] = ro
                ex["misses"] = [ln for ln in (miss_line(r) for r in ro.values()) if ln]
            if self.rollout_note:
                ex["rollout"] = self.rollout_note
            summary["final"] = {"iteration": final["iteration"], "value": final["value"],
                                "value_ci": final["value_ci"], "mixes": {s: _weights(m) for s, m in final["mixes"].items()},
                                "exploitability": ex}
        else:
            summary["final"] = None
        # what every figure of this solve was measured under (simlab.measured): a sweep under other
        # conditions is told its policies are unmeasured, and which condition differs
        summary["conditions"] = self._conditions()
        self._write_policies(summary, final)
        write_json(self.outdir / SUMMARY, summary)
        summary["path"] = str(self.outdir)
        return summary

    def _write_policies(self, summary: dict, final) -> None:
        book = self.g.policy_book()
        scen = self.scenario_name
        pe = (final or {}).get("population_exploitability", {})
        presets = []
        for p in self.found:
            side = p.sides[0]
            e = pe.get(side, {}).get(p.name)
            ex = {scen: {"gain": e["gain"], "ci": e["ci"], "source": "simlab solve: best population response "
                         "(a lower bound)"}} if e else {}
            presets.append(Preset(p.name, p.family, p.knobs, p.sides, p.doc, ex))
        fams = sorted({p.family for p in presets})
        f = summary.get("final")
        meta = {"game": self.game, "scenario": scen, "seed": self.seed, "budget": self.budget,
                "games_played": self.played, "stop": summary["stop"]["reason"]}
        if f is not None:
            meta["value"] = f["value"]
            meta["value_ci"] = f["value_ci"]
            if f["exploitability"]["estimate"] is not None:
                meta["exploitability"] = f["exploitability"]["estimate"]
            meta["exploitability_meaning"] = LOWER_BOUND
        found = {p.name for p in self.found}
        exploits = {s: {p: {**e, "source": "simlab solve: best population response (a lower bound)"}
                        for p, e in recs.items() if p not in found} for s, recs in pe.items()}
        write_policy_file(self.outdir / POLICIES, [book.families[x] for x in fams], presets,
                          f["mixes"] if f is not None and not self.fixed else {}, meta, exploits=exploits,
                          header=f"written by simlab solve {self.game} (seed {self.seed}, budget {self.budget:,}); "
                          "use with --policies-file or --policy SIDE=@mix:DIR")


def parse_exploit(exploit: str | None) -> dict[str, str] | None:
    """``--exploit SIDE=POLICY`` as ``{side: policy}`` (None when not given).

    Raises:
        SpecError: no ``=`` in it.
    """
    if exploit is None:
        return None
    if "=" not in exploit:
        raise SpecError(f"--exploit {exploit!r}: expected SIDE=POLICY")
    s, p = (x.strip() for x in exploit.split("=", 1))
    return {s: p}


def solve(game: str, *, scenario: str | None = None, set_: Sequence[str] = (), grid: Sequence[str] = (),
          data: str | Path | None = None, budget: int = 200_000, epsilon: float = 0.01, seed: int = 0,
          out: str | Path | None = None, overwrite: bool = False, workers: int | None = None,
          backend: str | None = None, scheduler=None, progress: bool = True, meta_games: int = 2000,
          search_games: int = 400, confirm_games: int = 4000, generations: int = 6, popsize: int | None = None,
          iterations: int = 10, replicates: int = 200, exploit: str | None = None,
          include_caveats: bool = False, method: str = "auto", rollouts: int = 4, rollout_games: int | None = None) -> dict:
    """Search a population of policies closed under best response, with an exploitability estimate.

    Args:
        game: a two-sided registered game; scenario, set_, data: as for ``simlab sweep`` (one
            scenario; ``set_`` may set options and ``SIDE.KNOB`` knobs of the presets).
        grid: refused here (one option setting); :func:`simlab.solve.solve` sends a grid to
            :func:`simlab.solve.grid.solve_grid` (one solve per setting).
        budget: the most games the whole solve plays (every sweep counted; none starts past it).
        epsilon: stop when no side's confirmed gain is significantly above this (payoff units).
        seed: the seed of everything (sweeps and the optimiser).
        out: the output directory (default ``results/solve-<game>-<time>``); overwrite: replace a
            previous solve there.
        workers, backend, scheduler: where the sweeps run (results do not depend on them).
        progress: one line per step on stderr (iteration, best gain, games/s, ETA).
        meta_games, search_games, confirm_games: games per pairing of the meta-game, of a search
            candidate, of a confirmation; generations, popsize: CMA-ES generations per search and
            candidates per generation (None: CMA-ES's default); iterations: the most iterations;
            replicates: bootstrap replicates of the value.
        exploit: ``SIDE=POLICY``: measure one policy instead (the other side searches a best response
            against it, one iteration).
        include_caveats: also use the presets and families that carry a caveat (e.g. Mar Rojo's solo
            AI, whose cards never take stress, Rule 12.1); by default they are left out (listed under
            ``excluded`` in the summary), since an equilibrium with them is not a two-player answer.
        method: ``auto`` (the default: ``both`` where the game has a rollout exploiter, else
            ``knobs`` and the summary says "rollout: not available for GAME"), ``knobs`` (the knob
            search only: the closing rollout turned off), ``rollout`` (no knob search: the game's
            rollout exploiter from each side's best policy of its mix) or ``both`` (the knob search,
            then the rollout exploiter from the knob best response against the final mix); the
            exploitability is the larger gain (:mod:`simlab.solve.rollout`).
        rollouts, rollout_games: the rollout exploiter's play-outs per candidate and decision (``R``),
            and its games per opponent pairing (fresh seeds); ``rollout_games`` None: 400 with an
            explicit ``rollout``/``both``, ``min(100, confirm_games)`` for ``auto`` (cheap by default).
            The rollout response's games are not charged to ``budget`` (``rollout_games_played``).

    Returns:
        The summary written to ``DIR/solve.json`` (see docs/solve.md), plus ``path``.

    Raises:
        SpecError, ScenarioError, DataPackError: bad input (nothing written).
        SweepStateError: ``out`` is not usable.
    """
    from ..sweeps.backends import sweep_backend
    if grid:
        # simlab.solve.solve (simlab/solve/__init__.py) sends a grid to simlab.solve.grid.solve_grid
        raise SpecError("loop.solve takes one option setting: call simlab.solve.solve for a --grid")
    fixed = parse_exploit(exploit)
    with sweep_backend(backend, scheduler, workers), kept_backend(workers):
        solver = _Solver(game, scenario, set_, data, budget, epsilon, seed, out, overwrite, workers, progress,
                         meta_games, search_games, confirm_games, generations, popsize, iterations, replicates, fixed,
                         caveats=include_caveats, method=method, rollouts=rollouts, rollout_games=rollout_games)
        return solver.run()
