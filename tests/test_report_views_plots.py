"""Issue 19, "report and plots": the win-rate matrix of a policy grid, ``report --where/--sort/
--columns``, fixed side colours, readable heat-map labels, the tune plot's second axis, titles,
the compare table's A and B, the SPRT path plot, and tune's answer-first output and range hints.

Every figure is checked against values computed here independently (DuckDB/pandas over the
Parquet parts, the Wilson formula written out, WCAG's luminance formula, the SPRT's LLR steps)."""

import io
import json
import math
from pathlib import Path

import duckdb
import nbformat
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb
from matplotlib.image import AxesImage

import simlab
from simlab.cli import main
from simlab.colors import DRAW_COLOR, contrast_ratio, relative_luminance, side_colors, text_color
from simlab.errors import InputError
from simlab.plot_kinds import categorical_winrate_figure, sprt_figure, sprt_path, sweep_matrix_figure
from simlab.plots import matrix_figure, scores_figure, tune_figure, winrate_figure
from simlab.views import apply_view, policy_matrices

FAST = {"workers": 1, "progress": False}
Z95 = 1.959963984540054


def wilson(k, n, z=Z95):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (0.0 if k == 0 else c - h), (1.0 if k == n else c + h)


@pytest.fixture(scope="module")
def rps(tmp_path_factory):
    """A 3 x 2 policy grid of the synthetic coin (rock/paper/scissors cycle, ties drawn at 10%)."""
    out = tmp_path_factory.mktemp("rps") / "s"
    simlab.sweep(game="synthetic", policy=["red=rock,paper,scissors", "blue=rock,paper"], games=500, seed=3,
                 out=out, **FAST)
    return out


def duck_rates(path: Path) -> pd.DataFrame:
    """Per cell: games and each side's wins, from the Parquet parts by DuckDB, joined with the
    cells' policies from the manifest."""
    man = json.loads((path / "manifest.json").read_text())
    games = duckdb.sql(f"select cell, count(*) as n, sum((winner = 'red')::int) as red, "
                       f"sum((winner = 'blue')::int) as blue from read_parquet('{path}/games/*/*.parquet') "
                       "group by cell order by cell").df()
    pol = pd.DataFrame([{"cell": c["cell"], "pr": c["policies"]["red"], "pb": c["policies"]["blue"]}
                        for c in man["cells"]])
    return games.merge(pol, on="cell")


# --------------------------------------------------------------------------- the matrix
def test_matrix_cells_are_the_win_rates_duckdb_computes(rps):
    rows = simlab.report(rps)
    (m,) = policy_matrices(rows, ["red", "blue"])
    assert (m["row_side"], m["col_side"], m["rows"], m["cols"]) == ("red", "blue", ["rock", "paper", "scissors"],
                                                                    ["rock", "paper"])
    d = duck_rates(rps)
    for _, r in d.iterrows():
        c = m["cells"][m["rows"].index(r.pr)][m["cols"].index(r.pb)]
        assert c["games"] == r.n == 500
        for s in ("red", "blue"):
            k = int(r[s])
            assert c["sides"][s]["win_rate"] == pytest.approx(k / r.n, abs=1e-12)
            assert c["sides"][s]["ci"] == pytest.approx(wilson(k, int(r.n)), abs=1e-12)
    # the game: rock beats scissors, paper rock, scissors paper (synthetic.py); red's best cell
    best = max(((i, j) for i in range(3) for j in range(2)), key=lambda ij: m["cells"][ij[0]][ij[1]]["sides"]["red"]["win_rate"])
    assert (m["rows"][best[0]], m["cols"][best[1]]) == ("paper", "rock")


def test_report_prints_the_matrix_with_intervals(rps, capsys):
    assert main(["report", str(rps)]) == 0
    out = capsys.readouterr().out
    assert "synthetic: red win rate, % [95% CI]" in out and "red \\ blue" in out and "rows: red's policy" in out
    d = duck_rates(rps)
    for _, r in d.iterrows():
        lo, hi = wilson(int(r.red), int(r.n))
        assert f"{100 * r.red / r.n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]" in out
    line = next(x for x in out.splitlines() if x.strip("│ ").startswith("scissors ") and "[" in x)
    assert line.count("[") == 2  # one cell per blue policy


