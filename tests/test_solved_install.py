"""`python -m simlab.testing.solved_install`: a finished solve shipped as a game's population, its
README's figures read from the solve's own files."""

import json
import shlex
import shutil
import tomllib
from pathlib import Path

import pytest

from simlab.games import get_game
from simlab.testing.solved_install import AUTO_ROLLOUT_GAMES, SOLVE_DEFAULTS, command, main, readme

ROOT = Path(__file__).resolve().parent.parent
SOLVED = sorted(p.parent for p in (ROOT / "simlab" / "games").rglob("solved/*/policies.toml"))
DOGGER = ROOT / "simlab" / "games" / "dreadnought" / "solved" / "dogger-bank"


def _flags(cmd: str) -> dict:
    words = shlex.split(cmd.replace("\\\n", " "))
    assert words[:3] == ["simlab", "solve", words[2]]
    return {"game": words[2], **{words[i]: words[i + 1] for i in range(3, len(words), 2)}}


@pytest.mark.parametrize("folder", SOLVED, ids=lambda p: p.name)
def test_the_rebuilt_command_is_the_one_each_shipped_readme_gives(folder):
    run = json.loads((folder / "solve.json").read_text())
    text = (folder / "README.md").read_text()
    start = text.index("    simlab solve")
    shown = text[start:text.index("\n\n", start)]
    want = _flags(command(run))
    got = _flags(shown)
    if "--scenario" not in got and want["--scenario"] == get_game(run["game"]).default_scenario:
        want.pop("--scenario")           # a README may leave out the game's default scenario
    assert got == want


def test_the_defaults_left_out_of_a_command_are_simlab_solves():
    import inspect

    from simlab.solve.loop import solve
    params = inspect.signature(solve).parameters
    assert SOLVE_DEFAULTS == {k: params[k].default for k in SOLVE_DEFAULTS}
    from simlab.solve.rollout import AUTO_GAMES
    assert AUTO_ROLLOUT_GAMES == AUTO_GAMES


def test_the_command_and_readme_of_a_solve_that_ends_with_a_rollout():
    """A solve.json with the closing rollout (issue 29): the command gives --method and the rollout
    settings only where they differ from what a plain command does; the README gives both methods."""
    run = json.loads((DOGGER / "solve.json").read_text())
    plain = command(run)  # written before --method auto: no method fields, no flag
    assert "--method" not in plain and "--rollout" not in plain
    conf = run["settings"]["confirm_games"]
    auto = {**run, "method": "both", "method_requested": "auto",
            "settings": {**run["settings"], "rollouts": 4, "rollout_games": min(AUTO_ROLLOUT_GAMES, conf)}}
    assert command(auto) == plain
    tuned = {**auto, "settings": {**auto["settings"], "rollouts": 8, "rollout_games": 50}}
    assert _flags(command(tuned))["--rollouts"] == "8" and _flags(command(tuned))["--rollout-games"] == "50"
    assert _flags(command({**run, "method": "knobs", "method_requested": "knobs"}))["--method"] == "knobs"
    both = _flags(command({**auto, "method_requested": "both",
                           "settings": {**auto["settings"], "rollout_games": 400}}))
    assert both["--method"] == "both" and "--rollout-games" not in both
    ex = run["final"]["exploitability"]
    r = {"base": "solve-british-1", "rollouts": 4, "games": 100, "gain": 0.31, "ci": [0.2, 0.42], "knob_gain": 0.05,
         "knob_ci": [0.0, 0.1], "over_knobs": {"gain": 0.26, "ci": [0.15, 0.37]}, "significant": True}
    ex2 = {**ex, "per_method": {"knobs": ex["estimate"], "rollout": 0.31}, "estimate": 0.31,
           "rollout_per_side": {"british": r, "german": {"gain": None, "note": "not played: no exploiter"}},
           "misses": ["a plan outside the families gains +0.260 [+0.150, +0.370] over the knob best response; "
                      "the families miss something"]}
    book = tomllib.loads((DOGGER / "policies.toml").read_text())
    text = readme({**auto, "final": {**run["final"], "exploitability": ex2}}, book, "Dogger Bank", "Dreadnought")
    assert ("Rollout response of british (4 rollouts from `solve-british-1`, 100 games per opponent): gain +0.310 "
            "[+0.200, +0.420] over british's mix, its base +0.050 on the same games, rollout \u2212 base +0.260 "
            "[+0.150, +0.370].") in text
    assert "Rollout response of german: not played: no exploiter." in text
    assert f"Exploitability by method: knobs {ex['estimate']:.3f}, rollout 0.310; the estimate above is the larger." in text
    assert "the families miss something" in text
    off = {**ex, "rollout": "not available for dreadnought (the game has no rollout exploiter; ...)"}
    assert "Rollout response: not available for dreadnought" in readme({**run, "final": {**run["final"],
                                                                        "exploitability": off}}, book, "D", "D")


def test_the_readme_reads_every_figure_from_the_solve():
    run = json.loads((DOGGER / "solve.json").read_text())
    book = tomllib.loads((DOGGER / "policies.toml").read_text())
    text = readme(run, book, "Dogger Bank", "Dreadnought", why="Why.", wall=133,
                  where="simlab/games/dreadnought/solved/dogger-bank")
    assert "Why.\n" in text and "after 4 iteration(s) and 77,600 of 100,000 games (2.2 min wall)" in text
    assert "| final mix (iteration 4) | +0.025 | [\u22120.055, +0.115] | british `solve-british-1`; german `solve-german-3` |" in text
    assert "| german | 0.785 [0.680, 0.885] | 0.615 [0.500, 0.725] | 0.665 [0.555, 0.780] | (not offered) |" in text
    assert "1 + v = 1.025" in text and "1 \u2212 v = 0.975" in text
    # the hand-written README shipped for Dogger Bank agrees with what the tool reads
    shipped = (DOGGER / "README.md").read_text()
    assert "| final mix (iteration 4) | +0.025 | [\u22120.055, +0.115] |" in shipped


def test_an_unfinished_solve_is_refused_in_one_line_and_nothing_is_written(tmp_path, capsys):
    for name in ("policies.toml", "solve.json"):
        shutil.copyfile(DOGGER / name, tmp_path / name)
    run = json.loads((tmp_path / "solve.json").read_text())
    del run["conditions"]
    (tmp_path / "solve.json").write_text(json.dumps(run))
    before = {p: p.read_bytes() for p in DOGGER.iterdir()}
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no conditions stamp" in err
    assert {p: p.read_bytes() for p in DOGGER.iterdir()} == before


def test_a_solve_of_other_rows_is_refused(tmp_path, capsys):
    for name in ("policies.toml", "solve.json"):
        shutil.copyfile(DOGGER / name, tmp_path / name)
    run = json.loads((tmp_path / "solve.json").read_text())
    run["conditions"]["game_version"] = "0" * 64
    (tmp_path / "solve.json").write_text(json.dumps(run))
    assert main([str(tmp_path), "--dry-run"]) == 2
    assert "re-run the solve" in capsys.readouterr().err
