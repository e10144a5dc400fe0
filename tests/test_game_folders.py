"""A game is its folder (issue 27): no module of simlab outside a game's own folder and the registry
(simlab/games/__init__.py) names a registered game, by its name or by its module path, so the
framework, the bench, the golden and the solved-population checks find every game through the
registry. Docstring examples that only illustrate a format are listed in ``EXAMPLES``, each with why.
"""

from __future__ import annotations

import re
from pathlib import Path

from simlab.games import game_names, game_target, get_game
from simlab.games.schema import game_columns

ROOT = Path(__file__).resolve().parent.parent
SIMLAB = ROOT / "simlab"

#: (file relative to simlab/, a substring of the line): example strings that may name a game
EXAMPLES = {
    ("api.py", '``simlab.odds("doe-battle", "battle.toml"'),  # the docstring's call example
    ("datapack.py", 'game = "dawn-of-empire"'),  # an example pack.toml in the module docstring
    ("games/base.py", 'registry name, e.g. ``"doe-battle"``'),  # what Game.name looks like
    ("kernel_cache.py", 'e.g. ``("simlab.games.doe.kernels", ...)``'),  # what a kernel module name looks like
    ("sweeps/spec.py", 'game = "doe-battle"'),  # an example experiment TOML in the module docstring
    ("testing/mutate.py", 'id = "mar-rojo/reorganise-only-at-equal-stress"'),  # an example mutations.toml entry
    ("testing/mutate.py", 'file = "simlab/games/mar_rojo/legality.py"'),  # the same entry's file
}


def _shipped() -> dict[str, str]:
    """``{game name: its package under simlab.games}`` for every game simlab ships."""
    out = {}
    for name in game_names():
        target = game_target(name)
        if target.startswith("simlab.games."):
            out[name] = target.split(":")[0].split(".")[2]
    return out


def _patterns(name: str, pkg: str) -> list[re.Pattern]:
    ps = [rf"[\"'/]{re.escape(name)}[\"'/]", rf"--game[ =]{re.escape(name)}\b",
          rf"\bgames[./]{pkg}\b", rf"from \.+{pkg}\b", rf"from \.+games\.{pkg}\b"]
    if "-" in name:  # a hyphenated name is never an English word: any mention counts
        ps.append(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    return [re.compile(p) for p in ps]


def _owner(rel: str, pkg: str) -> bool:
    """Whether ``rel`` (relative to simlab/) lies in the folder of the game whose package is ``pkg``
    (a single-module game such as ``synthetic`` owns ``games/<pkg>*``)."""
    return rel.startswith(f"games/{pkg}")  # a folder shared by two games (doe) owns both


def _mentions() -> list[str]:
    games = _shipped()
    pats = {n: (pkg, _patterns(n, pkg)) for n, pkg in games.items()}
    found = []
    for p in sorted(SIMLAB.rglob("*")):
        if p.suffix not in (".py", ".toml", ".md") or "__pycache__" in p.parts:
            continue
        rel = p.relative_to(SIMLAB).as_posix()
        if rel == "games/__init__.py":
            continue
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            for name, (pkg, rs) in pats.items():
                if _owner(rel, pkg) or any(r == rel and s in line for r, s in EXAMPLES):
                    continue
                if any(r.search(line) for r in rs):
                    found.append(f"simlab/{rel}:{i}: names {name}: {line.strip()[:100]}")
    return found


def test_no_module_outside_the_game_folders_and_the_registry_names_a_game():
    assert len(_shipped()) >= 5
    found = _mentions()
    assert not found, "a module outside its game's folder names a game (declare it on the Game instead):\n" + \
        "\n".join(found)


def test_the_scan_sees_a_game_named_outside_its_folder():
    # the scan is not blind: a line naming a game's module or name is caught
    pats = _patterns("mar-rojo", "mar_rojo")
    assert any(r.search("from ..games.mar_rojo.game import MarRojo") for r in pats)
    assert any(r.search('if gname == "mar-rojo":') for r in pats)
    assert any(r.search("EXTRA = {'mar-rojo': 1}") for r in pats)
    assert not any(r.search("a game of the registry") for r in pats)
    one = _patterns("dreadnought", "dreadnought")
    assert any(r.search('TRACE = {"dreadnought": {"shots": True}}') for r in one)
    assert not any(r.search("Dreadnought battles are recorded") for r in one)


def test_every_example_still_exists():
    # an allowed example that no longer occurs is dropped from EXAMPLES, so the list cannot rot
    for rel, s in EXAMPLES:
        assert s in (SIMLAB / rel).read_text(encoding="utf-8"), (rel, s)


def test_each_game_declares_its_columns_file_inside_its_own_folder():
    for name, pkg in _shipped().items():
        game = get_game(name)
        # the columns: a record declared beside the kernels' out slots (simlab.games.records), or a TOML file
        records = game.output_records or ((game.output_record,) if game.output_record is not None else ())
        where = records[0].where if records else game.columns_file
        assert where is not None, name
        rel = Path(where).resolve().relative_to(SIMLAB).as_posix()
        assert _owner(rel, pkg), (name, rel)
        assert game_columns(game), name
    assert not list((SIMLAB / "games" / "columns").glob("*.toml"))  # the old shared folder is gone
