"""Issue 30's check: rank every Dawn of Empire port's defense by its effect on the US mean score, then confirm
the ranking with a one-at-a-time sweep of the top-ranked and the last-ranked port over their plausible ranges.

    PYTHONPATH=. python experiments/doe_port_defense_ranking.py [OUT] [TRAJECTORIES] [GAMES] [OAT_GAMES]

Plays ``us=blockade`` (the default ``hunter`` never blockades, so no Spanish port's defense is ever read),
the rest at the defaults, seed 1898 everywhere. Writes ``OUT/ranking.json`` (the figures docs/designer.md
quotes) beside the sensitivity directory and the one-at-a-time sweeps.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import simlab
from simlab.solve.sensitivity import sensitivity


def main(out: Path, trajectories: int, games: int, oat_games: int) -> dict:
    t0 = time.perf_counter()
    res = sensitivity("dawn-of-empire", values=["ports.*.defense"], trajectories=trajectories, games=games,
                      output="score", side="us", policy=["us=blockade"], seed=1898, out=out / "sensitivity",
                      overwrite=True, workers=2, progress=False)
    t_sens = time.perf_counter() - t0
    ranked = res["factors"]
    oat = {}
    for f in (ranked[0], ranked[-1]):
        _, key, _ = f["name"].split(".", 2)
        lo, hi = (f.get("ranges") or [None])[0] or (max(1, round(f["base"][0] * 0.5)), round(f["base"][0] * 1.5))
        r = simlab.sweep(game="dawn-of-empire", policy=["us=blockade"], grid=[f"data.ports.{key}.defense={lo},{hi}"],
                         games=oat_games, seed=1898, crn=True, workers=2, out=out / f"oat-{key}", overwrite=True,
                         progress=False)
        df = simlab.load(r.path)
        col = f"data_ports_{key.replace('-', '_')}_defense"
        means = df.groupby(col)["score_us"].agg(["mean", "sem"])
        # paired on common random numbers: game i at lo against game i at hi
        a = df[df[col] == lo].sort_values("game")["score_us"].to_numpy(float)
        b = df[df[col] == hi].sort_values("game")["score_us"].to_numpy(float)
        d = b - a
        se = float(d.std(ddof=1) / len(d) ** 0.5)
        oat[f["name"]] = {"range": [lo, hi], "score_us": {str(k): float(v) for k, v in means["mean"].items()},
                          "change": float(d.mean()), "change_ci": [float(d.mean() - 1.96 * se), float(d.mean() + 1.96 * se)],
                          "games": oat_games}
    top, last = ranked[0]["name"], ranked[-1]["name"]
    summary = {"ranking": [{"name": f["name"], "base": f["base"][0], "range": (f.get("ranges") or [None])[0],
                            "mu_star": f["mu_star"], "mu_star_ci": f["mu_star_ci"], "sigma": f["sigma"], "mu": f["mu"]}
                           for f in ranked],
               "points": res["points"], "games_per_point": games, "sensitivity_seconds": round(t_sens, 1),
               "one_at_a_time": oat,
               "confirmed": abs(oat[top]["change"]) >= abs(oat[last]["change"]),
               "seconds": round(time.perf_counter() - t0, 1)}
    (out / "ranking.json").write_text(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    a = sys.argv[1:]
    s = main(Path(a[0]) if a else Path("results/doe-port-ranking"), int(a[1]) if len(a) > 1 else 10,
             int(a[2]) if len(a) > 2 else 1000, int(a[3]) if len(a) > 3 else 4000)
    print(json.dumps(s, indent=2))