def test_plot_matrix_of_a_sweep_draws_the_same_rates(rps, tmp_path):
    fig = sweep_matrix_figure(rps)
    ims = [a for ax in fig.axes for a in ax.get_images()]
    assert len(ims) == 1
    d = duck_rates(rps)
    arr = np.asarray(ims[0].get_array())
    rows, cols = ["rock", "paper", "scissors"], ["rock", "paper"]
    for _, r in d.iterrows():
        assert arr[rows.index(r.pr), cols.index(r.pb)] == pytest.approx(r.red / r.n, abs=1e-12)
    # the default kind of a sweep with two policy axes is the matrix
    assert simlab.plot(rps, out=tmp_path / "m.png").name == "m.png"
    assert main(["plot", str(rps), "--kind", "matrix", "--out", str(tmp_path / "m2.svg")]) == 0
    # a meta-game's sweep gives the matrix its meta.json gives
    m = simlab.meta("synthetic", policies=["red=rock,paper", "blue=rock,scissors"], games=300, replicates=100,
                    out=tmp_path / "meta", **FAST)
    (sm,) = policy_matrices(simlab.report(Path(m["path"]) / "sweep"), ["red", "blue"])
    for i in range(2):
        for j in range(2):
            assert sm["cells"][i][j]["sides"]["red"]["win_rate"] == pytest.approx(m["cells"][i][j]["sides"]["red"]["rate"])


def test_winrate_bars_on_a_categorical_axis(rps):
    fig = categorical_winrate_figure(rps, "policy_red")
    ax = fig.axes[0]
    d = duck_rates(rps).sort_values(["pr", "pb"], key=lambda s: s.map({"rock": 0, "paper": 1, "scissors": 2}))
    red = [p for p in ax.patches if to_rgb(p.get_facecolor()) == to_rgb(side_colors("synthetic", ["red"])["red"])]
    assert len(red) == 6
    heights = sorted(p.get_height() for p in red)
    assert heights == pytest.approx(sorted((d.red / d.n).tolist()), abs=1e-12)
    # the interval bars: one errorbar collection per series, each segment the Wilson interval
    segs = [np.asarray(c.get_segments()) for c in ax.collections if len(c.get_segments()) == 6]
    want = sorted(tuple(round(v, 9) for v in wilson(int(k), int(n))) for k, n in zip(d.red, d.n, strict=True))
    got = [sorted((round(s[0][1], 9), round(s[1][1], 9)) for s in seg) for seg in segs]
    assert want in got
    # winrate on a sweep without a numeric axis draws these bars
    assert len(winrate_figure(rps).axes[0].patches) == len(ax.patches)


# --------------------------------------------------------------------------- --where --sort --columns
def test_report_where_sort_columns_match_pandas(rps, capsys):
    d = duck_rates(rps)
    want = d[d.pr == "rock"].assign(wb=lambda x: x.blue / x.n).sort_values("wb", ascending=False)
    code = main(["report", str(rps), "--csv", "--where", "policy_red=rock", "--sort", "-win_rate_blue",
                 "--columns", "cell,policy_blue,win_rate_blue"])
    assert code == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(got.columns) == ["cell", "policy_blue", "win_rate_blue"]
    assert got.cell.tolist() == want.cell.tolist()
    assert got.win_rate_blue.tolist() == pytest.approx(want.wb.tolist(), abs=1e-12)
    # two --where items are both applied; the table form shows the chosen columns only
    assert main(["report", str(rps), "--where", "policy_red=paper", "--where", "policy_blue=rock",
                 "--columns", "cell,wins_red,games"]) == 0
    out = capsys.readouterr().out
    cell = int(d[(d.pr == "paper") & (d.pb == "rock")].cell.iloc[0])
    row = next(x for x in out.splitlines() if x.startswith("│"))
    assert row.split("│")[1:4] == [f" {cell} ".rjust(len(row.split('│')[1])),
                                  f" {int(d[d.cell == cell].red.iloc[0])} ".rjust(len(row.split('│')[2])),
                                  " 500 ".rjust(len(row.split("│")[3]))]
    assert "red \\ blue" not in out  # a single pairing left: no matrix


def test_where_compares_numbers_as_numbers(tmp_path):
    rows = [{"cell": i, "params": {"bias": b}, "games": 10, "draws": 0, "draw_rate": 0.0, "mean_turns": 1.0,
             "sides": {"red": {"wins": w, "win_rate": w / 10, "ci": [0, 1], "mean_score": 0.0, "score_se": 0.0}}}
            for i, (b, w) in enumerate([(0.3, 4), (1.0, 7), (0.5, 5)])]
    kept, cols = apply_view(rows, ["bias=0.30"])
    assert [r["cell"] for r in kept] == [0] and cols is None
    kept, _ = apply_view(rows, [], sort="-win_rate_red")
    assert [r["cell"] for r in kept] == [1, 2, 0]
    kept, _ = apply_view(rows, [], sort="bias")
    assert [r["cell"] for r in kept] == [0, 2, 1]


@pytest.mark.parametrize("args,needle", [
    (["--where", "policy_red=rok"], "no cell has policy_red = rok (its values: paper, rock, scissors)"),
    (["--where", "polcy_red=rock"], "did you mean 'policy_red'?"),
    (["--where", "rock"], "expected KEY=VALUE"),
    (["--sort", "win_rat_red"], "did you mean 'win_rate_red'?"),
    (["--sort", "-nope"], "no column 'nope'"),
    (["--columns", "cell,nope"], "no column 'nope'"),
    (["--columns", ","], "give column names"),
])
def test_report_view_bad_values_one_line_exit_2(rps, capsys, args, needle):
    assert main(["report", str(rps), *args]) == 2
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and cap.out == "", cap.err


# --------------------------------------------------------------------------- colours
def test_every_game_declares_a_distinct_colour_for_each_side_of_its_scenarios():
    from simlab.games import game_names, game_target, get_game
    # the games simlab ships (plug-ins other test modules register at collection time declare none)
    for name in [n for n in game_names() if game_target(n).startswith("simlab.")]:
        g = get_game(name)
        pack = g.load_data(None)
        for scen in g.scenarios:
            sides = g.load_scenario(scen, pack).sides
            assert set(sides) <= set(g.side_colors), (name, scen, sides)
            cols = side_colors(name, sides)
            assert len({c.lower() for c in cols.values()}) == len(sides), (name, scen)
            assert DRAW_COLOR not in cols.values()


def test_undeclared_sides_get_a_stable_palette_colour():
    a = side_colors(None, ["north", "south", "east"])
    assert a == side_colors("no-such-game", ["north", "south", "east"]) and len(set(a.values())) == 3
    assert side_colors(None, ["east"])["east"] == side_colors(None, ["east", "west"])["east"]


def _rgb_of(artist):
    get = getattr(artist, "get_color", None) or artist.get_facecolor
    c = get()
    return to_rgb(c if isinstance(c, str) or np.ndim(c) == 1 else c[0])


def test_a_side_has_one_colour_in_every_kind_of_figure(tmp_path):
    sw = simlab.sweep(game="synthetic", grid=["bias=0.2,0.6"], games=300, seed=2, out=tmp_path / "s", **FAST).path
    cat = simlab.sweep(game="synthetic", grid=["threshold=1,3"], scenario="dice-race", games=200, seed=2,
                       out=tmp_path / "c", **FAST).path
    t = simlab.tune("synthetic", scenario="dice-race", param="handicap", range_="0:6", games=300, replicates=100,
                    out=tmp_path / "t", **FAST)
    want = {s: to_rgb(c) for s, c in side_colors("synthetic", ["red", "blue"]).items()}
    assert want == {"red": to_rgb("#d62728"), "blue": to_rgb("#1f77b4")}
    figs = {"winrate": winrate_figure(sw), "scores": scores_figure(sw), "tune": tune_figure(t),
            "bars": categorical_winrate_figure(cat, "threshold")}
    for kind, fig in figs.items():
        seen = {"red": set(), "blue": set()}
        for ax in fig.axes:
            for art in list(ax.lines) + list(ax.patches) + list(ax.containers):
                label = getattr(art, "get_label", lambda: "")()
                for s in seen:
                    if label.startswith(f"{s} "):
                        target = art[0] if isinstance(art, tuple) or hasattr(art, "lines") else art
                        if hasattr(art, "patches") and art.patches:
                            target = art.patches[0]
                        elif hasattr(art, "lines") and art.lines:
                            target = art.lines[0]
                        seen[s].add(_rgb_of(target))
        for s in seen:
            assert seen[s] == {want[s]}, (kind, s, seen[s])


# --------------------------------------------------------------------------- contrast
def test_contrast_rule_and_wcag_values():
    assert contrast_ratio("black", "white") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "white") == pytest.approx(4.48, abs=0.005)  # WCAG's classic example
    assert relative_luminance("white") == pytest.approx(1.0) and relative_luminance("black") == 0.0
    assert text_color("white") == "black" and text_color("black") == "white"
    assert text_color("#1f3f8f") == "white" and text_color("#ffd700") == "black"
    # the better of black and white reaches 4.5 on any background (its minimum is about 4.58)
    for g in np.linspace(0, 1, 401):
        bg = (g, g, g)
        assert contrast_ratio(bg, text_color(bg)) >= 4.5


def test_heat_map_labels_are_readable_on_every_cell():
    # a meta summary whose payoffs run from -1 to +1, so that cells are dark at both ends
    pay = [[-1.0, -0.3, 0.0], [0.4, 0.8, 1.0]]
    cells = [[{"sides": {"us": {"rate": (1 + p) / 2}, "spain": {"rate": (1 - p) / 2}}} for p in row] for row in pay]
    summary = {"game": "doe-battle", "scenario": "puerto-rico-passage", "sides": ["us", "spain"],
               "policies": {"us": ["a", "b"], "spain": ["x", "y", "z"]}, "payoff": pay, "cells": cells,
               "mixes": {"us": {"a": 0.5, "b": 0.5}, "spain": {"x": 1.0, "y": 0.0, "z": 0.0}},
               "value": 0.1, "value_ci": [0.0, 0.2]}
    fig = matrix_figure(summary)
    ax = fig.axes[0]
    im = next(a for a in ax.get_children() if isinstance(a, AxesImage))
    texts = [t for t in ax.texts]
    assert len(texts) == 6
    used = set()
    for t in texts:
        j, i = (round(v) for v in t.get_position())
        bg = im.cmap(im.norm(pay[i][j]))
        assert t.get_color() == text_color(bg)
        assert contrast_ratio(bg, t.get_color()) >= 4.5
        used.add(t.get_color())
    assert used == {"black", "white"}


# --------------------------------------------------------------------------- tune plot and titles
def test_tune_plot_puts_the_share_of_decided_games_on_its_own_axis(tmp_path):
    t = simlab.tune("synthetic", scenario="dice-race", param="handicap", range_="0:6", games=300, replicates=100,
                    out=tmp_path / "t", **FAST)
    fig = tune_figure(t)
    assert len(fig.axes) == 2
    ax, bx = fig.axes
    assert "share of decided games" in bx.get_ylabel() and "win rate" in ax.get_ylabel()
    assert not any("share of decided" in ln.get_label() for ln in ax.lines)
    shares = [ln for ln in bx.lines if "share of decided games won by red" in ln.get_label()]
    assert len(shares) == 1 and list(shares[0].get_ydata()) == pytest.approx(t["curve"]["fair"]["y"])
    assert bx.get_legend() is not None and any("share of decided" in x.get_text() for x in bx.get_legend().get_texts())
    assert ax.get_legend() is not None
    # with a target the fitted curve is a win rate, drawn on the win-rate axis: no second axis
    t2 = simlab.tune("synthetic", scenario="dice-race", param="handicap", range_="0:6", games=300, replicates=100,
                     target=0.4, out=tmp_path / "t2", **FAST)
    assert len(tune_figure(t2).axes) == 1


def test_titles_name_game_and_scenario_once(rps, tmp_path):
    sw = simlab.sweep(game="synthetic", grid=["bias=0.2,0.6"], games=100, seed=2, out=tmp_path / "s", **FAST).path
    for fig in (winrate_figure(sw), scores_figure(sw), sweep_matrix_figure(rps), categorical_winrate_figure(rps)):
        title = " ".join(x.get_text() for x in [fig._suptitle] if x) + " ".join(ax.get_title() for ax in fig.axes)
        assert title.count("synthetic") == 1 and title.count("coin") == 1, title


# --------------------------------------------------------------------------- compare
def test_compare_table_names_a_and_b(tmp_path, capsys):
    assert main(["compare", "--game", "synthetic", "--set-a", "bias=0.3", "--set-b", "bias=0.6", "--games", "300",
                 "--workers", "1", "--no-progress", "--out", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    title = [x.strip() for x in out.splitlines()[:3]]
    assert title[1:] == ["A = bias=0.3", "B = bias=0.6"], title
    for tag, bias in (("a", 0.3), ("b", 0.6)):
        (tmp_path / f"{tag}.toml").write_text(
            f'[experiment]\ngame = "synthetic"\ngames = 200\nseed = 4\n[options]\nbias = {bias}\n')
    assert main(["compare", str(tmp_path / "a.toml"), str(tmp_path / "b.toml"), "--workers", "1", "--no-progress",
                 "--out", str(tmp_path / "f")]) == 0
    out = capsys.readouterr().out
    title = [x.strip() for x in out.splitlines()[:3]]
    assert title[1:] == [f"A = {tmp_path / 'a.toml'} (bias=0.3)", f"B = {tmp_path / 'b.toml'} (bias=0.6)"], title
    summary = json.loads((tmp_path / "f" / "compare.json").read_text())
    assert summary["variants"]["a"]["file"] == str(tmp_path / "a.toml")
    assert summary["variants"]["b"]["file"] == str(tmp_path / "b.toml")


def test_sprt_plot_draws_the_path_to_its_bound(tmp_path):
    c = simlab.compare(game="synthetic", set_a=["bias=0.3"], set_b=["bias=0.45"], sprt="0.5,0.6", stage=150,
                       seed=5, out=tmp_path / "c", **FAST)
    sp = c["sprt"]
    assert sp["decision"] is not None and len(sp["stages"]) >= 2  # the path crosses stages
    pth = sprt_path(tmp_path / "c", json.loads((tmp_path / "c" / "compare.json").read_text()))
    assert len(pth["llr"]) == sp["discordant"]
    # the LLR is s log(p1/p0) + f log((1-p1)/(1-p0)) over the discordant games
    s, f = sp["b_better"], sp["discordant"] - sp["b_better"]
    assert pth["llr"][-1] == pytest.approx(s * math.log(0.6 / 0.5) + f * math.log(0.4 / 0.5), abs=1e-9)
    assert pth["llr"][-1] == pytest.approx(sp["llr"], abs=1e-9) and pth["game"][-1] == sp["decided_at"]
    assert all(sp["lower"] < v < sp["upper"] for v in pth["llr"][:-1])
    fig = sprt_figure(tmp_path / "c", c)
    ax = fig.axes[0]
    levels = {round(float(ln.get_ydata()[0]), 9) for ln in ax.lines if len(set(ln.get_ydata())) == 1}
    assert {round(sp["lower"], 9), round(sp["upper"], 9)} <= levels
    assert "A = bias=0.3; B = bias=0.45" in ax.get_title()
    assert simlab.plot(tmp_path / "c").name == "plot-sprt.png"
    nosprt = simlab.compare(game="synthetic", set_a=["bias=0.3"], set_b=["bias=0.45"], games=100,
                            out=tmp_path / "n", **FAST)
    with pytest.raises(InputError, match="--sprt"):
        simlab.plot(nosprt["path"], kind="sprt")


# --------------------------------------------------------------------------- tune output
def test_tune_output_leads_with_the_answer(tmp_path, capsys):
    assert main(["tune", "synthetic", "--scenario", "dice-race", "--param", "handicap", "--range", "1:6",
                 "--games", "400", "--workers", "1", "--no-progress", "--replicates", "200", "--bids",
                 "--out", str(tmp_path / "t")]) == 0
    out = capsys.readouterr().out
    first = out.strip().splitlines()[0]
    assert first.startswith("fair handicap for equal win rates: ") and "95% interval [" in first
    assert out.index("fair handicap") < out.index("win / draw / loss rates") < out.index("bidding for")


def test_tune_says_which_range_would_work(tmp_path, capsys):
    # the dice race's fair handicap is 3.5 VP; a range above it does not cross
    t = simlab.tune("synthetic", scenario="dice-race", param="handicap", range_="8:12", games=400, replicates=100,
                    out=tmp_path / "t", **FAST)
    assert t["fair_value"] is None and t["suggested_range"] is not None
    lo, hi = (float(v) for v in t["suggested_range"].split(":"))
    assert lo < 3.5 < hi <= 8 and f"try --range {t['suggested_range']}" in t["note"]
    # values that cannot be played (no Rule 9 squadron of 6 points): named, with the range that can
    assert main(["tune", "mar-rojo", "--scenario", "points-built", "--param", "points_nationalist", "--range", "6:12:2",
                 "--set", "points_republican=15", "--games", "20", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "points_nationalist = 6 cannot be played" in err[0] and "try --range 8:12:2" in err[0]
    assert not (tmp_path / "m").exists()


def test_the_notebooks_mar_rojo_points_range_is_playable_as_shipped():
    """The handicaps notebook's default Mar Rojo range: every value builds a legal squadron."""
    from simlab.analysis.tune import _preflight_values
    from simlab.sweeps.spec import spec_from_args
    nb = nbformat.read(Path(__file__).resolve().parent.parent / "notebooks" / "handicaps_and_bids.ipynb", as_version=4)
    params: dict = {}
    exec(nb.cells[0].source, params)
    spec = spec_from_args("mar-rojo", scenario="points-built", set_=[f"points_republican={params['MARROJO_POINTS_HELD']}"],
                          games=10, seed=0, crn=True, name="nb")
    from simlab.analysis.tune import parse_range
    values = parse_range(params["MARROJO_POINTS_RANGE"], int)
    assert len(values) >= 5
    _preflight_values(spec, "points_nationalist", values, params["MARROJO_POINTS_RANGE"])  # raises if not
    with pytest.raises(InputError, match="cannot be played"):
        _preflight_values(spec, "points_nationalist", [6] + values, "6:24:2")


def test_a_policy_grid_sweep_prints_its_matrix(tmp_path, capsys):
    assert main(["sweep", "--game", "synthetic", "--policy", "red=rock,paper", "--policy", "blue=paper,scissors",
                 "--games", "100", "--seed", "1", "--workers", "1", "--no-progress", "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    d = duck_rates(tmp_path / "s")
    r = d[(d.pr == "paper") & (d.pb == "scissors")].iloc[0]
    lo, hi = wilson(int(r.red), int(r.n))
    line = next(x for x in out.splitlines() if x.strip("│ ").startswith("paper ") and "[" in x)
    assert line.rstrip(" │").endswith(f"{100 * r.red / r.n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]")
